//===- FuseElementwise.cpp - row-space groups into nova.fused -------------===//
//
// Greedy, consumer first: walking a block backwards, each op a row kernel
// computes (cuda::isFusedRowsOp) that produces a [..., C] value and is not
// yet grouped seeds a group over the row space [R, C] of that value; the
// group then takes in the producers of its operands that live in the same
// space (per element, or per row where a broadcast along the rows or a
// reduction over the last dim connects them), unless that would make a
// cycle through ops outside the group. Splat constants, broadcasts and
// reshapes are copied into every group that uses them instead of being
// stored; any other member used outside its group becomes a result. A sum,
// max or mean over all rows of a member's value (a bias gradient), and an
// elementwise op only such reductions use, join as consumers: the region
// yields f32 partials over groups of up to 16 consecutive rows and a
// reduction over the groups finishes outside: on CUDA (column-sums) all of a
// region's in one more region that Nova's column-sums kernel runs (several
// regions' merged into one launch where a dispatch binds them), else each
// split by nova-split-reductions. Such consumers seed groups of their
// own only after every other op has, so that where they join does not
// depend on the program order. A value only optimizer updates read is left to
// IREE, which computes it inside the update. An operand made for something
// that leads to the group (the forward's tanh of a GELU, which CSE shared
// with its backward) is recomputed in the group from what it reads anyway
// and at most one more full-size value instead of being stored and read
// back (rematerialization: the backward reads x, not x^2 and tanh(...)).
// Each group becomes one nova.fused region and the block is re-sorted
// topologically (outside users of a result that came before the group's
// last member move after it).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAFUSEELEMENTWISE
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;
using cuda::RowKind;

namespace {

int64_t numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

bool isCopied(Operation *op) {
  return isa<ConstantOp, BroadcastInDimOp, ReshapeOp>(op);
}

/// A sum, max or mean over every dim but the last (a bias gradient).
bool isLeadingReduction(Operation *op) {
  if (!isa<ReduceSumOp, ReduceMaxOp, ReduceMeanOp>(op))
    return false;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  ArrayRef<int64_t> dims = op->getAttrOfType<DenseI64ArrayAttr>("dims");
  if (input.getRank() < 2 ||
      static_cast<int64_t>(dims.size()) != input.getRank() - 1)
    return false;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != static_cast<int64_t>(i))
      return false;
  return true;
}

/// Static tensors of f32/bf16/f16/i1 in and out, one result.
bool isCandidate(Operation *op) {
  if (op->getNumResults() != 1 ||
      !(cuda::isFusedRowsOp(op) || isLeadingReduction(op)))
    return false;
  auto ok = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return false;
    Type e = tensor.getElementType();
    return e.isF32() || e.isBF16() || e.isF16() || e.isInteger(1);
  };
  return llvm::all_of(op->getOperandTypes(), ok) &&
         llvm::all_of(op->getResultTypes(), ok);
}

struct Group {
  int64_t rows = 0, columns = 0;
  llvm::SetVector<Operation *> members; // moved into the region
  llvm::SetVector<Operation *> copies;  // copied; the original stays
  // Copies that recompute an operand the group could read instead.
  llvm::SetVector<Operation *> recomputed;
  int64_t first = 0, last = 0;          // positions of the outer members

  bool contains(Operation *op) const {
    return members.contains(op) || copies.contains(op);
  }
  bool isElement(Value v) const {
    auto type = cast<RankedTensorType>(v.getType());
    return type.getRank() >= 1 && type.getShape().back() == columns &&
           type.getNumElements() == rows * columns;
  }
};

// Column reductions' first stage: groups of up to 16 rows (a row kernel's
// warp, or a CTA's warps together, sum a group), at least 1024 groups
// (nova-split-reductions' threshold for the second stage).
constexpr int64_t kMaxRowsPerPartial = 16, kMinPartials = 1024;
// Rematerialization: at most this many elementwise ops recomputed for one
// operand.
constexpr int64_t kMaxRematerializedOps = 16;

struct Fuser {
  Block &block;
  /// Each region's column partials finished in one column-sums region.
  bool columnSums;
  bool failed = false;
  DenseMap<Operation *, int64_t> position;
  DenseMap<Operation *, int64_t> groupOf;
  SmallVector<Group> groups;
  DenseMap<Operation *, int64_t> holders; // groups holding an op, until outlined
  /// The column-sums regions made (columnSums).
  SmallPtrSet<Operation *, 16> sumsRegions;

