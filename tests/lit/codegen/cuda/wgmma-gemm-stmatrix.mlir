// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels=gemm-stmatrix=true | %python %lit_tools/print-executable-objects.py | FileCheck %s

// With gemm-stmatrix (NOVA_GEMM_STMATRIX=1), bf16 C is staged for its TMA
// stores with stmatrix: a warp's x4 stores its four 8x8 matrices of two
// column groups (rows 0-7 and 8-15 of each) from four bf16x2 registers, in
// place of four 4-byte stores, each lane giving one 16-byte matrix row of the
// 128B-swizzled box.

// The forward (ping-pong 128x128: a consumer holds two m64 subtiles of two
// [64 x 64] boxes; four x4 a box).
// CHECK-LABEL: .visible .entry nova_gemm_bf16_bf16_128x128x64_s6_c2_g8_k1_tma_sm_pp(
// CHECK-NOT:   st.shared.b32
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-NEXT:  fence.proxy.async.shared::cta;
// CHECK:       cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CHECK-COUNT-12: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT:   stmatrix
// CHECK-NOT:   st.shared.b32
// CHECK:       ret;
func.func @forward(%x: tensor<16384x768xbf16>, %w: tensor<3072x768xbf16>) -> tensor<16384x3072xbf16> {
  %0 = nova.matmul %x, %w {transpose_rhs} : tensor<16384x768xbf16>, tensor<3072x768xbf16> -> tensor<16384x3072xbf16>
  return %0 : tensor<16384x3072xbf16>
}

// -----

// Split-K partial sums are f32: their pairs are stored as before.
// CHECK-LABEL: .visible .entry nova_gemm_bf16_mn_partial_
// CHECK-NOT:   stmatrix
// CHECK:       st.shared.v2.b32
// CHECK-NOT:   stmatrix
// CHECK:       ret;
func.func @weight_gradient(%x: tensor<16384x768xbf16>, %dy: tensor<16384x768xbf16>) -> tensor<768x768xf32> {
  %0 = nova.matmul %x, %dy {transpose_lhs} : tensor<16384x768xbf16>, tensor<16384x768xbf16> -> tensor<768x768xf32>
  return %0 : tensor<768x768xf32>
}

// -----

// A fused epilogue's bf16 results too; its column sums still come from the
// fragments' registers (butterfly shuffles), one group at a time.
// CHECK-LABEL: .visible .entry nova_gemm_bf16_kn_bf16_{{[0-9]+}}x{{[0-9]+}}x64_s{{[0-9]+}}_c{{[12]}}_g{{[0-9]+}}_k1_tma_sm_e0x
// CHECK:       shfl.sync.bfly.b32
// CHECK:       stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT:   st.shared.b32
// CHECK:       ret;
func.func @gelu_backward(%dy: tensor<2048x256xbf16>, %w: tensor<256x512xbf16>, %b: tensor<512xbf16>, %h: tensor<2048x512xbf16>) -> (tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>) {
  %r:3 = nova.fused(%dy, %w, %b, %h) : (tensor<2048x256xbf16>, tensor<256x512xbf16>, tensor<512xbf16>, tensor<2048x512xbf16>) -> (tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>) {
  ^bb0(%lhs: tensor<2048x256xbf16>, %rhs: tensor<256x512xbf16>, %bias: tensor<512xbf16>, %x: tensor<2048x512xbf16>):
    %d = nova.matmul %lhs, %rhs : tensor<2048x256xbf16>, tensor<256x512xbf16> -> tensor<2048x512xbf16>
    %half = nova.constant dense<5.000000e-01> : tensor<2048x512xf32>
    %one = nova.constant dense<1.000000e+00> : tensor<2048x512xf32>
    %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<512xbf16> -> tensor<2048x512xbf16>
    %pre = nova.add %x, %bb : tensor<2048x512xbf16>
    %p32 = nova.cast %pre : tensor<2048x512xbf16> -> tensor<2048x512xf32>
    %t = nova.tanh %p32 : tensor<2048x512xf32>
    %t1 = nova.add %t, %one : tensor<2048x512xf32>
    %dg = nova.mul %t1, %half : tensor<2048x512xf32>
    %d32 = nova.cast %d : tensor<2048x512xbf16> -> tensor<2048x512xf32>
    %dx = nova.mul %d32, %dg : tensor<2048x512xf32>
    %out = nova.cast %dx : tensor<2048x512xf32> -> tensor<2048x512xbf16>
    %groups = nova.reshape %dx : tensor<2048x512xf32> -> tensor<128x16x512xf32>
    %sums = nova.reduce_sum %groups dims = [1] : tensor<128x16x512xf32> -> tensor<128x512xf32>
    %y = nova.mul %p32, %dg : tensor<2048x512xf32>
    %yb = nova.cast %y : tensor<2048x512xf32> -> tensor<2048x512xbf16>
    nova.yield %out, %sums, %yb : tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>
  }
  return %r#0, %r#1, %r#2 : tensor<2048x512xbf16>, tensor<128x512xf32>, tensor<2048x512xbf16>
}
