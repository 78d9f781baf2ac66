// RUN: nova-opt %s | nova-opt | FileCheck %s

// Every nova op round-trips through its custom form.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %[[ADD:.*]] = nova.add %[[A]], %[[B]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[SUB:.*]] = nova.sub %[[ADD]], %[[B]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[MUL:.*]] = nova.mul %[[SUB]], %[[B]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[DIV:.*]] = nova.div %[[MUL]], %[[B]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[MAX:.*]] = nova.max %[[DIV]], %[[B]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[MIN:.*]] = nova.min %[[MAX]], %[[B]] : tensor<2x3xf32>
  // CHECK-NEXT: %[[POW:.*]] = nova.pow %[[MIN]], %[[B]] : tensor<2x3xf32>
  // CHECK-NEXT: return %[[POW]]
  %0 = nova.add %a, %b : tensor<2x3xf32>
  %1 = nova.sub %0, %b : tensor<2x3xf32>
  %2 = nova.mul %1, %b : tensor<2x3xf32>
  %3 = nova.div %2, %b : tensor<2x3xf32>
  %4 = nova.max %3, %b : tensor<2x3xf32>
  %5 = nova.min %4, %b : tensor<2x3xf32>
  %6 = nova.pow %5, %b : tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}

// Integer elementwise ops (all but pow take any element type).
// CHECK-LABEL: func.func @binary_int
func.func @binary_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: nova.add %{{.*}}, %{{.*}} : tensor<4xi32>
  // CHECK: nova.max %{{.*}}, %{{.*}} : tensor<4xi32>
  // CHECK: nova.abs %{{.*}} : tensor<4xi32>
  %0 = nova.add %a, %a : tensor<4xi32>
  %1 = nova.max %0, %a : tensor<4xi32>
  %2 = nova.abs %1 : tensor<4xi32>
  return %2 : tensor<4xi32>
}

// Types that differ (here only in static vs dynamic dims) print as a
// parenthesized list: operands, then the result.
// CHECK-LABEL: func.func @binary_mixed_types
func.func @binary_mixed_types(%a: tensor<?x3xf32>, %b: tensor<2x?xf32>) -> tensor<2x3xf32> {
  // CHECK: nova.add %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<2x?xf32>, tensor<2x3xf32>)
  %0 = nova.add %a, %b : (tensor<?x3xf32>, tensor<2x?xf32>, tensor<2x3xf32>)
  return %0 : tensor<2x3xf32>
}

