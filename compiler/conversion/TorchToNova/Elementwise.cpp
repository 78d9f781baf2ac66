//===- TorchToNovaElementwise.cpp - elementwise torch ops to nova ---------===//
//
// Arithmetic, comparisons, selects, casts and constant-filled tensors. Torch
// broadcasts implicitly and promotes dtypes; nova wants both explicit. The
// torch result type already carries the promoted dtype and broadcast shape,
// so operands are cast and broadcast to it (Converter::operandAs); only
// comparisons, whose result is bool, compute the promoted operand dtype.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/TorchToNova/TorchToNova.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::torch_to_nova;

namespace {

Type signless(Type dtype) {
  if (auto intType = dyn_cast<IntegerType>(dtype))
    return IntegerType::get(dtype.getContext(), intType.getWidth());
  return dtype;
}

RankedTensorType withElementType(RankedTensorType type, Type elementType) {
  return RankedTensorType::get(type.getShape(), elementType);
}

RankedTensorType boolType(RankedTensorType like) {
  return withElementType(like, IntegerType::get(like.getContext(), 1));
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// The type `op` computes in. torch evaluates bf16/f16 arithmetic in f32
/// and rounds once, so a Python number or a 0-d f32 tensor enters unrounded:
/// rounding 0.044715 (GELU's backward) to bf16 first would be 0.2% off.
RankedTensorType computeType(Converter &cv, Operation *op,
                             RankedTensorType type) {
  auto floatType = dyn_cast<FloatType>(type.getElementType());
  if (!floatType || floatType.getWidth() >= 32)
    return type;
  auto exceedsType = [&](Value operand) {
    if (std::optional<TorchScalar> number = cv.scalar(operand)) {
      APFloat value(number->toDouble());
      bool losesInfo = false;
      value.convert(floatType.getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
      return losesInfo;
    }
    std::string error;
    std::optional<TorchTensorType> tensor =
        parseTorchTensorType(cv.originalType(operand), error);
    auto dtype = tensor ? dyn_cast<FloatType>(tensor->dtype) : FloatType();
    return tensor && tensor->builtin.getRank() == 0 && dtype &&
           dtype.getWidth() > floatType.getWidth();
  };
  if (llvm::any_of(op->getOperands(), exceedsType))
    return withElementType(type, Float32Type::get(type.getContext()));
  return type;
}

/// Operands 0 and 1 of `op` (self, other) as `type`.
FailureOr<std::pair<Value, Value>> binaryOperands(Converter &cv, Operation *op,
                                                  RankedTensorType type) {
  FailureOr<Value> lhs = cv.operandAs(op->getOperand(0), type);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = cv.operandAs(op->getOperand(1), type);
  if (failed(rhs))
    return failure();
  return std::make_pair(*lhs, *rhs);
}

/// `mul.{Tensor,Scalar}`, `div`, `maximum`, ...: (self, other).
template <typename OpT>
LogicalResult convertBinary(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  RankedTensorType compute = computeType(cv, op, type);
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(cv, op, compute);
  if (failed(operands))
    return failure();
  auto [lhs, rhs] = *operands;
  Value result = cv.create<OpT>(lhs, rhs);
  return cv.replace(op, cv.castTo(result, type.getElementType()));
}

/// `alpha * value`, with alpha the op's optional trailing operand.
FailureOr<Value> scaleByAlpha(Converter &cv, Operation *op, Value value) {
  if (op->getNumOperands() < 3)
    return value;
  std::optional<TorchScalar> alpha = cv.scalar(op->getOperand(2));
  if (!alpha)
    return cv.reject("alpha must be a constant");
  if (alpha->toDouble() == 1)
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  return cv.create<MulOp>(value, cv.splat(type, *alpha)).getResult();
}

/// `add`/`sub` `.{Tensor,Scalar}`: self op alpha * other.
template <typename OpT>
LogicalResult convertAddSub(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  RankedTensorType compute = computeType(cv, op, type);
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(cv, op, compute);
  if (failed(operands))
    return failure();
  auto [lhs, rhs] = *operands;
  FailureOr<Value> scaled = scaleByAlpha(cv, op, rhs);
  if (failed(scaled))
    return failure();
  Value result = cv.create<OpT>(lhs, *scaled);
  return cv.replace(op, cv.castTo(result, type.getElementType()));
}

/// `rsub.{Tensor,Scalar}`: other - alpha * self.
LogicalResult convertRsub(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  RankedTensorType compute = computeType(cv, op, type);
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(cv, op, compute);
  if (failed(operands))
    return failure();
  auto [self, other] = *operands;
  FailureOr<Value> scaled = scaleByAlpha(cv, op, self);
  if (failed(scaled))
    return failure();
  Value result = cv.create<SubOp>(other, *scaled);
  return cv.replace(op, cv.castTo(result, type.getElementType()));
}

/// `leaky_relu(self, negative_slope)` and `leaky_relu_backward(grad,
/// self, negative_slope, self_is_result)`: where self > 0 the value (the
/// gradient) passes, elsewhere it is scaled by the slope.
template <bool Backward>
LogicalResult convertLeakyRelu(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  unsigned selfIndex = Backward ? 1 : 0;
  FailureOr<Value> value = cv.operandAs(op->getOperand(0), type);
  FailureOr<Value> self = cv.operandAs(op->getOperand(selfIndex), type);
  if (failed(value) || failed(self))
    return failure();
  std::optional<TorchScalar> slope =
      op->getNumOperands() > selfIndex + 1
          ? cv.scalar(op->getOperand(selfIndex + 1))
          : std::optional<TorchScalar>(
                TorchScalar{TorchScalar::Kind::Float, 0, 0.01});
  if (!slope)
    return cv.reject("negative_slope must be a constant");
  Value positive = cv.create<CompareOp>(type.clone(cv.b().getI1Type()),
                                        CompareDirection::GT, *self,
                                        cv.splat(type, 0.0));
  Value scaled = cv.create<MulOp>(*value, cv.splat(type, *slope));
  return cv.replace(
      op, cv.create<SelectOp>(type, positive, *value, scaled).getResult());
}

/// `log1p(x)` as log(1 + x).
LogicalResult convertLog1p(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> input = cv.operandAs(op->getOperand(0), type);
  if (failed(input))
    return failure();
  Value sum = cv.create<AddOp>(*input, cv.splat(type, 1.0));
  return cv.replace(op, cv.create<LogOp>(sum).getResult());
}

/// `expm1(x)` as exp(x) - 1.
LogicalResult convertExpm1(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> input = cv.operandAs(op->getOperand(0), type);
  if (failed(input))
    return failure();
  Value exp = cv.create<ExpOp>(*input);
  return cv.replace(op,
                    cv.create<SubOp>(exp, cv.splat(type, 1.0)).getResult());
}

/// `div.Tensor_mode(self, other, rounding_mode)`: true division without a
/// mode; on integers "trunc" is the integer division and "floor" corrects
/// it toward -inf where the remainder is nonzero and the signs differ
/// (index arithmetic, e.g. adaptive pooling's window bounds).
LogicalResult convertDivMode(Converter &cv, Operation *op) {
  if (cv.isNone(op->getOperand(2)))
    return convertBinary<DivOp>(cv, op);
  std::optional<StringRef> mode = cv.constantString(op->getOperand(2));
  if (!mode || (*mode != "trunc" && *mode != "floor"))
    return cv.reject("rounding_mode must be None, 'trunc' or 'floor'");
  RankedTensorType type = cv.resultType(op);
  if (!isa<IntegerType>(type.getElementType()))
    return cv.reject("rounding division of floating-point tensors is not supported");
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(cv, op, type);
  if (failed(operands))
    return failure();
  auto [lhs, rhs] = *operands;
  Value quotient = cv.create<DivOp>(lhs, rhs);
  if (*mode == "trunc")
    return cv.replace(op, quotient);
  RankedTensorType boolType = type.clone(cv.b().getI1Type());
  Value zero = cv.splat(type, 0.0);
  Value remainder =
      cv.create<SubOp>(lhs, cv.create<MulOp>(quotient, rhs));
  Value inexact = cv.create<CompareOp>(boolType, CompareDirection::NE,
                                       remainder, zero);
  Value signsDiffer = cv.create<CompareOp>(
      boolType, CompareDirection::NE,
      cv.create<CompareOp>(boolType, CompareDirection::LT, remainder, zero),
      cv.create<CompareOp>(boolType, CompareDirection::LT, rhs, zero));
  Value adjust = cv.create<SelectOp>(
      type,
      cv.create<SelectOp>(boolType, inexact, signsDiffer,
                          cv.splat(boolType, 0.0)),
      cv.splat(type, 1.0), zero);
  return cv.replace(op, cv.create<SubOp>(quotient, adjust).getResult());
}

/// Unary ops; an integer input of a float-only op (exp of a long tensor)
/// is first cast to the float result dtype, as torch does.
template <typename OpT>
LogicalResult convertUnary(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.operandAs(op->getOperand(0), cv.resultType(op));
  if (failed(input))
    return failure();
  return cv.replace(op, cv.create<OpT>(*input).getResult());
}

LogicalResult convertSquare(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.operandAs(op->getOperand(0), cv.resultType(op));
  if (failed(input))
    return failure();
  return cv.replace(op, cv.create<MulOp>(*input, *input).getResult());
}

LogicalResult convertReciprocal(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> input = cv.operandAs(op->getOperand(0), type);
  if (failed(input))
    return failure();
  return cv.replace(
      op, cv.create<DivOp>(cv.splat(type, 1.0), *input).getResult());
}

LogicalResult convertGelu(Converter &cv, Operation *op) {
  std::optional<StringRef> approximate = cv.constantString(op->getOperand(1));
  std::optional<GeluApproximation> mode =
      approximate ? symbolizeGeluApproximation(*approximate) : std::nullopt;
  if (!mode)
    return cv.reject("approximate must be 'none' or 'tanh'");
  FailureOr<Value> input = cv.operandAs(op->getOperand(0), cv.resultType(op));
  if (failed(input))
    return failure();
  return cv.replace(
      op, cv.create<GeluOp>(cv.resultType(op), *input, *mode).getResult());
}

/// x^exponent for a constant exponent. Small integral exponents become
/// products: a pow lowered as exp(y * log(x)) is NaN for negative x, where
/// torch gives pow(-3, 2) = 9.
Value powByConstant(Converter &cv, Value x, double exponent) {
  auto type = cast<RankedTensorType>(x.getType());
  if (exponent == 1)
    return x;
  if (exponent == 2)
    return cv.create<MulOp>(x, x);
  if (exponent == 3)
    return cv.create<MulOp>(cv.create<MulOp>(x, x), x);
  if (exponent == 0.5)
    return cv.create<SqrtOp>(x);
  if (exponent == -0.5)
    return cv.create<RsqrtOp>(x);
  if (exponent == -1)
    return cv.create<DivOp>(cv.splat(type, 1.0), x);
  return cv.create<PowOp>(x, cv.splat(type, exponent));
}

/// `pow.Tensor_Scalar`, `pow.Tensor_Tensor` and `pow.Scalar` (whose base is
/// the scalar).
LogicalResult convertPow(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  if (!isa<FloatType>(type.getElementType()))
    return cv.reject("integer pow is not supported");
  if (std::optional<TorchScalar> exponent = cv.scalar(op->getOperand(1))) {
    FailureOr<Value> base = cv.operandAs(op->getOperand(0), type);
    if (failed(base))
      return failure();
    return cv.replace(op, powByConstant(cv, *base, exponent->toDouble()));
  }
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(cv, op, type);
  if (failed(operands))
    return failure();
  auto [base, exponent] = *operands;
  return cv.replace(op, cv.create<PowOp>(base, exponent).getResult());
}

/// max(min(x, hi), lo) for the bounds that are not None; `lo`/`hi` are the
/// torch operands (null when the op has no such operand).
LogicalResult clampImpl(Converter &cv, Operation *op, Value lo, Value hi) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> x = cv.operandAs(op->getOperand(0), type);
  if (failed(x))
    return failure();
  Value result = *x;
  if (lo && !cv.isNone(lo)) {
    FailureOr<Value> bound = cv.operandAs(lo, type);
    if (failed(bound))
      return failure();
    result = cv.create<MaxOp>(result, *bound);
  }
  if (hi && !cv.isNone(hi)) {
    FailureOr<Value> bound = cv.operandAs(hi, type);
    if (failed(bound))
      return failure();
    result = cv.create<MinOp>(result, *bound);
  }
  return cv.replace(op, result);
}

LogicalResult convertClamp(Converter &cv, Operation *op) {
  return clampImpl(cv, op, op->getOperand(1), op->getOperand(2));
}
LogicalResult convertClampMin(Converter &cv, Operation *op) {
  return clampImpl(cv, op, op->getOperand(1), Value());
}
LogicalResult convertClampMax(Converter &cv, Operation *op) {
  return clampImpl(cv, op, Value(), op->getOperand(1));
}

//===----------------------------------------------------------------------===//
// Comparisons, selects and boolean logic
//===----------------------------------------------------------------------===//

/// The dtype torch compares `operands` in (at::result_type): dimensioned
/// tensors outrank 0-d tensors, which outrank Python numbers, unless a
/// lower-ranked participant is of a higher category (bool < int < float).
FailureOr<Type> comparisonDtype(Converter &cv, ValueRange operands) {
  // By priority: Python numbers, 0-d tensors, dimensioned tensors.
  Type byPriority[3] = {};
  for (Value operand : operands) {
    Type dtype;
    int priority;
    if (std::optional<TorchScalar> number = cv.scalar(operand)) {
      dtype = number->dtype(operand.getContext());
      priority = 0;
    } else {
      FailureOr<TorchTensorType> type = cv.torchType(operand);
      if (failed(type))
        return failure();
      dtype = type->dtype;
      priority = type->builtin.getRank() == 0 ? 1 : 2;
    }
    Type &slot = byPriority[priority];
    slot = slot ? promoteTypes(slot, dtype) : dtype;
  }
  auto isFloat = [](Type type) { return type && isa<FloatType>(type); };
  // c10's combine_categories: the higher-priority dtype wins unless the
  // lower one is of a higher category.
  auto combine = [&](Type higher, Type lower) -> Type {
    if (!higher)
      return lower;
    if (!lower || isFloat(higher))
      return higher;
    if (higher.isInteger(1) || isFloat(lower))
      return promoteTypes(higher, lower);
    return higher;
  };
  return combine(byPriority[2], combine(byPriority[1], byPriority[0]));
}

template <CompareDirection direction>
LogicalResult convertCompare(Converter &cv, Operation *op) {
  FailureOr<Type> dtype =
      comparisonDtype(cv, {op->getOperand(0), op->getOperand(1)});
  if (failed(dtype))
    return failure();
  RankedTensorType type = cv.resultType(op);
  RankedTensorType operandType = withElementType(type, signless(*dtype));
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(cv, op, operandType);
  if (failed(operands))
    return failure();
  auto [lhs, rhs] = *operands;
  return cv.replace(
      op, cv.create<CompareOp>(type, direction, lhs, rhs).getResult());
}

/// `where.{self,Scalar,ScalarSelf,ScalarOther}`: (condition, self, other).
LogicalResult convertWhere(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> condition = cv.operandAs(op->getOperand(0), boolType(type));
  if (failed(condition))
    return failure();
  FailureOr<Value> onTrue = cv.operandAs(op->getOperand(1), type);
  if (failed(onTrue))
    return failure();
  FailureOr<Value> onFalse = cv.operandAs(op->getOperand(2), type);
  if (failed(onFalse))
    return failure();
  return cv.replace(op, cv.create<SelectOp>(type, *condition, *onTrue,
                                            *onFalse)
                            .getResult());
}

/// `masked_fill.{Scalar,Tensor}`: (self, mask, value).
LogicalResult convertMaskedFill(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> self = cv.operandAs(op->getOperand(0), type);
  if (failed(self))
    return failure();
  FailureOr<Value> mask = cv.operandAs(op->getOperand(1), boolType(type));
  if (failed(mask))
    return failure();
  FailureOr<Value> value = cv.operandAs(op->getOperand(2), type);
  if (failed(value))
    return failure();
  return cv.replace(
      op, cv.create<SelectOp>(type, *mask, *value, *self).getResult());
}

enum class Logic { And, Or, Xor };

/// Boolean and/or/xor as selects and compares (nova has no bitwise ops).
template <Logic logic>
LogicalResult convertLogical(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  if (!type.getElementType().isInteger(1))
    return cv.reject("only boolean results are supported");
  FailureOr<std::pair<Value, Value>> operands = binaryOperands(cv, op, type);
  if (failed(operands))
    return failure();
  auto [lhs, rhs] = *operands;
  Value result;
  switch (logic) {
  case Logic::And:
    result = cv.create<SelectOp>(type, lhs, rhs, cv.splat(type, 0.0));
    break;
  case Logic::Or:
    result = cv.create<SelectOp>(type, lhs, cv.splat(type, 1.0), rhs);
    break;
  case Logic::Xor:
    result = cv.create<CompareOp>(type, CompareDirection::NE, lhs, rhs);
    break;
  }
  return cv.replace(op, result);
}

/// `logical_not` and `bitwise_not` of a bool tensor.
LogicalResult convertNot(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  if (!type.getElementType().isInteger(1))
    return cv.reject("only boolean results are supported");
  FailureOr<Value> input = cv.operandAs(op->getOperand(0), type);
  if (failed(input))
    return failure();
  return cv.replace(op, cv.create<CompareOp>(type, CompareDirection::EQ,
                                             *input, cv.splat(type, 0.0))
                            .getResult());
}

//===----------------------------------------------------------------------===//
// Casts and copies
//===----------------------------------------------------------------------===//

/// `_assert_tensor_metadata` (from torch.export) checks shapes and dtypes
/// the static types already guarantee.
LogicalResult convertErase(Converter &cv, Operation *op) {
  return cv.replace(op, {});
}

/// clone, detach, alias, ...: values have no identity in nova.
LogicalResult convertIdentity(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  return cv.replace(op, *input);
}

/// `_to_copy`, `prims.convert_element_type`, `to.dtype`: the result type
/// names the dtype.
LogicalResult convertCast(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  return cv.replace(op, cv.castTo(*input, cv.resultType(op).getElementType()));
}

/// `copy(self, src)`: src, cast and broadcast to self.
LogicalResult convertCopy(Converter &cv, Operation *op) {
  FailureOr<Value> source = cv.operandAs(op->getOperand(1), cv.resultType(op));
  if (failed(source))
    return failure();
  return cv.replace(op, *source);
}

//===----------------------------------------------------------------------===//
// Constant-filled tensors
//===----------------------------------------------------------------------===//

/// full, full_like, new_full, scalar_tensor, fill.Scalar, ...: the fill
/// value is operand `FillOperand`.
template <unsigned FillOperand>
LogicalResult convertFilled(Converter &cv, Operation *op) {
  std::optional<TorchScalar> fill = cv.scalar(op->getOperand(FillOperand));
  if (!fill)
    return cv.reject("the fill value must be a constant");
  return cv.replace(op, cv.splat(cv.resultType(op), *fill));
}

/// zeros, ones, and the empty_* family, whose contents are unspecified:
/// zeros are as good as any.
template <int Fill> LogicalResult convertSplat(Converter &cv, Operation *op) {
  return cv.replace(op, cv.splat(cv.resultType(op), static_cast<double>(Fill)));
}

/// `arange{,.start,.start_step}`: start + step * iota.
LogicalResult convertArange(Converter &cv, Operation *op) {
  StringRef name = op->getName().getStringRef();
  bool hasStart = name != "torch.aten.arange";
  bool hasStep = name == "torch.aten.arange.start_step";
  std::optional<TorchScalar> start =
      hasStart ? cv.scalar(op->getOperand(0))
               : TorchScalar{TorchScalar::Kind::Int, 0};
  std::optional<TorchScalar> step =
      hasStep ? cv.scalar(op->getOperand(2))
              : TorchScalar{TorchScalar::Kind::Int, 1};
  if (!start || !step)
    return cv.reject("start and step must be constants");
  RankedTensorType type = cv.resultType(op);
  Value result = cv.create<IotaOp>(type, uint64_t{0});
  if (step->toDouble() != 1)
    result = cv.create<MulOp>(result, cv.splat(type, *step));
  if (start->toDouble() != 0)
    result = cv.create<AddOp>(result, cv.splat(type, *start));
  return cv.replace(op, result);
}

/// tril/triu(self, diagonal): keep the elements with col - row <= diagonal
/// (tril) or >= diagonal (triu) of the two innermost dims, zero the rest.
template <CompareDirection keep>
LogicalResult convertTriangle(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  if (type.getRank() < 2)
    return cv.reject("needs a tensor of rank >= 2");
  std::optional<int64_t> diagonal = cv.constantInt(op->getOperand(1));
  if (!diagonal)
    return cv.reject("diagonal must be a constant");
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  auto indexType = RankedTensorType::get(type.getShape().take_back(2),
                                         cv.b().getI64Type());
  Value offset = cv.create<SubOp>(cv.create<IotaOp>(indexType, uint64_t{1}),
                                  cv.create<IotaOp>(indexType, uint64_t{0}));
  Value mask = cv.create<CompareOp>(boolType(indexType), keep, offset,
                                    cv.splat(indexType, *diagonal));
  FailureOr<Value> fullMask = cv.broadcastTo(mask, type.getShape());
  if (failed(fullMask))
    return failure();
  return cv.replace(op, cv.create<SelectOp>(type, *fullMask, *input,
                                            cv.splat(type, 0.0))
                            .getResult());
}

/// `torch.vtensor.literal`: the attribute's data, retyped to the signless
/// element type (torch-mlir writes si64 literals).
LogicalResult convertLiteral(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  Attribute value = op->getAttr("value");
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
    if (dense.getElementType() != type.getElementType())
      dense = dense.bitcast(type.getElementType());
    return cv.replace(op, cv.create<ConstantOp>(type, dense).getResult());
  }
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value))
    return cv.replace(
        op, cv.create<ConstantOp>(type, DenseResourceElementsAttr::get(
                                            type, resource.getRawHandle()))
                .getResult());
  return cv.reject("unsupported literal attribute");
}

} // namespace

