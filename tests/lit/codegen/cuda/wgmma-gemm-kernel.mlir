// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-configure-kernels=target=sm_90 --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s

// Nova's sm_90 GEMM, generated through gpu/nvvm from the lowering config and
// serialized by MLIR: PTX 8.3 for sm_90a (wgmma, setmaxnreg,
// tensormap.replace); IREE's ABI (A, B, C, descriptor scratch, then M, N, K,
// batch); a producer warp group and two consumers.

// The forward 16384x3072x768 (bf16 out): ping-pong 128x128 tiles (two
// consumers take the CTA's tiles in turn, each all 128 rows of its tile: two
// m64 MMAs a K slice, so one's epilogue runs under the other's MMAs), 6
// stages of 32 KiB beside two consumers' rings of two 8 KiB C boxes.
// CHECK:      .version 8.3
// CHECK:      .target sm_90a
// CHECK:      .extern .shared .align 1024 .b8 nova_gemm_shared[];
// CHECK:      .visible .entry nova_gemm_bf16_bf16_128x128x64_s6_c2_g8_k1_tma_pp(
// CHECK-COUNT-4: .param .u64 .ptr .global
// CHECK-COUNT-4: .param .u32
// CHECK:      .maxntid 384, 1, 1
// Each CTA encodes its three tensor maps (A, B, C) in its scratch slot, on
// the device.
// CHECK:      st.global.v4.b32 {{.*}}{0, 0, 0, 0};
// CHECK:      tensormap.replace.tile.global_address.global.b1024.b64
// CHECK:      tensormap.replace.tile.rank.global.b1024.b32 [%rd{{[0-9]+}}], 2;
// CHECK:      tensormap.replace.tile.box_dim.global.b1024.b32 [%rd{{[0-9]+}}], 0,
// CHECK:      tensormap.replace.tile.global_stride.global.b1024.b64 [%rd{{[0-9]+}}], 1,
// CHECK:      tensormap.replace.tile.elemtype.global.b1024.b32 [%rd{{[0-9]+}}], 10;
// CHECK:      tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd{{[0-9]+}}], 3;
// CHECK:      fence.proxy.tensormap::generic.release.gpu;
// CHECK:      fence.proxy.tensormap::generic.acquire.gpu [%rd{{[0-9]+}}], 128;
// CHECK:      fence.proxy.tensormap::generic.acquire.gpu [%rd{{[0-9]+}}], 128;
// CHECK:      fence.proxy.tensormap::generic.acquire.gpu [%rd{{[0-9]+}}], 128;
// The barriers after 6 x 32 KiB of stages and 2 x 16 KiB of C rings: 6 full,
// 6 empty (freed by the 4 warps of the one consumer that read the stage),
// then a turn barrier per consumer (a consumer waits on the ring only after
// the other has waited for all of its previous tile's stages).
// CHECK:      mbarrier.init.shared.b64 [nova_gemm_shared+229376]
// CHECK:      mbarrier.init.shared.b64 [nova_gemm_shared+229472]
// CHECK-NEXT: mbarrier.init.shared.b64 [nova_gemm_shared+229480]
// CHECK-NEXT: fence.mbarrier_init.release.cluster;
// CHECK:      bar.sync 0;
// The roles (in whatever block order LLVM lays them out): the producer gives
// registers away and streams K tiles with TMA; the consumers take them, keep
// one wgmma group in flight and free stages, then write bf16 pairs into
// their swizzled C boxes and TMA-store each, a box waiting only for the
// store of the box before the last (the tile's first: for all of them).
// CHECK-DAG:  setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-DAG:  mbarrier.arrive.expect_tx.shared.b64
// CHECK-DAG:  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG:  setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG:  mbarrier.try_wait.parity.shared.b64
// CHECK-DAG:  wgmma.fence.sync.aligned;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG:  wgmma.commit_group.sync.aligned;
// CHECK-DAG:  wgmma.wait_group.sync.aligned 1;
// CHECK-DAG:  mbarrier.arrive.shared.b64
// CHECK-DAG:  wgmma.wait_group.sync.aligned 0;
// CHECK-DAG:  cp.async.bulk.wait_group.read 0;
// CHECK-DAG:  cp.async.bulk.wait_group.read 1;
// CHECK-DAG:  bar.sync %r{{[0-9]+}}, 128;
// CHECK-DAG:  cvt.rn.bf16x2.f32
// CHECK-DAG:  st.shared.b32
// CHECK-DAG:  fence.proxy.async.shared::cta;
// CHECK-DAG:  cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// CHECK-DAG:  cp.async.bulk.commit_group;
// CHECK-DAG:  cp.async.bulk.wait_group 0;
// CHECK-NOT:  st.global.b16
func.func @forward(%x: tensor<16384x768xbf16>, %w: tensor<3072x768xbf16>) -> tensor<16384x3072xbf16> {
  %0 = nova.matmul %x, %w {transpose_rhs} : tensor<16384x768xbf16>, tensor<3072x768xbf16> -> tensor<16384x3072xbf16>
  return %0 : tensor<16384x3072xbf16>
}

