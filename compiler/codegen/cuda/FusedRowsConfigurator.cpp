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
// Registers a lane may spend holding a whole row's element inputs (f32
// each) across the sweeps of a row with reductions; longer rows stream
// through one chunk at a time, and so do rows with column partials (their
// shared-memory slices already bound the CTAs an SM). Measured on the H200
// (gpt-146m, 16384x768): the layer norm (2 inputs x 6 chunks x 4 = 48) went
// from 59 to 51 us; its backward (3 x 6 x 4 = 72, with partials) from 88 to
// 122 us: ptxas hoisted the later sweeps' loads too, 230 registers left 8
// warps an SM (168 under a 3-CTA bound spilled and took 115 us).
constexpr int64_t kMaxWholeRowRegisters = 48;
} // namespace

std::optional<LoweringConfigAttr>
cuda::configureFusedRows(const FusedRowsPlan &plan, TargetAttr target,
                         std::string &why) {
  if (computeCapability(target) < 80) {
    why = "Nova's row kernels need sm_80 or newer";
    return std::nullopt;
  }
  if (plan.matmul) {
    why = "a GEMM epilogue: configured with its matmul";
    return std::nullopt;
  }
  int64_t vector = std::max<int64_t>(1, 16 / plan.widestBytes);
  while (plan.columns % vector)
    vector /= 2;
  if (!partialsFit(plan, vector)) {
    why = "rows too long to carry their partials";
    return std::nullopt;
  }
  int64_t chunks = rowChunks(plan, vector);
  // Without reductions a row may be shared: enough warps for every SM to
  // hold kWarpsInFlight of them (each row keeps at least one chunk a warp).
  int64_t segments = 1;
  if (!plan.rowReductions) {
    int64_t wanted = target.getSmCount() * kWarpsInFlight;
    int64_t slots = plan.rows / plan.rowsPerGroup;
    segments = std::clamp<int64_t>((wanted + slots - 1) / slots, 1, chunks);
    // As many segments as that many chunks each needs: none left empty
    // (12 chunks in 7 segments of 2 would leave the seventh without one).
    int64_t perSegment = (chunks + segments - 1) / segments;
    segments = (chunks + perSegment - 1) / perSegment;
  }
  // Fewer warps a CTA where their partials' shared slices need it, or where
  // they would not share the CTA's group of rows evenly.
  int64_t warps = kWarpsPerCta;
  while (warps > 1 &&
         (warps * partialSharedBytesPerWarp(plan, vector) >
              kMaxStaticSharedBytes ||
          (sharesGroupsInCta(plan) && plan.rowsPerGroup % warps)))
    --warps;
  // A row swept more than once (a layer norm: statistics, then outputs) is
  // loaded whole when its inputs fit in registers: every chunk's loads in
  // flight at once, and no second read of the row. Else a chunk at a time.
  int64_t stages = 1;
  if (plan.rowReductions && !plan.partials && chunks > 1 &&
      chunks * plan.elementInputs * vector <= kMaxWholeRowRegisters)
    stages = chunks;
  return LoweringConfigAttr::get(
      target.getContext(), /*tile_sizes=*/{1, vector, segments},
      /*warp_layout=*/{warps, 1}, /*mma_shape=*/{1, 1, 1},
      /*pipeline_stages=*/stages, /*swizzle=*/0, "fused_rows", "f32",
      /*producer_warpgroups=*/0, /*cluster_m=*/1, /*cluster_n=*/1,
      /*split_k=*/1, /*persistent_ctas=*/0, /*raster_group=*/1);
}
