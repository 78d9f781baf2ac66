//===- FuseCrossEntropy.cpp - a cross-entropy and its backward as one op --===//
//
// See Passes.td (nova-fuse-cross-entropy).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Hoist.h"
#include "compiler/transforms/Passes.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAFUSECROSSENTROPY
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

struct NovaFuseCrossEntropyPass
    : mlir::nova::impl::NovaFuseCrossEntropyBase<NovaFuseCrossEntropyPass> {
  void runOnOperation() override {
    SmallVector<CrossEntropyBackwardOp> grads;
    getOperation()->walk(
        [&](CrossEntropyBackwardOp grad) { grads.push_back(grad); });
    for (CrossEntropyBackwardOp grad : grads) {
      auto loss = grad.getLse().getDefiningOp<CrossEntropyOp>();
      if (!loss || loss.getLogits() != grad.getLogits() ||
          loss.getTarget() != grad.getTarget() ||
          loss.getIgnoreIndex() != grad.getIgnoreIndex() ||
          loss->getBlock() != grad->getBlock() ||
          failed(hoistBefore(grad.getGradLoss(), loss)))
        continue;
      OpBuilder b(loss);
      auto fused = CrossEntropyWithGradOp::create(
          b, b.getFusedLoc({loss.getLoc(), grad.getLoc()}),
          loss.getLoss().getType(), loss.getLse().getType(), grad.getType(),
          loss.getLogits(), loss.getTarget(), grad.getGradLoss(),
          loss.getIgnoreIndexAttr());
      grad.replaceAllUsesWith(fused.getGradLogits());
      grad.erase();
      loss.replaceAllUsesWith(ValueRange{fused.getLoss(), fused.getLse()});
      loss.erase();
    }
  }
};

} // namespace
