// RUN: nova-opt %s --split-input-file --nova-fuse-elementwise | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-fuse-elementwise=column-sums | FileCheck %s --check-prefix=COLUMNS

// A residual add, the layer norm after it and the bf16 cast for the next
// matmul: one region over the [8 x 4, 64] row space. The sum (used by the
// next residual add) and rstd (saved for the backward) are results too;
// the constants and the broadcasts are copied in.
// CHECK-LABEL: func.func @residual_layer_norm
// CHECK:       %[[F:.*]]:3 = nova.fused(%arg1, %arg0, %arg2, %arg3) : (tensor<32x64xbf16>, tensor<8x4x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<32x64xbf16>, tensor<8x4x1xf32>, tensor<8x4x64xf32>) {
// CHECK-NEXT:  ^bb0(%[[R:.*]]: tensor<32x64xbf16>, %[[X:.*]]: tensor<8x4x64xf32>, %[[W:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<64xf32>):
// CHECK-DAG:     nova.constant dense<6.400000e+01> : tensor<8x4x1xf32>
// CHECK-DAG:     nova.reshape %[[R]] : tensor<32x64xbf16> -> tensor<8x4x64xbf16>
// CHECK:         %[[H:.*]] = nova.add %[[X]], %{{.*}} : tensor<8x4x64xf32>
// CHECK:         nova.reduce_mean %[[H]] dims = [2] keepdim
// CHECK:         nova.reduce_sum
// CHECK:         %[[RSTD:.*]] = nova.rsqrt
// CHECK:         nova.broadcast_in_dim %[[W]] dims = [2]
// CHECK:         %[[Y:.*]] = nova.cast %{{.*}} : tensor<32x64xf32> -> tensor<32x64xbf16>
// CHECK-NEXT:    nova.yield %[[Y]], %[[RSTD]], %[[H]]
// CHECK:       nova.matmul %[[F]]#0, %arg4
// CHECK:       return %{{.*}}, %[[F]]#2, %[[F]]#1
func.func @residual_layer_norm(%x: tensor<8x4x64xf32>, %r: tensor<32x64xbf16>, %w: tensor<64xf32>, %b: tensor<64xf32>, %m: tensor<64x16xbf16>) -> (tensor<32x16xbf16>, tensor<8x4x64xf32>, tensor<8x4x1xf32>) {
  %n = nova.constant dense<6.400000e+01> : tensor<8x4x1xf32>
  %eps = nova.constant dense<1.000000e-05> : tensor<8x4x1xf32>
  %r3 = nova.reshape %r : tensor<32x64xbf16> -> tensor<8x4x64xbf16>
  %rf = nova.cast %r3 : tensor<8x4x64xbf16> -> tensor<8x4x64xf32>
  %h = nova.add %x, %rf : tensor<8x4x64xf32>
  %mean = nova.reduce_mean %h dims = [2] keepdim : tensor<8x4x64xf32> -> tensor<8x4x1xf32>
  %mb = nova.broadcast_in_dim %mean dims = [0, 1, 2] : tensor<8x4x1xf32> -> tensor<8x4x64xf32>
  %c = nova.sub %h, %mb : tensor<8x4x64xf32>
  %sq = nova.mul %c, %c : tensor<8x4x64xf32>
  %ss = nova.reduce_sum %sq dims = [2] keepdim : tensor<8x4x64xf32> -> tensor<8x4x1xf32>
  %var = nova.div %ss, %n : tensor<8x4x1xf32>
  %ve = nova.add %var, %eps : tensor<8x4x1xf32>
  %rstd = nova.rsqrt %ve : tensor<8x4x1xf32>
  %rb = nova.broadcast_in_dim %rstd dims = [0, 1, 2] : tensor<8x4x1xf32> -> tensor<8x4x64xf32>
  %xh = nova.mul %c, %rb : tensor<8x4x64xf32>
  %wb = nova.broadcast_in_dim %w dims = [2] : tensor<64xf32> -> tensor<8x4x64xf32>
  %y0 = nova.mul %xh, %wb : tensor<8x4x64xf32>
  %bb = nova.broadcast_in_dim %b dims = [2] : tensor<64xf32> -> tensor<8x4x64xf32>
  %y1 = nova.add %y0, %bb : tensor<8x4x64xf32>
  %y2 = nova.reshape %y1 : tensor<8x4x64xf32> -> tensor<32x64xf32>
  %y = nova.cast %y2 : tensor<32x64xf32> -> tensor<32x64xbf16>
  %out = nova.matmul %y, %m : tensor<32x64xbf16>, tensor<64x16xbf16> -> tensor<32x16xbf16>
  return %out, %h, %rstd : tensor<32x16xbf16>, tensor<8x4x64xf32>, tensor<8x4x1xf32>
}

