//===- Optimizers.cpp - nova optimizer updates to linalg ------------------===//
//
// torch.optim.SGD and AdamW updates, one linalg.generic per parameter.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

/// The indexing maps of an optimizer generic: per-parameter tensors read
/// elementwise, 0-d hyperparameters through the empty map.
SmallVector<AffineMap> updateMaps(OpBuilder &b, int64_t rank,
                                  unsigned tensorCount, unsigned scalarCount) {
  SmallVector<AffineMap> maps(
      tensorCount, b.getMultiDimIdentityMap(static_cast<unsigned>(rank)));
  maps.append(scalarCount, AffineMap::get(rank, 0, {}, b.getContext()));
  return maps;
}

/// torch.optim.SGD in one linalg.generic; see nova.sgd's description.
struct SgdLowering : OpConversionPattern<SgdOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SgdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType paramType = op.getParam().getType();
    Type elementType = paramType.getElementType();
    Type compute = computeType(elementType);
    bool nesterov = op.getNesterov();
    SmallVector<Value> inputs = {adaptor.getParam(),    adaptor.getGrad(),
                                 adaptor.getMomentumBuf(), adaptor.getLr(),
                                 adaptor.getMomentum(), adaptor.getDampening(),
                                 adaptor.getWeightDecay(),
                                 adaptor.getFirstStep()};
    ResultRange results = parallelGeneric(
        rewriter, op.getLoc(), {paramType, paramType}, inputs,
        updateMaps(rewriter, paramType.getRank(), 3, 5),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> v = castScalars(b, loc, args, compute);
          Value param = v[0], grad = v[1], buf = v[2], lr = v[3],
                momentum = v[4], dampening = v[5], weightDecay = v[6],
                firstStep = v[7];
          auto add = [&](Value x, Value y) -> Value {
            return arith::AddFOp::create(b, loc, x, y);
          };
          auto sub = [&](Value x, Value y) -> Value {
            return arith::SubFOp::create(b, loc, x, y);
          };
          auto mul = [&](Value x, Value y) -> Value {
            return arith::MulFOp::create(b, loc, x, y);
          };
          Value zero = scalarConstant(b, loc, compute, 0);
          Value one = scalarConstant(b, loc, compute, 1);
          Value g = add(grad, mul(weightDecay, param));
          Value isFirst = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::UNE, firstStep, zero);
          Value newBuf = arith::SelectOp::create(
              b, loc, isFirst, g,
              add(mul(momentum, buf), mul(sub(one, dampening), g)));
          Value direction = nesterov ? add(g, mul(momentum, newBuf)) : newBuf;
          Value noMomentum = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::OEQ, momentum, zero);
          direction = arith::SelectOp::create(b, loc, noMomentum, g, direction);
          Value newParam = sub(param, mul(lr, direction));
          return castScalars(b, loc, {newParam, newBuf}, elementType);
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// torch.optim.AdamW in one linalg.generic; see nova.adamw's description.
/// The final step is torch's `param.addcdiv_(m, denom, value=-step_size)`.
struct AdamwLowering : OpConversionPattern<AdamwOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdamwOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType paramType = op.getParam().getType();
    Type elementType = paramType.getElementType();
    Type compute = computeType(elementType);
    SmallVector<Value> inputs = {
        adaptor.getParam(), adaptor.getGrad(),  adaptor.getExpAvg(),
        adaptor.getExpAvgSq(), adaptor.getStep(), adaptor.getLr(),
        adaptor.getBeta1(), adaptor.getBeta2(), adaptor.getEps(),
        adaptor.getWeightDecay()};
    ResultRange results = parallelGeneric(
        rewriter, op.getLoc(), {paramType, paramType, paramType}, inputs,
        updateMaps(rewriter, paramType.getRank(), 4, 6),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> v = castScalars(b, loc, args, compute);
          Value step = v[4], beta1 = v[6], beta2 = v[7];
          Value one = scalarConstant(b, loc, compute, 1);
          auto biasCorrection = [&](Value beta) -> Value {
            return arith::SubFOp::create(
                b, loc, one, math::PowFOp::create(b, loc, beta, step));
          };
          SmallVector<Value, 3> updated = AdamwOp::buildElementUpdate(
              b, loc, ValueRange(v).take_front(4),
              {v[5], beta1, beta2, v[8], v[9], biasCorrection(beta1),
               biasCorrection(beta2)},
              [&](Value x) -> Value { return math::SqrtOp::create(b, loc, x); });
          return castScalars(b, loc, updated, elementType);
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};


} // namespace

void nova_to_linalg::populateOptimizersPatterns(RewritePatternSet &patterns) {
  patterns.add<SgdLowering, AdamwLowering>(patterns.getContext());
}
