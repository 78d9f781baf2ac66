//===- ScatterAdd.cpp - f32 scatter_add through Nova's CUDA kernel --------===//
//
// IREE 3.13 runs `iree_linalg_ext.scatter` with non-unique indices on ONE GPU
// thread (~330 ms of a 470 ms gpt-42m step on the H200). For CUDA, an f32
// nova.scatter_add becomes a dispatch of Nova's kernel instead (one thread per
// update element, an atomic add into its row; the kernel and its ABI:
// compiler/codegen/cuda/ScatterAddKernel.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/ScatterAddKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

#include <limits>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;
using namespace mlir::nova::nova_to_linalg;
using cuda::kScatterBlockSize;
using cuda::kScatterExecutable;
using cuda::kScatterKernel;

namespace {

/// Whether `op` goes to the CUDA kernel: f32 rows, a non-empty scatter and
/// sizes the kernel's 32-bit counters hold.
bool usesCudaScatterKernel(ScatterAddOp op) {
  RankedTensorType destType = tensorType(op.getDest());
  RankedTensorType updatesType = tensorType(op.getUpdates());
  if (!destType.getElementType().isF32() ||
      !updatesType.getElementType().isF32() || destType.getRank() < 1)
    return false;
  int64_t rows = destType.getDimSize(0);
  int64_t total = updatesType.getNumElements();
  constexpr int64_t limit = std::numeric_limits<int32_t>::max();
  return rows > 0 && total > 0 && rows <= limit &&
         total <= limit - kScatterBlockSize;
}
/// scatter_add as a `flow.dispatch` of the kernel into a fresh zero [V, D]
/// tensor (the dispatch's result is tied to it, accumulated in place; never
/// `dest` itself, which may be a caller's buffer, iree-org/iree#16168), then
/// `dest` added as on the CPU path.
void lowerScatterAddToCudaKernel(IRRewriter &rewriter, ScatterAddOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  RankedTensorType destType = tensorType(op.getDest());
  RankedTensorType indicesType = tensorType(op.getIndices());
  RankedTensorType updatesType = tensorType(op.getUpdates());
  Type f32 = rewriter.getF32Type();
  int64_t rows = destType.getDimSize(0);
  int64_t rowSize = destType.getNumElements() / rows;
  int64_t count = indicesType.getNumElements();
  int64_t total = updatesType.getNumElements();

  auto flatIndicesType = RankedTensorType::get({count}, rewriter.getI64Type());
  Value indices = reshapeTensor(
      rewriter, loc, op.getIndices(),
      RankedTensorType::get({count}, indicesType.getElementType()));
  if (!indicesType.getElementType().isInteger(64))
    indices = elementwise(rewriter, loc, flatIndicesType, indices,
                          [&](OpBuilder &b, Location l, ValueRange args) {
                            return castScalar(b, l, args[0],
                                              b.getI64Type());
                          });
  Value updates =
      reshapeTensor(rewriter, loc, op.getUpdates(),
                    RankedTensorType::get({count, rowSize}, f32));
  auto tableType = RankedTensorType::get({rows, rowSize}, f32);
  Value zero = filledTensor(rewriter, loc, tableType,
                            scalarConstant(rewriter, loc, f32, 0));
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, v, 32);
  };

  // The result is argument 3 (`zero`), accumulated in place.
  Value sums = createDispatch(
      rewriter, loc, kScatterExecutable, kScatterKernel,
      arith::ConstantIndexOp::create(rewriter, loc, total),
      {i32(total), i32(rowSize), i32(rows), zero, indices, updates},
      {tableType}, /*tiedTo=*/{3})[0];
  sums = reshapeTensor(rewriter, loc, sums, destType);
  rewriter.replaceOp(op, addScatterDest(rewriter, loc, op.getDest(), sums));
}

} // namespace

LogicalResult nova_to_iree::injectScatterAddKernels(ModuleOp module) {
  SmallVector<ScatterAddOp> ops;
  module.walk([&](ScatterAddOp op) {
    if (usesCudaScatterKernel(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  if (failed(requireUnregisteredDialects(ops.front())))
    return failure();
  if (!hasExecutable(module, kScatterExecutable)) {
    std::string error;
    std::string ptx = cuda::scatterAddPtx(error);
    if (ptx.empty())
      return module.emitError() << "could not build Nova's scatter-add "
                                   "kernel:\n"
                                << error;
    KernelExport kernel;
    kernel.name = kScatterKernel;
    kernel.readOnlyBindings = {false, true, true}; // dest, indices, updates
    kernel.constants = 3;                          // total, row size, rows
    kernel.workgroupSize = {kScatterBlockSize, 1, 1};
    kernel.grid = [](OpBuilder &b, Location loc, Value workload) {
      Value blocks = arith::CeilDivUIOp::create(
          b, loc, workload,
          arith::ConstantIndexOp::create(b, loc, kScatterBlockSize));
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      return SmallVector<Value, 3>{blocks, one, one};
    };
    createExecutable(module, kScatterExecutable, ptx, {kernel});
  }
  IRRewriter rewriter(module.getContext());
  for (ScatterAddOp op : ops)
    lowerScatterAddToCudaKernel(rewriter, op);
  return success();
}
