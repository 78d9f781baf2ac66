//===- MergeSiblingGenerics.cpp - one dispatch for small sibling generics -===//
//
// Horizontal fusion at the linalg level: independent small generics over
// one iteration space become one multi-result generic, which IREE compiles
// as one dispatch (one launch instead of several of a few microseconds).
//
//===----------------------------------------------------------------------===//

#include "compiler/transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAMERGESIBLINGGENERICS
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

bool isReshape(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// The readers of `value`, looking through reshapes.
void collectReaders(Value value, SmallVectorImpl<Operation *> &readers) {
  for (Operation *user : value.getUsers()) {
    if (isReshape(user))
      collectReaders(user->getResult(0), readers);
    else
      readers.push_back(user);
  }
}

/// IREE fuses linalg and tensor ops into one another's dispatches; a reader
/// of any other dialect (a kernel's flow.dispatch, a return, a global
/// store) takes the value from memory, and so does a concat: IREE writes
/// each input into its place in the result.
/// (By name: IREE's flow ops are unregistered here.)
bool fusesWithReaders(Operation *reader) {
  if (isa<tensor::ConcatOp>(reader))
    return false;
  StringRef dialect = reader->getName().getDialectNamespace();
  return dialect == linalg::LinalgDialect::getDialectNamespace() ||
         dialect == tensor::TensorDialect::getDialectNamespace();
}

bool hasReduction(linalg::GenericOp op) {
  return llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
    return t == utils::IteratorType::reduction;
  });
}

/// Ops that may move up to where a merged generic needs their result.
bool isHoistable(Operation *op) {
  return isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             linalg::FillOp, arith::ConstantOp>(op);
}

struct Merger {
  int64_t maxResultBytes, maxBindings;
  Block &block;

  /// Static loop ranges and iterator types: generics with equal keys can
  /// share one loop nest.
  using Key = std::tuple<SmallVector<int64_t>, SmallVector<utils::IteratorType>,
                         int>;

  /// A scalar, or a static tensor of at most `maxResultBytes`.
  bool isSmall(Value value) const {
    auto tensor = dyn_cast<RankedTensorType>(value.getType());
    if (!tensor)
      return !isa<ShapedType>(value.getType());
    return tensor.hasStaticShape() &&
           tensor.getNumElements() *
                   llvm::divideCeil(tensor.getElementTypeBitWidth(), 8) <=
               maxResultBytes;
  }

  bool isStructurallyMergeable(linalg::GenericOp op) const {
    if (op->getBlock() != &block || !op.hasPureTensorSemantics() ||
        op->getNumResults() == 0 || op.getNumDpsInits() != op->getNumResults())
      return false;
    if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
      return false;
    for (Value result : op->getResults()) {
      auto tensor = dyn_cast<RankedTensorType>(result.getType());
      if (!tensor || !tensor.getElementType().isIntOrFloat() ||
          !isSmall(result))
        return false;
    }
    for (Operation &inner : op.getRegion().front().without_terminator())
      if (isa<linalg::IndexOp>(inner) || !isMemoryEffectFree(&inner) ||
          inner.getNumRegions() != 0)
        return false;
    return true;
  }

  /// An elementwise generic whose readers take it from memory anyway.
  bool isMergeableElementwise(linalg::GenericOp op) const {
    if (!isStructurallyMergeable(op) || hasReduction(op))
      return false;
    for (Value result : op->getResults()) {
      SmallVector<Operation *> readers;
      collectReaders(result, readers);
      if (llvm::any_of(readers, fusesWithReaders))
        return false;
    }
    return true;
  }

  /// What a merge candidate is. IREE fuses an elementwise reader into a
  /// multi-result reduction only when that reader reads every result, so
  /// reductions whose sums are read by such ops (casts, merged in turn) are
  /// kept apart from those read from memory.
  enum class Kind { Elementwise, ReductionToMemory, ReductionToElementwise };

  std::optional<Kind> classify(linalg::GenericOp op) const {
    if (isMergeableElementwise(op))
      return Kind::Elementwise;
    if (!isStructurallyMergeable(op) || !hasReduction(op))
      return std::nullopt;
    bool toMemory = false, toElementwise = false;
    for (Value result : op->getResults()) {
      SmallVector<Operation *> readers;
      collectReaders(result, readers);
      for (Operation *reader : readers) {
        auto generic = dyn_cast<linalg::GenericOp>(reader);
        if (!fusesWithReaders(reader) || (generic && hasReduction(generic)))
          toMemory = true;
        else if (generic && isMergeableElementwise(generic))
          toElementwise = true;
        else
          return std::nullopt;
      }
    }
    if (toMemory == toElementwise)
      return std::nullopt;
    return toMemory ? Kind::ReductionToMemory : Kind::ReductionToElementwise;
  }

