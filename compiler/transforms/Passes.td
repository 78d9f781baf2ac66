//===- Passes.td - nova passes -----------------------------*- tablegen -*-===//

#ifndef NOVA_TRANSFORMS_PASSES_TD
#define NOVA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NovaDecompose : Pass<"nova-decompose"> {
  let summary = "Rewrite composite nova ops into nova primitives";
  let description = [{
    Expands nova.softmax, nova.log_softmax, nova.layer_norm and nova.gelu into
    reductions, explicit broadcasts and elementwise ops, so that later passes
    (fusion, lowering) see only primitives. Softmax and log-softmax subtract
    the row maximum first for numerical stability.
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaSplitReductions : Pass<"nova-split-reductions"> {
  let summary = "Split long reductions over leading dims into two stages (GPU)";
  let description = [{
    A reduction over the leading dims of a tensor (a bias gradient: sum over
    all tokens of a [tokens, C] tensor) keeps only C outputs; IREE 3.13 maps
    each group of 256 outputs to one 32-thread workgroup that loops over all
    rows, so C = 2048 runs on 8 workgroups. This pass reshapes the R reduced
    rows into [R / parts, parts, C...] and reduces dim 0 twice: the first
    stage has parts x C outputs (hundreds of workgroups, each thread reading
    consecutive columns), the second a short one. Sum, max and mean compose
    this way (equal-sized groups); bf16/f16 sums and means run both stages in
    f32 and round once, as a single reduction would.
  }];
  let options = [
    Option<"minRows", "min-rows", "int64_t", /*default=*/"4096",
           "Split only reductions over at least this many rows">,
    Option<"rowsPerThread", "rows-per-thread", "int64_t", /*default=*/"256",
           "Rows each first-stage output sums">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaConfigureKernels : Pass<"nova-configure-kernels", "::mlir::ModuleOp"> {
  let summary = "Choose each matmul's GPU kernel configuration analytically";
  let description = [{
    For every `nova.matmul` (batched included) with static shapes, derives
    the CTA tile, MMA instruction, pipeline depth, warp specialization,
    cluster, split-K, persistent grid and raster order from a closed-form
    cost model (arithmetic intensity against compute and bandwidth, wave
    quantization over the SMs, shared-memory and register limits; see
    docs/configurator.md) and writes it as `lowering_config`. A matmul that
    already has one keeps it.

    The target is the module's `nova.target` attribute or, without one, the
    known target named by `target=` (which is then set on the module), with
    `sm-count` and `shared-memory-per-sm` taken from the GPU when compiling
    on one (a part with fewer SMs than the table's, e.g. an H100 PCIe). f32
    matmuls follow `f32-matmul-precision`, torch's
    `torch.get_float32_matmul_precision()` at capture: "high" and "medium"
    compute in TF32, "highest" (the default) in three TF32 products, which
    keeps f32 accuracy: never TF32 unless asked for.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Known target (sm_80, sm_86, sm_89, sm_90) when the module has no nova.target">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"0",
           "SM count of the GPU compiled on (overrides the known target's)">,
    Option<"sharedMemoryPerSm", "shared-memory-per-sm", "int64_t", /*default=*/"0",
           "Shared memory per SM in bytes of the GPU compiled on (overrides the known target's)">,
    Option<"f32MatmulPrecision", "f32-matmul-precision", "std::string",
           /*default=*/"\"highest\"",
           "torch's float32 matmul precision: highest, high or medium">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per matmul with the model's numbers">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
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

    With `target=cuda`, an f32 nova.scatter_add instead becomes a
    `flow.dispatch` of Nova's own PTX kernel (one thread per update element,
    `red.global.add.f32` into the row), declared in a
    `hal.executable.source` with the PTX inline: IREE runs its non-unique
    scatter on one GPU thread. It needs unregistered dialects allowed (the
    hal/flow ops and attributes are emitted opaque). Other element types keep
    the scatter above.

    Shapes must be static. Any nova op left unlowered fails the pass with a
    "failed to legalize operation" error at its location.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "IREE target family: `cpu` (default) or `cuda` (f32 scatter_add "
           "via Nova's own PTX kernel)">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

#endif // NOVA_TRANSFORMS_PASSES_TD
