// RUN: nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:   | FileCheck %s --implicit-check-not='"torch' --implicit-check-not='!torch'

// Inputs: functions printed by torch-mlir's FX importer (generic form, the
// locations dropped), from tests/lit/torch-inputs/make_torch_to_nova_snippets.py.
// One function per op family; no torch op (printed quoted, being
// unregistered) or torch type may remain.

"builtin.module"() ({
// The MLP forward as a captured step has it: permute + mm, the bias
// broadcast explicitly, mul.Scalar by the int 1 as an f32 splat.
// CHECK-LABEL: func.func @linear_relu(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<4x16xf32>
// CHECK:         %[[WT:.*]] = nova.transpose %[[W]] permutation = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK:         %[[MM:.*]] = nova.matmul %[[X]], %[[WT]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK:         %[[ONE:.*]] = nova.constant dense<1.000000e+00> : tensor<4x16xf32>
// CHECK:         %[[SCALED:.*]] = nova.mul %[[MM]], %[[ONE]] : tensor<4x16xf32>
// CHECK:         %[[BIAS:.*]] = nova.mul %[[B]], %{{.*}} : tensor<16xf32>
// CHECK:         %[[BCAST:.*]] = nova.broadcast_in_dim %[[BIAS]] dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
// CHECK:         %[[SUM:.*]] = nova.add %[[SCALED]], %[[BCAST]] : tensor<4x16xf32>
// CHECK:         %[[RELU:.*]] = nova.relu %[[SUM]] : tensor<4x16xf32>
// CHECK:         return %[[RELU]] : tensor<4x16xf32>
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>, !torch.vtensor<[16,8],f32>, !torch.vtensor<[16],f32>) -> !torch.vtensor<[4,16],f32>, sym_name = "linear_relu"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>, %arg1: !torch.vtensor<[16,8],f32>, %arg2: !torch.vtensor<[16],f32>):
    %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3 = "torch.aten.permute"(%arg1, %2) : (!torch.vtensor<[16,8],f32>, !torch.list<int>) -> !torch.vtensor<[8,16],f32>
    %4 = "torch.aten.mm"(%arg0, %3) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8,16],f32>) -> !torch.vtensor<[4,16],f32>
    %5 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %6 = "torch.aten.mul.Scalar"(%4, %5) : (!torch.vtensor<[4,16],f32>, !torch.int) -> !torch.vtensor<[4,16],f32>
    %7 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %8 = "torch.aten.mul.Scalar"(%arg2, %7) : (!torch.vtensor<[16],f32>, !torch.int) -> !torch.vtensor<[16],f32>
    %9 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %10 = "torch.aten.add.Tensor"(%6, %8, %9) : (!torch.vtensor<[4,16],f32>, !torch.vtensor<[16],f32>, !torch.int) -> !torch.vtensor<[4,16],f32>
    %11 = "torch.aten.relu"(%10) : (!torch.vtensor<[4,16],f32>) -> !torch.vtensor<[4,16],f32>
    "func.return"(%11) : (!torch.vtensor<[4,16],f32>) -> ()
  }) : () -> ()

