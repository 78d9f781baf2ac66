//===- Decompose.cpp - composite nova ops into primitives -----------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nova {
#define GEN_PASS_DEF_NOVADECOMPOSE
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// Builds primitive nova ops at one location.
class Emitter {
public:
  Emitter(PatternRewriter &rewriter, Location loc)
      : rewriter(rewriter), loc(loc) {}

  /// A splat constant of `value` with `like`'s type.
  Value splat(RankedTensorType like, double value) {
    auto elementType = cast<FloatType>(like.getElementType());
    auto attr = DenseElementsAttr::get(
        like, rewriter.getFloatAttr(elementType, value));
    return ConstantOp::create(rewriter, loc, like, attr);
  }

  /// Reduces over `dims` keeping them as size 1, then broadcasts back to
  /// `x`'s shape, ready for an elementwise op with `x`.
  template <typename ReduceOpT>
  Value reduceAndBroadcast(Value x, ArrayRef<int64_t> dims) {
    auto type = cast<RankedTensorType>(x.getType());
    auto reducedType = RankedTensorType::get(
        reducedShape(type.getShape(), dims, /*keepdim=*/true),
        type.getElementType());
    Value reduced = ReduceOpT::create(rewriter, loc, reducedType, x,
                                      rewriter.getDenseI64ArrayAttr(dims),
                                      /*keepdim=*/true);
    return broadcast(reduced, type);
  }

  /// Broadcasts `x` to `type` where `x` has `type`'s rank (size-1 dims
  /// expand) or is the trailing part of `type`'s shape.
  Value broadcast(Value x, RankedTensorType type) {
    auto xType = cast<RankedTensorType>(x.getType());
    if (xType == type)
      return x;
    int64_t offset = type.getRank() - xType.getRank();
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < xType.getRank(); ++d)
      dims.push_back(offset + d);
    return BroadcastInDimOp::create(rewriter, loc, type, x,
                                    rewriter.getDenseI64ArrayAttr(dims));
  }

  template <typename OpT, typename... Args> Value op(Args... args) {
    return OpT::create(rewriter, loc, args...);
  }

private:
  PatternRewriter &rewriter;
  Location loc;
};

/// softmax(x) = e / sum(e), e = exp(x - max(x)).
struct DecomposeSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    Value x = op.getInput();
    int64_t dim = op.getDim();
    Value shifted = e.op<SubOp>(x, e.reduceAndBroadcast<ReduceMaxOp>(x, dim));
    Value exp = e.op<ExpOp>(shifted);
    Value sum = e.reduceAndBroadcast<ReduceSumOp>(exp, dim);
    rewriter.replaceOp(op, e.op<DivOp>(exp, sum));
    return success();
  }
};

/// log_softmax(x) = s - log(sum(exp(s))), s = x - max(x).
struct DecomposeLogSoftmax : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    Value x = op.getInput();
    int64_t dim = op.getDim();
    Value shifted = e.op<SubOp>(x, e.reduceAndBroadcast<ReduceMaxOp>(x, dim));
    Value sum = e.reduceAndBroadcast<ReduceSumOp>(e.op<ExpOp>(shifted), dim);
    rewriter.replaceOp(op, e.op<SubOp>(shifted, e.op<LogOp>(sum)));
    return success();
  }
};

/// layer_norm(x) = (x - mean) * rsqrt(var + eps) * weight + bias, with the
/// biased variance mean((x - mean)^2).
struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    // The epsilon splat needs a static type.
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Emitter e(rewriter, op.getLoc());
    SmallVector<int64_t> dims;
    for (int64_t d = type.getRank() - op.getNormalizedRank();
         d < type.getRank(); ++d)
      dims.push_back(d);
    Value centered =
        e.op<SubOp>(x, e.reduceAndBroadcast<ReduceMeanOp>(x, dims));
    Value variance = e.reduceAndBroadcast<ReduceMeanOp>(
        e.op<MulOp>(centered, centered), dims);
    Value epsilon = e.splat(type, op.getEpsilon().convertToDouble());
    Value result =
        e.op<MulOp>(centered, e.op<RsqrtOp>(e.op<AddOp>(variance, epsilon)));
    if (Value weight = op.getWeight())
      result = e.op<MulOp>(result, e.broadcast(weight, type));
    if (Value bias = op.getBias())
      result = e.op<AddOp>(result, e.broadcast(bias, type));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// gelu(x) = x/2 * (1 + erf(x / sqrt(2))), or with tanh:
/// x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). Narrower floats are
/// computed in f32 and rounded once, as torch's kernels compute them
/// (bf16 constants moved sqrt(2/pi) by 0.13%); the f32 chain, in the
/// operand order of torch's gelu_backward decomposition, is then the one
/// the backward computes, and CSE leaves one tanh for both.
struct DecomposeGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    // The constant splats need a static type.
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Emitter e(rewriter, op.getLoc());
    RankedTensorType computeType = type;
    if (type.getElementType().getIntOrFloatBitWidth() < 32) {
      computeType = type.clone(rewriter.getF32Type());
      x = e.op<CastOp>(computeType, x);
    }
    Value inner;
    if (op.getApproximation() == GeluApproximation::Tanh) {
      Value cube = e.op<MulOp>(e.op<MulOp>(x, x), x);
      Value poly =
          e.op<AddOp>(x, e.op<MulOp>(cube, e.splat(computeType, 0.044715)));
      inner = e.op<TanhOp>(
          e.op<MulOp>(poly, e.splat(computeType, std::sqrt(2.0 / M_PI))));
    } else {
      inner = e.op<ErfOp>(e.op<MulOp>(x, e.splat(computeType, M_SQRT1_2)));
    }
    Value half = e.op<MulOp>(x, e.splat(computeType, 0.5));
    Value result =
        e.op<MulOp>(half, e.op<AddOp>(inner, e.splat(computeType, 1.0)));
    if (computeType != type)
      result = e.op<CastOp>(type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct NovaDecomposePass
    : public mlir::nova::impl::NovaDecomposeBase<NovaDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateNovaDecomposePatterns(patterns);
    // Only these rewrites: folding would hide what the pass produced.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace

void mlir::nova::populateNovaDecomposePatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmax, DecomposeLogSoftmax, DecomposeLayerNorm,
               DecomposeGelu>(patterns.getContext());
}
