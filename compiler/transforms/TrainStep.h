//===- TrainStep.h - the forward/backward split of a train step -*- C++ -*-===//
//
// What nova-rematerialize and nova-save-inputs-for-backward both need of a
// captured train step's single block: where its backward starts, which uses
// of a value lie in it, and how large a saved value is.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_TRANSFORMS_TRAINSTEP_H
#define NOVA_TRANSFORMS_TRAINSTEP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

namespace mlir::nova {

/// Bytes of a statically shaped tensor value (0 otherwise).
inline int64_t byteSize(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// The op of `func`'s single block that makes the loss (its first result):
/// the backward is what follows it. Null where `func` is no such step.
inline Operation *lossOp(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return nullptr;
  Block &block = func.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
  if (!ret || ret.getNumOperands() == 0)
    return nullptr;
  Operation *loss = ret.getOperand(0).getDefiningOp();
  return loss && loss->getBlock() == &block ? loss : nullptr;
}

/// The uses of `v` by ops of `block` after `boundary` (or nested in one).
inline SmallVector<OpOperand *> usesAfter(Value v, Block &block,
                                          Operation *boundary) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : v.getUses()) {
    Operation *top = block.findAncestorOpInBlock(*use.getOwner());
    if (top && boundary->isBeforeInBlock(top))
      uses.push_back(&use);
  }
  return uses;
}

/// The first op of `block` holding one of `uses` (not empty).
inline Operation *firstUser(ArrayRef<OpOperand *> uses, Block &block) {
  Operation *first = nullptr;
  for (OpOperand *use : uses) {
    Operation *top = block.findAncestorOpInBlock(*use->getOwner());
    if (!first || top->isBeforeInBlock(first))
      first = top;
  }
  return first;
}

} // namespace mlir::nova

#endif // NOVA_TRANSFORMS_TRAINSTEP_H
