// RUN: nova-opt %s --split-input-file --nova-rematerialize="min-bytes=1 standalone-min-bytes=1" | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-rematerialize=min-bytes=1 | FileCheck %s --check-prefix=FOLDED
// RUN: nova-opt %s --split-input-file --nova-rematerialize | FileCheck %s --check-prefix=BIG

// A GELU's output, reshaped for the next matmul, is saved for that matmul's
// weight gradient; its input is saved anyway for the GELU's backward. The
// backward recomputes the output (a copy of the region, marked so CSE keeps
// it apart) right before the weight gradient, and the forward's output dies
// at the forward's matmul. Under the default min-bytes (1 MiB) these small
// values are kept.
// CHECK-LABEL: func.func @gelu_output
// CHECK:         %[[G:.+]] = nova.fused(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
// CHECK:           nova.tanh
// CHECK:         %[[GR:.+]] = nova.reshape %[[G]]
// CHECK:         %[[Y:.+]] = nova.matmul %[[GR]], %arg1
// CHECK:         %[[LOSS:.+]] = nova.reduce_sum %[[Y]]
// CHECK:         %[[DG:.+]] = nova.fused(%arg0, %arg2)
// CHECK:         %[[G2:.+]] = nova.fused(%arg0) {nova.recomputed} : (tensor<8x16xf32>) -> tensor<8x16xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.+]]: tensor<8x16xf32>):
// CHECK:           nova.tanh
// CHECK:         %[[G2R:.+]] = nova.reshape %[[G2]] : tensor<8x16xf32> -> tensor<2x4x16xf32>
// CHECK:         %[[DW:.+]] = nova.matmul %[[G2R]], %arg3
// CHECK:         return %[[LOSS]], %[[DG]], %[[DW]]
// BIG-LABEL: func.func @gelu_output
// BIG-NOT:     nova.recomputed
// A copy that folds into no reader is a kernel of its own: under the
// default standalone-min-bytes (8 MiB) the value is saved after all.
// FOLDED-LABEL: func.func @gelu_output
// FOLDED-NOT:     nova.recomputed
// FOLDED:         return
func.func @gelu_output(%h: tensor<8x16xf32>, %w: tensor<2x16x4xf32>, %dy: tensor<8x16xf32>, %dout: tensor<2x16x4xf32>) -> (tensor<f32>, tensor<8x16xf32>, tensor<2x4x4xf32>) {
  %g = nova.fused(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>):
    %half = nova.constant dense<5.000000e-01> : tensor<8x16xf32>
    %one = nova.constant dense<1.000000e+00> : tensor<8x16xf32>
    %t = nova.tanh %x : tensor<8x16xf32>
    %t1 = nova.add %t, %one : tensor<8x16xf32>
    %xh = nova.mul %x, %half : tensor<8x16xf32>
    %r = nova.mul %xh, %t1 : tensor<8x16xf32>
    nova.yield %r : tensor<8x16xf32>
  }
  %gr = nova.reshape %g : tensor<8x16xf32> -> tensor<2x4x16xf32>
  %y = nova.matmul %gr, %w : tensor<2x4x16xf32>, tensor<2x16x4xf32> -> tensor<2x4x4xf32>
  %loss = nova.reduce_sum %y dims = [0, 1, 2] : tensor<2x4x4xf32> -> tensor<f32>
  // The backward: the GELU's gradient reads its input, the weight gradient
  // its output.
  %dg = nova.fused(%h, %dy) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>, %d: tensor<8x16xf32>):
    %t = nova.tanh %x : tensor<8x16xf32>
    %r = nova.mul %t, %d : tensor<8x16xf32>
    nova.yield %r : tensor<8x16xf32>
  }
  %dw = nova.matmul %gr, %dout : tensor<2x4x16xf32>, tensor<2x16x4xf32> -> tensor<2x4x4xf32>
  return %loss, %dg, %dw : tensor<f32>, tensor<8x16xf32>, tensor<2x4x4xf32>
}

// -----

