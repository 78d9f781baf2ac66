// RUN: nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova=allow-fallback \
// RUN:   | FileCheck %s
// RUN: not nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERROR

// Inputs: tests/lit/torch-inputs/torch_to_nova_fallback.mlir, captured by
// nova.capture with the source lines of the model code as locations.
// Without allow-fallback, each unsupported op is an error at its source line.

"builtin.module"() ({
// The unsupported op stays, between casts: converted values enter it
// through torch_c.from_builtin_tensor, its result leaves through
// torch_c.to_builtin_tensor.
// CHECK-LABEL: func.func @atan_between(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[DOUBLED:.*]] = nova.mul %[[X]], %{{.*}} : tensor<4x8xf32>
// CHECK:         %[[IN:.*]] = "torch_c.from_builtin_tensor"(%[[DOUBLED]]) : (tensor<4x8xf32>) -> !torch.vtensor<[4,8],f32>
// CHECK:         %[[ATAN:.*]] = "torch.aten.atan"(%[[IN]]) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
// CHECK:         %[[OUT:.*]] = "torch_c.to_builtin_tensor"(%[[ATAN]]) : (!torch.vtensor<[4,8],f32>) -> tensor<4x8xf32>
// CHECK:         %[[RESULT:.*]] = nova.add %[[OUT]], %{{.*}} : tensor<4x8xf32>
// CHECK:         return %[[RESULT]] : tensor<4x8xf32>

// ERROR: make_torch_to_nova_snippets.py:179:0: error: unsupported torch op 'torch.aten.atan'
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>, sym_name = "atan_between"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32> loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":178:0)):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int loc(#atan_between_loc1)
    %1 = "torch.aten.mul.Scalar"(%arg0, %0) : (!torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32> loc(#atan_between_loc1)
    %2 = "torch.aten.atan"(%1) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32> loc(#atan_between_loc2)
    %3 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int loc(#atan_between_loc2)
    %4 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int loc(#atan_between_loc2)
    %5 = "torch.aten.add.Scalar"(%2, %3, %4) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,8],f32> loc(#atan_between_loc2)
    "func.return"(%5) : (!torch.vtensor<[4,8],f32>) -> () loc(#atan_between_loc2)
  }) : () -> () loc(#atan_between_loc1)

// Kept ops feed kept ops directly; only results that converted code (or the
// return) reads are cast, including a multi-result op's.
// CHECK-LABEL: func.func @sort_then_atan(
// CHECK-SAME:      -> (tensor<4x8xf32>, tensor<4x8xi64>)
// CHECK:         %[[EXP:.*]] = nova.exp
// CHECK:         %[[IN:.*]] = "torch_c.from_builtin_tensor"(%[[EXP]])
// CHECK:         %[[SORTED:.*]]:2 = "torch.aten.sort"(%[[IN]], %{{.*}}, %{{.*}})
// CHECK:         %[[INDICES:.*]] = "torch_c.to_builtin_tensor"(%[[SORTED]]#1) : (!torch.vtensor<[4,8],si64>) -> tensor<4x8xi64>
// CHECK:         %[[ONCE:.*]] = "torch.aten.atan"(%[[SORTED]]#0)
// CHECK-NOT:     torch_c
// CHECK:         %[[TWICE:.*]] = "torch.aten.atan"(%[[ONCE]])
// CHECK:         %[[OUT:.*]] = "torch_c.to_builtin_tensor"(%[[TWICE]])
// CHECK:         return %[[OUT]], %[[INDICES]] : tensor<4x8xf32>, tensor<4x8xi64>

// ERROR: make_torch_to_nova_snippets.py:184:0: error: unsupported torch op 'torch.aten.sort'
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],si64>), sym_name = "sort_then_atan"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32> loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":184:0)):
    %0 = "torch.aten.exp"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32> loc(#sort_then_atan_loc1)
    %1 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int loc(#sort_then_atan_loc1)
    %2 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool loc(#sort_then_atan_loc1)
    %3:2 = "torch.aten.sort"(%0, %1, %2) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.bool) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],si64>) loc(#sort_then_atan_loc1)
    %4 = "torch.aten.atan"(%3#0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32> loc(#sort_then_atan_loc2)
    %5 = "torch.aten.atan"(%4) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32> loc(#sort_then_atan_loc2)
    "func.return"(%5, %3#1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],si64>) -> () loc(#sort_then_atan_loc2)
  }) : () -> () loc(#sort_then_atan_loc1)

// A supported op in an unsupported form (index_put over two dims) is kept
// too; the list of converted tensors it reads is rebuilt from casts, the
// function arguments it reads are cast back.
// CHECK-LABEL: func.func @scatter_two_indices(
// CHECK-SAME:      %[[W:[^:]*]]: tensor<4x8xf32>, %[[I:[^:]*]]: tensor<5xi64>, %[[J:[^:]*]]: tensor<5xi64>, %[[V:[^:]*]]: tensor<5xf32>)
// CHECK-DAG:     %[[JT:.*]] = "torch_c.from_builtin_tensor"(%[[J]]) : (tensor<5xi64>) -> !torch.vtensor<[5],si64>
// CHECK-DAG:     %[[WT:.*]] = "torch_c.from_builtin_tensor"(%[[W]]) : (tensor<4x8xf32>) -> !torch.vtensor<[4,8],f32>
// CHECK:         %[[I1:.*]] = nova.add %[[I]], %{{.*}} : tensor<5xi64>
// CHECK:         %[[I1T:.*]] = "torch_c.from_builtin_tensor"(%[[I1]]) : (tensor<5xi64>) -> !torch.vtensor<[5],si64>
// CHECK:         %[[V2:.*]] = nova.mul %[[V]], %{{.*}} : tensor<5xf32>
// CHECK:         %[[V2T:.*]] = "torch_c.from_builtin_tensor"(%[[V2]]) : (tensor<5xf32>) -> !torch.vtensor<[5],f32>
// CHECK:         %[[LIST:.*]] = "torch.prim.ListConstruct"(%[[I1T]], %[[JT]])
// CHECK:         %[[PUT:.*]] = "torch.aten.index_put"(%[[WT]], %[[LIST]], %[[V2T]], %{{.*}})
// CHECK:         %[[OUT:.*]] = "torch_c.to_builtin_tensor"(%[[PUT]]) : (!torch.vtensor<[4,8],f32>) -> tensor<4x8xf32>
// CHECK:         return %[[OUT]]

// ERROR: make_torch_to_nova_snippets.py:190:0: error: unsupported torch op 'torch.aten.index_put': only a single index tensor on dim 0 is supported
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>, !torch.vtensor<[5],si64>, !torch.vtensor<[5],si64>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[4,8],f32>, sym_name = "scatter_two_indices"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32> loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":190:0), %arg1: !torch.vtensor<[5],si64> loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":190:0), %arg2: !torch.vtensor<[5],si64> loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":190:0), %arg3: !torch.vtensor<[5],f32> loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":190:0)):
    %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int loc(#scatter_two_indices_loc1)
    %1 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int loc(#scatter_two_indices_loc1)
    %2 = "torch.aten.add.Scalar"(%arg1, %0, %1) : (!torch.vtensor<[5],si64>, !torch.int, !torch.int) -> !torch.vtensor<[5],si64> loc(#scatter_two_indices_loc1)
    %3 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int loc(#scatter_two_indices_loc1)
    %4 = "torch.aten.mul.Scalar"(%arg3, %3) : (!torch.vtensor<[5],f32>, !torch.int) -> !torch.vtensor<[5],f32> loc(#scatter_two_indices_loc1)
    %5 = "torch.prim.ListConstruct"(%2, %arg2) : (!torch.vtensor<[5],si64>, !torch.vtensor<[5],si64>) -> !torch.list<optional<vtensor>> loc(#scatter_two_indices_loc1)
    %6 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool loc(#scatter_two_indices_loc1)
    %7 = "torch.aten.index_put"(%arg0, %5, %4, %6) : (!torch.vtensor<[4,8],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[5],f32>, !torch.bool) -> !torch.vtensor<[4,8],f32> loc(#scatter_two_indices_loc1)
    "func.return"(%7) : (!torch.vtensor<[4,8],f32>) -> () loc(#scatter_two_indices_loc1)
  }) : () -> () loc(#scatter_two_indices_loc1)
}) : () -> ()
#atan_between_loc1 = loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":178:0)
#atan_between_loc = loc(unknown)
#atan_between_loc2 = loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":179:0)
#sort_then_atan_loc1 = loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":184:0)
#sort_then_atan_loc = loc(unknown)
#sort_then_atan_loc2 = loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":185:0)
#scatter_two_indices_loc1 = loc("tests/lit/torch-inputs/make_torch_to_nova_snippets.py":190:0)
#scatter_two_indices_loc = loc(unknown)
