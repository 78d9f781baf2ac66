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

#include "compiler/codegen/cuda/ScatterAddKernel.h"
#include "compiler/conversion/IREENamespaces.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTNOVATOLINALG
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

/// A fresh tensor of `type` filled with `value`: an accumulator's init.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value) {
  return linalg::FillOp::create(b, loc, ValueRange{value},
                                ValueRange{emptyTensor(b, loc, type)})
      ->getResult(0);
}

/// Low-precision floats compute in f32, as torch's kernels do (its "opmath"
/// type), so a bf16 expression rounds once rather than after every step.
Type computeType(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (floatType && floatType.getWidth() < 32)
    return Float32Type::get(type.getContext());
  return type;
}

/// Converts a scalar to `to` with torch's conversion semantics: floats and
/// integers to bool test `!= 0`, bool to numbers is 0/1, integers are signed.
Value castScalar(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    // bf16 <-> f16 (equal widths, different formats) goes through f32.
    if (fromFloat.getWidth() == toFloat.getWidth())
      return castScalar(
          b, loc, arith::ExtFOp::create(b, loc, b.getF32Type(), value), to);
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, value);
    return arith::TruncFOp::create(b, loc, to, value);
  }
  if (fromFloat) {
    if (to.isInteger(1))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   scalarConstant(b, loc, from, 0));
    return arith::FPToSIOp::create(b, loc, to, value);
  }
  if (toFloat) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, to, value);
    return arith::SIToFPOp::create(b, loc, to, value);
  }
  if (to.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 scalarConstant(b, loc, from, 0));
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()) {
    if (from.isInteger(1))
      return arith::ExtUIOp::create(b, loc, to, value);
    return arith::ExtSIOp::create(b, loc, to, value);
  }
  return arith::TruncIOp::create(b, loc, to, value);
}

SmallVector<Value> castScalars(OpBuilder &b, Location loc, ValueRange values,
                               Type to) {
  return llvm::map_to_vector(
      values, [&](Value v) { return castScalar(b, loc, v, to); });
}

Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

/// Maps the input elements of a generic's body to its result elements.
using BodyFn =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic whose loops are the dims of `resultTypes` (all of one
/// shape), all parallel, writing fresh tensors through identity maps and
/// reading `inputs` through `inputMaps`.
ResultRange parallelGeneric(OpBuilder &b, Location loc, TypeRange resultTypes,
                            ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                            BodyFn body) {
  int64_t rank = cast<RankedTensorType>(resultTypes.front()).getRank();
  SmallVector<Value> outputs = llvm::map_to_vector(resultTypes, [&](Type t) {
    return emptyTensor(b, loc, cast<RankedTensorType>(t));
  });
  SmallVector<AffineMap> maps(inputMaps);
  maps.append(resultTypes.size(),
              b.getMultiDimIdentityMap(static_cast<unsigned>(rank)));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, outputs, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(
            nested, nestedLoc,
            body(nested, nestedLoc, args.take_front(inputs.size())));
      });
  return generic->getResults();
}

/// An elementwise linalg.generic: every input has the result's shape.
Value elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                  ValueRange inputs,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  SmallVector<AffineMap> maps(
      inputs.size(),
      b.getMultiDimIdentityMap(static_cast<unsigned>(resultType.getRank())));
  return parallelGeneric(b, loc, resultType, inputs, maps,
                         [&](OpBuilder &nb, Location nl, ValueRange args) {
                           return SmallVector<Value>{fn(nb, nl, args)};
                         })
      .front();
}

/// Copies `input` into a fresh tensor of `resultType`, element (i...) read
/// through `inputMap` (broadcasts, transposes).
Value copyThroughMap(OpBuilder &b, Location loc, RankedTensorType resultType,
                     Value input, AffineMap inputMap) {
  return parallelGeneric(b, loc, resultType, input, inputMap,
                         [](OpBuilder &, Location, ValueRange args) {
                           return SmallVector<Value>(args);
                         })
      .front();
}

