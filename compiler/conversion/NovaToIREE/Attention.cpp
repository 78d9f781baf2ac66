//===- Attention.cpp - configured attention through Nova's sm_90 kernels --===//
//
// A nova.attention / nova.attention_backward the configurator gave a
// "flash_wgmma" config becomes a dispatch of Nova's fused kernel
// (compiler/codegen/cuda/FlashAttentionKernel.h). The kernel addresses each
// [B, H, T, D] operand through strides, so a q, k or v that is the
// transpose of a [B, T, H, D] view (of the packed qkv projection, say) is
// read where it lies, and a result the graph transposes to [B, T, H, D] is
// written so: the transposed copies are never made. The backward's Delta =
// rowsum(dO * O) (f32) is computed first by Nova's row-dot kernel
// (AttentionDeltaKernel.h), and its dQ is accumulated by
// the kernel in a zero-filled f32 buffer and rounded to the operands' type
// after. f32 operands under TF32 precision: q, k, v and dO are read rounded
// (by nova-round-tf32-operands where they are made, else here), and the
// K-major copies TF32 wgmma needs - V^T, K^T, Q^T, dO^T as [B*H, D, T']
// - are made by Nova's transpose kernel from where the operands lie.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/AttentionDeltaKernel.h"
#include "compiler/codegen/cuda/FlashAttentionKernel.h"
#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/codegen/cuda/StridedCastKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/conversion/NovaToIREE/Tf32Operands.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"
#include "compiler/dialect/NovaOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;
using namespace mlir::nova::nova_to_linalg;

namespace {

/// [B, H, T, D] of an attention operand ([batch..., H, T, D]: B the product
/// of the leading dims; a 3-d operand has H = 1).
struct Heads {
  int64_t b = 1, h = 1, t = 0, d = 0;
  int64_t bh() const { return b * h; }
};

Heads headsOf(Value x) {
  ArrayRef<int64_t> shape = tensorType(x).getShape();
  int64_t rank = shape.size();
  Heads heads;
  if (rank >= 4)
    heads.h = shape[rank - 3];
  for (int64_t size : shape.drop_back(rank >= 4 ? 3 : 2))
    heads.b *= size;
  heads.t = shape[rank - 2];
  heads.d = shape.back();
  return heads;
}

bool isHeadsTranspose(Operation *op) {
  auto transpose = dyn_cast_or_null<TransposeOp>(op);
  return transpose &&
         transpose.getPermutation() == ArrayRef<int64_t>{0, 2, 1, 3};
}

/// An operand as the kernel reads or writes it: `base` (contiguous) holds
/// element (bh, t, d) at offset + (bh / H) sB + (bh % H) headStride +
/// t rowStride + d (HeadsLayout in FlashAttentionBuilder.h).
struct Strided {
  Value base;
  int64_t offset = 0, rowStride = 0, headStride = 0;
  /// [B, T, H, D] within rows of rowStride elements, else [B, H, T, D].
  bool tokenMajor = false;
};

Strided headsMajor(Value x, const Heads &heads) {
  return {x, 0, heads.d, heads.t * heads.d, false};
}

Strided tokenMajor(Value x, const Heads &heads) {
  return {x, 0, heads.h * heads.d, heads.d, true};
}

/// Where `x` [B, H, T, D] lives: the transpose of a [B, T, H, D] tensor (a
/// reshape of [..., H D] rows, maybe a slice of wider rows as q, k and v of
/// the packed qkv projection are) is read from that tensor.
Strided stridedOperand(Value x, const Heads &heads) {
  Operation *def = x.getDefiningOp();
  if (!isHeadsTranspose(def))
    return headsMajor(x, heads);
  Strided operand = tokenMajor(def->getOperand(0), heads);
  auto reshape = operand.base.getDefiningOp<ReshapeOp>();
  if (!reshape ||
      tensorType(reshape.getInput()).getShape().back() != operand.rowStride)
    return operand;
  operand.base = reshape.getInput();
  auto slice = operand.base.getDefiningOp<SliceOp>();
  if (!slice)
    return operand;
  ArrayRef<int64_t> shape = tensorType(slice.getInput()).getShape();
  size_t last = shape.size() - 1;
  for (size_t i = 0; i <= last; ++i) {
    bool full = slice.getStart()[i] == 0 && slice.getLimit()[i] == shape[i];
    if (slice.getStride()[i] != 1 || (i < last && !full))
      return operand;
  }
  operand.base = slice.getInput();
  operand.offset = slice.getStart()[last];
  operand.rowStride = shape[last];
  return operand;
}

/// `strided` as a [B, T, H, D] or [B, H, T, D] tensor, for linalg.
Value logicalTensor(OpBuilder &b, Location loc, const Strided &strided,
                    const Heads &heads) {
  Type element = tensorType(strided.base).getElementType();
  if (!strided.tokenMajor)
    return reshapeTensor(
        b, loc, strided.base,
        RankedTensorType::get({heads.b, heads.h, heads.t, heads.d}, element));
  int64_t width = heads.h * heads.d, rows = heads.b * heads.t;
  Value base = reshapeTensor(
      b, loc, strided.base,
      RankedTensorType::get({rows, strided.rowStride}, element));
  if (strided.rowStride != width)
    base = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({rows, width}, element), base,
        ValueRange{}, ValueRange{}, ValueRange{},
        b.getDenseI64ArrayAttr({0, strided.offset}),
        b.getDenseI64ArrayAttr({rows, width}), b.getDenseI64ArrayAttr({1, 1}));
  return reshapeTensor(
      b, loc, base,
      RankedTensorType::get({heads.b, heads.t, heads.h, heads.d}, element));
}

