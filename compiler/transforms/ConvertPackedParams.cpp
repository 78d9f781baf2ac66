//===- ConvertPackedParams.cpp - one conversion of a packed param group ---===//
//
// After nova-pack-optimizer-state the forward reads each param as a slice of
// its group's flat tensor, and converts most of them on its own: a bf16 copy
// of every linear weight and bias (autocast), a TF32-rounded one of every
// weight a TF32 GEMM reads. Each is a launch of a kernel over 0.25-4 MB
// (32 of the 320 launches of a gpt-42m bf16 step, ~3.5 us each with the gap
// before it), and all of them are alive until the backward has read them.
// Where the converted members cover most of their group, one conversion of
// the whole flat tensor replaces them: each member becomes a slice of it.
// Elementwise, so the values are the same.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <set>

namespace mlir::nova {
#define GEN_PASS_DEF_NOVACONVERTPACKEDPARAMS
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// The conversions of a member that one conversion of its group replaces:
/// a cast to bf16 or a TF32 rounding.
enum class Conversion { ToBf16, RoundTf32 };

std::optional<Conversion> conversionOf(Operation *op) {
  if (auto castOp = dyn_cast<CastOp>(op)) {
    auto from = cast<RankedTensorType>(castOp.getInput().getType());
    auto to = cast<RankedTensorType>(castOp.getType());
    if (from.getElementType().isF32() && to.getElementType().isBF16())
      return Conversion::ToBf16;
    return std::nullopt;
  }
  if (isa<RoundTf32Op>(op))
    return Conversion::RoundTf32;
  return std::nullopt;
}

/// One member's conversion: the op and the flat range it converts.
struct Converted {
  Operation *op;
  int64_t start, size;
};

/// `flat`'s members read through a conversion of `kind`, each as
/// `conversion(reshape?(slice(flat)))` with a unit-stride slice.
SmallVector<Converted> convertedMembers(Value flat, Conversion kind) {
  SmallVector<Converted> out;
  for (Operation *user : flat.getUsers()) {
    auto slice = dyn_cast<SliceOp>(user);
    if (!slice || slice.getStride()[0] != 1)
      continue;
    int64_t start = slice.getStart()[0];
    int64_t size = slice.getLimit()[0] - start;
    auto visit = [&](Value v) {
      for (Operation *op : v.getUsers())
        if (conversionOf(op) == kind)
          out.push_back({op, start, size});
    };
    visit(slice);
    for (Operation *op : slice->getUsers())
      if (auto reshape = dyn_cast<ReshapeOp>(op))
        visit(reshape);
  }
  return out;
}

/// `flat` converted as `kind`, built at `b`'s insertion point. Converted as
/// rows of up to 512 elements where they divide it: a row space that
/// nova-fuse-elementwise makes a region of (on CUDA a launch of Nova's
/// fused-rows kernel at DRAM speed, where IREE gives a 1-D elementwise op
/// 32-thread workgroups of 128 elements).
Value convertWhole(OpBuilder &b, Location loc, Value flat, Conversion kind) {
  auto type = cast<RankedTensorType>(flat.getType());
  int64_t total = type.getNumElements();
  Value source = flat;
  for (int64_t columns : {512, 256, 128, 64})
    if (total % columns == 0 && total > columns) {
      source =
          ReshapeOp::create(b, loc,
                            RankedTensorType::get({total / columns, columns},
                                                  type.getElementType()),
                            flat);
      break;
    }
  auto sourceType = cast<RankedTensorType>(source.getType());
  Value converted =
      kind == Conversion::ToBf16
          ? CastOp::create(b, loc, sourceType.clone(b.getBF16Type()), source)
                .getResult()
          : RoundTf32Op::create(b, loc, source).getResult();
  if (source == flat)
    return converted;
  return ReshapeOp::create(
      b, loc,
      type.clone(cast<RankedTensorType>(converted.getType()).getElementType()),
      converted);
}

struct ConvertPackedParamsPass
    : nova::impl::NovaConvertPackedParamsBase<ConvertPackedParamsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      for (BlockArgument flat : func.getArguments()) {
        auto type = dyn_cast<RankedTensorType>(flat.getType());
        if (!type || type.getRank() != 1 || !type.hasStaticShape() ||
            !type.getElementType().isF32())
          continue;
        for (Conversion kind : {Conversion::ToBf16, Conversion::RoundTf32})
          convertGroup(func, flat, kind);
      }
    });
  }

  void convertGroup(func::FuncOp func, BlockArgument flat, Conversion kind) {
    SmallVector<Converted> members = convertedMembers(flat, kind);
    // Distinct ranges (a member converted twice counts once).
    std::set<std::pair<int64_t, int64_t>> ranges;
    for (const Converted &m : members)
      ranges.insert({m.start, m.size});
    int64_t covered = 0;
    for (auto [start, size] : ranges)
      covered += size;
    int64_t total = cast<RankedTensorType>(flat.getType()).getNumElements();
    // The elements no member needs converted cost their bytes for nothing.
    if (ranges.size() < 2 || covered < minCoverage * total)
      return;
    OpBuilder b(func.getContext());
    b.setInsertionPointToStart(&func.getBody().front());
    Value whole = convertWhole(b, func.getLoc(), flat, kind);
    auto wholeType = cast<RankedTensorType>(whole.getType());
    for (const Converted &m : members) {
      b.setInsertionPoint(m.op);
      Location loc = m.op->getLoc();
      Value part = SliceOp::create(
          b, loc, RankedTensorType::get({m.size}, wholeType.getElementType()),
          whole, b.getDenseI64ArrayAttr({m.start}),
          b.getDenseI64ArrayAttr({m.start + m.size}),
          b.getDenseI64ArrayAttr({1}));
      Type resultType = m.op->getResult(0).getType();
      if (part.getType() != resultType)
        part = ReshapeOp::create(b, loc, resultType, part);
      Value input = m.op->getOperand(0);
      m.op->getResult(0).replaceAllUsesWith(part);
      m.op->erase();
      // The f32 view of the member, where nothing else reads it.
      while (Operation *view = input.getDefiningOp()) {
        if (!isa<SliceOp, ReshapeOp>(view) || !view->use_empty())
          break;
        input = view->getOperand(0);
        view->erase();
      }
    }
  }
};

} // namespace
