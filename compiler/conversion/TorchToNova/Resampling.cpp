//===- Resampling.cpp - separable linear resampling to nova matmuls ------===//
//
// Adaptive average pooling, nearest and (bi)linear upsampling are linear
// maps that act on each spatial dim separately: out = x x_d M_d with one
// [out, in] matrix per dim, fixed at compile time by torch's index formulas.
// Their backward applies the transposed matrices. Each dim's matrix is a
// constant and its product one nova.matmul (over the other dims as rows).
// The forward ops reach Nova decomposed (torch's decompositions); the
// backward ops, which have none, are converted here.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/TorchToNova/TorchToNova.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::torch_to_nova;

namespace {

/// An [out, in] resampling matrix, row-major.
using Matrix = SmallVector<double>;

/// torch's adaptive pooling windows: [floor(o*in/out), ceil((o+1)*in/out)).
Matrix adaptiveAverage(int64_t in, int64_t out) {
  Matrix m(out * in, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    int64_t begin = (o * in) / out;
    int64_t end = ((o + 1) * in + out - 1) / out;
    for (int64_t i = begin; i < end; ++i)
      m[o * in + i] = 1.0 / static_cast<double>(end - begin);
  }
  return m;
}

/// torch's scale of a resampling (area_pixel_compute_scale): a given
/// scale factor wins unless aligning corners.
double sourceScale(int64_t in, int64_t out, bool alignCorners,
                   std::optional<double> scale) {
  if (alignCorners)
    return out > 1 ? static_cast<double>(in - 1) / (out - 1) : 0.0;
  if (scale && *scale > 0)
    return 1.0 / *scale;
  return static_cast<double>(in) / out;
}

/// Nearest: source index min(floor(o * scale), in - 1).
Matrix nearest(int64_t in, int64_t out, std::optional<double> scale) {
  Matrix m(out * in, 0.0);
  // In float, as torch's kernels compute it.
  float s = static_cast<float>(sourceScale(in, out, false, scale));
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = std::min<int64_t>(
        static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    m[o * in + i] = 1.0;
  }
  return m;
}

/// Linear: the source coordinate (o + 0.5) * scale - 0.5 (o * scale when
/// aligning corners), clamped at 0, split between its two neighbours.
Matrix linear(int64_t in, int64_t out, bool alignCorners,
              std::optional<double> scale) {
  Matrix m(out * in, 0.0);
  double s = sourceScale(in, out, alignCorners, scale);
  for (int64_t o = 0; o < out; ++o) {
    double source = alignCorners ? o * s : (o + 0.5) * s - 0.5;
    source = std::max(source, 0.0);
    int64_t i0 = std::min<int64_t>(static_cast<int64_t>(source), in - 1);
    int64_t i1 = std::min<int64_t>(i0 + 1, in - 1);
    double w1 = source - i0;
    m[o * in + i0] += 1.0 - w1;
    m[o * in + i1] += w1;
  }
  return m;
}

/// `x` with `matrix` ([out, in] if not `transposed`, else [in, out] applied
/// as its transpose) applied along `dim`.
Value applyAlong(Converter &cv, Value x, int64_t dim, const Matrix &matrix,
                 int64_t rowsOut, int64_t colsIn, bool transposed) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  // [..., dim last]: rows of the other dims.
  SmallVector<int64_t> toLast, lastShape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      toLast.push_back(d);
  toLast.push_back(dim);
  for (int64_t d : toLast)
    lastShape.push_back(type.getDimSize(d));
  Value moved = x;
  if (dim != rank - 1)
    moved = cv.create<TransposeOp>(type.clone(lastShape), x, toLast);
  int64_t rows = type.getNumElements() / type.getDimSize(dim);
  int64_t in = transposed ? rowsOut : colsIn, out = transposed ? colsIn : rowsOut;
  Value flat = cv.reshape(moved, {rows, in});
  // The constant as [out, in] (stored [rowsOut, colsIn]).
  SmallVector<double> values;
  for (int64_t r = 0; r < out; ++r)
    for (int64_t c = 0; c < in; ++c)
      values.push_back(transposed ? matrix[c * colsIn + r]
                                  : matrix[r * colsIn + c]);
  Value constant =
      cv.constant(RankedTensorType::get({out, in}, element), values);
  Value product =
      cv.create<MatmulOp>(RankedTensorType::get({rows, out}, element), flat,
                          constant, /*transpose_lhs=*/false,
                          /*transpose_rhs=*/true, LoweringConfigAttr())
          .getResult();
  lastShape.back() = out;
  Value result = cv.reshape(product, lastShape);
  if (dim == rank - 1)
    return result;
  // Back to the original order.
  SmallVector<int64_t> back(rank), shape(rank);
  for (int64_t i = 0; i < rank; ++i)
    back[toLast[i]] = i;
  for (int64_t d = 0; d < rank; ++d)
    shape[d] = lastShape[back[d]];
  return cv.create<TransposeOp>(type.clone(shape).clone(element), result,
                                back);
}

