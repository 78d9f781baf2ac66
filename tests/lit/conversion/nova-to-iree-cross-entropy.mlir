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

// An f32 backward whose only user rounds it to TF32 (for the head's TF32
// GEMMs: a bare nova.round_tf32, or a nova.fused region of just that) rounds
// as it writes: the "_tf32" kernel, and the rounding goes.
// CHECK-LABEL: func.func @cross_entropy_tf32
// CHECK:     %[[B1:.+]] = "flow.dispatch"
// CHECK-SAME:  entry_points = [@[[K:nova_cross_entropy_bwd_f32_i64_t[0-9]+_v[0-9]+_u[0-9]+_tf32]]::@[[K]]]
// CHECK:     %[[B2:.+]] = "flow.dispatch"
// CHECK-SAME:  entry_points = [@[[K]]::@[[K]]]
// CHECK-NOT: nova.
// CHECK:     return %[[B1]], %[[B2]]
func.func @cross_entropy_tf32(%x: tensor<64x32000xf32>, %t: tensor<64xi64>, %g: tensor<64xf32>, %lse: tensor<64xf32>) -> (tensor<64x32000xf32>, tensor<64x32000xf32>) {
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xf32>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xf32>
  %r = nova.round_tf32 %dx : tensor<64x32000xf32>
  %dx2 = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xf32>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xf32>
  %r2 = nova.fused(%dx2) : (tensor<64x32000xf32>) -> tensor<64x32000xf32> {
  ^bb0(%a: tensor<64x32000xf32>):
    %y = nova.round_tf32 %a : tensor<64x32000xf32>
    nova.yield %y : tensor<64x32000xf32>
  }
  return %r, %r2 : tensor<64x32000xf32>, tensor<64x32000xf32>
}

// Logits made in the function and read by nothing after the backward: the
// gradient is written over them (the "_inplace" kernel: grad_loss, targets
// and lse bound first, the logits last as the result's tied operand), so
// the step never holds logits and their gradient at once.
// CHECK-LABEL: func.func @cross_entropy_in_place
// CHECK:     %[[LOGITS:.+]] = tensor.collapse_shape
// CHECK:     %[[F:.+]]:2 = "flow.dispatch"(%{{[^,]+}}, %[[LOGITS]], %arg2,
// CHECK-SAME:  @nova_cross_entropy_fwd_bf16_i64_t256_v8_u2::
// CHECK:     %[[B:.+]] = "flow.dispatch"(%{{[^,]+}}, %arg3, %arg2, %[[F]]#1, %[[LOGITS]], %{{[^,]+}}, %{{[^,)]+}})
// CHECK-SAME:  entry_points = [@nova_cross_entropy_bwd_bf16_i64_t256_v8_u2_inplace::@nova_cross_entropy_bwd_bf16_i64_t256_v8_u2_inplace]
// CHECK-SAME:  tied_operands = [3 : index]
// CHECK:     return %[[F]]#0, %[[B]]
func.func @cross_entropy_in_place(%h: tensor<64x512xbf16>, %w: tensor<512x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x32000xbf16>) {
  %x = nova.matmul %h, %w : tensor<64x512xbf16>, tensor<512x32000xbf16> -> tensor<64x32000xbf16>
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64> -> tensor<64xf32>, tensor<64xf32>
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xbf16>
  return %loss, %dx : tensor<64xf32>, tensor<64x32000xbf16>
}

// Logits read after the backward (here returned) keep their own buffer.
// CHECK-LABEL: func.func @cross_entropy_logits_read_later
// CHECK:     "flow.dispatch"{{.*}}@nova_cross_entropy_bwd_bf16_i64_t256_v8_u2::
// CHECK-SAME:  tied_operands = [-1 : index]
func.func @cross_entropy_logits_read_later(%h: tensor<64x512xbf16>, %w: tensor<512x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x32000xbf16>, tensor<64x32000xbf16>) {
  %x = nova.matmul %h, %w : tensor<64x512xbf16>, tensor<512x32000xbf16> -> tensor<64x32000xbf16>
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64> -> tensor<64xf32>, tensor<64xf32>
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xbf16>
  return %loss, %dx, %x : tensor<64xf32>, tensor<64x32000xbf16>, tensor<64x32000xbf16>
}


// A cross-entropy fused with its backward is one dispatch of the fused row
// kernel: the gradient binds first (in place, over logits made here and read
// by nothing after it: tied to them), then loss and lse.
// CHECK-LABEL: func.func @with_grad
// CHECK:     %[[F:.+]]:3 = "flow.dispatch"(%{{[^,]+}}, %arg0, %arg1, %arg2, %{{[^,]+}}, %{{[^,)]+}})
// CHECK-SAME:  entry_points = [@nova_cross_entropy_fused_bf16_i64_t1024_v8_u2_o2::@nova_cross_entropy_fused_bf16_i64_t1024_v8_u2_o2]
// CHECK-SAME:  tied_operands = [-1 : index, -1 : index, -1 : index]
// CHECK-SAME:  -> (tensor<64x32000xbf16>, tensor<64xf32>, tensor<64xf32>)
// CHECK:     return %[[F]]#1, %[[F]]#0
// CHECK-LABEL: func.func @with_grad_in_place
// CHECK:     %[[LOGITS:.+]] = tensor.collapse_shape
// CHECK:     %[[F:.+]]:3 = "flow.dispatch"(%{{[^,]+}}, %arg2, %arg3, %[[LOGITS]], %{{[^,]+}}, %{{[^,)]+}})
// CHECK-SAME:  entry_points = [@nova_cross_entropy_fused_bf16_i64_t1024_v8_u2_o2_inplace::@nova_cross_entropy_fused_bf16_i64_t1024_v8_u2_o2_inplace]
// CHECK-SAME:  tied_operands = [2 : index, -1 : index, -1 : index]
// CHECK:     return %[[F]]#1, %[[F]]#0
func.func @with_grad(%x: tensor<64x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x32000xbf16>) {
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64xf32>, tensor<64xf32>, tensor<64x32000xbf16>
  return %loss, %dx : tensor<64xf32>, tensor<64x32000xbf16>
}
func.func @with_grad_in_place(%h: tensor<64x512xbf16>, %w: tensor<512x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x32000xbf16>) {
  %x = nova.matmul %h, %w : tensor<64x512xbf16>, tensor<512x32000xbf16> -> tensor<64x32000xbf16>
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64xf32>, tensor<64xf32>, tensor<64x32000xbf16>
  return %loss, %dx : tensor<64xf32>, tensor<64x32000xbf16>
}


// A row too long for the fused kernel's second read to find it in L2: the
// forward and the backward again, each on its own row kernel.
// CHECK-LABEL: func.func @with_grad_long_rows
// CHECK:     "flow.dispatch"
// CHECK-SAME:  @nova_cross_entropy_fwd_bf16_i64_t256_v8_u2::
// CHECK:     "flow.dispatch"
// CHECK-SAME:  @nova_cross_entropy_bwd_bf16_i64_t256_v8_u2::
func.func @with_grad_long_rows(%x: tensor<64x131072xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x131072xbf16>) {
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<64x131072xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64xf32>, tensor<64xf32>, tensor<64x131072xbf16>
  return %loss, %dx : tensor<64xf32>, tensor<64x131072xbf16>
}