  /// The first op of the block that reads a result of `op`.
  Operation *firstReader(Operation *op) const {
    Operation *first = nullptr;
    for (Operation *user : op->getUsers()) {
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (ancestor && (!first || ancestor->isBeforeInBlock(first)))
        first = ancestor;
    }
    return first;
  }

  /// Whether `value` can be had before `point`: made before it, or by ops
  /// that can move there (their defs appended to `hoist`, operands first).
  /// A value made from a group member's result cannot.
  bool isAvailable(Value value, Operation *point,
                   const llvm::SmallPtrSetImpl<Operation *> &members,
                   SmallVectorImpl<Operation *> &hoist, int depth = 0) const {
    // A function body: everything it reads is in this block.
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() == &block;
    Operation *def = value.getDefiningOp();
    if (members.contains(def) || def->getBlock() != &block)
      return false;
    if (def->isBeforeInBlock(point) || llvm::is_contained(hoist, def))
      return true;
    if (!isHoistable(def) || depth > 8)
      return false;
    for (Value operand : def->getOperands())
      if (!isAvailable(operand, point, members, hoist, depth + 1))
        return false;
    hoist.push_back(def);
    return true;
  }

  struct Group {
    SmallVector<linalg::GenericOp> members;
    llvm::SmallPtrSet<Operation *, 16> memberSet;
    Operation *point = nullptr;
    SmallVector<Operation *> hoist;
  };

  /// Whether `group` plus `op` can be placed before its first reader; on
  /// success the group takes it.
  bool tryAdd(Group &group, linalg::GenericOp op) const {
    // IREE binds each input and result (a fill init is no buffer).
    int64_t bindings = op.getNumDpsInputs() + op->getNumResults();
    for (linalg::GenericOp member : group.members)
      bindings += member.getNumDpsInputs() + member->getNumResults();
    if (bindings > maxBindings)
      return false;
    Operation *reader = firstReader(op);
    Operation *point = group.point->isBeforeInBlock(reader) ? group.point
                                                            : reader;
    llvm::SmallPtrSet<Operation *, 16> members = group.memberSet;
    members.insert(op);
    SmallVector<Operation *> hoist;
    for (linalg::GenericOp member : group.members)
      for (Value operand : member->getOperands())
        if (!isAvailable(operand, point, members, hoist))
          return false;
    for (Value operand : op->getOperands())
      if (!isAvailable(operand, point, members, hoist))
        return false;
    group.members.push_back(op);
    group.memberSet = std::move(members);
    group.point = point;
    group.hoist = std::move(hoist);
    return true;
  }

  /// Whether `group` can still be placed, after the groups materialized
  /// before it in the same sweep moved ops; recomputes its point and hoists.
  bool stillHolds(Group &group) const {
    Group rebuilt;
    rebuilt.members.push_back(group.members.front());
    rebuilt.memberSet.insert(group.members.front());
    rebuilt.point = firstReader(group.members.front());
    for (linalg::GenericOp member : llvm::drop_begin(group.members))
      if (!tryAdd(rebuilt, member))
        return false;
    group = std::move(rebuilt);
    return true;
  }

