//===- AttentionConfigurator.cpp - analytic attention configurator --------===//

#include "compiler/codegen/cuda/AttentionConfigurator.h"
#include "compiler/codegen/cuda/FlashAttentionKernel.h"
#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {

// A block's exponentials: 16 per cycle per SM (the MUFU units), one per
// score. The model adds them to the MMAs: the forward overlaps them with the
// previous block's P V only.
constexpr double kExpPerCycle = 16;
constexpr int64_t kMaxStages = 4;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

std::string AttentionPlan::summary() const {
  ArrayRef<int64_t> tile = config.getTileSizes();
  return llvm::formatv("flash_wgmma {0}x{1} (d {2}), {3} stages{4}, {5} CTAs "
                       "over {6} items, ~{7:F1} us",
                       tile[0], tile[1], tile[2], config.getPipelineStages(),
                       queryBuffers == 1 ? ", one Q tile" : "",
                       config.getPersistentCtas(), items, estimateUs)
      .str();
}

std::optional<AttentionPlan>
cuda::configureAttention(const AttentionProblem &problem, TargetAttr target,
                         std::string &why) {
  if (target.getArch() != "sm_90") {
    why = "Nova has attention kernels for sm_90 only";
    return std::nullopt;
  }
  bool tf32 = problem.precision == GemmPrecision::TF32;
  if (problem.precision != GemmPrecision::BF16 && !tf32) {
    why = "the attention kernel computes in bf16 or (f32 operands under "
          "'high' precision) TF32 only";
    return std::nullopt;
  }
  if (problem.hasMask) {
    why = "the attention kernel takes no additive mask";
    return std::nullopt;
  }
  if (problem.headDim != 64 && problem.headDim != 128) {
    why = "head dim is not 64 or 128";
    return std::nullopt;
  }
  if (tf32 && problem.backward && problem.headDim != 64) {
    // K, V and K^T resident (192 KiB) leave no room for the stages.
    why = "the TF32 backward kernel takes head dim 64 only";
    return std::nullopt;
  }
  if (problem.t < 1 || problem.t > (1 << 24) || problem.batchHeads < 1 ||
      problem.batchHeads * problem.t > (int64_t(1) << 30)) {
    why = "sequence or batch out of the kernel's 32-bit range";
    return std::nullopt;
  }
  MLIRContext *context = target.getContext();
  FlashAttentionSpec spec;
  spec.backward = problem.backward;
  spec.causal = problem.causal;
  spec.headDim = problem.headDim;
  spec.tf32 = tf32;
  // Forward: 128 query rows (64 per consumer) against 128-key blocks.
  // Backward: 128 keys (64 per consumer) against 64-query blocks. f32
  // tiles take twice the shared memory: half the step (a quarter at head
  // dim 128).
  spec.blockM = 128;
  spec.blockN =
      FlashAttentionSpec::stepRows(problem.backward, tf32, problem.headDim);
  // One CTA per SM walks the items: (query or key block of 128, head).
  int64_t blocks = ceilDiv(problem.t, spec.blockM);
  int64_t items = problem.batchHeads * blocks;
  int64_t ctas = std::min(items, target.getSmCount());
  // Head groups: the heads whose blocks the CTAs hold at once, so that what
  // a head's blocks share is read while it is in L2 (set first: the
  // forward's item slots take shared memory).
  if (problem.headGroups)
    spec.headGroup = std::clamp<int64_t>(
        ctas / blocks, 2, std::max<int64_t>(2, problem.batchHeads));
  // A block's work on one SM, in cycles: both consumers' MMAs (2 in the
  // forward, 5 in the backward, of 64 x blockN x D each) plus their
  // exponentials.
  double clockGhz = smClockGhz(target);
  auto peakAttr = dyn_cast_or_null<IntegerAttr>(
      target.getPeakTflops().get(tf32 ? "tf32" : "bf16"));
  double peakTflops = peakAttr ? double(peakAttr.getInt()) : tf32 ? 494 : 989;
  double flopsPerCycle = peakTflops * 1e12 / (clockGhz * 1e9) / target.getSmCount();
  double mmas = problem.backward ? 5 : 2;
  double blockFlops = FlashAttentionSpec::kConsumers * mmas * 2.0 * 64 *
                      spec.blockN * problem.headDim;
  double blockCycles =
      blockFlops / flopsPerCycle +
      FlashAttentionSpec::kConsumers * 64.0 * spec.blockN / kExpPerCycle;
  int64_t limit = target.getSharedMemoryPerSm() - kReservedSharedMemory;
  // Both kernels hold two blocks' stages at once (the forward's P V in
  // flight under the next block's softmax, the backward's dV and dK under
  // the next block's S^T and dP^T): one stage more.
  int64_t wanted = std::clamp<int64_t>(
      2 + int64_t(std::ceil(kLoadLatencyCycles / blockCycles)), 2, kMaxStages);
  // The most stages up to `wanted` that fit with `queryBuffers` Q tiles.
  auto fittingStages = [&](int64_t queryBuffers) {
    spec.queryBuffers = queryBuffers;
    spec.stages = wanted;
    while (spec.stages > 2 && spec.sharedMemoryBytes() > limit)
      --spec.stages;
    return spec.stages;
  };
  // The forward's second Q tile hides one load per work item, a stage one
  // per key block: a single Q tile where it buys stages (or fits at all).
  // The kernel spec takes two tiles wherever they fit the chosen stages.
  auto fits = [&] { return spec.sharedMemoryBytes() <= limit; };
  int64_t doubleStages = fittingStages(2);
  bool doubleFits = fits();
  if (!problem.backward && (!doubleFits || doubleStages < wanted)) {
    int64_t singleStages = fittingStages(1);
    if (!fits() || (doubleFits && singleStages <= doubleStages))
      fittingStages(2);
  }
  if (!fits()) {
    why = "two stages of blocks need more shared memory than a CTA has";
    return std::nullopt;
  }
  AttentionPlan plan;
  plan.queryBuffers = spec.queryBuffers;
  plan.items = items;
  double flops = (problem.backward ? 5.0 : 2.0) * 2.0 * problem.batchHeads *
                 problem.t * problem.t * problem.headDim *
                 (problem.causal ? 0.5 : 1.0);
  plan.estimateUs = flops / (peakTflops * 1e12) * 1e6 *
                    double(target.getSmCount()) / double(ctas);
  SmallVector<int64_t> tile = {spec.blockM, spec.blockN, problem.headDim};
  SmallVector<int64_t> mma = {
      64, problem.backward ? problem.headDim : spec.blockN, spec.kStep()};
  plan.config = LoweringConfigAttr::get(
      context, tile, /*warp_layout=*/{FlashAttentionSpec::kConsumers, 1}, mma,
      spec.stages, /*swizzle=*/128, "flash_wgmma", tf32 ? "tf32" : "bf16",
      /*producer_warpgroups=*/1, /*cluster_m=*/1, /*cluster_n=*/1,
      /*split_k=*/1, ctas, std::max<int64_t>(1, spec.headGroup),
      /*min_ctas_per_sm=*/0);
  return plan;
}
