//===- Elementwise.cpp - nova elementwise ops and constants to linalg -----===//
//
// Elementwise arithmetic, comparisons, selects, casts, constants and iotas: one
// linalg.generic each, broadcasting already explicit.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

using ScalarFn = Value (*)(OpBuilder &, Location, ValueRange);

template <typename ScalarOp>
Value unary(OpBuilder &b, Location loc, ValueRange args) {
  return ScalarOp::create(b, loc, args[0]);
}

template <typename ScalarOp>
Value binary(OpBuilder &b, Location loc, ValueRange args) {
  return ScalarOp::create(b, loc, args[0], args[1]);
}

Value negInt(OpBuilder &b, Location loc, ValueRange args) {
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  return arith::SubIOp::create(b, loc, zero, args[0]);
}

/// maximumf propagates NaN, as torch.relu does.
Value reluFloat(OpBuilder &b, Location loc, ValueRange args) {
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  return arith::MaximumFOp::create(b, loc, args[0], zero);
}

Value reluInt(OpBuilder &b, Location loc, ValueRange args) {
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  return arith::MaxSIOp::create(b, loc, args[0], zero);
}

Value sigmoid(OpBuilder &b, Location loc, ValueRange args) {
  Value one = scalarConstant(b, loc, args[0].getType(), 1);
  Value expNeg =
      math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, expNeg));
}

Value roundTf32(OpBuilder &b, Location loc, ValueRange args) {
  return RoundTf32Op::buildScalar(b, loc, args[0]);
}

/// Whether a float op rounds its result, and so computes low-precision floats
/// in f32 (see computeType); min/max/neg/abs/relu are exact in any format.
enum class Rounding { Exact, Rounds };

/// Lowers a nova elementwise op whose operands and result share an element
/// type to a linalg.generic applying `floatFn` or `intFn` per element.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  ElementwiseLowering(MLIRContext *context, ScalarFn floatFn, ScalarFn intFn,
                      Rounding rounding)
      : OpConversionPattern<OpTy>(context), floatFn(floatFn), intFn(intFn),
        rounding(rounding) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    bool isFloat = isa<FloatType>(elementType);
    ScalarFn fn = isFloat ? floatFn : intFn;
    if (!fn || (!isFloat && !isa<IntegerType>(elementType)))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Type compute = isFloat && rounding == Rounding::Rounds
                       ? computeType(elementType)
                       : elementType;
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), resultType,
                        adaptor.getOperands(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          Value result =
                              fn(b, loc, castScalars(b, loc, args, compute));
                          return castScalar(b, loc, result, elementType);
                        }));
    return success();
  }

private:
  ScalarFn floatFn, intFn;
  Rounding rounding;
};

struct CompareLowering : OpConversionPattern<CompareOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type operandType = op.getLhs().getType().getElementType();
    CompareDirection direction = op.getDirection();
    rewriter.replaceOp(
        op, elementwise(
                rewriter, op.getLoc(), op.getType(), adaptor.getOperands(),
                [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                  if (isa<FloatType>(operandType))
                    return arith::CmpFOp::create(
                        b, loc, floatPredicate(direction), args[0], args[1]);
                  return arith::CmpIOp::create(
                      b, loc, intPredicate(direction, operandType.isInteger(1)),
                      args[0], args[1]);
                }));
    return success();
  }

  /// Ordered predicates except `ne`: NaN compares unequal to everything, as
  /// in torch.
  static arith::CmpFPredicate floatPredicate(CompareDirection direction) {
    switch (direction) {
    case CompareDirection::EQ:
      return arith::CmpFPredicate::OEQ;
    case CompareDirection::NE:
      return arith::CmpFPredicate::UNE;
    case CompareDirection::LT:
      return arith::CmpFPredicate::OLT;
    case CompareDirection::LE:
      return arith::CmpFPredicate::OLE;
    case CompareDirection::GT:
      return arith::CmpFPredicate::OGT;
    case CompareDirection::GE:
      return arith::CmpFPredicate::OGE;
    }
    llvm_unreachable("unknown compare direction");
  }

  /// Integers are signed; bools order false < true, which signed i1 (where
  /// true is -1) would invert.
  static arith::CmpIPredicate intPredicate(CompareDirection direction,
                                           bool isBool) {
    switch (direction) {
    case CompareDirection::EQ:
      return arith::CmpIPredicate::eq;
    case CompareDirection::NE:
      return arith::CmpIPredicate::ne;
    case CompareDirection::LT:
      return isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    case CompareDirection::LE:
      return isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    case CompareDirection::GT:
      return isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    case CompareDirection::GE:
      return isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    }
    llvm_unreachable("unknown compare direction");
  }
};

