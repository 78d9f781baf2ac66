// RUN: nova-opt %s --nova-form-attention --split-input-file | FileCheck %s

// nova-form-attention on attention as the captured gpt step spells it after
// nova-optimize's decompose + canonicalize + CSE (python/nova/models.py,
// CausalSelfAttention with sdpa=False; here B=2, H=2, T=8, D=4): q and k^T
// reshaped to [B*H, T, *] for a batched matmul, the scale as a splat
// multiplier, masked_fill(~tril) as a select of -inf against a mask built from
// an iota, the decomposed softmax, p @ v; the backward p^T @ dy, dy @ v^T, the
// softmax backward, a select of zeros, the scale, q^T @ ds and ds @ k. The
// reshapes the rewrite leaves behind fold in the canonicalizer that follows it
// in nova-optimize.

// The f32 train step: forward and backward form. k is recovered from k^T by
// a transpose that composes with the one that made k^T; dk^T is replaced by a
// transpose of dk.
// CHECK-LABEL: func.func @causal_f32
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x8x4xf32>, %[[K3:.*]]: tensor<2x8x2x4xf32>, %[[V:.*]]: tensor<2x2x8x4xf32>, %[[DY:.*]]: tensor<2x2x8x4xf32>)
// CHECK-NOT:  nova.matmul
// CHECK-NOT:  nova.reduce_max
// CHECK:      %[[K:.*]] = nova.transpose %[[K3]] permutation = [0, 2, 1, 3] : tensor<2x8x2x4xf32> -> tensor<2x2x8x4xf32>
// CHECK-NEXT: %[[OUT:.*]], %[[LSE:.*]] = nova.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 5.000000e-01 : f64} : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32> -> tensor<2x2x8x4xf32>, tensor<2x2x8xf32>
// CHECK-NEXT: %[[O3:.*]] = nova.reshape %[[OUT]] : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
// CHECK-NEXT: %[[O4:.*]] = nova.reshape %[[O3]] : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = nova.attention_backward %[[DY]], %[[Q]], %[[K]], %[[V]], %[[OUT]], %[[LSE]] {causal, scale = 5.000000e-01 : f64} : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8xf32> -> tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>
// CHECK-NEXT: %[[DV3:.*]] = nova.reshape %[[DV]] : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
// CHECK-NEXT: %[[DQ3:.*]] = nova.reshape %[[DQ]] : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
// CHECK-NEXT: %[[DKT:.*]] = nova.transpose %[[DK]] permutation = [0, 1, 3, 2] : tensor<2x2x8x4xf32> -> tensor<2x2x4x8xf32>
// CHECK-NEXT: %[[DKT3:.*]] = nova.reshape %[[DKT]] : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
// CHECK-NEXT: %[[DV4:.*]] = nova.reshape %[[DV3]]
// CHECK-NEXT: %[[DKT4:.*]] = nova.reshape %[[DKT3]]
// CHECK-NEXT: %[[DQ4:.*]] = nova.reshape %[[DQ3]]
// CHECK-NEXT: %[[DK4:.*]] = nova.transpose %[[DKT4]] permutation = [0, 3, 1, 2]
// CHECK-NEXT: return %[[O4]], %[[DQ4]], %[[DK4]], %[[DV4]]
func.func @causal_f32(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>, %dy: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dp4, %p : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %p, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %gmasked = nova.select %mask, %zero, %g : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xf32>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xf32>, tensor<4x8x8xf32> -> tensor<4x4x8xf32>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xf32>, tensor<4x4x8xf32> -> tensor<4x8x4xf32>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xf32> -> tensor<2x2x4x8xf32>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xf32> -> tensor<2x8x2x4xf32>
  return %o4, %dq4, %dk, %dv4 : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>
}

// -----

