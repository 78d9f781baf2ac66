// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 attention-head-groups=false" --convert-nova-to-iree-kernels | FileCheck %s

// A configured nova.attention becomes one dispatch of Nova's forward kernel:
// q, k, v read where they are; out ([B*H, T, D] here: nothing transposes
// it), lse and the per-CTA tensor-map scratch are untied results IREE
// allocates (the kernel writes them whole); then T, B*H, the scale's f32
// bits and H, and per operand (q, k, v, out) its offset, row stride and
// head stride: dense [B, H, T, D] rows of D = 64, heads T D = 12800 apart.
// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[T:.+]] = arith.constant 200 : i32
// CHECK-DAG: %[[BH:.+]] = arith.constant 8 : i32
// CHECK-DAG: %[[SCALE:.+]] = arith.constant 1040187392 : i32
// CHECK-DAG: %[[H:.+]] = arith.constant 4 : i32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[D:.+]] = arith.constant 64 : i32
// CHECK-DAG: %[[TD:.+]] = arith.constant 12800 : i32
// CHECK:     "flow.dispatch"(%c16, %arg0, %arg1, %arg2, %[[T]], %[[BH]], %[[SCALE]], %[[H]], %[[ZERO]], %[[D]], %[[TD]], %[[ZERO]], %[[D]], %[[TD]], %[[ZERO]], %[[D]], %[[TD]], %[[ZERO]], %[[D]], %[[TD]])
// CHECK-SAME:  entry_points = [@nova_attention_fwd_d64_128x128_s3_causal::@nova_attention_fwd_d64_128x128_s3_causal]
// CHECK-SAME:  tied_operands = [-1 : index, -1 : index, -1 : index]
// CHECK-SAME:  -> (tensor<8x200x64xbf16>, tensor<8x200xf32>, tensor<4096xi32>)
// CHECK:     tensor.expand_shape {{.*}} into tensor<2x4x200xf32>
// CHECK:     tensor.expand_shape {{.*}} into tensor<2x4x200x64xbf16>
func.func @forward(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>) -> (tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>) {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
  return %o, %lse : tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
}

// -----

// The model's layout: q, k and v are [B, T, H, D] views of the packed qkv
// projection [B, T, 3 H D] transposed to [B, H, T, D]. The kernel reads all
// three from qkv itself (offsets 0, H D = 256 and 512 in rows of 768, heads
// 64 apart) and writes out as [B, T, H, D], which is what the graph
// transposes it back to: no transposed copy is made.
// CHECK-LABEL: func.func @forward_packed
// CHECK-NOT: nova.transpose
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[ROW:.+]] = arith.constant 768 : i32
// CHECK-DAG: %[[D:.+]] = arith.constant 64 : i32
// CHECK-DAG: %[[HD:.+]] = arith.constant 256 : i32
// CHECK-DAG: %[[V:.+]] = arith.constant 512 : i32
// CHECK:     %[[R:.+]]:3 = "flow.dispatch"(%c16, %arg0, %arg0, %arg0, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[ZERO]], %[[ROW]], %[[D]], %[[HD]], %[[ROW]], %[[D]], %[[V]], %[[ROW]], %[[D]], %[[ZERO]], %[[HD]], %[[D]])
// CHECK-SAME:  -> (tensor<2x200x4x64xbf16>, tensor<8x200xf32>, tensor<4096xi32>)
// CHECK:     nova.reshape %[[R]]#0 : tensor<2x200x4x64xbf16> -> tensor<2x200x256xbf16>
// CHECK-NOT: nova.transpose
func.func @forward_packed(%qkv: tensor<2x200x768xbf16>) -> tensor<2x200x256xbf16> {
  %q0 = nova.slice %qkv[0:2:1, 0:200:1, 0:256:1] : tensor<2x200x768xbf16> -> tensor<2x200x256xbf16>
  %k0 = nova.slice %qkv[0:2:1, 0:200:1, 256:512:1] : tensor<2x200x768xbf16> -> tensor<2x200x256xbf16>
  %v0 = nova.slice %qkv[0:2:1, 0:200:1, 512:768:1] : tensor<2x200x768xbf16> -> tensor<2x200x256xbf16>
  %q1 = nova.reshape %q0 : tensor<2x200x256xbf16> -> tensor<2x200x4x64xbf16>
  %k1 = nova.reshape %k0 : tensor<2x200x256xbf16> -> tensor<2x200x4x64xbf16>
  %v1 = nova.reshape %v0 : tensor<2x200x256xbf16> -> tensor<2x200x4x64xbf16>
  %q = nova.transpose %q1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %k = nova.transpose %k1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %v = nova.transpose %v1 permutation = [0, 2, 1, 3] : tensor<2x200x4x64xbf16> -> tensor<2x4x200x64xbf16>
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
  %y = nova.transpose %o permutation = [0, 2, 1, 3] : tensor<2x4x200x64xbf16> -> tensor<2x200x4x64xbf16>
  %r = nova.reshape %y : tensor<2x200x4x64xbf16> -> tensor<2x200x256xbf16>
  return %r : tensor<2x200x256xbf16>
}

// -----

