// RUN: nova-opt %s --mlir-print-op-generic | nova-opt | FileCheck %s
// RUN: nova-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Every nova op prints in the generic form and parses back from it.

// CHECK-LABEL: func.func @elementwise
// GENERIC-LABEL: sym_name = "elementwise"
func.func @elementwise(%a: tensor<4xf32>, %b: tensor<?xf32>, %c: tensor<4xi1>) {
  // CHECK-NEXT: nova.add %{{.*}}, %{{.*}} : tensor<4xf32>
  // CHECK-NEXT: nova.sub %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<?xf32>, tensor<4xf32>)
  // CHECK-NEXT: nova.mul
  // CHECK-NEXT: nova.div
  // CHECK-NEXT: nova.max
  // CHECK-NEXT: nova.min
  // CHECK-NEXT: nova.pow
  // CHECK-NEXT: nova.neg
  // CHECK-NEXT: nova.abs
  // CHECK-NEXT: nova.exp
  // CHECK-NEXT: nova.log
  // CHECK-NEXT: nova.tanh
  // CHECK-NEXT: nova.erf
  // CHECK-NEXT: nova.sqrt
  // CHECK-NEXT: nova.rsqrt
  // CHECK-NEXT: nova.relu
  // CHECK-NEXT: nova.sigmoid
  // CHECK-NEXT: nova.gelu %{{.*}} : tensor<4xf32>
  // CHECK-NEXT: nova.gelu %{{.*}} approximation = tanh : tensor<4xf32>
  // CHECK-NEXT: nova.compare eq, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  // CHECK-NEXT: nova.compare ge, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<?xf32> -> tensor<4xi1>
  // CHECK-NEXT: nova.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
  // CHECK-NEXT: nova.cast %{{.*}} : tensor<4xf32> -> tensor<4xf16>

  // GENERIC:      "nova.add"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // GENERIC-NEXT: "nova.sub"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<?xf32>) -> tensor<4xf32>
  // GENERIC:      "nova.gelu"(%{{.*}}) <{approximation = #nova<gelu_approximation none>}> : (tensor<4xf32>) -> tensor<4xf32>
  // GENERIC-NEXT: "nova.gelu"(%{{.*}}) <{approximation = #nova<gelu_approximation tanh>}> : (tensor<4xf32>) -> tensor<4xf32>
  // GENERIC-NEXT: "nova.compare"(%{{.*}}, %{{.*}}) <{direction = #nova<compare_direction eq>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // GENERIC-NEXT: "nova.compare"(%{{.*}}, %{{.*}}) <{direction = #nova<compare_direction ge>}> : (tensor<4xf32>, tensor<?xf32>) -> tensor<4xi1>
  // GENERIC-NEXT: "nova.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // GENERIC-NEXT: "nova.cast"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf16>
  %0 = nova.add %a, %a : tensor<4xf32>
  %1 = nova.sub %a, %b : (tensor<4xf32>, tensor<?xf32>, tensor<4xf32>)
  %2 = nova.mul %a, %a : tensor<4xf32>
  %3 = nova.div %a, %a : tensor<4xf32>
  %4 = nova.max %a, %a : tensor<4xf32>
  %5 = nova.min %a, %a : tensor<4xf32>
  %6 = nova.pow %a, %a : tensor<4xf32>
  %7 = nova.neg %a : tensor<4xf32>
  %8 = nova.abs %a : tensor<4xf32>
  %9 = nova.exp %a : tensor<4xf32>
  %10 = nova.log %a : tensor<4xf32>
  %11 = nova.tanh %a : tensor<4xf32>
  %12 = nova.erf %a : tensor<4xf32>
  %13 = nova.sqrt %a : tensor<4xf32>
  %14 = nova.rsqrt %a : tensor<4xf32>
  %15 = nova.relu %a : tensor<4xf32>
  %16 = nova.sigmoid %a : tensor<4xf32>
  %17 = nova.gelu %a : tensor<4xf32>
  %18 = nova.gelu %a approximation = tanh : tensor<4xf32>
  %19 = nova.compare eq, %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %20 = nova.compare ge, %a, %b : tensor<4xf32>, tensor<?xf32> -> tensor<4xi1>
  %21 = nova.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>
  %22 = nova.cast %a : tensor<4xf32> -> tensor<4xf16>
  return
}

