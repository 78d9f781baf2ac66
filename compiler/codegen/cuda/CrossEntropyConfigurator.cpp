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
  int64_t threads = std::clamp<int64_t>(
      (vectors / kVectorsPerThread + 31) / 32 * 32, 32, kMaxThreadsPerRow);
  // Bytes an SM must have in flight: its bandwidth share times the latency.
  double bytesPerNs = double(target.getMemoryBandwidthGbps()) /
                      double(target.getSmCount());
  double inFlight = bytesPerNs * kDramLatencyNs;
  int64_t unroll = std::clamp<int64_t>(
      int64_t(std::ceil(inFlight / (maxThreadsPerSm(target) * vector *
                                    problem.elementBytes))),
      1, kMaxUnroll);
  StringRef precision = problem.elementBytes == 4 ? "f32"
                        : problem.f16             ? "f16"
                                                  : "bf16";
  MLIRContext *context = target.getContext();
  return LoweringConfigAttr::get(
      // One row per CTA, `vector` classes per load; no MMA.
      context, /*tile_sizes=*/{1, vector, 1}, /*warp_layout=*/{threads / 32, 1},
      /*mma_shape=*/{1, 1, 1}, /*pipeline_stages=*/unroll, /*swizzle=*/0,
      "cross_entropy_rows", precision, /*producer_warpgroups=*/0,
      /*cluster_m=*/1, /*cluster_n=*/1, /*split_k=*/1,
      /*persistent_ctas=*/0, /*raster_group=*/1,
      /*min_ctas_per_sm=*/0);
}
