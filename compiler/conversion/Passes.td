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
        -> (loss, new params[P], new buffers[U], new state[P * S])

    where the U new buffers are those `updated-buffers` lists (indices into
    the buffers, in order): the ones the forward writes, e.g. BatchNorm's
    running statistics; they are stored as new values, not in place.

    Output, for IREE (its util/flow/hal/iree_tensor_ext ops emitted
    unregistered, in generic form; unregistered dialects must be allowed):

    - one `util.global private mutable` per param, buffer and state tensor;
      with `parameter-scope` set, each is initialised from
      `#flow.parameter.named<"scope"::"name">` (an IREE parameter archive),
      otherwise it is uninitialised until `@load_state` runs. Never from
      constant initialisers: IREE merges globals whose initialisers are equal
      (AdamW's zero `m` and `v` would share memory).
    - `util.func public @load_state(params, buffers, state)`: stores them.
    - `util.func public @read_state() -> (globals)`: copies of the globals;
      its `iree.reflection` `nova.state_layout` (JSON) says, per global,
      which of the signature's state tensors it holds: its index (the whole
      global), or `[index, offset, shape]` per tensor of a packed one.
    - A function whose `nova.packed_state` (nova-pack-optimizer-state) lists
      packed groups has one global per flat argument; load_state assembles
      each from the signature's tensors (zeros between them).
    - `util.func public @step(hypers: tensor<Hxf32>, batch...,
      loss_storage: !hal.buffer {iree.abi.output = 0},
      transients: !hal.buffer {iree.abi.transients} ) -> loss` (the last
      argument only with `transients`; with `gate` a `ready: tensor<1xi32>`
      comes before the loss storage, a `done_storage` {iree.abi.output = 1}
      after it, and the step returns (loss, done: tensor<1xi32>)) with
      `iree.abi.model = "coarse-fences"`: it takes a wait and a signal fence,
      so a call enqueues the step and returns; steps chain on the device
      through the globals. The loss is written into the caller's buffer; with
      `transients` the step's intermediates are suballocated from the
      caller's storage (IREE reflects its size), so a call makes no queue
      alloca/dealloca, which IREE 3.13's CUDA HAL serves by blocking the host
      (until the call's wait fence, and until its work is done). It
      calls the function, now private (IREE's input pipelines, e.g. the torch
      fallback's, convert func.func bodies; IREE inlines it).

    With `gate` (CUDA only): the step's first kernel is Nova's step gate
    (compiler/codegen/cuda/StepGateKernel.h). It waits on the device until
    the caller's `ready` word reaches the step's epoch + 1 (a global
    `@nova_step_epoch`, counting the steps run, updated in place), then
    copies the hyperparameters and batch into the step's own tensors, which
    the rest of the step reads. The caller writes `ready` from its stream
    once the inputs are in (torch: cuStreamWriteValue32), so it can enqueue
    steps ahead without IREE waiting on a host-signalled semaphore. Its
    last kernel (the step's close) copies the loss into the caller's storage
    and then writes the step's number (the epoch the gate advanced to) into
    `done`, which the caller's stream waits on (cuStreamWaitValue32): both
    directions are then ordered on the device alone. The function's
    `iree.reflection` says `nova.step_gate = "ready,done"`.

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
    ListOption<"updatedBuffers", "updated-buffers", "int64_t",
               "Indices of the buffers the step returns new values of, in "
               "order, after the new params">,
    ListOption<"stateNames", "state-names", "std::string",
               "Names of the params, buffers and state tensors in order (the "
               "parameter keys; default state<i>)">,
    Option<"parameterScope", "parameter-scope", "std::string",
           /*default=*/"\"\"",
           "Initialise the globals from IREE parameters of this scope">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Write updates in place (false: store new buffers, for "
           "measuring what in place saves)">,
    Option<"gate", "gate", "bool", /*default=*/"false",
           "@step waits on the device for the caller's `ready` word (a Nova "
           "CUDA kernel; see the description)">,
    Option<"transients", "transients", "bool", /*default=*/"false",
           "@step takes its transient storage from the caller (a last "
           "!hal.buffer {iree.abi.transients}) instead of a queue alloca per "
           "call, which IREE 3.13's CUDA HAL serves by blocking the host">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::func::FuncDialect"
  ];
}

def ConvertTorchToNova : Pass<"convert-torch-to-nova", "::mlir::ModuleOp"> {
  let summary = "Convert torch-mlir's torch dialect (read as unregistered ops) to nova";
  let description = [{
    Nova's MLIR does not register the torch dialect, so the FX importer's
    output arrives in generic form: `torch.*` ops are unregistered operations
    and `!torch.vtensor<[2,3],f32>` / `!torch.int` are opaque types. This pass
    reads those types and the `torch.constant.*` values, and rewrites each
    supported aten op (and the `torch.operator` custom ops `torch.nova.sgd` /
    `torch.nova.adamw`) into nova ops on builtin tensors; function signatures
    become builtin tensors too (si64 -> i64).

    Shapes must be static. Broadcasting becomes explicit
    (nova.broadcast_in_dim) and dtype promotion explicit casts, with torch's
    result dtypes; bf16/f16 arithmetic with a Python number the dtype cannot
    hold exactly, or with a 0-d f32 tensor, computes in f32 and rounds once,
    as torch does. Python numbers must be compile-time constants. Ops on
    unsigned integer tensors (ui8) are not converted: signless builtin
    integers would lose their semantics.

    An aten op it does not cover (or covers only in other forms) is either an
    error at its location naming the op and why (the default; ops depending
    on it are not reported again), or, with `allow-fallback`, left in place
    for IREE's own torch lowering, its tensor operands and results crossing
    the boundary through `torch_c.from_builtin_tensor` /
    `torch_c.to_builtin_tensor` (unregistered ops) and the constants it reads
    kept. Types Nova cannot represent are errors either way.
  }];
  let options = [
    Option<"allowFallback", "allow-fallback", "bool", /*default=*/"false",
           "Leave unsupported torch ops for IREE's torch input pipeline">
  ];
  let dependentDialects = [
    "::mlir::nova::NovaDialect", "::mlir::func::FuncDialect"
  ];
}

def ConvertNovaToLinalg : Pass<"convert-nova-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower nova ops to linalg on tensors";
  let description = [{
    Lowers every nova op to linalg.generic / linalg.fill, tensor, arith and
    math ops on tensors, the input IREE compiles (as generic-form text).
    nova.fused bodies are inlined and composite ops decomposed first (the
    -nova-decompose rewrites). bf16/f16 sums, means and matmul results
    accumulate in f32; bf16/f16 elementwise arithmetic computes in f32 and
    rounds once, as torch does.

    nova.scatter_add becomes IREE's `iree_linalg_ext.scatter` with
    `unique_indices = false`, emitted as an unregistered op: linear work and
    correct with repeated indices, but IREE 3.13 runs it on one GPU thread
    (the embedding backward needs Nova's own GPU kernel). It scatters into a
    fresh zero tensor and adds `dest` after, because IREE updates a scatter's
    init in place, in the caller's buffer when that is a function argument.

    On CUDA, convert-nova-to-iree-kernels runs first: the ops it gives to
    Nova's own kernels are `flow.dispatch`es by then.

    Shapes must be static. Any nova op left unlowered fails the pass with a
    "failed to legalize operation" error at its location.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

def ConvertNovaCollectivesToIREE
    : Pass<"convert-nova-collectives-to-iree", "::mlir::ModuleOp"> {
  let summary = "Lower nova.all_reduce to IREE's collectives on the default "
                "channel";
  let description = [{
    Each `nova.all_reduce` becomes `flow.collective.all_reduce sum` (IREE's
    ops emitted unregistered, in generic form; unregistered dialects must
    be allowed) on the default channel, which a `util.initializer` creates
    once into a `util.global` (made inside a step, it would be created and
    recorded again on every call). A mean is the sum scaled by
    1 / `world-size`. With `world-size` 1 every all-reduce is the identity
    and is removed, so a single-process step has no collective at all.
  }];
  let options = [
    Option<"worldSize", "world-size", "int64_t", /*default=*/"1",
           "Ranks in the data-parallel group">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvertNovaToIREEKernels
    : Pass<"convert-nova-to-iree-kernels", "::mlir::ModuleOp"> {
  let summary = "Run nova ops on Nova's own CUDA kernels inside the IREE program";
  let description = [{
    Each op that a Nova kernel builder covers becomes a `flow.dispatch` of a
    `hal.executable.source` carrying the kernel's PTX inline (generated
    through MLIR, compiler/codegen/cuda), declared once per module; the glue
    around it (reshapes, transposes, a zero table, adding `dest`) is linalg
    on tensors. Today: f32 nova.scatter_add (IREE 3.13 runs its non-unique
    scatter on one GPU thread) and nova.matmul configured for "wgmma_tma"
    (sm_90 TMA + wgmma GEMM, bf16 and tf32). The hal/flow ops and attributes
    are emitted opaque, so unregistered dialects must be allowed. Runs before
    convert-nova-to-linalg, on CUDA only.
  }];
  let options = [
    Option<"poisonOutputs", "poison-outputs", "bool", /*default=*/"false",
           "GEMM outputs start as NaN instead of uninitialized memory, so a "
           "check sees any element the kernel fails to write">,
    Option<"stateInPlace", "state-in-place", "bool", /*default=*/"false",
           "the parameters and optimizer state the nova.adamw ops update "
           "become module state (a train step's globals): configured updates "
           "run Nova's multi-tensor kernel writing them in place. Off, they "
           "keep their linalg lowering, so a pure function never writes "
           "into its caller's arguments">,
    Option<"gemmStmatrix", "gemm-stmatrix", "bool", /*default=*/"false",
           "bf16 GEMM results staged for their TMA stores with stmatrix "
           "(experimental until measured on the GPU: NOVA_GEMM_STMATRIX=1)">,
    Option<"kernelCache", "kernel-cache", "std::string", /*default=*/"",
           "directory keeping each kernel's PTX across processes (its path "
           "names the compiler build and the target); empty: built once "
           "per process">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect"
  ];
}

#endif // NOVA_CONVERSION_PASSES_TD
