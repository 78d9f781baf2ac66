//===- FusedRowsKernel.cpp - nova.fused regions as row kernels ------------===//
//
// See FusedRowsKernel.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FusedRowsKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/codegen/cuda/RegionElements.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

namespace {

int64_t numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

bool isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, NegOp, AbsOp, ExpOp,
             LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp, ReluOp, SigmoidOp,
             RoundTf32Op, CompareOp, SelectOp, CastOp>(op);
}

bool isBool(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType().isInteger(1);
}

bool supportedElement(Type type) {
  return type.isF32() || type.isBF16() || type.isF16() || type.isInteger(1);
}

/// A reduction over the last dim of its input, or null.
Operation *lastDimReduction(Operation *op) {
  auto check = [](auto reduce) -> Operation * {
    auto input = cast<RankedTensorType>(reduce.getInput().getType());
    ArrayRef<int64_t> dims = reduce.getDims();
    if (dims.size() == 1 && dims[0] == input.getRank() - 1)
      return reduce;
    return nullptr;
  };
  return llvm::TypeSwitch<Operation *, Operation *>(op)
      .Case<ReduceSumOp, ReduceMaxOp, ReduceMeanOp>(check)
      .Default([](Operation *) { return nullptr; });
}

/// A reduction over dim 1 of a rank-3 input, the dim dropped.
Operation *groupReduction(Operation *op) {
  auto check = [](auto reduce) -> Operation * {
    auto input = cast<RankedTensorType>(reduce.getInput().getType());
    ArrayRef<int64_t> dims = reduce.getDims();
    if (input.getRank() == 3 && dims.size() == 1 && dims[0] == 1 &&
        !reduce.getKeepdim())
      return reduce;
    return nullptr;
  };
  return llvm::TypeSwitch<Operation *, Operation *>(op)
      .Case<ReduceSumOp, ReduceMaxOp, ReduceMeanOp>(check)
      .Default([](Operation *) { return nullptr; });
}

// Partial accumulators a lane carries in registers when chunks are outer
// (partials x vector), and a warp's shared-memory slice of them when rows
// are outer (partials x chunks x vector x 32 lanes x 4 bytes).
constexpr int64_t kMaxPartialRegisters = 128;
constexpr int64_t kMaxPartialSharedBytes = 16384;

struct Analyzer {
  Analyzer(FusedOp op, std::string &why) : op(op), why(why) {}

  FusedOp op;
  FusedRowsPlan plan;
  std::string &why;

  bool fail(const Twine &reason) {
    why = reason.str();
    return false;
  }

  bool isElementShaped(Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    return type.getRank() >= 1 && type.getShape().back() == plan.columns &&
           type.getNumElements() == plan.rows * plan.columns;
  }

  bool assign(Value v, RowKind kind) {
    auto [it, inserted] = plan.kind.try_emplace(v, kind);
    if (!inserted && it->second != kind)
      return fail("a value is used both as a " +
                  Twine(kind == RowKind::Row ? "row" : "column") +
                  " value and otherwise");
    return true;
  }

  /// The kind of an elementwise op's value from its operands (scalars mix
  /// with anything).
  std::optional<RowKind> combined(ValueRange operands) {
    std::optional<RowKind> result = RowKind::Scalar;
    for (Value v : operands) {
      auto it = plan.kind.find(v);
      if (it == plan.kind.end())
        return std::nullopt;
      if (it->second == RowKind::Scalar)
        continue;
      if (*result != RowKind::Scalar && *result != it->second)
        return std::nullopt;
      result = it->second;
    }
    return result;
  }

