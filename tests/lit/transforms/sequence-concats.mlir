// RUN: nova-opt %s --split-input-file --nova-sequence-concats | FileCheck %s

#id = affine_map<(d0) -> (d0)>
func.func private @grad(tensor<4xf32>) -> tensor<2x64xf32>

// Operands made in the order c, a (through a reshape), then the argument
// b: inserted as b, c, a, each at its own offset (a at 0, b at 128, c at
// 192), so IREE can write each producer's result in place.
// CHECK-LABEL: func.func @in_order_made
// CHECK:         %[[C:.+]] = linalg.generic
// CHECK:         %[[A:.+]] = call @grad
// CHECK:         %[[AF:.+]] = tensor.collapse_shape %[[A]]
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<256xf32>
// CHECK:         %[[I1:.+]] = tensor.insert_slice %arg1 into %[[E]][128] [64] [1]
// CHECK:         %[[I2:.+]] = tensor.insert_slice %[[C]] into %[[I1]][192] [64] [1]
// CHECK:         %[[I3:.+]] = tensor.insert_slice %[[AF]] into %[[I2]][0] [128] [1]
// CHECK-NOT:     tensor.concat
// CHECK:         return %[[I3]]
func.func @in_order_made(%x: tensor<4xf32>, %b: tensor<64xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %a = call @grad(%x) : (tensor<4xf32>) -> tensor<2x64xf32>
  %af = tensor.collapse_shape %a [[0, 1]] : tensor<2x64xf32> into tensor<128xf32>
  %r = tensor.concat dim(0) %af, %b, %c : (tensor<128xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// -----

// A concat along another dim: the offsets are along that dim.
// CHECK-LABEL: func.func @inner_dim
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x6xf32>
// CHECK:         %[[I1:.+]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [2, 4] [1, 1]
// CHECK:         tensor.insert_slice %arg1 into %[[I1]][0, 4] [2, 2] [1, 1]
func.func @inner_dim(%a: tensor<2x4xf32>, %b: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %r = tensor.concat dim(1) %a, %b : (tensor<2x4xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// -----

// An elementwise op of one producer (here a cast of a sum's results, which
// IREE fuses into the sum's dispatch) counts as made where that producer
// is: the cast's results, though the cast comes last, go in before %q's.
#id2 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_made_at_its_source
// CHECK:         %[[S:.+]]:2 = linalg.generic
// CHECK:         %[[Q:.+]] = linalg.generic
// CHECK:         %[[C:.+]]:2 = linalg.generic
// CHECK:         %[[I1:.+]] = tensor.insert_slice %[[C]]#0 into %{{.+}}[8] [4] [1]
// CHECK:         %[[I2:.+]] = tensor.insert_slice %[[C]]#1 into %[[I1]][0] [4] [1]
// CHECK:         tensor.insert_slice %[[Q]] into %[[I2]][4] [4] [1]
func.func @cast_made_at_its_source(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<12xbf16> {
  %e = tensor.empty() : tensor<4xf32>
  %s:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.mulf %x, %y : f32
    linalg.yield %0, %1 : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  %eb = tensor.empty() : tensor<4xbf16>
  %q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%eb : tensor<4xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %0 = arith.truncf %x : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<4xbf16>
  %c:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel"]} ins(%s#0, %s#1 : tensor<4xf32>, tensor<4xf32>) outs(%eb, %eb : tensor<4xbf16>, tensor<4xbf16>) {
  ^bb0(%x: f32, %y: f32, %o0: bf16, %o1: bf16):
    %0 = arith.truncf %x : f32 to bf16
    %1 = arith.truncf %y : f32 to bf16
    linalg.yield %0, %1 : bf16, bf16
  } -> (tensor<4xbf16>, tensor<4xbf16>)
  %r = tensor.concat dim(0) %c#1, %q, %c#0 : (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<12xbf16>
  return %r : tensor<12xbf16>
}
