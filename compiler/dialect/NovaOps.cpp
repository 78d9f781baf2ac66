//===- NovaOps.cpp - nova operations --------------------------------------===//

#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {
/// Renders a shape as `[2, 3, ?]` for diagnostics.
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return text;
}

bool dimsDiffer(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

/// Checks `dim` lies in [0, rank).
LogicalResult verifyDimInRange(Operation *op, StringRef what, int64_t dim,
                               int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError() << what << " " << dim
                             << " is out of range for rank " << rank;
  return success();
}

/// Checks that `type` equals `expected`, naming both for the diagnostic.
LogicalResult verifySameType(Operation *op, StringRef name, Type type,
                             StringRef expectedName, Type expected) {
  if (type != expected)
    return op->emitOpError() << name << " has type " << type << " but "
                             << expectedName << " has type " << expected;
  return success();
}
} // namespace

LogicalResult mlir::nova::verifyElementwise(Operation *op, Type resultType,
                                            bool sameElementType,
                                            unsigned firstOperand) {
  auto result = cast<RankedTensorType>(resultType);
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    if (i < firstOperand)
      continue;
    auto type = tensorType(operand);
    if (type.getRank() != result.getRank())
      return op->emitOpError()
             << "operand #" << i << " has rank " << type.getRank()
             << " but the result has rank " << result.getRank();
    for (int64_t d = 0, e = type.getRank(); d < e; ++d)
      if (dimsDiffer(type.getDimSize(d), result.getDimSize(d)))
        return op->emitOpError()
               << "operand #" << i << " dim " << d << " is "
               << type.getDimSize(d) << " but the result's dim " << d << " is "
               << result.getDimSize(d)
               << " (broadcasts must be explicit: nova.broadcast_in_dim)";
    if (sameElementType && type.getElementType() != result.getElementType())
      return op->emitOpError()
             << "operand #" << i << " has element type "
             << type.getElementType() << " but the result has element type "
             << result.getElementType();
  }
  return success();
}

SmallVector<int64_t> mlir::nova::reducedShape(ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> dims,
                                              bool keepdim) {
  SmallVector<int64_t> out;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
      out.push_back(size);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

LogicalResult mlir::nova::verifyReduction(Operation *op,
                                          RankedTensorType inputType,
                                          ArrayRef<int64_t> dims, bool keepdim,
                                          Type resultType) {
  auto result = cast<RankedTensorType>(resultType);
  int64_t prev = -1;
  for (int64_t d : dims) {
    if (failed(verifyDimInRange(op, "reduced dim", d, inputType.getRank())))
      return failure();
    if (d <= prev)
      return op->emitOpError() << "dims must be strictly increasing, got "
                               << shapeStr(dims);
    prev = d;
  }
  SmallVector<int64_t> expected =
      reducedShape(inputType.getShape(), dims, keepdim);
  if (static_cast<int64_t>(expected.size()) != result.getRank() ||
      llvm::any_of(llvm::zip(expected, result.getShape()), [](auto pair) {
        return dimsDiffer(std::get<0>(pair), std::get<1>(pair));
      }))
    return op->emitOpError() << "result shape " << shapeStr(result.getShape())
                             << " does not match the reduced shape "
                             << shapeStr(expected);
  if (result.getElementType() != inputType.getElementType())
    return op->emitOpError() << "result element type "
                             << result.getElementType()
                             << " differs from the input's "
                             << inputType.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `: T` when all the types agree, else `: (T0, T1, ...)` (operands, then
/// results).
template <typename... Ts>
static ParseResult parseSameTypes(OpAsmParser &parser, Ts &...slots) {
  constexpr size_t count = sizeof...(Ts);
  SmallVector<Type> types;
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseTypeList(types) || parser.parseRParen())
      return failure();
    if (types.size() != count)
      return parser.emitError(loc) << "expected " << count << " types, got "
                                   << types.size();
  } else {
    Type type;
    if (parser.parseType(type))
      return failure();
    types.assign(count, type);
  }
  // The generated slots are plain mlir::Type; ODS constraints check kinds.
  size_t next = 0;
  ((slots = types[next++]), ...);
  return success();
}

template <typename... Ts>
static void printSameTypes(OpAsmPrinter &printer, Operation *,
                           Ts... typeArgs) {
  SmallVector<Type> types{Type(typeArgs)...};
  if (llvm::all_equal(types)) {
    printer << types.front();
    return;
  }
  printer << '(';
  llvm::interleaveComma(types, printer);
  printer << ')';
}

/// `start:limit:stride` per dim, comma separated; empty for rank 0.
static ParseResult parseSliceRanges(OpAsmParser &parser,
                                    DenseI64ArrayAttr &start,
                                    DenseI64ArrayAttr &limit,
                                    DenseI64ArrayAttr &stride) {
  SmallVector<int64_t> starts, limits, strides;
  // The rest of one range once its start `a` has been read.
  auto parseRest = [&](int64_t a) -> ParseResult {
    int64_t b, c;
    if (parser.parseColon() || parser.parseInteger(b) ||
        parser.parseColon() || parser.parseInteger(c))
      return failure();
    starts.push_back(a);
    limits.push_back(b);
    strides.push_back(c);
    return success();
  };
  int64_t a;
  OptionalParseResult first = parser.parseOptionalInteger(a);
  if (first.has_value()) {
    if (failed(*first) || parseRest(a))
      return failure();
    while (succeeded(parser.parseOptionalComma()))
      if (parser.parseInteger(a) || parseRest(a))
        return failure();
  }
  Builder &b = parser.getBuilder();
  start = b.getDenseI64ArrayAttr(starts);
  limit = b.getDenseI64ArrayAttr(limits);
  stride = b.getDenseI64ArrayAttr(strides);
  return success();
}

static void printSliceRanges(OpAsmPrinter &printer, Operation *,
                             DenseI64ArrayAttr start, DenseI64ArrayAttr limit,
                             DenseI64ArrayAttr stride) {
  for (size_t i = 0, e = start.size(); i < e; ++i) {
    if (i)
      printer << ", ";
    printer << start[i] << ":" << (i < limit.size() ? limit[i] : 0) << ":"
            << (i < stride.size() ? stride[i] : 0);
  }
}

#define GET_OP_CLASSES
#include "compiler/dialect/NovaOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

namespace {
bool isZero(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}
bool isOne(Value v) {
  return matchPattern(v, m_OneFloat()) || matchPattern(v, m_One());
}
/// Folds `op` to `v` only where that keeps the result type: verifiers accept
/// a dynamic dim against a static one, and a fold must not change the type.
OpFoldResult foldTo(Operation *op, Value v) {
  if (v.getType() != op->getResult(0).getType())
    return {};
  return v;
}
} // namespace

OpFoldResult AddOp::fold(FoldAdaptor) {
  if (isZero(getRhs()))
    return foldTo(*this, getLhs());
  if (isZero(getLhs()))
    return foldTo(*this, getRhs());
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor) {
  if (isZero(getRhs()))
    return foldTo(*this, getLhs());
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor) {
  if (isOne(getRhs()))
    return foldTo(*this, getLhs());
  if (isOne(getLhs()))
    return foldTo(*this, getRhs());
  return {};
}

OpFoldResult DivOp::fold(FoldAdaptor) {
  if (isOne(getRhs()))
    return foldTo(*this, getLhs());
  return {};
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return foldTo(*this, inner.getInput());
  return {};
}

OpFoldResult RoundTf32Op::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<RoundTf32Op>())
    return inner.getResult();
  return {};
}

