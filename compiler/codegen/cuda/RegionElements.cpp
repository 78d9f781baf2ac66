//===- RegionElements.cpp - a nova.fused region element by element --------===//
//
// See RegionElements.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/RegionElements.h"

#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {

constexpr double kLog2e = 1.4426950408889634, kLn2 = 0.69314718055994531;

bool isBool(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType().isInteger(1);
}

bool isHalf(Type type) {
  Type element = cast<RankedTensorType>(type).getElementType();
  return element.isBF16() || element.isF16();
}

} // namespace

RegionElements::RegionElements(OpBuilder &b, Location loc,
                               const FusedRowsPlan &plan, Block &region,
                               int64_t width)
    : KernelBuilder(b, loc), plan(plan), region(region), width(width) {
  auto endsInHalf = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (isa<YieldOp>(user))
      return isHalf(use.get().getType());
    if (isa<CastOp>(user) && isHalf(user->getResult(0).getType()))
      return true;
    if (isLastDimReduction(user) || isGroupReduction(user) ||
        user->getNumResults() != 1)
      return false;
    return roundedToHalf.contains(user->getResult(0));
  };
  // Users come after their operands: one walk from the end.
  for (Operation &op : llvm::reverse(region.without_terminator()))
    for (Value v : op.getResults())
      if (!v.use_empty() && llvm::all_of(v.getUses(), endsInHalf))
        roundedToHalf.insert(v);
}

Type RegionElements::storageType(Type element, MLIRContext *context) {
  // Element types from the compiler's context, rebuilt in the kernel's.
  if (element.isF32())
    return Float32Type::get(context);
  if (element.isBF16())
    return BFloat16Type::get(context);
  if (element.isF16())
    return Float16Type::get(context);
  return IntegerType::get(context, 8); // i1 as a byte
}
Type RegionElements::storage(Value v) {
  return storageType(cast<RankedTensorType>(v.getType()).getElementType(),
                     b.getContext());
}
Value RegionElements::at(Type type, Value base, Value index) {
  return LLVM::GEPOp::create(b, loc, global, type, base, ValueRange{index});
}
/// A loaded or computed element in the kernel's arithmetic type.
Value RegionElements::widen(Value x, bool boolean) {
  if (boolean)
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 arith::ConstantIntOp::create(b, loc, 0, 8));
  if (!x.getType().isF32())
    return arith::ExtFOp::create(b, loc, f32, x);
  return x;
}
Value RegionElements::narrow(Value x, Type type) {
  if (x.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, type, x);
  if (!type.isF32())
    return arith::TruncFOp::create(b, loc, type, x);
  return x;
}
Value RegionElements::loadScalar(Value input, Value index) {
  Type type = storage(input);
  Value x = LLVM::LoadOp::create(b, loc, type, at(type, pointers[input], index),
                                 /*alignment=*/0, false, false,
                                 /*isInvariant=*/true);
  return widen(x, isBool(input));
}
/// `width` elements of `input` from element `index` (i64).
SmallVector<Value> RegionElements::loadVector(Value input, Value index) {
  Type type = storage(input);
  auto vectorType = VectorType::get({width}, type);
  int64_t bytes = width * std::max<int64_t>(
                                    1, type.getIntOrFloatBitWidth() / 8);
  Value v = LLVM::LoadOp::create(b, loc, vectorType,
                                 at(type, pointers[input], index), bytes,
                                 false, false, /*isInvariant=*/true);
  SmallVector<Value> out;
  for (int64_t i = 0; i < width; ++i)
    out.push_back(widen(vector::ExtractOp::create(b, loc, v, i), isBool(input)));
  return out;
}
void RegionElements::storeVector(Value result, Value pointer, Value index,
                 ArrayRef<Value> values) {
  Type type = storage(result);
  SmallVector<Value> narrowed;
  for (Value x : values)
    narrowed.push_back(narrow(x, type));
  int64_t elementBytes = std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  int64_t piece = std::min<int64_t>(width, 16 / elementBytes);
  for (int64_t first = 0; first < width; first += piece) {
    auto vectorType = VectorType::get({piece}, type);
    Value v = vector::FromElementsOp::create(
        b, loc, vectorType, ArrayRef(narrowed).slice(first, piece));
    LLVM::StoreOp::create(b, loc, v,
                          at(type, pointer, add(index, c64(first))),
                          piece * elementBytes);
  }
}

