//===- Hoist.h - move what a value is made of earlier in its block -*- C++ -*-//

#ifndef NOVA_TRANSFORMS_HOIST_H
#define NOVA_TRANSFORMS_HOIST_H

#include "mlir/IR/Operation.h"

namespace mlir::nova {

/// Moves the ops `value` is computed from that lie after `at` in `at`'s
/// block to just before `at`, in their order, so that `value` dominates
/// `at` (e.g. a loss gradient of 1 / the count of targets, made in the
/// backward, moved before the loss). Fails, moving nothing, where one of
/// them is not pure or has regions, or reads a result of `at` or of an op in
/// `forbidden`.
LogicalResult hoistBefore(Value value, Operation *at,
                          ArrayRef<Operation *> forbidden = {});

} // namespace mlir::nova

#endif // NOVA_TRANSFORMS_HOIST_H