/// Groups each dim of a shape with `reducedDims` kept as size 1 onto the dims
/// of the same shape without them: a kept unit dim joins the group of the
/// nearest preceding surviving dim (the first one for leading unit dims).
SmallVector<ReassociationIndices>
keepdimReassociation(int64_t rank, ArrayRef<int64_t> reducedDims) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(reducedDims, d);
    if (!reduced) {
      groups.push_back(leading);
      groups.back().push_back(d);
      leading.clear();
    } else if (groups.empty()) {
      leading.push_back(d);
    } else {
      groups.back().push_back(d);
    }
  }
  return groups;
}

/// A static-shape reshape as collapse_shape or expand_shape where one is
/// enough, else through the 1-D view.
Value reshapeTensor(OpBuilder &b, Location loc, Value source,
                    RankedTensorType resultType) {
  RankedTensorType sourceType = tensorType(source);
  if (sourceType == resultType)
    return source;
  int64_t sourceRank = sourceType.getRank(), resultRank = resultType.getRank();
  if (sourceRank != resultRank) {
    if (auto reassociation =
            getReassociationIndicesForReshape(sourceType, resultType)) {
      if (sourceRank > resultRank)
        return tensor::CollapseShapeOp::create(b, loc, resultType, source,
                                               *reassociation);
      return tensor::ExpandShapeOp::create(b, loc, resultType, source,
                                           *reassociation);
    }
  }
  auto flatType = RankedTensorType::get({sourceType.getNumElements()},
                                        sourceType.getElementType());
  auto allDims = [](int64_t rank) {
    SmallVector<ReassociationIndices> groups;
    if (rank > 0)
      groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    return groups;
  };
  // Unit-dim-only reshapes of a 0-d tensor have no groups.
  const SmallVector<ReassociationIndices> noGroups;
  Value flat = source;
  if (sourceRank == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, source, noGroups);
  else if (sourceRank > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, source,
                                           allDims(sourceRank));
  if (resultRank == 0)
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat, noGroups);
  if (resultRank == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       allDims(resultRank));
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

/// One linalg.generic with loops (batch..., m, n, k). The accumulator is the
/// result type, widened to f32 for bf16/f16 results (then truncated), and
/// starts from a zero fill; operands are extended to it in the body, which
/// is how bf16 x bf16 -> f32 reads.
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();
    if (!elementType.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Type accType = computeType(elementType);
    auto accTensorType = resultType.clone(accType);

    int64_t rank = resultType.getRank(), batch = rank - 2;
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> batchDims;
    for (int64_t d = 0; d < batch; ++d)
      batchDims.push_back(getAffineDimExpr(d, context));
    AffineExpr m = getAffineDimExpr(batch, context),
               n = getAffineDimExpr(batch + 1, context),
               k = getAffineDimExpr(batch + 2, context);
    auto map = [&](AffineExpr inner0, AffineExpr inner1) {
      SmallVector<AffineExpr> exprs(batchDims);
      exprs.append({inner0, inner1});
      return AffineMap::get(rank + 1, 0, exprs, context);
    };
    SmallVector<AffineMap> maps = {
        op.getTransposeLhs() ? map(k, m) : map(m, k),
        op.getTransposeRhs() ? map(n, k) : map(k, n), map(m, n)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);

    Value init = filledTensor(rewriter, loc, accTensorType,
                              scalarConstant(rewriter, loc, accType, 0));
    bool isFloat = isa<FloatType>(accType);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, accTensorType,
            ValueRange{adaptor.getLhs(), adaptor.getRhs()}, init, maps,
            iterators,
            [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
              Value lhs = castScalar(b, nestedLoc, args[0], accType);
              Value rhs = castScalar(b, nestedLoc, args[1], accType);
              Value product =
                  isFloat
                      ? arith::MulFOp::create(b, nestedLoc, lhs, rhs)
                            .getResult()
                      : arith::MulIOp::create(b, nestedLoc, lhs, rhs)
                            .getResult();
              linalg::YieldOp::create(
                  b, nestedLoc, addScalars(b, nestedLoc, args[2], product));
            })
            ->getResult(0);
    if (accType != elementType)
      result = elementwise(rewriter, loc, resultType, result,
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             return castScalar(b, l, args[0], elementType);
                           });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class ReductionKind { Sum, Max, Mean };

