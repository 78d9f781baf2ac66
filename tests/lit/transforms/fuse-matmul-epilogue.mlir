// RUN: nova-opt %s --split-input-file --nova-fuse-matmul-epilogue=target=sm_90 | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-fuse-matmul-epilogue=target=sm_80 | FileCheck %s --check-prefix=AMPERE
// RUN: nova-opt %s --split-input-file --nova-fuse-matmul-epilogue="target=sm_90 stage-inputs=true" | FileCheck %s --check-prefix=STAGED

// A projection's bias add read only by one region (with a column sum of its
// result and a bf16 copy): the matmul becomes the region's first op, its
// operands the region's first inputs.
// CHECK-LABEL: func.func @bias_add
// CHECK-NOT:     nova.matmul %arg0
// CHECK:         %[[R:.+]]:2 = nova.fused(%arg0, %arg1, %arg2) : (tensor<64x32xbf16>, tensor<48x32xbf16>, tensor<48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: tensor<64x32xbf16>, %[[B:.+]]: tensor<48x32xbf16>, %[[BIAS:.+]]: tensor<48xbf16>):
// CHECK-NEXT:      %[[P:.+]] = nova.matmul %[[A]], %[[B]] {transpose_rhs} : tensor<64x32xbf16>, tensor<48x32xbf16> -> tensor<64x48xbf16>
// CHECK:           nova.broadcast_in_dim %[[BIAS]]
// CHECK:           nova.add %[[P]]
// CHECK:           nova.reduce_sum %{{.+}} dims = [1] : tensor<4x16x48xf32> -> tensor<4x48xf32>
// CHECK:         return %[[R]]#0, %[[R]]#1
// AMPERE-LABEL: func.func @bias_add
// AMPERE:         %[[P:.+]] = nova.matmul %arg0, %arg1
// AMPERE:         nova.fused(%arg2, %[[P]])
func.func @bias_add(%x: tensor<64x32xbf16>, %w: tensor<48x32xbf16>, %b: tensor<48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>) {
  %p = nova.matmul %x, %w {transpose_rhs} : tensor<64x32xbf16>, tensor<48x32xbf16> -> tensor<64x48xbf16>
  %r:2 = nova.fused(%b, %p) : (tensor<48xbf16>, tensor<64x48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>) {
  ^bb0(%bias: tensor<48xbf16>, %a: tensor<64x48xbf16>):
    %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y = nova.add %a, %bb : tensor<64x48xbf16>
    %y32 = nova.cast %y : tensor<64x48xbf16> -> tensor<64x48xf32>
    %groups = nova.reshape %y32 : tensor<64x48xf32> -> tensor<4x16x48xf32>
    %sums = nova.reduce_sum %groups dims = [1] : tensor<4x16x48xf32> -> tensor<4x48xf32>
    nova.yield %y, %sums : tensor<64x48xbf16>, tensor<4x48xf32>
  }
  return %r#0, %r#1 : tensor<64x48xbf16>, tensor<4x48xf32>
}

// -----