// bf16 autocast as captured: bf16 matmuls and forward softmax, the softmax
// backward in f32 between nova.cast ops.
// CHECK-LABEL: func.func @causal_bf16
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x8x4xbf16>, %[[K3:.*]]: tensor<2x8x2x4xbf16>, %[[V:.*]]: tensor<2x2x8x4xbf16>, %[[DY:.*]]: tensor<2x2x8x4xbf16>)
// CHECK-NOT:  nova.matmul
// CHECK-NOT:  nova.cast
// CHECK:      %[[K:.*]] = nova.transpose %[[K3]] permutation = [0, 2, 1, 3] : tensor<2x8x2x4xbf16> -> tensor<2x2x8x4xbf16>
// CHECK-NEXT: %[[OUT:.*]], %[[LSE:.*]] = nova.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 5.000000e-01 : f64} : tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16> -> tensor<2x2x8x4xbf16>, tensor<2x2x8xf32>
// CHECK:      nova.attention_backward %[[DY]], %[[Q]], %[[K]], %[[V]], %[[OUT]], %[[LSE]] {causal, scale = 5.000000e-01 : f64} : tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x2x8xf32> -> tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>
// CHECK-NOT:  nova.matmul
func.func @causal_bf16(%q4: tensor<2x2x8x4xbf16>, %k3: tensor<2x8x2x4xbf16>, %v4: tensor<2x2x8x4xbf16>, %dy: tensor<2x2x8x4xbf16>) -> (tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x8x2x4xbf16>, tensor<2x2x8x4xbf16>) {
  %neginf = nova.constant dense<0xFF80> : tensor<2x2x8x8xbf16>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xbf16>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xbf16>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xbf16> -> tensor<2x2x4x8xbf16>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xbf16> -> tensor<4x8x4xbf16>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xbf16> -> tensor<4x4x8xbf16>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xbf16>, tensor<4x4x8xbf16> -> tensor<4x8x8xbf16>
  %s4 = nova.reshape %s3 : tensor<4x8x8xbf16> -> tensor<2x2x8x8xbf16>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xbf16>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xbf16>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xbf16> -> tensor<2x2x8x1xbf16>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xbf16> -> tensor<2x2x8x8xbf16>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xbf16>
  %e = nova.exp %shifted : tensor<2x2x8x8xbf16>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xbf16> -> tensor<2x2x8x1xbf16>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xbf16> -> tensor<2x2x8x8xbf16>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xbf16>
  %p3 = nova.reshape %p : tensor<2x2x8x8xbf16> -> tensor<4x8x8xbf16>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xbf16> -> tensor<4x8x4xbf16>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xbf16>, tensor<4x8x4xbf16> -> tensor<4x8x4xbf16>
  %o4 = nova.reshape %o3 : tensor<4x8x4xbf16> -> tensor<2x2x8x4xbf16>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xbf16> -> tensor<4x8x4xbf16>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xbf16>, tensor<4x8x4xbf16> -> tensor<4x8x4xbf16>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xbf16>, tensor<4x8x4xbf16> -> tensor<4x8x8xbf16>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xbf16> -> tensor<2x2x8x4xbf16>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xbf16> -> tensor<2x2x8x8xbf16>
  %dpf = nova.cast %dp4 : tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xf32>
  %pf = nova.cast %p : tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dpf, %pf : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %pf, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %ge = nova.cast %g : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xbf16>
  %gmasked = nova.select %mask, %zero, %ge : tensor<2x2x8x8xi1>, tensor<2x2x8x8xbf16>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xbf16>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xbf16> -> tensor<4x8x8xbf16>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xbf16>, tensor<4x8x8xbf16> -> tensor<4x4x8xbf16>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xbf16>, tensor<4x4x8xbf16> -> tensor<4x8x4xbf16>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xbf16> -> tensor<2x2x4x8xbf16>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xbf16> -> tensor<2x2x8x4xbf16>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xbf16> -> tensor<2x8x2x4xbf16>
  return %o4, %dq4, %dk, %dv4 : tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x8x2x4xbf16>, tensor<2x2x8x4xbf16>
}

// -----

