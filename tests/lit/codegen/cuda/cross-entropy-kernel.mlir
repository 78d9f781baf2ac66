// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 remarks" 2>&1 | FileCheck %s --check-prefix=REMARK

// Nova's softmax cross-entropy row kernels (one CTA per row), generated
// through gpu/llvm from the configurator's choice: bf16 logits read as
// 16-byte vectors, never widened in memory; 32000 classes take 256 threads
// and two loads in flight each (the H200's bandwidth per SM over a loaded
// DRAM latency).
// The forward fused with its backward (configured first): 1024 threads a
// row and two CTAs an SM (ptxas held to 32 registers), so that the rows
// resident at once stay in L2 for its second read.
// REMARK: remark: cross-entropy with gradient 64x32000: 1024 threads per row, 8-wide loads, 2 in flight
// REMARK: remark: cross-entropy 64x32000: 256 threads per row, 8-wide loads, 2 in flight
// REMARK: remark: cross-entropy backward 64x32000: 256 threads per row, 8-wide loads, 2 in flight
// REMARK: remark: cross-entropy 4x10: 32 threads per row, 2-wide loads, 4 in flight

// (Executables print last-declared first.) The forward fused with its
// backward, in place: the forward's pass (plain loads: the row is
// overwritten), the warps' pairs merged and the row's lse broadcast through
// shared memory, then the backward's pass writing the gradient over the
// logits. Five pointers (no separate logits), and one CTA barrier more than
// the forward's.
// CHECK-LABEL: .visible .entry nova_cross_entropy_fused_bf16_i64_t1024_v8_u2_o2_inplace(
// CHECK-COUNT-5: .param .u64 .ptr .global
// CHECK-COUNT-2: .param .u32
// CHECK:     .maxntid 1024, 1, 1
// CHECK:     .minnctapersm 2
// CHECK-NOT: ld.global.nc.v4
// CHECK:     ld.global.v4.b32
// CHECK:     shfl.sync.bfly.b32
// CHECK:     bar.sync 0;
// CHECK:     lg2.approx.ftz.f32
// CHECK:     bar.sync 0;
// CHECK-NOT: ld.global.nc.v4
// CHECK:     ld.global.v4.b32
// CHECK:     ex2.approx.ftz.f32
// CHECK:     st.global.v4.b32
// CHECK:     ret;

// A backward that overwrites its
// logits: four pointers (the logits last, read and written), and its logit
// loads are plain ld.global, never the non-coherent ld.global.nc.
// CHECK-LABEL: .visible .entry nova_cross_entropy_bwd_bf16_i64_t256_v8_u2_inplace(
// CHECK-COUNT-4: .param .u64 .ptr .global
// CHECK-COUNT-2: .param .u32
// CHECK-NOT: ld.global.nc.v4
// CHECK:     ld.global.v4.b32
// CHECK-NOT: ld.global.nc.v4
// CHECK:     st.global.v4.b32
// CHECK:     ret;

// An f32 backward for TF32 GEMMs
// rounds its gradients to TF32 as it writes them (+0x1000, 13 bits cleared).
// CHECK-LABEL: .visible .entry nova_cross_entropy_bwd_f32_i64_t{{[0-9]+}}_v{{[0-9]+}}_u{{[0-9]+}}_tf32(
// CHECK:     ex2.approx.ftz.f32
// CHECK:     add.s32 {{.*}}, 4096;
// CHECK:     and.b32 {{.*}}, -8192;
// CHECK:     st.global.v{{[24]}}.b32

// A class count only 2-wide f32 loads divide, i32 targets.
// CHECK-LABEL: .visible .entry nova_cross_entropy_fwd_f32_i32_t32_v2_u4(
// CHECK:     ld.global{{.*}}.v2.b32

// The backward: 2^((x - lse) log2 e) minus the one-hot target, times the
// row's gradient, stored as bf16 vectors.
// CHECK-LABEL: .visible .entry nova_cross_entropy_bwd_bf16_i64_t256_v8_u2(
// CHECK-COUNT-5: .param .u64 .ptr .global
// CHECK-COUNT-2: .param .u32
// CHECK:     .maxntid 256, 1, 1
// CHECK-DAG: ld.global{{(.nc)?}}.v4.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: st.global.v4.b32

// The forward: an online (max, sum) per thread, merged over the warp by
// shuffles and over the CTA through shared memory; lse = (max + lg2 sum) ln 2.
// CHECK-LABEL: .visible .entry nova_cross_entropy_fwd_bf16_i64_t256_v8_u2(
// CHECK-COUNT-4: .param .u64 .ptr .global
// CHECK-COUNT-2: .param .u32
// CHECK-DAG: ld.global{{(.nc)?}}.v4.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: bar.sync 0;
// CHECK-DAG: lg2.approx.ftz.f32
// CHECK-DAG: ex2.approx.ftz.f32

func.func @cross_entropy(%x: tensor<64x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>, %y: tensor<4x10xf32>, %u: tensor<4xi32>) -> (tensor<64xf32>, tensor<64x32000xbf16>, tensor<4xf32>) {
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64> -> tensor<64xf32>, tensor<64xf32>
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xbf16>
  %l2, %lse2 = nova.cross_entropy %y, %u {ignore_index = -100} : tensor<4x10xf32>, tensor<4xi32> -> tensor<4xf32>, tensor<4xf32>
  return %loss, %dx, %l2 : tensor<64xf32>, tensor<64x32000xbf16>, tensor<4xf32>
}

func.func @cross_entropy_tf32(%x: tensor<64x32000xf32>, %t: tensor<64xi64>, %g: tensor<64xf32>, %lse: tensor<64xf32>) -> tensor<64x32000xf32> {
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xf32>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xf32>
  %r = nova.round_tf32 %dx : tensor<64x32000xf32>
  return %r : tensor<64x32000xf32>
}

func.func @cross_entropy_in_place(%h: tensor<64x512xbf16>, %w: tensor<512x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x32000xbf16>) {
  %x = nova.matmul %h, %w : tensor<64x512xbf16>, tensor<512x32000xbf16> -> tensor<64x32000xbf16>
  %loss, %lse = nova.cross_entropy %x, %t {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64> -> tensor<64xf32>, tensor<64xf32>
  %dx = nova.cross_entropy_backward %g, %x, %t, %lse {ignore_index = -100} : tensor<64xf32>, tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64x32000xbf16>
  return %loss, %dx : tensor<64xf32>, tensor<64x32000xbf16>
}

func.func @cross_entropy_with_grad_in_place(%h: tensor<64x512xbf16>, %w: tensor<512x32000xbf16>, %t: tensor<64xi64>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x32000xbf16>) {
  %x = nova.matmul %h, %w : tensor<64x512xbf16>, tensor<512x32000xbf16> -> tensor<64x32000xbf16>
  %loss, %lse, %dx = nova.cross_entropy_with_grad %x, %t, %g {ignore_index = -100} : tensor<64x32000xbf16>, tensor<64xi64>, tensor<64xf32> -> tensor<64xf32>, tensor<64xf32>, tensor<64x32000xbf16>
  return %loss, %dx : tensor<64xf32>, tensor<64x32000xbf16>
}
