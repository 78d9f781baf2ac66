//===- GemmConfigurator.cpp - analytic GEMM configurator ------------------===//
//
// See docs/configurator.md for the model; the constants below are its
// assumptions, named.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {

// L2 -> SM operand bandwidth as a multiple of DRAM bandwidth (H100/H200:
// ~12 TB/s of L2 against 3.35-4.8 TB/s of HBM).
constexpr double kL2BandwidthFactor = 3.0;
// Fixed cost of one kernel launch and of a split-K reduction kernel, us.
constexpr double kLaunchUs = 2.0;
// Shared memory delivers 128 bytes per cycle per SM; the tensor cores read
// their operands from it (wgmma: A and B, per consumer warp group).
constexpr double kSharedBytesPerCycle = 128;
// Per tile, cycles not overlapped with the main loop: filling the pipeline
// (about one DRAM latency) and draining the accumulator through shared
// memory (counted separately from the result's bytes).
constexpr double kTileFillCycles = 1000;
// kLoadLatencyCycles (GemmConfigurator.h): a K step takes at least it / (S - 1).
// Registers: a Hopper consumer warp group gets 232 per thread through
// setmaxnreg (2 x 128 x 232 + 128 x 40 producer <= 65536); the accumulator may
// use 160 of them. mma.sync warps keep 128 accumulators of 255.
constexpr int64_t kHopperAccumulatorRegs = 160;
// An epilogue that stages an input (the GELU backward's pre-activation)
// keeps this many accumulators a consumer thread: at 128 (ping-pong
// 128x128) ptxas serializes the MMAs around the region's live values
// (C7520) and spills; at 64 (cooperative 128x128, ping-pong 64x128) it
// compiles clean (ptxas 13, gpt-146m's 16384x3072x768 region,
// tools/ptxas_report.py).
constexpr int64_t kStagedEpilogueAccumulatorRegs = 64;
constexpr int64_t kAmpereAccumulatorRegs = 128;
constexpr int64_t kHopperMaxStages = 7, kAmpereMaxStages = 5;
// Candidates within this fraction of the best estimate tie; the tie goes to
// the larger tile (fewer CTAs, more reuse).
constexpr double kTie = 0.005;
// Stream-K is weighed where whole tiles fill the SMs' rounds to less than
// this, over K of at least this many steps (a CTA's share of a tile stays
// pipeline deep), with at least this many tiles an SM: a tile is then split
// between two CTAs at most, and its finisher adds one part. Measured on the
// H200 (2026-12-04): gpt-146m's weight gradients (96 and 72 tiles) gained
// 18-20%; gpt-42m's (12-32 tiles, split between 4-11 CTAs) lost 2% of its
// step, their finishers adding parts one after another.
constexpr double kStreamKWaveEfficiency = 0.9;
constexpr int64_t kStreamKMinSteps = 32;
constexpr double kStreamKMinTilesPerSm = 0.5;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Candidate {
  int64_t bm, bn, bk, stages, splitK;
  /// sm_90 ping-pong: two consumer warp groups take whole tiles in turn.
  bool pingpong;
  /// sm_90 stream-K: the CTAs split all tiles' K steps evenly.
  bool streamK;
  SmallVector<int64_t, 2> warpLayout;
  SmallVector<int64_t, 3> mma;
  int64_t producers;
  GemmPlan plan;
};

} // namespace

FailureOr<GemmPrecision> cuda::f32MatmulPrecision(Operation *op,
                                                  StringRef torch) {
  if (torch == "highest")
    return GemmPrecision::TF32x3;
  if (torch == "high" || torch == "medium")
    return GemmPrecision::TF32;
  return op->emitError()
         << "f32-matmul-precision must be highest, high or medium, got '"
         << torch << "'";
}

StringRef cuda::stringifyPrecision(GemmPrecision precision) {
  switch (precision) {
  case GemmPrecision::BF16:
    return "bf16";
  case GemmPrecision::F16:
    return "f16";
  case GemmPrecision::TF32:
    return "tf32";
  case GemmPrecision::TF32x3:
    return "tf32x3";
  }
  llvm_unreachable("unknown precision");
}

bool cuda::readsMnMajor(GemmPrecision precision, int64_t rows, int64_t k) {
  if (precision == GemmPrecision::TF32x3)
    return false;
  int64_t perRow = precision == GemmPrecision::TF32 ? 4 : 8;
  return rows % perRow == 0 && k % perRow == 0;
}