/// `lse` [batch..., T] as [B*H, T].
Value lseRows(OpBuilder &b, Location loc, Value lse, const Heads &heads) {
  return reshapeTensor(b, loc, lse,
                       RankedTensorType::get({heads.bh(), heads.t},
                                             tensorType(lse).getElementType()));
}

/// How the kernel writes `result`: [B, T, H, D] when a user transposes it
/// so, else [B*H, T, D]; and that tensor type.
std::pair<Strided, RankedTensorType>
resultLayout(Value result, const Heads &heads, Type element) {
  bool rows = llvm::any_of(result.getUsers(), isHeadsTranspose);
  auto type = RankedTensorType::get(
      rows ? SmallVector<int64_t>{heads.b, heads.t, heads.h, heads.d}
           : SmallVector<int64_t>{heads.bh(), heads.t, heads.d},
      element);
  return {rows ? tokenMajor(Value(), heads) : headsMajor(Value(), heads), type};
}

/// Replaces `result` by the kernel's `written`, laid out as `layout`:
/// users transposing it to [B, T, H, D] take `written` itself.
void replaceHeads(IRRewriter &rewriter, Location loc, Value result,
                  Value written, const Strided &layout) {
  if (!layout.tokenMajor) {
    rewriter.replaceAllUsesWith(
        result, reshapeTensor(rewriter, loc, written, tensorType(result)));
    return;
  }
  for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
    if (isHeadsTranspose(user))
      rewriter.replaceOp(user, written);
  if (!result.use_empty())
    rewriter.replaceAllUsesWith(
        result, TransposeOp::create(rewriter, loc, tensorType(result), written,
                                    ArrayRef<int64_t>{0, 2, 1, 3}));
}

int64_t sharedMemoryLimit(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto target = module->getAttrOfType<TargetAttr>(cuda::kTargetAttrName);
  std::optional<TargetAttr> known =
      cuda::getKnownTarget(op->getContext(), "sm_90");
  int64_t perSm = target ? target.getSharedMemoryPerSm()
                         : known->getSharedMemoryPerSm();
  return perSm - cuda::kReservedSharedMemory;
}

/// The kernel spec for a configured attention op over `query`, or failure
/// when it is not Nova's kernel's (left to the decomposition).
FailureOr<cuda::FlashAttentionSpec> kernelSpec(Operation *op, Value query,
                                               Value key, Value value,
                                               bool backward, bool causal,
                                               bool hasMask) {
  auto config = op->getAttrOfType<LoweringConfigAttr>("lowering_config");
  if (!config || hasMask)
    return failure();
  RankedTensorType type = tensorType(query);
  if (!type.hasStaticShape() || tensorType(key) != type ||
      tensorType(value) != type)
    return failure();
  Heads heads = headsOf(query);
  std::string why;
  FailureOr<cuda::FlashAttentionSpec> spec = cuda::flashAttentionSpec(
      config, backward, causal, heads.d, sharedMemoryLimit(op), why);
  Type element = type.getElementType();
  if (failed(spec) || !(spec->tf32 ? element.isF32() : element.isBF16()))
    return failure();
  return spec;
}