/// The gradient of a separable resampling of the last `pooled` dims: each
/// one's [out, in] matrix (`matrixOf(d, in, out)`, d counted from the first
/// pooled dim) applied transposed to the output gradient, operand 0.
template <typename MatrixFn>
LogicalResult resampleBackward(Converter &cv, Operation *op, int64_t pooled,
                               MatrixFn matrixOf) {
  FailureOr<Value> grad = cv.tensor(op->getOperand(0));
  if (failed(grad))
    return failure();
  RankedTensorType type = cv.resultType(op);
  if (!isa<FloatType>(type.getElementType()))
    return cv.reject("expected a floating-point gradient");
  Value result = cv.castTo(*grad, type.getElementType());
  int64_t rank = type.getRank(), lead = rank - pooled;
  if (lead < 0)
    return cv.reject("fewer dims than the resampled ones");
  RankedTensorType gradType = typeOf(result);
  for (int64_t dim = lead; dim < rank; ++dim) {
    int64_t in = type.getDimSize(dim), out = gradType.getDimSize(dim);
    result = applyAlong(cv, result, dim, matrixOf(dim - lead, in, out), out,
                        in, /*transposed=*/true);
  }
  if (typeOf(result) != type)
    return cv.reject("the gradient's shape does not match the input's");
  return cv.replace(op, result);
}

/// `_adaptive_avg_pool{2,3}d_backward(grad_output, self)`.
template <int64_t Pooled>
LogicalResult convertAdaptiveAvgPoolBackward(Converter &cv, Operation *op) {
  return resampleBackward(cv, op, Pooled, [](int64_t, int64_t in, int64_t out) {
    return adaptiveAverage(in, out);
  });
}

/// The optional scale factors from operand `first` on (None: from sizes).
SmallVector<std::optional<double>> scales(Converter &cv, Operation *op,
                                          unsigned first, int64_t count) {
  SmallVector<std::optional<double>> result;
  for (int64_t i = 0; i < count; ++i) {
    unsigned index = first + i;
    if (index >= op->getNumOperands() || cv.isNone(op->getOperand(index)))
      result.push_back(std::nullopt);
    else
      result.push_back(cv.constantFloat(op->getOperand(index)));
  }
  return result;
}

/// `upsample_nearest{1,2,3}d_backward(grad_output, output_size,
/// input_size, scales...)`.
template <int64_t Pooled>
LogicalResult convertUpsampleNearestBackward(Converter &cv, Operation *op) {
  SmallVector<std::optional<double>> factors = scales(cv, op, 3, Pooled);
  return resampleBackward(cv, op, Pooled,
                          [&](int64_t d, int64_t in, int64_t out) {
                            return nearest(in, out, factors[d]);
                          });
}

/// `upsample_{linear1d,bilinear2d,trilinear3d}_backward(grad_output,
/// output_size, input_size, align_corners, scales...)`.
template <int64_t Pooled>
LogicalResult convertUpsampleLinearBackward(Converter &cv, Operation *op) {
  std::optional<bool> alignCorners = cv.constantBool(op->getOperand(3));
  if (!alignCorners)
    return cv.reject("align_corners must be a constant");
  SmallVector<std::optional<double>> factors = scales(cv, op, 4, Pooled);
  return resampleBackward(cv, op, Pooled,
                          [&](int64_t d, int64_t in, int64_t out) {
                            return linear(in, out, *alignCorners, factors[d]);
                          });
}

} // namespace

void torch_to_nova::addResamplingHandlers(HandlerTable &table) {
  const std::pair<StringRef, Handler> handlers[] = {
      {"torch.aten._adaptive_avg_pool2d_backward",
       convertAdaptiveAvgPoolBackward<2>},
      {"torch.aten._adaptive_avg_pool3d_backward",
       convertAdaptiveAvgPoolBackward<3>},
      {"torch.aten.upsample_nearest1d_backward",
       convertUpsampleNearestBackward<1>},
      {"torch.aten.upsample_nearest2d_backward",
       convertUpsampleNearestBackward<2>},
      {"torch.aten.upsample_nearest3d_backward",
       convertUpsampleNearestBackward<3>},
      {"torch.aten.upsample_linear1d_backward",
       convertUpsampleLinearBackward<1>},
      {"torch.aten.upsample_bilinear2d_backward",
       convertUpsampleLinearBackward<2>},
      {"torch.aten.upsample_trilinear3d_backward",
       convertUpsampleLinearBackward<3>},
  };
  for (const auto &[name, handler] : handlers)
    table[name] = handler;
}
