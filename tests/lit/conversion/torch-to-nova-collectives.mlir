// RUN: nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:   | FileCheck %s --implicit-check-not='"torch' --implicit-check-not='!torch'

// torch.operator "torch.nova.all_reduce" (python/nova/collective_ops.py: a
// data-parallel step's gradient average) -> nova.all_reduce.
"builtin.module"() ({
// CHECK-LABEL: func.func @gradient_mean(
// CHECK-SAME:      %[[G:.*]]: tensor<4x8xf32>)
// CHECK:         %[[R:.*]] = nova.all_reduce "mean" %[[G]] : tensor<4x8xf32>
// CHECK:         return %[[R]]
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>, sym_name = "gradient_mean"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>):
    %0 = "torch.constant.str"() <{value = "mean"}> : () -> !torch.str
    %1 = "torch.operator"(%arg0, %0) <{name = "torch.nova.all_reduce"}> : (!torch.vtensor<[4,8],f32>, !torch.str) -> !torch.vtensor<[4,8],f32>
    "func.return"(%1) : (!torch.vtensor<[4,8],f32>) -> ()
  }) : () -> ()
}) : () -> ()
