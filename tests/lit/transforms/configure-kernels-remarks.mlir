// RUN: nova-opt %s --nova-configure-kernels="target=sm_90 remarks=true" -o /dev/null 2>&1 | FileCheck %s

// With remarks=true each matmul reports the model's numbers and, as notes,
// every candidate it weighed; or why it was left to IREE's code generation.
// (f32 results: the 128x256 tile's 128 KiB C tile leaves 2 stages, which
// cannot hide the loads' latency.)
// CHECK: remark: 16384x3072x768 (batch 1, bf16): tiles 2048, waves 15.52, compute 94.9 us, memory 48.2 us, estimate 96.9 us (81% of peak)
// CHECK: note: candidate 64x64x64, 7 stages, split 1: tiles 12288, waves 93.09
// CHECK: note: candidate 128x192x64, 3 stages, split 1: tiles 2048, waves 15.52
// CHECK: note: candidate 128x256x64, 2 stages, split 1: tiles 1536, waves 11.64, compute 121.4 us
// CHECK: remark: not configured: dynamic shapes
// CHECK: remark: not configured: no tensor-core path for this element type
func.func @remarks(%x: tensor<16384x768xbf16>, %w: tensor<768x3072xbf16>, %d: tensor<?x64xbf16>,
                   %e: tensor<64x64xbf16>, %i: tensor<64x64xi8>) {
  %0 = nova.matmul %x, %w : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xf32>
  %1 = nova.matmul %d, %e : tensor<?x64xbf16>, tensor<64x64xbf16> -> tensor<?x64xf32>
  %2 = nova.matmul %i, %i : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  return
}