// The GELU's backward after the weight gradient, reading the same input:
// the recomputation becomes one more result of that kernel (no launch of its
// own, no second read of the input), and the weight gradient moves after it.
// FOLDED-LABEL: func.func @gelu_output_folded
// FOLDED:         nova.fused(%arg0, %arg2) : (tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK-LABEL: func.func @gelu_output_folded
// CHECK:         nova.matmul
// CHECK:         %[[LOSS:.+]] = nova.reduce_sum
// CHECK-NOT:     nova.recomputed
// CHECK:         %[[M:.+]]:2 = nova.fused(%arg0, %arg2) : (tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
// CHECK:           nova.yield %{{.+}}, %{{.+}} : tensor<8x16xf32>, tensor<8x16xf32>
// CHECK:         %[[R:.+]] = nova.reshape %[[M]]#1
// CHECK:         %[[DW:.+]] = nova.matmul %[[R]], %arg3
// CHECK:         return %[[LOSS]], %[[M]]#0, %[[DW]]
func.func @gelu_output_folded(%h: tensor<8x16xf32>, %w: tensor<2x16x4xf32>, %dy: tensor<8x16xf32>, %dout: tensor<2x16x4xf32>) -> (tensor<f32>, tensor<8x16xf32>, tensor<2x4x4xf32>) {
  %g = nova.fused(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>):
    %half = nova.constant dense<5.000000e-01> : tensor<8x16xf32>
    %t = nova.tanh %x : tensor<8x16xf32>
    %xh = nova.mul %x, %half : tensor<8x16xf32>
    %r = nova.mul %xh, %t : tensor<8x16xf32>
    nova.yield %r : tensor<8x16xf32>
  }
  %gr = nova.reshape %g : tensor<8x16xf32> -> tensor<2x4x16xf32>
  %y = nova.matmul %gr, %w : tensor<2x4x16xf32>, tensor<2x16x4xf32> -> tensor<2x4x4xf32>
  %loss = nova.reduce_sum %y dims = [0, 1, 2] : tensor<2x4x4xf32> -> tensor<f32>
  %dw = nova.matmul %gr, %dout : tensor<2x4x16xf32>, tensor<2x16x4xf32> -> tensor<2x4x4xf32>
  %dg = nova.fused(%h, %dy) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>, %d: tensor<8x16xf32>):
    %t = nova.tanh %x : tensor<8x16xf32>
    %r = nova.mul %t, %d : tensor<8x16xf32>
    nova.yield %r : tensor<8x16xf32>
  }
  return %loss, %dg, %dw : tensor<f32>, tensor<8x16xf32>, tensor<2x4x4xf32>
}

// -----

// The same with 40 unrelated ops between the weight gradient and the GELU's
// backward: the host is found through the input's uses, not within a
// window of ops after the recomputation.
// FOLDED-LABEL: func.func @gelu_output_folded_far
// FOLDED-NOT:     nova.recomputed
// FOLDED:         nova.fused(%arg0, %arg2) : (tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
// FOLDED:         nova.matmul
// FOLDED:         return
func.func @gelu_output_folded_far(%h: tensor<8x16xf32>, %w: tensor<2x16x4xf32>, %dy: tensor<8x16xf32>, %dout: tensor<2x16x4xf32>) -> (tensor<f32>, tensor<8x16xf32>, tensor<2x4x4xf32>, tensor<8x16xf32>) {
  %g = nova.fused(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>):
    %half = nova.constant dense<5.000000e-01> : tensor<8x16xf32>
    %t = nova.tanh %x : tensor<8x16xf32>
    %xh = nova.mul %x, %half : tensor<8x16xf32>
    %r = nova.mul %xh, %t : tensor<8x16xf32>
    nova.yield %r : tensor<8x16xf32>
  }
  %gr = nova.reshape %g : tensor<8x16xf32> -> tensor<2x4x16xf32>
  %y = nova.matmul %gr, %w : tensor<2x4x16xf32>, tensor<2x16x4xf32> -> tensor<2x4x4xf32>
  %loss = nova.reduce_sum %y dims = [0, 1, 2] : tensor<2x4x4xf32> -> tensor<f32>
  %dw = nova.matmul %gr, %dout : tensor<2x4x16xf32>, tensor<2x16x4xf32> -> tensor<2x4x4xf32>
  %f0 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f1 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f2 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f3 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f4 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f5 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f6 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f7 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f8 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f9 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f10 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f11 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f12 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f13 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f14 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f15 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f16 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f17 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f18 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f19 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f20 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f21 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f22 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f23 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f24 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f25 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f26 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f27 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f28 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f29 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f30 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f31 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f32 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f33 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f34 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f35 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f36 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f37 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f38 = nova.mul %dy, %dy : tensor<8x16xf32>
  %f39 = nova.mul %dy, %dy : tensor<8x16xf32>
  %dg = nova.fused(%h, %dy) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>, %d: tensor<8x16xf32>):
    %t = nova.tanh %x : tensor<8x16xf32>
    %r = nova.mul %t, %d : tensor<8x16xf32>
    nova.yield %r : tensor<8x16xf32>
  }
  return %loss, %dg, %dw, %f39 : tensor<f32>, tensor<8x16xf32>, tensor<2x4x4xf32>, tensor<8x16xf32>
}

