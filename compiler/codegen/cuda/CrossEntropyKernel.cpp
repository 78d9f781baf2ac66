//===- CrossEntropyKernel.cpp - softmax cross-entropy row kernels ---------===//
//
// See CrossEntropyKernel.h. All exponentials are base 2 on x log2(e).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/CrossEntropyKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

constexpr double kLog2e = 1.4426950408889634, kLn2 = 0.69314718055994531;

std::string CrossEntropySpec::kernelName() const {
  StringRef element = elementBytes == 4 ? "f32" : f16 ? "f16" : "bf16";
  if (fused)
    return llvm::formatv(
               "nova_cross_entropy_fused_{0}_i{1}_t{2}_v{3}_u{4}{5}{6}{7}",
               element, 8 * targetBytes, threads, vector, unroll,
               minCtasPerSm ? "_o" + std::to_string(minCtasPerSm)
                            : std::string(),
               roundTf32 ? "_tf32" : "", inPlace ? "_inplace" : "")
        .str();
  return llvm::formatv("nova_cross_entropy_{0}_{1}_i{2}_t{3}_v{4}_u{5}{6}{7}",
                       backward ? "bwd" : "fwd", element, 8 * targetBytes,
                       threads, vector, unroll, roundTf32 ? "_tf32" : "",
                       inPlace ? "_inplace" : "")
      .str();
}

FailureOr<CrossEntropySpec> cuda::crossEntropySpec(LoweringConfigAttr config,
                                                   bool backward, bool fused,
                                                   Type logits, Type target,
                                                   int64_t classes,
                                                   std::string &why) {
  if (config.getKernel() != "cross_entropy_rows") {
    why = "kernel family is not cross_entropy_rows";
    return failure();
  }
  CrossEntropySpec spec;
  spec.backward = backward;
  spec.fused = fused;
  spec.minCtasPerSm = config.getMinCtasPerSm();
  if (!logits.isF32() && !logits.isBF16() && !logits.isF16()) {
    why = "logits are not f32, bf16 or f16";
    return failure();
  }
  spec.elementBytes = logits.getIntOrFloatBitWidth() / 8;
  spec.f16 = logits.isF16();
  if (!target.isInteger(64) && !target.isInteger(32)) {
    why = "targets are not i64 or i32";
    return failure();
  }
  spec.targetBytes = target.getIntOrFloatBitWidth() / 8;
  ArrayRef<int64_t> tile = config.getTileSizes();
  ArrayRef<int64_t> warps = config.getWarpLayout();
  if (tile.size() != 3 || tile[0] != 1 || tile[2] != 1 || warps.size() != 2) {
    why = "expected a [1, vector, 1] tile and [warps, 1] warp layout";
    return failure();
  }
  spec.vector = tile[1];
  spec.threads = 32 * warps[0];
  spec.unroll = config.getPipelineStages();
  if (spec.vector < 1 || spec.vector * spec.elementBytes > 16 ||
      classes % spec.vector || spec.threads < 32 || spec.threads > 1024 ||
      spec.unroll < 1 || classes >= (int64_t(1) << 31)) {
    why = "vector, threads or unroll out of the kernel's range";
    return failure();
  }
  return spec;
}

namespace {

struct RowKernel : KernelBuilder {
  const CrossEntropySpec &spec;
  Type element, vectorType;
  Value classes, ignore;    // i32
  Value row, tid, rowBase;     // rowBase: i64 index of the row's first logit

  RowKernel(OpBuilder &b, Location loc, const CrossEntropySpec &spec)
      : KernelBuilder(b, loc), spec(spec) {
    element = spec.elementBytes == 4 ? Type(f32)
              : spec.f16             ? Type(b.getF16Type())
                                     : Type(b.getBF16Type());
    vectorType = VectorType::get({spec.vector}, element);
  }

