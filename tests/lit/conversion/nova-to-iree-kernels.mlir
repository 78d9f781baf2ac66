// RUN: nova-opt %s --allow-unregistered-dialect --convert-nova-to-iree-kernels --convert-nova-to-linalg | FileCheck %s
// RUN: nova-opt %s --allow-unregistered-dialect --convert-nova-to-iree-kernels --convert-nova-to-linalg --mlir-print-op-generic | nova-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: not nova-opt %s --convert-nova-to-iree-kernels --convert-nova-to-linalg 2>&1 | FileCheck %s --check-prefix=NOUNREG

// For CUDA, an f32 scatter_add dispatches Nova's own PTX kernel (one thread
// per update element, atomic add into the row) instead of IREE's scatter,
// which IREE 3.13 runs on one GPU thread. The executable is declared once,
// the PTX inline; bindings dest (rw), indices (ro), updates (ro), then the
// i32 constants total, row size, rows.

// CHECK-LABEL: "hal.executable.source"() <{objects = #hal.executable.objects<{#hal.executable.target<"cuda", "cuda-nvptx-fb"> = [#hal.executable.object<{data = dense<"0x{{[0-9A-F]+}}"> : vector<{{[0-9]+}}xi8>}>]}>, sym_name = "nova_scatter_add", sym_visibility = "private"}> ({
// CHECK-NEXT:  "hal.executable.export"() <{layout = #hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">], flags = Indirect>, ordinal = 0 : index, sym_name = "nova_scatter_add_f32", sym_visibility = "public", workgroup_size = [256 : index, 1 : index, 1 : index]}> ({
// CHECK-NEXT:  ^bb0(%{{.+}}: !hal.device, %[[W:.+]]: index):
// CHECK:         %[[B:.+]] = arith.ceildivui %[[W]], %{{.+}} : index
// CHECK:         "hal.return"(%[[B]], %[[ONE:.+]], %[[ONE]]) : (index, index, index) -> ()
// CHECK-NEXT:  }, {
// CHECK-NEXT:  }) : () -> ()
// CHECK-NEXT:  "hal.executable.source_end"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NOT:  hal.executable.source

// Indices and updates flattened to [N] and [N, D]; the kernel accumulates
// into a fresh zero table tied to its result, dest is added after.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME:  (%[[D:[[:alnum:]_]+]]: tensor<10x4xf32>, %[[I:[[:alnum:]_]+]]: tensor<2x3xi64>, %[[U:[[:alnum:]_]+]]: tensor<2x3x4xf32>)
// CHECK-DAG:   %[[I1:.+]] = tensor.collapse_shape %[[I]] {{\[}}[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK-DAG:   %[[U1:.+]] = tensor.collapse_shape %[[U]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-DAG:   %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<10x4xf32>)
// CHECK-DAG:   %[[WL:.+]] = arith.constant 24 : index
// CHECK-DAG:   %[[TOTAL:.+]] = arith.constant 24 : i32
// CHECK-DAG:   %[[ROW:.+]] = arith.constant 4 : i32
// CHECK-DAG:   %[[ROWS:.+]] = arith.constant 10 : i32
// CHECK:       %[[SUMS:.+]] = "flow.dispatch"(%[[WL]], %[[TOTAL]], %[[ROW]], %[[ROWS]], %[[ZERO]], %[[I1]], %[[U1]]) <{entry_points = [@nova_scatter_add::@nova_scatter_add_f32], operandSegmentSizes = array<i32: 1, 6, 0, 0>, tied_operands = [3 : index]}> : (index, i32, i32, i32, tensor<10x4xf32>, tensor<6xi64>, tensor<6x4xf32>) -> tensor<10x4xf32>
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[D]], %[[SUMS]] : tensor<10x4xf32>, tensor<10x4xf32>)
// CHECK:         arith.addf
// CHECK-NOT:   iree_linalg_ext.scatter
// ROUNDTRIP:   "hal.executable.source"
// ROUNDTRIP:   "flow.dispatch"
// NOUNREG:     error: 'nova.scatter_add' op convert-nova-to-iree-kernels emits IREE's hal/flow ops unregistered
func.func @scatter_add(%d: tensor<10x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3x4xf32>) -> tensor<10x4xf32> {
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xf32>, tensor<2x3xi64>, tensor<2x3x4xf32> -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// i32 indices widen to i64; multi-dim rows flatten to D and back; a zero
// dest adds nothing. The executable is shared.
// CHECK-LABEL: func.func @scatter_add_i32_into_zeros
// CHECK:       arith.extsi %{{.+}} : i32 to i64
// CHECK:       tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2]] : tensor<6x2x2xf32> into tensor<6x4xf32>
// CHECK:       %[[R:.+]] = "flow.dispatch"({{.+}}) <{entry_points = [@nova_scatter_add::@nova_scatter_add_f32]
// CHECK-SAME:    -> tensor<10x4xf32>
// CHECK:       %[[E:.+]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [10, 2, 2]
// CHECK-NOT:   linalg.generic
// CHECK:       return %[[E]]
func.func @scatter_add_i32_into_zeros(%i: tensor<6xi32>, %u: tensor<6x2x2xf32>) -> tensor<10x2x2xf32> {
  %d = nova.constant dense<0.0> : tensor<10x2x2xf32>
  %0 = nova.scatter_add %d[%i], %u : tensor<10x2x2xf32>, tensor<6xi32>, tensor<6x2x2xf32> -> tensor<10x2x2xf32>
  return %0 : tensor<10x2x2xf32>
}

// Other element types keep IREE's scatter.
// CHECK-LABEL: func.func @scatter_add_bf16
// CHECK-NOT:   flow.dispatch
// CHECK:       "iree_linalg_ext.scatter"
func.func @scatter_add_bf16(%d: tensor<10x4xbf16>, %i: tensor<6xi64>, %u: tensor<6x4xbf16>) -> tensor<10x4xbf16> {
  %0 = nova.scatter_add %d[%i], %u : tensor<10x4xbf16>, tensor<6xi64>, tensor<6x4xbf16> -> tensor<10x4xbf16>
  return %0 : tensor<10x4xbf16>
}
