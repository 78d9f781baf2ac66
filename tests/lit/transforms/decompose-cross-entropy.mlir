// RUN: nova-opt %s --nova-decompose-cross-entropy --split-input-file | FileCheck %s

// The forward: an f32 log-sum-exp over the classes, the target's logit
// gathered (ignored rows read class 0) and a loss of 0 on ignored rows.
// CHECK-LABEL: func.func @forward
// CHECK-DAG: %[[IGNORE:.+]] = nova.constant dense<-100> : tensor<6xi64>
// CHECK:     %[[X:.+]] = nova.cast %arg0 : tensor<6x10xbf16> -> tensor<6x10xf32>
// CHECK:     %[[MAX:.+]] = nova.reduce_max %[[X]] dims = [1] : tensor<6x10xf32> -> tensor<6xf32>
// CHECK:     nova.exp
// CHECK:     %[[SUM:.+]] = nova.reduce_sum {{.*}} dims = [1] : tensor<6x10xf32> -> tensor<6xf32>
// CHECK:     %[[LOG:.+]] = nova.log %[[SUM]]
// CHECK:     %[[LSE:.+]] = nova.add %[[MAX]], %[[LOG]]
// CHECK:     %[[VALID:.+]] = nova.compare ne, %arg1, %[[IGNORE]]
// CHECK:     nova.gather %[[X]][{{.*}}] dim = 1 : tensor<6x10xf32>, tensor<6x1xi64> -> tensor<6x1xf32>
// CHECK:     %[[LOSS:.+]] = nova.select %[[VALID]]
// CHECK:     return %[[LOSS]], %[[LSE]]
func.func @forward(%x: tensor<6x10xbf16>, %t: tensor<6xi64>) -> (tensor<6xf32>, tensor<6xf32>) {
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<6x10xbf16>, tensor<6xi64> -> tensor<6xf32>, tensor<6xf32>
  return %loss, %lse : tensor<6xf32>, tensor<6xf32>
}

// -----

// The backward: g (0 on ignored rows) times softmax minus the one-hot
// target, rounded to the logits' type.
// CHECK-LABEL: func.func @backward
// CHECK:     %[[P:.+]] = nova.exp
// CHECK:     %[[IOTA:.+]] = nova.iota dim = 1 : tensor<6x10xi32>
// CHECK:     %[[HIT:.+]] = nova.compare eq, %[[IOTA]], %{{.+}} : tensor<6x10xi32>
// CHECK:     %[[ONEHOT:.+]] = nova.select %[[HIT]]
// CHECK:     %[[G:.+]] = nova.select %{{.+}}, %arg0, %{{.+}} : tensor<6xi1>, tensor<6xf32>
// CHECK:     %[[DIFF:.+]] = nova.sub %[[P]], %[[ONEHOT]]
// CHECK:     %[[GB:.+]] = nova.broadcast_in_dim %[[G]] dims = [0]
// CHECK:     %[[GRAD:.+]] = nova.mul %[[GB]], %[[DIFF]]
// CHECK:     nova.cast %[[GRAD]] : tensor<6x10xf32> -> tensor<6x10xf16>
func.func @backward(%g: tensor<6xf32>, %x: tensor<6x10xf16>, %t: tensor<6xi32>, %lse: tensor<6xf32>) -> tensor<6x10xf16> {
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = 3} : tensor<6xf32>, tensor<6x10xf16>, tensor<6xi32>, tensor<6xf32> -> tensor<6x10xf16>
  return %dx : tensor<6x10xf16>
}

// -----

// An op configured for Nova's row kernel is kept.
// CHECK-LABEL: func.func @configured
// CHECK: nova.cross_entropy
func.func @configured(%x: tensor<6x16xbf16>, %t: tensor<6xi64>) -> tensor<6xf32> {
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100, lowering_config = #nova.lowering_config<tile_sizes = [1, 8, 1], warp_layout = [1, 1], mma_shape = [1, 1, 1], pipeline_stages = 1, swizzle = 0, kernel = "cross_entropy_rows", precision = "bf16">} : tensor<6x16xbf16>, tensor<6xi64> -> tensor<6xf32>, tensor<6xf32>
  return %loss : tensor<6xf32>
}

// -----

// A fused pair without a kernel is the forward and the backward again, each
// decomposed: one f32 log-sum-exp, its lse read by the gradient.
// CHECK-LABEL: func.func @with_grad
// CHECK-NOT: nova.cross_entropy
// CHECK:     %[[MAX:.+]] = nova.reduce_max
// CHECK:     %[[LSE:.+]] = nova.add %[[MAX]],
// CHECK:     nova.broadcast_in_dim %[[LSE]]
// CHECK:     nova.iota
// CHECK-NOT: nova.cross_entropy
func.func @with_grad(%x: tensor<6x10xf32>, %t: tensor<6xi64>, %g: tensor<6xf32>) -> (tensor<6xf32>, tensor<6x10xf32>) {
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<6x10xf32>, tensor<6xi64>, tensor<6xf32> -> tensor<6xf32>, tensor<6xf32>, tensor<6x10xf32>
  return %loss, %dx : tensor<6xf32>, tensor<6x10xf32>
}
