//===- NovaToLinalg.cpp - nova ops to linalg on tensors -------------------===//
//
// Lowers every nova op to linalg, tensor, arith and math ops on tensors: the
// input Nova hands to IREE as text. nova.fused regions are inlined and
// composite ops decomposed first, so the patterns see primitives only.
//
// Structured ops are emitted as linalg.generic (and linalg.fill), never as
// named ops: IREE 3.13 (LLVM 24) parses MLIR 22's generic form of
// linalg.generic, while e.g. MLIR 22's generic form of linalg.add is
// rejected ("'linalg.yield' op expected parent op with LinalgOp interface").
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/IREENamespaces.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTNOVATOLINALG
#include "compiler/conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

void populateNovaToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwisePatterns(patterns);
  populateMatmulPatterns(patterns);
  populateConvolutionPatterns(patterns);
  populateRandomPatterns(patterns);
  populateReductionsPatterns(patterns);
  populateDataMovementPatterns(patterns);
  populateOptimizersPatterns(patterns);
}

void inlineFusedRegions(ModuleOp module) {
  SmallVector<FusedOp> fusedOps;
  // Post-order: a nested group is inlined into its parent first.
  module.walk([&](FusedOp op) { fusedOps.push_back(op); });
  IRRewriter rewriter(module.getContext());
  for (FusedOp op : fusedOps) {
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getValues());
    rewriter.inlineBlockBefore(&body, op, op.getInputs());
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
  }
}

/// The patterns build static shapes (tensor.empty without sizes, constant
/// slice sizes); Nova captures with static shapes, so anything else is an
/// error here rather than a wrong lowering.
LogicalResult checkStaticShapes(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (!isa_and_nonnull<NovaDialect>(op->getDialect()))
      return WalkResult::advance();
    auto isDynamic = [](Type type) {
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped && !shaped.hasStaticShape();
    };
    if (llvm::any_of(op->getOperandTypes(), isDynamic) ||
        llvm::any_of(op->getResultTypes(), isDynamic)) {
      op->emitOpError() << "has a dynamic shape; convert-nova-to-linalg "
                           "lowers static shapes only";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct ConvertNovaToLinalgPass
    : mlir::nova::impl::ConvertNovaToLinalgBase<ConvertNovaToLinalgPass> {
  using ConvertNovaToLinalgBase::ConvertNovaToLinalgBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertNovaToLinalgBase::getDependentDialects(registry);
    registry.insert<IreeLinalgExtNamespace>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    inlineFusedRegions(module);

    RewritePatternSet decompose(context);
    populateNovaDecomposePatterns(decompose);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(module, std::move(decompose), config)) ||
        failed(checkStaticShapes(module)))
      return signalPassFailure();


    // Every nova op is illegal: a leftover one fails the pass with
    // "failed to legalize operation 'nova.…'" at its location.
    ConversionTarget target(*context);
    target.addIllegalDialect<NovaDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    // func ops, iree_linalg_ext.scatter, torch fallback ops, ...
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateNovaToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // Nova's module attributes (nova.target) are consumed here: the text
    // goes to IREE, which cannot parse nova attributes.
    for (NamedAttribute attr : llvm::to_vector(module->getAttrs()))
      if (attr.getName().getValue().starts_with("nova."))
        module->removeAttr(attr.getName());
  }
};

} // namespace

