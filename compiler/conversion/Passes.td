//===- Passes.td - nova conversions to other program models -*- tablegen -*-===//

#ifndef NOVA_CONVERSION_PASSES_TD
#define NOVA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTrainStepToIREE
    : Pass<"convert-train-step-to-iree", "::mlir::ModuleOp"> {
  let summary = "Turn a pure train-step function into IREE globals updated in "
                "place by an asynchronous step";
  let description = [{
    Input: the linalg-level train step `func.func @<function>` with Nova's
    flat signature (see python/nova/capture.py):

      (params[P], buffers[B], state[P * S], hypers[H] (0-d f32), batch...)
        -> (loss, new params[P], new state[P * S])

    Output, for IREE (its util/flow/hal/iree_tensor_ext ops emitted
    unregistered, in generic form; unregistered dialects must be allowed):

    - one `util.global private mutable` per param, buffer and state tensor;
      with `parameter-scope` set, each is initialised from
      `#flow.parameter.named<"scope"::"name">` (an IREE parameter archive),
      otherwise it is uninitialised until `@load_state` runs. Never from
      constant initialisers: IREE merges globals whose initialisers are equal
      (AdamW's zero `m` and `v` would share memory).
    - `util.func public @load_state(params, buffers, state)`: stores them.
    - `util.func public @read_state() -> (params, buffers, state)`: copies.
    - `util.func public @step(hypers: tensor<Hxf32>, batch...,
      loss_storage: !hal.buffer {iree.abi.output = 0}) -> loss` with
      `iree.abi.model = "coarse-fences"`: it takes a wait and a signal fence,
      so a call enqueues the step and returns; steps chain on the device
      through the globals. The loss is written into the caller's buffer. It
      calls the function, now private (IREE's input pipelines, e.g. the torch
      fallback's, convert func.func bodies; IREE inlines it).

    In place: each optimizer update (the elementwise linalg.generic that
    computes a param's or a state tensor's new value from the old one) is
    wrapped in a `flow.dispatch.workgroups` whose results are tied to the
    bindings of the old values, which are read and written through the same
    `readwrite` binding: the new value is written into the global's own
    buffer. An update that does not have that form is stored normally (a new
    buffer each step) and reported with a remark.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The train-step function to convert">,
    Option<"params", "params", "int64_t", /*default=*/"0",
           "Number of trainable parameters (leading arguments)">,
    Option<"buffers", "buffers", "int64_t", /*default=*/"0",
           "Number of buffers/frozen tensors after the params">,
    Option<"statesPerParam", "states-per-param", "int64_t", /*default=*/"0",
           "Optimizer state tensors per param (SGD 1, AdamW 2)">,
    Option<"hypers", "hypers", "int64_t", /*default=*/"0",
           "Number of 0-d f32 hyperparameter arguments after the state">,
    ListOption<"stateNames", "state-names", "std::string",
               "Names of the params, buffers and state tensors in order (the "
               "parameter keys; default state<i>)">,
    Option<"parameterScope", "parameter-scope", "std::string",
           /*default=*/"\"\"",
           "Initialise the globals from IREE parameters of this scope">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Write updates in place (false: store new buffers, for "
           "measuring what in place saves)">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::func::FuncDialect"
  ];
}

#endif // NOVA_CONVERSION_PASSES_TD