// An MLP's GELU backward reads the pre-activation at every element besides
// the product. By default the matmul stays; with stage-inputs the kernel
// stages the pre-activation in shared memory under the main loop, and the
// matmul moves into the region.
// CHECK-LABEL: func.func @gelu_backward
// CHECK:         %[[P:.+]] = nova.matmul %arg0, %arg1
// CHECK:         nova.fused(%arg2, %arg3, %[[P]])
// STAGED-LABEL: func.func @gelu_backward
// STAGED-NOT:     nova.matmul %arg0
// STAGED:         %[[R:.+]]:2 = nova.fused(%arg0, %arg1, %arg2, %arg3)
// STAGED-NEXT:    ^bb0(%[[DY:.+]]: tensor<64x32xbf16>, %[[W:.+]]: tensor<32x48xbf16>, %{{.+}}: tensor<48xbf16>, %{{.+}}: tensor<64x48xbf16>):
// STAGED-NEXT:      %[[P:.+]] = nova.matmul %[[DY]], %[[W]]
// STAGED:           nova.cast %[[P]]
// STAGED:         return %[[R]]#0, %[[R]]#1
func.func @gelu_backward(%dy: tensor<64x32xbf16>, %w: tensor<32x48xbf16>, %b: tensor<48xbf16>, %h: tensor<64x48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>) {
  %g = nova.matmul %dy, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %r:2 = nova.fused(%b, %h, %g) : (tensor<48xbf16>, tensor<64x48xbf16>, tensor<64x48xbf16>) -> (tensor<64x48xbf16>, tensor<4x48xf32>) {
  ^bb0(%bias: tensor<48xbf16>, %x: tensor<64x48xbf16>, %d: tensor<64x48xbf16>):
    %half = nova.constant dense<5.000000e-01> : tensor<64x48xf32>
    %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %pre = nova.add %x, %bb : tensor<64x48xbf16>
    %p32 = nova.cast %pre : tensor<64x48xbf16> -> tensor<64x48xf32>
    %t = nova.tanh %p32 : tensor<64x48xf32>
    %dg = nova.mul %t, %half : tensor<64x48xf32>
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

// Two other element inputs, or an f32 one, are more than the kernel stages
// (one bf16 tile): the matmuls stay.
// CHECK-LABEL: func.func @unstaged_inputs
// CHECK-COUNT-2: nova.matmul %arg0, %arg1
// STAGED-LABEL: func.func @unstaged_inputs
// STAGED-COUNT-2: nova.matmul %arg0, %arg1
func.func @unstaged_inputs(%dy: tensor<64x32xbf16>, %w: tensor<32x48xbf16>, %h: tensor<64x48xbf16>, %h2: tensor<64x48xbf16>, %hf: tensor<64x48xf32>) -> (tensor<64x48xbf16>, tensor<64x48xbf16>) {
  %g = nova.matmul %dy, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %r = nova.fused(%h, %h2, %g) : (tensor<64x48xbf16>, tensor<64x48xbf16>, tensor<64x48xbf16>) -> tensor<64x48xbf16> {
  ^bb0(%x: tensor<64x48xbf16>, %y: tensor<64x48xbf16>, %d: tensor<64x48xbf16>):
    %s = nova.add %x, %y : tensor<64x48xbf16>
    %out = nova.mul %s, %d : tensor<64x48xbf16>
    nova.yield %out : tensor<64x48xbf16>
  }
  %g2 = nova.matmul %dy, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %r2 = nova.fused(%hf, %g2) : (tensor<64x48xf32>, tensor<64x48xbf16>) -> tensor<64x48xbf16> {
  ^bb0(%x: tensor<64x48xf32>, %d: tensor<64x48xbf16>):
    %d32 = nova.cast %d : tensor<64x48xbf16> -> tensor<64x48xf32>
    %m = nova.mul %x, %d32 : tensor<64x48xf32>
    %out = nova.cast %m : tensor<64x48xf32> -> tensor<64x48xbf16>
    nova.yield %out : tensor<64x48xbf16>
  }
  return %r, %r2 : tensor<64x48xbf16>, tensor<64x48xbf16>
}

// -----

// A product another op reads too (the forward's fc1 output, which the
// backward reads again): the region yields it as a last result, which the
// other reader reads; the epilogue stores both.
// CHECK-LABEL: func.func @shared_product
// CHECK-NOT:     nova.matmul %arg0
// CHECK:         %[[R:.+]]:2 = nova.fused(%arg0, %arg1) : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> (tensor<64x48xbf16>, tensor<64x48xbf16>)
// CHECK:           %[[P:.+]] = nova.matmul
// CHECK-NEXT:      %[[T:.+]] = nova.tanh %[[P]]
// CHECK-NEXT:      nova.yield %[[T]], %[[P]] : tensor<64x48xbf16>, tensor<64x48xbf16>
// CHECK:         return %[[R]]#0, %[[R]]#1
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

// A product read before the region too: the region's result would come too
// late for that reader, so the matmul stays.
// CHECK-LABEL: func.func @product_read_before
// CHECK:         %[[P:.+]] = nova.matmul %arg0, %arg1
// CHECK:         nova.tanh %[[P]]
// CHECK:         nova.fused(%[[P]])
func.func @product_read_before(%x: tensor<64x32xbf16>, %w: tensor<32x48xbf16>) -> (tensor<64x48xbf16>, tensor<64x48xbf16>) {
  %p = nova.matmul %x, %w : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %q = nova.tanh %p : tensor<64x48xbf16>
  %r = nova.fused(%p) : (tensor<64x48xbf16>) -> tensor<64x48xbf16> {
  ^bb0(%a: tensor<64x48xbf16>):
    %t = nova.tanh %a : tensor<64x48xbf16>
    nova.yield %t : tensor<64x48xbf16>
  }
  return %r, %q : tensor<64x48xbf16>, tensor<64x48xbf16>
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

// -----

// The GEMM binds A, B, the region's other inputs, its results and its
// tensor maps: with 12 column inputs that is 16 buffers, what IREE's CUDA
// HAL binds to a dispatch; with 13 the matmul stays a kernel of its own.
// CHECK-LABEL: func.func @twelve_biases
// CHECK-NOT:     nova.matmul %arg0
// CHECK:         nova.fused(%arg0, %arg1,
// CHECK-LABEL: func.func @thirteen_biases
// CHECK:         %[[P:.+]] = nova.matmul %arg0, %arg1
// CHECK:         nova.fused({{.*}}, %[[P]])
func.func @twelve_biases(%x: tensor<64x32xbf16>, %w: tensor<48x32xbf16>, %c0: tensor<48xbf16>, %c1: tensor<48xbf16>, %c2: tensor<48xbf16>, %c3: tensor<48xbf16>, %c4: tensor<48xbf16>, %c5: tensor<48xbf16>, %c6: tensor<48xbf16>, %c7: tensor<48xbf16>, %c8: tensor<48xbf16>, %c9: tensor<48xbf16>, %c10: tensor<48xbf16>, %c11: tensor<48xbf16>) -> tensor<64x48xbf16> {
  %p = nova.matmul %x, %w {transpose_rhs} : tensor<64x32xbf16>, tensor<48x32xbf16> -> tensor<64x48xbf16>
  %r = nova.fused(%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7, %c8, %c9, %c10, %c11, %p) : (tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<64x48xbf16>) -> tensor<64x48xbf16> {
  ^bb0(%d0: tensor<48xbf16>, %d1: tensor<48xbf16>, %d2: tensor<48xbf16>, %d3: tensor<48xbf16>, %d4: tensor<48xbf16>, %d5: tensor<48xbf16>, %d6: tensor<48xbf16>, %d7: tensor<48xbf16>, %d8: tensor<48xbf16>, %d9: tensor<48xbf16>, %d10: tensor<48xbf16>, %d11: tensor<48xbf16>, %a: tensor<64x48xbf16>):
    %bb0 = nova.broadcast_in_dim %d0 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y0 = nova.add %a, %bb0 : tensor<64x48xbf16>
    %bb1 = nova.broadcast_in_dim %d1 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y1 = nova.add %y0, %bb1 : tensor<64x48xbf16>
    %bb2 = nova.broadcast_in_dim %d2 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y2 = nova.add %y1, %bb2 : tensor<64x48xbf16>
    %bb3 = nova.broadcast_in_dim %d3 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y3 = nova.add %y2, %bb3 : tensor<64x48xbf16>
    %bb4 = nova.broadcast_in_dim %d4 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y4 = nova.add %y3, %bb4 : tensor<64x48xbf16>
    %bb5 = nova.broadcast_in_dim %d5 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y5 = nova.add %y4, %bb5 : tensor<64x48xbf16>
    %bb6 = nova.broadcast_in_dim %d6 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y6 = nova.add %y5, %bb6 : tensor<64x48xbf16>
    %bb7 = nova.broadcast_in_dim %d7 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y7 = nova.add %y6, %bb7 : tensor<64x48xbf16>
    %bb8 = nova.broadcast_in_dim %d8 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y8 = nova.add %y7, %bb8 : tensor<64x48xbf16>
    %bb9 = nova.broadcast_in_dim %d9 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y9 = nova.add %y8, %bb9 : tensor<64x48xbf16>
    %bb10 = nova.broadcast_in_dim %d10 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y10 = nova.add %y9, %bb10 : tensor<64x48xbf16>
    %bb11 = nova.broadcast_in_dim %d11 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y11 = nova.add %y10, %bb11 : tensor<64x48xbf16>
    nova.yield %y11 : tensor<64x48xbf16>
  }
  return %r : tensor<64x48xbf16>
}

func.func @thirteen_biases(%x: tensor<64x32xbf16>, %w: tensor<48x32xbf16>, %c0: tensor<48xbf16>, %c1: tensor<48xbf16>, %c2: tensor<48xbf16>, %c3: tensor<48xbf16>, %c4: tensor<48xbf16>, %c5: tensor<48xbf16>, %c6: tensor<48xbf16>, %c7: tensor<48xbf16>, %c8: tensor<48xbf16>, %c9: tensor<48xbf16>, %c10: tensor<48xbf16>, %c11: tensor<48xbf16>, %c12: tensor<48xbf16>) -> tensor<64x48xbf16> {
  %p = nova.matmul %x, %w {transpose_rhs} : tensor<64x32xbf16>, tensor<48x32xbf16> -> tensor<64x48xbf16>
  %r = nova.fused(%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7, %c8, %c9, %c10, %c11, %c12, %p) : (tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<48xbf16>, tensor<64x48xbf16>) -> tensor<64x48xbf16> {
  ^bb0(%d0: tensor<48xbf16>, %d1: tensor<48xbf16>, %d2: tensor<48xbf16>, %d3: tensor<48xbf16>, %d4: tensor<48xbf16>, %d5: tensor<48xbf16>, %d6: tensor<48xbf16>, %d7: tensor<48xbf16>, %d8: tensor<48xbf16>, %d9: tensor<48xbf16>, %d10: tensor<48xbf16>, %d11: tensor<48xbf16>, %d12: tensor<48xbf16>, %a: tensor<64x48xbf16>):
    %bb0 = nova.broadcast_in_dim %d0 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y0 = nova.add %a, %bb0 : tensor<64x48xbf16>
    %bb1 = nova.broadcast_in_dim %d1 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y1 = nova.add %y0, %bb1 : tensor<64x48xbf16>
    %bb2 = nova.broadcast_in_dim %d2 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y2 = nova.add %y1, %bb2 : tensor<64x48xbf16>
    %bb3 = nova.broadcast_in_dim %d3 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y3 = nova.add %y2, %bb3 : tensor<64x48xbf16>
    %bb4 = nova.broadcast_in_dim %d4 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y4 = nova.add %y3, %bb4 : tensor<64x48xbf16>
    %bb5 = nova.broadcast_in_dim %d5 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y5 = nova.add %y4, %bb5 : tensor<64x48xbf16>
    %bb6 = nova.broadcast_in_dim %d6 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y6 = nova.add %y5, %bb6 : tensor<64x48xbf16>
    %bb7 = nova.broadcast_in_dim %d7 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y7 = nova.add %y6, %bb7 : tensor<64x48xbf16>
    %bb8 = nova.broadcast_in_dim %d8 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y8 = nova.add %y7, %bb8 : tensor<64x48xbf16>
    %bb9 = nova.broadcast_in_dim %d9 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y9 = nova.add %y8, %bb9 : tensor<64x48xbf16>
    %bb10 = nova.broadcast_in_dim %d10 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y10 = nova.add %y9, %bb10 : tensor<64x48xbf16>
    %bb11 = nova.broadcast_in_dim %d11 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y11 = nova.add %y10, %bb11 : tensor<64x48xbf16>
    %bb12 = nova.broadcast_in_dim %d12 dims = [1] : tensor<48xbf16> -> tensor<64x48xbf16>
    %y12 = nova.add %y11, %bb12 : tensor<64x48xbf16>
    nova.yield %y12 : tensor<64x48xbf16>
  }
  return %r : tensor<64x48xbf16>
}