// q @ k^T as view + bmm, the tril mask from arange/compare/logical_and,
// masked_fill(-inf) as where.self with a 0-d operand, _softmax.
// CHECK-LABEL: func.func @causal_attention(
// CHECK:         nova.transpose %{{.*}} permutation = [0, 1, 3, 2] : tensor<2x2x4x8xf32> -> tensor<2x2x8x4xf32>
// CHECK:         nova.reshape %{{.*}} : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
// CHECK:         %[[SCORES:.*]] = nova.matmul %{{.*}}, %{{.*}} : tensor<4x4x8xf32>, tensor<4x8x4xf32> -> tensor<4x4x4xf32>
// CHECK:         nova.constant dense<0.353553385> : tensor<2x2x4x4xf32>
// CHECK:         %[[COLS:.*]] = nova.iota dim = 0 : tensor<4xi64>
// CHECK:         nova.reshape %[[COLS]] : tensor<4xi64> -> tensor<1x4xi64>
// CHECK:         nova.sub %{{.*}}, %{{.*}} : tensor<4x4xi64>
// CHECK:         %[[LOWER:.*]] = nova.compare le, %{{.*}}, %{{.*}} : tensor<4x4xi64>, tensor<4x4xi64> -> tensor<4x4xi1>
// CHECK:         %[[AND:.*]] = nova.select %[[LOWER]], %{{.*}}, %{{.*}} : tensor<4x4xi1>, tensor<4x4xi1>
// CHECK:         %[[NOT:.*]] = nova.compare eq, %[[AND]], %{{.*}} : tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>
// CHECK:         %[[NEGINF:.*]] = nova.constant dense<0xFF800000> : tensor<f32>
// CHECK:         %[[MASK:.*]] = nova.broadcast_in_dim %[[NOT]] dims = [2, 3] : tensor<4x4xi1> -> tensor<2x2x4x4xi1>
// CHECK:         %[[FILL:.*]] = nova.broadcast_in_dim %[[NEGINF]] dims = [] : tensor<f32> -> tensor<2x2x4x4xf32>
// CHECK:         %[[MASKED:.*]] = nova.select %[[MASK]], %[[FILL]], %{{.*}} : tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>
// CHECK:         nova.softmax %[[MASKED]] dim = 3 : tensor<2x2x4x4xf32>
// CHECK:         nova.matmul %{{.*}}, %{{.*}} : tensor<4x4x4xf32>, tensor<4x4x8xf32> -> tensor<4x4x8xf32>
// CHECK:         nova.reshape %{{.*}} : tensor<4x4x8xf32> -> tensor<2x2x4x8xf32>
  "func.func"() <{function_type = (!torch.vtensor<[2,2,4,8],f32>, !torch.vtensor<[2,2,4,8],f32>, !torch.vtensor<[2,2,4,8],f32>) -> !torch.vtensor<[2,2,4,8],f32>, sym_name = "causal_attention"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,2,4,8],f32>, %arg1: !torch.vtensor<[2,2,4,8],f32>, %arg2: !torch.vtensor<[2,2,4,8],f32>):
    %0 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %2 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %3 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %4 = "torch.prim.ListConstruct"(%0, %1, %2, %3) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %5 = "torch.aten.permute"(%arg1, %4) : (!torch.vtensor<[2,2,4,8],f32>, !torch.list<int>) -> !torch.vtensor<[2,2,8,4],f32>
    %6 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %7 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %8 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %9 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %10 = "torch.prim.ListConstruct"(%6, %7, %8, %9) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %11 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %12 = "torch.aten.expand"(%arg0, %10, %11) : (!torch.vtensor<[2,2,4,8],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,2,4,8],f32>
    %13 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %14 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %15 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %16 = "torch.prim.ListConstruct"(%13, %14, %15) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %17 = "torch.aten.view"(%12, %16) : (!torch.vtensor<[2,2,4,8],f32>, !torch.list<int>) -> !torch.vtensor<[4,4,8],f32>
    %18 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %19 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %20 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %21 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %22 = "torch.prim.ListConstruct"(%18, %19, %20, %21) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %23 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %24 = "torch.aten.expand"(%5, %22, %23) : (!torch.vtensor<[2,2,8,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,2,8,4],f32>
    %25 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %26 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %27 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %28 = "torch.prim.ListConstruct"(%25, %26, %27) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %29 = "torch.aten.view"(%24, %28) : (!torch.vtensor<[2,2,8,4],f32>, !torch.list<int>) -> !torch.vtensor<[4,8,4],f32>
    %30 = "torch.aten.bmm"(%17, %29) : (!torch.vtensor<[4,4,8],f32>, !torch.vtensor<[4,8,4],f32>) -> !torch.vtensor<[4,4,4],f32>
    %31 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %32 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %33 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %34 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %35 = "torch.prim.ListConstruct"(%31, %32, %33, %34) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %36 = "torch.aten.view"(%30, %35) : (!torch.vtensor<[4,4,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,2,4,4],f32>
    %37 = "torch.constant.float"() <{value = 0.35355339059327373 : f64}> : () -> !torch.float
    %38 = "torch.aten.mul.Scalar"(%36, %37) : (!torch.vtensor<[2,2,4,4],f32>, !torch.float) -> !torch.vtensor<[2,2,4,4],f32>
    %39 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %40 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %41 = "torch.prim.ListConstruct"(%39, %40) : (!torch.int, !torch.int) -> !torch.list<int>
    %42 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %43 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %44 = "torch.prim.ListConstruct"(%42, %43) : (!torch.int, !torch.int) -> !torch.list<int>
    %45 = "torch.constant.int"() <{value = 11 : i64}> : () -> !torch.int
    %46 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %47 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %48 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %49 = "torch.aten.empty_strided"(%41, %44, %45, %46, %47, %48) : (!torch.list<int>, !torch.list<int>, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[4,4],i1>
    %50 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %51 = "torch.aten.Int.bool"(%50) : (!torch.bool) -> !torch.int
    %52 = "torch.constant.none"() : () -> !torch.none
    %53 = "torch.constant.none"() : () -> !torch.none
    %54 = "torch.constant.none"() : () -> !torch.none
    %55 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %56 = "torch.constant.none"() : () -> !torch.none
    %57 = "torch.aten.full_like"(%49, %51, %52, %53, %54, %55, %56) : (!torch.vtensor<[4,4],i1>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4,4],i1>
    %58 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %59 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %60 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %61 = "torch.constant.none"() : () -> !torch.none
    %62 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %63 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %64 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %65 = "torch.aten.arange.start_step"(%58, %59, %60, %61, %62, %63, %64) : (!torch.int, !torch.int, !torch.int, !torch.none, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[4],si64>
    %66 = "torch.constant.int"() <{value = -2 : i64}> : () -> !torch.int
    %67 = "torch.aten.unsqueeze"(%65, %66) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[1,4],si64>
    %68 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %69 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %70 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %71 = "torch.constant.none"() : () -> !torch.none
    %72 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %73 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %74 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %75 = "torch.aten.arange.start_step"(%68, %69, %70, %71, %72, %73, %74) : (!torch.int, !torch.int, !torch.int, !torch.none, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[4],si64>
    %76 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %77 = "torch.aten.unsqueeze"(%75, %76) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4,1],si64>
    %78 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %79 = "torch.aten.sub.Tensor"(%67, %77, %78) : (!torch.vtensor<[1,4],si64>, !torch.vtensor<[4,1],si64>, !torch.int) -> !torch.vtensor<[4,4],si64>
    %80 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %81 = "torch.aten.le.Scalar"(%79, %80) : (!torch.vtensor<[4,4],si64>, !torch.int) -> !torch.vtensor<[4,4],i1>
    %82 = "torch.aten.logical_and"(%81, %57) : (!torch.vtensor<[4,4],i1>, !torch.vtensor<[4,4],i1>) -> !torch.vtensor<[4,4],i1>
    %83 = "torch.aten.bitwise_not"(%82) : (!torch.vtensor<[4,4],i1>) -> !torch.vtensor<[4,4],i1>
    %84 = "torch.constant.float"() <{value = 0xFFF0000000000000 : f64}> : () -> !torch.float
    %85 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %86 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %87 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %88 = "torch.constant.none"() : () -> !torch.none
    %89 = "torch.aten.scalar_tensor"(%84, %85, %86, %87, %88) : (!torch.float, !torch.int, !torch.int, !torch.Device, !torch.none) -> !torch.vtensor<[],f32>
    %90 = "torch.aten.where.self"(%83, %89, %38) : (!torch.vtensor<[4,4],i1>, !torch.vtensor<[],f32>, !torch.vtensor<[2,2,4,4],f32>) -> !torch.vtensor<[2,2,4,4],f32>
    %91 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %92 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %93 = "torch.aten._softmax"(%90, %91, %92) : (!torch.vtensor<[2,2,4,4],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[2,2,4,4],f32>
    %94 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %95 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %96 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %97 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %98 = "torch.prim.ListConstruct"(%94, %95, %96, %97) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %99 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %100 = "torch.aten.expand"(%93, %98, %99) : (!torch.vtensor<[2,2,4,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,2,4,4],f32>
    %101 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %102 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %103 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %104 = "torch.prim.ListConstruct"(%101, %102, %103) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %105 = "torch.aten.view"(%100, %104) : (!torch.vtensor<[2,2,4,4],f32>, !torch.list<int>) -> !torch.vtensor<[4,4,4],f32>
    %106 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %107 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %108 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %109 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %110 = "torch.prim.ListConstruct"(%106, %107, %108, %109) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %111 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %112 = "torch.aten.expand"(%arg2, %110, %111) : (!torch.vtensor<[2,2,4,8],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,2,4,8],f32>
    %113 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %114 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %115 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %116 = "torch.prim.ListConstruct"(%113, %114, %115) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %117 = "torch.aten.view"(%112, %116) : (!torch.vtensor<[2,2,4,8],f32>, !torch.list<int>) -> !torch.vtensor<[4,4,8],f32>
    %118 = "torch.aten.bmm"(%105, %117) : (!torch.vtensor<[4,4,4],f32>, !torch.vtensor<[4,4,8],f32>) -> !torch.vtensor<[4,4,8],f32>
    %119 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %120 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %121 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %122 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %123 = "torch.prim.ListConstruct"(%119, %120, %121, %122) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %124 = "torch.aten.view"(%118, %123) : (!torch.vtensor<[4,4,8],f32>, !torch.list<int>) -> !torch.vtensor<[2,2,4,8],f32>
    "func.return"(%124) : (!torch.vtensor<[2,2,4,8],f32>) -> ()
  }) : () -> ()

// The decomposed layer norm: var_mean.correction (two-pass, biased), add.Scalar, rsqrt.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:      %[[X:.*]]: tensor<2x4x8xf32>
// CHECK:         %[[MEAN:.*]] = nova.reduce_mean %[[X]] dims = [2] keepdim : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
// CHECK:         %[[MEANB:.*]] = nova.broadcast_in_dim %[[MEAN]] dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x8xf32>
// CHECK:         %[[CENTERED:.*]] = nova.sub %[[X]], %[[MEANB]] : tensor<2x4x8xf32>
// CHECK:         %[[SQUARES:.*]] = nova.mul %[[CENTERED]], %[[CENTERED]] : tensor<2x4x8xf32>
// CHECK:         %[[SS:.*]] = nova.reduce_sum %[[SQUARES]] dims = [2] keepdim : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
// CHECK:         %[[N:.*]] = nova.constant dense<8.000000e+00> : tensor<2x4x1xf32>
// CHECK:         %[[VAR:.*]] = nova.div %[[SS]], %[[N]] : tensor<2x4x1xf32>
// CHECK:         %[[EPS:.*]] = nova.constant dense<9.99999974E-6> : tensor<2x4x1xf32>
// CHECK:         %[[VEPS:.*]] = nova.add %[[VAR]], %[[EPS]] : tensor<2x4x1xf32>
// CHECK:         nova.rsqrt %[[VEPS]] : tensor<2x4x1xf32>
// CHECK:         nova.broadcast_in_dim %{{.*}} dims = [2] : tensor<8xf32> -> tensor<2x4x8xf32>
  "func.func"() <{function_type = (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,4,8],f32>, sym_name = "layer_norm"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,4,8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[8],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
    %2 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %3 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %4:2 = "torch.aten.var_mean.correction"(%arg0, %1, %2, %3) : (!torch.vtensor<[2,4,8],f32>, !torch.list<int>, !torch.int, !torch.bool) -> (!torch.vtensor<[2,4,1],f32>, !torch.vtensor<[2,4,1],f32>)
    %5 = "torch.constant.float"() <{value = 1.000000e-05 : f64}> : () -> !torch.float
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.aten.add.Scalar"(%4#0, %5, %6) : (!torch.vtensor<[2,4,1],f32>, !torch.float, !torch.int) -> !torch.vtensor<[2,4,1],f32>
    %8 = "torch.aten.rsqrt"(%7) : (!torch.vtensor<[2,4,1],f32>) -> !torch.vtensor<[2,4,1],f32>
    %9 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %10 = "torch.aten.sub.Tensor"(%arg0, %4#1, %9) : (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,4,1],f32>, !torch.int) -> !torch.vtensor<[2,4,8],f32>
    %11 = "torch.aten.mul.Tensor"(%10, %8) : (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,4,1],f32>) -> !torch.vtensor<[2,4,8],f32>
    %12 = "torch.aten.mul.Tensor"(%11, %arg1) : (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,4,8],f32>
    %13 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %14 = "torch.aten.add.Tensor"(%12, %arg2, %13) : (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[8],f32>, !torch.int) -> !torch.vtensor<[2,4,8],f32>
    "func.return"(%14) : (!torch.vtensor<[2,4,8],f32>) -> ()
  }) : () -> ()

// gelu stays one op; its decomposed backward has pow(x, 3) (a product, not
// nova.pow) and `1 - t^2` with a 0-d si64 NumToTensor operand cast to f32.
// CHECK-LABEL: func.func @gelu_tanh_backward(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>
// CHECK:         nova.gelu %[[X]] approximation = tanh : tensor<4x8xf32>
// CHECK:         nova.reduce_sum %{{.*}} dims = [0, 1] : tensor<4x8xf32> -> tensor<f32>
// CHECK:         %[[X2:.*]] = nova.mul %[[X]], %[[X]] : tensor<4x8xf32>
// CHECK:         nova.mul %[[X2]], %[[X]] : tensor<4x8xf32>
// CHECK-NOT:     nova.pow
// CHECK:         nova.tanh
// CHECK:         %[[ONE:.*]] = nova.constant dense<1> : tensor<i64>
// CHECK:         %[[ONEF:.*]] = nova.cast %[[ONE]] : tensor<i64> -> tensor<f32>
// CHECK:         nova.broadcast_in_dim %[[ONEF]] dims = [] : tensor<f32> -> tensor<4x8xf32>
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[],f32>), sym_name = "gelu_tanh_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>):
    %0 = "torch.constant.str"() <{value = "tanh"}> : () -> !torch.str
    %1 = "torch.aten.gelu"(%arg0, %0) : (!torch.vtensor<[4,8],f32>, !torch.str) -> !torch.vtensor<[4,8],f32>
    %2 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %3 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %4 = "torch.constant.none"() : () -> !torch.none
    %5 = "torch.aten.sum.dim_IntList"(%1, %2, %3, %4) : (!torch.vtensor<[4,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.constant.none"() : () -> !torch.none
    %8 = "torch.constant.none"() : () -> !torch.none
    %9 = "torch.constant.none"() : () -> !torch.none
    %10 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %11 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %12 = "torch.aten.full_like"(%5, %6, %7, %8, %9, %10, %11) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %13 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %14 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %15 = "torch.prim.ListConstruct"(%13, %14) : (!torch.int, !torch.int) -> !torch.list<int>
    %16 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %17 = "torch.aten.expand"(%12, %15, %16) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[4,8],f32>
    %18 = "torch.aten.mul.Tensor"(%arg0, %arg0) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %19 = "torch.aten.mul.Tensor"(%18, %arg0) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %20 = "torch.constant.float"() <{value = 4.471500e-02 : f64}> : () -> !torch.float
    %21 = "torch.aten.mul.Scalar"(%19, %20) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %22 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %23 = "torch.aten.add.Tensor"(%arg0, %21, %22) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %24 = "torch.constant.float"() <{value = 0.79788456080286541 : f64}> : () -> !torch.float
    %25 = "torch.aten.mul.Scalar"(%23, %24) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %26 = "torch.aten.tanh"(%25) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %27 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %28 = "torch.aten.mul.Scalar"(%arg0, %27) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %29 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %30 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %31 = "torch.aten.add.Scalar"(%26, %29, %30) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,8],f32>
    %32 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %33 = "torch.aten.mul.Scalar"(%31, %32) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %34 = "torch.aten.mul.Tensor"(%26, %26) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %35 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %36 = "torch.prim.NumToTensor.Scalar"(%35) : (!torch.int) -> !torch.vtensor<[],si64>
    %37 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %38 = "torch.aten.sub.Tensor"(%36, %34, %37) : (!torch.vtensor<[],si64>, !torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %39 = "torch.constant.float"() <{value = 1.341450e-01 : f64}> : () -> !torch.float
    %40 = "torch.aten.mul.Scalar"(%18, %39) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %41 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %42 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %43 = "torch.aten.add.Scalar"(%40, %41, %42) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,8],f32>
    %44 = "torch.constant.float"() <{value = 0.79788456080286541 : f64}> : () -> !torch.float
    %45 = "torch.aten.mul.Scalar"(%43, %44) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %46 = "torch.aten.mul.Tensor"(%28, %38) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %47 = "torch.aten.mul.Tensor"(%46, %45) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %48 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %49 = "torch.aten.add.Tensor"(%33, %47, %48) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %50 = "torch.aten.mul.Tensor"(%17, %49) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    "func.return"(%50, %5) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()

// log_softmax decomposed (amax, exp, sum, log), the target gather, the count
// of non-ignored targets (a sum of bools in i64), and scatter.value's one-hot
// (iota + compare + select).
// CHECK-LABEL: func.func @cross_entropy_backward(
// CHECK-SAME:      %[[LOGITS:.*]]: tensor<4x10xf32>, %[[TARGET:.*]]: tensor<4xi64>
// CHECK:         nova.reduce_max %[[LOGITS]] dims = [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
// CHECK:         nova.compare ne, %[[TARGET]], %{{.*}} : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
// CHECK:         nova.gather %{{.*}}[%{{.*}}] dim = 1 : tensor<4x10xf32>, tensor<4x1xi64> -> tensor<4x1xf32>
// CHECK:         %[[COUNTS:.*]] = nova.cast %{{.*}} : tensor<4xi1> -> tensor<4xi64>
// CHECK:         %[[COUNT:.*]] = nova.reduce_sum %[[COUNTS]] dims = [0] : tensor<4xi64> -> tensor<i64>
// CHECK:         nova.cast %[[COUNT]] : tensor<i64> -> tensor<f32>
// CHECK:         %[[ZEROS:.*]] = nova.constant dense<0.000000e+00> : tensor<4x10xf32>
// CHECK:         %[[CLASSES:.*]] = nova.iota dim = 1 : tensor<4x10xi64>
// CHECK:         %[[T:.*]] = nova.broadcast_in_dim %{{.*}} dims = [0, 1] : tensor<4x1xi64> -> tensor<4x10xi64>
// CHECK:         %[[HIT:.*]] = nova.compare eq, %[[T]], %[[CLASSES]] : tensor<4x10xi64>, tensor<4x10xi64> -> tensor<4x10xi1>
// CHECK:         %[[MINUS1:.*]] = nova.constant dense<-1.000000e+00> : tensor<4x10xf32>
// CHECK:         nova.select %[[HIT]], %[[MINUS1]], %[[ZEROS]] : tensor<4x10xi1>, tensor<4x10xf32>
  "func.func"() <{function_type = (!torch.vtensor<[4,10],f32>, !torch.vtensor<[4],si64>) -> (!torch.vtensor<[4,10],f32>, !torch.vtensor<[],f32>), sym_name = "cross_entropy_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,10],f32>, %arg1: !torch.vtensor<[4],si64>):
    %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
    %2 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %3 = "torch.aten.amax"(%arg0, %1, %2) : (!torch.vtensor<[4,10],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[4,1],f32>
    %4 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %5 = "torch.aten.sub.Tensor"(%arg0, %3, %4) : (!torch.vtensor<[4,10],f32>, !torch.vtensor<[4,1],f32>, !torch.int) -> !torch.vtensor<[4,10],f32>
    %6 = "torch.aten.exp"(%5) : (!torch.vtensor<[4,10],f32>) -> !torch.vtensor<[4,10],f32>
    %7 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %8 = "torch.prim.ListConstruct"(%7) : (!torch.int) -> !torch.list<int>
    %9 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %10 = "torch.constant.none"() : () -> !torch.none
    %11 = "torch.aten.sum.dim_IntList"(%6, %8, %9, %10) : (!torch.vtensor<[4,10],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[4,1],f32>
    %12 = "torch.aten.log"(%11) : (!torch.vtensor<[4,1],f32>) -> !torch.vtensor<[4,1],f32>
    %13 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %14 = "torch.aten.sub.Tensor"(%5, %12, %13) : (!torch.vtensor<[4,10],f32>, !torch.vtensor<[4,1],f32>, !torch.int) -> !torch.vtensor<[4,10],f32>
    %15 = "torch.constant.int"() <{value = -100 : i64}> : () -> !torch.int
    %16 = "torch.aten.ne.Scalar"(%arg1, %15) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],i1>
    %17 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %18 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %19 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %20 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %21 = "torch.constant.none"() : () -> !torch.none
    %22 = "torch.aten.scalar_tensor"(%17, %18, %19, %20, %21) : (!torch.int, !torch.int, !torch.int, !torch.Device, !torch.none) -> !torch.vtensor<[],si64>
    %23 = "torch.aten.where.self"(%16, %arg1, %22) : (!torch.vtensor<[4],i1>, !torch.vtensor<[4],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[4],si64>
    %24 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %25 = "torch.aten.unsqueeze"(%23, %24) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4,1],si64>
    %26 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %27 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %28 = "torch.aten.gather"(%14, %26, %25, %27) : (!torch.vtensor<[4,10],f32>, !torch.int, !torch.vtensor<[4,1],si64>, !torch.bool) -> !torch.vtensor<[4,1],f32>
    %29 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %30 = "torch.prim.ListConstruct"(%29) : (!torch.int) -> !torch.list<int>
    %31 = "torch.prims.squeeze"(%28, %30) : (!torch.vtensor<[4,1],f32>, !torch.list<int>) -> !torch.vtensor<[4],f32>
    %32 = "torch.aten.neg"(%31) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
    %33 = "torch.constant.int"() <{value = -100 : i64}> : () -> !torch.int
    %34 = "torch.aten.ne.Scalar"(%arg1, %33) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],i1>
    %35 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %36 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %37 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %38 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %39 = "torch.constant.none"() : () -> !torch.none
    %40 = "torch.aten.scalar_tensor"(%35, %36, %37, %38, %39) : (!torch.int, !torch.int, !torch.int, !torch.Device, !torch.none) -> !torch.vtensor<[],f32>
    %41 = "torch.aten.where.self"(%34, %32, %40) : (!torch.vtensor<[4],i1>, !torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
    %42 = "torch.constant.int"() <{value = -100 : i64}> : () -> !torch.int
    %43 = "torch.aten.ne.Scalar"(%arg1, %42) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],i1>
    %44 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %45 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %46 = "torch.constant.none"() : () -> !torch.none
    %47 = "torch.aten.sum.dim_IntList"(%43, %44, %45, %46) : (!torch.vtensor<[4],i1>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],si64>
    %48 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %49 = "torch.prims.convert_element_type"(%47, %48) : (!torch.vtensor<[],si64>, !torch.int) -> !torch.vtensor<[],f32>
    %50 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %51 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %52 = "torch.constant.none"() : () -> !torch.none
    %53 = "torch.aten.sum.dim_IntList"(%41, %50, %51, %52) : (!torch.vtensor<[4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %54 = "torch.aten.div.Tensor"(%53, %49) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %55 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %56 = "torch.constant.none"() : () -> !torch.none
    %57 = "torch.constant.none"() : () -> !torch.none
    %58 = "torch.constant.none"() : () -> !torch.none
    %59 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %60 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %61 = "torch.aten.full_like"(%54, %55, %56, %57, %58, %59, %60) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %62 = "torch.aten.div.Tensor"(%61, %49) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %63 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %64 = "torch.aten.unsqueeze"(%arg1, %63) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4,1],si64>
    %65 = "torch.constant.int"() <{value = -100 : i64}> : () -> !torch.int
    %66 = "torch.aten.ne.Scalar"(%64, %65) : (!torch.vtensor<[4,1],si64>, !torch.int) -> !torch.vtensor<[4,1],i1>
    %67 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %68 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %69 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %70 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %71 = "torch.constant.none"() : () -> !torch.none
    %72 = "torch.aten.scalar_tensor"(%67, %68, %69, %70, %71) : (!torch.int, !torch.int, !torch.int, !torch.Device, !torch.none) -> !torch.vtensor<[],si64>
    %73 = "torch.aten.where.self"(%66, %64, %72) : (!torch.vtensor<[4,1],i1>, !torch.vtensor<[4,1],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[4,1],si64>
    %74 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %75 = "torch.constant.none"() : () -> !torch.none
    %76 = "torch.constant.none"() : () -> !torch.none
    %77 = "torch.constant.none"() : () -> !torch.none
    %78 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %79 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %80 = "torch.aten.full_like"(%14, %74, %75, %76, %77, %78, %79) : (!torch.vtensor<[4,10],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[4,10],f32>
    %81 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %82 = "torch.constant.float"() <{value = -1.000000e+00 : f64}> : () -> !torch.float
    %83 = "torch.aten.scatter.value"(%80, %81, %73, %82) : (!torch.vtensor<[4,10],f32>, !torch.int, !torch.vtensor<[4,1],si64>, !torch.float) -> !torch.vtensor<[4,10],f32>
    %84 = "torch.constant.int"() <{value = -100 : i64}> : () -> !torch.int
    %85 = "torch.aten.ne.Scalar"(%64, %84) : (!torch.vtensor<[4,1],si64>, !torch.int) -> !torch.vtensor<[4,1],i1>
    %86 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %87 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %88 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %89 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %90 = "torch.constant.none"() : () -> !torch.none
    %91 = "torch.aten.scalar_tensor"(%86, %87, %88, %89, %90) : (!torch.int, !torch.int, !torch.int, !torch.Device, !torch.none) -> !torch.vtensor<[],f32>
    %92 = "torch.aten.where.self"(%85, %62, %91) : (!torch.vtensor<[4,1],i1>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4,1],f32>
    %93 = "torch.aten.mul.Tensor"(%83, %92) : (!torch.vtensor<[4,10],f32>, !torch.vtensor<[4,1],f32>) -> !torch.vtensor<[4,10],f32>
    %94 = "torch.aten.exp"(%14) : (!torch.vtensor<[4,10],f32>) -> !torch.vtensor<[4,10],f32>
    %95 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %96 = "torch.prim.ListConstruct"(%95) : (!torch.int) -> !torch.list<int>
    %97 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %98 = "torch.constant.none"() : () -> !torch.none
    %99 = "torch.aten.sum.dim_IntList"(%93, %96, %97, %98) : (!torch.vtensor<[4,10],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[4,1],f32>
    %100 = "torch.aten.mul.Tensor"(%94, %99) : (!torch.vtensor<[4,10],f32>, !torch.vtensor<[4,1],f32>) -> !torch.vtensor<[4,10],f32>
    %101 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %102 = "torch.aten.sub.Tensor"(%93, %100, %101) : (!torch.vtensor<[4,10],f32>, !torch.vtensor<[4,10],f32>, !torch.int) -> !torch.vtensor<[4,10],f32>
    "func.return"(%102, %54) : (!torch.vtensor<[4,10],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()

// The embedding backward the decompositions produce: clamp the indices,
// zero the rows of invalid ones, index_put(accumulate) -> nova.scatter_add
// with Python's wrap-around of negative indices.
// CHECK-LABEL: func.func @embedding_backward(
// CHECK-SAME:      %[[W:.*]]: tensor<10x8xf32>, %[[I:.*]]: tensor<2x3xi64>
// CHECK:         nova.embedding %[[W]][%[[I]]] : tensor<10x8xf32>, tensor<2x3xi64> -> tensor<2x3x8xf32>
// CHECK:         %[[GE:.*]] = nova.compare ge, %[[I]], %{{.*}} : tensor<2x3xi64>, tensor<2x3xi64> -> tensor<2x3xi1>
// CHECK:         %[[LT:.*]] = nova.compare lt, %[[I]], %{{.*}} : tensor<2x3xi64>, tensor<2x3xi64> -> tensor<2x3xi1>
// CHECK:         nova.select %[[GE]], %[[LT]], %{{.*}} : tensor<2x3xi1>, tensor<2x3xi1>
// The zeros of empty_strided, then those of full_like:
// CHECK:         nova.constant dense<0.000000e+00> : tensor<10x8xf32>
// CHECK:         %[[ZEROS:.*]] = nova.constant dense<0.000000e+00> : tensor<10x8xf32>
// CHECK:         %[[LO:.*]] = nova.max %[[I]], %{{.*}} : tensor<2x3xi64>
// CHECK:         %[[CLAMPED:.*]] = nova.min %[[LO]], %{{.*}} : tensor<2x3xi64>
// CHECK:         %[[UPDATES:.*]] = nova.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x8xi1>, tensor<2x3x8xf32>
// CHECK:         %[[NEG:.*]] = nova.compare lt, %[[CLAMPED]], %{{.*}} : tensor<2x3xi64>, tensor<2x3xi64> -> tensor<2x3xi1>
// CHECK:         %[[PLUS:.*]] = nova.add %[[CLAMPED]], %{{.*}} : tensor<2x3xi64>
// CHECK:         %[[WRAPPED:.*]] = nova.select %[[NEG]], %[[PLUS]], %[[CLAMPED]] : tensor<2x3xi1>, tensor<2x3xi64>
// CHECK:         %[[GRAD:.*]] = nova.scatter_add %[[ZEROS]][%[[WRAPPED]]], %[[UPDATES]] : tensor<10x8xf32>, tensor<2x3xi64>, tensor<2x3x8xf32> -> tensor<10x8xf32>
// CHECK:         return %[[GRAD]], %{{.*}} : tensor<10x8xf32>, tensor<f32>
  "func.func"() <{function_type = (!torch.vtensor<[10,8],f32>, !torch.vtensor<[2,3],si64>) -> (!torch.vtensor<[10,8],f32>, !torch.vtensor<[],f32>), sym_name = "embedding_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[10,8],f32>, %arg1: !torch.vtensor<[2,3],si64>):
    %0 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %1 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %2 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %3 = "torch.aten.embedding"(%arg0, %arg1, %0, %1, %2) : (!torch.vtensor<[10,8],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.bool, !torch.bool) -> !torch.vtensor<[2,3,8],f32>
    %4 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %5 = "torch.aten.pow.Tensor_Scalar"(%3, %4) : (!torch.vtensor<[2,3,8],f32>, !torch.int) -> !torch.vtensor<[2,3,8],f32>
    %6 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %7 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %8 = "torch.constant.none"() : () -> !torch.none
    %9 = "torch.aten.sum.dim_IntList"(%5, %6, %7, %8) : (!torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %10 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %11 = "torch.constant.none"() : () -> !torch.none
    %12 = "torch.constant.none"() : () -> !torch.none
    %13 = "torch.constant.none"() : () -> !torch.none
    %14 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %15 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %16 = "torch.aten.full_like"(%9, %10, %11, %12, %13, %14, %15) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %17 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %18 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %19 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %20 = "torch.prim.ListConstruct"(%17, %18, %19) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %21 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %22 = "torch.aten.expand"(%16, %20, %21) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3,8],f32>
    %23 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %24 = "torch.aten.pow.Tensor_Scalar"(%3, %23) : (!torch.vtensor<[2,3,8],f32>, !torch.float) -> !torch.vtensor<[2,3,8],f32>
    %25 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %26 = "torch.aten.mul.Scalar"(%24, %25) : (!torch.vtensor<[2,3,8],f32>, !torch.float) -> !torch.vtensor<[2,3,8],f32>
    %27 = "torch.aten.mul.Tensor"(%22, %26) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
    %28 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %29 = "torch.aten.ge.Scalar"(%arg1, %28) : (!torch.vtensor<[2,3],si64>, !torch.int) -> !torch.vtensor<[2,3],i1>
    %30 = "torch.constant.int"() <{value = 10 : i64}> : () -> !torch.int
    %31 = "torch.aten.lt.Scalar"(%arg1, %30) : (!torch.vtensor<[2,3],si64>, !torch.int) -> !torch.vtensor<[2,3],i1>
    %32 = "torch.aten.bitwise_and.Tensor"(%29, %31) : (!torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>) -> !torch.vtensor<[2,3],i1>
    %33 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %34 = "torch.aten.ne.Scalar"(%arg1, %33) : (!torch.vtensor<[2,3],si64>, !torch.int) -> !torch.vtensor<[2,3],i1>
    %35 = "torch.aten.bitwise_and.Tensor"(%32, %34) : (!torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],i1>) -> !torch.vtensor<[2,3],i1>
    %36 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %37 = "torch.aten.unsqueeze"(%35, %36) : (!torch.vtensor<[2,3],i1>, !torch.int) -> !torch.vtensor<[2,3,1],i1>
    %38 = "torch.constant.int"() <{value = 10 : i64}> : () -> !torch.int
    %39 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %40 = "torch.prim.ListConstruct"(%38, %39) : (!torch.int, !torch.int) -> !torch.list<int>
    %41 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %42 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %43 = "torch.prim.ListConstruct"(%41, %42) : (!torch.int, !torch.int) -> !torch.list<int>
    %44 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %45 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %46 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %47 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %48 = "torch.aten.empty_strided"(%40, %43, %44, %45, %46, %47) : (!torch.list<int>, !torch.list<int>, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[10,8],f32>
    %49 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %50 = "torch.constant.none"() : () -> !torch.none
    %51 = "torch.constant.none"() : () -> !torch.none
    %52 = "torch.constant.none"() : () -> !torch.none
    %53 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %54 = "torch.constant.none"() : () -> !torch.none
    %55 = "torch.aten.full_like"(%48, %49, %50, %51, %52, %53, %54) : (!torch.vtensor<[10,8],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[10,8],f32>
    %56 = "torch.constant.int"() <{value = -10 : i64}> : () -> !torch.int
    %57 = "torch.constant.int"() <{value = 9 : i64}> : () -> !torch.int
    %58 = "torch.aten.clamp"(%arg1, %56, %57) : (!torch.vtensor<[2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[2,3],si64>
    %59 = "torch.aten.bitwise_not"(%37) : (!torch.vtensor<[2,3,1],i1>) -> !torch.vtensor<[2,3,1],i1>
    %60 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %61 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %62 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %63 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %64 = "torch.constant.none"() : () -> !torch.none
    %65 = "torch.aten.scalar_tensor"(%60, %61, %62, %63, %64) : (!torch.float, !torch.int, !torch.int, !torch.Device, !torch.none) -> !torch.vtensor<[],f32>
    %66 = "torch.aten.where.self"(%59, %65, %27) : (!torch.vtensor<[2,3,1],i1>, !torch.vtensor<[],f32>, !torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
    %67 = "torch.prim.ListConstruct"(%58) : (!torch.vtensor<[2,3],si64>) -> !torch.list<optional<vtensor>>
    %68 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %69 = "torch.aten.index_put"(%55, %67, %66, %68) : (!torch.vtensor<[10,8],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[2,3,8],f32>, !torch.bool) -> !torch.vtensor<[10,8],f32>
    "func.return"(%69, %9) : (!torch.vtensor<[10,8],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()

// split_with_sizes + prim.ListUnpack become slices; cat a concat.
// CHECK-LABEL: func.func @split_cat(
// CHECK-SAME:      %[[X:.*]]: tensor<2x8xf32>
// CHECK:         %[[A:.*]] = nova.slice %[[X]][0:2:1, 0:2:1] : tensor<2x8xf32> -> tensor<2x2xf32>
// CHECK:         %[[B:.*]] = nova.slice %[[X]][0:2:1, 2:5:1] : tensor<2x8xf32> -> tensor<2x3xf32>
// CHECK:         %[[C:.*]] = nova.slice %[[X]][0:2:1, 5:8:1] : tensor<2x8xf32> -> tensor<2x3xf32>
// CHECK:         %[[CAT:.*]] = nova.concat %[[C]], %[[B]], %[[A]] dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x8xf32>
// CHECK:         return %[[CAT]]
  "func.func"() <{function_type = (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>, sym_name = "split_cat"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,8],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %2 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %3 = "torch.prim.ListConstruct"(%0, %1, %2) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %4 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %5 = "torch.aten.split_with_sizes"(%arg0, %3, %4) : (!torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.int) -> !torch.list<vtensor>
    %6:3 = "torch.prim.ListUnpack"(%5) : (!torch.list<vtensor>) -> (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>)
    %7 = "torch.prim.ListConstruct"(%6#2, %6#1, %6#0) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,2],f32>) -> !torch.list<vtensor>
    %8 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %9 = "torch.aten.cat"(%7, %8) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,8],f32>
    "func.return"(%9) : (!torch.vtensor<[2,8],f32>) -> ()
  }) : () -> ()

// torch.operator "torch.nova.sgd" (python/nova/optim_ops.py) -> nova.sgd.
// CHECK-LABEL: func.func @sgd(
// CHECK-SAME:      %[[P:[^:]*]]: tensor<4x8xf32>, %[[G:[^:]*]]: tensor<4x8xf32>, %[[BUF:[^:]*]]: tensor<4x8xf32>, %[[LR:[^:]*]]: tensor<f32>, %[[M:[^:]*]]: tensor<f32>, %[[D:[^:]*]]: tensor<f32>, %[[WD:[^:]*]]: tensor<f32>, %[[FIRST:[^:]*]]: tensor<f32>)
// CHECK:         %[[NEW:.*]], %[[NEWBUF:.*]] = nova.sgd %[[P]], %[[G]], %[[BUF]] lr(%[[LR]]) momentum(%[[M]]) dampening(%[[D]]) weight_decay(%[[WD]]) first_step(%[[FIRST]]) {nesterov} : tensor<4x8xf32>
// CHECK:         return %[[NEW]], %[[NEWBUF]]
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>), sym_name = "sgd"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>, %arg1: !torch.vtensor<[4,8],f32>, %arg2: !torch.vtensor<[4,8],f32>, %arg3: !torch.vtensor<[],f32>, %arg4: !torch.vtensor<[],f32>, %arg5: !torch.vtensor<[],f32>, %arg6: !torch.vtensor<[],f32>, %arg7: !torch.vtensor<[],f32>):
    %0 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %1:2 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %0) <{name = "torch.nova.sgd"}> : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.bool) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>)
    "func.return"(%1#0, %1#1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> ()
  }) : () -> ()

// CHECK-LABEL: func.func @adamw(
// CHECK-SAME:      %[[P:[^:]*]]: tensor<8xf32>, %[[G:[^:]*]]: tensor<8xf32>, %[[M:[^:]*]]: tensor<8xf32>, %[[V:[^:]*]]: tensor<8xf32>, %[[STEP:[^:]*]]: tensor<f32>, %[[LR:[^:]*]]: tensor<f32>, %[[B1:[^:]*]]: tensor<f32>, %[[B2:[^:]*]]: tensor<f32>, %[[EPS:[^:]*]]: tensor<f32>, %[[WD:[^:]*]]: tensor<f32>)
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}} = nova.adamw %[[P]], %[[G]], %[[M]], %[[V]] step(%[[STEP]]) lr(%[[LR]]) betas(%[[B1]], %[[B2]]) eps(%[[EPS]]) weight_decay(%[[WD]]) : tensor<8xf32>
  "func.func"() <{function_type = (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>), sym_name = "adamw"}> ({
  ^bb0(%arg0: !torch.vtensor<[8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[8],f32>, %arg3: !torch.vtensor<[8],f32>, %arg4: !torch.vtensor<[],f32>, %arg5: !torch.vtensor<[],f32>, %arg6: !torch.vtensor<[],f32>, %arg7: !torch.vtensor<[],f32>, %arg8: !torch.vtensor<[],f32>, %arg9: !torch.vtensor<[],f32>):
    %0:3 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9) <{name = "torch.nova.adamw"}> : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>)
    "func.return"(%0#0, %0#1, %0#2) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> ()
  }) : () -> ()

// torch.operator "torch.nova.attention" / "torch.nova.attention_backward"
// (python/nova/attention_ops.py, what scaled_dot_product_attention captures
// as) -> nova.attention / nova.attention_backward; causal and scale become
// attributes.
// CHECK-LABEL: func.func @fused_attention(
// CHECK-SAME:      %[[Q:[^:]*]]: tensor<2x2x4x8xbf16>, %[[K:[^:]*]]: tensor<2x2x4x8xbf16>, %[[V:[^:]*]]: tensor<2x2x4x8xbf16>, %[[DY:[^:]*]]: tensor<2x2x4x8xbf16>)
// CHECK:         %[[OUT:.*]], %[[LSE:.*]] = nova.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 0.35355339059327373 : f64} : tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16> -> tensor<2x2x4x8xbf16>, tensor<2x2x4xf32>
// CHECK:         %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = nova.attention_backward %[[DY]], %[[Q]], %[[K]], %[[V]], %[[OUT]], %[[LSE]] {causal, scale = 0.35355339059327373 : f64} : tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4xf32> -> tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>
// CHECK:         return %[[OUT]], %[[LSE]], %[[DQ]], %[[DK]], %[[DV]]
  "func.func"() <{function_type = (!torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>) -> (!torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>), sym_name = "fused_attention"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,2,4,8],bf16>, %arg1: !torch.vtensor<[2,2,4,8],bf16>, %arg2: !torch.vtensor<[2,2,4,8],bf16>, %arg3: !torch.vtensor<[2,2,4,8],bf16>):
    %0 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %1 = "torch.constant.float"() <{value = 0.35355339059327373 : f64}> : () -> !torch.float
    %2:2 = "torch.operator"(%arg0, %arg1, %arg2, %0, %1) <{name = "torch.nova.attention"}> : (!torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.bool, !torch.float) -> (!torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4],f32>)
    %3 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %4 = "torch.constant.float"() <{value = 0.35355339059327373 : f64}> : () -> !torch.float
    %5:3 = "torch.operator"(%arg3, %arg0, %arg1, %arg2, %2#0, %2#1, %3, %4) <{name = "torch.nova.attention_backward"}> : (!torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4],f32>, !torch.bool, !torch.float) -> (!torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>)
    "func.return"(%2#0, %2#1, %5#0, %5#1, %5#2) : (!torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>, !torch.vtensor<[2,2,4,8],bf16>) -> ()
  }) : () -> ()

// Undecomposed aten (make_fx without the table): t + addmm, beta = alpha = 1.
// CHECK-LABEL: func.func @linear_addmm(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[B:.*]]: tensor<5xf32>
// CHECK:         %[[ROWS:.*]] = nova.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK:         %[[WT:.*]] = nova.transpose %[[W]] permutation = [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
// CHECK:         %[[MM:.*]] = nova.matmul %[[ROWS]], %[[WT]] : tensor<6x4xf32>, tensor<4x5xf32> -> tensor<6x5xf32>
// CHECK:         %[[BIAS:.*]] = nova.broadcast_in_dim %[[B]] dims = [1] : tensor<5xf32> -> tensor<6x5xf32>
// CHECK:         %[[SUM:.*]] = nova.add %[[MM]], %[[BIAS]] : tensor<6x5xf32>
// CHECK:         nova.reshape %[[SUM]] : tensor<6x5xf32> -> tensor<2x3x5xf32>
  "func.func"() <{function_type = (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[2,3,5],f32>, sym_name = "linear_addmm"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[5,4],f32>, %arg2: !torch.vtensor<[5],f32>):
    %0 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3 = "torch.aten.view"(%arg0, %2) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[6,4],f32>
    %4 = "torch.aten.t"(%arg1) : (!torch.vtensor<[5,4],f32>) -> !torch.vtensor<[4,5],f32>
    %5 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.aten.addmm"(%arg2, %3, %4, %5, %6) : (!torch.vtensor<[5],f32>, !torch.vtensor<[6,4],f32>, !torch.vtensor<[4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[6,5],f32>
    %8 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %9 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %10 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %11 = "torch.prim.ListConstruct"(%8, %9, %10) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %12 = "torch.aten.view"(%7, %11) : (!torch.vtensor<[6,5],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,5],f32>
    "func.return"(%12) : (!torch.vtensor<[2,3,5],f32>) -> ()
  }) : () -> ()

// transpose.int, select.int, slice.Tensor (x[:, -2::2]), t, unsqueeze,
// squeeze.dim, view, expand.
// CHECK-LABEL: func.func @views(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>
// CHECK:         %[[T:.*]] = nova.transpose %[[X]] permutation = [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK:         %[[ROW:.*]] = nova.slice %[[X]][1:2:1, 0:3:1, 0:4:1] : tensor<2x3x4xf32> -> tensor<1x3x4xf32>
// CHECK:         %[[SEL:.*]] = nova.reshape %[[ROW]] : tensor<1x3x4xf32> -> tensor<3x4xf32>
// CHECK:         %[[STRIDED:.*]] = nova.slice %[[X]][0:2:1, 1:3:2, 0:4:1] : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK:         nova.transpose %{{.*}} permutation = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
// CHECK:         nova.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<2x1x3x4xf32>
// CHECK:         nova.reshape %{{.*}} : tensor<2x1x3x4xf32> -> tensor<2x3x4xf32>
// CHECK:         nova.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK:         %[[FIRST:.*]] = nova.slice %[[X]][0:2:1, 0:1:1, 0:4:1] : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK:         nova.broadcast_in_dim %[[FIRST]] dims = [0, 1, 2] : tensor<2x1x4xf32> -> tensor<2x3x4xf32>
  "func.func"() <{function_type = (!torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[4,3,2],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[6,4],f32>, !torch.vtensor<[2,3,4],f32>), sym_name = "views"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,4],f32>):
    %0 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %2 = "torch.aten.transpose.int"(%arg0, %0, %1) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,3,2],f32>
    %3 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %4 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %5 = "torch.aten.select.int"(%arg0, %3, %4) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.constant.int"() <{value = -2 : i64}> : () -> !torch.int
    %8 = "torch.constant.int"() <{value = 9223372036854775807 : i64}> : () -> !torch.int
    %9 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %10 = "torch.aten.slice.Tensor"(%arg0, %6, %7, %8, %9) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,1,4],f32>
    %11 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %12 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %13 = "torch.aten.select.int"(%arg0, %11, %12) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
    %14 = "torch.aten.t"(%13) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[4,3],f32>
    %15 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %16 = "torch.aten.unsqueeze"(%arg0, %15) : (!torch.vtensor<[2,3,4],f32>, !torch.int) -> !torch.vtensor<[2,1,3,4],f32>
    %17 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %18 = "torch.aten.squeeze.dim"(%16, %17) : (!torch.vtensor<[2,1,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
    %19 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %20 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %21 = "torch.prim.ListConstruct"(%19, %20) : (!torch.int, !torch.int) -> !torch.list<int>
    %22 = "torch.aten.view"(%arg0, %21) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[6,4],f32>
    %23 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %24 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %25 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %26 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %27 = "torch.aten.slice.Tensor"(%arg0, %23, %24, %25, %26) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,1,4],f32>
    %28 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %29 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %30 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %31 = "torch.prim.ListConstruct"(%28, %29, %30) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %32 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %33 = "torch.aten.expand"(%27, %31, %32) : (!torch.vtensor<[2,1,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
    "func.return"(%2, %5, %10, %14, %18, %22, %33) : (!torch.vtensor<[4,3,2],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[6,4],f32>, !torch.vtensor<[2,3,4],f32>) -> ()
  }) : () -> ()

// CHECK-LABEL: func.func @bmm_matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>
// CHECK:         %[[P:.*]] = nova.matmul %[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
// CHECK:         return %[[P]]
  "func.func"() <{function_type = (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,4,5],f32>) -> !torch.vtensor<[2,3,5],f32>, sym_name = "bmm_matmul"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[2,4,5],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %2 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %3 = "torch.prim.ListConstruct"(%0, %1, %2) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %4 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %5 = "torch.aten.expand"(%arg0, %3, %4) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
    %6 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %7 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %8 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %9 = "torch.prim.ListConstruct"(%6, %7, %8) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %10 = "torch.aten.view"(%5, %9) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
    %11 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %12 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %13 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %14 = "torch.prim.ListConstruct"(%11, %12, %13) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %15 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %16 = "torch.aten.expand"(%arg1, %14, %15) : (!torch.vtensor<[2,4,5],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,4,5],f32>
    %17 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %18 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %19 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %20 = "torch.prim.ListConstruct"(%17, %18, %19) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %21 = "torch.aten.view"(%16, %20) : (!torch.vtensor<[2,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[2,4,5],f32>
    %22 = "torch.aten.bmm"(%10, %21) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,4,5],f32>) -> !torch.vtensor<[2,3,5],f32>
    %23 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %24 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %25 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %26 = "torch.prim.ListConstruct"(%23, %24, %25) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %27 = "torch.aten._unsafe_view"(%22, %26) : (!torch.vtensor<[2,3,5],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,5],f32>
    "func.return"(%27) : (!torch.vtensor<[2,3,5],f32>) -> ()
  }) : () -> ()

