//===- WgmmaGemmKernel.h - sm_90 TMA + wgmma GEMM kernels -------*- C++ -*-===//
//
// Nova's Hopper GEMM: C[b, m, n] = sum_k A[b, m, k] * B[b, n, k], operands
// K-contiguous or MN-contiguous (A stored [b, k, m], B [b, k, n]), built from
// a #nova.lowering_config through the gpu/nvvm dialects. bf16 wgmma reads an
// MN-major operand transposed; TF32 wgmma reads only K-major ones, so a TF32
// operand stored MN-major is transposed in shared memory (below).
//
// - Warp specialized: warp group 0 produces (one thread issues TMA loads of
//   128-byte, 128B-swizzled K rows into a `stages`-deep ring of shared memory,
//   full/empty mbarriers), warp groups 1..consumers consume (wgmma from shared
//   memory, one group in flight); setmaxnreg moves registers to consumers.
//   Cooperative (kernel "wgmma_tma"): the consumers split each tile's rows.
//   Ping-pong ("wgmma_tma_pingpong"): each of two consumers owns whole tiles,
//   the CTA's even and odd ones, so one's epilogue runs under the other's
//   MMAs (short K loses the tensor cores for the epilogue otherwise).
// - Persistent: the grid (one CTA per SM at most) walks output tiles in
//   raster bands of `raster_group` tile rows; split-K CTAs write f32 partial
//   sums to `[split, batch, M, N]`, reduced by the caller.
// - Stream-K ("wgmma_tma_stream_k", cooperative): the tiles' K steps, tile
//   after tile, are split evenly between the persistent CTAs (tiles fewer
//   than or not a multiple of the SMs leave none idle). A CTA's range may
//   end a tile others began, hold whole tiles, and begin the next; it runs
//   them last tile first, so that it starts with its last tile's first K
//   steps and ends with its first tile's last ones: the CTAs then run the
//   same K steps at about the same time (two phases), and their operands'
//   slices are shared in L2. A part that does not end its tile goes first:
//   its f32 accumulators are shared through the CTA's scratch slot and its
//   consumers counted on its flag (release). The CTA that runs a tile's
//   last K step waits for the flags of the lower CTAs that ran the earlier
//   ones (acquire), adds their parts to its accumulators (a fixed order:
//   deterministic) and runs the epilogue. A CTA waits only for lower ones,
//   which wait for nothing before they share: the grid completes in any
//   order of residency. The flags are an input the kernel leaves zero, bound
//   before C.
// - Epilogue: each consumer writes its accumulators, converted, box by box
//   ([64 rows, 128 bytes], 128B-swizzled) into a ring of two box buffers in
//   shared memory, and one thread TMA-stores each box (clipped at the edges)
//   while the next is written; without TMA stores (C rows not a
//   multiple of 16 bytes) each thread stores its fragments, predicated only
//   in tiles that cross an edge.
// - Fused epilogue (nova-fuse-matmul-epilogue): a nova.fused region that
//   starts with the matmul and computes elementwise values and partial
//   column sums from its result (GELU's backward and its bias gradient).
//   Each fragment pair is rounded to the matmul's type and the region is
//   evaluated at its (row, col) by RegionElements (other element inputs
//   loaded at the same place; column vectors, a bias, loaded into registers
//   for all of the thread's columns as the tile starts); each element
//   result is staged and TMA-stored in turn through the C box ring, and a
//   partial sum over 16 rows is one warp's: its two rows per lane, then
//   shuffles across the eight lanes of a column, stored by four lanes.
//   Staged inputs: the region's other element inputs (bf16, C's rows and
//   columns: the pre-activation GELU's backward reads) are TMA-loaded
//   into shared memory, each consumer's rows of the tile in [64 rows, 128
//   bytes] boxes laid out as C's, by the consumer's thread 0 as it starts
//   the tile, so the loads run under the tile's main loop; the epilogue
//   waits on the consumer's inputs barrier (one phase a tile) and reads
//   each fragment pair where the store ring writes it (no bank conflicts).
//   Loaded at each fragment pair from global memory instead, the GELU
//   backward's epilogue took 412 us against 101 + 134 us as two kernels
//   (gpt-146m's 16384x3072x768 input gradient, H200), its MMAs serialized
//   by ptxas (kStagedEpilogueAccumulatorRegs in GemmConfigurator.cpp).
//   Staged inputs are opt-in (nova-fuse-matmul-epilogue{stage-inputs}).
// - TF32 operands stored MN-major: the producer's thread 0 TMA-loads the
//   stage's [32 K, 32 elements] boxes (128B-swizzled, 4 KiB: the bytes of
//   32 rows of the K-major tile) where those rows go, completing on the
//   stage's staged barrier; the producer warp group's other three warps
//   each take a box at a time into registers and write it back in place
//   K-major, rounded to TF32 (to nearest: the tensor cores would truncate),
//   then fence for the async proxy and arrive on the stage's full barrier
//   (one arrival a warp, after the K-major operand's TMA arrival). The
//   consumers are unchanged. The producer keeps 72 registers for it
//   (consumers 216).
// - Edges: TMA zero-fills out-of-range rows and K.
// - Clusters (`cluster_m = 2`, cooperative or ping-pong, one split, no
//   shared-memory transposes, M a multiple of two tiles): the two CTAs of a
//   cluster take the two tiles of a pair of tile rows with the same columns,
//   pair after pair (the persistent grid walks pairs). Each CTA's producer
//   loads its own A tile and half of the shared B tile, multicast into both
//   CTAs' stages (TMA `.multicast::cluster`), so B crosses L2 once per pair.
//   A stage is refilled only when the consumers of both CTAs have freed it:
//   each consumer warp arrives on its own CTA's empty barrier and on the
//   peer's (`mapa`, cluster scope). A cluster barrier after the mbarriers'
//   initialization and before exit keeps the peer's barriers and stages
//   valid for every remote arrival and multicast. The kernel declares its
//   cluster shape (`.reqnctapercluster`), so a plain launch runs clusters.
//   The configurator asks for none: they measured no faster (see
//   docs/configurator.md).
// - TMA descriptors are made on the device (an IREE dispatch gets only
//   buffer pointers): each CTA writes its 128-byte tensor maps (A, B and,
//   for TMA stores, C) into its slot of a scratch binding with
//   `tensormap.replace` (PTX ISA 8.3, no MLIR op in MLIR 22: one inline
//   instruction per field) and acquires them for the tensor-map proxy.
//
// ABI: parameters (A, B, [the epilogue's other inputs,] [stream-K flags,] C
// or the epilogue's results, scratch) as global pointers, then M,
// N, K, batch as i32; with an epilogue, C is the region's other inputs then
// its results. Block 128 x (1 + consumers) threads; grid x = CTAs;
// dynamic shared memory `sharedMemoryBytes()`; scratch of
// `scratchBytesPerCta()` bytes per CTA (its tensor maps, then with stream-K
// its partial tile); stream-K flags: one i32 per CTA, zero. Requires the
// operands' contiguous dims to be multiples of 16 bytes (TMA strides) and
// 16-byte aligned bases.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_WGMMAGEMMKERNEL_H
#define NOVA_CODEGEN_CUDA_WGMMAGEMMKERNEL_H

