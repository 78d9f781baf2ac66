//===- GemmConfigurator.h - analytic GEMM configurator ----------*- C++ -*-===//
//
// Chooses how one (batched) matmul is tiled onto a GPU from a closed-form
// cost model: arithmetic intensity of the CTA tile against the machine's
// compute and bandwidth, wave quantization over the SMs, and the
// shared-memory and register limits. Deterministic, no measurement; the
// model is described in docs/configurator.md.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_GEMMCONFIGURATOR_H
#define NOVA_CODEGEN_CUDA_GEMMCONFIGURATOR_H

#include "compiler/dialect/NovaAttrs.h"
#include "compiler/dialect/NovaOps.h"

#include <optional>
#include <string>

namespace mlir::nova::cuda {

/// Shared memory the driver reserves per CTA (bytes).
constexpr int64_t kReservedSharedMemory = 1024;
/// Latency of one pipeline stage's TMA loads (an L2 hit), cycles: with S
/// stages, S - 1 loads are in flight while one stage is computed.
constexpr double kLoadLatencyCycles = 1500;

/// sm_90's TMA-stored C box: 64 rows of 128 bytes (128B swizzle); each
/// consumer warp group stages its C through a ring of two.
constexpr int64_t kEpilogueBoxBytes = 64 * 128;
constexpr int64_t kEpilogueRingBytes = 2 * kEpilogueBoxBytes;

/// What the tensor cores compute in.
enum class GemmPrecision { BF16, F16, TF32, TF32x3 };

StringRef stringifyPrecision(GemmPrecision precision);

/// f32 matmuls' precision for torch's `torch.get_float32_matmul_precision()`:
/// "highest" -> TF32x3 (f32 accuracy), "high" and "medium" -> TF32; else an
/// error on `op`.
FailureOr<GemmPrecision> f32MatmulPrecision(Operation *op, StringRef torch);

/// One matmul: result[batch, M, N] = A[batch, M, K] * B[batch, K, N].
struct GemmProblem {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  GemmPrecision precision = GemmPrecision::BF16;
  int64_t resultBytes = 4; // bytes per result element
  /// A fused epilogue's traffic per result element beyond C's write (its
  /// other inputs and results, less C); it also rules out split-K.
  double epilogueBytes = 0;
  /// Its element inputs staged in shared memory (bf16 tiles of C's shape).
  int64_t stagedInputs = 0;
  /// Operands stored MN-major ([K, M] / [K, N]) that the GEMM can read as
  /// they are (readsMnMajor): sm_90 TF32 transposes them in shared memory
  /// or once in memory (transposesInSharedMemory).
  bool aMnMajor = false, bMnMajor = false;
};

/// Whether Nova's sm_90 GEMM can read an operand stored MN-major ([K, rows])
/// as it is (no transpose in memory first): its rows and K are multiples of
/// 16 bytes (TMA strides). Exact f32 lays its hi/lo parts out K-major.
bool readsMnMajor(GemmPrecision precision, int64_t rows, int64_t k);

/// The problem `op` computes, f32 operands in `f32Precision`, with the
/// operands it can read as stored (readsMnMajor); or failure with the reason
/// (dynamic shapes, no tensor-core path for the element type).
FailureOr<GemmProblem> gemmProblem(MatmulOp op, GemmPrecision f32Precision,
                                   std::string &why);

/// sm_90 TF32 (whose wgmma reads only K-major operands), an operand stored
/// MN-major (A [K, M], or B [K, N] when `ofB`): whether the GEMM of `config`
/// transposes it in shared memory, rather than Nova's transpose kernel once
/// in memory. In shared memory every tile reads and writes its rows of the
/// operand once more (2 x rows x tiles along the other dim x K x 4 bytes),
/// at the active CTAs' shared-memory bandwidth, which TF32 GEMMs already
/// saturate; in memory the operand is read and written once at DRAM
/// bandwidth, plus a launch. The cheaper one wins; the configurator weighs
/// each candidate tile with its choice.
bool transposesInSharedMemory(const GemmProblem &problem,
                              LoweringConfigAttr config, TargetAttr target,
                              bool ofB);

/// The configurator's choice and the model's numbers behind it.
struct GemmPlan {
  LoweringConfigAttr config;
  int64_t tiles = 0;           // output tiles (x split_k CTAs each)
  double waves = 0;            // CTAs / SMs
  double computeUs = 0;        // tensor-core time at the quantized waves
  double memoryUs = 0;         // operand/result traffic time
  double estimateUs = 0;       // max of the two, plus the split-K reduction
  double efficiency = 0;       // useful FLOPs / (estimate x peak)
  std::string summary() const; // one line for remarks and docs
};

/// The plan for `problem` on `target`; nullopt if the target has no tensor
/// cores for the precision (e.g. no peak_tflops entry for it). With `trace`,
/// one line per candidate the model evaluated (tile, stages, split, times).
std::optional<GemmPlan>
configureGemm(const GemmProblem &problem, TargetAttr target,
              SmallVectorImpl<std::string> *trace = nullptr);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_GEMMCONFIGURATOR_H
