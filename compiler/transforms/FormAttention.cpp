//===- FormAttention.cpp - nova.attention from its decomposed pattern -----===//
//
// The captured graph spells attention as primitives: a batched matmul
// `q @ k^T` between reshapes and transposes, splat multipliers (the scale),
// a select of -inf against a mask built from iotas, the softmax decomposed as
// reduce_max / sub / exp / reduce_sum / div, and `p @ v`; its backward as
// `p^T @ dout`, `dout @ v^T`, the softmax backward, a select of zeros, the
// scale, `ds @ k` and `q^T @ ds`. Under autocast nova.cast ops sit between
// them. This pass recognizes both halves and replaces them by
// nova.attention / nova.attention_backward on `[batch..., T, D]` operands,
// or leaves the IR untouched.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "nova-form-attention"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAFORMATTENTION
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// Small matchers
//===----------------------------------------------------------------------===//

/// A matrix operand as a matmul reads it: `value`, or the swap of its two
/// innermost dims when `transposed`.
struct Operand {
  Value value;
  bool transposed = false;

  Operand swapped() const { return {value, !transposed}; }
  bool operator==(const Operand &other) const {
    return value == other.value && transposed == other.transposed;
  }
};

Operand lhsOf(MatmulOp op) { return {op.getLhs(), op.getTransposeLhs()}; }
Operand rhsOf(MatmulOp op) { return {op.getRhs(), op.getTransposeRhs()}; }

/// The value of a splat float constant.
std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

bool isZeroSplat(Value v) {
  std::optional<double> value = splatValue(v);
  return value && *value == 0.0;
}

/// -inf, or the lowest finite value of the element type (what
/// `torch.finfo(dtype).min` masks write).
bool isNegInfSplat(Value v) {
  std::optional<double> value = splatValue(v);
  if (!value)
    return false;
  if (std::isinf(*value) && *value < 0)
    return true;
  auto type = cast<FloatType>(typeOf(v).getElementType());
  return *value == APFloat::getLargest(type.getFloatSemantics(),
                                       /*Negative=*/true)
                       .convertToDouble();
}

/// A float-to-float nova.cast.
bool isFloatCast(Operation *op) {
  auto cast = dyn_cast_or_null<CastOp>(op);
  return cast && isa<FloatType>(typeOf(cast.getInput()).getElementType()) &&
         isa<FloatType>(cast.getResult().getType().getElementType());
}

/// A nova.reshape that only regroups the batch dims: both sides have rank
/// >= 3 and the same two innermost dims.
bool isBatchReshape(Operation *op) {
  auto reshape = dyn_cast_or_null<ReshapeOp>(op);
  if (!reshape)
    return false;
  ArrayRef<int64_t> from = typeOf(reshape.getInput()).getShape(),
                    to = reshape.getResult().getType().getShape();
  return from.size() >= 3 && to.size() >= 3 &&
         from.take_back(2) == to.take_back(2);
}

/// Whether `op` passes its operand #0 through as the same matrices, up to
/// the element type or the grouping of the batch dims.
bool isPassThrough(Operation *op) {
  return isFloatCast(op) || isBatchReshape(op);
}

/// Follows pass-through ops back from `v`, recording them in `ops`.
Value peel(Value v, llvm::SetVector<Operation *> *ops = nullptr) {
  while (isPassThrough(v.getDefiningOp())) {
    if (ops)
      ops->insert(v.getDefiningOp());
    v = v.getDefiningOp()->getOperand(0);
  }
  return v;
}

/// Follows float casts back from `v`.
Value peelCasts(Value v, llvm::SetVector<Operation *> &ops) {
  while (isFloatCast(v.getDefiningOp())) {
    ops.insert(v.getDefiningOp());
    v = v.getDefiningOp()->getOperand(0);
  }
  return v;
}

/// `v` and every value its pass-through users (transitively) make of it;
/// those users go to `ops`.
llvm::SmallDenseSet<Value> aliases(Value v,
                                   llvm::SetVector<Operation *> &ops) {
  llvm::SmallDenseSet<Value> result{v};
  SmallVector<Value> worklist{v};
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    for (Operation *user : next.getUsers())
      if (isPassThrough(user) && result.insert(user->getResult(0)).second) {
        ops.insert(user);
        worklist.push_back(user->getResult(0));
      }
  }
  return result;
}

