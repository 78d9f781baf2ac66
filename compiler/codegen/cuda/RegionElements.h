//===- RegionElements.h - a nova.fused region element by element -*- C++ -*-===//
//
// The arithmetic of a nova.fused region in a kernel that walks its row space
// (see FusedRowsKernel.h): `width` consecutive columns of one row at a time,
// each value computed in f32 from its operands' elements (bf16/f16 widened
// on load, rounded only where stored or cast explicitly). The row kernels
// and the GEMM epilogue (WgmmaGemmKernel.h) share it: the epilogue seeds the
// region's matmul result with its accumulators and asks for the results.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_REGIONELEMENTS_H
#define NOVA_CODEGEN_CUDA_REGIONELEMENTS_H

#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::nova::cuda {

struct RegionElements : KernelBuilder {
  RegionElements(OpBuilder &b, Location loc, const FusedRowsPlan &plan,
                 Block &region, int64_t width);

  const FusedRowsPlan &plan;
  Block &region;
  /// Consecutive columns of a row computed at a time.
  int64_t width;
  DenseMap<Value, Value> pointers; // region input/result -> kernel param
  DenseMap<Value, Value> known;    // scalar and row values
  DenseMap<Value, SmallVector<Value>> chunk; // this chunk's element values
  Value row, column;                         // i32
  /// Element inputs by (input, chunk) held across sweeps (whole rows), and
  /// the chunk entered (-1: a chunk of a loop, nothing held).
  DenseMap<std::pair<Value, int64_t>, SmallVector<Value>> rowInputs;
  int64_t chunkIndex = -1;
  /// Values whose every use ends, through elementwise ops, broadcasts and
  /// reshapes, in a rounding to bf16/f16 (a cast, or a half result stored)
  /// before any reduction: an f32 error below half precision's does not
  /// reach memory, so their tanh is MUFU's one-instruction approximation.
  llvm::DenseSet<Value> roundedToHalf;

  /// `element` (of the compiler's context) in the kernel's context; i1 is
  /// stored as a byte.
  static Type storageType(Type element, MLIRContext *context);
  Type storage(Value v);
  Value at(Type type, Value base, Value index);
  /// A loaded or computed element in the kernel's arithmetic type.
  Value widen(Value x, bool boolean);
  Value narrow(Value x, Type type);
  Value loadScalar(Value input, Value index);
  /// `width` elements of `input` from element `index` (i64).
  SmallVector<Value> loadVector(Value input, Value index);
  void storeVector(Value result, Value pointer, Value index,
                   ArrayRef<Value> values);

  /// One element of `op` from its operands' elements.
  Value emitElementwise(Operation *op, ArrayRef<Value> x);
  /// Scalars (or the row values of `level`): computed once, before the
  /// elements that use them.
  void emitKnown(int64_t level, bool scalars);
  /// Row values are per row: rebuilt in each (loop) block that has a row.
  void forgetRowValues();
  /// This chunk's `width` elements of `v` at (`row`, `column`...) (scalars
  /// and row values repeated).
  SmallVector<Value> elements(Value v);

private:
  Value fdiv(Value x, Value y);
  Value rcp(Value x);
  Value bits(Value x);
  Value fromBits(Value x);
  Value fabs(Value x);
  Value exp(Value x);
  Value lt(Value x, Value y);
  Value copySign(Value magnitude, Value sign);
  Value poly(Value x, ArrayRef<double> coefficients);
  Value tanh(Value x);
  Value erf(Value x);
};

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_REGIONELEMENTS_H