  bool run() {
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    // The row space: the first element-shaped ([..., C]) result, reduction
    // input or block argument, C its last dim.
    Value anchor;
    for (Operation &inner : body.without_terminator()) {
      if (Operation *reduce = lastDimReduction(&inner)) {
        anchor = reduce->getOperand(0);
        break;
      }
      if (Operation *reduce = groupReduction(&inner); reduce && !anchor)
        anchor = reduce->getOperand(0); // [G, K, C]
    }
    if (!anchor)
      for (Value v : yield.getValues())
        if (cast<RankedTensorType>(v.getType()).getRank() >= 1) {
          anchor = v;
          break;
        }
    if (!anchor)
      return fail("no tensor result to take the row space from");
    auto anchorType = cast<RankedTensorType>(anchor.getType());
    plan.columns = anchorType.getShape().back();
    if (plan.columns < 2)
      return fail("rows of fewer than 2 columns");
    plan.rows = anchorType.getNumElements() / plan.columns;
    if (plan.rows < 2)
      return fail("fewer than 2 rows");
    if (plan.rows >= (int64_t(1) << 31) / 2 ||
        plan.rows * plan.columns >= (int64_t(1) << 40))
      return fail("row space too large");

    auto argKind = [&](Value v) -> std::optional<RowKind> {
      if (isElementShaped(v))
        return RowKind::Element;
      if (numElements(v) == 1)
        return RowKind::Scalar;
      if (plan.rows != plan.columns && numElements(v) == plan.rows)
        return RowKind::Row;
      return std::nullopt; // a column vector, or ambiguous: from its uses
    };
    // A GEMM epilogue's region starts with its matmul, whose operands are
    // inputs of their own (not in the row space) and whose result is an
    // element value.
    for (Operation &inner : body.without_terminator()) {
      auto matmul = dyn_cast<MatmulOp>(inner);
      if (!matmul)
        continue;
      if (plan.matmul)
        return fail("more than one matmul");
      plan.matmul = matmul;
      for (Value operand : {matmul.getLhs(), matmul.getRhs()}) {
        auto arg = dyn_cast<BlockArgument>(operand);
        if (!arg || arg.getOwner() != &body || !arg.hasOneUse())
          return fail("a matmul operand that is not an input of its own");
      }
      if (!isElementShaped(matmul.getResult()))
        return fail("a matmul result outside the row space");
    }
    auto isMatmulOperand = [&](BlockArgument arg) {
      return plan.matmul && llvm::is_contained(plan.matmul->getOperands(),
                                               Value(arg));
    };
    for (BlockArgument arg : body.getArguments()) {
      if (isMatmulOperand(arg))
        continue;
      if (!supportedElement(
              cast<RankedTensorType>(arg.getType()).getElementType()))
        return fail("an input of an unsupported element type");
      if (std::optional<RowKind> k = argKind(arg))
        plan.kind[arg] = *k;
    }
    // Inputs used as row or column vectors get their kind at the broadcast
    // (or row op) that uses them.
    for (Operation &inner : body.without_terminator()) {
      for (Type t : inner.getResultTypes())
        if (!supportedElement(cast<RankedTensorType>(t).getElementType()))
          return fail("an op with an unsupported element type: " +
                      inner.getName().getStringRef());
      if (auto constant = dyn_cast<ConstantOp>(inner)) {
        auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
        if (!value || !value.isSplat())
          return fail("a non-splat constant");
        plan.kind[constant.getResult()] = RowKind::Scalar;
        continue;
      }
      if (&inner == plan.matmul) {
        plan.kind[inner.getResult(0)] = RowKind::Element;
        continue;
      }
      if (auto broadcast = dyn_cast<BroadcastInDimOp>(inner)) {
        Value result = broadcast.getResult();
        std::optional<RowKind> in;
        if (isElementShaped(result))
          in = classifyBroadcastInput(broadcast, plan.rows, plan.columns);
        else if (numElements(broadcast.getInput()) == 1 &&
                 numElements(result) == plan.rows)
          in = RowKind::Scalar; // a scalar spread over the rows
        if (!in)
          return fail("a broadcast that is not along rows or columns");
        if (!assign(broadcast.getInput(), *in))
          return false;
        plan.kind[result] =
            isElementShaped(result) ? RowKind::Element : RowKind::Row;
        continue;
      }
      if (Operation *reduce = groupReduction(&inner);
          reduce && isElementShaped(reduce->getOperand(0))) {
        Value in = reduce->getOperand(0);
        auto it = plan.kind.find(in);
        if (it == plan.kind.end() || it->second != RowKind::Element ||
            isBool(in))
          return fail("a partial reduction of a non-row value");
        int64_t k = cast<RankedTensorType>(in.getType()).getDimSize(1);
        if (plan.rowsPerGroup != 1 && plan.rowsPerGroup != k)
          return fail("partial reductions over different row groups");
        plan.rowsPerGroup = k;
        if (!llvm::all_of(reduce->getUsers(),
                          [](Operation *u) { return isa<YieldOp>(u); }))
          return fail("a partial reduction used inside the region");
        plan.kind[reduce->getResult(0)] = RowKind::Partial;
        ++plan.partials;
        plan.partialMax |= isa<ReduceMaxOp>(reduce);
        continue;
      }
      if (Operation *reduce = lastDimReduction(&inner)) {
        auto it = plan.kind.find(reduce->getOperand(0));
        if (it == plan.kind.end() || it->second != RowKind::Element)
          return fail("a reduction over the last dim of a non-row value");
        if (isBool(reduce->getOperand(0)))
          return fail("a reduction of booleans");
        plan.kind[reduce->getResult(0)] = RowKind::Row;
        continue;
      }
      if (auto reshape = dyn_cast<ReshapeOp>(inner)) {
        Value in = reshape.getInput(), out = reshape.getResult();
        auto it = plan.kind.find(in);
        if (it == plan.kind.end() && isElementShaped(out))
          it = plan.kind.try_emplace(in, RowKind::Element).first; // same order
        if (it == plan.kind.end())
          return fail("a reshape of a value of unknown kind");
        bool same = (it->second == RowKind::Element && isElementShaped(out)) ||
                    (it->second != RowKind::Element &&
                     numElements(in) == numElements(out));
        if (!same)
          return fail("a reshape that moves data across rows");
        plan.kind[out] = it->second;
        continue;
      }
      if (!isElementwise(&inner))
        return fail("an op without a row-kernel lowering: " +
                    inner.getName().getStringRef());
      // An input of R elements that elementwise ops use is per row.
      for (Value v : inner.getOperands())
        if (!plan.kind.count(v) && numElements(v) == plan.rows)
          plan.kind[v] = RowKind::Row;
      std::optional<RowKind> k = combined(inner.getOperands());
      if (!k)
        return fail("an elementwise op mixing row spaces: " +
                    inner.getName().getStringRef());
      plan.kind[inner.getResult(0)] = *k;
    }
    for (BlockArgument arg : body.getArguments())
      if (!isMatmulOperand(arg) && !plan.kind.count(arg))
        return fail("an input that is neither per element, row, column nor "
                    "scalar");
    for (Value v : yield.getValues()) {
      RowKind k = plan.kind.lookup(v);
      if (k != RowKind::Element && k != RowKind::Row && k != RowKind::Partial)
        return fail("a result that is not per element, per row or partial");
      if (isa<BlockArgument>(v))
        return fail("a result that is an input");
    }

    // Levels: a reduction's row value is known after the sweep of its
    // input's level.
    for (BlockArgument arg : body.getArguments())
      plan.level[arg] = 0;
    for (Operation &inner : body.without_terminator()) {
      int64_t level = 0;
      for (Value v : inner.getOperands())
        level = std::max(level, plan.level.lookup(v));
      if (lastDimReduction(&inner))
        ++level;
      plan.level[inner.getResult(0)] = level;
    }
    auto bytes = [](Value v) {
      Type t = cast<RankedTensorType>(v.getType()).getElementType();
      return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
    };
    for (BlockArgument arg : body.getArguments()) {
      if (isMatmulOperand(arg))
        continue;
      RowKind k = plan.kind.lookup(arg);
      if (k == RowKind::Element || k == RowKind::Column)
        plan.widestBytes = std::max(plan.widestBytes, bytes(arg));
      plan.elementInputs += k == RowKind::Element;
    }
    // Partials are f32 whatever the vector: stored 16 bytes at a time.
    for (Value v : yield.getValues())
      if (plan.kind.lookup(v) == RowKind::Element) {
        plan.widestBytes = std::max(plan.widestBytes, bytes(v));
        ++plan.elementResults;
      }
    for (Operation &inner : body.without_terminator())
      plan.rowReductions |= lastDimReduction(&inner) != nullptr;
    if (plan.partials && !plan.rowReductions &&
        llvm::any_of(yield.getValues(), [&](Value v) {
          return plan.kind.lookup(v) == RowKind::Row;
        }))
      return fail("a per-row result next to partials without row reductions");
    return true;
  }
};

} // namespace