/// `b` = broadcast of `ReduceOpT(x)` over the last dim back to `full`'s
/// shape (keepdim or not); returns x (casts peeled) and records the ops.
template <typename ReduceOpT>
Value matchRowReduction(Value b, RankedTensorType full,
                        llvm::SetVector<Operation *> &ops) {
  auto broadcast = b.getDefiningOp<BroadcastInDimOp>();
  if (!broadcast || broadcast.getResult().getType().getShape() !=
                        full.getShape())
    return {};
  llvm::SetVector<Operation *> local;
  Value reducedValue = peelCasts(broadcast.getInput(), local);
  auto reduce = reducedValue.getDefiningOp<ReduceOpT>();
  int64_t rank = full.getRank();
  if (!reduce || reduce.getDims() != ArrayRef<int64_t>{rank - 1})
    return {};
  SmallVector<int64_t> expectedDims;
  for (int64_t d = 0; d < (reduce.getKeepdim() ? rank : rank - 1); ++d)
    expectedDims.push_back(d);
  if (broadcast.getDims() != ArrayRef<int64_t>(expectedDims))
    return {};
  ops.insert(broadcast);
  ops.insert(local.begin(), local.end());
  ops.insert(reduce);
  return peelCasts(reduce.getInput(), ops);
}

//===----------------------------------------------------------------------===//
// The mask: evaluated at compile time
//===----------------------------------------------------------------------===//

/// Evaluates tensors computed from nova.constant and nova.iota by shape and
/// elementwise ops, one element at a time (every element type as a double:
/// the masks' integers are small). A T x T plane at T = 1024 takes about
/// 0.1 s; CausalMaskCache evaluates each mask once.
class MaskEvaluator {
public:
  /// The value of `v` at `index` (in `v`'s shape); failure for a value it
  /// cannot compute.
  FailureOr<double> at(Value v, ArrayRef<int64_t> index) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return failure();
    ArrayRef<int64_t> shape = typeOf(v).getShape();
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!attr)
        return failure();
      int64_t linear = attr.isSplat() ? 0 : linearize(index, shape);
      if (isa<FloatType>(attr.getElementType()))
        return (*(attr.value_begin<APFloat>() + linear)).convertToDouble();
      APInt value = *(attr.value_begin<APInt>() + linear);
      return value.getBitWidth() == 1
                 ? static_cast<double>(value.getZExtValue())
                 : static_cast<double>(value.getSExtValue());
    }
    if (auto iota = dyn_cast<IotaOp>(op))
      return static_cast<double>(index[iota.getDim()]);
    if (auto broadcast = dyn_cast<BroadcastInDimOp>(op)) {
      ArrayRef<int64_t> inShape = typeOf(broadcast.getInput()).getShape();
      SmallVector<int64_t> inIndex;
      for (auto [k, d] : llvm::enumerate(broadcast.getDims()))
        inIndex.push_back(inShape[k] == 1 ? 0 : index[d]);
      return at(broadcast.getInput(), inIndex);
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      ArrayRef<int64_t> inShape = typeOf(reshape.getInput()).getShape();
      return at(reshape.getInput(),
                delinearize(linearize(index, shape), inShape));
    }
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      SmallVector<int64_t> inIndex(index.size());
      for (auto [i, p] : llvm::enumerate(transpose.getPermutation()))
        inIndex[p] = index[i];
      return at(transpose.getInput(), inIndex);
    }
    if (auto slice = dyn_cast<SliceOp>(op)) {
      SmallVector<int64_t> inIndex;
      for (auto [d, i] : llvm::enumerate(index))
        inIndex.push_back(slice.getStart()[d] + i * slice.getStride()[d]);
      return at(slice.getInput(), inIndex);
    }
    if (auto cast = dyn_cast<CastOp>(op)) {
      // Only conversions that keep the (small integer) value.
      Type from = typeOf(cast.getInput()).getElementType();
      Type to = cast.getResult().getType().getElementType();
      bool keeps = isa<FloatType>(to) ||
                   (isa<IntegerType>(from) && isa<IntegerType>(to) &&
                    to.getIntOrFloatBitWidth() >= from.getIntOrFloatBitWidth());
      if (!keeps)
        return failure();
      return at(cast.getInput(), index);
    }
    if (auto select = dyn_cast<SelectOp>(op)) {
      FailureOr<double> cond = at(select.getCond(), index);
      if (failed(cond))
        return failure();
      return at(*cond != 0 ? select.getOnTrue() : select.getOnFalse(), index);
    }
    if (auto compare = dyn_cast<CompareOp>(op)) {
      FailureOr<double> lhs = at(compare.getLhs(), index),
                        rhs = at(compare.getRhs(), index);
      if (failed(lhs) || failed(rhs))
        return failure();
      switch (compare.getDirection()) {
      case CompareDirection::EQ:
        return static_cast<double>(*lhs == *rhs);
      case CompareDirection::NE:
        return static_cast<double>(*lhs != *rhs);
      case CompareDirection::LT:
        return static_cast<double>(*lhs < *rhs);
      case CompareDirection::LE:
        return static_cast<double>(*lhs <= *rhs);
      case CompareDirection::GT:
        return static_cast<double>(*lhs > *rhs);
      case CompareDirection::GE:
        return static_cast<double>(*lhs >= *rhs);
      }
      return failure();
    }
    if (isa<NegOp>(op)) {
      FailureOr<double> x = at(op->getOperand(0), index);
      if (failed(x))
        return failure();
      return -*x;
    }
    if (isa<AddOp, SubOp, MulOp, MaxOp, MinOp>(op)) {
      FailureOr<double> lhs = at(op->getOperand(0), index),
                        rhs = at(op->getOperand(1), index);
      if (failed(lhs) || failed(rhs))
        return failure();
      if (isa<AddOp>(op))
        return *lhs + *rhs;
      if (isa<SubOp>(op))
        return *lhs - *rhs;
      if (isa<MulOp>(op))
        return *lhs * *rhs;
      if (isa<MaxOp>(op))
        return std::max(*lhs, *rhs);
      return std::min(*lhs, *rhs);
    }
    return failure();
  }

  /// For each dim of `v`, whether its value may vary along it (conservative);
  /// failure where `at` would fail on the op.
  FailureOr<SmallVector<bool>> varyingDims(Value v) {
    auto it = varying.find(v);
    if (it != varying.end())
      return it->second;
    FailureOr<SmallVector<bool>> result = computeVaryingDims(v);
    if (succeeded(result))
      varying[v] = *result;
    return result;
  }

