//===- Rematerialize.cpp - recompute cheap saved values in the backward ---===//
//
// A train step keeps every value the backward reads alive from the forward
// that made it: for a GPT that is the GELU's output and each layer norm's
// output beside the values their own backward reads (the GELU's input, the
// normalized input). Those two are cheap functions of the others, so the
// backward recomputes them where it first reads them instead of holding a
// full-size buffer across the step's peak: as one more result of the backward
// kernel that reads the same input where there is one, else as a kernel of
// its own.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/TrainStep.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAREMATERIALIZE
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

// Ops recomputed for one value at most: a tanh GELU is 13.
constexpr int64_t kMaxRecomputedOps = 24;


/// Elementwise ops, broadcasts, reshapes and splat constants: what a fused
/// region recomputes at the cost of reading its inputs once more. Row
/// reductions are not: the values they make are saved when needed.
bool isCheap(Operation *op) {
  return cuda::isFusedRowsOp(op) && !cuda::isLastDimReduction(op) &&
         !cuda::isGroupReduction(op);
}

/// The values of one fused region that recompute `root` from values alive
/// at `point`.
class Slice {
public:
  Slice(FusedOp fused, Value root, Operation *point)
      : fused(fused), root(root), point(point),
        yield(cast<YieldOp>(fused.getBody().front().getTerminator())) {}

  /// Collects the slice that recomputes `root`; false when some input of it
  /// would have to be kept alive for the recomputation, or when there is
  /// nothing to recompute (the value is one of the leaves).
  bool collect() { return collect(rootInRegion()) && !ops.empty(); }