  Fuser(Block &block, bool columnSums) : block(block), columnSums(columnSums) {
    int64_t i = 0;
    for (Operation &op : block)
      position[&op] = i++;
  }

  /// Whether `p` (about to join `g`) would wait for the group: some op
  /// outside `g` among the transitive producers of `p`'s operands uses a
  /// member's value (a copy's original counts as outside: it keeps its
  /// outside users).
  bool dependsOnGroup(const Group &g, Operation *p) {
    SmallVector<Operation *> stack;
    DenseSet<Operation *> seen;
    auto visit = [&](Operation *def) {
      if (def && def->getBlock() == &block && position[def] >= g.first &&
          seen.insert(def).second)
        stack.push_back(def);
    };
    for (Value v : p->getOperands())
      if (Operation *def = v.getDefiningOp(); !def || !g.contains(def))
        visit(def); // p's edges into the group itself are internal
    while (!stack.empty()) {
      Operation *x = stack.pop_back_val();
      for (Value v : x->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && g.members.contains(def))
          return true;
        visit(def);
      }
    }
    return false;
  }

  /// Whether an outside user of `p`'s result (directly, or through a copy's
  /// original) transitively feeds the group: the group would need a value
  /// made from its own result.
  bool feedsGroupFromOutside(const Group &g, Operation *p, int64_t last) {
    SmallVector<Operation *> stack, through{p};
    DenseSet<Operation *> seen;
    while (!through.empty()) {
      Operation *x = through.pop_back_val();
      for (Operation *user : x->getUsers()) {
        Operation *owner = block.findAncestorOpInBlock(*user);
        if (!owner || g.members.contains(owner) || !seen.insert(owner).second)
          continue;
        if (g.copies.contains(owner))
          through.push_back(owner);
        else if (position[owner] <= last)
          stack.push_back(owner);
      }
    }
    while (!stack.empty()) {
      Operation *x = stack.pop_back_val();
      if (g.contains(x))
        return true;
      for (Operation *user : x->getUsers()) {
        Operation *owner = block.findAncestorOpInBlock(*user);
        if (owner && position[owner] <= last && seen.insert(owner).second)
          stack.push_back(owner);
      }
    }
    return false;
  }

  /// Whether operand `v` of member `user` is in `g`'s row space as the
  /// member needs it.
  bool inSpace(const Group &g, Operation *user, Value v) {
    if (numElements(v) == 1)
      return true;
    if (auto broadcast = dyn_cast<BroadcastInDimOp>(user)) {
      if (!g.isElement(broadcast.getResult()))
        return numElements(broadcast.getResult()) == g.rows &&
               numElements(v) == 1;
      std::optional<RowKind> k =
          cuda::classifyBroadcastInput(broadcast, g.rows, g.columns);
      return k == RowKind::Row;
    }
    if (g.isElement(v))
      return true;
    // Per-row values: reductions' results and what they feed.
    return numElements(v) == g.rows && !g.isElement(user->getResult(0));
  }

  /// The ops that recompute `p`'s value inside `g` from what the group
  /// reads already and at most one more full-size value made before it
  /// (and splats, row broadcasts): elementwise ops in the row space no
  /// group has taken, few enough. Empty when the value is to be read.
  SmallVector<Operation *> rematerialization(const Group &g, Operation *p) {
    DenseSet<Value> reads;
    for (Operation *m : g.members)
      for (Value v : m->getOperands())
        if (Operation *def = v.getDefiningOp(); !def || !g.contains(def))
          reads.insert(v);
    SmallVector<Operation *> chain, stack{p};
    DenseSet<Operation *> seen{p};
    Value extra;
    int64_t computed = 0;
    auto elementwise = [&](Operation *q) {
      return q && q->getBlock() == &block && !groupOf.count(q) &&
             isCandidate(q) && !isLeadingReduction(q) &&
             !cuda::isLastDimReduction(q) && position[q] < g.first;
    };
    // Recomputed ops must not wait for the group: no member (nor a copy
    // made from one) among their operands.
    std::function<bool(Operation *)> fromMembers = [&](Operation *def) {
      if (!def || !g.contains(def))
        return false;
      if (g.members.contains(def))
        return true;
      return llvm::any_of(def->getOperands(), [&](Value v) {
        return fromMembers(v.getDefiningOp());
      });
    };
    while (!stack.empty()) {
      Operation *q = stack.pop_back_val();
      bool copy = isCopied(q);
      if (!elementwise(q) || (!copy && !g.isElement(q->getResult(0))))
        return {};
      if (auto broadcast = dyn_cast<BroadcastInDimOp>(q))
        if (g.isElement(broadcast.getResult()) &&
            !cuda::classifyBroadcastInput(broadcast, g.rows, g.columns))
          return {};
      chain.push_back(q);
      if (llvm::any_of(q->getOperands(), [&](Value v) {
            return fromMembers(v.getDefiningOp());
          }))
        return {};
      if (copy) {
        // A reshape of an elementwise value is recomputed through: reading
        // it would store the value (x + bias before a GELU's cast to f32).
        Operation *def = q->getOperand(0).getDefiningOp();
        if (isa<ReshapeOp>(q) && elementwise(def) && !seen.contains(def) &&
            !reads.contains(q->getOperand(0))) {
          seen.insert(def);
          stack.push_back(def);
        }
        continue; // read or copied as any group does
      }
      if (++computed > kMaxRematerializedOps)
        return {};
      for (Value v : q->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (numElements(v) == 1 || reads.contains(v) || v == extra ||
            (def && (seen.contains(def) || g.contains(def))))
          continue;
        if (elementwise(def)) {
          seen.insert(def);
          stack.push_back(def);
          continue;
        }
        if (extra || !g.isElement(v))
          return {};
        extra = v; // read in place of `p`'s value
      }
    }
    return chain;
  }

  void grow(int64_t id, Operation *seed) {
    Group &g = groups[id];
    SmallVector<Operation *> work{seed};
    // Producers made for something that leads to the group (it may join
    // later through another path).
    SmallVector<Operation *> blocked;
    // A producer is blocked while an outside path from it leads into the
    // group; that path may join later (the walk reached a layer norm
    // backward's input-gradient cast through the recomputed normalization
    // before the ops between them), so blocked producers are retried until
    // none joins.
    bool retry = true;
    while (retry) {
    retry = false;
    while (!work.empty()) {
      Operation *m = work.pop_back_val();
      // A column reduction of a member's value joins as a consumer (the
      // kernel accumulates its partials; nothing in a group can use one),
      // and so does an elementwise op whose value only such reductions use
      // (the product of a weight gradient's sum).
      // Reshapes between them are looked through (and copied in).
      SmallVector<std::pair<Operation *, Operation *>> consumers; // (op, via)
      if (!isLeadingReduction(m) && !isCopied(m) && g.isElement(m->getResult(0)))
        for (Operation *user : m->getResult(0).getUsers()) {
          if (isa<ReshapeOp>(user) && user->getBlock() == &block &&
              g.isElement(user->getResult(0))) {
            for (Operation *next : user->getResult(0).getUsers())
              consumers.emplace_back(next, user);
          } else {
            consumers.emplace_back(user, nullptr);
          }
        }
      for (auto [user, via] : consumers) {
          if (user->getBlock() != &block || groupOf.count(user) ||
              g.contains(user) || !isCandidate(user) || isCopied(user))
            continue;
          bool reduction = isLeadingReduction(user);
          bool feedsReductions = !reduction && joinsAsConsumer(user) &&
                                 g.isElement(user->getResult(0));
          // The reshape it is reached through is the group's own copy, not
          // an outside path from a member.
          bool newCopy = via && g.copies.insert(via);
          if ((!reduction && !feedsReductions) || dependsOnGroup(g, user) ||
              feedsGroupFromOutside(g, user, std::max(g.last, position[user]))) {
            if (newCopy)
              g.copies.remove(via);
            continue;
          }
          g.members.insert(user);
          g.last = std::max(g.last, position[user]);
          groupOf[user] = id;
          if (feedsReductions)
            work.push_back(user);
      }
      for (Value v : m->getOperands()) {
        Operation *p = v.getDefiningOp();
        if (!p || p->getBlock() != &block || g.contains(p) ||
            groupOf.count(p) || !isCandidate(p) || isLeadingReduction(p) ||
            !inSpace(g, m, v))
          continue;
        if (auto broadcast = dyn_cast<BroadcastInDimOp>(p))
          if (g.isElement(broadcast.getResult()) &&
              !cuda::classifyBroadcastInput(broadcast, g.rows, g.columns))
            continue; // e.g. along the batch: stays an input
        bool copy = isCopied(p);
        // What nova-save-inputs-for-backward's copies recompute from (x of
        // (x - mean) * rstd) was kept to be read, not computed here.
        if (m->hasAttr(kRecomputedAttr) && !p->hasAttr(kRecomputedAttr) &&
            !copy)
          continue;
        if (dependsOnGroup(g, p))
          continue;
        if (!copy && feedsGroupFromOutside(g, p, g.last)) {
          blocked.push_back(p);
          continue;
        }
        if (copy) {
          g.copies.insert(p);
        } else {
          g.first = std::min(g.first, position[p]);
          g.members.insert(p);
          groupOf[p] = id;
        }
        work.push_back(p);
      }
    }
    for (Operation *&p : blocked) {
      if (!p || g.contains(p) || groupOf.count(p) || dependsOnGroup(g, p) ||
          feedsGroupFromOutside(g, p, g.last))
        continue;
      g.first = std::min(g.first, position[p]);
      g.members.insert(p);
      groupOf[p] = id;
      work.push_back(p);
      p = nullptr;
      retry = true;
    }
    }
    // Those still outside: recomputed here where that is cheap, else read.
    for (Operation *p : blocked)
      if (p && !g.contains(p) && !groupOf.count(p))
        for (Operation *q : rematerialization(g, p))
          if (g.copies.insert(q))
            g.recomputed.insert(q);
  }

  /// A value only optimizer updates read (a gradient's cast to f32): IREE
  /// fuses it into the update's dispatch, where a group would store it.
  /// (Through transposes and reshapes: a weight gradient's layout.)
  static bool feedsOnlyOptimizers(Operation *op) {
    return !op->getResult(0).use_empty() &&
           llvm::all_of(op->getResult(0).getUsers(), [](Operation *user) {
             if (isa<TransposeOp, ReshapeOp>(user))
               return feedsOnlyOptimizers(user);
             return isa<AdamwOp, SgdOp>(user);
           });
  }

  /// A column reduction, or an elementwise op only column reductions use:
  /// what joins a group as a consumer.
  static bool joinsAsConsumer(Operation *op) {
    if (isLeadingReduction(op))
      return true;
    return !cuda::isLastDimReduction(op) && !op->use_empty() &&
           llvm::all_of(op->getUsers(), [](Operation *user) {
             return isLeadingReduction(user);
           });
  }

  void formGroups() {
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    // Ops that join as consumers seed groups only after all others, so
    // that they join the group of the values they reduce whatever the
    // program order (seeded first, a bias gradient's sum took the cast of
    // the gradient, which the layer norm's backward then read back in f32).
    for (bool consumers : {false, true})
      for (Operation *op : llvm::reverse(ops))
        if (!groupOf.count(op) && joinsAsConsumer(op) == consumers)
          seed(op);
  }

  /// A new group from `op` where it computes over a row space.
  void seed(Operation *op) {
    if (!isCandidate(op) || isCopied(op) || feedsOnlyOptimizers(op))
      return;
    Value space = cuda::isLastDimReduction(op) || isLeadingReduction(op)
                      ? op->getOperand(0)
                      : op->getResult(0);
    auto type = cast<RankedTensorType>(space.getType());
    if (type.getRank() < 1 || type.getShape().back() < 2 ||
        type.getNumElements() / type.getShape().back() < 2)
      return;
    Group g;
    g.columns = type.getShape().back();
    g.rows = type.getNumElements() / g.columns;
    g.members.insert(op);
    g.first = g.last = position[op];
    groupOf[op] = groups.size();
    groups.push_back(std::move(g));
    grow(groups.size() - 1, op);
  }

  /// How many buffers `g`'s kernel would bind: the values it reads from
  /// outside and the results used outside.
  /// `g`'s members and copies in program order.
  SmallVector<Operation *> body(const Group &g) {
    SmallVector<Operation *> ops(g.members.begin(), g.members.end());
    ops.append(g.copies.begin(), g.copies.end());
    llvm::sort(ops, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    return ops;
  }

  /// The values `ops` (a group's body) read from outside the group, in the
  /// order the region takes them.
  static llvm::SetVector<Value> groupInputs(const Group &g,
                                            ArrayRef<Operation *> ops) {
    llvm::SetVector<Value> inputs;
    for (Operation *op : ops)
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); !def || !g.contains(def))
          inputs.insert(v);
    return inputs;
  }

  int64_t bindings(const Group &g) {
    int64_t results = 0;
    for (Operation *op : g.members)
      for (Value r : op->getResults())
        results += llvm::any_of(r.getUsers(), [&](Operation *user) {
          return !g.contains(user);
        });
    return groupInputs(g, body(g)).size() + results;
  }

  /// Past the buffers IREE binds to a dispatch, `g` reads the operands it
  /// would recompute (they are made outside it) instead, and drops the
  /// copies only they used.
  void fitBindings(Group &g) {
    if (g.recomputed.empty() || bindings(g) <= cuda::kMaxDispatchBindings)
      return;
    for (Operation *op : g.recomputed) {
      g.copies.remove(op);
      --holders[op];
    }
    g.recomputed.clear();
    for (bool pruned = true; pruned;) {
      pruned = false;
      for (Operation *copy : llvm::to_vector(g.copies))
        if (llvm::none_of(copy->getUsers(), [&](Operation *user) {
              return g.contains(user);
            })) {
          g.copies.remove(copy);
          --holders[copy];
          pruned = true;
        }
    }
  }

  void outline(Group &g) {
    fitBindings(g);
    SmallVector<Operation *> ops = body(g);
    llvm::SetVector<Value> inputs = groupInputs(g, ops);
    // A copy's original stays where something outside the group uses it.
    DenseMap<Operation *, bool> live;
    std::function<bool(Operation *)> liveOutside = [&](Operation *copy) {
      auto [it, inserted] = live.try_emplace(copy, false);
      if (!inserted)
        return it->second;
      bool result = llvm::any_of(copy->getUsers(), [&](Operation *user) {
        if (g.members.contains(user))
          return false;
        return !g.copies.contains(user) || liveOutside(user);
      });
      return live[copy] = result;
    };
    auto usedOutside = [&](Operation *user) {
      if (g.members.contains(user))
        return false;
      return !g.copies.contains(user) || liveOutside(user);
    };
    SmallVector<Value> results;
    for (Operation *op : g.members)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), usedOutside))
          results.push_back(r);
    if (results.empty())
      return; // dead: left for DCE
    Operation *lastMember = g.members.front(); // the seed
    OpBuilder b(lastMember);
    auto fused = FusedOp::create(
        b, lastMember->getLoc(), ValueRange(results).getTypes(),
        inputs.getArrayRef(), /*lowering_config=*/nullptr);
    Block *entry = new Block();
    fused.getBody().push_back(entry);
    IRMapping mapping;
    for (Value v : inputs)
      mapping.map(v, entry->addArgument(v.getType(), v.getLoc()));
    OpBuilder inner = OpBuilder::atBlockEnd(entry);
    int64_t k = rowsPerPartial(g.rows);
    for (Operation *op : ops) {
      if (isLeadingReduction(op))
        mapping.map(op->getResult(0),
                    partialReduction(inner, op, mapping.lookup(op->getOperand(0)),
                                     g, k));
      else
        inner.clone(*op, mapping);
    }
    SmallVector<Value> yielded;
    for (Value r : results)
      yielded.push_back(mapping.lookup(r));
    YieldOp::create(inner, lastMember->getLoc(), yielded);
    for (auto [i, r] : llvm::enumerate(results))
      fused->getResult(i).setType(yielded[i].getType());
    OpBuilder after(fused);
    after.setInsertionPointAfter(fused);
    // The partials' reductions over their groups: one column-sums region
    // for all of them (columnSums), else one reduction each.
    SmallVector<Value> totals = finishReductions(after, results, fused);
    for (auto [r, f, total] : llvm::zip(results, fused.getResults(), totals)) {
      Value replacement = f;
      if (isLeadingReduction(r.getDefiningOp()))
        replacement = finishShape(after, r.getDefiningOp(), total);
      r.replaceUsesWithIf(replacement, [&](OpOperand &use) {
        return usedOutside(use.getOwner());
      });
    }
    // The members and the copies nothing outside uses: only they use each
    // other now. A copy a group still to be outlined holds stays (a
    // recomputed op may be another group's member or copy too).
    SmallVector<Operation *> erased(g.members.begin(), g.members.end());
    for (Operation *copy : g.copies)
      if (--holders[copy] == 0 && !liveOutside(copy))
        erased.push_back(copy);
    for (Operation *op : erased)
      op->dropAllReferences();
    for (Operation *op : erased)
      op->erase();
  }

  /// Rows per partial of a column reduction over `rows`: at most
  /// kMaxRowsPerPartial, dividing `rows`, leaving at least kMinPartials
  /// partials where there are that many rows (nova-split-reductions then
  /// spreads the second stage over the GPU).
  static int64_t rowsPerPartial(int64_t rows) {
    for (int64_t k = kMaxRowsPerPartial; k > 1; --k)
      if (rows % k == 0 && rows / k >= kMinPartials)
        return k;
    for (int64_t k = kMaxRowsPerPartial; k > 1; --k)
      if (rows % k == 0 && rows < kMinPartials)
        return k;
    return 1;
  }

  /// Inside the region: the f32 partial reductions [G, C] of `input`'s G
  /// groups of k consecutive rows (`op`'s kind: sum, max or mean).
  static Value partialReduction(OpBuilder &b, Operation *op, Value input,
                                const Group &g, int64_t k) {
    Location loc = op->getLoc();
    auto type = cast<RankedTensorType>(input.getType());
    if (!type.getElementType().isF32())
      input = CastOp::create(b, loc, type.clone(b.getF32Type()), input);
    auto grouped = RankedTensorType::get({g.rows / k, k, g.columns},
                                         b.getF32Type());
    Value view = ReshapeOp::create(b, loc, grouped, input);
    auto partialType =
        RankedTensorType::get({g.rows / k, g.columns}, b.getF32Type());
    return reduceLike(b, op, partialType, view, /*dim=*/1);
  }

  /// A reduction of `op`'s kind (sum, max or mean) of `input` over `dim`.
  static Value reduceLike(OpBuilder &b, Operation *op, RankedTensorType type,
                          Value input, int64_t dim) {
    Location loc = op->getLoc();
    auto dims = b.getDenseI64ArrayAttr({dim});
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case([&](ReduceSumOp) {
          return ReduceSumOp::create(b, loc, type, input, dims, false);
        })
        .Case([&](ReduceMaxOp) {
          return ReduceMaxOp::create(b, loc, type, input, dims, false);
        })
        .Case([&](ReduceMeanOp) {
          return ReduceMeanOp::create(b, loc, type, input, dims, false);
        });
  }

  /// Outside: per result of `fused`, the f32 [C] reduction over the
  /// groups of a leading reduction's partials (null for other results):
  /// each its own op, or with columnSums all in one nova.fused region that
  /// only reduces its inputs over dim 0 (Nova's column-sums kernel on CUDA:
  /// one launch, where IREE's reduction over a leading dim gives a warp 128
  /// columns).
  SmallVector<Value> finishReductions(OpBuilder &b, ArrayRef<Value> results,
                                      FusedOp fused) {
    SmallVector<Value> totals(results.size());
    SmallVector<unsigned> partials;
    for (auto [i, r] : llvm::enumerate(results))
      if (isLeadingReduction(r.getDefiningOp()))
        partials.push_back(i);
    auto totalType = [&](unsigned i) {
      auto type = cast<RankedTensorType>(results[i].getType());
      return RankedTensorType::get({type.getShape().back()}, b.getF32Type());
    };
    if (!columnSums || partials.empty()) {
      for (unsigned i : partials)
        totals[i] = reduceLike(b, results[i].getDefiningOp(), totalType(i),
                               fused.getResult(i), /*dim=*/0);
      return totals;
    }
    // As many partials a region as a dispatch binds with their sums.
    int64_t perRegion = cuda::kMaxDispatchBindings / 2;
    Location loc = fused.getLoc();
    for (size_t first = 0; first < partials.size(); first += perRegion) {
      ArrayRef<unsigned> some =
          ArrayRef(partials).drop_front(first).take_front(perRegion);
      SmallVector<Value> inputs;
      SmallVector<Type> types;
      for (unsigned i : some) {
        inputs.push_back(fused.getResult(i));
        types.push_back(totalType(i));
      }
      auto sums = FusedOp::create(b, loc, types, inputs,
                                  /*lowering_config=*/nullptr);
      Block *entry = new Block();
      sums.getBody().push_back(entry);
      OpBuilder inner = OpBuilder::atBlockEnd(entry);
      SmallVector<Value> yielded;
      for (auto [j, i] : llvm::enumerate(some))
        yielded.push_back(reduceLike(
            inner, results[i].getDefiningOp(), totalType(i),
            entry->addArgument(inputs[j].getType(), loc), /*dim=*/0));
      YieldOp::create(inner, loc, yielded);
      for (auto [j, i] : llvm::enumerate(some))
        totals[i] = sums.getResult(j);
      sumsRegions.insert(sums);
    }
    return totals;
  }

  /// Whether `op` is among the transitive producers of `values`.
  static bool produces(Operation *op, ValueRange values) {
    SmallVector<Operation *> stack;
    DenseSet<Operation *> seen;
    for (Value v : values)
      if (Operation *def = v.getDefiningOp())
        stack.push_back(def);
    while (!stack.empty()) {
      Operation *p = stack.pop_back_val();
      if (p == op)
        return true;
      if (!seen.insert(p).second)
        continue;
      for (Value v : p->getOperands())
        if (Operation *def = v.getDefiningOp())
          stack.push_back(def);
    }
    return false;
  }

  /// Column-sums regions merged in block order while a dispatch binds
  /// their inputs and sums, each into the next one whose inputs it does
  /// not lead to, at that one's place: a launch for several regions'
  /// partials (their sums go to the optimizer at the step's end), where
  /// each a short kernel took about as long as the gap before it.
  void mergeColumnSums() {
    int64_t perRegion = cuda::kMaxDispatchBindings / 2;
    FusedOp pending;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (!sumsRegions.contains(&op))
        continue;
      auto next = cast<FusedOp>(&op);
      if (!pending ||
          static_cast<int64_t>(pending.getInputs().size() +
                               next.getInputs().size()) > perRegion ||
          produces(pending, next.getInputs())) {
        pending = next;
        continue;
      }
      SmallVector<Value> inputs(pending.getInputs());
      llvm::append_range(inputs, next.getInputs());
      SmallVector<Type> types(pending.getResultTypes());
      llvm::append_range(types, next.getResultTypes());
      OpBuilder b(next);
      auto merged = FusedOp::create(b, next.getLoc(), types, inputs,
                                    /*lowering_config=*/nullptr);
      Block *entry = new Block();
      merged.getBody().push_back(entry);
      OpBuilder inner = OpBuilder::atBlockEnd(entry);
      SmallVector<Value> yielded;
      for (FusedOp part : {pending, next}) {
        IRMapping mapping;
        Block &body = part.getBody().front();
        for (BlockArgument arg : body.getArguments())
          mapping.map(arg, entry->addArgument(arg.getType(), arg.getLoc()));
        for (Operation &inside : body.without_terminator())
          inner.clone(inside, mapping);
        for (Value v : body.getTerminator()->getOperands())
          yielded.push_back(mapping.lookup(v));
      }
      YieldOp::create(inner, next.getLoc(), yielded);
      unsigned first = pending.getNumResults();
      pending->replaceAllUsesWith(merged->getResults().take_front(first));
      next->replaceAllUsesWith(merged->getResults().drop_front(first));
      sumsRegions.erase(pending);
      sumsRegions.erase(next);
      pending->erase();
      next->erase();
      sumsRegions.insert(merged);
      pending = merged;
    }
  }

  /// `op`'s result from the f32 [C] reduction of its partials: `op`'s
  /// shape and element type.
  static Value finishShape(OpBuilder &b, Operation *op, Value total) {
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (resultType.getRank() != 1)
      total = ReshapeOp::create(b, loc, resultType.clone(b.getF32Type()), total);
    if (!resultType.getElementType().isF32())
      total = CastOp::create(b, loc, resultType, total);
    return total;
  }

  /// Worth a kernel: computes something (not only copies data around).
  static bool computes(const Group &g) {
    return llvm::any_of(g.members,
                        [](Operation *op) { return !isCopied(op); });
  }

  void run() {
    formGroups();
    for (Group &g : groups) {
      for (Operation *op : g.members)
        ++holders[op];
      for (Operation *op : g.copies)
        ++holders[op];
    }
    for (Group &g : groups)
      if (computes(g))
        outline(g);
    mergeColumnSums();
    if (!sortTopologically(&block)) {
      block.getParentOp()->emitError()
          << "nova-fuse-elementwise made a cycle (a bug)";
      failed = true;
    }
    // Copied constants, broadcasts and reshapes no group left a user.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isCopied(&op) && op.use_empty())
        op.erase();
  }
};

struct FuseElementwisePass
    : nova::impl::NovaFuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](func::FuncOp func) {
      for (Block &block : func.getBody()) {
        Fuser fuser(block, columnSums);
        fuser.run();
        failed |= fuser.failed;
      }
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