// -----

// A layer norm's region yields its output (for a matmul) and its normalized
// input (for its backward). The output is recomputed from the normalized
// input (read after it by the backward) and the gain and bias (arguments:
// alive throughout); the row reductions are not recomputed.
// CHECK-LABEL: func.func @layer_norm_output
// CHECK:         %[[LN:.+]]:2 = nova.fused(%arg0, %arg1, %arg2)
// CHECK:         nova.matmul %[[LN]]#0, %arg3
// CHECK:         %[[Y2:.+]] = nova.fused(%[[LN]]#1, %arg1, %arg2) {nova.recomputed}
// CHECK-NOT:       nova.reduce
// CHECK:           nova.mul
// CHECK:           nova.add
// CHECK:           nova.cast
// CHECK:         }
// CHECK:         nova.matmul %[[Y2]], %arg4
func.func @layer_norm_output(%x: tensor<8x16xf32>, %gamma: tensor<16xf32>, %beta: tensor<16xf32>, %w: tensor<16x4xbf16>, %dout: tensor<16x4xbf16>) -> (tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>) {
  %ln:2 = nova.fused(%x, %gamma, %beta) : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xbf16>, tensor<8x16xf32>) {
  ^bb0(%a: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>):
    %mean = nova.reduce_mean %a dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
    %mb = nova.broadcast_in_dim %mean dims = [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
    %c = nova.sub %a, %mb : tensor<8x16xf32>
    %gb = nova.broadcast_in_dim %g dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %bb = nova.broadcast_in_dim %b dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %s = nova.mul %c, %gb : tensor<8x16xf32>
    %o = nova.add %s, %bb : tensor<8x16xf32>
    %y = nova.cast %o : tensor<8x16xf32> -> tensor<8x16xbf16>
    nova.yield %y, %c : tensor<8x16xbf16>, tensor<8x16xf32>
  }
  %out = nova.matmul %ln#0, %w : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %of = nova.cast %out : tensor<8x4xbf16> -> tensor<8x4xf32>
  %loss = nova.reduce_sum %of dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  %dw = nova.matmul %ln#0, %dout : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %dx = nova.mul %ln#1, %ln#1 : tensor<8x16xf32>
  return %loss, %dx, %dw : tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>
}

// -----

