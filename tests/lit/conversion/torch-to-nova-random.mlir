// RUN: nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:   | FileCheck %s --implicit-check-not='"torch' --implicit-check-not='!torch'

// torch.operator "torch.nova.uniform" (python/nova/random_ops.py: dropout's
// mask as a captured step traces it) -> nova.random_uniform.
"builtin.module"() ({
// CHECK-LABEL: func.func @dropout_mask(
// CHECK-SAME:      %[[SEED:.*]]: tensor<i64>, %[[X:.*]]: tensor<4x8xf32>)
// CHECK:         %[[U:.*]] = nova.random_uniform %[[SEED]] stream = 2 : tensor<i64> -> tensor<4x8xf32>
// CHECK:         %[[KEEP:.*]] = nova.compare ge, %[[U]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
  "func.func"() <{function_type = (!torch.vtensor<[],si64>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],i1>, sym_name = "dropout_mask"}> ({
  ^bb0(%arg0: !torch.vtensor<[],si64>, %arg1: !torch.vtensor<[4,8],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %2 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %3 = "torch.prim.ListConstruct"(%1, %2) : (!torch.int, !torch.int) -> !torch.list<int>
    %4 = "torch.operator"(%arg0, %0, %3) <{name = "torch.nova.uniform"}> : (!torch.vtensor<[],si64>, !torch.int, !torch.list<int>) -> !torch.vtensor<[4,8],f32>
    %5 = "torch.constant.float"() <{value = 3.000000e-01 : f64}> : () -> !torch.float
    %6 = "torch.aten.ge.Scalar"(%4, %5) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],i1>
    "func.return"(%6) : (!torch.vtensor<[4,8],i1>) -> ()
  }) : () -> ()
}) : () -> ()

