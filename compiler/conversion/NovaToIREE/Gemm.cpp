//===- Gemm.cpp - configured matmuls through Nova's sm_90 GEMM ------------===//
//
// A nova.matmul that the configurator gave a "wgmma_tma" config (bf16, or
// f32 as TF32, or exact f32 as three TF32 products) becomes a dispatch of
// Nova's TMA + wgmma kernel
// (compiler/codegen/cuda/WgmmaGemmKernel.h). bf16 operands are read in
// either layout, and so are TF32 ones where the configurator's model finds
// the kernel's transpose in shared memory cheaper than one in memory
// (cuda::transposesInSharedMemory); other MN-major operands, those whose rows
// or K are not 16-byte multiples and exact f32's (its hi/lo parts are laid
// out K-major) are transposed first (f32 by Nova's transpose kernel). TF32
// operands are rounded to nearest (the tensor cores would truncate, ~8e-4
// relative error); K is zero-padded when its rows are not a multiple of 16
// bytes (TMA strides). Split-K partial sums are added here.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/codegen/cuda/WgmmaGemmKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/conversion/NovaToIREE/Tf32Operands.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;
using namespace mlir::nova::nova_to_linalg;

namespace {

using GemmShape = MatmulOp::GemmDims;

/// The module's target (sm_90's when it names none).
TargetAttr moduleTarget(MatmulOp op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto target = module->getAttrOfType<TargetAttr>(cuda::kTargetAttrName))
    return target;
  return *cuda::getKnownTarget(op.getContext(), "sm_90");
}

/// The kernel spec for `op`, or failure when it stays on IREE's codegen.
FailureOr<cuda::WgmmaGemmSpec> kernelSpec(MatmulOp op, GemmShape &shape) {
  LoweringConfigAttr config = op.getLoweringConfigAttr();
  if (!config)
    return failure();
  Type element = tensorType(op.getLhs()).getElementType();
  Type out = op.getType().getElementType();
  if (!(out.isF32() || out.isBF16()))
    return failure();
  std::string why;
  FailureOr<cuda::GemmProblem> problem = cuda::gemmProblem(
      op,
      config.getPrecision() == "tf32x3" ? cuda::GemmPrecision::TF32x3
                                        : cuda::GemmPrecision::TF32,
      why);
  if (failed(problem))
    return failure();
  shape = op.getGemmDims();
  constexpr int64_t limit = std::numeric_limits<int32_t>::max() / 2;
  if (shape.m < 1 || shape.n < 1 || shape.k < 1 || shape.batch > limit ||
      shape.m > limit || shape.n > limit || 3 * shape.k > limit)
    return failure();
  // Operands stored MN-contiguous are read as they are (no transpose in
  // memory) when the problem can (readsMnMajor); TF32 ones when transposing
  // them in shared memory is the cheaper.
  TargetAttr target = moduleTarget(op);
  auto readAsStored = [&](bool mnMajor, bool ofB) {
    return mnMajor &&
           (problem->precision != cuda::GemmPrecision::TF32 ||
            cuda::transposesInSharedMemory(*problem, config, target, ofB));
  };
  bool aMnMajor = readAsStored(problem->aMnMajor, false);
  bool bMnMajor = readAsStored(problem->bMnMajor, true);
  FailureOr<cuda::WgmmaGemmSpec> spec = cuda::wgmmaGemmSpec(
      config, out.isBF16(), shape.m, shape.n, aMnMajor, bMnMajor,
      target.getSharedMemoryPerSm() - cuda::kReservedSharedMemory, why);
  if (failed(spec) || (spec->tf32 ? !element.isF32() : !element.isBF16()))
    return failure();
  // The split-K planes must fit the tensor maps' 32-bit dims.
  if (spec->splitK * shape.batch > limit)
    return failure();
  return spec;
}

