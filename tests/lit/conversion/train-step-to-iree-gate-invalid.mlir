// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-train-step-to-iree="params=1 hypers=1 in-place=false gate=true" -verify-diagnostics

// The gate copies whole 32-bit words: a batch of 3 bytes is an error.

// expected-error @below {{convert-train-step-to-iree gate: step input 'tensor<3xi8>' is not whole 32-bit words}}
module {
func.func @main(%w: tensor<8xf32>, %lr: tensor<f32>, %b: tensor<3xi8>) -> (tensor<f32>, tensor<8xf32>) {
  %z = arith.constant dense<0.0> : tensor<f32>
  return %z, %w : tensor<f32>, tensor<8xf32>
}
}

// -----

// The close copies one 16- or 32-bit loss: an f64 loss is an error.

// expected-error @below {{convert-train-step-to-iree gate: the loss 'tensor<f64>' is not one 16- or 32-bit element}}
module {
func.func @main(%w: tensor<8xf32>, %lr: tensor<f32>, %b: tensor<4xi32>) -> (tensor<f64>, tensor<8xf32>) {
  %z = arith.constant dense<0.0> : tensor<f64>
  return %z, %w : tensor<f64>, tensor<8xf32>
}
}