// CHECK-LABEL: func.func @matmul
// GENERIC-LABEL: sym_name = "matmul"
func.func @matmul(%a: tensor<2x16x8xbf16>, %b: tensor<2x32x16xbf16>) -> tensor<2x8x32xf32> {
  // CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} {lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 2, swizzle = 32>, transpose_lhs, transpose_rhs} : tensor<2x16x8xbf16>, tensor<2x32x16xbf16> -> tensor<2x8x32xf32>
  // GENERIC: "nova.matmul"(%{{.*}}, %{{.*}}) <{lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 2, swizzle = 32>, transpose_lhs, transpose_rhs}> : (tensor<2x16x8xbf16>, tensor<2x32x16xbf16>) -> tensor<2x8x32xf32>
  %0 = nova.matmul %a, %b {transpose_lhs, transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 2, swizzle = 32>} : tensor<2x16x8xbf16>, tensor<2x32x16xbf16> -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// CHECK-LABEL: func.func @shapes
// GENERIC-LABEL: sym_name = "shapes"
func.func @shapes(%a: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<f32>) {
  // CHECK-NEXT: nova.reduce_sum %{{.*}} dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK-NEXT: nova.reduce_max %{{.*}} dims = [0] keepdim : tensor<2x3xf32> -> tensor<1x3xf32>
  // CHECK-NEXT: nova.reduce_mean %{{.*}} dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  // CHECK-NEXT: nova.broadcast_in_dim %{{.*}} dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: nova.transpose %{{.*}} permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK-NEXT: nova.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK-NEXT: nova.slice %{{.*}}[0:2:1, 1:3:2] : tensor<2x3xf32> -> tensor<2x1xf32>
  // CHECK-NEXT: nova.slice %{{.*}}[] : tensor<f32> -> tensor<f32>
  // CHECK-NEXT: nova.concat %{{.*}}, %{{.*}} dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>

  // GENERIC:      "nova.reduce_sum"(%{{.*}}) <{dims = array<i64: 1>}>
  // GENERIC-NEXT: "nova.reduce_max"(%{{.*}}) <{dims = array<i64: 0>, keepdim}>
  // GENERIC:      "nova.slice"(%{{.*}}) <{limit = array<i64: 2, 3>, start = array<i64: 0, 1>, stride = array<i64: 1, 2>}>
  // GENERIC-NEXT: "nova.slice"(%{{.*}}) <{limit = array<i64>, start = array<i64>, stride = array<i64>}>
  // GENERIC-NEXT: "nova.concat"(%{{.*}}, %{{.*}}) <{dim = 0 : i64}>
  %0 = nova.reduce_sum %a dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = nova.reduce_max %a dims = [0] keepdim : tensor<2x3xf32> -> tensor<1x3xf32>
  %2 = nova.reduce_mean %a dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %3 = nova.broadcast_in_dim %s dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %4 = nova.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %5 = nova.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %6 = nova.slice %a [0:2:1, 1:3:2] : tensor<2x3xf32> -> tensor<2x1xf32>
  %7 = nova.slice %z [] : tensor<f32> -> tensor<f32>
  %8 = nova.concat %a, %a dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// CHECK-LABEL: func.func @indexing
// GENERIC-LABEL: sym_name = "indexing"
func.func @indexing(%t: tensor<10x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3x4xf32>, %gi: tensor<10x2xi32>) {
  // CHECK-NEXT: nova.gather %{{.*}}[%{{.*}}] dim = 1 : tensor<10x4xf32>, tensor<10x2xi32> -> tensor<10x2xf32>
  // CHECK-NEXT: nova.embedding %{{.*}}[%{{.*}}] : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  // CHECK-NEXT: nova.scatter_add %{{.*}}[%{{.*}}], %{{.*}} : tensor<10x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32> -> tensor<10x4xf32>
  // GENERIC: "nova.gather"(%{{.*}}, %{{.*}}) <{dim = 1 : i64}>
  %0 = nova.gather %t[%gi] dim = 1 : tensor<10x4xf32>, tensor<10x2xi32> -> tensor<10x2xf32>
  %1 = nova.embedding %t[%i] : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  %2 = nova.scatter_add %t[%i], %u : tensor<10x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32> -> tensor<10x4xf32>
  return
}

// CHECK-LABEL: func.func @composite
// GENERIC-LABEL: sym_name = "composite"
func.func @composite(%a: tensor<2x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) {
  // CHECK-NEXT: nova.softmax %{{.*}} dim = 1 : tensor<2x8xf32>
  // CHECK-NEXT: nova.log_softmax %{{.*}} dim = 1 : tensor<2x8xf32>
  // CHECK-NEXT: nova.layer_norm %{{.*}} {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64}
  // CHECK-NEXT: nova.layer_norm %{{.*}} weight(%{{.*}} : tensor<8xf32>) bias(%{{.*}} : tensor<8xf32>) {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64}
  // CHECK-NEXT: nova.layer_norm %{{.*}} bias(%{{.*}} : tensor<8xf32>) {epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64}
  // The optional operands are tracked by operandSegmentSizes.
  // GENERIC:      "nova.layer_norm"(%{{.*}}) <{epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}>
  // GENERIC-NEXT: "nova.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>}>
  // GENERIC-NEXT: "nova.layer_norm"(%{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 1>}>
  %0 = nova.softmax %a dim = 1 : tensor<2x8xf32>
  %1 = nova.log_softmax %a dim = 1 : tensor<2x8xf32>
  %2 = nova.layer_norm %a {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = nova.layer_norm %a weight(%w : tensor<8xf32>) bias(%b : tensor<8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = nova.layer_norm %a bias(%b : tensor<8xf32>) {epsilon = 1.0e-05 : f64, normalized_rank = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// CHECK-LABEL: func.func @constants
// GENERIC-LABEL: sym_name = "constants"
func.func @constants() {
  // CHECK-NEXT: nova.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT: nova.iota dim = 1 : tensor<2x3xi64>
  // GENERIC:      "nova.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  // GENERIC-NEXT: "nova.iota"() <{dim = 1 : i64}> : () -> tensor<2x3xi64>
  %0 = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = nova.iota dim = 1 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @fused
// GENERIC-LABEL: sym_name = "fused"
func.func @fused(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: nova.fused(%{{.*}}) {lowering_config = #nova.lowering_config<tile_sizes = [16, 16, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 1, swizzle = 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>):
  // CHECK-NEXT:   nova.exp
  // CHECK-NEXT:   nova.yield %{{.*}} : tensor<4xf32>
  // CHECK-NEXT: }
  // GENERIC:      "nova.fused"(%{{.*}}) <{lowering_config = #nova.lowering_config<{{.*}}>}> ({
  // GENERIC-NEXT: ^bb0(%{{.*}}: tensor<4xf32>):
  // GENERIC-NEXT:   "nova.exp"
  // GENERIC-NEXT:   "nova.yield"(%{{.*}}) : (tensor<4xf32>) -> ()
  // GENERIC-NEXT: }) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = nova.fused(%a) {lowering_config = #nova.lowering_config<tile_sizes = [16, 16, 16], warp_layout = [1, 1], mma_shape = [16, 8, 16], pipeline_stages = 1, swizzle = 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = nova.exp %x : tensor<4xf32>
    nova.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @optimizers
// GENERIC-LABEL: sym_name = "optimizers"
func.func @optimizers(%p: tensor<4xf32>, %s: tensor<f32>) {
  // CHECK-NEXT: nova.sgd {{.*}} first_step(%{{.*}}) {nesterov} : tensor<4xf32>
  // CHECK-NEXT: nova.adamw {{.*}} weight_decay(%{{.*}}) : tensor<4xf32>
  // GENERIC:      "nova.sgd"(%{{.*}}) <{nesterov}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  // GENERIC-NEXT: "nova.adamw"(%{{.*}}) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %0:2 = nova.sgd %p, %p, %p lr(%s) momentum(%s) dampening(%s) weight_decay(%s) first_step(%s) {nesterov} : tensor<4xf32>
  %1:3 = nova.adamw %p, %p, %p, %p step(%s) lr(%s) betas(%s, %s) eps(%s) weight_decay(%s) : tensor<4xf32>
  return
}