#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/dialect/NovaAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

/// Exact f32: K steps between promotions of the MMA accumulators.
constexpr int64_t kExactPromoteEvery = 4;

/// Element inputs an epilogue stages in shared memory: each takes a whole
/// bf16 tile (a 128x128 tile: 32 KiB, a stage's worth).
constexpr int64_t kMaxStagedInputs = 1;

/// One kernel variant (the part of a lowering config the code depends on).
struct WgmmaGemmSpec {
  bool tf32 = false;       // f32 operands computed as TF32; else bf16
  bool bf16Result = false; // C's element type when not split (else f32)
  int64_t tileM = 128, tileN = 256, stages = 4, consumers = 2;
  /// Ping-pong: the two consumers take alternate tiles, each all its rows.
  bool pingpong = false;
  /// CTAs per cluster along M: 2 multicasts B to a pair of CTAs (above).
  int64_t clusterM = 1;
  int64_t rasterGroup = 1, splitK = 1;
  /// Stream-K: the CTAs split the tiles' K steps evenly (cooperative only).
  bool streamK = false;
  /// Epilogue through shared memory and TMA stores (needs C's rows to be a
  /// multiple of 16 bytes); else each thread stores its fragments.
  bool tmaStore = false;
  /// bf16 C staged for its TMA stores with stmatrix (four 8x8 matrices a
  /// warp instruction) instead of one 4-byte store per fragment pair.
  bool stmatrix = false;
  /// Operands stored MN-major (A [K, M], B [K, N]): bf16 ones through
  /// wgmma's transposed operand modes, TF32 ones transposed in shared memory.
  bool aMnMajor = false, bMnMajor = false;
  /// Exact f32: every this many K steps the MMAs' accumulators are added
  /// into f32 sums (round to nearest) and restarted (0: never).
  int64_t promoteEvery = 0;
  /// A fused epilogue: the nova.fused region whose first op is this GEMM's
  /// matmul (its result the accumulators), the region's plan, and a hash of
  /// its printed form (for the kernel's name). See the file comment.
  mutable FusedOp epilogue; // ops are handles: read through a const spec
  const FusedRowsPlan *epiloguePlan = nullptr;
  uint64_t epilogueHash = 0;