  /// The members as one generic before the group's point.
  void materialize(Group &group) const {
    for (Operation *def : group.hoist)
      def->moveBefore(group.point);
    OpBuilder b(group.point);
    SmallVector<Value> inputs, inits;
    SmallVector<AffineMap> inputMaps, initMaps;
    SmallVector<Type> resultTypes;
    SmallVector<Location> locs;
    for (linalg::GenericOp member : group.members) {
      SmallVector<AffineMap> maps = member.getIndexingMapsArray();
      for (OpOperand *operand : member.getDpsInputOperands()) {
        inputs.push_back(operand->get());
        inputMaps.push_back(maps[operand->getOperandNumber()]);
      }
      for (OpOperand &operand : member.getDpsInitsMutable()) {
        inits.push_back(operand.get());
        initMaps.push_back(maps[operand.getOperandNumber()]);
      }
      llvm::append_range(resultTypes, member->getResultTypes());
      locs.push_back(member.getLoc());
    }
    SmallVector<AffineMap> maps = inputMaps;
    llvm::append_range(maps, initMaps);
    linalg::GenericOp first = group.members.front();
    auto merged = linalg::GenericOp::create(
        b, b.getFusedLoc(locs), resultTypes, inputs, inits, maps,
        first.getIteratorTypesArray());
    SmallVector<Type> argTypes;
    SmallVector<Location> argLocs;
    for (Value value : llvm::concat<Value>(inputs, inits)) {
      argTypes.push_back(getElementTypeOrSelf(value.getType()));
      argLocs.push_back(value.getLoc());
    }
    Block *body = b.createBlock(&merged.getRegion(), {}, argTypes, argLocs);
    b.setInsertionPointToStart(body);
    SmallVector<Value> yields;
    int64_t inputIndex = 0, initIndex = inputs.size();
    for (linalg::GenericOp member : group.members) {
      Block &old = member.getRegion().front();
      IRMapping mapping;
      for (int64_t i = 0; i < member.getNumDpsInputs(); ++i)
        mapping.map(old.getArgument(i), body->getArgument(inputIndex++));
      for (int64_t i = 0; i < member.getNumDpsInits(); ++i)
        mapping.map(old.getArgument(member.getNumDpsInputs() + i),
                    body->getArgument(initIndex++));
      for (Operation &inner : old.without_terminator())
        b.clone(inner, mapping);
      for (Value yielded : old.getTerminator()->getOperands())
        yields.push_back(mapping.lookupOrDefault(yielded));
    }
    linalg::YieldOp::create(b, merged.getLoc(), yields);
    int64_t result = 0;
    for (linalg::GenericOp member : group.members) {
      for (Value old : member->getResults())
        old.replaceAllUsesWith(merged->getResult(result++));
      member->erase();
    }
  }

  /// Moves merge candidates, and reshapes between them, down to just before
  /// their first reader, bottom up: siblings made early but read late (the
  /// bias gradients' second-stage sums of every layer and their bf16 casts,
  /// read by the optimizer at the step's end) then lie together, where the
  /// merge finds them all available. Only ops whose operands are all small
  /// move, so nothing large lives longer. Ops sunk to one reader keep their
  /// program order (a merged generic's results too).
  void sinkToReaders() {
    SmallVector<Operation *> ops;
    for (Operation &op : llvm::reverse(block))
      ops.push_back(&op);
    // Ops sunk before one reader, and the ops sunk before those, form a
    // cluster in front of it; each newly sunk op heads its cluster.
    DenseMap<Operation *, Operation *> clusterOf; // sunk op -> its reader
    DenseMap<Operation *, Operation *> head;      // reader -> first op
    for (Operation *op : ops) {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      bool movable = generic ? classify(generic).has_value()
                             : isReshape(op) && isSmall(op->getOperand(0));
      if (!movable || !llvm::all_of(op->getOperands(), [&](Value v) {
            return isSmall(v);
          }))
        continue;
      Operation *reader = firstReader(op);
      if (!reader)
        continue;
      Operation *root = clusterOf.lookup(reader);
      if (!root)
        root = reader;
      Operation *point = head.lookup(root);
      if (!point)
        point = reader;
      if (point != op->getNextNode())
        op->moveBefore(point);
      head[root] = op;
      clusterOf[op] = root;
    }
  }

  /// One sweep over the block; whether anything merged.
  bool sweep() {
    SmallVector<std::pair<Key, Group>, 0> groups;
    for (Operation &op : block) {
      auto generic = dyn_cast<linalg::GenericOp>(&op);
      std::optional<Kind> kind;
      if (!generic || !(kind = classify(generic)) || !firstReader(generic))
        continue;
      Key key{generic.getStaticLoopRanges(), generic.getIteratorTypesArray(),
              static_cast<int>(*kind)};
      bool added = false;
      for (auto &[groupKey, group] : groups)
        if (groupKey == key && (added = tryAdd(group, generic)))
          break;
      if (added)
        continue;
      Group group;
      group.members.push_back(generic);
      group.memberSet.insert(generic);
      group.point = firstReader(generic);
      groups.emplace_back(std::move(key), std::move(group));
    }
    bool changed = false;
    for (auto &[key, group] : groups) {
      if (group.members.size() < 2 || !stillHolds(group))
        continue;
      materialize(group);
      changed = true;
    }
    return changed;
  }
};

struct NovaMergeSiblingGenerics
    : nova::impl::NovaMergeSiblingGenericsBase<NovaMergeSiblingGenerics> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      Merger merger{maxResultBytes, maxBindings, func.getBody().front()};
      merger.sinkToReaders();
      // A merged reduction makes its readers (the casts of its sums)
      // siblings in turn.
      // Every merge removes generics, so this ends.
      while (merger.sweep()) {
      }
    });
  }
};

} // namespace
