// RUN: nova-opt %s --nova-decompose-attention --split-input-file | FileCheck %s

// nova-decompose-attention rewrites nova.attention and nova.attention_backward
// into matmuls, an f32 softmax and the causal select. Its splat constants are
// hoisted to the top of the block, so they are matched with CHECK-DAG; the ops
// after them are in a fixed order.

// f32, causal: s = scale * q k^T, -inf where j > i (iota compare), softmax
// over the last dim, out = p v, lse = max + log(sum).
// CHECK-LABEL: func.func @attention_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x16xf32>, %[[K:.*]]: tensor<2x4x8x16xf32>, %[[V:.*]]: tensor<2x4x8x16xf32>)
// CHECK-DAG: %[[NEGINF:.*]] = nova.constant dense<0xFF800000> : tensor<2x4x8x8xf32>
// CHECK-DAG: %[[SCALE:.*]] = nova.constant dense<2.500000e-01> : tensor<2x4x8x8xf32>
// CHECK:      %[[QK:.*]] = nova.matmul %[[Q]], %[[K]] {transpose_rhs} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[S:.*]] = nova.mul %[[QK]], %[[SCALE]] : tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[ROW:.*]] = nova.iota dim = 0 : tensor<8x8xi64>
// CHECK-NEXT: %[[COL:.*]] = nova.iota dim = 1 : tensor<8x8xi64>
// CHECK-NEXT: %[[ABOVE:.*]] = nova.compare gt, %[[COL]], %[[ROW]] : tensor<8x8xi64>, tensor<8x8xi64> -> tensor<8x8xi1>
// CHECK-NEXT: %[[MASK:.*]] = nova.broadcast_in_dim %[[ABOVE]] dims = [2, 3] : tensor<8x8xi1> -> tensor<2x4x8x8xi1>
// CHECK-NEXT: %[[MASKED:.*]] = nova.select %[[MASK]], %[[NEGINF]], %[[S]] : tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[MAX:.*]] = nova.reduce_max %[[MASKED]] dims = [3] : tensor<2x4x8x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[MAXB:.*]] = nova.broadcast_in_dim %[[MAX]] dims = [0, 1, 2] : tensor<2x4x8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[SHIFT:.*]] = nova.sub %[[MASKED]], %[[MAXB]] : tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[EXP:.*]] = nova.exp %[[SHIFT]] : tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = nova.reduce_sum %[[EXP]] dims = [3] : tensor<2x4x8x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[SUMB:.*]] = nova.broadcast_in_dim %[[SUM]] dims = [0, 1, 2] : tensor<2x4x8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[P:.*]] = nova.div %[[EXP]], %[[SUMB]] : tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[OUT:.*]] = nova.matmul %[[P]], %[[V]] : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NEXT: %[[LOG:.*]] = nova.log %[[SUM]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[LSE:.*]] = nova.add %[[MAX]], %[[LOG]] : tensor<2x4x8xf32>
// CHECK-NEXT: return %[[OUT]], %[[LSE]]
func.func @attention_causal(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>) {
  %out, %lse = nova.attention %q, %k, %v {causal, scale = 0.25 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
  return %out, %lse : tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
}

// -----

// bf16 with an additive mask (trailing dims aligned) and Tq != Tk: the
// scores come out of the matmul in f32 for the softmax, p is cast back to
// bf16 for p v.
// CHECK-LABEL: func.func @attention_bf16_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<3x4x16xbf16>, %[[K:.*]]: tensor<3x6x16xbf16>, %[[V:.*]]: tensor<3x6x8xbf16>, %[[M:.*]]: tensor<4x6xbf16>)
// CHECK-DAG: %[[SCALE:.*]] = nova.constant dense<1.250000e-01> : tensor<3x4x6xf32>
// CHECK:      %[[QK:.*]] = nova.matmul %[[Q]], %[[K]] {transpose_rhs} : tensor<3x4x16xbf16>, tensor<3x6x16xbf16> -> tensor<3x4x6xf32>
// CHECK-NEXT: %[[S:.*]] = nova.mul %[[QK]], %[[SCALE]] : tensor<3x4x6xf32>
// CHECK-NEXT: %[[M32:.*]] = nova.cast %[[M]] : tensor<4x6xbf16> -> tensor<4x6xf32>
// CHECK-NEXT: %[[MB:.*]] = nova.broadcast_in_dim %[[M32]] dims = [1, 2] : tensor<4x6xf32> -> tensor<3x4x6xf32>
// CHECK-NEXT: %[[MASKED:.*]] = nova.add %[[S]], %[[MB]] : tensor<3x4x6xf32>
// CHECK-NEXT: %[[MAX:.*]] = nova.reduce_max %[[MASKED]] dims = [2] : tensor<3x4x6xf32> -> tensor<3x4xf32>
// CHECK:      %[[P:.*]] = nova.div %{{.*}}, %{{.*}} : tensor<3x4x6xf32>
// CHECK-NEXT: %[[P16:.*]] = nova.cast %[[P]] : tensor<3x4x6xf32> -> tensor<3x4x6xbf16>
// CHECK-NEXT: %[[OUT:.*]] = nova.matmul %[[P16]], %[[V]] : tensor<3x4x6xbf16>, tensor<3x6x8xbf16> -> tensor<3x4x8xbf16>
// CHECK-NEXT: %[[LOG:.*]] = nova.log %{{.*}} : tensor<3x4xf32>
// CHECK-NEXT: %[[LSE:.*]] = nova.add %[[MAX]], %[[LOG]] : tensor<3x4xf32>
// CHECK-NEXT: return %[[OUT]], %[[LSE]]
func.func @attention_bf16_mask(%q: tensor<3x4x16xbf16>, %k: tensor<3x6x16xbf16>, %v: tensor<3x6x8xbf16>, %m: tensor<4x6xbf16>) -> (tensor<3x4x8xbf16>, tensor<3x4xf32>) {
  %out, %lse = nova.attention %q, %k, %v mask(%m : tensor<4x6xbf16>) {scale = 0.125 : f64} : tensor<3x4x16xbf16>, tensor<3x6x16xbf16>, tensor<3x6x8xbf16> -> tensor<3x4x8xbf16>, tensor<3x4xf32>
  return %out, %lse : tensor<3x4x8xbf16>, tensor<3x4xf32>
}

// -----

// The backward recomputes p = exp(s - lse) (f32), then dv = p^T dout,
// dp = dout v^T (f32 result), D = rowsum(p * dp) (softmax's backward: out,
// made from another rounding of p, is not read), ds = p (dp - D),
// dq = (scale ds) k, dk = (scale ds)^T q.
// CHECK-LABEL: func.func @attention_backward
// CHECK-SAME: (%[[DO:.*]]: tensor<2x8x16xbf16>, %[[Q:.*]]: tensor<2x8x16xbf16>, %[[K:.*]]: tensor<2x8x16xbf16>, %[[V:.*]]: tensor<2x8x16xbf16>, %[[O:.*]]: tensor<2x8x16xbf16>, %[[L:.*]]: tensor<2x8xf32>)
// CHECK-DAG: %[[NEGINF:.*]] = nova.constant dense<0xFF800000> : tensor<2x8x8xf32>
// CHECK-DAG: %[[SCALE:.*]] = nova.constant dense<2.500000e-01> : tensor<2x8x8xf32>
// CHECK:      %[[QK:.*]] = nova.matmul %[[Q]], %[[K]] {transpose_rhs} : tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[S:.*]] = nova.mul %[[QK]], %[[SCALE]] : tensor<2x8x8xf32>
// CHECK-NEXT: %[[ROW:.*]] = nova.iota dim = 0 : tensor<8x8xi64>
// CHECK-NEXT: %[[COL:.*]] = nova.iota dim = 1 : tensor<8x8xi64>
// CHECK-NEXT: %[[ABOVE:.*]] = nova.compare gt, %[[COL]], %[[ROW]]
// CHECK-NEXT: %[[MASK:.*]] = nova.broadcast_in_dim %[[ABOVE]] dims = [1, 2] : tensor<8x8xi1> -> tensor<2x8x8xi1>
// CHECK-NEXT: %[[MASKED:.*]] = nova.select %[[MASK]], %[[NEGINF]], %[[S]] : tensor<2x8x8xi1>, tensor<2x8x8xf32>
// CHECK-NEXT: %[[LB:.*]] = nova.broadcast_in_dim %[[L]] dims = [0, 1] : tensor<2x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[SHIFT:.*]] = nova.sub %[[MASKED]], %[[LB]] : tensor<2x8x8xf32>
// CHECK-NEXT: %[[P:.*]] = nova.exp %[[SHIFT]] : tensor<2x8x8xf32>
// CHECK-NEXT: %[[P16:.*]] = nova.cast %[[P]] : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
// CHECK-NEXT: %[[DV:.*]] = nova.matmul %[[P16]], %[[DO]] {transpose_lhs} : tensor<2x8x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>
// CHECK-NEXT: %[[DP:.*]] = nova.matmul %[[DO]], %[[V]] {transpose_rhs} : tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[PROD:.*]] = nova.mul %[[P]], %[[DP]] : tensor<2x8x8xf32>
// CHECK-NEXT: %[[D:.*]] = nova.reduce_sum %[[PROD]] dims = [2] : tensor<2x8x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[DB:.*]] = nova.broadcast_in_dim %[[D]] dims = [0, 1] : tensor<2x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[DIFF:.*]] = nova.sub %[[DP]], %[[DB]] : tensor<2x8x8xf32>
// CHECK-NEXT: %[[DS:.*]] = nova.mul %[[P]], %[[DIFF]] : tensor<2x8x8xf32>
// CHECK-NEXT: %[[DSS:.*]] = nova.mul %[[DS]], %[[SCALE]] : tensor<2x8x8xf32>
// CHECK-NEXT: %[[DS16:.*]] = nova.cast %[[DSS]] : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
// CHECK-NEXT: %[[DQ:.*]] = nova.matmul %[[DS16]], %[[K]] : tensor<2x8x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>
// CHECK-NEXT: %[[DK:.*]] = nova.matmul %[[DS16]], %[[Q]] {transpose_lhs} : tensor<2x8x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>
// CHECK-NEXT: return %[[DQ]], %[[DK]], %[[DV]]
func.func @attention_backward(%do: tensor<2x8x16xbf16>, %q: tensor<2x8x16xbf16>, %k: tensor<2x8x16xbf16>, %v: tensor<2x8x16xbf16>, %o: tensor<2x8x16xbf16>, %l: tensor<2x8xf32>) -> (tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16>) {
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %l {causal, scale = 0.25 : f64} : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8xf32> -> tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16>
  return %dq, %dk, %dv : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16>
}