Value RoundTf32Op::buildScalar(OpBuilder &b, Location loc, Value x) {
  // Add half of the dropped 13 bits' range, then clear them: to nearest,
  // ties away from zero (the carry may round up into the exponent).
  Type intType = b.getI32Type();
  if (auto vector = dyn_cast<VectorType>(x.getType()))
    intType = vector.clone(intType);
  auto constant = [&](int32_t v) -> Value {
    TypedAttr value = b.getI32IntegerAttr(v);
    if (auto vector = dyn_cast<VectorType>(intType))
      value = DenseElementsAttr::get(vector, value);
    return arith::ConstantOp::create(b, loc, value);
  };
  Value bits = arith::BitcastOp::create(b, loc, intType, x);
  Value rounded = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, constant(0x1000)),
      constant(int32_t(0xFFFFE000u)));
  return arith::BitcastOp::create(b, loc, x.getType(), rounded);
}

Value AdamwOp::getWidenedBf16Grad() {
  auto widen = getGrad().getDefiningOp<CastOp>();
  if (!widen)
    return {};
  Value input = widen.getInput();
  return cast<RankedTensorType>(input.getType()).getElementType().isBF16()
             ? input
             : Value();
}

SmallVector<Value, 3>
AdamwOp::buildElementUpdate(OpBuilder &b, Location loc, ValueRange elements,
                            ValueRange scalars,
                            function_ref<Value(Value)> sqrt) {
  assert(elements.size() == 4 && scalars.size() == 7 && "see the declaration");
  Value param = elements[0], grad = elements[1], expAvg = elements[2],
        expAvgSq = elements[3];
  Value lr = scalars[0], beta1 = scalars[1], beta2 = scalars[2],
        eps = scalars[3], weightDecay = scalars[4],
        biasCorrection1 = scalars[5], biasCorrection2 = scalars[6];
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
  Value one = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(param.getType(), 1.0));
  Value decayed = mul(param, sub(one, mul(lr, weightDecay)));
  Value m = add(mul(beta1, expAvg), mul(sub(one, beta1), grad));
  Value v = add(mul(beta2, expAvgSq), mul(sub(one, beta2), mul(grad, grad)));
  Value stepSize = div(lr, biasCorrection1);
  Value denom = add(div(sqrt(v), sqrt(biasCorrection2)), eps);
  return {sub(decayed, mul(stepSize, div(m, denom))), m, v};
}

LogicalResult GeluOp::verify() {
  return verifyElementwise(getOperation(), getResult().getType());
}

LogicalResult CompareOp::verify() {
  if (failed(verifyElementwise(getOperation(), getResult().getType(),
                               /*sameElementType=*/false)))
    return failure();
  Type lhs = getLhs().getType().getElementType();
  Type rhs = getRhs().getType().getElementType();
  if (lhs != rhs)
    return emitOpError() << "lhs element type " << lhs
                         << " differs from rhs element type " << rhs;
  return success();
}