/// Delta[b h, t] = sum_d dO * O in f32, read where dO and O lie, as [B*H,
/// T]: Nova's row-dot kernel (compiler/codegen/cuda/AttentionDeltaKernel.h).
FailureOr<Value> rowDot(OpBuilder &b, Location loc, ModuleOp module,
                        Operation *op, const Strided &dout, const Strided &out,
                        const Heads &heads) {
  bool f32 = tensorType(dout.base).getElementType().isF32();
  std::string name = cuda::attentionDeltaKernelName(heads.d, f32);
  KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings = {true, true, false}; // dO, O, Delta
  kernel.constants = 11;
  kernel.workgroupSize = {cuda::kAttentionDeltaBlock, 1, 1}; // grid: blocks
  int64_t d = heads.d;
  if (failed(declareKernelOnce(module, op, "attention Delta kernel", kernel,
                               [&](std::string &error) {
                                 return cuda::attentionDeltaPtx(d, f32, error);
                               })))
    return failure();
  int64_t rows = heads.bh() * heads.t;
  KernelDispatchBuilder dispatch(b, loc, /*poison=*/false);
  dispatch.input(dout.base);
  dispatch.input(out.base);
  dispatch.result(
      RankedTensorType::get({heads.bh(), heads.t}, b.getF32Type()));
  for (int64_t v : {rows, heads.t, heads.h})
    dispatch.constant(v);
  for (const Strided *x : {&dout, &out}) {
    // Element (b, h, t, 0) at offset + b sB + h sH + t sT.
    int64_t sB = x->tokenMajor ? heads.t * x->rowStride
                               : heads.h * heads.t * heads.d;
    for (int64_t v : {x->offset, x->rowStride, x->headStride, sB})
      dispatch.constant(v);
  }
  int64_t threads = rows * cuda::kAttentionDeltaThreadsPerRow;
  int64_t blocks = (threads + cuda::kAttentionDeltaBlock - 1) /
                   cuda::kAttentionDeltaBlock;
  return dispatch
      .create(name, name, arith::ConstantIndexOp::create(b, loc, blocks))[0];
}

/// Whether Nova's row-dot kernel reads `x`: 16-byte aligned rows and a
/// head dim of whole 64-column blocks (bf16 or f32).
bool rowDotReads(const Strided &x, const Heads &heads) {
  Type element = tensorType(x.base).getElementType();
  return heads.d % 64 == 0 && x.offset % 8 == 0 && x.rowStride % 8 == 0 &&
         x.headStride % 8 == 0 && (element.isBF16() || element.isF32()) &&
         heads.bh() * heads.t * heads.d < (int64_t(1) << 31);
}

/// `x` read rounded to TF32: as it lies when nova-round-tf32-operands
/// rounded it where it is made, else through a rounded copy of its base
/// (one per base in `copies`, which the ops lowered after this one share:
/// program order, so the first copy dominates their uses).
Strided roundedOperand(OpBuilder &b, Location loc, Strided x,
                       DenseMap<Value, Value> &copies) {
  if (isRoundedToTf32(x.base))
    return x;
  Value &copy = copies[x.base];
  if (!copy)
    copy = roundToTf32(b, loc, x.base);
  x.base = copy;
  return x;
}

/// [B*H, D, T'] rows of 16-byte multiples: the K-major copy along the
/// sequence that a TF32 wgmma reads of `x`, by Nova's transpose kernel
/// (rounding as it goes), and its layout for the kernel.
FailureOr<Strided> transposedHeads(OpBuilder &b, Location loc, ModuleOp module,
                                   Operation *op, const Strided &x,
                                   const Heads &heads) {
  TransposeSource src;
  src.base = x.base;
  src.batch = heads.bh();
  src.rows = heads.t;
  src.cols = heads.d;
  src.heads = heads.h;
  src.offset = x.offset;
  src.rowStride = x.rowStride;
  src.headStride = x.headStride;
  int64_t rowStride = (heads.t + 3) / 4 * 4;
  FailureOr<Value> t = transposeOnDevice(b, loc, module, op, src, rowStride,
                                         /*round=*/true);
  if (failed(t))
    return failure();
  return Strided{*t, 0, rowStride, heads.d * rowStride, false};
}

