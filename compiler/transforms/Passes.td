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

def NovaDecomposeAttention : Pass<"nova-decompose-attention"> {
  let summary = "Rewrite nova.attention and nova.attention_backward into nova primitives";
  let description = [{
    The forward becomes `s = scale * q k^T` (a matmul with `transpose_rhs`
    and an f32 result, so bf16/f16 scores are never rounded), the causal
    mask as a select of -inf where an iota comparison says `j > i` (an
    additive mask is added), an f32 softmax (row max, exp, row sum, div),
    `p` cast back to the operands' type for `out = p v`, and
    `lse = max + log(sum)`. The backward recomputes `p = exp(s - lse)`, then
    `dv = p^T dout`, `dp = dout v^T` (f32 result), `D = rowsum(dout * out)`
    (f32), `ds = p * (dp - D)`, `dq = scale * ds k` and
    `dk = scale * ds^T q` (ds cast to the operands' type). Ops the configurator
    gave a Nova kernel (a `lowering_config`) are kept for it.
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaFuseCrossEntropy : Pass<"nova-fuse-cross-entropy"> {
  let summary = "A cross-entropy and its backward as one op over the logits";
  let description = [{
    A `nova.cross_entropy` and the `nova.cross_entropy_backward` of its lse
    (same logits, target and ignore_index) become one
    `nova.cross_entropy_with_grad` where the forward was: a kernel then reads
    each row of logits once for the loss and the gradient (the logits are
    the step's largest tensor: gpt-42m at B32, 1 GiB of bf16). What the loss
    gradient is made of (1 / the count of targets) moves before the loss; a
    loss gradient that depends on the loss (or on anything made after it but
    that) leaves the pair apart. Ops without a Nova kernel are split back by
    `nova-decompose-cross-entropy`.
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaChunkCrossEntropy : Pass<"nova-chunk-cross-entropy"> {
  let summary = "Split a language-model head and its cross-entropy into chunks of rows";
  let description = [{
    Matches the chain `logits = x w^T`, `nova.cross_entropy(logits)`, its
    `nova.cross_entropy_backward` and the head's two backward GEMMs
    (`grad^T x`, `grad w`), the logits read by nothing else. When the logits
    exceed `chunk-bytes`, the chain is split into the fewest chunks of rows
    (a multiple of 128 rows each, at most 16) whose logits fit: each chunk
    makes its logits, loss, gradient, weight-gradient share and input
    gradient in turn, so one chunk of logits is alive at a time instead of
    all of them where the backward starts (a step's peak). The losses and
    input gradients are concatenated, the weight gradient summed in f32 (an
    f32 cast of it reads the sum itself). What the loss gradient is made of
    (1 / the count of targets) moves before the chunks; a loss gradient that
    depends on the loss leaves the chain whole.
  }];
  let options = [
    Option<"chunkBytes", "chunk-bytes", "int64_t", /*default=*/"0",
           "Largest logits of one chunk in bytes (0: never split)">,
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaDecomposeCrossEntropy : Pass<"nova-decompose-cross-entropy"> {
  let summary = "Rewrite nova.cross_entropy and its backward into nova primitives";
  let description = [{
    The forward becomes an f32 log-sum-exp over the class dim (row max,
    exp, row sum, log), a gather of each row's target logit and a select of
    0 for rows whose target is `ignore_index`; the backward
    `g * (exp(x - lse) - onehot(target))` with `g` zeroed on those rows, cast
    to the logits' type; a `nova.cross_entropy_with_grad` is the two again.
    Ops the configurator gave a Nova kernel (a `lowering_config`) are kept
    for it.
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaFormAttention : Pass<"nova-form-attention"> {
  let summary = "Form nova.attention (and its backward) from the decomposed attention pattern";
  let description = [{
    Recognizes `softmax(scale * q k^T, masked) v` as the captured graph
    spells it (batched matmuls between reshapes and transposes, splat
    multipliers, a select of -inf, the softmax as reduce_max / sub / exp /
    reduce_sum / div, nova.cast between them under autocast) and replaces it
    by `nova.attention` on `[batch..., T, D]` operands; where the softmax's
    probabilities are used exactly by the matching backward (`p^T dout`,
    `dout v^T`, the softmax backward, the masked select of zeros, the scale,
    `ds k` and `q^T ds`) that becomes `nova.attention_backward`. The mask
    must be proven causal: it is evaluated at compile time (it may depend
    only on constants and iotas) at every query/key position. Anything else
    (another mask, a softmax over another dim, a non-constant scale, extra
    users of the scores or probabilities) leaves the IR untouched.
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaPackOptimizerState
    : Pass<"nova-pack-optimizer-state", "::mlir::ModuleOp"> {
  let summary = "Pack the params and AdamW state of a train step into flat "
                "tensors updated by one nova.adamw per group";
  let description = [{
    On the train step `@<function>` (the signature of
    convert-train-step-to-iree: params, buffers, param-major optimizer
    state, hyperparameters, batch -> loss, new params, new buffers, new
    state), the nova.adamw updates whose param, exp_avg and exp_avg_sq are
    f32 arguments (the states read by nothing else, every result only
    returned) are grouped by their hyperparameters and by whether all their
    gradients are widened bf16 (then concatenated as bf16). A group of two
    or more becomes three flat f32 arguments (param, exp_avg, exp_avg_sq),
    in the places of its first member's, and three results likewise; every
    member starts at a multiple of 64 elements (zeros between), in the order
    the gradients are made. The forward reads each param as a slice of the flat one; one
    nova.adamw updates the group from its gradients concatenated in that
    layout. The function's `nova.packed_state` lists, per group in argument
    order, the members' original param numbers, offsets and types and the
    flat size. A function without such updates is left as it is.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The train-step function">,
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaConvertPackedParams : Pass<"nova-convert-packed-params"> {
  let summary = "Convert a packed param group once where the forward "
                "converts most of its members (bf16 casts, TF32 rounding)";
  let description = [{
    For each 1-D f32 argument of a function (a group's flat params after
    nova-pack-optimizer-state) whose members the function converts, each as
    `nova.cast` to bf16 or `nova.round_tf32` of `reshape?(slice(flat))`:
    where two or more distinct members are converted the same way and they
    cover at least `min-coverage` of the flat tensor's elements, one
    conversion of the whole flat tensor is made at the function's start
    and each member's conversion becomes a slice of it (reshaped as
    before). Elementwise, so the values are unchanged; a GPU step then has
    one launch for the group instead of one per member.
  }];
  let options = [
    Option<"minCoverage", "min-coverage", "double", /*default=*/"0.875",
           "Fraction of the flat tensor's elements the converted members "
           "must cover">
  ];
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
    consecutive columns), the second reduces the parts. Each stage's threads
    loop over that stage's rows, so by default both stages loop over about
    sqrt(R) rows (R = 4096: 64 and 64; with 256 and 16 the first stage took
    14 us on the H200, 50 times a gpt-42m step). A reduction of every dim
    to a scalar (a loss's sum over its rows), which IREE gives one thread,
    becomes [parts, R / parts] reduced along its rows first. Sum, max and
    mean compose this way (equal-sized groups); bf16/f16 sums and means run
    both stages in f32 and round once, as a single reduction would.
  }];
  let options = [
    Option<"minRows", "min-rows", "int64_t", /*default=*/"1024",
           "Split only reductions over at least this many rows">,
    Option<"rowsPerThread", "rows-per-thread", "int64_t", /*default=*/"0",
           "Rows each first-stage output sums (0: the largest divisor of R "
           "not above sqrt(R))">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaMergeSiblingGenerics : Pass<"nova-merge-sibling-generics"> {
  let summary = "Merge independent small linalg.generic ops over one iteration space into one";
  let description = [{
    IREE makes one dispatch of every linalg.generic it cannot fuse, and a
    CUDA launch costs about as much as a small kernel runs (the split column
    sums of a layer norm backward - its gain, its bias and the linear bias
    before it - were 6 launches of 1-3 us each; autocast's bf16 copies of
    the biases 68). Generics over the same static loop ranges and iterator
    types, whose results are small (`max-result-bytes`) and that do not
    depend on one another, become one multi-result generic, placed before
    the first use of any of their results (their operands, or the
    reshapes, empties and fills that make them, must be available there):
    IREE then compiles them as one dispatch. A result is only merged where
    IREE would not have fused its op into a reader anyway: elementwise ops
    only when no linalg or tensor op reads them (through reshapes), and
    reductions only when what reads them is a kernel, another reduction or
    such an elementwise op (e.g. the cast of a sum to bf16, which is merged
    in turn and fused into the merged reduction by IREE). First, such ops
    whose operands are all small move down to just before their first
    reader (with the reshapes between them), so that siblings made early
    but read late merge too: the bias gradients' second-stage sums and casts
    of every layer, read by the optimizer at the step's end (gpt-146m's step:
    714 -> 618 dispatches). Repeats until nothing merges; a merged op reads and writes at most `max-bindings`
    tensors (IREE 3.13's CUDA HAL binds 16 buffers to a dispatch).
  }];
  let options = [
    Option<"maxResultBytes", "max-result-bytes", "int64_t",
           /*default=*/"1048576",
           "Largest result of an op that is merged, in bytes">,
    Option<"maxBindings", "max-bindings", "int64_t", /*default=*/"16",
           "Most inputs plus results of a merged op (IREE 3.13's CUDA HAL "
           "takes 16 buffers a dispatch)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def NovaSequenceConcats : Pass<"nova-sequence-concats"> {
  let summary = "Write a concat's inputs into its result in the order they are made";
  let description = [{
    Each static tensor.concat becomes tensor.insert_slice ops into an empty
    tensor, one per input at its offset, in the order the inputs are made
    in the block (through reshapes; a multi-result op's results in order;
    an elementwise op all of whose tensor inputs one op makes, such as the
    cast of a merged sum that IREE fuses into the sum's dispatch, counts as
    made where that op is). IREE then writes each input's dispatch result in place in the
    concatenation: it places a result into its update's target only when
    that target (the chain of the updates before it) exists before the
    dispatch, so an update chain in operand order makes a copy of every
    input made before one that precedes it (nova-pack-optimizer-state's
    gradient concat, whose small gradients nova-merge-sibling-generics
    moves to the end of the step: 25-75 copies a gpt-42m step; 22 while
    casts counted where they are written).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def NovaRoundTf32Operands : Pass<"nova-round-tf32-operands", "::mlir::ModuleOp"> {
  let summary = "Round the operands of TF32 matmuls where they are made";
  let description = [{
    Under f32-matmul-precision "high" or "medium" on a target with Nova's
    TF32 GEMM (sm_90), each f32 value that some nova.matmul reads as it lies
    (K-contiguous: an lhs without `transpose_lhs`, an rhs with
    `transpose_rhs`) goes through one nova.round_tf32 placed right after the
    value is made, and every matmul reads the rounded value, so that
    nova-fuse-elementwise puts the rounding into the kernel producing the
    operand instead of the GEMM's lowering adding a pass over it. Values
    only ever transposed for their GEMMs are left to the transpose kernel,
    which rounds them in the same pass; "highest" (three TF32 products)
    rounds nothing. The f32 q, k, v (and dO) of nova.attention and
    nova.attention_backward are rounded as well, at the tensor they are
    transposes, reshapes or slices of where only attention reads those
    views (Nova's TF32 attention reads them where they lie).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Known target (sm_80, sm_86, sm_89, sm_90) when the module has no nova.target">,
    Option<"f32MatmulPrecision", "f32-matmul-precision", "std::string",
           /*default=*/"\"highest\"",
           "torch's float32 matmul precision: highest, high or medium">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaBucketAllReduce : Pass<"nova-bucket-all-reduce"> {
  let summary = "Merge gradient all-reduces into buckets placed where their "
                "last gradient is produced";
  let description = [{
    Data-parallel training all-reduces every gradient (`nova.all_reduce`,
    one per parameter, as the capture marks them). Like torch DDP's
    buckets, consecutive gradients in the order the backward produces them
    (program order of their producers) are grouped up to `bucket-bytes`
    (25 MiB, DDP's default; a bucket changes at a new element type or
    reduction). Each bucket becomes one all-reduce of the gradients
    flattened and concatenated, split back afterwards, inserted right after
    the bucket's last gradient is produced: its communication can overlap
    the rest of the backward, and the optimizer updates that read it come
    later. A single-gradient bucket keeps its op, moved there.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"26214400",
           "Largest bucket in bytes (a larger gradient is a bucket alone)">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaFuseElementwise : Pass<"nova-fuse-elementwise"> {
  let summary = "Group elementwise chains and last-dim reductions of one row space into nova.fused";
  let description = [{
    Forms `nova.fused` regions, each compiled as one kernel: ops whose
    values share a row space [R, C] (per element of a [..., C] tensor, per
    row, per column through a broadcast, or scalar): elementwise ops, casts,
    broadcasts, reshapes that keep the last dim, splat constants and sums,
    maxima and means over the last dim - a residual add with the layer norm
    after it, a bias add with the GELU after it, the layer norm backward's
    row reductions with the elementwise ops around them. Groups grow from
    their last op towards its producers (consumer first), never through a
    cycle of ops outside the group; constants, broadcasts and reshapes are
    copied into each group that uses them, other values used outside a group
    become its results. An operand made for something that leads to the
    group (the forward's tanh of a GELU, shared with its backward by CSE) is
    recomputed inside it from what it reads anyway and at most one more
    full-size value (rematerialization, up to 16 elementwise ops) instead
    of being stored and read back, unless the kernel would then bind more
    than the 16 buffers IREE's CUDA HAL takes. A producer blocked by such a
    cycle is tried again once the group has grown (the ops on the cycle may
    have joined). A reduction over all rows of a group's value (a bias
    or norm-gain gradient) becomes f32 partials over groups of consecutive
    rows inside the region and a reduction of those outside it; with
    `column-sums` (CUDA) a region's partials are reduced together in one
    more nova.fused region that only reduces its inputs over dim 0 (Nova's
    column-sums kernel: one launch for a layer norm's gain, bias and the
    linear bias before it), and such regions are merged in program order,
    each at the next one's place, while a dispatch binds their inputs and
    sums (8) and the next does not read the first's sums. Values that
    only optimizer updates read stay outside (IREE computes them in the
    update). The block is then re-sorted topologically. On CUDA
    the configurator gives each region Nova's fused-rows kernel; a region
    without one is inlined back by convert-nova-to-linalg.
  }];
  let options = [
    Option<"columnSums", "column-sums", "bool", "false",
           "Reduce the regions' column partials in merged column-sums regions">,
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaRematerialize : Pass<"nova-rematerialize"> {
  let summary = "Recompute cheap saved values in the backward instead of keeping them";
  let description = [{
    In a train step's single block, the backward is what follows the op
    that makes the loss (the function's first result). A value made before
    it and read after it (saved for the backward) stays allocated from the
    forward to its last use. Where such a value is a result of a
    `nova.fused` region and can be recomputed by the region's elementwise
    ops, broadcasts, reshapes and splat constants from values that are
    alive at its first backward use anyway (arguments and slices or
    reshapes of them, such as packed params; the region's inputs or its other
    results, e.g. a GELU's output from its input, which the GELU backward
    reads, or a layer norm's output from its normalized input, which the
    layer norm backward reads), a copy of that slice of the region is made
    right before that use and every backward use reads the copy: the saved
    value dies in the forward, and nothing else lives longer. Where a later
    nova.fused op of the backward reads the same full-size input (the
    nearest such: the GELU's or layer norm's own backward, found through the
    input's uses, not by position), the copy becomes one
    more result of it instead of a kernel of its own (the ops between them
    that read the copy, its weight gradient, move after it), unless the
    merged region would lose the fused-rows kernel. A standalone copy is
    marked `nova.recomputed`, so CSE does not merge it back; on CUDA it
    becomes a launch of Nova's fused-rows kernel, which nothing merges (a
    region IREE compiles itself may be merged back by IREE's CSE: the value
    is then saved, as before). Values under `min-bytes` are kept, and so are
    values under `standalone-min-bytes` whose copy folds into no reader: a
    kernel of its own is a launch a step (autocast's bf16 copies of
    gpt-146m's weights, 1-5 MB each, were 68 launches for 0.25 GiB).
    Runs after nova-fuse-elementwise, whose regions it reads.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"1048576",
           "Smallest saved value worth recomputing, in bytes">,
    Option<"standaloneMinBytes", "standalone-min-bytes", "int64_t",
           /*default=*/"8388608",
           "Smallest saved value worth a recomputation kernel of its own, in "
           "bytes">,
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaSaveInputsForBackward : Pass<"nova-save-inputs-for-backward"> {
  let summary = "Keep a saved value's full-size input for the backward instead of the value";
  let description = [{
    In a train step's single block (the backward is what follows the op
    that makes the loss, the function's first result), before fusion: a
    value of at least `min-bytes` made by an elementwise op before the loss
    and read after it is saved, so the forward's kernel stores it. Where
    it is computed by elementwise ops, broadcasts, reshapes and splat
    constants from one full-size value the backward does not read
    otherwise, no larger than it, and from small values (at most 1/64 of
    its size), among them per-row statistics (only normalized values are
    traded: a GELU's terms that CSE shares with its backward are
    nova-fuse-elementwise's to recompute), that slice is copied
    right before its first backward reader, every backward reader reads the
    copy, and the full-size input is kept instead. The slice follows the
    value's operands through those ops while that leaves one full-size
    value: a layer norm's normalized input (x - mean) * rstd goes back to
    x, mean and rstd, not through x = a + b. The copies are marked
    `nova.recomputed` so that CSE does not merge them back; fusion puts
    them into the backward's kernel. Recomputing from values the backward
    reads anyway is nova-rematerialize's (after fusion). Where CSE had
    merged the backward's normalization with the forward's, the forward
    wrote x - mean scaled (f32, as large as x) beside x: 50 MB of writes
    per layer norm of a gpt-146m B16 step.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"1048576",
           "Smallest saved value worth recomputing, in bytes">,
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaFuseMatmulEpilogue : Pass<"nova-fuse-matmul-epilogue"> {
  let summary = "Move a bf16 matmul into the nova.fused region that alone reads it (GEMM epilogue)";
  let description = [{
    Where a bf16 `nova.matmul` (2-D, N a multiple of 8) has one reader, a
    `nova.fused` region Nova's GEMM can compute in its epilogue, the matmul
    becomes the region's first op, reading its operands as inputs of the
    region: the product is never written to memory and read back, and the
    region is no launch of its own. The GELU backward of an MLP (the
    input-gradient GEMM of its second linear layer, multiplied by the
    GELU's derivative) with its bias gradient's partial column sums is the
    case it is made for. The epilogue evaluates the region at each
    accumulator pair, so the region may not reduce over its rows (a row
    spans many tiles) and its partial sums must be over groups of 16 rows
    (one warp's rows of an MMA tile); its element results are bf16. With
    `stage-inputs` it may read one other element input, bf16 (the GELU
    backward's pre-activation), which the kernel TMA-loads into shared
    memory under the tile's main loop (experimental: off until measured). A product with other readers (the pre-activation
    the backward reads again) is also a result of the region: the epilogue
    stores both. Only for targets whose GEMM kernel has the epilogue
    (`target` = sm_90); elsewhere nothing changes. Runs after
    nova-split-reductions, before nova-configure-kernels, which counts the
    epilogue's bytes in the matmul's cost and its staged input in the
    shared memory the stages leave.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "CUDA architecture compiled for (sm_90: epilogues formed)">,
    Option<"stageInputs", "stage-inputs", "bool", /*default=*/"false",
           "Also fuse regions with another bf16 element input, staged in "
           "shared memory (experimental)">,
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
           "Emit a remark per matmul with the model's numbers">,
    Option<"attentionHeadGroups", "attention-head-groups", "bool",
           /*default=*/"true",
           "Attention kernels hand out their work dynamically in groups of "
           "heads (raster_group); false: a static block-major order">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

#endif // NOVA_TRANSFORMS_PASSES_TD
