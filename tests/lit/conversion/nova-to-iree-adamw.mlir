// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels=state-in-place=true --split-input-file | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels=state-in-place=true --split-input-file | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=PTX
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels --split-input-file | FileCheck %s --check-prefix=PURE

// Unless the state becomes the module's (a train step's globals), the
// updates keep their linalg lowering: the kernel writes in place, and a pure
// function's caller would see its arguments written.
// PURE-LABEL: func.func @adamw_groups
// PURE-NOT:   flow.dispatch
// PURE-COUNT-16: nova.adamw
// PURE-LABEL: func.func @adamw_bf16_grads
// PURE-NOT:   flow.dispatch

// f32 AdamW updates sharing their hyperparameters become launches of Nova's
// multi-tensor kernel, at most 3 tensors each (IREE's CUDA HAL binds 16
// buffers a launch): 16 updates -> 5 x 3 + 1, each launch after its last
// member. Bindings: lr, beta1, beta2, eps, weight_decay, 1 - beta1^t,
// 1 - beta2^t packed as one f32[7] (elementwise: one small IREE kernel,
// where a concat would copy each scalar), the gradients, then param, exp_avg,
// exp_avg_sq per tensor, tied (in place); constants: the element counts,
// then each tensor's first block (1024 elements a block: 1000 -> 1 block,
// 3000 -> 3).
// CHECK-LABEL: func.func @adamw_groups
// CHECK-DAG:   %[[ONE:.+]] = nova.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:   %[[P1:.+]] = nova.pow %arg3, %arg0 : tensor<f32>
// CHECK-DAG:   %[[BC1:.+]] = nova.sub %[[ONE]], %[[P1]] : tensor<f32>
// CHECK-DAG:   %[[P2:.+]] = nova.pow %arg4, %arg0 : tensor<f32>
// CHECK-DAG:   %[[BC2:.+]] = nova.sub %[[ONE]], %[[P2]] : tensor<f32>
// The packing: position i of the f32[7] selects scalar i (last first).
// CHECK:       %[[POS:.+]] = nova.iota dim = 0 : tensor<7xf32>
// CHECK:       %[[LAST:.+]] = nova.broadcast_in_dim %[[BC2]] dims = [] : tensor<f32> -> tensor<7xf32>
// CHECK:       %[[I5:.+]] = nova.constant dense<5.000000e+00> : tensor<7xf32>
// CHECK:       %[[AT5:.+]] = nova.compare eq, %[[POS]], %[[I5]]
// CHECK:       %[[V5:.+]] = nova.broadcast_in_dim %[[BC1]]
// CHECK:       nova.select %[[AT5]], %[[V5]], %[[LAST]]
// CHECK-COUNT-4: nova.select
// CHECK:       %[[LRV:.+]] = nova.broadcast_in_dim %arg1
// CHECK:       %[[S:.+]] = nova.select %{{.+}}, %[[LRV]], %{{.+}} : tensor<7xi1>, tensor<7xf32>
// CHECK-DAG:   %[[N1:.+]] = arith.constant 1000 : i32
// CHECK-DAG:   %[[N3:.+]] = arith.constant 3000 : i32
// CHECK-DAG:   %[[F0:.+]] = arith.constant 0 : i32
// CHECK-DAG:   %[[F1:.+]] = arith.constant 1 : i32
// CHECK-DAG:   %[[F4:.+]] = arith.constant 4 : i32
// CHECK-DAG:   %[[BLOCKS:.+]] = arith.constant 5 : index
// CHECK:       %[[G1:.+]]:9 = "flow.dispatch"(%[[BLOCKS]], %[[S]], %arg7, %arg11, %arg15, %arg6, %arg8, %arg9, %arg10, %arg12, %arg13, %arg14, %arg16, %arg17, %[[N1]], %[[N3]], %[[N1]], %[[F0]], %[[F1]], %[[F4]])
// CHECK-SAME:    entry_points = [@nova_adamw_f32_x3::@nova_adamw_f32_x3]
// CHECK-SAME:    tied_operands = [4 : index, 5 : index, 6 : index, 7 : index, 8 : index, 9 : index, 10 : index, 11 : index, 12 : index]
// CHECK-COUNT-4: entry_points = [@nova_adamw_f32_x3::@nova_adamw_f32_x3]
// CHECK:       %[[G6:.+]]:3 = "flow.dispatch"(
// CHECK-SAME:    entry_points = [@nova_adamw_f32_x1::@nova_adamw_f32_x1]
// CHECK-SAME:    tied_operands = [2 : index, 3 : index, 4 : index]
// CHECK-NOT:   nova.adamw
// CHECK:       return %[[G1]]#0, %[[G1]]#1, %[[G1]]#2, 
func.func @adamw_groups(%step: tensor<f32>, %lr: tensor<f32>, %wd: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %p0: tensor<1000xf32>, %g0: tensor<1000xf32>, %m0: tensor<1000xf32>, %v0: tensor<1000xf32>, %p1: tensor<3x1000xf32>, %g1: tensor<3x1000xf32>, %m1: tensor<3x1000xf32>, %v1: tensor<3x1000xf32>, %p2: tensor<1000xf32>, %g2: tensor<1000xf32>, %m2: tensor<1000xf32>, %v2: tensor<1000xf32>, %p3: tensor<3x1000xf32>, %g3: tensor<3x1000xf32>, %m3: tensor<3x1000xf32>, %v3: tensor<3x1000xf32>, %p4: tensor<1000xf32>, %g4: tensor<1000xf32>, %m4: tensor<1000xf32>, %v4: tensor<1000xf32>, %p5: tensor<3x1000xf32>, %g5: tensor<3x1000xf32>, %m5: tensor<3x1000xf32>, %v5: tensor<3x1000xf32>, %p6: tensor<1000xf32>, %g6: tensor<1000xf32>, %m6: tensor<1000xf32>, %v6: tensor<1000xf32>, %p7: tensor<3x1000xf32>, %g7: tensor<3x1000xf32>, %m7: tensor<3x1000xf32>, %v7: tensor<3x1000xf32>, %p8: tensor<1000xf32>, %g8: tensor<1000xf32>, %m8: tensor<1000xf32>, %v8: tensor<1000xf32>, %p9: tensor<3x1000xf32>, %g9: tensor<3x1000xf32>, %m9: tensor<3x1000xf32>, %v9: tensor<3x1000xf32>, %p10: tensor<1000xf32>, %g10: tensor<1000xf32>, %m10: tensor<1000xf32>, %v10: tensor<1000xf32>, %p11: tensor<3x1000xf32>, %g11: tensor<3x1000xf32>, %m11: tensor<3x1000xf32>, %v11: tensor<3x1000xf32>, %p12: tensor<1000xf32>, %g12: tensor<1000xf32>, %m12: tensor<1000xf32>, %v12: tensor<1000xf32>, %p13: tensor<3x1000xf32>, %g13: tensor<3x1000xf32>, %m13: tensor<3x1000xf32>, %v13: tensor<3x1000xf32>, %p14: tensor<1000xf32>, %g14: tensor<1000xf32>, %m14: tensor<1000xf32>, %v14: tensor<1000xf32>, %p15: tensor<3x1000xf32>, %g15: tensor<3x1000xf32>, %m15: tensor<3x1000xf32>, %v15: tensor<3x1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>) {
  %np0, %nm0, %nv0 = nova.adamw %p0, %g0, %m0, %v0 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np1, %nm1, %nv1 = nova.adamw %p1, %g1, %m1, %v1 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  %np2, %nm2, %nv2 = nova.adamw %p2, %g2, %m2, %v2 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np3, %nm3, %nv3 = nova.adamw %p3, %g3, %m3, %v3 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  %np4, %nm4, %nv4 = nova.adamw %p4, %g4, %m4, %v4 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np5, %nm5, %nv5 = nova.adamw %p5, %g5, %m5, %v5 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  %np6, %nm6, %nv6 = nova.adamw %p6, %g6, %m6, %v6 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np7, %nm7, %nv7 = nova.adamw %p7, %g7, %m7, %v7 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  %np8, %nm8, %nv8 = nova.adamw %p8, %g8, %m8, %v8 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np9, %nm9, %nv9 = nova.adamw %p9, %g9, %m9, %v9 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  %np10, %nm10, %nv10 = nova.adamw %p10, %g10, %m10, %v10 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np11, %nm11, %nv11 = nova.adamw %p11, %g11, %m11, %v11 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  %np12, %nm12, %nv12 = nova.adamw %p12, %g12, %m12, %v12 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np13, %nm13, %nv13 = nova.adamw %p13, %g13, %m13, %v13 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  %np14, %nm14, %nv14 = nova.adamw %p14, %g14, %m14, %v14 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<1000xf32>
  %np15, %nm15, %nv15 = nova.adamw %p15, %g15, %m15, %v15 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<3x1000xf32>
  return %np0, %nm0, %nv0, %np1, %nm1, %nv1, %np2, %nm2, %nv2, %np3, %nm3, %nv3, %np4, %nm4, %nv4, %np5, %nm5, %nv5, %np6, %nm6, %nv6, %np7, %nm7, %nv7, %np8, %nm8, %nv8, %np9, %nm9, %nv9, %np10, %nm10, %nv10, %np11, %nm11, %nv11, %np12, %nm12, %nv12, %np13, %nm13, %nv13, %np14, %nm14, %nv14, %np15, %nm15, %nv15 : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>, tensor<3x1000xf32>
}

