//===- TorchToNovaStructured.cpp - shape, contraction, reduction, ... -----===//
//
// The torch ops that are not elementwise: views and data movement, matrix
// products, reductions, softmax and layer norm, indexing (embedding, gather,
// scatter) and the nova optimizer custom ops.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/TorchToNova/TorchToNova.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::torch_to_nova;

namespace {

/// The dim operand of a torch op, normalized for a tensor of `rank`.
FailureOr<int64_t> dimOperand(Converter &cv, Value operand, int64_t rank) {
  std::optional<int64_t> dim = cv.constantInt(operand);
  if (!dim)
    return cv.reject("dim must be a constant");
  std::optional<int64_t> normalized = normalizeDim(*dim, rank);
  if (!normalized)
    return cv.reject("dim " + Twine(*dim) + " is out of range for rank " +
                     Twine(rank));
  return *normalized;
}

/// Reduced dims, sorted and unique; torch reduces every dim for a None or
/// empty list.
FailureOr<SmallVector<int64_t>> reductionDims(Converter &cv, Value operand,
                                              int64_t rank) {
  SmallVector<int64_t> dims;
  if (operand && !cv.isNone(operand)) {
    std::optional<SmallVector<int64_t>> listed = cv.constantIntList(operand);
    if (!listed)
      return cv.reject("the reduced dims must be constants");
    for (int64_t dim : *listed) {
      std::optional<int64_t> normalized = normalizeDim(dim, rank);
      if (!normalized)
        return cv.reject("dim " + Twine(dim) + " is out of range for rank " +
                         Twine(rank));
      dims.push_back(*normalized);
    }
  }
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  llvm::sort(dims);
  dims.erase(llvm::unique(dims), dims.end());
  return dims;
}

/// input[start:limit:step] along `dim`, everything along the other dims.
Value sliceAlong(Converter &cv, Value input, int64_t dim, int64_t start,
                 int64_t limit, int64_t step = 1) {
  RankedTensorType type = typeOf(input);
  if (start == 0 && limit == type.getDimSize(dim) && step == 1)
    return input;
  SmallVector<int64_t> starts(type.getRank(), 0);
  SmallVector<int64_t> limits(type.getShape());
  SmallVector<int64_t> strides(type.getRank(), 1);
  starts[dim] = start;
  limits[dim] = limit;
  strides[dim] = step;
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = (limit - start + step - 1) / step;
  return cv.create<SliceOp>(RankedTensorType::get(shape, type.getElementType()),
                            input, starts, limits, strides);
}

//===----------------------------------------------------------------------===//
// Views and data movement
//===----------------------------------------------------------------------===//

/// view, reshape, squeeze, unsqueeze, flatten, ...: the torch result type
/// already is the new shape.
LogicalResult convertReshape(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  return cv.replace(op, cv.reshape(*input, cv.resultType(op).getShape()));
}

LogicalResult transposeTo(Converter &cv, Operation *op,
                          ArrayRef<int64_t> permutation) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  return cv.replace(
      op, cv.create<TransposeOp>(cv.resultType(op), *input, permutation)
              .getResult());
}

LogicalResult convertPermute(Converter &cv, Operation *op) {
  int64_t rank = cv.resultType(op).getRank();
  std::optional<SmallVector<int64_t>> dims =
      cv.constantIntList(op->getOperand(1));
  if (!dims)
    return cv.reject("dims must be constants");
  SmallVector<int64_t> permutation;
  for (int64_t dim : *dims) {
    std::optional<int64_t> normalized = normalizeDim(dim, rank);
    if (!normalized)
      return cv.reject("dim " + Twine(dim) + " is out of range");
    permutation.push_back(*normalized);
  }
  return transposeTo(cv, op, permutation);
}

/// flip(self, dims): nova.reverse along the normalized dims.
LogicalResult convertFlip(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  int64_t rank = typeOf(*input).getRank();
  std::optional<SmallVector<int64_t>> dims =
      cv.constantIntList(op->getOperand(1));
  if (!dims)
    return cv.reject("dims must be constants");
  SmallVector<int64_t> normalized;
  for (int64_t dim : *dims) {
    std::optional<int64_t> d = normalizeDim(dim, rank);
    if (!d)
      return cv.reject("dim " + Twine(dim) + " is out of range");
    if (!llvm::is_contained(normalized, *d))
      normalized.push_back(*d);
  }
  llvm::sort(normalized);
  return cv.replace(
      op, cv.create<ReverseOp>(typeOf(*input), *input, normalized).getResult());
}

/// cumsum(self, dim, dtype): in the result's element type (torch's: int64
/// for integers and bools, or `dtype`), then nova.cumsum.
LogicalResult convertCumsum(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  RankedTensorType result = cv.resultType(op);
  Value x = cv.castTo(*input, result.getElementType());
  if (result.getRank() == 0)
    return cv.replace(op, x); // a 0-d tensor is its own prefix sum
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), result.getRank());
  if (failed(dim))
    return failure();
  return cv.replace(
      op, cv.create<CumsumOp>(x.getType(), x, *dim, /*reverse=*/false)
              .getResult());
}

LogicalResult convertTransposeInt(Converter &cv, Operation *op) {
  int64_t rank = cv.resultType(op).getRank();
  FailureOr<int64_t> first = dimOperand(cv, op->getOperand(1), rank);
  if (failed(first))
    return failure();
  FailureOr<int64_t> second = dimOperand(cv, op->getOperand(2), rank);
  if (failed(second))
    return failure();
  SmallVector<int64_t> permutation = llvm::to_vector(llvm::seq<int64_t>(rank));
  if (rank > 0)
    std::swap(permutation[*first], permutation[*second]);
  return transposeTo(cv, op, permutation);
}

/// `t`: the transpose of a matrix; vectors and scalars stay as they are.
LogicalResult convertT(Converter &cv, Operation *op) {
  if (cv.resultType(op).getRank() < 2)
    return convertReshape(cv, op);
  return transposeTo(cv, op, {1, 0});
}

/// expand, broadcast_to.
LogicalResult convertExpand(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  FailureOr<Value> result =
      cv.broadcastTo(*input, cv.resultType(op).getShape());
  if (failed(result))
    return failure();
  return cv.replace(op, *result);
}

/// A slice's [first, limit) and step from the op's (dim, start, end, step)
/// operands at `operand`, with Python's clamping of out-of-range bounds.
struct SliceBounds {
  int64_t dim, first, limit, step;
};
FailureOr<SliceBounds> sliceBounds(Converter &cv, Operation *op,
                                   unsigned operand, RankedTensorType type) {
  FailureOr<int64_t> dim =
      dimOperand(cv, op->getOperand(operand), type.getRank());
  if (failed(dim))
    return failure();
  int64_t size = type.getDimSize(*dim);
  std::optional<int64_t> start = cv.isNone(op->getOperand(operand + 1))
                                     ? 0
                                     : cv.constantInt(op->getOperand(operand + 1));
  std::optional<int64_t> end = cv.isNone(op->getOperand(operand + 2))
                                   ? size
                                   : cv.constantInt(op->getOperand(operand + 2));
  std::optional<int64_t> step = cv.constantInt(op->getOperand(operand + 3));
  if (!start || !end || !step)
    return cv.reject("start, end and step must be constants");
  if (*step < 1)
    return cv.reject("step must be positive");
  auto clampIndex = [&](int64_t index) {
    if (index < 0)
      index += size;
    return std::clamp<int64_t>(index, 0, size);
  };
  int64_t first = clampIndex(*start);
  return SliceBounds{*dim, first, std::max(clampIndex(*end), first), *step};
}

/// `slice.Tensor(self, dim, start, end, step)`.
LogicalResult convertSlice(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  FailureOr<SliceBounds> s = sliceBounds(cv, op, 1, typeOf(*input));
  if (failed(s))
    return failure();
  return cv.replace(op, sliceAlong(cv, *input, s->dim, s->first, s->limit,
                                   s->step));
}

/// `select.int(self, dim, index)`: a size-1 slice with the dim dropped.
LogicalResult convertSelect(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  RankedTensorType type = typeOf(*input);
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), type.getRank());
  if (failed(dim))
    return failure();
  std::optional<int64_t> index = cv.constantInt(op->getOperand(2));
  if (!index)
    return cv.reject("index must be a constant");
  int64_t size = type.getDimSize(*dim);
  int64_t position = *index < 0 ? *index + size : *index;
  if (position < 0 || position >= size)
    return cv.reject("index " + Twine(*index) + " is out of range for size " +
                     Twine(size));
  Value row = sliceAlong(cv, *input, *dim, position, position + 1);
  return cv.replace(op, cv.reshape(row, cv.resultType(op).getShape()));
}

