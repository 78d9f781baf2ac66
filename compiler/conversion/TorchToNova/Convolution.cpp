//===- Convolution.cpp - torch convolutions and pooling to nova ----------===//
//
// aten.convolution (plain and transposed, grouped, N-d) and
// aten.convolution_backward become nova.convolution ops: the input gradient
// is a transposed convolution (the output gradient dilated by the stride,
// against the flipped kernel with in and out channels swapped), the weight
// gradient a convolution of the input by the output gradient with batch and
// channels swapped (the stride becomes the kernel's dilation), the bias
// gradient a sum.
//
// Pooling (N-d): average pooling is a convolution of each channel with a
// kernel of ones, divided by the window sizes (a constant), and its backward
// that convolution's input gradient; max pooling takes the maximum and its
// first index over the strided window slices of the input padded with -inf,
// and its backward scatter-adds the output gradient at those indices.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/TorchToNova/TorchToNova.h"

#include <limits>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::torch_to_nova;

namespace {

/// A convolution's hyperparameters as torch gives them, one entry per
/// spatial dim.
struct ConvGeometry {
  SmallVector<int64_t> stride, padding, dilation, outputPadding;
  int64_t groups = 1;
  bool transposed = false;
};

/// Reads (stride, padding, dilation, transposed, output_padding, groups),
/// the operands from `first` on; one-entry lists apply to every spatial dim.
FailureOr<ConvGeometry> readGeometry(Converter &cv, Operation *op,
                                     unsigned first, int64_t spatial) {
  ConvGeometry geometry;
  auto list = [&](unsigned index, StringRef name,
                  SmallVector<int64_t> &out) -> LogicalResult {
    std::optional<SmallVector<int64_t>> values =
        cv.constantIntList(op->getOperand(index));
    if (!values)
      return cv.reject(name + " must be a constant list");
    if (values->size() == 1)
      values->assign(spatial, values->front());
    if (static_cast<int64_t>(values->size()) != spatial)
      return cv.reject(name + " has " + Twine(values->size()) +
                       " entries for " + Twine(spatial) + " spatial dims");
    out = std::move(*values);
    return success();
  };
  if (failed(list(first, "stride", geometry.stride)) ||
      failed(list(first + 1, "padding", geometry.padding)) ||
      failed(list(first + 2, "dilation", geometry.dilation)) ||
      failed(list(first + 4, "output_padding", geometry.outputPadding)))
    return failure();
  std::optional<bool> transposed = cv.constantBool(op->getOperand(first + 3));
  std::optional<int64_t> groups = cv.constantInt(op->getOperand(first + 5));
  if (!transposed || !groups)
    return cv.reject("transposed and groups must be constants");
  geometry.transposed = *transposed;
  geometry.groups = *groups;
  for (int64_t d = 0; d < spatial; ++d)
    if (geometry.stride[d] < 1 || geometry.dilation[d] < 1 ||
        geometry.padding[d] < 0 || geometry.outputPadding[d] < 0)
      return cv.reject("stride and dilation must be positive, padding and "
                       "output_padding non-negative");
  return geometry;
}

/// nova.convolution, its result shape derived from the operands.
Value convolution(Converter &cv, Value input, Value weight,
                  ArrayRef<int64_t> stride, ArrayRef<int64_t> low,
                  ArrayRef<int64_t> high, ArrayRef<int64_t> dilation,
                  ArrayRef<int64_t> lhsDilation, int64_t groups) {
  RankedTensorType inputType = typeOf(input), weightType = typeOf(weight);
  SmallVector<int64_t> shape = {inputType.getDimSize(0),
                                weightType.getDimSize(0)};
  for (size_t d = 0; d < stride.size(); ++d) {
    int64_t extent =
        lhsDilation[d] * (inputType.getDimSize(2 + d) - 1) + 1 + low[d] + high[d];
    int64_t window = dilation[d] * (weightType.getDimSize(2 + d) - 1) + 1;
    shape.push_back((extent - window) / stride[d] + 1);
  }
  return cv
      .create<ConvolutionOp>(inputType.clone(shape), input, weight, stride,
                             low, high, dilation, lhsDilation, groups)
      .getResult();
}

Value permuted(Converter &cv, Value value, ArrayRef<int64_t> permutation) {
  RankedTensorType type = typeOf(value);
  SmallVector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(type.getDimSize(p));
  return cv.create<TransposeOp>(type.clone(shape), value, permutation)
      .getResult();
}

/// Swaps dims 0 and 1 (batch and channels, or out and in features).
Value swapLeadingDims(Converter &cv, Value value) {
  SmallVector<int64_t> permutation = {1, 0};
  for (int64_t d = 2; d < typeOf(value).getRank(); ++d)
    permutation.push_back(d);
  return permuted(cv, value, permutation);
}

/// The input gradient of a convolution of `weight` ([F, C/groups, K...])
/// whose output gradient is `gradOutput` ([N, F, O...]), for an input of
/// spatial extent `inputSpatial`: a convolution of the stride-dilated
/// gradient with the flipped kernel, in and out channels swapped per group.
/// Also a transposed convolution's forward.
FailureOr<Value> inputGradient(Converter &cv, Value gradOutput, Value weight,
                               const ConvGeometry &g,
                               ArrayRef<int64_t> inputSpatial) {
  RankedTensorType weightType = typeOf(weight);
  int64_t rank = weightType.getRank(), spatial = rank - 2;
  int64_t features = weightType.getDimSize(0), perGroup = weightType.getDimSize(1);
  int64_t groups = g.groups;
  SmallVector<int64_t> spatialDims;
  for (int64_t d = 2; d < rank; ++d)
    spatialDims.push_back(d);
  Value flipped =
      cv.create<ReverseOp>(weight.getType(), weight, spatialDims).getResult();
  // [G*Fg, Cg, K] -> [G, Fg, Cg, K] -> [G, Cg, Fg, K] -> [G*Cg, Fg, K].
  SmallVector<int64_t> grouped = {groups, features / groups, perGroup};
  llvm::append_range(grouped, weightType.getShape().drop_front(2));
  SmallVector<int64_t> swap = {0, 2, 1};
  for (int64_t d = 3; d < rank + 1; ++d)
    swap.push_back(d);
  Value kernel = permuted(cv, cv.reshape(flipped, grouped), swap);
  SmallVector<int64_t> kernelShape = {groups * perGroup, features / groups};
  llvm::append_range(kernelShape, weightType.getShape().drop_front(2));
  kernel = cv.reshape(kernel, kernelShape);

  RankedTensorType gradType = typeOf(gradOutput);
  SmallVector<int64_t> low, high, ones(spatial, 1);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t window = g.dilation[d] * (weightType.getDimSize(2 + d) - 1);
    int64_t lo = window - g.padding[d];
    if (lo < 0)
      return cv.reject("a padding larger than the dilated kernel is not "
                       "supported in a convolution's input gradient");
    low.push_back(lo);
    high.push_back(inputSpatial[d] - (gradType.getDimSize(2 + d) - 1) * g.stride[d] -
                   1 + g.padding[d]);
  }
  return convolution(cv, gradOutput, kernel, ones, low, high, g.dilation,
                     g.stride, groups);
}