LogicalResult SelectOp::verify() {
  if (failed(verifyElementwise(getOperation(), getResult().getType(),
                               /*sameElementType=*/false)))
    return failure();
  Type resultElement = getResult().getType().getElementType();
  for (unsigned i : {1u, 2u}) {
    Type element = tensorType(getOperand(i)).getElementType();
    if (element != resultElement)
      return emitOpError() << "operand #" << i << " has element type "
                           << element << " but the result has element type "
                           << resultElement;
  }
  return success();
}

LogicalResult CastOp::verify() {
  return verifyElementwise(getOperation(), getResult().getType(),
                           /*sameElementType=*/false);
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs()),
                   result = tensorType(getResult());
  int64_t rank = lhs.getRank();
  if (rank < 2)
    return emitOpError() << "lhs must have rank >= 2, got " << rank;
  if (rhs.getRank() != rank)
    return emitOpError() << "lhs has rank " << rank << " but rhs has rank "
                         << rhs.getRank();
  if (result.getRank() != rank)
    return emitOpError() << "result has rank " << result.getRank()
                         << " but the operands have rank " << rank;
  for (int64_t d = 0; d < rank - 2; ++d) {
    if (dimsDiffer(lhs.getDimSize(d), rhs.getDimSize(d)))
      return emitOpError() << "batch dim " << d << " is " << lhs.getDimSize(d)
                           << " in lhs but " << rhs.getDimSize(d) << " in rhs";
    if (dimsDiffer(lhs.getDimSize(d), result.getDimSize(d)))
      return emitOpError() << "result batch dim " << d << " is "
                           << result.getDimSize(d) << " but the operands' is "
                           << lhs.getDimSize(d);
  }
  int64_t lhsM = getTransposeLhs() ? rank - 1 : rank - 2;
  int64_t lhsK = getTransposeLhs() ? rank - 2 : rank - 1;
  int64_t rhsK = getTransposeRhs() ? rank - 1 : rank - 2;
  int64_t rhsN = getTransposeRhs() ? rank - 2 : rank - 1;
  if (dimsDiffer(lhs.getDimSize(lhsK), rhs.getDimSize(rhsK)))
    return emitOpError() << "contraction size differs: lhs dim " << lhsK
                         << " is " << lhs.getDimSize(lhsK) << " but rhs dim "
                         << rhsK << " is " << rhs.getDimSize(rhsK);
  if (dimsDiffer(result.getDimSize(rank - 2), lhs.getDimSize(lhsM)))
    return emitOpError() << "result dim " << rank - 2 << " is "
                         << result.getDimSize(rank - 2) << " but lhs dim "
                         << lhsM << " (M) is " << lhs.getDimSize(lhsM);
  if (dimsDiffer(result.getDimSize(rank - 1), rhs.getDimSize(rhsN)))
    return emitOpError() << "result dim " << rank - 1 << " is "
                         << result.getDimSize(rank - 1) << " but rhs dim "
                         << rhsN << " (N) is " << rhs.getDimSize(rhsN);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError() << "lhs element type " << lhs.getElementType()
                         << " differs from rhs element type "
                         << rhs.getElementType();
  if (isa<FloatType>(lhs.getElementType()) !=
      isa<FloatType>(result.getElementType()))
    return emitOpError() << "result element type " << result.getElementType()
                         << " does not match the kind of the operands' "
                         << lhs.getElementType();
  return success();
}

