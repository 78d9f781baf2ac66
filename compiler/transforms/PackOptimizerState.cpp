//===- PackOptimizerState.cpp - AdamW params and state in flat tensors ----===//
//
// Every param's AdamW update is elementwise with the same hyperparameters,
// so params that share them are packed: one flat f32 argument holds the
// group's params (and one each their exp_avg and exp_avg_sq), the forward
// reads each param as a slice of it, and one nova.adamw updates the whole
// group from the gradients concatenated in the same layout. On CUDA that is
// one launch of Nova's AdamW kernel per group where a launch took at most
// three tensors (IREE binds 16 buffers a dispatch): 34 -> 2 launches a
// gpt-42m step. And the module has a few globals instead of three per param:
// IREE's passes over globals (FoldGlobals, IPO, ...) cost ~2 s of gpt-146m's
// compile with 624 of them. IREE binds each slice in place, and writes most
// gradients straight into the concat (nova-sequence-concats orders it; see
// docs/configurator.md for the copies left).
//
// The packed function keeps the train-step signature's order (params,
// buffers, param-major state, ...): a group's flat param, exp_avg and
// exp_avg_sq take the places of its first member's, whose state positions
// follow from its param's, so the other members are simply dropped. The
// function's `nova.packed_state` attribute tells convert-train-step-to-iree
// which of the original tensors each flat argument holds and where.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAPACKOPTIMIZERSTATE
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// Members start at multiples of this many elements: 256 bytes of f32, so a
/// slice is as aligned as a tensor of its own for TMA and vector accesses.
constexpr int64_t kAlignElements = 64;
/// A group's flat tensors stay below this many elements (32-bit indexing in
/// the kernels, with room for the alignment).
constexpr int64_t kMaxGroupElements = int64_t{1} << 30;

/// One param's AdamW update in a form that can be packed.
struct Member {
  mutable AdamwOp op; // its accessors are not const
  unsigned param, expAvg, expAvgSq;       // argument numbers
  unsigned newParam, newExpAvg, newExpAvgSq; // result numbers
  int64_t elements = 0;
  int64_t offset = 0;
};

/// `op` as a member when its param, exp_avg and exp_avg_sq are distinct f32
/// arguments, the states read by nothing else, and its three results only
/// returned, once each.
std::optional<Member> asMember(AdamwOp op, func::ReturnOp ret) {
  RankedTensorType type = op.getParam().getType();
  if (!type.getElementType().isF32() || type.getRank() == 0 ||
      !type.hasStaticShape())
    return std::nullopt;
  Member m;
  m.op = op;
  Value state[] = {op.getParam(), op.getExpAvg(), op.getExpAvgSq()};
  unsigned *args[] = {&m.param, &m.expAvg, &m.expAvgSq};
  for (auto [value, arg] : llvm::zip(state, args)) {
    auto block = dyn_cast<BlockArgument>(value);
    if (!block || block.getOwner() != ret->getBlock())
      return std::nullopt;
    *arg = block.getArgNumber();
  }
  if (m.param == m.expAvg || m.param == m.expAvgSq || m.expAvg == m.expAvgSq ||
      !op.getExpAvg().hasOneUse() || !op.getExpAvgSq().hasOneUse())
    return std::nullopt;
  unsigned *results[] = {&m.newParam, &m.newExpAvg, &m.newExpAvgSq};
  for (auto [result, index] : llvm::zip(op->getResults(), results)) {
    if (!result.hasOneUse() || result.getUses().begin()->getOwner() != ret)
      return std::nullopt;
    *index = result.getUses().begin()->getOperandNumber();
  }
  m.elements = type.getNumElements();
  return m;
}

/// Lays `group` out in the order its gradients are made, with offsets;
/// returns the flat size.
int64_t layOut(SmallVectorImpl<Member> &group,
               const DenseMap<Operation *, int64_t> &position) {
  auto madeAt = [&](const Member &m) -> std::pair<int64_t, int64_t> {
    Value grad = m.op.getWidenedBf16Grad();
    if (!grad)
      grad = m.op.getGrad();
    if (auto arg = dyn_cast<BlockArgument>(grad))
      return {-1, arg.getArgNumber()};
    auto result = cast<OpResult>(grad);
    return {position.lookup(result.getOwner()), result.getResultNumber()};
  };
  llvm::stable_sort(group, [&](const Member &a, const Member &b) {
    return madeAt(a) < madeAt(b);
  });
  int64_t offset = 0;
  for (Member &m : group) {
    offset = llvm::alignTo(offset, kAlignElements);
    m.offset = offset;
    offset += m.elements;
  }
  return offset;
}

