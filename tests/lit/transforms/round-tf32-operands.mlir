// RUN: nova-opt %s --split-input-file --nova-round-tf32-operands="target=sm_90 f32-matmul-precision=high" | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-round-tf32-operands="target=sm_90 f32-matmul-precision=highest" | FileCheck %s --check-prefix=EXACT
// RUN: nova-opt %s --split-input-file --nova-round-tf32-operands="target=sm_80 f32-matmul-precision=high" | FileCheck %s --check-prefix=EXACT

// A Linear's three GEMMs (x W^T, dy W, dy^T x): x, W and dy are each read
// as they lie (K-contiguous) by one of them, so each is rounded once, right
// after it is made, and all three GEMMs read the rounded values.
// CHECK-LABEL: func.func @linear
// CHECK-NEXT:    %[[RDY:.+]] = nova.round_tf32 %arg2 : tensor<128x64xf32>
// CHECK-NEXT:    %[[RW:.+]] = nova.round_tf32 %arg1 : tensor<64x32xf32>
// CHECK-NEXT:    %[[X:.+]] = nova.add %arg0, %arg0
// CHECK-NEXT:    %[[RX:.+]] = nova.round_tf32 %[[X]] : tensor<128x32xf32>
// CHECK-NEXT:    nova.matmul %[[RX]], %[[RW]] {transpose_rhs}
// CHECK-NEXT:    nova.matmul %[[RDY]], %[[RW]] :
// CHECK-NEXT:    nova.matmul %[[RDY]], %[[RX]] {transpose_lhs}
// EXACT-LABEL: func.func @linear
// EXACT-NOT:     nova.round_tf32
func.func @linear(%x0: tensor<128x32xf32>, %w: tensor<64x32xf32>, %dy: tensor<128x64xf32>)
    -> (tensor<128x64xf32>, tensor<128x32xf32>, tensor<64x32xf32>) {
  %x = nova.add %x0, %x0 : tensor<128x32xf32>
  %y = nova.matmul %x, %w {transpose_rhs} : tensor<128x32xf32>, tensor<64x32xf32> -> tensor<128x64xf32>
  %dx = nova.matmul %dy, %w : tensor<128x64xf32>, tensor<64x32xf32> -> tensor<128x32xf32>
  %dw = nova.matmul %dy, %x {transpose_lhs} : tensor<128x64xf32>, tensor<128x32xf32> -> tensor<64x32xf32>
  return %y, %dx, %dw : tensor<128x64xf32>, tensor<128x32xf32>, tensor<64x32xf32>
}

// -----

// bf16 matmuls and already rounded operands are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    nova.matmul %arg0, %arg1 :
// CHECK-NEXT:    %[[R:.+]] = nova.round_tf32 %arg2
// CHECK-NEXT:    nova.matmul %[[R]], %arg3 :
// CHECK-NOT:     nova.round_tf32
// EXACT-LABEL: func.func @untouched
func.func @untouched(%a: tensor<8x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<8x16xf32>, %d: tensor<16x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = nova.matmul %a, %b : tensor<8x16xbf16>, tensor<16x8xbf16> -> tensor<8x8xf32>
  %r = nova.round_tf32 %c : tensor<8x16xf32>
  %1 = nova.matmul %r, %d : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A value only ever transposed for its GEMMs (a weight gradient's operands)
// is left to the transpose kernel.
// CHECK-LABEL: func.func @only_transposed
// CHECK-NEXT:    nova.matmul %arg0, %arg1 {transpose_lhs} :
// CHECK-NEXT:    return
func.func @only_transposed(%dy: tensor<128x64xf32>, %x: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %dw = nova.matmul %dy, %x {transpose_lhs} : tensor<128x64xf32>, tensor<128x32xf32> -> tensor<64x32xf32>
  return %dw : tensor<64x32xf32>
}

// -----

// f32 attention reads q, k and v where they lie in the packed qkv (views no
// one else reads): qkv is rounded once, after the bias add that makes it,
// and the views read it; dO likewise. A view something else also reads
// (%q1, returned) is not rounded through: q's rounding sits on it instead.
// CHECK-LABEL: func.func @attention_views
// CHECK-NEXT:    %[[RDO:.+]] = nova.round_tf32 %arg1 : tensor<128x128xf32>
// CHECK-NEXT:    %[[QKV:.+]] = nova.add %arg0, %arg0
// CHECK-NEXT:    %[[RQKV:.+]] = nova.round_tf32 %[[QKV]] : tensor<2x64x384xf32>
// CHECK-NEXT:    %[[Q0:.+]] = nova.slice %[[QKV]][0:2:1, 0:64:1, 0:128:1]
// CHECK-NEXT:    %[[Q1:.+]] = nova.reshape %[[Q0]]
// CHECK-NEXT:    %[[RQ1:.+]] = nova.round_tf32 %[[Q1]]
// CHECK-NEXT:    nova.transpose %[[RQ1]]
// CHECK-NEXT:    nova.slice %[[RQKV]][0:2:1, 0:64:1, 128:256:1]
// CHECK:         nova.slice %[[RQKV]][0:2:1, 0:64:1, 256:384:1]
// CHECK:         nova.reshape %[[RDO]]
// CHECK:         nova.attention_backward
// EXACT-LABEL: func.func @attention_views
// EXACT-NOT:     nova.round_tf32
func.func @attention_views(%x: tensor<2x64x384xf32>, %g: tensor<128x128xf32>)
    -> (tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x64x2x64xf32>) {
  %qkv = nova.add %x, %x : tensor<2x64x384xf32>
  %q0 = nova.slice %qkv[0:2:1, 0:64:1, 0:128:1] : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
  %q1 = nova.reshape %q0 : tensor<2x64x128xf32> -> tensor<2x64x2x64xf32>
  %q = nova.transpose %q1 permutation = [0, 2, 1, 3] : tensor<2x64x2x64xf32> -> tensor<2x2x64x64xf32>
  %k0 = nova.slice %qkv[0:2:1, 0:64:1, 128:256:1] : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
  %k1 = nova.reshape %k0 : tensor<2x64x128xf32> -> tensor<2x64x2x64xf32>
  %k = nova.transpose %k1 permutation = [0, 2, 1, 3] : tensor<2x64x2x64xf32> -> tensor<2x2x64x64xf32>
  %v0 = nova.slice %qkv[0:2:1, 0:64:1, 256:384:1] : tensor<2x64x384xf32> -> tensor<2x64x128xf32>
  %v1 = nova.reshape %v0 : tensor<2x64x128xf32> -> tensor<2x64x2x64xf32>
  %v = nova.transpose %v1 permutation = [0, 2, 1, 3] : tensor<2x64x2x64xf32> -> tensor<2x2x64x64xf32>
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32> -> tensor<2x2x64x64xf32>, tensor<2x2x64xf32>
  %do1 = nova.reshape %g : tensor<128x128xf32> -> tensor<2x64x2x64xf32>
  %do = nova.transpose %do1 permutation = [0, 2, 1, 3] : tensor<2x64x2x64xf32> -> tensor<2x2x64x64xf32>
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64xf32> -> tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>
  return %o, %dq, %q1 : tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x64x2x64xf32>
}