  Value readOnly(Type type, Value address, unsigned alignment) {
    return LLVM::LoadOp::create(b, loc, type, address, alignment,
                                /*isVolatile=*/false, /*isNonTemporal=*/false,
                                /*isInvariant=*/true);
  }
  Value at(Type type, Value base, Value index) {
    return LLVM::GEPOp::create(b, loc, global, type, base, ValueRange{index});
  }
  /// This row's target as i64, and whether it is not ignore_index.
  std::pair<Value, Value> readTarget(Value targets) {
    Type type = b.getIntegerType(8 * spec.targetBytes);
    Value t = readOnly(type, at(type, targets, wide(row)), spec.targetBytes);
    if (spec.targetBytes == 4)
      t = arith::ExtSIOp::create(b, loc, i64, t);
    Value valid = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, t,
        arith::ExtSIOp::create(b, loc, i64, ignore));
    return {t, valid};
  }
  /// A load of logits. Logits the kernel overwrites are not read as
  /// invariant (ld.global.nc is for memory no thread writes while the
  /// kernel runs).
  Value loadLogits(Type type, Value address, unsigned alignment) {
    return spec.inPlace ? LLVM::LoadOp::create(b, loc, type, address, alignment)
                              .getResult()
                        : readOnly(type, address, alignment);
  }
  /// The `vector` logits from column `column` (i32), as f32 times log2(e).
  SmallVector<Value> loadScaled(Value logits, Value column) {
    Value v =
        loadLogits(vectorType, at(element, logits, add(rowBase, wide(column))),
                   spec.vector * spec.elementBytes);
    SmallVector<Value> x;
    for (int64_t i = 0; i < spec.vector; ++i) {
      Value e = vector::ExtractOp::create(b, loc, v, i);
      if (!element.isF32())
        e = arith::ExtFOp::create(b, loc, f32, e);
      x.push_back(fmul(e, cf(kLog2e)));
    }
    return x;
  }

  /// Visits every vector of the row this thread owns: `unroll` loads per
  /// step while whole steps fit, then one at a time. `visit(columns)` gets
  /// the first columns of a batch of vectors (loaded together) and returns
  /// the new carried values.
  template <typename Fn>
  SmallVector<Value> forEachVector(ValueRange init, Fn &&visit) {
    int64_t stride = spec.threads * spec.vector;
    Value first = mul(tid, c32(spec.vector));
    Value wholeSteps = div(classes, c32(stride * spec.unroll));
    ValueRange carried = loop(
        c32(0), wholeSteps, c32(1), init,
        [&](Value step, ValueRange st) -> SmallVector<Value> {
          Value base = add(mul(step, c32(stride * spec.unroll)), first);
          SmallVector<Value> columns;
          for (int64_t u = 0; u < spec.unroll; ++u)
            columns.push_back(add(base, c32(u * stride)));
          return visit(columns, st);
        });
    Value rest = add(mul(wholeSteps, c32(stride * spec.unroll)), first);
    ValueRange end = loop(rest, classes, c32(stride), carried,
                          [&](Value column, ValueRange st) {
                            return visit(SmallVector<Value>{column}, st);
                          });
    return SmallVector<Value>(end.begin(), end.end());
  }

