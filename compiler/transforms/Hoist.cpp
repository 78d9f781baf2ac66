//===- Hoist.cpp - move what a value is made of earlier in its block ------===//

#include "compiler/transforms/Hoist.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

LogicalResult nova::hoistBefore(Value value, Operation *at,
                                ArrayRef<Operation *> forbidden) {
  Block *block = at->getBlock();
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != block || !at->isBeforeInBlock(def))
    return success(); // an argument, or made before `at` already
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return op->getBlock() == block && at->isBeforeInBlock(op);
  };
  options.inclusive = true;
  if (failed(getBackwardSlice(def, &slice, options)))
    return failure();
  for (Operation *op : slice) {
    if (op->getNumRegions() || !isPure(op))
      return failure();
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (producer == at || llvm::is_contained(forbidden, producer))
          return failure();
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    op->moveBefore(at);
  return success();
}