// The scores cast to f32 for the softmax and p back to bf16 for p @ v.
// CHECK-LABEL: func.func @causal_bf16_f32_softmax
// CHECK-NOT:  nova.matmul
// CHECK-NOT:  nova.cast
// CHECK:      nova.attention %{{.*}} {causal, scale = 5.000000e-01 : f64} : tensor<2x2x8x4xbf16>
// CHECK:      nova.attention_backward
// CHECK-NOT:  nova.matmul
func.func @causal_bf16_f32_softmax(%q4: tensor<2x2x8x4xbf16>, %k3: tensor<2x8x2x4xbf16>, %v4: tensor<2x2x8x4xbf16>, %dy: tensor<2x2x8x4xbf16>) -> (tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x8x2x4xbf16>, tensor<2x2x8x4xbf16>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xbf16>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xbf16>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xbf16> -> tensor<2x2x4x8xbf16>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xbf16> -> tensor<4x8x4xbf16>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xbf16> -> tensor<4x4x8xbf16>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xbf16>, tensor<4x4x8xbf16> -> tensor<4x8x8xbf16>
  %s4 = nova.reshape %s3 : tensor<4x8x8xbf16> -> tensor<2x2x8x8xbf16>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xbf16>
  %s = nova.cast %scaled : tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xf32>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %s : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %pe = nova.cast %p : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xbf16>
  %p3 = nova.reshape %pe : tensor<2x2x8x8xbf16> -> tensor<4x8x8xbf16>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xbf16> -> tensor<4x8x4xbf16>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xbf16>, tensor<4x8x4xbf16> -> tensor<4x8x4xbf16>
  %o4 = nova.reshape %o3 : tensor<4x8x4xbf16> -> tensor<2x2x8x4xbf16>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xbf16> -> tensor<4x8x4xbf16>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xbf16>, tensor<4x8x4xbf16> -> tensor<4x8x4xbf16>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xbf16>, tensor<4x8x4xbf16> -> tensor<4x8x8xbf16>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xbf16> -> tensor<2x2x8x4xbf16>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xbf16> -> tensor<2x2x8x8xbf16>
  %dpf = nova.cast %dp4 : tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dpf, %p : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %p, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %ge = nova.cast %g : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xbf16>
  %gmasked = nova.select %mask, %zero, %ge : tensor<2x2x8x8xi1>, tensor<2x2x8x8xbf16>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xbf16>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xbf16> -> tensor<4x8x8xbf16>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xbf16>, tensor<4x8x8xbf16> -> tensor<4x4x8xbf16>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xbf16>, tensor<4x4x8xbf16> -> tensor<4x8x4xbf16>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xbf16> -> tensor<2x2x4x8xbf16>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xbf16> -> tensor<2x2x8x4xbf16>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xbf16> -> tensor<2x8x2x4xbf16>
  return %o4, %dq4, %dk, %dv4 : tensor<2x2x8x4xbf16>, tensor<2x2x8x4xbf16>, tensor<2x8x2x4xbf16>, tensor<2x2x8x4xbf16>
}

// -----

// Inference: no backward; the forward forms alone.
// CHECK-LABEL: func.func @causal_inference
// CHECK-NOT:  nova.matmul
// CHECK:      nova.attention %{{.*}} {causal, scale = 5.000000e-01 : f64}
// CHECK-NOT:  nova.attention_backward
// CHECK-NOT:  nova.matmul
func.func @causal_inference(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  return %o4 : tensor<2x2x8x4xf32>
}

// -----

// Not causal: tril(diagonal=-1) also masks the diagonal (j - i <= -1 kept).
// CHECK-LABEL: func.func @tril_diagonal_minus_one
// CHECK-NOT:  nova.attention
// CHECK:      nova.reduce_max
// CHECK:      nova.matmul
// CHECK-NOT:  nova.attention
func.func @tril_diagonal_minus_one(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>, %dy: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %c = nova.constant dense<-1> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dp4, %p : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %p, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %gmasked = nova.select %mask, %zero, %g : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xf32>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xf32>, tensor<4x8x8xf32> -> tensor<4x4x8xf32>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xf32>, tensor<4x4x8xf32> -> tensor<4x8x4xf32>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xf32> -> tensor<2x2x4x8xf32>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xf32> -> tensor<2x8x2x4xf32>
  return %o4, %dq4, %dk, %dv4 : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>
}

