// RUN: nova-opt %s --split-input-file --nova-save-inputs-for-backward=min-bytes=1 | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-save-inputs-for-backward | FileCheck %s --check-prefix=BIG

// A layer norm as CSE leaves it: the backward's (x - mean) * rstd is the
// forward's, so the normalized value is saved beside x, which the forward
// reads again (the next residual add). The backward recomputes it from x,
// mean and rstd's broadcast, which it reads anyway (copies marked so CSE
// keeps them apart), and the forward's
// normalized value is read only by the forward. x = a + b stays a leaf
// (two full-size inputs).
// CHECK-LABEL: func.func @layer_norm
// CHECK:         %[[X:.+]] = nova.add %arg0, %arg1 : tensor<4x128xf32>
// CHECK:         %[[MEAN:.+]] = nova.reduce_mean %[[X]]
// CHECK:         %[[MB:.+]] = nova.broadcast_in_dim %[[MEAN]]
// CHECK:         %[[XC:.+]] = nova.sub %[[X]], %[[MB]]
// CHECK:         %[[RSTD:.+]] = nova.rsqrt
// CHECK:         %[[RB:.+]] = nova.broadcast_in_dim %[[RSTD]]
// CHECK:         %[[XHAT:.+]] = nova.mul %[[XC]], %[[RB]] : tensor<4x128xf32>
// CHECK:         %[[LOSS:.+]] = nova.reduce_sum
// CHECK:         %[[MB2:.+]] = nova.broadcast_in_dim %[[MEAN]] {{.*}}nova.recomputed
// CHECK:         %[[XC2:.+]] = nova.sub %[[X]], %[[MB2]] {{.*}}nova.recomputed
// CHECK:         %[[XHAT2:.+]] = nova.mul %[[XC2]], %[[RB]] {{.*}}nova.recomputed
// CHECK:         %[[DW:.+]] = nova.mul %arg2, %[[XHAT2]]
// CHECK:         %[[DX:.+]] = nova.mul %[[XHAT2]], %[[RB]]
// CHECK:         return %[[LOSS]], %[[DW]], %[[DX]]
// Under the default min-bytes (1 MiB) these small values are kept.
// BIG-LABEL: func.func @layer_norm
// BIG-NOT:     nova.recomputed
func.func @layer_norm(%a: tensor<4x128xf32>, %b: tensor<4x128xf32>, %dy: tensor<4x128xf32>) -> (tensor<f32>, tensor<4x128xf32>, tensor<4x128xf32>) {
  %x = nova.add %a, %b : tensor<4x128xf32>
  %mean = nova.reduce_mean %x dims = [1] keepdim : tensor<4x128xf32> -> tensor<4x1xf32>
  %mb = nova.broadcast_in_dim %mean dims = [0, 1] : tensor<4x1xf32> -> tensor<4x128xf32>
  %xc = nova.sub %x, %mb : tensor<4x128xf32>
  %sq = nova.mul %xc, %xc : tensor<4x128xf32>
  %var = nova.reduce_mean %sq dims = [1] keepdim : tensor<4x128xf32> -> tensor<4x1xf32>
  %rstd = nova.rsqrt %var : tensor<4x1xf32>
  %rb = nova.broadcast_in_dim %rstd dims = [0, 1] : tensor<4x1xf32> -> tensor<4x128xf32>
  %xhat = nova.mul %xc, %rb : tensor<4x128xf32>
  %next = nova.add %x, %xhat : tensor<4x128xf32>
  %loss = nova.reduce_sum %next dims = [0, 1] : tensor<4x128xf32> -> tensor<f32>
  // The backward: a weight's gradient and the input's (in part).
  %dw = nova.mul %dy, %xhat : tensor<4x128xf32>
  %dx = nova.mul %xhat, %rb : tensor<4x128xf32>
  return %loss, %dw, %dx : tensor<f32>, tensor<4x128xf32>, tensor<4x128xf32>
}

// -----

// Not a trade: the value's only full-size input is read by the backward
// anyway (a GELU-like output of h, whose backward reads h: that is
// nova-rematerialize's, after fusion); a value of two full-size inputs
// keeps them both; a bf16 value is not traded for its f32 input.
// CHECK-LABEL: func.func @no_trade
// CHECK-NOT:     nova.recomputed
// CHECK:         return
func.func @no_trade(%h: tensor<4x128xf32>, %a: tensor<4x128xf32>, %b: tensor<4x128xf32>, %w: tensor<128xf32>, %dy: tensor<4x128xf32>) -> (tensor<f32>, tensor<4x128xf32>, tensor<4x128xf32>, tensor<4x128xbf16>) {
  %t = nova.tanh %h : tensor<4x128xf32>
  %g = nova.mul %t, %h : tensor<4x128xf32>
  %s = nova.add %a, %b : tensor<4x128xf32>
  %wb = nova.broadcast_in_dim %w dims = [1] : tensor<128xf32> -> tensor<4x128xf32>
  %as = nova.mul %a, %wb : tensor<4x128xf32>
  %n = nova.cast %as : tensor<4x128xf32> -> tensor<4x128xbf16>
  %p = nova.mul %g, %s : tensor<4x128xf32>
  %loss = nova.reduce_sum %p dims = [0, 1] : tensor<4x128xf32> -> tensor<f32>
  %dg = nova.mul %dy, %g : tensor<4x128xf32>
  %dh = nova.mul %dg, %h : tensor<4x128xf32>
  %ds = nova.mul %dy, %s : tensor<4x128xf32>
  return %loss, %dh, %ds, %n : tensor<f32>, tensor<4x128xf32>, tensor<4x128xf32>, tensor<4x128xbf16>
}

// -----

// Only values normalized by per-row statistics are traded: an f32 scaling
// of a bf16 x by column weights stays saved (a GELU's terms that CSE shares
// with its backward are nova-fuse-elementwise's to recompute).
// CHECK-LABEL: func.func @wider
// CHECK-NOT:     nova.recomputed
// CHECK:         return
func.func @wider(%x: tensor<4x128xbf16>, %w: tensor<128xf32>, %dy: tensor<4x128xf32>) -> (tensor<f32>, tensor<4x128xf32>) {
  %wide = nova.cast %x : tensor<4x128xbf16> -> tensor<4x128xf32>
  %wb = nova.broadcast_in_dim %w dims = [1] : tensor<128xf32> -> tensor<4x128xf32>
  %s = nova.mul %wide, %wb : tensor<4x128xf32>
  %loss = nova.reduce_sum %s dims = [0, 1] : tensor<4x128xf32> -> tensor<f32>
  %ds = nova.mul %dy, %s : tensor<4x128xf32>
  return %loss, %ds : tensor<f32>, tensor<4x128xf32>
}
