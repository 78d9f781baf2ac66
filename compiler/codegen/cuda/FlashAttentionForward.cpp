//===- FlashAttentionForward.cpp - sm_90 attention forward ----------------===//
//
// See FlashAttentionKernel.h. Shared memory: 2 x Q [128 rows] | stages x
// (K, V) [blockN rows each; TF32: K and V^T] | P [64 x blockN] per consumer
// | barriers (Q full/empty per Q tile, then full/empty per stage). Every
// [rows, D] tile is stored as column blocks of [rows, 128 B] (64 bf16 or 32
// f32 columns), 128B-swizzled, as TMA writes them; V^T as blocks of [D, 32
// keys].
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FlashAttentionBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {

struct ForwardKernel : AttentionBuilder {
  using AttentionBuilder::AttentionBuilder;
  Value q, k, v, o, lse, scratch, scaleLog2;
  HeadsLayout qLayout, kLayout, vLayout, oLayout;
  Value qBlocks, kBlocks, items;

  int64_t kvOffset() const { return spec.residentBytes(); }
  int64_t pOffset() const {
    return spec.residentBytes() + spec.stages * spec.stageBytes();
  }
  int64_t barrierOffset() const { return pOffset() + spec.scratchTileBytes(); }
  Value qFull(Value buffer) {
    return sharedAt(barrierOffset(), mul(buffer, c32(8)));
  }
  Value qEmpty(Value buffer) {
    return sharedAt(barrierOffset() + 16, mul(buffer, c32(8)));
  }
  Value qTile(Value buffer) {
    return sharedAt(0, mul(buffer, c32(spec.tileBytes(spec.blockM))));
  }
  Value kvFull(Value s) {
    return sharedAt(barrierOffset() + 32, mul(s, c32(8)));
  }
  Value kvEmpty(Value s) {
    return sharedAt(barrierOffset() + 32 + 8 * spec.stages, mul(s, c32(8)));
  }
  /// Item `it`'s Q tile (0, 1) and the parity of its barriers' phase.
  std::pair<Value, Value> qSlot(Value it) { return ringSlot(it, 2); }
  Value kTile(Value s) { return sharedAt(kvOffset(), mul(s, c32(spec.stageBytes()))); }
  Value vTile(Value s) {
    return sharedAt(kvOffset() + spec.tileBytes(spec.blockN),
                    mul(s, c32(spec.stageBytes())));
  }

  /// Work item `w`: query block (the causal diagonal's longest rows first)
  /// and head.
  std::pair<Value, Value> item(Value w) {
    Value qb = sub(sub(qBlocks, c32(1)), div(w, bh));
    return {qb, rem(w, bh)};
  }
  /// Key blocks query block `qb` attends to (TF32 steps half blocks).
  Value keyBlocks(Value qb) {
    if (!spec.causal)
      return kBlocks;
    Value rowsEnd = mul(add(qb, c32(1)), c32(spec.blockM));
    return min(ceilDiv(rowsEnd, spec.blockN), kBlocks);
  }

  void producer(Value tid, Value cta, Value ctas, Value mapQ, Value mapK,
                Value mapV) {
    ifThen(eq(tid, 0), [&] {
      loop(cta, items, ctas, ValueRange{c32(0), c32(0)},
           [&](Value w, ValueRange it) -> SmallVector<Value> {
             auto [qb, head] = item(w);
             auto [buffer, parity] = qSlot(it[1]);
             waitFreed(qEmpty(buffer), parity);
             expectBytes(qFull(buffer), spec.tileBytes(spec.blockM));
             for (int64_t dc = 0; dc < spec.chunks(); ++dc)
               tmaLoad(byteOffset(shared, qTile(buffer),
                                  c32(dc * spec.blockM * 128)),
                       mapQ,
                       headsCoords(c32(spec.blockColumns() * dc),
                                   mul(qb, c32(spec.blockM)), head),
                       qFull(buffer));
             ValueRange end = loop(
                 c32(0), keyBlocks(qb), c32(1), ValueRange{it[0]},
                 [&](Value j, ValueRange kv) -> SmallVector<Value> {
                   auto [stage, parity] = ringSlot(kv[0], spec.stages);
                   waitFreed(kvEmpty(stage), parity);
                   Value full = kvFull(stage);
                   expectBytes(full, spec.stageBytes());
                   Value row = mul(j, c32(spec.blockN));
                   for (int64_t dc = 0; dc < spec.chunks(); ++dc) {
                     int64_t block = dc * spec.blockN * 128;
                     Value column = c32(spec.blockColumns() * dc);
                     tmaLoad(byteOffset(shared, kTile(stage), c32(block)), mapK,
                             headsCoords(column, row, head), full);
                     if (!spec.tf32)
                       tmaLoad(byteOffset(shared, vTile(stage), c32(block)),
                               mapV, headsCoords(column, row, head), full);
                   }
                   // V^T: the block's keys as column blocks of [D, 32].
                   for (int64_t kc = 0; spec.tf32 && kc < spec.blockN / 32; ++kc)
                     tmaLoad(byteOffset(shared, vTile(stage),
                                        c32(kc * spec.headDim * 128)),
                             mapV, {add(row, c32(32 * kc)), c32(0), head},
                             full);
                   return {add(kv[0], c32(1))};
                 });
             return {end[0], add(it[1], c32(1))};
           });
    });
  }

  /// The scaled scores of one block (log2 units), masked past the causal
  /// diagonal and the sequence end when `masked`.
  SmallVector<Value> scores(Value s, Value rowBase, Value colBase, bool masked) {
    int64_t n = spec.blockN;
    SmallVector<Value> x;
    Value minusInf = cf(-std::numeric_limits<double>::infinity());
    for (int64_t r = 0; r < n / 2; ++r) {
      Value value = fmul(get(s, r), scaleLog2);
      if (masked) {
        int64_t i = r / 4, h = r / 2 % 2, e = r % 2;
        Value row = add(rowBase, c32(8 * h));
        Value col = add(colBase, c32(8 * i + e));
        Value out = cmp(arith::CmpIPredicate::uge, col, t);
        if (spec.causal)
          out = orI(out, ugt(col, row));
        value = select(out, minusInf, value);
      }
      x.push_back(value);
    }
    return x;
  }

  void consumer(Value tid, Value cta, Value ctas, Value group) {
    int64_t n = spec.blockN, d = spec.headDim;
    Value thread = sub(tid, mul(group, c32(128)));
    warp = div(thread, c32(32));
    lane = rem(thread, c32(32));
    Value c = sub(group, c32(1));
    Value pTile = sharedAt(pOffset(), mul(c, c32(spec.scoreTileBytes())));
    Value barrierId = group; // 1, 2: named barriers of the warp groups
    Value minusInf = cf(-std::numeric_limits<double>::infinity());
    Value zero = cf(0.0);
    Type sType = accType(n), oType = accType(d);
    int64_t qRow0 = 0; // this consumer's 64 rows: + 64 c in qBase

    loop(cta, items, ctas, ValueRange{c32(0), c32(0)},
         [&](Value w, ValueRange it) -> SmallVector<Value> {
           auto [qb, head] = item(w);
           Value nkv = keyBlocks(qb);
           // The next item's Q loads into the other tile meanwhile.
           auto [buffer, parity] = qSlot(it[1]);
           waitParity(qFull(buffer), parity);
           Value qBase = byteOffset(shared, qTile(buffer), mul(c, c32(64 * 128)));
           Value rowBase = add(add(mul(qb, c32(spec.blockM)), mul(c, c32(64))),
                               add(mul(warp, c32(16)), div(lane, c32(4))));
           SmallVector<Value> init = {zeroAcc(d), minusInf, minusInf, zero,
                                      zero, it[0]};
           ValueRange end = loop(
               c32(0), nkv, c32(1), init,
               [&](Value j, ValueRange st) -> SmallVector<Value> {
                 Value acc = st[0], kvIt = st[5];
                 auto [stage, parity] = ringSlot(kvIt, spec.stages);
                 waitParity(kvFull(stage), parity);
                 // S = Q K^T over D.
                 NVVM::WgmmaFenceAlignedOp::create(b, loc);
                 Value s = LLVM::UndefOp::create(b, loc, sType);
                 for (int64_t ks = 0; ks < d / spec.kStep(); ++ks)
                   s = mma(s, n, kMajor(qBase, spec.blockM, qRow0, ks),
                           kMajor(kTile(stage), n, 0, ks), false, false,
                           ks > 0);
                 NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
                 NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
                 Value last = cmp(arith::CmpIPredicate::eq, j,
                                  sub(nkv, c32(1)));
                 ifThen(last, [&] { arrivePerWarp(qEmpty(buffer)); });
                 // Blocks with keys past the tile's first row (on the
                 // diagonal) or across the sequence end mask.
                 Value colBase = add(mul(j, c32(n)), mul(rem(lane, c32(4)), c32(2)));
                 Value keysEnd = mul(add(j, c32(1)), c32(n));
                 Value edge = ugt(keysEnd, t);
                 Value diagonal = ugt(keysEnd, mul(qb, c32(spec.blockM)));
                 Value needsMask = spec.causal ? orI(diagonal, edge) : edge;
                 auto branch = scf::IfOp::create(b, loc, sType, needsMask,
                                                 /*withElse=*/true);
                 {
                   OpBuilder::InsertionGuard guard(b);
                   b.setInsertionPointToStart(branch.thenBlock());
                   scf::YieldOp::create(
                       b, loc, pack(sType, scores(s, rowBase, colBase, true)));
                   b.setInsertionPointToStart(branch.elseBlock());
                   scf::YieldOp::create(
                       b, loc, pack(sType, scores(s, rowBase, colBase, false)));
                 }
                 SmallVector<Value> x = unpack(branch.getResult(0), n);
                 // Online softmax, rows h = 0, 1 of this thread.
                 SmallVector<Value> mNew(2), alpha(2), sums(2);
                 for (int64_t h = 0; h < 2; ++h) {
                   Value mx = minusInf;
                   for (int64_t r = 0; r < n / 2; ++r)
                     if (r / 2 % 2 == h)
                       mx = fmax(mx, x[r]);
                   mNew[h] = fmax(st[1 + h], quadMax(mx));
                   // A row with nothing unmasked yet subtracts 0, not -inf.
                   Value isEmpty = arith::CmpFOp::create(
                       b, loc, arith::CmpFPredicate::OEQ, mNew[h], minusInf);
                   Value base = select(isEmpty, zero, mNew[h]);
                   alpha[h] = ex2(fsub(st[1 + h], base));
                   sums[h] = fmul(st[3 + h], alpha[h]);
                   for (int64_t r = 0; r < n / 2; ++r)
                     if (r / 2 % 2 == h) {
                       x[r] = ex2(fsub(x[r], base));
                       sums[h] = fadd(sums[h], x[r]);
                     }
                 }
                 // The previous block's P has been read by every warp.
                 namedBarrier(barrierId, 128);
                 storeSwizzled(pTile, x, n,
                               spec.tf32 ? f32 : Type(b.getBF16Type()),
                               spec.tf32);
                 fenceAsyncShared();
                 namedBarrier(barrierId, 128);
                 SmallVector<Value> ov = unpack(acc, d);
                 for (int64_t r = 0; r < d / 2; ++r)
                   ov[r] = fmul(ov[r], alpha[r / 2 % 2]);
                 acc = pack(oType, ov);
                 // O += P V over the block's keys.
                 NVVM::WgmmaFenceAlignedOp::create(b, loc);
                 for (int64_t ks = 0; ks < n / spec.kStep(); ++ks)
                   acc = mma(acc, d, kMajor(pTile, 64, 0, ks),
                             spec.tf32 ? kMajor(vTile(stage), d, 0, ks)
                                       : mnMajor(vTile(stage), n, 0, ks),
                             false, !spec.tf32, true);
                 NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
                 NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
                 arrivePerWarp(kvEmpty(stage));
                 return {acc, mNew[0], mNew[1], sums[0], sums[1],
                         add(kvIt, c32(1))};
               });
           epilogue(end, rowBase, head);
           return {end[5], add(it[1], c32(1))};
         });
  }

  /// O / l (bf16, or f32 for TF32) and lse = (m + log2 l) ln 2 for the
  /// rows below T.
  void epilogue(ValueRange end, Value rowBase, Value head) {
    int64_t d = spec.headDim;
    Type element = spec.tf32 ? f32 : Type(b.getBF16Type());
    SmallVector<Value> ov = unpack(end[0], d);
    Value headRow = mul(head, t);
    for (int64_t h = 0; h < 2; ++h) {
      Value row = add(rowBase, c32(8 * h));
      Value l = quadSum(end[3 + h]);
      Value inv = NVVM::RcpApproxFtzF32Op::create(b, loc, f32, l);
      ifThen(ult(row, t), [&] {
        Value rowOffset = rowIndex(oLayout, head, row);
        for (int64_t i = 0; i < d / 8; ++i) {
          int64_t reg = 4 * i + 2 * h;
          Value col = fragmentCol(i, 0);
          Value x = fmul(ov[reg], inv), y = fmul(ov[reg + 1], inv);
          Value pair = spec.tf32 ? vector::FromElementsOp::create(
                                       b, loc, VectorType::get({2}, f32),
                                       ValueRange{x, y})
                                       .getResult()
                                 : bf16Pair(x, y);
          Value address = LLVM::GEPOp::create(b, loc, global, element, o,
                                              ValueRange{add(rowOffset, wide(col))});
          LLVM::StoreOp::create(b, loc, pair, address, 2 * spec.elementBytes());
        }
        ifThen(eq(rem(lane, c32(4)), 0), [&] {
          Value lseValue =
              fmul(fadd(end[1 + h], lg2(l)), cf(0.69314718055994531));
          Value address = LLVM::GEPOp::create(b, loc, global, f32, lse,
                                              ValueRange{wide(add(headRow, row))});
          LLVM::StoreOp::create(b, loc, lseValue, address, 4);
        });
      });
    }
  }

  void body(gpu::GPUFuncOp func, LLVM::GlobalOp smemGlobal) {
    Block &entry = func.getBody().front();
    q = entry.getArgument(0);
    k = entry.getArgument(1);
    v = entry.getArgument(2);
    o = entry.getArgument(3);
    lse = entry.getArgument(4);
    scratch = entry.getArgument(5);
    // softmax(scale S) = 2^(scale log2(e) S - max) / sum.
    scaleLog2 = fmul(readShape(entry, 6), cf(1.4426950408889634));
    qLayout = layoutArgument(entry, 10);
    kLayout = layoutArgument(entry, 13);
    vLayout = layoutArgument(entry, 16);
    oLayout = layoutArgument(entry, 19);
    smem = LLVM::AddressOfOp::create(b, loc, smemGlobal);

    Value tid = id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value cta = id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value ctas = id(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    qBlocks = ceilDiv(t, spec.blockM);
    kBlocks = ceilDiv(t, spec.blockN);
    items = mul(qBlocks, bh);

    Value mapQ = byteOffset(global, scratch,
                            mul(cta, c32(kAttentionDescriptorBytesPerCta)));
    Value mapK = byteOffset(global, mapQ, c32(kTensorMapBytes));
    Value mapV = byteOffset(global, mapQ, c32(2 * kTensorMapBytes));
    ifThen(eq(tid, 0), [&] {
      int64_t bytes = spec.elementBytes();
      int type = spec.tf32 ? kTensorMapF32 : kTensorMapBf16;
      encodeHeadsMap(mapQ, q, qLayout, spec.blockM, bytes, type);
      encodeHeadsMap(mapK, k, kLayout, spec.blockN, bytes, type);
      if (spec.tf32)
        encodeTransposedMap(mapV, v, vLayout, spec.headDim);
      else
        encodeHeadsMap(mapV, v, vLayout, spec.blockN, bytes, type);
      publishTensorMaps({mapQ, mapK, mapV});
      for (int64_t q = 0; q < 2; ++q) {
        NVVM::MBarrierInitOp::create(b, loc, qFull(c32(q)), c32(1), Value());
        NVVM::MBarrierInitOp::create(b, loc, qEmpty(c32(q)),
                                     c32(4 * FlashAttentionSpec::kConsumers),
                                     Value());
      }
      for (int64_t s = 0; s < spec.stages; ++s) {
        NVVM::MBarrierInitOp::create(b, loc, kvFull(c32(s)), c32(1), Value());
        NVVM::MBarrierInitOp::create(b, loc, kvEmpty(c32(s)),
                                     c32(4 * FlashAttentionSpec::kConsumers),
                                     Value());
      }
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    gpu::BarrierOp::create(b, loc);

    splitRoles(
        tid, /*moveRegisters=*/true, kProducerRegisters, kConsumerRegisters,
        [&] {
          producer(tid, cta, ctas, toGeneric(mapQ), toGeneric(mapK),
                   toGeneric(mapV));
        },
        [&](Value group) { consumer(tid, cta, ctas, group); });
    gpu::ReturnOp::create(b, loc);
  }
};

} // namespace

OwningOpRef<ModuleOp>
cuda::buildFlashAttentionForward(MLIRContext *context,
                                 const FlashAttentionSpec &spec) {
  OpBuilder b(context);
  // sm_90a: wgmma; PTX 8.3: tensormap.replace.
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, spec.kernelName(), "sm_90a", "+ptx83");
  LLVM::GlobalOp smem;
  gpu::GPUFuncOp func = AttentionBuilder::createKernel(b, spec, 6, 4 + 4 * 3, smem);
  ForwardKernel(b, b.getUnknownLoc(), spec).body(func, smem);
  return module;
}