/// `x` with its last two dims swapped.
Value transposeInner(OpBuilder &b, Location loc, Value x) {
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 1], shape[rank - 2]);
  SmallVector<unsigned> permutation =
      llvm::to_vector(llvm::seq<unsigned>(0, rank));
  std::swap(permutation[rank - 1], permutation[rank - 2]);
  return copyThroughMap(
      b, loc, RankedTensorType::get(shape, type.getElementType()), x,
      AffineMap::getPermutationMap(permutation, b.getContext()));
}

/// f32 `x` [batch..., R, C] as [batch..., C, R] through Nova's transpose
/// kernel, rounded to TF32 in the same pass when `round`.
FailureOr<Value> transposeDense(OpBuilder &b, Location loc, ModuleOp module,
                                Operation *op, Value x, bool round) {
  RankedTensorType type = tensorType(x);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  TransposeSource src;
  src.base = x;
  for (int64_t size : shape.drop_back(2))
    src.batch *= size;
  src.rows = shape[rank - 2];
  src.cols = src.rowStride = shape[rank - 1];
  FailureOr<Value> t =
      transposeOnDevice(b, loc, module, op, src, src.rows, round);
  if (failed(t))
    return failure();
  SmallVector<int64_t> transposed(shape);
  std::swap(transposed[rank - 1], transposed[rank - 2]);
  return reshapeTensor(b, loc, *t,
                       RankedTensorType::get(transposed, type.getElementType()));
}

/// `x` [batch, rows, K] as TF32 parts side by side along K: per entry of
/// `high`, its TF32 rounding (hi) or the TF32 rounding of the rest (lo).
Value splitTf32(OpBuilder &b, Location loc, Value x, ArrayRef<bool> high) {
  RankedTensorType type = tensorType(x);
  Value hi = roundToTf32(b, loc, x);
  Value lo = roundToTf32(
      b, loc,
      elementwise(b, loc, type, ValueRange{x, hi},
                  [](OpBuilder &nb, Location l, ValueRange v) {
                    return arith::SubFOp::create(nb, l, v[0], v[1]).getResult();
                  }));
  ArrayRef<int64_t> shape = type.getShape();
  int64_t k = shape[2];
  Value parts = emptyTensor(
      b, loc,
      RankedTensorType::get({shape[0], shape[1], k * int64_t(high.size())},
                            type.getElementType()));
  for (auto [i, isHigh] : llvm::enumerate(high)) {
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                         b.getIndexAttr(int64_t(i) * k)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(shape[0]),
                                       b.getIndexAttr(shape[1]),
                                       b.getIndexAttr(k)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    parts = tensor::InsertSliceOp::create(b, loc, isHigh ? hi : lo, parts,
                                          offsets, sizes, strides);
  }
  return parts;
}

/// [batch, rows, K] of `x` (K innermost), K zero-padded to `paddedK`.
Value kernelOperand(OpBuilder &b, Location loc, Value x, int64_t batch,
                    int64_t rows, int64_t paddedK) {
  RankedTensorType type = tensorType(x);
  int64_t k = type.getShape().back();
  x = reshapeTensor(
      b, loc, x, RankedTensorType::get({batch, rows, k}, type.getElementType()));
  if (paddedK == k)
    return x;
  auto paddedType =
      RankedTensorType::get({batch, rows, paddedK}, type.getElementType());
  Value zero = scalarConstant(b, loc, type.getElementType(), 0);
  SmallVector<OpFoldResult> low(3, b.getIndexAttr(0));
  SmallVector<OpFoldResult> high = {b.getIndexAttr(0), b.getIndexAttr(0),
                                    b.getIndexAttr(paddedK - k)};
  return tensor::PadOp::create(b, loc, paddedType, x, low, high, zero);
}

