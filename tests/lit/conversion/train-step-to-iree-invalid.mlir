// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics --convert-train-step-to-iree="params=1 buffers=0 states-per-param=1 hypers=1"
// RUN: not nova-opt %s --split-input-file --convert-train-step-to-iree="params=1 buffers=0 states-per-param=1 hypers=1" 2>&1 | FileCheck %s --check-prefix=NOUNREG

// NOUNREG: convert-train-step-to-iree emits IREE's util/flow/hal ops unregistered: allow unregistered dialects

// expected-error @+1 {{expected 3 results (loss, new params, new buffers, new state), got 2}}
func.func @main(%w: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<f32>, tensor<4xf32>) {
  return %lr, %w : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{hyperparameter argument 2 must be tensor<f32>, got 'tensor<1xf32>'}}
func.func @main(%w: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<1xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<0.0> : tensor<f32>
  return %c, %w, %m : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{result 1 ('tensor<2xf32>') updates argument 0 of type 'tensor<4xf32>'}}
func.func @main(%w: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<4xf32>) {
  %c = arith.constant dense<0.0> : tensor<2xf32>
  return %lr, %c, %m : tensor<f32>, tensor<2xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{expected at least 3 arguments (state and hyperparameters), got 2}}
func.func @main(%w: tensor<4xf32>, %m: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<0.0> : tensor<f32>
  return %c, %w, %m : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A state update computed by something other than an elementwise generic is
// stored as it is (not in place), with a remark; so is a state returned
// unchanged (the block argument %m).
// expected-remark @+1 {{state update 2 is not computed by a linalg.generic: not updated in place}}
func.func @main(%w: tensor<4xf32>, %m: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-remark @+1 {{state update 1 is not computed by a linalg.generic: not updated in place}}
  %n = arith.constant dense<1.0> : tensor<4xf32>
  return %lr, %n, %m : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