std::optional<RowKind> cuda::classifyBroadcastInput(BroadcastInDimOp broadcast,
                                                    int64_t rows,
                                                    int64_t columns) {
  auto in = cast<RankedTensorType>(broadcast.getInput().getType());
  auto out = cast<RankedTensorType>(broadcast.getResult().getType());
  ArrayRef<int64_t> dims = broadcast.getDims();
  int64_t last = out.getRank() - 1;
  if (in.getNumElements() == 1)
    return RowKind::Scalar;
  if (out.getRank() < 1 || out.getShape().back() != columns ||
      out.getNumElements() != rows * columns)
    return std::nullopt;
  bool column = true, row = true;
  SmallVector<bool> mapped(out.getRank(), false);
  for (auto [i, d] : llvm::enumerate(dims)) {
    mapped[d] = true;
    int64_t size = in.getDimSize(i);
    if (d == last) {
      row &= size == 1;
      column &= size == columns;
    } else {
      column &= size == 1;
      row &= size == out.getDimSize(d);
      if (i > 0 && dims[i - 1] > d)
        row = false; // a transposing broadcast
    }
  }
  for (int64_t d = 0; d < last; ++d)
    row &= mapped[d] || out.getDimSize(d) == 1;
  if (row && in.getNumElements() == rows)
    return RowKind::Row;
  if (column && in.getNumElements() == columns)
    return RowKind::Column;
  return std::nullopt;
}