// alpha, rsub, div.Scalar, pow by constants (3 as products, 2.5 as
// nova.pow), pow.Tensor_Tensor, clamp as max/min.
// CHECK-LABEL: func.func @arithmetic(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8xf32>
// CHECK:         %[[YB:.*]] = nova.broadcast_in_dim %[[Y]] dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK:         %[[ALPHA:.*]] = nova.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK:         %[[SCALED:.*]] = nova.mul %[[YB]], %[[ALPHA]] : tensor<4x8xf32>
// CHECK:         nova.sub %[[X]], %[[SCALED]] : tensor<4x8xf32>
// CHECK:         %[[ONE:.*]] = nova.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK:         nova.sub %[[ONE]], %[[X]] : tensor<4x8xf32>
// CHECK:         nova.div %[[X]], %{{.*}} : tensor<4x8xf32>
// CHECK:         %[[SQ:.*]] = nova.mul %[[X]], %[[X]] : tensor<4x8xf32>
// CHECK:         nova.mul %[[SQ]], %[[X]] : tensor<4x8xf32>
// CHECK:         %[[E:.*]] = nova.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK:         nova.pow %[[X]], %[[E]] : tensor<4x8xf32>
// CHECK:         %[[ABS:.*]] = nova.abs %[[X]] : tensor<4x8xf32>
// CHECK:         %[[YB2:.*]] = nova.broadcast_in_dim %[[Y]] dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK:         nova.pow %[[ABS]], %[[YB2]] : tensor<4x8xf32>
// CHECK:         nova.sqrt %[[X]]
// CHECK:         nova.erf %[[X]]
// CHECK:         nova.sigmoid %[[X]]
// CHECK:         nova.max %[[X]], %{{.*}} : tensor<4x8xf32>
// CHECK:         nova.min %[[X]], %{{.*}} : tensor<4x8xf32>
// CHECK:         %[[LO:.*]] = nova.constant dense<-1.000000e+00> : tensor<4x8xf32>
// CHECK:         %[[CLAMPLO:.*]] = nova.max %[[X]], %[[LO]] : tensor<4x8xf32>
// CHECK:         nova.min %[[CLAMPLO]], %{{.*}} : tensor<4x8xf32>
// CHECK:         nova.max %[[X]], %{{.*}} : tensor<4x8xf32>
// CHECK:         %[[RONE:.*]] = nova.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK:         nova.div %[[RONE]], %[[X]] : tensor<4x8xf32>
// CHECK:         nova.neg %[[X]] : tensor<4x8xf32>
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>), sym_name = "arithmetic"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>, %arg1: !torch.vtensor<[8],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.aten.sub.Tensor"(%arg0, %arg1, %0) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %2 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %3 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %4 = "torch.aten.rsub.Scalar"(%arg0, %2, %3) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,8],f32>
    %5 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %6 = "torch.aten.div.Scalar"(%arg0, %5) : (!torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %7 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %8 = "torch.aten.pow.Tensor_Scalar"(%arg0, %7) : (!torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %9 = "torch.constant.float"() <{value = 2.500000e+00 : f64}> : () -> !torch.float
    %10 = "torch.aten.pow.Tensor_Scalar"(%arg0, %9) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %11 = "torch.aten.abs"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %12 = "torch.aten.pow.Tensor_Tensor"(%11, %arg1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],f32>
    %13 = "torch.aten.sqrt"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %14 = "torch.aten.erf"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %15 = "torch.aten.sigmoid"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %16 = "torch.aten.maximum"(%arg0, %arg1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],f32>
    %17 = "torch.aten.minimum"(%arg0, %arg1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],f32>
    %18 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %19 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %20 = "torch.aten.clamp"(%arg0, %18, %19) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[4,8],f32>
    %21 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %22 = "torch.aten.clamp_min"(%arg0, %21) : (!torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %23 = "torch.aten.reciprocal"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %24 = "torch.aten.neg"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    "func.return"(%1, %4, %6, %8, %10, %12, %13, %14, %15, %16, %17, %20, %22, %23, %24) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> ()
  }) : () -> ()

// Comparisons with tensors and numbers, where.self, masked_fill, boolean
// or/not/xor as select/compare.
// CHECK-LABEL: func.func @compare_select(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8xf32>, %[[M:.*]]: tensor<4x8xi1>
// CHECK:         nova.compare eq, %[[X]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK:         nova.compare ne, %[[X]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK:         nova.compare lt, %[[X]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK:         nova.compare gt, %[[X]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK:         %[[HALF:.*]] = nova.constant dense<5.000000e-01> : tensor<4x8xf32>
// CHECK:         nova.compare ge, %[[X]], %[[HALF]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK:         %[[YB:.*]] = nova.broadcast_in_dim %[[Y]] dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK:         nova.select %[[M]], %[[X]], %[[YB]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK:         %[[ZERO:.*]] = nova.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK:         nova.select %[[M]], %[[ZERO]], %[[X]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK:         %[[POS:.*]] = nova.compare gt, %[[X]], %{{.*}}
// CHECK:         %[[TRUE:.*]] = nova.constant dense<true> : tensor<4x8xi1>
// CHECK:         nova.select %[[M]], %[[TRUE]], %[[POS]] : tensor<4x8xi1>, tensor<4x8xi1>
// CHECK:         %[[FALSE:.*]] = nova.constant dense<false> : tensor<4x8xi1>
// CHECK:         nova.compare eq, %[[M]], %[[FALSE]] : tensor<4x8xi1>, tensor<4x8xi1> -> tensor<4x8xi1>
// CHECK:         %[[LESS:.*]] = nova.compare lt, %[[X]], %{{.*}}
// CHECK:         nova.compare ne, %[[M]], %[[LESS]] : tensor<4x8xi1>, tensor<4x8xi1> -> tensor<4x8xi1>
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[4,8],i1>) -> (!torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>), sym_name = "compare_select"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[4,8],i1>):
    %0 = "torch.aten.eq.Tensor"(%arg0, %arg1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],i1>
    %1 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %2 = "torch.aten.ne.Scalar"(%arg0, %1) : (!torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],i1>
    %3 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %4 = "torch.aten.lt.Scalar"(%arg0, %3) : (!torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],i1>
    %5 = "torch.aten.gt.Tensor"(%arg0, %arg1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],i1>
    %6 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %7 = "torch.aten.ge.Scalar"(%arg0, %6) : (!torch.vtensor<[4,8],f32>, !torch.float) -> !torch.vtensor<[4,8],i1>
    %8 = "torch.aten.where.self"(%arg2, %arg0, %arg1) : (!torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],f32>
    %9 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %10 = "torch.aten.masked_fill.Scalar"(%arg0, %arg2, %9) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],i1>, !torch.float) -> !torch.vtensor<[4,8],f32>
    %11 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %12 = "torch.aten.gt.Scalar"(%arg0, %11) : (!torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],i1>
    %13 = "torch.aten.bitwise_or.Tensor"(%arg2, %12) : (!torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>) -> !torch.vtensor<[4,8],i1>
    %14 = "torch.aten.bitwise_not"(%arg2) : (!torch.vtensor<[4,8],i1>) -> !torch.vtensor<[4,8],i1>
    %15 = "torch.aten.lt.Tensor"(%arg0, %arg1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],i1>
    %16 = "torch.aten.logical_xor"(%arg2, %15) : (!torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>) -> !torch.vtensor<[4,8],i1>
    "func.return"(%0, %2, %4, %5, %7, %8, %10, %13, %14, %16) : (!torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>, !torch.vtensor<[4,8],i1>) -> ()
  }) : () -> ()