/// `narrow(self, dim, start, length)`.
LogicalResult convertNarrow(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  RankedTensorType type = typeOf(*input);
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), type.getRank());
  if (failed(dim))
    return failure();
  std::optional<int64_t> start = cv.constantInt(op->getOperand(2));
  std::optional<int64_t> length = cv.constantInt(op->getOperand(3));
  if (!start || !length)
    return cv.reject("start and length must be constants");
  int64_t first = *start < 0 ? *start + type.getDimSize(*dim) : *start;
  return cv.replace(op, sliceAlong(cv, *input, *dim, first, first + *length));
}

LogicalResult convertCat(Converter &cv, Operation *op) {
  FailureOr<SmallVector<Value>> tensors = cv.tensorList(op->getOperand(0));
  if (failed(tensors))
    return failure();
  RankedTensorType type = cv.resultType(op);
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), type.getRank());
  if (failed(dim))
    return failure();
  SmallVector<Value> inputs;
  for (Value tensor : *tensors) {
    // torch.cat still skips legacy empty 1-d tensors of any other rank.
    RankedTensorType tensorType = typeOf(tensor);
    if (tensorType.getRank() == 1 && tensorType.getDimSize(0) == 0 &&
        type.getRank() != 1)
      continue;
    inputs.push_back(cv.castTo(tensor, type.getElementType()));
  }
  if (inputs.size() == 1)
    return cv.replace(op, inputs.front());
  return cv.replace(
      op, cv.create<ConcatOp>(type, inputs, static_cast<uint64_t>(*dim))
              .getResult());
}

/// `constant_pad_nd(self, pad, value)`: `pad` holds (before, after) pairs
/// from the last dim backwards; positive amounts concatenate splats of
/// `value`, negative ones slice (as torch crops).
LogicalResult convertConstantPad(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  std::optional<SmallVector<int64_t>> pad = cv.constantIntList(op->getOperand(1));
  if (!pad)
    return cv.reject("pad must be a constant list");
  std::optional<TorchScalar> fill =
      cv.isNone(op->getOperand(2))
          ? std::optional<TorchScalar>(TorchScalar{TorchScalar::Kind::Int, 0})
          : cv.scalar(op->getOperand(2));
  if (!fill)
    return cv.reject("the pad value must be a constant");
  int64_t rank = typeOf(*input).getRank();
  if (pad->size() % 2 || static_cast<int64_t>(pad->size()) > 2 * rank)
    return cv.reject("pad must hold (before, after) pairs for at most every dim");
  Value result = *input;
  for (size_t i = 0; i < pad->size(); i += 2) {
    int64_t dim = rank - 1 - static_cast<int64_t>(i / 2);
    int64_t before = (*pad)[i], after = (*pad)[i + 1];
    int64_t size = typeOf(result).getDimSize(dim);
    if (size + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0) < 0)
      return cv.reject("pad crops more than the dim's size");
    result = sliceAlong(cv, result, dim, std::max<int64_t>(-before, 0),
                        size - std::max<int64_t>(-after, 0));
    SmallVector<Value> pieces;
    auto splatOf = [&](int64_t amount) {
      RankedTensorType type = typeOf(result);
      SmallVector<int64_t> shape(type.getShape());
      shape[dim] = amount;
      return cv.splat(type.clone(shape), *fill);
    };
    if (before > 0)
      pieces.push_back(splatOf(before));
    pieces.push_back(result);
    if (after > 0)
      pieces.push_back(splatOf(after));
    if (pieces.size() > 1) {
      RankedTensorType type = typeOf(result);
      SmallVector<int64_t> shape(type.getShape());
      shape[dim] += std::max<int64_t>(before, 0) + std::max<int64_t>(after, 0);
      result = cv.create<ConcatOp>(type.clone(shape), pieces,
                                   static_cast<uint64_t>(dim))
                   .getResult();
    }
  }
  return cv.replace(op, result);
}

/// `repeat(self, repeats)`: self viewed with a unit dim before each of its
/// dims (and leading unit dims for extra repeats), broadcast to the repeats,
/// flattened pairwise.
LogicalResult convertRepeat(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  std::optional<SmallVector<int64_t>> repeats =
      cv.constantIntList(op->getOperand(1));
  RankedTensorType type = typeOf(*input);
  int64_t rank = type.getRank();
  if (!repeats || static_cast<int64_t>(repeats->size()) < rank)
    return cv.reject("repeats must be a constant list of at least the "
                     "tensor's rank");
  int64_t dims = repeats->size();
  SmallVector<int64_t> interleaved, broadcast, result;
  for (int64_t d = 0; d < dims; ++d) {
    int64_t size = d < dims - rank ? 1 : type.getDimSize(d - (dims - rank));
    interleaved.append({1, size});
    broadcast.append({(*repeats)[d], size});
    result.push_back((*repeats)[d] * size);
  }
  FailureOr<Value> expanded =
      cv.broadcastTo(cv.reshape(*input, interleaved), broadcast);
  if (failed(expanded))
    return failure();
  return cv.replace(op, cv.reshape(*expanded, result));
}

/// `slice_scatter(self, src, dim, start, end, step)` with step 1 (what
/// functionalizing a copy into a slice makes): self's parts around the slice
/// concatenated with src.
LogicalResult convertSliceScatter(Converter &cv, Operation *op) {
  FailureOr<Value> self = cv.tensor(op->getOperand(0));
  FailureOr<Value> src = cv.tensor(op->getOperand(1));
  if (failed(self) || failed(src))
    return failure();
  RankedTensorType type = typeOf(*self);
  FailureOr<SliceBounds> bounds = sliceBounds(cv, op, 2, type);
  if (failed(bounds))
    return failure();
  if (bounds->step != 1)
    return cv.reject("only step 1 is supported");
  int64_t dim = bounds->dim, first = bounds->first, limit = bounds->limit;
  int64_t size = type.getDimSize(dim);
  Value piece = cv.castTo(*src, type.getElementType());
  if (typeOf(piece).getDimSize(dim) != limit - first)
    return cv.reject("src does not fit the slice");
  SmallVector<Value> pieces;
  if (first > 0)
    pieces.push_back(sliceAlong(cv, *self, dim, 0, first));
  pieces.push_back(piece);
  if (limit < size)
    pieces.push_back(sliceAlong(cv, *self, dim, limit, size));
  if (pieces.size() == 1)
    return cv.replace(op, piece);
  return cv.replace(op, cv.create<ConcatOp>(type, pieces,
                                            static_cast<uint64_t>(dim))
                            .getResult());
}

/// Slices of `sizes` along `dim`, as the op's list result.
LogicalResult splitInto(Converter &cv, Operation *op, Value input, int64_t dim,
                        ArrayRef<int64_t> sizes) {
  int64_t total = typeOf(input).getDimSize(dim), offset = 0;
  SmallVector<Value> pieces;
  for (int64_t size : sizes) {
    if (size < 0 || offset + size > total)
      return cv.reject("split sizes exceed the dim's size " + Twine(total));
    pieces.push_back(sliceAlong(cv, input, dim, offset, offset + size));
    offset += size;
  }
  if (offset != total)
    return cv.reject("split sizes add up to " + Twine(offset) +
                     " but the dim has size " + Twine(total));
  return cv.replaceList(op->getResult(0), pieces);
}

/// The input (operand 0) of a split-like op and its dim (operand 2).
FailureOr<std::pair<Value, int64_t>> splitOperands(Converter &cv,
                                                   Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  FailureOr<int64_t> dim =
      dimOperand(cv, op->getOperand(2), typeOf(*input).getRank());
  if (failed(dim))
    return failure();
  return std::make_pair(*input, *dim);
}

/// Pieces of `size` covering `total`, the last one shorter.
SmallVector<int64_t> equalPieces(int64_t total, int64_t size) {
  SmallVector<int64_t> sizes;
  for (int64_t offset = 0; offset < total; offset += size)
    sizes.push_back(std::min(size, total - offset));
  return sizes;
}

/// `split_with_sizes(self, sizes, dim)`.
LogicalResult convertSplitWithSizes(Converter &cv, Operation *op) {
  auto operands = splitOperands(cv, op);
  if (failed(operands))
    return failure();
  auto [input, dim] = *operands;
  std::optional<SmallVector<int64_t>> sizes =
      cv.constantIntList(op->getOperand(1));
  if (!sizes)
    return cv.reject("split sizes must be constants");
  return splitInto(cv, op, input, dim, *sizes);
}