/// The weight gradient ([F, C/groups, K...], kernel extent `kernel`) of a
/// convolution of `input` ([N, C, D...]) whose output gradient is
/// `gradOutput` ([N, F, O...]): per group, the input with batch and channels
/// swapped convolved with the gradient (batch and features swapped) as the
/// kernel, at stride `dilation` and kernel dilation `stride`.
Value weightGradient(Converter &cv, Value input, Value gradOutput,
                     const ConvGeometry &g, ArrayRef<int64_t> kernel) {
  RankedTensorType inputType = typeOf(input), gradType = typeOf(gradOutput);
  int64_t spatial = inputType.getRank() - 2;
  // The last input rows a strided window never reaches are cropped, so
  // that the result has exactly the kernel's extent.
  SmallVector<int64_t> high, used(inputType.getShape().drop_front(2)),
      ones(spatial, 1);
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t needed = (kernel[d] - 1) * g.dilation[d] +
                     (gradType.getDimSize(2 + d) - 1) * g.stride[d] + 1;
    int64_t hi = needed - inputType.getDimSize(2 + d) - g.padding[d];
    high.push_back(std::max<int64_t>(hi, 0));
    used[d] += std::min<int64_t>(hi, 0);
  }
  int64_t groups = g.groups;
  int64_t channels = inputType.getDimSize(1) / groups;
  int64_t features = gradType.getDimSize(1) / groups;
  SmallVector<Value> perGroup;
  for (int64_t group = 0; group < groups; ++group) {
    SmallVector<int64_t> start(inputType.getRank(), 0),
        limit(inputType.getShape()), step(inputType.getRank(), 1);
    start[1] = group * channels;
    limit[1] = start[1] + channels;
    for (int64_t d = 0; d < spatial; ++d)
      limit[2 + d] = used[d];
    SmallVector<int64_t> shape(limit);
    shape[1] = channels;
    Value x = input;
    if (shape != ArrayRef(inputType.getShape()))
      x = cv.create<SliceOp>(inputType.clone(shape), input, start, limit, step)
              .getResult();
    Value dy = gradOutput;
    if (groups > 1) {
      SmallVector<int64_t> gStart(gradType.getRank(), 0),
          gLimit(gradType.getShape()), gStep(gradType.getRank(), 1);
      gStart[1] = group * features;
      gLimit[1] = gStart[1] + features;
      SmallVector<int64_t> gShape(gradType.getShape());
      gShape[1] = features;
      dy = cv.create<SliceOp>(gradType.clone(gShape), gradOutput, gStart, gLimit,
                              gStep)
               .getResult();
    }
    // [C, N, D] (*) [F, N, O] -> [C, F, K].
    perGroup.push_back(convolution(cv, swapLeadingDims(cv, x),
                                   swapLeadingDims(cv, dy), g.dilation,
                                   g.padding, high, g.stride, ones, 1));
  }
  Value grad = perGroup.front();
  if (groups > 1) {
    SmallVector<int64_t> shape(typeOf(grad).getShape());
    shape[1] *= groups;
    grad = cv.create<ConcatOp>(typeOf(grad).clone(shape), perGroup,
                               static_cast<uint64_t>(1))
               .getResult();
  }
  return swapLeadingDims(cv, grad);
}