// torch's dtype promotion: long + 0.5 and long / long compute in f32;
// long < 0.5 compares in f32; bf16 * 0-d f32 and bf16 * 0.044715 compute in
// f32 (torch's opmath) and round once, bf16 * 2 stays bf16; a sum of bools
// counts in i64; bool(bf16) is != 0.
// CHECK-LABEL: func.func @promotion(
// CHECK-SAME:      %[[I:.*]]: tensor<4xi64>, %[[J:.*]]: tensor<4xi64>, %[[H:.*]]: tensor<4xbf16>, %[[F:.*]]: tensor<f32>
// CHECK:         %[[IF:.*]] = nova.cast %[[I]] : tensor<4xi64> -> tensor<4xf32>
// CHECK:         nova.add %[[IF]], %{{.*}} : tensor<4xf32>
// CHECK:         nova.cast %[[I]] : tensor<4xi64> -> tensor<4xf32>
// CHECK:         nova.cast %[[J]] : tensor<4xi64> -> tensor<4xf32>
// CHECK:         nova.div %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK:         %[[IF2:.*]] = nova.cast %[[I]] : tensor<4xi64> -> tensor<4xf32>
// CHECK:         nova.compare lt, %[[IF2]], %{{.*}} : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
// CHECK:         %[[HF:.*]] = nova.cast %[[H]] : tensor<4xbf16> -> tensor<4xf32>
// CHECK:         %[[FB:.*]] = nova.broadcast_in_dim %[[F]] dims = [] : tensor<f32> -> tensor<4xf32>
// CHECK:         %[[HXF:.*]] = nova.mul %[[HF]], %[[FB]] : tensor<4xf32>
// CHECK:         nova.cast %[[HXF]] : tensor<4xf32> -> tensor<4xbf16>
// CHECK:         %[[HF2:.*]] = nova.cast %[[H]] : tensor<4xbf16> -> tensor<4xf32>
// CHECK:         %[[C:.*]] = nova.constant dense<4.471500e-02> : tensor<4xf32>
// CHECK:         %[[HXC:.*]] = nova.mul %[[HF2]], %[[C]] : tensor<4xf32>
// CHECK:         nova.cast %[[HXC]] : tensor<4xf32> -> tensor<4xbf16>
// CHECK:         %[[TWO:.*]] = nova.constant dense<2.000000e+00> : tensor<4xbf16>
// CHECK:         nova.mul %[[H]], %[[TWO]] : tensor<4xbf16>
// CHECK:         %[[POS:.*]] = nova.compare gt, %[[I]], %{{.*}} : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
// CHECK:         %[[POSI:.*]] = nova.cast %[[POS]] : tensor<4xi1> -> tensor<4xi64>
// CHECK:         nova.reduce_sum %[[POSI]] dims = [0] : tensor<4xi64> -> tensor<i64>
// CHECK:         %[[I32:.*]] = nova.cast %[[I]] : tensor<4xi64> -> tensor<4xi32>
// CHECK:         %[[I64:.*]] = nova.cast %[[I32]] : tensor<4xi32> -> tensor<4xi64>
// CHECK:         nova.add %[[I64]], %[[I]] : tensor<4xi64>
// CHECK:         %[[BZERO:.*]] = nova.constant dense<0.000000e+00> : tensor<4xbf16>
// CHECK:         nova.compare ne, %[[H]], %[[BZERO]] : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xi1>
  "func.func"() <{function_type = (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>, !torch.vtensor<[4],bf16>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],i1>, !torch.vtensor<[4],bf16>, !torch.vtensor<[4],bf16>, !torch.vtensor<[4],bf16>, !torch.vtensor<[],si64>, !torch.vtensor<[4],si64>, !torch.vtensor<[4],i1>), sym_name = "promotion"}> ({
  ^bb0(%arg0: !torch.vtensor<[4],si64>, %arg1: !torch.vtensor<[4],si64>, %arg2: !torch.vtensor<[4],bf16>, %arg3: !torch.vtensor<[],f32>):
    %0 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %1 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %2 = "torch.aten.add.Scalar"(%arg0, %0, %1) : (!torch.vtensor<[4],si64>, !torch.float, !torch.int) -> !torch.vtensor<[4],f32>
    %3 = "torch.aten.div.Tensor"(%arg0, %arg1) : (!torch.vtensor<[4],si64>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[4],f32>
    %4 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %5 = "torch.aten.lt.Scalar"(%arg0, %4) : (!torch.vtensor<[4],si64>, !torch.float) -> !torch.vtensor<[4],i1>
    %6 = "torch.aten.mul.Tensor"(%arg2, %arg3) : (!torch.vtensor<[4],bf16>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],bf16>
    %7 = "torch.constant.float"() <{value = 4.471500e-02 : f64}> : () -> !torch.float
    %8 = "torch.aten.mul.Scalar"(%arg2, %7) : (!torch.vtensor<[4],bf16>, !torch.float) -> !torch.vtensor<[4],bf16>
    %9 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %10 = "torch.aten.mul.Scalar"(%arg2, %9) : (!torch.vtensor<[4],bf16>, !torch.int) -> !torch.vtensor<[4],bf16>
    %11 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %12 = "torch.aten.gt.Scalar"(%arg0, %11) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],i1>
    %13 = "torch.constant.none"() : () -> !torch.none
    %14 = "torch.aten.sum"(%12, %13) : (!torch.vtensor<[4],i1>, !torch.none) -> !torch.vtensor<[],si64>
    %15 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %16 = "torch.constant.none"() : () -> !torch.none
    %17 = "torch.constant.none"() : () -> !torch.none
    %18 = "torch.constant.none"() : () -> !torch.none
    %19 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %20 = "torch.constant.none"() : () -> !torch.none
    %21 = "torch.aten._to_copy"(%arg0, %15, %16, %17, %18, %19, %20) : (!torch.vtensor<[4],si64>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4],si32>
    %22 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %23 = "torch.aten.add.Tensor"(%21, %arg0, %22) : (!torch.vtensor<[4],si32>, !torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],si64>
    %24 = "torch.constant.int"() <{value = 11 : i64}> : () -> !torch.int
    %25 = "torch.constant.none"() : () -> !torch.none
    %26 = "torch.constant.none"() : () -> !torch.none
    %27 = "torch.constant.none"() : () -> !torch.none
    %28 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %29 = "torch.constant.none"() : () -> !torch.none
    %30 = "torch.aten._to_copy"(%arg2, %24, %25, %26, %27, %28, %29) : (!torch.vtensor<[4],bf16>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4],i1>
    "func.return"(%2, %3, %5, %6, %8, %10, %14, %23, %30) : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],i1>, !torch.vtensor<[4],bf16>, !torch.vtensor<[4],bf16>, !torch.vtensor<[4],bf16>, !torch.vtensor<[],si64>, !torch.vtensor<[4],si64>, !torch.vtensor<[4],i1>) -> ()
  }) : () -> ()

