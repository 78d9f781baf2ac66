// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | FileCheck %s --check-prefix=DISPATCH
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 remarks" 2>&1 | FileCheck %s --check-prefix=REMARK

// A layer norm as nova-fuse-elementwise forms it: one warp per row of 768
// f32 (4-wide vectors, 6 chunks), swept twice for the two reductions (the
// mean, then the variance of the centred row) and once more for the
// outputs; each sum is combined over the warp by 5 butterfly shuffles. The
// row (6 x 4 f32 a lane) fits in registers: all 6 chunks are loaded before
// the first shuffle, and the later sweeps load only the gain.
// REMARK: remark: fused rows 1001x768: 4-wide vectors, 4 warps per CTA, 1 per row, whole row in registers (6 chunks)
// DISPATCH-LABEL: func.func @layer_norm
// DISPATCH:  %[[CTAS:.*]] = arith.constant 251 : index
// DISPATCH:  "flow.dispatch"(%[[CTAS]], %arg0, %arg1) <{entry_points = [@[[K:nova_fused_rows_1001x768_v4_w4_s1_row_0x[0-9a-f]+]]::@[[K]]]
// DISPATCH-SAME: tied_operands = [-1 : index, -1 : index]
// DISPATCH-SAME: (index, tensor<1001x768xf32>, tensor<768xf32>) -> (tensor<1001x768xbf16>, tensor<1001x1xf32>)
// CHECK-LABEL: .visible .entry nova_fused_rows_1001x768_v4_w4_s1_row_
// CHECK-COUNT-4: .param .u64 .ptr .global
// CHECK:     .maxntid 128, 1, 1
// CHECK-COUNT-6: ld.global{{(.nc)?}}.v4.b32
// CHECK-NOT: ld.global
// CHECK-COUNT-10: shfl.sync.bfly.b32
// CHECK:     rsqrt.approx.f32
// CHECK:     cvt.rn.bf16x2.f32
// CHECK:     st.global.v2.b32
func.func @layer_norm(%x: tensor<1001x768xf32>, %w: tensor<768xf32>) -> (tensor<1001x768xbf16>, tensor<1001x1xf32>) {
  %r:2 = nova.fused(%x, %w) : (tensor<1001x768xf32>, tensor<768xf32>) -> (tensor<1001x768xbf16>, tensor<1001x1xf32>) {
  ^bb0(%a: tensor<1001x768xf32>, %g: tensor<768xf32>):
    %n = nova.constant dense<7.680000e+02> : tensor<1001x1xf32>
    %s = nova.reduce_sum %a dims = [1] keepdim : tensor<1001x768xf32> -> tensor<1001x1xf32>
    %m = nova.div %s, %n : tensor<1001x1xf32>
    %mb = nova.broadcast_in_dim %m dims = [0, 1] : tensor<1001x1xf32> -> tensor<1001x768xf32>
    %c = nova.sub %a, %mb : tensor<1001x768xf32>
    %q = nova.mul %c, %c : tensor<1001x768xf32>
    %v = nova.reduce_mean %q dims = [1] keepdim : tensor<1001x768xf32> -> tensor<1001x1xf32>
    %rs = nova.rsqrt %v : tensor<1001x1xf32>
    %rb = nova.broadcast_in_dim %rs dims = [0, 1] : tensor<1001x1xf32> -> tensor<1001x768xf32>
    %gb = nova.broadcast_in_dim %g dims = [1] : tensor<768xf32> -> tensor<1001x768xf32>
    %y0 = nova.mul %c, %rb : tensor<1001x768xf32>
    %y1 = nova.mul %y0, %gb : tensor<1001x768xf32>
    %y = nova.cast %y1 : tensor<1001x768xf32> -> tensor<1001x768xbf16>
    nova.yield %y, %rs : tensor<1001x768xbf16>, tensor<1001x1xf32>
  }
  return %r#0, %r#1 : tensor<1001x768xbf16>, tensor<1001x1xf32>
}

// -----