// The backward: Delta = rowsum(dO * O) in f32 first (Nova's row-dot kernel:
// 1600 rows of 8 threads in 50 blocks; dO and O head-major: element (b, h,
// t) at b 51200 + h 12800 + t 64), dQ accumulated into a zero-filled f32
// buffer by the kernel (TMA reduce-adds) and rounded to bf16 after; dK and dV
// written by the kernel in bf16.
// CHECK-LABEL: func.func @backward
// CHECK:     %[[DELTA:.+]] = "flow.dispatch"(%c50, %arg0, %arg4, %c1600_i32, %c200_i32, %c4_i32, %c0_i32, %c64_i32, %c12800_i32, %c51200_i32, %c0_i32, %c64_i32, %c12800_i32, %c51200_i32)
// CHECK-SAME:  entry_points = [@nova_attention_delta_d64::@nova_attention_delta_d64]
// CHECK-SAME:  -> tensor<8x200xf32>
// CHECK:     %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<8x200x64xf32>
// CHECK:     %[[D:.+]]:4 = "flow.dispatch"(%c16, %arg1, %arg2, %arg3, %arg0, %{{[^,]+}}, %[[DELTA]], %[[ZERO]], %{{[^,]+}},
// CHECK-SAME:  entry_points = [@nova_attention_bwd_d64_128x64_s3_causal::@nova_attention_bwd_d64_128x64_s3_causal]
// CHECK-SAME:  tied_operands = [6 : index, -1 : index, -1 : index, -1 : index]
// CHECK:     linalg.generic {{.*}} ins(%[[D]]#0 : tensor<8x200x64xf32>)
// CHECK:       arith.truncf {{.*}} : f32 to bf16
func.func @backward(%do: tensor<2x4x200x64xbf16>, %q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>, %o: tensor<2x4x200x64xbf16>, %lse: tensor<2x4x200xf32>) -> (tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>) {
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200xf32> -> tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
  return %dq, %dk, %dv : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
}

// -----

// The model's backward: dO is the transpose of the out projection's input
// gradient [B T, H D]; q, k, v and out are read in place as in the forward.
// dK and dV are written straight into the qkv gradient the graph
// concatenates them into (the "_kv" kernel: one binding, at offsets 256 and
// 512 of rows of 768), and dQ's f32 accumulator ([B, T, H, D]) is rounded
// into its columns in place by Nova's strided-cast kernel: no concat, no
// copy.
// CHECK-LABEL: func.func @backward_packed
// CHECK-NOT: nova.transpose
// Delta reads dO and O where they lie: rows of 256, element (b, h, t) at
// b 51200 + h 64 + t 256.
// CHECK:     "flow.dispatch"(%c50, %arg2, %arg1, %c1600_i32, %c200_i32, %c4_i32, %c0_i32, %c256_i32, %c64_i32, %c51200_i32, %c0_i32, %c256_i32, %c64_i32, %c51200_i32)
// CHECK-SAME:  entry_points = [@nova_attention_delta_d64::@nova_attention_delta_d64]
// CHECK:     %[[ACC:.+]] = linalg.fill {{.*}} -> tensor<2x200x4x64xf32>
// CHECK:     %[[R:.+]]:3 = "flow.dispatch"(%c16, %arg0, %arg0, %arg0, %arg2, %{{[^,]+}}, %{{[^,]+}}, %[[ACC]],
// CHECK-SAME:  entry_points = [@nova_attention_bwd_d64_128x64_s3_causal_kv::@nova_attention_bwd_d64_128x64_s3_causal_kv]
// CHECK-SAME:  tied_operands = [6 : index, -1 : index, -1 : index]
// CHECK-SAME:  -> (tensor<2x200x4x64xf32>, tensor<2x200x768xbf16>, tensor<4096xi32>)
// CHECK:     %[[GRAD:.+]] = "flow.dispatch"(%{{[^,]+}}, %[[R]]#0, %[[R]]#1, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,)]+}})
// CHECK-SAME:  entry_points = [@nova_strided_cast_f32_bf16::@nova_strided_cast_f32_bf16]
// CHECK-SAME:  tied_operands = [1 : index]
// CHECK-NOT: nova.concat
// CHECK:     return %[[GRAD]]
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

// -----

// f32 attention under the default "highest" f32 matmul precision (f32
// accuracy) has no Nova kernel: it is left unconfigured, for the
// decomposition (TF32: nova-to-iree-attention-tf32.mlir).
// CHECK-LABEL: func.func @f32_stays
// CHECK-NOT: flow.dispatch
// CHECK:     nova.attention
func.func @f32_stays(%q: tensor<2x4x64x64xf32>, %k: tensor<2x4x64x64xf32>, %v: tensor<2x4x64x64xf32>) -> tensor<2x4x64x64xf32> {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x4x64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x64x64xf32> -> tensor<2x4x64x64xf32>, tensor<2x4x64xf32>
  return %o : tensor<2x4x64x64xf32>
}

// -----

// One stage would deadlock the kernel (it holds two blocks' stages at once):
// a config pinned to one is not taken, and the op stays for the decomposed
// lowering.
// CHECK-LABEL: func.func @one_stage_is_not_a_kernel
// CHECK-NOT:     nova_attention_fwd
// CHECK:         nova.attention
func.func @one_stage_is_not_a_kernel(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>) -> (tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>) {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64, lowering_config = #nova.lowering_config<tile_sizes = [128, 128, 64], warp_layout = [2, 1], mma_shape = [64, 128, 16], pipeline_stages = 1, swizzle = 128, kernel = "flash_wgmma", precision = "bf16", producer_warpgroups = 1, persistent_ctas = 16>} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
  return %o, %lse : tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
}