/// A linalg.generic reducing `dims` into a filled accumulator, then (for
/// means and widened sums) one elementwise generic that divides and narrows,
/// then an expand_shape for keepdim. bf16/f16 sums and means accumulate in
/// f32: IREE adds in the element type otherwise (sum of 16384 bf16: rel. err
/// 0.97). Maxima are exact in any format and stay in it.
template <typename OpTy, ReductionKind kind>
struct ReductionLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType inputType = tensorType(input);
    Type elementType = inputType.getElementType();
    bool isFloat = isa<FloatType>(elementType);
    if (!isFloat && !isa<IntegerType>(elementType))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    if (kind == ReductionKind::Mean && !isFloat)
      return rewriter.notifyMatchFailure(op, "mean of integers");

    ArrayRef<int64_t> dims = op.getDims();
    int64_t rank = inputType.getRank();
    Type accType = kind == ReductionKind::Max ? elementType
                                              : computeType(elementType);
    auto accTensorType = RankedTensorType::get(
        reducedShape(inputType.getShape(), dims, /*keepdim=*/false), accType);
    Value init = filledTensor(rewriter, loc, accTensorType,
                              identity(rewriter, loc, accType));

    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> kept;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(dims, d);
      iterators.push_back(reduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (!reduced)
        kept.push_back(getAffineDimExpr(d, context));
    }
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(static_cast<unsigned>(rank)),
        AffineMap::get(rank, 0, kept, context)};
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, accTensorType, input, init, maps, iterators,
            [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
              Value x = castScalar(b, nestedLoc, args[0], accType);
              linalg::YieldOp::create(b, nestedLoc,
                                      combine(b, nestedLoc, args[1], x));
            })
            ->getResult(0);

    if (kind == ReductionKind::Mean || accType != elementType) {
      int64_t count = 1;
      for (int64_t d : dims)
        count *= inputType.getDimSize(d);
      result = elementwise(
          rewriter, loc, accTensorType.clone(elementType), result,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value value = args[0];
            if (kind == ReductionKind::Mean)
              value = arith::DivFOp::create(
                  b, l, value,
                  scalarConstant(b, l, accType, static_cast<double>(count)));
            return castScalar(b, l, value, elementType);
          });
    }
    if (op.getKeepdim())
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, op.getType(), result,
          keepdimReassociation(rank, dims));
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value identity(OpBuilder &b, Location loc, Type type) {
    if (kind != ReductionKind::Max)
      return scalarConstant(b, loc, type, 0);
    if (auto floatType = dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(type, APFloat::getInf(floatType.getFloatSemantics(),
                                               /*Negative=*/true)));
    return arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(type, APInt::getSignedMinValue(
                                   type.getIntOrFloatBitWidth())));
  }

  /// maximumf propagates NaN, as torch.amax does.
  static Value combine(OpBuilder &b, Location loc, Value acc, Value x) {
    bool isFloat = isa<FloatType>(x.getType());
    if (kind == ReductionKind::Max)
      return isFloat ? arith::MaximumFOp::create(b, loc, acc, x).getResult()
                     : arith::MaxSIOp::create(b, loc, acc, x).getResult();
    return addScalars(b, loc, acc, x);
  }
};

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

/// A linalg.generic over the result reading operand dim i at result dim
/// dims[i], or at 0 where a size-1 dim expands.
struct BroadcastInDimLowering : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = op.getInput().getType(),
                     resultType = op.getType();
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(op.getDims())) {
      bool expands =
          inputType.getDimSize(i) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(expands ? getAffineConstantExpr(0, context)
                              : getAffineDimExpr(d, context));
    }
    AffineMap map = AffineMap::get(resultType.getRank(), 0, exprs, context);
    rewriter.replaceOp(op, copyThroughMap(rewriter, op.getLoc(), resultType,
                                          adaptor.getInput(), map));
    return success();
  }
};

/// A linalg.generic over the result reading input dim permutation[i] at
/// result dim i.
struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = rewriter.getContext();
    ArrayRef<int64_t> permutation = op.getPermutation();
    SmallVector<AffineExpr> exprs(permutation.size());
    for (auto [i, p] : llvm::enumerate(permutation))
      exprs[p] = getAffineDimExpr(i, context);
    AffineMap map = AffineMap::get(permutation.size(), 0, exprs, context);
    rewriter.replaceOp(op, copyThroughMap(rewriter, op.getLoc(), op.getType(),
                                          adaptor.getInput(), map));
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getInput(), op.getType()));
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, adaptor.getInput(),
        getAsIndexOpFoldResult(context, op.getStart()),
        getAsIndexOpFoldResult(context, resultType.getShape()),
        getAsIndexOpFoldResult(context, op.getStride()));
    return success();
  }
};