bool cuda::isFusedRowsOp(Operation *op) {
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    return value && value.isSplat();
  }
  return isElementwise(op) || lastDimReduction(op) || groupReduction(op) ||
         isa<BroadcastInDimOp, ReshapeOp>(op);
}

bool cuda::isGroupReduction(Operation *op) { return groupReduction(op); }

int64_t cuda::rowChunks(const FusedRowsPlan &plan, int64_t vector) {
  return (plan.columns + 32 * vector - 1) / (32 * vector);
}

int64_t cuda::partialSliceBytes(const FusedRowsPlan &plan, int64_t vector) {
  if (!plan.rowReductions) // chunks outer: one chunk's partials at a time
    return 0;
  return plan.partials * rowChunks(plan, vector) * vector * 32 * 4;
}

bool cuda::sharesGroupsInCta(const FusedRowsPlan &plan) {
  return plan.partials && plan.rowReductions;
}

bool cuda::sharesPartialSlice(const FusedRowsPlan &plan) {
  return sharesGroupsInCta(plan) && !plan.partialMax;
}

int64_t cuda::partialSharedBytes(const FusedRowsPlan &plan, int64_t vector,
                                 int64_t warps) {
  return partialSliceBytes(plan, vector) *
         (sharesPartialSlice(plan) ? 1 : warps);
}

int64_t cuda::fusedRowsCtas(const FusedRowsPlan &plan,
                            const FusedRowsSpec &spec) {
  int64_t groups = plan.rows / plan.rowsPerGroup;
  if (sharesGroupsInCta(plan))
    return groups;
  int64_t warps = groups * spec.segments;
  return (warps + spec.warps - 1) / spec.warps;
}

bool cuda::partialsFit(const FusedRowsPlan &plan, int64_t vector) {
  if (!plan.rowReductions)
    return plan.partials * vector <= kMaxPartialRegisters;
  return partialSliceBytes(plan, vector) <= kMaxPartialSharedBytes;
}

bool cuda::isLastDimReduction(Operation *op) { return lastDimReduction(op); }


uint64_t cuda::regionHash(FusedOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm().useLocalScope();
  op->print(os, flags);
  return llvm::xxh3_64bits(text);
}

FailureOr<FusedRowsPlan> cuda::analyzeFusedRows(FusedOp op, std::string &why) {
  Analyzer analyzer(op, why);
  if (!analyzer.run())
    return failure();
  return std::move(analyzer.plan);
}

