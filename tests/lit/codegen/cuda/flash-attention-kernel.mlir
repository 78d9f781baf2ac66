// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 attention-head-groups=false" --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 attention-head-groups=false" --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=NOP
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels="target=sm_90 attention-head-groups=false" --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=CHAIN
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=HG
// RUN: nova-opt %s --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | FileCheck %s --check-prefix=HGIR

// Nova's sm_90 fused attention, forward and backward, generated through
// gpu/nvvm from the configurator's choice and serialized by MLIR: PTX 8.3 for
// sm_90a; one producer warp group (TMA) and two consumers (wgmma); no T x T
// tensor. T = 200 is not a multiple of the blocks: edges are masked. Every
// [B, H, T, D] operand is addressed through 4-d tensor maps [D, T, H, B]
// with strides from the constants (T, B*H, scale, H, then offset, row and
// head stride per operand).

// The backward's Delta = rowsum(dO * O) (declared after the backward kernel,
// printed first): eight threads a row, 16-byte loads of each operand, f32
// products, a butterfly sum over the eight lanes, one store per row.
// CHECK-LABEL: .visible .entry nova_attention_delta_d64(
// CHECK-COUNT-3: .param .u64 .ptr .global
// CHECK-COUNT-11: .param .u32
// CHECK:      .maxntid 256, 1, 1
// CHECK:      ld.global.nc.v4.b32
// CHECK:      ld.global.nc.v4.b32
// CHECK:      mul.rn.f32
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 4, 31, -1
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 2, 31, -1
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 1, 31, -1
// CHECK:      st.global.b32

// The backward (its executable is declared before Delta's, so it is printed
// second):
// per key block, S^T = K Q^T and dP^T = V dO^T (m64n64k16, both K-major),
// P^T = exp2(S^T - lse), then dQ = dS K with dS^T read transposed as A,
// dV += P^T dO and dK += dS^T Q with dO and Q read MN-major (transposed B),
// and the next block's S^T and dP^T as three wgmma groups: dQ (waited for
// alone: wait_group 2) is added in f32 through shared memory by TMA
// reduce-adds while the others run, and the stage is freed after dV and dK
// (wait_group 1). Three stages: two blocks' are in use at a time.
// CHECK-LABEL: .visible .entry nova_attention_bwd_d64_128x64_s3_causal(
// CHECK-COUNT-10: .param .u64 .ptr .global
// CHECK-COUNT-25: .param .u32
// CHECK:      .maxntid 384, 1, 1
// CHECK:      .minnctapersm 1
// CHECK:      tensormap.replace.tile.rank.global.b1024.b32 [%rd{{[0-9]+}}], 3;
// CHECK:      tensormap.replace.tile.box_dim.global.b1024.b32 [%rd{{[0-9]+}}], 1,
// CHECK:      tensormap.replace.tile.global_stride.global.b1024.b64 [%rd{{[0-9]+}}], 2,
// CHECK:      fence.proxy.tensormap::generic.release.gpu;
// CHECK-DAG:  setmaxnreg.inc.sync.aligned.u32 240;
// CHECK-DAG:  setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1, 1;
// CHECK-DAG:  wgmma.wait_group.sync.aligned 2;
// CHECK-DAG:  wgmma.wait_group.sync.aligned 1;
// CHECK-DAG:  ex2.approx.ftz.f32
// CHECK-DAG:  cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group
// CHECK-DAG:  cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG:  fence.proxy.async.shared::cta;