FailureOr<GemmProblem> cuda::gemmProblem(MatmulOp op,
                                         GemmPrecision f32Precision,
                                         std::string &why) {
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  if (!lhs.hasStaticShape() || !rhs.hasStaticShape()) {
    why = "dynamic shapes";
    return failure();
  }
  GemmProblem problem;
  Type element = lhs.getElementType();
  if (element.isBF16())
    problem.precision = GemmPrecision::BF16;
  else if (element.isF16())
    problem.precision = GemmPrecision::F16;
  else if (element.isF32())
    problem.precision = f32Precision;
  else {
    why = "no tensor-core path for this element type";
    return failure();
  }
  MatmulOp::GemmDims dims = op.getGemmDims();
  problem.batch = dims.batch;
  problem.m = dims.m;
  problem.n = dims.n;
  problem.k = dims.k;
  problem.resultBytes =
      std::max<int64_t>(1, op.getType().getElementTypeBitWidth() / 8);
  problem.aMnMajor =
      op.getTransposeLhs() && readsMnMajor(problem.precision, dims.m, dims.k);
  problem.bMnMajor =
      !op.getTransposeRhs() && readsMnMajor(problem.precision, dims.n, dims.k);
  return problem;
}

namespace {

/// transposesInSharedMemory's two costs (us) of an MN-major TF32 operand for
/// tiles of bm x bn over `active` CTAs: {in shared memory, in memory}.
std::pair<double, double> transposeCosts(const GemmProblem &problem,
                                         TargetAttr target, int64_t bm,
                                         int64_t bn, int64_t active, bool ofB) {
  int64_t rows = ofB ? problem.n : problem.m;
  int64_t otherTiles = ofB ? ceilDiv(problem.m, bm) : ceilDiv(problem.n, bn);
  active = std::min<int64_t>(active, target.getSmCount());
  double operandBytes = 2.0 * problem.batch * rows * problem.k * 4;
  double sharedUs = 1e6 * operandBytes * otherTiles /
                    (kSharedBytesPerCycle * smClockGhz(target) * 1e9 * active);
  double memoryUs =
      1e6 * operandBytes / (target.getMemoryBandwidthGbps() * 1e9) + kLaunchUs;
  return {sharedUs, memoryUs};
}

} // namespace

bool cuda::transposesInSharedMemory(const GemmProblem &problem,
                                    LoweringConfigAttr config,
                                    TargetAttr target, bool ofB) {
  ArrayRef<int64_t> tile = config.getTileSizes();
  int64_t ctas = config.getPersistentCtas()
                     ? config.getPersistentCtas()
                     : problem.batch * ceilDiv(problem.m, tile[0]) *
                           ceilDiv(problem.n, tile[1]) * config.getSplitK();
  auto [sharedUs, memoryUs] =
      transposeCosts(problem, target, tile[0], tile[1], ctas, ofB);
  return sharedUs < memoryUs;
}

std::string GemmPlan::summary() const {
  return llvm::formatv("tiles {0}, waves {1:f2}, compute {2:f1} us, memory "
                       "{3:f1} us, estimate {4:f1} us ({5:f0}% of peak)",
                       tiles, waves, computeUs, memoryUs, estimateUs,
                       100 * efficiency)
      .str();
}

