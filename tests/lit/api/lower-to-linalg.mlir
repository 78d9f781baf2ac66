// RUN: nova-opt %s --pass-pipeline="builtin.module(nova-lower-to-linalg{target=cuda:sm_90 f32-matmul-precision=high})" --mlir-print-ir-after=nova-configure-kernels 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: nova-opt %s --pass-pipeline="builtin.module(nova-lower-to-linalg{target=cpu})" | FileCheck %s --check-prefix=CPU

// For CUDA the configurator runs before the lowering (with torch's f32 matmul
// precision), and nothing of nova, its module attributes included, is left.
// CUDA: IR Dump After NovaConfigureKernels
// CUDA: module attributes {nova.target = #nova.target<arch = "sm_90"
// CUDA: nova.matmul {{.*}}kernel = "wgmma_tma", precision = "tf32"
// CUDA: {{^}}module {
// CUDA-NOT: nova
// CUDA: linalg.generic
// CUDA-NOT: nova
// CPU-NOT: nova
// CPU: linalg.generic
// CPU-NOT: nova
func.func @mm(%a: tensor<256x128xf32>, %b: tensor<128x64xf32>) -> tensor<256x64xf32> {
  %0 = nova.matmul %a, %b : tensor<256x128xf32>, tensor<128x64xf32> -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
