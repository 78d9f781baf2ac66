// RUN: nova-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(nova-lower-to-linalg{target=cuda:sm_90 f32-matmul-precision=high})" --mlir-print-ir-after=nova-configure-kernels 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: nova-opt %s --pass-pipeline="builtin.module(nova-lower-to-linalg{target=cpu})" | FileCheck %s --check-prefix=CPU
// RUN: nova-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(nova-lower-to-linalg{target=cuda:sm_90 sm-count=114 shared-memory-per-sm=233472})" --mlir-print-ir-after=nova-configure-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU

// For CUDA the configurator runs before the lowering (with torch's f32 matmul
// precision), the configured matmul becomes a dispatch of Nova's GEMM kernel
// (its N-major rhs transposed to K-major and rounded to TF32 by the GEMM in
// shared memory, its lhs rounded by nova-round-tf32-operands'
// nova.round_tf32, here a row kernel of its own), and nothing of the nova
// dialect, its module attributes included, is left.
// CUDA: IR Dump After NovaConfigureKernels
// CUDA: module attributes {nova.target = #nova.target<arch = "sm_90"
// CUDA: nova.fused(%arg0)
// CUDA: nova.round_tf32
// CUDA: nova.matmul {{.*}}kernel = "wgmma_tma", precision = "tf32"
// CUDA: {{^}}module {
// CUDA-NOT: nova.
// CUDA: "hal.executable.source"{{.*}}sym_name = "nova_fused_rows_256x128_
// CUDA-NOT: nova_transpose
// CUDA: "hal.executable.source"{{.*}}sym_name = "nova_gemm_tf32_kn_f32_64x64x32_s4_c1_g1_k1_tma"
// CUDA-NOT: linalg.generic
// CUDA: "flow.dispatch"{{.*}}@nova_gemm_tf32_kn_f32_64x64x32_s4_c1_g1_k1_tma::@nova_gemm_tf32_kn_f32_64x64x32_s4_c1_g1_k1_tma
// CUDA-NOT: nova.
// Compiling on a GPU, its SM count and shared memory replace the table's
// (an H100 PCIe has 114 SMs).
// GPU: module attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 114, shared_memory_per_sm = 233472
// CPU-NOT: nova
// CPU: linalg.generic
// CPU-NOT: nova
func.func @mm(%a: tensor<256x128xf32>, %b: tensor<128x64xf32>) -> tensor<256x64xf32> {
  %0 = nova.matmul %a, %b : tensor<256x128xf32>, tensor<128x64xf32> -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
