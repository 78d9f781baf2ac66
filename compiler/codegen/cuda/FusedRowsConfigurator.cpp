//===- FusedRowsConfigurator.cpp - row-kernel config of nova.fused --------===//

#include "compiler/codegen/cuda/FusedRowsConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::nova;

namespace {
// One warp per row; 4 rows per CTA keep 16 CTAs (2048 threads) resident per
// SM on sm_80..sm_90, each lane with a 16-byte load per input in flight.
constexpr int64_t kWarpsPerCta = 4;
// Resident warps per SM that cover its share of DRAM bandwidth with one
// 16-byte load per input in flight each (Little's law, as for cross-entropy).
constexpr int64_t kWarpsInFlight = 48;
} // namespace

std::optional<LoweringConfigAttr>
cuda::configureFusedRows(const FusedRowsPlan &plan, TargetAttr target,
                         std::string &why) {
  if (computeCapability(target) < 80) {
    why = "Nova's row kernels need sm_80 or newer";
    return std::nullopt;
  }
  int64_t vector = std::max<int64_t>(1, 16 / plan.widestBytes);
  while (plan.columns % vector)
    vector /= 2;
  if (!partialsFit(plan, vector)) {
    why = "rows too long to carry their partials";
    return std::nullopt;
  }
  // Without reductions a row may be shared: enough warps for every SM to
  // hold kWarpsInFlight of them (each row keeps at least one chunk a warp).
  int64_t segments = 1;
  if (!plan.rowReductions) {
    int64_t chunks = (plan.columns + 32 * vector - 1) / (32 * vector);
    int64_t wanted = target.getSmCount() * kWarpsInFlight;
    int64_t slots = plan.rows / plan.rowsPerWarp;
    segments = std::clamp<int64_t>((wanted + slots - 1) / slots, 1, chunks);
  }
  // Fewer warps a CTA where their partials' shared slices need it.
  int64_t warps = kWarpsPerCta;
  while (warps > 1 &&
         warps * partialSharedBytesPerWarp(plan, vector) > kMaxStaticSharedBytes)
    --warps;
  return LoweringConfigAttr::get(
      target.getContext(), /*tile_sizes=*/{1, vector, segments},
      /*warp_layout=*/{warps, 1}, /*mma_shape=*/{1, 1, 1},
      /*pipeline_stages=*/1, /*swizzle=*/0, "fused_rows", "f32",
      /*producer_warpgroups=*/0, /*cluster_m=*/1, /*cluster_n=*/1,
      /*split_k=*/1, /*persistent_ctas=*/0, /*raster_group=*/1);
}