/// The group's gradients concatenated in its layout, zeros in the gaps
/// (bf16 when every gradient is a widened bf16 tensor: the concat then
/// moves half the bytes and the update widens it).
Value concatGradients(OpBuilder &b, Location loc, ArrayRef<Member> group,
                      int64_t total, bool bf16) {
  Type element = bf16 ? b.getBF16Type() : b.getF32Type();
  SmallVector<Value> parts;
  int64_t end = 0;
  auto zeros = [&](int64_t n) {
    auto type = RankedTensorType::get({n}, element);
    parts.push_back(ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getZeroAttr(element))));
  };
  for (const Member &m : group) {
    if (m.offset > end)
      zeros(m.offset - end);
    Value grad = bf16 ? m.op.getWidenedBf16Grad() : m.op.getGrad();
    parts.push_back(b.createOrFold<ReshapeOp>(
        loc, RankedTensorType::get({m.elements}, element), grad));
    end = m.offset + m.elements;
  }
  if (total > end)
    zeros(total - end);
  auto flat = RankedTensorType::get({total}, element);
  Value joined = parts.size() == 1
                     ? parts.front()
                     : ConcatOp::create(b, loc, flat, parts, uint64_t{0});
  if (!bf16)
    return joined;
  return CastOp::create(b, loc, flat.clone(b.getF32Type()), joined);
}