  /// A nova.fused region computing `root` at `point` from the leaves.
  FusedOp build() {
    OpBuilder b(point);
    Location loc = root.getLoc();
    SmallVector<Value> inputs(leaves.values());
    auto copy = FusedOp::create(b, loc, TypeRange{root.getType()}, inputs,
                                /*lowering_config=*/nullptr);
    copy->setAttr(kRecomputedAttr, b.getUnitAttr());
    Block *entry = new Block();
    copy.getBody().push_back(entry);
    IRMapping mapping;
    for (auto [inner, outer] : leaves)
      mapping.map(inner, entry->addArgument(outer.getType(), loc));
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    SmallVector<Operation *> ordered(ops.begin(), ops.end());
    llvm::sort(ordered,
               [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
    for (Operation *op : ordered)
      body.clone(*op, mapping);
    YieldOp::create(body, loc, mapping.lookup(rootInRegion()));
    return copy;
  }

private:
  Value rootInRegion() const {
    return yield->getOperand(cast<OpResult>(root).getResultNumber());
  }

  /// Collects the slice of the region value `v`.
  bool collect(Value v) {
    if (leaves.contains(v) || ops.contains(v.getDefiningOp()))
      return true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Value outer = fused.getInputs()[arg.getArgNumber()];
      if (!aliveAt(outer))
        return false;
      leaves.insert({v, outer});
      return true;
    }
    for (OpOperand &yielded : yield->getOpOperands()) {
      Value result = fused->getResult(yielded.getOperandNumber());
      if (yielded.get() == v && result != root && aliveAt(result)) {
        leaves.insert({v, result});
        return true;
      }
    }
    Operation *op = v.getDefiningOp();
    if (!isCheap(op) || static_cast<int64_t>(ops.size()) >= kMaxRecomputedOps)
      return false;
    for (Value operand : op->getOperands())
      if (!collect(operand))
        return false;
    ops.insert(op);
    return true;
  }

  /// Whether the buffer of `v` (of the function's block) is alive at
  /// `point`: an argument (the step's params and state) lives throughout,
  /// any other value while it or a view of it (slices and reshapes, which
  /// IREE binds in place: reading one later keeps nothing more alive; e.g.
  /// nova-pack-optimizer-state's params, nova-convert-packed-params' bf16
  /// copies) is read at or after `point`.
  bool aliveAt(Value v) const {
    while (Operation *op = v.getDefiningOp()) {
      if (!isa<SliceOp, ReshapeOp>(op))
        break;
      v = op->getOperand(0);
    }
    return isa<BlockArgument>(v) || readAtOrAfterPoint(v);
  }

  /// Whether `v` or a view of it is read at or after `point`.
  bool readAtOrAfterPoint(Value v) const {
    Block *block = point->getBlock();
    for (Operation *user : v.getUsers()) {
      if (isa<SliceOp, ReshapeOp>(user) &&
          readAtOrAfterPoint(user->getResult(0)))
        return true;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (top && !top->isBeforeInBlock(point))
        return true;
    }
    return false;
  }

  FusedOp fused;
  Value root;
  Operation *point;
  YieldOp yield;
  llvm::MapVector<Value, Value> leaves; // region value -> outer value
  llvm::SetVector<Operation *> ops;
};

/// Whether a backward reader recomputes from the value (an op of
/// nova-save-inputs-for-backward, which keeps the value for that).
bool keptToRecompute(ArrayRef<OpOperand *> uses) {
  for (OpOperand *use : uses) {
    Operation *owner = use->getOwner();
    if (owner->hasAttr(kRecomputedAttr))
      return true;
    auto fused = dyn_cast<FusedOp>(owner);
    if (fused && llvm::any_of(fused.getBody()
                                  .getArgument(use->getOperandNumber())
                                  .getUsers(),
                              [](Operation *user) {
                                return user->hasAttr(kRecomputedAttr);
                              }))
      return true;
  }
  return false;
}

/// The largest input of `op`: the full-size value a recomputation reads.
Value largestInput(FusedOp op) {
  Value largest;
  for (Value v : op.getInputs())
    if (!largest || byteSize(v) > byteSize(largest))
      largest = v;
  return largest;
}

/// Folds the recomputation `copy` into the nearest later nova.fused op of the
/// backward that reads the same full-size input (a GELU's or layer norm's
/// backward), as one more result: no launch and no second read of that
/// input. The ops between them that read the copy (its weight gradient)
/// move after the merged op. Kept apart where the merged region would lose
/// the fused-rows kernel the host has. Returns the merged op or null.
FusedOp foldIntoReader(FusedOp copy) {
  Value input = largestInput(copy);
  // The host: found through the input's uses, wherever program order put it
  // (nova-fuse-elementwise seeds column sums last, which can move a layer
  // norm's backward far after its recomputation).
  FusedOp host;
  for (Operation *user : input.getUsers()) {
    auto fused = dyn_cast<FusedOp>(user);
    if (!fused || fused == copy || fused->getBlock() != copy->getBlock() ||
        fused->hasAttr(kRecomputedAttr) || !copy->isBeforeInBlock(fused))
      continue;
    if (!host || fused->isBeforeInBlock(host))
      host = fused;
  }
  if (!host)
    return nullptr;
  llvm::SetVector<Operation *> moved; // between copy and host, reading it
  llvm::SmallPtrSet<Value, 8> dependent;
  dependent.insert(copy->getResult(0));
  for (Operation *op = copy->getNextNode(); op != host; op = op->getNextNode()) {
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return dependent.contains(v); })) {
      moved.insert(op);
      for (Value r : op->getResults())
        dependent.insert(r);
    }
  }
  if (llvm::any_of(host->getOperands(),
                   [&](Value v) { return dependent.contains(v); }))
    return nullptr; // the host itself needs the copy first
  std::string why;
  bool hostHasKernel = succeeded(cuda::analyzeFusedRows(host, why));

  // host's inputs, then the copy's it lacks.
  SmallVector<Value> inputs(host.getInputs());
  for (Value v : copy.getInputs())
    if (!llvm::is_contained(inputs, v))
      inputs.push_back(v);
  SmallVector<Type> types(host->getResultTypes());
  types.push_back(copy->getResult(0).getType());
  OpBuilder b(host);
  auto merged = FusedOp::create(b, host.getLoc(), types, inputs,
                                /*lowering_config=*/nullptr);
  Block *entry = new Block();
  merged.getBody().push_back(entry);
  for (Value v : inputs)
    entry->addArgument(v.getType(), v.getLoc());
  IRMapping mapping;
  auto argOf = [&](Value outer) {
    return entry->getArgument(llvm::find(inputs, outer) - inputs.begin());
  };
  Block &hostBody = host.getBody().front();
  for (auto [arg, outer] : llvm::zip(hostBody.getArguments(), host.getInputs()))
    mapping.map(arg, argOf(outer));
  Block &copyBody = copy.getBody().front();
  for (auto [arg, outer] : llvm::zip(copyBody.getArguments(), copy.getInputs()))
    mapping.map(arg, argOf(outer));
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  SmallVector<Value> yielded;
  for (Operation &op : hostBody.without_terminator())
    body.clone(op, mapping);
  for (Value v : hostBody.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(v));
  for (Operation &op : copyBody.without_terminator())
    body.clone(op, mapping);
  yielded.push_back(
      mapping.lookupOrDefault(copyBody.getTerminator()->getOperand(0)));
  YieldOp::create(body, host.getLoc(), yielded);

  if (hostHasKernel && failed(cuda::analyzeFusedRows(merged, why))) {
    merged->erase();
    return nullptr;
  }
  host->replaceAllUsesWith(merged->getResults().drop_back());
  copy->getResult(0).replaceAllUsesWith(merged->getResults().back());
  Operation *after = merged;
  for (Operation *op : moved) {
    op->moveAfter(after);
    after = op;
  }
  host->erase();
  copy->erase();
  return merged;
}

