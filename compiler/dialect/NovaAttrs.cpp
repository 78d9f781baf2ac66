//===- NovaAttrs.cpp - nova attributes ------------------------------------===//

#include "compiler/dialect/NovaAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nova;

#include "compiler/dialect/NovaEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/NovaAttrs.cpp.inc"

void NovaDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialect/NovaAttrs.cpp.inc"
      >();
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   StringRef arch, int64_t smCount, int64_t sharedMemoryPerSm,
                   int64_t registersPerSm, ArrayAttr mmaShapes,
                   DictionaryAttr peakTflops, int64_t memoryBandwidthGbps) {
  if (!arch.starts_with("sm_"))
    return emitError() << "arch must look like 'sm_90', got '" << arch << "'";
  if (smCount <= 0)
    return emitError() << "sm_count must be positive, got " << smCount;
  if (sharedMemoryPerSm <= 0)
    return emitError() << "shared_memory_per_sm must be positive, got "
                       << sharedMemoryPerSm;
  if (registersPerSm <= 0)
    return emitError() << "registers_per_sm must be positive, got "
                       << registersPerSm;
  if (memoryBandwidthGbps <= 0)
    return emitError() << "memory_bandwidth_gbps must be positive, got "
                       << memoryBandwidthGbps;
  for (auto [i, shape] : llvm::enumerate(mmaShapes)) {
    auto dims = dyn_cast<DenseI64ArrayAttr>(shape);
    if (!dims || dims.size() != 3)
      return emitError() << "mma_shapes[" << i
                         << "] must be array<i64: m, n, k>, got " << shape;
    if (llvm::any_of(dims.asArrayRef(), [](int64_t d) { return d <= 0; }))
      return emitError() << "mma_shapes[" << i << "] has a non-positive dim";
  }
  for (NamedAttribute entry : peakTflops) {
    StringRef name = entry.getName().getValue();
    bool known = llvm::StringSwitch<bool>(name)
                     .Cases({"f64", "f32", "tf32", "bf16", "f16", "f8"}, true)
                     .Default(false);
    if (!known)
      return emitError() << "peak_tflops has unknown element type '" << name
                         << "' (expected f64, f32, tf32, bf16, f16 or f8)";
    auto value = dyn_cast<IntegerAttr>(entry.getValue());
    if (!value || value.getInt() <= 0)
      return emitError() << "peak_tflops." << name
                         << " must be a positive integer, got "
                         << entry.getValue();
  }
  return success();
}

LogicalResult
LoweringConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<int64_t> tileSizes,
                           ArrayRef<int64_t> warpLayout,
                           ArrayRef<int64_t> mmaShape, int64_t pipelineStages,
                           int64_t swizzle, StringRef kernel,
                           StringRef precision, int64_t producerWarpgroups,
                           int64_t clusterM, int64_t clusterN, int64_t splitK,
                           int64_t persistentCtas, int64_t rasterGroup,
                           int64_t minCtasPerSm) {
  if (tileSizes.size() != 3)
    return emitError() << "tile_sizes must be [M, N, K], got "
                       << tileSizes.size() << " entries";
  if (warpLayout.size() != 2)
    return emitError() << "warp_layout must be [M, N], got "
                       << warpLayout.size() << " entries";
  if (mmaShape.size() != 3)
    return emitError() << "mma_shape must be [m, n, k], got "
                       << mmaShape.size() << " entries";
  static constexpr const char *kDimNames[] = {"M", "N", "K"};
  for (int i = 0; i < 3; ++i) {
    if (tileSizes[i] <= 0 || mmaShape[i] <= 0)
      return emitError() << "tile and mma sizes must be positive (dim "
                         << kDimNames[i] << ")";
    if (tileSizes[i] % mmaShape[i] != 0)
      return emitError() << "tile size " << tileSizes[i] << " in "
                         << kDimNames[i] << " is not a multiple of the mma "
                         << "shape's " << mmaShape[i];
  }
  if (warpLayout[0] <= 0 || warpLayout[1] <= 0)
    return emitError() << "warp_layout entries must be positive";
  if (pipelineStages < 1)
    return emitError() << "pipeline_stages must be at least 1, got "
                       << pipelineStages;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  if (!llvm::is_contained({StringRef(), StringRef("wgmma_tma"),
                           StringRef("wgmma_tma_pingpong"),
                           StringRef("wgmma_tma_stream_k"),
                           StringRef("mma_sync_cp_async"),
                           StringRef("flash_wgmma"),
                           StringRef("cross_entropy_rows"),
                           StringRef("fused_rows")},
                          kernel))
    return emitError() << "kernel must be \"wgmma_tma\", "
                       << "\"wgmma_tma_pingpong\", \"wgmma_tma_stream_k\", "
                       << "\"mma_sync_cp_async\", \"flash_wgmma\", "
                       << "\"cross_entropy_rows\" or \"fused_rows\", got \""
                       << kernel << "\"";
  // f32: a row kernel's element type (the matmul kernels compute in tf32).
  if (!llvm::is_contained({StringRef(), StringRef("bf16"), StringRef("f16"),
                           StringRef("tf32"), StringRef("tf32x3"),
                           StringRef("f32")},
                          precision))
    return emitError()
           << "precision must be bf16, f16, tf32, tf32x3 or f32, got \""
           << precision << "\"";
  if (producerWarpgroups < 0 || persistentCtas < 0 || minCtasPerSm < 0)
    return emitError() << "producer_warpgroups, persistent_ctas and "
                          "min_ctas_per_sm must be >= 0";
  if (clusterM < 1 || clusterN < 1 || splitK < 1 || rasterGroup < 1)
    return emitError()
           << "cluster_m, cluster_n, split_k and raster_group must be >= 1";
  if (kernel == "wgmma_tma_stream_k" && splitK != 1)
    return emitError() << "a wgmma_tma_stream_k GEMM splits K itself "
                          "(split_k = 1)";
  // Ping-pong: each tile is one warp group's whole (two take turns).
  if (kernel == "wgmma_tma_pingpong" &&
      (warpLayout[0] != 1 || warpLayout[1] != 1 || splitK != 1))
    return emitError() << "a wgmma_tma_pingpong tile is one warp group's "
                          "(warp_layout = [1, 1]) and one split";
  return success();
}