std::optional<GemmPlan>
cuda::configureGemm(const GemmProblem &problem, TargetAttr target,
                    SmallVectorImpl<std::string> *trace) {
  MLIRContext *context = target.getContext();
  bool hopper = computeCapability(target) >= 90;
  bool wide = problem.precision == GemmPrecision::TF32 ||
              problem.precision == GemmPrecision::TF32x3;
  int64_t elementBytes = wide ? 4 : 2;
  StringRef peakName = wide ? "tf32" : stringifyPrecision(problem.precision);
  auto peakAttr =
      dyn_cast_or_null<IntegerAttr>(target.getPeakTflops().get(peakName));
  if (!peakAttr && problem.precision == GemmPrecision::F16)
    peakAttr = dyn_cast_or_null<IntegerAttr>(target.getPeakTflops().get("bf16"));
  if (!peakAttr)
    return std::nullopt;
  // tf32x3: three TF32 products per f32 product (hi*hi + hi*lo + lo*hi).
  double peak = peakAttr.getInt() * 1e12 /
                (problem.precision == GemmPrecision::TF32x3 ? 3.0 : 1.0);
  int64_t sms = target.getSmCount();
  double smPeak = peak / sms;
  double dram = target.getMemoryBandwidthGbps() * 1e9;
  double smL2 = kL2BandwidthFactor * dram / sms;
  double smShared = kSharedBytesPerCycle * smClockGhz(target) * 1e9;
  double cycleUs = 1e-3 / smClockGhz(target);
  int64_t smemPerCta = target.getSharedMemoryPerSm() - kReservedSharedMemory;

  // One K step moves a 128-byte (Hopper: one TMA box row, 128B swizzle) or
  // 64-byte (cp.async) row of each operand.
  int64_t rowBytes = hopper ? 128 : 64;
  int64_t bk = rowBytes / elementBytes;
  int64_t mmaK = elementBytes == 2 ? 16 : 8;
  int64_t kSteps = ceilDiv(problem.k, bk);
  double flops = 2.0 * problem.batch * problem.m * problem.n * problem.k;
  double uniqueBytes =
      double(problem.batch) *
      (double(problem.m + problem.n) * problem.k * elementBytes +
       double(problem.m) * problem.n *
           (problem.resultBytes + problem.epilogueBytes));

  std::optional<Candidate> best;
  static constexpr int64_t kTileM[] = {64, 128, 256};
  static constexpr int64_t kTileN[] = {64, 128, 192, 256};
  for (int64_t bm : kTileM) {
    for (int64_t bn : kTileN) {
      for (bool pingpong : {false, true}) {
        if (pingpong && (!hopper || bm > 128))
          continue;
        Candidate c{bm, bn, bk, 0, 1, pingpong, false, {}, {}, 0, {}};
        // sm_90's consumer warp groups. Cooperative: up to two split the
        // tile's rows; ping-pong: two take whole tiles in turn.
        int64_t consumerGroups = pingpong ? 2 : std::min<int64_t>(bm / 64, 2);
        if (hopper) {
          // The warp groups one tile's rows are split over.
          int64_t consumers = pingpong ? 1 : consumerGroups;
          // Exact f32 keeps a second set of f32 sums next to the MMA
          // accumulators (the kernel promotes into them).
          int64_t accumulatorRegs = problem.precision == GemmPrecision::TF32x3
                                        ? kHopperAccumulatorRegs / 2
                                        : kHopperAccumulatorRegs;
          if (problem.stagedInputs)
            accumulatorRegs =
                std::min(accumulatorRegs, kStagedEpilogueAccumulatorRegs);
          if (bm * bn / (consumers * 128) > accumulatorRegs)
            continue;
          c.warpLayout = {consumers, 1};
          c.mma = {64, bn, mmaK};
          c.producers = 1;
        } else {
          if (bn == 192)
            continue;
          int64_t warps = bm * bn >= 128 * 128 ? 8 : 4;
          if (bm * bn / (warps * 32) > kAmpereAccumulatorRegs)
            continue;
          c.warpLayout = warps == 4 ? SmallVector<int64_t, 2>{2, 2}
                         : bm >= bn ? SmallVector<int64_t, 2>{4, 2}
                                    : SmallVector<int64_t, 2>{2, 4};
          if (bm % (c.warpLayout[0] * 16) || bn % (c.warpLayout[1] * 8))
            continue;
          c.mma = {16, 8, mmaK};
        }
        int64_t stageBytes = (bm + bn) * bk * elementBytes;
        // The stages that fit next to the epilogue's shared memory: on sm_90
        // each consumer stages C for TMA stores (when C's rows allow them)
        // through a ring of two [64 rows, 128 bytes] boxes, and its rows of
        // the tile of each staged input (bf16).
        auto stagesFor = [&](int64_t outBytes) {
          int64_t epilogueBytes = 0;
          if (hopper && problem.n * outBytes % 16 == 0 &&
              bn % (128 / outBytes) == 0)
            epilogueBytes =
                consumerGroups * kEpilogueRingBytes +
                problem.stagedInputs * (pingpong ? 2 : 1) * bm * bn * 2;
          int64_t fit = std::min((smemPerCta - epilogueBytes) / stageBytes,
                                 hopper ? kHopperMaxStages : kAmpereMaxStages);
          return std::min(fit, kSteps);
        };
        int64_t stages = stagesFor(problem.resultBytes);
        if (stages < std::min<int64_t>(2, kSteps))
          continue;

        int64_t tiles = problem.batch * ceilDiv(problem.m, bm) *
                        ceilDiv(problem.n, bn);
        // Split K only when the tiles leave SMs idle, keeping every split at
        // least a full pipeline deep.
        int64_t maxSplit = 1;
        if (tiles < sms && problem.epilogueBytes == 0 && !pingpong)
          maxSplit = std::max<int64_t>(
              1, std::min(sms / tiles, kSteps / std::max<int64_t>(stages, 4)));
        for (int64_t split = 1; split <= maxSplit; ++split) {
          c.stages = split > 1 ? std::min(stagesFor(4), ceilDiv(kSteps, split))
                               : stages;
          if (c.stages < std::min<int64_t>(2, ceilDiv(kSteps, split)))
            continue;
          int64_t ctas = tiles * split;
          int64_t kPerCta = ceilDiv(kSteps, split) * bk;
          int64_t kSplitSteps = ceilDiv(kSteps, split);
          double latencyUs =
              c.stages > 1 ? kSplitSteps * kLoadLatencyCycles * cycleUs /
                                 double(c.stages - 1)
                           : 0;
          // sm_90 TF32 operands stored MN-major: transposed by the GEMM in
          // shared memory (rows read and written there once more) or once in
          // memory first (transposesInSharedMemory), over `active` CTAs.
          struct Transposes {
            int64_t sharedRows = 0;
            double memoryUs = 0;
          };
          auto transposes = [&](int64_t active) {
            Transposes t;
            if (!hopper || problem.precision != GemmPrecision::TF32)
              return t;
            for (bool ofB : {false, true}) {
              if (!(ofB ? problem.bMnMajor : problem.aMnMajor))
                continue;
              auto [sharedUs, memoryUs] =
                  transposeCosts(problem, target, bm, bn, active, ofB);
              if (sharedUs < memoryUs)
                t.sharedRows += ofB ? bn : bm;
              else
                t.memoryUs += memoryUs;
            }
            return t;
          };
          auto mainLoop = [&](const Transposes &t) {
            // Each 64-row MMA reads its rows of A and all of B.
            double sharedBytes =
                double(hopper ? bm + bm / 64 * bn + 2 * t.sharedRows
                              : bm * c.warpLayout[1] + bn * c.warpLayout[0]) *
                kPerCta * elementBytes;
            return std::max(1e6 * std::max({2.0 * bm * bn * kPerCta / smPeak,
                                            double(bm + bn) * kPerCta *
                                                elementBytes / smL2,
                                            sharedBytes / smShared}),
                            latencyUs);
          };
          Transposes transposed = transposes(ctas);
          double mainLoopUs = mainLoop(transposed);
          double epilogueUs =
              kTileFillCycles * cycleUs +
              1e6 * double(bm) * bn *
                  (problem.resultBytes + problem.epilogueBytes) / smShared;
          // Cooperative: the tensor cores wait out every tile's epilogue.
          // Ping-pong: a consumer's epilogue runs under the other's main loop
          // (a pair of tiles takes 2 main loops, or one and an epilogue), and
          // only the last one is exposed.
          double computeUs =
              pingpong ? ceilDiv(ctas, sms) *
                                 std::max(mainLoopUs,
                                          (mainLoopUs + epilogueUs) / 2) +
                             epilogueUs
                       : ceilDiv(ctas, sms) * (mainLoopUs + epilogueUs);
          double memoryUs = 1e6 * uniqueBytes / dram;
          // Partial sums in f32 are written and read back once.
          double reduceUs =
              split > 1 ? 1e6 * 2.0 * split * problem.batch * problem.m *
                                  problem.n * 4 / dram +
                              kLaunchUs
                        : 0;
          GemmPlan plan;
          plan.tiles = tiles;
          plan.waves = double(ctas) / sms;
          plan.computeUs = computeUs;
          plan.memoryUs = memoryUs;
          plan.estimateUs = std::max(computeUs, memoryUs) + reduceUs +
                            transposed.memoryUs + kLaunchUs;
          plan.efficiency = flops / (plan.estimateUs * 1e-6 * peak);
          c.splitK = split;
          c.plan = plan;
          if (trace)
            trace->push_back(llvm::formatv("{0}x{1}x{2}{6}, {3} stages, split "
                                           "{4}: {5}",
                                           bm, bn, bk, c.stages, split,
                                           plan.summary(),
                                           pingpong ? " ping-pong" : "")
                                 .str());
          auto better = [&](const Candidate &x) {
            return !best ||
                   x.plan.estimateUs < best->plan.estimateUs * (1 - kTie) ||
                   (x.plan.estimateUs <= best->plan.estimateUs * (1 + kTie) &&
                    bm * bn > best->bm * best->bn);
          };
          if (better(c))
            best = c;
          // Stream-K (cooperative, one split): the CTAs split all tiles' K
          // steps evenly, so a round of tiles that leaves SMs idle costs only
          // its steps; a tile split between CTAs costs one partial tile's
          // round trip through L2, and a CTA finishes at most one tile more
          // than its round's share.
          int64_t rounds = ceilDiv(tiles, sms);
          if (split == 1 && hopper && !pingpong &&
              problem.epilogueBytes == 0 && kSteps >= kStreamKMinSteps &&
              tiles >= kStreamKMinTilesPerSm * sms &&
              double(tiles) / double(rounds * sms) < kStreamKWaveEfficiency) {
            int64_t streamCtas = std::min<int64_t>(sms, tiles * kSteps);
            int64_t steps = ceilDiv(tiles * kSteps, streamCtas);
            double partialUs = 1e6 * 2.0 * bm * bn * 4 / smL2;
            Transposes streamTransposed = transposes(streamCtas);
            double streamUs = steps * (mainLoop(streamTransposed) / kSteps) +
                              (rounds + 1) * epilogueUs + partialUs;
            Candidate s = c;
            s.streamK = true;
            s.plan.waves = double(tiles) / sms;
            s.plan.computeUs = streamUs;
            s.plan.estimateUs = std::max(streamUs, memoryUs) +
                                streamTransposed.memoryUs + kLaunchUs;
            s.plan.efficiency = flops / (s.plan.estimateUs * 1e-6 * peak);
            if (trace)
              trace->push_back(
                  llvm::formatv("{0}x{1}x{2} stream-K, {3} stages: {4}", bm,
                                bn, bk, c.stages, s.plan.summary())
                      .str());
            if (better(s))
              best = s;
          }
        }
      }
    }
  }
  if (!best)
    return std::nullopt;

  Candidate &c = *best;
  int64_t tilesM = ceilDiv(problem.m, c.bm), tilesN = ceilDiv(problem.n, c.bn);
  int64_t ctas = c.plan.tiles * c.splitK;
  // More CTAs than SMs: a persistent grid (one CTA per SM; the stages fill
  // shared memory) walks the tiles.
  int64_t persistent = hopper && ctas > sms ? sms : 0;
  if (c.streamK)
    persistent = std::min<int64_t>(sms, c.plan.tiles * kSteps);
  // No clusters: B's multicast between pairs of CTAs along M (the kernel
  // runs them, see WgmmaGemmKernel.h) measured no faster for the
  // cooperative kernel (the tensor pipes, not L2, bound it: 686 against 690
  // TFLOP/s at 16384x768x3072) and 10% slower for ping-pong (H100,
  // 2026-12-05).
  int64_t clusterM = 1;
  // A wave of `sms` tiles laid out as g tile rows x sms/g columns touches
  // g*BM + (sms/g)*BN operand rows per K step; g = sqrt(sms*BN/BM) minimizes
  // it (rounded down to a power of two, at most the tile rows and 16).
  int64_t rasterGroup = 1;
  if (tilesM > 1 && tilesN > 1) {
    double g = std::sqrt(double(sms) * c.bn / c.bm);
    int64_t limit = std::min<int64_t>({tilesM, 16, int64_t(g)});
    while (rasterGroup * 2 <= limit)
      rasterGroup *= 2;
  }
  c.plan.config = LoweringConfigAttr::get(
      context, {c.bm, c.bn, c.bk}, c.warpLayout, c.mma, c.stages,
      /*swizzle=*/rowBytes,
      !hopper ? "mma_sync_cp_async"
      : c.pingpong ? "wgmma_tma_pingpong"
      : c.streamK  ? "wgmma_tma_stream_k"
                   : "wgmma_tma",
      stringifyPrecision(problem.precision), c.producers, clusterM,
      /*clusterN=*/1, c.splitK, persistent, rasterGroup,
      /*min_ctas_per_sm=*/0);
  return c.plan;
}
