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