// With attention-head-groups the backward takes its items from a counter
// (one more binding, after Delta: zeros read as an input, a length of its
// own per kernel), in groups of the heads whose key blocks its 16 CTAs
// hold at once (16 / 2 key blocks = 8):
// the producer fetches with atom.inc wrapping at items + CTAs - 1 (so the
// counter ends each launch at zero), passes the index to the consumers
// through shared memory after the mbarriers, and past the items completes
// K/V's barrier with no bytes; the consumers read it once K and V are in.
// HG-LABEL: .visible .entry nova_attention_bwd_d64_128x64_s3_causal_hg8(
// HG-COUNT-11: .param .u64 .ptr .global
// HG-COUNT-25: .param .u32
// HG:      mbarrier.try_wait.parity.shared.b64
// HG-NEXT: @P1 bra.uni DONE;
// HG:      ld.shared.b32 {{%r[0-9]+}}, [nova_attention_shared+[[SLOT:[0-9]+]]];
// With head groups the consumers' registers have room for P^T as the
// register A of dV += P^T dO (bf16 pairs, never stored; see
// FlashAttentionSpec::registerScores):
// HG:      cvt.rn.bf16x2.f32
// HG:      wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// HG:      setmaxnreg.dec.sync.aligned.u32 24;
// HG:      %nctaid.x
// HG:      atom.global.inc.u32 [[W:%r[0-9]+]], [{{%rd[0-9]+}}], {{%r[0-9]+}};
// HG-NEXT: st.shared.b32 [nova_attention_shared+[[SLOT]]], [[W]];
// HG-NEXT: setp.ge.u32 {{%p[0-9]+}}, [[W]], {{%r[0-9]+}};
// The forward likewise (8 = 16 CTAs / 2 query blocks), one index slot per
// Q tile after its mbarriers (which take 80 bytes here: Q full and empty
// for two tiles, K/V full and empty for three stages).
// HG-LABEL: .visible .entry nova_attention_fwd_d64_128x128_s3_causal_hg8(
// HG-COUNT-7: .param .u64 .ptr .global
// HG-COUNT-16: .param .u32
// HG:      mbarrier.init.shared.b64 [nova_attention_shared+[[BARRIERS:[0-9]+]]]
// HG:      ld.shared.b32 {{%r[0-9]+}}, [nova_attention_shared+[[FSLOT:[0-9]+]]];
// HG:      atom.global.inc.u32 [[FW:%r[0-9]+]], [{{%rd[0-9]+}}], {{%r[0-9]+}};
// HG-NEXT: st.shared.b32 [{{%rd[0-9]+}}+[[FSLOT]]], [[FW]];
// HGIR-LABEL: func.func @attention
// HGIR:       %[[FEMPTY:.+]] = tensor.empty() : tensor<1xi32>
// HGIR-NEXT:  %[[FCOUNTER:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%[[FEMPTY]] : tensor<1xi32>)
// HGIR:       "flow.dispatch"(%{{.+}}, %arg0, %arg1, %arg2, %[[FCOUNTER]], {{.*}}) <{entry_points = [@nova_attention_fwd_d64_128x128_s3_causal_hg8::@nova_attention_fwd_d64_128x128_s3_causal_hg8]
// HGIR:       %[[EMPTY:.+]] = tensor.empty() : tensor<2xi32>
// HGIR-NEXT:  %[[COUNTER:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%[[EMPTY]] : tensor<2xi32>)
// HGIR:       "flow.dispatch"(%{{.+}}, %arg0, %arg1, %arg2, %arg3, %{{.+}}, %{{.+}}, %[[COUNTER]], {{.*}}) <{entry_points = [@nova_attention_bwd_d64_128x64_s3_causal_hg8::@nova_attention_bwd_d64_128x64_s3_causal_hg8]

// The forward: S = Q K^T (m64n128k16, K-major), the online softmax's row
// max over a lane quad (shfl.sync.bfly) and exp2, P kept in registers as
// bf16 pairs (cvt.rn.bf16x2), O += P V with P as the wgmma's register A
// and V read MN-major (transposed B), then O / l and lse = (m + log2 l)
// ln 2. No shared P tile (NOP): no stores to shared memory and no barrier
// among a consumer's warps (the CTA-wide one after the mbarriers' init is
// the only bar.sync).
// Pipelined: a block's S and the previous block's P V are in flight
// together and the softmax waits for S alone (wait_group 1).
// CHECK-LABEL: .visible .entry nova_attention_fwd_d64_128x128_s3_causal(
// CHECK-COUNT-6: .param .u64 .ptr .global
// CHECK-COUNT-16: .param .u32
// CHECK:      .maxntid 384, 1, 1
// CHECK:      .minnctapersm 1
// CHECK-DAG:  setmaxnreg.inc.sync.aligned.u32 240;
// CHECK-DAG:  setmaxnreg.dec.sync.aligned.u32 24;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK-DAG:  cvt.rn.bf16x2.f32
// CHECK-DAG:  wgmma.wait_group.sync.aligned 1;
// CHECK-DAG:  shfl.sync.bfly.b32
// CHECK-DAG:  ex2.approx.ftz.f32
// CHECK-DAG:  lg2.approx.ftz.f32
// CHECK-DAG:  rcp.approx.ftz.f32
// CHECK-DAG:  cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// Items chained like blocks: S for the first item's first block and in the
// loop, P V in the loop, then the next item's S_0 issued with the last P V
// (its softmax under it): 12 m64n128k16 (S, 4 k16 steps each) and 16
// register-A m64n64k16 (P V, 8 each), in LLVM's block order. Ping-pong:
// each issue in the consumer's turn (bar.sync 3 + c over both consumers'
// 256 threads), which it then passes (bar.arrive); consumer 1 passes first
// and consumer 0 takes the last one after its items.
// CHAIN-LABEL: .visible .entry nova_attention_fwd_d64_128x128_s3_causal(
// CHAIN:         bar.arrive
// CHAIN:         bar.sync {{%r[0-9]+}}, 256;
// CHAIN-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16
// CHAIN:         bar.arrive
// CHAIN:         bar.sync {{%r[0-9]+}}, 256;
// CHAIN-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16
// CHAIN-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16
// CHAIN:         bar.arrive
// CHAIN:         bar.sync {{%r[0-9]+}}, 256;
// CHAIN-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16
// CHAIN-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16
// CHAIN:         bar.arrive
// CHAIN:         bar.sync {{%r[0-9]+}}, 256;
// CHAIN-NOT:     wgmma.mma_async
// NOP-LABEL: .visible .entry nova_attention_fwd_d64_128x128_s3_causal(
// NOP-NOT:   bar.sync {{%r[0-9]+}}, 128;
// NOP-NOT:   st.shared
// NOP:       ret;
func.func @attention(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>, %do: tensor<2x4x200x64xbf16>) -> (tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>) {
  %o, %lse = nova.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>, tensor<2x4x200xf32>
  %dq, %dk, %dv = nova.attention_backward %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200xf32> -> tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
  return %o, %dq, %dk, %dv : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
}