/// tensor.concat: IREE 3.13 decomposes it into insert_slices itself.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        op, op.getType(), static_cast<uint64_t>(op.getDim()),
        adaptor.getInputs());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

Value toIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

/// A linalg.generic over the result reading `index` elementwise; its body
/// extracts input[i with i[dim] = index[i]].
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    int64_t dim = op.getDim();
    Value input = adaptor.getInput();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), resultType, adaptor.getIndex(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          SmallVector<Value> coords;
                          for (int64_t d = 0; d < resultType.getRank(); ++d)
                            coords.push_back(
                                d == dim ? toIndex(b, loc, args[0])
                                         : linalg::IndexOp::create(b, loc, d)
                                               .getResult());
                          return tensor::ExtractOp::create(b, loc, input,
                                                           coords)
                              .getResult();
                        }));
    return success();
  }
};

/// A linalg.generic over (indices dims..., row dims...) reading `indices`
/// through the leading dims; its body extracts table[index, row...].
struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t rank = resultType.getRank();
    AffineMap indicesMap =
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())
            .getMajorSubMap(indexRank);
    Value table = adaptor.getTable();
    rewriter.replaceOp(
        op, parallelGeneric(
                rewriter, op.getLoc(), resultType, adaptor.getIndices(),
                indicesMap,
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  SmallVector<Value> coords = {toIndex(b, loc, args[0])};
                  for (int64_t d = indexRank; d < rank; ++d)
                    coords.push_back(linalg::IndexOp::create(b, loc, d));
                  return SmallVector<Value>{
                      tensor::ExtractOp::create(b, loc, table, coords)};
                })
                .front());
    return success();
  }
};

/// `dest + sums` (sums scattered into a fresh zero tensor), computed in the
/// compute type; just `sums` when `dest` is a zero constant.
Value addScatterDest(OpBuilder &b, Location loc, Value dest, Value sums) {
  if (matchPattern(dest, m_AnyZeroFloat()) || matchPattern(dest, m_Zero()))
    return sums;
  RankedTensorType destType = tensorType(dest);
  Type elementType = destType.getElementType();
  Type compute = computeType(elementType);
  return elementwise(b, loc, destType, {dest, sums},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       SmallVector<Value> wide =
                           castScalars(nb, l, args, compute);
                       return castScalar(
                           nb, l, addScalars(nb, l, wide[0], wide[1]),
                           elementType);
                     });
}