private:
  static int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
    int64_t linear = 0;
    for (auto [i, size] : llvm::zip(index, shape))
      linear = linear * size + i;
    return linear;
  }
  static SmallVector<int64_t> delinearize(int64_t linear,
                                          ArrayRef<int64_t> shape) {
    SmallVector<int64_t> index(shape.size());
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      index[d] = linear % shape[d];
      linear /= shape[d];
    }
    return index;
  }

  FailureOr<SmallVector<bool>> computeVaryingDims(Value v) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return failure();
    ArrayRef<int64_t> shape = typeOf(v).getShape();
    auto nonUnit = [&] {
      SmallVector<bool> dims;
      for (int64_t size : shape)
        dims.push_back(size != 1);
      return dims;
    };
    SmallVector<bool> none(shape.size(), false);
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!attr)
        return failure();
      return attr.isSplat() ? none : nonUnit();
    }
    if (auto iota = dyn_cast<IotaOp>(op)) {
      none[iota.getDim()] = shape[iota.getDim()] != 1;
      return none;
    }
    if (auto broadcast = dyn_cast<BroadcastInDimOp>(op)) {
      FailureOr<SmallVector<bool>> in = varyingDims(broadcast.getInput());
      if (failed(in))
        return failure();
      ArrayRef<int64_t> inShape = typeOf(broadcast.getInput()).getShape();
      for (auto [k, d] : llvm::enumerate(broadcast.getDims()))
        none[d] = (*in)[k] && inShape[k] != 1;
      return none;
    }
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      FailureOr<SmallVector<bool>> in = varyingDims(transpose.getInput());
      if (failed(in))
        return failure();
      for (auto [i, p] : llvm::enumerate(transpose.getPermutation()))
        none[i] = (*in)[p];
      return none;
    }
    if (isa<ReshapeOp, SliceOp>(op)) {
      FailureOr<SmallVector<bool>> in = varyingDims(op->getOperand(0));
      if (failed(in))
        return failure();
      if (isa<SliceOp>(op)) {
        for (auto [d, size] : llvm::enumerate(shape))
          none[d] = (*in)[d] && size != 1;
        return none;
      }
      return llvm::is_contained(*in, true) ? nonUnit() : none;
    }
    if (isa<CastOp, SelectOp, CompareOp, NegOp, AddOp, SubOp, MulOp, MaxOp,
            MinOp>(op)) {
      for (Value operand : op->getOperands()) {
        FailureOr<SmallVector<bool>> in = varyingDims(operand);
        if (failed(in))
          return failure();
        for (auto [d, vary] : llvm::enumerate(*in))
          none[d] = none[d] || vary;
      }
      return none;
    }
    return failure();
  }

  DenseMap<Value, SmallVector<bool>> varying;
};