/// `split.Tensor(self, split_size, dim)`: equal pieces, the last one shorter.
LogicalResult convertSplit(Converter &cv, Operation *op) {
  auto operands = splitOperands(cv, op);
  if (failed(operands))
    return failure();
  auto [input, dim] = *operands;
  std::optional<int64_t> splitSize = cv.constantInt(op->getOperand(1));
  if (!splitSize || *splitSize < 1)
    return cv.reject("split_size must be a positive constant");
  return splitInto(cv, op, input, dim,
                   equalPieces(typeOf(input).getDimSize(dim), *splitSize));
}

/// `unbind.int(self, dim)`: every index along dim, the dim dropped.
LogicalResult convertUnbind(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  RankedTensorType type = typeOf(*input);
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), type.getRank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + *dim);
  SmallVector<Value> pieces;
  for (int64_t i = 0, e = type.getDimSize(*dim); i < e; ++i)
    pieces.push_back(
        cv.reshape(sliceAlong(cv, *input, *dim, i, i + 1), shape));
  return cv.replaceList(op->getResult(0), pieces);
}

/// `chunk(self, chunks, dim)`: pieces of ceil(size / chunks), as split.
LogicalResult convertChunk(Converter &cv, Operation *op) {
  auto operands = splitOperands(cv, op);
  if (failed(operands))
    return failure();
  auto [input, dim] = *operands;
  std::optional<int64_t> chunks = cv.constantInt(op->getOperand(1));
  if (!chunks || *chunks < 1)
    return cv.reject("chunks must be a positive constant");
  int64_t total = typeOf(input).getDimSize(dim);
  int64_t chunkSize = std::max<int64_t>((total + *chunks - 1) / *chunks, 1);
  return splitInto(cv, op, input, dim, equalPieces(total, chunkSize));
}

/// `stack(tensors, dim)`: each tensor gains a unit dim, then concat.
LogicalResult convertStack(Converter &cv, Operation *op) {
  FailureOr<SmallVector<Value>> tensors = cv.tensorList(op->getOperand(0));
  if (failed(tensors))
    return failure();
  RankedTensorType type = cv.resultType(op);
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), type.getRank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> pieceShape(type.getShape());
  pieceShape[*dim] = 1;
  SmallVector<Value> pieces;
  for (Value tensor : *tensors)
    pieces.push_back(cv.castTo(cv.reshape(tensor, pieceShape),
                               type.getElementType()));
  if (pieces.size() == 1)
    return cv.replace(op, pieces.front());
  return cv.replace(
      op, cv.create<ConcatOp>(type, pieces, static_cast<uint64_t>(*dim))
              .getResult());
}

LogicalResult convertListUnpack(Converter &cv, Operation *op) {
  FailureOr<SmallVector<Value>> tensors = cv.tensorList(op->getOperand(0));
  if (failed(tensors))
    return failure();
  return cv.replace(op, *tensors);
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// lhs @ rhs (or rhs^T) for operands of equal rank and batch dims.
FailureOr<Value> matmul(Converter &cv, Value lhs, Value rhs,
                        Type resultElement, bool transposeRhs = false) {
  RankedTensorType lhsType = typeOf(lhs), rhsType = typeOf(rhs);
  if (lhsType.getElementType() != rhsType.getElementType())
    return cv.reject("the operands have different dtypes");
  int64_t rank = rhsType.getRank();
  SmallVector<int64_t> shape(lhsType.getShape().drop_back());
  shape.push_back(rhsType.getDimSize(transposeRhs ? rank - 2 : rank - 1));
  return cv
      .create<MatmulOp>(RankedTensorType::get(shape, resultElement), lhs, rhs,
                        /*transpose_lhs=*/false, transposeRhs,
                        LoweringConfigAttr())
      .getResult();
}

/// mm, bmm.
LogicalResult convertMm(Converter &cv, Operation *op) {
  FailureOr<Value> lhs = cv.tensor(op->getOperand(0));
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = cv.tensor(op->getOperand(1));
  if (failed(rhs))
    return failure();
  FailureOr<Value> product =
      matmul(cv, *lhs, *rhs, cv.resultType(op).getElementType());
  if (failed(product))
    return failure();
  return cv.replace(op, *product);
}

/// `addmm(bias, mat1, mat2, beta, alpha)` = beta * bias + alpha * mat1 @ mat2.
LogicalResult convertAddmm(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  std::optional<TorchScalar> beta = cv.scalar(op->getOperand(3));
  std::optional<TorchScalar> alpha = cv.scalar(op->getOperand(4));
  if (!beta || !alpha)
    return cv.reject("beta and alpha must be constants");
  FailureOr<Value> lhs = cv.tensor(op->getOperand(1));
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = cv.tensor(op->getOperand(2));
  if (failed(rhs))
    return failure();
  FailureOr<Value> product = matmul(cv, *lhs, *rhs, type.getElementType());
  if (failed(product))
    return failure();
  Value result = *product;
  if (alpha->toDouble() != 1)
    result = cv.create<MulOp>(result, cv.splat(type, *alpha));
  // torch ignores the bias when beta is 0, NaNs included.
  if (beta->toDouble() == 0)
    return cv.replace(op, result);
  FailureOr<Value> bias = cv.operandAs(op->getOperand(0), type);
  if (failed(bias))
    return failure();
  Value scaledBias = *bias;
  if (beta->toDouble() != 1)
    scaledBias = cv.create<MulOp>(scaledBias, cv.splat(type, *beta));
  return cv.replace(op, cv.create<AddOp>(result, scaledBias).getResult());
}

/// The broadcast of two batch shapes; std::nullopt when incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

/// `matmul(a, b)` with torch's rules: vectors gain a unit dim, batch dims
/// broadcast. A matrix rhs takes the lhs batch into its rows instead, which
/// keeps one plain GEMM.
LogicalResult convertMatmul(Converter &cv, Operation *op) {
  FailureOr<Value> lhs = cv.tensor(op->getOperand(0));
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = cv.tensor(op->getOperand(1));
  if (failed(rhs))
    return failure();
  RankedTensorType type = cv.resultType(op);
  RankedTensorType lhsType = typeOf(*lhs), rhsType = typeOf(*rhs);
  if (lhsType.getRank() == 0 || rhsType.getRank() == 0)
    return cv.reject("matmul needs operands of rank >= 1");
  int64_t depth = lhsType.getShape().back();
  Value right = *rhs;
  if (rhsType.getRank() == 1)
    right = cv.reshape(right, {depth, 1});
  Value left = *lhs;
  if (rhsType.getRank() <= 2) {
    left = cv.reshape(left, {lhsType.getNumElements() / depth, depth});
  } else {
    if (lhsType.getRank() == 1)
      left = cv.reshape(left, {1, depth});
    ArrayRef<int64_t> leftShape = typeOf(left).getShape();
    ArrayRef<int64_t> rightShape = typeOf(right).getShape();
    std::optional<SmallVector<int64_t>> batch =
        broadcastShapes(leftShape.drop_back(2), rightShape.drop_back(2));
    if (!batch)
      return cv.reject("the batch dims do not broadcast");
    SmallVector<int64_t> leftTarget(*batch), rightTarget(*batch);
    llvm::append_range(leftTarget, leftShape.take_back(2));
    llvm::append_range(rightTarget, rightShape.take_back(2));
    FailureOr<Value> broadcastLeft = cv.broadcastTo(left, leftTarget);
    if (failed(broadcastLeft))
      return failure();
    FailureOr<Value> broadcastRight = cv.broadcastTo(right, rightTarget);
    if (failed(broadcastRight))
      return failure();
    left = *broadcastLeft;
    right = *broadcastRight;
  }
  FailureOr<Value> product = matmul(cv, left, right, type.getElementType());
  if (failed(product))
    return failure();
  return cv.replace(op, cv.reshape(*product, type.getShape()));
}

/// `linear(input, weight, bias)` = input @ weight^T + bias, with the input's
/// leading dims folded into the GEMM's rows.
LogicalResult convertLinear(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  FailureOr<Value> weight = cv.tensor(op->getOperand(1));
  if (failed(weight))
    return failure();
  RankedTensorType type = cv.resultType(op);
  RankedTensorType inputType = typeOf(*input);
  if (inputType.getRank() == 0 || typeOf(*weight).getRank() != 2)
    return cv.reject("needs an input of rank >= 1 and a 2-d weight");
  int64_t depth = inputType.getShape().back();
  Value rows = cv.reshape(*input, {inputType.getNumElements() / depth, depth});
  FailureOr<Value> product = matmul(cv, rows, *weight, type.getElementType(),
                                    /*transposeRhs=*/true);
  if (failed(product))
    return failure();
  Value result = *product;
  if (!cv.isNone(op->getOperand(2))) {
    FailureOr<Value> bias = cv.operandAs(op->getOperand(2), typeOf(result));
    if (failed(bias))
      return failure();
    result = cv.create<AddOp>(result, *bias);
  }
  return cv.replace(op, cv.reshape(result, type.getShape()));
}

//===----------------------------------------------------------------------===//
// Reductions, softmax, layer norm
//===----------------------------------------------------------------------===//

/// A reduction over the dims in `dimsOperand` (all dims when null); the
/// input is first cast to the result dtype, as torch accumulates in it (a
/// sum of bools counts in int64).
template <typename ReduceOpT>
LogicalResult reduce(Converter &cv, Operation *op, Value dimsOperand,
                     Value keepdimOperand) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  Value cast = cv.castTo(*input, type.getElementType());
  std::optional<bool> keepdim =
      keepdimOperand ? cv.constantBool(keepdimOperand) : false;
  if (!keepdim)
    return cv.reject("keepdim must be a constant");
  int64_t rank = typeOf(cast).getRank();
  if (rank == 0)
    return cv.replace(op, cast);
  FailureOr<SmallVector<int64_t>> dims = reductionDims(cv, dimsOperand, rank);
  if (failed(dims))
    return failure();
  return cv.replace(
      op, cv.create<ReduceOpT>(type, cast, *dims, *keepdim).getResult());
}

