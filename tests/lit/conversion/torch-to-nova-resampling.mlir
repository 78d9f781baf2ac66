// RUN: nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:   | FileCheck %s --implicit-check-not='"torch' --implicit-check-not='!torch'

// Resampling backward ops (adaptive average pooling, nearest and bilinear
// upsampling) as matmuls with constant matrices, and the activations and
// index arithmetic their decompositions and other layers need. Inputs: the
// "nova" functions of tests/lit/torch-inputs/make_torch_to_nova_snippets.py
// (traced with nova.capture's decomposition table).

"builtin.module"() ({
// Adaptive average pooling's backward (5x7 -> 2x3): along each pooled dim
// the transposed [out, in] window-average matrix (windows [floor(o*in/out),
// ceil((o+1)*in/out))), one matmul each over the other dims as rows.
// CHECK-LABEL: func.func @adaptive_avg_pool2d_backward(
// CHECK:         %[[ROWS:.*]] = nova.reshape %{{.*}} : tensor<1x2x3x2xf32> -> tensor<6x2xf32>
// CHECK:         %[[MH:.*]] = nova.constant dense<{{\[}}[0.333333343, 0.000000e+00], [0.333333343, 0.000000e+00], [0.333333343, 0.333333343], [0.000000e+00, 0.333333343], [0.000000e+00, 0.333333343]]> : tensor<5x2xf32>
// CHECK:         nova.matmul %[[ROWS]], %[[MH]] {transpose_rhs} : tensor<6x2xf32>, tensor<5x2xf32> -> tensor<6x5xf32>
// CHECK:         nova.constant {{.*}} : tensor<7x3xf32>
// CHECK:         nova.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<10x3xf32>, tensor<7x3xf32> -> tensor<10x7xf32>
// CHECK:         nova.reshape %{{.*}} : tensor<10x7xf32> -> tensor<1x2x5x7xf32>
  "func.func"() <{function_type = (!torch.vtensor<[1,2,5,7],f32>) -> (!torch.vtensor<[1,2,5,7],f32>, !torch.vtensor<[],f32>), sym_name = "adaptive_avg_pool2d_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[1,2,5,7],f32>):
    %0 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %2 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %3 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %4 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %5 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %6 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %7 = "torch.aten.arange.start_step"(%0, %1, %2, %3, %4, %5, %6) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[2],si64>
    %8 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %9 = "torch.aten.mul.Scalar"(%7, %8) : (!torch.vtensor<[2],si64>, !torch.int) -> !torch.vtensor<[2],si64>
    %10 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %11 = "torch.prim.NumToTensor.Scalar"(%10) : (!torch.int) -> !torch.vtensor<[],si64>
    %12 = "torch.constant.str"() <{value = "trunc"}> : () -> !torch.str
    %13 = "torch.aten.div.Tensor_mode"(%9, %11, %12) : (!torch.vtensor<[2],si64>, !torch.vtensor<[],si64>, !torch.str) -> !torch.vtensor<[2],si64>
    %14 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %15 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %16 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %17 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %18 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %19 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %20 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %21 = "torch.aten.arange.start_step"(%14, %15, %16, %17, %18, %19, %20) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[3],si64>
    %22 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %23 = "torch.aten.unsqueeze"(%13, %22) : (!torch.vtensor<[2],si64>, !torch.int) -> !torch.vtensor<[2,1],si64>
    %24 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %25 = "torch.aten.add.Tensor"(%23, %21, %24) : (!torch.vtensor<[2,1],si64>, !torch.vtensor<[3],si64>, !torch.int) -> !torch.vtensor<[2,3],si64>
    %26 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %27 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %28 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %29 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %30 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %31 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %32 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %33 = "torch.aten.arange.start_step"(%26, %27, %28, %29, %30, %31, %32) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[3],si64>
    %34 = "torch.constant.int"() <{value = 7 : i64}> : () -> !torch.int
    %35 = "torch.aten.mul.Scalar"(%33, %34) : (!torch.vtensor<[3],si64>, !torch.int) -> !torch.vtensor<[3],si64>
    %36 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %37 = "torch.prim.NumToTensor.Scalar"(%36) : (!torch.int) -> !torch.vtensor<[],si64>
    %38 = "torch.constant.str"() <{value = "trunc"}> : () -> !torch.str
    %39 = "torch.aten.div.Tensor_mode"(%35, %37, %38) : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>, !torch.str) -> !torch.vtensor<[3],si64>
    %40 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %41 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %42 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %43 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %44 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %45 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %46 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %47 = "torch.aten.arange.start_step"(%40, %41, %42, %43, %44, %45, %46) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[3],si64>
    %48 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %49 = "torch.aten.unsqueeze"(%39, %48) : (!torch.vtensor<[3],si64>, !torch.int) -> !torch.vtensor<[3,1],si64>
    %50 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %51 = "torch.aten.add.Tensor"(%49, %47, %50) : (!torch.vtensor<[3,1],si64>, !torch.vtensor<[3],si64>, !torch.int) -> !torch.vtensor<[3,3],si64>
    %52 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %53 = "torch.aten.unsqueeze"(%25, %52) : (!torch.vtensor<[2,3],si64>, !torch.int) -> !torch.vtensor<[2,3,1],si64>
    %54 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %55 = "torch.aten.unsqueeze"(%53, %54) : (!torch.vtensor<[2,3,1],si64>, !torch.int) -> !torch.vtensor<[2,3,1,1],si64>
    %56 = "torch.constant.none"() : () -> !torch.none
    %57 = "torch.constant.none"() : () -> !torch.none
    %58 = "torch.prim.ListConstruct"(%56, %57, %55, %51) : (!torch.none, !torch.none, !torch.vtensor<[2,3,1,1],si64>, !torch.vtensor<[3,3],si64>) -> !torch.list<optional<vtensor>>
    %59 = "torch.aten.index.Tensor"(%arg0, %58) : (!torch.vtensor<[1,2,5,7],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[1,2,2,3,3,3],f32>
    %60 = "torch.constant.int"() <{value = -3 : i64}> : () -> !torch.int
    %61 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %62 = "torch.prim.ListConstruct"(%60, %61) : (!torch.int, !torch.int) -> !torch.list<int>
    %63 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %64 = "torch.constant.none"() : () -> !torch.none
    %65 = "torch.aten.mean.dim"(%59, %62, %63, %64) : (!torch.vtensor<[1,2,2,3,3,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,2,3],f32>
    %66 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %67 = "torch.aten.pow.Tensor_Scalar"(%65, %66) : (!torch.vtensor<[1,2,2,3],f32>, !torch.int) -> !torch.vtensor<[1,2,2,3],f32>
    %68 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %69 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %70 = "torch.constant.none"() : () -> !torch.none
    %71 = "torch.aten.sum.dim_IntList"(%67, %68, %69, %70) : (!torch.vtensor<[1,2,2,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %72 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %73 = "torch.constant.none"() : () -> !torch.none
    %74 = "torch.constant.none"() : () -> !torch.none
    %75 = "torch.constant.none"() : () -> !torch.none
    %76 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %77 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %78 = "torch.aten.full_like"(%71, %72, %73, %74, %75, %76, %77) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %79 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %80 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %81 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %82 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %83 = "torch.prim.ListConstruct"(%79, %80, %81, %82) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %84 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %85 = "torch.aten.expand"(%78, %83, %84) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,2,3],f32>
    %86 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %87 = "torch.aten.pow.Tensor_Scalar"(%65, %86) : (!torch.vtensor<[1,2,2,3],f32>, !torch.float) -> !torch.vtensor<[1,2,2,3],f32>
    %88 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %89 = "torch.aten.mul.Scalar"(%87, %88) : (!torch.vtensor<[1,2,2,3],f32>, !torch.float) -> !torch.vtensor<[1,2,2,3],f32>
    %90 = "torch.aten.mul.Tensor"(%85, %89) : (!torch.vtensor<[1,2,2,3],f32>, !torch.vtensor<[1,2,2,3],f32>) -> !torch.vtensor<[1,2,2,3],f32>
    %91 = "torch.aten._adaptive_avg_pool2d_backward"(%90, %arg0) : (!torch.vtensor<[1,2,2,3],f32>, !torch.vtensor<[1,2,5,7],f32>) -> !torch.vtensor<[1,2,5,7],f32>
    "func.return"(%91, %71) : (!torch.vtensor<[1,2,5,7],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()
// Nearest (x2) and bilinear (3x2 -> 5x4) upsampling: the forward gathers
// (torch's decompositions), the backward applies the transposed
// interpolation and one-hot matrices.
// CHECK-LABEL: func.func @upsample_backward(
// CHECK:         nova.embedding
// CHECK:         nova.constant dense<{{\[}}[1.000000e+00, 6.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00], {{.*}} : tensor<3x5xf32>
// CHECK:         nova.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<8x5xf32>, tensor<3x5xf32> -> tensor<8x3xf32>
// CHECK:         nova.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<6x4xf32>, tensor<2x4xf32> -> tensor<6x2xf32>
// CHECK:         nova.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<3x6xf32>
// CHECK:         nova.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<8x6xf32>, tensor<3x6xf32> -> tensor<8x3xf32>
// CHECK:         nova.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<6x4xf32>, tensor<2x4xf32> -> tensor<6x2xf32>
  "func.func"() <{function_type = (!torch.vtensor<[1,2,3,2],f32>) -> (!torch.vtensor<[1,2,3,2],f32>, !torch.vtensor<[],f32>), sym_name = "upsample_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[1,2,3,2],f32>):
    %0 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %2 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %3 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %4 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %5 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %6 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %7 = "torch.aten.arange.start_step"(%0, %1, %2, %3, %4, %5, %6) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[6],f32>
    %8 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %9 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %10 = "torch.aten.add.Scalar"(%7, %8, %9) : (!torch.vtensor<[6],f32>, !torch.float, !torch.int) -> !torch.vtensor<[6],f32>
    %11 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %12 = "torch.aten.mul.Scalar"(%10, %11) : (!torch.vtensor<[6],f32>, !torch.float) -> !torch.vtensor<[6],f32>
    %13 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %14 = "torch.prims.convert_element_type"(%12, %13) : (!torch.vtensor<[6],f32>, !torch.int) -> !torch.vtensor<[6],si64>
    %15 = "torch.constant.int"() <{value = -1 : i64}> : () -> !torch.int
    %16 = "torch.aten.unsqueeze"(%14, %15) : (!torch.vtensor<[6],si64>, !torch.int) -> !torch.vtensor<[6,1],si64>
    %17 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %18 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %19 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %20 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %21 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %22 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %23 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %24 = "torch.aten.arange.start_step"(%17, %18, %19, %20, %21, %22, %23) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[4],f32>
    %25 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %26 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %27 = "torch.aten.add.Scalar"(%24, %25, %26) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int) -> !torch.vtensor<[4],f32>
    %28 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %29 = "torch.aten.mul.Scalar"(%27, %28) : (!torch.vtensor<[4],f32>, !torch.float) -> !torch.vtensor<[4],f32>
    %30 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %31 = "torch.prims.convert_element_type"(%29, %30) : (!torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[4],si64>
    %32 = "torch.constant.none"() : () -> !torch.none
    %33 = "torch.constant.none"() : () -> !torch.none
    %34 = "torch.prim.ListConstruct"(%32, %33, %16, %31) : (!torch.none, !torch.none, !torch.vtensor<[6,1],si64>, !torch.vtensor<[4],si64>) -> !torch.list<optional<vtensor>>
    %35 = "torch.aten.index.Tensor"(%arg0, %34) : (!torch.vtensor<[1,2,3,2],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[1,2,6,4],f32>
    %36 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %37 = "torch.aten.pow.Tensor_Scalar"(%35, %36) : (!torch.vtensor<[1,2,6,4],f32>, !torch.int) -> !torch.vtensor<[1,2,6,4],f32>
    %38 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %39 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %40 = "torch.constant.none"() : () -> !torch.none
    %41 = "torch.aten.sum.dim_IntList"(%37, %38, %39, %40) : (!torch.vtensor<[1,2,6,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %42 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %43 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %44 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %45 = "torch.constant.none"() : () -> !torch.none
    %46 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %47 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %48 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %49 = "torch.aten.arange.start_step"(%42, %43, %44, %45, %46, %47, %48) : (!torch.int, !torch.int, !torch.int, !torch.none, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[5],si64>
    %50 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %51 = "torch.prims.convert_element_type"(%49, %50) : (!torch.vtensor<[5],si64>, !torch.int) -> !torch.vtensor<[5],f32>
    %52 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %53 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %54 = "torch.aten.add.Scalar"(%51, %52, %53) : (!torch.vtensor<[5],f32>, !torch.float, !torch.int) -> !torch.vtensor<[5],f32>
    %55 = "torch.constant.float"() <{value = 6.000000e-01 : f64}> : () -> !torch.float
    %56 = "torch.aten.mul.Scalar"(%54, %55) : (!torch.vtensor<[5],f32>, !torch.float) -> !torch.vtensor<[5],f32>
    %57 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %58 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %59 = "torch.aten.sub.Scalar"(%56, %57, %58) : (!torch.vtensor<[5],f32>, !torch.float, !torch.int) -> !torch.vtensor<[5],f32>
    %60 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %61 = "torch.constant.none"() : () -> !torch.none
    %62 = "torch.aten.clamp"(%59, %60, %61) : (!torch.vtensor<[5],f32>, !torch.float, !torch.none) -> !torch.vtensor<[5],f32>
    %63 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %64 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %65 = "torch.prim.ListConstruct"(%63, %64) : (!torch.int, !torch.int) -> !torch.list<int>
    %66 = "torch.aten.view"(%62, %65) : (!torch.vtensor<[5],f32>, !torch.list<int>) -> !torch.vtensor<[5,1],f32>
    %67 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %68 = "torch.prims.convert_element_type"(%66, %67) : (!torch.vtensor<[5,1],f32>, !torch.int) -> !torch.vtensor<[5,1],si64>
    %69 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %70 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %71 = "torch.aten.add.Scalar"(%68, %69, %70) : (!torch.vtensor<[5,1],si64>, !torch.int, !torch.int) -> !torch.vtensor<[5,1],si64>
    %72 = "torch.constant.none"() : () -> !torch.none
    %73 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %74 = "torch.aten.clamp"(%71, %72, %73) : (!torch.vtensor<[5,1],si64>, !torch.none, !torch.int) -> !torch.vtensor<[5,1],si64>
    %75 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %76 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %77 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %78 = "torch.constant.none"() : () -> !torch.none
    %79 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %80 = "torch.constant.device"() <{value = "cpu"}> : () -> !torch.Device
    %81 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %82 = "torch.aten.arange.start_step"(%75, %76, %77, %78, %79, %80, %81) : (!torch.int, !torch.int, !torch.int, !torch.none, !torch.int, !torch.Device, !torch.bool) -> !torch.vtensor<[4],si64>
    %83 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %84 = "torch.prims.convert_element_type"(%82, %83) : (!torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],f32>
    %85 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %86 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %87 = "torch.aten.add.Scalar"(%84, %85, %86) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int) -> !torch.vtensor<[4],f32>
    %88 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %89 = "torch.aten.mul.Scalar"(%87, %88) : (!torch.vtensor<[4],f32>, !torch.float) -> !torch.vtensor<[4],f32>
    %90 = "torch.constant.float"() <{value = 5.000000e-01 : f64}> : () -> !torch.float
    %91 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %92 = "torch.aten.sub.Scalar"(%89, %90, %91) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int) -> !torch.vtensor<[4],f32>
    %93 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %94 = "torch.constant.none"() : () -> !torch.none
    %95 = "torch.aten.clamp"(%92, %93, %94) : (!torch.vtensor<[4],f32>, !torch.float, !torch.none) -> !torch.vtensor<[4],f32>
    %96 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %97 = "torch.prim.ListConstruct"(%96) : (!torch.int) -> !torch.list<int>
    %98 = "torch.aten.view"(%95, %97) : (!torch.vtensor<[4],f32>, !torch.list<int>) -> !torch.vtensor<[4],f32>
    %99 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %100 = "torch.prims.convert_element_type"(%98, %99) : (!torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[4],si64>
    %101 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %102 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %103 = "torch.aten.add.Scalar"(%100, %101, %102) : (!torch.vtensor<[4],si64>, !torch.int, !torch.int) -> !torch.vtensor<[4],si64>
    %104 = "torch.constant.none"() : () -> !torch.none
    %105 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %106 = "torch.aten.clamp"(%103, %104, %105) : (!torch.vtensor<[4],si64>, !torch.none, !torch.int) -> !torch.vtensor<[4],si64>
    %107 = "torch.constant.none"() : () -> !torch.none
    %108 = "torch.constant.none"() : () -> !torch.none
    %109 = "torch.prim.ListConstruct"(%107, %108, %68, %100) : (!torch.none, !torch.none, !torch.vtensor<[5,1],si64>, !torch.vtensor<[4],si64>) -> !torch.list<optional<vtensor>>
    %110 = "torch.aten.index.Tensor"(%arg0, %109) : (!torch.vtensor<[1,2,3,2],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[1,2,5,4],f32>
    %111 = "torch.constant.none"() : () -> !torch.none
    %112 = "torch.constant.none"() : () -> !torch.none
    %113 = "torch.prim.ListConstruct"(%111, %112, %68, %106) : (!torch.none, !torch.none, !torch.vtensor<[5,1],si64>, !torch.vtensor<[4],si64>) -> !torch.list<optional<vtensor>>
    %114 = "torch.aten.index.Tensor"(%arg0, %113) : (!torch.vtensor<[1,2,3,2],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[1,2,5,4],f32>
    %115 = "torch.constant.none"() : () -> !torch.none
    %116 = "torch.constant.none"() : () -> !torch.none
    %117 = "torch.prim.ListConstruct"(%115, %116, %74, %100) : (!torch.none, !torch.none, !torch.vtensor<[5,1],si64>, !torch.vtensor<[4],si64>) -> !torch.list<optional<vtensor>>
    %118 = "torch.aten.index.Tensor"(%arg0, %117) : (!torch.vtensor<[1,2,3,2],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[1,2,5,4],f32>
    %119 = "torch.constant.none"() : () -> !torch.none
    %120 = "torch.constant.none"() : () -> !torch.none
    %121 = "torch.prim.ListConstruct"(%119, %120, %74, %106) : (!torch.none, !torch.none, !torch.vtensor<[5,1],si64>, !torch.vtensor<[4],si64>) -> !torch.list<optional<vtensor>>
    %122 = "torch.aten.index.Tensor"(%arg0, %121) : (!torch.vtensor<[1,2,3,2],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[1,2,5,4],f32>
    %123 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %124 = "torch.aten.sub.Tensor"(%98, %100, %123) : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],si64>, !torch.int) -> !torch.vtensor<[4],f32>
    %125 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %126 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %127 = "torch.aten.clamp"(%124, %125, %126) : (!torch.vtensor<[4],f32>, !torch.float, !torch.float) -> !torch.vtensor<[4],f32>
    %128 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %129 = "torch.aten.sub.Tensor"(%114, %110, %128) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>, !torch.int) -> !torch.vtensor<[1,2,5,4],f32>
    %130 = "torch.aten.mul.Tensor"(%129, %127) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,2,5,4],f32>
    %131 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %132 = "torch.aten.add.Tensor"(%110, %130, %131) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>, !torch.int) -> !torch.vtensor<[1,2,5,4],f32>
    %133 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %134 = "torch.aten.sub.Tensor"(%122, %118, %133) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>, !torch.int) -> !torch.vtensor<[1,2,5,4],f32>
    %135 = "torch.aten.mul.Tensor"(%134, %127) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,2,5,4],f32>
    %136 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %137 = "torch.aten.add.Tensor"(%118, %135, %136) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>, !torch.int) -> !torch.vtensor<[1,2,5,4],f32>
    %138 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %139 = "torch.aten.sub.Tensor"(%66, %68, %138) : (!torch.vtensor<[5,1],f32>, !torch.vtensor<[5,1],si64>, !torch.int) -> !torch.vtensor<[5,1],f32>
    %140 = "torch.constant.float"() <{value = 0.000000e+00 : f64}> : () -> !torch.float
    %141 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %142 = "torch.aten.clamp"(%139, %140, %141) : (!torch.vtensor<[5,1],f32>, !torch.float, !torch.float) -> !torch.vtensor<[5,1],f32>
    %143 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %144 = "torch.aten.sub.Tensor"(%137, %132, %143) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>, !torch.int) -> !torch.vtensor<[1,2,5,4],f32>
    %145 = "torch.aten.mul.Tensor"(%144, %142) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[5,1],f32>) -> !torch.vtensor<[1,2,5,4],f32>
    %146 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %147 = "torch.aten.add.Tensor"(%132, %145, %146) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>, !torch.int) -> !torch.vtensor<[1,2,5,4],f32>
    %148 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %149 = "torch.aten.pow.Tensor_Scalar"(%147, %148) : (!torch.vtensor<[1,2,5,4],f32>, !torch.int) -> !torch.vtensor<[1,2,5,4],f32>
    %150 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %151 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %152 = "torch.constant.none"() : () -> !torch.none
    %153 = "torch.aten.sum.dim_IntList"(%149, %150, %151, %152) : (!torch.vtensor<[1,2,5,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %154 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %155 = "torch.aten.add.Tensor"(%41, %153, %154) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[],f32>
    %156 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %157 = "torch.constant.none"() : () -> !torch.none
    %158 = "torch.constant.none"() : () -> !torch.none
    %159 = "torch.constant.none"() : () -> !torch.none
    %160 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %161 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %162 = "torch.aten.full_like"(%155, %156, %157, %158, %159, %160, %161) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %163 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %164 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %165 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %166 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %167 = "torch.prim.ListConstruct"(%163, %164, %165, %166) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %168 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %169 = "torch.aten.expand"(%162, %167, %168) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,5,4],f32>
    %170 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %171 = "torch.aten.pow.Tensor_Scalar"(%147, %170) : (!torch.vtensor<[1,2,5,4],f32>, !torch.float) -> !torch.vtensor<[1,2,5,4],f32>
    %172 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %173 = "torch.aten.mul.Scalar"(%171, %172) : (!torch.vtensor<[1,2,5,4],f32>, !torch.float) -> !torch.vtensor<[1,2,5,4],f32>
    %174 = "torch.aten.mul.Tensor"(%169, %173) : (!torch.vtensor<[1,2,5,4],f32>, !torch.vtensor<[1,2,5,4],f32>) -> !torch.vtensor<[1,2,5,4],f32>
    %175 = "torch.constant.int"() <{value = 5 : i64}> : () -> !torch.int
    %176 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %177 = "torch.prim.ListConstruct"(%175, %176) : (!torch.int, !torch.int) -> !torch.list<int>
    %178 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %179 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %180 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %181 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %182 = "torch.prim.ListConstruct"(%178, %179, %180, %181) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %183 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %184 = "torch.constant.none"() : () -> !torch.none
    %185 = "torch.constant.none"() : () -> !torch.none
    %186 = "torch.operator"(%174, %177, %182, %183, %184, %185) <{name = "torch.aten.upsample_bilinear2d_backward"}> : (!torch.vtensor<[1,2,5,4],f32>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.none, !torch.none) -> !torch.vtensor<[1,2,3,2],f32>
    %187 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %188 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %189 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %190 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %191 = "torch.prim.ListConstruct"(%187, %188, %189, %190) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %192 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %193 = "torch.aten.expand"(%162, %191, %192) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,6,4],f32>
    %194 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %195 = "torch.aten.pow.Tensor_Scalar"(%35, %194) : (!torch.vtensor<[1,2,6,4],f32>, !torch.float) -> !torch.vtensor<[1,2,6,4],f32>
    %196 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %197 = "torch.aten.mul.Scalar"(%195, %196) : (!torch.vtensor<[1,2,6,4],f32>, !torch.float) -> !torch.vtensor<[1,2,6,4],f32>
    %198 = "torch.aten.mul.Tensor"(%193, %197) : (!torch.vtensor<[1,2,6,4],f32>, !torch.vtensor<[1,2,6,4],f32>) -> !torch.vtensor<[1,2,6,4],f32>
    %199 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %200 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %201 = "torch.prim.ListConstruct"(%199, %200) : (!torch.int, !torch.int) -> !torch.list<int>
    %202 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %203 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %204 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %205 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %206 = "torch.prim.ListConstruct"(%202, %203, %204, %205) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %207 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %208 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %209 = "torch.aten.upsample_nearest2d_backward"(%198, %201, %206, %207, %208) : (!torch.vtensor<[1,2,6,4],f32>, !torch.list<int>, !torch.list<int>, !torch.float, !torch.float) -> !torch.vtensor<[1,2,3,2],f32>
    %210 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %211 = "torch.aten.add.Tensor"(%186, %209, %210) : (!torch.vtensor<[1,2,3,2],f32>, !torch.vtensor<[1,2,3,2],f32>, !torch.int) -> !torch.vtensor<[1,2,3,2],f32>
    "func.return"(%211, %155) : (!torch.vtensor<[1,2,3,2],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()
// leaky_relu as a select, log1p and expm1 through log and exp, repeat as a
// broadcast of an interleaved view, floor division of integers corrected
// where the remainder's sign differs from the divisor's, and indexing a
// non-leading dim (the indexed dim moved to the front and back).
// CHECK-LABEL: func.func @activations_and_indexing(
// CHECK-SAME:      %[[X:.*]]: tensor<2x4xf32>, %[[I:.*]]: tensor<3xi64>)
// CHECK:         %[[POS:.*]] = nova.compare gt, %[[X]], %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xi1>
// CHECK:         %[[SCALED:.*]] = nova.mul %[[X]], %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[LEAKY:.*]] = nova.select %[[POS]], %[[X]], %[[SCALED]] : tensor<2x4xi1>, tensor<2x4xf32>
// CHECK:         %[[PLUS1:.*]] = nova.add %{{.*}}, %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[LOG1P:.*]] = nova.log %[[PLUS1]] : tensor<2x4xf32>
// CHECK:         %[[EXP:.*]] = nova.exp %[[X]] : tensor<2x4xf32>
// CHECK:         %[[EXPM1:.*]] = nova.sub %[[EXP]], %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[VIEW:.*]] = nova.reshape %[[X]] : tensor<2x4xf32> -> tensor<1x1x1x2x1x4xf32>
// CHECK:         %[[TILED:.*]] = nova.broadcast_in_dim %[[VIEW]] dims = [0, 1, 2, 3, 4, 5] : tensor<1x1x1x2x1x4xf32> -> tensor<2x1x1x2x3x4xf32>
// CHECK:         %[[REPEAT:.*]] = nova.reshape %[[TILED]] : tensor<2x1x1x2x3x4xf32> -> tensor<2x2x12xf32>
// CHECK:         %[[Q:.*]] = nova.div %[[I]], %{{.*}} : tensor<3xi64>
// CHECK:         %[[REM:.*]] = nova.sub %[[I]], %{{.*}} : tensor<3xi64>
// CHECK:         %[[INEXACT:.*]] = nova.compare ne, %[[REM]], %{{.*}} : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
// CHECK:         %[[FIX:.*]] = nova.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xi1>, tensor<3xi64>
// CHECK:         %[[FLOOR:.*]] = nova.sub %[[Q]], %[[FIX]] : tensor<3xi64>
// CHECK:         %[[COLS:.*]] = nova.transpose %[[X]] permutation = [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
// CHECK:         %[[G:.*]] = nova.embedding %[[COLS]][%{{.*}}] : tensor<4x2xf32>, tensor<3xi64> -> tensor<3x2xf32>
// CHECK:         nova.transpose %[[G]] permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK:         return %[[LEAKY]], %[[LOG1P]], %[[EXPM1]], %[[REPEAT]], %[[FLOOR]]
  "func.func"() <{function_type = (!torch.vtensor<[2,4],f32>, !torch.vtensor<[3],si64>) -> (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,2,12],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[2,3],f32>), sym_name = "activations_and_indexing"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,4],f32>, %arg1: !torch.vtensor<[3],si64>):
    %0 = "torch.constant.float"() <{value = 2.000000e-01 : f64}> : () -> !torch.float
    %1 = "torch.aten.leaky_relu"(%arg0, %0) : (!torch.vtensor<[2,4],f32>, !torch.float) -> !torch.vtensor<[2,4],f32>
    %2 = "torch.aten.abs"(%arg0) : (!torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %3 = "torch.aten.log1p"(%2) : (!torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %4 = "torch.aten.expm1"(%arg0) : (!torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %5 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %8 = "torch.prim.ListConstruct"(%5, %6, %7) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %9 = "torch.aten.repeat"(%arg0, %8) : (!torch.vtensor<[2,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,2,12],f32>
    %10 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %11 = "torch.prim.NumToTensor.Scalar"(%10) : (!torch.int) -> !torch.vtensor<[],si64>
    %12 = "torch.constant.str"() <{value = "floor"}> : () -> !torch.str
    %13 = "torch.aten.div.Tensor_mode"(%arg1, %11, %12) : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>, !torch.str) -> !torch.vtensor<[3],si64>
    %14 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %15 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %16 = "torch.aten.clamp"(%arg1, %14, %15) : (!torch.vtensor<[3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[3],si64>
    %17 = "torch.constant.none"() : () -> !torch.none
    %18 = "torch.prim.ListConstruct"(%17, %16) : (!torch.none, !torch.vtensor<[3],si64>) -> !torch.list<optional<vtensor>>
    %19 = "torch.aten.index.Tensor"(%arg0, %18) : (!torch.vtensor<[2,4],f32>, !torch.list<optional<vtensor>>) -> !torch.vtensor<[2,3],f32>
    %20 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %21 = "torch.aten.mul.Scalar"(%19, %20) : (!torch.vtensor<[2,3],f32>, !torch.int) -> !torch.vtensor<[2,3],f32>
    "func.return"(%1, %3, %4, %9, %13, %21) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,2,12],f32>, !torch.vtensor<[3],si64>, !torch.vtensor<[2,3],f32>) -> ()
  }) : () -> ()
}) : () -> ()
