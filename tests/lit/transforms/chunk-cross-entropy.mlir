// RUN: nova-opt %s --split-input-file --nova-chunk-cross-entropy=chunk-bytes=4096 | FileCheck %s

// 256 x 16 bf16 logits (8 KiB) in chunks of at most 4 KiB: two chunks of
// 128 rows, each making its logits, loss, gradient and both gradient GEMMs
// before the next. The loss gradient (made after the loss) moves before the
// chunks; the losses and input gradients are concatenated, the weight
// gradient summed in f32, which its f32 cast's reader takes directly.
// CHECK-LABEL: func.func @head
// CHECK:         %[[G:.+]] = nova.broadcast_in_dim
// CHECK:         %[[X0:.+]] = nova.slice %arg0[0:128:1, 0:8:1]
// CHECK:         %[[T0:.+]] = nova.slice %arg2[0:128:1]
// CHECK:         %[[G0:.+]] = nova.slice %[[G]][0:128:1]
// CHECK:         %[[L0:.+]] = nova.matmul %[[X0]], %arg1 {transpose_rhs} : tensor<128x8xbf16>, tensor<16x8xbf16> -> tensor<128x16xbf16>
// CHECK:         %[[LOSS0:.+]], %[[LSE0:.+]] = nova.cross_entropy %[[L0]], %[[T0]]
// CHECK:         %[[D0:.+]] = nova.cross_entropy_backward %[[G0]], %[[L0]], %[[T0]], %[[LSE0]]
// CHECK:         %[[W0:.+]] = nova.matmul %[[D0]], %[[X0]] {transpose_lhs}
// CHECK:         %[[DX0:.+]] = nova.matmul %[[D0]], %arg1 :
// CHECK:         %[[WF0:.+]] = nova.cast %[[W0]] : tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK:         %[[X1:.+]] = nova.slice %arg0[128:256:1, 0:8:1]
// CHECK:         %[[L1:.+]] = nova.matmul %[[X1]], %arg1 {transpose_rhs}
// CHECK:         %[[LOSS1:.+]], %{{.+}} = nova.cross_entropy %[[L1]]
// CHECK:         %[[W1:.+]] = nova.matmul %{{.+}}, %[[X1]] {transpose_lhs}
// CHECK:         %[[DX1:.+]] = nova.matmul
// CHECK:         %[[WF1:.+]] = nova.cast %[[W1]]
// CHECK:         %[[DW:.+]] = nova.add %[[WF0]], %[[WF1]] : tensor<16x8xf32>
// CHECK:         %[[LOSS:.+]] = nova.concat %[[LOSS0]], %[[LOSS1]] dim = 0
// CHECK:         %[[DX:.+]] = nova.concat %[[DX0]], %[[DX1]] dim = 0
// CHECK:         %[[SUM:.+]] = nova.reduce_sum %[[LOSS]]
// CHECK:         return %[[SUM]], %[[DX]], %[[DW]]
func.func @head(%x: tensor<256x8xbf16>, %w: tensor<16x8xbf16>, %t: tensor<256xi64>) -> (tensor<f32>, tensor<256x8xbf16>, tensor<16x8xf32>) {
  %logits = nova.matmul %x, %w {transpose_rhs} : tensor<256x8xbf16>, tensor<16x8xbf16> -> tensor<256x16xbf16>
  %loss, %lse = nova.cross_entropy %logits, %t {ignore_index = -100 : i64} : tensor<256x16xbf16>, tensor<256xi64> -> tensor<256xf32>, tensor<256xf32>
  %sum = nova.reduce_sum %loss dims = [0] : tensor<256xf32> -> tensor<f32>
  %one = nova.constant dense<1.000000e+00> : tensor<f32>
  %g = nova.broadcast_in_dim %one dims = [] : tensor<f32> -> tensor<256xf32>
  %dl = nova.cross_entropy_backward %g, %logits, %t, %lse {ignore_index = -100 : i64} : tensor<256xf32>, tensor<256x16xbf16>, tensor<256xi64>, tensor<256xf32> -> tensor<256x16xbf16>
  %dw = nova.matmul %dl, %x {transpose_lhs} : tensor<256x16xbf16>, tensor<256x8xbf16> -> tensor<16x8xbf16>
  %dx = nova.matmul %dl, %w : tensor<256x16xbf16>, tensor<16x8xbf16> -> tensor<256x8xbf16>
  %dwf = nova.cast %dw : tensor<16x8xbf16> -> tensor<16x8xf32>
  return %sum, %dx, %dwf : tensor<f32>, tensor<256x8xbf16>, tensor<16x8xf32>
}

// -----