/// sum.dim_IntList, mean.dim, amax: (self, dims, keepdim, ...).
template <typename ReduceOpT>
LogicalResult convertReduceDims(Converter &cv, Operation *op) {
  return reduce<ReduceOpT>(cv, op, op->getOperand(1), op->getOperand(2));
}

/// sum, mean: (self, dtype), over everything.
template <typename ReduceOpT>
LogicalResult convertReduceAll(Converter &cv, Operation *op) {
  return reduce<ReduceOpT>(cv, op, Value(), Value());
}

/// `all.dim` / `any.dim` (self, dim, keepdim) and `all` / `any` (self):
/// the count of nonzero elements (i64) compared with the reduced size
/// (all) or with 0 (any).
template <bool All>
LogicalResult convertAllAny(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  bool hasDim = op->getNumOperands() > 1;
  std::optional<bool> keepdim =
      hasDim ? cv.constantBool(op->getOperand(2)) : false;
  if (!keepdim)
    return cv.reject("keepdim must be a constant");
  Type i64 = cv.b().getI64Type();
  Value counts = cv.castTo(cv.castTo(*input, cv.b().getI1Type()), i64);
  RankedTensorType inputType = typeOf(counts);
  int64_t reduced = 1;
  SmallVector<int64_t> dims;
  if (inputType.getRank() > 0) {
    std::optional<int64_t> dim =
        hasDim ? cv.constantInt(op->getOperand(1)) : std::nullopt;
    if (hasDim && !dim)
      return cv.reject("dim must be a constant");
    for (int64_t d = 0; d < inputType.getRank(); ++d)
      dims.push_back(d);
    if (hasDim) {
      std::optional<int64_t> normalized = normalizeDim(*dim, inputType.getRank());
      if (!normalized)
        return cv.reject("dim is out of range");
      dims.assign({*normalized});
    }
    for (int64_t d : dims)
      reduced *= inputType.getDimSize(d);
    counts = cv.create<ReduceSumOp>(type.clone(i64), counts, dims, *keepdim)
                 .getResult();
  }
  RankedTensorType countType = typeOf(counts);
  Value bound = cv.splat(countType, All ? double(reduced) : 0.0);
  return cv.replace(op, cv.create<CompareOp>(
                            type.clone(cv.b().getI1Type()),
                            All ? CompareDirection::EQ : CompareDirection::GT,
                            counts, bound)
                            .getResult());
}

/// `amin` as -amax(-x) (nova has no min reduction).
LogicalResult convertAmin(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  std::optional<bool> keepdim = cv.constantBool(op->getOperand(2));
  if (!keepdim)
    return cv.reject("keepdim must be a constant");
  Value cast = cv.castTo(*input, type.getElementType());
  int64_t rank = typeOf(cast).getRank();
  if (rank == 0)
    return cv.replace(op, cast);
  Value negated = cv.create<NegOp>(cast);
  FailureOr<SmallVector<int64_t>> dims =
      reductionDims(cv, op->getOperand(1), rank);
  if (failed(dims))
    return failure();
  Value maximum = cv.create<ReduceMaxOp>(type, negated, *dims, *keepdim);
  return cv.replace(op, cv.create<NegOp>(maximum).getResult());
}

/// `var.correction` / `var_mean.correction` / `std.correction(self, dims,
/// correction, keepdim)` and the `.dim` forms, whose third operand is the
/// bool `unbiased` (correction 1 or 0): sum((x - mean)^2) / (N - correction),
/// two-pass for accuracy, and its square root for std.
template <bool standardDeviation>
LogicalResult convertVariance(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  RankedTensorType type = typeOf(*input);
  if (!isa<FloatType>(type.getElementType()))
    return cv.reject("needs a floating-point input");
  FailureOr<SmallVector<int64_t>> dims =
      reductionDims(cv, op->getOperand(1), type.getRank());
  if (failed(dims))
    return failure();
  Value correctionOperand = op->getOperand(2);
  std::optional<double> correction = 1.0;
  if (std::optional<bool> unbiased = cv.constantBool(correctionOperand))
    correction = *unbiased ? 1.0 : 0.0;
  else if (!cv.isNone(correctionOperand))
    correction = cv.constantFloat(correctionOperand);
  std::optional<bool> keepdim = cv.constantBool(op->getOperand(3));
  if (!correction || !keepdim)
    return cv.reject("correction and keepdim must be constants");

  auto keptType = RankedTensorType::get(
      reducedShape(type.getShape(), *dims, /*keepdim=*/true),
      type.getElementType());
  Value mean = cv.create<ReduceMeanOp>(keptType, *input, *dims, true);
  FailureOr<Value> broadcastMean = cv.broadcastTo(mean, type.getShape());
  if (failed(broadcastMean))
    return failure();
  Value centered = cv.create<SubOp>(*input, *broadcastMean);
  Value sumOfSquares = cv.create<ReduceSumOp>(
      keptType, cv.create<MulOp>(centered, centered), *dims, true);
  int64_t count = 1;
  for (int64_t dim : *dims)
    count *= type.getDimSize(dim);
  // torch divides by max(N - correction, 0): inf/nan rather than an error.
  Value variance = cv.create<DivOp>(
      sumOfSquares,
      cv.splat(keptType, std::max(static_cast<double>(count) - *correction,
                                  0.0)));
  if (standardDeviation)
    variance = cv.create<SqrtOp>(variance);
  SmallVector<Value> results = {
      cv.reshape(variance, cv.resultType(op, 0).getShape())};
  if (op->getNumResults() == 2)
    results.push_back(cv.reshape(mean, cv.resultType(op, 1).getShape()));
  return cv.replace(op, results);
}

/// `_softmax(self, dim, half_to_float)`, `softmax.int(self, dim, dtype)`
/// and the log variants; the result type carries the output dtype.
template <typename OpT>
LogicalResult convertSoftmax(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  if (type.getRank() == 0)
    return cv.reject("needs a tensor of rank >= 1");
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), type.getRank());
  if (failed(dim))
    return failure();
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  Value cast = cv.castTo(*input, type.getElementType());
  return cv.replace(
      op, cv.create<OpT>(type, cast, static_cast<uint64_t>(*dim)).getResult());
}

/// An optional weight or bias of a layer norm: None, or the normalized
/// shape in the input's dtype.
FailureOr<Value> normParameter(Converter &cv, Value operand,
                               RankedTensorType expected) {
  if (cv.isNone(operand))
    return Value();
  FailureOr<Value> value = cv.tensor(operand);
  if (failed(value))
    return failure();
  if (typeOf(*value).getShape() != expected.getShape())
    return cv.reject("weight and bias must have the normalized shape");
  return cv.castTo(*value, expected.getElementType());
}