  /// Merges two online (max, sum) pairs.
  std::pair<Value, Value> merge(Value m1, Value s1, Value m2, Value s2) {
    Value m = fmax(m1, m2);
    // Both empty (-inf): subtract 0, not -inf.
    Value base = select(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                              m, cf(-INFINITY)),
                        cf(0.0), m);
    return {m, fadd(fmul(s1, ex2(fsub(m1, base))),
                    fmul(s2, ex2(fsub(m2, base))))};
  }
  std::pair<Value, Value> warpMerge(Value m, Value s) {
    for (int64_t offset : {16, 8, 4, 2, 1}) {
      auto shuffle = [&](Value x) {
        return NVVM::ShflOp::create(b, loc, f32, c32(-1), x, c32(offset),
                                    c32(0x1f), NVVM::ShflKind::bfly,
                                    UnitAttr())
            .getResult();
      };
      std::tie(m, s) = merge(m, s, shuffle(m), shuffle(s));
    }
    return {m, s};
  }

  /// This thread's online (max, sum of 2^(x - max)) over its vectors of
  /// the row (x in base 2).
  std::pair<Value, Value> onlineMaxSum(Value logits) {
    SmallVector<Value> end =
        forEachVector({cf(-INFINITY), cf(0.0)},
                      [&](ArrayRef<Value> columns, ValueRange st) {
                        SmallVector<SmallVector<Value>> batch;
                        for (Value column : columns)
                          batch.push_back(loadScaled(logits, column));
                        Value m = st[0], s = st[1];
                        for (ArrayRef<Value> x : batch) {
                          Value local = x[0];
                          for (Value e : x.drop_front())
                            local = fmax(local, e);
                          Value next = fmax(m, local);
                          s = fmul(s, ex2(fsub(m, next)));
                          for (Value e : x)
                            s = fadd(s, ex2(fsub(e, next)));
                          m = next;
                        }
                        return SmallVector<Value>{m, s};
                      });
    return {end[0], end[1]};
  }

  void forward(Block &entry, Value smem) {
    Value logits = entry.getArgument(0), targets = entry.getArgument(1),
          loss = entry.getArgument(2), lse = entry.getArgument(3);
    auto [m, s] = onlineMaxSum(logits);
    blockMerge(m, s, smem, [&](Value rowMax, Value rowSum) {
      ifThen(eq(lane(), 0), [&] {
        // Natural-log lse; the target logit read once, in range.
        Value l = fmul(fadd(rowMax, lg2(rowSum)), cf(kLn2));
        LLVM::StoreOp::create(b, loc, l, at(f32, lse, wide(row)), 4);
        Value t, valid;
        std::tie(t, valid) = readTarget(targets);
        Value value = select(valid, fsub(l, targetLogit(logits, t)), cf(0.0));
        LLVM::StoreOp::create(b, loc, value, at(f32, loss, wide(row)), 4);
      });
    });
  }

  Value lane() { return rem(tid, c32(32)); }

  /// The row's logit at class `t` (i64; column 0 where out of range) in f32.
  Value targetLogit(Value logits, Value t) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t,
                                          wide(classes));
    Value x = loadLogits(
        element, at(element, logits, add(rowBase, select(inRange, t, c64(0)))),
        spec.elementBytes);
    return element.isF32() ? x : arith::ExtFOp::create(b, loc, f32, x);
  }

  /// Merges every thread's (max, sum) over the CTA: over each warp by
  /// shuffles, then warp 0 over the warps' pairs in shared memory, where
  /// `finish(max, sum)` runs (every lane of warp 0 holds the row's pair).
  template <typename Fn>
  void blockMerge(Value m, Value s, Value smem, Fn &&finish) {
    std::tie(m, s) = warpMerge(m, s);
    // Across warps through shared memory: [warps] maxima, then sums.
    int64_t warps = spec.threads / 32;
    Value warp = div(tid, c32(32)), lane = this->lane();
    Value maxAt = byteOffset(shared, smem, mul(warp, c32(4)));
    Value sumAt = byteOffset(shared, smem, add(c32(4 * warps), mul(warp, c32(4))));
    ifThen(eq(lane, 0), [&] {
      LLVM::StoreOp::create(b, loc, m, maxAt, 4);
      LLVM::StoreOp::create(b, loc, s, sumAt, 4);
    });
    gpu::BarrierOp::create(b, loc);
    ifThen(eq(warp, 0), [&] {
      Value has = ult(lane, c32(warps));
      Value laneMax = byteOffset(shared, smem, mul(lane, c32(4)));
      Value laneSum =
          byteOffset(shared, smem, add(c32(4 * warps), mul(lane, c32(4))));
      auto branch = scf::IfOp::create(b, loc, TypeRange{f32, f32}, has, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        scf::YieldOp::create(b, loc,
                             ValueRange{LLVM::LoadOp::create(b, loc, f32, laneMax, 4),
                                        LLVM::LoadOp::create(b, loc, f32, laneSum, 4)});
        b.setInsertionPointToStart(branch.elseBlock());
        scf::YieldOp::create(b, loc, ValueRange{cf(-INFINITY), cf(0.0)});
      }
      Value rowMax, rowSum;
      std::tie(rowMax, rowSum) =
          warpMerge(branch.getResult(0), branch.getResult(1));
      finish(rowMax, rowSum);
    });
  }

  /// Parameters: logits, targets, grad_loss, grad, loss, lse; in place,
  /// without the logits (the gradient overwrites them). The forward's pass
  /// over the row, then the backward's: its second read of the row comes
  /// from L2 (the configurator keeps the rows resident at once within it).
  void fused(Block &entry, Value smem) {
    unsigned first = spec.inPlace ? 0 : 1;
    Value targets = entry.getArgument(first),
          gradLoss = entry.getArgument(first + 1),
          grad = entry.getArgument(first + 2),
          loss = entry.getArgument(first + 3),
          lse = entry.getArgument(first + 4);
    Value logits = spec.inPlace ? grad : entry.getArgument(0);
    Value t, valid;
    std::tie(t, valid) = readTarget(targets);
    Value g =
        select(valid, readOnly(f32, at(f32, gradLoss, wide(row)), 4), cf(0.0));
    // Read before the barriers: in place, no thread writes the row before
    // every thread is past them.
    Value xt = targetLogit(logits, t);
    auto [m, s] = onlineMaxSum(logits);
    // The row's lse (base 2) for every thread, after the warps' pairs.
    Value lseAt = byteOffset(shared, smem, c32(8 * (spec.threads / 32)));
    blockMerge(m, s, smem, [&](Value rowMax, Value rowSum) {
      ifThen(eq(lane(), 0), [&] {
        Value l2 = fadd(rowMax, lg2(rowSum));
        LLVM::StoreOp::create(b, loc, l2, lseAt, 4);
        Value l = fmul(l2, cf(kLn2));
        LLVM::StoreOp::create(b, loc, l, at(f32, lse, wide(row)), 4);
        LLVM::StoreOp::create(b, loc, select(valid, fsub(l, xt), cf(0.0)),
                              at(f32, loss, wide(row)), 4);
      });
    });
    gpu::BarrierOp::create(b, loc);
    writeGradient(logits, grad, g, t,
                  LLVM::LoadOp::create(b, loc, f32, lseAt, 4));
  }

  /// The row's gradient from its logits, g, the target and the lse (base 2).
  void writeGradient(Value logits, Value grad, Value g, Value t, Value lse2) {
    forEachVector({}, [&](ArrayRef<Value> columns, ValueRange) {
      SmallVector<SmallVector<Value>> batch;
      for (Value column : columns)
        batch.push_back(loadScaled(logits, column));
      for (auto [column, x] : llvm::zip(columns, batch)) {
        SmallVector<Value> out;
        for (auto [i, e] : llvm::enumerate(x))
          out.push_back(gradient(g, e, lse2, t, add(column, c32(int64_t(i)))));
        storeVector(grad, column, out);
      }
      return SmallVector<Value>{};
    });
  }

  /// One logit's gradient g (2^(x - lse) - [column == t]) in the logits'
  /// type (x and lse base 2; f32 rounded to TF32 where asked).
  Value gradient(Value g, Value x, Value lse2, Value t, Value column) {
    Value isTarget =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::ExtUIOp::create(b, loc, i64, column), t);
    Value d =
        fmul(g, fsub(ex2(fsub(x, lse2)), select(isTarget, cf(1.0), cf(0.0))));
    if (!element.isF32())
      return arith::TruncFOp::create(b, loc, element, d);
    return spec.roundTf32 ? RoundTf32Op::buildScalar(b, loc, d) : d;
  }

  void storeVector(Value base, Value column, ArrayRef<Value> values) {
    Value v = vector::FromElementsOp::create(b, loc, vectorType, values);
    LLVM::StoreOp::create(b, loc, v,
                          at(element, base, add(rowBase, wide(column))),
                          spec.vector * spec.elementBytes);
  }

  /// Parameters: grad_loss, logits, targets, lse, grad; in place,
  /// grad_loss, targets, lse, logits (overwritten by the gradient).
  void backward(Block &entry) {
    Value gradLoss = entry.getArgument(0);
    Value logits, targets, lse, grad;
    if (spec.inPlace) {
      targets = entry.getArgument(1), lse = entry.getArgument(2);
      logits = grad = entry.getArgument(3);
    } else {
      logits = entry.getArgument(1), targets = entry.getArgument(2);
      lse = entry.getArgument(3), grad = entry.getArgument(4);
    }
    Value t, valid;
    std::tie(t, valid) = readTarget(targets);
    Value g = select(valid, readOnly(f32, at(f32, gradLoss, wide(row)), 4),
                     cf(0.0));
    writeGradient(logits, grad, g, t,
                  fmul(readOnly(f32, at(f32, lse, wide(row)), 4), cf(kLog2e)));
  }
};

} // namespace