struct NovaRematerializePass
    : mlir::nova::impl::NovaRematerializeBase<NovaRematerializePass> {
  using NovaRematerializeBase::NovaRematerializeBase;

  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) { rematerialize(func); });
  }

  void rematerialize(func::FuncOp func) {
    Operation *boundary = lossOp(func);
    if (!boundary)
      return;
    Block &block = func.getBody().front();

    SmallVector<Value> saved;
    for (Operation &op : block) {
      if (&op == boundary)
        break;
      if (isa<FusedOp, ReshapeOp>(op))
        for (Value result : op.getResults())
          if (byteSize(result) >= minBytes)
            saved.push_back(result);
    }
    for (Value value : saved) {
      SmallVector<OpOperand *> late = usesAfter(value, block, boundary);
      if (late.empty() || keptToRecompute(late))
        continue;
      // A reshape of a region's result is recomputed as the reshape of the
      // recomputed result.
      SmallVector<ReshapeOp> reshapes;
      Value result = value;
      while (auto reshape = result.getDefiningOp<ReshapeOp>()) {
        reshapes.push_back(reshape);
        result = reshape.getInput();
      }
      auto fused = result.getDefiningOp<FusedOp>();
      if (!fused)
        continue;
      Operation *point = firstUser(late, block);
      Slice slice(fused, result, point);
      if (!slice.collect())
        continue;
      FusedOp copyOp = slice.build();
      Value copy = copyOp->getResult(0);
      OpBuilder b(point);
      for (ReshapeOp reshape : llvm::reverse(reshapes))
        copy = ReshapeOp::create(b, reshape.getLoc(), reshape.getType(), copy);
      for (OpOperand *use : late)
        use->set(copy);
      // The reshapes read the copy: they follow it wherever it goes.
      if (foldIntoReader(copyOp) ||
          byteSize(value) >= standaloneMinBytes)
        continue;
      // A kernel of its own for a small value: saved after all.
      for (OpOperand *use : late)
        use->set(value);
      while (!copy.getDefiningOp<FusedOp>()) {
        Operation *reshape = copy.getDefiningOp();
        copy = reshape->getOperand(0);
        reshape->erase();
      }
      copyOp->erase();
    }
  }
};

} // namespace
