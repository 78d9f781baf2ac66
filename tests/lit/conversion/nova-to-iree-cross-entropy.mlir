// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels=poison-outputs=true --cse | FileCheck %s --check-prefix=POISON

// Configured cross-entropy ops become one dispatch each of Nova's row
// kernels over the N rows: the operands as bindings, the results untied
// (IREE allocates each; the kernel writes them whole), then C and
// ignore_index as i32 constants.
// CHECK-LABEL: func.func @cross_entropy
// CHECK-DAG: %[[C:.+]] = arith.constant 32000 : i32
// CHECK-DAG: %[[IGNORE:.+]] = arith.constant -100 : i32
// CHECK-DAG: %[[ROWS:.+]] = arith.constant 64 : index
// CHECK:     %[[F:.+]]:2 = "flow.dispatch"(%[[ROWS]], %arg0, %arg1, %[[C]], %[[IGNORE]])
// CHECK-SAME:  entry_points = [@nova_cross_entropy_fwd_bf16_i64_t256_v8_u2::@nova_cross_entropy_fwd_bf16_i64_t256_v8_u2]
// CHECK-SAME:  tied_operands = [-1 : index, -1 : index]
// CHECK-SAME:  -> (tensor<64xf32>, tensor<64xf32>)
// CHECK:     %[[B:.+]] = "flow.dispatch"(%{{[^,]+}}, %arg2, %arg0, %arg1, %[[F]]#1, %{{[^,]+}}, %{{[^,)]+}})
// CHECK-SAME:  entry_points = [@nova_cross_entropy_bwd_bf16_i64_t256_v8_u2::@nova_cross_entropy_bwd_bf16_i64_t256_v8_u2]
// CHECK-SAME:  tied_operands = [-1 : index]
// CHECK:     return %[[F]]#0, %[[B]]

// Poisoned (for kernel checks), the results are tied to NaN-filled tensors,
// each with a NaN payload of its own: loss and lse, of one type, stay two
// buffers even after CSE.
// POISON-LABEL: func.func @cross_entropy
// POISON-DAG: %[[NAN1:.+]] = arith.constant 0x7FC00001 : f32
// POISON-DAG: %[[NAN2:.+]] = arith.constant 0x7FC00002 : f32
// POISON-DAG: %[[LOSS:.+]] = linalg.fill ins(%[[NAN1]] : f32)
// POISON-DAG: %[[LSE:.+]] = linalg.fill ins(%[[NAN2]] : f32)
// POISON:     "flow.dispatch"(%{{.+}}, %arg0, %arg1, %[[LOSS]], %[[LSE]],
// POISON-SAME:  tied_operands = [2 : index, 3 : index]
func.func @cross_entropy(%x: tensor<64x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x32000xbf16>) {
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64> -> tensor<64xf32>, tensor<64xf32>
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xbf16>
  return %loss, %dx : tensor<64xf32>, tensor<64x32000xbf16>
}
