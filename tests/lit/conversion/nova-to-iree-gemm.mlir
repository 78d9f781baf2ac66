// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-nova-to-iree-kernels | FileCheck %s
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-nova-to-iree-kernels=poison-outputs=true | FileCheck %s --check-prefix=POISON

// A "wgmma_tma" matmul becomes a dispatch of Nova's GEMM kernel. A bf16
// rhs stored [K, N] is read as it is (MN-major, "kn" in the kernel's name).
// Its bindings are A, B (read-only), C and the per-CTA tensor-map scratch (both
// written whole: untied results IREE allocates, so no copy of a shared empty
// tensor precedes the dispatch), then M, N, K, batch; the workload is the grid (one CTA per tile
// here), 384 bytes of scratch per CTA (three tensor maps); dynamic shared
// memory = stages x (128 + 192) x 128 bytes + a ring of two 8 KiB C boxes
// per consumer + the mbarriers.
// CHECK-LABEL: "hal.executable.source"
// CHECK-SAME:    sym_name = "nova_gemm_bf16_kn_bf16_128x192x64_s2_c2_g1_k1_tma"
// CHECK:         "hal.executable.export"() <{layout = #hal.pipeline.layout<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
// CHECK-SAME:    workgroup_local_memory = 114720 : index, workgroup_size = [384 : index, 1 : index, 1 : index]
// CHECK:         "hal.return"(%arg1, %{{.+}}, %{{.+}})
// CHECK-LABEL: func.func @nn_bf16
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[A:.+]] = tensor.expand_shape %arg0 {{.*}} into tensor<1x256x128xbf16>
// CHECK-DAG:     %[[B:.+]] = tensor.expand_shape %arg1 {{.*}} into tensor<1x128x192xbf16>
// CHECK-DAG:     %[[GRID:.+]] = arith.constant 2 : index
// CHECK-NOT:     tensor.empty
// CHECK:         %[[R:.+]]:2 = "flow.dispatch"(%[[GRID]], %[[A]], %[[B]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) <{entry_points = [@nova_gemm_bf16_kn_bf16_128x192x64_s2_c2_g1_k1_tma::@nova_gemm_bf16_kn_bf16_128x192x64_s2_c2_g1_k1_tma], operandSegmentSizes = array<i32: 1, 6, 0, 0>, tied_operands = [-1 : index, -1 : index]}> : (index, tensor<1x256x128xbf16>, tensor<1x128x192xbf16>, i32, i32, i32, i32) -> (tensor<1x256x192xbf16>, tensor<192xi32>)
// CHECK:         tensor.collapse_shape %[[R]]#0 {{.*}} into tensor<256x192xbf16>
// POISON-LABEL: func.func @nn_bf16
// POISON:         %[[NAN:.+]] = arith.constant 0x7FC1 : bf16
// POISON:         %[[C:.+]] = linalg.fill ins(%[[NAN]] : bf16) outs(%{{.+}} : tensor<1x256x192xbf16>)
// POISON:         "flow.dispatch"(%{{.+}}, %{{.+}}, %{{.+}}, %[[C]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {{.*}} tied_operands = [2 : index, -1 : index]
func.func @nn_bf16(%a: tensor<256x128xbf16>, %b: tensor<128x192xbf16>) -> tensor<256x192xbf16> {
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [128, 192, 64], warp_layout = [2, 1], mma_shape = [64, 192, 16], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1>} : tensor<256x128xbf16>, tensor<128x192xbf16> -> tensor<256x192xbf16>
  return %0 : tensor<256x192xbf16>
}

// -----