struct NovaPackOptimizerStatePass
    : mlir::nova::impl::NovaPackOptimizerStateBase<NovaPackOptimizerStatePass> {
  using NovaPackOptimizerStateBase::NovaPackOptimizerStateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(function);
    if (!func || func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &entry = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
    if (!ret)
      return;

    // Groups keyed by what one update shares: the hyperparameters and
    // whether the gradients are widened bf16.
    using Key = std::pair<SmallVector<Value, 6>, bool>;
    SmallVector<std::pair<Key, SmallVector<Member>>> groups;
    for (auto op : entry.getOps<AdamwOp>()) {
      std::optional<Member> member = asMember(op, ret);
      if (!member)
        continue;
      Key key = {{op.getStep(), op.getLr(), op.getBeta1(), op.getBeta2(),
                  op.getEps(), op.getWeightDecay()},
                 bool(op.getWidenedBf16Grad())};
      auto it = llvm::find_if(groups, [&](auto &g) {
        if (g.first != key)
          return false;
        int64_t total = member->elements;
        for (const Member &m : g.second)
          total += llvm::alignTo(m.elements, kAlignElements);
        return total <= kMaxGroupElements;
      });
      if (it == groups.end())
        groups.push_back({key, {*member}});
      else
        it->second.push_back(*member);
    }
    llvm::erase_if(groups, [](auto &g) { return g.second.size() < 2; });
    if (groups.empty())
      return;

    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(entry))
      position[&op] = i;
    MLIRContext *context = &getContext();
    OpBuilder b(context);
    Type f32 = b.getF32Type();
    // New arguments (params, exp_avg, exp_avg_sq) at the first member's
    // places; the members' arguments go.
    struct Packed {
      SmallVector<Member> members;
      int64_t total;
      bool bf16;
      Member first; // the member with the lowest argument numbers
    };
    SmallVector<Packed> packed;
    for (auto &[key, members] : groups) {
      Packed p;
      p.members = members;
      p.bf16 = key.second;
      p.first = *llvm::min_element(members, [](const Member &a,
                                               const Member &c) {
        return a.param < c.param;
      });
      p.total = layOut(p.members, position);
      packed.push_back(std::move(p));
    }
    SmallVector<std::pair<unsigned, std::pair<size_t, int>>> inserts;
    for (auto [g, p] : llvm::enumerate(packed)) {
      inserts.push_back({p.first.param, {g, 0}});
      inserts.push_back({p.first.expAvg, {g, 1}});
      inserts.push_back({p.first.expAvgSq, {g, 2}});
    }
    llvm::sort(inserts);
    SmallVector<unsigned> indices;
    SmallVector<Type> types;
    for (auto &[index, what] : inserts) {
      indices.push_back(index);
      types.push_back(
          RankedTensorType::get({packed[what.first].total}, f32));
    }
    SmallVector<DictionaryAttr> attrs(inserts.size(),
                                      DictionaryAttr::get(context));
    SmallVector<Location> locs(inserts.size(), func.getLoc());
    if (failed(func.insertArguments(indices, types, attrs, locs)))
      return signalPassFailure();
    // flat[g][role]: the new arguments (an original index i is now at i
    // plus the insertions before it).
    SmallVector<std::array<Value, 3>> flat(packed.size());
    for (auto [t, entryInsert] : llvm::enumerate(inserts))
      flat[entryInsert.second.first][entryInsert.second.second] =
          entry.getArgument(entryInsert.first + t);
    auto shifted = [&](unsigned original) {
      return original + llvm::count_if(inserts, [&](auto &i) {
               return i.first <= original;
             });
    };

    llvm::BitVector eraseArgs(func.getNumArguments());
    llvm::BitVector eraseResults(func.getNumResults());
    SmallVector<Value> returned(ret.getOperands());
    SmallVector<Attribute> descriptions;
    for (auto [g, p] : llvm::enumerate(packed)) {
      Location loc = b.getFusedLoc(llvm::map_to_vector(
          p.members, [](const Member &m) { return m.op.getLoc(); }));
      // Each param as a slice of the flat one, for everything that reads it.
      b.setInsertionPointToStart(&entry);
      for (const Member &m : p.members) {
        Value param = entry.getArgument(shifted(m.param));
        RankedTensorType type = m.op.getParam().getType();
        Value part = SliceOp::create(
            b, loc, RankedTensorType::get({m.elements}, f32), flat[g][0],
            ArrayRef<int64_t>{m.offset},
            ArrayRef<int64_t>{m.offset + m.elements}, ArrayRef<int64_t>{1});
        param.replaceAllUsesWith(
            b.createOrFold<ReshapeOp>(m.op.getLoc(), type, part));
        eraseArgs.set(shifted(m.param));
        eraseArgs.set(shifted(m.expAvg));
        eraseArgs.set(shifted(m.expAvgSq));
      }
      // One update, where the last member's was: every gradient is made by
      // then.
      Operation *last = p.members.front().op;
      for (const Member &m : p.members)
        if (last->isBeforeInBlock(m.op))
          last = m.op;
      b.setInsertionPoint(last);
      AdamwOp head = p.first.op;
      Value grads = concatGradients(b, loc, p.members, p.total, p.bf16);
      auto update = AdamwOp::create(
          b, loc, TypeRange{flat[g][0].getType(), flat[g][0].getType(),
                            flat[g][0].getType()},
          flat[g][0], grads, flat[g][1], flat[g][2], head.getStep(),
          head.getLr(), head.getBeta1(), head.getBeta2(), head.getEps(),
          head.getWeightDecay());
      returned[p.first.newParam] = update.getNewParam();
      returned[p.first.newExpAvg] = update.getNewExpAvg();
      returned[p.first.newExpAvgSq] = update.getNewExpAvgSq();
      SmallVector<int64_t> members, offsets;
      SmallVector<Attribute> memberTypes;
      for (const Member &m : p.members) {
        members.push_back(m.param);
        offsets.push_back(m.offset);
        memberTypes.push_back(TypeAttr::get(m.op.getParam().getType()));
        if (m.op != head) {
          eraseResults.set(m.newParam);
          eraseResults.set(m.newExpAvg);
          eraseResults.set(m.newExpAvgSq);
        }
      }
      descriptions.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("members", b.getDenseI64ArrayAttr(members)),
           b.getNamedAttr("offsets", b.getDenseI64ArrayAttr(offsets)),
           b.getNamedAttr("types", b.getArrayAttr(memberTypes)),
           b.getNamedAttr("elements", b.getI64IntegerAttr(p.total))}));
    }

    // The packed results take the first members' places.
    SmallVector<Value> results;
    for (auto [r, value] : llvm::enumerate(returned))
      if (!eraseResults.test(r))
        results.push_back(value);
    b.setInsertionPoint(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    for (Packed &p : packed)
      for (Member &m : p.members) {
        Operation *widen = m.op.getGrad().getDefiningOp();
        m.op.erase();
        if (widen && isa<CastOp>(widen) && widen->use_empty())
          widen->erase();
      }
    if (failed(func.eraseArguments(eraseArgs)) ||
        failed(func.eraseResults(eraseResults)))
      return signalPassFailure();
    func.setType(FunctionType::get(context, entry.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    func->setAttr("nova.packed_state", b.getArrayAttr(descriptions));
  }
};

} // namespace
