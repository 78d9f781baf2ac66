//===- AttentionDeltaKernel.h - Delta = rowsum(dO * O) of attention -*- C++ -*-===//
//
// The attention backward's Delta[b h, t] = sum_d dO[b, h, t, d] O[b, h, t, d]
// in f32, read where dO and O lie: element (b, h, t, d) of an operand at
// offset + b sB + h sH + t sT + d (both [B, H, T, D] and [B, T, H, D] rows of
// a wider tensor). Eight threads share a row, each reading 8 elements of it
// per 64 columns, and sum over the eight with butterfly shuffles: a memory-bound
// pass (IREE's own codegen of the same reduction ran at ~0.2 TB/s on the H200).
//
// ABI: (dO, O both bf16 or both f32, Delta f32 [B H, T]; rows = B H T, T, H, then for dO
// and for O: offset, sT, sH, sB; all i32, in elements). Block
// kAttentionDeltaBlock, grid x = ceil(rows * 8 / block). Offsets and strides
// are multiples of 8 (16-byte aligned loads); D is a multiple of 64.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_ATTENTIONDELTAKERNEL_H
#define NOVA_CODEGEN_CUDA_ATTENTIONDELTAKERNEL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

constexpr int64_t kAttentionDeltaBlock = 256, kAttentionDeltaThreadsPerRow = 8;

/// "nova_attention_delta_d<headDim>[_f32]": dO and O in bf16, or in f32.
std::string attentionDeltaKernelName(int64_t headDim, bool f32);

OwningOpRef<ModuleOp> buildAttentionDeltaKernel(MLIRContext *context,
                                                int64_t headDim, bool f32);

/// The kernel's PTX (built once per process per variant); empty with the
/// diagnostics in `error` on failure.
std::string attentionDeltaPtx(int64_t headDim, bool f32, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_ATTENTIONDELTAKERNEL_H
