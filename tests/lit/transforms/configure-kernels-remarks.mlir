// RUN: nova-opt %s --nova-configure-kernels="target=sm_90 remarks=true" -o /dev/null 2>&1 | FileCheck %s

// With remarks=true each matmul reports the model's numbers and, as notes,
// every candidate it weighed; or why it was left to IREE's code generation.
// (f32 results. A cooperative tile waits out every tile's epilogue; ping-pong
// hides all but the last one of a CTA under the other consumer's main loop.)
// CHECK: remark: 16384x3072x768 (batch 1, bf16): tiles 3072, waves 23.27, compute 87.3 us, memory 48.2 us, estimate 89.3 us (88% of peak)
// CHECK: note: candidate 64x64x64, 7 stages, split 1: tiles 12288, waves 93.09
// CHECK: note: candidate 128x128x64, 6 stages, split 1: tiles 3072, waves 23.27, compute 104.8 us
// CHECK: note: candidate 128x128x64 ping-pong, 6 stages, split 1: tiles 3072, waves 23.27, compute 87.3 us
// CHECK: note: candidate 128x256x64, 4 stages, split 1: tiles 1536, waves 11.64, compute 92.9 us
// CHECK: remark: not configured: dynamic shapes
// CHECK: remark: not configured: no tensor-core path for this element type
func.func @remarks(%x: tensor<16384x768xbf16>, %w: tensor<768x3072xbf16>, %d: tensor<?x64xbf16>,
                   %e: tensor<64x64xbf16>, %i: tensor<64x64xi8>) {
  %0 = nova.matmul %x, %w : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xf32>
  %1 = nova.matmul %d, %e : tensor<?x64xbf16>, tensor<64x64xbf16> -> tensor<?x64xf32>
  %2 = nova.matmul %i, %i : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  return
}
