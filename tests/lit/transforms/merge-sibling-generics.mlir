// RUN: nova-opt %s --split-input-file --nova-merge-sibling-generics | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-merge-sibling-generics=max-result-bytes=64 | FileCheck %s --check-prefix=NONE
// RUN: nova-opt %s --split-input-file --nova-merge-sibling-generics=max-bindings=3 | FileCheck %s --check-prefix=NONE

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#keep2 = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func private @kernel() -> (tensor<1024x64xf32>, tensor<1024x64xf32>)
func.func private @use(tensor<64xbf16>)

// Two column sums of one kernel's partials, split in two stages and cast to
// bf16 for a kernel: each stage becomes one generic, and so do the casts
// (IREE fuses the merged cast into the merged second stage).
// CHECK-LABEL: func.func @column_sums
// CHECK:         %[[P:.*]]:2 = call @kernel()
// CHECK:         %[[S:.*]]:2 = linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "parallel"]
// CHECK-SAME:      outs(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<32x64xf32>)
// CHECK:           %[[A:.*]] = arith.addf
// CHECK:           %[[B:.*]] = arith.addf
// CHECK:           linalg.yield %[[A]], %[[B]]
// CHECK:         %[[T:.*]]:2 = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK-SAME:      ins(%[[S]]#0, %[[S]]#1 :
// CHECK:         %[[C:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK-SAME:      ins(%[[T]]#0, %[[T]]#1 :
// CHECK:           arith.truncf
// CHECK:           arith.truncf
// CHECK:         call @use(%[[C]]#0)
// CHECK-NEXT:    call @use(%[[C]]#1)
// CHECK-NOT:     linalg.generic
// Too large for max-result-bytes=64 (64 f32 = 256 bytes), or more than 3
// buffers for max-bindings=3: nothing merges.
// NONE-LABEL: func.func @column_sums
// NONE-COUNT-6: linalg.generic
// NONE-NOT:     linalg.generic
func.func @column_sums() {
  %p:2 = call @kernel() : () -> (tensor<1024x64xf32>, tensor<1024x64xf32>)
  %z = arith.constant 0.0 : f32
  %a3 = tensor.expand_shape %p#0 [[0, 1], [2]] output_shape [32, 32, 64] : tensor<1024x64xf32> into tensor<32x32x64xf32>
  %ea = tensor.empty() : tensor<32x64xf32>
  %fa = linalg.fill ins(%z : f32) outs(%ea : tensor<32x64xf32>) -> tensor<32x64xf32>
  %sa = linalg.generic {indexing_maps = [#id3, #keep3], iterator_types = ["reduction", "parallel", "parallel"]} ins(%a3 : tensor<32x32x64xf32>) outs(%fa : tensor<32x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  %ta0 = tensor.empty() : tensor<64xf32>
  %tfa = linalg.fill ins(%z : f32) outs(%ta0 : tensor<64xf32>) -> tensor<64xf32>
  %ta = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%sa : tensor<32x64xf32>) outs(%tfa : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %ca0 = tensor.empty() : tensor<64xbf16>
  %ca = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%ta : tensor<64xf32>) outs(%ca0 : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  call @use(%ca) : (tensor<64xbf16>) -> ()
  %b3 = tensor.expand_shape %p#1 [[0, 1], [2]] output_shape [32, 32, 64] : tensor<1024x64xf32> into tensor<32x32x64xf32>
  %eb = tensor.empty() : tensor<32x64xf32>
  %fb = linalg.fill ins(%z : f32) outs(%eb : tensor<32x64xf32>) -> tensor<32x64xf32>
  %sb = linalg.generic {indexing_maps = [#id3, #keep3], iterator_types = ["reduction", "parallel", "parallel"]} ins(%b3 : tensor<32x32x64xf32>) outs(%fb : tensor<32x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  %tb0 = tensor.empty() : tensor<64xf32>
  %tfb = linalg.fill ins(%z : f32) outs(%tb0 : tensor<64xf32>) -> tensor<64xf32>
  %tb = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%sb : tensor<32x64xf32>) outs(%tfb : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %cb0 = tensor.empty() : tensor<64xbf16>
  %cb = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%tb : tensor<64xf32>) outs(%cb0 : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  call @use(%cb) : (tensor<64xbf16>) -> ()
  return
}

// -----

#id1 = affine_map<(d0) -> (d0)>

func.func private @use(tensor<64xbf16>)

// Autocast's casts of f32 biases for kernels merge before the first kernel
// that reads one; a cast that a linalg op reads stays (IREE fuses it there).
// CHECK-LABEL: func.func @bias_casts
// NONE-LABEL: func.func @bias_casts
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<64xbf16>
// CHECK-NEXT:    %[[C:.*]]:2 = linalg.generic {{.*}}ins(%arg0, %arg1 : tensor<64xf32>, tensor<64xf32>)
// CHECK:         call @use(%[[C]]#0)
// CHECK-NEXT:    call @use(%[[C]]#1)
// CHECK-NEXT:    %[[L:.*]] = linalg.generic {{.*}}ins(%arg2 : tensor<64xf32>)
// CHECK:         %[[ADD:.*]] = linalg.generic {{.*}}ins(%[[L]], %arg3
// CHECK:         return %[[ADD]]
func.func @bias_casts(%b0: tensor<64xf32>, %b1: tensor<64xf32>, %b2: tensor<64xf32>, %x: tensor<64xbf16>) -> tensor<64xbf16> {
  %e = tensor.empty() : tensor<64xbf16>
  %c0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%b0 : tensor<64xf32>) outs(%e : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  call @use(%c0) : (tensor<64xbf16>) -> ()
  %c1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%b1 : tensor<64xf32>) outs(%e : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  call @use(%c1) : (tensor<64xbf16>) -> ()
  %c2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%b2 : tensor<64xf32>) outs(%e : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  %add = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%c2, %x : tensor<64xbf16>, tensor<64xbf16>) outs(%e : tensor<64xbf16>) {
  ^bb0(%in: bf16, %in2: bf16, %out: bf16):
    %0 = arith.addf %in, %in2 : bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  return %add : tensor<64xbf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#keep2 = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func private @consume(tensor<64xf32>) -> tensor<32x64xf32>
func.func private @use(tensor<64xbf16>)
func.func private @use32(tensor<64xf32>)

// Siblings that cannot be placed together stay apart: the second sum reads
// what a kernel makes from the first; the third is cast for its reader while
// the first is read from memory (IREE would not fuse a cast of one result of
// a merged sum).
// CHECK-LABEL: func.func @dependent
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @dependent(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s0 = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %k = call @consume(%s0) : (tensor<64xf32>) -> tensor<32x64xf32>
  %s1 = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%k : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  call @use32(%s1) : (tensor<64xf32>) -> ()
  %s2 = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%y : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %eb = tensor.empty() : tensor<64xbf16>
  %c2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%s2 : tensor<64xf32>) outs(%eb : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  call @use(%c2) : (tensor<64xbf16>) -> ()
  return
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#keep2 = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func private @layer(tensor<64xf32>) -> tensor<32x64xf32>
func.func private @optimizer(tensor<64xbf16>, tensor<64xbf16>)

// Two layers' bias gradients: each layer's second-stage sum and its cast are
// made right after its partials, but only the optimizer at the end reads
// them. Both move down to it, keeping their order, where they merge: one
// sum and one cast, after the second layer's partials, results in program
// order.
// CHECK-LABEL: func.func @layers
// CHECK:         %[[A:.*]] = call @layer(%arg0)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[B:.*]] = call @layer(%arg1)
// CHECK-NOT:     call
// CHECK:         %[[S:.*]]:2 = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK-SAME:      ins(%[[A]], %[[B]] :
// CHECK:         %[[C:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK-SAME:      ins(%[[S]]#0, %[[S]]#1 :
// CHECK:         call @optimizer(%[[C]]#0, %[[C]]#1)
// CHECK-NOT:     linalg.generic
// NONE-LABEL: func.func @layers
// NONE-COUNT-4: linalg.generic
// NONE-NOT:     linalg.generic
func.func @layers(%x: tensor<64xf32>, %y: tensor<64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %a = call @layer(%x) : (tensor<64xf32>) -> tensor<32x64xf32>
  %sa = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %ca0 = tensor.empty() : tensor<64xbf16>
  %ca = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sa : tensor<64xf32>) outs(%ca0 : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  %b = call @layer(%y) : (tensor<64xf32>) -> tensor<32x64xf32>
  %sb = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%b : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %cb0 = tensor.empty() : tensor<64xbf16>
  %cb = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sb : tensor<64xf32>) outs(%cb0 : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<64xbf16>
  call @optimizer(%ca, %cb) : (tensor<64xbf16>, tensor<64xbf16>) -> ()
  return
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#keep2 = affine_map<(d0, d1) -> (d1)>

// Column sums read only by a concat (a packed optimizer's gradients) are
// read from memory: they merge (IREE writes each result into its place).
// CHECK-LABEL: func.func @sums_into_concat
// CHECK:         %[[S:.*]]:2 = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK-SAME:      ins(%arg0, %arg1 :
// CHECK:         tensor.concat dim(0) %[[S]]#0, %[[S]]#1
// NONE-LABEL: func.func @sums_into_concat
// NONE-COUNT-2: linalg.generic
func.func @sums_into_concat(%a: tensor<32x64xf32>, %b: tensor<32x64xf32>) -> tensor<128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sa = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %sb = linalg.generic {indexing_maps = [#id2, #keep2], iterator_types = ["reduction", "parallel"]} ins(%b : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %c = tensor.concat dim(0) %sa, %sb : (tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
  return %c : tensor<128xf32>
}
