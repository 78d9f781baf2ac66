// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 attention-head-groups=false" --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s

// The attention backward of a packed qkv projection: dK and dV share one
// binding (9 pointers, not 10), and dQ is rounded into the qkv gradient by
// the strided-cast kernel: 16-byte f32 loads, bf16x2 conversions, 8-byte
// stores at row * stride + offset + column.

// CHECK-LABEL: .visible .entry nova_strided_cast_f32_bf16(
// CHECK-COUNT-2: .param .u64 .ptr .global
// CHECK-COUNT-4: .param .u32
// CHECK:     ld.global.nc.v4.b32
// CHECK:     cvt.rn.bf16x2.f32
// CHECK:     st.global.v2.b32

// CHECK-LABEL: .visible .entry nova_attention_bwd_d64_128x64_s3_causal_kv(
// CHECK-COUNT-9: .param .u64 .ptr .global
// CHECK-NOT:  .param .u64
// CHECK:      .param .u32
func.func @backward_packed(%qkv: tensor<2x200x768xbf16>, %y: tensor<400x256xbf16>, %g: tensor<400x256xbf16>, %lse: tensor<2x4x200xf32>) -> tensor<2x200x768xbf16> {
  %q0 = nova.slice %qkv[0:2:1, 0:200:1, 0:256:1] : tensor<2x200x768xbf16> -> tensor<2x200x256xbf16>
  %k0 = nova.slice %qkv[0:2:1, 0:200:1, 256:512:1] : tensor<2x200x768xbf16> -> tensor<2x200x256xbf16>
  %v0 = nova.slice %qkv[0:2:1, 0:200:1, 512:768:1] : tensor<2x200x768xbf16> -> tensor<2x200x256xbf16>
  %q1 = nova.reshape %q0 : tensor<2x200x256xbf16> -> tensor<2x200x4x64xbf16>
  %k1 = nova.reshape %k0 : tensor<2x200x256xbf16> -> tensor<2x200x4x64xbf16>
  %v1 = nova.reshape %v0 : tensor<2x200x256xbf16> -> tensor<2x200x4x64xbf16>
  %q = nova.transpose %q1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %k = nova.transpose %k1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %v = nova.transpose %v1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %o1 = nova.reshape %y : tensor<400x256xbf16> -> tensor<2x200x4x64xbf16>
  %o = nova.transpose %o1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %do1 = nova.reshape %g : tensor<400x256xbf16> -> tensor<2x200x4x64xbf16>
  %do = nova.transpose %do1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200xf32> -> tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
  %dq1 = nova.transpose %dq permutation = [0, 2, 1, 3] : tensor<2x4x200x64xbf16> -> tensor<2x200x4x64xbf16>
  %dk1 = nova.transpose %dk permutation = [0, 2, 1, 3] : tensor<2x4x200x64xbf16> -> tensor<2x200x4x64xbf16>
  %dv1 = nova.transpose %dv permutation = [0, 2, 1, 3] : tensor<2x4x200x64xbf16> -> tensor<2x200x4x64xbf16>
  %dq2 = nova.reshape %dq1 : tensor<2x200x4x64xbf16> -> tensor<2x200x256xbf16>
  %dk2 = nova.reshape %dk1 : tensor<2x200x4x64xbf16> -> tensor<2x200x256xbf16>
  %dv2 = nova.reshape %dv1 : tensor<2x200x4x64xbf16> -> tensor<2x200x256xbf16>
  %dqkv = nova.concat %dq2, %dk2, %dv2 dim = 2 : (tensor<2x200x256xbf16>, tensor<2x200x256xbf16>, tensor<2x200x256xbf16>) -> tensor<2x200x768xbf16>
  return %dqkv : tensor<2x200x768xbf16>
}
