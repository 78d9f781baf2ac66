//===- FuseMatmulEpilogue.cpp - matmuls into their consumers' regions -----===//
//
// A bf16 nova.matmul read by a nova.fused region moves into that region as
// its first op: the GEMM kernel then computes the region in its epilogue
// (WgmmaGemmKernel.h), and the product is never read back, nor is there a
// launch of its own. Where others read the product too (a pre-activation
// the backward needs), the region also yields it: the epilogue stores both,
// and the region's kernel no longer reads it. Only where the GEMM's
// epilogue can run the region: no row reductions (its rows span many tiles),
// bf16 element results, partial column sums over groups of 16 rows (a warp's
// rows of an MMA tile), N a multiple of 8 (TMA stores), and at most one
// other element input, bf16, which the kernel stages in shared memory.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/codegen/cuda/WgmmaGemmKernel.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAFUSEMATMULEPILOGUE
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// Whether `op` is a 2-D bf16 product the epilogue GEMM computes.
bool isEpilogueMatmul(MatmulOp op) {
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  RankedTensorType result = op.getType();
  return lhs.getRank() == 2 && rhs.getRank() == 2 && result.hasStaticShape() &&
         lhs.hasStaticShape() && rhs.hasStaticShape() &&
         lhs.getElementType().isBF16() && rhs.getElementType().isBF16() &&
         result.getElementType().isBF16() && result.getDimSize(1) % 8 == 0 &&
         !op->hasAttr("lowering_config");
}

/// `fused` with `matmul` (its input `index`) as the first op of its region,
/// reading the matmul's operands as inputs of their own, and (`yieldProduct`)
/// the product as a last result; built before `fused`.
FusedOp withMatmul(OpBuilder &b, FusedOp fused, MatmulOp matmul,
                   unsigned index, bool yieldProduct) {
  SmallVector<Value> inputs = {matmul.getLhs(), matmul.getRhs()};
  for (auto [i, v] : llvm::enumerate(fused.getInputs()))
    if (i != index)
      inputs.push_back(v);
  b.setInsertionPoint(fused);
  SmallVector<Type> resultTypes(fused.getResultTypes());
  if (yieldProduct)
    resultTypes.push_back(matmul.getType());
  auto merged = FusedOp::create(b, fused.getLoc(), resultTypes, inputs,
                                /*lowering_config=*/nullptr);
  Block *entry = new Block();
  merged.getBody().push_back(entry);
  for (Value v : inputs)
    entry->addArgument(v.getType(), v.getLoc());
  Block &body = fused.getBody().front();
  IRMapping mapping;
  mapping.map(matmul.getLhs(), entry->getArgument(0));
  mapping.map(matmul.getRhs(), entry->getArgument(1));
  b.setInsertionPointToStart(entry);
  Operation *product = b.clone(*matmul, mapping);
  unsigned next = 2;
  for (BlockArgument arg : body.getArguments())
    mapping.map(arg, arg.getArgNumber() == index ? Value(product->getResult(0))
                                                 : entry->getArgument(next++));
  for (Operation &op : body)
    b.clone(op, mapping);
  if (yieldProduct)
    cast<YieldOp>(entry->getTerminator())
        .getValuesMutable()
        .append(product->getResult(0));
  return merged;
}

struct FuseMatmulEpiloguePass
    : nova::impl::NovaFuseMatmulEpilogueBase<FuseMatmulEpiloguePass> {
  using Base::Base;

  void runOnOperation() override {
    // Only Hopper's GEMM kernel has the epilogue.
    std::string arch = target;
    auto module = dyn_cast<ModuleOp>(getOperation());
    if (!module)
      module = getOperation()->getParentOfType<ModuleOp>();
    if (arch.empty() && module)
      if (auto attr = module->getAttrOfType<TargetAttr>(cuda::kTargetAttrName))
        arch = attr.getArch().str();
    if (!StringRef(arch).starts_with("sm_90"))
      return;
    SmallVector<FusedOp> regions;
    getOperation()->walk([&](FusedOp op) { regions.push_back(op); });
    OpBuilder b(&getContext());
    for (FusedOp fused : regions) {
      if (fused.getLoweringConfigAttr() ||
          !fused.getBody().getOps<MatmulOp>().empty())
        continue;
      for (auto [index, input] : llvm::enumerate(fused.getInputs())) {
        auto matmul = input.getDefiningOp<MatmulOp>();
        if (!matmul || !isEpilogueMatmul(matmul) ||
            llvm::count(fused.getInputs(), input) != 1)
          continue;
        bool yieldProduct = !input.hasOneUse();
        // The other readers then read the region's result: they must come
        // after it.
        if (yieldProduct && llvm::any_of(input.getUsers(), [&](Operation *u) {
              return u != fused.getOperation() &&
                     (u->getBlock() != fused->getBlock() ||
                      !fused->isBeforeInBlock(u));
            }))
          continue;
        // The GEMM binds the region's inputs and results and its tensor maps.
        if (fused.getInputs().size() + 1 + fused.getNumResults() +
                yieldProduct + 1 >
            cuda::kMaxDispatchBindings)
          continue;
        FusedOp merged = withMatmul(b, fused, matmul, index, yieldProduct);
        // A region with another element input (a pre-activation) only with
        // `stage-inputs`: the kernel stages it in shared memory by TMA loads
        // under the tile's main loop. Loaded at each fragment pair from
        // global memory instead it cost more than the product's round trip
        // saves (gpt-146m's GELU backward in its 16384x3072x768 input
        // gradient: 412 us against 101 + 134 us as two kernels, H200);
        // staged (2375cab), 346 us against ~119 + 149 us (H100). Both were
        // measured with the MMAs serialized by ptxas (C7520: the region's
        // live values next to a ping-pong 128x128 consumer's 128
        // accumulators), which the configurator now avoids for staged
        // epilogues (stagedInputs in GemmConfigurator.cpp): off until
        // measured again.
        std::string why;
        FailureOr<cuda::FusedRowsPlan> plan =
            cuda::analyzeFusedRows(merged, why);
        if (failed(plan) || failed(cuda::checkEpilogueRegion(*plan, why)) ||
            (!stageInputs && plan->elementInputs > 0)) {
          merged->erase();
          continue;
        }
        fused->replaceAllUsesWith(
            merged->getResults().take_front(fused.getNumResults()));
        fused->erase();
        if (yieldProduct)
          matmul->replaceAllUsesWith(
              ValueRange{merged->getResults().back()});
        matmul->erase();
        break;
      }
    }
  }
};

} // namespace