// A weight gradient (lhs stored [K, M], rhs [K, N]: both read MN-major)
// split over K three ways: f32 partial sums [split, batch, M, N], summed and
// rounded to bf16 after.
// CHECK-LABEL: func.func @tn_split_k
// CHECK-NOT:     linalg.generic
// CHECK:         %[[A:.+]] = tensor.expand_shape %arg0 {{.*}} into tensor<1x4096x64xbf16>
// CHECK:         %[[B:.+]] = tensor.expand_shape %arg1 {{.*}} into tensor<1x4096x128xbf16>
// CHECK:         %[[R:.+]]:2 = "flow.dispatch"(%{{.+}}, %[[A]], %[[B]], {{.*}}@nova_gemm_bf16_mn_partial_64x128x64_s4_c1_g1_k3_tma::
// CHECK:         %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[R]]#0 : tensor<3x1x64x128xf32>) outs(%{{.+}} : tensor<1x64x128xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x64x128xf32>) outs(%{{.+}} : tensor<1x64x128xbf16>)
// CHECK:           arith.truncf
func.func @tn_split_k(%a: tensor<4096x64xbf16>, %b: tensor<4096x128xbf16>) -> tensor<64x128xbf16> {
  %0 = nova.matmul %a, %b {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 128, 64], warp_layout = [1, 1], mma_shape = [64, 128, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "bf16", producer_warpgroups = 1, split_k = 3>} : tensor<4096x64xbf16>, tensor<4096x128xbf16> -> tensor<64x128xbf16>
  return %0 : tensor<64x128xbf16>
}

// -----

// Stream-K: the persistent grid's CTAs (persistent_ctas, not the tiles) and
// their flags, zeros read as an input (a result tied to zeros would keep
// IREE from placing C in its consumer) that the kernel leaves zero: one fill
// per GEMM of a length of its own (grid + the GEMM's ordinal), so no two
// GEMMs share them. C is bf16: no partial sums after.
// CHECK:       "hal.executable.export"() <{layout = #hal.pipeline.layout<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>{{.*}}sym_name = "nova_gemm_bf16_mn_bf16_64x128x64_s4_c1_g1_k1_tma_sk"
// CHECK-LABEL: func.func @stream_k
// CHECK:         %[[F0:.+]] = linalg.fill ins(%c0_i32 : i32) outs(%{{.+}} : tensor<7xi32>) -> tensor<7xi32>
// CHECK:         %[[R:.+]]:2 = "flow.dispatch"(%c7, %{{.+}}, %{{.+}}, %[[F0]], {{.*}}@nova_gemm_bf16_mn_bf16_64x128x64_s4_c1_g1_k1_tma_sk::{{.*}}tied_operands = [-1 : index, -1 : index]{{.*}} -> (tensor<1x64x128xbf16>, tensor<{{[0-9]+}}xi32>)
// CHECK-NOT:     linalg.generic
// CHECK:         tensor.collapse_shape %[[R]]#0
// CHECK:         %[[F1:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<6xi32>) -> tensor<6xi32>
// CHECK:         "flow.dispatch"(%c5, %{{.+}}, %{{.+}}, %[[F1]],
// POISON-LABEL: func.func @stream_k
// POISON:         "flow.dispatch"({{.*}}tied_operands = [3 : index, -1 : index]{{.*}} -> (tensor<1x64x128xbf16>, tensor<{{[0-9]+}}xi32>)
func.func @stream_k(%a: tensor<4096x64xbf16>, %b: tensor<4096x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>) {
  %0 = nova.matmul %a, %b {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 128, 64], warp_layout = [1, 1], mma_shape = [64, 128, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma_stream_k", precision = "bf16", producer_warpgroups = 1, persistent_ctas = 7>} : tensor<4096x64xbf16>, tensor<4096x128xbf16> -> tensor<64x128xbf16>
  %1 = nova.matmul %a, %b {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 128, 64], warp_layout = [1, 1], mma_shape = [64, 128, 16], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma_stream_k", precision = "bf16", producer_warpgroups = 1, persistent_ctas = 5>} : tensor<4096x64xbf16>, tensor<4096x128xbf16> -> tensor<64x128xbf16>
  return %0, %1 : tensor<64x128xbf16>, tensor<64x128xbf16>
}

// -----

// TF32 wgmma reads only K-major operands: a rhs stored [K, N] goes to the
// GEMM as it is ([1, K, N], unrounded), which transposes and rounds it in
// shared memory ("kn" in its name); the lhs is rounded by linalg.
// CHECK-LABEL: func.func @tf32_nn
// CHECK-NOT:     nova_transpose
// CHECK:         %[[A:.+]] = tensor.expand_shape %arg0
// CHECK:         %[[B:.+]] = tensor.expand_shape %arg1 {{.*}} into tensor<1x64x96xf32>
// CHECK:         %[[AR:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<1x128x64xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         "flow.dispatch"(%c4, %[[AR]], %[[B]], {{.*}}@nova_gemm_tf32_kn_f32_64x64x32_s2_c1_g1_k1_tma::
func.func @tf32_nn(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>) -> tensor<128x96xf32> {
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1>} : tensor<128x64xf32>, tensor<64x96xf32> -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}

