//===- CrossEntropyConfigurator.cpp - row-kernel configurator -------------===//

#include "compiler/codegen/cuda/CrossEntropyConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::nova;

namespace {
// DRAM load latency at full bandwidth (ns).
constexpr double kDramLatencyNs = 1500; // under load, not idle (~600 ns)
constexpr int64_t kMaxThreadsPerRow = 256;
constexpr int64_t kVectorsPerThread = 4, kMaxUnroll = 4;
// Fused: 1024 threads a row and two CTAs an SM (ptxas held to 32 registers
// a thread for them): the fewest rows resident at once for the backward's
// second read from L2, and one CTA streaming while the other merges its row
// (H100, 16384 x 32000 bf16 in place: 725 us against 964 at 512 threads,
// four CTAs an SM, 1041 at 1024 threads, one CTA: 50 registers, and the
// pair's 1067).
constexpr int64_t kFusedThreads = 1024, kFusedCtasPerSm = 2;
} // namespace

std::optional<LoweringConfigAttr>
cuda::configureCrossEntropy(const CrossEntropyProblem &problem,
                            TargetAttr target, std::string &why) {
  if (computeCapability(target) < 80) {
    why = "Nova's row kernels need sm_80 or newer";
    return std::nullopt;
  }
  if (problem.rows < 1 || problem.classes < 1 ||
      problem.rows >= (int64_t(1) << 31) ||
      problem.classes >= (int64_t(1) << 31)) {
    why = "rows or classes out of the kernel's 32-bit range";
    return std::nullopt;
  }
  int64_t vector = 16 / problem.elementBytes;
  while (problem.classes % vector)
    vector /= 2;
  int64_t vectors = problem.classes / vector;
  StringRef precision = problem.elementBytes == 4 ? "f32"
                        : problem.f16             ? "f16"
                                                  : "bf16";
  MLIRContext *context = target.getContext();
  int64_t threads =
      std::clamp<int64_t>((vectors / kVectorsPerThread + 31) / 32 * 32, 32,
                          problem.fused ? kFusedThreads : kMaxThreadsPerRow);
  int64_t residentThreads = maxThreadsPerSm(target), minCtasPerSm = 0;
  if (problem.fused) {
    // The backward's pass reads the row again from L2: the rows of the CTAs
    // resident at once must stay within half of it (the other half takes
    // the gradient's lines on their way out). At full size the CTAs an SM
    // are held to two; smaller ones (short rows) may fill it.
    int64_t ctas = maxThreadsPerSm(target) / threads;
    if (threads == kFusedThreads)
      ctas = minCtasPerSm = std::min(ctas, kFusedCtasPerSm);
    residentThreads = ctas * threads;
    double rowBytes = double(problem.classes) * problem.elementBytes;
    int64_t rows = target.getSmCount() * ctas;
    if (rows * rowBytes > 0.5 * double(l2CacheBytes(target))) {
      why = "the rows of " + std::to_string(rows) +
            " resident CTAs exceed half the L2 (a fused row is read twice)";
      return std::nullopt;
    }
  }
  // Bytes an SM must have in flight: its bandwidth share times the latency.
  double bytesPerNs = double(target.getMemoryBandwidthGbps()) /
                      double(target.getSmCount());
  double inFlight = bytesPerNs * kDramLatencyNs;
  int64_t unroll = std::clamp<int64_t>(
      int64_t(std::ceil(inFlight /
                        (residentThreads * vector * problem.elementBytes))),
      1, kMaxUnroll);
  return LoweringConfigAttr::get(
      // One row per CTA, `vector` classes per load; no MMA.
      context, /*tile_sizes=*/{1, vector, 1}, /*warp_layout=*/{threads / 32, 1},
      /*mma_shape=*/{1, 1, 1}, /*pipeline_stages=*/unroll, /*swizzle=*/0,
      "cross_entropy_rows", precision, /*producer_warpgroups=*/0,
      /*cluster_m=*/1, /*cluster_n=*/1, /*split_k=*/1,
      /*persistent_ctas=*/0, /*raster_group=*/1, minCtasPerSm);
}
