// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | FileCheck %s

// A configured nova.attention becomes one dispatch of Nova's forward kernel
// over [B*H, T, D] views: q, k, v read, out, lse and the per-CTA tensor-map
// scratch written in place (tied), then T, B*H and the scale's f32 bits.
// CHECK-LABEL: func.func @forward
// CHECK:     %[[SCRATCH:.+]] = tensor.empty() : tensor<2560xi32>
// CHECK:     %[[Q:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2], [3]] : tensor<2x4x200x64xbf16> into tensor<8x200x64xbf16>
// CHECK:     %[[OUT:.+]] = tensor.empty() : tensor<8x200x64xbf16>
// CHECK:     %[[LSE:.+]] = tensor.empty() : tensor<8x200xf32>
// CHECK-DAG: %[[T:.+]] = arith.constant 200 : i32
// CHECK-DAG: %[[BH:.+]] = arith.constant 8 : i32
// CHECK-DAG: %[[SCALE:.+]] = arith.constant 1040187392 : i32
// CHECK:     "flow.dispatch"(%c16, %[[Q]], %{{.+}}, %{{.+}}, %[[OUT]], %[[LSE]], %[[SCRATCH]], %[[T]], %[[BH]], %[[SCALE]])
// CHECK-SAME:  entry_points = [@nova_attention_fwd_d64_128x128_s2_causal::@nova_attention_fwd_d64_128x128_s2_causal]
// CHECK-SAME:  tied_operands = [3 : index, 4 : index, 5 : index]
// CHECK:     tensor.expand_shape {{.*}} into tensor<2x4x200x64xbf16>
// CHECK:     tensor.expand_shape {{.*}} into tensor<2x4x200xf32>
func.func @forward(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>) -> (tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>) {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
  return %o, %lse : tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
}

// -----

// The backward: Delta = rowsum(dO * O) in f32 first, dQ accumulated into a
// zero-filled f32 buffer by the kernel (TMA reduce-adds) and rounded to bf16
// after; dK and dV written by the kernel in bf16.
// CHECK-LABEL: func.func @backward
// CHECK:     %[[DELTA:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:       arith.mulf
// CHECK:     } -> tensor<8x200xf32>
// CHECK:     %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<8x200x64xf32>
// CHECK:     %[[D:.+]]:4 = "flow.dispatch"(%c16, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[DELTA]], %[[ZERO]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,)]+}})
// CHECK-SAME:  entry_points = [@nova_attention_bwd_d64_128x64_s2_causal::@nova_attention_bwd_d64_128x64_s2_causal]
// CHECK-SAME:  tied_operands = [6 : index, 7 : index, 8 : index, 9 : index]
// CHECK:     linalg.generic {{.*}} ins(%[[D]]#0 : tensor<8x200x64xf32>)
// CHECK:       arith.truncf {{.*}} : f32 to bf16
func.func @backward(%do: tensor<2x4x200x64xbf16>, %q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>, %o: tensor<2x4x200x64xbf16>, %lse: tensor<2x4x200xf32>) -> (tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>) {
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200xf32> -> tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
  return %dq, %dk, %dv : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
}

// -----

// f32 attention has no Nova kernel (bf16 only): it is left unconfigured,
// for the decomposition.
// CHECK-LABEL: func.func @f32_stays
// CHECK-NOT: flow.dispatch
// CHECK:     nova.attention
func.func @f32_stays(%q: tensor<2x4x64x64xf32>, %k: tensor<2x4x64x64xf32>, %v: tensor<2x4x64x64xf32>) -> tensor<2x4x64x64xf32> {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x4x64x64xf32>, tensor<2x4x64x64xf32>, tensor<2x4x64x64xf32> -> tensor<2x4x64x64xf32>, tensor<2x4x64xf32>
  return %o : tensor<2x4x64x64xf32>
}