SmallVector<int64_t> spatialShape(Value value) {
  return SmallVector<int64_t>(typeOf(value).getShape().drop_front(2));
}

/// `convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups)`.
LogicalResult convertConvolution(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  FailureOr<Value> weight = cv.tensor(op->getOperand(1));
  if (failed(input) || failed(weight))
    return failure();
  int64_t rank = typeOf(*input).getRank();
  if (rank < 3 || typeOf(*weight).getRank() != rank)
    return cv.reject("expected a batched input [N, C, spatial...] and a "
                     "weight of the same rank");
  FailureOr<ConvGeometry> g = readGeometry(cv, op, 3, rank - 2);
  if (failed(g))
    return failure();
  RankedTensorType type = cv.resultType(op);
  Value x = cv.castTo(*input, type.getElementType());
  Value w = cv.castTo(*weight, type.getElementType());
  Value result;
  if (g->transposed) {
    FailureOr<Value> transposed =
        inputGradient(cv, x, w, *g, type.getShape().drop_front(2));
    if (failed(transposed))
      return failure();
    result = *transposed;
  } else {
    SmallVector<int64_t> ones(rank - 2, 1);
    result = convolution(cv, x, w, g->stride, g->padding, g->padding,
                         g->dilation, ones, g->groups);
  }
  if (!cv.isNone(op->getOperand(2))) {
    FailureOr<Value> bias = cv.tensor(op->getOperand(2));
    if (failed(bias))
      return failure();
    SmallVector<int64_t> column = {type.getDimSize(1)};
    column.append(rank - 2, 1);
    FailureOr<Value> broadcast = cv.broadcastTo(
        cv.reshape(cv.castTo(*bias, type.getElementType()), column),
        type.getShape());
    if (failed(broadcast))
      return failure();
    result = cv.create<AddOp>(result, *broadcast).getResult();
  }
  return cv.replace(op, result);
}

