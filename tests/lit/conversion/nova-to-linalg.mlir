// RUN: nova-opt %s --split-input-file --convert-nova-to-linalg | FileCheck %s
// RUN: nova-opt %s --split-input-file --convert-nova-to-linalg --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Binary float ops: one all-parallel generic each.
// CHECK-LABEL: func.func @binary_f32
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK:         arith.addf
// CHECK:       linalg.generic
// CHECK:         arith.subf
// CHECK:       linalg.generic
// CHECK:         arith.mulf
// CHECK:       linalg.generic
// CHECK:         arith.divf
// CHECK:       linalg.generic
// CHECK:         arith.maximumf
// CHECK:       linalg.generic
// CHECK:         arith.minimumf
// CHECK:       linalg.generic
// CHECK:         math.powf
// CHECK-NOT:   nova.
func.func @binary_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nova.add %a, %b : tensor<2x3xf32>
  %1 = nova.sub %0, %b : tensor<2x3xf32>
  %2 = nova.mul %1, %b : tensor<2x3xf32>
  %3 = nova.div %2, %b : tensor<2x3xf32>
  %4 = nova.max %3, %b : tensor<2x3xf32>
  %5 = nova.min %4, %b : tensor<2x3xf32>
  %6 = nova.pow %5, %b : tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}

// Unary float ops; relu is a NaN-propagating max with 0, sigmoid 1/(1+e^-x).
// CHECK-LABEL: func.func @unary_f32
// CHECK:       arith.negf
// CHECK:       math.absf
// CHECK:       math.exp
// CHECK:       math.log
// CHECK:       math.tanh
// CHECK:       math.erf
// CHECK:       math.sqrt
// CHECK:       math.rsqrt
// CHECK:       %[[ZERO:[[:alnum:]_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  arith.maximumf %{{.+}}, %[[ZERO]] : f32
// CHECK:       %[[ONE:[[:alnum:]_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:  %[[NEG:[[:alnum:]_]+]] = arith.negf
// CHECK-NEXT:  %[[EXP:[[:alnum:]_]+]] = math.exp %[[NEG]]
// CHECK-NEXT:  %[[DEN:[[:alnum:]_]+]] = arith.addf %[[ONE]], %[[EXP]]
// CHECK-NEXT:  arith.divf %[[ONE]], %[[DEN]]
func.func @unary_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nova.neg %x : tensor<4xf32>
  %1 = nova.abs %0 : tensor<4xf32>
  %2 = nova.exp %1 : tensor<4xf32>
  %3 = nova.log %2 : tensor<4xf32>
  %4 = nova.tanh %3 : tensor<4xf32>
  %5 = nova.erf %4 : tensor<4xf32>
  %6 = nova.sqrt %5 : tensor<4xf32>
  %7 = nova.rsqrt %6 : tensor<4xf32>
  %8 = nova.relu %7 : tensor<4xf32>
  %9 = nova.sigmoid %8 : tensor<4xf32>
  return %9 : tensor<4xf32>
}