// -----

// Rows of 98 f32 are not 16-byte multiples (TMA strides): that rhs is made
// K-major and rounded to TF32 in one pass by Nova's transpose kernel (64 x 64
// tiles: 1 along R, 2 along C; a dense source: 1 head, offset 0, rows of 98;
// rows of 64 written).
// CHECK-LABEL: func.func @tf32_nn_unaligned
// CHECK:         %[[BT:.+]] = "flow.dispatch"(%c2, %arg1, %c64_i32, %c98_i32, %c2_i32, %c2_i32, %c1_i32, %c0_i32, %c98_i32, %c0_i32, %c64_i32) <{entry_points = [@nova_transpose_f32_tf32::@nova_transpose_f32_tf32]{{.*}} -> tensor<1x98x64xf32>
// CHECK:         %[[BC:.+]] = tensor.collapse_shape %[[BT]]
// CHECK:         %[[A:.+]] = tensor.expand_shape %arg0
// CHECK:         %[[B:.+]] = tensor.expand_shape %[[BC]]
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<1x128x64xf32>)
// CHECK-NOT:     linalg.generic {{.*}} ins(%[[B]]
// CHECK:         "flow.dispatch"{{.*}}@nova_gemm_tf32_f32_64x64x32_s2_c1_g1_k1::
func.func @tf32_nn_unaligned(%a: tensor<128x64xf32>, %b: tensor<64x98xf32>) -> tensor<128x98xf32> {
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1>} : tensor<128x64xf32>, tensor<64x98xf32> -> tensor<128x98xf32>
  return %0 : tensor<128x98xf32>
}

// -----