/// `layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)`
/// and `native_layer_norm(input, normalized_shape, weight, bias, eps)`,
/// whose mean and rstd results (for the backward) are built only when used.
LogicalResult convertLayerNorm(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  RankedTensorType type = typeOf(*input);
  std::optional<SmallVector<int64_t>> normalizedShape =
      cv.constantIntList(op->getOperand(1));
  std::optional<double> epsilon = cv.constantFloat(op->getOperand(4));
  if (!normalizedShape || !epsilon)
    return cv.reject("normalized_shape and eps must be constants");
  int64_t normalizedRank = normalizedShape->size();
  if (normalizedRank < 1 || normalizedRank > type.getRank() ||
      type.getShape().take_back(normalizedRank) !=
          ArrayRef<int64_t>(*normalizedShape))
    return cv.reject("normalized_shape must be the input's trailing dims");
  auto parameterType = RankedTensorType::get(*normalizedShape,
                                             type.getElementType());
  FailureOr<Value> weight = normParameter(cv, op->getOperand(2), parameterType);
  if (failed(weight))
    return failure();
  FailureOr<Value> bias = normParameter(cv, op->getOperand(3), parameterType);
  if (failed(bias))
    return failure();
  Value output = cv.create<LayerNormOp>(
      cv.resultType(op, 0), *input, *weight, *bias,
      static_cast<uint64_t>(normalizedRank), APFloat(*epsilon));
  SmallVector<Value> results = {output};
  if (op->getNumResults() == 3) {
    if (op->getResult(1).use_empty() && op->getResult(2).use_empty()) {
      results.append({Value(), Value()});
    } else {
      SmallVector<int64_t> dims = llvm::to_vector(
          llvm::seq<int64_t>(type.getRank() - normalizedRank, type.getRank()));
      auto keptType = RankedTensorType::get(
          reducedShape(type.getShape(), dims, /*keepdim=*/true),
          type.getElementType());
      Value mean = cv.create<ReduceMeanOp>(keptType, *input, dims, true);
      FailureOr<Value> broadcastMean = cv.broadcastTo(mean, type.getShape());
      if (failed(broadcastMean))
        return failure();
      Value centered = cv.create<SubOp>(*input, *broadcastMean);
      Value variance = cv.create<ReduceMeanOp>(
          keptType, cv.create<MulOp>(centered, centered), dims, true);
      Value rstd = cv.create<RsqrtOp>(
          cv.create<AddOp>(variance, cv.splat(keptType, *epsilon)));
      Value statistics[] = {mean, rstd};
      for (auto [index, value] : llvm::enumerate(statistics)) {
        RankedTensorType resultType = cv.resultType(op, index + 1);
        results.push_back(cv.castTo(cv.reshape(value, resultType.getShape()),
                                    resultType.getElementType()));
      }
    }
  }
  return cv.replace(op, results);
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

/// Python's negative indices counted from the end of a dim of `size`.
Value wrapNegative(Converter &cv, Value indices, int64_t size) {
  RankedTensorType type = typeOf(indices);
  Value negative = cv.create<CompareOp>(
      RankedTensorType::get(type.getShape(), cv.b().getI1Type()),
      CompareDirection::LT, indices, cv.splat(type, 0.0));
  return cv.create<SelectOp>(
      type, negative,
      cv.create<AddOp>(indices, cv.splat(type, static_cast<double>(size))),
      indices);
}

FailureOr<Value> indexTensor(Converter &cv, Value operand) {
  FailureOr<Value> indices = cv.tensor(operand);
  if (failed(indices))
    return failure();
  Type element = typeOf(*indices).getElementType();
  if (!isa<IntegerType>(element) || element.isInteger(1))
    return cv.reject("indices must be integers (boolean masks are not "
                     "supported)");
  return indices;
}

/// The single index tensor of `index.Tensor` / `index_put`, which must
/// index dim 0 (`t[idx]`); other forms need gathers nova does not have.
FailureOr<Value> singleDim0Index(Converter &cv, Value list) {
  FailureOr<SmallVector<Value>> elements = cv.listElements(list);
  if (failed(elements))
    return failure();
  if (elements->size() != 1 || cv.isNone(elements->front()))
    return cv.reject("only a single index tensor on dim 0 is supported");
  return indexTensor(cv, elements->front());
}

LogicalResult convertEmbedding(Converter &cv, Operation *op) {
  FailureOr<Value> table = cv.tensor(op->getOperand(0));
  if (failed(table))
    return failure();
  FailureOr<Value> indices = indexTensor(cv, op->getOperand(1));
  if (failed(indices))
    return failure();
  return cv.replace(
      op,
      cv.create<EmbeddingOp>(cv.resultType(op), *table, *indices).getResult());
}

/// `index.Tensor(self, [i0, ..., ik-1])` = self[i0, ..., ik-1] over the
/// leading k dims: the index tensors broadcast together, each wrapped for
/// negatives, are linearized (i0 * d1 + i1 ...) into the rows of self viewed
/// as [d0 * ... * dk-1, rest...], looked up like an embedding. (Autograd's
/// backward of an in-place write into a view indexes this way.)
LogicalResult convertIndex(Converter &cv, Operation *op) {
  FailureOr<Value> self = cv.tensor(op->getOperand(0));
  if (failed(self))
    return failure();
  FailureOr<SmallVector<Value>> elements = cv.listElements(op->getOperand(1));
  if (failed(elements))
    return failure();
  RankedTensorType selfType = typeOf(*self);
  int64_t rank = selfType.getRank();
  if (static_cast<int64_t>(elements->size()) > rank)
    return cv.reject("more indices than dims");
  // The indexed dims (the non-None entries) go first; torch puts the
  // indices' broadcast dims where the indexed dims were when those are
  // adjacent, else in front.
  SmallVector<int64_t> indexed, others, permutation;
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d) {
    bool isIndexed = d < static_cast<int64_t>(elements->size()) &&
                     !cv.isNone((*elements)[d]);
    (isIndexed ? indexed : others).push_back(d);
    if (!isIndexed)
      continue;
    FailureOr<Value> index = indexTensor(cv, (*elements)[d]);
    if (failed(index))
      return failure();
    indices.push_back(cv.castTo(*index, cv.b().getI64Type()));
  }
  if (indexed.empty())
    return cv.reject("no index tensor");
  llvm::append_range(permutation, indexed);
  llvm::append_range(permutation, others);
  Value front = *self;
  if (!llvm::equal(permutation, llvm::seq<int64_t>(0, rank))) {
    SmallVector<int64_t> shape;
    for (int64_t d : permutation)
      shape.push_back(selfType.getDimSize(d));
    front = cv.create<TransposeOp>(selfType.clone(shape), *self, permutation)
                .getResult();
  }
  RankedTensorType frontType = typeOf(front);
  int64_t k = indexed.size(), rest = others.size();
  RankedTensorType result = cv.resultType(op);
  int64_t commonRank = result.getRank() - rest;
  bool adjacent = indexed.back() - indexed.front() + 1 == k;
  int64_t commonAt = adjacent ? indexed.front() : 0;
  // The indices' common (broadcast) shape.
  ArrayRef<int64_t> common =
      result.getShape().slice(commonAt, commonRank);
  Value linear;
  int64_t rows = 1;
  for (int64_t d = 0; d < k; ++d) {
    FailureOr<Value> index = cv.broadcastTo(indices[d], common);
    if (failed(index))
      return failure();
    int64_t size = frontType.getDimSize(d);
    Value wrapped = wrapNegative(cv, *index, size);
    linear = d == 0 ? wrapped
                    : cv.create<AddOp>(
                          cv.create<MulOp>(linear,
                                           cv.splat(typeOf(wrapped),
                                                    static_cast<double>(size))),
                          wrapped);
    rows *= size;
  }
  SmallVector<int64_t> flatShape = {rows};
  llvm::append_range(flatShape, frontType.getShape().drop_front(k));
  Value table = cv.reshape(front, flatShape);
  SmallVector<int64_t> gatheredShape(common);
  llvm::append_range(gatheredShape, frontType.getShape().drop_front(k));
  Value gathered =
      cv.create<EmbeddingOp>(result.clone(gatheredShape), table, linear)
          .getResult();
  if (commonAt == 0)
    return cv.replace(op, gathered);
  // [common, others] -> [others before, common, others after].
  SmallVector<int64_t> back;
  for (int64_t d = 0; d < commonAt; ++d)
    back.push_back(commonRank + d);
  for (int64_t d = 0; d < commonRank; ++d)
    back.push_back(d);
  for (int64_t d = commonAt; d < rest; ++d)
    back.push_back(commonRank + d);
  return cv.replace(
      op, cv.create<TransposeOp>(result, gathered, back).getResult());
}