// A weight's cast over 512 rows of 32000: without reductions each row is
// shared by warps. About 24 registers a lane let 16 CTAs of 4 warps share an
// SM, 2112 on the 132 SMs; 16 segments of 16 of the 250 chunks (2048 CTAs,
// one round) take the fewest chunk-times (13 of 20 took 20, 32 of 8 would
// take two rounds of 8).
// REMARK: remark: fused rows 512x32000: 4-wide vectors, 4 warps per CTA, 16 per row
// DISPATCH-LABEL: func.func @weight_cast
// DISPATCH:  %[[CTAS:.*]] = arith.constant 2048 : index
// DISPATCH:  "flow.dispatch"(%[[CTAS]], %{{.*}}) <{entry_points = [@[[K:nova_fused_rows_512x32000_v4_w4_s16_0x[0-9a-f]+]]::@[[K]]]
// CHECK-LABEL: .visible .entry nova_fused_rows_512x32000_v4_w4_s16_
// CHECK-NOT:  shfl.sync
// CHECK:      cvt.rn.bf16x2.f32
func.func @weight_cast(%w: tensor<32000x512xf32>) -> tensor<512x32000xbf16> {
  %t = nova.transpose %w permutation = [1, 0] : tensor<32000x512xf32> -> tensor<512x32000xf32>
  %r = nova.fused(%t) : (tensor<512x32000xf32>) -> tensor<512x32000xbf16> {
  ^bb0(%a: tensor<512x32000xf32>):
    %c = nova.cast %a : tensor<512x32000xf32> -> tensor<512x32000xbf16>
    nova.yield %c : tensor<512x32000xbf16>
  }
  return %r : tensor<512x32000xbf16>
}

// -----

// Partial column sums (a bias gradient's first stage) with no row
// reduction: chunks outer, each warp sums one chunk over its 4 consecutive
// rows in 4 registers a lane and stores that chunk's [1, 128] piece of the
// [4096, 512] partials; 4096 row groups are too few for 132 SMs, so two
// warps share each group's chunks: 8192 warps in 2048 CTAs.
// REMARK: remark: fused rows 16384x512: 4-wide vectors, 4 warps per CTA, 2 per row, 4 rows a partial group
// DISPATCH-LABEL: func.func @partials
// DISPATCH:  %[[CTAS:.*]] = arith.constant 2048 : index
// DISPATCH:  "flow.dispatch"(%[[CTAS]], %arg0) <{entry_points = [@[[K:nova_fused_rows_16384x512_v4_w4_s2_0x[0-9a-f]+]]::@[[K]]]
// DISPATCH-SAME: -> (tensor<4096x512xf32>, tensor<16384x512xbf16>)
// CHECK-LABEL: .visible .entry nova_fused_rows_16384x512_v4_w4_s2_
// CHECK-NOT:  shfl.sync
// CHECK:      ld.global{{(.nc)?}}.v4.b32
// CHECK:      add.f32
// CHECK:      st.global.v4.b32
func.func @partials(%x: tensor<16384x512xf32>) -> (tensor<4096x512xf32>, tensor<16384x512xbf16>) {
  %r:2 = nova.fused(%x) : (tensor<16384x512xf32>) -> (tensor<4096x512xf32>, tensor<16384x512xbf16>) {
  ^bb0(%a: tensor<16384x512xf32>):
    %g = nova.reshape %a : tensor<16384x512xf32> -> tensor<4096x4x512xf32>
    %p = nova.reduce_sum %g dims = [1] : tensor<4096x4x512xf32> -> tensor<4096x512xf32>
    %c = nova.cast %a : tensor<16384x512xf32> -> tensor<16384x512xbf16>
    nova.yield %p, %c : tensor<4096x512xf32>, tensor<16384x512xbf16>
  }
  return %r#0, %r#1 : tensor<4096x512xf32>, tensor<16384x512xbf16>
}

// -----

