// RUN: nova-opt %s --split-input-file --nova-pack-optimizer-state | FileCheck %s

// Params p0 (64x2, f32 gradient), p1 (10 elements, f32 gradient), p2 (128)
// and p3 (64x4) with widened bf16 gradients, a buffer b. Two groups: the
// f32 gradients' and the bf16 ones'. Each takes its first member's places
// (arguments 0 and 1; states 3-4 and 5-6; results likewise); members start
// at multiples of 64 elements in the order their gradients are made (p1's
// is an argument: first), zeros between; the bf16 gradients are
// concatenated as bf16 and widened once.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[P:.+]]: tensor<192xf32>, %[[Q:.+]]: tensor<384xf32>, %[[B:.+]]: tensor<4xf32>, %[[PM:.+]]: tensor<192xf32>, %[[PV:.+]]: tensor<192xf32>, %[[QM:.+]]: tensor<384xf32>, %[[QV:.+]]: tensor<384xf32>,
// CHECK-SAME:    -> (tensor<f32>, tensor<192xf32>, tensor<384xf32>, tensor<192xf32>, tensor<192xf32>, tensor<384xf32>, tensor<384xf32>)
// CHECK-SAME:    nova.packed_state = [{elements = 192 : i64, members = array<i64: 1, 0>, offsets = array<i64: 0, 64>, types = [tensor<10xf32>, tensor<64x2xf32>]}, {elements = 384 : i64, members = array<i64: 2, 3>, offsets = array<i64: 0, 128>, types = [tensor<128xf32>, tensor<64x4xf32>]}]
// CHECK:         %[[P0S:.+]] = nova.slice %[[P]][64:192:1] : tensor<192xf32> -> tensor<128xf32>
// CHECK:         %[[P0:.+]] = nova.reshape %[[P0S]] : tensor<128xf32> -> tensor<64x2xf32>
// CHECK:         %[[G0:.+]] = nova.mul %[[P0]], %arg13
// CHECK:         %[[LOSS:.+]] = nova.reduce_sum %[[G0]]
// CHECK:         %[[GAP:.+]] = nova.constant dense<0.000000e+00> : tensor<54xf32>
// CHECK:         %[[G0F:.+]] = nova.reshape %[[G0]] : tensor<64x2xf32> -> tensor<128xf32>
// CHECK:         %[[G:.+]] = nova.concat %arg16, %[[GAP]], %[[G0F]] dim = 0
// CHECK:         %[[NP:.+]], %[[NPM:.+]], %[[NPV:.+]] = nova.adamw %[[P]], %[[G]], %[[PM]], %[[PV]] step(%arg7) lr(%arg8) betas(%arg9, %arg10) eps(%arg11) weight_decay(%arg12) : tensor<192xf32>
// CHECK:         %[[H3:.+]] = nova.reshape %arg15 : tensor<64x4xbf16> -> tensor<256xbf16>
// CHECK:         %[[H:.+]] = nova.concat %arg14, %[[H3]] dim = 0 : (tensor<128xbf16>, tensor<256xbf16>) -> tensor<384xbf16>
// CHECK:         %[[GQ:.+]] = nova.cast %[[H]] : tensor<384xbf16> -> tensor<384xf32>
// CHECK:         %[[NQ:.+]], %[[NQM:.+]], %[[NQV:.+]] = nova.adamw %[[Q]], %[[GQ]], %[[QM]], %[[QV]]
// CHECK-NOT:     nova.adamw
// CHECK:         return %[[LOSS]], %[[NP]], %[[NQ]], %[[NPM]], %[[NPV]], %[[NQM]], %[[NQV]]
func.func @main(%p0: tensor<64x2xf32>, %p1: tensor<10xf32>, %p2: tensor<128xf32>, %p3: tensor<64x4xf32>, %b: tensor<4xf32>,
    %m0: tensor<64x2xf32>, %v0: tensor<64x2xf32>, %m1: tensor<10xf32>, %v1: tensor<10xf32>, %m2: tensor<128xf32>, %v2: tensor<128xf32>, %m3: tensor<64x4xf32>, %v3: tensor<64x4xf32>,
    %step: tensor<f32>, %lr: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>, %x: tensor<64x2xf32>, %h2: tensor<128xbf16>, %h3: tensor<64x4xbf16>, %g1: tensor<10xf32>)
    -> (tensor<f32>, tensor<64x2xf32>, tensor<10xf32>, tensor<128xf32>, tensor<64x4xf32>, tensor<64x2xf32>, tensor<64x2xf32>, tensor<10xf32>, tensor<10xf32>, tensor<128xf32>, tensor<128xf32>, tensor<64x4xf32>, tensor<64x4xf32>) {
  %g0 = nova.mul %p0, %x : tensor<64x2xf32>
  %l = nova.reduce_sum %g0 dims = [0, 1] : tensor<64x2xf32> -> tensor<f32>
  %g2 = nova.cast %h2 : tensor<128xbf16> -> tensor<128xf32>
  %g3 = nova.cast %h3 : tensor<64x4xbf16> -> tensor<64x4xf32>
  %np0, %nm0, %nv0 = nova.adamw %p0, %g0, %m0, %v0 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64x2xf32>
  %np1, %nm1, %nv1 = nova.adamw %p1, %g1, %m1, %v1 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<10xf32>
  %np2, %nm2, %nv2 = nova.adamw %p2, %g2, %m2, %v2 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<128xf32>
  %np3, %nm3, %nv3 = nova.adamw %p3, %g3, %m3, %v3 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64x4xf32>
  return %l, %np0, %np1, %np2, %np3, %nm0, %nv0, %nm1, %nv1, %nm2, %nv2, %nm3, %nv3 : tensor<f32>, tensor<64x2xf32>, tensor<10xf32>, tensor<128xf32>, tensor<64x4xf32>, tensor<64x2xf32>, tensor<64x2xf32>, tensor<10xf32>, tensor<10xf32>, tensor<128xf32>, tensor<128xf32>, tensor<64x4xf32>, tensor<64x4xf32>
}

// -----

// Not packed: p1's learning rate differs (a group of one), and p0's
// exp_avg is read by something else; the function stays as it is.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     nova.packed_state
// CHECK-COUNT-2: nova.adamw
func.func @main(%p0: tensor<64xf32>, %p1: tensor<64xf32>, %m0: tensor<64xf32>, %v0: tensor<64xf32>, %m1: tensor<64xf32>, %v1: tensor<64xf32>,
    %step: tensor<f32>, %lr: tensor<f32>, %lr1: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>, %g0: tensor<64xf32>, %g1: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %l = nova.add %m0, %g0 : tensor<64xf32>
  %np0, %nm0, %nv0 = nova.adamw %p0, %g0, %m0, %v0 step(%step) lr(%lr) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  %np1, %nm1, %nv1 = nova.adamw %p1, %g1, %m1, %v1 step(%step) lr(%lr1) betas(%b1, %b2) eps(%eps) weight_decay(%wd) : tensor<64xf32>
  return %l, %np0, %np1, %nm0, %nv0, %nm1, %nv1 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
