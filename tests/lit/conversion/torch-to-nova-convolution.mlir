// RUN: nova-opt %s --allow-unregistered-dialect --convert-torch-to-nova \
// RUN:   | FileCheck %s --implicit-check-not='"torch' --implicit-check-not='!torch'

// Convolutions and pooling, forward and backward, as nova.convolution (and,
// for max pooling, window slices and a scatter-add). Inputs: the functions
// "conv2d_grouped_backward", "conv_transpose1d_backward",
// "max_pool2d_backward", "avg_pool2d_backward" and
// "adaptive_max_pool2d_backward" of
// tests/lit/torch-inputs/make_torch_to_nova_snippets.py, as the FX importer
// prints them.

"builtin.module"() ({
// A grouped, strided, padded conv2d with bias, and its backward: the input
// gradient is a convolution of the stride-dilated output gradient
// (lhs_dilation) with the flipped kernel, in and out channels swapped within
// each group; the weight gradient is, per group, the input (batch and
// channels swapped) convolved with the output gradient, the stride becoming
// the kernel dilation; the bias gradient a sum.
// CHECK-LABEL: func.func @conv2d_grouped_backward(
// CHECK-SAME:      %[[X:.*]]: tensor<2x4x7x6xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK:         %[[Y:.*]] = nova.convolution %[[X]], %[[W]] {dilation = array<i64: 1, 1>, groups = 2 : i64, lhs_dilation = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, stride = array<i64: 2, 1>} : tensor<2x4x7x6xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x4x6xf32>
// CHECK:         nova.broadcast_in_dim %{{.*}} dims = [1, 2, 3] : tensor<6x1x1xf32> -> tensor<2x6x4x6xf32>
// CHECK:         %[[FLIP:.*]] = nova.reverse %[[W]] dims = [2, 3] : tensor<6x2x3x3xf32>
// CHECK:         %[[G:.*]] = nova.reshape %[[FLIP]] : tensor<6x2x3x3xf32> -> tensor<2x3x2x3x3xf32>
// CHECK:         %[[SWAP:.*]] = nova.transpose %[[G]] permutation = [0, 2, 1, 3, 4] : tensor<2x3x2x3x3xf32> -> tensor<2x2x3x3x3xf32>
// CHECK:         %[[K:.*]] = nova.reshape %[[SWAP]] : tensor<2x2x3x3x3xf32> -> tensor<4x3x3x3xf32>
// CHECK:         %[[DX:.*]] = nova.convolution %[[DY:.*]], %[[K]] {dilation = array<i64: 1, 1>, groups = 2 : i64, lhs_dilation = array<i64: 2, 1>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, stride = array<i64: 1, 1>} : tensor<2x6x4x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x7x6xf32>
// CHECK:         nova.slice %[[X]][0:2:1, 0:2:1, 0:7:1, 0:6:1]
// CHECK:         %[[DW0:.*]] = nova.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 2, 1>, groups = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, stride = array<i64: 1, 1>} : tensor<2x2x7x6xf32>, tensor<3x2x4x6xf32> -> tensor<2x3x3x3xf32>
// CHECK:         nova.slice %[[X]][0:2:1, 2:4:1, 0:7:1, 0:6:1]
// CHECK:         %[[DW1:.*]] = nova.convolution
// CHECK:         %[[DWS:.*]] = nova.concat %[[DW0]], %[[DW1]] dim = 1 : (tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<2x6x3x3xf32>
// CHECK:         %[[DW:.*]] = nova.transpose %[[DWS]] permutation = [1, 0, 2, 3] : tensor<2x6x3x3xf32> -> tensor<6x2x3x3xf32>
// CHECK:         %[[DB:.*]] = nova.reduce_sum %[[DY]] dims = [0, 2, 3] : tensor<2x6x4x6xf32> -> tensor<6xf32>
// CHECK:         return %[[DX]], %[[DW]], %[[DB]], %{{.*}}
  "func.func"() <{function_type = (!torch.vtensor<[2,4,7,6],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.vtensor<[6],f32>) -> (!torch.vtensor<[2,4,7,6],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[],f32>), sym_name = "conv2d_grouped_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,4,7,6],f32>, %arg1: !torch.vtensor<[6,2,3,3],f32>, %arg2: !torch.vtensor<[6],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %4 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %5 = "torch.prim.ListConstruct"(%3, %4) : (!torch.int, !torch.int) -> !torch.list<int>
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %8 = "torch.prim.ListConstruct"(%6, %7) : (!torch.int, !torch.int) -> !torch.list<int>
    %9 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %10 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %11 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %12 = "torch.prim.ListConstruct"(%10, %11) : (!torch.int, !torch.int) -> !torch.list<int>
    %13 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %14 = "torch.aten.convolution"(%arg0, %arg1, %arg2, %2, %5, %8, %9, %12, %13) : (!torch.vtensor<[2,4,7,6],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.vtensor<[6],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,6,4,6],f32>
    %15 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %16 = "torch.aten.pow.Tensor_Scalar"(%14, %15) : (!torch.vtensor<[2,6,4,6],f32>, !torch.int) -> !torch.vtensor<[2,6,4,6],f32>
    %17 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %18 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %19 = "torch.constant.none"() : () -> !torch.none
    %20 = "torch.aten.sum.dim_IntList"(%16, %17, %18, %19) : (!torch.vtensor<[2,6,4,6],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %21 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %22 = "torch.constant.none"() : () -> !torch.none
    %23 = "torch.constant.none"() : () -> !torch.none
    %24 = "torch.constant.none"() : () -> !torch.none
    %25 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %26 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %27 = "torch.aten.full_like"(%20, %21, %22, %23, %24, %25, %26) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %28 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %29 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %30 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %31 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %32 = "torch.prim.ListConstruct"(%28, %29, %30, %31) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %33 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %34 = "torch.aten.expand"(%27, %32, %33) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,6,4,6],f32>
    %35 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %36 = "torch.aten.pow.Tensor_Scalar"(%14, %35) : (!torch.vtensor<[2,6,4,6],f32>, !torch.float) -> !torch.vtensor<[2,6,4,6],f32>
    %37 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %38 = "torch.aten.mul.Scalar"(%36, %37) : (!torch.vtensor<[2,6,4,6],f32>, !torch.float) -> !torch.vtensor<[2,6,4,6],f32>
    %39 = "torch.aten.mul.Tensor"(%34, %38) : (!torch.vtensor<[2,6,4,6],f32>, !torch.vtensor<[2,6,4,6],f32>) -> !torch.vtensor<[2,6,4,6],f32>
    %40 = "torch.constant.int"() <{value = 6 : i64}> : () -> !torch.int
    %41 = "torch.prim.ListConstruct"(%40) : (!torch.int) -> !torch.list<int>
    %42 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %43 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %44 = "torch.prim.ListConstruct"(%42, %43) : (!torch.int, !torch.int) -> !torch.list<int>
    %45 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %46 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %47 = "torch.prim.ListConstruct"(%45, %46) : (!torch.int, !torch.int) -> !torch.list<int>
    %48 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %49 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %50 = "torch.prim.ListConstruct"(%48, %49) : (!torch.int, !torch.int) -> !torch.list<int>
    %51 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %52 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %53 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %54 = "torch.prim.ListConstruct"(%52, %53) : (!torch.int, !torch.int) -> !torch.list<int>
    %55 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %56 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %57 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %58 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %59 = "torch.prim.ListConstruct"(%56, %57, %58) : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
    %60:3 = "torch.aten.convolution_backward"(%39, %arg0, %arg1, %41, %44, %47, %50, %51, %54, %55, %59) : (!torch.vtensor<[2,6,4,6],f32>, !torch.vtensor<[2,4,7,6],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[2,4,7,6],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.vtensor<[6],f32>)
    "func.return"(%60#0, %60#1, %60#2, %20) : (!torch.vtensor<[2,4,7,6],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()
// A transposed conv1d (stride 2, padding 1, output_padding 1) is the input
// gradient's form; its backward swaps the parts: a plain convolution for the
// input gradient, the weight gradient with input and output gradient swapped.
// CHECK-LABEL: func.func @conv_transpose1d_backward(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x5xf32>, %[[W:.*]]: tensor<3x4x3xf32>)
// CHECK:         nova.reverse %[[W]] dims = [2] : tensor<3x4x3xf32>
// CHECK:         %[[Y:.*]] = nova.convolution %[[X]], %{{.*}} {dilation = array<i64: 1>, groups = 1 : i64, lhs_dilation = array<i64: 2>, padding_high = array<i64: 2>, padding_low = array<i64: 1>, stride = array<i64: 1>} : tensor<2x3x5xf32>, tensor<4x3x3xf32> -> tensor<2x4x10xf32>
// CHECK:         %[[DX:.*]] = nova.convolution %[[DY:.*]], %[[W]] {dilation = array<i64: 1>, groups = 1 : i64, lhs_dilation = array<i64: 1>, padding_high = array<i64: 1>, padding_low = array<i64: 1>, stride = array<i64: 2>} : tensor<2x4x10xf32>, tensor<3x4x3xf32> -> tensor<2x3x5xf32>
// CHECK:         %[[XT:.*]] = nova.transpose %[[X]] permutation = [1, 0, 2] : tensor<2x3x5xf32> -> tensor<3x2x5xf32>
// CHECK:         %[[DYT:.*]] = nova.transpose %[[DY]] permutation = [1, 0, 2] : tensor<2x4x10xf32> -> tensor<4x2x10xf32>
// CHECK:         %[[DWT:.*]] = nova.convolution %[[DYT]], %[[XT]] {dilation = array<i64: 2>, groups = 1 : i64, lhs_dilation = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 1>, stride = array<i64: 1>} : tensor<4x2x10xf32>, tensor<3x2x5xf32> -> tensor<4x3x3xf32>
// CHECK:         %[[DW:.*]] = nova.transpose %[[DWT]] permutation = [1, 0, 2] : tensor<4x3x3xf32> -> tensor<3x4x3xf32>
// CHECK:         return %[[DX]], %[[DW]], %{{.*}}
  "func.func"() <{function_type = (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[3,4,3],f32>) -> (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[3,4,3],f32>, !torch.vtensor<[],f32>), sym_name = "conv_transpose1d_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,5],f32>, %arg1: !torch.vtensor<[3,4,3],f32>):
    %0 = "torch.constant.none"() : () -> !torch.none
    %1 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%1) : (!torch.int) -> !torch.list<int>
    %3 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %4 = "torch.prim.ListConstruct"(%3) : (!torch.int) -> !torch.list<int>
    %5 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %6 = "torch.prim.ListConstruct"(%5) : (!torch.int) -> !torch.list<int>
    %7 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %8 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %9 = "torch.prim.ListConstruct"(%8) : (!torch.int) -> !torch.list<int>
    %10 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %11 = "torch.aten.convolution"(%arg0, %arg1, %0, %2, %4, %6, %7, %9, %10) : (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[3,4,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,4,10],f32>
    %12 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %13 = "torch.aten.pow.Tensor_Scalar"(%11, %12) : (!torch.vtensor<[2,4,10],f32>, !torch.int) -> !torch.vtensor<[2,4,10],f32>
    %14 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %15 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %16 = "torch.constant.none"() : () -> !torch.none
    %17 = "torch.aten.sum.dim_IntList"(%13, %14, %15, %16) : (!torch.vtensor<[2,4,10],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %18 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %19 = "torch.constant.none"() : () -> !torch.none
    %20 = "torch.constant.none"() : () -> !torch.none
    %21 = "torch.constant.none"() : () -> !torch.none
    %22 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %23 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %24 = "torch.aten.full_like"(%17, %18, %19, %20, %21, %22, %23) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %25 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %26 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %27 = "torch.constant.int"() <{value = 10 : i64}> : () -> !torch.int
    %28 = "torch.prim.ListConstruct"(%25, %26, %27) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %29 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %30 = "torch.aten.expand"(%24, %28, %29) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,4,10],f32>
    %31 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %32 = "torch.aten.pow.Tensor_Scalar"(%11, %31) : (!torch.vtensor<[2,4,10],f32>, !torch.float) -> !torch.vtensor<[2,4,10],f32>
    %33 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %34 = "torch.aten.mul.Scalar"(%32, %33) : (!torch.vtensor<[2,4,10],f32>, !torch.float) -> !torch.vtensor<[2,4,10],f32>
    %35 = "torch.aten.mul.Tensor"(%30, %34) : (!torch.vtensor<[2,4,10],f32>, !torch.vtensor<[2,4,10],f32>) -> !torch.vtensor<[2,4,10],f32>
    %36 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %37 = "torch.prim.ListConstruct"(%36) : (!torch.int) -> !torch.list<int>
    %38 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %39 = "torch.prim.ListConstruct"(%38) : (!torch.int) -> !torch.list<int>
    %40 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %41 = "torch.prim.ListConstruct"(%40) : (!torch.int) -> !torch.list<int>
    %42 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %43 = "torch.prim.ListConstruct"(%42) : (!torch.int) -> !torch.list<int>
    %44 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %45 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %46 = "torch.prim.ListConstruct"(%45) : (!torch.int) -> !torch.list<int>
    %47 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %48 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %49 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %50 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %51 = "torch.prim.ListConstruct"(%48, %49, %50) : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
    %52:3 = "torch.aten.convolution_backward"(%35, %arg0, %arg1, %37, %39, %41, %43, %44, %46, %47, %51) : (!torch.vtensor<[2,4,10],f32>, !torch.vtensor<[2,3,5],f32>, !torch.vtensor<[3,4,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool>) -> (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[3,4,3],f32>, !torch.none)
    "func.return"(%52#0, %52#1, %17) : (!torch.vtensor<[2,3,5],f32>, !torch.vtensor<[3,4,3],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()
// Max pooling (3x3, stride 2, padding 1): the input padded with -inf, the
// maximum and its first flat index over the 9 strided window slices; the
// backward scatter-adds the output gradient at (row * 42 + index).
// CHECK-LABEL: func.func @max_pool2d_backward(
// CHECK:         nova.constant dense<0xFF800000> : tensor<2x3x1x6xf32>
// CHECK:         %[[PADDED:.*]] = nova.concat %{{.*}} dim = 3 : (tensor<2x3x9x1xf32>, tensor<2x3x9x6xf32>, tensor<2x3x9x1xf32>) -> tensor<2x3x9x8xf32>
// CHECK:         nova.iota dim = 0 : tensor<4x3xi64>
// CHECK:         %[[S0:.*]] = nova.slice %[[PADDED]][0:2:1, 0:3:1, 0:7:2, 0:5:2] : tensor<2x3x9x8xf32> -> tensor<2x3x4x3xf32>
// CHECK:         %[[S1:.*]] = nova.slice %[[PADDED]][0:2:1, 0:3:1, 0:7:2, 1:6:2] : tensor<2x3x9x8xf32> -> tensor<2x3x4x3xf32>
// CHECK:         %[[GT:.*]] = nova.compare gt, %[[S1]], %[[S0]] : tensor<2x3x4x3xf32>, tensor<2x3x4x3xf32> -> tensor<2x3x4x3xi1>
// CHECK:         nova.select %[[GT]], %[[S1]], %[[S0]] : tensor<2x3x4x3xi1>, tensor<2x3x4x3xf32>
// CHECK:         nova.select %[[GT]], %{{.*}}, %{{.*}} : tensor<2x3x4x3xi1>, tensor<2x3x4x3xi64>
// CHECK-COUNT-7: nova.compare gt
// CHECK:         nova.constant dense<42> : tensor<6x12xi64>
// CHECK:         %[[FLAT:.*]] = nova.reshape %{{.*}} : tensor<6x12xi64> -> tensor<72xi64>
// CHECK:         %[[UPD:.*]] = nova.reshape %{{.*}} : tensor<2x3x4x3xf32> -> tensor<72x1xf32>
// CHECK:         %[[ZERO:.*]] = nova.constant dense<0.000000e+00> : tensor<252x1xf32>
// CHECK:         %[[SUMS:.*]] = nova.scatter_add %[[ZERO]][%[[FLAT]]], %[[UPD]] : tensor<252x1xf32>, tensor<72xi64>, tensor<72x1xf32> -> tensor<252x1xf32>
// CHECK:         nova.reshape %[[SUMS]] : tensor<252x1xf32> -> tensor<2x3x7x6xf32>
  "func.func"() <{function_type = (!torch.vtensor<[2,3,7,6],f32>) -> (!torch.vtensor<[2,3,7,6],f32>, !torch.vtensor<[],f32>), sym_name = "max_pool2d_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,7,6],f32>):
    %0 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %4 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %5 = "torch.prim.ListConstruct"(%3, %4) : (!torch.int, !torch.int) -> !torch.list<int>
    %6 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %7 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %8 = "torch.prim.ListConstruct"(%6, %7) : (!torch.int, !torch.int) -> !torch.list<int>
    %9 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %10 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %11 = "torch.prim.ListConstruct"(%9, %10) : (!torch.int, !torch.int) -> !torch.list<int>
    %12 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %13:2 = "torch.aten.max_pool2d_with_indices"(%arg0, %2, %5, %8, %11, %12) : (!torch.vtensor<[2,3,7,6],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> (!torch.vtensor<[2,3,4,3],f32>, !torch.vtensor<[2,3,4,3],si64>)
    %14 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %15 = "torch.aten.pow.Tensor_Scalar"(%13#0, %14) : (!torch.vtensor<[2,3,4,3],f32>, !torch.int) -> !torch.vtensor<[2,3,4,3],f32>
    %16 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %17 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %18 = "torch.constant.none"() : () -> !torch.none
    %19 = "torch.aten.sum.dim_IntList"(%15, %16, %17, %18) : (!torch.vtensor<[2,3,4,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %20 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %21 = "torch.constant.none"() : () -> !torch.none
    %22 = "torch.constant.none"() : () -> !torch.none
    %23 = "torch.constant.none"() : () -> !torch.none
    %24 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %25 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %26 = "torch.aten.full_like"(%19, %20, %21, %22, %23, %24, %25) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %27 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %28 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %29 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
    %30 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %31 = "torch.prim.ListConstruct"(%27, %28, %29, %30) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %32 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %33 = "torch.aten.expand"(%26, %31, %32) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3,4,3],f32>
    %34 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %35 = "torch.aten.pow.Tensor_Scalar"(%13#0, %34) : (!torch.vtensor<[2,3,4,3],f32>, !torch.float) -> !torch.vtensor<[2,3,4,3],f32>
    %36 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %37 = "torch.aten.mul.Scalar"(%35, %36) : (!torch.vtensor<[2,3,4,3],f32>, !torch.float) -> !torch.vtensor<[2,3,4,3],f32>
    %38 = "torch.aten.mul.Tensor"(%33, %37) : (!torch.vtensor<[2,3,4,3],f32>, !torch.vtensor<[2,3,4,3],f32>) -> !torch.vtensor<[2,3,4,3],f32>
    %39 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %40 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %41 = "torch.prim.ListConstruct"(%39, %40) : (!torch.int, !torch.int) -> !torch.list<int>
    %42 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %43 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %44 = "torch.prim.ListConstruct"(%42, %43) : (!torch.int, !torch.int) -> !torch.list<int>
    %45 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %46 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %47 = "torch.prim.ListConstruct"(%45, %46) : (!torch.int, !torch.int) -> !torch.list<int>
    %48 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %49 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %50 = "torch.prim.ListConstruct"(%48, %49) : (!torch.int, !torch.int) -> !torch.list<int>
    %51 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %52 = "torch.aten.max_pool2d_with_indices_backward"(%38, %arg0, %41, %44, %47, %50, %51, %13#1) : (!torch.vtensor<[2,3,4,3],f32>, !torch.vtensor<[2,3,7,6],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.vtensor<[2,3,4,3],si64>) -> !torch.vtensor<[2,3,7,6],f32>
    "func.return"(%52, %19) : (!torch.vtensor<[2,3,7,6],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()
// Average pooling (2x2, ceil mode, count_include_pad false): each channel
// convolved with a kernel of ones (the ceil-mode window reaches one past the
// input), divided by the window sizes inside the input; the backward is that
// convolution's input gradient of the output gradient over the same sizes.
// CHECK-LABEL: func.func @avg_pool2d_backward(
// CHECK:         %[[CH:.*]] = nova.reshape %{{.*}} : tensor<2x3x5x5xf32> -> tensor<6x1x5x5xf32>
// CHECK:         %[[ONES:.*]] = nova.constant dense<1.000000e+00> : tensor<1x1x2x2xf32>
// CHECK:         %[[SUMS:.*]] = nova.convolution %[[CH]], %[[ONES]] {dilation = array<i64: 1, 1>, groups = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<6x1x5x5xf32>, tensor<1x1x2x2xf32> -> tensor<6x1x3x3xf32>
// CHECK:         nova.constant dense<{{\[}}[4.000000e+00, 4.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
// CHECK:         nova.div %[[SUMS]], %{{.*}} : tensor<6x1x3x3xf32>
// CHECK:         %[[DX:.*]] = nova.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 1 : i64, lhs_dilation = array<i64: 2, 2>, padding_high = array<i64: 0, 0>, padding_low = array<i64: 1, 1>, stride = array<i64: 1, 1>} : tensor<6x1x3x3xf32>, tensor<1x1x2x2xf32> -> tensor<6x1x5x5xf32>
// CHECK:         nova.reshape %[[DX]] : tensor<6x1x5x5xf32> -> tensor<2x3x5x5xf32>
  "func.func"() <{function_type = (!torch.vtensor<[2,3,5,5],f32>) -> (!torch.vtensor<[2,3,5,5],f32>, !torch.vtensor<[],f32>), sym_name = "avg_pool2d_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[2,3,5,5],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %4 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %5 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %6 = "torch.prim.ListConstruct"(%4, %5) : (!torch.int, !torch.int) -> !torch.list<int>
    %7 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %8 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %9 = "torch.constant.none"() : () -> !torch.none
    %10 = "torch.aten.avg_pool2d"(%arg0, %2, %3, %6, %7, %8, %9) : (!torch.vtensor<[2,3,5,5],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3,3,3],f32>
    %11 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %12 = "torch.aten.pow.Tensor_Scalar"(%10, %11) : (!torch.vtensor<[2,3,3,3],f32>, !torch.int) -> !torch.vtensor<[2,3,3,3],f32>
    %13 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %14 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %15 = "torch.constant.none"() : () -> !torch.none
    %16 = "torch.aten.sum.dim_IntList"(%12, %13, %14, %15) : (!torch.vtensor<[2,3,3,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %17 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %18 = "torch.constant.none"() : () -> !torch.none
    %19 = "torch.constant.none"() : () -> !torch.none
    %20 = "torch.constant.none"() : () -> !torch.none
    %21 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %22 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %23 = "torch.aten.full_like"(%16, %17, %18, %19, %20, %21, %22) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %24 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %25 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %26 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %27 = "torch.constant.int"() <{value = 3 : i64}> : () -> !torch.int
    %28 = "torch.prim.ListConstruct"(%24, %25, %26, %27) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %29 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %30 = "torch.aten.expand"(%23, %28, %29) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[2,3,3,3],f32>
    %31 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %32 = "torch.aten.pow.Tensor_Scalar"(%10, %31) : (!torch.vtensor<[2,3,3,3],f32>, !torch.float) -> !torch.vtensor<[2,3,3,3],f32>
    %33 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %34 = "torch.aten.mul.Scalar"(%32, %33) : (!torch.vtensor<[2,3,3,3],f32>, !torch.float) -> !torch.vtensor<[2,3,3,3],f32>
    %35 = "torch.aten.mul.Tensor"(%30, %34) : (!torch.vtensor<[2,3,3,3],f32>, !torch.vtensor<[2,3,3,3],f32>) -> !torch.vtensor<[2,3,3,3],f32>
    %36 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %37 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %38 = "torch.prim.ListConstruct"(%36, %37) : (!torch.int, !torch.int) -> !torch.list<int>
    %39 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %40 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %41 = "torch.constant.int"() <{value = 0 : i64}> : () -> !torch.int
    %42 = "torch.prim.ListConstruct"(%40, %41) : (!torch.int, !torch.int) -> !torch.list<int>
    %43 = "torch.constant.bool"() <{value = true}> : () -> !torch.bool
    %44 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %45 = "torch.constant.none"() : () -> !torch.none
    %46 = "torch.aten.avg_pool2d_backward"(%35, %arg0, %38, %39, %42, %43, %44, %45) : (!torch.vtensor<[2,3,3,3],f32>, !torch.vtensor<[2,3,5,5],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3,5,5],f32>
    "func.return"(%46, %16) : (!torch.vtensor<[2,3,5,5],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()
// Adaptive max pooling (3x5 -> 2x2: windows of 2 rows and 3 columns): one
// gather of the input's spatial positions per window element at constant
// flat indices (clamped to the window), the first maximum and its index;
// the backward scatter-adds at those indices like max pooling's.
// CHECK-LABEL: func.func @adaptive_max_pool2d_backward(
// CHECK:         %[[ROWS:.*]] = nova.reshape %{{.*}} : tensor<1x2x3x5xf32> -> tensor<2x15xf32>
// CHECK:         %[[TABLE:.*]] = nova.transpose %[[ROWS]] permutation = [1, 0] : tensor<2x15xf32> -> tensor<15x2xf32>
// CHECK:         %[[AT0:.*]] = nova.constant dense<{{\[}}[0, 2], [5, 7]]> : tensor<2x2xi64>
// CHECK:         nova.embedding %[[TABLE]][%[[AT0]]] : tensor<15x2xf32>, tensor<2x2xi64> -> tensor<2x2x2xf32>
// CHECK:         nova.constant dense<{{\[}}[1, 3], [6, 8]]> : tensor<2x2xi64>
// CHECK-COUNT-5: nova.compare gt
// CHECK:         nova.scatter_add %{{.*}} : tensor<30x1xf32>, tensor<8xi64>, tensor<8x1xf32> -> tensor<30x1xf32>
  "func.func"() <{function_type = (!torch.vtensor<[1,2,3,5],f32>) -> (!torch.vtensor<[1,2,3,5],f32>, !torch.vtensor<[],f32>), sym_name = "adaptive_max_pool2d_backward"}> ({
  ^bb0(%arg0: !torch.vtensor<[1,2,3,5],f32>):
    %0 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %1 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
    %3:2 = "torch.aten.adaptive_max_pool2d"(%arg0, %2) : (!torch.vtensor<[1,2,3,5],f32>, !torch.list<int>) -> (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,2,2],si64>)
    %4 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %5 = "torch.aten.pow.Tensor_Scalar"(%3#0, %4) : (!torch.vtensor<[1,2,2,2],f32>, !torch.int) -> !torch.vtensor<[1,2,2,2],f32>
    %6 = "torch.prim.ListConstruct"() : () -> !torch.list<int>
    %7 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %8 = "torch.constant.none"() : () -> !torch.none
    %9 = "torch.aten.sum.dim_IntList"(%5, %6, %7, %8) : (!torch.vtensor<[1,2,2,2],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[],f32>
    %10 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %11 = "torch.constant.none"() : () -> !torch.none
    %12 = "torch.constant.none"() : () -> !torch.none
    %13 = "torch.constant.none"() : () -> !torch.none
    %14 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %15 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %16 = "torch.aten.full_like"(%9, %10, %11, %12, %13, %14, %15) : (!torch.vtensor<[],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.int) -> !torch.vtensor<[],f32>
    %17 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
    %18 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %19 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %20 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
    %21 = "torch.prim.ListConstruct"(%17, %18, %19, %20) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
    %22 = "torch.constant.bool"() <{value = false}> : () -> !torch.bool
    %23 = "torch.aten.expand"(%16, %21, %22) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,2,2],f32>
    %24 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
    %25 = "torch.aten.pow.Tensor_Scalar"(%3#0, %24) : (!torch.vtensor<[1,2,2,2],f32>, !torch.float) -> !torch.vtensor<[1,2,2,2],f32>
    %26 = "torch.constant.float"() <{value = 2.000000e+00 : f64}> : () -> !torch.float
    %27 = "torch.aten.mul.Scalar"(%25, %26) : (!torch.vtensor<[1,2,2,2],f32>, !torch.float) -> !torch.vtensor<[1,2,2,2],f32>
    %28 = "torch.aten.mul.Tensor"(%23, %27) : (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,2,2],f32>) -> !torch.vtensor<[1,2,2,2],f32>
    %29 = "torch.operator"(%28, %arg0, %3#1) <{name = "torch.aten.adaptive_max_pool2d_backward"}> : (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,3,5],f32>, !torch.vtensor<[1,2,2,2],si64>) -> !torch.vtensor<[1,2,3,5],f32>
    "func.return"(%29, %9) : (!torch.vtensor<[1,2,3,5],f32>, !torch.vtensor<[],f32>) -> ()
  }) : () -> ()
}) : () -> ()