/// Declares the kernel's executable once per module.
LogicalResult declareKernel(ModuleOp module, Operation *op,
                            const cuda::FlashAttentionSpec &spec,
                            ArrayRef<bool> readOnly, int64_t layouts) {
  std::string name = spec.kernelName();
  KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings.assign(readOnly.begin(), readOnly.end());
  // T, B*H, scale (f32 bits), H, then (offset, row, head stride) per
  // strided operand.
  kernel.constants = 4 + 3 * layouts;
  kernel.workgroupSize = {spec.threads(), 1, 1};
  kernel.sharedMemoryBytes = spec.sharedMemoryBytes();
  // Grid: the persistent CTAs (the workload).
  return declareKernelOnce(module, op, "attention kernel", kernel,
                           [&](std::string &error) {
                             return cuda::flashAttentionPtx(spec, error);
                           });
}

/// Where the graph concatenates dK and dV (each transposed to [B, T, H, D]
/// and reshaped to [B, T, H D] rows) along the last dim, as the gradient of
/// a packed qkv projection: the concat, the reshapes feeding it (dQ's too
/// when it is concatenated so) and their offsets in its rows.
struct PackedGrads {
  ConcatOp concat;
  ReshapeOp query, key, value;
  int64_t queryOffset = 0, keyOffset = 0, valueOffset = 0, width = 0;

  bool takes(Value input) {
    return input == key.getResult() || input == value.getResult() ||
           (query && input == query.getResult());
  }
};

/// `grad`'s [B, T, H D] rows if its only use is a transpose to [B, T, H, D]
/// whose only use reshapes it so, and that reshape's only use is `concat`
/// (any concat when null).
ReshapeOp rowsOf(Value grad, const Heads &heads, ConcatOp concat) {
  if (!grad.hasOneUse() || !isHeadsTranspose(*grad.user_begin()))
    return {};
  Value tokens = grad.user_begin()->getResult(0);
  if (!tokens.hasOneUse())
    return {};
  auto reshape = dyn_cast<ReshapeOp>(*tokens.user_begin());
  if (!reshape || !reshape.getResult().hasOneUse() ||
      tensorType(reshape.getResult()).getShape() !=
          ArrayRef<int64_t>{heads.b, heads.t, heads.h * heads.d})
    return {};
  auto user = dyn_cast<ConcatOp>(*reshape.getResult().user_begin());
  if (!user || (concat && user != concat))
    return {};
  return reshape;
}

std::optional<PackedGrads> packedGrads(AttentionBackwardOp op,
                                       const Heads &heads) {
  PackedGrads packed;
  packed.key = rowsOf(op.getGradKey(), heads, ConcatOp());
  if (!packed.key)
    return std::nullopt;
  packed.concat = cast<ConcatOp>(*packed.key.getResult().user_begin());
  packed.value = rowsOf(op.getGradValue(), heads, packed.concat);
  if (!packed.value || packed.concat.getDim() != 2 ||
      packed.concat->getBlock() != op->getBlock())
    return std::nullopt;
  // dQ goes in by the strided-cast kernel: its 4-element vectors need
  // 4-aligned rows and offsets.
  packed.query = rowsOf(op.getGradQuery(), heads, packed.concat);
  int64_t offset = 0;
  for (Value input : packed.concat.getInputs()) {
    if (input == packed.key.getResult())
      packed.keyOffset = offset;
    if (input == packed.value.getResult())
      packed.valueOffset = offset;
    if (packed.query && input == packed.query.getResult())
      packed.queryOffset = offset;
    offset += tensorType(input).getShape()[2];
  }
  packed.width = offset;
  int64_t v = cuda::kStridedCastVector;
  if (packed.width % v || packed.queryOffset % v || (heads.h * heads.d) % v)
    packed.query = ReshapeOp();
  return packed;
}

