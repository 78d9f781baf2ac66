//===- FlashAttentionKernel.h - sm_90 fused attention kernels ---*- C++ -*-===//
//
// Nova's Hopper attention, forward and backward, built through the
// gpu/nvvm dialects from a #nova.lowering_config (kernel "flash_wgmma").
// Operands are bf16 [BH, T, D] (heads flattened into the batch), head dim D
// 64 or 128, or f32 rounded to TF32 (head dim 64, and 128 in the forward:
// the f32 tiles fill shared memory twice as fast); no T x T tensor exists in
// memory.
//
// Forward (FlashAttentionForward.cpp): persistent CTAs walk (query block,
// head) work items, heaviest causal blocks first. Warp group 0 produces (one
// thread TMA-loads the 128-row Q tiles, double-buffered where shared
// memory allows, and a `stages`-deep ring of K and V blocks), warp groups 1..2
// each own 64 query rows: S = Q K^T by wgmma from shared memory, online softmax
// in registers (exp2, running max and sum, causal blocks past the diagonal
// never loaded, the diagonal and the T edge masked), P kept in registers as
// bf16 A fragments, O += P V by wgmma with A from registers (V read
// MN-major; TF32: P through a swizzled shared tile). Each consumer
// pipelines its blocks: block j's S and block j-1's P V are issued together,
// and j's softmax runs while P V is still in flight (FlashAttention-3's
// intra-warp-group overlap; the forward holds two stages at a time).
// Epilogue: O / l in bf16 and the row log-sum-exp (f32, natural log) the
// backward recomputes P from.
//
// Backward (FlashAttentionBackward.cpp): persistent CTAs walk (key block,
// head) items. Each consumer owns 64 keys of the 128-key block held in
// shared memory; the producer streams 64-row Q and dO blocks. Per query
// block: S^T = K Q^T and dP^T = V dO^T, P^T = exp(S^T - lse), dS^T = P^T
// (dP^T - Delta) with Delta = rowsum(dO * O) computed beforehand; dV += P^T
// dO (see registerScores(): P^T as register A fragments, never stored), dK
// += dS^T Q, and dQ += dS K accumulated in f32 with atomic adds into a
// zero-initialised [BH, T, D] buffer. Software-pipelined: dQ's products,
// then dV's and dK's, then the next block's S^T and dP^T are in flight
// together, so dQ's way out through shared memory runs under the others and
// the next block's probabilities start once its scores are done (with two
// stages, as TF32 has room for, the next block's scores go out after dV and
// dK); each block's lse and Delta come through a shared-memory slot one
// block ahead.
// Then dK (scaled) and dV in bf16.
//
// TF32: wgmma takes both operands K-major, so the forward reads V^T (O += P
// V) and the backward K^T (dQ^T = K^T dS^T), Q^T (dK += dS^T Q) and dO^T
// (dV += P^T dO) from [BH, D, T'] copies (T' >= T rows of 16-byte multiples;
// the layout's row stride is T', its head stride D T'), and the backward
// stores dS transposed besides dS^T. The forward steps 64 keys (32 at head
// dim 128, one Q tile), the backward 32 queries.
//
// ABI: forward (Q, K, V or V^T, [the item counter with headGroup,] O, LSE,
// tensor-map scratch; T, BH, scale as
// f32 bits, H, then offset, row and head stride of Q, K, V (V^T), O);
// backward (Q, K, V, dO, [TF32: K^T, Q^T, dO^T,] LSE, Delta, dQ f32
// accumulator, dK, dV - one binding for both with packedGrads, for all
// three with packedQuery -, scratch; with headGroup the item counter (u32)
// comes after Delta;
// T, BH, scale bits, H, then the strides of Q, K, V, dO, dQ, dK, dV[, K^T,
// Q^T, dO^T]). Block 384 threads, grid x = CTAs, dynamic
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
  /// With packedGrads (TF32): dQ accumulates into that binding too (zero
  /// where dQ goes): no dQ accumulator of its own, no copy into it after.
  bool packedQuery = false;
  /// f32 operands (already rounded to TF32) through k8 TF32 wgmmas, whose
  /// operands are both K-major: the kernel also reads V^T (forward), K^T,
  /// Q^T and dO^T (backward) as [B*H, D, T'] copies, and P, dS are stored
  /// rounded to TF32. Results in f32.
  bool tf32 = false;
  int64_t headDim = 64;
  /// Forward: query rows per CTA tile (64 per consumer) and keys per step.
  /// Backward: keys per CTA (64 per consumer) and queries per step.
  int64_t blockM = 128, blockN = 128;
  int64_t stages = 2;
  /// Forward: Q tiles, 2 (the next item's Q loads while this one runs) or 1
  /// (TF32 at head dim 128, where two leave room for two stages only).
  int64_t queryBuffers = 2;
  /// 0: CTA c takes items c, c + CTAs, ... (the backward's key blocks with
  /// the most queries first, the forward's query blocks with the longest
  /// rows first; heads inner). G > 0: items come from an atomic counter
  /// (one more binding, zero before and after each launch), in groups of G
  /// heads, each group's blocks in that order: a head's blocks run at about
  /// the same time, so what they share (the backward's Q, dO and dQ
  /// accumulator, the forward's K and V) is read in L2 rather than once per
  /// block from memory; the counter balances what static groups cannot.
  /// The configurator's default (H200, gpt-146m bf16: +2.2-3.6% tokens/s);
  /// its results equal the static order's but for dQ's summation order.
  int64_t headGroup = 0;

  static constexpr int64_t kConsumers = 2;
  int64_t elementBytes() const { return tf32 ? 4 : 2; }
  /// Elements in the 128-byte row of a swizzled column block.
  int64_t blockColumns() const { return 128 / elementBytes(); }
  int64_t chunks() const { return headDim / blockColumns(); }
  /// The K of one wgmma (32 bytes of a K-major row either way).
  int64_t kStep() const { return tf32 ? 8 : 16; }
  int64_t threads() const { return 128 * (1 + kConsumers); }
  /// Bytes of a [rows, D] tile stored as `chunks()` swizzled column blocks
  /// of [rows, 128 B] (or, transposed, of a [D, rows] one).
  int64_t tileBytes(int64_t rows) const {
    return rows * headDim * elementBytes();
  }
  /// The keys (forward) or queries (backward) of one step: f32 tiles take
  /// twice the shared memory of bf16 ones, so their steps are half as long,
  /// and the forward's halve again at head dim 128 (TF32).
  static int64_t stepRows(bool backward, bool tf32, int64_t headDim) {
    if (backward)
      return tf32 ? 32 : 64;
    return tf32 ? 64 * 64 / headDim : 128;
  }
  /// Forward: `queryBuffers` Q tiles, then `stages` x (K, V or V^T), then
  /// P (64 x blockN per consumer) unless registerScores().
  /// Backward: K, V (and K^T), then `stages` x (Q, dO (and Q^T, dO^T)),
  /// then per consumer dS^T (64 x blockN), P^T unless registerScores() and,
  /// with TF32, dS (blockN x 64), then each consumer's f32 dQ part (blockN x
  /// D), then each consumer's lse and Delta slots. The mbarriers last.
  int64_t residentBytes() const {
    return (!backward ? queryBuffers : tf32 ? 3 : 2) * tileBytes(blockM);
  }
  int64_t stageBytes() const {
    return (backward && tf32 ? 4 : 2) * tileBytes(blockN);
  }
  int64_t dqTileBytes() const { return backward ? blockN * headDim * 4 : 0; }
  /// Backward: one consumer's lse and Delta of a query block (f32), two
  /// slots (this block's and the next one's) of one entry per thread.
  int64_t columnBytes() const { return backward ? 2 * 128 * 4 : 0; }
  /// One consumer's [64, blockN] score tile.
  int64_t scoreTileBytes() const { return 64 * blockN * elementBytes(); }
  /// bf16: P (forward) or P^T (backward) stays in registers as the A
  /// fragments of P V (dV += P^T dO). Not TF32, whose register A fragments
  /// do not match the accumulator's. In the backward only where ptxas fits
  /// the consumers' registers still: head dim 64 with head groups (in the
  /// static order it spilled 140-184 bytes a thread, and the head-dim-128
  /// backward's ~650 grew to ~890).
  bool registerScores() const {
    return !tf32 && (!backward || (headDim == 64 && headGroup > 0));
  }
  /// Score tiles a consumer keeps in shared memory: P (forward), or dS^T
  /// (for dQ = dS K and dK += dS^T Q) then P^T and, with TF32, dS.
  int64_t scoreTiles() const {
    if (!backward)
      return registerScores() ? 0 : 1;
    return (registerScores() ? 1 : 2) + (tf32 ? 1 : 0);
  }
  int64_t scratchTileBytes() const {
    return kConsumers *
           (scoreTiles() * scoreTileBytes() + dqTileBytes() + columnBytes());
  }
  /// The mbarriers, then with headGroup the current item's index (the
  /// backward's fits in their last 16 bytes; the forward's, one per Q tile,
  /// takes 8 more).
  int64_t barrierBytes() const {
    return 8 * (4 + 2 * stages) + (!backward && headGroup ? 8 : 0);
  }
  int64_t sharedMemoryBytes() const {
    return residentBytes() + stages * stageBytes() + scratchTileBytes() +
           barrierBytes();
  }
  /// Forward: two Q tiles where they fit `limit` with the stages, else one.
  void fitQueryBuffers(int64_t limit) {
    queryBuffers = 2;
    if (!backward && sharedMemoryBytes() > limit)
      queryBuffers = 1;
  }
  std::string kernelName() const;
};

/// Tensor maps per CTA: forward Q, K, V (V^T); backward K, V, Q, dO, dQ,
/// then for TF32 K^T, Q^T, dO^T.
constexpr int64_t kAttentionDescriptorBytesPerCta = 8 * kTensorMapBytes;

/// The spec for `config` (kernel "flash_wgmma", precision bf16 or tf32), or
/// failure with the reason in `why`.
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
