// RUN: nova-opt %s --split-input-file --nova-fuse-matmul-epilogue=target=sm_90 | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-fuse-matmul-epilogue=target=sm_80 | FileCheck %s --check-prefix=AMPERE

// An MLP's GELU backward: the input gradient of its second linear layer is
// read only by the region that multiplies it by the GELU's derivative and
// makes the bias gradient's partial sums (groups of 16 rows). The matmul
// becomes the region's first op, its operands the region's first inputs.
// CHECK-LABEL: func.func @gelu_backward
// CHECK-NOT:     nova.matmul %arg0
// CHECK:         %[[R:.+]]:2 = nova.fused(%arg0, %arg1, %arg2, %arg3) : (tensor<64x32xbf16>, tensor<32x48xbf16>, tensor<48xbf16>, tensor<64x48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: tensor<64x32xbf16>, %[[B:.+]]: tensor<32x48xbf16>, %[[BIAS:.+]]: tensor<48xbf16>, %[[H:.+]]: tensor<64x48xbf16>):
// CHECK-NEXT:      %[[P:.+]] = nova.matmul %[[A]], %[[B]] : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
// CHECK:           nova.broadcast_in_dim %[[BIAS]]
// CHECK:           nova.add %[[H]]
// CHECK:           nova.tanh
// CHECK:           nova.cast %[[P]]
// CHECK:           nova.reduce_sum %{{.+}} dims = [1] : tensor<4x16x48xf32> -> tensor<4x48xf32>
// CHECK:         return %[[R]]#0, %[[R]]#1
// AMPERE-LABEL: func.func @gelu_backward
// AMPERE:         %[[P:.+]] = nova.matmul %arg0, %arg1
// AMPERE:         nova.fused(%arg2, %arg3, %[[P]])
func.func @gelu_backward(%dy: tensor<64x32xbf16>, %w: tensor<32x48xbf16>, %b: tensor<48xbf16>, %h: tensor<64x48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>) {
  %g = nova.matmul %dy, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %r:2 = nova.fused(%b, %h, %g) : (tensor<48xbf16>, tensor<64x48xbf16>, tensor<64x48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>) {
  ^bb0(%bias: tensor<48xbf16>, %x: tensor<64x48xbf16>, %d: tensor<64x48xbf16>):
    %half = nova.constant dense<5.000000e-01> : tensor<64x48xf32>
    %one = nova.constant dense<1.000000e+00> : tensor<64x48xf32>
    %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %pre = nova.add %x, %bb : tensor<64x48xbf16>
    %p32 = nova.cast %pre : tensor<64x48xbf16> -> tensor<64x48xf32>
    %t = nova.tanh %p32 : tensor<64x48xf32>
    %t1 = nova.add %t, %one : tensor<64x48xf32>
    %dg = nova.mul %t1, %half : tensor<64x48xf32>
    %d32 = nova.cast %d : tensor<64x48xbf16> -> tensor<64x48xf32>
    %dx = nova.mul %d32, %dg : tensor<64x48xf32>
    %out = nova.cast %dx : tensor<64x48xf32> -> tensor<64x48xbf16>
    %groups = nova.reshape %dx : tensor<64x48xf32> -> tensor<4x16x48xf32>
    %sums = nova.reduce_sum %groups dims = [1] : tensor<4x16x48xf32> -> tensor<4x48xf32>
    nova.yield %out, %sums : tensor<64x48xbf16>, tensor<4x48xf32>
  }
  return %r#0, %r#1 : tensor<64x48xbf16>, tensor<4x48xf32>
}

// -----

// A product another op reads too (the forward's fc1 output, which the
// backward reads again) stays a matmul of its own.
// CHECK-LABEL: func.func @shared_product
// CHECK:         %[[P:.+]] = nova.matmul %arg0, %arg1
// CHECK:         nova.fused(%[[P]])
func.func @shared_product(%x: tensor<64x32xbf16>, %w: tensor<32x48xbf16>) -> (tensor<64x48xbf16>, tensor<64x48xbf16>) {
  %p = nova.matmul %x, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %r = nova.fused(%p) : (tensor<64x48xbf16>) -> tensor<64x48xbf16> {
  ^bb0(%a: tensor<64x48xbf16>):
    %t = nova.tanh %a : tensor<64x48xbf16>
    nova.yield %t : tensor<64x48xbf16>
  }
  return %r, %p : tensor<64x48xbf16>, tensor<64x48xbf16>
}

// -----

// A region that reduces over its rows (a layer norm) needs whole rows: a
// GEMM tile holds a slice of them.
// CHECK-LABEL: func.func @row_reduction
// CHECK:         %[[P:.+]] = nova.matmul %arg0, %arg1
// CHECK:         nova.fused(%[[P]])
func.func @row_reduction(%x: tensor<64x32xbf16>, %w: tensor<32x48xbf16>) -> tensor<64x1xf32> {
  %p = nova.matmul %x, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %r = nova.fused(%p) : (tensor<64x48xbf16>) -> tensor<64x1xf32> {
  ^bb0(%a: tensor<64x48xbf16>):
    %c = nova.cast %a : tensor<64x48xbf16> -> tensor<64x48xf32>
    %s = nova.reduce_sum %c dims = [1] keepdim : tensor<64x48xf32> -> tensor<64x1xf32>
    nova.yield %s : tensor<64x1xf32>
  }
  return %r : tensor<64x1xf32>
}

// -----

// Partial sums over groups of 8 rows are not a warp's 16: unchanged; so is
// an f32 product (TF32) and an element result in f32.
// CHECK-LABEL: func.func @not_epilogues
// CHECK-COUNT-3: nova.matmul %arg
func.func @not_epilogues(%x: tensor<64x32xbf16>, %w: tensor<32x48xbf16>, %xf: tensor<64x32xf32>, %wf: tensor<32x48xf32>) -> (tensor<8x48xf32>, tensor<64x48xf32>, tensor<64x48xf32>) {
  %p = nova.matmul %x, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %r = nova.fused(%p) : (tensor<64x48xbf16>) -> tensor<8x48xf32> {
  ^bb0(%a: tensor<64x48xbf16>):
    %c = nova.cast %a : tensor<64x48xbf16> -> tensor<64x48xf32>
    %g = nova.reshape %c : tensor<64x48xf32> -> tensor<8x8x48xf32>
    %s = nova.reduce_sum %g dims = [1] : tensor<8x8x48xf32> -> tensor<8x48xf32>
    nova.yield %s : tensor<8x48xf32>
  }
  %pf = nova.matmul %xf, %wf : tensor<64x32xf32>, tensor<32x48xf32> -> tensor<64x48xf32>
  %rf = nova.fused(%pf) : (tensor<64x48xf32>) -> tensor<64x48xf32> {
  ^bb0(%a: tensor<64x48xf32>):
    %t = nova.tanh %a : tensor<64x48xf32>
    nova.yield %t : tensor<64x48xf32>
  }
  %q = nova.matmul %x, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %rq = nova.fused(%q) : (tensor<64x48xbf16>) -> tensor<64x48xf32> {
  ^bb0(%a: tensor<64x48xbf16>):
    %c = nova.cast %a : tensor<64x48xbf16> -> tensor<64x48xf32>
    %t = nova.tanh %c : tensor<64x48xf32>
    nova.yield %t : tensor<64x48xf32>
  }
  return %r, %rf, %rq : tensor<8x48xf32>, tensor<64x48xf32>, tensor<64x48xf32>
}
