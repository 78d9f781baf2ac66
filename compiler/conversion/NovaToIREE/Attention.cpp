//===- Attention.cpp - configured attention through Nova's sm_90 kernels --===//
//
// A nova.attention / nova.attention_backward the configurator gave a
// "flash_wgmma" config becomes a dispatch of Nova's fused kernel
// (compiler/codegen/cuda/FlashAttentionKernel.h) over [B*H, T, D] views of
// its operands. The backward's Delta = rowsum(dO * O) (f32) is computed
// here first, and its dQ is accumulated by the kernel in a zero-filled f32
// buffer and rounded to the operands' type after.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FlashAttentionKernel.h"
#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"
#include "compiler/dialect/NovaOps.h"

#include "llvm/ADT/bit.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;
using namespace mlir::nova::nova_to_linalg;

namespace {

/// [BH, T, D] of an attention operand.
struct Heads {
  int64_t bh = 1, t = 0, d = 0;
};

Heads headsOf(Value x) {
  ArrayRef<int64_t> shape = tensorType(x).getShape();
  Heads heads;
  for (int64_t size : shape.drop_back(2))
    heads.bh *= size;
  heads.t = shape[shape.size() - 2];
  heads.d = shape.back();
  return heads;
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
  if (!type.hasStaticShape() || !type.getElementType().isBF16() ||
      tensorType(key) != type || tensorType(value) != type)
    return failure();
  Heads heads = headsOf(query);
  std::string why;
  return cuda::flashAttentionSpec(config, backward, causal, heads.d,
                                  sharedMemoryLimit(op), why);
}

/// `x` [batch..., T, D] as [BH, T, D] (or [batch..., T] as [BH, T]).
Value asHeads(OpBuilder &b, Location loc, Value x, const Heads &heads,
              bool rows = true) {
  SmallVector<int64_t> shape = {heads.bh, heads.t};
  if (rows)
    shape.push_back(heads.d);
  return reshapeTensor(
      b, loc, x, RankedTensorType::get(shape, tensorType(x).getElementType()));
}

/// A fresh output tensor: NaN-filled with `poison`, else uninitialised.
Value output(OpBuilder &b, Location loc, RankedTensorType type, bool poison) {
  return poison ? filledTensor(b, loc, type,
                               scalarConstant(b, loc, type.getElementType(), NAN))
                : emptyTensor(b, loc, type);
}

/// Delta[bh, t] = sum_d dO * O in f32.
Value rowDot(OpBuilder &b, Location loc, Value dout, Value out) {
  RankedTensorType type = tensorType(dout);
  auto deltaType =
      RankedTensorType::get(type.getShape().drop_back(), b.getF32Type());
  MLIRContext *context = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, context), d1 = getAffineDimExpr(1, context),
             d2 = getAffineDimExpr(2, context);
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d0, d1, d2}, context),
                                 AffineMap::get(3, 0, {d0, d1, d2}, context),
                                 AffineMap::get(3, 0, {d0, d1}, context)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  Value init = filledTensor(b, loc, deltaType,
                            scalarConstant(b, loc, b.getF32Type(), 0));
  return linalg::GenericOp::create(
             b, loc, deltaType, ValueRange{dout, out}, init, maps, iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               Type f32 = nb.getF32Type();
               Value product = arith::MulFOp::create(
                   nb, l, arith::ExtFOp::create(nb, l, f32, args[0]),
                   arith::ExtFOp::create(nb, l, f32, args[1]));
               linalg::YieldOp::create(
                   nb, l, arith::AddFOp::create(nb, l, args[2], product)
                              .getResult());
             })
      ->getResult(0);
}

/// Declares the kernel's executable once per module.
LogicalResult declareKernel(ModuleOp module, Operation *op,
                            const cuda::FlashAttentionSpec &spec,
                            ArrayRef<bool> readOnly) {
  std::string name = spec.kernelName();
  if (hasExecutable(module, name))
    return success();
  std::string error;
  std::string ptx = cuda::flashAttentionPtx(spec, error);
  if (ptx.empty())
    return op->emitOpError() << "could not build Nova's attention kernel "
                             << name << ":\n"
                             << error;
  KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings.assign(readOnly.begin(), readOnly.end());
  kernel.constants = 3; // T, BH, scale (f32 bits)
  kernel.workgroupSize = {spec.threads(), 1, 1};
  kernel.sharedMemoryBytes = spec.sharedMemoryBytes();
  kernel.grid = [](OpBuilder &b, Location l, Value workload) {
    Value one = arith::ConstantIndexOp::create(b, l, 1);
    return SmallVector<Value, 3>{workload, one, one};
  };
  createExecutable(module, name, ptx, {kernel});
  return success();
}