FailureOr<FusedRowsSpec> cuda::fusedRowsSpec(FusedOp op,
                                             const FusedRowsPlan &plan,
                                             std::string &why) {
  auto config = op.getLoweringConfigAttr();
  if (!config || config.getKernel() != "fused_rows") {
    why = "kernel family is not fused_rows";
    return failure();
  }
  ArrayRef<int64_t> tile = config.getTileSizes();
  ArrayRef<int64_t> warps = config.getWarpLayout();
  if (tile.size() != 3 || tile[0] != 1 || warps.size() != 2) {
    why = "expected a [1, vector, segments] tile and [warps, 1] warp layout";
    return failure();
  }
  if (plan.matmul) {
    why = "a region with a matmul is a GEMM epilogue";
    return failure();
  }
  FusedRowsSpec spec;
  spec.vector = tile[1];
  spec.segments = tile[2];
  spec.warps = warps[0];
  int64_t chunks = rowChunks(plan, spec.vector);
  spec.wholeRow = config.getPipelineStages() == chunks && chunks > 1;
  if (config.getPipelineStages() != 1 && !spec.wholeRow) {
    why = "pipeline_stages must be 1 (a chunk at a time) or the row's " +
          std::to_string(chunks) + " chunks";
    return failure();
  }
  if (spec.wholeRow && (!plan.rowReductions || tile[2] != 1)) {
    why = "only a row swept more than once by one warp is held whole";
    return failure();
  }
  if (spec.vector < 1 || spec.vector * plan.widestBytes > 16 ||
      plan.columns % spec.vector || spec.warps < 1 || spec.warps > 32 ||
      spec.segments < 1 || plan.rows * spec.segments >= (int64_t(1) << 31)) {
    why = "vector, warps or segments out of the kernel's range";
    return failure();
  }
  if (spec.segments > 1 && plan.rowReductions) {
    why = "a row with a reduction cannot be split between warps";
    return failure();
  }
  if (sharesGroupsInCta(plan) && plan.rowsPerGroup % spec.warps) {
    why = "a CTA's warps must share its group of " +
          std::to_string(plan.rowsPerGroup) + " rows evenly";
    return failure();
  }
  if (!partialsFit(plan, spec.vector) ||
      partialSharedBytes(plan, spec.vector, spec.warps) >
          kMaxStaticSharedBytes) {
    why = "rows too long to carry their partials";
    return failure();
  }
  spec.minCtasPerSm = config.getMinCtasPerSm();
  uint64_t hash = regionHash(op);
  spec.kernelName =
      llvm::formatv("nova_fused_rows_{0}x{1}_v{2}_w{3}_s{4}{5}{6}_{7:x16}",
                    plan.rows, plan.columns, spec.vector, spec.warps,
                    spec.segments, spec.wholeRow ? "_row" : "",
                    spec.minCtasPerSm
                        ? "_o" + std::to_string(spec.minCtasPerSm)
                        : std::string(),
                    hash)
          .str();
  return spec;
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

namespace {

struct RowsKernel : RegionElements {
  const FusedRowsSpec &spec;
  Value lane, valid; // i32; valid: i1 or null (all valid)
  /// This warp's shared-memory partials (rows outer), or null.
  Value partialSlice;

  RowsKernel(OpBuilder &b, Location loc, const FusedRowsPlan &plan,
             const FusedRowsSpec &spec, Block &region)
      : RegionElements(b, loc, plan, region, spec.vector), spec(spec) {}

  Value shuffleXor(Value x, int64_t offset) {
    return NVVM::ShflOp::create(b, loc, f32, c32(-1), x, c32(offset),
                                c32(0x1f), NVVM::ShflKind::bfly, UnitAttr())
        .getResult();
  }
  Value combine(Operation *reduce, Value x, Value y) {
    if (isa<ReduceMaxOp>(reduce))
      return arith::MaximumFOp::create(b, loc, x, y);
    return fadd(x, y);
  }
  Value identity(Operation *reduce) {
    return cf(isa<ReduceMaxOp>(reduce) ? -INFINITY : 0.0);
  }

  /// Sets `column` (and `valid` for a ragged last chunk) for chunk `it`
  /// (`index`: its number when the chunks are unrolled).
  void enterChunk(Value it, int64_t index = -1) {
    chunk.clear();
    chunkIndex = index;
    column = add(mul(it, c32(32 * spec.vector)), mul(lane, c32(spec.vector)));
    valid = Value();
    if (plan.columns % (32 * spec.vector)) {
      valid = ult(column, c32(plan.columns));
      // Loads stay in bounds; their values are masked or not stored.
      column = min(column, c32(plan.columns - spec.vector));
    }
  }

  void storeElements(Value result, Value pointer, Value index,
                     ArrayRef<Value> values) {
    if (valid)
      ifThen(valid, [&] { storeVector(result, pointer, index, values); });
    else
      storeVector(result, pointer, index, values);
  }

  /// This chunk's elements of partial `op`'s input, its identity past the
  /// row's end.
  SmallVector<Value> partialInputs(Operation *op) {
    SmallVector<Value> x = elements(op->getOperand(0));
    if (valid)
      for (Value &v : x)
        v = select(valid, v, identity(op));
    return x;
  }

  /// Folds this chunk's elements of partial `op`'s input into its lane's
  /// `slots` (one per column of the chunk).
  void accumulate(Operation *op, MutableArrayRef<Value> slots) {
    SmallVector<Value> x = partialInputs(op);
    for (int64_t i = 0; i < spec.vector; ++i)
      slots[i] = combine(op, slots[i], x[i]);
  }

  /// Adds this chunk's elements of partial `op`'s input into the CTA's
  /// shared slice: the CTA's warps add into the same words, so atomically
  /// (red.shared.add.f32).
  void addPartials(size_t p, Operation *op, Value it) {
    SmallVector<Value> x = partialInputs(op);
    for (int64_t i = 0; i < spec.vector; ++i)
      LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::fadd,
                                partialSlot(p, it, i), x[i],
                                LLVM::AtomicOrdering::monotonic)
          .setAlignment(4);
  }

  /// This chunk's columns of partial `op`'s row `group` from `sums` (a
  /// mean's divided by its rows).
  void storePartial(Block &entry, Operation *op, Value group,
                    ArrayRef<Value> sums) {
    auto yield = cast<YieldOp>(region.getTerminator());
    unsigned index = llvm::find(yield.getValues(), op->getResult(0)) -
                     yield.getValues().begin();
    SmallVector<Value> values;
    for (Value v : sums)
      values.push_back(isa<ReduceMeanOp>(op)
                           ? fmul(v, cf(1.0 / double(plan.rowsPerGroup)))
                           : v);
    storeElements(op->getResult(0),
                  entry.getArgument(region.getNumArguments() + index),
                  add(mul(wide(group), c64(plan.columns)), wide(column)),
                  values);
  }

  /// This chunk of the row's per-element results of `level`.
  void storeElementResults(Block &entry, int64_t level) {
    auto yield = cast<YieldOp>(region.getTerminator());
    for (auto [i, v] : llvm::enumerate(yield.getValues()))
      if (plan.kind.lookup(v) == RowKind::Element &&
          plan.level.lookup(v) == level)
        storeElements(v, entry.getArgument(region.getNumArguments() + i),
                      add(mul(wide(row), c64(plan.columns)), wide(column)),
                      elements(v));
  }

  /// Lane element `i` of chunk `it` of partial `p` in this warp's shared
  /// slice, laid out [partial][chunk][element][lane]: a warp's lanes touch
  /// 32 consecutive words (no bank conflicts), and only their own.
  Value partialSlot(size_t p, Value it, int64_t i) {
    Value element = add(mul(it, c32(spec.vector)),
                        c32(int64_t(p) * chunks * spec.vector + i));
    Value word = add(mul(element, c32(32)), lane);
    return byteOffset(shared, partialSlice, mul(word, c32(4)));
  }
  SmallVector<Value> loadPartials(size_t p, Value it) {
    SmallVector<Value> slots;
    for (int64_t i = 0; i < spec.vector; ++i)
      slots.push_back(LLVM::LoadOp::create(b, loc, f32, partialSlot(p, it, i)));
    return slots;
  }
  void storePartials(size_t p, Value it, ArrayRef<Value> slots) {
    for (int64_t i = 0; i < spec.vector; ++i)
      LLVM::StoreOp::create(b, loc, slots[i], partialSlot(p, it, i));
  }

  /// One row's sweeps; the partials of each sweep's level are folded into
  /// this warp's shared slots.
  void emitRow(Block &entry, Value segment) {
    Block &body = region;
    auto yield = cast<YieldOp>(body.getTerminator());
    unsigned inputs = body.getNumArguments();
    forgetRowValues();
    emitKnown(0, /*scalars=*/false);
    auto storeRows = [&](int64_t level) {
      for (auto [i, v] : llvm::enumerate(yield.getValues()))
        if (plan.kind.lookup(v) == RowKind::Row &&
            plan.level.lookup(v) == level)
          ifThen(eq(lane, 0), [&] {
            Type type = storage(v);
            LLVM::StoreOp::create(
                b, loc, narrow(known.lookup(v), type),
                at(type, entry.getArgument(inputs + i), wide(row)),
                std::max<unsigned>(1, type.getIntOrFloatBitWidth() / 8));
          });
    };
    storeRows(0);
    // This warp's chunks of the row.
    int64_t perSegment = (chunks + spec.segments - 1) / spec.segments;
    Value firstChunk = mul(segment, c32(perSegment));
    Value endChunk = min(add(firstChunk, c32(perSegment)), c32(chunks));
    // Whole row: the sweeps are unrolled over the row's chunks, so the
    // loads of all chunks of an input are in flight at once (a row's bytes
    // per warp, not a chunk's); an input is loaded in the first sweep that
    // uses it and the later sweeps read it from registers, not L1/L2.
    rowInputs.clear();
    auto forChunks = [&](ValueRange init, auto &&body) -> SmallVector<Value> {
      if (!spec.wholeRow) {
        ValueRange out = loop(firstChunk, endChunk, c32(1), init,
                              [&](Value it, ValueRange acc) {
                                enterChunk(it);
                                return body(it, acc);
                              });
        return SmallVector<Value>(out.begin(), out.end());
      }
      SmallVector<Value> acc(init.begin(), init.end());
      for (int64_t i = 0; i < chunks; ++i) {
        Value it = c32(i);
        enterChunk(it, i);
        acc = body(it, acc);
      }
      return acc;
    };
    for (int64_t sweep = 0; sweep < sweeps; ++sweep) {
      SmallVector<Operation *> here;
      SmallVector<Value> init;
      for (Operation *r : reductions)
        if (plan.level.lookup(r->getResult(0)) == sweep + 1) {
          here.push_back(r);
          init.push_back(identity(r));
        }
      SmallVector<Value> carried = forChunks(
          init, [&](Value it, ValueRange acc) -> SmallVector<Value> {
            SmallVector<Value> next;
            for (auto [r, a] : llvm::zip(here, acc)) {
              Value local;
              for (Value x : elements(r->getOperand(0)))
                local = local ? combine(r, local, x) : x;
              if (valid)
                local = select(valid, local, identity(r));
              next.push_back(combine(r, a, local));
            }
            for (auto [p, op] : llvm::enumerate(partialOps))
              if (plan.level.lookup(op->getResult(0)) == sweep) {
                if (sharesPartialSlice(plan)) {
                  addPartials(p, op, it);
                  continue;
                }
                SmallVector<Value> slots = loadPartials(p, it);
                accumulate(op, slots);
                storePartials(p, it, slots);
              }
            storeElementResults(entry, sweep);
            return next;
          });
      for (auto [r, p] : llvm::zip(here, carried)) {
        Value total = p;
        for (int64_t offset : {16, 8, 4, 2, 1})
          total = combine(r, total, shuffleXor(total, offset));
        if (isa<ReduceMeanOp>(r))
          total = fmul(total, cf(1.0 / double(plan.columns)));
        known[r->getResult(0)] = total;
      }
      chunk.clear();
      emitKnown(sweep + 1, /*scalars=*/false);
      storeRows(sweep + 1);
    }
  }

  void build(Block &entry, Value partialShared) {
    Block &body = region;
    auto yield = cast<YieldOp>(body.getTerminator());
    for (BlockArgument arg : body.getArguments())
      pointers[arg] = entry.getArgument(arg.getArgNumber());
    for (Operation &op : body.without_terminator()) {
      if (lastDimReduction(&op))
        reductions.push_back(&op);
      if (plan.kind.lookup(op.getResult(0)) == RowKind::Partial)
        partialOps.push_back(&op);
    }
    sweeps = 0;
    for (Operation *r : reductions)
      sweeps = std::max(sweeps, plan.level.lookup(r->getResult(0)));
    for (Operation *p : partialOps)
      sweeps = std::max(sweeps, plan.level.lookup(p->getResult(0)) + 1);
    for (Value v : yield.getValues())
      if (plan.kind.lookup(v) == RowKind::Element)
        sweeps = std::max(sweeps, plan.level.lookup(v) + 1);
    chunks = rowChunks(plan, spec.vector);
    // Partials with row reductions: rows outer (each swept whole), every
    // chunk's partials in the warp's shared slice; without: chunks outer,
    // each chunk's partials summed over the warp's rows in a few registers.
    bool chunksOuter = !partialOps.empty() && !plan.rowReductions;

    Value tid = id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value block = id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    lane = rem(tid, c32(32));
    if (partialShared)
      partialSlice =
          sharesPartialSlice(plan)
              ? partialShared
              : byteOffset(shared, partialShared,
                           mul(div(tid, c32(32)),
                               c32(partialSliceBytes(plan, spec.vector))));
    Value warpInCta = div(tid, c32(32));
    Value warp = add(mul(block, c32(spec.warps)), warpInCta);
    // A warp's rows: `rowsPerGroup` consecutive ones (one partial group), or
    // one segment of one row. With partials in shared memory a group is
    // the CTA's: each warp sums `rowsPerGroup / warps` of its rows into its
    // slice, and the CTA adds the slices up.
    int64_t k = plan.rowsPerGroup;
    bool ctaGroups = sharesGroupsInCta(plan);
    Value group = ctaGroups ? block : div(warp, c32(spec.segments));
    Value segment = ctaGroups ? c32(0) : rem(warp, c32(spec.segments));
    int64_t warpRows = ctaGroups ? k / spec.warps : k;
    Value firstRow = ctaGroups ? add(mul(group, c32(k)),
                                     mul(warpInCta, c32(warpRows)))
                               : mul(group, c32(k));
    // Warp-uniform (CTA-uniform with CTA groups): skip groups past the end.
    ifThen(ult(group, c32(plan.rows / k)), [&] {
      emitKnown(0, /*scalars=*/true);
      if (chunksOuter) {
        emitChunksOuter(entry, group, segment);
        return;
      }
      auto forEachChunk = [&](auto &&fn) {
        loop(c32(0), c32(chunks), c32(1), {}, [&](Value it, ValueRange) {
          fn(it);
          return SmallVector<Value>{};
        });
      };
      if (!partialOps.empty())
        forEachChunk([&](Value it) {
          for (auto [p, op] : llvm::enumerate(partialOps))
            storePartials(p, it, SmallVector<Value>(spec.vector, identity(op)));
        });
      // One slice for the CTA: every warp's zeros are written (the same
      // ones) before any warp adds to it.
      if (!partialOps.empty() && sharesPartialSlice(plan))
        gpu::BarrierOp::create(b, loc);
      if (warpRows == 1) {
        row = firstRow;
        emitRow(entry, segment);
      } else {
        loop(c32(0), c32(warpRows), c32(1), {},
             [&](Value i, ValueRange) -> SmallVector<Value> {
               row = add(firstRow, i);
               emitRow(entry, segment);
               return {};
             });
      }
      if (ctaGroups)
        storeCtaPartials(entry, group, tid, partialShared);
    });
  }

  /// Each partial's [group, C] row: the CTA's slice, or the sum of its warp
  /// slices. A thread adds up `vector` columns of one chunk at a time, so
  /// its store is one vector.
  void storeCtaPartials(Block &entry, Value group, Value tid,
                        Value partialShared) {
    gpu::BarrierOp::create(b, loc);
    int64_t sliceBytes = partialSliceBytes(plan, spec.vector);
    int64_t slices = sharesPartialSlice(plan) ? 1 : spec.warps;
    loop(tid, c32(chunks * 32), c32(32 * spec.warps), {},
         [&](Value idx, ValueRange) -> SmallVector<Value> {
           Value it = div(idx, c32(32));
           lane = rem(idx, c32(32));
           enterChunk(it);
           for (auto [p, op] : llvm::enumerate(partialOps)) {
             SmallVector<Value> sums;
             for (int64_t w = 0; w < slices; ++w) {
               partialSlice =
                   byteOffset(shared, partialShared, c32(w * sliceBytes));
               SmallVector<Value> slots = loadPartials(p, it);
               if (w == 0)
                 sums = slots;
               else
                 for (int64_t i = 0; i < spec.vector; ++i)
                   sums[i] = combine(op, sums[i], slots[i]);
             }
             storePartial(entry, op, group, sums);
           }
           return {};
         });
  }

  /// A region with partials and no row reductions: per chunk of this
  /// warp's segment, the warp's rows accumulate the chunk's partials, which
  /// are stored before the next chunk.
  void emitChunksOuter(Block &entry, Value group, Value segment) {
    int64_t k = plan.rowsPerGroup;
    int64_t perSegment = (chunks + spec.segments - 1) / spec.segments;
    Value firstChunk = mul(segment, c32(perSegment));
    Value endChunk = min(add(firstChunk, c32(perSegment)), c32(chunks));
    loop(firstChunk, endChunk, c32(1), {}, [&](Value it, ValueRange) {
      SmallVector<Value> init;
      for (Operation *op : partialOps)
        init.append(spec.vector, identity(op));
      ValueRange sums = loop(
          c32(0), c32(k), c32(1), init,
          [&](Value i, ValueRange acc) -> SmallVector<Value> {
            row = add(mul(group, c32(k)), i);
            forgetRowValues();
            emitKnown(0, /*scalars=*/false);
            enterChunk(it);
            SmallVector<Value> next(acc.begin(), acc.end());
            for (auto [p, op] : llvm::enumerate(partialOps))
              accumulate(op, MutableArrayRef(next).slice(p * spec.vector,
                                                         spec.vector));
            // Without row reductions every value is of level 0.
            storeElementResults(entry, 0);
            return next;
          });
      enterChunk(it);
      SmallVector<Value> partials(sums.begin(), sums.end());
      for (auto [p, op] : llvm::enumerate(partialOps))
        storePartial(entry, op, group,
                     ArrayRef(partials).slice(p * spec.vector, spec.vector));
      return SmallVector<Value>{};
    });
  }

  SmallVector<Operation *> reductions, partialOps;
  int64_t sweeps = 0, chunks = 1;
};

} // namespace

