//===- SaveInputsForBackward.cpp - keep a value's input, not the value ----===//
//
// Before fusion, in a train step's single block: a full-size elementwise
// value the backward reads (saved) that is a cheap function of one
// full-size value the forward stores anyway and of small values, among
// them per-row statistics, is recomputed in the backward from those, so the
// forward's kernel no longer writes it. The layer norm's normalized input
// is the case: CSE merged the backward's (x - mean) * rstd with the
// forward's, so the forward wrote it (f32, as large as x) beside x; now the
// backward reads x, mean and rstd, as torch's layer norm backward does.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/TrainStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVASAVEINPUTSFORBACKWARD
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

// Ops recomputed for one value at most.
constexpr int64_t kMaxRecomputedOps = 12;
// A leaf this many times smaller than the value (a row's mean, a column's
// weight) costs nothing to keep.
constexpr int64_t kSmallLeafRatio = 64;

/// Elementwise ops, broadcasts, reshapes and splat constants.
bool isCheap(Operation *op) {
  return op && cuda::isFusedRowsOp(op) && !cuda::isLastDimReduction(op) &&
         !cuda::isGroupReduction(op);
}

/// Whether `v` is read by an op of `block` after `boundary`.
bool readAfter(Value v, Block &block, Operation *boundary) {
  return !usesAfter(v, block, boundary).empty();
}

/// `v` through broadcasts and reshapes.
Value throughCopies(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<BroadcastInDimOp, ReshapeOp>(op))
      break;
    v = op->getOperand(0);
  }
  return v;
}

/// The ops that recompute a saved value from its leaves: the value is
/// expanded through cheap ops as long as that leaves one full-size value
/// to keep (x_hat = (x - mean) * rstd down to x, mean and rstd; x = a + b
/// would need two).
struct Slice {
  Value root;
  Block &block;
  Operation *boundary;
  llvm::SetVector<Operation *> ops;
  llvm::SetVector<Value> leaves;

  bool small(Value v) const {
    return byteSize(v) * kSmallLeafRatio <= byteSize(root);
  }

  /// Collects the slice of `root`; false when it is not a trade (see the
  /// file comment) or too long.
  bool collect() {
    SmallVector<Value> work{root};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *op = v.getDefiningOp();
      if (leaves.contains(v) || (op && ops.contains(op)))
        continue;
      // A value the backward reads anyway ends the slice (GELU: its
      // backward reads x + bias, which the tanh is computed from).
      if (!isCheap(op) || op->getBlock() != &block ||
          (v != root && (small(v) || readAfter(v, block, boundary)))) {
        leaves.insert(v);
        continue;
      }
      int64_t full = llvm::count_if(op->getOperands(), [&](Value operand) {
        return !small(throughCopies(operand));
      });
      if (v != root && !isa<BroadcastInDimOp, ReshapeOp>(op) && full > 1) {
        leaves.insert(v);
        continue;
      }
      ops.insert(op);
      if (static_cast<int64_t>(ops.size()) > kMaxRecomputedOps)
        return false;
      llvm::append_range(work, op->getOperands());
    }
    // Only trades: a full-size leaf the backward does not read otherwise,
    // no larger than the value. (Recomputing from what the backward reads
    // anyway is nova-rematerialize's, after fusion.)
    int64_t traded = 0;
    for (Value leaf : leaves)
      if (!small(leaf) && !readAfter(leaf, block, boundary))
        traded += byteSize(leaf);
    return traded > 0 && traded <= byteSize(root) &&
           llvm::any_of(leaves, [&](Value leaf) { return perRow(leaf); });
  }

  /// One value per row of the root ([..., 1] against [..., C]): a
  /// normalization's statistics. Only normalized values are traded (a
  /// GELU's CSE-shared terms are nova-fuse-elementwise's to recompute).
  bool perRow(Value v) const {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    auto rootType = cast<RankedTensorType>(root.getType());
    return type && type.getRank() == rootType.getRank() &&
           type.getShape().back() == 1 && rootType.getShape().back() != 1 &&
           type.getShape().drop_back() == rootType.getShape().drop_back();
  }
};

struct NovaSaveInputsForBackwardPass
    : mlir::nova::impl::NovaSaveInputsForBackwardBase<
          NovaSaveInputsForBackwardPass> {
  using NovaSaveInputsForBackwardBase::NovaSaveInputsForBackwardBase;

  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) { run(func); });
  }

  void run(func::FuncOp func) {
    Operation *boundary = lossOp(func);
    if (!boundary)
      return;
    Block &block = func.getBody().front();
    SmallVector<Operation *> forward;
    for (Operation &op : block) {
      if (&op == boundary)
        break;
      forward.push_back(&op);
    }
    // In program order: a value recomputed here may be a later one's leaf.
    for (Operation *op : forward) {
      if (!isCheap(op) || isa<BroadcastInDimOp, ReshapeOp, ConstantOp>(op) ||
          op->getNumResults() != 1)
        continue;
      Value value = op->getResult(0);
      if (byteSize(value) < minBytes || !readAfter(value, block, boundary))
        continue;
      Slice slice{value, block, boundary};
      if (!slice.collect())
        continue;
      recompute(slice, block, boundary);
    }
  }

  /// Copies the slice before the value's first backward reader, which then
  /// all read the copy.
  void recompute(Slice &slice, Block &block, Operation *boundary) {
    SmallVector<OpOperand *> late = usesAfter(slice.root, block, boundary);
    Operation *point = firstUser(late, block);
    SmallVector<Operation *> ordered(slice.ops.begin(), slice.ops.end());
    llvm::sort(ordered,
               [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    OpBuilder b(point);
    IRMapping mapping;
    for (Operation *op : ordered) {
      Operation *copy = b.clone(*op, mapping);
      copy->setAttr(kRecomputedAttr, b.getUnitAttr());
    }
    Value copy = mapping.lookup(slice.root);
    for (OpOperand *use : late)
      use->set(copy);
  }
};

} // namespace