  int64_t elementBytes() const { return tf32 ? 4 : 2; }
  /// One 128-byte swizzle row of K per stage.
  int64_t tileK() const { return 128 / elementBytes(); }
  int64_t mmaK() const { return tf32 ? 8 : 16; }
  int64_t stageBytes() const { return (tileM + tileN) * 128; }
  /// TF32 operands the producer transposes in shared memory (see above).
  bool transposesA() const { return tf32 && aMnMajor; }
  bool transposesB() const { return tf32 && bMnMajor; }
  bool transposes() const { return transposesA() || transposesB(); }
  /// A stage's bytes the producer transposes.
  int64_t transposedBytes() const {
    return ((transposesA() ? tileM : 0) + (transposesB() ? tileN : 0)) * 128;
  }
  int64_t outBytes() const { return bf16Result && !writesPartials() ? 2 : 4; }
  /// Rows of a tile one consumer computes.
  int64_t consumerRows() const { return pingpong ? tileM : tileM / consumers; }
  /// The epilogue's shared memory (TMA stores only): a ring of two C boxes
  /// per consumer.
  int64_t epilogueBytes() const {
    return tmaStore ? consumers * kEpilogueRingBytes : 0;
  }
  /// The epilogue's element inputs other than the product, staged in shared
  /// memory (see the file comment).
  SmallVector<BlockArgument> stagedInputs() const;
  /// One consumer's rows of the tile of one staged input (bf16).
  int64_t stagedInputTileBytes() const { return consumerRows() * tileN * 2; }
  int64_t stagedInputBytes() const {
    return int64_t(stagedInputs().size()) * consumers * stagedInputTileBytes();
  }
  int64_t sharedMemoryBytes() const {
    // Operand stages, the C box rings, the staged inputs, then the mbarriers
    // (full and empty per stage; ping-pong: a turn per consumer;
    // transposing: staged per stage; staged inputs: one per consumer).
    int64_t staged = stagedInputBytes();
    return stages * stageBytes() + epilogueBytes() + staged + 2 * 8 * stages +
           (pingpong ? 8 * consumers : 0) + (transposes() ? 8 * stages : 0) +
           (staged ? 8 * consumers : 0);
  }
  int64_t threads() const { return 128 * (1 + consumers); }
  bool multicastsB() const { return clusterM == 2; }
  /// Rows of B a CTA loads per stage (multicast: half the tile's).
  int64_t bLoadRows() const { return multicastsB() ? tileN / 2 : tileN; }
  /// setmaxnreg's split (see movesRegisters): 128 x p + 256 x c <= 128 x 168
  /// x 3; a transposing producer keeps a box's 32 values and addresses.
  int32_t producerRegisters() const { return transposes() ? 72 : 40; }
  int32_t consumerRegisters() const { return transposes() ? 216 : 232; }
  /// Whether the producer hands registers to the consumers (setmaxnreg
  /// 40 / 232, or 72 / 216 when it transposes). Only balanced when ptxas allocates its cap of 168 per thread
  /// for 384 threads (an increase waits for registers the CTA's decreases
  /// free), which wide accumulators guarantee; one consumer needs no move.
  bool movesRegisters() const {
    return consumers == 2 && consumerRows() / 64 * tileN / 2 >= 64;
  }
  /// Whether C holds f32 partial sums per split (split_k > 1).
  bool writesPartials() const { return splitK > 1; }
  std::string kernelName() const;
  /// The epilogue's region results TMA stores: its element results (else C).
  SmallVector<unsigned> storedResults() const;
  /// Scratch for the CTA's tensor maps: A, B, one per stored result and one
  /// per staged input.
  int64_t descriptorBytesPerCta() const {
    return int64_t(2 + std::max<size_t>(1, storedResults().size()) +
                   stagedInputs().size()) *
           kTensorMapBytes;
  }
  /// One f32 partial tile (stream-K).
  int64_t partialTileBytes() const { return tileM * tileN * 4; }
  /// A CTA's scratch: its tensor maps, then (stream-K) the part of a tile
  /// it shares.
  int64_t scratchBytesPerCta() const {
    return descriptorBytesPerCta() + (streamK ? partialTileBytes() : 0);
  }
};

