// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 f32-matmul-precision=high attention-head-groups=false" --convert-nova-to-iree-kernels | FileCheck %s

// f32 attention in the models' packed layout under TF32 precision. q, k and
// v are read where they lie in qkv (rounded to TF32 by linalg first, once
// for both ops: nothing rounded them where they were made; dO was); the K-major copies TF32 wgmma
// needs come from Nova's transpose kernel reading the strided heads (H = 4,
// offsets 512 / 256 / 0 in rows of 768, head stride 64) into [B*H, D, T]
// (T = 200 rows: already 16-byte multiples): V^T for the forward, K^T, Q^T,
// dO^T for the backward. Delta by the f32 row-dot kernel; dK, dV and dQ
// all go into the packed gradient (zero-filled: dQ accumulates there by TMA
// reduce-adds), nothing is copied after.
// CHECK-LABEL: func.func @packed_tf32
// CHECK:         %[[RDO:.+]] = nova.round_tf32 %arg1
// CHECK:         %[[RQKV:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x200x768xf32>)
// CHECK:         %[[VT:.+]] = "flow.dispatch"(%c32, %arg0, %c200_i32, %c64_i32, %c1_i32, %c4_i32, %c4_i32, %c512_i32, %c768_i32, %c64_i32, %c200_i32) <{entry_points = [@nova_transpose_f32_tf32::@nova_transpose_f32_tf32]{{.*}} -> tensor<8x64x200xf32>
// CHECK:         "flow.dispatch"(%c16, %[[RQKV]], %[[RQKV]], %[[VT]], {{.*}}, %c0_i32, %c200_i32{{.*}}, %c12800_i32, {{.*}}) <{entry_points = [@nova_attention_fwd_d64_128x64_s3_causal_tf32::
// CHECK-SAME:    -> (tensor<2x200x4x64xf32>, tensor<8x200xf32>, tensor<4096xi32>)
// CHECK-NOT:     linalg.generic {{.*}} ins(%arg0
// CHECK:         %[[KT:.+]] = "flow.dispatch"({{.*}}, %[[RQKV]], {{.*}}) <{entry_points = [@nova_transpose_f32_tf32::
// CHECK:         %[[QT:.+]] = "flow.dispatch"({{.*}}, %[[RQKV]], {{.*}}) <{entry_points = [@nova_transpose_f32_tf32::
// CHECK:         %[[DOT:.+]] = "flow.dispatch"({{.*}}, %[[RDO]], {{.*}}) <{entry_points = [@nova_transpose_f32_tf32::
// CHECK:         %[[DELTA:.+]] = "flow.dispatch"({{.*}}, %[[RDO]], {{.*}}) <{entry_points = [@nova_attention_delta_d64_f32::
// CHECK:         %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<2x200x768xf32>
// CHECK:         %[[BWD:.+]]:2 = "flow.dispatch"(%{{.+}}, %[[RQKV]], %[[RQKV]], %[[RQKV]], %[[RDO]], %[[KT]], %[[QT]], %[[DOT]], %{{.+}}, %[[DELTA]], %[[ZERO]], {{.*}}) <{entry_points = [@nova_attention_bwd_d64_128x32_s2_causal_qkv_tf32::
// CHECK-SAME:    tied_operands = [9 : index, -1 : index]
// CHECK-SAME:    -> (tensor<2x200x768xf32>, tensor<4096xi32>)
// CHECK-NEXT:    return %{{.+}}, %[[BWD]]#0
func.func @packed_tf32(%qkv: tensor<2x200x768xf32>, %g: tensor<400x256xf32>) -> (tensor<2x200x256xf32>, tensor<2x200x768xf32>) {
  %q0 = nova.slice %qkv[0:2:1, 0:200:1, 0:256:1] : tensor<2x200x768xf32> -> tensor<2x200x256xf32>
  %q1 = nova.reshape %q0 : tensor<2x200x256xf32> -> tensor<2x200x4x64xf32>
  %q = nova.transpose %q1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xf32> -> tensor<2x4x200x64xf32>
  %k0 = nova.slice %qkv[0:2:1, 0:200:1, 256:512:1] : tensor<2x200x768xf32> -> tensor<2x200x256xf32>
  %k1 = nova.reshape %k0 : tensor<2x200x256xf32> -> tensor<2x200x4x64xf32>
  %k = nova.transpose %k1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xf32> -> tensor<2x4x200x64xf32>
  %v0 = nova.slice %qkv[0:2:1, 0:200:1, 512:768:1] : tensor<2x200x768xf32> -> tensor<2x200x256xf32>
  %v1 = nova.reshape %v0 : tensor<2x200x256xf32> -> tensor<2x200x4x64xf32>
  %v = nova.transpose %v1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xf32> -> tensor<2x4x200x64xf32>
  %r = nova.round_tf32 %g : tensor<400x256xf32>
  %do1 = nova.reshape %r : tensor<400x256xf32> -> tensor<2x200x4x64xf32>
  %do = nova.transpose %do1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xf32> -> tensor<2x4x200x64xf32>
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32> -> tensor<2x4x200x64xf32>, tensor<2x4x200xf32>
  %y1 = nova.transpose %o permutation = [0, 2, 1, 3] : tensor<2x4x200x64xf32> -> tensor<2x200x4x64xf32>
  %y = nova.reshape %y1 : tensor<2x200x4x64xf32> -> tensor<2x200x256xf32>
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200xf32> -> tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>
  %dq1 = nova.transpose %dq permutation = [0, 2, 1, 3] : tensor<2x4x200x64xf32> -> tensor<2x200x4x64xf32>
  %dk1 = nova.transpose %dk permutation = [0, 2, 1, 3] : tensor<2x4x200x64xf32> -> tensor<2x200x4x64xf32>
  %dv1 = nova.transpose %dv permutation = [0, 2, 1, 3] : tensor<2x4x200x64xf32> -> tensor<2x200x4x64xf32>
  %dq2 = nova.reshape %dq1 : tensor<2x200x4x64xf32> -> tensor<2x200x256xf32>
  %dk2 = nova.reshape %dk1 : tensor<2x200x4x64xf32> -> tensor<2x200x256xf32>
  %dv2 = nova.reshape %dv1 : tensor<2x200x4x64xf32> -> tensor<2x200x256xf32>
  %dqkv = nova.concat %dq2, %dk2, %dv2 dim = 2 : (tensor<2x200x256xf32>, tensor<2x200x256xf32>, tensor<2x200x256xf32>) -> tensor<2x200x768xf32>
  return %y, %dqkv : tensor<2x200x256xf32>, tensor<2x200x768xf32>
}
