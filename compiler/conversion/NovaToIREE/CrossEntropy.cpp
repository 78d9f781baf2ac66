//===- CrossEntropy.cpp - configured cross-entropy through Nova's kernels -===//
//
// A nova.cross_entropy, nova.cross_entropy_backward or
// nova.cross_entropy_with_grad the configurator gave a "cross_entropy_rows"
// config becomes one dispatch of Nova's row kernel
// (compiler/codegen/cuda/CrossEntropyKernel.h), one CTA per logits row. An
// f32 gradient whose only user rounds it to TF32 (nova-round-tf32-operands,
// for the head's GEMMs) is rounded as it is written, and that user goes. A
// gradient may overwrite logits nothing reads after it.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/CrossEntropyKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"
#include "compiler/dialect/NovaOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;
using namespace mlir::nova::nova_to_linalg;

namespace {

FailureOr<cuda::CrossEntropySpec> kernelSpec(Operation *op) {
  auto config = op->getAttrOfType<LoweringConfigAttr>("lowering_config");
  auto [logits, target] = crossEntropyOperands(op);
  if (!config || !logits)
    return failure();
  RankedTensorType type = tensorType(logits);
  std::string why;
  return cuda::crossEntropySpec(
      config, isa<CrossEntropyBackwardOp>(op), isa<CrossEntropyWithGradOp>(op),
      type.getElementType(), tensorType(target).getElementType(),
      type.getDimSize(1), why);
}

/// The only user of `grad` when all it does is round `grad` to TF32: a
/// nova.round_tf32, or a nova.fused region of just that.
Operation *tf32RoundingOf(Value grad) {
  if (!grad.hasOneUse())
    return nullptr;
  Operation *user = *grad.getUsers().begin();
  if (isa<RoundTf32Op>(user))
    return user;
  auto fused = dyn_cast<FusedOp>(user);
  if (!fused || fused->getNumOperands() != 1 || fused->getNumResults() != 1)
    return nullptr;
  Block &body = fused.getBody().front();
  auto round = dyn_cast<RoundTf32Op>(body.front());
  if (!round || round.getInput() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != round.getResult())
    return nullptr;
  return fused;
}

/// Whether `op` (a backward, or fused) may overwrite its `logits`: they are
/// made in its block and nothing reads them after it.
bool lastReaderOfLogits(Operation *op, Value logits) {
  if (isa<BlockArgument>(logits))
    return false;
  return llvm::all_of(logits.getUsers(), [&](Operation *user) {
    return user == op || (user->getBlock() == op->getBlock() &&
                          user->isBeforeInBlock(op));
  });
}

LogicalResult declareKernel(ModuleOp module, Operation *op,
                            const cuda::CrossEntropySpec &spec) {
  std::string name = spec.kernelName();
  KernelExport kernel;
  kernel.name = name;
  if (spec.fused) { // [logits,] targets, grad_loss, grad, loss, lse
    kernel.readOnlyBindings.append(spec.inPlace ? 2 : 3, true);
    kernel.readOnlyBindings.append(3, false);
  } else if (spec.inPlace) { // grad_loss, targets, lse, logits -> grad
    kernel.readOnlyBindings = {true, true, true, false};
  } else if (spec.backward) {
    kernel.readOnlyBindings = {true, true, true, true, false};
  } else {
    kernel.readOnlyBindings = {true, true, false, false};
  }
  kernel.constants = 2; // C, ignore_index
  kernel.workgroupSize = {spec.threads, 1, 1};
  // Grid: one CTA per row (the workload).
  return declareKernelOnce(module, op, "cross-entropy kernel", kernel,
                           [&](std::string &error) {
                             return cuda::crossEntropyPtx(spec, error);
                           });
}

LogicalResult lower(IRRewriter &rewriter, ModuleOp module, Operation *op,
                    const cuda::CrossEntropySpec &spec, bool poison) {
  if (failed(declareKernel(module, op, spec)))
    return failure();
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  KernelDispatchBuilder dispatch(rewriter, loc, poison);
  Value logitsValue = crossEntropyOperands(op).first;
  for (Value operand : op->getOperands())
    if (!(spec.inPlace && operand == logitsValue))
      dispatch.input(operand);
  // Fused, the gradient binds first (in place, it is the logits' binding)
  // and the op's results are (loss, lse, grad).
  SmallVector<Type> results(op->getResultTypes());
  if (spec.fused)
    std::rotate(results.begin(), results.begin() + 2, results.end());
  for (auto [i, type] : llvm::enumerate(results))
    dispatch.result(cast<RankedTensorType>(type),
                    spec.inPlace && i == 0 ? logitsValue : Value());
  RankedTensorType logits = tensorType(logitsValue);
  dispatch.constant(logits.getDimSize(1));
  dispatch.constant(op->getAttrOfType<IntegerAttr>("ignore_index").getInt());
  SmallVector<Value> values(dispatch.create(
      spec.kernelName(), spec.kernelName(),
      arith::ConstantIndexOp::create(rewriter, loc, logits.getDimSize(0))));
  if (spec.fused)
    std::rotate(values.begin(), values.begin() + 1, values.end());
  rewriter.replaceOp(op, values);
  return success();
}

} // namespace

LogicalResult nova_to_iree::injectCrossEntropyKernels(ModuleOp module,
                                                      bool poisonOutputs) {
  SmallVector<std::pair<Operation *, cuda::CrossEntropySpec>> ops;
  module.walk([&](Operation *op) {
    FailureOr<cuda::CrossEntropySpec> spec = kernelSpec(op);
    if (succeeded(spec))
      ops.emplace_back(op, *spec);
  });
  if (ops.empty())
    return success();
  if (failed(requireUnregisteredDialects(ops.front().first)))
    return failure();
  IRRewriter rewriter(module.getContext());
  for (auto &[op, spec] : ops) {
    Value grad = spec.fused      ? op->getResult(2)
                 : spec.backward ? op->getResult(0)
                                 : Value();
    Operation *rounding =
        grad && spec.elementBytes == 4 ? tf32RoundingOf(grad) : nullptr;
    spec.roundTf32 = rounding != nullptr;
    if (grad)
      spec.inPlace = lastReaderOfLogits(op, crossEntropyOperands(op).first);
    if (failed(lower(rewriter, module, op, spec, poisonOutputs)))
      return failure();
    if (rounding)
      rewriter.replaceOp(rounding, rounding->getOperand(0));
  }
  return success();
}
