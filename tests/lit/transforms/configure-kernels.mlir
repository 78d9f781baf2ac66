// RUN: nova-opt %s --split-input-file --nova-configure-kernels=target=sm_90 | FileCheck %s
// RUN: nova-opt %s --split-input-file --nova-configure-kernels=target=sm_80 | FileCheck %s --check-prefix=AMPERE
// RUN: nova-opt %s --split-input-file --nova-configure-kernels="target=sm_90 f32-matmul-precision=high" | FileCheck %s --check-prefix=TF32

// The known target is put on the module. A forward GEMM with many tiles
// (f32 results) and a short K: ping-pong 128x128 tiles (each consumer warp
// group owns a tile, one's epilogue under the other's MMAs), 6 stages beside
// the consumers' C box rings, a persistent grid of one CTA per SM, no
// clusters (measured no faster) and bands of 8 tile rows.
// CHECK: module attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472
// CHECK-LABEL: func.func @forward
// CHECK: nova.matmul {{.*}}lowering_config = #nova.lowering_config<tile_sizes = [128, 128, 64], warp_layout = [1, 1], mma_shape = [64, 128, 16], pipeline_stages = 6, swizzle = 128, kernel = "wgmma_tma_pingpong", precision = "bf16", producer_warpgroups = 1, persistent_ctas = 132, raster_group = 8>
// AMPERE: module attributes {nova.target = #nova.target<arch = "sm_80", sm_count = 108
// AMPERE-LABEL: func.func @forward
// AMPERE: lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 32], warp_layout = [2, 4], mma_shape = [16, 8, 16], pipeline_stages = 5, swizzle = 64, kernel = "mma_sync_cp_async", precision = "bf16", raster_group = 8>
func.func @forward(%x: tensor<16384x768xbf16>, %w: tensor<768x3072xbf16>) -> tensor<16384x3072xf32> {
  %0 = nova.matmul %x, %w : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xf32>
  return %0 : tensor<16384x3072xf32>
}

// -----

// A weight gradient: 24 output tiles for 132 SMs and K = 16384, so K is split
// over 5 CTAs per tile (N = 768 takes 192-wide tiles), cooperative: split-K
// leaves each CTA one tile.
// CHECK-LABEL: func.func @weight_gradient
// CHECK: lowering_config = #nova.lowering_config<tile_sizes = [128, 192, 64], warp_layout = [2, 1], mma_shape = [64, 192, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1, split_k = 5, raster_group = 4>, transpose_lhs}
// AMPERE-LABEL: func.func @weight_gradient
// AMPERE: lowering_config = #nova.lowering_config<tile_sizes = [64, 256, 32], {{.*}}, split_k = 3, raster_group = 8>
func.func @weight_gradient(%x: tensor<16384x768xbf16>, %g: tensor<16384x768xbf16>) -> tensor<768x768xf32> {
  %0 = nova.matmul %x, %g {transpose_lhs} : tensor<16384x768xbf16>, tensor<16384x768xbf16> -> tensor<768x768xf32>
  return %0 : tensor<768x768xf32>
}

// -----

// An MLP weight gradient (gpt-146m's fc1): 96 tiles of 128x192 fill 0.73 of
// a round of 132 SMs over 256 K steps, so stream-K: a persistent grid of 132
// CTAs splits the tiles' K steps evenly (186 or 187 each: a tile between
// two CTAs at most).
// CHECK-LABEL: func.func @stream_k
// CHECK: lowering_config = #nova.lowering_config<tile_sizes = [128, 192, 64], warp_layout = [2, 1], mma_shape = [64, 192, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma_stream_k", precision = "bf16", producer_warpgroups = 1, persistent_ctas = 132, raster_group = 8>, transpose_lhs}
func.func @stream_k(%g: tensor<16384x3072xbf16>, %x: tensor<16384x768xbf16>) -> tensor<3072x768xbf16> {
  %0 = nova.matmul %g, %x {transpose_lhs} : tensor<16384x3072xbf16>, tensor<16384x768xbf16> -> tensor<3072x768xbf16>
  return %0 : tensor<3072x768xbf16>
}

// -----

// The tied head (N = vocabulary, the weight stored [N, K]).
// CHECK-LABEL: func.func @head
// CHECK: lowering_config = #nova.lowering_config<tile_sizes = [128, 128, 64], {{.*}}, pipeline_stages = 6, {{.*}}kernel = "wgmma_tma_pingpong"{{.*}}, persistent_ctas = 132, raster_group = 8>, transpose_rhs}
func.func @head(%x: tensor<16384x512xbf16>, %wte: tensor<32000x512xbf16>) -> tensor<16384x32000xf32> {
  %0 = nova.matmul %x, %wte {transpose_rhs} : tensor<16384x512xbf16>, tensor<32000x512xbf16> -> tensor<16384x32000xf32>
  return %0 : tensor<16384x32000xf32>
}

// -----