/// The inputs of the region `matmul` starts other than its operands: the
/// epilogue's, bound after A and B.
SmallVector<BlockArgument> epilogueInputs(Operation *matmul);

/// The element inputs of `plan`'s epilogue region besides the product,
/// which the GEMM stages in shared memory (`plan` has a matmul).
SmallVector<BlockArgument> stagedEpilogueInputs(const FusedRowsPlan &plan);

/// Checks that `plan`'s region can be a GEMM epilogue: it has a matmul, bf16
/// element results (at least one), partial sums over whole groups of 16 rows
/// (a warp's rows of an MMA tile), no row reductions, no per-row values, and
/// at most kMaxStagedInputs other element inputs, bf16.
LogicalResult checkEpilogueRegion(const FusedRowsPlan &plan, std::string &why);

/// Checks that `spec` (bf16, one split, TMA stores) can carry `plan`'s
/// region as its epilogue (checkEpilogueRegion).
LogicalResult checkGemmEpilogue(const WgmmaGemmSpec &spec,
                                const FusedRowsPlan &plan, std::string &why);

/// The spec for `config` (kernel "wgmma_tma", "wgmma_tma_pingpong" or
/// "wgmma_tma_stream_k", precision bf16, tf32 or tf32x3), or failure with
/// the reason in `why`. C is `m` x `n` and `sharedMemoryLimit` the bytes a
/// CTA may use: the epilogue stores through TMA when both allow it; the
/// config's 2-CTA clusters run where the kernel can (see the file comment).
/// `aMnMajor`/`bMnMajor`: the operands' layouts in memory (see
/// readsMnMajor).
FailureOr<WgmmaGemmSpec> wgmmaGemmSpec(LoweringConfigAttr config,
                                       bool bf16Result, int64_t m, int64_t n,
                                       bool aMnMajor, bool bMnMajor,
                                       int64_t sharedMemoryLimit,
                                       std::string &why);

/// A module holding one gpu.module (named kernelName()) with the kernel.
OwningOpRef<ModuleOp> buildWgmmaGemmKernel(MLIRContext *context,
                                           const WgmmaGemmSpec &spec);

/// The kernel's PTX (built once per spec per process, thread-safe); empty
/// with the diagnostics in `error` on failure.
std::string wgmmaGemmPtx(const WgmmaGemmSpec &spec, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_WGMMAGEMMKERNEL_H