// sum/mean over dims or everything, amax, amin as -max(-x), var with
// correction 0 and var_mean with the default correction 1.
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>
// CHECK:         nova.reduce_sum %[[X]] dims = [1] keepdim : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK:         nova.reduce_sum %[[X]] dims = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK:         nova.reduce_mean %[[X]] dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK:         nova.reduce_mean %[[X]] dims = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK:         nova.reduce_max %[[X]] dims = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
// CHECK:         %[[NEG:.*]] = nova.neg %[[X]] : tensor<2x3x4xf32>
// CHECK:         %[[MAX:.*]] = nova.reduce_max %[[NEG]] dims = [0] : tensor<2x3x4xf32> -> tensor<3x4xf32>
// CHECK:         nova.neg %[[MAX]] : tensor<3x4xf32>
// CHECK:         nova.reduce_mean %[[X]] dims = [1] keepdim
// CHECK:         nova.constant dense<3.000000e+00> : tensor<2x1x4xf32>
// CHECK:         nova.reshape %{{.*}} : tensor<2x1x4xf32> -> tensor<2x4xf32>
// CHECK:         %[[MEAN:.*]] = nova.reduce_mean %[[X]] dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
// CHECK:         nova.constant dense<3.000000e+00> : tensor<2x3x1xf32>
// CHECK:         %[[VAR:.*]] = nova.reshape %{{.*}} : tensor<2x3x1xf32> -> tensor<2x3xf32>
// CHECK:         %[[MEANR:.*]] = nova.reshape %[[MEAN]] : tensor<2x3x1xf32> -> tensor<2x3xf32>
// CHECK:         return {{.*}}, %[[VAR]], %[[MEANR]] :
  "func.func"() <{function_type = (!torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[2,1,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>), sym_name = "reductions"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,4],f32>):
    %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
    %2 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.aten.sum.dim_IntList"(%arg0, %1, %2, %3) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[2,1,4],f32>
    %5 = "torch.constant.none"() : () -> !torch.none
    %6 = "torch.aten.sum"(%arg0, %5) : (!torch.vtensor<[2,3,4],f32>, !torch.none) -> !torch.vtensor<[],f32>
    %7 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %8 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %9 = "torch.prim.ListConstruct"(%7, %8) : (!torch.int, !torch.int) -> !torch.list<int>
    %10 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %11 = "torch.constant.none"() : () -> !torch.none
    %12 = "torch.aten.mean.dim"(%arg0, %9, %10, %11) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3],f32>
    %13 = "torch.constant.none"() : () -> !torch.none
    %14 = "torch.aten.mean"(%arg0, %13) : (!torch.vtensor<[2,3,4],f32>, !torch.none) -> !torch.vtensor<[],f32>
    %15 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %16 = "torch.prim.ListConstruct"(%15) : (!torch.int) -> !torch.list<int>
    %17 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %18 = "torch.aten.amax"(%arg0, %16, %17) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3],f32>
    %19 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %20 = "torch.prim.ListConstruct"(%19) : (!torch.int) -> !torch.list<int>
    %21 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %22 = "torch.aten.amin"(%arg0, %20, %21) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[3,4],f32>
    %23 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %24 = "torch.prim.ListConstruct"(%23) : (!torch.int) -> !torch.list<int>
    %25 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %26 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %27 = "torch.aten.var.correction"(%arg0, %24, %25, %26) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.int, !torch.bool) -> !torch.vtensor<[2,4],f32>
    %28 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %29 = "torch.prim.ListConstruct"(%28) : (!torch.int) -> !torch.list<int>
    %30 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %31 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %32:2 = "torch.aten.var_mean.correction"(%arg0, %29, %30, %31) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.int, !torch.bool) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>)
    "func.return"(%4, %6, %12, %14, %18, %22, %27, %32#0, %32#1) : (!torch.vtensor<[2,1,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> ()
  }) : () -> ()

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>
// CHECK:         nova.softmax %[[X]] dim = 1 : tensor<4x8xf32>
// CHECK:         nova.log_softmax %[[X]] dim = 0 : tensor<4x8xf32>
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>), sym_name = "softmax"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>):
    %0 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %1 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %2 = "torch.aten._softmax"(%arg0, %0, %1) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[4,8],f32>
    %3 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %4 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %5 = "torch.aten._log_softmax"(%arg0, %3, %4) : (!torch.vtensor<[4,8],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[4,8],f32>
    "func.return"(%2, %5) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> ()
  }) : () -> ()

