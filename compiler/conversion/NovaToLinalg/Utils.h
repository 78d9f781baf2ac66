//===- Utils.h - helpers shared by the nova -> linalg patterns --*- C++ -*-===//

#ifndef NOVA_CONVERSION_NOVATOLINALG_UTILS_H
#define NOVA_CONVERSION_NOVATOLINALG_UTILS_H

#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::nova::nova_to_linalg {

inline RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

inline Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

inline Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

/// A fresh tensor of `type` filled with `value`: an accumulator's init.
inline Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value) {
  return linalg::FillOp::create(b, loc, ValueRange{value},
                                ValueRange{emptyTensor(b, loc, type)})
      ->getResult(0);
}

/// Low-precision floats compute in f32, as torch's kernels do (its "opmath"
/// type), so a bf16 expression rounds once rather than after every step.
inline Type computeType(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (floatType && floatType.getWidth() < 32)
    return Float32Type::get(type.getContext());
  return type;
}

/// Converts a scalar to `to` with torch's conversion semantics: floats and
/// integers to bool test `!= 0`, bool to numbers is 0/1, integers are signed.
inline Value castScalar(OpBuilder &b, Location loc, Value value, Type to) {
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

inline SmallVector<Value> castScalars(OpBuilder &b, Location loc, ValueRange values,
                               Type to) {
  return llvm::map_to_vector(
      values, [&](Value v) { return castScalar(b, loc, v, to); });
}

inline Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
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
inline ResultRange parallelGeneric(OpBuilder &b, Location loc, TypeRange resultTypes,
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
inline Value elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
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
inline Value copyThroughMap(OpBuilder &b, Location loc, RankedTensorType resultType,
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
inline SmallVector<ReassociationIndices>
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
inline Value reshapeTensor(OpBuilder &b, Location loc, Value source,
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


/// `dest + sums` (sums scattered into a fresh zero tensor), computed in the
/// compute type; just `sums` when `dest` is a zero constant.
inline Value addScatterDest(OpBuilder &b, Location loc, Value dest, Value sums) {
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

} // namespace mlir::nova::nova_to_linalg

#endif // NOVA_CONVERSION_NOVATOLINALG_UTILS_H
