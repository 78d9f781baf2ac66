// RUN: nova-opt %s --allow-unregistered-dialect --nova-pack-optimizer-state --convert-nova-to-linalg --convert-train-step-to-iree="params=2 buffers=0 states-per-param=2 hypers=6 state-names=w,b,w.exp_avg,w.exp_avg_sq,b.exp_avg,b.exp_avg_sq" | FileCheck %s

// Two params packed by nova-pack-optimizer-state: three globals (named
// after the first member) hold w (32x2), b (64) and their AdamW states;
// load_state takes the signature's six tensors and assembles the flat
// globals; read_state returns the globals with the layout as reflection
// (per global: each tensor's index, offset and shape); the update is
// written in place.
// CHECK:      "util.global"() <{is_mutable, sym_name = "state0_packed_w", sym_visibility = "private", type = tensor<128xf32>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state1_packed_w_exp_avg", sym_visibility = "private", type = tensor<128xf32>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state2_packed_w_exp_avg_sq", sym_visibility = "private", type = tensor<128xf32>}>
// CHECK-NOT:  "util.global"() <{is_mutable
// CHECK-LABEL: sym_name = "load_state"
// CHECK:         ^bb0(%[[W:.+]]: tensor<32x2xf32>, %[[B:.+]]: tensor<64xf32>, %[[WM:.+]]: tensor<32x2xf32>, %[[WV:.+]]: tensor<32x2xf32>, %[[BM:.+]]: tensor<64xf32>, %[[BV:.+]]: tensor<64xf32>):
// CHECK:         %[[ZERO:.+]] = linalg.fill
// CHECK:         %[[WF:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1]] : tensor<32x2xf32> into tensor<64xf32>
// CHECK:         %[[P1:.+]] = tensor.insert_slice %[[WF]] into %[[ZERO]][0] [64] [1]
// CHECK:         %[[P2:.+]] = tensor.insert_slice %[[B]] into %[[P1]][64] [64] [1]
// CHECK:         "util.global.store"(%[[P2]]) <{global = @state0_packed_w}>
// CHECK:         tensor.insert_slice %[[BM]] into
// CHECK:         "util.global.store"({{.+}}) <{global = @state1_packed_w_exp_avg}>
// CHECK:         tensor.insert_slice %[[BV]] into
// CHECK:         "util.global.store"({{.+}}) <{global = @state2_packed_w_exp_avg_sq}>
// CHECK-LABEL: sym_name = "read_state"
// CHECK:         %[[G:.+]] = "util.global.load"() <{global = @state0_packed_w}>
// CHECK:         %[[GM:.+]] = "util.global.load"() <{global = @state1_packed_w_exp_avg}>
// CHECK:         %[[GV:.+]] = "util.global.load"() <{global = @state2_packed_w_exp_avg_sq}>
// CHECK:         "util.return"(%[[G]], %[[GM]], %[[GV]]) : (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) -> ()
// CHECK-NEXT:  }) {iree.reflection = {nova.state_layout = "{{\[}}{{\[}}[0, 0, [32, 2]], [1, 64, [64]]], {{\[}}[2, 0, [32, 2]], [4, 64, [64]]], {{\[}}[3, 0, [32, 2]], [5, 64, [64]]]]"}}
// CHECK-LABEL: sym_name = "step"
// CHECK:         %[[NEW:.+]]:4 = func.call @main(
// CHECK:         "util.global.store"(%[[NEW]]#1) <{global = @state0_packed_w}>
// CHECK:         "util.global.store"(%[[NEW]]#2) <{global = @state1_packed_w_exp_avg}>
// CHECK:         "util.global.store"(%[[NEW]]#3) <{global = @state2_packed_w_exp_avg_sq}>
// CHECK-LABEL: func.func private @main
// CHECK:         "flow.dispatch.workgroups"
// CHECK-SAME:    tied_operands = {{\[}}0 : index, 1 : index, 2 : index]
func.func @main(%p0: tensor<32x2xf32>, %p1: tensor<64xf32>, %m0: tensor<32x2xf32>, %v0: tensor<32x2xf32>, %m1: tensor<64xf32>, %v1: tensor<64xf32>,
    %step: tensor<f32>, %lr: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>, %g0: tensor<32x2xf32>, %g1: tensor<64xf32>)
    -> (tensor<f32>, tensor<32x2xf32>, tensor<64xf32>, tensor<32x2xf32>, tensor<32x2xf32>, tensor<64xf32>, tensor<64xf32>) {
  %w = nova.mul %p0, %g0 : tensor<32x2xf32>
  %l = nova.reduce_sum %w dims = [0, 1] : tensor<32x2xf32> -> tensor<f32>
  %np0, %nm0, %nv0 = nova.adamw %p0, %g0, %m0, %v0 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<32x2xf32>
  %np1, %nm1, %nv1 = nova.adamw %p1, %g1, %m1, %v1 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  return %l, %np0, %np1, %nm0, %nv0, %nm1, %nv1 : tensor<f32>, tensor<32x2xf32>, tensor<64xf32>, tensor<32x2xf32>, tensor<32x2xf32>, tensor<64xf32>, tensor<64xf32>
}