/// Replaces the concat by `written` (the gradients already in place) with
/// its other inputs inserted at their offsets.
void finishPackedGrads(IRRewriter &rewriter, PackedGrads packed,
                       Value written) {
  ConcatOp concat = packed.concat;
  rewriter.setInsertionPoint(concat);
  Location loc = concat.getLoc();
  int64_t offset = 0;
  for (Value input : concat.getInputs()) {
    ArrayRef<int64_t> shape = tensorType(input).getShape();
    if (!packed.takes(input))
      written = tensor::InsertSliceOp::create(
          rewriter, loc, input, written, ValueRange{}, ValueRange{},
          ValueRange{}, rewriter.getDenseI64ArrayAttr({0, 0, offset}),
          rewriter.getDenseI64ArrayAttr(shape),
          rewriter.getDenseI64ArrayAttr({1, 1, 1}));
    offset += shape[2];
  }
  rewriter.replaceOp(concat, written);
  for (ReshapeOp reshape : {packed.query, packed.key, packed.value}) {
    if (!reshape)
      continue;
    Operation *transpose = reshape.getInput().getDefiningOp();
    rewriter.eraseOp(reshape);
    rewriter.eraseOp(transpose);
  }
}

/// dQ's f32 accumulator [B, T, H, D] rounded into its columns of `packed`
/// (in place) by Nova's strided-cast kernel.
FailureOr<Value> castQueryInto(IRRewriter &rewriter, ModuleOp module,
                               Operation *op, Value dqAcc, Value packed,
                               const PackedGrads &grads, const Heads &heads,
                               bool poison) {
  Location loc = op->getLoc();
  KernelExport kernel;
  kernel.name = cuda::kStridedCastKernel;
  kernel.readOnlyBindings = {true, false};
  kernel.constants = 4; // rows, width, dst row stride, offset
  kernel.workgroupSize = {cuda::kStridedCastBlock, 1, 1};
  kernel.grid = [](OpBuilder &b, Location l, Value threads) {
    Value blocks = arith::CeilDivUIOp::create(
        b, l, threads,
        arith::ConstantIndexOp::create(b, l, cuda::kStridedCastBlock));
    Value one = arith::ConstantIndexOp::create(b, l, 1);
    return SmallVector<Value, 3>{blocks, one, one};
  };
  if (failed(declareKernelOnce(module, op, "strided-cast kernel", kernel,
                               cuda::stridedCastPtx)))
    return failure();
  int64_t rows = heads.b * heads.t, width = heads.h * heads.d;
  KernelDispatchBuilder dispatch(rewriter, loc, poison);
  dispatch.input(dqAcc);
  dispatch.result(tensorType(packed), packed);
  for (int64_t value : {rows, width, grads.width, grads.queryOffset})
    dispatch.constant(value);
  return dispatch.create(
      cuda::kStridedCastKernel, cuda::kStridedCastKernel,
      arith::ConstantIndexOp::create(rewriter, loc,
                                     rows * width / cuda::kStridedCastVector))[0];
}

/// The shape constants (T, B*H, the scale's f32 bits, H), then each
/// operand's offset, row stride and head stride.
void shapeConstants(KernelDispatchBuilder &dispatch, const Heads &heads,
                    double scale, ArrayRef<Strided> layouts) {
  for (int64_t value : {heads.t, heads.bh(),
                        int64_t(llvm::bit_cast<int32_t>(float(scale))),
                        heads.h})
    dispatch.constant(value);
  for (const Strided &x : layouts)
    for (int64_t value : {x.offset, x.rowStride, x.headStride})
      dispatch.constant(value);
}

/// The per-CTA tensor-map scratch.
RankedTensorType scratchType(MLIRContext *context, int64_t ctas) {
  return RankedTensorType::get(
      {ctas * cuda::kAttentionDescriptorBytesPerCta / 4},
      IntegerType::get(context, 32));
}

