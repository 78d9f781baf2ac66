// RUN: nova-opt %s --split-input-file --nova-fuse-cross-entropy | FileCheck %s

// A cross-entropy and the backward of its lse become one op where the
// forward was; the loss gradient (a broadcast made in the backward) moves
// before it, and the head's backward GEMMs read the fused gradient.
// CHECK-LABEL: func.func @head
// CHECK:         %[[LOGITS:.+]] = nova.matmul %arg0, %arg1 {transpose_rhs}
// CHECK:         %[[ONE:.+]] = nova.constant dense<3.906250e-03> : tensor<f32>
// CHECK:         %[[G:.+]] = nova.broadcast_in_dim %[[ONE]]
// CHECK:         %[[LOSS:[^,]+]], %{{[^,]+}}, %[[GRAD:[^ ]+]] = nova.cross_entropy_with_grad %[[LOGITS]], %arg2, %[[G]] {ignore_index = -100 : i64} : tensor<256x16xbf16>, tensor<256xi64>, tensor<256xf32> -> tensor<256xf32>, tensor<256xf32>, tensor<256x16xbf16>
// CHECK:         %[[SUM:.+]] = nova.reduce_sum %[[LOSS]]
// CHECK-NOT:     nova.cross_entropy
// CHECK:         %[[DX:.+]] = nova.matmul %[[GRAD]], %arg1
// CHECK:         return %[[SUM]], %[[DX]]
func.func @head(%x: tensor<256x8xbf16>, %w: tensor<16x8xbf16>, %t: tensor<256xi64>) -> (tensor<f32>, tensor<256x8xbf16>) {
  %logits = nova.matmul %x, %w {transpose_rhs} : tensor<256x8xbf16>, tensor<16x8xbf16> -> tensor<256x16xbf16>
  %loss, %lse = nova.cross_entropy %logits, %t {ignore_index = -100 : i64} : tensor<256x16xbf16>, tensor<256xi64> -> tensor<256xf32>, tensor<256xf32>
  %sum = nova.reduce_sum %loss dims = [0] : tensor<256xf32> -> tensor<f32>
  %one = nova.constant dense<3.906250e-03> : tensor<f32>
  %g = nova.broadcast_in_dim %one dims = [] : tensor<f32> -> tensor<256xf32>
  %dl = nova.cross_entropy_backward %g, %logits, %t, %lse {ignore_index = -100 : i64} : tensor<256xf32>, tensor<256x16xbf16>, tensor<256xi64>, tensor<256xf32> -> tensor<256x16xbf16>
  %dx = nova.matmul %dl, %w : tensor<256x16xbf16>, tensor<16x8xbf16> -> tensor<256x8xbf16>
  return %sum, %dx : tensor<f32>, tensor<256x8xbf16>
}

// -----

// A loss gradient made from the loss itself keeps the two apart.
// CHECK-LABEL: func.func @grad_from_loss
// CHECK:         nova.cross_entropy %
// CHECK:         nova.cross_entropy_backward
// CHECK-NOT:     nova.cross_entropy_with_grad
func.func @grad_from_loss(%logits: tensor<4x16xf32>, %t: tensor<4xi64>) -> tensor<4x16xf32> {
  %loss, %lse = nova.cross_entropy %logits, %t {ignore_index = -100 : i64} : tensor<4x16xf32>, tensor<4xi64> -> tensor<4xf32>, tensor<4xf32>
  %g = nova.mul %loss, %loss : tensor<4xf32>
  %dl = nova.cross_entropy_backward %g, %logits, %t, %lse {ignore_index = -100 : i64} : tensor<4xf32>, tensor<4x16xf32>, tensor<4xi64>, tensor<4xf32> -> tensor<4x16xf32>
  return %dl : tensor<4x16xf32>
}

// -----

// A backward of other targets, or of an lse that is not the forward's, is
// not the forward's gradient.
// CHECK-LABEL: func.func @not_its_backward
// CHECK-NOT:     nova.cross_entropy_with_grad
// CHECK:         nova.cross_entropy %
// CHECK-COUNT-2: nova.cross_entropy_backward
func.func @not_its_backward(%logits: tensor<4x16xf32>, %t: tensor<4xi64>, %u: tensor<4xi64>, %g: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %loss, %lse = nova.cross_entropy %logits, %t {ignore_index = -100 : i64} : tensor<4x16xf32>, tensor<4xi64> -> tensor<4xf32>, tensor<4xf32>
  %d1 = nova.cross_entropy_backward %g, %logits, %u, %lse {ignore_index = -100 : i64} : tensor<4xf32>, tensor<4x16xf32>, tensor<4xi64>, tensor<4xf32> -> tensor<4x16xf32>
  %d2 = nova.cross_entropy_backward %g, %logits, %t, %l {ignore_index = -100 : i64} : tensor<4xf32>, tensor<4x16xf32>, tensor<4xi64>, tensor<4xf32> -> tensor<4x16xf32>
  return %loss, %d1, %d2 : tensor<4xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