// PTX-LABEL: .visible .entry nova_adamw_f32_x3(
// PTX-COUNT-13: .param .u64 .ptr .global
// PTX-COUNT-6: .param .u32
// PTX:         .maxntid 256, 1, 1
// PTX-COUNT-7: ld.global.nc.b32
// All of a thread's loads (4 elements of 3 state tensors), then its
// updates (correctly rounded):
// PTX-COUNT-12: ld.global.b32
// PTX-NOT:     ld.global
// PTX:         sqrt.rn.f32
// PTX:         div.rn.f32
// PTX:         st.global.b32

// -----

// A bf16 gradient widened by nova.cast is read as bf16 (the "_bf16grad"
// kernel; the cast goes); gradients of the two dtypes launch apart. An
// update whose new param is read before its group's launch keeps its
// linalg lowering, and so do bf16 parameters.
// CHECK-LABEL: func.func @adamw_bf16_grads
// CHECK:       %[[READ:[^,]+]], %{{.+}} = nova.adamw %arg6
// CHECK:       nova.add %[[READ]], %[[READ]]
// CHECK:       "flow.dispatch"(%{{[^,]+}}, %{{[^,]+}}, %arg11, %arg15, %arg10,
// CHECK-SAME:    entry_points = [@nova_adamw_f32_x2_bf16grad::@nova_adamw_f32_x2_bf16grad]
// CHECK:       nova.adamw %arg18
// CHECK-SAME:    : tensor<64xbf16>
// CHECK:       "flow.dispatch"(%{{[^,]+}}, %{{[^,]+}}, %arg23, %arg22,
// CHECK-SAME:    entry_points = [@nova_adamw_f32_x1::@nova_adamw_f32_x1]
// CHECK-NOT:   nova.cast
// PTX-LABEL: .visible .entry nova_adamw_f32_x2_bf16grad(
// PTX:         ld.global.nc.b16
// PTX-NEXT:    shl.b32 %{{.+}}, %{{.+}}, 16
func.func @adamw_bf16_grads(%step: tensor<f32>, %lr: tensor<f32>, %wd: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>,
    %p0: tensor<64xf32>, %g0: tensor<64xf32>, %m0: tensor<64xf32>, %v0: tensor<64xf32>,
    %p1: tensor<64xf32>, %g1: tensor<64xbf16>, %m1: tensor<64xf32>, %v1: tensor<64xf32>,
    %p2: tensor<64xf32>, %g2: tensor<64xbf16>, %m2: tensor<64xf32>, %v2: tensor<64xf32>,
    %p3: tensor<64xbf16>, %g3: tensor<64xbf16>, %m3: tensor<64xbf16>, %v3: tensor<64xbf16>,
    %p4: tensor<64xf32>, %g4: tensor<64xf32>, %m4: tensor<64xf32>, %v4: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xbf16>, tensor<64xf32>) {
  %np0, %nm0, %nv0 = nova.adamw %p0, %g0, %m0, %v0 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  %s = nova.add %np0, %np0 : tensor<64xf32>
  %w1 = nova.cast %g1 : tensor<64xbf16> -> tensor<64xf32>
  %np1, %nm1, %nv1 = nova.adamw %p1, %w1, %m1, %v1 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  %w2 = nova.cast %g2 : tensor<64xbf16> -> tensor<64xf32>
  %np2, %nm2, %nv2 = nova.adamw %p2, %w2, %m2, %v2 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  %np3, %nm3, %nv3 = nova.adamw %p3, %g3, %m3, %v3 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xbf16>
  %np4, %nm4, %nv4 = nova.adamw %p4, %g4, %m4, %v4 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  return %s, %np1, %np2, %np3, %np4 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xbf16>, tensor<64xf32>
}