struct Dispatcher {
  IRRewriter &rewriter;
  Location loc;
  int64_t grid;
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(rewriter, loc, v, 32);
  }
  Value scratch() {
    return emptyTensor(
        rewriter, loc,
        RankedTensorType::get(
            {grid * cuda::kAttentionDescriptorBytesPerCta / 4},
            rewriter.getI32Type()));
  }
  Value scaleBits(double scale) {
    return i32(llvm::bit_cast<int32_t>(float(scale)));
  }
};

LogicalResult lowerForward(IRRewriter &rewriter, ModuleOp module,
                           AttentionOp op, const cuda::FlashAttentionSpec &spec,
                           bool poison) {
  if (failed(declareKernel(module, op, spec,
                           {true, true, true, false, false, false})))
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Heads heads = headsOf(op.getQuery());
  auto config = op->getAttrOfType<LoweringConfigAttr>("lowering_config");
  Dispatcher d{rewriter, loc, config.getPersistentCtas()};
  Type bf16 = rewriter.getBF16Type(), f32 = rewriter.getF32Type();
  auto outType = RankedTensorType::get({heads.bh, heads.t, heads.d}, bf16);
  auto lseType = RankedTensorType::get({heads.bh, heads.t}, f32);
  Value scratch = d.scratch();
  ResultRange results = createDispatch(
      rewriter, loc, spec.kernelName(), spec.kernelName(),
      arith::ConstantIndexOp::create(rewriter, loc, d.grid),
      {asHeads(rewriter, loc, op.getQuery(), heads),
       asHeads(rewriter, loc, op.getKey(), heads),
       asHeads(rewriter, loc, op.getValue(), heads),
       output(rewriter, loc, outType, poison),
       output(rewriter, loc, lseType, poison), scratch, d.i32(heads.t),
       d.i32(heads.bh), d.scaleBits(op.getScale().convertToDouble())},
      {outType, lseType, tensorType(scratch)}, /*tiedTo=*/{3, 4, 5});
  rewriter.replaceOp(
      op, {reshapeTensor(rewriter, loc, results[0], op.getOut().getType()),
           reshapeTensor(rewriter, loc, results[1], op.getLse().getType())});
  return success();
}

LogicalResult lowerBackward(IRRewriter &rewriter, ModuleOp module,
                            AttentionBackwardOp op,
                            const cuda::FlashAttentionSpec &spec, bool poison) {
  if (failed(declareKernel(
          module, op, spec,
          {true, true, true, true, true, true, false, false, false, false})))
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Heads heads = headsOf(op.getQuery());
  auto config = op->getAttrOfType<LoweringConfigAttr>("lowering_config");
  Dispatcher d{rewriter, loc, config.getPersistentCtas()};
  Type bf16 = rewriter.getBF16Type(), f32 = rewriter.getF32Type();
  auto gradType = RankedTensorType::get({heads.bh, heads.t, heads.d}, bf16);
  auto accType = RankedTensorType::get({heads.bh, heads.t, heads.d}, f32);
  Value dout = asHeads(rewriter, loc, op.getGradOut(), heads);
  Value out = asHeads(rewriter, loc, op.getOut(), heads);
  Value scratch = d.scratch();
  ResultRange results = createDispatch(
      rewriter, loc, spec.kernelName(), spec.kernelName(),
      arith::ConstantIndexOp::create(rewriter, loc, d.grid),
      {asHeads(rewriter, loc, op.getQuery(), heads),
       asHeads(rewriter, loc, op.getKey(), heads),
       asHeads(rewriter, loc, op.getValue(), heads), dout,
       asHeads(rewriter, loc, op.getLse(), heads, /*rows=*/false), rowDot(rewriter, loc, dout, out),
       filledTensor(rewriter, loc, accType, scalarConstant(rewriter, loc, f32, 0)),
       output(rewriter, loc, gradType, poison),
       output(rewriter, loc, gradType, poison), scratch, d.i32(heads.t),
       d.i32(heads.bh), d.scaleBits(op.getScale().convertToDouble())},
      {accType, gradType, gradType, tensorType(scratch)},
      /*tiedTo=*/{6, 7, 8, 9});
  Value dq = elementwise(rewriter, loc, gradType, results[0],
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           return castScalar(b, l, args[0], bf16);
                         });
  rewriter.replaceOp(
      op, {reshapeTensor(rewriter, loc, dq, op.getGradQuery().getType()),
           reshapeTensor(rewriter, loc, results[1], op.getGradKey().getType()),
           reshapeTensor(rewriter, loc, results[2],
                         op.getGradValue().getType())});
  return success();
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
  IRRewriter rewriter(module.getContext());
  for (auto &[op, spec] : ops) {
    LogicalResult lowered =
        isa<AttentionOp>(op)
            ? lowerForward(rewriter, module, cast<AttentionOp>(op), spec,
                           poisonOutputs)
            : lowerBackward(rewriter, module, cast<AttentionBackwardOp>(op),
                            spec, poisonOutputs);
    if (failed(lowered))
      return failure();
  }
  return success();
}
