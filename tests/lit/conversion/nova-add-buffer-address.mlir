// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-add-buffer-address -verify-diagnostics | FileCheck %s
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --nova-add-buffer-address -verify-diagnostics | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=PTX
// RUN: not nova-opt %s --split-input-file --nova-add-buffer-address 2>&1 | FileCheck %s --check-prefix=NOUNREG

// A CUDA module gets @nova_buffer_address: one thread of Nova's kernel writes
// the device address of the argument's buffer (the runtime passes a buffer
// from IREE's queue allocation pool and keeps that pool's memory:
// runtime/cuda_pool.py). The module's own functions are left as they are.

// CHECK:       "hal.executable.source"() <{objects = #hal.executable.objects<{#hal.executable.target<"cuda", "cuda-nvptx-fb"> = [#hal.executable.object<{data = dense<"0x{{[0-9A-F]+}}"> : vector<{{[0-9]+}}xi8>}>]}>, sym_name = "nova_device_address", sym_visibility = "private"}> ({
// CHECK-NEXT:  "hal.executable.export"() <{layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>, ordinal = 0 : index, sym_name = "nova_device_address", sym_visibility = "public", workgroup_size = [1 : index, 1 : index, 1 : index]}>
// CHECK-LABEL: func.func @step
// CHECK-NEXT:    return %arg0
// CHECK-LABEL: func.func @nova_buffer_address
// CHECK-SAME:    (%[[B:.+]]: tensor<256xi8>) -> tensor<1xi64>
// CHECK:         %[[ONE:.+]] = arith.constant 1 : index
// CHECK:         %[[A:.+]] = "flow.dispatch"(%[[ONE]], %[[B]]) <{entry_points = [@nova_device_address::@nova_device_address], operandSegmentSizes = array<i32: 1, 1, 0, 0>, tied_operands = [-1 : index]}> : (index, tensor<256xi8>) -> tensor<1xi64>
// CHECK-NEXT:    return %[[A]] : tensor<1xi64>

// The kernel stores its first parameter, the buffer's address, through its
// second.
// PTX-LABEL: .visible .entry nova_device_address(
// PTX-NEXT:    .param .u64 .ptr .global .align 1 nova_device_address_param_0,
// PTX-NEXT:    .param .u64 .ptr .global .align 1 nova_device_address_param_1
// PTX:         ld.param.b64 %[[P0:.+]], [nova_device_address_param_0];
// PTX:         ld.param.b64 %[[P1:.+]], [nova_device_address_param_1];
// PTX:         st.global.b64 [%[[P1]]], %[[P0]];
// PTX-NEXT:    ret;
// NOUNREG:     error: 'builtin.module' op convert-nova-to-iree-kernels emits IREE's hal/flow ops unregistered
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{nova-add-buffer-address: the module already defines @nova_buffer_address}}
module {
  func.func @nova_buffer_address(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