// Logits that fit one chunk stay whole.
// CHECK-LABEL: func.func @fits
// CHECK-NOT:     nova.slice
// CHECK:         nova.cross_entropy %{{.+}}, %{{.+}} {ignore_index = -100 : i64} : tensor<128x16xbf16>
func.func @fits(%x: tensor<128x8xbf16>, %w: tensor<16x8xbf16>, %t: tensor<128xi64>, %g: tensor<128xf32>) -> (tensor<128xf32>, tensor<128x8xbf16>, tensor<16x8xbf16>) {
  %logits = nova.matmul %x, %w {transpose_rhs} : tensor<128x8xbf16>, tensor<16x8xbf16> -> tensor<128x16xbf16>
  %loss, %lse = nova.cross_entropy %logits, %t {ignore_index = -100 : i64} : tensor<128x16xbf16>, tensor<128xi64> -> tensor<128xf32>, tensor<128xf32>
  %dl = nova.cross_entropy_backward %g, %logits, %t, %lse {ignore_index = -100 : i64} : tensor<128xf32>, tensor<128x16xbf16>, tensor<128xi64>, tensor<128xf32> -> tensor<128x16xbf16>
  %dw = nova.matmul %dl, %x {transpose_lhs} : tensor<128x16xbf16>, tensor<128x8xbf16> -> tensor<16x8xbf16>
  %dx = nova.matmul %dl, %w : tensor<128x16xbf16>, tensor<16x8xbf16> -> tensor<128x8xbf16>
  return %loss, %dx, %dw : tensor<128xf32>, tensor<128x8xbf16>, tensor<16x8xbf16>
}

// -----

// Logits that something else reads (here the function's result) are needed
// whole: the chain stays as it is.
// CHECK-LABEL: func.func @logits_read_elsewhere
// CHECK-NOT:     nova.slice
func.func @logits_read_elsewhere(%x: tensor<256x8xbf16>, %w: tensor<16x8xbf16>, %t: tensor<256xi64>, %g: tensor<256xf32>) -> (tensor<256xf32>, tensor<256x8xbf16>, tensor<16x8xbf16>, tensor<256x16xbf16>) {
  %logits = nova.matmul %x, %w {transpose_rhs} : tensor<256x8xbf16>, tensor<16x8xbf16> -> tensor<256x16xbf16>
  %loss, %lse = nova.cross_entropy %logits, %t {ignore_index = -100 : i64} : tensor<256x16xbf16>, tensor<256xi64> -> tensor<256xf32>, tensor<256xf32>
  %dl = nova.cross_entropy_backward %g, %logits, %t, %lse {ignore_index = -100 : i64} : tensor<256xf32>, tensor<256x16xbf16>, tensor<256xi64>, tensor<256xf32> -> tensor<256x16xbf16>
  %dw = nova.matmul %dl, %x {transpose_lhs} : tensor<256x16xbf16>, tensor<256x8xbf16> -> tensor<16x8xbf16>
  %dx = nova.matmul %dl, %w : tensor<256x16xbf16>, tensor<16x8xbf16> -> tensor<256x8xbf16>
  return %loss, %dx, %dw, %logits : tensor<256xf32>, tensor<256x8xbf16>, tensor<16x8xbf16>, tensor<256x16xbf16>
}

// -----

// A loss gradient made from the loss itself cannot come before the chunks.
// CHECK-LABEL: func.func @grad_from_loss
// CHECK-NOT:     nova.slice
func.func @grad_from_loss(%x: tensor<256x8xbf16>, %w: tensor<16x8xbf16>, %t: tensor<256xi64>) -> (tensor<256xf32>, tensor<256x8xbf16>, tensor<16x8xbf16>) {
  %logits = nova.matmul %x, %w {transpose_rhs} : tensor<256x8xbf16>, tensor<16x8xbf16> -> tensor<256x16xbf16>
  %loss, %lse = nova.cross_entropy %logits, %t {ignore_index = -100 : i64} : tensor<256x16xbf16>, tensor<256xi64> -> tensor<256xf32>, tensor<256xf32>
  %g = nova.mul %loss, %loss : tensor<256xf32>
  %dl = nova.cross_entropy_backward %g, %logits, %t, %lse {ignore_index = -100 : i64} : tensor<256xf32>, tensor<256x16xbf16>, tensor<256xi64>, tensor<256xf32> -> tensor<256x16xbf16>
  %dw = nova.matmul %dl, %x {transpose_lhs} : tensor<256x16xbf16>, tensor<256x8xbf16> -> tensor<16x8xbf16>
  %dx = nova.matmul %dl, %w : tensor<256x16xbf16>, tensor<16x8xbf16> -> tensor<256x8xbf16>
  return %loss, %dx, %dw : tensor<256xf32>, tensor<256x8xbf16>, tensor<16x8xbf16>
}