// -----

// TF32 (f32 tensor maps, k8 MMAs); one consumer warp group keeps its
// registers (no setmaxnreg); f32 results.
// CHECK:      .visible .entry nova_gemm_tf32_f32_64x64x32_s4_c1_g1_k1_tma(
// CHECK:      .maxntid 256, 1, 1
// CHECK:      tensormap.replace.tile.elemtype.global.b1024.b32 [%rd{{[0-9]+}}], 7;
// CHECK-NOT:  setmaxnreg
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-DAG:  st.shared.v2.b32
// CHECK-NOT:  setmaxnreg
func.func @tf32(%a: tensor<256x128xf32>, %b: tensor<64x128xf32>) -> tensor<256x64xf32> {
  %0 = nova.matmul %a, %b {transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1>} : tensor<256x128xf32>, tensor<64x128xf32> -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}

// -----

// A TF32 weight gradient, A stored [K, M] and B [K, N] ("mn": TF32 wgmma
// reads only K-major operands). The producer's thread 0 loads each operand's
// [32 K, 32 f32] boxes where the K-major rows they hold go, on the stage's
// staged barrier (after 4 x 32 KiB of stages, 2 x 16 KiB of C rings and the
// 4 full and 4 empty barriers), and arrives on the full barrier without
// bytes; the producer's other three warps (72 registers; the consumers get
// 216) wait for the boxes, read a box's columns, write its rows back K-major
// rounded to TF32 (+0x1000, clear the low 13 bits), fence for the async
// proxy and arrive on the full barrier, one lane a warp.
// CHECK:      .visible .entry nova_gemm_tf32_mn_f32_128x128x32_s4_c2_g1_k1_tma(
// CHECK:      .maxntid 384, 1, 1
// CHECK:      mbarrier.init.shared.b64 [nova_gemm_shared+163904]
// CHECK-DAG:  setmaxnreg.inc.sync.aligned.u32 216;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-DAG:  setmaxnreg.dec.sync.aligned.u32 72;
// CHECK-DAG:  mbarrier.arrive.shared.b64 {{.*}}[%rd{{[0-9]+}}+163840];
// CHECK-DAG:  mbarrier.arrive.expect_tx.shared.b64 {{.*}}[%rd{{[0-9]+}}+163904], %r{{[0-9]+}};
// CHECK-DAG:  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {{.*}}+163904];
// CHECK-DAG:  mbarrier.try_wait.parity.shared.b64
// CHECK-DAG:  ld.shared.b32
// CHECK-DAG:  bar.warp.sync -1;
// CHECK-DAG:  and.b32 {{.*}}, -8192;
// CHECK-DAG:  st.shared.v4.b32
// CHECK-DAG:  fence.proxy.async.shared::cta;
func.func @tf32_weight_gradient(%a: tensor<128x256xf32>, %b: tensor<128x256xf32>) -> tensor<256x256xf32> {
  %0 = nova.matmul %a, %b {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [128, 128, 32], warp_layout = [2, 1], mma_shape = [64, 128, 8], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1>} : tensor<128x256xf32>, tensor<128x256xf32> -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// C rows of 66 bf16 (132 bytes) cannot be TMA-stored: each thread stores its
// fragments, bf16 pairs in whole tiles, element by element at the edges.
// CHECK:      .visible .entry nova_gemm_bf16_bf16_64x64x64_s2_c1_g1_k1(
// CHECK-NOT:  cp.async.bulk.tensor.3d.global
// CHECK-DAG:  st.global.b32
// CHECK-DAG:  st.global.b16
// CHECK-NOT:  cp.async.bulk.tensor.3d.global
func.func @direct_stores(%a: tensor<128x128xbf16>, %b: tensor<66x128xbf16>) -> tensor<128x66xbf16> {
  %0 = nova.matmul %a, %b {transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 64], warp_layout = [1, 1], mma_shape = [64, 64, 16], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1>} : tensor<128x128xbf16>, tensor<66x128xbf16> -> tensor<128x66xbf16>
  return %0 : tensor<128x66xbf16>
}

// -----