namespace {
/// Whether `perm` swaps the two innermost dims and keeps the others.
bool isInnerSwap(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
    return false;
  return isIdentityPermutation(perm.drop_back(2));
}

/// matmul(transpose(a), b) -> matmul(a, b) {transpose_lhs}: the layout flags
/// let the kernel read the operand in place. Also through a cast that only
/// matmuls use: matmul(cast(transpose(w)), ...) -> matmul(cast(w), ...) with
/// the flag flipped (autocast's weights come as cast(t(w)), and the
/// transpose was a dispatch of its own every step; the cast, elementwise,
/// does not care about the layout).
struct FoldTransposeIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Value lhs = op.getLhs(), rhs = op.getRhs();
    bool transposeLhs = op.getTransposeLhs(),
         transposeRhs = op.getTransposeRhs();
    bool changed = false;
    auto absorb = [&](Value &operand, bool &flag) {
      if (auto transpose = operand.getDefiningOp<TransposeOp>()) {
        if (!isInnerSwap(transpose.getPermutation()))
          return;
        operand = transpose.getInput();
      } else if (auto castOp = operand.getDefiningOp<CastOp>()) {
        auto transpose = castOp.getInput().getDefiningOp<TransposeOp>();
        if (!transpose || !transpose->hasOneUse() ||
            !isInnerSwap(transpose.getPermutation()) ||
            !llvm::all_of(castOp->getUsers(), llvm::IsaPred<MatmulOp>))
          return;
        Value input = transpose.getInput();
        operand = CastOp::create(
            rewriter, castOp.getLoc(),
            tensorType(input).clone(
                tensorType(castOp.getResult()).getElementType()),
            input);
      } else {
        return;
      }
      flag = !flag;
      changed = true;
    };
    absorb(lhs, transposeLhs);
    absorb(rhs, transposeRhs);
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getLhsMutable().assign(lhs);
      op.getRhsMutable().assign(rhs);
      op.setTransposeLhs(transposeLhs);
      op.setTransposeRhs(transposeRhs);
    });
    return success();
  }
};
} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<FoldTransposeIntoMatmul>(context);
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   result = tensorType(getResult());
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != input.getRank())
    return emitOpError() << "dims has " << dims.size()
                         << " entries but the operand has rank "
                         << input.getRank();
  llvm::SmallBitVector seen(result.getRank());
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (failed(verifyDimInRange(*this, "dims entry", d, result.getRank())))
      return failure();
    if (seen.test(d))
      return emitOpError() << "result dim " << d << " appears twice in dims";
    seen.set(d);
    int64_t from = input.getDimSize(i), to = result.getDimSize(d);
    if (from != 1 && dimsDiffer(from, to))
      return emitOpError() << "operand dim " << i << " (size " << from
                           << ") cannot broadcast to result dim " << d
                           << " (size " << to << ")";
  }
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the operand's "
                         << input.getElementType();
  return success();
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType() &&
      isIdentityPermutation(getDims()))
    return getInput();
  auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getInput());
  if (splat && getResult().getType().hasStaticShape())
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult TransposeOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   result = tensorType(getResult());
  ArrayRef<int64_t> perm = getPermutation();
  int64_t rank = input.getRank();
  llvm::SmallBitVector seen(rank);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    valid &= p >= 0 && p < rank && !seen.test(p);
    if (valid)
      seen.set(p);
  }
  if (!valid)
    return emitOpError() << "permutation " << shapeStr(perm)
                         << " is not a permutation of 0.." << rank - 1;
  if (result.getRank() != rank)
    return emitOpError() << "result has rank " << result.getRank()
                         << " but the input has rank " << rank;
  for (auto [i, p] : llvm::enumerate(perm))
    if (dimsDiffer(result.getDimSize(i), input.getDimSize(p)))
      return emitOpError() << "result dim " << i << " is "
                           << result.getDimSize(i) << " but input dim " << p
                           << " is " << input.getDimSize(p);
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (isIdentityPermutation(getPermutation()))
    return foldTo(*this, getInput());
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // transpose(transpose(x, p), q) = transpose(x, p o q).
  SmallVector<int64_t> composed;
  for (int64_t q : getPermutation())
    composed.push_back(inner.getPermutation()[q]);
  if (isIdentityPermutation(composed)) {
    if (OpFoldResult folded = foldTo(*this, inner.getInput()))
      return folded;
  }
  getInputMutable().assign(inner.getInput());
  setPermutation(composed);
  return getResult();
}

namespace {
/// transpose(cast(transpose(x))) -> cast(transpose(x)) with the two
/// permutations composed (none where they cancel): autocast's weight
/// gradients come out of the backward as exactly this chain.
struct ComposeTransposesAcrossCast : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto castOp = op.getInput().getDefiningOp<CastOp>();
    if (!castOp || !castOp->hasOneUse())
      return failure();
    auto inner = castOp.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    // The transpose of a transpose folds into one (or none).
    auto type = cast<RankedTensorType>(op.getType());
    Value composed =
        TransposeOp::create(rewriter, op.getLoc(),
                            type.clone(inner.getType().getElementType()),
                            inner.getResult(), op.getPermutation())
            .getResult();
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), composed);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<ComposeTransposesAcrossCast>(context);
}

LogicalResult ReverseOp::verify() {
  int64_t rank = tensorType(getInput()).getRank();
  llvm::SmallBitVector seen(rank);
  for (int64_t dim : getDims()) {
    if (dim < 0 || dim >= rank)
      return emitOpError() << "dim " << dim << " is out of range for rank "
                           << rank;
    if (seen.test(dim))
      return emitOpError() << "dim " << dim << " appears twice";
    seen.set(dim);
  }
  return success();
}

OpFoldResult ReverseOp::fold(FoldAdaptor) {
  // Reversing nothing, or along dims of size 1, changes nothing.
  RankedTensorType type = tensorType(getInput());
  if (llvm::all_of(getDims(), [&](int64_t d) { return type.getDimSize(d) == 1; }))
    return getInput();
  // reverse(reverse(x, d), d) = x.
  auto inner = getInput().getDefiningOp<ReverseOp>();
  if (inner && inner.getDims() == getDims())
    return inner.getInput();
  return {};
}

namespace {
/// reverse(cumsum(reverse(x, [d]), d), [d]) -> the suffix sum along d (its
/// direction flipped): torch's cumsum backward, in one op.
struct ReversedCumsum : OpRewritePattern<ReverseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReverseOp op,
                                PatternRewriter &rewriter) const override {
    auto cumsum = op.getInput().getDefiningOp<CumsumOp>();
    if (!cumsum || !cumsum->hasOneUse() ||
        op.getDims() != ArrayRef<int64_t>{cumsum.getDim()})
      return failure();
    auto inner = cumsum.getInput().getDefiningOp<ReverseOp>();
    if (!inner || inner.getDims() != op.getDims())
      return failure();
    rewriter.replaceOpWithNewOp<CumsumOp>(op, op.getType(), inner.getInput(),
                                          cumsum.getDim(),
                                          !cumsum.getReverse());
    return success();
  }
};
} // namespace

void ReverseOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ReversedCumsum>(context);
}