/// A zero i32 tensor of length 1 + `site` read as an input: a head-group
/// kernel's item counter, which the kernel leaves zero (as stream-K's flags:
/// Gemm.cpp); a length of its own per site keeps CSE and IREE from sharing
/// one between kernels.
Value itemCounter(IRRewriter &rewriter, Location loc, int64_t site) {
  auto type = RankedTensorType::get({1 + site}, rewriter.getI32Type());
  return filledTensor(rewriter, loc, type,
                      arith::ConstantIntOp::create(rewriter, loc, 0, 32));
}

LogicalResult lowerForward(IRRewriter &rewriter, ModuleOp module,
                           AttentionOp op, const cuda::FlashAttentionSpec &spec,
                           bool poison, DenseMap<Value, Value> &copies,
                           int64_t site) {
  SmallVector<bool> readOnly = {true, true, true};
  if (spec.headGroup)
    readOnly.push_back(false); // the item counter
  readOnly.append({false, false, false});
  if (failed(declareKernel(module, op, spec, readOnly, 4)))
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Heads heads = headsOf(op.getQuery());
  int64_t ctas = op->getAttrOfType<LoweringConfigAttr>("lowering_config")
                     .getPersistentCtas();
  Type f32 = rewriter.getF32Type();
  Type element = tensorType(op.getQuery()).getElementType();
  Strided q = stridedOperand(op.getQuery(), heads),
          k = stridedOperand(op.getKey(), heads),
          v = stridedOperand(op.getValue(), heads);
  if (spec.tf32) {
    q = roundedOperand(rewriter, loc, q, copies);
    k = roundedOperand(rewriter, loc, k, copies);
    FailureOr<Strided> vt =
        transposedHeads(rewriter, loc, module, op, v, heads);
    if (failed(vt))
      return failure();
    v = *vt;
  }
  auto [out, outType] = resultLayout(op.getOut(), heads, element);
  KernelDispatchBuilder dispatch(rewriter, loc, poison);
  for (const Strided &x : {q, k, v})
    dispatch.input(x.base);
  if (spec.headGroup)
    dispatch.input(itemCounter(rewriter, loc, site));
  dispatch.result(outType);
  dispatch.result(RankedTensorType::get({heads.bh(), heads.t}, f32));
  dispatch.scratch(scratchType(rewriter.getContext(), ctas));
  shapeConstants(dispatch, heads, op.getScale().convertToDouble(),
                 {q, k, v, out});
  ResultRange results =
      dispatch.create(spec.kernelName(), spec.kernelName(),
                      arith::ConstantIndexOp::create(rewriter, loc, ctas));
  rewriter.replaceAllUsesWith(
      op.getLse(), reshapeTensor(rewriter, loc, results[1], op.getLse().getType()));
  replaceHeads(rewriter, loc, op.getOut(), results[0], out);
  rewriter.eraseOp(op);
  return success();
}

/// Where `op`'s gradients are packed (see PackedGrads), with `spec`'s
/// packed forms set to match.
std::optional<PackedGrads> packedGradsOf(AttentionBackwardOp op,
                                         const Heads &heads,
                                         cuda::FlashAttentionSpec &spec) {
  std::optional<PackedGrads> packed = packedGrads(op, heads);
  spec.packedGrads = packed.has_value();
  // f32 dQ accumulates in the packed gradient itself (zero-filled; TMA
  // wants 16-byte aligned rows and offset), else it is inserted after.
  if (packed && spec.tf32) {
    spec.packedQuery = packed->query && packed->width % 4 == 0 &&
                       packed->queryOffset % 4 == 0;
    if (!spec.packedQuery)
      packed->query = ReshapeOp();
  }
  return packed;
}

