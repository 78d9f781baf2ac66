//===- NovaOps.td - nova operations ------------------------*- tablegen -*-===//

#ifndef NOVA_DIALECT_NOVAOPS_TD
#define NOVA_DIALECT_NOVAOPS_TD

include "compiler/dialect/NovaDialect.td"
include "compiler/dialect/NovaAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// A hyperparameter: a 0-d f32 tensor operand, so that changing it (say, the
// learning rate) needs no recompilation.
def Nova_Scalar : 0DTensorOf<[F32]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;

def Nova_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Nova_IndexTensor : RankedTensorOf<[AnySignlessInteger]>;
def Nova_BoolTensor : RankedTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Operand and result types are printed once when they all agree, else as a
// parenthesized list (operands first, then the result), which lets the
// verifier name the operand that disagrees.
class Nova_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : Nova_Op<mnemonic, !listconcat(traits, [Pure])> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $input attr-dict `:` custom<SameTypes>(type($input), type($result))
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$input), [{
    build($_builder, $_state, input.getType(), input);
  }]>];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyElementwise(getOperation(), getResult().getType());
    }
  }];
}

class Nova_BinaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : Nova_Op<mnemonic, !listconcat(traits, [Pure])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let builders = [OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
    build($_builder, $_state, lhs.getType(), lhs, rhs);
  }]>];
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<SameTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyElementwise(getOperation(), getResult().getType());
    }
  }];
}

def Nova_AddOp : Nova_BinaryOp<"add", AnyRankedTensor, [Commutative]> {
  let summary = "Elementwise addition";
  let hasFolder = 1;
}
def Nova_SubOp : Nova_BinaryOp<"sub", AnyRankedTensor> {
  let summary = "Elementwise subtraction";
  let hasFolder = 1;
}
def Nova_MulOp : Nova_BinaryOp<"mul", AnyRankedTensor, [Commutative]> {
  let summary = "Elementwise multiplication";
  let hasFolder = 1;
}
def Nova_DivOp : Nova_BinaryOp<"div", AnyRankedTensor> {
  let summary = "Elementwise division";
  let hasFolder = 1;
}
def Nova_MaxOp : Nova_BinaryOp<"max", AnyRankedTensor, [Commutative]> {
  let summary = "Elementwise maximum (NaN-propagating for floats)";
}
def Nova_MinOp : Nova_BinaryOp<"min", AnyRankedTensor, [Commutative]> {
  let summary = "Elementwise minimum (NaN-propagating for floats)";
}
def Nova_PowOp : Nova_BinaryOp<"pow", Nova_FloatTensor> {
  let summary = "Elementwise power `lhs ^ rhs`";
}

def Nova_NegOp : Nova_UnaryOp<"neg", AnyRankedTensor> {
  let summary = "Elementwise negation";
  let hasFolder = 1;
}
def Nova_AbsOp : Nova_UnaryOp<"abs", AnyRankedTensor> {
  let summary = "Elementwise absolute value";
}
def Nova_ExpOp : Nova_UnaryOp<"exp", Nova_FloatTensor> {
  let summary = "Elementwise e^x";
}
def Nova_LogOp : Nova_UnaryOp<"log", Nova_FloatTensor> {
  let summary = "Elementwise natural logarithm";
}
def Nova_TanhOp : Nova_UnaryOp<"tanh", Nova_FloatTensor> {
  let summary = "Elementwise hyperbolic tangent";
}
def Nova_CosOp : Nova_UnaryOp<"cos", Nova_FloatTensor> {
  let summary = "Elementwise cosine";
}
def Nova_SinOp : Nova_UnaryOp<"sin", Nova_FloatTensor> {
  let summary = "Elementwise sine";
}
def Nova_ErfOp : Nova_UnaryOp<"erf", Nova_FloatTensor> {
  let summary = "Elementwise error function";
}
def Nova_SqrtOp : Nova_UnaryOp<"sqrt", Nova_FloatTensor> {
  let summary = "Elementwise square root";
}
def Nova_RsqrtOp : Nova_UnaryOp<"rsqrt", Nova_FloatTensor> {
  let summary = "Elementwise reciprocal square root";
}
def Nova_ReluOp : Nova_UnaryOp<"relu", AnyRankedTensor> {
  let summary = "Elementwise max(x, 0)";
}
def Nova_SigmoidOp : Nova_UnaryOp<"sigmoid", Nova_FloatTensor> {
  let summary = "Elementwise logistic sigmoid";
}

