//===- DecomposeAttention.cpp - nova.attention into nova primitives -------===//
//
// nova.attention and nova.attention_backward as batched matmuls, the causal
// mask as a select against an iota comparison, and an f32 softmax: the
// portable form every target starts nova-lower-to-linalg with.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir::nova {
#define GEN_PASS_DEF_NOVADECOMPOSEATTENTION
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// Builds the primitives of one attention op: q `[batch..., Tq, D]`,
/// k `[batch..., Tk, D]` and the op's mask, causal flag and scale.
class AttentionEmitter {
public:
  AttentionEmitter(PatternRewriter &rewriter, Location loc, Value query,
                   Value key, Value mask, bool causal, double scale)
      : rewriter(rewriter), loc(loc), query(query), key(key), mask(mask),
        causal(causal), scale(scale) {
    auto q = cast<RankedTensorType>(query.getType());
    auto k = cast<RankedTensorType>(key.getType());
    element = q.getElementType();
    rank = q.getRank();
    batch.assign(q.getShape().begin(), q.getShape().end() - 2);
    tq = q.getDimSize(rank - 2);
    tk = k.getDimSize(rank - 2);
  }

  RankedTensorType typeOf(ArrayRef<int64_t> trailing, Type elementType) {
    SmallVector<int64_t> shape(batch);
    shape.append(trailing.begin(), trailing.end());
    return RankedTensorType::get(shape, elementType);
  }
  Type f32() { return rewriter.getF32Type(); }

  /// `x` converted to `elementType` (no op when it has it).
  Value castTo(Value x, Type elementType) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType() == elementType)
      return x;
    return CastOp::create(rewriter, loc, type.clone(elementType), x);
  }

  Value splat(RankedTensorType type, double value) {
    return ConstantOp::create(
        rewriter, loc, type,
        DenseElementsAttr::get(
            type, rewriter.getFloatAttr(type.getElementType(), value)));
  }

  /// `lhs @ rhs` with the operand layouts given by the flags.
  Value matmul(Value lhs, Value rhs, bool transposeLhs, bool transposeRhs,
               RankedTensorType resultType) {
    return MatmulOp::create(rewriter, loc, resultType, lhs, rhs, transposeLhs,
                            transposeRhs, LoweringConfigAttr());
  }

  /// The f32 scores `scale * q k^T (+ mask)`, -inf above the diagonal when
  /// causal: `[batch..., Tq, Tk]`. The matmul accumulates bf16/f16 operands
  /// into an f32 result (no rounding of the scores to the operands' type).
  Value scores() {
    RankedTensorType type = typeOf({tq, tk}, f32());
    Value s = matmul(query, key, /*transposeLhs=*/false, /*transposeRhs=*/true,
                     type);
    s = MulOp::create(rewriter, loc, s, splat(type, scale));
    if (mask) {
      // torch's broadcast: the mask's dims align with the trailing dims.
      auto maskType = cast<RankedTensorType>(mask.getType());
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < maskType.getRank(); ++d)
        dims.push_back(rank - maskType.getRank() + d);
      Value m = castTo(mask, f32());
      if (cast<RankedTensorType>(m.getType()).getShape() != type.getShape())
        m = BroadcastInDimOp::create(rewriter, loc, type, m,
                                     rewriter.getDenseI64ArrayAttr(dims));
      s = AddOp::create(rewriter, loc, s, m);
    }
    if (causal) {
      // Masked where the key position j exceeds the query position i.
      auto positions = RankedTensorType::get({tq, tk}, rewriter.getI64Type());
      Value row = IotaOp::create(rewriter, loc, positions, uint64_t{0});
      Value col = IotaOp::create(rewriter, loc, positions, uint64_t{1});
      Value above = CompareOp::create(
          rewriter, loc, positions.clone(rewriter.getI1Type()),
          CompareDirection::GT, col, row);
      Value masked = BroadcastInDimOp::create(
          rewriter, loc, type.clone(rewriter.getI1Type()), above,
          rewriter.getDenseI64ArrayAttr({rank - 2, rank - 1}));
      s = SelectOp::create(rewriter, loc, type, masked,
                           splat(type, -std::numeric_limits<double>::infinity()),
                           s);
    }
    return s;
  }

  /// Reduces `x` `[batch..., Tq, Tk]` over its last dim: `[batch..., Tq]`.
  template <typename ReduceOpT> Value rowReduce(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    return ReduceOpT::create(rewriter, loc,
                             typeOf({tq}, type.getElementType()), x,
                             rewriter.getDenseI64ArrayAttr({rank - 1}),
                             /*keepdim=*/false);
  }

  /// Broadcasts a row value `[batch..., Tq]` along a new last dim to `to`.
  Value rowBroadcast(Value row, RankedTensorType to) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank - 1; ++d)
      dims.push_back(d);
    return BroadcastInDimOp::create(rewriter, loc, to, row,
                                    rewriter.getDenseI64ArrayAttr(dims));
  }

  PatternRewriter &rewriter;
  Location loc;
  Value query, key, mask;
  bool causal;
  double scale;
  Type element;
  int64_t rank, tq, tk;
  SmallVector<int64_t> batch;
};