LogicalResult lowerBackward(IRRewriter &rewriter, ModuleOp module,
                            AttentionBackwardOp op,
                            cuda::FlashAttentionSpec spec, bool poison,
                            DenseMap<Value, Value> &copies, int64_t site) {
  Heads heads = headsOf(op.getQuery());
  std::optional<PackedGrads> packed = packedGradsOf(op, heads, spec);
  SmallVector<bool> readOnly(spec.tf32 ? 9 : 6, true);
  if (spec.headGroup)
    readOnly.push_back(false); // the item counter
  readOnly.append(spec.packedQuery ? 2 : spec.packedGrads ? 3 : 4, false);
  if (failed(declareKernel(module, op, spec, readOnly, spec.tf32 ? 10 : 7)))
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t ctas = op->getAttrOfType<LoweringConfigAttr>("lowering_config")
                     .getPersistentCtas();
  Type f32 = rewriter.getF32Type();
  Type element = tensorType(op.getQuery()).getElementType();
  Strided q = stridedOperand(op.getQuery(), heads),
          k = stridedOperand(op.getKey(), heads),
          v = stridedOperand(op.getValue(), heads),
          dout = stridedOperand(op.getGradOut(), heads),
          out = stridedOperand(op.getOut(), heads);
  SmallVector<Strided> transposed; // K^T, Q^T, dO^T
  if (spec.tf32) {
    for (Strided *x : {&q, &k, &v, &dout})
      *x = roundedOperand(rewriter, loc, *x, copies);
    for (const Strided &x : {k, q, dout}) {
      FailureOr<Strided> t =
          transposedHeads(rewriter, loc, module, op, x, heads);
      if (failed(t))
        return failure();
      transposed.push_back(*t);
    }
  }
  auto [dqAcc, dqAccType] = resultLayout(op.getGradQuery(), heads, f32);
  auto [dk, dkType] = resultLayout(op.getGradKey(), heads, element);
  auto [dv, dvType] = resultLayout(op.getGradValue(), heads, element);
  RankedTensorType packedType;
  if (packed) {
    packedType = tensorType(packed->concat.getResult());
    dk = {Value(), packed->keyOffset, packed->width, heads.d, true};
    dv = {Value(), packed->valueOffset, packed->width, heads.d, true};
  }
  if (spec.packedQuery)
    dqAcc = {Value(), packed->queryOffset, packed->width, heads.d, true};
  KernelDispatchBuilder dispatch(rewriter, loc, poison);
  for (const Strided &x : {q, k, v, dout})
    dispatch.input(x.base);
  for (const Strided &x : transposed)
    dispatch.input(x.base);
  dispatch.input(lseRows(rewriter, loc, op.getLse(), heads));
  if (!rowDotReads(dout, heads) || !rowDotReads(out, heads))
    return op.emitError() << "attention backward: dO or O is not laid out "
                             "for Nova's Delta kernel (16-byte aligned rows, "
                             "head dim a multiple of 64)";
  FailureOr<Value> delta = rowDot(rewriter, loc, module, op, dout, out, heads);
  if (failed(delta))
    return failure();
  dispatch.input(*delta);
  if (spec.headGroup)
    dispatch.input(itemCounter(rewriter, loc, site));
  // dQ accumulates (TMA reduce-adds) into zeros.
  Value zero = scalarConstant(rewriter, loc, f32, 0);
  if (spec.packedQuery) {
    dispatch.result(packedType, filledTensor(rewriter, loc, packedType, zero));
  } else {
    dispatch.result(dqAccType, filledTensor(rewriter, loc, dqAccType, zero));
    if (packed) {
      dispatch.result(packedType);
    } else {
      dispatch.result(dkType);
      dispatch.result(dvType);
    }
  }
  dispatch.scratch(scratchType(rewriter.getContext(), ctas));
  SmallVector<Strided> layouts = {q, k, v, dout, dqAcc, dk, dv};
  layouts.append(transposed);
  shapeConstants(dispatch, heads, op.getScale().convertToDouble(), layouts);
  ResultRange results =
      dispatch.create(spec.kernelName(), spec.kernelName(),
                      arith::ConstantIndexOp::create(rewriter, loc, ctas));
  if (spec.packedQuery) {
    finishPackedGrads(rewriter, *packed, results[0]);
    rewriter.eraseOp(op);
    return success();
  }
  if (packed && packed->query) {
    FailureOr<Value> written = castQueryInto(
        rewriter, module, op, results[0], results[1], *packed, heads, poison);
    if (failed(written))
      return failure();
    finishPackedGrads(rewriter, *packed, *written);
    rewriter.eraseOp(op);
    return success();
  }
  Value dq = results[0];
  if (!element.isF32())
    dq = elementwise(
        rewriter, loc,
        RankedTensorType::get(tensorType(results[0]).getShape(), element),
        results[0], [&](OpBuilder &b, Location l, ValueRange values) {
          return castScalar(b, l, values[0], element);
        });
  replaceHeads(rewriter, loc, op.getGradQuery(), dq, dqAcc);
  if (packed) {
    finishPackedGrads(rewriter, *packed, results[1]);
    rewriter.eraseOp(op);
    return success();
  }
  replaceHeads(rewriter, loc, op.getGradKey(), results[1], dk);
  replaceHeads(rewriter, loc, op.getGradValue(), results[2], dv);
  rewriter.eraseOp(op);
  return success();
}