Value RegionElements::fdiv(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
/// 1/x on the MUFU unit (~1 ulp): an IEEE div.rn.f32 is a ~20-instruction
/// subroutine, and tanh/erf/sigmoid ran at half of DRAM speed on it. Only
/// Nova's own approximations use it; a user's division stays IEEE.
Value RegionElements::rcp(Value x) { return intrinsic("llvm.nvvm.rcp.approx.ftz.f", x); }
// Bit operations, not llvm.intr.fabs/copysign: gpu-to-nvvm sends those
// to libdevice, which Nova does not link.
Value RegionElements::bits(Value x) { return arith::BitcastOp::create(b, loc, i32, x); }
Value RegionElements::fromBits(Value x) { return arith::BitcastOp::create(b, loc, f32, x); }
Value RegionElements::fabs(Value x) { return fromBits(andI(bits(x), c32(0x7fffffff))); }
Value RegionElements::exp(Value x) { return ex2(fmul(x, cf(kLog2e))); }
Value RegionElements::lt(Value x, Value y) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
}
Value RegionElements::copySign(Value magnitude, Value sign) {
  return fromBits(orI(andI(bits(magnitude), c32(0x7fffffff)),
                      andI(bits(sign), c32(int32_t(0x80000000)))));
}
Value RegionElements::poly(Value x, ArrayRef<double> coefficients) { // highest first
  Value r = cf(coefficients.front());
  for (double c : coefficients.drop_front())
    r = fadd(fmul(r, x), cf(c));
  return r;
}
/// tanh: an odd Taylor polynomial below |x| = 0.3 (no cancellation),
/// 1 - 2 / (e^2|x| + 1) above.
Value RegionElements::tanh(Value x) {
  Value a = fabs(x);
  Value x2 = fmul(x, x);
  Value small = fmul(x, poly(x2, {62.0 / 2835, -17.0 / 315, 2.0 / 15,
                                  -1.0 / 3, 1.0}));
  Value large = fsub(cf(1.0), fmul(cf(2.0), rcp(fadd(exp(fmul(a, cf(2.0))),
                                                      cf(1.0)))));
  return select(lt(a, cf(0.3)), small, copySign(large, x));
}
/// erf: Taylor below |x| = 0.5, Abramowitz-Stegun 7.1.26 above.
Value RegionElements::erf(Value x) {
  Value a = fabs(x);
  Value x2 = fmul(x, x);
  Value small = fmul(
      fmul(x, cf(2.0 / std::sqrt(M_PI))),
      poly(x2, {1.0 / 216, -1.0 / 42, 1.0 / 10, -1.0 / 3, 1.0}));
  Value t = rcp(fadd(cf(1.0), fmul(cf(0.3275911), a)));
  Value p = fmul(t, poly(t, {1.061405429, -1.453152027, 1.421413741,
                             -0.284496736, 0.254829592}));
  Value large = fsub(cf(1.0), fmul(p, exp(fsub(cf(0.0), x2))));
  return select(lt(a, cf(0.5)), small, copySign(large, x));
}

/// One element of `op` from its operands' elements.
Value RegionElements::emitElementwise(Operation *op, ArrayRef<Value> x) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) { return fadd(x[0], x[1]); })
      .Case([&](SubOp) { return fsub(x[0], x[1]); })
      .Case([&](MulOp) { return fmul(x[0], x[1]); })
      .Case([&](DivOp) { return fdiv(x[0], x[1]); })
      .Case([&](MaxOp) {
        return arith::MaximumFOp::create(b, loc, x[0], x[1]).getResult();
      })
      .Case([&](MinOp) {
        return arith::MinimumFOp::create(b, loc, x[0], x[1]).getResult();
      })
      .Case([&](NegOp) { return arith::NegFOp::create(b, loc, x[0]).getResult(); })
      .Case([&](AbsOp) { return fabs(x[0]); })
      .Case([&](ExpOp) { return exp(x[0]); })
      .Case([&](LogOp) { return fmul(lg2(x[0]), cf(kLn2)); })
      .Case([&](TanhOp t) {
        // MUFU's tanh: max relative error 2^-10.99, under bf16's 2^-9.
        // (llvm.tanh with afn is what NVPTX selects tanh.approx.f32 for.)
        if (roundedToHalf.contains(t.getResult()))
          return LLVM::TanhOp::create(b, loc, f32, x[0],
                                      LLVM::FastmathFlags::afn)
              .getResult();
        return tanh(x[0]);
      })
      .Case([&](ErfOp) { return erf(x[0]); })
      .Case([&](SqrtOp) { return intrinsic("llvm.nvvm.sqrt.rn.f", x[0]); })
      .Case([&](RsqrtOp) { return intrinsic("llvm.nvvm.rsqrt.approx.f", x[0]); })
      .Case([&](ReluOp) {
        return arith::MaximumFOp::create(b, loc, x[0], cf(0.0)).getResult();
      })
      .Case([&](SigmoidOp) {
        return rcp(fadd(cf(1.0), exp(arith::NegFOp::create(b, loc, x[0]))));
      })
      .Case([&](RoundTf32Op) { return RoundTf32Op::buildScalar(b, loc, x[0]); })
      .Case([&](SelectOp) { return select(x[0], x[1], x[2]); })
      .Case([&](CompareOp c) {
        using P = arith::CmpFPredicate;
        P p = P::OEQ;
        switch (c.getDirection()) {
        case CompareDirection::EQ: p = P::OEQ; break;
        case CompareDirection::NE: p = P::UNE; break;
        case CompareDirection::LT: p = P::OLT; break;
        case CompareDirection::LE: p = P::OLE; break;
        case CompareDirection::GT: p = P::OGT; break;
        case CompareDirection::GE: p = P::OGE; break;
        }
        if (x[0].getType().isInteger(1)) {
          using I = arith::CmpIPredicate;
          I q = c.getDirection() == CompareDirection::NE ? I::ne : I::eq;
          return arith::CmpIOp::create(b, loc, q, x[0], x[1]).getResult();
        }
        return arith::CmpFOp::create(b, loc, p, x[0], x[1]).getResult();
      })
      .Case([&](CastOp c) {
        Type to = cast<RankedTensorType>(c.getType()).getElementType();
        Value v = x[0];
        if (v.getType().isInteger(1)) {
          if (to.isInteger(1))
            return v;
          return select(v, cf(1.0), cf(0.0));
        }
        if (to.isInteger(1))
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                       cf(0.0))
              .getResult();
        if (to.isF32())
          return v;
        // Rounds as the cast does, then computes on in f32.
        Type narrowType = storageType(to, b.getContext());
        Value rounded = arith::TruncFOp::create(b, loc, narrowType, v);
        return arith::ExtFOp::create(b, loc, f32, rounded).getResult();
      })
      .Default([](Operation *) -> Value {
        llvm_unreachable("checked by analyzeFusedRows");
      });
}

