//===- ColumnSumsKernel.cpp - column sums of partials, one launch ---------===//

#include "compiler/codegen/cuda/ColumnSumsKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {
constexpr int64_t kWarps = kColumnSumsThreads / 32;
} // namespace

int64_t ColumnSumsSpec::ctas() const {
  int64_t ctas = 0;
  for (const Column &c : inputs)
    ctas += llvm::divideCeil(c.columns, 32);
  return ctas;
}

FailureOr<ColumnSumsSpec> cuda::analyzeColumnSums(FusedOp op,
                                                  std::string &why) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  ColumnSumsSpec spec;
  spec.inputs.resize(body.getNumArguments());
  SmallVector<bool> seen(body.getNumArguments(), false);
  for (Operation &inner : body.without_terminator()) {
    // A reduction's kind, and whether it reduces dim 0 of a rank-2 value.
    auto over0 = [](auto reduce) {
      return reduce.getDims() == ArrayRef<int64_t>{0} && !reduce.getKeepdim() &&
             cast<RankedTensorType>(reduce.getInput().getType()).getRank() == 2;
    };
    using Kind = ColumnSumsSpec::Kind;
    std::optional<Kind> kind =
        llvm::TypeSwitch<Operation *, std::optional<Kind>>(&inner)
            .Case([&](ReduceSumOp r) {
              return over0(r) ? std::optional(Kind::Sum) : std::nullopt;
            })
            .Case([&](ReduceMeanOp r) {
              return over0(r) ? std::optional(Kind::Mean) : std::nullopt;
            })
            .Case([&](ReduceMaxOp r) {
              return over0(r) ? std::optional(Kind::Max) : std::nullopt;
            })
            .Default([](Operation *) { return std::nullopt; });
    Value input = inner.getOperand(0);
    auto arg = dyn_cast<BlockArgument>(input);
    auto type = cast<RankedTensorType>(input.getType());
    if (!kind || !arg || seen[arg.getArgNumber()] || !type.hasStaticShape() ||
        !type.getElementType().isF32()) {
      why = "not a reduction over dim 0 of an f32 [G, C] input of its own";
      return failure();
    }
    Value result = inner.getResult(0);
    if (!result.hasOneUse() || !isa<YieldOp>(*result.user_begin())) {
      why = "a column reduction not yielded once";
      return failure();
    }
    seen[arg.getArgNumber()] = true;
    ColumnSumsSpec::Column &c = spec.inputs[arg.getArgNumber()];
    c.rows = type.getDimSize(0);
    c.columns = type.getDimSize(1);
    c.kind = *kind;
    c.result =
        llvm::find(yield.getValues(), result) - yield.getValues().begin();
  }
  if (llvm::is_contained(seen, false) ||
      yield.getNumOperands() != body.getNumArguments()) {
    why = "an input that is not reduced";
    return failure();
  }
  if (spec.inputs.empty()) {
    why = "no inputs";
    return failure();
  }
  std::string shapes;
  for (const ColumnSumsSpec::Column &c : spec.inputs)
    shapes += llvm::formatv("{0}x{1}:{2}:{3};", c.rows, c.columns, int(c.kind),
                            c.result)
                  .str();
  spec.kernelName = llvm::formatv("nova_column_sums_n{0}_{1:x16}",
                                  spec.inputs.size(), llvm::xxh3_64bits(shapes))
                        .str();
  return spec;
}