// -----

// Not causal: a constant mask of another pattern.
// CHECK-LABEL: func.func @random_mask
// CHECK-NOT:  nova.attention
// CHECK:      nova.reduce_max
// CHECK:      nova.matmul
// CHECK-NOT:  nova.attention
func.func @random_mask(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>, %dy: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %above = nova.constant dense<[[true, true, false, false, true, true, false, false], [true, true, false, false, false, true, true, true], [false, true, true, true, true, false, true, false], [false, false, false, false, false, true, false, true], [true, true, false, true, false, false, false, false], [false, false, false, true, false, true, false, true], [false, true, true, false, false, true, true, false], [false, true, false, true, false, true, true, false]]> : tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dp4, %p : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %p, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %gmasked = nova.select %mask, %zero, %g : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xf32>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xf32>, tensor<4x8x8xf32> -> tensor<4x4x8xf32>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xf32>, tensor<4x4x8xf32> -> tensor<4x8x4xf32>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xf32> -> tensor<2x2x4x8xf32>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xf32> -> tensor<2x8x2x4xf32>
  return %o4, %dq4, %dk, %dv4 : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>
}

// -----

// The softmax runs over dim 2 (the queries), not the last.
// CHECK-LABEL: func.func @softmax_dim2
// CHECK-NOT:  nova.attention
// CHECK:      nova.reduce_max
// CHECK:      nova.matmul
// CHECK-NOT:  nova.attention
func.func @softmax_dim2(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>, %dy: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [2] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x1x8xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x1x8xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [2] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x1x8xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x1x8xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dp4, %p : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [2] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x1x8xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x1x8xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %p, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %gmasked = nova.select %mask, %zero, %g : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xf32>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xf32>, tensor<4x8x8xf32> -> tensor<4x4x8xf32>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xf32>, tensor<4x4x8xf32> -> tensor<4x8x4xf32>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xf32> -> tensor<2x2x4x8xf32>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xf32> -> tensor<2x8x2x4xf32>
  return %o4, %dq4, %dk, %dv4 : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>
}

// -----

// p is also returned: the backward's users are not all recognized.
// CHECK-LABEL: func.func @probs_extra_user
// CHECK-NOT:  nova.attention
// CHECK:      nova.reduce_max
// CHECK:      nova.matmul
// CHECK-NOT:  nova.attention
func.func @probs_extra_user(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>, %dy: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x8xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dp4, %p : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %p, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %gmasked = nova.select %mask, %zero, %g : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xf32>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xf32>, tensor<4x8x8xf32> -> tensor<4x4x8xf32>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xf32>, tensor<4x4x8xf32> -> tensor<4x8x4xf32>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xf32> -> tensor<2x2x4x8xf32>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xf32> -> tensor<2x8x2x4xf32>
  return %o4, %dq4, %dk, %dv4, %p : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x8xf32>
}

// -----

// p is also returned (no backward).
// CHECK-LABEL: func.func @probs_extra_user_inference
// CHECK-NOT:  nova.attention
// CHECK:      nova.reduce_max
// CHECK:      nova.matmul
// CHECK-NOT:  nova.attention
func.func @probs_extra_user_inference(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x8xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %scale = nova.constant dense<5.000000e-01> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  return %o4, %p : tensor<2x2x8x4xf32>, tensor<2x2x8x8xf32>
}

// -----