// native_layer_norm: nova.layer_norm, plus mean and rstd when they are used.
// CHECK-LABEL: func.func @native_layer_norm(
// CHECK-SAME:      %[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>
// CHECK:         nova.layer_norm %[[X]] weight(%[[W]] : tensor<8xf32>) bias(%[[B]] : tensor<8xf32>) {epsilon = 9.9999999999999995E-7 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
// CHECK:         nova.layer_norm %[[X]] {epsilon = 1.000000e-05 : f64, normalized_rank = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
// CHECK:         %[[MEAN:.*]] = nova.reduce_mean %[[X]] dims = [1, 2] keepdim : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
// CHECK:         %[[VAR:.*]] = nova.reduce_mean %{{.*}} dims = [1, 2] keepdim : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
// CHECK:         %[[VEPS:.*]] = nova.add %[[VAR]], %{{.*}} : tensor<2x1x1xf32>
// CHECK:         %[[RSTD:.*]] = nova.rsqrt %[[VEPS]] : tensor<2x1x1xf32>
// CHECK:         return %{{.*}}, %{{.*}}, %[[MEAN]], %[[RSTD]] :
  "func.func"() <{function_type = (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>), sym_name = "native_layer_norm"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,4,8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[8],f32>):
    %0 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
    %2 = "torch.constant.float"() <{value = 9.9999999999999995E-7 : f64}> : () -> !torch.float
    %3:3 = "torch.aten.native_layer_norm"(%arg0, %1, %arg1, %arg2, %2) : (!torch.vtensor<[2,4,8],f32>, !torch.list<int>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.float) -> (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,4,1],f32>, !torch.vtensor<[2,4,1],f32>)
    %4 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %5 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %6 = "torch.prim.ListConstruct"(%4, %5) : (!torch.int, !torch.int) -> !torch.list<int>
    %7 = "torch.constant.none"() : () -> !torch.none
    %8 = "torch.constant.none"() : () -> !torch.none
    %9 = "torch.constant.float"() <{value = 1.000000e-05 : f64}> : () -> !torch.float
    %10:3 = "torch.aten.native_layer_norm"(%arg0, %6, %7, %8, %9) : (!torch.vtensor<[2,4,8],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.float) -> (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>)
    "func.return"(%3#0, %10#0, %10#1, %10#2) : (!torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,4,8],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>) -> ()
  }) : () -> ()