/// `as_strided_scatter(self, src, size, stride, offset)` where the strided
/// view is a box of self's contiguous layout (stride = self's row-major
/// strides, offset at a box corner): src written into that box, one
/// slice_scatter-like concat per dim, innermost first.
LogicalResult convertAsStridedScatter(Converter &cv, Operation *op) {
  FailureOr<Value> self = cv.tensor(op->getOperand(0));
  FailureOr<Value> src = cv.tensor(op->getOperand(1));
  std::optional<SmallVector<int64_t>> size = cv.constantIntList(op->getOperand(2));
  std::optional<SmallVector<int64_t>> stride =
      cv.constantIntList(op->getOperand(3));
  std::optional<int64_t> offset =
      cv.isNone(op->getOperand(4)) ? std::optional<int64_t>(0)
                                   : cv.constantInt(op->getOperand(4));
  if (failed(self) || failed(src))
    return failure();
  if (!size || !stride || !offset)
    return cv.reject("size, stride and storage offset must be constants");
  RankedTensorType type = typeOf(*self);
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(size->size()) != rank ||
      static_cast<int64_t>(stride->size()) != rank)
    return cv.reject("only views of self's rank are supported");
  SmallVector<int64_t> starts(rank);
  int64_t remaining = *offset, contiguous = 1;
  SmallVector<int64_t> strides(rank);
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = contiguous;
    contiguous *= type.getDimSize(d);
  }
  for (int64_t d = 0; d < rank; ++d) {
    if ((*stride)[d] != strides[d] && (*size)[d] != 1)
      return cv.reject("only boxes of self's contiguous layout are supported");
    starts[d] = remaining / strides[d];
    remaining -= starts[d] * strides[d];
    if (starts[d] + (*size)[d] > type.getDimSize(d))
      return cv.reject("the view exceeds self");
  }
  if (remaining != 0)
    return cv.reject("the storage offset is not a box corner");
  Value piece = cv.castTo(*src, type.getElementType());
  // Write the box dim by dim: at dim d, the band of self holding the box
  // along dims < d gets the piece spliced in along d.
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value band = *self;
    for (int64_t e = 0; e < d; ++e)
      band = sliceAlong(cv, band, e, starts[e], starts[e] + (*size)[e]);
    int64_t extent = typeOf(band).getDimSize(d);
    SmallVector<Value> pieces;
    if (starts[d] > 0)
      pieces.push_back(sliceAlong(cv, band, d, 0, starts[d]));
    pieces.push_back(piece);
    if (starts[d] + (*size)[d] < extent)
      pieces.push_back(sliceAlong(cv, band, d, starts[d] + (*size)[d], extent));
    piece = pieces.size() == 1
                ? piece
                : cv.create<ConcatOp>(typeOf(band), pieces,
                                      static_cast<uint64_t>(d))
                      .getResult();
  }
  return cv.replace(op, piece);
}

/// `index_put(self, [idx], values, accumulate=True)`: the embedding
/// backward the decompositions produce, a row scatter-add.
LogicalResult convertIndexPut(Converter &cv, Operation *op) {
  std::optional<bool> accumulate = cv.constantBool(op->getOperand(3));
  if (!accumulate || !*accumulate)
    return cv.reject("only accumulate=true is supported");
  FailureOr<Value> self = cv.tensor(op->getOperand(0));
  if (failed(self))
    return failure();
  FailureOr<Value> indices = singleDim0Index(cv, op->getOperand(1));
  if (failed(indices))
    return failure();
  RankedTensorType type = typeOf(*self);
  // The decompositions clamp indices to [-rows, rows); negative ones count
  // from the end, as in Python.
  Value wrapped = wrapNegative(cv, *indices, type.getDimSize(0));
  SmallVector<int64_t> updatesShape(typeOf(*indices).getShape());
  llvm::append_range(updatesShape, type.getShape().drop_front());
  FailureOr<Value> updates = cv.operandAs(
      op->getOperand(2),
      RankedTensorType::get(updatesShape, type.getElementType()));
  if (failed(updates))
    return failure();
  return cv.replace(
      op, cv.create<ScatterAddOp>(type, *self, wrapped, *updates).getResult());
}

/// `embedding_dense_backward(grad, indices, num_weights, padding_idx,
/// scale_grad_by_freq)`: rows of grad summed into a zero table, except the
/// padding row's.
LogicalResult convertEmbeddingBackward(Converter &cv, Operation *op) {
  std::optional<bool> scaleByFrequency = cv.constantBool(op->getOperand(4));
  std::optional<int64_t> paddingIndex = cv.constantInt(op->getOperand(3));
  if (!scaleByFrequency || !paddingIndex)
    return cv.reject("padding_idx and scale_grad_by_freq must be constants");
  if (*scaleByFrequency)
    return cv.reject("scale_grad_by_freq is not supported");
  RankedTensorType type = cv.resultType(op);
  FailureOr<Value> indices = indexTensor(cv, op->getOperand(1));
  if (failed(indices))
    return failure();
  RankedTensorType indicesType = typeOf(*indices);
  SmallVector<int64_t> updatesShape(indicesType.getShape());
  llvm::append_range(updatesShape, type.getShape().drop_front());
  FailureOr<Value> updates = cv.operandAs(
      op->getOperand(0),
      RankedTensorType::get(updatesShape, type.getElementType()));
  if (failed(updates))
    return failure();
  if (*paddingIndex >= 0) {
    // The mask has the index dims; unit row dims let it broadcast over rows.
    Value isPadding = cv.create<CompareOp>(
        RankedTensorType::get(indicesType.getShape(), cv.b().getI1Type()),
        CompareDirection::EQ, *indices,
        cv.splat(indicesType, static_cast<double>(*paddingIndex)));
    SmallVector<int64_t> maskShape(indicesType.getShape());
    maskShape.append(type.getRank() - 1, 1);
    FailureOr<Value> mask =
        cv.broadcastTo(cv.reshape(isPadding, maskShape), updatesShape);
    if (failed(mask))
      return failure();
    RankedTensorType updatesType = typeOf(*updates);
    updates = cv.create<SelectOp>(updatesType, *mask,
                                  cv.splat(updatesType, 0.0), *updates)
                  .getResult();
  }
  return cv.replace(op, cv.create<ScatterAddOp>(type, cv.splat(type, 0.0),
                                                *indices, *updates)
                            .getResult());
}

LogicalResult convertGather(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  FailureOr<int64_t> dim =
      dimOperand(cv, op->getOperand(1), typeOf(*input).getRank());
  if (failed(dim))
    return failure();
  FailureOr<Value> indices = indexTensor(cv, op->getOperand(2));
  if (failed(indices))
    return failure();
  return cv.replace(op, cv.create<GatherOp>(cv.resultType(op), *input,
                                            *indices,
                                            static_cast<uint64_t>(*dim))
                            .getResult());
}

enum class Scatter { Value, Source, Add };

/// The one-hot lowering writes one compare per index entry along dim;
/// beyond this many entries the op is a real scatter, not the one-hot target
/// of a loss backward.
constexpr int64_t kMaxOneHotScatterWidth = 16;