// The scale is a function argument, not a constant splat.
// CHECK-LABEL: func.func @scale_not_constant
// CHECK-NOT:  nova.attention
// CHECK:      nova.reduce_max
// CHECK:      nova.matmul
// CHECK-NOT:  nova.attention
func.func @scale_not_constant(%q4: tensor<2x2x8x4xf32>, %k3: tensor<2x8x2x4xf32>, %v4: tensor<2x2x8x4xf32>, %dy: tensor<2x2x8x4xf32>, %scale: tensor<2x2x8x8xf32>) -> (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>) {
  %neginf = nova.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %zero = nova.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
  %kt = nova.transpose %k3 permutation = [0, 2, 3, 1] : tensor<2x8x2x4xf32> -> tensor<2x2x4x8xf32>
  %q3 = nova.reshape %q4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt3 = nova.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = nova.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s4 = nova.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %scaled = nova.mul %s4, %scale : tensor<2x2x8x8xf32>
  %c = nova.constant dense<0> : tensor<8x8xi64>
  %true = nova.constant dense<true> : tensor<8x8xi1>
  %false = nova.constant dense<false> : tensor<8x8xi1>
  %iota = nova.iota dim = 0 : tensor<8xi64>
  %row = nova.reshape %iota : tensor<8xi64> -> tensor<1x8xi64>
  %col = nova.reshape %iota : tensor<8xi64> -> tensor<8x1xi64>
  %rowb = nova.broadcast_in_dim %row dims = [0, 1] : tensor<1x8xi64> -> tensor<8x8xi64>
  %colb = nova.broadcast_in_dim %col dims = [0, 1] : tensor<8x1xi64> -> tensor<8x8xi64>
  %diff = nova.sub %rowb, %colb : tensor<8x8xi64>
  %le = nova.compare le, %diff, %c : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
  %tril = nova.select %le, %true, %false : tensor<8x8xi1>, tensor<8x8xi1>
  %above = nova.compare eq, %tril, %false : tensor<8x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  %mask = nova.broadcast_in_dim %above dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %masked = nova.select %mask, %neginf, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %max = nova.reduce_max %masked dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %maxb = nova.broadcast_in_dim %max dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %shifted = nova.sub %masked, %maxb : tensor<2x2x8x8xf32>
  %e = nova.exp %shifted : tensor<2x2x8x8xf32>
  %sum = nova.reduce_sum %e dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %sumb = nova.broadcast_in_dim %sum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = nova.div %e, %sumb : tensor<2x2x8x8xf32>
  %p3 = nova.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = nova.reshape %v4 : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = nova.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o4 = nova.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dy3 = nova.reshape %dy : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %dv3 = nova.matmul %p3, %dy3 {transpose_lhs} : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %dp3 = nova.matmul %dy3, %v3 {transpose_rhs} : tensor<4x8x4xf32>, tensor<4x8x4xf32> -> tensor<4x8x8xf32>
  %dv4 = nova.reshape %dv3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dp4 = nova.reshape %dp3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %pdp = nova.mul %dp4, %p : tensor<2x2x8x8xf32>
  %rowsum = nova.reduce_sum %pdp dims = [3] keepdim : tensor<2x2x8x8xf32> -> tensor<2x2x8x1xf32>
  %rowsumb = nova.broadcast_in_dim %rowsum dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %prs = nova.mul %p, %rowsumb : tensor<2x2x8x8xf32>
  %g = nova.sub %pdp, %prs : tensor<2x2x8x8xf32>
  %gmasked = nova.select %mask, %zero, %g : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %ds = nova.mul %gmasked, %scale : tensor<2x2x8x8xf32>
  %ds3 = nova.reshape %ds : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %dkt3 = nova.matmul %q3, %ds3 {transpose_lhs} : tensor<4x8x4xf32>, tensor<4x8x8xf32> -> tensor<4x4x8xf32>
  %dq3 = nova.matmul %ds3, %kt3 {transpose_rhs} : tensor<4x8x8xf32>, tensor<4x4x8xf32> -> tensor<4x8x4xf32>
  %dkt4 = nova.reshape %dkt3 : tensor<4x4x8xf32> -> tensor<2x2x4x8xf32>
  %dq4 = nova.reshape %dq3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  %dk = nova.transpose %dkt4 permutation = [0, 3, 1, 2] : tensor<2x2x4x8xf32> -> tensor<2x8x2x4xf32>
  return %o4, %dq4, %dk, %dv4 : tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x8x2x4xf32>, tensor<2x2x8x4xf32>
}