/// Whether `cond` (`[batch..., T, T]`, i1) masks exactly the causal pattern:
/// `masked(i, j) = (j > i)` for every batch index, where an element is masked
/// when `cond` equals `maskedWhen`. The mask may depend only on constants
/// and iotas; it is evaluated at every (i, j).
bool evaluateCausalMask(Value cond, bool maskedWhen) {
  ArrayRef<int64_t> shape = typeOf(cond).getShape();
  int64_t rank = shape.size();
  if (rank < 2 || shape[rank - 1] != shape[rank - 2])
    return false;
  MaskEvaluator evaluator;
  FailureOr<SmallVector<bool>> varying = evaluator.varyingDims(cond);
  if (failed(varying)) {
    LLVM_DEBUG(llvm::dbgs() << "mask: not computable at compile time\n");
    return false;
  }
  for (int64_t d = 0; d < rank - 2; ++d)
    if ((*varying)[d]) {
      LLVM_DEBUG(llvm::dbgs() << "mask: varies along batch dim " << d << "\n");
      return false;
    }
  int64_t t = shape[rank - 1];
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j) {
      index[rank - 2] = i;
      index[rank - 1] = j;
      FailureOr<double> value = evaluator.at(cond, index);
      if (failed(value))
        return false;
      bool masked = (*value != 0) == maskedWhen;
      if (masked != (j > i)) {
        LLVM_DEBUG(llvm::dbgs() << "mask: not causal at (" << i << ", " << j
                                << ")\n");
        return false;
      }
    }
  return true;
}

/// The verdicts of evaluateCausalMask for the masks seen so far: the layers
/// of a model share one mask (CSE). Entries of erased ops are forgotten, as
/// a new op may reuse their memory.
class CausalMaskCache {
public:
  bool isCausal(Value cond, bool maskedWhen) {
    DenseMap<Value, bool> &known = verdicts[maskedWhen];
    auto it = known.find(cond);
    if (it != known.end())
      return it->second;
    bool causal = evaluateCausalMask(cond, maskedWhen);
    known[cond] = causal;
    return causal;
  }
  void forget(Operation *op) {
    for (Value result : op->getResults())
      for (DenseMap<Value, bool> &known : verdicts)
        known.erase(result);
  }

private:
  /// By `maskedWhen`.
  DenseMap<Value, bool> verdicts[2];
};

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// One recognized attention: the forward and, when present, its backward.
struct Match {
  /// Shared by every match of the pass.
  CausalMaskCache *masks = nullptr;
  // Forward.
  MatmulOp qk, pv;
  Operand q, k, v;
  /// The softmax's input shape `[batch..., Tq, Tk]`.
  RankedTensorType scoresType;
  bool causal = false;
  double scale = 1.0;
  /// The ops the forward consumes.
  llvm::SetVector<Operation *> forwardOps;
  /// Values of p as the backward reads it.
  llvm::SmallDenseSet<Value> probs;

  // Backward (dv null when there is none).
  MatmulOp dv, dp, dq, dk;
  /// Whether `dk` computes dk^T = q^T ds rather than dk = ds^T q.
  bool dkTransposed = false;
  Operand dout;
  llvm::SetVector<Operation *> backwardOps;
};

/// The softmax over the last dim whose result is `p`, as nova-decompose
/// spells it (or a nova.softmax); returns its input.
Value matchSoftmax(Value p, llvm::SetVector<Operation *> &ops) {
  auto type = typeOf(p);
  if (auto softmax = p.getDefiningOp<SoftmaxOp>()) {
    if (softmax.getDim() != type.getRank() - 1)
      return {};
    ops.insert(softmax);
    return softmax.getInput();
  }
  auto div = p.getDefiningOp<DivOp>();
  if (!div)
    return {};
  Value exp = div.getLhs();
  auto expOp = exp.getDefiningOp<ExpOp>();
  if (!expOp)
    return {};
  llvm::SetVector<Operation *> local;
  Value summed = matchRowReduction<ReduceSumOp>(div.getRhs(), type, local);
  if (!summed || summed != peelCasts(exp, local))
    return {};
  auto sub = expOp.getInput().getDefiningOp<SubOp>();
  if (!sub)
    return {};
  Value x = sub.getLhs();
  Value maxed = matchRowReduction<ReduceMaxOp>(sub.getRhs(), typeOf(x), local);
  if (!maxed || maxed != peelCasts(x, local))
    return {};
  ops.insert(div);
  ops.insert(expOp);
  ops.insert(sub);
  ops.insert(local.begin(), local.end());
  return x;
}

