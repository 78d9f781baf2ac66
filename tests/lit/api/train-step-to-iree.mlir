// RUN: nova-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(nova-train-step-to-iree{params=1 buffers=0 states-per-param=1 hypers=1 state-names=w,w_momentum_buffer})" --mlir-print-op-generic | FileCheck %s

// The named pipeline Python asks for: convert-train-step-to-iree with the
// step's signature, then canonicalize and CSE.
// CHECK: "util.global"() <{{{.*}}sym_name = "state0_w"
// CHECK: "util.global"() <{{{.*}}sym_name = "state1_w_momentum_buffer"
// CHECK-LABEL: sym_name = "step"
func.func @main(%w: tensor<8xf32>, %m: tensor<8xf32>, %lr: tensor<f32>, %x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %nm = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %nw = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w, %nm, %lr : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %l: f32, %o: f32):
    %p = arith.mulf %l, %b : f32
    %s = arith.subf %a, %p : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  return %z, %nw, %nm : tensor<f32>, tensor<8xf32>, tensor<8xf32>
}
