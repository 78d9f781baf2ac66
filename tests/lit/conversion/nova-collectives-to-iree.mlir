// RUN: nova-opt %s --allow-unregistered-dialect --convert-nova-collectives-to-iree="world-size=4" | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --convert-nova-collectives-to-iree="world-size=4" --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: nova-opt %s --allow-unregistered-dialect --convert-nova-collectives-to-iree | FileCheck %s --check-prefix=SINGLE
// RUN: not nova-opt %s --convert-nova-collectives-to-iree="world-size=4" 2>&1 | FileCheck %s --check-prefix=NOUNREG

// The default channel is made once, by an initializer, into a global; each
// all-reduce loads it and sums into an empty tensor tied to the result (the
// generic form IREE 3.13 reads: element_type 9 is f32, 11 bf16, reduction_op
// 1 is sum); a mean scales the sum by 1 / world-size.
// CHECK:       "util.global"() <{sym_name = "nova_data_parallel_channel", sym_visibility = "private", type = !flow.channel}>
// CHECK:       "util.initializer"()
// CHECK:         %[[DEFAULT:.*]] = "flow.channel.default"() : () -> !flow.channel
// CHECK-NEXT:    "util.global.store"(%[[DEFAULT]]) <{global = @nova_data_parallel_channel}>
// CHECK-LABEL: func.func @gradients
// CHECK-SAME:    (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<2x3xbf16>)
// CHECK:         %[[CH:.*]] = "util.global.load"() <{global = @nova_data_parallel_channel}> : () -> !flow.channel
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:    %[[SUM:.*]] = "flow.collective.all_reduce"(%[[E]], %[[A]], %[[CH]]) <{element_type = 9 : i32, reduction_op = 1 : i32, tied_operands = [0 : index]}> : (tensor<8xf32>, tensor<8xf32>, !flow.channel) -> tensor<8xf32>
// CHECK-NEXT:    %[[QUARTER:.*]] = nova.constant dense<2.500000e-01> : tensor<8xf32>
// CHECK-NEXT:    %[[MEAN:.*]] = nova.mul %[[SUM]], %[[QUARTER]] : tensor<8xf32>
// CHECK:         %[[BSUM:.*]] = "flow.collective.all_reduce"(%{{.*}}, %[[B]], %{{.*}}) <{element_type = 11 : i32, reduction_op = 1 : i32, tied_operands = [0 : index]}> : (tensor<2x3xbf16>, tensor<2x3xbf16>, !flow.channel) -> tensor<2x3xbf16>
// CHECK-NEXT:    return %[[MEAN]], %[[BSUM]]
// GENERIC:     "tensor.empty"() : () -> tensor<8xf32>

// A world of one has no collective: the all-reduces are the identity.
// SINGLE-NOT:  flow.
// SINGLE-LABEL: func.func @gradients
// SINGLE-SAME:   (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<2x3xbf16>)
// SINGLE-NEXT:   return %[[A]], %[[B]]

// NOUNREG: convert-nova-collectives-to-iree emits IREE's flow/util ops unregistered: allow unregistered dialects
func.func @gradients(%a: tensor<8xf32>, %b: tensor<2x3xbf16>) -> (tensor<8xf32>, tensor<2x3xbf16>) {
  %0 = nova.all_reduce "mean" %a : tensor<8xf32>
  %1 = nova.all_reduce "sum" %b : tensor<2x3xbf16>
  return %0, %1 : tensor<8xf32>, tensor<2x3xbf16>
}