OwningOpRef<ModuleOp>
cuda::buildCrossEntropyKernel(MLIRContext *context,
                              const CrossEntropySpec &spec) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, spec.kernelName(), "sm_80", "+ptx70");
  LLVM::GlobalOp smemGlobal;
  // The warps' (max, sum) pairs, fused then the row's lse.
  if (!spec.backward)
    smemGlobal = LLVM::GlobalOp::create(
        b, loc,
        LLVM::LLVMArrayType::get(b.getF32Type(),
                                 2 * spec.threads / 32 + (spec.fused ? 1 : 0)),
        /*isConstant=*/false, LLVM::Linkage::Internal, "nova_row_partials",
        Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  int64_t pointers = spec.fused                       ? (spec.inPlace ? 5 : 6)
                     : spec.backward && !spec.inPlace ? 5
                                                      : 4;
  SmallVector<Type> params(pointers, LLVM::LLVMPointerType::get(context, 1));
  params.append(2, b.getI32Type());
  gpu::GPUFuncOp func =
      createKernelFunc(b, spec.kernelName(), params, spec.threads);
  if (spec.minCtasPerSm)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(spec.minCtasPerSm));
  Block &entry = func.getBody().front();
  RowKernel k(b, loc, spec);
  k.classes = entry.getArgument(pointers);
  k.ignore = entry.getArgument(pointers + 1);
  k.tid = k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  k.row = k.id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  k.rowBase = k.mul(k.wide(k.row), k.wide(k.classes));
  if (spec.backward)
    k.backward(entry);
  else if (spec.fused)
    k.fused(entry, LLVM::AddressOfOp::create(b, loc, smemGlobal));
  else
    k.forward(entry, LLVM::AddressOfOp::create(b, loc, smemGlobal));
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::crossEntropyPtx(const CrossEntropySpec &spec,
                                  std::string &error) {
  return cachedKernelPtx(
      spec.kernelName(),
      [&](MLIRContext *context) { return buildCrossEntropyKernel(context, spec); },
      error);
}