LogicalResult ConvolutionOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   weight = tensorType(getWeight()),
                   result = tensorType(getResult());
  int64_t rank = input.getRank(), spatial = rank - 2;
  if (rank < 3)
    return emitOpError() << "input must have rank >= 3 ([N, C, spatial...]), "
                            "got "
                         << rank;
  if (weight.getRank() != rank || result.getRank() != rank)
    return emitOpError() << "input, weight and result must have the same "
                            "rank, got "
                         << rank << ", " << weight.getRank() << " and "
                         << result.getRank();
  for (auto [name, values] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"stride", getStride()},
        {"padding_low", getPaddingLow()},
        {"padding_high", getPaddingHigh()},
        {"dilation", getDilation()},
        {"lhs_dilation", getLhsDilation()}}) {
    if (static_cast<int64_t>(values.size()) != spatial)
      return emitOpError() << name << " has " << values.size()
                           << " entries for " << spatial << " spatial dims";
    bool isPadding = name.starts_with("padding");
    for (int64_t v : values)
      if (isPadding ? v < 0 : v < 1)
        return emitOpError() << name << " entries must be "
                             << (isPadding ? ">= 0" : ">= 1") << ", got "
                             << shapeStr(values);
  }
  if (!input.hasStaticShape() || !weight.hasStaticShape())
    return success();
  int64_t groups = getGroups();
  int64_t channels = input.getDimSize(1), features = weight.getDimSize(0);
  if (groups < 1 || channels % groups || features % groups)
    return emitOpError() << "groups " << groups << " must divide the input's "
                         << channels << " channels and the weight's "
                         << features << " features";
  if (weight.getDimSize(1) * groups != channels)
    return emitOpError() << "weight " << shapeStr(weight.getShape())
                         << " takes " << weight.getDimSize(1)
                         << " channels per group, but the input has "
                         << channels << " channels in " << groups
                         << " groups";
  SmallVector<int64_t> expected = {input.getDimSize(0), features};
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t extent = getLhsDilation()[d] * (input.getDimSize(2 + d) - 1) + 1 +
                     getPaddingLow()[d] + getPaddingHigh()[d];
    int64_t window = getDilation()[d] * (weight.getDimSize(2 + d) - 1) + 1;
    if (extent < window)
      return emitOpError() << "the kernel window " << window
                           << " is larger than the padded input extent "
                           << extent << " along spatial dim " << d;
    expected.push_back((extent - window) / getStride()[d] + 1);
  }
  if (result.hasStaticShape() && result.getShape() != ArrayRef(expected))
    return emitOpError() << "result shape " << shapeStr(result.getShape())
                         << " differs from the expected "
                         << shapeStr(expected);
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getReduction() != "sum" && getReduction() != "mean")
    return emitOpError() << "reduction must be \"sum\" or \"mean\", got \""
                         << getReduction() << "\"";
  return success();
}

LogicalResult CumsumOp::verify() {
  int64_t rank = tensorType(getInput()).getRank();
  if (getDim() < 0 || getDim() >= rank)
    return emitOpError() << "dim " << getDim() << " is out of range for rank "
                         << rank;
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   result = tensorType(getResult());
  if (input.hasStaticShape() &&
      input.getNumElements() != result.getNumElements())
    return emitOpError() << "input " << shapeStr(input.getShape()) << " has "
                         << input.getNumElements() << " elements but result "
                         << shapeStr(result.getShape()) << " has "
                         << result.getNumElements();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getResult().getType());
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

LogicalResult SliceOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   result = tensorType(getResult());
  int64_t rank = input.getRank();
  ArrayRef<int64_t> start = getStart(), limit = getLimit(),
                    stride = getStride();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(stride.size()) != rank)
    return emitOpError() << "start, limit and stride need " << rank
                         << " entries each (the input's rank), got "
                         << start.size() << ", " << limit.size() << " and "
                         << stride.size();
  if (result.getRank() != rank)
    return emitOpError() << "result has rank " << result.getRank()
                         << " but the input has rank " << rank;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = input.getDimSize(d);
    if (stride[d] < 1)
      return emitOpError() << "stride of dim " << d << " must be >= 1, got "
                           << stride[d];
    if (start[d] < 0 || start[d] > limit[d] ||
        (!ShapedType::isDynamic(size) && limit[d] > size))
      return emitOpError() << "dim " << d << " range " << start[d] << ":"
                           << limit[d] << " is not within [0, " << size << "]";
    int64_t expected = (limit[d] - start[d] + stride[d] - 1) / stride[d];
    if (dimsDiffer(result.getDimSize(d), expected))
      return emitOpError() << "result dim " << d << " is "
                           << result.getDimSize(d) << " but the slice has "
                           << expected << " elements";
  }
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType() &&
      getInput().getType().hasStaticShape() &&
      llvm::all_of(getStart(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getStride(), [](int64_t s) { return s == 1; }))
    return getInput();
  return {};
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  RankedTensorType first = tensorType(getInputs().front()),
                   result = tensorType(getResult());
  int64_t rank = first.getRank(), dim = getDim();
  if (failed(verifyDimInRange(*this, "dim", dim, rank)))
    return failure();
  if (result.getRank() != rank)
    return emitOpError() << "result has rank " << result.getRank()
                         << " but the inputs have rank " << rank;
  int64_t total = 0;
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    RankedTensorType type = tensorType(value);
    if (type.getRank() != rank)
      return emitOpError() << "input #" << i << " has rank " << type.getRank()
                           << " but input #0 has rank " << rank;
    if (type.getElementType() != result.getElementType())
      return emitOpError() << "input #" << i << " has element type "
                           << type.getElementType()
                           << " but the result has element type "
                           << result.getElementType();
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && dimsDiffer(type.getDimSize(d), result.getDimSize(d)))
        return emitOpError() << "input #" << i << " dim " << d << " is "
                             << type.getDimSize(d) << " but the result's is "
                             << result.getDimSize(d);
    if (ShapedType::isDynamic(type.getDimSize(dim)) ||
        ShapedType::isDynamic(total))
      total = ShapedType::kDynamic;
    else
      total += type.getDimSize(dim);
  }
  if (dimsDiffer(total, result.getDimSize(dim)))
    return emitOpError() << "result dim " << dim << " is "
                         << result.getDimSize(dim)
                         << " but the inputs add up to " << total;
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 &&
      getInputs().front().getType() == getResult().getType())
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   index = tensorType(getIndex()),
                   result = tensorType(getResult());
  int64_t rank = input.getRank();
  if (failed(verifyDimInRange(*this, "dim", getDim(), rank)))
    return failure();
  if (index.getRank() != rank)
    return emitOpError() << "index has rank " << index.getRank()
                         << " but the input has rank " << rank;
  if (result.getShape() != index.getShape())
    return emitOpError() << "result shape " << shapeStr(result.getShape())
                         << " differs from the index shape "
                         << shapeStr(index.getShape());
  for (int64_t d = 0; d < rank; ++d)
    if (d != getDim() && !ShapedType::isDynamic(input.getDimSize(d)) &&
        index.getDimSize(d) > input.getDimSize(d))
      return emitOpError() << "index dim " << d << " is "
                           << index.getDimSize(d) << " but input dim " << d
                           << " is only " << input.getDimSize(d);
  if (result.getElementType() != input.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the input's "
                         << input.getElementType();
  return success();
}