/// The sum over dim 0 of f32 `partials` [split, batch, M, N].
Value sumSplits(OpBuilder &b, Location loc, Value partials) {
  RankedTensorType type = tensorType(partials);
  auto sumType = RankedTensorType::get(type.getShape().drop_front(),
                                       type.getElementType());
  MLIRContext *context = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, context), d1 = getAffineDimExpr(1, context),
             d2 = getAffineDimExpr(2, context), d3 = getAffineDimExpr(3, context);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {d3, d0, d1, d2}, context),
                                 AffineMap::get(4, 0, {d0, d1, d2}, context)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value init = filledTensor(b, loc, sumType,
                            scalarConstant(b, loc, b.getF32Type(), 0));
  return linalg::GenericOp::create(
             b, loc, sumType, partials, init, maps, iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, arith::AddFOp::create(nb, l, args[0], args[1])
                              .getResult());
             })
      ->getResult(0);
}

/// A matmul to lower: alone, or the first op of the nova.fused region its
/// GEMM's epilogue computes.
struct GemmUse {
  MatmulOp op;
  cuda::WgmmaGemmSpec spec;
  GemmShape shape;
  FusedOp epilogue;
  std::unique_ptr<cuda::FusedRowsPlan> plan;
  /// Stream-K: this GEMM's ordinal among the module's stream-K GEMMs.
  int64_t streamKSite = 0;
};

