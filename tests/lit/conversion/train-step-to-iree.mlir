// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-train-step-to-iree="params=1 buffers=1 states-per-param=1 hypers=2 state-names=w,frozen,w.momentum_buffer transients=true" | FileCheck %s
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-train-step-to-iree="params=1 buffers=1 states-per-param=1 hypers=2 state-names=w,frozen,w.momentum_buffer parameter-scope=nova transients=true" | FileCheck %s --check-prefix=PARAMS
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-train-step-to-iree="params=1 buffers=1 states-per-param=1 hypers=2" | FileCheck %s --check-prefix=NOTRANSIENTS
// RUN: nova-opt %s --split-input-file --allow-unregistered-dialect --convert-train-step-to-iree="params=1 buffers=1 states-per-param=1 hypers=2 transients=true" --mlir-print-op-generic | nova-opt --allow-unregistered-dialect --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// A momentum-SGD-shaped step: param %w, frozen buffer %f, momentum %m,
// hyperparameters lr and momentum, a batch %x. The update reads each old value
// at its own indices: it becomes a dispatch writing w and m in place.

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @main(%w: tensor<8xf32>, %f: tensor<8xf32>, %m: tensor<8xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>) {
  %cst = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%w, %f, %x : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.subf %0, %c : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %z = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]} ins(%g : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %u:2 = linalg.generic {indexing_maps = [#id, #id, #id, #scalar, #scalar, #id, #id], iterator_types = ["parallel"]} ins(%w, %g, %m, %lr, %mu : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%p: f32, %grad: f32, %buf: f32, %l: f32, %k: f32, %o0: f32, %o1: f32):
    %0 = arith.mulf %k, %buf : f32
    %1 = arith.addf %0, %grad : f32
    %2 = arith.mulf %l, %1 : f32
    %3 = arith.mulf %2, %cst : f32
    %4 = arith.subf %p, %3 : f32
    linalg.yield %4, %1 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %loss, %u#0, %u#1 : tensor<f32>, tensor<8xf32>, tensor<8xf32>
}

// One mutable global per state tensor, named after it; no initialiser unless
// a parameter scope is given (then the archive's key is the state's name).
// CHECK:      "util.global"() <{is_mutable, sym_name = "state0_w", sym_visibility = "private", type = tensor<8xf32>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state1_frozen", sym_visibility = "private", type = tensor<8xf32>}>
// CHECK-NEXT: "util.global"() <{is_mutable, sym_name = "state2_w_momentum_buffer", sym_visibility = "private", type = tensor<8xf32>}>
// PARAMS:     "util.global"() <{initial_value = #flow.parameter.named<"nova"::"w"> : tensor<8xf32>, is_mutable, sym_name = "state0_w"
// PARAMS:     "util.global"() <{initial_value = #flow.parameter.named<"nova"::"w.momentum_buffer"> : tensor<8xf32>, is_mutable, sym_name = "state2_w_momentum_buffer"

// CHECK-LABEL: sym_name = "load_state"
// CHECK:         ^bb0(%[[W:.+]]: tensor<8xf32>, %[[F:.+]]: tensor<8xf32>, %[[M:.+]]: tensor<8xf32>):
// CHECK-NEXT:    "util.global.store"(%[[W]]) <{global = @state0_w}>
// CHECK-NEXT:    "util.global.store"(%[[F]]) <{global = @state1_frozen}>
// CHECK-NEXT:    "util.global.store"(%[[M]]) <{global = @state2_w_momentum_buffer}>

// read_state returns the globals; its reflection says which state tensor
// each holds (here each holds one, whole).
// CHECK-LABEL: sym_name = "read_state"
// CHECK:         "util.return"({{.+}}) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> ()
// CHECK-NEXT:  }) {iree.reflection = {nova.state_layout = "[0, 1, 2]"}}

// The step takes the hyperparameters as one tensor, the batch, the loss's
// storage and its transient storage (no queue alloca per call), and is
// asynchronous (coarse-fences). It calls the pure function on the globals and
// stores the updated state (the buffers are never stored).
// CHECK-LABEL: "util.func"() <{arg_attrs = [{}, {}, {iree.abi.output = 0 : index}, {iree.abi.transients}], function_type = (tensor<2xf32>, tensor<8xf32>, !hal.buffer, !hal.buffer) -> tensor<f32>, sym_name = "step", sym_visibility = "public"}>
// CHECK:         ^bb0(%[[HYP:.+]]: tensor<2xf32>, %[[X:.+]]: tensor<8xf32>, %{{.+}}: !hal.buffer, %{{.+}}: !hal.buffer):
// NOTRANSIENTS-LABEL: "util.func"() <{arg_attrs = [{}, {}, {iree.abi.output = 0 : index}], function_type = (tensor<2xf32>, tensor<8xf32>, !hal.buffer) -> tensor<f32>, sym_name = "step", sym_visibility = "public"}>
// CHECK-NEXT:    %[[W0:.+]] = "util.global.load"() <{global = @state0_w}>
// CHECK-NEXT:    %[[F0:.+]] = "util.global.load"() <{global = @state1_frozen}>
// CHECK-NEXT:    %[[M0:.+]] = "util.global.load"() <{global = @state2_w_momentum_buffer}>
// CHECK-NEXT:    %[[S0:.+]] = tensor.extract_slice %[[HYP]][0] [1] [1]
// CHECK-NEXT:    %[[LR:.+]] = tensor.collapse_shape %[[S0]] []
// CHECK-NEXT:    %[[S1:.+]] = tensor.extract_slice %[[HYP]][1] [1] [1]
// CHECK-NEXT:    %[[MU:.+]] = tensor.collapse_shape %[[S1]] []
// CHECK-NEXT:    %[[R:.+]]:3 = func.call @main(%[[W0]], %[[F0]], %[[M0]], %[[LR]], %[[MU]], %[[X]])
// CHECK-NEXT:    "util.global.store"(%[[R]]#1) <{global = @state0_w}>
// CHECK-NEXT:    "util.global.store"(%[[R]]#2) <{global = @state2_w_momentum_buffer}>
// CHECK-NEXT:    "util.return"(%[[R]]#0) : (tensor<f32>) -> ()
// CHECK-NEXT:  }) {iree.abi.model = "coarse-fences"} : () -> ()

// The update: w and m go in through readwrite bindings tied to the results.
// CHECK-LABEL: func.func private @main(
// CHECK-SAME:    %[[W:[^:]+]]: tensor<8xf32>, %{{.+}}: tensor<8xf32>, %[[M:[^:]+]]: tensor<8xf32>
// CHECK:         %[[U:.+]]:2 = "flow.dispatch.workgroups"(%[[W]], %[[M]], %{{.+}}, %{{.+}}, %{{.+}}) <{operandSegmentSizes = array<i32: 0, 5, 0, 0>, tied_operands = [0 : index, 1 : index]}>
// CHECK-NEXT:    ^bb0(%[[BW:.+]]: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<8xf32>>, %[[BM:.+]]: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<8xf32>>, %{{.+}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>, %{{.+}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<f32>>, %{{.+}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<f32>>):
// CHECK-NEXT:    %[[CST:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    %[[LW:.+]] = "iree_tensor_ext.dispatch.tensor.load"(%[[BW]])
// CHECK-NEXT:    %[[LM:.+]] = "iree_tensor_ext.dispatch.tensor.load"(%[[BM]])
// CHECK:         %[[NEW:.+]]:2 = linalg.generic {{.+}} ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<8xf32>, tensor<f32>, tensor<f32>) outs(%[[LW]], %[[LM]] : tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[GRAD:.+]]: f32, %[[L:.+]]: f32, %[[K:.+]]: f32, %[[P:.+]]: f32, %[[BUF:.+]]: f32):
// CHECK-NEXT:      arith.mulf %[[K]], %[[BUF]] : f32
// CHECK:           arith.mulf %{{.+}}, %[[CST]] : f32
// CHECK-NEXT:      arith.subf %[[P]], %{{.+}} : f32
// CHECK:         "iree_tensor_ext.dispatch.tensor.store"(%[[NEW]]#0, %[[BW]])
// CHECK-NEXT:    "iree_tensor_ext.dispatch.tensor.store"(%[[NEW]]#1, %[[BM]])
// CHECK-NEXT:    "flow.return"() : () -> ()
// CHECK:         return %{{.+}}, %[[U]]#0, %[[U]]#1

// ROUNDTRIP: sym_name = "step"
// ROUNDTRIP: "flow.dispatch.workgroups"

// -----

// An update that reads its old value at other indices (a reversal) cannot be
// written in place: it is stored normally, with a remark saying why.

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (7 - d0)>
func.func @main(%w: tensor<8xf32>, %f: tensor<8xf32>, %m: tensor<8xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %u:2 = linalg.generic {indexing_maps = [#rev, #id, #id, #id], iterator_types = ["parallel"]} ins(%w, %m : tensor<8xf32>, tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%p: f32, %b: f32, %o0: f32, %o1: f32):
    linalg.yield %p, %b : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %lr, %u#0, %u#1 : tensor<f32>, tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func private @main(
// CHECK-NOT:   flow.dispatch.workgroups
// CHECK:       %[[U:.+]]:2 = linalg.generic
// CHECK:       return %{{.+}}, %[[U]]#0, %[[U]]#1

// -----

// The gradient's elementwise producers that only the update reads (a bf16 ->
// f32 cast, then a scale) are computed inside its dispatch, which reads their
// inputs (here the bf16 batch) instead: IREE fuses no producer into an explicit
// dispatch. (A producer with another use, as the first case's %g, stays out.)

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @main(%w: tensor<8xf32>, %f: tensor<8xf32>, %m: tensor<8xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %x: tensor<8xbf16>) -> (tensor<f32>, tensor<8xf32>, tensor<8xf32>) {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xbf16>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%wide : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %half : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %u:2 = linalg.generic {indexing_maps = [#id, #id, #id, #scalar, #id, #id], iterator_types = ["parallel"]} ins(%w, %g, %m, %lr : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%p: f32, %grad: f32, %buf: f32, %l: f32, %o0: f32, %o1: f32):
    %0 = arith.addf %buf, %grad : f32
    %1 = arith.mulf %l, %0 : f32
    %2 = arith.subf %p, %1 : f32
    linalg.yield %2, %0 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %lr, %u#0, %u#1 : tensor<f32>, tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func private @main(
// CHECK-SAME:    %[[W:[^:]+]]: tensor<8xf32>, %{{.+}}: tensor<8xf32>, %[[M:[^:]+]]: tensor<8xf32>, %[[LR:[^:]+]]: tensor<f32>, %{{.+}}: tensor<f32>, %[[X:[^:]+]]: tensor<8xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[U:.+]]:2 = "flow.dispatch.workgroups"(%[[W]], %[[M]], %[[X]], %[[LR]]) <{operandSegmentSizes = array<i32: 0, 4, 0, 0>, tied_operands = [0 : index, 1 : index]}>
// CHECK-NEXT:    ^bb0(%{{.+}}: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<8xf32>>, %{{.+}}: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<8xf32>>, %[[BX:.+]]: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xbf16>>, %{{.+}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<f32>>):
// CHECK:         %[[LX:.+]] = "iree_tensor_ext.dispatch.tensor.load"(%[[BX]])
// CHECK:         %[[WIDE:.+]] = linalg.generic {{.+}} ins(%[[LX]] : tensor<8xbf16>)
// CHECK:           arith.extf
// CHECK:         %[[G:.+]] = linalg.generic {{.+}} ins(%[[WIDE]] : tensor<8xf32>)
// CHECK:           arith.mulf %{{.+}}, %[[HALF:.+]] : f32
// CHECK:         linalg.generic {{.+}} ins(%[[G]], %{{.+}} : tensor<8xf32>, tensor<f32>)
// CHECK:         "flow.return"() : () -> ()
// CHECK-NOT:     linalg.generic
// CHECK:         return %{{.+}}, %[[U]]#0, %[[U]]#1