// Packed params (nova-pack-optimizer-state) are slices of a flat argument,
// views that keep nothing alive: the bias, read by the forward alone, still
// counts as alive, so the output is recomputed (it was saved at 1.2 GiB more
// in gpt-146m B24 when only arguments counted).
// CHECK-LABEL: func.func @layer_norm_output_packed
// CHECK:         %[[B:.+]] = nova.reshape
// CHECK:         %[[LN:.+]]:2 = nova.fused(%arg0, %arg1, %[[B]])
// CHECK:         nova.matmul %[[LN]]#0, %arg3
// CHECK:         %[[Y2:.+]] = nova.fused(%[[LN]]#1, %arg1, %[[B]]) {nova.recomputed}
// CHECK:         nova.matmul %[[Y2]], %arg4
func.func @layer_norm_output_packed(%x: tensor<8x16xf32>, %gamma: tensor<16xf32>, %flat: tensor<64xf32>, %w: tensor<16x4xbf16>, %dout: tensor<16x4xbf16>) -> (tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>) {
  %slice = nova.slice %flat[0:16:1] : tensor<64xf32> -> tensor<16xf32>
  %beta = nova.reshape %slice : tensor<16xf32> -> tensor<16xf32>
  %ln:2 = nova.fused(%x, %gamma, %beta) : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xbf16>, tensor<8x16xf32>) {
  ^bb0(%a: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>):
    %mean = nova.reduce_mean %a dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
    %mb = nova.broadcast_in_dim %mean dims = [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
    %c = nova.sub %a, %mb : tensor<8x16xf32>
    %gb = nova.broadcast_in_dim %g dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %bb = nova.broadcast_in_dim %b dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %s = nova.mul %c, %gb : tensor<8x16xf32>
    %o = nova.add %s, %bb : tensor<8x16xf32>
    %y = nova.cast %o : tensor<8x16xf32> -> tensor<8x16xbf16>
    nova.yield %y, %c : tensor<8x16xbf16>, tensor<8x16xf32>
  }
  %out = nova.matmul %ln#0, %w : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %of = nova.cast %out : tensor<8x4xbf16> -> tensor<8x4xf32>
  %loss = nova.reduce_sum %of dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  %dw = nova.matmul %ln#0, %dout : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %dx = nova.mul %ln#1, %ln#1 : tensor<8x16xf32>
  return %loss, %dx, %dw : tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>
}

// -----

// A view of a computed value counts while a view of it is read later
// (nova-convert-packed-params: the bias is a slice of the group's bf16 copy,
// whose weight slice the backward reads): the output is recomputed. With
// nothing read from that copy later, it stays saved.
// CHECK-LABEL: func.func @view_of_converted_group
// CHECK:         %[[Y2:.+]] = nova.fused(%[[LN:.+]]#1, %arg1, %{{.+}}) {nova.recomputed}
// CHECK:         nova.matmul %[[Y2]], %{{.+}}
// CHECK-LABEL: func.func @view_of_dead_group
// CHECK-NOT:     nova.recomputed
func.func @view_of_converted_group(%x: tensor<8x16xf32>, %gamma: tensor<16xf32>, %flat: tensor<80xf32>, %dout: tensor<16x4xbf16>) -> (tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>, tensor<8x16xbf16>) {
  %copy = nova.cast %flat : tensor<80xf32> -> tensor<80xbf16>
  %beta = nova.slice %copy[0:16:1] : tensor<80xbf16> -> tensor<16xbf16>
  %ws = nova.slice %copy[16:80:1] : tensor<80xbf16> -> tensor<64xbf16>
  %w = nova.reshape %ws : tensor<64xbf16> -> tensor<16x4xbf16>
  %ln:2 = nova.fused(%x, %gamma, %beta) : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xbf16>) -> (tensor<8x16xbf16>, tensor<8x16xf32>) {
  ^bb0(%a: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xbf16>):
    %mean = nova.reduce_mean %a dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
    %mb = nova.broadcast_in_dim %mean dims = [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
    %c = nova.sub %a, %mb : tensor<8x16xf32>
    %gb = nova.broadcast_in_dim %g dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %bf = nova.cast %b : tensor<16xbf16> -> tensor<16xf32>
    %bb = nova.broadcast_in_dim %bf dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %s = nova.mul %c, %gb : tensor<8x16xf32>
    %o = nova.add %s, %bb : tensor<8x16xf32>
    %y = nova.cast %o : tensor<8x16xf32> -> tensor<8x16xbf16>
    nova.yield %y, %c : tensor<8x16xbf16>, tensor<8x16xf32>
  }
  %out = nova.matmul %ln#0, %w : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %of = nova.cast %out : tensor<8x4xbf16> -> tensor<8x4xf32>
  %loss = nova.reduce_sum %of dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  %dw = nova.matmul %ln#0, %dout : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %dx = nova.mul %ln#1, %ln#1 : tensor<8x16xf32>
  %dxin = nova.matmul %dout, %w {transpose_rhs} : tensor<16x4xbf16>, tensor<16x4xbf16> -> tensor<16x16xbf16>
  %dxs = nova.slice %dxin[0:8:1, 0:16:1] : tensor<16x16xbf16> -> tensor<8x16xbf16>
  return %loss, %dx, %dw, %dxs : tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>, tensor<8x16xbf16>
}

