// RUN: nova-opt %s | nova-opt | FileCheck %s
// RUN: nova-opt %s --mlir-print-op-generic | nova-opt | FileCheck %s

// #nova.target and #nova.lowering_config round-trip, written as documented
// in NovaAttrs.td.

// CHECK-LABEL: func.func @target
// CHECK-SAME: attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 8, 16>, array<i64: 64, 256, 16>], peak_tflops = {bf16 = 989 : i64, f32 = 67 : i64, tf32 = 494 : i64}, memory_bandwidth_gbps = 4800>}
func.func @target() attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472,
                                                       registers_per_sm = 65536,
                                                       mma_shapes = [array<i64: 16, 8, 16>, array<i64: 64, 256, 16>],
                                                       peak_tflops = {bf16 = 989 : i64, f32 = 67 : i64, tf32 = 494 : i64},
                                                       memory_bandwidth_gbps = 4800>} {
  return
}

// struct(params) accepts the parameters in any order and prints them in
// declaration order; empty lists and dictionaries are allowed.
// CHECK-LABEL: func.func @target_any_order
// CHECK-SAME: attributes {nova.target = #nova.target<arch = "sm_80", sm_count = 108, shared_memory_per_sm = 167936, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {}, memory_bandwidth_gbps = 2039>}
func.func @target_any_order() attributes {nova.target = #nova.target<memory_bandwidth_gbps = 2039, peak_tflops = {}, mma_shapes = [], registers_per_sm = 65536, shared_memory_per_sm = 167936, sm_count = 108, arch = "sm_80">} {
  return
}

// Every element type name peak_tflops knows.
// CHECK-LABEL: func.func @target_peak_names
// CHECK-SAME: peak_tflops = {bf16 = 312 : i64, f16 = 312 : i64, f32 = 19 : i64, f64 = 10 : i64, f8 = 624 : i64, tf32 = 156 : i64}
func.func @target_peak_names() attributes {nova.target = #nova.target<arch = "sm_80", sm_count = 108, shared_memory_per_sm = 167936, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 8, 16>], peak_tflops = {f64 = 10 : i64, f32 = 19 : i64, tf32 = 156 : i64, bf16 = 312 : i64, f16 = 312 : i64, f8 = 624 : i64}, memory_bandwidth_gbps = 2039>} {
  return
}

// On a module, around a matmul that carries a lowering config.
// CHECK: module attributes {nova.target = #nova.target<arch = "sm_90a"
module attributes {nova.target = #nova.target<arch = "sm_90a", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [array<i64: 64, 256, 16>], peak_tflops = {bf16 = 989 : i64}, memory_bandwidth_gbps = 3350>} {
  // CHECK-LABEL: func.func @lowering_config
  // CHECK-SAME: (%[[A:.*]]: tensor<256x64xbf16>, %[[B:.*]]: tensor<64x512xbf16>)
  func.func @lowering_config(%a: tensor<256x64xbf16>, %b: tensor<64x512xbf16>) -> tensor<256x512xf32> {
    // CHECK-NEXT: nova.matmul %[[A]], %[[B]] {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>} : tensor<256x64xbf16>, tensor<64x512xbf16> -> tensor<256x512xf32>
    %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1],
                                                                     mma_shape = [64, 256, 16], pipeline_stages = 4,
                                                                     swizzle = 128>} : tensor<256x64xbf16>, tensor<64x512xbf16> -> tensor<256x512xf32>
    return %0 : tensor<256x512xf32>
  }

  // Every legal swizzle, any parameter order.
  // CHECK-LABEL: func.func @lowering_config_swizzles
  // CHECK-SAME: attributes {configs = [#nova.lowering_config<tile_sizes = [16, 8, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 1, swizzle = 0>, #nova.lowering_config<tile_sizes = [32, 16, 32], warp_layout = [1, 2], mma_shape = [16, 8, 16], pipeline_stages = 2, swizzle = 32>, #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [2, 2], mma_shape = [16, 8, 16], pipeline_stages = 3, swizzle = 64>, #nova.lowering_config<tile_sizes = [128, 128, 64], warp_layout = [2, 1], mma_shape = [64, 128, 16], pipeline_stages = 5, swizzle = 128>]}
  func.func @lowering_config_swizzles() attributes {configs = [
      #nova.lowering_config<tile_sizes = [16, 8, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 1, swizzle = 0>,
      #nova.lowering_config<swizzle = 32, pipeline_stages = 2, mma_shape = [16, 8, 16], warp_layout = [1, 2], tile_sizes = [32, 16, 32]>,
      #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [2, 2], mma_shape = [16, 8, 16], pipeline_stages = 3, swizzle = 64>,
      #nova.lowering_config<tile_sizes = [128, 128, 64], warp_layout = [2, 1], mma_shape = [64, 128, 16], pipeline_stages = 5, swizzle = 128>]} {
    return
  }

  // The configurator's fields; those at their defaults are not printed.
  // CHECK-LABEL: func.func @lowering_config_schedule
  // CHECK-SAME: attributes {config = #nova.lowering_config<tile_sizes = [128, 192, 64], warp_layout = [2, 1], mma_shape = [64, 192, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1, cluster_m = 2, split_k = 5, persistent_ctas = 132, raster_group = 4>}
  func.func @lowering_config_schedule() attributes {config = #nova.lowering_config<tile_sizes = [128, 192, 64], warp_layout = [2, 1], mma_shape = [64, 192, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1, cluster_m = 2, cluster_n = 1, split_k = 5, persistent_ctas = 132, raster_group = 4>} {
    return
  }
}
