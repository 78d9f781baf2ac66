// RUN: nova-opt %s --nova-configure-kernels | FileCheck %s

// The module's own target (a GPU described from its properties) is used as
// is: with 8 SMs the forward GEMM takes ping-pong 128x128 tiles in bands of
// 2 tile rows, while the weight gradient's 24 tiles fill 8 SMs without a
// split.
// CHECK: module attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 8,
module attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 8, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [array<i64: 64, 256, 16>], peak_tflops = {bf16 = 60 : i64}, memory_bandwidth_gbps = 300>} {
  // CHECK-LABEL: func.func @forward
  // CHECK: tile_sizes = [128, 128, 64]{{.*}}kernel = "wgmma_tma_pingpong"{{.*}}persistent_ctas = 8, raster_group = 2>
  func.func @forward(%x: tensor<16384x768xbf16>, %w: tensor<768x3072xbf16>) -> tensor<16384x3072xf32> {
    %0 = nova.matmul %x, %w : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xf32>
    return %0 : tensor<16384x3072xf32>
  }
  // CHECK-LABEL: func.func @weight_gradient
  // CHECK-NOT: split_k
  // CHECK: return
  func.func @weight_gradient(%x: tensor<16384x768xbf16>, %g: tensor<16384x768xbf16>) -> tensor<768x768xf32> {
    %0 = nova.matmul %x, %g {transpose_lhs} : tensor<16384x768xbf16>, tensor<16384x768xbf16> -> tensor<768x768xf32>
    return %0 : tensor<768x768xf32>
  }
}