OwningOpRef<ModuleOp> cuda::buildColumnSumsKernel(MLIRContext *context,
                                                  const ColumnSumsSpec &spec) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, spec.kernelName, "sm_80", "+ptx70");
  // The warps' sums, [warp][33]: a row padded so warp 0's column reads
  // fall in distinct banks.
  auto sums = LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(b.getF32Type(), kWarps * 33),
      /*isConstant=*/false, LLVM::Linkage::Internal, "nova_column_sums",
      Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  KernelBuilder k(b, loc);
  size_t n = spec.inputs.size();
  SmallVector<Type> params(2 * n, k.global);
  Block &entry =
      createKernelFunc(b, spec.kernelName, params, kColumnSumsThreads)
          .getBody()
          .front();
  Value shared = LLVM::AddressOfOp::create(b, loc, sums);
  Value cta = k.id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value tid = k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value warp = k.div(tid, k.c32(32)), lane = k.rem(tid, k.c32(32));
  auto slot = [&](Value w) {
    return LLVM::GEPOp::create(b, loc, k.shared, k.f32, shared,
                               ValueRange{k.add(k.mul(w, k.c32(33)), lane)});
  };
  int64_t first = 0;
  for (auto [i, c] : llvm::enumerate(spec.inputs)) {
    int64_t blocks = llvm::divideCeil(c.columns, 32);
    Value mine = k.andI(k.cmp(arith::CmpIPredicate::uge, cta, k.c32(first)),
                        k.ult(cta, k.c32(first + blocks)));
    k.ifThen(mine, [&] {
      bool isMax = c.kind == ColumnSumsSpec::Kind::Max;
      Value identity = k.cf(isMax ? -INFINITY : 0.0);
      auto combine = [&](Value x, Value y) {
        return isMax ? k.fmax(x, y) : k.fadd(x, y);
      };
      Value column = k.add(k.mul(k.sub(cta, k.c32(first)), k.c32(32)), lane);
      Value valid = k.ult(column, k.c32(c.columns));
      // Loads stay in bounds; rows and columns past the end are left out.
      Value loadColumn = k.min(column, k.c32(c.columns - 1));
      Value src = entry.getArgument(i);
      int64_t stride = 32 * kColumnSumsUnroll;
      ValueRange acc = k.loop(
          warp, k.c32(c.rows), k.c32(stride), ValueRange{identity},
          [&](Value row0, ValueRange carried) -> SmallVector<Value> {
            SmallVector<Value> loaded;
            SmallVector<Value> inRange;
            for (int64_t u = 0; u < kColumnSumsUnroll; ++u) {
              Value row = k.add(row0, k.c32(32 * u));
              inRange.push_back(k.ult(row, k.c32(c.rows)));
              Value at = k.add(k.mul(k.wide(k.min(row, k.c32(c.rows - 1))),
                                     k.c64(c.columns)),
                               k.wide(loadColumn));
              loaded.push_back(LLVM::LoadOp::create(
                  b, loc, k.f32,
                  LLVM::GEPOp::create(b, loc, k.global, k.f32, src,
                                      ValueRange{at}),
                  4, /*isVolatile=*/false, /*isNonTemporal=*/false,
                  /*isInvariant=*/true));
            }
            Value total = carried[0];
            for (int64_t u = 0; u < kColumnSumsUnroll; ++u)
              total = combine(total, k.select(inRange[u], loaded[u], identity));
            return {total};
          });
      LLVM::StoreOp::create(b, loc, acc[0], slot(warp));
      gpu::BarrierOp::create(b, loc);
      k.ifThen(k.andI(k.eq(warp, 0), valid), [&] {
        Value total = LLVM::LoadOp::create(b, loc, k.f32, slot(k.c32(0)));
        for (int64_t w = 1; w < kWarps; ++w)
          total = combine(total,
                          LLVM::LoadOp::create(b, loc, k.f32, slot(k.c32(w))));
        if (c.kind == ColumnSumsSpec::Kind::Mean)
          total = k.fmul(total, k.cf(1.0 / double(c.rows)));
        LLVM::StoreOp::create(
            b, loc, total,
            LLVM::GEPOp::create(b, loc, k.global, k.f32,
                                entry.getArgument(n + c.result),
                                ValueRange{k.wide(column)}),
            4);
      });
    });
    first += blocks;
  }
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::columnSumsPtx(const ColumnSumsSpec &spec,
                                std::string &error) {
  return cachedKernelPtx(
      spec.kernelName,
      [&](MLIRContext *context) {
        return buildColumnSumsKernel(context, spec);
      },
      error);
}
