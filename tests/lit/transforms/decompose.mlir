// RUN: nova-opt %s --nova-decompose --split-input-file | FileCheck %s

// nova-decompose rewrites the composite ops into primitives and folds nothing.
// Its splat constants are hoisted to the top of the block, so they are
// matched with CHECK-DAG; the ops after them are in a fixed order.

// softmax(x) = e / sum(e), e = exp(x - max(x)).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[MAX:.*]] = nova.reduce_max %[[X]] dims = [1] keepdim : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[MAXB:.*]] = nova.broadcast_in_dim %[[MAX]] dims = [0, 1] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[SHIFT:.*]] = nova.sub %[[X]], %[[MAXB]] : tensor<2x8xf32>
// CHECK-NEXT: %[[EXP:.*]] = nova.exp %[[SHIFT]] : tensor<2x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = nova.reduce_sum %[[EXP]] dims = [1] keepdim : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[SUMB:.*]] = nova.broadcast_in_dim %[[SUM]] dims = [0, 1] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.div %[[EXP]], %[[SUMB]] : tensor<2x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<2x8xf32>
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = nova.softmax %x dim = 1 : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Along a leading dim of a bf16 tensor.
// CHECK-LABEL: func.func @softmax_dim0
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xbf16>)
// CHECK-NEXT: %[[MAX:.*]] = nova.reduce_max %[[X]] dims = [0] keepdim : tensor<3x5xbf16> -> tensor<1x5xbf16>
// CHECK-NEXT: %[[MAXB:.*]] = nova.broadcast_in_dim %[[MAX]] dims = [0, 1] : tensor<1x5xbf16> -> tensor<3x5xbf16>
// CHECK-NEXT: %[[SHIFT:.*]] = nova.sub %[[X]], %[[MAXB]] : tensor<3x5xbf16>
// CHECK-NEXT: %[[EXP:.*]] = nova.exp %[[SHIFT]] : tensor<3x5xbf16>
// CHECK-NEXT: %[[SUM:.*]] = nova.reduce_sum %[[EXP]] dims = [0] keepdim : tensor<3x5xbf16> -> tensor<1x5xbf16>
// CHECK-NEXT: %[[SUMB:.*]] = nova.broadcast_in_dim %[[SUM]] dims = [0, 1] : tensor<1x5xbf16> -> tensor<3x5xbf16>
// CHECK-NEXT: %[[RES:.*]] = nova.div %[[EXP]], %[[SUMB]] : tensor<3x5xbf16>
// CHECK-NEXT: return %[[RES]]
func.func @softmax_dim0(%x: tensor<3x5xbf16>) -> tensor<3x5xbf16> {
  %0 = nova.softmax %x dim = 0 : tensor<3x5xbf16>
  return %0 : tensor<3x5xbf16>
}

// -----

// log_softmax(x) = s - log(sum(exp(s))), s = x - max(x); here along a middle
// dim.
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x8xf32>)
// CHECK-NEXT: %[[MAX:.*]] = nova.reduce_max %[[X]] dims = [1] keepdim : tensor<4x2x8xf32> -> tensor<4x1x8xf32>
// CHECK-NEXT: %[[MAXB:.*]] = nova.broadcast_in_dim %[[MAX]] dims = [0, 1, 2] : tensor<4x1x8xf32> -> tensor<4x2x8xf32>
// CHECK-NEXT: %[[SHIFT:.*]] = nova.sub %[[X]], %[[MAXB]] : tensor<4x2x8xf32>
// CHECK-NEXT: %[[EXP:.*]] = nova.exp %[[SHIFT]] : tensor<4x2x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = nova.reduce_sum %[[EXP]] dims = [1] keepdim : tensor<4x2x8xf32> -> tensor<4x1x8xf32>
// CHECK-NEXT: %[[SUMB:.*]] = nova.broadcast_in_dim %[[SUM]] dims = [0, 1, 2] : tensor<4x1x8xf32> -> tensor<4x2x8xf32>
// CHECK-NEXT: %[[LOG:.*]] = nova.log %[[SUMB]] : tensor<4x2x8xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.sub %[[SHIFT]], %[[LOG]] : tensor<4x2x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<4x2x8xf32>
func.func @log_softmax(%x: tensor<4x2x8xf32>) -> tensor<4x2x8xf32> {
  %0 = nova.log_softmax %x dim = 1 : tensor<4x2x8xf32>
  return %0 : tensor<4x2x8xf32>
}

