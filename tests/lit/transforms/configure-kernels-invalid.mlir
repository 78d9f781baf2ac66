// RUN: nova-opt %s --split-input-file --verify-diagnostics --nova-configure-kernels=target=sm_90

// A target option that contradicts the module's own target.
// expected-error @+1 {{target=sm_90 conflicts with the module's nova.target for sm_80}}
module attributes {nova.target = #nova.target<arch = "sm_80", sm_count = 108, shared_memory_per_sm = 167936, registers_per_sm = 65536, mma_shapes = [], peak_tflops = {bf16 = 312 : i64}, memory_bandwidth_gbps = 2039>} {
}
