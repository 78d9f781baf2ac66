// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics --convert-train-step-to-iree="params=1 buffers=2 states-per-param=0 hypers=0 updated-buffers=1,0"
// RUN: not nova-opt %s --allow-unregistered-dialect --convert-train-step-to-iree="params=1 buffers=2 states-per-param=0 hypers=0 updated-buffers=2" 2>&1 | FileCheck %s --check-prefix=RANGE

// The updated buffers are listed once each, in order, and exist.
// expected-error @+1 {{updated-buffers must be increasing buffer indices below 2, got 0}}
func.func @main(%w: tensor<4xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<0.0> : tensor<f32>
  return %c, %w, %b, %a : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
// RANGE: updated-buffers must be increasing buffer indices below 2, got 2