// embedding; embedding_dense_backward (padding_idx 0 masked) -> scatter_add;
// gather; index.Tensor -> embedding; scatter_add (src) by one-hot; index_put
// with negative indices wrapped.
// CHECK-LABEL: func.func @indexing(
// CHECK-SAME:      %[[W:.*]]: tensor<10x8xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[G:.*]]: tensor<2x3x8xf32>, %[[T:.*]]: tensor<10x2xi64>
// CHECK:         nova.embedding %[[W]][%[[I]]] : tensor<10x8xf32>, tensor<2x3xi64> -> tensor<2x3x8xf32>
// CHECK:         %[[PAD:.*]] = nova.compare eq, %[[I]], %{{.*}} : tensor<2x3xi64>, tensor<2x3xi64> -> tensor<2x3xi1>
// CHECK:         %[[PADR:.*]] = nova.reshape %[[PAD]] : tensor<2x3xi1> -> tensor<2x3x1xi1>
// CHECK:         %[[PADB:.*]] = nova.broadcast_in_dim %[[PADR]] dims = [0, 1, 2] : tensor<2x3x1xi1> -> tensor<2x3x8xi1>
// CHECK:         %[[UPD:.*]] = nova.select %[[PADB]], %{{.*}}, %[[G]] : tensor<2x3x8xi1>, tensor<2x3x8xf32>
// CHECK:         %[[Z:.*]] = nova.constant dense<0.000000e+00> : tensor<10x8xf32>
// CHECK:         nova.scatter_add %[[Z]][%[[I]]], %[[UPD]] : tensor<10x8xf32>, tensor<2x3xi64>, tensor<2x3x8xf32> -> tensor<10x8xf32>
// CHECK:         nova.gather %[[W]][%[[T]]] dim = 1 : tensor<10x8xf32>, tensor<10x2xi64> -> tensor<10x2xf32>
// CHECK:         nova.embedding %[[W]][%{{.*}}] : tensor<10x8xf32>, tensor<3xi64> -> tensor<3x8xf32>
// CHECK:         %[[POS:.*]] = nova.iota dim = 1 : tensor<10x8xi64>
// CHECK:         %[[T0:.*]] = nova.slice %[[T]][0:10:1, 0:1:1] : tensor<10x2xi64> -> tensor<10x1xi64>
// CHECK:         %[[T0B:.*]] = nova.broadcast_in_dim %[[T0]] dims = [0, 1] : tensor<10x1xi64> -> tensor<10x8xi64>
// CHECK:         nova.compare eq, %[[T0B]], %[[POS]] : tensor<10x8xi64>, tensor<10x8xi64> -> tensor<10x8xi1>
// CHECK:         %[[ACC:.*]] = nova.add %[[W]], %{{.*}} : tensor<10x8xf32>
// CHECK:         nova.slice %[[T]][0:10:1, 1:2:1] : tensor<10x2xi64> -> tensor<10x1xi64>
// CHECK:         nova.add %[[ACC]], %{{.*}} : tensor<10x8xf32>
// CHECK:         %[[NEG:.*]] = nova.compare lt, %[[IDX:.*]], %{{.*}} : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
// CHECK:         %[[PLUS:.*]] = nova.add %[[IDX]], %{{.*}} : tensor<3xi64>
// CHECK:         %[[WRAPPED:.*]] = nova.select %[[NEG]], %[[PLUS]], %[[IDX]] : tensor<3xi1>, tensor<3xi64>
// CHECK:         nova.scatter_add %[[W]][%[[WRAPPED]]], %{{.*}} : tensor<10x8xf32>, tensor<3xi64>, tensor<3x8xf32> -> tensor<10x8xf32>
  "func.func"() <{function_type = (!torch.vtensor<[10,8],f32>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[10,2],si64>) -> (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[10,8],f32>, !torch.vtensor<[10,2],f32>, !torch.vtensor<[3,8],f32>, !torch.vtensor<[10,8],f32>, !torch.vtensor<[10,8],f32>), sym_name = "indexing"}> ({
  ^bb0(%arg0: !torch.vtensor<[10,8],f32>, %arg1: !torch.vtensor<[2,3],si64>, %arg2: !torch.vtensor<[2,3,8],f32>, %arg3: !torch.vtensor<[10,2],si64>):
    %0 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %1 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %2 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %3 = "torch.aten.embedding"(%arg0, %arg1, %0, %1, %2) : (!torch.vtensor<[10,8],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.bool, !torch.bool) -> !torch.vtensor<[2,3,8],f32>
    %4 = "torch.constant.int"() <{value = 10 : i64}> : () -> !torch.int
    %5 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %6 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %7 = "torch.aten.embedding_dense_backward"(%arg2, %arg1, %4, %5, %6) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.int, !torch.bool) -> !torch.vtensor<[10,8],f32>
    %8 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %9 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %10 = "torch.aten.gather"(%arg0, %8, %arg3, %9) : (!torch.vtensor<[10,8],f32>, !torch.int, !torch.vtensor<[10,2],si64>, !torch.bool) -> !torch.vtensor<[10,2],f32>
    %11 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %12 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %13 = "torch.aten.select.int"(%arg1, %11, %12) : (!torch.vtensor<[2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[3],si64>
    %14 = "torch.prim.ListConstruct"(%13) : (!torch.vtensor<[3],si64>) -> !torch.list<optional<vtensor>>
    %15 = "torch.aten.index.Tensor"(%arg0, %14) : (!torch.vtensor<[10,8],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[3,8],f32>
    %16 = "torch.constant.int"() <{value = 10 : i64}> : () -> !torch.int
    %17 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %18 = "torch.prim.ListConstruct"(%16, %17) : (!torch.int, !torch.int) -> !torch.list<int>
    %19 = "torch.constant.none"() : () -> !torch.none
    %20 = "torch.constant.none"() : () -> !torch.none
    %21 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %22 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %23 = "torch.aten.ones"(%18, %19, %20, %21, %22) : (!torch.list<int>, !torch.none, !torch.none, !torch.Device, !torch.bool) -> !torch.vtensor<[10,2],f32>
    %24 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %25 = "torch.aten.scatter_add"(%arg0, %24, %arg3, %23) : (!torch.vtensor<[10,8],f32>, !torch.int, !torch.vtensor<[10,2],si64>, !torch.vtensor<[10,2],f32>) -> !torch.vtensor<[10,8],f32>
    %26 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %27 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %28 = "torch.aten.select.int"(%arg1, %26, %27) : (!torch.vtensor<[2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[3],si64>
    %29 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %30 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %31 = "torch.aten.sub.Scalar"(%28, %29, %30) : (!torch.vtensor<[3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[3],si64>
    %32 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %33 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %34 = "torch.prim.ListConstruct"(%32, %33) : (!torch.int, !torch.int) -> !torch.list<int>
    %35 = "torch.constant.none"() : () -> !torch.none
    %36 = "torch.constant.none"() : () -> !torch.none
    %37 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %38 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %39 = "torch.aten.ones"(%34, %35, %36, %37, %38) : (!torch.list<int>, !torch.none, !torch.none, !torch.Device, !torch.bool) -> !torch.vtensor<[3,8],f32>
    %40 = "torch.prim.ListConstruct"(%31) : (!torch.vtensor<[3],si64>) -> !torch.list<optional<vtensor>>
    %41 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %42 = "torch.aten.index_put"(%arg0, %40, %39, %41) : (!torch.vtensor<[10,8],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[3,8],f32>, !torch.bool) -> !torch.vtensor<[10,8],f32>
    "func.return"(%3, %7, %10, %15, %25, %42) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[10,8],f32>, !torch.vtensor<[10,2],f32>, !torch.vtensor<[3,8],f32>, !torch.vtensor<[10,8],f32>, !torch.vtensor<[10,8],f32>) -> ()
  }) : () -> ()

// zeros/ones/full as splats, arange(2, 11, 3) as 3 * iota + 2, tril/triu
// masks, a literal (dense_resource) as a constant.
// CHECK-LABEL: func.func @creation(
// CHECK-SAME:      %[[X:.*]]: tensor<3x3xf32>
// CHECK:         nova.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK:         nova.constant dense<1> : tensor<3xi64>
// CHECK:         nova.constant dense<7.000000e+00> : tensor<2xf32>
// CHECK:         %[[IOTA:.*]] = nova.iota dim = 0 : tensor<3xi64>
// CHECK:         %[[STEP:.*]] = nova.constant dense<3> : tensor<3xi64>
// CHECK:         %[[SCALED:.*]] = nova.mul %[[IOTA]], %[[STEP]] : tensor<3xi64>
// CHECK:         %[[START:.*]] = nova.constant dense<2> : tensor<3xi64>
// CHECK:         nova.add %[[SCALED]], %[[START]] : tensor<3xi64>
// CHECK:         %[[ROWS:.*]] = nova.iota dim = 0 : tensor<3x3xi64>
// CHECK:         %[[COLS:.*]] = nova.iota dim = 1 : tensor<3x3xi64>
// CHECK:         %[[OFFSET:.*]] = nova.sub %[[COLS]], %[[ROWS]] : tensor<3x3xi64>
// CHECK:         %[[LOWER:.*]] = nova.compare le, %[[OFFSET]], %{{.*}} : tensor<3x3xi64>, tensor<3x3xi64> -> tensor<3x3xi1>
// CHECK:         nova.select %[[LOWER]], %[[X]], %{{.*}} : tensor<3x3xi1>, tensor<3x3xf32>
// CHECK:         %[[DIAG:.*]] = nova.constant dense<1> : tensor<3x3xi64>
// CHECK:         %[[UPPER:.*]] = nova.compare ge, %{{.*}}, %[[DIAG]] : tensor<3x3xi64>, tensor<3x3xi64> -> tensor<3x3xi1>
// CHECK:         nova.select %[[UPPER]], %[[X]], %{{.*}} : tensor<3x3xi1>, tensor<3x3xf32>
// CHECK:         nova.constant dense_resource<torch_tensor_3_torch.float32> : tensor<3xf32>
  "func.func"() <{function_type = (!torch.vtensor<[3,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[2],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3],f32>), sym_name = "creation"}> ({
  ^bb0(%arg0: !torch.vtensor<[3,3],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.constant.none"() : () -> !torch.none
    %5 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %6 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %7 = "torch.aten.zeros"(%2, %3, %4, %5, %6) : (!torch.list<int>, !torch.none, !torch.none, !torch.Device, !torch.bool) -> !torch.vtensor<[2,3],f32>
    %8 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %9 = "torch.prim.ListConstruct"(%8) : (!torch.int) -> !torch.list<int>
    %10 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %11 = "torch.constant.none"() : () -> !torch.none
    %12 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %13 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %14 = "torch.aten.ones"(%9, %10, %11, %12, %13) : (!torch.list<int>, !torch.int, !torch.none, !torch.Device, !torch.bool) -> !torch.vtensor<[3],si64>
    %15 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %16 = "torch.prim.ListConstruct"(%15) : (!torch.int) -> !torch.list<int>
    %17 = "torch.constant.float"() <{value = 7.000000e+00 : f64}> : () -> !torch.float
    %18 = "torch.constant.none"() : () -> !torch.none
    %19 = "torch.constant.none"() : () -> !torch.none
    %20 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %21 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %22 = "torch.aten.full"(%16, %17, %18, %19, %20, %21) : (!torch.list<int>, !torch.float, !torch.none, !torch.none, !torch.Device, !torch.bool) -> !torch.vtensor<[2],f32>
    %23 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %24 = "torch.constant.int"() <{value = 11 : i64}> : () -> !torch.int
    %25 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %26 = "torch.constant.none"() : () -> !torch.none
    %27 = "torch.constant.none"() : () -> !torch.none
    %28 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %29 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %30 = "torch.aten.arange.start_step"(%23, %24, %25, %26, %27, %28, %29) : (!torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.Device, !torch.bool) -> !torch.vtensor<[3],si64>
    %31 = "torch.constant.none"() : () -> !torch.none
    %32 = "torch.constant.none"() : () -> !torch.none
    %33 = "torch.constant.none"() : () -> !torch.none
    %34 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %35 = "torch.constant.none"() : () -> !torch.none
    %36 = "torch.aten.zeros_like"(%arg0, %31, %32, %33, %34, %35) : (!torch.vtensor<[3,3],f32>, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[3,3],f32>
    %37 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %38 = "torch.prim.ListConstruct"(%37) : (!torch.int) -> !torch.list<int>
    %39 = "torch.constant.none"() : () -> !torch.none
    %40 = "torch.constant.none"() : () -> !torch.none
    %41 = "torch.constant.none"() : () -> !torch.none
    %42 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %43 = "torch.aten.new_ones"(%arg0, %38, %39, %40, %41, %42) : (!torch.vtensor<[3,3],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.none, !torch.bool) -> !torch.vtensor<[2],f32>
    %44 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %45 = "torch.aten.tril"(%arg0, %44) : (!torch.vtensor<[3,3],f32>, !torch.int) -> !torch.vtensor<[3,3],f32>
    %46 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %47 = "torch.aten.triu"(%arg0, %46) : (!torch.vtensor<[3,3],f32>, !torch.int) -> !torch.vtensor<[3,3],f32>
    %48 = "torch.vtensor.literal"() <{value = dense_resource<torch_tensor_3_torch.float32> : tensor<3xf32>}> : () -> !torch.vtensor<[3],f32>
    %49 = "torch.constant.none"() : () -> !torch.none
    %50 = "torch.aten.clone"(%48, %49) : (!torch.vtensor<[3],f32>, !torch.none) -> !torch.vtensor<[3],f32>
    "func.return"(%7, %14, %22, %30, %36, %43, %45, %47, %50) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[2],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3],f32>) -> ()
  }) : () -> ()

// _to_copy is a cast; detach, clone, alias are the value itself; copy
// broadcasts the source.
// CHECK-LABEL: func.func @casts_copies(
// CHECK-SAME:      %[[X:.*]]: tensor<2x4xf32>, %[[Y:.*]]: tensor<4xf32>
// CHECK:         %[[BF:.*]] = nova.cast %[[X]] : tensor<2x4xf32> -> tensor<2x4xbf16>
// CHECK:         %[[COPY:.*]] = nova.broadcast_in_dim %[[Y]] dims = [1] : tensor<4xf32> -> tensor<2x4xf32>
// CHECK:         return %[[BF]], %[[X]], %[[X]], %[[X]], %[[COPY]] :
  "func.func"() <{function_type = (!torch.vtensor<[2,4],f32>, !torch.vtensor<[4],f32>) -> (!torch.vtensor<[2,4],bf16>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>), sym_name = "casts_copies"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,4],f32>, %arg1: !torch.vtensor<[4],f32>):
    %0 = "torch.constant.int"() <{value = 15 : i64}> : () -> !torch.int
    %1 = "torch.constant.none"() : () -> !torch.none
    %2 = "torch.constant.none"() : () -> !torch.none
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %5 = "torch.constant.none"() : () -> !torch.none
    %6 = "torch.aten._to_copy"(%arg0, %0, %1, %2, %3, %4, %5) : (!torch.vtensor<[2,4],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[2,4],bf16>
    %7 = "torch.aten.detach"(%arg0) : (!torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %8 = "torch.constant.none"() : () -> !torch.none
    %9 = "torch.aten.clone"(%arg0, %8) : (!torch.vtensor<[2,4],f32>, !torch.none) -> !torch.vtensor<[2,4],f32>
    %10 = "torch.aten.alias"(%arg0) : (!torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %11 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %12 = "torch.aten.copy"(%arg0, %arg1, %11) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[4],f32>, !torch.bool) -> !torch.vtensor<[2,4],f32>
    "func.return"(%6, %7, %9, %10, %12) : (!torch.vtensor<[2,4],bf16>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>) -> ()
  }) : () -> ()

// torch.export's composites: linear (one GEMM with transpose_rhs), matmul
// 3-d @ 2-d (batch folded into rows) and 2-d @ 2-d, layer_norm, softmax.int,
// log_softmax.int, square, stack, chunk, max, var.dim, std.dim, to.dtype;
// _assert_tensor_metadata disappears.
// CHECK-LABEL: func.func @export_composites(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[B:.*]]: tensor<5xf32>, %[[Y:.*]]: tensor<4x6xf32>
// CHECK:         %[[ROWS:.*]] = nova.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK:         nova.matmul %[[ROWS]], %[[W]] {transpose_rhs} : tensor<6x4xf32>, tensor<5x4xf32> -> tensor<6x5xf32>
// CHECK:         %[[ROWS2:.*]] = nova.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK:         nova.matmul %[[ROWS2]], %[[Y]] : tensor<6x4xf32>, tensor<4x6xf32> -> tensor<6x6xf32>
// CHECK:         nova.matmul %{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x3xf32> -> tensor<3x3xf32>
// CHECK:         nova.layer_norm %[[X]] {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64}
// CHECK:         nova.softmax %[[X]] dim = 2
// CHECK:         nova.log_softmax %[[X]] dim = 1
// CHECK:         nova.mul %[[X]], %[[X]] : tensor<2x3x4xf32>
// CHECK:         nova.concat %{{.*}}, %{{.*}} dim = 1 : (tensor<2x1x3x4xf32>, tensor<2x1x3x4xf32>) -> tensor<2x2x3x4xf32>
// CHECK:         %[[CHUNK:.*]] = nova.slice %[[X]][0:2:1, 0:3:1, 2:4:1] : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
// CHECK:         nova.reduce_max %[[X]] dims = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK:         nova.constant dense<2.000000e+00> : tensor<2x1x4xf32>
// CHECK:         nova.sqrt %{{.*}} : tensor<2x1x4xf32>
// CHECK:         nova.cast %[[X]] : tensor<2x3x4xf32> -> tensor<2x3x4xf64>
  "func.func"() <{function_type = (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[5],f32>, !torch.vtensor<[4,6],f32>) -> (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[2,3,6],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,2,3,4],f32>, !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,3,4],f64>), sym_name = "export_composites"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[5,4],f32>, %arg2: !torch.vtensor<[5],f32>, %arg3: !torch.vtensor<[4,6],f32>):
    %0 = "torch.aten.linear"(%arg0, %arg1, %arg2) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[2,3,5],f32>
    %1 = "torch.aten.matmul"(%arg0, %arg3) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[2,3,6],f32>
    %2 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %3 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %4 = "torch.aten.select.int"(%arg0, %2, %3) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
    %5 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.aten.select.int"(%arg0, %5, %6) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
    %8 = "torch.aten.t"(%7) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[4,3],f32>
    %9 = "torch.aten.matmul"(%4, %8) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[3,3],f32>
    %10 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %11 = "torch.prim.ListConstruct"(%10) : (!torch.int) -> !torch.list<int>
    %12 = "torch.constant.none"() : () -> !torch.none
    %13 = "torch.constant.none"() : () -> !torch.none
    %14 = "torch.constant.float"() <{value = 1.000000e-05 : f64}> : () -> !torch.float
    %15 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %16 = "torch.aten.layer_norm"(%arg0, %11, %12, %13, %14, %15) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
    %17 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %18 = "torch.constant.none"() : () -> !torch.none
    %19 = "torch.aten.softmax.int"(%arg0, %17, %18) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,3,4],f32>
    %20 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %21 = "torch.constant.none"() : () -> !torch.none
    %22 = "torch.aten.log_softmax.int"(%arg0, %20, %21) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,3,4],f32>
    %23 = "torch.aten.square"(%arg0) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
    %24 = "torch.prim.ListConstruct"(%arg0, %arg0) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.list<vtensor>
    %25 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %26 = "torch.aten.stack"(%24, %25) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,2,3,4],f32>
    %27 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %28 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %29 = "torch.aten.chunk"(%arg0, %27, %28) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int) -> !torch.list<vtensor>
    %30:2 = "torch.prim.ListUnpack"(%29) : (!torch.list<vtensor>) -> (!torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,2],f32>)
    %31 = "torch.aten.max"(%arg0) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[],f32>
    %32 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %33 = "torch.prim.ListConstruct"(%32) : (!torch.int) -> !torch.list<int>
    %34 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %35 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %36 = "torch.aten.var.dim"(%arg0, %33, %34, %35) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.bool) -> !torch.vtensor<[2,4],f32>
    %37 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %38 = "torch.prim.ListConstruct"(%37) : (!torch.int) -> !torch.list<int>
    %39 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %40 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %41 = "torch.aten.std.dim"(%arg0, %38, %39, %40) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.bool) -> !torch.vtensor<[2,4],f32>
    %42 = "torch.constant.none"() : () -> !torch.none
    %43 = "torch.constant.none"() : () -> !torch.none
    %44 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %45 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %46 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    "torch.aten._assert_tensor_metadata"(%arg0, %42, %43, %44, %45, %46) : (!torch.vtensor<[2,3,4],f32>, !torch.none, !torch.none, !torch.int, !torch.Device, !torch.int) -> ()
    %47 = "torch.constant.int"() <{value = 7 : i64}> : () -> !torch.int
    %48 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %49 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %50 = "torch.constant.none"() : () -> !torch.none
    %51 = "torch.aten.to.dtype"(%arg0, %47, %48, %49, %50) : (!torch.vtensor<[2,3,4],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3,4],f64>
    "func.return"(%0, %1, %9, %16, %19, %22, %23, %26, %30#1, %31, %36, %41, %51) : (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[2,3,6],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,2,3,4],f32>, !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,3,4],f64>) -> ()
  }) : () -> ()