// A layer norm's backward: row sums for the input gradient and, in the
// same sweep, the gain's and bias's column partials over groups of 4 rows,
// one CTA a group (1024 CTAs), one row a warp. Rows are outer, so every
// chunk's partials stay live across them: they live in the CTA's shared
// slice ([2 partials][6 chunks][4][32 lanes] f32, 6 KiB), zeroed before a
// barrier; the CTA's warps add their rows into it atomically (a warp's lanes
// touch 32 consecutive words), and after a barrier the CTA stores the
// group's partials 4 columns a thread. Rows with partials stream a chunk at
// a time (held whole, ptxas hoisted every sweep's loads). 1024 CTAs are 8
// an SM: registers capped at 64 so that they run in one wave.
// REMARK: remark: fused rows 4096x768: 4-wide vectors, 4 warps per CTA, 1 per row, 4 rows a partial group, 8 CTAs an SM (one wave){{$}}
// DISPATCH-LABEL: func.func @ln_backward_partials
// DISPATCH:  %[[CTAS:.*]] = arith.constant 1024 : index
// DISPATCH:  "flow.dispatch"(%[[CTAS]], %arg0, %arg1) <{entry_points = [@[[K:nova_fused_rows_4096x768_v4_w4_s1_o8_0x[0-9a-f]+]]::@[[K]]]
// DISPATCH-SAME: -> (tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>)
// CHECK-LABEL: .visible .entry nova_fused_rows_4096x768_v4_w4_s1_o8_0x
// CHECK:      .maxntid 128, 1, 1
// CHECK-NEXT: .minnctapersm 8
// CHECK:      .shared .align 16 .b8 nova_column_partials[6144];
// CHECK:      st.shared.{{[bf]}}32
// CHECK:      bar.sync 0;
// CHECK-NOT:  st.shared
// CHECK:      atom.shared.add.f32
// CHECK:      shfl.sync.bfly.b32
// CHECK:      bar.sync 0;
// CHECK-COUNT-2: ld.shared.{{[bf]}}32
// CHECK:      st.global.v4.b32
func.func @ln_backward_partials(%dy: tensor<4096x768xf32>, %xh: tensor<4096x768xf32>) -> (tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>) {
  %r:3 = nova.fused(%dy, %xh) : (tensor<4096x768xf32>, tensor<4096x768xf32>) -> (tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>) {
  ^bb0(%g: tensor<4096x768xf32>, %x: tensor<4096x768xf32>):
    %gx = nova.mul %g, %x : tensor<4096x768xf32>
    %s1 = nova.reduce_mean %g dims = [1] keepdim : tensor<4096x768xf32> -> tensor<4096x1xf32>
    %s2 = nova.reduce_mean %gx dims = [1] keepdim : tensor<4096x768xf32> -> tensor<4096x1xf32>
    %b1 = nova.broadcast_in_dim %s1 dims = [0, 1] : tensor<4096x1xf32> -> tensor<4096x768xf32>
    %b2 = nova.broadcast_in_dim %s2 dims = [0, 1] : tensor<4096x1xf32> -> tensor<4096x768xf32>
    %d0 = nova.sub %g, %b1 : tensor<4096x768xf32>
    %xb = nova.mul %x, %b2 : tensor<4096x768xf32>
    %dx = nova.sub %d0, %xb : tensor<4096x768xf32>
    %gg = nova.reshape %gx : tensor<4096x768xf32> -> tensor<1024x4x768xf32>
    %pg = nova.reduce_sum %gg dims = [1] : tensor<1024x4x768xf32> -> tensor<1024x768xf32>
    %gb = nova.reshape %g : tensor<4096x768xf32> -> tensor<1024x4x768xf32>
    %pb = nova.reduce_sum %gb dims = [1] : tensor<1024x4x768xf32> -> tensor<1024x768xf32>
    nova.yield %dx, %pg, %pb : tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>
}

// -----

// A column max among the partials: no atomic max on f32, so each warp keeps
// a slice of its own (4 x 6 KiB) and the CTA combines the 4 at the end.
// CHECK-LABEL: .visible .entry nova_fused_rows_4096x768_v4_w4_s1_o8_0x
// CHECK:      .shared .align 16 .b8 nova_column_partials[24576];
// CHECK-NOT:  atom.shared
// CHECK:      bar.sync 0;
// CHECK-COUNT-8: ld.shared.{{[bf]}}32
// CHECK:      max.NaN.f32
// CHECK:      st.global.v4.b32
func.func @ln_backward_partial_max(%dy: tensor<4096x768xf32>, %xh: tensor<4096x768xf32>) -> (tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>) {
  %r:3 = nova.fused(%dy, %xh) : (tensor<4096x768xf32>, tensor<4096x768xf32>) -> (tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>) {
  ^bb0(%g: tensor<4096x768xf32>, %x: tensor<4096x768xf32>):
    %gx = nova.mul %g, %x : tensor<4096x768xf32>
    %s = nova.reduce_mean %gx dims = [1] keepdim : tensor<4096x768xf32> -> tensor<4096x1xf32>
    %b = nova.broadcast_in_dim %s dims = [0, 1] : tensor<4096x1xf32> -> tensor<4096x768xf32>
    %dx = nova.sub %g, %b : tensor<4096x768xf32>
    %gg = nova.reshape %gx : tensor<4096x768xf32> -> tensor<1024x4x768xf32>
    %pg = nova.reduce_sum %gg dims = [1] : tensor<1024x4x768xf32> -> tensor<1024x768xf32>
    %gb = nova.reshape %g : tensor<4096x768xf32> -> tensor<1024x4x768xf32>
    %pb = nova.reduce_max %gb dims = [1] : tensor<1024x4x768xf32> -> tensor<1024x768xf32>
    nova.yield %dx, %pg, %pb : tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4096x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>
}

// -----

// The same over rows of 2048: the CTA's slice is 16 KiB (2 partials x 16
// chunks), so 4 warps of a row each, 8 CTAs an SM (13 fit its shared
// memory). The rows (2 x 16 chunks x 4 f32 a lane) are too long to hold in
// registers: each sweep streams them a chunk at a time.
// REMARK: remark: fused rows 4096x2048: 4-wide vectors, 4 warps per CTA, 1 per row, 4 rows a partial group, 8 CTAs an SM (one wave){{$}}
// CHECK-LABEL: .visible .entry nova_fused_rows_4096x2048_v4_w4_s1_o8_0x
// CHECK:      .maxntid 128, 1, 1
// CHECK:      .shared .align 16 .b8 nova_column_partials[16384];
func.func @ln_backward_partials_wide(%dy: tensor<4096x2048xf32>, %xh: tensor<4096x2048xf32>) -> (tensor<4096x2048xf32>, tensor<1024x2048xf32>, tensor<1024x2048xf32>) {
  %r:3 = nova.fused(%dy, %xh) : (tensor<4096x2048xf32>, tensor<4096x2048xf32>) -> (tensor<4096x2048xf32>, tensor<1024x2048xf32>, tensor<1024x2048xf32>) {
  ^bb0(%g: tensor<4096x2048xf32>, %x: tensor<4096x2048xf32>):
    %gx = nova.mul %g, %x : tensor<4096x2048xf32>
    %s = nova.reduce_mean %gx dims = [1] keepdim : tensor<4096x2048xf32> -> tensor<4096x1xf32>
    %b = nova.broadcast_in_dim %s dims = [0, 1] : tensor<4096x1xf32> -> tensor<4096x2048xf32>
    %dx = nova.sub %g, %b : tensor<4096x2048xf32>
    %gg = nova.reshape %gx : tensor<4096x2048xf32> -> tensor<1024x4x2048xf32>
    %pg = nova.reduce_sum %gg dims = [1] : tensor<1024x4x2048xf32> -> tensor<1024x2048xf32>
    %gb = nova.reshape %g : tensor<4096x2048xf32> -> tensor<1024x4x2048xf32>
    %pb = nova.reduce_sum %gb dims = [1] : tensor<1024x4x2048xf32> -> tensor<1024x2048xf32>
    nova.yield %dx, %pg, %pb : tensor<4096x2048xf32>, tensor<1024x2048xf32>, tensor<1024x2048xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4096x2048xf32>, tensor<1024x2048xf32>, tensor<1024x2048xf32>
}

// -----

// A TF32 GEMM operand rounded where it is made (nova-round-tf32-operands):
// +0x1000, then the 13 low mantissa bits cleared, in the kernel's registers.
// DISPATCH-LABEL: func.func @rounded_tf32
// DISPATCH:  "flow.dispatch"(%{{.*}}, %arg0) <{entry_points = [@[[K:nova_fused_rows_1024x256_v4_w4_s2_o4_0x[0-9a-f]+]]::@[[K]]]
// CHECK-LABEL: .visible .entry nova_fused_rows_1024x256_v4_w4_s2_
// CHECK:      add.s32 {{.*}}, 4096;
// CHECK:      and.b32 {{.*}}, -8192;
// CHECK:      st.global.v4.b32
func.func @rounded_tf32(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %r = nova.fused(%x) : (tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  ^bb0(%a: tensor<1024x256xf32>):
    %y = nova.mul %a, %a : tensor<1024x256xf32>
    %t = nova.round_tf32 %y : tensor<1024x256xf32>
    nova.yield %t : tensor<1024x256xf32>
  }
  return %r : tensor<1024x256xf32>
}

// -----

// Nova's own tanh, erf and sigmoid take their reciprocals on the MUFU unit
// (an IEEE div.rn.f32 is a long subroutine that made GELU's kernels
// issue-bound at half of DRAM speed), and their polynomials are FMAs.
// CHECK-LABEL: .visible .entry nova_fused_rows_2048x384_
// CHECK-NOT:  div.rn.f32
// CHECK:      fma.rn.f32
// CHECK-NOT:  div.rn.f32
// CHECK:      rcp.approx.ftz.f32
// CHECK-NOT:  div.rn.f32
// CHECK:      st.global.v4.b32
// CHECK-NOT:  div.rn.f32
// CHECK:      ret;
func.func @tanh_erf_sigmoid(%x: tensor<2048x384xf32>) -> tensor<2048x384xf32> {
  %r = nova.fused(%x) : (tensor<2048x384xf32>) -> tensor<2048x384xf32> {
  ^bb0(%a: tensor<2048x384xf32>):
    %t = nova.tanh %a : tensor<2048x384xf32>
    %e = nova.erf %a : tensor<2048x384xf32>
    %s = nova.sigmoid %a : tensor<2048x384xf32>
    %te = nova.add %t, %e : tensor<2048x384xf32>
    %y = nova.add %te, %s : tensor<2048x384xf32>
    nova.yield %y : tensor<2048x384xf32>
  }
  return %r : tensor<2048x384xf32>
}

// -----

// A tanh whose every use is rounded to bf16 before it reaches memory or a
// reduction (GELU under autocast) is MUFU's one instruction, tanh.approx.f32
// (max relative error 2^-10.99, under bf16's 2^-9); a tanh that reaches an
// f32 result keeps Nova's f32-accurate evaluation (ex2 and rcp).
// CHECK-LABEL: .visible .entry nova_fused_rows_2048x384_
// CHECK-COUNT-4: tanh.approx.f32
// CHECK-NOT:  tanh.approx.f32
// CHECK:      ex2.approx.ftz.f32
// CHECK-NOT:  tanh.approx.f32
// CHECK:      ret;
func.func @tanh_rounded_to_bf16(%x: tensor<2048x384xbf16>) -> (tensor<2048x384xbf16>, tensor<2048x384xf32>) {
  %r:2 = nova.fused(%x) : (tensor<2048x384xbf16>) -> (tensor<2048x384xbf16>, tensor<2048x384xf32>) {
  ^bb0(%a: tensor<2048x384xbf16>):
    %w = nova.cast %a : tensor<2048x384xbf16> -> tensor<2048x384xf32>
    %t = nova.tanh %w : tensor<2048x384xf32>
    %m = nova.mul %t, %w : tensor<2048x384xf32>
    %h = nova.cast %m : tensor<2048x384xf32> -> tensor<2048x384xbf16>
    %exact = nova.tanh %w : tensor<2048x384xf32>
    nova.yield %h, %exact : tensor<2048x384xbf16>, tensor<2048x384xf32>
  }
  return %r#0, %r#1 : tensor<2048x384xbf16>, tensor<2048x384xf32>
}
