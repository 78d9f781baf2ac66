//===- Fused.cpp - configured nova.fused regions through Nova's kernels ---===//
//
// A nova.fused region the configurator gave a "fused_rows" config becomes
// one dispatch of Nova's fused-rows kernel
// (compiler/codegen/cuda/FusedRowsKernel.h): the region's inputs are its
// bindings, its results are written whole (untied), one warp per row. The
// kernels are generated in parallel, then the regions are replaced. A
// region given "column_sums" (a column reduction's second stage) becomes one
// dispatch of Nova's column-sums kernel (ColumnSumsKernel.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/ColumnSumsKernel.h"
#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;

namespace {

struct Planned {
  FusedOp op;
  cuda::FusedRowsPlan plan;
  cuda::FusedRowsSpec spec;
};

/// `op` replaced by one dispatch of `name` over `ctas` CTAs of `threads`
/// (declared once, from `buildPtx`): the region's inputs bound read-only,
/// its results written whole.
LogicalResult dispatchRegion(IRRewriter &rewriter, ModuleOp module, FusedOp op,
                             StringRef what, const std::string &name,
                             int64_t threads, int64_t ctas,
                             function_ref<std::string(std::string &)> buildPtx,
                             bool poison) {
  KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings.assign(op.getInputs().size(), true);
  kernel.readOnlyBindings.append(op.getNumResults(), false);
  kernel.workgroupSize = {threads, 1, 1};
  if (failed(declareKernelOnce(module, op, what, kernel, buildPtx)))
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  KernelDispatchBuilder dispatch(rewriter, loc, poison);
  for (Value input : op.getInputs())
    dispatch.input(input);
  for (Type type : op.getResultTypes())
    dispatch.result(cast<RankedTensorType>(type));
  rewriter.replaceOp(
      op, dispatch.create(name, name,
                          arith::ConstantIndexOp::create(rewriter, loc, ctas)));
  return success();
}

LogicalResult lower(IRRewriter &rewriter, ModuleOp module, Planned &p,
                    bool poison) {
  return dispatchRegion(
      rewriter, module, p.op, "fused-rows kernel", p.spec.kernelName,
      32 * p.spec.warps, cuda::fusedRowsCtas(p.plan, p.spec),
      [&](std::string &error) {
        return cuda::fusedRowsPtx(p.op, p.plan, p.spec, error);
      },
      poison);
}

/// Regions configured "column_sums": one dispatch each of their kernel.
LogicalResult injectColumnSums(ModuleOp module, bool poison) {
  SmallVector<FusedOp> ops;
  module.walk([&](FusedOp op) {
    auto config = op.getLoweringConfigAttr();
    if (config && config.getKernel() == "column_sums")
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  if (failed(requireUnregisteredDialects(ops.front())))
    return failure();
  IRRewriter rewriter(module.getContext());
  for (FusedOp op : ops) {
    std::string why;
    FailureOr<cuda::ColumnSumsSpec> spec = cuda::analyzeColumnSums(op, why);
    if (failed(spec))
      return op.emitError() << "column_sums config cannot be built: " << why;
    if (failed(dispatchRegion(
            rewriter, module, op, "column-sums kernel", spec->kernelName,
            cuda::kColumnSumsThreads, spec->ctas(),
            [&](std::string &error) {
              return cuda::columnSumsPtx(*spec, error);
            },
            poison)))
      return failure();
  }
  return success();
}

} // namespace

LogicalResult nova_to_iree::injectFusedKernels(ModuleOp module,
                                               bool poisonOutputs) {
  if (failed(injectColumnSums(module, poisonOutputs)))
    return failure();
  SmallVector<Planned> ops;
  bool failedSpec = false;
  module.walk([&](FusedOp op) {
    auto config = op.getLoweringConfigAttr();
    if (!config || config.getKernel() != "fused_rows")
      return;
    std::string why;
    FailureOr<cuda::FusedRowsPlan> plan = cuda::analyzeFusedRows(op, why);
    FailureOr<cuda::FusedRowsSpec> spec = failure();
    if (succeeded(plan))
      spec = cuda::fusedRowsSpec(op, *plan, why);
    if (failed(spec)) {
      op.emitError() << "fused_rows config cannot be built: " << why;
      failedSpec = true;
      return;
    }
    ops.push_back({op, std::move(*plan), std::move(*spec)});
  });
  if (failedSpec)
    return failure();
  if (ops.empty())
    return success();
  if (failed(requireUnregisteredDialects(ops.front().op)))
    return failure();
  // Each distinct kernel's PTX is generated once, all of them in parallel
  // (LLVM's NVPTX back end is most of the time; a gpt-146m step has ~40
  // row kernels); the lowering below finds them in the cache. The workers
  // only read the regions.
  llvm::StringMap<std::function<std::string(std::string &)>> kernels;
  for (Planned &p : ops)
    if (!hasExecutable(module, p.spec.kernelName))
      kernels.try_emplace(p.spec.kernelName, [&p](std::string &error) {
        return cuda::fusedRowsPtx(p.op, p.plan, p.spec, error);
      });
  buildInParallel(llvm::to_vector(llvm::make_second_range(kernels)));
  IRRewriter rewriter(module.getContext());
  for (Planned &p : ops)
    if (failed(lower(rewriter, module, p, poisonOutputs)))
      return failure();
  return success();
}