/// Walks the scores back from the softmax's input `x` to the `q @ k^T`
/// matmul through casts, batch reshapes, splat multipliers and at most one
/// select of -inf; fills the forward part of `m`.
bool matchScores(Value x, Match &m) {
  Value mask;
  bool maskedWhen = true;
  Value current = x;
  while (true) {
    Operation *op = current.getDefiningOp();
    if (!op)
      return false;
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      m.qk = matmul;
      break;
    }
    if (isPassThrough(op)) {
      current = op->getOperand(0);
    } else if (auto mul = dyn_cast<MulOp>(op)) {
      std::optional<double> c = splatValue(mul.getRhs());
      current = mul.getLhs();
      if (!c) {
        c = splatValue(mul.getLhs());
        current = mul.getRhs();
      }
      if (!c) {
        LLVM_DEBUG(llvm::dbgs() << "scores: a multiplier is not a splat\n");
        return false;
      }
      m.scale *= *c;
    } else if (auto div = dyn_cast<DivOp>(op)) {
      std::optional<double> c = splatValue(div.getRhs());
      if (!c || *c == 0)
        return false;
      m.scale /= *c;
      current = div.getLhs();
    } else if (auto select = dyn_cast<SelectOp>(op)) {
      if (mask)
        return false;
      if (isNegInfSplat(select.getOnTrue())) {
        current = select.getOnFalse();
      } else if (isNegInfSplat(select.getOnFalse())) {
        current = select.getOnTrue();
        maskedWhen = false;
      } else {
        return false;
      }
      mask = select.getCond();
    } else {
      LLVM_DEBUG(llvm::dbgs() << "scores: stopped at " << *op << "\n");
      return false;
    }
    m.forwardOps.insert(op);
  }
  m.forwardOps.insert(m.qk);
  // -inf times a negative scale would unmask.
  if (!(m.scale > 0) || !std::isfinite(m.scale))
    return false;
  if (mask) {
    if (!m.masks->isCausal(mask, maskedWhen))
      return false;
    m.causal = true;
  }
  m.q = lhsOf(m.qk);
  m.k = rhsOf(m.qk).swapped();
  return true;
}

/// The forward whose `p @ v` is `pv`.
bool matchForward(MatmulOp pv, Match &m) {
  m.pv = pv;
  if (pv.getTransposeLhs())
    return false;
  m.forwardOps.insert(pv);
  Value p = peel(pv.getLhs(), &m.forwardOps);
  Value x = matchSoftmax(p, m.forwardOps);
  if (!x)
    return false;
  m.scoresType = typeOf(x);
  if (m.scoresType.getRank() < 3 || !m.scoresType.hasStaticShape())
    return false;
  if (!matchScores(x, m))
    return false;
  m.v = rhsOf(pv);
  m.probs = aliases(p, m.forwardOps);
  // One element type for q, k, v and the output, as nova.attention has.
  Type element = typeOf(m.q.value).getElementType();
  if (!isa<Float32Type, BFloat16Type, Float16Type>(element) ||
      typeOf(m.k.value).getElementType() != element ||
      typeOf(m.v.value).getElementType() != element ||
      pv.getResult().getType().getElementType() != element)
    return false;
  return true;
}

/// The one user of `values` that is an `OpT` satisfying `pred`; null when
/// there is none or more than one.
template <typename OpT, typename Pred>
OpT findUser(const llvm::SmallDenseSet<Value> &values, Pred pred) {
  OpT found;
  for (Value v : values)
    for (Operation *user : v.getUsers())
      if (auto op = dyn_cast<OpT>(user); op && pred(op)) {
        if (found && found != op)
          return {};
        found = op;
      }
  return found;
}