LogicalResult lowerToGemmKernel(IRRewriter &rewriter, ModuleOp module,
                                GemmUse &use, bool poisonOutputs) {
  MatmulOp op = use.op;
  const cuda::WgmmaGemmSpec &spec = use.spec;
  const GemmShape &shape = use.shape;
  // What the dispatch replaces: the matmul, or its epilogue's region.
  Operation *replaced = use.epilogue ? use.epilogue.getOperation()
                                     : op.getOperation();
  Location loc = replaced->getLoc();
  std::string name = spec.kernelName();
  KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings = {true, true}; // A, B
  if (use.epilogue)
    kernel.readOnlyBindings.append(cuda::epilogueInputs(op).size(), true);
  if (spec.streamK)
    kernel.readOnlyBindings.push_back(false); // flags
  if (use.epilogue) {
    kernel.readOnlyBindings.append(use.epilogue.getNumResults(), false);
  } else {
    kernel.readOnlyBindings.push_back(false); // C
  }
  kernel.readOnlyBindings.push_back(false); // tensor maps
  kernel.constants = 4;                     // M, N, K, batch
  kernel.workgroupSize = {spec.threads(), 1, 1};
  kernel.sharedMemoryBytes = spec.sharedMemoryBytes();
  // Grid: the workload (one CTA per SM at most, computed here).
  if (failed(declareKernelOnce(module, op, "GEMM kernel", kernel,
                               [&](std::string &error) {
                                 return cuda::wgmmaGemmPtx(spec, error);
                               })))
    return failure();

  rewriter.setInsertionPoint(replaced);
  // An epilogue's matmul reads the region's inputs.
  auto outside = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v); arg && use.epilogue)
      return use.epilogue.getInputs()[arg.getArgNumber()];
    return v;
  };
  Value lhs = outside(op.getLhs()), rhs = outside(op.getRhs());
  LoweringConfigAttr config = op.getLoweringConfigAttr();
  bool exact = config.getPrecision() == "tf32x3";
  // f32 operands are transposed (and, for TF32, rounded in the same pass)
  // by Nova's transpose kernel; bf16 ones by IREE. The GEMM rounds the TF32
  // operands it transposes itself.
  bool lhsRounded = spec.transposesA(), rhsRounded = spec.transposesB();
  auto transposeIf = [&](bool needed, Value &x, bool &rounded) -> LogicalResult {
    if (!needed)
      return success();
    if (!spec.tf32) {
      x = transposeInner(rewriter, loc, x);
      return success();
    }
    rounded = !exact;
    FailureOr<Value> t = transposeDense(rewriter, loc, module, op, x, rounded);
    if (succeeded(t))
      x = *t;
    return t;
  };
  if (failed(transposeIf(op.getTransposeLhs() && !spec.aMnMajor, lhs,
                         lhsRounded)) ||
      failed(transposeIf(!op.getTransposeRhs() && !spec.bMnMajor, rhs,
                         rhsRounded)))
    return failure();
  int64_t kAlign = 16 / spec.elementBytes();
  int64_t paddedK = (shape.k + kAlign - 1) / kAlign * kAlign;
  // MN-major operands ([batch, K, rows]) need no padding: K % 8 == 0 there.
  Type operandElement = tensorType(lhs).getElementType();
  lhs = spec.aMnMajor
            ? reshapeTensor(rewriter, loc, lhs,
                            RankedTensorType::get({shape.batch, shape.k, shape.m},
                                                  operandElement))
            : kernelOperand(rewriter, loc, lhs, shape.batch, shape.m, paddedK);
  rhs = spec.bMnMajor
            ? reshapeTensor(rewriter, loc, rhs,
                            RankedTensorType::get({shape.batch, shape.k, shape.n},
                                                  operandElement))
            : kernelOperand(rewriter, loc, rhs, shape.batch, shape.n, paddedK);
  int64_t kernelK = paddedK;
  if (exact) {
    // f32 accuracy from TF32: a b = hi hi + hi lo + lo hi (+ lo lo, below
    // f32 rounding), one GEMM over K three times as long.
    lhs = splitTf32(rewriter, loc, lhs, {true, true, false});
    rhs = splitTf32(rewriter, loc, rhs, {true, false, true});
    kernelK = 3 * paddedK;
  } else if (spec.tf32) {
    if (!lhsRounded && !isRoundedToTf32(op.getLhs()))
      lhs = roundToTf32(rewriter, loc, lhs);
    if (!rhsRounded && !isRoundedToTf32(op.getRhs()))
      rhs = roundToTf32(rewriter, loc, rhs);
  }

  int64_t tiles = spec.splitK * shape.batch *
                  ((shape.m + spec.tileM - 1) / spec.tileM) *
                  ((shape.n + spec.tileN - 1) / spec.tileN);
  // Stream-K's grid is the CTAs its K steps are split between.
  int64_t grid = spec.streamK ? config.getPersistentCtas()
                 : config.getPersistentCtas()
                     ? std::min(tiles, config.getPersistentCtas())
                     : tiles;
  Type resultElement = op.getType().getElementType();
  RankedTensorType outType =
      spec.writesPartials()
          ? RankedTensorType::get(
                {spec.splitK, shape.batch, shape.m, shape.n},
                rewriter.getF32Type())
          : RankedTensorType::get({shape.batch, shape.m, shape.n},
                                  resultElement);
  auto scratchType = RankedTensorType::get(
      {grid * spec.scratchBytesPerCta() / 4}, rewriter.getI32Type());
  // Both results are written whole: untied, so IREE allocates each (a tied
  // empty tensor is one value CSE shares between GEMMs, which IREE then
  // copies before every in-place use).
  KernelDispatchBuilder dispatch(rewriter, loc, poisonOutputs);
  dispatch.input(lhs);
  dispatch.input(rhs);
  if (use.epilogue)
    for (BlockArgument arg : cuda::epilogueInputs(op))
      dispatch.input(use.epilogue.getInputs()[arg.getArgNumber()]);
  // Stream-K's flags (one per CTA) start at zero: zeros read as an input,
  // which the kernel writes all the same and leaves zero. Not a result tied
  // to zeros each call: IREE places no result of a dispatch with a tied
  // operand straight into its consumer (that cost gpt-146m 51
  // weight-gradient copies, 210 MiB a step). Each GEMM's flags are its own,
  // kept apart by a length of its own (grid + its ordinal), because CSE and
  // IREE would otherwise share one zero buffer between GEMMs that may run at
  // once; IREE makes them module constants.
  if (spec.streamK) {
    auto flagsType =
        RankedTensorType::get({grid + use.streamKSite}, rewriter.getI32Type());
    dispatch.input(
        filledTensor(rewriter, loc, flagsType,
                     arith::ConstantIntOp::create(rewriter, loc, 0, 32)));
  }
  if (use.epilogue) {
    for (Type type : use.epilogue.getResultTypes())
      dispatch.result(cast<RankedTensorType>(type));
  } else {
    dispatch.result(outType);
  }
  dispatch.scratch(scratchType);
  for (int64_t v : {shape.m, shape.n, kernelK, shape.batch})
    dispatch.constant(v);
  ResultRange results = dispatch.create(
      name, name, arith::ConstantIndexOp::create(rewriter, loc, grid));
  if (use.epilogue) {
    rewriter.replaceOp(use.epilogue, results.drop_back());
    return success();
  }
  Value product = results[0];
  if (spec.writesPartials()) {
    product = sumSplits(rewriter, loc, product);
    if (!resultElement.isF32())
      product = elementwise(
          rewriter, loc,
          RankedTensorType::get({shape.batch, shape.m, shape.n}, resultElement),
          product, [&](OpBuilder &b, Location l, ValueRange args) {
            return castScalar(b, l, args[0], resultElement);
          });
  }
  rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, op.getType()));
  return success();
}

} // namespace