def Nova_RoundTf32Op : Nova_UnaryOp<"round_tf32", RankedTensorOf<[F32]>> {
  let summary = "f32 rounded to the nearest TF32 value (10 mantissa bits)";
  let description = [{
    Each element rounded to 10 mantissa bits, ties away from zero, and kept
    as f32 (its 13 low mantissa bits zero): what a TF32 tensor-core product
    should see of an f32 operand (the tensor cores would truncate, biasing
    each product by about -5e-4). Idempotent.
  }];
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// `x` (f32 or a vector of f32) rounded to TF32, built from arith ops:
    /// the one definition of the rounding for every lowering.
    static ::mlir::Value buildScalar(::mlir::OpBuilder &b,
                                     ::mlir::Location loc, ::mlir::Value x);
  }];
}

def Nova_GeluOp : Nova_Op<"gelu", [Pure]> {
  let summary = "Elementwise GELU, exact (erf) or tanh-approximated";
  let arguments = (ins Nova_FloatTensor:$input,
      DefaultValuedAttr<Nova_GeluApproximationAttr,
                        "::mlir::nova::GeluApproximation::None">:$approximation);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximation` `=` `` $approximation^)? attr-dict `:`
    custom<SameTypes>(type($input), type($result))
  }];
  let hasVerifier = 1;
}

def Nova_CompareOp : Nova_Op<"compare", [Pure]> {
  let summary = "Elementwise comparison producing i1";
  let arguments = (ins Nova_CompareDirectionAttr:$direction,
                       AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs Nova_BoolTensor:$result);
  let assemblyFormat = [{
    `` $direction `,` $lhs `,` $rhs attr-dict `:`
    type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Nova_SelectOp : Nova_Op<"select", [Pure]> {
  let summary = "Elementwise `cond ? on_true : on_false`";
  let arguments = (ins Nova_BoolTensor:$cond, AnyRankedTensor:$on_true,
                       AnyRankedTensor:$on_false);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,`
    custom<SameTypes>(type($on_true), type($on_false), type($result))
  }];
  let hasVerifier = 1;
}

def Nova_CastOp : Nova_Op<"cast", [Pure]> {
  let summary = "Elementwise conversion between element types";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Nova_MatmulOp : Nova_Op<"matmul", [Pure]> {
  let summary = "(Batched) matrix multiplication with operand layouts";
  let description = [{
    `result[b..., m, n] = sum_k A[b..., m, k] * B[b..., k, n]` where, with
    `transpose_lhs`, the lhs is stored as `[b..., k, m]` and, with
    `transpose_rhs`, the rhs as `[b..., n, k]`. The layouts NN, NT, TN and TT
    are these two flags, so a backward pass's `A^T @ G` needs no separate
    transpose. Both operands have the same rank (>= 2), the same batch dims and
    the same element type; the result may be wider (bf16 x bf16 -> f32).
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       OptionalAttr<Nova_LoweringConfigAttr>:$lowering_config);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The GEMM the op computes: the product of the batch dims, then M, N,
    /// K as its operand layouts say (static shapes only).
    struct GemmDims {
      int64_t batch = 1, m = 0, n = 0, k = 0;
    };
    GemmDims getGemmDims() {
      auto lhs = ::llvm::cast<::mlir::RankedTensorType>(getLhs().getType());
      auto rhs = ::llvm::cast<::mlir::RankedTensorType>(getRhs().getType());
      GemmDims dims;
      for (int64_t d : lhs.getShape().drop_back(2))
        dims.batch *= d;
      ::llvm::ArrayRef<int64_t> a = lhs.getShape().take_back(2);
      ::llvm::ArrayRef<int64_t> b = rhs.getShape().take_back(2);
      dims.m = getTransposeLhs() ? a[1] : a[0];
      dims.k = getTransposeLhs() ? a[0] : a[1];
      dims.n = getTransposeRhs() ? b[0] : b[1];
      return dims;
    }
  }];
}

