// RUN: nova-opt %s --allow-unregistered-dialect --convert-nova-to-iree-kernels | %python %lit_tools/print-executable-objects.py | FileCheck %s

// Nova's scatter-add kernel, built with the gpu/llvm dialects and serialized
// to PTX by MLIR (gpu-lower-to-nvvm): PTX 6.0 for sm_60, so the driver JITs
// it for any newer GPU; IREE's ABI (three 64-bit bindings, then three i32
// constants); 256 threads; invariant loads of indices and updates; an
// atomic f32 add into the row, skipped for indices outside [0, V).
// CHECK:      .version 6.0
// CHECK:      .target sm_60
// CHECK:      .visible .entry nova_scatter_add_f32(
// CHECK-NEXT:   .param .u64 {{.*}}_param_0,
// CHECK-NEXT:   .param .u64 {{.*}}_param_1,
// CHECK-NEXT:   .param .u64 {{.*}}_param_2,
// CHECK-NEXT:   .param .u32 {{.*}}_param_3,
// CHECK-NEXT:   .param .u32 {{.*}}_param_4,
// CHECK-NEXT:   .param .u32 {{.*}}_param_5
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 256, 1, 1
// CHECK:        setp.ge.u32 %p{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK:        div.u32
// CHECK:        ld.global.nc.b64 %rd{{[0-9]+}}
// CHECK:        setp.ge.u64
// CHECK:        ld.global.nc.b32
// CHECK:        {{atom|red}}.global.add.f32
// CHECK:        ret;
// CHECK-NOT:  .entry
func.func @scatter_add(%d: tensor<10x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3x4xf32>) -> tensor<10x4xf32> {
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32> -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
