// RUN: nova-opt %s --split-input-file --verify-diagnostics --nova-configure-kernels
// RUN: not nova-opt %s --split-input-file --nova-configure-kernels=target=sm_75 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not nova-opt %s --split-input-file --nova-configure-kernels="target=sm_90 f32-matmul-precision=fast" 2>&1 | FileCheck %s --check-prefix=PRECISION

// No target: an error that names the way out.
// expected-error @+1 {{no nova.target on the module: set one or pass target=<arch> (known: sm_80, sm_86, sm_89, sm_90)}}
module {
}

// -----

// An unknown architecture.
// UNKNOWN: error: unknown target 'sm_75' (known: sm_80, sm_86, sm_89, sm_90)
// PRECISION: error: f32-matmul-precision must be highest, high or medium, got 'fast'

// A target without tensor-core peak for the operands' type: left to IREE.
module attributes {nova.target = #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {f32 = 67 : i64}, memory_bandwidth_gbps = 4800>} {
  func.func @f(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
    // expected-warning @+1 {{not configured: sm_90 has no peak_tflops for bf16}}
    %0 = nova.matmul %a, %b : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    return %0 : tensor<64x64xf32>
  }
}
