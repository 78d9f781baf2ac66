// RUN: nova-opt %s --split-input-file --verify-diagnostics --nova-configure-kernels="target=sm_90 remarks=true"

// A target option that contradicts the module's own target.
// expected-error @+1 {{target=sm_90 conflicts with the module's nova.target for sm_80}}
module attributes {nova.target = #nova.target<arch = "sm_80", sm_count = 108, shared_memory_per_sm = 167936, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {bf16 = 312 : i64}, memory_bandwidth_gbps = 2039>} {
}

// -----

// With remarks=true each matmul reports the model's numbers, or why it was
// left to IREE's code generation.
func.func @remarks(%x: tensor<16384x768xbf16>, %w: tensor<768x3072xbf16>, %d: tensor<?x64xbf16>,
                   %e: tensor<64x64xbf16>, %i: tensor<64x64xi8>) {
  // expected-remark @+1 {{16384x3072x768 (batch 1, bf16): tiles 1536, waves 11.64, compute}}
  %0 = nova.matmul %x, %w : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xf32>
  // expected-remark @+1 {{not configured: dynamic shapes}}
  %1 = nova.matmul %d, %e : tensor<?x64xbf16>, tensor<64x64xbf16> -> tensor<?x64xf32>
  // expected-remark @+1 {{not configured: no tensor-core path for this element type}}
  %2 = nova.matmul %i, %i : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  return
}