func.func @view_of_dead_group(%x: tensor<8x16xf32>, %gamma: tensor<16xf32>, %flat: tensor<80xf32>, %dout: tensor<16x4xbf16>) -> (tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>) {
  %copy = nova.cast %flat : tensor<80xf32> -> tensor<80xbf16>
  %beta = nova.slice %copy[0:16:1] : tensor<80xbf16> -> tensor<16xbf16>
  %ws = nova.slice %copy[16:80:1] : tensor<80xbf16> -> tensor<64xbf16>
  %w = nova.reshape %ws : tensor<64xbf16> -> tensor<16x4xbf16>
  %ln:2 = nova.fused(%x, %gamma, %beta) : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xbf16>) -> (tensor<8x16xbf16>, tensor<8x16xf32>) {
  ^bb0(%a: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xbf16>):
    %mean = nova.reduce_mean %a dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
    %mb = nova.broadcast_in_dim %mean dims = [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
    %c = nova.sub %a, %mb : tensor<8x16xf32>
    %gb = nova.broadcast_in_dim %g dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %bf = nova.cast %b : tensor<16xbf16> -> tensor<16xf32>
    %bb = nova.broadcast_in_dim %bf dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
    %s = nova.mul %c, %gb : tensor<8x16xf32>
    %o = nova.add %s, %bb : tensor<8x16xf32>
    %y = nova.cast %o : tensor<8x16xf32> -> tensor<8x16xbf16>
    nova.yield %y, %c : tensor<8x16xbf16>, tensor<8x16xf32>
  }
  %out = nova.matmul %ln#0, %w : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %of = nova.cast %out : tensor<8x4xbf16> -> tensor<8x4xf32>
  %loss = nova.reduce_sum %of dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  %dw = nova.matmul %ln#0, %dout : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %dx = nova.mul %ln#1, %ln#1 : tensor<8x16xf32>
  return %loss, %dx, %dw : tensor<f32>, tensor<8x16xf32>, tensor<8x4xbf16>
}

// -----

// A saved value whose inputs the backward does not read otherwise (at or
// after its use) stays saved: recomputing it would keep them alive instead.
// CHECK-LABEL: func.func @inputs_not_alive
// CHECK-NOT:     nova.recomputed
func.func @inputs_not_alive(%a: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> (tensor<f32>, tensor<8x16xf32>) {
  %h = nova.matmul %a, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %e = nova.fused(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>):
    %t = nova.exp %x : tensor<8x16xf32>
    nova.yield %t : tensor<8x16xf32>
  }
  %loss = nova.reduce_sum %e dims = [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %d = nova.mul %e, %e : tensor<8x16xf32>
  return %loss, %d : tensor<f32>, tensor<8x16xf32>
}

// -----

// Without a backward (the value is not read after the loss), nothing moves.
// CHECK-LABEL: func.func @forward_only
// CHECK-NOT:     nova.recomputed
func.func @forward_only(%h: tensor<8x16xf32>) -> tensor<f32> {
  %e = nova.fused(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%x: tensor<8x16xf32>):
    %t = nova.exp %x : tensor<8x16xf32>
    nova.yield %t : tensor<8x16xf32>
  }
  %loss = nova.reduce_sum %e dims = [0, 1] : tensor<8x16xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
