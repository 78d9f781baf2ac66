// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-train-step-to-iree="params=1 hypers=1 transients=true gate=true" | FileCheck %s
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-train-step-to-iree="params=1 hypers=1 transients=true gate=true" | %python %lit_tools/print-executable-objects.py | FileCheck %s --check-prefix=PTX

// A gated step (CUDA): its first kernel waits until the caller's `ready`
// word reaches the epoch + 1, then copies the hyperparameters and the batch
// (ids, targets) that the rest of the step reads; the epoch global is updated
// in place by the same dispatch. Its last kernel copies the loss into the
// caller's storage and then writes the epoch into the caller's `done` word.

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @main(%w: tensor<8xf32>, %lr: tensor<f32>, %ids: tensor<8xi64>, %x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%w, %ids, %x : tensor<8xf32>, tensor<8xi64>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %i: i64, %c: f32, %o: f32):
    %f = arith.sitofp %i : i64 to f32
    %0 = arith.mulf %a, %f : f32
    %1 = arith.subf %0, %c : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %z = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]} ins(%g : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %u = linalg.generic {indexing_maps = [#id, #id, #scalar, #id], iterator_types = ["parallel"]} ins(%w, %g, %lr : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %grad: f32, %l: f32, %o: f32):
    %0 = arith.mulf %l, %grad : f32
    %1 = arith.subf %p, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  return %loss, %u : tensor<f32>, tensor<8xf32>
}

// CHECK:       "hal.executable.export"() <{layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>, ordinal = 0 : index, sym_name = "nova_step_done_b32", sym_visibility = "public", workgroup_size = [32 : index, 1 : index, 1 : index]}>
// CHECK:       "util.global"() <{initial_value = dense<0> : tensor<1xi32>, is_mutable, sym_name = "nova_step_epoch", sym_visibility = "private", type = tensor<1xi32>}>
// CHECK:       "hal.executable.source"()
// CHECK:         "hal.executable.export"() <{layout = #hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>, ordinal = 0 : index, sym_name = "nova_step_gate_n3", sym_visibility = "public", workgroup_size = [1024 : index, 1 : index, 1 : index]}>
// CHECK-LABEL: arg_attrs = [{}, {}, {}, {}, {iree.abi.output = 0 : index}, {iree.abi.output = 1 : index}, {iree.abi.transients}], function_type = (tensor<1xf32>, tensor<8xi64>, tensor<8xf32>, tensor<1xi32>, !hal.buffer, !hal.buffer, !hal.buffer) -> (tensor<f32>, tensor<1xi32>), sym_name = "step"
// CHECK:         ^bb0(%[[HYP:.+]]: tensor<1xf32>, %[[IDS:.+]]: tensor<8xi64>, %[[X:.+]]: tensor<8xf32>, %[[READY:.+]]: tensor<1xi32>, %{{.+}}: !hal.buffer, %{{.+}}: !hal.buffer, %{{.+}}: !hal.buffer):
// CHECK:         %[[EPOCH:.+]] = "util.global.load"() <{global = @nova_step_epoch}>
// The words of each input: 1 (f32), 16 (8 x i64), 8 (f32).
// CHECK:         %[[GATE:.+]]:4 = "flow.dispatch"(%{{.+}}, %[[READY]], %[[HYP]], %[[IDS]], %[[X]], %[[EPOCH]], %{{.+}}, %{{.+}}, %{{.+}}) <{entry_points = [@nova_step_gate_n3::@nova_step_gate_n3], {{.*}}tied_operands = [4 : index, -1 : index, -1 : index, -1 : index]}>
// CHECK:         "util.global.store"(%[[GATE]]#0) <{global = @nova_step_epoch}>
// The rest of the step reads the copies.
// CHECK:         tensor.extract_slice %[[GATE]]#1[0] [1] [1]
// CHECK:         %[[STEP:.+]]:2 = func.call @main({{.+}}, %[[GATE]]#2, %[[GATE]]#3)
// The close reads the loss and the advanced epoch; its results are returned.
// CHECK:         %[[DONE:.+]]:2 = "flow.dispatch"(%{{.+}}, %[[GATE]]#0, %[[STEP]]#0) <{entry_points = [@nova_step_done_b32::@nova_step_done_b32], {{.*}}tied_operands = [-1 : index, -1 : index]}>
// CHECK:         "util.return"(%[[DONE]]#0, %[[DONE]]#1)
// CHECK:       iree.abi.model = "coarse-fences", iree.reflection = {nova.step_gate = "ready,done"}

// The close: thread 0 copies the loss, fences, then writes the epoch.
// PTX-LABEL: .visible .entry nova_step_done_b32(
// PTX-COUNT-4: .param .u64 .ptr .global
// PTX:         ld.global.b32
// PTX:         st.global.b32
// PTX:         ld.global.b32
// PTX:         membar.sys
// PTX:         st.volatile.global.b32

// PTX-LABEL: .visible .entry nova_step_gate_n3(
// PTX-COUNT-8: .param .u64 .ptr .global
// PTX-COUNT-3: .param .u32
// Thread 0 sleeps until ready >= epoch + 1, fences, advances the epoch.
// PTX:         ld.global.b32
// PTX:         ld.volatile.global.b32
// PTX:         nanosleep.u32
// PTX:         ld.volatile.global.b32
// PTX:         membar.sys
// PTX:         st.global.b32
// PTX:         bar.sync 0
// Then the block copies 16-byte vectors.
// PTX:         ld.global.v4.b32
// PTX:         st.global.v4.b32

