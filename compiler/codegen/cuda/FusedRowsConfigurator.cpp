//===- FusedRowsConfigurator.cpp - row-kernel config of nova.fused --------===//

#include "compiler/codegen/cuda/FusedRowsConfigurator.h"
#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::nova;

namespace {
// One warp per row; 4 rows per CTA keep 16 CTAs (2048 threads) resident per
// SM on sm_80 and sm_90 (12 on sm_86/sm_89), each lane with a 16-byte load
// per input in flight.
constexpr int64_t kWarpsPerCta = 4;
// Registers a lane may spend holding a whole row's element inputs (f32
// each) across the sweeps of a row with reductions; longer rows stream
// through one chunk at a time, and so do rows with column partials (their
// shared-memory slices already bound the CTAs an SM). Measured on the H200
// (gpt-146m, 16384x768): the layer norm (2 inputs x 6 chunks x 4 = 48) went
// from 59 to 51 us; its backward (3 x 6 x 4 = 72, with partials) from 88 to
// 122 us: ptxas hoisted the later sweeps' loads too, 230 registers left 8
// warps an SM (168 under a 3-CTA bound spilled and took 115 us).
constexpr int64_t kMaxWholeRowRegisters = 48;
// A row kernel without row reductions: registers a lane uses, estimated as
// this much for addresses and loop state plus one f32 per chunk element of
// each element input, element result and partial sum (ptxas, gpt-146m: the
// GELU backward, 2 + 2 + 1 at vector 8, 56; its forward, 1 + 1, 30).
constexpr int64_t kBaseRegisters = 16;
// The fewest registers a lane is capped to so that the grid fits in one
// wave: ptxas fits a row kernel's chunk loop in 64 without spilling
// (gpt-146m's layer-norm backward, 72 uncapped).
constexpr int64_t kMinCappedRegisters = 64;
constexpr int64_t kMaxRegistersPerThread = 255;
} // namespace

bool cuda::runsRowKernels(TargetAttr target, std::string &why) {
  if (computeCapability(target) >= 80)
    return true;
  why = "Nova's row kernels need sm_80 or newer";
  return false;
}

std::optional<LoweringConfigAttr>
cuda::configureFusedRows(const FusedRowsPlan &plan, TargetAttr target,
                         std::string &why) {
  if (!runsRowKernels(target, why))
    return std::nullopt;
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
  // Fewer warps a CTA where their partials' shared slices need it, or where
  // they would not share the CTA's group of rows evenly.
  int64_t warps = kWarpsPerCta;
  while (warps > 1 &&
         (partialSharedBytes(plan, vector, warps) > kMaxStaticSharedBytes ||
          (sharesGroupsInCta(plan) && plan.rowsPerGroup % warps)))
    --warps;
  // Without reductions a row may be shared between `segments` warps (each
  // keeps at least one chunk). The grid runs in rounds of the CTAs that fit
  // an SM at once (by registers), so the segments are chosen for the fewest
  // chunk-times: rounds x chunks a warp (wave quantization), the fewest
  // segments among equals.
  int64_t segments = 1;
  if (!plan.rowReductions) {
    int64_t registers =
        kBaseRegisters +
        vector * (plan.elementInputs + plan.elementResults + plan.partials);
    registers = (registers + 7) / 8 * 8; // ptxas allocates by 8
    int64_t ctasPerSm = std::min<int64_t>(
        maxThreadsPerSm(target) / 32 / warps,
        target.getRegistersPerSm() / (registers * 32 * warps));
    int64_t resident = target.getSmCount() * std::max<int64_t>(1, ctasPerSm);
    int64_t slots = plan.rows / plan.rowsPerGroup;
    int64_t best = -1;
    for (int64_t perSegment = chunks; perSegment >= 1; --perSegment) {
      int64_t s = (chunks + perSegment - 1) / perSegment;
      if ((chunks + s - 1) / s != perSegment) // as many as the chunks need
        continue;
      int64_t ctas = (slots * s + warps - 1) / warps;
      int64_t cost = (ctas + resident - 1) / resident * perSegment;
      if (best < 0 || cost < best) {
        best = cost;
        segments = s;
      }
    }
  }
  // A row swept more than once (a layer norm: statistics, then outputs) is
  // loaded whole when its inputs fit in registers: every chunk's loads in
  // flight at once, and no second read of the row. Else a chunk at a time.
  int64_t stages = 1;
  if (plan.rowReductions && !plan.partials && chunks > 1 &&
      chunks * plan.elementInputs * vector <= kMaxWholeRowRegisters)
    stages = chunks;
  // A grid of a few CTAs an SM (up to a wave of the most the SM holds by
  // threads and shared memory) is capped in registers to run in one wave:
  // e.g. gpt-146m's layer-norm backward, 1024 CTAs of 4 warps, held 7 an
  // SM at 72 registers (924 at once: a second wave of 100) and runs at 8
  // (64 registers) in one.
  int64_t minCtasPerSm = 0;
  {
    FusedRowsSpec shape;
    shape.vector = vector;
    shape.warps = warps;
    shape.segments = segments;
    int64_t ctas = fusedRowsCtas(plan, shape);
    int64_t sharedBytes = partialSharedBytes(plan, vector, warps);
    int64_t fit = maxThreadsPerSm(target) / 32 / warps;
    if (sharedBytes)
      fit = std::min(fit, target.getSharedMemoryPerSm() /
                              (sharedBytes + kReservedSharedMemory));
    int64_t wave = (ctas + target.getSmCount() - 1) / target.getSmCount();
    int64_t cap = target.getRegistersPerSm() / (wave * 32 * warps) / 8 * 8;
    // (A cap of 255 or more bounds nothing.)
    if (wave > 1 && wave <= fit && cap >= kMinCappedRegisters &&
        cap < kMaxRegistersPerThread)
      minCtasPerSm = wave;
  }
  return LoweringConfigAttr::get(
      target.getContext(), /*tile_sizes=*/{1, vector, segments},
      /*warp_layout=*/{warps, 1}, /*mma_shape=*/{1, 1, 1},
      /*pipeline_stages=*/stages, /*swizzle=*/0, "fused_rows", "f32",
      /*producer_warpgroups=*/0, /*cluster_m=*/1, /*cluster_n=*/1,
      /*split_k=*/1, /*persistent_ctas=*/0, /*raster_group=*/1,
      minCtasPerSm);
}
