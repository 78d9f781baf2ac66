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
// rows of an MMA tile), N a multiple of 8 (TMA stores); and only where it
// gains: no element input besides the product (see epilogueRuns).
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

/// Whether the GEMM epilogue runs `plan`'s region (checkEpilogueRegion)
/// and gains by it: it runs after each tile's main loop with the tensor
/// cores idle (both consumer warp groups work on one tile), so another
/// element input, loaded at each fragment pair, costs more than the
/// product's round trip saves. Measured on the H200: gpt-146m's GELU
/// backward (the pre-activation read at each pair) in the epilogue of its
/// 16384x3072x768 input-gradient GEMM took 412 us against 101 + 134 us as
/// two kernels; the QKV projection's bias add (a column vector) 92 against
/// 76 + 40 us. Staged in shared memory by TMA loads under the main loop
/// instead (2375cab, reverted), the pre-activation still cost more: 346 us
/// against about 119 + 149 us on the H100, gpt-42m and gpt-146m steps 4%
/// and 3% slower (ncu: 0.31 instructions issued a cycle a scheduler) - but
/// ptxas had serialized that kernel's wgmma (C7520), as it does this region
/// at ping-pong 128x128 however the pre-activation is read (its live values
/// next to 128 accumulators a thread), which no shipped GEMM draws
/// (tools/ptxas_report.py); at ping-pong 64x128 it compiles clean: worth
/// another try there.
bool epilogueRuns(const cuda::FusedRowsPlan &plan) {
  std::string why;
  return plan.elementInputs == 0 &&
         succeeded(cuda::checkEpilogueRegion(plan, why));
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
        std::string why;
        FailureOr<cuda::FusedRowsPlan> plan =
            cuda::analyzeFusedRows(merged, why);
        if (failed(plan) || !epilogueRuns(*plan)) {
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
