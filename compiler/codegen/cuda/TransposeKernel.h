//===- TransposeKernel.h - batched f32 transposes for TF32 GEMM operands -*- C++ -*-===//
//
// dst[z, c, r] = round(src[z, r, c]) for a batch of f32 [R, C] matrices,
// where round is TF32 rounding to nearest (the tensor cores would truncate)
// or nothing. TF32 wgmma reads both operands K-major, so an M- or N-major
// f32 operand (a GEMM's, or attention's K, Q, V and dO along the sequence)
// is transposed once in memory; IREE's own transpose of the
// 16384 x 32000 logits gradient ran at ~0.4 TB/s on the H200. Each block
// moves one 64 x 64 tile through shared memory (rows padded to 65 words: at
// most 2-way bank conflicts either way), both global sides coalesced: whole
// tiles of 16-byte aligned rows as 16-byte vectors (4 in flight per thread
// each way; the 32 x 32 scalar version moved ~3 TB/s), edge tiles element
// by element.
//
// The source is strided as attention's heads are (FlashAttentionBuilder.h's
// HeadsLayout): matrix z's (r, c) at offset + (z / H) sB + (z % H) sH +
// r sR + c with sB = max(R sR, H sH) - a dense batch has H = 1, sH = 0,
// sR = C. The destination is dense with rows of a given stride >= R (padded
// where TMA wants 16-byte rows).
//
// ABI: (src, dst; R, C, tiles along C, tiles per matrix, H, offset, sR, sH,
// dst row stride, as i32). Block kTransposeBlock threads in x, grid x =
// batch * tiles per matrix (kTransposeTile square tiles).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_TRANSPOSEKERNEL_H
#define NOVA_CODEGEN_CUDA_TRANSPOSEKERNEL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

constexpr int64_t kTransposeTile = 64, kTransposeBlock = 256;

/// "nova_transpose_f32" or, rounding to TF32, "nova_transpose_f32_tf32".
std::string transposeKernelName(bool roundToTf32);

OwningOpRef<ModuleOp> buildTransposeKernel(MLIRContext *context,
                                           bool roundToTf32);

/// The kernel's PTX (built once per process); empty with the diagnostics in
/// `error` on failure.
std::string transposePtx(bool roundToTf32, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_TRANSPOSEKERNEL_H