/// Scalars and row values of `level`: computed once per row, before the
/// sweeps that use them.
void RegionElements::emitKnown(int64_t level, bool scalars) {
  for (BlockArgument arg : region.getArguments()) {
    auto kind = plan.kind.find(arg);
    if (kind == plan.kind.end()) // a GEMM epilogue's matmul operand
      continue;
    RowKind k = kind->second;
    if (scalars && k == RowKind::Scalar && !known.count(arg))
      known[arg] = loadScalar(arg, c64(0));
    if (!scalars && k == RowKind::Row && level == 0 && !known.count(arg))
      known[arg] = loadScalar(arg, wide(row));
  }
  for (Operation &op : region.without_terminator()) {
    Value result = op.getResult(0);
    auto kind = plan.kind.find(result);
    if (kind == plan.kind.end())
      continue;
    RowKind k = kind->second;
    bool wanted = scalars ? k == RowKind::Scalar
                          : k == RowKind::Row &&
                                plan.level.lookup(result) == level &&
                                !isLastDimReduction(&op);
    if (!wanted || known.count(result))
      continue;
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto value = cast<DenseElementsAttr>(constant.getValue());
      known[result] =
          isBool(result)
              ? arith::ConstantIntOp::create(b, loc,
                                             value.getSplatValue<bool>(), 1)
                    .getResult()
              : cf(value.getSplatValue<APFloat>().convertToDouble());
      continue;
    }
    if (isa<BroadcastInDimOp, ReshapeOp>(op)) {
      known[result] = known.lookup(op.getOperand(0));
      continue;
    }
    SmallVector<Value> x;
    for (Value v : op.getOperands())
      x.push_back(known.lookup(v));
    known[result] = emitElementwise(&op, x);
  }
}

/// Row values are per row: rebuilt in each (loop) block that has a row.
void RegionElements::forgetRowValues() {
  for (auto it = known.begin(); it != known.end();) {
    auto next = std::next(it);
    if (plan.kind.lookup(it->first) == RowKind::Row)
      known.erase(it);
    it = next;
  }
}

/// This chunk's `width` elements of `v` (scalars and row values
/// repeated).
SmallVector<Value> RegionElements::elements(Value v) {
  auto it = chunk.find(v);
  if (it != chunk.end())
    return it->second;
  SmallVector<Value> out;
  RowKind k = plan.kind.lookup(v);
  if (k == RowKind::Scalar || k == RowKind::Row) {
    out.assign(width, known.lookup(v));
  } else if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto cached = rowInputs.find({arg, chunkIndex});
    if (cached != rowInputs.end()) {
      out = cached->second;
    } else {
      Value index = wide(column);
      if (k == RowKind::Element)
        index = add(mul(wide(row), c64(plan.columns)), index);
      out = loadVector(arg, index);
      if (k == RowKind::Element && chunkIndex >= 0)
        rowInputs[{arg, chunkIndex}] = out;
    }
  } else {
    Operation *op = v.getDefiningOp();
    if (isa<BroadcastInDimOp, ReshapeOp>(op)) {
      out = elements(op->getOperand(0));
    } else {
      SmallVector<SmallVector<Value>> operands;
      for (Value operand : op->getOperands())
        operands.emplace_back(elements(operand));
      for (int64_t i = 0; i < width; ++i) {
        SmallVector<Value> x;
        for (auto &o : operands)
          x.push_back(o[i]);
        out.push_back(emitElementwise(op, x));
      }
    }
  }
  chunk[v] = out;
  return out;
}