// -----

// %a feeds the matmul that %b also uses: putting %a in %b's group would
// make the group wait for the matmul that waits for it, so they are two
// groups, the first before the matmul. The matmul's operands (a transpose)
// stop a group too.
// CHECK-LABEL: func.func @no_cycle
// CHECK:       %[[A:.*]] = nova.fused(%arg0, %arg1)
// CHECK:         nova.add
// CHECK:       %[[M:.*]] = nova.matmul %[[A]], %{{.*}}
// CHECK:       nova.fused(%[[A]], %[[M]])
// CHECK:         nova.mul
// CHECK:         nova.exp
func.func @no_cycle(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = nova.add %x, %y : tensor<16x16xf32>
  %wt = nova.transpose %w permutation = [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %m = nova.matmul %a, %wt : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %p = nova.mul %a, %m : tensor<16x16xf32>
  %e = nova.exp %p : tensor<16x16xf32>
  return %e : tensor<16x16xf32>
}

// -----

// A broadcast along the batch (a position table added to every sequence)
// is not in the row space: it stays outside, its result an input. A
// reduction over a leading dim ends a group.
// CHECK-LABEL: func.func @outside_the_row_space
// CHECK:       %[[P:.*]] = nova.broadcast_in_dim %arg1 dims = [1, 2]
// CHECK:       %[[F:.*]] = nova.fused(%arg0, %[[P]])
// CHECK-NOT:     broadcast_in_dim
// CHECK:         nova.add
// CHECK:         nova.tanh
// CHECK:       nova.reduce_sum %[[F]] dims = [0]
func.func @outside_the_row_space(%x: tensor<2x8x32xf32>, %pos: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %p = nova.broadcast_in_dim %pos dims = [1, 2] : tensor<8x32xf32> -> tensor<2x8x32xf32>
  %s = nova.add %x, %p : tensor<2x8x32xf32>
  %t = nova.tanh %s : tensor<2x8x32xf32>
  %r = nova.reduce_sum %t dims = [0] : tensor<2x8x32xf32> -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// One splat constant and one bias broadcast shared by two groups (the
// second group starts where a transpose ends the first): each region gets
// its own copy, no broadcast result is stored.
// CHECK-LABEL: func.func @copies
// CHECK:       nova.fused(%arg1, %arg0) : (tensor<32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK:         nova.constant dense<2.000000e+00>
// CHECK:         nova.broadcast_in_dim
// CHECK:       nova.transpose
// CHECK:       nova.fused(%arg1, %{{.*}}) : (tensor<32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK:         nova.constant dense<2.000000e+00>
// CHECK:         nova.broadcast_in_dim
// CHECK-NOT:   nova.broadcast_in_dim
func.func @copies(%x: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  %two = nova.constant dense<2.000000e+00> : tensor<16x32xf32>
  %bb = nova.broadcast_in_dim %b dims = [1] : tensor<32xf32> -> tensor<16x32xf32>
  %a = nova.mul %x, %two : tensor<16x32xf32>
  %a2 = nova.add %a, %bb : tensor<16x32xf32>
  %t = nova.reshape %a2 : tensor<16x32xf32> -> tensor<32x16xf32>
  %tt = nova.transpose %t permutation = [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %c = nova.mul %tt, %two : tensor<16x32xf32>
  %c2 = nova.add %c, %bb : tensor<16x32xf32>
  return %c2 : tensor<16x32xf32>
}

// -----

// The layer-norm backward's column sums (the gain's gradient sums dy * xhat
// over all rows, the bias's sums dy through a reshape) join the group that
// makes dy: the region yields f32 partials over groups of rows (8192 rows:
// 8 a group, which leaves the 1024 groups nova-split-reductions spreads over
// the GPU), and a reduction over the groups finishes each sum outside,
// rounded to its type once.
// CHECK-LABEL: func.func @column_sums
// CHECK:       %[[F:.*]]:3 = nova.fused(%arg0, %arg1) : (tensor<8192x64xbf16>, tensor<8192x64xf32>) -> (tensor<8192x64xf32>, tensor<1024x64xf32>, tensor<1024x64xf32>)
// CHECK:         %[[D:.*]] = nova.cast %{{.*}} : tensor<8192x64xbf16> -> tensor<8192x64xf32>
// CHECK:         %[[G:.*]] = nova.mul %[[D]]
// CHECK:         nova.reshape %[[G]] : tensor<8192x64xf32> -> tensor<1024x8x64xf32>
// CHECK:         %[[DG:.*]] = nova.reduce_sum %{{.*}} dims = [1] : tensor<1024x8x64xf32> -> tensor<1024x64xf32>
// CHECK:         nova.reshape %{{.*}} : tensor<2x4096x64xf32> -> tensor<1024x8x64xf32>
// CHECK:         %[[DB:.*]] = nova.reduce_sum %{{.*}} dims = [1] : tensor<1024x8x64xf32> -> tensor<1024x64xf32>
// CHECK:         nova.yield %[[D]], %[[DG]], %[[DB]]
// CHECK:       %[[W:.*]] = nova.reduce_sum %[[F]]#1 dims = [0] : tensor<1024x64xf32> -> tensor<64xf32>
// CHECK:       %[[B:.*]] = nova.reduce_sum %[[F]]#2 dims = [0] : tensor<1024x64xf32> -> tensor<64xf32>
// CHECK:       %[[BB:.*]] = nova.cast %[[B]] : tensor<64xf32> -> tensor<64xbf16>
// CHECK:       return %[[F]]#0, %[[W]], %[[BB]]
// For CUDA (column-sums) both sums over the groups are one more region that
// only reduces its inputs over dim 0 (Nova's column-sums kernel, one
// launch); the bf16 result's cast stays outside.
// COLUMNS-LABEL: func.func @column_sums
// COLUMNS:       %[[F:.*]]:3 = nova.fused(%arg0, %arg1)
// COLUMNS:         nova.yield
// COLUMNS:       %[[S:.*]]:2 = nova.fused(%[[F]]#1, %[[F]]#2) : (tensor<1024x64xf32>, tensor<1024x64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
// COLUMNS-NEXT:  ^bb0(%[[P:.*]]: tensor<1024x64xf32>, %[[Q:.*]]: tensor<1024x64xf32>):
// COLUMNS-NEXT:    %[[W:.*]] = nova.reduce_sum %[[P]] dims = [0] : tensor<1024x64xf32> -> tensor<64xf32>
// COLUMNS-NEXT:    %[[B:.*]] = nova.reduce_sum %[[Q]] dims = [0] : tensor<1024x64xf32> -> tensor<64xf32>
// COLUMNS-NEXT:    nova.yield %[[W]], %[[B]]
// COLUMNS:       %[[BB:.*]] = nova.cast %[[S]]#1 : tensor<64xf32> -> tensor<64xbf16>
// COLUMNS:       return %[[F]]#0, %[[S]]#0, %[[BB]]
func.func @column_sums(%dy: tensor<8192x64xbf16>, %xhat: tensor<8192x64xf32>) -> (tensor<8192x64xf32>, tensor<64xf32>, tensor<64xbf16>) {
  %d = nova.cast %dy : tensor<8192x64xbf16> -> tensor<8192x64xf32>
  %g = nova.mul %d, %xhat : tensor<8192x64xf32>
  %dgamma = nova.reduce_sum %g dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %d3 = nova.reshape %d : tensor<8192x64xf32> -> tensor<2x4096x64xf32>
  %b3 = nova.cast %d3 : tensor<2x4096x64xf32> -> tensor<2x4096x64xbf16>
  %dbeta = nova.reduce_sum %b3 dims = [0, 1] : tensor<2x4096x64xbf16> -> tensor<64xbf16>
  return %d, %dgamma, %dbeta : tensor<8192x64xf32>, tensor<64xf32>, tensor<64xbf16>
}

// -----

// The same sums written after the input gradient that needs the row sums
// (a layer norm's backward in the order torch may trace it): column sums
// seed groups only after everything else, so they still join the row
// reductions' group rather than taking dy's cast into a group of their own
// (which then stored an f32 copy of dy for the input gradient).
// CHECK-LABEL: func.func @column_sums_after_rows
// CHECK:       %[[F:.*]]:3 = nova.fused(%arg0, %arg1) : (tensor<8192x64xbf16>, tensor<8192x64xf32>) -> (tensor<8192x64xf32>, tensor<1024x64xf32>, tensor<1024x64xf32>)
// CHECK:         nova.reduce_sum %{{.*}} dims = [1] keepdim : tensor<8192x64xf32> -> tensor<8192x1xf32>
// CHECK:         nova.reduce_sum %{{.*}} dims = [1] : tensor<1024x8x64xf32> -> tensor<1024x64xf32>
// CHECK:         nova.reduce_sum %{{.*}} dims = [1] : tensor<1024x8x64xf32> -> tensor<1024x64xf32>
// CHECK:         nova.yield
// CHECK-NOT:   nova.fused
// CHECK:       return
func.func @column_sums_after_rows(%dy: tensor<8192x64xbf16>, %xhat: tensor<8192x64xf32>) -> (tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %d = nova.cast %dy : tensor<8192x64xbf16> -> tensor<8192x64xf32>
  %s = nova.reduce_sum %d dims = [1] keepdim : tensor<8192x64xf32> -> tensor<8192x1xf32>
  %sb = nova.broadcast_in_dim %s dims = [0, 1] : tensor<8192x1xf32> -> tensor<8192x64xf32>
  %dx = nova.sub %d, %sb : tensor<8192x64xf32>
  %g = nova.mul %d, %xhat : tensor<8192x64xf32>
  %dgamma = nova.reduce_sum %g dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %dbeta = nova.reduce_sum %d dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  return %dx, %dgamma, %dbeta : tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// A weight gradient's cast to f32 that only the optimizer reads (through
// its transpose) is left to IREE, which computes it inside the update's
// dispatch instead of storing it; the same cast feeding a matmul is fused.
// CHECK-LABEL: func.func @gradient_cast
// CHECK-NOT:   nova.fused
// CHECK:       nova.cast %arg1
// CHECK:       nova.transpose
// CHECK:       nova.adamw
// CHECK:       nova.fused(%arg1)
// CHECK:         nova.cast
// CHECK:       nova.matmul
func.func @gradient_cast(%p: tensor<32x16xf32>, %g: tensor<16x32xbf16>, %m: tensor<32x16xf32>, %v: tensor<32x16xf32>, %s: tensor<f32>, %x: tensor<8x16xf32>) -> (tensor<32x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>, tensor<8x32xf32>) {
  %gf = nova.cast %g : tensor<16x32xbf16> -> tensor<16x32xf32>
  %gt = nova.transpose %gf permutation = [1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  %np, %nm, %nv = nova.adamw %p, %gt, %m, %v step(%s) lr(%s) betas(%s, %s) eps(%s) weight_decay(%s) : tensor<32x16xf32>
  %g2 = nova.cast %g : tensor<16x32xbf16> -> tensor<16x32xf32>
  %y = nova.matmul %x, %g2 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %np, %nm, %nv, %y : tensor<32x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>, tensor<8x32xf32>
}

// -----

// A TF32 GEMM operand's rounding joins the region that makes the operand;
// the unrounded value is a result too where something else reads it.
// CHECK-LABEL: func.func @round_tf32_joins
// CHECK:       %[[F:.*]]:2 = nova.fused(%arg0)
// CHECK:         %[[G:.*]] = nova.tanh
// CHECK-NEXT:    %[[R:.*]] = nova.round_tf32 %[[G]]
// CHECK-NEXT:    nova.yield %[[R]], %[[G]]
// CHECK:       nova.matmul %[[F]]#0, %arg1
// CHECK:       return %{{.*}}, %[[F]]#1
func.func @round_tf32_joins(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>) -> (tensor<64x32xf32>, tensor<64x128xf32>) {
  %s = nova.mul %x, %x : tensor<64x128xf32>
  %g = nova.tanh %s : tensor<64x128xf32>
  %r = nova.round_tf32 %g : tensor<64x128xf32>
  %y = nova.matmul %r, %w {transpose_rhs} : tensor<64x128xf32>, tensor<32x128xf32> -> tensor<64x32xf32>
  return %y, %g : tensor<64x32xf32>, tensor<64x128xf32>
}

// -----

// A GELU-like forward and its backward share tanh(c x) (CSE merged them).
// The backward's region cannot take tanh in (the forward leads to dy
// through the matmuls), so it recomputes it from x, which the forward's
// region reads too: the forward yields only g (tanh is not stored and read
// back), the backward reads x and dy.
// CHECK-LABEL: func.func @gelu_recomputed
// CHECK:         %[[X:.*]] = nova.matmul %arg0, %arg1
// CHECK:         %[[G:.*]] = nova.fused(%[[X]]) : (tensor<64x32xf32>) -> tensor<64x32xf32> {
// CHECK:           nova.tanh
// CHECK:           nova.yield
// CHECK:         %[[Y:.*]] = nova.matmul %[[G]], %arg1
// CHECK:         %[[DY:.*]] = nova.matmul %[[Y]], %arg1
// CHECK:         nova.fused(%[[X]], %[[DY]]) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32> {
// CHECK:           %[[T:.*]] = nova.tanh
// CHECK:           nova.mul %[[T]], %[[T]]
// CHECK:           nova.yield
// CHECK-NOT:     nova.tanh
func.func @gelu_recomputed(%a: tensor<64x32xf32>, %w: tensor<32x32xf32>) -> tensor<64x32xf32> {
  %x = nova.matmul %a, %w : tensor<64x32xf32>, tensor<32x32xf32> -> tensor<64x32xf32>
  %c = nova.constant dense<7.978850e-01> : tensor<64x32xf32>
  %one = nova.constant dense<1.000000e+00> : tensor<64x32xf32>
  %xc = nova.mul %x, %c : tensor<64x32xf32>
  %t = nova.tanh %xc : tensor<64x32xf32>
  %t1 = nova.add %t, %one : tensor<64x32xf32>
  %g = nova.mul %x, %t1 : tensor<64x32xf32>
  %y = nova.matmul %g, %w : tensor<64x32xf32>, tensor<32x32xf32> -> tensor<64x32xf32>
  %dy = nova.matmul %y, %w : tensor<64x32xf32>, tensor<32x32xf32> -> tensor<64x32xf32>
  %tt = nova.mul %t, %t : tensor<64x32xf32>
  %s = nova.sub %one, %tt : tensor<64x32xf32>
  %d = nova.mul %dy, %s : tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

// The same in bf16, as torch computes it: x = matmul + bias, reshaped and
// cast to f32 before the shared tanh. The recomputation goes through the
// reshape to the bias add (from the matmul's result, which both regions
// read), so the forward's region stores only g, not x + bias as well.
// CHECK-LABEL: func.func @gelu_bf16_recomputed
// CHECK:         %[[X:.*]] = nova.matmul %arg0, %arg1
// CHECK:         %[[G:.*]] = nova.fused(%arg2, %[[X]]) : (tensor<32xbf16>, tensor<64x32xbf16>) -> tensor<4x16x32xbf16> {
// CHECK:           nova.tanh
// CHECK:           nova.yield
// CHECK:         nova.fused(%arg2, %[[X]], %{{.*}}) : (tensor<32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<4x16x32xf32> {
// CHECK:           nova.add
// CHECK:           %[[T:.*]] = nova.tanh
// CHECK:           nova.mul %[[T]], %[[T]]
// CHECK:           nova.yield
// CHECK-NOT:     nova.tanh
func.func @gelu_bf16_recomputed(%a: tensor<64x32xbf16>, %w: tensor<32x32xbf16>, %bias: tensor<32xbf16>) -> tensor<4x16x32xf32> {
  %m = nova.matmul %a, %w : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xbf16>
  %bb = nova.broadcast_in_dim %bias dims = [1] : tensor<32xbf16> -> tensor<64x32xbf16>
  %xb = nova.add %m, %bb : tensor<64x32xbf16>
  %x3 = nova.reshape %xb : tensor<64x32xbf16> -> tensor<4x16x32xbf16>
  %x = nova.cast %x3 : tensor<4x16x32xbf16> -> tensor<4x16x32xf32>
  %c = nova.constant dense<7.978850e-01> : tensor<4x16x32xf32>
  %one = nova.constant dense<1.000000e+00> : tensor<4x16x32xf32>
  %xc = nova.mul %x, %c : tensor<4x16x32xf32>
  %t = nova.tanh %xc : tensor<4x16x32xf32>
  %t1 = nova.add %t, %one : tensor<4x16x32xf32>
  %g32 = nova.mul %x, %t1 : tensor<4x16x32xf32>
  %g = nova.cast %g32 : tensor<4x16x32xf32> -> tensor<4x16x32xbf16>
  %g2 = nova.reshape %g : tensor<4x16x32xbf16> -> tensor<64x32xbf16>
  %y = nova.matmul %g2, %w : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xbf16>
  %dy2 = nova.matmul %y, %w : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xbf16>
  %dy = nova.reshape %dy2 : tensor<64x32xbf16> -> tensor<4x16x32xbf16>
  %dyf = nova.cast %dy : tensor<4x16x32xbf16> -> tensor<4x16x32xf32>
  %tt = nova.mul %t, %t : tensor<4x16x32xf32>
  %s = nova.sub %one, %tt : tensor<4x16x32xf32>
  %d = nova.mul %dyf, %s : tensor<4x16x32xf32>
  return %d : tensor<4x16x32xf32>
}

// -----

// A producer first reached through a path whose ops have not joined yet
// (the walk from the subtraction reaches the cast through the row sum
// before the scaling by the gain): blocked then, it joins once they have,
// and so does its column sum, in the one region.
// CHECK-LABEL: func.func @blocked_then_joined
// CHECK:         %[[R:.+]]:2 = nova.fused(%arg0, %arg1, %arg3, %arg2)
// CHECK:           nova.cast
// CHECK:           nova.reduce_sum %{{.+}} dims = [2] keepdim
// CHECK:           nova.reduce_sum %{{.+}} dims = [1] : tensor<4x16x32xf32> -> tensor<4x32xf32>
// CHECK:         nova.reduce_sum %[[R]]#1 dims = [0] : tensor<4x32xf32> -> tensor<32xf32>
// CHECK-NOT:     nova.fused
func.func @blocked_then_joined(%m: tensor<64x32xbf16>, %g: tensor<32xf32>, %xh: tensor<4x16x32xf32>, %s: tensor<4x16x32xf32>) -> (tensor<4x16x32xf32>, tensor<32xf32>) {
  %c = nova.cast %m : tensor<64x32xbf16> -> tensor<64x32xf32>
  %r = nova.reshape %c : tensor<64x32xf32> -> tensor<4x16x32xf32>
  %gb = nova.broadcast_in_dim %g dims = [2] : tensor<32xf32> -> tensor<4x16x32xf32>
  %a1 = nova.mul %r, %gb : tensor<4x16x32xf32>
  %a2 = nova.mul %a1, %s : tensor<4x16x32xf32>
  %b = nova.mul %r, %xh : tensor<4x16x32xf32>
  %rs = nova.reduce_sum %b dims = [2] keepdim : tensor<4x16x32xf32> -> tensor<4x16x1xf32>
  %rsb = nova.broadcast_in_dim %rs dims = [0, 1, 2] : tensor<4x16x1xf32> -> tensor<4x16x32xf32>
  %d = nova.sub %a2, %rsb : tensor<4x16x32xf32>
  %bias = nova.reduce_sum %r dims = [0, 1] : tensor<4x16x32xf32> -> tensor<32xf32>
  return %d, %bias : tensor<4x16x32xf32>, tensor<32xf32>
}

// -----

// An operand made for something that leads to the group ((u + v) * s1 + s2,
// which a matmul also reads) is recomputed inside it, unless the kernel
// would then bind more than the 16 buffers IREE's CUDA HAL takes: with 11
// column inputs it reads the operand (15 buffers, not 17).
// CHECK-LABEL: func.func @too_many_buffers
// CHECK:         %[[P:.+]] = nova.fused(%arg0, %arg1, %arg2, %arg3)
// CHECK:         %[[W:.+]] = nova.matmul %[[P]], %arg4
// CHECK:         nova.fused(%[[P]], %[[W]], %arg0, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15) :
func.func @too_many_buffers(%u: tensor<64x32xf32>, %v: tensor<64x32xf32>, %s1: tensor<64x1xf32>, %s2: tensor<64x1xf32>, %wm: tensor<32x32xf32>, %c0: tensor<32xf32>, %c1: tensor<32xf32>, %c2: tensor<32xf32>, %c3: tensor<32xf32>, %c4: tensor<32xf32>, %c5: tensor<32xf32>, %c6: tensor<32xf32>, %c7: tensor<32xf32>, %c8: tensor<32xf32>, %c9: tensor<32xf32>, %c10: tensor<32xf32>) -> tensor<64x32xf32> {
  %sum = nova.add %u, %v : tensor<64x32xf32>
  %b1 = nova.broadcast_in_dim %s1 dims = [0, 1] : tensor<64x1xf32> -> tensor<64x32xf32>
  %b2 = nova.broadcast_in_dim %s2 dims = [0, 1] : tensor<64x1xf32> -> tensor<64x32xf32>
  %scaled = nova.mul %sum, %b1 : tensor<64x32xf32>
  %p = nova.add %scaled, %b2 : tensor<64x32xf32>
  %w = nova.matmul %p, %wm : tensor<64x32xf32>, tensor<32x32xf32> -> tensor<64x32xf32>
  %q = nova.mul %p, %w : tensor<64x32xf32>
  %y0 = nova.mul %q, %u : tensor<64x32xf32>
  %cb0 = nova.broadcast_in_dim %c0 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y1 = nova.add %y0, %cb0 : tensor<64x32xf32>
  %cb1 = nova.broadcast_in_dim %c1 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y2 = nova.add %y1, %cb1 : tensor<64x32xf32>
  %cb2 = nova.broadcast_in_dim %c2 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y3 = nova.add %y2, %cb2 : tensor<64x32xf32>
  %cb3 = nova.broadcast_in_dim %c3 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y4 = nova.add %y3, %cb3 : tensor<64x32xf32>
  %cb4 = nova.broadcast_in_dim %c4 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y5 = nova.add %y4, %cb4 : tensor<64x32xf32>
  %cb5 = nova.broadcast_in_dim %c5 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y6 = nova.add %y5, %cb5 : tensor<64x32xf32>
  %cb6 = nova.broadcast_in_dim %c6 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y7 = nova.add %y6, %cb6 : tensor<64x32xf32>
  %cb7 = nova.broadcast_in_dim %c7 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y8 = nova.add %y7, %cb7 : tensor<64x32xf32>
  %cb8 = nova.broadcast_in_dim %c8 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y9 = nova.add %y8, %cb8 : tensor<64x32xf32>
  %cb9 = nova.broadcast_in_dim %c9 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y10 = nova.add %y9, %cb9 : tensor<64x32xf32>
  %cb10 = nova.broadcast_in_dim %c10 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y11 = nova.add %y10, %cb10 : tensor<64x32xf32>
  return %y11 : tensor<64x32xf32>
}

// -----

// With 3 column inputs the recomputation fits (11 buffers): the group reads
// v, s1 and s2 instead of the operand.
// CHECK-LABEL: func.func @few_buffers
// CHECK:         %[[P:.+]] = nova.fused(%arg0, %arg1, %arg2, %arg3)
// CHECK:         %[[W:.+]] = nova.matmul %[[P]], %arg4
// CHECK:         nova.fused(%arg0, %arg1, %arg2, %arg3, %[[W]],
func.func @few_buffers(%u: tensor<64x32xf32>, %v: tensor<64x32xf32>, %s1: tensor<64x1xf32>, %s2: tensor<64x1xf32>, %wm: tensor<32x32xf32>, %c0: tensor<32xf32>, %c1: tensor<32xf32>, %c2: tensor<32xf32>) -> tensor<64x32xf32> {
  %sum = nova.add %u, %v : tensor<64x32xf32>
  %b1 = nova.broadcast_in_dim %s1 dims = [0, 1] : tensor<64x1xf32> -> tensor<64x32xf32>
  %b2 = nova.broadcast_in_dim %s2 dims = [0, 1] : tensor<64x1xf32> -> tensor<64x32xf32>
  %scaled = nova.mul %sum, %b1 : tensor<64x32xf32>
  %p = nova.add %scaled, %b2 : tensor<64x32xf32>
  %w = nova.matmul %p, %wm : tensor<64x32xf32>, tensor<32x32xf32> -> tensor<64x32xf32>
  %q = nova.mul %p, %w : tensor<64x32xf32>
  %y0 = nova.mul %q, %u : tensor<64x32xf32>
  %cb0 = nova.broadcast_in_dim %c0 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y1 = nova.add %y0, %cb0 : tensor<64x32xf32>
  %cb1 = nova.broadcast_in_dim %c1 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y2 = nova.add %y1, %cb1 : tensor<64x32xf32>
  %cb2 = nova.broadcast_in_dim %c2 dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y3 = nova.add %y2, %cb2 : tensor<64x32xf32>
  return %y3 : tensor<64x32xf32>
}

// -----

// Two regions' column sums (a layer's norm gains and the next's, with a
// matmul between): on CUDA one column-sums region at the second one's
// place, the first region's partials among its inputs.
// CHECK-LABEL: func.func @column_sums_merged
// CHECK-COUNT-2: nova.reduce_sum %{{.*}} dims = [0] : tensor<1024x64xf32> -> tensor<64xf32>
// COLUMNS-LABEL: func.func @column_sums_merged
// COLUMNS:       %[[A:.*]]:2 = nova.fused(%arg0, %arg1)
// COLUMNS:       nova.matmul %[[A]]#0
// COLUMNS:       %[[B:.*]]:2 = nova.fused
// COLUMNS:       %[[S:.*]]:2 = nova.fused(%[[A]]#1, %[[B]]#1) : (tensor<1024x64xf32>, tensor<1024x64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
// COLUMNS-NOT:   nova.fused
// COLUMNS:       return %[[B]]#0, %[[S]]#0, %[[S]]#1
func.func @column_sums_merged(%dy: tensor<8192x64xf32>, %x: tensor<8192x64xf32>, %w: tensor<64x64xf32>) -> (tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a = nova.mul %dy, %x : tensor<8192x64xf32>
  %sa = nova.reduce_sum %a dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %m = nova.matmul %a, %w : tensor<8192x64xf32>, tensor<64x64xf32> -> tensor<8192x64xf32>
  %b = nova.mul %m, %x : tensor<8192x64xf32>
  %sb = nova.reduce_sum %b dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  return %b, %sa, %sb : tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Not merged where the second region reads the first one's sums.
// COLUMNS-LABEL: func.func @column_sums_read
// COLUMNS:       %[[A:.*]]:2 = nova.fused(%arg0, %arg1)
// COLUMNS:       %[[SA:.*]] = nova.fused(%[[A]]#1) : (tensor<1024x64xf32>) -> tensor<64xf32>
// COLUMNS:       %[[B:.*]]:2 = nova.fused
// COLUMNS:       nova.fused(%[[B]]#1) : (tensor<1024x64xf32>) -> tensor<64xf32>
func.func @column_sums_read(%dy: tensor<8192x64xf32>, %x: tensor<8192x64xf32>, %w: tensor<64x64xf32>) -> (tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a = nova.mul %dy, %x : tensor<8192x64xf32>
  %sa = nova.reduce_sum %a dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %m = nova.matmul %a, %w : tensor<8192x64xf32>, tensor<64x64xf32> -> tensor<8192x64xf32>
  %sab = nova.broadcast_in_dim %sa dims = [1] : tensor<64xf32> -> tensor<8192x64xf32>
  %b = nova.mul %m, %sab : tensor<8192x64xf32>
  %sb = nova.reduce_sum %b dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  return %b, %sa, %sb : tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Not merged past what a dispatch binds: 5 + 4 partials (8 inputs and 8
// sums at most).
// COLUMNS-LABEL: func.func @column_sums_bound
// COLUMNS:       %[[A:.*]]:6 = nova.fused(%arg0, %arg1)
// COLUMNS:       nova.fused(%[[A]]#1, %[[A]]#2, %[[A]]#3, %[[A]]#4, %[[A]]#5) : (
// COLUMNS:       %[[B:.*]]:5 = nova.fused
// COLUMNS:       nova.fused(%[[B]]#1, %[[B]]#2, %[[B]]#3, %[[B]]#4) : (
func.func @column_sums_bound(%dy: tensor<8192x64xf32>, %x: tensor<8192x64xf32>, %w: tensor<64x64xf32>)
    -> (tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
        tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a = nova.mul %dy, %x : tensor<8192x64xf32>
  %a2 = nova.mul %a, %a : tensor<8192x64xf32>
  %a3 = nova.add %a, %x : tensor<8192x64xf32>
  %s1 = nova.reduce_sum %a dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %s2 = nova.reduce_sum %a2 dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %s3 = nova.reduce_max %a dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %s4 = nova.reduce_mean %a dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %s5 = nova.reduce_sum %a3 dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %m = nova.matmul %a, %w : tensor<8192x64xf32>, tensor<64x64xf32> -> tensor<8192x64xf32>
  %b = nova.mul %m, %x : tensor<8192x64xf32>
  %b2 = nova.mul %b, %b : tensor<8192x64xf32>
  %t1 = nova.reduce_sum %b dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %t2 = nova.reduce_sum %b2 dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %t3 = nova.reduce_max %b dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  %t4 = nova.reduce_mean %b2 dims = [0] : tensor<8192x64xf32> -> tensor<64xf32>
  return %b, %s1, %s2, %s3, %s4, %s5, %t1, %t2, %t3, %t4 : tensor<8192x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
      tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