def Nova_ConvolutionOp : Nova_Op<"convolution", [Pure]> {
  let summary = "Grouped N-d convolution (cross-correlation) with XLA-style "
                "input and kernel dilation";
  let description = [{
    input `[N, C, D_1..D_s]`, weight `[F, C / groups, K_1..K_s]` -> result
    `[N, F, O_1..O_s]`, with `Cg = C / groups` and `Fg = F / groups`:

      result[n, g*Fg + f, o...] =
        sum_{c < Cg, k...} X[n, g*Cg + c, o*stride + k*dilation]
                           * weight[g*Fg + f, c, k...]

    where X is the input with `lhs_dilation - 1` zeros inserted between
    neighbours along each spatial dim, then `padding_low` / `padding_high`
    zeros added at its ends. Without `lhs_dilation` this is torch's
    convolution; with it, a transposed convolution (a convolution's input
    gradient). Along each spatial dim
    `O = (lhs_dilation*(D-1) + 1 + low + high - dilation*(K-1) - 1) / stride + 1`
    (floor). Low-precision floats accumulate in f32.
  }];
  let arguments = (ins Nova_FloatTensor:$input, Nova_FloatTensor:$weight,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding_low,
                       DenseI64ArrayAttr:$padding_high,
                       DenseI64ArrayAttr:$dilation,
                       DenseI64ArrayAttr:$lhs_dilation, I64Attr:$groups);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight attr-dict `:` type($input) `,` type($weight) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Nova_ReduceOp<string mnemonic> : Nova_Op<mnemonic, [Pure]> {
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`keepdim` $keepdim^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyReduction(getOperation(), getInput().getType(), getDims(),
                             getKeepdim(), getResult().getType());
    }
  }];
}