/// Shape of `indices` followed by the row shape (all dims after the first).
static SmallVector<int64_t> rowsShape(RankedTensorType indices,
                                      RankedTensorType table) {
  SmallVector<int64_t> shape(indices.getShape());
  llvm::append_range(shape, table.getShape().drop_front());
  return shape;
}

LogicalResult EmbeddingOp::verify() {
  RankedTensorType table = tensorType(getTable()),
                   indices = tensorType(getIndices()),
                   result = tensorType(getResult());
  if (table.getRank() < 1)
    return emitOpError() << "table must have rank >= 1";
  SmallVector<int64_t> expected = rowsShape(indices, table);
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << shapeStr(result.getShape())
                         << " differs from indices shape + row shape "
                         << shapeStr(expected);
  if (result.getElementType() != table.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the table's "
                         << table.getElementType();
  return success();
}

LogicalResult ScatterAddOp::verify() {
  RankedTensorType dest = tensorType(getDest()),
                   indices = tensorType(getIndices()),
                   updates = tensorType(getUpdates());
  if (dest.getRank() < 1)
    return emitOpError() << "dest must have rank >= 1";
  if (failed(verifySameType(*this, "result", getResult().getType(), "dest",
                            dest)))
    return failure();
  SmallVector<int64_t> expected = rowsShape(indices, dest);
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "updates shape " << shapeStr(updates.getShape())
                         << " differs from indices shape + row shape "
                         << shapeStr(expected);
  if (updates.getElementType() != dest.getElementType())
    return emitOpError() << "updates element type "
                         << updates.getElementType()
                         << " differs from the dest's "
                         << dest.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Composite ops
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyDimInRange(*this, "dim", getDim(),
                              getInput().getType().getRank())))
    return failure();
  return verifyElementwise(getOperation(), getResult().getType());
}