// Attention's batched Q.K^T: the batch multiplies the tiles; K = 64 is one
// K step, so the pipeline has one stage.
// CHECK-LABEL: func.func @batched
// CHECK: lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 64], {{.*}}, pipeline_stages = 1, {{.*}}, persistent_ctas = 132, raster_group = 4>, transpose_rhs}
func.func @batched(%q: tensor<256x512x64xbf16>, %k: tensor<256x512x64xbf16>) -> tensor<256x512x512xf32> {
  %0 = nova.matmul %q, %k {transpose_rhs} : tensor<256x512x64xbf16>, tensor<256x512x64xbf16> -> tensor<256x512x512xf32>
  return %0 : tensor<256x512x512xf32>
}

// -----

// Small and odd: the smallest tile, no persistence, clusters or split.
// CHECK-LABEL: func.func @odd
// CHECK: lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 64], warp_layout = [1, 1], mma_shape = [64, 64, 16], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1>}
func.func @odd(%a: tensor<100x77xbf16>, %b: tensor<77x33xbf16>) -> tensor<100x33xf32> {
  %0 = nova.matmul %a, %b : tensor<100x77xbf16>, tensor<77x33xbf16> -> tensor<100x33xf32>
  return %0 : tensor<100x33xf32>
}

// -----

// f32 without a precision setting: torch's default ("highest") is kept with
// three TF32 products; BK is 32 f32 elements (128 bytes), the MMA k 8; the
// accumulator gets half the registers (the kernel keeps f32 sums beside it):
// ping-pong 64x128 tiles.
// CHECK-LABEL: func.func @f32_highest
// CHECK: lowering_config = #nova.lowering_config<tile_sizes = [64, 128, 32], warp_layout = [1, 1], mma_shape = [64, 128, 8], {{.*}}, kernel = "wgmma_tma_pingpong", precision = "tf32x3"
// torch.set_float32_matmul_precision("high") at capture: TF32.
// TF32-LABEL: func.func @f32_highest
// TF32: lowering_config = #nova.lowering_config<{{.*}}mma_shape = [64, {{[0-9]+}}, 8], {{.*}}, precision = "tf32"
func.func @f32_highest(%x: tensor<16384x768xf32>, %w: tensor<768x3072xf32>) -> tensor<16384x3072xf32> {
  %0 = nova.matmul %x, %w : tensor<16384x768xf32>, tensor<768x3072xf32> -> tensor<16384x3072xf32>
  return %0 : tensor<16384x3072xf32>
}

// -----

// A matmul that already has a configuration keeps it.
// CHECK-LABEL: func.func @preconfigured
// CHECK: lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 64], warp_layout = [1, 1], mma_shape = [64, 64, 16], pipeline_stages = 2, swizzle = 128>}
func.func @preconfigured(%x: tensor<16384x768xbf16>, %w: tensor<768x3072xbf16>) -> tensor<16384x3072xf32> {
  %0 = nova.matmul %x, %w {lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 64], warp_layout = [1, 1], mma_shape = [64, 64, 16], pipeline_stages = 2, swizzle = 128>} : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xf32>
  return %0 : tensor<16384x3072xf32>
}

// -----

// An MLP's GELU backward in the epilogue of its 16384x3072x768 input
// gradient, its pre-activation staged in shared memory: at most 64
// accumulators a consumer thread (ptxas serializes a ping-pong 128x128
// consumer's MMAs around the region), so two consumers split a 128x128
// tile; the staged tile (32 KiB) leaves room for 5 stages.
// CHECK-LABEL: func.func @staged_epilogue
// CHECK: nova.matmul {{.*}}lowering_config = #nova.lowering_config<tile_sizes = [128, 128, 64], warp_layout = [2, 1], mma_shape = [64, 128, 16], pipeline_stages = 5, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1, persistent_ctas = 132, raster_group = 8>
func.func @staged_epilogue(%dy: tensor<16384x768xbf16>, %w: tensor<768x3072xbf16>, %h: tensor<16384x3072xbf16>) -> tensor<16384x3072xbf16> {
  %r = nova.fused(%dy, %w, %h) : (tensor<16384x768xbf16>, tensor<768x3072xbf16>, tensor<16384x3072xbf16>) -> tensor<16384x3072xbf16> {
  ^bb0(%lhs: tensor<16384x768xbf16>, %rhs: tensor<768x3072xbf16>, %x: tensor<16384x3072xbf16>):
    %d = nova.matmul %lhs, %rhs : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xbf16>
    %p32 = nova.cast %x : tensor<16384x3072xbf16> -> tensor<16384x3072xf32>
    %t = nova.tanh %p32 : tensor<16384x3072xf32>
    %d32 = nova.cast %d : tensor<16384x3072xbf16> -> tensor<16384x3072xf32>
    %dx = nova.mul %d32, %t : tensor<16384x3072xf32>
    %out = nova.cast %dx : tensor<16384x3072xf32> -> tensor<16384x3072xbf16>
    nova.yield %out : tensor<16384x3072xbf16>
  }
  return %r : tensor<16384x3072xbf16>
}