// Where the kernel transposes a TF32 operand is the model's choice
// (transposesInSharedMemory): every tile reads and writes its rows once more
// in shared memory, against one pass in memory. A weight gradient of
// 3072x768 over K = 16384: the 3072-row A [K, M] is read as it is ("m"; 3
// column tiles re-read it), the 768-row B goes through the transpose kernel
// (24 row tiles would re-read it). An input gradient's weight (768x3072) is
// transposed in memory.
// CHECK-LABEL: func.func @tf32_weight_gradient
// CHECK:         "flow.dispatch"(%c3072, %arg1, %c16384_i32, %c768_i32, {{.*}}@nova_transpose_f32_tf32::
// CHECK:         "flow.dispatch"{{.*}}@nova_gemm_tf32_mk_f32_128x256x32_s4_c2_g4_k1_tma_sk::
// CHECK-LABEL: func.func @tf32_input_gradient
// CHECK:         "flow.dispatch"(%c576, %arg1, %c768_i32, %c3072_i32, {{.*}}@nova_transpose_f32_tf32::
// CHECK:         "flow.dispatch"{{.*}}@nova_gemm_tf32_f32_256x128x32_s4_c2_g8_k1_tma_x2::
func.func @tf32_weight_gradient(%g: tensor<16384x3072xf32>, %x: tensor<16384x768xf32>) -> tensor<3072x768xf32> {
  %0 = nova.matmul %g, %x {transpose_lhs, lowering_config = #nova.lowering_config<tile_sizes = [128, 256, 32], warp_layout = [2, 1], mma_shape = [64, 256, 8], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma_stream_k", precision = "tf32", producer_warpgroups = 1, persistent_ctas = 132, raster_group = 4>} : tensor<16384x3072xf32>, tensor<16384x768xf32> -> tensor<3072x768xf32>
  return %0 : tensor<3072x768xf32>
}
func.func @tf32_input_gradient(%g: tensor<16384x768xf32>, %w: tensor<768x3072xf32>) -> tensor<16384x3072xf32> {
  %0 = nova.matmul %g, %w {lowering_config = #nova.lowering_config<tile_sizes = [256, 128, 32], warp_layout = [2, 1], mma_shape = [64, 128, 8], pipeline_stages = 4, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1, cluster_m = 2, persistent_ctas = 132, raster_group = 8>} : tensor<16384x768xf32>, tensor<768x3072xf32> -> tensor<16384x3072xf32>
  return %0 : tensor<16384x3072xf32>
}

// -----

// TF32 operands rounded where they are made (nova-round-tf32-operands), here
// by nova.round_tf32 itself and by a nova.fused region yielding one through a
// reshape, are not rounded again.
// CHECK-LABEL: func.func @tf32_rounded_operands
// CHECK:         nova.round_tf32 %arg0
// CHECK:         nova.fused
// CHECK-NOT:     linalg.generic
// CHECK:         "flow.dispatch"{{.*}}@nova_gemm_tf32_f32_64x64x32_s2_c1_g1_k1_tma::
func.func @tf32_rounded_operands(%a: tensor<128x64xf32>, %b: tensor<96x64xf32>) -> tensor<128x96xf32> {
  %ra = nova.round_tf32 %a : tensor<128x64xf32>
  %f = nova.fused(%b) : (tensor<96x64xf32>) -> tensor<96x64xf32> {
  ^bb0(%x: tensor<96x64xf32>):
    %y = nova.mul %x, %x : tensor<96x64xf32>
    %r = nova.round_tf32 %y : tensor<96x64xf32>
    %v = nova.reshape %r : tensor<96x64xf32> -> tensor<96x64xf32>
    nova.yield %v : tensor<96x64xf32>
  }
  %0 = nova.matmul %ra, %f {transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1>} : tensor<128x64xf32>, tensor<96x64xf32> -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}

// -----

// TF32: K = 30 f32 is 120 bytes, not a multiple of 16, so both operands are
// zero-padded to 32, then rounded to nearest TF32 (+0x1000, clear 13 bits);
// the batch is the tensor maps' third dim; a persistent grid of 4 CTAs; C
// rows of 50 f32 (200 bytes) are stored without TMA.
// CHECK-LABEL: func.func @tf32_batched_odd_k
// CHECK:         %[[PA:.+]] = tensor.pad %arg0 low[0, 0, 0] high[0, 0, 2]
// CHECK:         %[[PB:.+]] = tensor.pad %arg1 low[0, 0, 0] high[0, 0, 2]
// CHECK:         %[[RA:.+]] = linalg.generic {{.*}} ins(%[[PA]] : tensor<3x100x32xf32>)
// CHECK-DAG:       arith.constant -8192 : i32
// CHECK-DAG:       arith.constant 4096 : i32
// CHECK:         %[[RB:.+]] = linalg.generic {{.*}} ins(%[[PB]] : tensor<3x50x32xf32>)
// CHECK-DAG:     %[[K:.+]] = arith.constant 32 : i32
// CHECK-DAG:     %[[BATCH:.+]] = arith.constant 3 : i32
// CHECK-DAG:     %[[GRID:.+]] = arith.constant 4 : index
// CHECK:         "flow.dispatch"(%[[GRID]], %[[RA]], %[[RB]], %{{.+}}, %{{.+}}, %[[K]], %[[BATCH]]) {{.*}}@nova_gemm_tf32_f32_64x64x32_s1_c1_g1_k1::{{.*}} -> (tensor<3x100x50xf32>, tensor<384xi32>)
func.func @tf32_batched_odd_k(%a: tensor<3x100x30xf32>, %b: tensor<3x50x30xf32>) -> tensor<3x100x50xf32> {
  %0 = nova.matmul %a, %b {transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 1, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1, persistent_ctas = 4>} : tensor<3x100x30xf32>, tensor<3x50x30xf32> -> tensor<3x100x50xf32>
  return %0 : tensor<3x100x50xf32>
}

// -----

// Exact f32 ("tf32x3", torch's "highest"): each operand is split into its
// TF32 rounding (hi) and the rounded rest (lo), laid side by side along K as
// [hi, hi, lo] and [hi, lo, hi], so one TF32 GEMM over 3 K sums
// hi*hi + hi*lo + lo*hi, promoting its accumulators into f32 sums every 4
// K steps ("_p4").
// CHECK-LABEL: func.func @exact_f32
// CHECK:         %[[AHI:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<1x128x64xf32>)
// CHECK:         %[[AREST:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[AHI]] : tensor<1x128x64xf32>, tensor<1x128x64xf32>)
// CHECK:           arith.subf
// CHECK:         %[[ALO:.+]] = linalg.generic {{.*}} ins(%[[AREST]] : tensor<1x128x64xf32>)
// CHECK:         %[[A0:.+]] = tensor.empty() : tensor<1x128x192xf32>
// CHECK:         %[[A1:.+]] = tensor.insert_slice %[[AHI]] into %[[A0]][0, 0, 0] [1, 128, 64] [1, 1, 1]
// CHECK:         %[[A2:.+]] = tensor.insert_slice %[[AHI]] into %[[A1]][0, 0, 64] [1, 128, 64] [1, 1, 1]
// CHECK:         %[[A:.+]] = tensor.insert_slice %[[ALO]] into %[[A2]][0, 0, 128] [1, 128, 64] [1, 1, 1]
// CHECK:         tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0] [1, 96, 64]
// CHECK:         tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 64] [1, 96, 64]
// CHECK:         %[[B:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 128] [1, 96, 64]
// CHECK:         %[[K:.+]] = arith.constant 192 : i32
// CHECK:         "flow.dispatch"(%{{.+}}, %[[A]], %[[B]], %{{.+}}, %{{.+}}, %[[K]], %{{.+}}) {{.*}}@nova_gemm_tf32_f32_64x64x32_s2_c1_g1_k1_tma_p4::
func.func @exact_f32(%a: tensor<128x64xf32>, %b: tensor<96x64xf32>) -> tensor<128x96xf32> {
  %0 = nova.matmul %a, %b {transpose_rhs, lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "tf32x3", producer_warpgroups = 1>} : tensor<128x64xf32>, tensor<96x64xf32> -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}

// -----

// No kernel for f16 yet, and an unconfigured matmul: both stay for IREE.
// CHECK-LABEL: func.func @stays
// CHECK-NOT:     flow.dispatch
// CHECK:         nova.matmul {{.*}}precision = "f16"
// CHECK:         nova.matmul %arg2, %arg3 :
func.func @stays(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x32xbf16>, %d: tensor<32x64xbf16>) -> (tensor<64x64xf16>, tensor<64x64xbf16>) {
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 64], warp_layout = [1, 1], mma_shape = [64, 64, 16], pipeline_stages = 1, swizzle = 128, kernel = "wgmma_tma", precision = "f16", producer_warpgroups = 1>} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
  %1 = nova.matmul %c, %d : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xbf16>
  return %0, %1 : tensor<64x64xf16>, tensor<64x64xbf16>
}
