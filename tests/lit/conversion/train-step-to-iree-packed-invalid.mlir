// RUN: nova-opt %s --allow-unregistered-dialect --nova-pack-optimizer-state --convert-nova-to-linalg --convert-train-step-to-iree="params=2 buffers=0 states-per-param=2 hypers=6 parameter-scope=nova" --verify-diagnostics

// A parameter archive holds each state tensor on its own: packed state
// cannot be initialised from one.
// expected-error @+1 {{packed state (nova.packed_state) cannot be initialised from a parameter archive}}
func.func @main(%p0: tensor<32x2xf32>, %p1: tensor<64xf32>, %m0: tensor<32x2xf32>, %v0: tensor<32x2xf32>, %m1: tensor<64xf32>, %v1: tensor<64xf32>,
    %step: tensor<f32>, %lr: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>, %g0: tensor<32x2xf32>, %g1: tensor<64xf32>)
    -> (tensor<f32>, tensor<32x2xf32>, tensor<64xf32>, tensor<32x2xf32>, tensor<32x2xf32>, tensor<64xf32>, tensor<64xf32>) {
  %w = nova.mul %p0, %g0 : tensor<32x2xf32>
  %l = nova.reduce_sum %w dims = [0, 1] : tensor<32x2xf32> -> tensor<f32>
  %np0, %nm0, %nv0 = nova.adamw %p0, %g0, %m0, %v0 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<32x2xf32>
  %np1, %nm1, %nv1 = nova.adamw %p1, %g1, %m1, %v1 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  return %l, %np0, %np1, %nm0, %nv0, %nm1, %nv1 : tensor<f32>, tensor<32x2xf32>, tensor<64xf32>, tensor<32x2xf32>, tensor<32x2xf32>, tensor<64xf32>, tensor<64xf32>
}