// Rounding to TF32: +0x1000 on the bits, then the 13 low mantissa bits cleared.
// CHECK-LABEL: func.func @round_tf32
// CHECK:       linalg.generic
// CHECK:       %[[BITS:[[:alnum:]_]+]] = arith.bitcast %{{.+}} : f32 to i32
// CHECK-DAG:   %[[MASK:[[:alnum:]_-]+]] = arith.constant -8192 : i32
// CHECK-DAG:   %[[HALF:[[:alnum:]_]+]] = arith.constant 4096 : i32
// CHECK:       %[[UP:[[:alnum:]_]+]] = arith.addi %[[BITS]], %[[HALF]] : i32
// CHECK-NEXT:  %[[CUT:[[:alnum:]_]+]] = arith.andi %[[UP]], %[[MASK]] : i32
// CHECK-NEXT:  arith.bitcast %[[CUT]] : i32 to f32
func.func @round_tf32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nova.round_tf32 %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// bf16 arithmetic computes in f32 and rounds once; max is exact in bf16.
// CHECK-LABEL: func.func @bf16_opmath
// CHECK:       ^bb0(%[[A:[[:alnum:]_]+]]: bf16, %[[B:[[:alnum:]_]+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:    %[[AF:[[:alnum:]_]+]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT:    %[[BF:[[:alnum:]_]+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT:    %[[S:[[:alnum:]_]+]] = arith.addf %[[AF]], %[[BF]] : f32
// CHECK-NEXT:    %[[T:[[:alnum:]_]+]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT:    linalg.yield %[[T]] : bf16
// CHECK:       ^bb0(%[[C:[[:alnum:]_]+]]: bf16, %[[D:[[:alnum:]_]+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:    %[[M:[[:alnum:]_]+]] = arith.maximumf %[[C]], %[[D]] : bf16
// CHECK-NEXT:    linalg.yield %[[M]] : bf16
func.func @bf16_opmath(%a: tensor<8xbf16>, %b: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = nova.add %a, %b : tensor<8xbf16>
  %1 = nova.max %0, %b : tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// Integer variants.
// CHECK-LABEL: func.func @integer
// CHECK:       arith.addi
// CHECK:       arith.muli
// CHECK:       arith.divsi
// CHECK:       arith.maxsi
// CHECK:       arith.minsi
// CHECK:       %[[Z:[[:alnum:]_]+]] = arith.constant 0 : i32
// CHECK-NEXT:  arith.subi %[[Z]], %{{.+}} : i32
// CHECK:       math.absi
// CHECK:       arith.maxsi
func.func @integer(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = nova.add %a, %b : tensor<4xi32>
  %1 = nova.mul %0, %b : tensor<4xi32>
  %2 = nova.div %1, %b : tensor<4xi32>
  %3 = nova.max %2, %b : tensor<4xi32>
  %4 = nova.min %3, %b : tensor<4xi32>
  %5 = nova.neg %4 : tensor<4xi32>
  %6 = nova.abs %5 : tensor<4xi32>
  %7 = nova.relu %6 : tensor<4xi32>
  return %7 : tensor<4xi32>
}

// Float compares are ordered except `ne`; bool orderings are unsigned.
// CHECK-LABEL: func.func @compare_select
// CHECK:       arith.cmpf olt
// CHECK:       arith.cmpf une
// CHECK:       arith.cmpi sge
// CHECK:       arith.cmpi ult
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         arith.select
func.func @compare_select(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi64>, %p: tensor<4xi1>)
    -> (tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %lt = nova.compare lt, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %ne = nova.compare ne, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %ge = nova.compare ge, %i, %i : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
  %bl = nova.compare lt, %p, %p : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  %s = nova.select %lt, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %s, %ne, %ge, %bl : tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @cast
// CHECK:       arith.extf %{{.+}} : bf16 to f32
// CHECK:       arith.truncf %{{.+}} : f32 to bf16
// CHECK:       arith.extf %{{.+}} : bf16 to f32
// CHECK-NEXT:  arith.truncf %{{.+}} : f32 to f16
// CHECK:       arith.uitofp %{{.+}} : i1 to f32
// CHECK:       arith.sitofp %{{.+}} : i64 to f32
// CHECK:       arith.fptosi %{{.+}} : f32 to i32
// CHECK:       arith.cmpf une
// CHECK:       arith.extsi %{{.+}} : i32 to i64
// CHECK:       arith.extui %{{.+}} : i1 to i32
// CHECK:       arith.trunci %{{.+}} : i64 to i32
// CHECK:       arith.cmpi ne
func.func @cast(%h: tensor<4xbf16>, %f: tensor<4xf32>, %p: tensor<4xi1>, %l: tensor<4xi64>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>,
        tensor<4xi1>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>) {
  %0 = nova.cast %h : tensor<4xbf16> -> tensor<4xf32>
  %1 = nova.cast %f : tensor<4xf32> -> tensor<4xbf16>
  %2 = nova.cast %h : tensor<4xbf16> -> tensor<4xf16>
  %3 = nova.cast %p : tensor<4xi1> -> tensor<4xf32>
  %4 = nova.cast %l : tensor<4xi64> -> tensor<4xf32>
  %5 = nova.cast %f : tensor<4xf32> -> tensor<4xi32>
  %6 = nova.cast %f : tensor<4xf32> -> tensor<4xi1>
  %7 = nova.cast %i : tensor<4xi32> -> tensor<4xi64>
  %8 = nova.cast %p : tensor<4xi1> -> tensor<4xi32>
  %9 = nova.cast %l : tensor<4xi64> -> tensor<4xi32>
  %10 = nova.cast %i : tensor<4xi32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>
}

// -----

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

// CHECK-DAG: #[[MK:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KN:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[KM:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[BMK:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BNK:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[BMN:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_nn
// CHECK:       %[[ZERO:[[:alnum:]_]+]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[INIT:[[:alnum:]_]+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<8x32xf32>)
// CHECK:       linalg.generic {indexing_maps = [#[[MK]], #[[KN]], #[[MN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:    outs(%[[INIT]] : tensor<8x32xf32>)
// CHECK:       ^bb0(%[[L:[[:alnum:]_]+]]: f32, %[[R:[[:alnum:]_]+]]: f32, %[[ACC:[[:alnum:]_]+]]: f32):
// CHECK-NEXT:    %[[P:[[:alnum:]_]+]] = arith.mulf %[[L]], %[[R]] : f32
// CHECK-NEXT:    %[[S:[[:alnum:]_]+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:    linalg.yield %[[S]] : f32
func.func @matmul_nn(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %0 = nova.matmul %a, %b : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// Batched, rhs stored [b, n, k], bf16 x bf16 -> f32: operands extend in the body.
// CHECK-LABEL: func.func @matmul_batched_nt_bf16
// CHECK:       linalg.generic {indexing_maps = [#[[BMK]], #[[BNK]], #[[BMN]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:    ins(%{{.+}}, %{{.+}} : tensor<4x8x16xbf16>, tensor<4x32x16xbf16>) outs(%{{.+}} : tensor<4x8x32xf32>)
// CHECK:       ^bb0(%[[L:[[:alnum:]_]+]]: bf16, %[[R:[[:alnum:]_]+]]: bf16, %[[ACC:[[:alnum:]_]+]]: f32):
// CHECK-NEXT:    %[[LF:[[:alnum:]_]+]] = arith.extf %[[L]] : bf16 to f32
// CHECK-NEXT:    %[[RF:[[:alnum:]_]+]] = arith.extf %[[R]] : bf16 to f32
// CHECK-NEXT:    %[[P:[[:alnum:]_]+]] = arith.mulf %[[LF]], %[[RF]] : f32
// CHECK-NEXT:    arith.addf %[[ACC]], %[[P]] : f32
func.func @matmul_batched_nt_bf16(%a: tensor<4x8x16xbf16>, %b: tensor<4x32x16xbf16>) -> tensor<4x8x32xf32> {
  %0 = nova.matmul %a, %b {transpose_rhs} : tensor<4x8x16xbf16>, tensor<4x32x16xbf16> -> tensor<4x8x32xf32>
  return %0 : tensor<4x8x32xf32>
}

// lhs stored [k, m]; a bf16 result accumulates in f32 and is truncated after.
// CHECK-LABEL: func.func @matmul_tn_bf16_result
// CHECK:       %[[ACC:[[:alnum:]_]+]] = linalg.generic {indexing_maps = [#[[KM]], #[[KN]], #[[MN]]]
// CHECK-SAME:    outs(%{{.+}} : tensor<8x32xf32>)
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[ACC]] : tensor<8x32xf32>) outs(%{{.+}} : tensor<8x32xbf16>)
// CHECK:         arith.truncf
func.func @matmul_tn_bf16_result(%a: tensor<16x8xbf16>, %b: tensor<16x32xbf16>) -> tensor<8x32xbf16> {
  %0 = nova.matmul %a, %b {transpose_lhs} : tensor<16x8xbf16>, tensor<16x32xbf16> -> tensor<8x32xbf16>
  return %0 : tensor<8x32xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// A bf16 sum accumulates in f32 from a zero fill, then truncates; keepdim is
// an expand_shape.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT1:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[OUT0:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum_bf16_keepdim
// CHECK:       %[[ZERO:[[:alnum:]_]+]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[INIT:[[:alnum:]_]+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<3xf32>)
// CHECK:       %[[SUM:[[:alnum:]_]+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT1]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME:    ins(%{{.+}} : tensor<2x3x4xbf16>) outs(%[[INIT]] : tensor<3xf32>)
// CHECK:       ^bb0(%[[X:[[:alnum:]_]+]]: bf16, %[[A:[[:alnum:]_]+]]: f32):
// CHECK-NEXT:    %[[XF:[[:alnum:]_]+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:    arith.addf %[[A]], %[[XF]] : f32
// CHECK:       %[[NARROW:[[:alnum:]_]+]] = linalg.generic
// CHECK-SAME:    ins(%[[SUM]] : tensor<3xf32>) outs(%{{.+}} : tensor<3xbf16>)
// CHECK:         arith.truncf
// CHECK:       tensor.expand_shape %[[NARROW]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xbf16> into tensor<1x3x1xbf16>
func.func @reduce_sum_bf16_keepdim(%a: tensor<2x3x4xbf16>) -> tensor<1x3x1xbf16> {
  %0 = nova.reduce_sum %a dims = [0, 2] keepdim : tensor<2x3x4xbf16> -> tensor<1x3x1xbf16>
  return %0 : tensor<1x3x1xbf16>
}

// Max starts from -inf and stays in the element type.
// CHECK-LABEL: func.func @reduce_max
// CHECK:       %[[NINF:[[:alnum:]_]+]] = arith.constant 0xFF800000 : f32
// CHECK:       linalg.fill ins(%[[NINF]] : f32)
// CHECK:       linalg.generic {indexing_maps = [#{{.+}}, #[[OUT0]]], iterator_types = ["parallel", "reduction"]}
// CHECK:         arith.maximumf
// CHECK-NOT:   linalg.generic
// CHECK:       return
func.func @reduce_max(%a: tensor<5x7xf32>) -> tensor<5xf32> {
  %0 = nova.reduce_max %a dims = [1] : tensor<5x7xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// CHECK-LABEL: func.func @reduce_max_int
// CHECK:       arith.constant -2147483648 : i32
// CHECK:       arith.maxsi
func.func @reduce_max_int(%a: tensor<5x7xi32>) -> tensor<5xi32> {
  %0 = nova.reduce_max %a dims = [1] : tensor<5x7xi32> -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// Mean over everything: 0-d accumulator, divide by the count (24), then
// expand to all-unit dims.
// CHECK-LABEL: func.func @reduce_mean_all
// CHECK:       linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction"]
// CHECK-SAME:    outs(%{{.+}} : tensor<f32>)
// CHECK:       linalg.generic {{.*}} iterator_types = []
// CHECK:         %[[N:[[:alnum:]_]+]] = arith.constant 2.400000e+01 : f32
// CHECK-NEXT:    arith.divf %{{.+}}, %[[N]] : f32
// CHECK-NEXT:    arith.truncf %{{.+}} : f32 to bf16
// CHECK:       tensor.expand_shape %{{.+}} [] output_shape [1, 1, 1] : tensor<bf16> into tensor<1x1x1xbf16>
func.func @reduce_mean_all(%a: tensor<2x3x4xbf16>) -> tensor<1x1x1xbf16> {
  %0 = nova.reduce_mean %a dims = [0, 1, 2] keepdim : tensor<2x3x4xbf16> -> tensor<1x1x1xbf16>
  return %0 : tensor<1x1x1xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

// New dims are dropped from the operand's map; an expanding unit dim reads 0.
// CHECK-DAG: #[[BCAST:.+]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[PERM:.+]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK:       linalg.generic {indexing_maps = [#[[BCAST]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:    ins(%{{.+}} : tensor<1x4xf32>) outs(%{{.+}} : tensor<3x5x4xf32>)
// CHECK:       linalg.generic {indexing_maps = [#[[ROW]], #{{.+}}]
// CHECK-SAME:    ins(%{{.+}} : tensor<3xf32>) outs(%{{.+}} : tensor<3x4xf32>)
func.func @broadcast_in_dim(%a: tensor<1x4xf32>, %b: tensor<3xf32>) -> (tensor<3x5x4xf32>, tensor<3x4xf32>) {
  %0 = nova.broadcast_in_dim %a dims = [0, 2] : tensor<1x4xf32> -> tensor<3x5x4xf32>
  %1 = nova.broadcast_in_dim %b dims = [0] : tensor<3xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<3x5x4xf32>, tensor<3x4xf32>
}

// result[i, j, k] = input[j, k, i] for permutation [2, 0, 1].
// CHECK-LABEL: func.func @transpose
// CHECK:       linalg.generic {indexing_maps = [#[[PERM]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:    ins(%{{.+}} : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<4x2x3xf32>)
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = nova.transpose %a permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// Pure collapse / expand in one op; otherwise through the 1-D view.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME:  (%[[A:[[:alnum:]_]+]]: tensor<2x3x4xf32>, %[[S:[[:alnum:]_]+]]: tensor<1x1xf32>)
// CHECK:       tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK:       tensor.expand_shape %[[A]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 1, 4]
// CHECK:       %[[FLAT:[[:alnum:]_]+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:       tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK:       tensor.collapse_shape %[[S]] [] : tensor<1x1xf32> into tensor<f32>
func.func @reshape(%a: tensor<2x3x4xf32>, %s: tensor<1x1xf32>)
    -> (tensor<6x4xf32>, tensor<2x3x1x4xf32>, tensor<4x6xf32>, tensor<f32>) {
  %0 = nova.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = nova.reshape %a : tensor<2x3x4xf32> -> tensor<2x3x1x4xf32>
  %2 = nova.reshape %a : tensor<2x3x4xf32> -> tensor<4x6xf32>
  %3 = nova.reshape %s : tensor<1x1xf32> -> tensor<f32>
  return %0, %1, %2, %3 : tensor<6x4xf32>, tensor<2x3x1x4xf32>, tensor<4x6xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @slice_concat
// CHECK:       tensor.extract_slice %{{.+}}[0, 1] [2, 2] [1, 2] : tensor<2x5xf32> to tensor<2x2xf32>
// CHECK:       tensor.concat dim(1) %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
func.func @slice_concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x8xf32>) {
  %0 = nova.slice %b [0:2:1, 1:5:2] : tensor<2x5xf32> -> tensor<2x2xf32>
  %1 = nova.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[LEAD:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME:  (%[[X:[[:alnum:]_]+]]: tensor<3x5xf32>, %[[I:[[:alnum:]_]+]]: tensor<3x2xi64>)
// CHECK:       linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:    ins(%[[I]] : tensor<3x2xi64>) outs(%{{.+}} : tensor<3x2xf32>)
// CHECK:       ^bb0(%[[IDX:[[:alnum:]_]+]]: i64, %{{.+}}: f32):
// CHECK-NEXT:    %[[ROW:[[:alnum:]_]+]] = linalg.index 0 : index
// CHECK-NEXT:    %[[COL:[[:alnum:]_]+]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK-NEXT:    %[[V:[[:alnum:]_]+]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<3x5xf32>
// CHECK-NEXT:    linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = nova.gather %x[%i] dim = 1 : tensor<3x5xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @embedding
// CHECK-SAME:  (%[[T:[[:alnum:]_]+]]: tensor<10x4xf32>, %[[I:[[:alnum:]_]+]]: tensor<2x3xi32>)
// CHECK:       linalg.generic {indexing_maps = [#[[LEAD]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:    ins(%[[I]] : tensor<2x3xi32>) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK:       ^bb0(%[[IDX:[[:alnum:]_]+]]: i32, %{{.+}}: f32):
// CHECK-NEXT:    %[[R:[[:alnum:]_]+]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK-NEXT:    %[[C:[[:alnum:]_]+]] = linalg.index 2 : index
// CHECK-NEXT:    tensor.extract %[[T]][%[[R]], %[[C]]] : tensor<10x4xf32>
func.func @embedding(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %0 = nova.embedding %t[%i] : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// IREE's scatter with non-unique indices and an explicit index depth of 1,
// into a fresh zero tensor (never into an argument: IREE would overwrite the
// caller's buffer); dest is added after.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME:  (%[[D:[[:alnum:]_]+]]: tensor<10x4xf32>, %[[I:[[:alnum:]_]+]]: tensor<2x3xi64>, %[[U:[[:alnum:]_]+]]: tensor<2x3x4xf32>)
// CHECK:       %[[I1:[[:alnum:]_]+]] = tensor.expand_shape %[[I]] {{\[}}[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xi64> into tensor<2x3x1xi64>
// CHECK:       %[[ZERO:[[:alnum:]_]+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<10x4xf32>)
// CHECK:       %[[SUMS:[[:alnum:]_]+]] = "iree_linalg_ext.scatter"(%[[U]], %[[I1]], %[[ZERO]]) <{dimension_map = array<i64: 0>, unique_indices = false}> ({
// CHECK-NEXT:  ^bb0(%[[NEW:[[:alnum:]_]+]]: f32, %[[OLD:[[:alnum:]_]+]]: f32):
// CHECK-NEXT:    %[[S:[[:alnum:]_]+]] = arith.addf %[[NEW]], %[[OLD]] : f32
// CHECK-NEXT:    "iree_linalg_ext.yield"(%[[S]]) : (f32) -> ()
// CHECK-NEXT:  }) : (tensor<2x3x4xf32>, tensor<2x3x1xi64>, tensor<10x4xf32>) -> tensor<10x4xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[D]], %[[SUMS]] : tensor<10x4xf32>, tensor<10x4xf32>)
// CHECK:         arith.addf
func.func @scatter_add(%d: tensor<10x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3x4xf32>) -> tensor<10x4xf32> {
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32> -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// A single (0-d) index still gets one batch dim; a zero dest adds nothing.
// CHECK-LABEL: func.func @scatter_add_single_into_zeros
// CHECK-DAG:   tensor.expand_shape %{{.+}} [] output_shape [1, 1] : tensor<i32> into tensor<1x1xi32>
// CHECK-DAG:   tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [1, 4] : tensor<4xi32> into tensor<1x4xi32>
// CHECK:       %[[R:[[:alnum:]_]+]] = "iree_linalg_ext.scatter"
// CHECK:         arith.addi
// CHECK-NOT:   linalg.generic
// CHECK:       return %[[R]]
func.func @scatter_add_single_into_zeros(%i: tensor<i32>, %u: tensor<4xi32>) -> tensor<10x4xi32> {
  %d = nova.constant dense<0> : tensor<10x4xi32>
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xi32>, tensor<i32>, tensor<4xi32> -> tensor<10x4xi32>
  return %0 : tensor<10x4xi32>
}

// bf16 rows accumulate in bf16 (an extf producer would break IREE's CPU
// codegen of the scatter); adding dest computes in f32 and rounds once.
// CHECK-LABEL: func.func @scatter_add_bf16
// CHECK:       "iree_linalg_ext.scatter"
// CHECK:         arith.addf %{{.+}}, %{{.+}} : bf16
// CHECK:       }) : (tensor<6x4xbf16>, tensor<6x1xi64>, tensor<10x4xbf16>) -> tensor<10x4xbf16>
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.+}} : tensor<10x4xbf16>)
// CHECK:         arith.extf %{{.+}} : bf16 to f32
// CHECK-NEXT:    arith.extf %{{.+}} : bf16 to f32
// CHECK-NEXT:    arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    arith.truncf %{{.+}} : f32 to bf16
func.func @scatter_add_bf16(%d: tensor<10x4xbf16>, %i: tensor<6xi64>, %u: tensor<6x4xbf16>) -> tensor<10x4xbf16> {
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xbf16>, tensor<6xi64>, tensor<6x4xbf16> -> tensor<10x4xbf16>
  return %0 : tensor<10x4xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Constants, fused regions, composite ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant_iota
// CHECK:       arith.constant dense<1.000000e+00> : tensor<2x8xf32>
// CHECK:       linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<3x4xi32>)
// CHECK-NEXT:  ^bb0(%{{.+}}: i32):
// CHECK-NEXT:    %[[J:[[:alnum:]_]+]] = linalg.index 1 : index
// CHECK-NEXT:    %[[J32:[[:alnum:]_]+]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:    linalg.yield %[[J32]] : i32
func.func @constant_iota() -> (tensor<2x8xf32>, tensor<3x4xi32>) {
  %c = nova.constant dense<1.0> : tensor<2x8xf32>
  %i = nova.iota dim = 1 : tensor<3x4xi32>
  return %c, %i : tensor<2x8xf32>, tensor<3x4xi32>
}

// The body of nova.fused is inlined and lowered in place.
// CHECK-LABEL: func.func @fused
// CHECK-SAME:  (%[[X:[[:alnum:]_]+]]: tensor<8xf32>, %[[Y:[[:alnum:]_]+]]: tensor<8xf32>)
// CHECK-NOT:   nova.
// CHECK:       %[[M:[[:alnum:]_]+]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<8xf32>, tensor<8xf32>)
// CHECK:         arith.mulf
// CHECK:       %[[E:[[:alnum:]_]+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8xf32>)
// CHECK:         math.exp
// CHECK:       return %[[E]]
func.func @fused(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = nova.fused (%x, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %m = nova.mul %a, %b : tensor<8xf32>
    %e = nova.exp %m : tensor<8xf32>
    nova.yield %e : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// Softmax decomposes first: max, subtract, exp, sum, divide.
// CHECK-LABEL: func.func @softmax
// CHECK:       arith.maximumf
// CHECK:       arith.subf
// CHECK:       math.exp
// CHECK:       arith.addf
// CHECK:       arith.divf
// CHECK-NOT:   nova.
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = nova.softmax %x dim = 1 : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

// One generic, three results; hyperparameters are 0-d through the empty map.
// CHECK-DAG: #[[P:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[H:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[P1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[H1:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @adamw
// CHECK:       %{{.+}}:3 = linalg.generic {indexing_maps = [#[[P]], #[[P]], #[[P]], #[[P]], #[[H]], #[[H]], #[[H]], #[[H]], #[[H]], #[[H]], #[[P]], #[[P]], #[[P]]], iterator_types = ["parallel", "parallel"]}
// CHECK:       ^bb0(%[[PARAM:[[:alnum:]_]+]]: f32, %[[GRAD:[[:alnum:]_]+]]: f32, %[[M:[[:alnum:]_]+]]: f32, %[[V:[[:alnum:]_]+]]: f32, %[[STEP:[[:alnum:]_]+]]: f32, %[[LR:[[:alnum:]_]+]]: f32, %[[B1:[[:alnum:]_]+]]: f32, %[[B2:[[:alnum:]_]+]]: f32, %[[EPS:[[:alnum:]_]+]]: f32, %[[WD:[[:alnum:]_]+]]: f32,
// The bias corrections 1 - beta^t, then AdamwOp::buildElementUpdate.
// CHECK:         math.powf %[[B1]], %[[STEP]]
// CHECK:         math.powf %[[B2]], %[[STEP]]
// CHECK:         %[[ONE:[[:alnum:]_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[LRWD:[[:alnum:]_]+]] = arith.mulf %[[LR]], %[[WD]]
// CHECK-NEXT:    %[[KEEP:[[:alnum:]_]+]] = arith.subf %[[ONE]], %[[LRWD]]
// CHECK-NEXT:    %[[DECAYED:[[:alnum:]_]+]] = arith.mulf %[[PARAM]], %[[KEEP]]
// CHECK:         math.sqrt
// CHECK:         math.sqrt
// CHECK:         %[[NEWP:[[:alnum:]_]+]] = arith.subf %[[DECAYED]], %{{.+}} : f32
// CHECK-NEXT:    linalg.yield %[[NEWP]], %{{.+}}, %{{.+}} : f32, f32, f32
func.func @adamw(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>,
                 %step: tensor<f32>, %lr: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0:3 = nova.adamw %p, %g, %m, %v step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<4x8xf32>
  return %0#0, %0#1, %0#2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// bf16 parameters update in f32; the first step takes the gradient as the
// buffer; momentum 0 uses the gradient directly.
// CHECK-LABEL: func.func @sgd_nesterov_bf16
// CHECK:       %{{.+}}:2 = linalg.generic {indexing_maps = [#[[P1]], #[[P1]], #[[P1]], #[[H1]], #[[H1]], #[[H1]], #[[H1]], #[[H1]], #[[P1]], #[[P1]]], iterator_types = ["parallel"]}
// CHECK:       ^bb0(%[[PARAM:[[:alnum:]_]+]]: bf16, %[[GRAD:[[:alnum:]_]+]]: bf16, %[[BUF:[[:alnum:]_]+]]: bf16, %[[LR:[[:alnum:]_]+]]: f32, %[[MOM:[[:alnum:]_]+]]: f32, %[[DAMP:[[:alnum:]_]+]]: f32, %[[WD:[[:alnum:]_]+]]: f32, %[[FIRST:[[:alnum:]_]+]]: f32,
// CHECK-DAG:     %[[PF:[[:alnum:]_]+]] = arith.extf %[[PARAM]] : bf16 to f32
// CHECK-DAG:     %[[GF:[[:alnum:]_]+]] = arith.extf %[[GRAD]] : bf16 to f32
// CHECK:         %[[WDP:[[:alnum:]_]+]] = arith.mulf %[[WD]], %[[PF]]
// CHECK-NEXT:    %[[G:[[:alnum:]_]+]] = arith.addf %[[GF]], %[[WDP]]
// CHECK-NEXT:    %[[IS_FIRST:[[:alnum:]_]+]] = arith.cmpf une, %[[FIRST]]
// CHECK:         %[[NEWBUF:[[:alnum:]_]+]] = arith.select %[[IS_FIRST]], %[[G]], %{{.+}} : f32
// CHECK-NEXT:    %[[MB:[[:alnum:]_]+]] = arith.mulf %[[MOM]], %[[NEWBUF]]
// CHECK-NEXT:    %[[NEST:[[:alnum:]_]+]] = arith.addf %[[G]], %[[MB]]
// CHECK-NEXT:    %[[NOMOM:[[:alnum:]_]+]] = arith.cmpf oeq, %[[MOM]]
// CHECK-NEXT:    %[[DIR:[[:alnum:]_]+]] = arith.select %[[NOMOM]], %[[G]], %[[NEST]]
// CHECK-NEXT:    %[[STEP:[[:alnum:]_]+]] = arith.mulf %[[LR]], %[[DIR]]
// CHECK-NEXT:    %[[NEWP:[[:alnum:]_]+]] = arith.subf %[[PF]], %[[STEP]]
// CHECK-NEXT:    %[[NEWPB:[[:alnum:]_]+]] = arith.truncf %[[NEWP]] : f32 to bf16
// CHECK-NEXT:    %[[NEWBUFB:[[:alnum:]_]+]] = arith.truncf %[[NEWBUF]] : f32 to bf16
// CHECK-NEXT:    linalg.yield %[[NEWPB]], %[[NEWBUFB]] : bf16, bf16
func.func @sgd_nesterov_bf16(%p: tensor<16xbf16>, %g: tensor<16xbf16>, %b: tensor<16xbf16>, %lr: tensor<f32>,
                             %mom: tensor<f32>, %damp: tensor<f32>, %wd: tensor<f32>, %first: tensor<f32>)
    -> (tensor<16xbf16>, tensor<16xbf16>) {
  %0:2 = nova.sgd %p, %g, %b lr(%lr) momentum(%mom) dampening(%damp) weight_decay(%wd) first_step(%first) {nesterov} : tensor<16xbf16>
  return %0#0, %0#1 : tensor<16xbf16>, tensor<16xbf16>
}

// -----

// The generic form is what IREE reads: plain linalg.generic and the
// unregistered IREE scatter with its properties.
// GENERIC-LABEL: sym_name = "generic_form"
// GENERIC:       "linalg.generic"(%{{.+}}, %{{.+}}) <{indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}>
// GENERIC:       "iree_linalg_ext.scatter"(%{{.+}}, %{{.+}}, %{{.+}}) <{dimension_map = array<i64: 0>, unique_indices = false}>
func.func @generic_form(%d: tensor<10x4xf32>, %i: tensor<6xi64>, %u: tensor<6x4xf32>) -> (tensor<10x4xf32>, tensor<10x4xf32>) {
  %0 = nova.exp %d : tensor<10x4xf32>
  %1 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<6xi64>, tensor<6x4xf32> -> tensor<10x4xf32>
  return %0, %1 : tensor<10x4xf32>, tensor<10x4xf32>
}

// -----

// cumsum: a reduction loop k next to the result's loops, adding input[k]
// where k <= i; bf16 accumulates in f32 and is rounded once after.
// CHECK-DAG:   #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum_bf16
// CHECK:         %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x5xf32>)
// CHECK:         %[[SUMS:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x5xbf16>) outs(%[[ZERO]] : tensor<2x5xf32>)
// CHECK:           %[[I:.+]] = linalg.index 1 : index
// CHECK:           %[[K:.+]] = linalg.index 2 : index
// CHECK:           %[[IN_PREFIX:.+]] = arith.cmpi ule, %[[K]], %[[I]] : index
// CHECK:           %[[X:.+]] = arith.extf
// CHECK:           %[[SUM:.+]] = arith.addf %{{.+}}, %[[X]] : f32
// CHECK:           arith.select %[[IN_PREFIX]], %[[SUM]], %{{.+}} : f32
// CHECK:         linalg.generic {{.+}} ins(%[[SUMS]] : tensor<2x5xf32>) outs(%{{.+}} : tensor<2x5xbf16>)
// CHECK:           arith.truncf
func.func @cumsum_bf16(%x: tensor<2x5xbf16>) -> tensor<2x5xbf16> {
  %0 = nova.cumsum %x dim = 1 : tensor<2x5xbf16>
  return %0 : tensor<2x5xbf16>
}

// -----

// reverse extracts index size-1-i along the reversed dims.
// CHECK-LABEL: func.func @reverse
// CHECK:         linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<2x5xf32>)
// CHECK:           %[[I:.+]] = linalg.index 0 : index
// CHECK:           %[[J:.+]] = linalg.index 1 : index
// CHECK:           %[[LAST:.+]] = arith.constant 4 : index
// CHECK:           %[[R:.+]] = arith.subi %[[LAST]], %[[J]] : index
// CHECK:           tensor.extract %arg0[%[[I]], %[[R]]] : tensor<2x5xf32>
func.func @reverse(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = nova.reverse %x dims = [1] : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// A suffix sum adds input[k] where k >= i.
// CHECK-LABEL: func.func @cumsum_reverse_i64
// CHECK:         linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<6xi64>)
// CHECK:           arith.cmpi uge
// CHECK:           arith.addi
func.func @cumsum_reverse_i64(%x: tensor<6xi64>) -> tensor<6xi64> {
  %0 = nova.cumsum %x dim = 0 reverse : tensor<6xi64>
  return %0 : tensor<6xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Convolution and random numbers
//===----------------------------------------------------------------------===//

// A grouped, padded, strided convolution: the input is inserted into a zero
// tensor (the padding), input and weight get a group dim, and one generic
// over (n, g, f, oh, ow, c, kh, kw) reads the input at oh + kh, ow * 2 + kw,
// accumulating bf16 products in f32.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 * 2 + d7)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @convolution_grouped_padded
// CHECK:         %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : bf16) outs(%{{.+}} : tensor<2x4x6x7xbf16>)
// CHECK:         %[[PADDED:.+]] = tensor.insert_slice %{{.+}} into %[[ZERO]][0, 0, 1, 1] [2, 4, 5, 5] [1, 1, 1, 1]
// CHECK:         %[[X:.+]] = tensor.expand_shape %[[PADDED]] {{\[}}[0], [1, 2], [3], [4]] {{.*}} into tensor<2x2x2x6x7xbf16>
// CHECK:         %[[K:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2], [3], [4]] {{.*}} into tensor<2x3x2x3x3xbf16>
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x2x3x4x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[K]] : {{.*}}) outs(%[[ACC]] : tensor<2x2x3x4x3xf32>)
// CHECK:           arith.extf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         arith.truncf
// CHECK:         tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x4x3xbf16> into tensor<2x6x4x3xbf16>
func.func @convolution_grouped_padded(%x: tensor<2x4x5x5xbf16>, %w: tensor<6x2x3x3xbf16>) -> tensor<2x6x4x3xbf16> {
  %0 = nova.convolution %x, %w {stride = array<i64: 1, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 0, 1>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = 2 : i64} : tensor<2x4x5x5xbf16>, tensor<6x2x3x3xbf16> -> tensor<2x6x4x3xbf16>
  return %0 : tensor<2x6x4x3xbf16>
}

// -----

// A transposed convolution: the input dilated by 2 (inserted with stride 2),
// the kernel dilated by 2 in the window index.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + d5 * 2)>
// CHECK-LABEL: func.func @convolution_transposed
// CHECK:         tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1] [1, 2, 3] [1, 1, 2] : tensor<1x2x3xf32> into tensor<1x2x7xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], {{.*}} outs(%{{.+}} : tensor<1x1x3x5xf32>)
func.func @convolution_transposed(%g: tensor<1x2x3xf32>, %w: tensor<3x2x2xf32>) -> tensor<1x3x5xf32> {
  %0 = nova.convolution %g, %w {stride = array<i64: 1>, padding_low = array<i64: 1>, padding_high = array<i64: 1>, dilation = array<i64: 2>, lhs_dilation = array<i64: 2>, groups = 1 : i64} : tensor<1x2x3xf32>, tensor<3x2x2xf32> -> tensor<1x3x5xf32>
  return %0 : tensor<1x3x5xf32>
}

// -----

// Each element hashes its row-major index + 1 with the seed and the stream's
// key (3 * 0xD1B54A32D192ED03 wrapped) through splitmix64's finalizer; the
// top 24 bits become the float.
// CHECK-LABEL: func.func @random_uniform
// CHECK:         linalg.generic {{.*}} ins(%{{.+}} : tensor<i64>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK:           linalg.index 1
// CHECK:           linalg.index 0
// CHECK:           arith.constant 8 : i64
// CHECK:           arith.xori %{{.+}}, %{{.+}} : i64
// CHECK:           arith.constant -7046029254386353131 : i64
// CHECK:           arith.constant 30 : i64
// CHECK:           arith.shrui
// CHECK:           arith.constant 27 : i64
// CHECK:           arith.constant 31 : i64
// CHECK:           arith.constant 40 : i64
// CHECK:           arith.uitofp %{{.+}} : i64 to f32
// CHECK:           arith.constant 5.96046448E-8 : f32
func.func @random_uniform(%seed: tensor<i64>) -> tensor<4x8xf32> {
  %0 = nova.random_uniform %seed stream = 3 : tensor<i64> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