// A bf16 weight gradient with both operands stored [K, rows]: read MN-major
// (wgmma's transpose bits set, "mn" in the name), one [64 K, 64] TMA box per
// 64 rows of each operand.
// (LLVM lays the consumers' blocks out before the producer's.)
// CHECK:      .visible .entry nova_gemm_bf16_mn_f32_128x128x64_s4_c2_g1_k1_tma(
// CHECK:      wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1, 1;
// CHECK-COUNT-4: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT:  cp.async.bulk.tensor.3d.shared::cluster.global
func.func @weight_gradient(%g: tensor<512x256xbf16>, %x: tensor<512x128xbf16>) -> tensor<256x128xf32> {
  %0 = nova.matmul %g, %x {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [128, 128, 64], warp_layout = [2, 1], mma_shape = [64, 128, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1>} : tensor<512x256xbf16>, tensor<512x128xbf16> -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// Exact f32 (tf32x3): every 4 K steps the MMAs are drained and their
// accumulators added into f32 sums with round-to-nearest adds (32 per thread
// for a 64x64 tile) - the tensor cores' own accumulation loses low bits over
// long K.
// CHECK:      .visible .entry nova_gemm_tf32_f32_64x64x32_s2_c1_g1_k1_tma_p4(
// CHECK-DAG:  wgmma.wait_group.sync.aligned 0;
// CHECK-COUNT-32: add.rn.f32
func.func @exact_f32(%a: tensor<128x64xf32>, %b: tensor<96x64xf32>) -> tensor<128x96xf32> {
  %0 = nova.matmul %a, %b {transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "tf32x3", producer_warpgroups = 1>} : tensor<128x64xf32>, tensor<96x64xf32> -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}

// -----

// Cooperative: two consumers split each 128x256 tile's rows (one m64n256
// MMA each a K slice); 4 stages of 48 KiB beside their C box rings. Pinned
// with 2-CTA clusters (the configurator chooses none: measured no faster):
// the kernel declares its cluster shape, so a plain launch runs clusters; B
// is MN-major (4 boxes of 64 columns a stage) and each CTA loads 2 of them
// into both CTAs' stages (TMA multicast); a stage is freed by the 2 x 4
// consumer warps of each CTA, each arriving on its own CTA's empty barrier
// and on the peer's (mapa); cluster barriers after the barriers'
// initialization and before exit.
// CHECK:      .visible .entry nova_gemm_bf16_kn_bf16_128x256x64_s4_c2_g16_k1_tma_x2(
// CHECK:      .maxntid 384, 1, 1
// CHECK-NEXT: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// CHECK:      mov.b32 [[SIXTEEN:%r[0-9]+]], 16;
// CHECK:      mbarrier.init.shared.b64 [nova_gemm_shared+229408], [[SIXTEEN]];
// CHECK:      fence.mbarrier_init.release.cluster;
// CHECK:      barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait;
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG:  cp.async.bulk.wait_group.read 1;
// CHECK-DAG:  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CHECK-DAG:  complete_tx::bytes.multicast::cluster [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}+229376], %rs{{[0-9]+}};
// CHECK-DAG:  mbarrier.arrive.shared.b64
// CHECK-DAG:  mapa.shared::cluster.u64
// CHECK-DAG:  mbarrier.arrive.shared::cluster.b64 _,
// CHECK-NOT:  mbarrier.init.shared.b64 [nova_gemm_shared+229440]
// CHECK:      barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait;
// CHECK:      ret;
func.func @cooperative(%dy: tensor<16384x3072xbf16>, %w: tensor<3072x768xbf16>) -> tensor<16384x768xbf16> {
  %0 = nova.matmul %dy, %w {lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1], mma_shape = [64, 256, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1, cluster_m = 2, persistent_ctas = 132, raster_group = 16>} : tensor<16384x3072xbf16>, tensor<3072x768xbf16> -> tensor<16384x768xbf16>
  return %0 : tensor<16384x768xbf16>
}

// -----

// Stream-K (pinned: the configurator does not choose it) on gpt-146m's fc2
// weight gradient, 96 tiles of 128x192 for 132 SMs: each CTA runs its range
// of the tiles' K steps; a part that does not
// end its tile is shared through the CTA's scratch slot and counted on its
// flag (a release fence, then a relaxed add), and the CTA that ends a tile
// others began waits for their flags (acquire) after its range, adds the
// parts and stores the tile; each of its 2 consumers then counts itself on
// the flag, wrapping at 3 (atom.inc): the flags end as zero as they began.
// No spills: the accumulators stay 96 a thread.
// CHECK:      .visible .entry nova_gemm_bf16_mn_bf16_128x192x64_s4_c2_g4_k1_tma_sk(
// CHECK-DAG:  wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
// CHECK-DAG:  fence.acq_rel.gpu;
// CHECK-DAG:  atom.global.add.u32 {{.*}}, 1;
// CHECK-DAG:  atom.global.inc.u32 {{.*}}, 3;
// CHECK-DAG:  ld.acquire.gpu.global.b32
// CHECK-DAG:  cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
func.func @stream_k(%x: tensor<16384x768xbf16>, %g: tensor<16384x3072xbf16>) -> tensor<768x3072xbf16> {
  %0 = nova.matmul %x, %g {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [128, 192, 64], warp_layout = [2, 1], mma_shape = [64, 192, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma_stream_k", precision = "bf16", producer_warpgroups = 1, persistent_ctas = 132, raster_group = 4>} : tensor<16384x768xbf16>, tensor<16384x3072xbf16> -> tensor<768x3072xbf16>
  return %0 : tensor<768x3072xbf16>
}
