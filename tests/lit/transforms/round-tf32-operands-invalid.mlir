// RUN: nova-opt %s --nova-round-tf32-operands="target=sm_90 f32-matmul-precision=low" -verify-diagnostics

// expected-error @+1 {{f32-matmul-precision must be highest, high or medium, got 'low'}}
module {
}