// -----

// layer_norm(x) = (x - mean) * rsqrt(mean((x - mean)^2) + eps), without weight
// and bias. 1e-5 rounded to f32 prints as 9.99999974E-6.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[EPS:.*]] = nova.constant dense<9.99999974E-6> : tensor<2x8xf32>
// CHECK-NEXT: %[[MEAN:.*]] = nova.reduce_mean %[[X]] dims = [1] keepdim : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[MEANB:.*]] = nova.broadcast_in_dim %[[MEAN]] dims = [0, 1] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[C:.*]] = nova.sub %[[X]], %[[MEANB]] : tensor<2x8xf32>
// CHECK-NEXT: %[[SQ:.*]] = nova.mul %[[C]], %[[C]] : tensor<2x8xf32>
// CHECK-NEXT: %[[VAR:.*]] = nova.reduce_mean %[[SQ]] dims = [1] keepdim : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[VARB:.*]] = nova.broadcast_in_dim %[[VAR]] dims = [0, 1] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[VEPS:.*]] = nova.add %[[VARB]], %[[EPS]] : tensor<2x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = nova.rsqrt %[[VEPS]] : tensor<2x8xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.mul %[[C]], %[[RSQRT]] : tensor<2x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<2x8xf32>
func.func @layer_norm(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = nova.layer_norm %x {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// With weight and bias (normalized_rank 1): each is broadcast into the
// trailing dim, then multiplied and added in that order.
// CHECK-LABEL: func.func @layer_norm_weight_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[EPS:.*]] = nova.constant dense<9.99999974E-6> : tensor<2x4x8xf32>
// CHECK-NEXT: %[[MEAN:.*]] = nova.reduce_mean %[[X]] dims = [2] keepdim : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
// CHECK-NEXT: %[[MEANB:.*]] = nova.broadcast_in_dim %[[MEAN]] dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[C:.*]] = nova.sub %[[X]], %[[MEANB]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[SQ:.*]] = nova.mul %[[C]], %[[C]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[VAR:.*]] = nova.reduce_mean %[[SQ]] dims = [2] keepdim : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
// CHECK-NEXT: %[[VARB:.*]] = nova.broadcast_in_dim %[[VAR]] dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[VEPS:.*]] = nova.add %[[VARB]], %[[EPS]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = nova.rsqrt %[[VEPS]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[NORM:.*]] = nova.mul %[[C]], %[[RSQRT]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[WB:.*]] = nova.broadcast_in_dim %[[W]] dims = [2] : tensor<8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[SCALED:.*]] = nova.mul %[[NORM]], %[[WB]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[BB:.*]] = nova.broadcast_in_dim %[[B]] dims = [2] : tensor<8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.add %[[SCALED]], %[[BB]] : tensor<2x4x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<2x4x8xf32>
func.func @layer_norm_weight_bias(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = nova.layer_norm %x weight(%w : tensor<8xf32>) bias(%b : tensor<8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// normalized_rank 2 with a weight only: the reductions cover both trailing
// dims and the weight maps onto them.
// CHECK-LABEL: func.func @layer_norm_rank2_weight
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[EPS:.*]] = nova.constant dense<1.000000e-03> : tensor<2x4x8xf32>
// CHECK-NEXT: %[[MEAN:.*]] = nova.reduce_mean %[[X]] dims = [1, 2] keepdim : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[MEANB:.*]] = nova.broadcast_in_dim %[[MEAN]] dims = [0, 1, 2] : tensor<2x1x1xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[C:.*]] = nova.sub %[[X]], %[[MEANB]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[SQ:.*]] = nova.mul %[[C]], %[[C]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[VAR:.*]] = nova.reduce_mean %[[SQ]] dims = [1, 2] keepdim : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[VARB:.*]] = nova.broadcast_in_dim %[[VAR]] dims = [0, 1, 2] : tensor<2x1x1xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[VEPS:.*]] = nova.add %[[VARB]], %[[EPS]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = nova.rsqrt %[[VEPS]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[NORM:.*]] = nova.mul %[[C]], %[[RSQRT]] : tensor<2x4x8xf32>
// CHECK-NEXT: %[[WB:.*]] = nova.broadcast_in_dim %[[W]] dims = [1, 2] : tensor<4x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.mul %[[NORM]], %[[WB]] : tensor<2x4x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<2x4x8xf32>
func.func @layer_norm_rank2_weight(%x: tensor<2x4x8xf32>, %w: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = nova.layer_norm %x weight(%w : tensor<4x8xf32>) {epsilon = 1.0e-03 : f64, normalized_rank = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// normalized_rank 2 with a bias only, over the whole rank-2 input: the bias
// already has the input's type and is not broadcast.
// CHECK-LABEL: func.func @layer_norm_rank2_bias
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[EPS:.*]] = nova.constant dense<9.99999974E-6> : tensor<4x8xf32>
// CHECK-NEXT: %[[MEAN:.*]] = nova.reduce_mean %[[X]] dims = [0, 1] keepdim : tensor<4x8xf32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[MEANB:.*]] = nova.broadcast_in_dim %[[MEAN]] dims = [0, 1] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[C:.*]] = nova.sub %[[X]], %[[MEANB]] : tensor<4x8xf32>
// CHECK-NEXT: %[[SQ:.*]] = nova.mul %[[C]], %[[C]] : tensor<4x8xf32>
// CHECK-NEXT: %[[VAR:.*]] = nova.reduce_mean %[[SQ]] dims = [0, 1] keepdim : tensor<4x8xf32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[VARB:.*]] = nova.broadcast_in_dim %[[VAR]] dims = [0, 1] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[VEPS:.*]] = nova.add %[[VARB]], %[[EPS]] : tensor<4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = nova.rsqrt %[[VEPS]] : tensor<4x8xf32>
// CHECK-NEXT: %[[NORM:.*]] = nova.mul %[[C]], %[[RSQRT]] : tensor<4x8xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.add %[[NORM]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: return %[[RES]] : tensor<4x8xf32>
func.func @layer_norm_rank2_bias(%x: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = nova.layer_norm %x bias(%b : tensor<4x8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 2 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Exact gelu: x/2 * (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[HALF:.*]] = nova.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-DAG: %[[ONE:.*]] = nova.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[RSQRT2:.*]] = nova.constant dense<0.707106769> : tensor<4xf32>
// CHECK:      %[[SCALED:.*]] = nova.mul %[[X]], %[[RSQRT2]] : tensor<4xf32>
// CHECK-NEXT: %[[ERF:.*]] = nova.erf %[[SCALED]] : tensor<4xf32>
// CHECK-NEXT: %[[HALFX:.*]] = nova.mul %[[X]], %[[HALF]] : tensor<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = nova.add %[[ERF]], %[[ONE]] : tensor<4xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.mul %[[HALFX]], %[[SUM]] : tensor<4xf32>
// CHECK-NEXT: return %[[RES]] : tensor<4xf32>
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nova.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// tanh gelu: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), of bf16
// computed in f32 with f32 constants and rounded once (torch's opmath), the
// cube as (x * x) * x like torch's gelu_backward.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xbf16>)
// CHECK-DAG: %[[HALF:.*]] = nova.constant dense<5.000000e-01> : tensor<2x4xf32>
// CHECK-DAG: %[[ONE:.*]] = nova.constant dense<1.000000e+00> : tensor<2x4xf32>
// CHECK-DAG: %[[COEF:.*]] = nova.constant dense<4.471500e-02> : tensor<2x4xf32>
// CHECK-DAG: %[[SQRT2PI:.*]] = nova.constant dense<0.797884583> : tensor<2x4xf32>
// CHECK:      %[[XF:.*]] = nova.cast %[[X]] : tensor<2x4xbf16> -> tensor<2x4xf32>
// CHECK-NEXT: %[[SQ:.*]] = nova.mul %[[XF]], %[[XF]] : tensor<2x4xf32>
// CHECK-NEXT: %[[CUBE:.*]] = nova.mul %[[SQ]], %[[XF]] : tensor<2x4xf32>
// CHECK-NEXT: %[[TERM:.*]] = nova.mul %[[CUBE]], %[[COEF]] : tensor<2x4xf32>
// CHECK-NEXT: %[[POLY:.*]] = nova.add %[[XF]], %[[TERM]] : tensor<2x4xf32>
// CHECK-NEXT: %[[ARG:.*]] = nova.mul %[[POLY]], %[[SQRT2PI]] : tensor<2x4xf32>
// CHECK-NEXT: %[[TANH:.*]] = nova.tanh %[[ARG]] : tensor<2x4xf32>
// CHECK-NEXT: %[[HALFX:.*]] = nova.mul %[[XF]], %[[HALF]] : tensor<2x4xf32>
// CHECK-NEXT: %[[SUM:.*]] = nova.add %[[TANH]], %[[ONE]] : tensor<2x4xf32>
// CHECK-NEXT: %[[PROD:.*]] = nova.mul %[[HALFX]], %[[SUM]] : tensor<2x4xf32>
// CHECK-NEXT: %[[RES:.*]] = nova.cast %[[PROD]] : tensor<2x4xf32> -> tensor<2x4xbf16>
// CHECK-NEXT: return %[[RES]] : tensor<2x4xbf16>
func.func @gelu_tanh(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %0 = nova.gelu %x approximation = tanh : tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

// Composite ops feeding each other are all decomposed; primitives and the
// pass's own output are left as they are (no folding: x * 1 stays).
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK: nova.mul %[[X]], %{{.*}} : tensor<2x8xf32>
// CHECK-NOT: nova.{{softmax|log_softmax|gelu|layer_norm}}
// CHECK: nova.erf
// CHECK-NOT: nova.{{softmax|log_softmax|gelu|layer_norm}}
// CHECK: return
func.func @chain(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %one = nova.constant dense<1.0> : tensor<2x8xf32>
  %m = nova.mul %x, %one : tensor<2x8xf32>
  %0 = nova.layer_norm %m {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %1 = nova.gelu %0 : tensor<2x8xf32>
  %2 = nova.softmax %1 dim = 1 : tensor<2x8xf32>
  %3 = nova.log_softmax %2 dim = 0 : tensor<2x8xf32>
  return %3 : tensor<2x8xf32>
}

// -----

// Dynamic shapes: softmax needs no constants and is decomposed; gelu and
// layer_norm need a splat constant of the input's type, which a dynamic
// shape cannot have, so they are left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: %[[MAX:.*]] = nova.reduce_max %[[X]] dims = [1] keepdim : tensor<?x8xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %[[MAXB:.*]] = nova.broadcast_in_dim %[[MAX]] dims = [0, 1] : tensor<?x1xf32> -> tensor<?x8xf32>
// CHECK:      %[[SM:.*]] = nova.div
// CHECK-NEXT: %[[G:.*]] = nova.gelu %[[SM]] : tensor<?x8xf32>
// CHECK-NEXT: %[[LN:.*]] = nova.layer_norm %[[G]]
// CHECK-NEXT: return %[[LN]]
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = nova.softmax %x dim = 1 : tensor<?x8xf32>
  %1 = nova.gelu %0 : tensor<?x8xf32>
  %2 = nova.layer_norm %1 {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %2 : tensor<?x8xf32>
}