/// The backward of `m`'s forward: dv = p^T dout, dp = dout v^T, the softmax
/// backward, the masked select of zeros, the scale, dq = ds k and
/// dk^T = q^T ds (or dk = ds^T q).
bool matchBackward(Match &m) {
  auto &ops = m.backwardOps;
  m.dv = findUser<MatmulOp>(m.probs, [&](MatmulOp op) {
    return m.probs.contains(op.getLhs()) && op.getTransposeLhs();
  });
  if (!m.dv)
    return false;
  ops.insert(m.dv);
  m.dout = rhsOf(m.dv);
  Type element = typeOf(m.q.value).getElementType();
  if (typeOf(m.dout.value).getElementType() != element ||
      m.dv.getResult().getType().getElementType() != element)
    return false;
  m.dp = findUser<MatmulOp>({m.dout.value}, [&](MatmulOp op) {
    return lhsOf(op) == m.dout && rhsOf(op) == m.v.swapped();
  });
  if (!m.dp)
    return false;
  ops.insert(m.dp);
  llvm::SmallDenseSet<Value> dps = aliases(m.dp.getResult(), ops);

  // g = dp * p - p * bcast(rowsum(dp * p)).
  auto product = findUser<MulOp>(dps, [&](MulOp op) {
    return (dps.contains(op.getLhs()) && m.probs.contains(op.getRhs())) ||
           (dps.contains(op.getRhs()) && m.probs.contains(op.getLhs()));
  });
  if (!product)
    return false;
  ops.insert(product);
  auto grad = findUser<SubOp>({product.getResult()}, [&](SubOp op) {
    return op.getLhs() == product.getResult();
  });
  if (!grad)
    return false;
  ops.insert(grad);
  auto correction = grad.getRhs().getDefiningOp<MulOp>();
  if (!correction)
    return false;
  Value rowSum = m.probs.contains(correction.getLhs()) ? correction.getRhs()
                 : m.probs.contains(correction.getRhs())
                     ? correction.getLhs()
                     : Value();
  if (!rowSum || matchRowReduction<ReduceSumOp>(
                     rowSum, typeOf(product.getResult()), ops) !=
                     product.getResult())
    return false;
  ops.insert(correction);

  // ds: casts, batch reshapes, splat multipliers, a select of zeros.
  Value current = grad.getResult();
  double scale = 1.0;
  bool selected = false;
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (isPassThrough(user)) {
      // Consumed below.
    } else if (auto mul = dyn_cast<MulOp>(user)) {
      Value other = mul.getLhs() == current ? mul.getRhs() : mul.getLhs();
      std::optional<double> c = splatValue(other);
      if (!c)
        return false;
      scale *= *c;
    } else if (auto div = dyn_cast<DivOp>(user)) {
      std::optional<double> c = splatValue(div.getRhs());
      if (div.getLhs() != current || !c || *c == 0)
        return false;
      scale /= *c;
    } else if (auto select = dyn_cast<SelectOp>(user)) {
      // p is 0 where the forward masked, so the select is redundant there,
      // but it must mask nothing else.
      if (selected || !m.causal || select.getCond() == current)
        return false;
      bool maskedWhen = select.getOnFalse() == current;
      if (!isZeroSplat(maskedWhen ? select.getOnTrue() : select.getOnFalse()) ||
          !m.masks->isCausal(select.getCond(), maskedWhen))
        return false;
      selected = true;
    } else {
      break;
    }
    ops.insert(user);
    current = user->getResult(0);
  }
  if (std::abs(scale - m.scale) > 1e-6 * m.scale) {
    LLVM_DEBUG(llvm::dbgs() << "backward scale " << scale
                            << " differs from the forward's " << m.scale
                            << "\n");
    return false;
  }
  Operand ds{current, false};
  for (Operation *user : current.getUsers()) {
    auto matmul = dyn_cast<MatmulOp>(user);
    if (!matmul)
      return false;
    if (lhsOf(matmul) == ds && rhsOf(matmul) == m.k && !m.dq) {
      m.dq = matmul;
    } else if (lhsOf(matmul) == m.q.swapped() && rhsOf(matmul) == ds &&
               !m.dk) {
      m.dk = matmul;
      m.dkTransposed = true;
    } else if (lhsOf(matmul) == ds.swapped() && rhsOf(matmul) == m.q &&
               !m.dk) {
      m.dk = matmul;
    } else {
      return false;
    }
    ops.insert(matmul);
  }
  for (MatmulOp result : {m.dq, m.dk})
    if (result && result.getResult().getType().getElementType() != element)
      return false;
  return true;
}