LogicalResult LogSoftmaxOp::verify() {
  if (failed(verifyDimInRange(*this, "dim", getDim(),
                              getInput().getType().getRank())))
    return failure();
  return verifyElementwise(getOperation(), getResult().getType());
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType input = tensorType(getInput());
  if (failed(verifySameType(*this, "result", getResult().getType(), "input",
                            input)))
    return failure();
  int64_t normalized = getNormalizedRank();
  if (normalized < 1 || normalized > input.getRank())
    return emitOpError() << "normalized_rank " << normalized
                         << " must be in [1, " << input.getRank() << "]";
  if (getEpsilon().convertToDouble() < 0)
    return emitOpError() << "epsilon must be non-negative";
  ArrayRef<int64_t> trailing = input.getShape().take_back(normalized);
  auto expected = RankedTensorType::get(trailing, input.getElementType());
  if (getWeight() && failed(verifySameType(*this, "weight",
                                           getWeight().getType(),
                                           "the normalized shape", expected)))
    return failure();
  if (getBias() && failed(verifySameType(*this, "bias", getBias().getType(),
                                         "the normalized shape", expected)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {
/// What nova.attention's operands say about its problem: the leading dims,
/// the query and key lengths, the head dims of q/k and of v, and the element
/// type.
struct AttentionShape {
  SmallVector<int64_t> batch;
  int64_t tq, tk, d, dv;
  Type element;

  RankedTensorType outType() const {
    SmallVector<int64_t> shape(batch);
    shape.append({tq, dv});
    return RankedTensorType::get(shape, element);
  }
  RankedTensorType lseType() const {
    SmallVector<int64_t> shape(batch);
    shape.push_back(tq);
    return RankedTensorType::get(shape, Float32Type::get(element.getContext()));
  }
};

/// Checks q `[batch..., Tq, D]`, k `[batch..., Tk, D]`, v `[batch..., Tk, Dv]`,
/// the optional mask (broadcastable to `[batch..., Tq, Tk]`), `causal` and
/// `scale`, shared by nova.attention and nova.attention_backward.
FailureOr<AttentionShape> verifyAttentionOperands(Operation *op, Value query,
                                                  Value key, Value value,
                                                  Value mask, bool causal,
                                                  double scale) {
  RankedTensorType q = tensorType(query), k = tensorType(key),
                   v = tensorType(value);
  int64_t rank = q.getRank();
  if (rank < 3)
    return op->emitOpError() << "query must have rank >= 3 ([batch..., Tq, "
                                "D]), got rank "
                             << rank;
  for (auto [name, type] : {std::pair<StringRef, RankedTensorType>{"key", k},
                            {"value", v}}) {
    if (type.getRank() != rank)
      return op->emitOpError() << name << " has rank " << type.getRank()
                               << " but query has rank " << rank;
    for (int64_t d = 0; d < rank - 2; ++d)
      if (dimsDiffer(type.getDimSize(d), q.getDimSize(d)))
        return op->emitOpError()
               << name << " batch dim " << d << " is " << type.getDimSize(d)
               << " but query's is " << q.getDimSize(d);
    if (type.getElementType() != q.getElementType())
      return op->emitOpError()
             << name << " element type " << type.getElementType()
             << " differs from query's " << q.getElementType();
  }
  AttentionShape shape;
  shape.batch.assign(q.getShape().begin(), q.getShape().end() - 2);
  shape.tq = q.getDimSize(rank - 2);
  shape.d = q.getDimSize(rank - 1);
  shape.tk = k.getDimSize(rank - 2);
  shape.dv = v.getDimSize(rank - 1);
  shape.element = q.getElementType();
  if (dimsDiffer(k.getDimSize(rank - 1), shape.d))
    return op->emitOpError() << "key head dim (last) is "
                             << k.getDimSize(rank - 1) << " but query's is "
                             << shape.d;
  if (dimsDiffer(v.getDimSize(rank - 2), shape.tk))
    return op->emitOpError() << "value has " << v.getDimSize(rank - 2)
                             << " rows (dim " << rank - 2 << ") but key has "
                             << shape.tk;
  if (causal && dimsDiffer(shape.tq, shape.tk))
    return op->emitOpError() << "causal needs Tq == Tk, got Tq = " << shape.tq
                             << " and Tk = " << shape.tk;
  if (!std::isfinite(scale))
    return op->emitOpError() << "scale must be finite, got " << scale;
  if (mask) {
    RankedTensorType m = tensorType(mask);
    SmallVector<int64_t> scores(shape.batch);
    scores.append({shape.tq, shape.tk});
    if (m.getRank() > rank)
      return op->emitOpError() << "mask has rank " << m.getRank()
                               << " but the scores " << shapeStr(scores)
                               << " have rank " << rank;
    int64_t offset = rank - m.getRank();
    for (int64_t d = 0; d < m.getRank(); ++d) {
      int64_t size = m.getDimSize(d), to = scores[offset + d];
      if (size != 1 && dimsDiffer(size, to))
        return op->emitOpError()
               << "mask " << shapeStr(m.getShape())
               << " does not broadcast to the scores " << shapeStr(scores)
               << ": dim " << d << " is " << size << " where the scores have "
               << to;
    }
    if (m.getElementType() != shape.element && !m.getElementType().isF32())
      return op->emitOpError() << "mask element type " << m.getElementType()
                               << " is neither query's " << shape.element
                               << " nor f32";
  }
  return shape;
}

/// `type` has `expected`'s shape (dynamic dims match any size) and element
/// type.
LogicalResult verifyAttentionType(Operation *op, StringRef name, Type type,
                                  RankedTensorType expected) {
  auto actual = cast<RankedTensorType>(type);
  bool matches = actual.getRank() == expected.getRank() &&
                 actual.getElementType() == expected.getElementType();
  for (int64_t d = 0; matches && d < actual.getRank(); ++d)
    matches = !dimsDiffer(actual.getDimSize(d), expected.getDimSize(d));
  if (!matches)
    return op->emitOpError() << name << " has type " << type
                             << " but the operands imply " << expected;
  return success();
}
} // namespace

/// logits [N, C], target [N] and, where given, the [N] f32 `rows` results.
static LogicalResult verifyCrossEntropyShapes(Operation *op, Value logits,
                                              Value target,
                                              ArrayRef<std::pair<StringRef, Value>> rows) {
  auto logitsType = cast<RankedTensorType>(logits.getType());
  auto targetType = cast<RankedTensorType>(target.getType());
  if (logitsType.getRank() != 2)
    return op->emitOpError() << "expects logits [N, C], got rank "
                             << logitsType.getRank();
  if (targetType.getRank() != 1 ||
      targetType.getShape()[0] != logitsType.getShape()[0])
    return op->emitOpError() << "expects target [N] with N = "
                             << logitsType.getShape()[0] << " logits rows";
  auto rowType = RankedTensorType::get({logitsType.getShape()[0]},
                                       Float32Type::get(op->getContext()));
  for (auto [name, value] : rows)
    if (value.getType() != rowType)
      return op->emitOpError() << "expects " << name << " of type " << rowType
                               << ", got " << value.getType();
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  return verifyCrossEntropyShapes(*this, getLogits(), getTarget(),
                                  {{"loss", getLoss()}, {"lse", getLse()}});
}

LogicalResult CrossEntropyBackwardOp::verify() {
  if (failed(verifyCrossEntropyShapes(
          *this, getLogits(), getTarget(),
          {{"grad_loss", getGradLoss()}, {"lse", getLse()}})))
    return failure();
  return verifySameType(*this, "grad_logits", getGradLogits().getType(),
                        "logits", getLogits().getType());
}

std::pair<Value, Value> mlir::nova::crossEntropyOperands(Operation *op) {
  if (auto forward = dyn_cast<CrossEntropyOp>(op))
    return {forward.getLogits(), forward.getTarget()};
  if (auto backward = dyn_cast<CrossEntropyBackwardOp>(op))
    return {backward.getLogits(), backward.getTarget()};
  if (auto fused = dyn_cast<CrossEntropyWithGradOp>(op))
    return {fused.getLogits(), fused.getTarget()};
  return {};
}

SmallVector<Value> CrossEntropyWithGradOp::createUnfused(OpBuilder &b) {
  auto loss = CrossEntropyOp::create(b, getLoc(), getLoss().getType(),
                                     getLse().getType(), getLogits(),
                                     getTarget(), getIgnoreIndexAttr());
  Value grad = CrossEntropyBackwardOp::create(
      b, getLoc(), getGradLogits().getType(), getGradLoss(), getLogits(),
      getTarget(), loss.getLse(), getIgnoreIndexAttr());
  return {loss.getLoss(), loss.getLse(), grad};
}

LogicalResult CrossEntropyWithGradOp::verify() {
  if (failed(verifyCrossEntropyShapes(*this, getLogits(), getTarget(),
                                      {{"grad_loss", getGradLoss()},
                                       {"loss", getLoss()},
                                       {"lse", getLse()}})))
    return failure();
  return verifySameType(*this, "grad_logits", getGradLogits().getType(),
                        "logits", getLogits().getType());
}

LogicalResult AttentionOp::verify() {
  FailureOr<AttentionShape> shape = verifyAttentionOperands(
      *this, getQuery(), getKey(), getValue(), getMask(), getCausal(),
      getScale().convertToDouble());
  if (failed(shape))
    return failure();
  if (failed(verifyAttentionType(*this, "out", getOut().getType(),
                                 shape->outType())) ||
      failed(verifyAttentionType(*this, "lse", getLse().getType(),
                                 shape->lseType())))
    return failure();
  return success();
}

LogicalResult AttentionBackwardOp::verify() {
  FailureOr<AttentionShape> shape = verifyAttentionOperands(
      *this, getQuery(), getKey(), getValue(), getMask(), getCausal(),
      getScale().convertToDouble());
  if (failed(shape))
    return failure();
  std::pair<StringRef, Type> checks[] = {
      {"grad_out", getGradOut().getType()},
      {"out", getOut().getType()},
  };
  for (auto [name, type] : checks)
    if (failed(verifyAttentionType(*this, name, type, shape->outType())))
      return failure();
  if (failed(verifyAttentionType(*this, "lse", getLse().getType(),
                                 shape->lseType())))
    return failure();
  if (failed(verifySameType(*this, "grad_query", getGradQuery().getType(),
                            "query", getQuery().getType())) ||
      failed(verifySameType(*this, "grad_key", getGradKey().getType(), "key",
                            getKey().getType())) ||
      failed(verifySameType(*this, "grad_value", getGradValue().getType(),
                            "value", getValue().getType())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult IotaOp::verify() {
  return verifyDimInRange(*this, "dim", getDim(),
                          getResult().getType().getRank());
}

//===----------------------------------------------------------------------===//
// FusedOp
//===----------------------------------------------------------------------===//

LogicalResult FusedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the op has " << getInputs().size()
                         << " inputs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), getInputs())))
    if (std::get<0>(pair) != std::get<1>(pair).getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << std::get<0>(pair) << " but input #" << i
                           << " has type " << std::get<1>(pair).getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values but the op has " << getNumResults()
                         << " results";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues().getTypes(),
                                 getResultTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "yielded value #" << i << " has type "
                           << std::get<0>(pair) << " but result #" << i
                           << " has type " << std::get<1>(pair);
  return success();
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

/// All of an update's per-parameter tensors share the parameter's type.
static LogicalResult verifyUpdateTypes(Operation *op,
                                       ArrayRef<StringRef> names,
                                       ArrayRef<Type> types) {
  for (size_t i = 1; i < types.size(); ++i)
    if (failed(verifySameType(op, names[i], types[i], names[0], types[0])))
      return failure();
  return success();
}

LogicalResult SgdOp::verify() {
  return verifyUpdateTypes(
      *this, {"param", "grad", "momentum_buf", "new_param", "new_momentum_buf"},
      {getParam().getType(), getGrad().getType(), getMomentumBuf().getType(),
       getNewParam().getType(), getNewMomentumBuf().getType()});
}

LogicalResult AdamwOp::verify() {
  return verifyUpdateTypes(
      *this,
      {"param", "grad", "exp_avg", "exp_avg_sq", "new_param", "new_exp_avg",
       "new_exp_avg_sq"},
      {getParam().getType(), getGrad().getType(), getExpAvg().getType(),
       getExpAvgSq().getType(), getNewParam().getType(),
       getNewExpAvg().getType(), getNewExpAvgSq().getType()});
}
