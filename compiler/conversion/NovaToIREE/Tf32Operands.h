//===- Tf32Operands.h - f32 operands made ready for TF32 wgmma --*- C++ -*-===//
//
// What the GEMM and attention lowerings do to f32 operands of Nova's TF32
// kernels: round them to TF32 (the tensor cores would truncate) unless
// nova-round-tf32-operands already did where they are made, and, since
// TF32 wgmma reads both operands K-major, transpose M- or N-major ones the
// kernels cannot transpose themselves (the GEMM does, in shared memory,
// where TMA can read them) once in memory (rounding in the same pass) with
// compiler/codegen/cuda/TransposeKernel.h.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CONVERSION_NOVATOIREE_TF32OPERANDS_H
#define NOVA_CONVERSION_NOVATOIREE_TF32OPERANDS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::nova::nova_to_iree {

/// f32 `x` rounded to the nearest TF32 (see nova.round_tf32), as linalg.
Value roundToTf32(OpBuilder &b, Location loc, Value x);

/// Whether `v` is already rounded to TF32: a nova.round_tf32 result, seen
/// through reshapes and out of the nova.fused region that computes it
/// (nova-round-tf32-operands put it there).
bool isRoundedToTf32(Value v);

/// A batch of f32 [rows, cols] matrices in `base` (any shape): matrix z's
/// (r, c) at offset + (z / heads) sB + (z % heads) headStride + r rowStride
/// + c, sB = max(rows rowStride, heads headStride). A dense batch has heads
/// 1, headStride 0 and rowStride cols.
struct TransposeSource {
  Value base;
  int64_t batch = 1, rows = 0, cols = 0;
  int64_t heads = 1, offset = 0, rowStride = 0, headStride = 0;
};

/// [batch, cols, dstRowStride] f32 holding each matrix transposed (columns
/// past `rows` of a row left unwritten), rounded to TF32 when `round`.
FailureOr<Value> transposeOnDevice(OpBuilder &b, Location loc, ModuleOp module,
                                   Operation *op, const TransposeSource &src,
                                   int64_t dstRowStride, bool round);

} // namespace mlir::nova::nova_to_iree

#endif // NOVA_CONVERSION_NOVATOIREE_TF32OPERANDS_H