struct SelectLowering : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        adaptor.getOperands(),
                        [](OpBuilder &b, Location loc, ValueRange args) {
                          return arith::SelectOp::create(b, loc, args[0],
                                                         args[1], args[2])
                              .getResult();
                        }));
    return success();
  }
};

struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    if (adaptor.getInput().getType() == resultType) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Type to = resultType.getElementType();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), resultType, adaptor.getInput(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return castScalar(b, loc, args[0], to);
                        }));
    return success();
  }
};


struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};

struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();
    int64_t dim = op.getDim();
    rewriter.replaceOp(
        op, parallelGeneric(
                rewriter, op.getLoc(), resultType, {}, {},
                [&](OpBuilder &b, Location loc, ValueRange) {
                  Value index = linalg::IndexOp::create(b, loc, dim);
                  if (isa<IntegerType>(elementType))
                    return SmallVector<Value>{arith::IndexCastOp::create(
                        b, loc, elementType, index)};
                  Value i64 = arith::IndexCastOp::create(
                      b, loc, b.getI64Type(), index);
                  return SmallVector<Value>{
                      castScalar(b, loc, i64, elementType)};
                })
                .front());
    return success();
  }
};


} // namespace

void nova_to_linalg::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  constexpr Rounding rounds = Rounding::Rounds, exact = Rounding::Exact;
  patterns.add<ElementwiseLowering<AddOp>>(context, binary<arith::AddFOp>,
                                           binary<arith::AddIOp>, rounds);
  patterns.add<ElementwiseLowering<SubOp>>(context, binary<arith::SubFOp>,
                                           binary<arith::SubIOp>, rounds);
  patterns.add<ElementwiseLowering<MulOp>>(context, binary<arith::MulFOp>,
                                           binary<arith::MulIOp>, rounds);
  // Integer division truncates toward zero (C semantics, torch's
  // rounding_mode="trunc").
  patterns.add<ElementwiseLowering<DivOp>>(context, binary<arith::DivFOp>,
                                           binary<arith::DivSIOp>, rounds);
  patterns.add<ElementwiseLowering<MaxOp>>(context, binary<arith::MaximumFOp>,
                                           binary<arith::MaxSIOp>, exact);
  patterns.add<ElementwiseLowering<MinOp>>(context, binary<arith::MinimumFOp>,
                                           binary<arith::MinSIOp>, exact);
  patterns.add<ElementwiseLowering<PowOp>>(context, binary<math::PowFOp>,
                                           nullptr, rounds);
  patterns.add<ElementwiseLowering<NegOp>>(context, unary<arith::NegFOp>,
                                           negInt, exact);
  patterns.add<ElementwiseLowering<AbsOp>>(context, unary<math::AbsFOp>,
                                           unary<math::AbsIOp>, exact);
  patterns.add<ElementwiseLowering<ExpOp>>(context, unary<math::ExpOp>,
                                           nullptr, rounds);
  patterns.add<ElementwiseLowering<LogOp>>(context, unary<math::LogOp>,
                                           nullptr, rounds);
  patterns.add<ElementwiseLowering<TanhOp>>(context, unary<math::TanhOp>,
                                            nullptr, rounds);
  patterns.add<ElementwiseLowering<ErfOp>>(context, unary<math::ErfOp>,
                                           nullptr, rounds);
  patterns.add<ElementwiseLowering<CosOp>>(context, unary<math::CosOp>,
                                           nullptr, rounds);
  patterns.add<ElementwiseLowering<SinOp>>(context, unary<math::SinOp>,
                                           nullptr, rounds);
  patterns.add<ElementwiseLowering<SqrtOp>>(context, unary<math::SqrtOp>,
                                            nullptr, rounds);
  patterns.add<ElementwiseLowering<RsqrtOp>>(context, unary<math::RsqrtOp>,
                                             nullptr, rounds);
  patterns.add<ElementwiseLowering<ReluOp>>(context, reluFloat, reluInt,
                                            exact);
  patterns.add<ElementwiseLowering<SigmoidOp>>(context, sigmoid, nullptr,
                                               rounds);
  patterns.add<ElementwiseLowering<RoundTf32Op>>(context, roundTf32, nullptr,
                                                 exact);
  patterns.add<CompareLowering, SelectLowering, CastLowering, ConstantLowering,
               IotaLowering>(context);
}
