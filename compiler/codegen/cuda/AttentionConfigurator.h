//===- AttentionConfigurator.h - analytic attention configurator -*- C++ -*-===//
//
// Chooses how one nova.attention (or its backward) runs on a GPU: whether
// Nova has a kernel for it there (sm_90; bf16 with head dim 64 or 128, or
// f32 under TF32 precision with head dim 64), its
// blocks, pipeline depth and persistent grid, from the same closed-form
// quantities as the GEMM configurator (docs/configurator.md): the work of a
// block against its loads' latency, the shared-memory limit, the SM count.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_ATTENTIONCONFIGURATOR_H
#define NOVA_CODEGEN_CUDA_ATTENTIONCONFIGURATOR_H

#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/dialect/NovaAttrs.h"

#include <optional>
#include <string>

namespace mlir::nova::cuda {

/// One attention: [batchHeads, t, headDim] operands of one element type,
/// multiplied at `precision` (bf16 operands: BF16; f32 ones: torch's f32
/// matmul precision, as for GEMMs).
struct AttentionProblem {
  int64_t batchHeads = 1, t = 0, headDim = 0;
  bool causal = false, backward = false, hasMask = false;
  std::optional<GemmPrecision> precision;
  /// Hand out the work in groups of heads (raster_group, see
  /// FlashAttentionSpec::headGroup); false: the static block-major order.
  bool headGroups = true;
};

struct AttentionPlan {
  LoweringConfigAttr config;
  int64_t items = 0;       // (block, head) work items
  int64_t queryBuffers = 2; // forward: Q tiles in shared memory
  double estimateUs = 0;   // tensor-core time of the useful FLOPs
  std::string summary() const;
};

/// The plan for `problem` on `target`, or nullopt with the reason in `why`
/// (then the op is decomposed into nova primitives).
std::optional<AttentionPlan> configureAttention(const AttentionProblem &problem,
                                                TargetAttr target,
                                                std::string &why);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_ATTENTIONCONFIGURATOR_H