/// `convolution_backward(grad_output, input, weight, bias_sizes, stride,
/// padding, dilation, transposed, output_padding, groups, output_mask)`
/// -> (grad_input, grad_weight, grad_bias), each only where the mask asks.
LogicalResult convertConvolutionBackward(Converter &cv, Operation *op) {
  FailureOr<Value> gradOutput = cv.tensor(op->getOperand(0));
  FailureOr<Value> input = cv.tensor(op->getOperand(1));
  FailureOr<Value> weight = cv.tensor(op->getOperand(2));
  if (failed(gradOutput) || failed(input) || failed(weight))
    return failure();
  int64_t rank = typeOf(*input).getRank();
  FailureOr<ConvGeometry> g = readGeometry(cv, op, 4, rank - 2);
  if (failed(g))
    return failure();
  std::optional<SmallVector<int64_t>> mask = cv.constantIntList(op->getOperand(10));
  if (!mask || mask->size() != 3)
    return cv.reject("output_mask must be a constant list of three bools");
  SmallVector<Value> results(3);
  if ((*mask)[0]) {
    RankedTensorType type = cv.resultType(op, 0);
    Value dy = cv.castTo(*gradOutput, type.getElementType());
    Value w = cv.castTo(*weight, type.getElementType());
    FailureOr<Value> grad;
    if (g->transposed) {
      SmallVector<int64_t> ones(rank - 2, 1);
      grad = convolution(cv, dy, w, g->stride, g->padding, g->padding,
                         g->dilation, ones, g->groups);
    } else {
      grad = inputGradient(cv, dy, w, *g, spatialShape(*input));
    }
    if (failed(grad))
      return failure();
    results[0] = *grad;
  }
  if ((*mask)[1]) {
    RankedTensorType type = cv.resultType(op, 1);
    Value x = cv.castTo(*input, type.getElementType());
    Value dy = cv.castTo(*gradOutput, type.getElementType());
    // A transposed convolution's weight gradient: its input plays the output
    // gradient's part and the other way round.
    results[1] = g->transposed
                     ? weightGradient(cv, dy, x, *g, spatialShape(*weight))
                     : weightGradient(cv, x, dy, *g, spatialShape(*weight));
  }
  if ((*mask)[2]) {
    RankedTensorType type = cv.resultType(op, 2);
    SmallVector<int64_t> dims = {0};
    for (int64_t d = 2; d < rank; ++d)
      dims.push_back(d);
    results[2] = cv.create<ReduceSumOp>(
                       type, cv.castTo(*gradOutput, type.getElementType()),
                       dims, /*keepdim=*/false)
                     .getResult();
  }
  return cv.replace(op, results);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// A pooling window over the trailing `kernel.size()` dims of the input.
struct PoolGeometry {
  SmallVector<int64_t> kernel, stride, padding, dilation;
  bool ceilMode = false;
};

/// Reads kernel_size, stride (empty: the kernel size), padding and, with
/// `dilationIndex`, dilation, then ceil_mode; one-entry lists apply to
/// every pooled dim.
FailureOr<PoolGeometry> readPoolGeometry(Converter &cv, Operation *op,
                                         unsigned first,
                                         std::optional<unsigned> dilationIndex,
                                         unsigned ceilIndex) {
  PoolGeometry g;
  std::optional<SmallVector<int64_t>> kernel =
      cv.constantIntList(op->getOperand(first));
  if (!kernel || kernel->empty())
    return cv.reject("kernel_size must be a constant list");
  int64_t dims = kernel->size() == 1 ? 0 : kernel->size();
  auto list = [&](unsigned index, SmallVector<int64_t> &out,
                  ArrayRef<int64_t> fallback) -> LogicalResult {
    std::optional<SmallVector<int64_t>> values =
        cv.constantIntList(op->getOperand(index));
    if (!values)
      return cv.reject("pooling parameters must be constant lists");
    out = values->empty() ? SmallVector<int64_t>(fallback) : *values;
    return success();
  };
  g.kernel = *kernel;
  if (failed(list(first + 1, g.stride, g.kernel)) ||
      failed(list(first + 2, g.padding, {0})))
    return failure();
  if (dilationIndex) {
    if (failed(list(*dilationIndex, g.dilation, {1})))
      return failure();
  } else {
    g.dilation = {1};
  }
  std::optional<bool> ceil = cv.constantBool(op->getOperand(ceilIndex));
  if (!ceil)
    return cv.reject("ceil_mode must be a constant");
  g.ceilMode = *ceil;
  for (SmallVector<int64_t> *values :
       {&g.kernel, &g.stride, &g.padding, &g.dilation})
    dims = std::max<int64_t>(dims, values->size());
  for (SmallVector<int64_t> *values :
       {&g.kernel, &g.stride, &g.padding, &g.dilation}) {
    if (values->size() == 1)
      values->assign(dims, values->front());
    if (static_cast<int64_t>(values->size()) != dims)
      return cv.reject("pooling parameters of different lengths");
  }
  return g;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// `value` padded along `dim` with `low` / `high` elements of `fill`.
Value padAlong(Converter &cv, Value value, int64_t dim, int64_t low,
               int64_t high, double fill) {
  if (!low && !high)
    return value;
  RankedTensorType type = typeOf(value);
  SmallVector<Value> pieces;
  auto splatOf = [&](int64_t amount) {
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = amount;
    return cv.splat(type.clone(shape), fill);
  };
  if (low)
    pieces.push_back(splatOf(low));
  pieces.push_back(value);
  if (high)
    pieces.push_back(splatOf(high));
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] += low + high;
  return cv.create<ConcatOp>(type.clone(shape), pieces,
                             static_cast<uint64_t>(dim))
      .getResult();
}

/// The high padding a ceil-mode window past the padded input needs.
SmallVector<int64_t> extraHighPadding(const PoolGeometry &g,
                                      ArrayRef<int64_t> inputSpatial,
                                      ArrayRef<int64_t> outputSpatial) {
  SmallVector<int64_t> extra;
  for (size_t d = 0; d < g.kernel.size(); ++d) {
    int64_t reach = (outputSpatial[d] - 1) * g.stride[d] +
                    g.dilation[d] * (g.kernel[d] - 1) + 1;
    extra.push_back(std::max<int64_t>(
        0, reach - inputSpatial[d] - 2 * g.padding[d]));
  }
  return extra;
}

/// The maximum over a pooling window's elements, added one at a time, and
/// the index of its first occurrence: a later element wins only when greater
/// (torch's rule).
struct FirstMax {
  Value value, index;

  void add(Converter &cv, Value candidate, Value candidateIndex) {
    if (!value) {
      value = candidate;
      index = candidateIndex;
      return;
    }
    RankedTensorType type = typeOf(value);
    Value greater = cv.create<CompareOp>(type.clone(cv.b().getI1Type()),
                                         CompareDirection::GT, candidate,
                                         value);
    value = cv.create<SelectOp>(type, greater, candidate, value);
    index = cv.create<SelectOp>(typeOf(index), greater, candidateIndex, index);
  }
};

/// `max_pool{1,2,3}d_with_indices(self, kernel_size, stride, padding,
/// dilation, ceil_mode)` -> (out, indices): the indices are flat over the
/// pooled dims of each channel, the first maximum wins (as in torch).
LogicalResult convertMaxPoolWithIndices(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  FailureOr<PoolGeometry> g = readPoolGeometry(cv, op, 1, 4, 5);
  if (failed(g))
    return failure();
  RankedTensorType type = cv.resultType(op, 0),
                   indexType = cv.resultType(op, 1);
  RankedTensorType inputType = typeOf(*input);
  int64_t rank = inputType.getRank(), pooled = g->kernel.size(),
          lead = rank - pooled;
  if (lead < 1 || type.getRank() != rank)
    return cv.reject("expected [..., C, pooled dims...]");
  ArrayRef<int64_t> inputSpatial = inputType.getShape().drop_front(lead),
                    outputSpatial = type.getShape().drop_front(lead);
  SmallVector<int64_t> extra =
      extraHighPadding(*g, inputSpatial, outputSpatial);
  Value padded = *input;
  for (int64_t d = 0; d < pooled; ++d)
    padded = padAlong(cv, padded, lead + d, g->padding[d],
                      g->padding[d] + extra[d],
                      -std::numeric_limits<double>::infinity());
  SmallVector<int64_t> inputStrides = rowMajorStrides(inputSpatial);
  // Each output position's flat input index for window offset zero.
  auto spatialIndexType =
      RankedTensorType::get(outputSpatial, indexType.getElementType());
  Value base = cv.splat(spatialIndexType, 0.0);
  for (int64_t d = 0; d < pooled; ++d) {
    Value along = cv.create<IotaOp>(spatialIndexType, static_cast<uint64_t>(d));
    base = cv.create<AddOp>(
        base, cv.create<MulOp>(along, cv.splat(spatialIndexType,
                                               static_cast<double>(
                                                   g->stride[d] *
                                                   inputStrides[d]))));
  }
  int64_t windows = 1;
  for (int64_t k : g->kernel)
    windows *= k;
  FirstMax maximum;
  for (int64_t w = 0; w < windows; ++w) {
    // The window offset (k_0, ..., k_{pooled-1}) of window element w.
    SmallVector<int64_t> offset(pooled);
    for (int64_t d = pooled - 1, rest = w; d >= 0; --d) {
      offset[d] = rest % g->kernel[d];
      rest /= g->kernel[d];
    }
    SmallVector<int64_t> start(rank, 0), limit(typeOf(padded).getShape()),
        step(rank, 1);
    int64_t flat = 0;
    for (int64_t d = 0; d < pooled; ++d) {
      int64_t at = offset[d] * g->dilation[d];
      start[lead + d] = at;
      limit[lead + d] = at + (outputSpatial[d] - 1) * g->stride[d] + 1;
      step[lead + d] = g->stride[d];
      flat += (at - g->padding[d]) * inputStrides[d];
    }
    Value slice =
        cv.create<SliceOp>(type, padded, start, limit, step).getResult();
    FailureOr<Value> index = cv.broadcastTo(
        cv.create<AddOp>(base, cv.splat(spatialIndexType,
                                        static_cast<double>(flat))),
        indexType.getShape());
    if (failed(index))
      return failure();
    maximum.add(cv, slice, *index);
  }
  return cv.replace(op, {maximum.value, maximum.index});
}

/// How many trailing dims a pooling op pools: its name says (max_pool2d...).
int64_t pooledDims(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name.contains("1d") ? 1 : name.contains("3d") ? 3 : 2;
}

/// The gradient of a max pooling: `grad` added at each channel's `indices`
/// (flat over the pooled dims) into a zero input of the op's result type.
LogicalResult scatterAtIndices(Converter &cv, Operation *op, unsigned gradIndex,
                               unsigned indicesIndex) {
  FailureOr<Value> grad = cv.tensor(op->getOperand(gradIndex));
  FailureOr<Value> indices = cv.tensor(op->getOperand(indicesIndex));
  if (failed(grad) || failed(indices))
    return failure();
  RankedTensorType type = cv.resultType(op);
  int64_t rank = type.getRank(), lead = rank - pooledDims(op);
  if (lead < 1)
    return cv.reject("expected [..., C, pooled dims...]");
  int64_t rows = 1, perRow = 1, outputs = 1;
  for (int64_t d = 0; d < lead; ++d)
    rows *= type.getDimSize(d);
  for (int64_t d = lead; d < rank; ++d)
    perRow *= type.getDimSize(d);
  RankedTensorType indexType = typeOf(*indices);
  for (int64_t d = lead; d < rank; ++d)
    outputs *= indexType.getDimSize(d);
  // Flat indices into the whole input: row * perRow + index.
  auto rowsType = RankedTensorType::get({rows, outputs},
                                        indexType.getElementType());
  Value flat = cv.create<AddOp>(
      cv.create<MulOp>(cv.create<IotaOp>(rowsType, uint64_t{0}),
                       cv.splat(rowsType, static_cast<double>(perRow))),
      cv.reshape(*indices, rowsType.getShape()));
  flat = cv.reshape(flat, {rows * outputs});
  Type element = type.getElementType();
  Value updates =
      cv.reshape(cv.castTo(*grad, element), {rows * outputs, 1});
  auto destType = RankedTensorType::get({rows * perRow, 1}, element);
  Value sums = cv.create<ScatterAddOp>(destType, cv.splat(destType, 0.0),
                                       flat, updates)
                   .getResult();
  return cv.replace(op, cv.reshape(sums, type.getShape()));
}

/// `max_pool{1,2,3}d_with_indices_backward(grad_output, self, kernel_size,
/// stride, padding, dilation, ceil_mode, indices)`.
LogicalResult convertMaxPoolBackward(Converter &cv, Operation *op) {
  return scatterAtIndices(cv, op, 0, 7);
}

/// `adaptive_max_pool{1,2,3}d_backward(grad_output, self, indices)`.
LogicalResult convertAdaptiveMaxPoolBackward(Converter &cv, Operation *op) {
  return scatterAtIndices(cv, op, 0, 2);
}

/// `adaptive_max_pool{1,2,3}d(self, output_size)` -> (out, indices): torch's
/// windows [floor(o*in/out), ceil((o+1)*in/out)) per pooled dim. Window
/// element j of every output position is one gather of the input (flat over
/// the pooled dims) at a constant index (clamped to the window's last
/// element, which leaves the maximum and its first index unchanged); the
/// maximum and its first index are taken over them as in max pooling.
LogicalResult convertAdaptiveMaxPool(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  RankedTensorType type = cv.resultType(op, 0),
                   indexType = cv.resultType(op, 1);
  RankedTensorType inputType = typeOf(*input);
  int64_t rank = type.getRank(), pooled = pooledDims(op), lead = rank - pooled;
  if (lead < 1)
    return cv.reject("expected [..., C, pooled dims...]");
  ArrayRef<int64_t> inSizes = inputType.getShape().drop_front(lead),
                    outSizes = type.getShape().drop_front(lead);
  SmallVector<SmallVector<int64_t>> begins(pooled), ends(pooled);
  SmallVector<int64_t> windows(pooled, 1);
  for (int64_t d = 0; d < pooled; ++d)
    for (int64_t o = 0; o < outSizes[d]; ++o) {
      begins[d].push_back((o * inSizes[d]) / outSizes[d]);
      ends[d].push_back(((o + 1) * inSizes[d] + outSizes[d] - 1) / outSizes[d]);
      windows[d] = std::max(windows[d], ends[d].back() - begins[d].back());
    }
  int64_t rows = 1, spatial = 1, outputs = 1;
  for (int64_t d = 0; d < lead; ++d)
    rows *= type.getDimSize(d);
  for (int64_t size : inSizes)
    spatial *= size;
  for (int64_t size : outSizes)
    outputs *= size;
  // The input as a table of its spatial positions: [spatial, rows].
  Value table = cv.reshape(*input, {rows, spatial});
  table = cv.create<TransposeOp>(inputType.clone({spatial, rows}), table,
                                 ArrayRef<int64_t>{1, 0});
  SmallVector<int64_t> inStrides = rowMajorStrides(inSizes),
                       outStrides = rowMajorStrides(outSizes);
  auto spatialIndexType =
      RankedTensorType::get(outSizes, indexType.getElementType());
  int64_t offsets = 1;
  for (int64_t w : windows)
    offsets *= w;
  FirstMax maximum;
  for (int64_t w = 0; w < offsets; ++w) {
    SmallVector<int64_t> offset(pooled);
    for (int64_t d = pooled - 1, rest = w; d >= 0; --d) {
      offset[d] = rest % windows[d];
      rest /= windows[d];
    }
    SmallVector<int64_t> flat(outputs);
    for (int64_t o = 0; o < outputs; ++o) {
      int64_t index = 0;
      for (int64_t d = 0; d < pooled; ++d) {
        int64_t at = (o / outStrides[d]) % outSizes[d];
        index += std::min(begins[d][at] + offset[d], ends[d][at] - 1) *
                 inStrides[d];
      }
      flat[o] = index;
    }
    Value positions = cv.create<ConstantOp>(
        DenseElementsAttr::get(spatialIndexType, ArrayRef(flat)));
    SmallVector<int64_t> gatheredShape(outSizes);
    gatheredShape.push_back(rows);
    Value gathered =
        cv.create<EmbeddingOp>(inputType.clone(gatheredShape), table, positions)
            .getResult();
    // [outputs..., rows] -> [rows, outputs...] -> the result's shape.
    SmallVector<int64_t> rowsFirst = {pooled};
    for (int64_t d = 0; d < pooled; ++d)
      rowsFirst.push_back(d);
    SmallVector<int64_t> rowsFirstShape = {rows};
    llvm::append_range(rowsFirstShape, outSizes);
    Value values = cv.reshape(
        cv.create<TransposeOp>(inputType.clone(rowsFirstShape), gathered,
                               rowsFirst),
        type.getShape());
    FailureOr<Value> index = cv.broadcastTo(positions, indexType.getShape());
    if (failed(index))
      return failure();
    maximum.add(cv, values, *index);
  }
  return cv.replace(op, {maximum.value, maximum.index});
}

/// The average pooling divisor of each output position: the window's size
/// within the padded input (count_include_pad) or within the input.
Value poolDivisors(Converter &cv, const PoolGeometry &g,
                   ArrayRef<int64_t> inputSpatial,
                   ArrayRef<int64_t> outputSpatial, bool countIncludePad,
                   std::optional<int64_t> divisorOverride, Type element) {
  int64_t count = 1;
  for (int64_t o : outputSpatial)
    count *= o;
  SmallVector<double> divisors(count, 1.0);
  SmallVector<int64_t> strides = rowMajorStrides(outputSpatial);
  for (int64_t i = 0; i < count; ++i) {
    if (divisorOverride) {
      divisors[i] = *divisorOverride;
      continue;
    }
    double size = 1;
    for (size_t d = 0; d < outputSpatial.size(); ++d) {
      int64_t o = (i / strides[d]) % outputSpatial[d];
      int64_t begin = o * g.stride[d] - g.padding[d];
      int64_t end = std::min(begin + g.kernel[d],
                             inputSpatial[d] + g.padding[d]);
      if (!countIncludePad) {
        end = std::min(end, inputSpatial[d]);
        begin = std::max<int64_t>(begin, 0);
      }
      size *= static_cast<double>(end - begin);
    }
    divisors[i] = size;
  }
  // Built in the element type: a cast of a constant would be left for
  // IREE's constant evaluation, which crashes on bf16 truncation (3.13).
  return cv.constant(RankedTensorType::get(outputSpatial, element), divisors);
}

/// Reads `avg_pool*(self, kernel_size, stride, padding, ceil_mode,
/// count_include_pad, divisor_override)` from operand `first` (self's
/// position) on, for the op's float result (the input, or its gradient).
struct AvgPool {
  PoolGeometry g;
  bool countIncludePad = true;
  std::optional<int64_t> divisorOverride;
  RankedTensorType type;
  /// The dims before the pooled ones.
  int64_t lead = 0;
};

FailureOr<AvgPool> readAvgPool(Converter &cv, Operation *op, unsigned first) {
  AvgPool pool;
  pool.type = cv.resultType(op);
  if (!isa<FloatType>(pool.type.getElementType()))
    return cv.reject("average pooling needs a floating-point tensor");
  FailureOr<PoolGeometry> g =
      readPoolGeometry(cv, op, first + 1, std::nullopt, first + 4);
  if (failed(g))
    return failure();
  pool.g = *g;
  pool.lead = pool.type.getRank() - static_cast<int64_t>(g->kernel.size());
  if (pool.lead < 1)
    return cv.reject("expected [..., C, pooled dims...]");
  std::optional<bool> include = cv.constantBool(op->getOperand(first + 5));
  if (!include)
    return cv.reject("count_include_pad must be a constant");
  pool.countIncludePad = *include;
  if (op->getNumOperands() > first + 6 && !cv.isNone(op->getOperand(first + 6))) {
    pool.divisorOverride = cv.constantInt(op->getOperand(first + 6));
    if (!pool.divisorOverride || *pool.divisorOverride == 0)
      return cv.reject("divisor_override must be a non-zero constant");
  }
  return pool;
}

/// The pooled channels of a [..., pooled dims...] tensor as [rows, 1,
/// pooled dims...], and a kernel of ones for them.
std::pair<Value, Value> asChannels(Converter &cv, Value value,
                                   const PoolGeometry &g) {
  RankedTensorType type = typeOf(value);
  int64_t pooled = g.kernel.size(), lead = type.getRank() - pooled;
  int64_t rows = 1;
  for (int64_t d = 0; d < lead; ++d)
    rows *= type.getDimSize(d);
  SmallVector<int64_t> shape = {rows, 1};
  llvm::append_range(shape, type.getShape().drop_front(lead));
  SmallVector<int64_t> kernelShape = {1, 1};
  llvm::append_range(kernelShape, g.kernel);
  return {cv.reshape(value, shape), cv.splat(type.clone(kernelShape), 1.0)};
}

/// `avg_pool{1,2,3}d(self, kernel_size, stride, padding, ceil_mode,
/// count_include_pad, divisor_override)`.
LogicalResult convertAvgPool(Converter &cv, Operation *op) {
  FailureOr<Value> input = cv.tensor(op->getOperand(0));
  if (failed(input))
    return failure();
  FailureOr<AvgPool> pool = readAvgPool(cv, op, 0);
  if (failed(pool))
    return failure();
  const PoolGeometry &g = pool->g;
  RankedTensorType type = pool->type;
  int64_t pooled = g.kernel.size(), lead = pool->lead;
  ArrayRef<int64_t> inputSpatial = typeOf(*input).getShape().drop_front(lead),
                    outputSpatial = type.getShape().drop_front(lead);
  SmallVector<int64_t> high(g.padding),
      extra = extraHighPadding(g, inputSpatial, outputSpatial);
  for (int64_t d = 0; d < pooled; ++d)
    high[d] += extra[d];
  auto [channels, ones] =
      asChannels(cv, cv.castTo(*input, type.getElementType()), g);
  SmallVector<int64_t> unit(pooled, 1);
  Value sums = convolution(cv, channels, ones, g.stride, g.padding, high,
                           unit, unit, 1);
  FailureOr<Value> divisors = cv.broadcastTo(
      poolDivisors(cv, g, inputSpatial, outputSpatial, pool->countIncludePad,
                   pool->divisorOverride, type.getElementType()),
      typeOf(sums).getShape());
  if (failed(divisors))
    return failure();
  Value mean = cv.create<DivOp>(sums, *divisors);
  return cv.replace(op, cv.reshape(mean, type.getShape()));
}

/// `avg_pool{1,2,3}d_backward(grad_output, self, kernel_size, stride,
/// padding, ceil_mode, count_include_pad, divisor_override)`.
LogicalResult convertAvgPoolBackward(Converter &cv, Operation *op) {
  FailureOr<Value> grad = cv.tensor(op->getOperand(0));
  if (failed(grad))
    return failure();
  FailureOr<AvgPool> pool = readAvgPool(cv, op, 1);
  if (failed(pool))
    return failure();
  const PoolGeometry &g = pool->g;
  RankedTensorType type = pool->type;
  int64_t pooled = g.kernel.size(), lead = pool->lead;
  ArrayRef<int64_t> inputSpatial = type.getShape().drop_front(lead),
                    outputSpatial = typeOf(*grad).getShape().drop_front(lead);
  Value dy = cv.castTo(*grad, type.getElementType());
  FailureOr<Value> divisors = cv.broadcastTo(
      poolDivisors(cv, g, inputSpatial, outputSpatial, pool->countIncludePad,
                   pool->divisorOverride, type.getElementType()),
      typeOf(dy).getShape());
  if (failed(divisors))
    return failure();
  auto [channels, ones] = asChannels(cv, cv.create<DivOp>(dy, *divisors), g);
  ConvGeometry geometry;
  geometry.stride = g.stride;
  geometry.padding = g.padding;
  geometry.dilation.assign(pooled, 1);
  geometry.outputPadding.assign(pooled, 0);
  FailureOr<Value> input =
      inputGradient(cv, channels, ones, geometry, inputSpatial);
  if (failed(input))
    return failure();
  return cv.replace(op, cv.reshape(*input, type.getShape()));
}

} // namespace

void torch_to_nova::addConvolutionHandlers(HandlerTable &table) {
  table["torch.aten.convolution"] = convertConvolution;
  table["torch.aten._convolution"] = convertConvolution;
  table["torch.aten.convolution_backward"] = convertConvolutionBackward;
  for (StringRef dims : {"1d", "2d", "3d"}) {
    std::string maxPool = ("torch.aten.max_pool" + dims).str();
    table[maxPool + "_with_indices"] = convertMaxPoolWithIndices;
    table[maxPool + "_with_indices_backward"] = convertMaxPoolBackward;
    std::string adaptiveMaxPool = ("torch.aten.adaptive_max_pool" + dims).str();
    table[adaptiveMaxPool] = convertAdaptiveMaxPool;
    table[adaptiveMaxPool + "_backward"] = convertAdaptiveMaxPoolBackward;
    std::string avgPool = ("torch.aten.avg_pool" + dims).str();
    table[avgPool] = convertAvgPool;
    table[avgPool + "_backward"] = convertAvgPoolBackward;
  }
}