// constant_pad_nd (pairs from the last dim back): the last dim padded by 1
// before and 2 after with splats of the value, the first cropped by 1 after.
// CHECK-LABEL: func.func @constant_pad_nd(
// CHECK:         %[[V:.*]] = nova.constant dense<-1.000000e+00> : tensor<3x1xf32>
// CHECK:         %[[W:.*]] = nova.constant dense<-1.000000e+00> : tensor<3x2xf32>
// CHECK:         %[[C:.*]] = nova.concat %[[V]], %arg0, %[[W]] dim = 1 : (tensor<3x1xf32>, tensor<3x5xf32>, tensor<3x2xf32>) -> tensor<3x8xf32>
// CHECK:         %[[S:.*]] = nova.slice %[[C]][0:2:1, 0:8:1] : tensor<3x8xf32> -> tensor<2x8xf32>
// CHECK:         return %[[S]]
  "func.func"() <{function_type = (!torch.vtensor<[3,5],f32>) -> !torch.vtensor<[2,8],f32>, sym_name = "constant_pad_nd"}> ({
  ^bb0(%arg0: !torch.vtensor<[3,5],f32>):
    %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %2 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %3 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %4 = "torch.prim.ListConstruct"(%0, %1, %2, %3) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %5 = "torch.constant.float"() <{value = -1.000000e+00 : f64}> : () -> !torch.float
    %6 = "torch.aten.constant_pad_nd"(%arg0, %4, %5) : (!torch.vtensor<[3,5],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[2,8],f32>
    "func.return"(%6) : (!torch.vtensor<[2,8],f32>) -> ()
  }) : () -> ()

// slice_scatter (functionalizing `x[:, 1:3] = y`): the parts of x around the
// slice concatenated with y.
// CHECK-LABEL: func.func @slice_scatter(
// CHECK:         %[[A:.*]] = nova.slice %arg0[0:2:1, 0:1:1]
// CHECK:         %[[B:.*]] = nova.slice %arg0[0:2:1, 3:5:1]
// CHECK:         %[[C:.*]] = nova.concat %[[A]], %arg1, %[[B]] dim = 1 : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
// CHECK:         return %[[C]]
  "func.func"() <{function_type = (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,5],f32>, sym_name = "slice_scatter"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,5],f32>, %arg1: !torch.vtensor<[2,2],f32>):
    %0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %2 = "torch.aten.slice_scatter"(%arg0, %arg1, %0, %0, %1, %0) : (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2,2],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5],f32>
    "func.return"(%2) : (!torch.vtensor<[2,5],f32>) -> ()
  }) : () -> ()

// cumsum (position ids from an attention mask: an integer input sums in
// int64, torch's result type) and flip (cumsum's backward reverses, sums and
// reverses back); a negative dim is normalized.
// CHECK-LABEL: func.func @cumsum_flip(
// CHECK:         %[[W:.*]] = nova.cast %arg1 : tensor<2x5xi32> -> tensor<2x5xi64>
// CHECK:         %[[P:.*]] = nova.cumsum %[[W]] dim = 1 : tensor<2x5xi64>
// CHECK:         %[[R:.*]] = nova.reverse %arg0 dims = [0, 1] : tensor<2x5xf32>
// CHECK:         %[[S:.*]] = nova.cumsum %[[R]] dim = 1 : tensor<2x5xf32>
// CHECK:         return %[[P]], %[[S]]
  "func.func"() <{function_type = (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],si32>) -> (!torch.vtensor<[2,5],si64>, !torch.vtensor<[2,5],f32>), sym_name = "cumsum_flip"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,5],f32>, %arg1: !torch.vtensor<[2,5],si32>):
    %0 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %1 = "torch.constant.none"() : () -> !torch.none
    %2 = "torch.aten.cumsum"(%arg1, %0, %1) : (!torch.vtensor<[2,5],si32>, !torch.int, !torch.none) -> !torch.vtensor<[2,5],si64>
    %3 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %4 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %5 = "torch.prim.ListConstruct"(%3, %4) : (!torch.int, !torch.int) -> !torch.list<int>
    %6 = "torch.aten.flip"(%arg0, %5) : (!torch.vtensor<[2,5],f32>, !torch.list<int>) -> !torch.vtensor<[2,5],f32>
    %7 = "torch.aten.cumsum"(%6, %3, %1) : (!torch.vtensor<[2,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,5],f32>
    "func.return"(%2, %7) : (!torch.vtensor<[2,5],si64>, !torch.vtensor<[2,5],f32>) -> ()
  }) : () -> ()

// as_strided_scatter of a box of self's contiguous layout ([4, 8], the box
// [1:3, 2:5]: offset 1 * 8 + 2, strides [8, 1]): src spliced in along dim 1
// within the band of rows 1:3, then the band along dim 0.
// CHECK-LABEL: func.func @as_strided_scatter_box(
// CHECK:         %[[BAND:.*]] = nova.slice %arg0[1:3:1, 0:8:1] : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK:         %[[LEFT:.*]] = nova.slice %[[BAND]][0:2:1, 0:2:1] : tensor<2x8xf32> -> tensor<2x2xf32>
// CHECK:         %[[RIGHT:.*]] = nova.slice %[[BAND]][0:2:1, 5:8:1] : tensor<2x8xf32> -> tensor<2x3xf32>
// CHECK:         %[[ROWS:.*]] = nova.concat %[[LEFT]], %arg1, %[[RIGHT]] dim = 1
// CHECK:         %[[TOP:.*]] = nova.slice %arg0[0:1:1, 0:8:1]
// CHECK:         %[[BOTTOM:.*]] = nova.slice %arg0[3:4:1, 0:8:1]
// CHECK:         %[[R:.*]] = nova.concat %[[TOP]], %[[ROWS]], %[[BOTTOM]] dim = 0
// CHECK:         return %[[R]]
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[4,8],f32>, sym_name = "as_strided_scatter_box"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>, %arg1: !torch.vtensor<[2,3],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3 = "torch.constant.int"() <{value = 8 : i64}> : () -> !torch.int
    %4 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %5 = "torch.prim.ListConstruct"(%3, %4) : (!torch.int, !torch.int) -> !torch.list<int>
    %6 = "torch.constant.int"() <{value = 10 : i64}> : () -> !torch.int
    %7 = "torch.aten.as_strided_scatter"(%arg0, %arg1, %2, %5, %6) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.list<int>, !torch.int) -> !torch.vtensor<[4,8],f32>
    "func.return"(%7) : (!torch.vtensor<[4,8],f32>) -> ()
  }) : () -> ()

// index.Tensor over two leading dims: the indices broadcast together and
// linearized (i * 4 + j) into the rows of self viewed as [12, 5].
// CHECK-LABEL: func.func @index_two_dims(
// CHECK:         nova.broadcast_in_dim %{{.*}} : tensor<2xi64> -> tensor<2x2xi64>
// CHECK:         %[[ROW:.*]] = nova.mul %{{.*}}, %{{.*}} : tensor<2x2xi64>
// CHECK:         %[[LIN:.*]] = nova.add %[[ROW]], %{{.*}} : tensor<2x2xi64>
// CHECK:         %[[T:.*]] = nova.reshape %arg0 : tensor<3x4x5xf32> -> tensor<12x5xf32>
// CHECK:         %[[R:.*]] = nova.embedding %[[T]][%[[LIN]]] : tensor<12x5xf32>, tensor<2x2xi64> -> tensor<2x2x5xf32>
// CHECK:         return %[[R]]
  "func.func"() <{function_type = (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[2,2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,2,5],f32>, sym_name = "index_two_dims"}> ({
  ^bb0(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[2,2],si64>, %arg2: !torch.vtensor<[2],si64>):
    %0 = "torch.prim.ListConstruct"(%arg1, %arg2) : (!torch.vtensor<[2,2],si64>, !torch.vtensor<[2],si64>) -> !torch.list<optional<vtensor>>
    %1 = "torch.aten.index.Tensor"(%arg0, %0) : (!torch.vtensor<[3,4,5],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[2,2,5],f32>
    "func.return"(%1) : (!torch.vtensor<[2,2,5],f32>) -> ()
  }) : () -> ()

// cos and sin (rotary embeddings).
// CHECK-LABEL: func.func @cos_sin(
// CHECK:         %[[C:.*]] = nova.cos %arg0 : tensor<4x8xf32>
// CHECK:         %[[S:.*]] = nova.sin %arg0 : tensor<4x8xf32>
// CHECK:         return %[[C]], %[[S]]
  "func.func"() <{function_type = (!torch.vtensor<[4,8],f32>) -> (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>), sym_name = "cos_sin"}> ({
  ^bb0(%arg0: !torch.vtensor<[4,8],f32>):
    %0 = "torch.aten.cos"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %1 = "torch.aten.sin"(%arg0) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    "func.return"(%0, %1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> ()
  }) : () -> ()

// all.dim (attention-mask code): the count of nonzero elements along the dim
// compared with its size.
// CHECK-LABEL: func.func @all_dim(
// CHECK:         %[[Z:.*]] = nova.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK:         %[[B:.*]] = nova.compare ne, %arg0, %[[Z]] : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xi1>
// CHECK:         %[[I:.*]] = nova.cast %[[B]] : tensor<3x4xi1> -> tensor<3x4xi64>
// CHECK:         %[[S:.*]] = nova.reduce_sum %[[I]] dims = [1] keepdim : tensor<3x4xi64> -> tensor<3x1xi64>
// CHECK:         %[[N:.*]] = nova.constant dense<4> : tensor<3x1xi64>
// CHECK:         %[[R:.*]] = nova.compare eq, %[[S]], %[[N]] : tensor<3x1xi64>, tensor<3x1xi64> -> tensor<3x1xi1>
// CHECK:         return %[[R]]
  "func.func"() <{function_type = (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,1],i1>, sym_name = "all_dim"}> ({
  ^bb0(%arg0: !torch.vtensor<[3,4],f32>):
    %0 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %1 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %2 = "torch.aten.all.dim"(%arg0, %0, %1) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[3,1],i1>
    "func.return"(%2) : (!torch.vtensor<[3,1],i1>) -> ()
  }) : () -> ()

}) : () -> ()

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_3_torch.float32: "0x040000000000803F0000004000004040"
    }
  }
#-}