// A parenthesized list whose types all agree prints in the short form.
// CHECK-LABEL: func.func @binary_redundant_list
func.func @binary_redundant_list(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: nova.sub %{{.*}}, %{{.*}} : tensor<4xf32>
  %0 = nova.sub %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
func.func @unary(%a: tensor<4xf32>) -> tensor<?xf32> {
  // CHECK-NEXT: %[[NEG:.*]] = nova.neg %[[A]] : tensor<4xf32>
  // CHECK-NEXT: %[[ABS:.*]] = nova.abs %[[NEG]] : tensor<4xf32>
  // CHECK-NEXT: %[[EXP:.*]] = nova.exp %[[ABS]] : tensor<4xf32>
  // CHECK-NEXT: %[[LOG:.*]] = nova.log %[[EXP]] : tensor<4xf32>
  // CHECK-NEXT: %[[TANH:.*]] = nova.tanh %[[LOG]] : tensor<4xf32>
  // CHECK-NEXT: %[[ERF:.*]] = nova.erf %[[TANH]] : tensor<4xf32>
  // CHECK-NEXT: %[[SQRT:.*]] = nova.sqrt %[[ERF]] : tensor<4xf32>
  // CHECK-NEXT: %[[RSQRT:.*]] = nova.rsqrt %[[SQRT]] : tensor<4xf32>
  // CHECK-NEXT: %[[RELU:.*]] = nova.relu %[[RSQRT]] : tensor<4xf32>
  // CHECK-NEXT: %[[SIG:.*]] = nova.sigmoid %[[RELU]] : tensor<4xf32>
  // CHECK-NEXT: %[[DYN:.*]] = nova.neg %[[SIG]] : (tensor<4xf32>, tensor<?xf32>)
  // CHECK-NEXT: return %[[DYN]]
  %0 = nova.neg %a : tensor<4xf32>
  %1 = nova.abs %0 : tensor<4xf32>
  %2 = nova.exp %1 : tensor<4xf32>
  %3 = nova.log %2 : tensor<4xf32>
  %4 = nova.tanh %3 : tensor<4xf32>
  %5 = nova.erf %4 : tensor<4xf32>
  %6 = nova.sqrt %5 : tensor<4xf32>
  %7 = nova.rsqrt %6 : tensor<4xf32>
  %8 = nova.relu %7 : tensor<4xf32>
  %9 = nova.sigmoid %8 : tensor<4xf32>
  %10 = nova.neg %9 : (tensor<4xf32>, tensor<?xf32>)
  return %10 : tensor<?xf32>
}

// `approximation = none` is the default and is not printed.
// CHECK-LABEL: func.func @gelu
func.func @gelu(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  // CHECK-NEXT: %[[EXACT:.*]] = nova.gelu %{{.*}} : tensor<4xbf16>
  // CHECK-NEXT: %[[TANH:.*]] = nova.gelu %[[EXACT]] approximation = tanh : tensor<4xbf16>
  // CHECK-NEXT: %[[NONE:.*]] = nova.gelu %[[TANH]] : tensor<4xbf16>
  // CHECK-NEXT: return %[[NONE]]
  %0 = nova.gelu %a : tensor<4xbf16>
  %1 = nova.gelu %0 approximation = tanh : tensor<4xbf16>
  %2 = nova.gelu %1 approximation = none : tensor<4xbf16>
  return %2 : tensor<4xbf16>
}

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  // CHECK-NEXT: nova.compare eq, %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  // CHECK-NEXT: nova.compare ne, %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  // CHECK-NEXT: nova.compare lt, %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  // CHECK-NEXT: nova.compare le, %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  // CHECK-NEXT: nova.compare gt, %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  // CHECK-NEXT: nova.compare ge, %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %0 = nova.compare eq, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %1 = nova.compare ne, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %2 = nova.compare lt, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %3 = nova.compare le, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %4 = nova.compare gt, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %5 = nova.compare ge, %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @compare_int
func.func @compare_int(%a: tensor<2x?xi64>, %b: tensor<2x3xi64>) -> tensor<2x3xi1> {
  // CHECK: nova.compare lt, %{{.*}}, %{{.*}} : tensor<2x?xi64>, tensor<2x3xi64> -> tensor<2x3xi1>
  %0 = nova.compare lt, %a, %b : tensor<2x?xi64>, tensor<2x3xi64> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<?xf32>)
func.func @select(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>, %d: tensor<?xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: nova.select %[[C]], %[[A]], %[[B]] : tensor<4xi1>, tensor<4xf32>
  // CHECK-NEXT: nova.select %[[C]], %[[A]], %[[D]] : tensor<4xi1>, (tensor<4xf32>, tensor<?xf32>, tensor<4xf32>)
  %0 = nova.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = nova.select %c, %a, %d : tensor<4xi1>, (tensor<4xf32>, tensor<?xf32>, tensor<4xf32>)
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @cast
func.func @cast(%a: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xbf16>, tensor<4xf32>) {
  // CHECK-NEXT: nova.cast %{{.*}} : tensor<4xf32> -> tensor<4xbf16>
  // CHECK-NEXT: nova.cast %{{.*}} : tensor<4xi64> -> tensor<4xf32>
  %0 = nova.cast %a : tensor<4xf32> -> tensor<4xbf16>
  %1 = nova.cast %i : tensor<4xi64> -> tensor<4xf32>
  return %0, %1 : tensor<4xbf16>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// nova.matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xbf16>, %[[B:.*]]: tensor<16x32xbf16>)
func.func @matmul(%a: tensor<8x16xbf16>, %b: tensor<16x32xbf16>) -> tensor<8x32xf32> {
  // CHECK-NEXT: nova.matmul %[[A]], %[[B]] : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xf32>
  %0 = nova.matmul %a, %b : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// nova.convolution: the hyperparameters are attributes (transposed and
// grouped convolutions are lhs_dilation and groups).
// CHECK-LABEL: func.func @convolution
func.func @convolution(%x: tensor<2x4x9x7xbf16>, %w: tensor<6x2x3x3xbf16>, %g: tensor<2x6x5x3xbf16>, %wt: tensor<4x3x3x3xbf16>) -> (tensor<2x6x5x3xbf16>, tensor<2x4x9x7xbf16>) {
  // CHECK-NEXT: nova.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 2 : i64, lhs_dilation = array<i64: 1, 1>, padding_high = array<i64: 1, 0>, padding_low = array<i64: 1, 0>, stride = array<i64: 2, 2>} : tensor<2x4x9x7xbf16>, tensor<6x2x3x3xbf16> -> tensor<2x6x5x3xbf16>
  %0 = nova.convolution %x, %w {stride = array<i64: 2, 2>, padding_low = array<i64: 1, 0>, padding_high = array<i64: 1, 0>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, groups = 2 : i64} : tensor<2x4x9x7xbf16>, tensor<6x2x3x3xbf16> -> tensor<2x6x5x3xbf16>
  // CHECK-NEXT: nova.convolution {{.*}} lhs_dilation = array<i64: 2, 2>
  %1 = nova.convolution %g, %wt {stride = array<i64: 1, 1>, padding_low = array<i64: 1, 2>, padding_high = array<i64: 1, 2>, dilation = array<i64: 1, 1>, lhs_dilation = array<i64: 2, 2>, groups = 2 : i64} : tensor<2x6x5x3xbf16>, tensor<4x3x3x3xbf16> -> tensor<2x4x9x7xbf16>
  return %0, %1 : tensor<2x6x5x3xbf16>, tensor<2x4x9x7xbf16>
}

// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%g: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // CHECK-NEXT: nova.all_reduce "mean" %{{.*}} : tensor<4x8xbf16>
  %0 = nova.all_reduce "mean" %g : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @random_uniform
func.func @random_uniform(%seed: tensor<i64>) -> tensor<4x8xf32> {
  // CHECK-NEXT: nova.random_uniform %{{.*}} stream = 3 : tensor<i64> -> tensor<4x8xf32>
  %0 = nova.random_uniform %seed stream = 3 : tensor<i64> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @matmul_layouts
func.func @matmul_layouts(%a: tensor<8x16xf32>, %at: tensor<16x8xf32>, %b: tensor<16x32xf32>, %bt: tensor<32x16xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) {
  // CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  // CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} {transpose_lhs} : tensor<16x8xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  // CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} {transpose_lhs, transpose_rhs} : tensor<16x8xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  %0 = nova.matmul %a, %bt {transpose_rhs} : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  %1 = nova.matmul %at, %b {transpose_lhs} : tensor<16x8xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %2 = nova.matmul %at, %bt {transpose_lhs, transpose_rhs} : tensor<16x8xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  return %0, %1, %2 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>
}

// CHECK-LABEL: func.func @matmul_batched
func.func @matmul_batched(%a: tensor<2x4x8x16xbf16>, %b: tensor<2x4x32x16xbf16>) -> tensor<2x4x8x32xbf16> {
  // CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<2x4x8x16xbf16>, tensor<2x4x32x16xbf16> -> tensor<2x4x8x32xbf16>
  %0 = nova.matmul %a, %b {transpose_rhs} : tensor<2x4x8x16xbf16>, tensor<2x4x32x16xbf16> -> tensor<2x4x8x32xbf16>
  return %0 : tensor<2x4x8x32xbf16>
}

// CHECK-LABEL: func.func @matmul_dynamic
func.func @matmul_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x32xf32> -> tensor<?x32xf32>
  %0 = nova.matmul %a, %b : tensor<?x?xf32>, tensor<?x32xf32> -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// CHECK-LABEL: func.func @matmul_lowering_config
func.func @matmul_lowering_config(%a: tensor<256x64xbf16>, %b: tensor<512x64xbf16>) -> tensor<256x512xf32> {
  // CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>, transpose_rhs} : tensor<256x64xbf16>, tensor<512x64xbf16> -> tensor<256x512xf32>
  %0 = nova.matmul %a, %b {transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128>} : tensor<256x64xbf16>, tensor<512x64xbf16> -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>)
func.func @reduce(%a: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>, tensor<2x3x4xf32>) {
  // CHECK-NEXT: nova.reduce_sum %[[A]] dims = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  // CHECK-NEXT: nova.reduce_max %[[A]] dims = [0, 2] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  // CHECK-NEXT: nova.reduce_mean %[[A]] dims = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: nova.reduce_sum %[[A]] dims = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  // CHECK-NEXT: nova.reduce_max %[[A]] dims = [] keepdim : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %0 = nova.reduce_sum %a dims = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %1 = nova.reduce_max %a dims = [0, 2] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %2 = nova.reduce_mean %a dims = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %3 = nova.reduce_sum %a dims = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  %4 = nova.reduce_max %a dims = [] keepdim : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>, tensor<2x3x4xf32>
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_in_dim
func.func @broadcast_in_dim(%s: tensor<3xf32>, %k: tensor<2x1xf32>, %c: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x5xf32>, tensor<4x?xf32>) {
  // CHECK-NEXT: nova.broadcast_in_dim %{{.*}} dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: nova.broadcast_in_dim %{{.*}} dims = [0, 1] : tensor<2x1xf32> -> tensor<2x5xf32>
  // CHECK-NEXT: nova.broadcast_in_dim %{{.*}} dims = [] : tensor<f32> -> tensor<4x?xf32>
  %0 = nova.broadcast_in_dim %s dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %1 = nova.broadcast_in_dim %k dims = [0, 1] : tensor<2x1xf32> -> tensor<2x5xf32>
  %2 = nova.broadcast_in_dim %c dims = [] : tensor<f32> -> tensor<4x?xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x5xf32>, tensor<4x?xf32>
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // CHECK-NEXT: nova.transpose %{{.*}} permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %0 = nova.transpose %a permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @reshape
func.func @reshape(%a: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  // CHECK-NEXT: nova.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK-NEXT: nova.reshape %{{.*}} : tensor<?x3xf32> -> tensor<3x2xf32>
  %0 = nova.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %1 = nova.reshape %d : tensor<?x3xf32> -> tensor<3x2xf32>
  return %0, %1 : tensor<6xf32>, tensor<3x2xf32>
}

// CHECK-LABEL: func.func @slice
func.func @slice(%a: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<f32>) {
  // CHECK-NEXT: nova.slice %{{.*}}[1:3:1, 0:8:3] : tensor<4x8xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: nova.slice %{{.*}}[] : tensor<f32> -> tensor<f32>
  %0 = nova.slice %a [1:3:1, 0:8:3] : tensor<4x8xf32> -> tensor<2x3xf32>
  %1 = nova.slice %s [] : tensor<f32> -> tensor<f32>
  return %0, %1 : tensor<2x3xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>)
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<2x11xf32>, tensor<4x3xf32>) {
  // CHECK-NEXT: nova.concat %[[A]], %[[B]], %[[A]] dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  // CHECK-NEXT: nova.concat %[[A]], %[[A]] dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %0 = nova.concat %a, %b, %a dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  %1 = nova.concat %a, %a dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<2x11xf32>, tensor<4x3xf32>
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<10x2xi32>)
func.func @gather(%t: tensor<10x4xf32>, %i: tensor<10x2xi32>) -> tensor<10x2xf32> {
  // CHECK-NEXT: nova.gather %[[T]][%[[I]]] dim = 1 : tensor<10x4xf32>, tensor<10x2xi32> -> tensor<10x2xf32>
  %0 = nova.gather %t[%i] dim = 1 : tensor<10x4xf32>, tensor<10x2xi32> -> tensor<10x2xf32>
  return %0 : tensor<10x2xf32>
}

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xbf16>, %[[I:.*]]: tensor<2x3xi64>)
func.func @embedding(%t: tensor<10x4xbf16>, %i: tensor<2x3xi64>) -> tensor<2x3x4xbf16> {
  // CHECK-NEXT: nova.embedding %[[T]][%[[I]]] : tensor<10x4xbf16>, tensor<2x3xi64> -> tensor<2x3x4xbf16>
  %0 = nova.embedding %t[%i] : tensor<10x4xbf16>, tensor<2x3xi64> -> tensor<2x3x4xbf16>
  return %0 : tensor<2x3x4xbf16>
}

// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[U:.*]]: tensor<2x3x4xf32>)
func.func @scatter_add(%t: tensor<10x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3x4xf32>) -> tensor<10x4xf32> {
  // CHECK-NEXT: nova.scatter_add %[[T]][%[[I]]], %[[U]] : tensor<10x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32> -> tensor<10x4xf32>
  %0 = nova.scatter_add %t[%i], %u : tensor<10x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32> -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

//===----------------------------------------------------------------------===//
// Composite ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @softmax
func.func @softmax(%a: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  // CHECK-NEXT: nova.softmax %{{.*}} dim = 1 : tensor<2x8xf32>
  // CHECK-NEXT: nova.log_softmax %{{.*}} dim = 0 : tensor<2x8xf32>
  %0 = nova.softmax %a dim = 1 : tensor<2x8xf32>
  %1 = nova.log_softmax %a dim = 0 : tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>, %[[W2:.*]]: tensor<4x8xf32>)
func.func @layer_norm(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>, %w2: tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  // CHECK-NEXT: nova.layer_norm %[[X]] {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  // CHECK-NEXT: nova.layer_norm %[[X]] weight(%[[W]] : tensor<8xf32>) bias(%[[B]] : tensor<8xf32>) {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  // CHECK-NEXT: nova.layer_norm %[[X]] weight(%[[W]] : tensor<8xf32>) {epsilon = 0.000000e+00 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  // CHECK-NEXT: nova.layer_norm %[[X]] bias(%[[B]] : tensor<8xf32>) {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  // CHECK-NEXT: nova.layer_norm %[[X]] weight(%[[W2]] : tensor<4x8xf32>) {epsilon = 2.500000e-01 : f64, normalized_rank = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %0 = nova.layer_norm %x {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %1 = nova.layer_norm %x weight(%w : tensor<8xf32>) bias(%b : tensor<8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %2 = nova.layer_norm %x weight(%w : tensor<8xf32>) {epsilon = 0.0 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %3 = nova.layer_norm %x bias(%b : tensor<8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %4 = nova.layer_norm %x weight(%w2 : tensor<4x8xf32>) {epsilon = 0.25 : f64, normalized_rank = 2 : i64} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x16xbf16>, %[[K:.*]]: tensor<2x4x8x16xbf16>, %[[V:.*]]: tensor<2x4x8x32xbf16>, %[[M:.*]]: tensor<8x8xf32>)
func.func @attention(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x8x16xbf16>, %v: tensor<2x4x8x32xbf16>, %m: tensor<8x8xf32>) -> (tensor<2x4x8x32xbf16>, tensor<2x4x8xf32>, tensor<2x4x8x32xbf16>) {
  // CHECK-NEXT: %[[OUT:.*]], %[[LSE:.*]] = nova.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 2.500000e-01 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x32xbf16> -> tensor<2x4x8x32xbf16>, tensor<2x4x8xf32>
  // CHECK-NEXT: nova.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<8x8xf32>) {scale = 1.000000e+00 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x32xbf16> -> tensor<2x4x8x32xbf16>, tensor<2x4x8xf32>
  %out, %lse = nova.attention %q, %k, %v {causal, scale = 0.25 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x32xbf16> -> tensor<2x4x8x32xbf16>, tensor<2x4x8xf32>
  %out2, %lse2 = nova.attention %q, %k, %v mask(%m : tensor<8x8xf32>) {scale = 1.0 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x32xbf16> -> tensor<2x4x8x32xbf16>, tensor<2x4x8xf32>
  return %out, %lse, %out2 : tensor<2x4x8x32xbf16>, tensor<2x4x8xf32>, tensor<2x4x8x32xbf16>
}

// Cross attention (Tq != Tk) over one batch dim.
// CHECK-LABEL: func.func @attention_backward
// CHECK-SAME: (%[[DO:.*]]: tensor<3x5x8xf32>, %[[Q:.*]]: tensor<3x5x4xf32>, %[[K:.*]]: tensor<3x7x4xf32>, %[[V:.*]]: tensor<3x7x8xf32>, %[[O:.*]]: tensor<3x5x8xf32>, %[[L:.*]]: tensor<3x5xf32>, %[[M:.*]]: tensor<3x1x7xf32>)
func.func @attention_backward(%do: tensor<3x5x8xf32>, %q: tensor<3x5x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x8xf32>, %o: tensor<3x5x8xf32>, %l: tensor<3x5xf32>, %m: tensor<3x1x7xf32>) -> (tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x8xf32>) {
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = nova.attention_backward %[[DO]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[L]] mask(%[[M]] : tensor<3x1x7xf32>) {scale = 5.000000e-01 : f64} : tensor<3x5x8xf32>, tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x8xf32>, tensor<3x5x8xf32>, tensor<3x5xf32> -> tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x8xf32>
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %l mask(%m : tensor<3x1x7xf32>) {scale = 0.5 : f64} : tensor<3x5x8xf32>, tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x8xf32>, tensor<3x5x8xf32>, tensor<3x5xf32> -> tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x8xf32>
  return %dq, %dk, %dv : tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x8xf32>
}

//===----------------------------------------------------------------------===//
// Cross-entropy
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[X:.*]]: tensor<6x10xbf16>, %[[T:.*]]: tensor<6xi64>, %[[G:.*]]: tensor<6xf32>)
func.func @cross_entropy(%x: tensor<6x10xbf16>, %t: tensor<6xi64>, %g: tensor<6xf32>) -> (tensor<6xf32>, tensor<6x10xbf16>) {
  // CHECK-NEXT: %[[LOSS:.*]], %[[LSE:.*]] = nova.cross_entropy %[[X]], %[[T]] {ignore_index = -100 : i64} : tensor<6x10xbf16>, tensor<6xi64> -> tensor<6xf32>, tensor<6xf32>
  // CHECK-NEXT: nova.cross_entropy_backward %[[G]], %[[X]], %[[T]], %[[LSE]] {ignore_index = -100 : i64} : tensor<6xf32>, tensor<6x10xbf16>, tensor<6xi64>, tensor<6xf32> -> tensor<6x10xbf16>
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<6x10xbf16>, tensor<6xi64> -> tensor<6xf32>, tensor<6xf32>
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<6xf32>, tensor<6x10xbf16>, tensor<6xi64>, tensor<6xf32> -> tensor<6x10xbf16>
  return %loss, %dx : tensor<6xf32>, tensor<6x10xbf16>
}

// CHECK-LABEL: func.func @cross_entropy_with_grad
// CHECK-SAME: (%[[X:.*]]: tensor<6x10xbf16>, %[[T:.*]]: tensor<6xi64>, %[[G:.*]]: tensor<6xf32>)
func.func @cross_entropy_with_grad(%x: tensor<6x10xbf16>, %t: tensor<6xi64>, %g: tensor<6xf32>) -> (tensor<6xf32>, tensor<6x10xbf16>) {
  // CHECK-NEXT: %[[LOSS:.*]], %{{.*}}, %[[DX:.*]] = nova.cross_entropy_with_grad %[[X]], %[[T]], %[[G]] {ignore_index = -100 : i64} : tensor<6x10xbf16>, tensor<6xi64>, tensor<6xf32> -> tensor<6xf32>, tensor<6xf32>, tensor<6x10xbf16>
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<6x10xbf16>, tensor<6xi64>, tensor<6xf32> -> tensor<6xf32>, tensor<6xf32>, tensor<6x10xbf16>
  return %loss, %dx : tensor<6xf32>, tensor<6x10xbf16>
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<2x3xf32>, tensor<3xi64>, tensor<bf16>) {
  // CHECK-NEXT: nova.constant dense<1.000000e+00> : tensor<2x3xf32>
  // CHECK-NEXT: nova.constant dense<[1, 2, 3]> : tensor<3xi64>
  // CHECK-NEXT: nova.constant dense<5.000000e-01> : tensor<bf16>
  %0 = nova.constant dense<1.0> : tensor<2x3xf32>
  %1 = nova.constant dense<[1, 2, 3]> : tensor<3xi64>
  %2 = nova.constant dense<0.5> : tensor<bf16>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3xi64>, tensor<bf16>
}

// CHECK-LABEL: func.func @iota
func.func @iota() -> (tensor<2x3xi64>, tensor<4xf32>) {
  // CHECK-NEXT: nova.iota dim = 1 : tensor<2x3xi64>
  // CHECK-NEXT: nova.iota dim = 0 : tensor<4xf32>
  %0 = nova.iota dim = 1 : tensor<2x3xi64>
  %1 = nova.iota dim = 0 : tensor<4xf32>
  return %0, %1 : tensor<2x3xi64>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// nova.fused / nova.yield
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
func.func @fused(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = nova.fused(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>):
  // CHECK-NEXT:   %[[S:.*]] = nova.add %[[X]], %[[Y]] : tensor<4xf32>
  // CHECK-NEXT:   %[[E:.*]] = nova.exp %[[S]] : tensor<4xf32>
  // CHECK-NEXT:   nova.yield %[[S]], %[[E]] : tensor<4xf32>, tensor<4xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  %0:2 = nova.fused(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = nova.add %x, %y : tensor<4xf32>
    %e = nova.exp %s : tensor<4xf32>
    nova.yield %s, %e : tensor<4xf32>, tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// A fused matmul carries its lowering config; an empty body's `nova.yield`
// is implicit.
// CHECK-LABEL: func.func @fused_config
func.func @fused_config(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) -> tensor<128x256xf32> {
  // CHECK-NEXT: nova.fused(%{{.*}}, %{{.*}}) {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [1, 1], mma_shape = [64, 256, 16], pipeline_stages = 3, swizzle = 64>} : (tensor<128x64xbf16>, tensor<64x256xbf16>) -> tensor<128x256xf32> {
  // CHECK:        nova.matmul
  // CHECK-NEXT:   nova.relu
  // CHECK-NEXT:   nova.yield
  // CHECK-NEXT: }
  // CHECK-NEXT: nova.fused() : () -> () {
  // CHECK-NEXT: }
  %0 = nova.fused(%a, %b) {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [1, 1], mma_shape = [64, 256, 16], pipeline_stages = 3, swizzle = 64>} : (tensor<128x64xbf16>, tensor<64x256xbf16>) -> tensor<128x256xf32> {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x256xbf16>):
    %m = nova.matmul %x, %y : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
    %r = nova.relu %m : tensor<128x256xf32>
    nova.yield %r : tensor<128x256xf32>
  }
  nova.fused() : () -> () {
  }
  return %0 : tensor<128x256xf32>
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @sgd
// CHECK-SAME: (%[[P:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4x8xf32>, %[[LR:.*]]: tensor<f32>, %[[MO:.*]]: tensor<f32>, %[[D:.*]]: tensor<f32>, %[[WD:.*]]: tensor<f32>, %[[FS:.*]]: tensor<f32>)
func.func @sgd(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %lr: tensor<f32>, %mo: tensor<f32>, %d: tensor<f32>, %wd: tensor<f32>, %fs: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NEXT: %[[P1:.*]], %[[M1:.*]] = nova.sgd %[[P]], %[[G]], %[[M]] lr(%[[LR]]) momentum(%[[MO]]) dampening(%[[D]]) weight_decay(%[[WD]]) first_step(%[[FS]]) : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}}, %{{.*}} = nova.sgd %[[P1]], %[[G]], %[[M1]] lr(%[[LR]]) momentum(%[[MO]]) dampening(%[[D]]) weight_decay(%[[WD]]) first_step(%[[FS]]) {nesterov} : tensor<4x8xf32>
  %0:2 = nova.sgd %p, %g, %m lr(%lr) momentum(%mo) dampening(%d) weight_decay(%wd) first_step(%fs) : tensor<4x8xf32>
  %1:2 = nova.sgd %0#0, %g, %0#1 lr(%lr) momentum(%mo) dampening(%d) weight_decay(%wd) first_step(%fs) {nesterov} : tensor<4x8xf32>
  return %1#0, %1#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// The verifier requires all five types to be equal, so the parenthesized
// list is only legal when it repeats one type; it prints in the short form.
// CHECK-LABEL: func.func @sgd_type_list
func.func @sgd_type_list(%p: tensor<4xf32>, %s: tensor<f32>) {
  // CHECK-NEXT: nova.sgd {{.*}} first_step(%{{.*}}) : tensor<4xf32>{{$}}
  %0:2 = nova.sgd %p, %p, %p lr(%s) momentum(%s) dampening(%s) weight_decay(%s) first_step(%s) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// CHECK-LABEL: func.func @adamw
// CHECK-SAME: (%[[P:.*]]: tensor<16xbf16>, %[[G:.*]]: tensor<16xbf16>, %[[M:.*]]: tensor<16xbf16>, %[[V:.*]]: tensor<16xbf16>, %[[T:.*]]: tensor<f32>, %[[LR:.*]]: tensor<f32>, %[[B1:.*]]: tensor<f32>, %[[B2:.*]]: tensor<f32>, %[[E:.*]]: tensor<f32>, %[[WD:.*]]: tensor<f32>)
func.func @adamw(%p: tensor<16xbf16>, %g: tensor<16xbf16>, %m: tensor<16xbf16>, %v: tensor<16xbf16>, %t: tensor<f32>, %lr: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %e: tensor<f32>, %wd: tensor<f32>) -> (tensor<16xbf16>, tensor<16xbf16>, tensor<16xbf16>) {
  // CHECK-NEXT: %[[P1:.*]], %[[M1:.*]], %[[V1:.*]] = nova.adamw %[[P]], %[[G]], %[[M]], %[[V]] step(%[[T]]) lr(%[[LR]]) betas(%[[B1]], %[[B2]]) eps(%[[E]]) weight_decay(%[[WD]]) : tensor<16xbf16>
  // CHECK-NEXT: return %[[P1]], %[[M1]], %[[V1]]
  %0:3 = nova.adamw %p, %g, %m, %v step(%t) lr(%lr) betas(%b1, %b2) eps(%e) weight_decay(%wd) : tensor<16xbf16>
  return %0#0, %0#1, %0#2 : tensor<16xbf16>, tensor<16xbf16>, tensor<16xbf16>
}
