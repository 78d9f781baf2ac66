// RUN: nova-opt %s --allow-unregistered-dialect --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s

// A TF32 GEMM whose rhs is stored [K, N] (N-major) with rows of 98 f32 (not
// a multiple of 16 bytes, which TMA needs to read it as it is): Nova's
// transpose kernel makes it K-major and rounds it to TF32 in the same pass. One 64 x 64 tile a
// block of 256 threads through a padded shared tile (65 words a row). Whole
// tiles with 16-byte aligned rows: four 16-byte loads along C issued first,
// rounding (+0x1000, clear the low 13 bits), a barrier, four 16-byte stores
// along R; edge tiles element by element.

// CHECK-LABEL: .visible .entry nova_transpose_f32_tf32(
// CHECK-COUNT-2: .param .u64 .ptr .global
// CHECK-COUNT-9: .param .u32
// CHECK:      .maxntid 256, 1, 1
// CHECK:      .shared .align 16 .b8 nova_transpose_tile[16640];
// CHECK-COUNT-4: ld.global.nc.v4.b32
// CHECK-NOT:  st.shared
// CHECK:      add.s32 {{.*}}, 4096;
// CHECK:      and.b32 {{.*}}, -8192;
// CHECK:      st.shared.b32
// CHECK:      bar.sync 0;
// CHECK:      ld.shared.b32
// CHECK:      st.global.v4.b32
// CHECK:      ld.global.nc.b32
// CHECK:      add.s32 {{.*}}, 4096;
// CHECK:      st.shared.b32
// CHECK:      bar.sync 0;
// CHECK:      ld.shared.b32
// CHECK:      st.global.b32
func.func @tf32_nn(%a: tensor<128x64xf32>, %b: tensor<64x98xf32>) -> tensor<128x98xf32> {
  %0 = nova.matmul %a, %b {lowering_config = #nova.lowering_config<tile_sizes = [64, 64, 32], warp_layout = [1, 1], mma_shape = [64, 64, 8], pipeline_stages = 2, swizzle = 128, kernel = "wgmma_tma", precision = "tf32", producer_warpgroups = 1>} : tensor<128x64xf32>, tensor<64x98xf32> -> tensor<128x98xf32>
  return %0 : tensor<128x98xf32>
}