OwningOpRef<ModuleOp> cuda::buildFusedRowsKernel(MLIRContext *context,
                                                 FusedOp op,
                                                 const FusedRowsPlan &plan,
                                                 const FusedRowsSpec &spec) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, spec.kernelName, "sm_80", "+ptx70");
  int64_t sharedBytes = partialSharedBytes(plan, spec.vector, spec.warps);
  LLVM::GlobalOp partials;
  if (sharedBytes)
    partials = LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getF32Type(), sharedBytes / 4),
        /*isConstant=*/false, LLVM::Linkage::Internal, "nova_column_partials",
        Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  int64_t pointers = op.getInputs().size() + op.getNumResults();
  SmallVector<Type> params(pointers, LLVM::LLVMPointerType::get(context, 1));
  gpu::GPUFuncOp func =
      createKernelFunc(b, spec.kernelName, params, 32 * spec.warps);
  if (spec.minCtasPerSm)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(spec.minCtasPerSm));
  Block &entry = func.getBody().front();
  RowsKernel kernel(b, loc, plan, spec, op.getBody().front());
  kernel.build(entry, partials ? LLVM::AddressOfOp::create(b, loc, partials)
                                     .getResult()
                               : Value());
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::fusedRowsPtx(FusedOp op, const FusedRowsPlan &plan,
                               const FusedRowsSpec &spec, std::string &error) {
  return cachedKernelPtx(
      spec.kernelName,
      [&](MLIRContext *context) {
        return buildFusedRowsKernel(context, op, plan, spec);
      },
      error);
}