LogicalResult nova_to_iree::injectGemmKernels(ModuleOp module,
                                              bool poisonOutputs,
                                              bool stmatrix) {
  SmallVector<GemmUse> ops;
  bool failedEpilogue = false;
  module.walk([&](MatmulOp op) {
    GemmShape shape;
    FailureOr<cuda::WgmmaGemmSpec> spec = kernelSpec(op, shape);
    if (failed(spec))
      return;
    spec->stmatrix = stmatrix && spec->tmaStore && spec->outBytes() == 2;
    GemmUse use{op, *spec, shape, dyn_cast<FusedOp>(op->getParentOp()), {}};
    if (use.epilogue) {
      std::string why;
      FailureOr<cuda::FusedRowsPlan> plan =
          cuda::analyzeFusedRows(use.epilogue, why);
      if (succeeded(plan))
        use.plan = std::make_unique<cuda::FusedRowsPlan>(std::move(*plan));
      if (succeeded(plan) && succeeded(cuda::checkGemmEpilogue(
                                 use.spec, *use.plan, why)) &&
          shape.batch == 1) {
        use.spec.epilogue = use.epilogue;
        use.spec.epiloguePlan = use.plan.get();
        use.spec.epilogueHash = cuda::regionHash(use.epilogue);
      } else {
        use.epilogue.emitError()
            << "GEMM epilogue cannot be built: "
            << (why.empty() ? "a batched matmul" : why);
        failedEpilogue = true;
        return;
      }
    }
    ops.push_back(std::move(use));
  });
  if (failedEpilogue)
    return failure();
  if (ops.empty())
    return success();
  if (failed(requireUnregisteredDialects(ops.front().op)))
    return failure();
  int64_t streamKSites = 0;
  for (GemmUse &use : ops)
    if (use.spec.streamK)
      use.streamKSite = streamKSites++;
  // Each distinct kernel is built once (LLVM's NVPTX back end takes ~0.5 s
  // a kernel), all of them in parallel; the lowering below finds them in
  // the cache. The workers only read the epilogues' regions.
  llvm::StringMap<std::function<std::string(std::string &)>> kernels;
  for (GemmUse &use : ops)
    if (!hasExecutable(module, use.spec.kernelName()))
      kernels.try_emplace(use.spec.kernelName(),
                          [spec = use.spec](std::string &error) {
                            return cuda::wgmmaGemmPtx(spec, error);
                          });
  buildInParallel(llvm::to_vector(llvm::make_second_range(kernels)));
  IRRewriter rewriter(module.getContext());
  for (GemmUse &use : ops)
    if (failed(lowerToGemmKernel(rewriter, module, use, poisonOutputs)))
      return failure();
  return success();
}