/// Every value `ops` define is used only by `ops`, except `results`.
bool isSelfContained(const llvm::SetVector<Operation *> &ops,
                     ArrayRef<Value> results) {
  for (Operation *op : ops)
    for (Value result : op->getResults()) {
      if (llvm::is_contained(results, result))
        continue;
      for (Operation *user : result.getUsers())
        if (!ops.contains(user)) {
          LLVM_DEBUG(llvm::dbgs() << "extra user of " << *op << ": " << *user
                                  << "\n");
          return false;
        }
    }
  return true;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

/// `operand` as a `[batch..., rows, cols]` tensor of the matrices it stands
/// for: the reshape it came from is looked through, a transpose is
/// composed with the one that made it (folding).
Value materialize(RewriterBase &rewriter, Location loc, Operand operand,
                  ArrayRef<int64_t> batch) {
  Value v = operand.value;
  RankedTensorType type = typeOf(v);
  SmallVector<int64_t> shape(batch);
  llvm::append_range(shape, type.getShape().take_back(2));
  if (auto reshape = v.getDefiningOp<ReshapeOp>();
      reshape && typeOf(reshape.getInput()).getShape() ==
                     ArrayRef<int64_t>(shape))
    v = reshape.getInput();
  if (typeOf(v).getShape() != ArrayRef<int64_t>(shape))
    v = rewriter.createOrFold<ReshapeOp>(loc, type.clone(shape), v);
  if (!operand.transposed)
    return v;
  int64_t rank = shape.size();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  std::swap(shape[rank - 1], shape[rank - 2]);
  return rewriter.createOrFold<TransposeOp>(loc, type.clone(shape), v,
                                            rewriter.getDenseI64ArrayAttr(perm));
}

/// `x` `[batch..., a, b]` as `like`'s type (the matmul result it replaces),
/// swapping the inner dims first when `transposed`.
Value reshapeLike(RewriterBase &rewriter, Location loc, Value x, Value like,
                  bool transposed = false) {
  if (transposed)
    x = materialize(rewriter, loc, {x, true}, typeOf(x).getShape().drop_back(2));
  return rewriter.createOrFold<ReshapeOp>(loc, like.getType(), x);
}

/// Erases `ops` (whose results are now unused) and whatever that leaves
/// dead among their operands' producers (the mask).
void eraseMatched(RewriterBase &rewriter, llvm::SetVector<Operation *> &ops,
                  CausalMaskCache &masks) {
  SmallVector<Operation *> sorted(ops.begin(), ops.end());
  llvm::sort(sorted, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  SmallVector<Operation *> producers;
  // Pointers to erased ops may remain in `producers`: they are only compared.
  llvm::SmallPtrSet<Operation *, 16> erased;
  for (Operation *op : llvm::reverse(sorted)) {
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.push_back(producer);
    erased.insert(op);
    masks.forget(op);
    rewriter.eraseOp(op);
  }
  while (!producers.empty()) {
    Operation *op = producers.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.push_back(producer);
    erased.insert(op);
    masks.forget(op);
    rewriter.eraseOp(op);
  }
}

/// Forms nova.attention (and nova.attention_backward) for `m`.
void rewrite(RewriterBase &rewriter, Match &m) {
  ArrayRef<int64_t> batch = m.scoresType.getShape().drop_back(2);
  Type element = typeOf(m.q.value).getElementType();
  Location forwardLoc = rewriter.getFusedLoc({m.qk.getLoc(), m.pv.getLoc()});

  rewriter.setInsertionPoint(m.pv);
  Value q = materialize(rewriter, forwardLoc, m.q, batch);
  Value k = materialize(rewriter, forwardLoc, m.k, batch);
  Value v = materialize(rewriter, forwardLoc, m.v, batch);
  int64_t rank = batch.size() + 2;
  SmallVector<int64_t> outShape(batch), lseShape(batch);
  outShape.append({typeOf(q).getDimSize(rank - 2),
                   typeOf(v).getDimSize(rank - 1)});
  lseShape.push_back(typeOf(q).getDimSize(rank - 2));
  auto attention = AttentionOp::create(
      rewriter, forwardLoc, RankedTensorType::get(outShape, element),
      RankedTensorType::get(lseShape, rewriter.getF32Type()), q, k, v,
      /*mask=*/Value(), m.causal, APFloat(m.scale));
  SmallVector<std::pair<Value, Value>> replacements{
      {m.pv.getResult(), reshapeLike(rewriter, forwardLoc,
                                     attention.getOut(), m.pv.getResult())}};

  llvm::SetVector<Operation *> ops = m.forwardOps;
  if (m.dv) {
    SmallVector<Operation *> matmuls{m.dv, m.dp};
    for (MatmulOp op : {m.dq, m.dk})
      if (op)
        matmuls.push_back(op);
    SmallVector<Location> locs;
    for (Operation *op : matmuls)
      locs.push_back(op->getLoc());
    Operation *first = *llvm::min_element(matmuls, [](Operation *a,
                                                      Operation *b) {
      return a->isBeforeInBlock(b);
    });
    Location loc = rewriter.getFusedLoc(locs);
    rewriter.setInsertionPoint(first);
    Value dout = materialize(rewriter, loc, m.dout, batch);
    auto backward = AttentionBackwardOp::create(
        rewriter, loc, q.getType(), k.getType(), v.getType(), dout, q, k, v,
        attention.getOut(), attention.getLse(), /*mask=*/Value(), m.causal,
        APFloat(m.scale));
    replacements.push_back(
        {m.dv.getResult(), reshapeLike(rewriter, loc, backward.getGradValue(),
                                       m.dv.getResult())});
    if (m.dq)
      replacements.push_back(
          {m.dq.getResult(), reshapeLike(rewriter, loc,
                                         backward.getGradQuery(),
                                         m.dq.getResult())});
    if (m.dk)
      replacements.push_back(
          {m.dk.getResult(),
           reshapeLike(rewriter, loc, backward.getGradKey(), m.dk.getResult(),
                       m.dkTransposed)});
    ops.insert(m.backwardOps.begin(), m.backwardOps.end());
  }
  for (auto [from, to] : replacements)
    rewriter.replaceAllUsesWith(from, to);
  eraseMatched(rewriter, ops, *m.masks);
}

/// Matches the attention whose `p @ v` is `pv` and checks that it can be
/// replaced: its ops are used only among themselves and lie in one block,
/// the forward before the backward.
bool matchAttention(MatmulOp pv, Match &m) {
  if (!matchForward(pv, m))
    return false;
  Block *block = pv->getBlock();
  auto inBlock = [&](const llvm::SetVector<Operation *> &ops) {
    return llvm::all_of(ops,
                        [&](Operation *op) { return op->getBlock() == block; });
  };
  if (!inBlock(m.forwardOps))
    return false;
  Match backward = m;
  if (matchBackward(backward) && inBlock(backward.backwardOps)) {
    llvm::SetVector<Operation *> all = backward.forwardOps;
    all.insert(backward.backwardOps.begin(), backward.backwardOps.end());
    SmallVector<Value> results{pv.getResult(), backward.dv.getResult()};
    for (MatmulOp op : {backward.dq, backward.dk})
      if (op)
        results.push_back(op.getResult());
    // The forward's op is created at `pv`, the backward's at its first
    // matmul.
    bool ordered = llvm::all_of(backward.backwardOps, [&](Operation *op) {
      return !isa<MatmulOp>(op) || pv->isBeforeInBlock(op);
    });
    if (ordered && isSelfContained(all, results)) {
      m = std::move(backward);
      return true;
    }
  }
  // Inference: no backward may read the forward's intermediates.
  return isSelfContained(m.forwardOps, {pv.getResult()});
}

struct NovaFormAttentionPass
    : public mlir::nova::impl::NovaFormAttentionBase<NovaFormAttentionPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // One attention at a time: a rewrite erases ops a later candidate could
    // refer to, so the walk starts over after each. Rejected candidates are
    // not tried again (a rewrite creates no matmul that could reuse an
    // erased one's address).
    bool changed = true;
    llvm::DenseSet<Operation *> rejected;
    CausalMaskCache masks;
    while (changed) {
      changed = false;
      SmallVector<MatmulOp> candidates;
      getOperation()->walk([&](MatmulOp op) {
        if (!rejected.contains(op))
          candidates.push_back(op);
      });
      for (MatmulOp pv : candidates) {
        Match m;
        m.masks = &masks;
        if (!matchAttention(pv, m)) {
          rejected.insert(pv);
          continue;
        }
        rewrite(rewriter, m);
        changed = true;
        break;
      }
    }
  }
};

} // namespace
