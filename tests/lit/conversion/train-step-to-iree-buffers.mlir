// RUN: nova-opt %s --allow-unregistered-dialect --convert-train-step-to-iree="params=1 buffers=3 states-per-param=1 hypers=1 updated-buffers=0,2 state-names=w,bn.running_mean,frozen,bn.count,w.momentum_buffer" | FileCheck %s

// Buffers the forward writes (BatchNorm's running mean and batch counter):
// their new values come after the new params, in buffer order, and the step
// stores them into their globals (as new values: they are small statistics);
// the frozen buffer is never stored.

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @main(%w: tensor<8xf32>, %mean: tensor<8xf32>, %f: tensor<8xf32>, %count: tensor<i64>, %m: tensor<8xf32>, %lr: tensor<f32>, %x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %newmean = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%mean, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %newcount = arith.addi %count, %one : tensor<i64>
  %u:2 = linalg.generic {indexing_maps = [#id, #id, #id, #scalar, #id, #id], iterator_types = ["parallel"]} ins(%w, %x, %m, %lr : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%p: f32, %g: f32, %buf: f32, %l: f32, %o0: f32, %o1: f32):
    %0 = arith.addf %buf, %g : f32
    %1 = arith.mulf %l, %0 : f32
    %2 = arith.subf %p, %1 : f32
    linalg.yield %2, %0 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %lr, %u#0, %newmean, %newcount, %u#1 : tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<8xf32>
}

// CHECK:      "util.global"() <{is_mutable, sym_name = "state0_w", sym_visibility = "private", type = tensor<8xf32>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state1_bn_running_mean", sym_visibility = "private", type = tensor<8xf32>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state2_frozen", sym_visibility = "private", type = tensor<8xf32>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state3_bn_count", sym_visibility = "private", type = tensor<i64>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state4_w_momentum_buffer", sym_visibility = "private", type = tensor<8xf32>}>

// CHECK-LABEL: sym_name = "step"
// CHECK:         %[[R:.+]]:5 = func.call @main(
// CHECK-NEXT:    "util.global.store"(%[[R]]#1) <{global = @state0_w}>
// CHECK-NEXT:    "util.global.store"(%[[R]]#2) <{global = @state1_bn_running_mean}>
// CHECK-NEXT:    "util.global.store"(%[[R]]#3) <{global = @state3_bn_count}>
// CHECK-NEXT:    "util.global.store"(%[[R]]#4) <{global = @state4_w_momentum_buffer}>
// CHECK-NEXT:    "util.return"(%[[R]]#0)

// The optimizer update is written in place; the running mean is not.
// CHECK-LABEL: func.func private @main(
// CHECK:         "flow.dispatch.workgroups"
// CHECK:         return %{{.+}}, %{{.+}}#0, %{{[^#,]+}}, %{{[^#,]+}}, %{{.+}}#1