def Nova_ReduceSumOp : Nova_ReduceOp<"reduce_sum"> {
  let summary = "Sum over `dims` (low-precision floats accumulate in f32)";
}
def Nova_ReduceMaxOp : Nova_ReduceOp<"reduce_max"> {
  let summary = "Maximum over `dims`";
}
def Nova_ReduceMeanOp : Nova_ReduceOp<"reduce_mean"> {
  let summary = "Mean over `dims` (low-precision floats accumulate in f32)";
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Nova_BroadcastInDimOp : Nova_Op<"broadcast_in_dim", [Pure]> {
  let summary = "Broadcast to a larger shape";
  let description = [{
    Operand dim `i` maps to result dim `dims[i]`; each mapped operand dim is
    either 1 or equal to its result dim. Result dims not in `dims` are new.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Nova_TransposeOp : Nova_Op<"transpose", [Pure]> {
  let summary = "Permute dims: `result.shape[i] = input.shape[permutation[i]]`";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `permutation` `=` $permutation attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Nova_ReverseOp : Nova_Op<"reverse", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Reverse the order of elements along `dims` (torch.flip)";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Nova_CumsumOp : Nova_Op<"cumsum", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Inclusive prefix sum along `dim` (torch.cumsum)";
  let description = [{
    `result[..., i, ...] = sum_{k <= i} input[..., k, ...]` along `dim`, or
    with `reverse` the suffix sum over `k >= i` (cumsum's backward, which
    torch writes as flip, cumsum, flip); low-precision floats accumulate in
    f32.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$dim,
                       UnitAttr:$reverse);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim (`reverse` $reverse^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Nova_ReshapeOp : Nova_Op<"reshape", [Pure]> {
  let summary = "Reinterpret a tensor with a static shape of equal size";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Nova_SliceOp : Nova_Op<"slice", [Pure]> {
  let summary = "Static strided slice `input[start:limit:stride]` per dim";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$stride);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `[` custom<SliceRanges>($start, $limit, $stride) `]` attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Nova_ConcatOp : Nova_Op<"concat", [Pure]> {
  let summary = "Concatenate tensors along `dim`";
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` `(` type($inputs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

def Nova_GatherOp : Nova_Op<"gather", [Pure]> {
  let summary = "torch.gather: `result[i...] = input[i with i[dim] = index[i...]]`";
  let arguments = (ins AnyRankedTensor:$input, Nova_IndexTensor:$index,
                       I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `[` $index `]` `dim` `=` $dim attr-dict `:`
    type($input) `,` type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Nova_EmbeddingOp : Nova_Op<"embedding", [Pure]> {
  let summary = "Row lookup: `result[i..., :] = table[indices[i...], :]`";
  let arguments = (ins AnyRankedTensor:$table, Nova_IndexTensor:$indices);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:`
    type($table) `,` type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Nova_ScatterAddOp : Nova_Op<"scatter_add", [Pure]> {
  let summary = "Accumulate rows: `result = dest; result[indices[i...], :] += updates[i..., :]`";
  let description = [{
    The embedding backward. Indices may repeat; every update is added. The
    leading dims of `updates` are the dims of `indices`, its trailing dims are
    the row shape of `dest` (all dims after the first).
  }];
  let arguments = (ins AnyRankedTensor:$dest, Nova_IndexTensor:$indices,
                       AnyRankedTensor:$updates);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $dest `[` $indices `]` `,` $updates attr-dict `:`
    type($dest) `,` type($indices) `,` type($updates) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Composite ops (decomposed by -nova-decompose)
//===----------------------------------------------------------------------===//

def Nova_SoftmaxOp : Nova_Op<"softmax", [Pure]> {
  let summary = "Softmax along `dim`";
  let arguments = (ins Nova_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim attr-dict `:`
    custom<SameTypes>(type($input), type($result))
  }];
  let hasVerifier = 1;
}

def Nova_LogSoftmaxOp : Nova_Op<"log_softmax", [Pure]> {
  let summary = "Log-softmax along `dim`";
  let arguments = (ins Nova_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim attr-dict `:`
    custom<SameTypes>(type($input), type($result))
  }];
  let hasVerifier = 1;
}

def Nova_LayerNormOp : Nova_Op<"layer_norm", [Pure, AttrSizedOperandSegments]> {
  let summary = "Layer normalization over the trailing `normalized_rank` dims";
  let description = [{
    `(x - mean) * rsqrt(var + epsilon) * weight + bias` with biased variance,
    as torch.nn.functional.layer_norm. `weight` and `bias` are optional and
    have the normalized (trailing) shape.
  }];
  let arguments = (ins Nova_FloatTensor:$input,
                       Optional<Nova_FloatTensor>:$weight,
                       Optional<Nova_FloatTensor>:$bias,
                       I64Attr:$normalized_rank, F64Attr:$epsilon);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention (decomposed by -nova-decompose-attention)
//===----------------------------------------------------------------------===//

def Nova_AttentionTensor : RankedTensorOf<[F32, BF16, F16]>;

def Nova_AttentionOp : Nova_Op<"attention", [Pure]> {
  let summary = "Fused scaled dot-product attention, with each row's log-sum-exp";
  let description = [{
    With `s = scale * q k^T` (`[batch..., Tq, Tk]`, accumulated in f32) plus the
    optional additive `mask` (broadcast to `[batch..., Tq, Tk]` by torch's
    rules: trailing dims align, size-1 dims expand) and, with `causal`, -inf
    wherever `j > i` (lower-triangular, diagonal kept; needs Tq == Tk):
    `p = softmax(s)` along the last dim (f32), `out = p v` (p rounded to the
    operands' element type first, as autocast does) and
    `lse[..., i] = log(sum_j exp(s[..., i, j]))`, the natural-log row
    log-sum-exp that `nova.attention_backward` recomputes `p` from.

    `q` is `[batch..., Tq, D]`, `k` `[batch..., Tk, D]`, `v`
    `[batch..., Tk, Dv]`: rank >= 3, the same leading dims and the same
    element type (f32, bf16 or f16); `out` is `[batch..., Tq, Dv]` in that
    type, `lse` `[batch..., Tq]` in f32.
  }];
  let arguments = (ins Nova_AttentionTensor:$query, Nova_AttentionTensor:$key,
                       Nova_AttentionTensor:$value,
                       Optional<Nova_AttentionTensor>:$mask, UnitAttr:$causal,
                       F64Attr:$scale);
  let results = (outs Nova_AttentionTensor:$out, RankedTensorOf<[F32]>:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `->`
    type($out) `,` type($lse)
  }];
  let hasVerifier = 1;
}

def Nova_AttentionBackwardOp : Nova_Op<"attention_backward", [Pure]> {
  let summary = "Gradients of nova.attention with respect to q, k and v";
  let description = [{
    Given `dout` (the gradient of `out`) and the forward's operands, `out`
    and `lse`, with the forward's `mask`, `causal` and `scale`:
    `p = exp(s - lse)` (s recomputed as in nova.attention), `dv = p^T dout`,
    `dp = dout v^T`, `D = rowsum(dout * out)` (f32),
    `ds = p * (dp - D)`, `dq = scale * ds k`, `dk = scale * ds^T q`. The
    results have the types of `q`, `k` and `v`.
  }];
  let arguments = (ins Nova_AttentionTensor:$grad_out,
                       Nova_AttentionTensor:$query, Nova_AttentionTensor:$key,
                       Nova_AttentionTensor:$value, Nova_AttentionTensor:$out,
                       RankedTensorOf<[F32]>:$lse,
                       Optional<Nova_AttentionTensor>:$mask, UnitAttr:$causal,
                       F64Attr:$scale);
  let results = (outs Nova_AttentionTensor:$grad_query,
                      Nova_AttentionTensor:$grad_key,
                      Nova_AttentionTensor:$grad_value);
  let assemblyFormat = [{
    $grad_out `,` $query `,` $key `,` $value `,` $out `,` $lse
    (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict `:`
    type($grad_out) `,` type($query) `,` type($key) `,` type($value) `,`
    type($out) `,` type($lse) `->` type($grad_query) `,` type($grad_key) `,`
    type($grad_value)
  }];
  let hasVerifier = 1;
}

def Nova_CrossEntropyOp : Nova_Op<"cross_entropy", [Pure]> {
  let summary = "Per-row softmax cross-entropy of class logits, with each row's log-sum-exp";
  let description = [{
    `logits` is `[N, C]` (f32, bf16 or f16), `target` `[N]` class indices.
    In f32: `lse[i] = log(sum_j exp(logits[i, j]))` and
    `loss[i] = lse[i] - logits[i, target[i]]`, or 0 where `target[i]` is
    `ignore_index` (as torch's cross_entropy, before its reduction). Both
    results are `[N]` f32; `nova.cross_entropy_backward` takes `lse`. A
    target outside `[0, C)` that is not `ignore_index` is undefined.
  }];
  let arguments = (ins RankedTensorOf<[F32, BF16, F16]>:$logits,
                       Nova_IndexTensor:$target, I64Attr:$ignore_index);
  let results = (outs RankedTensorOf<[F32]>:$loss, RankedTensorOf<[F32]>:$lse);
  let assemblyFormat = [{
    $logits `,` $target attr-dict `:` type($logits) `,` type($target) `->`
    type($loss) `,` type($lse)
  }];
  let hasVerifier = 1;
}

def Nova_CrossEntropyBackwardOp : Nova_Op<"cross_entropy_backward", [Pure]> {
  let summary = "Gradient of nova.cross_entropy with respect to the logits";
  let description = [{
    Given `grad_loss` (`[N]` f32, the gradient of `loss`) and the forward's
    `logits`, `target` and `lse`: `grad_logits[i, j] = grad_loss[i] *
    (exp(logits[i, j] - lse[i]) - (j == target[i]))` in f32, rounded to the
    logits' element type, and 0 on the rows whose target is `ignore_index`.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$grad_loss,
                       RankedTensorOf<[F32, BF16, F16]>:$logits,
                       Nova_IndexTensor:$target, RankedTensorOf<[F32]>:$lse,
                       I64Attr:$ignore_index);
  let results = (outs RankedTensorOf<[F32, BF16, F16]>:$grad_logits);
  let assemblyFormat = [{
    $grad_loss `,` $logits `,` $target `,` $lse attr-dict `:`
    type($grad_loss) `,` type($logits) `,` type($target) `,` type($lse) `->`
    type($grad_logits)
  }];
  let hasVerifier = 1;
}

def Nova_CrossEntropyWithGradOp : Nova_Op<"cross_entropy_with_grad", [Pure]> {
  let summary = "nova.cross_entropy and its backward in one pass over the logits";
  let description = [{
    `loss` and `lse` as `nova.cross_entropy` of `logits` and `target`, and
    `grad_logits` as `nova.cross_entropy_backward` of `grad_loss` and those
    results. Formed by `nova-fuse-cross-entropy` where the loss gradient
    does not depend on the loss (the usual case: 1 / the count of targets),
    so that one kernel reads each row of logits once for both.
  }];
  let arguments = (ins RankedTensorOf<[F32, BF16, F16]>:$logits,
                       Nova_IndexTensor:$target,
                       RankedTensorOf<[F32]>:$grad_loss, I64Attr:$ignore_index);
  let results = (outs RankedTensorOf<[F32]>:$loss, RankedTensorOf<[F32]>:$lse,
                      RankedTensorOf<[F32, BF16, F16]>:$grad_logits);
  let assemblyFormat = [{
    $logits `,` $target `,` $grad_loss attr-dict `:` type($logits) `,`
    type($target) `,` type($grad_loss) `->` type($loss) `,` type($lse) `,`
    type($grad_logits)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The forward and the backward it stands for, made at `b`'s insertion
    /// point: {loss, lse, grad_logits}.
    SmallVector<Value> createUnfused(OpBuilder &b);
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Nova_RandomUniformOp : Nova_Op<"random_uniform", [Pure]> {
  let summary = "Counter-based uniform random numbers in [0, 1)";
  let description = [{
    `result[i...]` is a pure function of the 0-d int64 `seed`, `stream` and
    the element's row-major index `i`: the splitmix64 finalizer of
    `(seed ^ stream * 0xD1B54A32D192ED03) + (i + 1) * 0x9E3779B97F4A7C15`
    (wrapping), whose top 24 bits scaled by 2^-24 are the value. Random ops
    of a step draw from distinct streams; python/nova/random_ops.py holds
    the same function as the eager reference.
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$seed, I64Attr:$stream);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $seed `stream` `=` $stream attr-dict `:` type($seed) `->` type($result)
  }];
}

def Nova_ConstantOp : Nova_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypedAttr":$value), [{
      build($_builder, $_state, value.getType(),
            ::llvm::cast<::mlir::ElementsAttr>(value));
    }]>
  ];
}

def Nova_IotaOp : Nova_Op<"iota", [Pure]> {
  let summary = "`result[i...] = i[dim]`";
  let arguments = (ins I64Attr:$dim);
  let results = (outs RankedTensorOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def Nova_FusedOp : Nova_Op<"fused", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "A group of ops compiled as one kernel";
  let description = [{
    The body's block arguments are the `inputs`, in order; `nova.yield`
    returns the results. The region is isolated from above, so a fused group
    is a self-contained kernel that code generation handles as a unit.
  }];
  let arguments = (ins Variadic<AnyType>:$inputs,
                       OptionalAttr<Nova_LoweringConfigAttr>:$lowering_config);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasRegionVerifier = 1;
}

def Nova_YieldOp : Nova_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"FusedOp">]> {
  let summary = "Returns the results of a nova.fused region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

def Nova_AllReduceOp : Nova_Op<"all_reduce", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Sum or mean of a tensor over the data-parallel group";
  let description = [{
    Every rank of the data-parallel group contributes `input`; each gets
    the elementwise sum, or the mean (the sum over the group's size). A
    captured train step holds one per gradient; `nova-bucket-all-reduce`
    merges them into buckets placed where their last gradient is produced,
    `convert-nova-collectives-to-iree` lowers them to IREE's collectives.
    Not `Pure`: it communicates, so it is never folded, merged or moved by
    generic transformations.
  }];
  let arguments = (ins Nova_FloatTensor:$input, StrAttr:$reduction);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = [{
    $reduction $input attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

def Nova_SgdOp : Nova_Op<"sgd", [Pure]> {
  let summary = "One torch.optim.SGD update of a parameter";
  let description = [{
    With `g = grad + weight_decay * param`:
    `buf = first_step ? g : momentum * momentum_buf + (1 - dampening) * g`,
    `d = nesterov ? g + momentum * buf : buf` (or `g` when momentum is 0),
    `new_param = param - lr * d`. Hyperparameters are 0-d f32 tensors so a
    changed learning rate needs no recompilation; `first_step` is 1.0 on the
    optimizer's first step and 0.0 after.
  }];
  let arguments = (ins Nova_FloatTensor:$param, Nova_FloatTensor:$grad,
      Nova_FloatTensor:$momentum_buf, Nova_Scalar:$lr, Nova_Scalar:$momentum,
      Nova_Scalar:$dampening, Nova_Scalar:$weight_decay,
      Nova_Scalar:$first_step, UnitAttr:$nesterov);
  let results = (outs Nova_FloatTensor:$new_param,
                      Nova_FloatTensor:$new_momentum_buf);
  let assemblyFormat = [{
    $param `,` $grad `,` $momentum_buf `lr` `(` $lr `)` `momentum` `(` $momentum `)`
    `dampening` `(` $dampening `)` `weight_decay` `(` $weight_decay `)`
    `first_step` `(` $first_step `)` attr-dict `:`
    custom<SameTypes>(type($param), type($grad), type($momentum_buf),
                      type($new_param), type($new_momentum_buf))
  }];
  let hasVerifier = 1;
}

def Nova_AdamwOp : Nova_Op<"adamw", [Pure]> {
  let summary = "One torch.optim.AdamW update of a parameter";
  let description = [{
    `step` is the already-incremented step count t:
    `p = param * (1 - lr * weight_decay)`,
    `m = beta1 * exp_avg + (1 - beta1) * grad`,
    `v = beta2 * exp_avg_sq + (1 - beta2) * grad^2`,
    `new_param = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)`.
  }];
  let arguments = (ins Nova_FloatTensor:$param, Nova_FloatTensor:$grad,
      Nova_FloatTensor:$exp_avg, Nova_FloatTensor:$exp_avg_sq,
      Nova_Scalar:$step, Nova_Scalar:$lr, Nova_Scalar:$beta1,
      Nova_Scalar:$beta2, Nova_Scalar:$eps, Nova_Scalar:$weight_decay);
  let results = (outs Nova_FloatTensor:$new_param, Nova_FloatTensor:$new_exp_avg,
                      Nova_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `step` `(` $step `)`
    `lr` `(` $lr `)` `betas` `(` $beta1 `,` $beta2 `)` `eps` `(` $eps `)`
    `weight_decay` `(` $weight_decay `)` attr-dict `:`
    custom<SameTypes>(type($param), type($grad), type($exp_avg),
                      type($exp_avg_sq), type($new_param), type($new_exp_avg),
                      type($new_exp_avg_sq))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// One element's update (in the elements' float type), the one definition of the arithmetic
    /// for every lowering: `elements` are (param, grad, exp_avg,
    /// exp_avg_sq), `scalars` (lr, beta1, beta2, eps, weight_decay,
    /// 1 - beta1^t, 1 - beta2^t); `sqrt` builds a correctly rounded square
    /// root. Returns (new_param, new_exp_avg, new_exp_avg_sq).
    static ::llvm::SmallVector<::mlir::Value, 3> buildElementUpdate(
        ::mlir::OpBuilder &b, ::mlir::Location loc,
        ::mlir::ValueRange elements, ::mlir::ValueRange scalars,
        ::llvm::function_ref<::mlir::Value(::mlir::Value)> sqrt);
    /// The bf16 tensor the gradient widens (a nova.cast of one), or null:
    /// the update may read it as bf16.
    ::mlir::Value getWidenedBf16Grad();
  }];
}

#endif // NOVA_DIALECT_NOVAOPS_TD