/// `scatter.value(self, dim, index, value)`, `scatter.src(self, dim, index,
/// src)` and `scatter_add(self, dim, index, src)`, as in the cross-entropy
/// backward: index entry j along dim hits the positions whose coordinate
/// along dim equals it (iota + compare), and a select writes there. Needs
/// the index to cover self outside dim.
template <Scatter kind>
LogicalResult convertScatter(Converter &cv, Operation *op) {
  RankedTensorType type = cv.resultType(op);
  if (type.getRank() == 0)
    return cv.reject("needs a tensor of rank >= 1");
  FailureOr<Value> self = cv.operandAs(op->getOperand(0), type);
  if (failed(self))
    return failure();
  FailureOr<int64_t> dim = dimOperand(cv, op->getOperand(1), type.getRank());
  if (failed(dim))
    return failure();
  FailureOr<Value> indices = indexTensor(cv, op->getOperand(2));
  if (failed(indices))
    return failure();
  RankedTensorType indicesType = typeOf(*indices);
  if (indicesType.getRank() != type.getRank())
    return cv.reject("index and self must have the same rank");
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != *dim && indicesType.getDimSize(d) != type.getDimSize(d))
      return cv.reject("the index must have self's size outside dim " +
                       Twine(*dim));
  int64_t width = indicesType.getDimSize(*dim);
  if (width > kMaxOneHotScatterWidth)
    return cv.reject("the index has " + Twine(width) + " entries along dim " +
                     Twine(*dim) + "; at most " +
                     Twine(kMaxOneHotScatterWidth) + " are supported");

  Value source;
  if (kind != Scatter::Value) {
    FailureOr<Value> fullSource = cv.tensor(op->getOperand(3));
    if (failed(fullSource))
      return failure();
    source = cv.castTo(*fullSource, type.getElementType());
    // Only src's part under the index counts.
    RankedTensorType sourceType = typeOf(source);
    if (sourceType.getRank() != type.getRank())
      return cv.reject("src and self must have the same rank");
    if (sourceType.getShape() != indicesType.getShape())
      source = cv.create<SliceOp>(
          indicesType.clone(type.getElementType()), source,
          SmallVector<int64_t>(type.getRank(), 0), indicesType.getShape(),
          SmallVector<int64_t>(type.getRank(), 1));
  }

  Value positions = cv.create<IotaOp>(
      indicesType.clone(type.getShape()), static_cast<uint64_t>(*dim));
  RankedTensorType maskType = type.clone(cv.b().getI1Type());
  Value result = *self, anyHit;
  for (int64_t j = 0; j < width; ++j) {
    FailureOr<Value> entry = cv.broadcastTo(
        sliceAlong(cv, *indices, *dim, j, j + 1), type.getShape());
    if (failed(entry))
      return failure();
    Value hit = cv.create<CompareOp>(maskType, CompareDirection::EQ, *entry,
                                     positions);
    if (kind == Scatter::Value) {
      anyHit = anyHit ? cv.create<SelectOp>(maskType, anyHit,
                                            cv.splat(maskType, 1.0), hit)
                            .getResult()
                      : hit;
      continue;
    }
    FailureOr<Value> update = cv.broadcastTo(
        sliceAlong(cv, source, *dim, j, j + 1), type.getShape());
    if (failed(update))
      return failure();
    if (kind == Scatter::Source)
      result = cv.create<SelectOp>(type, hit, *update, result);
    else
      result = cv.create<AddOp>(
          result,
          cv.create<SelectOp>(type, hit, *update, cv.splat(type, 0.0)));
  }
  if (kind == Scatter::Value && anyHit) {
    FailureOr<Value> value = cv.operandAs(op->getOperand(3), type);
    if (failed(value))
      return failure();
    result = cv.create<SelectOp>(type, anyHit, *value, result);
  }
  return cv.replace(op, result);
}

//===----------------------------------------------------------------------===//
// Optimizer updates (python/nova/optim_ops.py)
//===----------------------------------------------------------------------===//

/// The operands of a per-parameter update that share the parameter's type.
FailureOr<SmallVector<Value>> parameterOperands(Converter &cv, Operation *op,
                                                unsigned count) {
  SmallVector<Value> values;
  for (unsigned i = 0; i < count; ++i) {
    FailureOr<Value> value = cv.tensor(op->getOperand(i));
    if (failed(value))
      return failure();
    if (i > 0) {
      RankedTensorType paramType = typeOf(values.front());
      if (typeOf(*value).getShape() != paramType.getShape())
        return cv.reject("operand #" + Twine(i) +
                         " does not have the parameter's shape");
      *value = cv.castTo(*value, paramType.getElementType());
    }
    values.push_back(*value);
  }
  return values;
}

/// Hyperparameters: 0-d f32 tensors, so new values need no recompilation.
FailureOr<SmallVector<Value>> hyperparameters(Converter &cv, Operation *op,
                                              unsigned first, unsigned count) {
  SmallVector<Value> values;
  for (unsigned i = first; i < first + count; ++i) {
    FailureOr<Value> value = cv.tensor(op->getOperand(i));
    if (failed(value))
      return failure();
    if (typeOf(*value).getRank() != 0)
      return cv.reject("hyperparameter operand #" + Twine(i) +
                       " must be a 0-d tensor");
    values.push_back(cv.castTo(*value, cv.b().getF32Type()));
  }
  return values;
}

/// nova::sgd(param, grad, momentum_buf, lr, momentum, dampening,
/// weight_decay, is_first_step, bool nesterov) -> (param, momentum_buf).
LogicalResult convertSgd(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 9 || op->getNumResults() != 2)
    return cv.reject("expected 9 operands and 2 results");
  std::optional<bool> nesterov = cv.constantBool(op->getOperand(8));
  if (!nesterov)
    return cv.reject("nesterov must be a constant");
  FailureOr<SmallVector<Value>> tensors = parameterOperands(cv, op, 3);
  if (failed(tensors))
    return failure();
  FailureOr<SmallVector<Value>> hyper = hyperparameters(cv, op, 3, 5);
  if (failed(hyper))
    return failure();
  Type type = (*tensors)[0].getType();
  auto sgd = cv.create<SgdOp>(type, type, (*tensors)[0], (*tensors)[1],
                              (*tensors)[2], (*hyper)[0], (*hyper)[1],
                              (*hyper)[2], (*hyper)[3], (*hyper)[4],
                              *nesterov);
  return cv.replace(op, sgd->getResults());
}

/// nova::adamw(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2,
/// eps, weight_decay) -> (param, exp_avg, exp_avg_sq).
LogicalResult convertAdamw(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 10 || op->getNumResults() != 3)
    return cv.reject("expected 10 operands and 3 results");
  FailureOr<SmallVector<Value>> tensors = parameterOperands(cv, op, 4);
  if (failed(tensors))
    return failure();
  FailureOr<SmallVector<Value>> hyper = hyperparameters(cv, op, 4, 6);
  if (failed(hyper))
    return failure();
  Type type = (*tensors)[0].getType();
  auto adamw = cv.create<AdamwOp>(
      type, type, type, (*tensors)[0], (*tensors)[1], (*tensors)[2],
      (*tensors)[3], (*hyper)[0], (*hyper)[1], (*hyper)[2], (*hyper)[3],
      (*hyper)[4], (*hyper)[5]);
  return cv.replace(op, adamw->getResults());
}

/// The tensor operands `first`..`first + count - 1` of `op`.
FailureOr<SmallVector<Value>> tensorOperands(Converter &cv, Operation *op,
                                             unsigned first, unsigned count) {
  SmallVector<Value> tensors;
  for (unsigned i = first; i < first + count; ++i) {
    FailureOr<Value> value = cv.tensor(op->getOperand(i));
    if (failed(value))
      return failure();
    tensors.push_back(*value);
  }
  return tensors;
}

/// nova::attention(q, k, v, bool causal, float scale) -> (out, lse), from
/// torch.nn.functional.scaled_dot_product_attention (python/nova/attention_ops.py).
LogicalResult convertAttention(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 5 || op->getNumResults() != 2)
    return cv.reject("expected 5 operands and 2 results");
  std::optional<bool> causal = cv.constantBool(op->getOperand(3));
  std::optional<double> scale = cv.constantFloat(op->getOperand(4));
  if (!causal || !scale)
    return cv.reject("causal and scale must be constants");
  FailureOr<SmallVector<Value>> tensors = tensorOperands(cv, op, 0, 3);
  if (failed(tensors))
    return failure();
  auto attention = cv.create<AttentionOp>(
      cv.resultType(op, 0), cv.resultType(op, 1), (*tensors)[0],
      (*tensors)[1], (*tensors)[2], /*mask=*/Value(), *causal,
      APFloat(*scale));
  return cv.replace(op, attention->getResults());
}

/// nova::attention_backward(dout, q, k, v, out, lse, bool causal,
/// float scale) -> (dq, dk, dv).
LogicalResult convertAttentionBackward(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 8 || op->getNumResults() != 3)
    return cv.reject("expected 8 operands and 3 results");
  std::optional<bool> causal = cv.constantBool(op->getOperand(6));
  std::optional<double> scale = cv.constantFloat(op->getOperand(7));
  if (!causal || !scale)
    return cv.reject("causal and scale must be constants");
  FailureOr<SmallVector<Value>> tensors = tensorOperands(cv, op, 0, 6);
  if (failed(tensors))
    return failure();
  ValueRange t = *tensors;
  auto backward = cv.create<AttentionBackwardOp>(
      cv.resultType(op, 0), cv.resultType(op, 1), cv.resultType(op, 2), t[0],
      t[1], t[2], t[3], t[4], t[5], /*mask=*/Value(), *causal,
      APFloat(*scale));
  return cv.replace(op, backward->getResults());
}