/// `iree_linalg_ext.scatter` with `unique_indices = false`, its region adding
/// each update to the row it targets. Indices get an explicit trailing index
/// depth of 1 (`[batch..., 1]`) so that IREE cannot read a trailing unit dim
/// of the batch as the index depth.
///
/// The scatter writes into a fresh zero tensor and `dest` is added after it:
/// IREE 3.13 updates a scatter's `outs` in place, and when that is a function
/// argument (or a reshape of one) it overwrites the caller's buffer
/// (iree-org/iree#16168; seen here with device arrays on llvm-cpu and CUDA).
/// Rows accumulate in the element type. Widening bf16 updates to f32 in a
/// separate generic would match the reductions, but IREE 3.13 fuses that
/// extf into the scatter's dispatch, whose llvm-cpu codegen then fails
/// ("exceeded stack allocation limit"), at gpt-42m's size too. Under
/// autocast the embedding tables are f32 master weights, so only models cast
/// wholesale to bf16 accumulate in bf16 here.
///
/// Cost: on llvm-cpu the scatter is a loop over the updates, O(updates). On
/// CUDA, IREE 3.13 runs a scatter with non-unique indices on ONE GPU thread:
/// gpt-42m's token-embedding backward (16384 updates of 512 f32 into 32000
/// rows) takes ~310 ms on the H200 (NOTES §3: ~70% of IREE's step). The
/// alternative expressible in linalg on tensors, a compare-select reduction
/// over all updates per table row (a one-hot contraction), does rows x
/// updates x row-size work: ~2.0 s there. So with target=cuda, f32
/// scatter_adds go to Nova's own atomic kernel (below); this lowering serves
/// the CPU and the dtypes that kernel does not take.
struct ScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dest = adaptor.getDest();
    RankedTensorType destType = tensorType(dest);
    Type elementType = destType.getElementType();
    if (!elementType.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "unsupported element type");

    // Indices [batch..., 1]; a single (0-d) index still needs one batch dim,
    // and then so do the updates.
    Value indices = adaptor.getIndices();
    RankedTensorType indicesType = tensorType(indices);
    Value updates = adaptor.getUpdates();
    SmallVector<int64_t> indicesShape(indicesType.getShape());
    if (indicesType.getRank() == 0) {
      indicesShape.push_back(1);
      RankedTensorType updatesType = tensorType(updates);
      SmallVector<int64_t> updatesShape = {1};
      llvm::append_range(updatesShape, updatesType.getShape());
      updates = reshapeTensor(rewriter, loc, updates,
                              updatesType.clone(updatesShape));
    }
    indicesShape.push_back(1);
    indices = reshapeTensor(rewriter, loc, indices,
                            indicesType.clone(indicesShape));

    Value init = filledTensor(rewriter, loc, destType,
                              scalarConstant(rewriter, loc, elementType, 0));
    OperationState state(loc, "iree_linalg_ext.scatter");
    state.addOperands({updates, indices, init});
    state.addTypes(destType);
    state.propertiesAttr = rewriter.getDictionaryAttr(
        {rewriter.getNamedAttr("dimension_map",
                               rewriter.getDenseI64ArrayAttr({0})),
         rewriter.getNamedAttr("unique_indices", rewriter.getBoolAttr(false))});
    state.addRegion();
    Operation *scatter = rewriter.create(state);

    // The region gets (update element, current element).
    Block *body = rewriter.createBlock(&scatter->getRegion(0), {},
                                       {elementType, elementType}, {loc, loc});
    OperationState yield(loc, "iree_linalg_ext.yield");
    yield.addOperands(addScalars(rewriter, loc, body->getArgument(0),
                                 body->getArgument(1)));
    rewriter.create(yield);
    rewriter.setInsertionPointAfter(scatter);

    rewriter.replaceOp(op,
                       addScatterDest(rewriter, loc, dest, scatter->getResult(0)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

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
          Value param = v[0], grad = v[1], expAvg = v[2], expAvgSq = v[3],
                step = v[4], lr = v[5], beta1 = v[6], beta2 = v[7], eps = v[8],
                weightDecay = v[9];
          auto add = [&](Value x, Value y) -> Value {
            return arith::AddFOp::create(b, loc, x, y);
          };
          auto sub = [&](Value x, Value y) -> Value {
            return arith::SubFOp::create(b, loc, x, y);
          };
          auto mul = [&](Value x, Value y) -> Value {
            return arith::MulFOp::create(b, loc, x, y);
          };
          auto div = [&](Value x, Value y) -> Value {
            return arith::DivFOp::create(b, loc, x, y);
          };
          auto sqrt = [&](Value x) -> Value {
            return math::SqrtOp::create(b, loc, x);
          };
          auto pow = [&](Value x, Value y) -> Value {
            return math::PowFOp::create(b, loc, x, y);
          };
          Value one = scalarConstant(b, loc, compute, 1);
          Value decayed = mul(param, sub(one, mul(lr, weightDecay)));
          Value m = add(mul(beta1, expAvg), mul(sub(one, beta1), grad));
          Value vNew =
              add(mul(beta2, expAvgSq), mul(sub(one, beta2), mul(grad, grad)));
          Value stepSize = div(lr, sub(one, pow(beta1, step)));
          Value denom =
              add(div(sqrt(vNew), sqrt(sub(one, pow(beta2, step)))), eps);
          Value newParam = sub(decayed, mul(stepSize, div(m, denom)));
          return castScalars(b, loc, {newParam, m, vNew}, elementType);
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

void populateNovaToLinalgPatterns(RewritePatternSet &patterns) {
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
  patterns.add<ElementwiseLowering<SqrtOp>>(context, unary<math::SqrtOp>,
                                            nullptr, rounds);
  patterns.add<ElementwiseLowering<RsqrtOp>>(context, unary<math::RsqrtOp>,
                                             nullptr, rounds);
  patterns.add<ElementwiseLowering<ReluOp>>(context, reluFloat, reluInt,
                                            exact);
  patterns.add<ElementwiseLowering<SigmoidOp>>(context, sigmoid, nullptr,
                                               rounds);
  patterns.add<
      CompareLowering, SelectLowering, CastLowering, MatmulLowering,
      ReductionLowering<ReduceSumOp, ReductionKind::Sum>,
      ReductionLowering<ReduceMaxOp, ReductionKind::Max>,
      ReductionLowering<ReduceMeanOp, ReductionKind::Mean>,
      BroadcastInDimLowering, TransposeLowering, ReshapeLowering,
      SliceLowering, ConcatLowering, GatherLowering, EmbeddingLowering,
      ScatterAddLowering, ConstantLowering, IotaLowering, SgdLowering,
      AdamwLowering>(context);
}

//===----------------------------------------------------------------------===//
// CUDA: scatter_add through Nova's own kernel
//===----------------------------------------------------------------------===//

/// IREE 3.13 runs `iree_linalg_ext.scatter` with non-unique indices on ONE
/// GPU thread (~330 ms of a 470 ms gpt-42m step on the H200). For CUDA, an
/// f32 scatter_add becomes a `flow.dispatch` of the kernel below instead: one
/// thread per update element, `red.global.add.f32` into its row. The kernel
/// travels inline in a `hal.executable.source` (no file path: the vmfb stays
/// self-contained). IREE's hal/flow ops and attributes are not part of MLIR:
/// they are emitted as unregistered ops with opaque attributes and types,
/// which needs unregistered dialects allowed (Python's pipeline does).
///
/// The kernel and its ABI: compiler/codegen/cuda/ScatterAddKernel.h, built
/// through MLIR's gpu/llvm dialects and serialized to PTX once per process.
/// A `flow.dispatch` binds its tensor operands in order (the tied result
/// shares its operand's binding), its i32 operands become the constants in
/// order.
using cuda::kScatterBlockSize;
using cuda::kScatterExecutable;
using cuda::kScatterKernel;

/// An attribute of IREE's hal dialect, as opaque text (`#hal.<body>`).
Attribute halAttr(MLIRContext *context, StringRef body) {
  return OpaqueAttr::get(StringAttr::get(context, "hal"), body,
                         NoneType::get(context));
}

/// `hal.executable.source private @nova_scatter_add` holding the PTX for any
/// CUDA target, with one export whose grid is ceil(workload / 256) blocks.
LogicalResult createScatterExecutable(OpBuilder &b, Location loc) {
  MLIRContext *context = b.getContext();
  std::string error;
  StringRef ptx = cuda::scatterAddPtx(error);
  if (ptx.empty())
    return emitError(loc) << "could not build Nova's scatter-add kernel:\n"
                          << error;
  std::string objects =
      ("executable.objects<{#hal.executable.target<\"cuda\", "
       "\"cuda-nvptx-fb\"> = [#hal.executable.object<{data = dense<\"0x" +
       llvm::toHex(ptx) + "\"> : vector<" + Twine(ptx.size()) +
       "xi8>}>]}>")
          .str();
  OperationState source(loc, "hal.executable.source");
  source.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr("objects", halAttr(context, objects)),
       b.getNamedAttr("sym_name", b.getStringAttr(kScatterExecutable)),
       b.getNamedAttr("sym_visibility", b.getStringAttr("private"))});
  source.addRegion();
  Operation *sourceOp = b.create(source);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sourceOp->getRegion(0).emplaceBlock());
  OperationState exportState(loc, "hal.executable.export");
  Attribute index1 = b.getIndexAttr(1);
  exportState.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr(
           "layout",
           halAttr(context,
                   "pipeline.layout<constants = 3, bindings = ["
                   "#hal.pipeline.binding<storage_buffer>, "
                   "#hal.pipeline.binding<storage_buffer, ReadOnly>, "
                   "#hal.pipeline.binding<storage_buffer, ReadOnly>]>")),
       b.getNamedAttr("ordinal", b.getIndexAttr(0)),
       b.getNamedAttr("sym_name", b.getStringAttr(kScatterKernel)),
       b.getNamedAttr("sym_visibility", b.getStringAttr("public")),
       b.getNamedAttr("workgroup_size",
                      b.getArrayAttr({b.getIndexAttr(kScatterBlockSize),
                                      index1, index1}))});
  exportState.addRegion(); // count(%device, %workload)
  exportState.addRegion(); // condition: none
  Operation *exportOp = b.create(exportState);
  b.create(OperationState(loc, "hal.executable.source_end"));

  Type device = OpaqueType::get(StringAttr::get(context, "hal"), "device");
  Block *count = b.createBlock(&exportOp->getRegion(0), {},
                               {device, b.getIndexType()}, {loc, loc});
  Value blocks = arith::CeilDivUIOp::create(
      b, loc, count->getArgument(1),
      arith::ConstantIndexOp::create(b, loc, kScatterBlockSize));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  OperationState ret(loc, "hal.return");
  ret.addOperands({blocks, one, one});
  b.create(ret);
  return success();
}

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

  OperationState dispatch(loc, "flow.dispatch");
  dispatch.addOperands({arith::ConstantIndexOp::create(rewriter, loc, total),
                        i32(total), i32(rowSize), i32(rows), zero, indices,
                        updates});
  dispatch.addTypes(tableType);
  dispatch.propertiesAttr = rewriter.getDictionaryAttr(
      {rewriter.getNamedAttr(
           "entry_points",
           rewriter.getArrayAttr({SymbolRefAttr::get(
               rewriter.getStringAttr(kScatterExecutable),
               {FlatSymbolRefAttr::get(rewriter.getContext(),
                                       kScatterKernel)})})),
       // [workload], [arguments], [argument dims], [result dims]
       rewriter.getNamedAttr("operandSegmentSizes",
                             rewriter.getDenseI32ArrayAttr({1, 6, 0, 0})),
       // The result is argument 3 (`zero`), updated in place.
       rewriter.getNamedAttr("tied_operands",
                             rewriter.getArrayAttr({rewriter.getIndexAttr(3)}))});
  Value sums = rewriter.create(dispatch)->getResult(0);
  sums = reshapeTensor(rewriter, loc, sums, destType);
  rewriter.replaceOp(op, addScatterDest(rewriter, loc, op.getDest(), sums));
}