void torch_to_nova::addElementwiseHandlers(HandlerTable &table) {
  using Dir = CompareDirection;
  const std::pair<StringRef, Handler> handlers[] = {
      // Arithmetic.
      {"torch.aten.add.Tensor", convertAddSub<AddOp>},
      {"torch.aten.add.Scalar", convertAddSub<AddOp>},
      {"torch.aten.sub.Tensor", convertAddSub<SubOp>},
      {"torch.aten.sub.Scalar", convertAddSub<SubOp>},
      {"torch.aten.rsub.Tensor", convertRsub},
      {"torch.aten.rsub.Scalar", convertRsub},
      {"torch.aten.mul.Tensor", convertBinary<MulOp>},
      {"torch.aten.mul.Scalar", convertBinary<MulOp>},
      {"torch.aten.div.Tensor", convertBinary<DivOp>},
      {"torch.aten.div.Scalar", convertBinary<DivOp>},
      {"torch.aten.maximum", convertBinary<MaxOp>},
      {"torch.aten.minimum", convertBinary<MinOp>},
      {"torch.aten.pow.Tensor_Scalar", convertPow},
      {"torch.aten.pow.Tensor_Tensor", convertPow},
      {"torch.aten.pow.Scalar", convertPow},
      {"torch.aten.neg", convertUnary<NegOp>},
      {"torch.aten.abs", convertUnary<AbsOp>},
      {"torch.aten.exp", convertUnary<ExpOp>},
      {"torch.aten.log", convertUnary<LogOp>},
      {"torch.aten.log1p", convertLog1p},
      {"torch.aten.expm1", convertExpm1},
      {"torch.aten.leaky_relu", convertLeakyRelu<false>},
      {"torch.aten.leaky_relu_backward", convertLeakyRelu<true>},
      {"torch.aten.div.Tensor_mode", convertDivMode},
      {"torch.aten.div.Scalar_mode", convertDivMode},
      {"torch.aten.tanh", convertUnary<TanhOp>},
      {"torch.aten.erf", convertUnary<ErfOp>},
      {"torch.aten.cos", convertUnary<CosOp>},
      {"torch.aten.sin", convertUnary<SinOp>},
      {"torch.aten.sqrt", convertUnary<SqrtOp>},
      {"torch.aten.rsqrt", convertUnary<RsqrtOp>},
      {"torch.aten.relu", convertUnary<ReluOp>},
      {"torch.aten.sigmoid", convertUnary<SigmoidOp>},
      {"torch.aten.reciprocal", convertReciprocal},
      {"torch.aten.square", convertSquare},
      {"torch.aten.gelu", convertGelu},
      {"torch.aten.clamp", convertClamp},
      {"torch.aten.clamp.Tensor", convertClamp},
      {"torch.aten.clamp_min", convertClampMin},
      {"torch.aten.clamp_max", convertClampMax},
      // Comparisons, selects, boolean logic.
      {"torch.aten.eq.Scalar", convertCompare<Dir::EQ>},
      {"torch.aten.eq.Tensor", convertCompare<Dir::EQ>},
      {"torch.aten.ne.Scalar", convertCompare<Dir::NE>},
      {"torch.aten.ne.Tensor", convertCompare<Dir::NE>},
      {"torch.aten.lt.Scalar", convertCompare<Dir::LT>},
      {"torch.aten.lt.Tensor", convertCompare<Dir::LT>},
      {"torch.aten.le.Scalar", convertCompare<Dir::LE>},
      {"torch.aten.le.Tensor", convertCompare<Dir::LE>},
      {"torch.aten.gt.Scalar", convertCompare<Dir::GT>},
      {"torch.aten.gt.Tensor", convertCompare<Dir::GT>},
      {"torch.aten.ge.Scalar", convertCompare<Dir::GE>},
      {"torch.aten.ge.Tensor", convertCompare<Dir::GE>},
      {"torch.aten.where.self", convertWhere},
      {"torch.aten.where.Scalar", convertWhere},
      {"torch.aten.where.ScalarSelf", convertWhere},
      {"torch.aten.where.ScalarOther", convertWhere},
      {"torch.aten.masked_fill.Scalar", convertMaskedFill},
      {"torch.aten.masked_fill.Tensor", convertMaskedFill},
      {"torch.aten.logical_and", convertLogical<Logic::And>},
      {"torch.aten.logical_or", convertLogical<Logic::Or>},
      {"torch.aten.logical_xor", convertLogical<Logic::Xor>},
      {"torch.aten.bitwise_and.Tensor", convertLogical<Logic::And>},
      {"torch.aten.bitwise_or.Tensor", convertLogical<Logic::Or>},
      {"torch.aten.bitwise_xor.Tensor", convertLogical<Logic::Xor>},
      {"torch.aten.logical_not", convertNot},
      {"torch.aten.bitwise_not", convertNot},
      // Casts and copies.
      {"torch.aten._assert_tensor_metadata", convertErase},
      {"torch.aten.clone", convertIdentity},
      {"torch.aten.contiguous", convertIdentity},
      {"torch.aten.detach", convertIdentity},
      {"torch.aten.alias", convertIdentity},
      {"torch.aten.lift_fresh_copy", convertIdentity},
      {"torch.aten._to_copy", convertCast},
      {"torch.aten.to.dtype", convertCast},
      {"torch.prims.convert_element_type", convertCast},
      {"torch.aten.copy", convertCopy},
      // Constant-filled tensors.
      {"torch.aten.full", convertFilled<1>},
      {"torch.aten.full_like", convertFilled<1>},
      {"torch.aten.new_full", convertFilled<2>},
      {"torch.aten.fill.Scalar", convertFilled<1>},
      {"torch.aten.scalar_tensor", convertFilled<0>},
      {"torch.prim.NumToTensor.Scalar", convertFilled<0>},
      {"torch.aten.zeros", convertSplat<0>},
      {"torch.aten.zeros_like", convertSplat<0>},
      {"torch.aten.new_zeros", convertSplat<0>},
      {"torch.aten.ones", convertSplat<1>},
      {"torch.aten.ones_like", convertSplat<1>},
      {"torch.aten.new_ones", convertSplat<1>},
      {"torch.aten.empty.memory_format", convertSplat<0>},
      {"torch.aten.empty_like", convertSplat<0>},
      {"torch.aten.empty_strided", convertSplat<0>},
      {"torch.aten.new_empty", convertSplat<0>},
      {"torch.aten.new_empty_strided", convertSplat<0>},
      {"torch.aten.arange", convertArange},
      {"torch.aten.arange.start", convertArange},
      {"torch.aten.arange.start_step", convertArange},
      {"torch.aten.tril", convertTriangle<CompareDirection::LE>},
      {"torch.aten.triu", convertTriangle<CompareDirection::GE>},
      {"torch.vtensor.literal", convertLiteral},
  };
  for (const auto &[name, handler] : handlers)
    table[name] = handler;
}
