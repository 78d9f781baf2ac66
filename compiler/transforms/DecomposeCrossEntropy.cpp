//===- DecomposeCrossEntropy.cpp - nova.cross_entropy into primitives -----===//
//
// nova.cross_entropy and its backward as an f32 log-softmax over the class
// dim, a gather of the target logits and selects for ignored rows: the
// portable form for targets without Nova's row kernels.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVADECOMPOSECROSSENTROPY
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// The primitives of one cross-entropy op over logits [N, C] and target [N].
struct CrossEntropyEmitter {
  PatternRewriter &rewriter;
  Location loc;
  Value target;
  int64_t ignoreIndex;
  int64_t n, c;
  RankedTensorType matrix, rows; // [N, C] and [N] f32

  CrossEntropyEmitter(PatternRewriter &rewriter, Location loc, Value logits,
                      Value target, int64_t ignoreIndex)
      : rewriter(rewriter), loc(loc), target(target),
        ignoreIndex(ignoreIndex) {
    auto type = cast<RankedTensorType>(logits.getType());
    n = type.getDimSize(0);
    c = type.getDimSize(1);
    matrix = type.clone(rewriter.getF32Type());
    rows = RankedTensorType::get({n}, rewriter.getF32Type());
  }

  Value splat(RankedTensorType type, Attribute value) {
    return ConstantOp::create(rewriter, loc, type,
                              DenseElementsAttr::get(type, value));
  }
  Value splat(RankedTensorType type, double value) {
    return splat(type, rewriter.getFloatAttr(type.getElementType(), value));
  }
  Value f32(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType().isF32())
      return x;
    return CastOp::create(rewriter, loc, type.clone(rewriter.getF32Type()), x);
  }
  /// A row value [N] broadcast along the class dim.
  Value broadcast(Value row) {
    auto type = cast<RankedTensorType>(row.getType());
    return BroadcastInDimOp::create(
        rewriter, loc, RankedTensorType::get({n, c}, type.getElementType()),
        row, rewriter.getDenseI64ArrayAttr({0}));
  }
  template <typename ReduceOpT> Value rowReduce(Value x) {
    return ReduceOpT::create(rewriter, loc, rows, x,
                             rewriter.getDenseI64ArrayAttr({1}),
                             /*keepdim=*/false);
  }
  /// Rows whose target is not ignore_index.
  Value valid() {
    auto type = cast<RankedTensorType>(target.getType());
    return CompareOp::create(
        rewriter, loc, type.clone(rewriter.getI1Type()), CompareDirection::NE,
        target,
        splat(type, rewriter.getIntegerAttr(type.getElementType(), ignoreIndex)));
  }
  /// The target, 0 on ignored rows (an index gather can read).
  Value safeTarget(Value isValid) {
    auto type = cast<RankedTensorType>(target.getType());
    return SelectOp::create(
        rewriter, loc, type, isValid, target,
        splat(type, rewriter.getIntegerAttr(type.getElementType(), 0)));
  }
};

/// lse = m + log(rowsum(exp(x - m))) with m = rowmax(x), loss = valid ?
/// lse - x[i, target] : 0, all in f32.
struct DecomposeCrossEntropy : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("lowering_config"))
      return rewriter.notifyMatchFailure(op, "runs Nova's kernel");
    Location loc = op.getLoc();
    CrossEntropyEmitter e(rewriter, loc, op.getLogits(), op.getTarget(),
                          op.getIgnoreIndex());
    Value x = e.f32(op.getLogits());
    Value max = e.rowReduce<ReduceMaxOp>(x);
    Value sum = e.rowReduce<ReduceSumOp>(ExpOp::create(
        rewriter, loc, SubOp::create(rewriter, loc, x, e.broadcast(max))
                           .getResult()));
    Value lse = AddOp::create(rewriter, loc, max,
                              LogOp::create(rewriter, loc, sum).getResult());
    Value isValid = e.valid();
    auto indexType = cast<RankedTensorType>(op.getTarget().getType());
    auto columnType =
        RankedTensorType::get({e.n, 1}, indexType.getElementType());
    Value picked = GatherOp::create(
        rewriter, loc, RankedTensorType::get({e.n, 1}, rewriter.getF32Type()),
        x, ReshapeOp::create(rewriter, loc, columnType, e.safeTarget(isValid)),
        /*dim=*/1);
    Value loss = SelectOp::create(
        rewriter, loc, e.rows, isValid,
        SubOp::create(rewriter, loc, lse,
                      ReshapeOp::create(rewriter, loc, e.rows, picked))
            .getResult(),
        e.splat(e.rows, 0.0));
    rewriter.replaceOp(op, {loss, lse});
    return success();
  }
};

/// grad_logits = g * (exp(x - lse) - onehot(target)) with g = valid ?
/// grad_loss : 0, in f32, then the logits' type.
struct DecomposeCrossEntropyBackward
    : OpRewritePattern<CrossEntropyBackwardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyBackwardOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("lowering_config"))
      return rewriter.notifyMatchFailure(op, "runs Nova's kernel");
    Location loc = op.getLoc();
    CrossEntropyEmitter e(rewriter, loc, op.getLogits(), op.getTarget(),
                          op.getIgnoreIndex());
    Value x = e.f32(op.getLogits());
    Value p = ExpOp::create(
        rewriter, loc,
        SubOp::create(rewriter, loc, x, e.broadcast(op.getLse())).getResult());
    Value isValid = e.valid();
    auto indexType = cast<RankedTensorType>(op.getTarget().getType());
    auto classes = RankedTensorType::get({e.n, e.c}, indexType.getElementType());
    Value isTarget = CompareOp::create(
        rewriter, loc, classes.clone(rewriter.getI1Type()),
        CompareDirection::EQ, IotaOp::create(rewriter, loc, classes, uint64_t{1}),
        e.broadcast(e.safeTarget(isValid)));
    Value onehot = SelectOp::create(rewriter, loc, e.matrix, isTarget,
                                    e.splat(e.matrix, 1.0),
                                    e.splat(e.matrix, 0.0));
    Value g = SelectOp::create(rewriter, loc, e.rows, isValid,
                               op.getGradLoss(), e.splat(e.rows, 0.0));
    Value grad = MulOp::create(
        rewriter, loc, e.broadcast(g),
        SubOp::create(rewriter, loc, p, onehot).getResult());
    auto resultType = cast<RankedTensorType>(op.getGradLogits().getType());
    if (!resultType.getElementType().isF32())
      grad = CastOp::create(rewriter, loc, resultType, grad);
    rewriter.replaceOp(op, grad);
    return success();
  }
};

/// A fused pair without Nova's kernel: the forward and the backward again
/// (each then decomposed in turn, or configured by a later
/// nova-configure-kernels).
struct SplitCrossEntropyWithGrad : OpRewritePattern<CrossEntropyWithGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyWithGradOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("lowering_config"))
      return rewriter.notifyMatchFailure(op, "runs Nova's kernel");
    rewriter.replaceOp(op, op.createUnfused(rewriter));
    return success();
  }
};

struct NovaDecomposeCrossEntropyPass
    : public mlir::nova::impl::NovaDecomposeCrossEntropyBase<
          NovaDecomposeCrossEntropyPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeCrossEntropy, DecomposeCrossEntropyBackward,
                 SplitCrossEntropyWithGrad>(&getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace
