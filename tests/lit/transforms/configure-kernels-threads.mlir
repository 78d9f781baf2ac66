// RUN: nova-opt %s --split-input-file --nova-configure-kernels | FileCheck %s

// Row kernels count the threads an SM holds: 2048 on sm_90 (and sm_80),
// 1536 on sm_86 and sm_89. A 48x512 f32 region without row reductions has
// 4 chunks a row; its 4-warp CTAs take 24 registers a lane, so one SM holds
// 16 of them (sm_90) or 12 (sm_86). Split into 4 segments, 48 CTAs run in
// 3 rounds of 1 chunk on sm_90 (against 1 round of 4 chunks unsplit); on
// sm_86 they would take 4 rounds, no better than 1 of 4: unsplit.
// CHECK-LABEL: func.func @gelu_like
// CHECK:         tile_sizes = [1, 4, 4]
module attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 1, shared_memory_per_sm = 102400, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 8, 16>], peak_tflops = {bf16 = 25 : i64}, memory_bandwidth_gbps = 300>} {
  func.func @gelu_like(%x: tensor<48x512xf32>) -> tensor<48x512xf32> {
    %r = nova.fused(%x) : (tensor<48x512xf32>) -> tensor<48x512xf32> {
    ^bb0(%a: tensor<48x512xf32>):
      %t = nova.tanh %a : tensor<48x512xf32>
      %y = nova.mul %t, %a : tensor<48x512xf32>
      nova.yield %y : tensor<48x512xf32>
    }
    return %r : tensor<48x512xf32>
  }
}

// -----

// CHECK-LABEL: func.func @gelu_like
// CHECK:         tile_sizes = [1, 4, 1]
module attributes {nova.target = #nova.target<arch = "sm_86", sm_count = 1, shared_memory_per_sm = 102400, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 8, 16>], peak_tflops = {bf16 = 25 : i64}, memory_bandwidth_gbps = 300>} {
  func.func @gelu_like(%x: tensor<48x512xf32>) -> tensor<48x512xf32> {
    %r = nova.fused(%x) : (tensor<48x512xf32>) -> tensor<48x512xf32> {
    ^bb0(%a: tensor<48x512xf32>):
      %t = nova.tanh %a : tensor<48x512xf32>
      %y = nova.mul %t, %a : tensor<48x512xf32>
      nova.yield %y : tensor<48x512xf32>
    }
    return %r : tensor<48x512xf32>
  }
}

// -----

// The cross-entropy kernel unrolls its loads until an SM has its share of
// bandwidth x latency in flight: 560 GB/s over 28 SMs x 1.5 us = 30000
// bytes, one 16-byte load a thread on 2048 threads (32768 bytes), two on
// 1536 (24576 bytes a round).
// CHECK-LABEL: func.func @cross_entropy
// CHECK:         pipeline_stages = 1, swizzle = 0, kernel = "cross_entropy_rows"
module attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 28, shared_memory_per_sm = 102400, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 8, 16>], peak_tflops = {bf16 = 25 : i64}, memory_bandwidth_gbps = 560>} {
  func.func @cross_entropy(%x: tensor<64x32000xbf16>, %t: tensor<64xi64>) -> (tensor<64xf32>, tensor<64xf32>) {
    %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64> -> tensor<64xf32>, tensor<64xf32>
    return %loss, %lse : tensor<64xf32>, tensor<64xf32>
  }
}

// -----

// CHECK-LABEL: func.func @cross_entropy
// CHECK:         pipeline_stages = 2, swizzle = 0, kernel = "cross_entropy_rows"
module attributes {nova.target = #nova.target<arch = "sm_86", sm_count = 28, shared_memory_per_sm = 102400, registers_per_sm = 65536, mma_shapes = [array<i64: 16, 8, 16>], peak_tflops = {bf16 = 25 : i64}, memory_bandwidth_gbps = 560>} {
  func.func @cross_entropy(%x: tensor<64x32000xbf16>, %t: tensor<64xi64>) -> (tensor<64xf32>, tensor<64xf32>) {
    %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64> -> tensor<64xf32>, tensor<64xf32>
    return %loss, %lse : tensor<64xf32>, tensor<64xf32>
  }
}