bool hasStaticShapes(Operation *op) {
  auto isStatic = [](Type type) {
    return cast<RankedTensorType>(type).hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

/// s = scores, m = rowmax(s), l = rowsum(exp(s - m)), p = exp(s - m) / l,
/// out = p v (p in the operands' type), lse = m + log(l).
struct DecomposeAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("lowering_config"))
      return rewriter.notifyMatchFailure(op, "runs Nova's kernel");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    AttentionEmitter e(rewriter, op.getLoc(), op.getQuery(), op.getKey(),
                       op.getMask(), op.getCausal(),
                       op.getScale().convertToDouble());
    Value s = e.scores();
    auto scoresType = cast<RankedTensorType>(s.getType());
    Value max = e.rowReduce<ReduceMaxOp>(s);
    Value exp = ExpOp::create(
        rewriter, op.getLoc(),
        SubOp::create(rewriter, op.getLoc(), s, e.rowBroadcast(max, scoresType))
            .getResult());
    Value sum = e.rowReduce<ReduceSumOp>(exp);
    Value p = DivOp::create(rewriter, op.getLoc(), exp,
                            e.rowBroadcast(sum, scoresType));
    Value out = e.matmul(e.castTo(p, e.element), op.getValue(),
                         /*transposeLhs=*/false, /*transposeRhs=*/false,
                         op.getOut().getType());
    Value lse = AddOp::create(
        rewriter, op.getLoc(), max,
        LogOp::create(rewriter, op.getLoc(), sum).getResult());
    rewriter.replaceOp(op, {out, lse});
    return success();
  }
};

/// p = exp(s - lse), dv = p^T dout, dp = dout v^T, D = rowsum(p * dp),
/// ds = p * (dp - D), dq = (scale ds) k, dk = (scale ds)^T q; f32 up to the
/// matmuls' operands. D is softmax's own backward term, as autograd forms
/// it, rather than the fused kernels' rowsum(dout * out): p here is
/// recomputed, not the p `out` was made from (at TF32, from other roundings
/// of s), and only its own row sums leave each row of ds summing to zero.
struct DecomposeAttentionBackward : OpRewritePattern<AttentionBackwardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionBackwardOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("lowering_config"))
      return rewriter.notifyMatchFailure(op, "runs Nova's kernel");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Location loc = op.getLoc();
    double scale = op.getScale().convertToDouble();
    AttentionEmitter e(rewriter, loc, op.getQuery(), op.getKey(),
                       op.getMask(), op.getCausal(), scale);
    Value s = e.scores();
    auto scoresType = cast<RankedTensorType>(s.getType());
    Value p = ExpOp::create(
        rewriter, loc,
        SubOp::create(rewriter, loc, s, e.rowBroadcast(op.getLse(), scoresType))
            .getResult());
    Value dout = op.getGradOut();
    Value dv = e.matmul(e.castTo(p, e.element), dout, /*transposeLhs=*/true,
                        /*transposeRhs=*/false, op.getGradValue().getType());
    Value dp = e.matmul(dout, op.getValue(), /*transposeLhs=*/false,
                        /*transposeRhs=*/true, scoresType);
    Value rowDot =
        e.rowReduce<ReduceSumOp>(MulOp::create(rewriter, loc, p, dp));
    Value ds = MulOp::create(
        rewriter, loc, p,
        SubOp::create(rewriter, loc, dp, e.rowBroadcast(rowDot, scoresType))
            .getResult());
    Value scaled = e.castTo(
        MulOp::create(rewriter, loc, ds, e.splat(scoresType, scale)),
        e.element);
    Value dq = e.matmul(scaled, op.getKey(), /*transposeLhs=*/false,
                        /*transposeRhs=*/false, op.getGradQuery().getType());
    Value dk = e.matmul(scaled, op.getQuery(), /*transposeLhs=*/true,
                        /*transposeRhs=*/false, op.getGradKey().getType());
    rewriter.replaceOp(op, {dq, dk, dv});
    return success();
  }
};

struct NovaDecomposeAttentionPass
    : public mlir::nova::impl::NovaDecomposeAttentionBase<
          NovaDecomposeAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeAttention, DecomposeAttentionBackward>(
        &getContext());
    // Only these rewrites: folding would hide what the pass produced.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace
