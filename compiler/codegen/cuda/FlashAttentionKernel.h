//===- FlashAttentionKernel.h - sm_90 fused attention kernels ---*- C++ -*-===//
//
// Nova's Hopper attention, forward and backward, built through the
// gpu/nvvm dialects from a #nova.lowering_config (kernel "flash_wgmma").
// Operands are bf16 [BH, T, D] (heads flattened into the batch), head dim D
// a multiple of 64; no T x T tensor exists in memory.
//
// Forward (FlashAttentionForward.cpp): persistent CTAs walk (query block,
// head) work items, heaviest causal blocks first. Warp group 0 produces (one
// thread TMA-loads the 128-row Q tiles, double-buffered, and a
// `stages`-deep ring of K and V blocks), warp groups 1..2 each own 64 query
// rows: S = Q K^T by wgmma from shared memory, online softmax in registers
// (exp2, running max and sum, causal blocks past the diagonal never loaded,
// the diagonal and the T edge masked), P written as bf16 into a swizzled
// shared tile, O += P V by wgmma (V read MN-major). Epilogue: O / l in bf16 and the row log-sum-exp (f32,
// natural log) the backward recomputes P from.
//
// Backward (FlashAttentionBackward.cpp): persistent CTAs walk (key block,
// head) items. Each consumer owns 64 keys of the 128-key block held in
// shared memory; the producer streams 64-row Q and dO blocks. Per query
// block: S^T = K Q^T and dP^T = V dO^T, P^T = exp(S^T - lse), dS^T = P^T
// (dP^T - Delta) with Delta = rowsum(dO * O) computed beforehand; dV += P^T
// dO, dK += dS^T Q, and dQ += dS K accumulated in f32 with atomic adds into a
// zero-initialised [BH, T, D] buffer. Then dK (scaled) and dV in bf16.
//
// ABI: forward (Q, K, V, O, LSE, tensor-map scratch; T, BH, scale as f32
// bits, H, then offset, row and head stride of Q, K, V, O); backward (Q, K,
// V, dO, LSE, Delta, dQ f32 accumulator, dK, dV - one binding for both with
// packedGrads -, scratch; T, BH, scale bits, H, then the strides of Q, K, V,
// dO, dQ, dK, dV). Block 384 threads, grid x = CTAs, dynamic
// shared memory `sharedMemoryBytes()`, `kDescriptorBytesPerCta` of scratch
// per CTA.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_FLASHATTENTIONKERNEL_H
#define NOVA_CODEGEN_CUDA_FLASHATTENTIONKERNEL_H

#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/dialect/NovaAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

/// One attention kernel variant.
struct FlashAttentionSpec {
  bool backward = false;
  bool causal = true;
  /// Backward: dK and dV are written into one binding (the tensor the graph
  /// concatenates them into), at their layouts' offsets.
  bool packedGrads = false;
  int64_t headDim = 64;
  /// Forward: query rows per CTA tile (64 per consumer) and keys per step.
  /// Backward: keys per CTA (64 per consumer) and queries per step.
  int64_t blockM = 128, blockN = 128;
  int64_t stages = 2;

  static constexpr int64_t kConsumers = 2;
  int64_t chunks() const { return headDim / 64; } // 128-byte rows of D
  int64_t threads() const { return 128 * (1 + kConsumers); }
  /// Bytes of a [rows, D] bf16 tile stored as `chunks()` swizzled column
  /// blocks of [rows, 128 B].
  int64_t tileBytes(int64_t rows) const { return rows * headDim * 2; }
  /// Forward: two Q tiles (the next item's loads while this one runs), then
  /// `stages` x (K, V), then P (64 x blockN per consumer).
  /// Backward: K and V, then `stages` x (Q, dO), then P^T and dS^T (64 x
  /// blockN per consumer each), then each consumer's f32 dQ part (64 x D).
  /// The mbarriers last.
  int64_t residentBytes() const { return 2 * tileBytes(blockM); }
  int64_t stageBytes() const { return 2 * tileBytes(blockN); }
  int64_t dqTileBytes() const { return backward ? 64 * headDim * 4 : 0; }
  int64_t scratchTileBytes() const {
    return kConsumers * ((backward ? 2 : 1) * 64 * blockN * 2 + dqTileBytes());
  }
  int64_t barrierBytes() const { return 8 * (4 + 2 * stages); }
  int64_t sharedMemoryBytes() const {
    return residentBytes() + stages * stageBytes() + scratchTileBytes() +
           barrierBytes();
  }
  std::string kernelName() const;
};

/// Tensor maps per CTA: forward Q, K, V; backward K, V, Q, dO, dQ.
constexpr int64_t kAttentionDescriptorBytesPerCta = 5 * kTensorMapBytes;

/// The spec for `config` (kernel "flash_wgmma", precision bf16), or failure
/// with the reason in `why`.
FailureOr<FlashAttentionSpec> flashAttentionSpec(LoweringConfigAttr config,
                                                 bool backward, bool causal,
                                                 int64_t headDim,
                                                 int64_t sharedMemoryLimit,
                                                 std::string &why);

OwningOpRef<ModuleOp> buildFlashAttentionForward(MLIRContext *context,
                                                 const FlashAttentionSpec &spec);
OwningOpRef<ModuleOp>
buildFlashAttentionBackward(MLIRContext *context,
                            const FlashAttentionSpec &spec);

/// The kernel's PTX (built once per spec per process, thread-safe); empty
/// with the diagnostics in `error` on failure.
std::string flashAttentionPtx(const FlashAttentionSpec &spec,
                              std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_FLASHATTENTIONKERNEL_H