/// Lowers the scatter_adds that qualify to the CUDA kernel, adding the
/// executable to the module once.
LogicalResult lowerScatterAddsForCuda(ModuleOp module) {
  SmallVector<ScatterAddOp> ops;
  module.walk([&](ScatterAddOp op) {
    if (usesCudaScatterKernel(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  MLIRContext *context = module.getContext();
  if (!context->allowsUnregisteredDialects())
    return ops.front().emitOpError()
           << "convert-nova-to-linalg{target=cuda} emits IREE's hal/flow ops "
              "unregistered: allow unregistered dialects";
  IRRewriter rewriter(context);
  bool haveExecutable = llvm::any_of(module.getOps(), [](Operation &op) {
    auto name = op.getAttrOfType<StringAttr>("sym_name");
    return op.getName().getStringRef() == "hal.executable.source" && name &&
           name.getValue() == kScatterExecutable;
  });
  if (!haveExecutable) {
    rewriter.setInsertionPointToStart(module.getBody());
    if (failed(createScatterExecutable(rewriter, module.getLoc())))
      return failure();
  }
  for (ScatterAddOp op : ops)
    lowerScatterAddToCudaKernel(rewriter, op);
  return success();
}

/// Replaces each nova.fused with its body: IREE forms its own dispatches, so
/// the grouping carries nothing linalg can use.
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

    if (target != "cpu" && target != "cuda") {
      module.emitError() << "convert-nova-to-linalg: unknown target '"
                         << target << "' (expected 'cpu' or 'cuda')";
      return signalPassFailure();
    }
    if (target == "cuda" && failed(lowerScatterAddsForCuda(module)))
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