/// Erases `producers` left without users (the transposes, reshapes and
/// slices the kernels now read through), and theirs in turn.
void eraseDeadProducers(IRRewriter &rewriter,
                        SmallVector<Operation *> producers) {
  llvm::DenseSet<Operation *> erased;
  while (!producers.empty()) {
    Operation *op = producers.pop_back_val();
    if (erased.contains(op) || !isa<TransposeOp, ReshapeOp, SliceOp>(op) ||
        !op->use_empty())
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        producers.push_back(def);
    erased.insert(op);
    rewriter.eraseOp(op);
  }
}

} // namespace

LogicalResult nova_to_iree::injectAttentionKernels(ModuleOp module,
                                                   bool poisonOutputs) {
  SmallVector<std::pair<Operation *, cuda::FlashAttentionSpec>> ops;
  module.walk([&](Operation *op) {
    FailureOr<cuda::FlashAttentionSpec> spec = failure();
    if (auto forward = dyn_cast<AttentionOp>(op))
      spec = kernelSpec(op, forward.getQuery(), forward.getKey(),
                        forward.getValue(), false, forward.getCausal(),
                        bool(forward.getMask()));
    else if (auto backward = dyn_cast<AttentionBackwardOp>(op))
      spec = kernelSpec(op, backward.getQuery(), backward.getKey(),
                        backward.getValue(), true, backward.getCausal(),
                        bool(backward.getMask()));
    if (succeeded(spec))
      ops.emplace_back(op, *spec);
  });
  if (ops.empty())
    return success();
  if (failed(requireUnregisteredDialects(ops.front().first)))
    return failure();
  // Each distinct kernel (the forward, the backward in its packed form and
  // its Delta kernel) is built once, all of them in parallel (~0.3 s each
  // in LLVM's NVPTX back end); the lowering below finds them in the cache.
  llvm::StringMap<std::function<std::string(std::string &)>> kernels;
  for (auto &[op, spec] : ops) {
    cuda::FlashAttentionSpec planned = spec;
    if (auto backward = dyn_cast<AttentionBackwardOp>(op)) {
      Heads heads = headsOf(backward.getQuery());
      (void)packedGradsOf(backward, heads, planned);
      bool f32 = tensorType(backward.getGradOut()).getElementType().isF32();
      std::string delta = cuda::attentionDeltaKernelName(heads.d, f32);
      if (!hasExecutable(module, delta))
        kernels.try_emplace(delta, [d = heads.d, f32](std::string &error) {
          return cuda::attentionDeltaPtx(d, f32, error);
        });
    }
    if (!hasExecutable(module, planned.kernelName()))
      kernels.try_emplace(planned.kernelName(),
                          [planned](std::string &error) {
                            return cuda::flashAttentionPtx(planned, error);
                          });
  }
  buildInParallel(llvm::to_vector(llvm::make_second_range(kernels)));
  IRRewriter rewriter(module.getContext());
  SmallVector<Operation *> producers;
  DenseMap<Value, Value> roundedCopies; // bases rounded to TF32 here
  int64_t sites = 0;                    // of head-group kernels' counters
  for (auto &[op, spec] : ops) {
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        producers.push_back(def);
    LogicalResult lowered =
        isa<AttentionOp>(op)
            ? lowerForward(rewriter, module, cast<AttentionOp>(op), spec,
                           poisonOutputs, roundedCopies, sites++)
            : lowerBackward(rewriter, module, cast<AttentionBackwardOp>(op),
                            spec, poisonOutputs, roundedCopies, sites++);
    if (failed(lowered))
      return failure();
  }
  eraseDeadProducers(rewriter, producers);
  return success();
}
