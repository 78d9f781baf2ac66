// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 f32-matmul-precision=high attention-head-groups=false" --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 f32-matmul-precision=high" --convert-nova-to-iree-kernels | FileCheck %s --check-prefix=HG

// f32 attention under TF32 ("high") precision on sm_90: Nova's fused kernels
// with k8 TF32 wgmmas, whose operands are both K-major. The forward steps 64
// keys (f32 tiles fill shared memory twice as fast) and reads V^T; the
// backward steps 32 queries and reads K^T, Q^T and dO^T, all [B*H, D, T']
// copies made by the transpose kernel (rounding to TF32 as it goes) and
// loaded through 3-d tensor maps [T, D, B*H]. T = 201: rows of T' = 204.
// By default both kernels take their work in groups of heads (six here:
// the CTAs of this small problem hold the blocks of six heads at once).
// HG: entry_points = [@nova_attention_fwd_d64_128x64_s3_causal_tf32_hg6::
// HG: entry_points = [@nova_attention_bwd_d64_128x32_s2_causal_tf32_hg6::

// The backward's Delta over f32 dO and O: two 16-byte loads of each.
// CHECK-LABEL: .visible .entry nova_attention_delta_d64_f32(
// CHECK-COUNT-4: ld.global.nc.v4.b32
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 4, 31, -1

// The backward: S^T = K Q^T, dP^T = V dO^T and dQ^T = K^T dS^T as
// m64n32k8 (32 queries along N), dV += P^T dO^T' and dK += dS^T Q^T' as
// m64n64k8; P^T and dS^T are stored rounded to TF32 (+0x1000, clear the low
// 13 bits) as pairs, dS and the dQ part transposed as single words; dQ is
// added by TMA reduce-adds. 13 bindings: Q, K, V, dO, K^T, Q^T, dO^T, LSE,
// Delta, dQ, dK, dV, scratch; 34 constants.
// CHECK-LABEL: .visible .entry nova_attention_bwd_d64_128x32_s2_causal_tf32(
// CHECK-COUNT-13: .param .u64 .ptr .global
// CHECK-COUNT-34: .param .u32
// CHECK:      .maxntid 384, 1, 1
// CHECK:      tensormap.replace.tile.rank.global.b1024.b32 [%rd{{[0-9]+}}], 3;
// CHECK:      tensormap.replace.tile.rank.global.b1024.b32 [%rd{{[0-9]+}}], 2;
// CHECK-DAG:  setmaxnreg.inc.sync.aligned.u32 240;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-DAG:  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG:  cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG:  cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group
// CHECK-DAG:  and.b32 {{.*}}, -8192;
// CHECK-DAG:  st.shared.v2.b32
// CHECK-DAG:  st.shared.b32
// CHECK-NOT:  .bf16

// The transposes: strided source (offset, row, head stride, H) and a padded
// destination row stride among its 9 constants.
// CHECK-LABEL: .visible .entry nova_transpose_f32_tf32(
// CHECK-COUNT-2: .param .u64 .ptr .global
// CHECK-COUNT-9: .param .u32

// The forward: S = Q K^T and O += P V^T' both m64n64k8 (8 of each a block),
// pipelined: the first item's first S (8, before the producer's loads),
// then each block's S with the previous block's P V, and at an item's end
// the next item's first S with the last P V (32); P stored rounded to
// TF32, O written in f32. No ping-pong between the consumers (bf16 only):
// no turn is passed.
// CHECK-LABEL: .visible .entry nova_attention_fwd_d64_128x64_s3_causal_tf32(
// CHECK-COUNT-6: .param .u64 .ptr .global
// CHECK-COUNT-16: .param .u32
// CHECK:      tensormap.replace.tile.rank.global.b1024.b32 [%rd{{[0-9]+}}], 2;
// CHECK-NOT:  bar.arrive
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-NOT:  bar.arrive
// CHECK:      cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT:  bar.arrive
// CHECK-COUNT-32: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-NOT:  wgmma.mma_async
// CHECK-NOT:  bar.arrive
// CHECK:      st.global.v2.b32
func.func @attention(%q: tensor<2x3x201x64xf32>, %k: tensor<2x3x201x64xf32>, %v: tensor<2x3x201x64xf32>, %do: tensor<2x3x201x64xf32>) -> (tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>) {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32> -> tensor<2x3x201x64xf32>, tensor<2x3x201xf32>
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201xf32> -> tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>
  return %o, %dq, %dk, %dv : tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>, tensor<2x3x201x64xf32>
}