/// nova::cross_entropy(logits, target, int ignore_index) -> (loss, lse), from
/// torch.nn.functional.cross_entropy (python/nova/loss_ops.py).
LogicalResult convertCrossEntropy(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 3 || op->getNumResults() != 2)
    return cv.reject("expected 3 operands and 2 results");
  std::optional<int64_t> ignoreIndex = cv.constantInt(op->getOperand(2));
  if (!ignoreIndex)
    return cv.reject("ignore_index must be a constant");
  FailureOr<SmallVector<Value>> tensors = tensorOperands(cv, op, 0, 2);
  if (failed(tensors))
    return failure();
  auto loss = cv.create<CrossEntropyOp>(cv.resultType(op, 0),
                                        cv.resultType(op, 1), (*tensors)[0],
                                        (*tensors)[1], *ignoreIndex);
  return cv.replace(op, loss->getResults());
}

/// nova::cross_entropy_backward(grad_loss, logits, target, lse,
/// int ignore_index) -> grad_logits.
LogicalResult convertCrossEntropyBackward(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 5 || op->getNumResults() != 1)
    return cv.reject("expected 5 operands and 1 result");
  std::optional<int64_t> ignoreIndex = cv.constantInt(op->getOperand(4));
  if (!ignoreIndex)
    return cv.reject("ignore_index must be a constant");
  FailureOr<SmallVector<Value>> tensors = tensorOperands(cv, op, 0, 4);
  if (failed(tensors))
    return failure();
  auto backward = cv.create<CrossEntropyBackwardOp>(
      cv.resultType(op, 0), (*tensors)[0], (*tensors)[1], (*tensors)[2],
      (*tensors)[3], *ignoreIndex);
  return cv.replace(op, backward->getResults());
}

/// nova::all_reduce(Tensor x, str reduction) -> Tensor.
LogicalResult convertAllReduce(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 2 || op->getNumResults() != 1)
    return cv.reject("expected 2 operands and 1 result");
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  std::optional<StringRef> reduction = cv.constantString(op->getOperand(1));
  if (!reduction)
    return cv.reject("the reduction must be a constant string");
  return cv.replace(
      op, cv.create<AllReduceOp>(typeOf(*input), *input, *reduction)
              .getResult());
}

/// nova::uniform(Tensor seed, int stream, int[] shape) -> f32 tensor.
LogicalResult convertUniform(Converter &cv, Operation *op) {
  if (op->getNumOperands() != 3 || op->getNumResults() != 1)
    return cv.reject("expected 3 operands and 1 result");
  FailureOr<Value> seed = cv.tensor(op->getOperand(0));
  if (failed(seed))
    return failure();
  std::optional<int64_t> stream = cv.constantInt(op->getOperand(1));
  if (!stream)
    return cv.reject("stream must be a constant");
  RankedTensorType seedType = typeOf(*seed);
  if (seedType.getRank() != 0 || !seedType.getElementType().isInteger(64))
    return cv.reject("the seed must be a 0-d int64 tensor");
  return cv.replace(op, cv.create<RandomUniformOp>(cv.resultType(op), *seed,
                                                   *stream)
                            .getResult());
}

} // namespace

void torch_to_nova::addStructuredHandlers(HandlerTable &table) {
  const std::pair<StringRef, Handler> handlers[] = {
      // Views and data movement.
      {"torch.aten.view", convertReshape},
      {"torch.aten.reshape", convertReshape},
      {"torch.aten._unsafe_view", convertReshape},
      {"torch.aten._reshape_alias", convertReshape},
      {"torch.aten.flatten.using_ints", convertReshape},
      {"torch.aten.unflatten.int", convertReshape},
      {"torch.aten.squeeze", convertReshape},
      {"torch.aten.squeeze.dim", convertReshape},
      {"torch.aten.squeeze.dims", convertReshape},
      {"torch.prims.squeeze", convertReshape},
      {"torch.aten.unsqueeze", convertReshape},
      {"torch.aten.permute", convertPermute},
      {"torch.aten.flip", convertFlip},
      {"torch.aten.cumsum", convertCumsum},
      {"torch.aten.transpose.int", convertTransposeInt},
      {"torch.aten.t", convertT},
      {"torch.aten.expand", convertExpand},
      {"torch.aten.broadcast_to", convertExpand},
      {"torch.aten.slice.Tensor", convertSlice},
      {"torch.aten.select.int", convertSelect},
      {"torch.aten.narrow", convertNarrow},
      {"torch.aten.cat", convertCat},
      {"torch.aten.repeat", convertRepeat},
      {"torch.aten.constant_pad_nd", convertConstantPad},
      {"torch.aten.slice_scatter", convertSliceScatter},
      {"torch.aten.as_strided_scatter", convertAsStridedScatter},
      {"torch.aten.split_with_sizes", convertSplitWithSizes},
      {"torch.aten.split.Tensor", convertSplit},
      {"torch.aten.unbind.int", convertUnbind},
      {"torch.aten.chunk", convertChunk},
      {"torch.aten.stack", convertStack},
      {"torch.prim.ListUnpack", convertListUnpack},
      // Matrix products.
      {"torch.aten.mm", convertMm},
      {"torch.aten.bmm", convertMm},
      {"torch.aten.addmm", convertAddmm},
      {"torch.aten.matmul", convertMatmul},
      {"torch.aten.linear", convertLinear},
      // Reductions, softmax, layer norm.
      {"torch.aten.sum.dim_IntList", convertReduceDims<ReduceSumOp>},
      {"torch.aten.sum", convertReduceAll<ReduceSumOp>},
      {"torch.aten.mean.dim", convertReduceDims<ReduceMeanOp>},
      {"torch.aten.mean", convertReduceAll<ReduceMeanOp>},
      {"torch.aten.amax", convertReduceDims<ReduceMaxOp>},
      {"torch.aten.all.dim", convertAllAny<true>},
      {"torch.aten.any.dim", convertAllAny<false>},
      {"torch.aten.all", convertAllAny<true>},
      {"torch.aten.any", convertAllAny<false>},
      {"torch.aten.amin", convertAmin},
      {"torch.aten.max", convertReduceAll<ReduceMaxOp>},
      {"torch.aten.var.correction", convertVariance<false>},
      {"torch.aten.var.dim", convertVariance<false>},
      {"torch.aten.var_mean.correction", convertVariance<false>},
      {"torch.aten.std.correction", convertVariance<true>},
      {"torch.aten.std.dim", convertVariance<true>},
      {"torch.aten._softmax", convertSoftmax<SoftmaxOp>},
      {"torch.aten.softmax.int", convertSoftmax<SoftmaxOp>},
      {"torch.aten._log_softmax", convertSoftmax<LogSoftmaxOp>},
      {"torch.aten.log_softmax.int", convertSoftmax<LogSoftmaxOp>},
      {"torch.aten.layer_norm", convertLayerNorm},
      {"torch.aten.native_layer_norm", convertLayerNorm},
      // Indexing.
      {"torch.aten.embedding", convertEmbedding},
      {"torch.aten.embedding_dense_backward", convertEmbeddingBackward},
      {"torch.aten.index.Tensor", convertIndex},
      {"torch.aten.index.Tensor_hacked_twin", convertIndex},
      {"torch.aten.index_put", convertIndexPut},
      {"torch.aten.index_put.hacked_twin", convertIndexPut},
      {"torch.aten._index_put_impl", convertIndexPut},
      {"torch.aten.gather", convertGather},
      {"torch.aten.scatter.value", convertScatter<Scatter::Value>},
      {"torch.aten.scatter.src", convertScatter<Scatter::Source>},
      {"torch.aten.scatter_add", convertScatter<Scatter::Add>},
      // Optimizer updates, imported as torch.operator.
      {"torch.nova.sgd", convertSgd},
      {"torch.nova.adamw", convertAdamw},
      // Fused attention (scaled_dot_product_attention), as torch.operator.
      {"torch.nova.attention", convertAttention},
      {"torch.nova.attention_backward", convertAttentionBackward},
      // Softmax cross-entropy (torch.nn.functional.cross_entropy).
      {"torch.nova.cross_entropy", convertCrossEntropy},
      {"torch.nova.cross_entropy_backward", convertCrossEntropyBackward},
      {"torch.nova.uniform", convertUniform},
      {"torch.nova.all_reduce", convertAllReduce},
  };
  for (const auto &[name, handler] : handlers)
    table[name] = handler;
}
