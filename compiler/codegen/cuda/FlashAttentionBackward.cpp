//===- FlashAttentionBackward.cpp - sm_90 attention backward --------------===//
//
// See FlashAttentionKernel.h. Shared memory: K, V [128 keys each] (TF32: and
// K^T) | stages x (Q, dO) [blockN queries each] (TF32: and Q^T, dO^T) | per
// consumer P^T and dS^T [64 keys x blockN queries] (TF32: and dS) | per
// consumer dQ part [blockN queries x D] f32 | barriers (K/V full/empty,
// then full/empty per stage).
//
// bf16: one smem copy of Q (and dO) serves both of its uses: as the K-major
// B of S^T = K Q^T (rows = queries, K = D) and as the MN-major B of dK +=
// dS^T Q (K = queries down the rows, N = D along them). dS^T likewise is
// the K-major A of dK and the MN-major (transposed) A of dQ = dS K. TF32
// has no MN-major operands: see FlashAttentionKernel.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FlashAttentionBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <tuple>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {

struct BackwardKernel : AttentionBuilder {
  using AttentionBuilder::AttentionBuilder;
  Value q, k, v, dout, kt, qt, dot, lse, delta, counter, dqAcc, dk, dv, scratch,
      scale, scaleLog2;
  HeadsLayout qLayout, kLayout, vLayout, doLayout, dqLayout, dkLayout,
      dvLayout, ktLayout, qtLayout, dotLayout;
  Value keyBlocks, queryBlocks, items;

  int64_t keysTile() const { return spec.tileBytes(spec.blockM); }
  int64_t stageOffset() const { return spec.residentBytes(); }
  int64_t scratchOffset() const {
    return stageOffset() + spec.stages * spec.stageBytes();
  }
  int64_t barrierOffset() const {
    return scratchOffset() + spec.scratchTileBytes();
  }
  Value kvFull() { return sharedAt(barrierOffset()); }
  Value kvEmpty() { return sharedAt(barrierOffset() + 8); }
  Value full(Value s) { return sharedAt(barrierOffset() + 16, mul(s, c32(8))); }
  Value empty(Value s) {
    return sharedAt(barrierOffset() + 16 + 8 * spec.stages, mul(s, c32(8)));
  }
  Value kTile() { return sharedAt(0); }
  Value vTile() { return sharedAt(keysTile()); }
  /// TF32: K^T [D, 128 keys] as column blocks of [D, 32 keys].
  Value ktTile() { return sharedAt(2 * keysTile()); }
  Value qTile(Value s) {
    return sharedAt(stageOffset(), mul(s, c32(spec.stageBytes())));
  }
  Value doTile(Value s) { return stageTile(s, 1); }
  /// TF32: Q^T and dO^T [D, blockN queries].
  Value qtTile(Value s) { return stageTile(s, 2); }
  Value dotTile(Value s) { return stageTile(s, 3); }
  Value stageTile(Value s, int64_t i) {
    return sharedAt(stageOffset() + i * spec.tileBytes(spec.blockN),
                    mul(s, c32(spec.stageBytes())));
  }

  /// The consumers' score tiles: dS^T each (TF32: then P^T and dS).
  int64_t kConsumersTiles() const {
    return FlashAttentionSpec::kConsumers * spec.scoreTiles() *
           spec.scoreTileBytes();
  }

  /// The current item's index, from the producer to the consumers
  /// (headGroup), after the mbarriers.
  Value itemSlot() { return sharedAt(barrierOffset() + 16 + 16 * spec.stages); }

  /// Work item `w`: key block (the causal ones with the most queries
  /// first) and head; with headGroup, in groups of that many heads.
  std::pair<Value, Value> item(Value w) {
    if (spec.headGroup)
      return groupedItem(w, keyBlocks);
    return {div(w, bh), rem(w, bh)};
  }

  /// The first query block that sees key block `kb`.
  Value firstQueryBlock(Value kb) {
    return spec.causal ? div(mul(kb, c32(spec.blockM)), c32(spec.blockN))
                       : c32(0);
  }

  void producer(Value tid, Value cta, Value ctas, Value mapK, Value mapV,
                Value mapQ, Value mapDo, Value mapKt, Value mapQt,
                Value mapDot) {
    // Each item waits for the consumers to free K and V (and, with
    // headGroup, to have read the last item's index), then takes the next
    // from the counter. Past the items, the slot tells the consumers so and
    // K/V's barrier completes with no bytes.
    auto next = [&](ValueRange it, Value w) -> Value {
      waitFreed(kvEmpty(), andI(it[1], c32(1)));
      if (!spec.headGroup)
        return w;
      return fetchItem(counter, items, ctas, itemSlot(), kvFull());
    };
    ifThen(eq(tid, 0), [&] {
      forEachItem(
          cta, ctas, items, next,
          [&](Value w, ValueRange it) -> SmallVector<Value> {
            auto [kb, head] = item(w);
            expectBytes(kvFull(), spec.residentBytes());
            Value keyRow = mul(kb, c32(spec.blockM));
            for (int64_t dc = 0; dc < spec.chunks(); ++dc) {
              int64_t block = dc * spec.blockM * 128;
              Value column = c32(spec.blockColumns() * dc);
              tmaLoad(sharedAt(block), mapK, headsCoords(column, keyRow, head),
                      kvFull());
              tmaLoad(sharedAt(keysTile() + block), mapV,
                      headsCoords(column, keyRow, head), kvFull());
            }
            for (int64_t kc = 0; spec.tf32 && kc < spec.blockM / 32; ++kc)
              tmaLoad(sharedAt(2 * keysTile() + kc * spec.headDim * 128), mapKt,
                      {add(keyRow, c32(32 * kc)), c32(0), head}, kvFull());
            ValueRange end = loop(
                firstQueryBlock(kb), queryBlocks, c32(1), ValueRange{it[0]},
                [&](Value qb, ValueRange st) -> SmallVector<Value> {
                  auto [stage, parity] = ringSlot(st[0], spec.stages);
                  waitFreed(empty(stage), parity);
                  expectBytes(full(stage), spec.stageBytes());
                  Value row = mul(qb, c32(spec.blockN));
                  for (int64_t dc = 0; dc < spec.chunks(); ++dc) {
                    Value block = c32(dc * spec.blockN * 128);
                    Value column = c32(spec.blockColumns() * dc);
                    tmaLoad(byteOffset(shared, qTile(stage), block), mapQ,
                            headsCoords(column, row, head), full(stage));
                    tmaLoad(byteOffset(shared, doTile(stage), block), mapDo,
                            headsCoords(column, row, head), full(stage));
                  }
                  for (int64_t qc = 0; spec.tf32 && qc < spec.blockN / 32;
                       ++qc) {
                    Value block = c32(qc * spec.headDim * 128);
                    SmallVector<Value> at = {add(row, c32(32 * qc)), c32(0),
                                             head};
                    tmaLoad(byteOffset(shared, qtTile(stage), block), mapQt, at,
                            full(stage));
                    tmaLoad(byteOffset(shared, dotTile(stage), block), mapDot,
                            at, full(stage));
                  }
                  return {add(st[0], c32(1))};
                });
            return {end[0], add(it[1], c32(1))};
          });
    });
  }

  /// P^T and dS^T of one block (f32 fragments), zero where masked (a
  /// query before its key, a query or key past T) when `masked`.
  std::pair<SmallVector<Value>, SmallVector<Value>>
  probabilities(Value sT, Value dpT, ArrayRef<Value> lse2, ArrayRef<Value> dlt,
                Value keyBase, Value queryBase, bool masked) {
    int64_t n = spec.blockN;
    SmallVector<Value> p, ds;
    Value zero = cf(0.0);
    for (int64_t r = 0; r < n / 2; ++r) {
      int64_t i = r / 4, h = r / 2 % 2, e = r % 2;
      int64_t col = 2 * i + e; // index into this thread's columns
      Value value = ex2(fsub(fmul(get(sT, r), scaleLog2), lse2[col]));
      if (masked) {
        Value key = add(keyBase, c32(8 * h));
        Value query = add(queryBase, c32(8 * i + e));
        Value out = orI(cmp(arith::CmpIPredicate::uge, query, t),
                        cmp(arith::CmpIPredicate::uge, key, t));
        if (spec.causal)
          out = orI(out, ult(query, key));
        value = select(out, zero, value);
      }
      p.push_back(value);
      ds.push_back(fmul(value, fsub(get(dpT, r), dlt[col])));
    }
    return {p, ds};
  }

  void consumer(Value tid, Value cta, Value ctas, Value group, Value mapDq) {
    int64_t n = spec.blockN, d = spec.headDim, keys = spec.blockM;
    Value thread = sub(tid, mul(group, c32(128)));
    warp = div(thread, c32(32));
    lane = rem(thread, c32(32));
    Value c = sub(group, c32(1));
    int64_t tile = spec.scoreTileBytes(), tiles = spec.scoreTiles() * tile;
    Value dsTile = sharedAt(scratchOffset(), mul(c, c32(tiles)));
    Value pTile = sharedAt(scratchOffset() + tile, mul(c, c32(tiles)));
    // TF32: dS [blockN queries, 64 keys], the B of dQ^T = K^T dS^T.
    Value dsTransposed = sharedAt(scratchOffset() + 2 * tile, mul(c, c32(tiles)));
    Value dqTile = sharedAt(scratchOffset() + kConsumersTiles(),
                            mul(c, c32(spec.dqTileBytes())));
    // Slot s of this consumer's lse (n f32) then Delta (n f32).
    Value columnTiles = sharedAt(scratchOffset() + kConsumersTiles() +
                                     FlashAttentionSpec::kConsumers *
                                         spec.dqTileBytes(),
                                 mul(c, c32(spec.columnBytes())));
    Value barrierId = group;
    Type sType = accType(n), dType = accType(d);
    // This consumer's 64 keys within the K and V tiles (bytes).
    Value keyRows = mul(c, c32(64 * 128));
    Value kRows = byteOffset(shared, kTile(), keyRows);
    Value vRows = byteOffset(shared, vTile(), keyRows);
    // TF32: this consumer's 64 keys of K^T, two column blocks of [D, 32].
    Value ktColumns = byteOffset(shared, ktTile(), mul(c, c32(2 * d * 128)));
    Type bf16 = b.getBF16Type();
    Type element = spec.tf32 ? f32 : bf16;

    // S^T = K Q^T and dP^T = V dO^T over D for the block in `stage` (one
    // wgmma group, committed by the caller).
    auto issueScores = [&](Value stage) -> std::pair<Value, Value> {
      NVVM::WgmmaFenceAlignedOp::create(b, loc);
      Value sT = LLVM::UndefOp::create(b, loc, sType);
      Value dpT = LLVM::UndefOp::create(b, loc, sType);
      for (int64_t ks = 0; ks < d / spec.kStep(); ++ks) {
        sT = mma(sT, n, kMajor(kRows, keys, 0, ks),
                 kMajor(qTile(stage), n, 0, ks), false, false, ks > 0);
        dpT = mma(dpT, n, kMajor(vRows, keys, 0, ks),
                  kMajor(doTile(stage), n, 0, ks), false, false, ks > 0);
      }
      return {sT, dpT};
    };
    // Query block qb's lse (log2 units) and Delta go through a slot of
    // shared memory: thread i fetches one (lse of query i < n, Delta of
    // query i - n < n; rows past T clamped), stores it once a barrier will
    // follow, and each thread reads its 2 x n / 4 columns back as pairs.
    auto fetchColumn = [&](Value qb, Value headRow) {
      Value i = rem(thread, c32(n));
      Value query = min(add(mul(qb, c32(n)), i), sub(t, c32(1)));
      Value index = wide(add(headRow, query));
      Value isLse = ult(thread, c32(n));
      Value source = select(isLse, lse, delta);
      Value value = LLVM::LoadOp::create(
          b, loc, f32,
          LLVM::GEPOp::create(b, loc, global, f32, source, ValueRange{index}),
          4);
      return select(isLse, fmul(value, cf(1.4426950408889634)), value);
    };
    // Every thread stores (no branch while wgmmas are in flight): slots
    // hold 128 entries, those past 2n unread.
    auto storeColumn = [&](Value value, Value slot) {
      Value offset = add(mul(slot, c32(128 * 4)), mul(thread, c32(4)));
      LLVM::StoreOp::create(b, loc, value,
                            byteOffset(shared, columnTiles, offset), 4);
    };
    auto readColumns = [&](Value slot) {
      SmallVector<Value> lse2, dlt;
      Type pair = VectorType::get({2}, f32);
      for (int64_t kind = 0; kind < 2; ++kind)
        for (int64_t i = 0; i < n / 8; ++i) {
          Value column = add(c32(8 * i), mul(rem(lane, c32(4)), c32(2)));
          Value offset = add(mul(slot, c32(128 * 4)),
                             mul(add(c32(kind * n), column), c32(4)));
          Value both = LLVM::LoadOp::create(
              b, loc, pair, byteOffset(shared, columnTiles, offset), 8);
          for (int64_t e = 0; e < 2; ++e)
            (kind ? dlt : lse2)
                .push_back(vector::ExtractOp::create(b, loc, both, e));
        }
      return std::pair{lse2, dlt};
    };

    // Software-pipelined over query blocks: block j+1's S^T and dP^T (and
    // its lse and Delta loads) are issued behind block j's dQ, dV and dK
    // products, so the tensor cores have the next block's work queued while
    // block j's dQ goes out, and its probabilities start as soon as they
    // are done.
    auto next = [&](ValueRange it, Value w) -> Value {
      waitParity(kvFull(), andI(it[1], c32(1)));
      if (spec.headGroup)
        w = LLVM::LoadOp::create(b, loc, i32, itemSlot(), 4);
      return w;
    };
    forEachItem(
        cta, ctas, items, next,
        [&](Value w, ValueRange it) -> SmallVector<Value> {
          auto [kb, head] = item(w);
          Value keyBase = add(add(mul(kb, c32(keys)), mul(c, c32(64))),
                              add(mul(warp, c32(16)), div(lane, c32(4))));
          Value headRow = mul(head, t);
          Value firstBlock = firstQueryBlock(kb);
          auto [stage0, parity0] = ringSlot(it[0], spec.stages);
          waitParity(full(stage0), parity0);
          auto [sT0, dpT0] = issueScores(stage0);
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          // Waited for before the loop: in flight across its entry, ptxas
          // would serialize every wgmma of the kernel (C7518).
          Value firstColumn = fetchColumn(firstBlock, headRow);
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
          storeColumn(firstColumn, rem(it[0], c32(2)));
          namedBarrier(barrierId, 128);
          SmallVector<Value> init = {zeroAcc(d), zeroAcc(d), it[0], sT0, dpT0};
          ValueRange end = loop(
              firstBlock, queryBlocks, c32(1), init,
              [&](Value qb, ValueRange st) -> SmallVector<Value> {
                Value dkAcc = st[0], dvAcc = st[1], stIt = st[2];
                Value sT = st[3], dpT = st[4];
                auto [stage, parity] = ringSlot(stIt, spec.stages);
                Value queryBase =
                    add(mul(qb, c32(n)), mul(rem(lane, c32(4)), c32(2)));
                auto [lse2, dlt] = readColumns(rem(stIt, c32(2)));
                NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
                Value keyEnd = add(mul(kb, c32(keys)), c32(keys));
                Value diagonal = ult(mul(qb, c32(n)), keyEnd);
                Value edge =
                    orI(ugt(mul(add(qb, c32(1)), c32(n)), t), ugt(keyEnd, t));
                Value needsMask = spec.causal ? orI(diagonal, edge) : edge;
                SmallVector<Type> types(2, sType);
                auto branch = scf::IfOp::create(b, loc, types, needsMask,
                                                /*withElse=*/true);
                {
                  OpBuilder::InsertionGuard guard(b);
                  for (bool masked : {true, false}) {
                    b.setInsertionPointToStart(masked ? branch.thenBlock()
                                                      : branch.elseBlock());
                    auto [p, ds] = probabilities(sT, dpT, lse2, dlt, keyBase,
                                                 queryBase, masked);
                    scf::YieldOp::create(
                        b, loc, ValueRange{pack(sType, p), pack(sType, ds)});
                  }
                }
                SmallVector<Value> p = unpack(branch.getResult(0), n);
                SmallVector<Value> ds = unpack(branch.getResult(1), n);
                // The previous block's score tiles have been read.
                namedBarrier(barrierId, 128);
                storeSwizzled(dsTile, ds, n, element, spec.tf32);
                if (!spec.registerScores())
                  storeSwizzled(pTile, p, n, element, spec.tf32);
                if (spec.tf32)
                  storeTransposed(dsTransposed, ds, n, /*roundTf32=*/true);
                fenceAsyncShared();
                namedBarrier(barrierId, 128);
                // The next block's stage, waited for while no wgmma is in
                // flight (a wait loop between them would serialize them,
                // ptxas C7518). The last block waits on its own stage
                // again: a completed phase, it passes at once. With three
                // stages or more the next block's S^T and dP^T go out
                // behind this block's products; with two, the stage would
                // be needed half a block after it is freed (TF32 lost 15%
                // so): they go out once dV and dK are done.
                bool early = spec.stages >= 3;
                Value nextIt = add(stIt, c32(1));
                Value nextBlock = add(qb, c32(1));
                Value hasNext = ult(nextBlock, queryBlocks);
                auto [followingStage, followingParity] =
                    ringSlot(nextIt, spec.stages);
                Value nextStage = select(hasNext, followingStage, stage);
                auto waitNextStage = [&] {
                  waitParity(full(nextStage),
                             select(hasNext, followingParity, parity));
                };
                if (early)
                  waitNextStage();
                // dQ = dS K (this consumer's keys), then dV += P^T dO and
                // dK += dS^T Q over the block's queries: two wgmma groups,
                // so dQ's way out runs under the dV and dK products.
                // TF32 reads K-major only: Q^T and dO^T for dK and dV, and
                // dQ^T = K^T dS^T (queries along N) instead of dQ.
                // P^T as the register A of dV's product.
                Value pA = spec.registerScores() ? packRegisterA(p) : Value();
                NVVM::WgmmaFenceAlignedOp::create(b, loc);
                Value dq = LLVM::UndefOp::create(
                    b, loc, spec.tf32 ? accType(n) : dType);
                for (int64_t ks = 0; ks < 64 / spec.kStep(); ++ks)
                  dq = spec.tf32 ? mma(dq, n, kMajor(ktColumns, d, 0, ks),
                                       kMajor(dsTransposed, n, 0, ks), false,
                                       false, ks > 0)
                                 : mma(dq, d, mnMajor(dsTile, 64, 0, ks),
                                       mnMajor(kRows, keys, 0, ks), true, true,
                                       ks > 0);
                NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
                for (int64_t ks = 0; ks < n / spec.kStep(); ++ks) {
                  if (spec.tf32) {
                    dvAcc = mma(dvAcc, d, kMajor(pTile, 64, 0, ks),
                                kMajor(dotTile(stage), d, 0, ks), false, false,
                                true);
                    dkAcc = mma(dkAcc, d, kMajor(dsTile, 64, 0, ks),
                                kMajor(qtTile(stage), d, 0, ks), false, false,
                                true);
                    continue;
                  }
                  dvAcc =
                      spec.registerScores()
                          ? mmaRegisterA(dvAcc, d, pA, ks,
                                         mnMajor(doTile(stage), n, 0, ks), true)
                          : mma(dvAcc, d, kMajor(pTile, 64, 0, ks),
                                mnMajor(doTile(stage), n, 0, ks), false, true,
                                true);
                  dkAcc =
                      mma(dkAcc, d, kMajor(dsTile, 64, 0, ks),
                          mnMajor(qTile(stage), n, 0, ks), false, true, true);
                }
                NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
                // The next block's S^T and dP^T. The last block's
                // "next" recomputes its own (discarded): wgmma in a branch
                // would be serialized (ptxas C7520).
                Value nextS, nextDp;
                if (early) {
                  std::tie(nextS, nextDp) = issueScores(nextStage);
                  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
                }
                Value nextColumn = fetchColumn(nextBlock, headRow);
                NVVM::WgmmaWaitGroupSyncOp::create(b, loc, early ? 2 : 1);
                // dQ (f32, scaled) += this block's part: through shared
                // memory, one TMA reduce-add per 32 columns (rows past T
                // clipped), after the previous block's has read it.
                // Only thread 0 has bulk groups; the others pass at once
                // (no branch while wgmmas are in flight).
                Value first = eq(thread, 0);
                NVVM::CpAsyncBulkWaitGroupOp::create(
                    b, loc, b.getI32IntegerAttr(0), b.getUnitAttr());
                namedBarrier(barrierId, 128);
                SmallVector<Value> scaled = unpack(dq, spec.tf32 ? n : d);
                for (Value &x : scaled)
                  x = fmul(x, scale);
                if (spec.tf32)
                  storeTransposed(dqTile, scaled, n, /*roundTf32=*/false);
                else
                  storeSwizzled(dqTile, scaled, d, f32);
                // The next block's lse and Delta, read after this barrier.
                storeColumn(nextColumn, rem(nextIt, c32(2)));
                fenceAsyncShared();
                namedBarrier(barrierId, 128);
                ifThen(first, [&] {
                  MLIRContext *context = b.getContext();
                  for (int64_t j = 0; j < d / 32; ++j)
                    NVVM::CpAsyncBulkTensorReduceOp::create(
                        b, loc, mapDq,
                        byteOffset(shared, dqTile, c32(j * n * 128)),
                        NVVM::TMAReduxKindAttr::get(context,
                                                    NVVM::TMAReduxKind::ADD),
                        NVVM::TMAStoreModeAttr::get(context,
                                                    NVVM::TMAStoreMode::TILE),
                        headsCoords(c32(32 * j), mul(qb, c32(n)), head),
                        Value());
                  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
                });
                NVVM::WgmmaWaitGroupSyncOp::create(b, loc, early ? 1 : 0);
                if (!early) {
                  waitNextStage();
                  std::tie(nextS, nextDp) = issueScores(nextStage);
                  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
                }
                arrivePerWarp(empty(stage));
                return {dkAcc, dvAcc, nextIt, nextS, nextDp};
              });
          // The last block's discarded S^T and dP^T.
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
          arrivePerWarp(kvEmpty());
          // dK (scaled) and dV for the keys below T.
          for (int64_t h = 0; h < 2; ++h) {
            Value key = add(keyBase, c32(8 * h));
            ifThen(ult(key, t), [&] {
              Value dkRow = rowIndex(dkLayout, head, key);
              Value dvRow = rowIndex(dvLayout, head, key);
              for (int64_t i = 0; i < d / 8; ++i) {
                int64_t reg = 4 * i + 2 * h;
                Value col = wide(fragmentCol(i, 0));
                for (auto [acc, out, factor, address] :
                     {std::tuple{end[0], dk, scale, add(dkRow, col)},
                      {end[1], dv, cf(1.0), add(dvRow, col)}}) {
                  Value x = fmul(get(acc, reg), factor),
                        y = fmul(get(acc, reg + 1), factor);
                  Value pair = spec.tf32
                                   ? vector::FromElementsOp::create(
                                         b, loc, VectorType::get({2}, f32),
                                         ValueRange{x, y})
                                         .getResult()
                                   : bf16Pair(x, y);
                  LLVM::StoreOp::create(
                      b, loc, pair,
                      LLVM::GEPOp::create(b, loc, global, element, out,
                                          ValueRange{address}),
                      2 * spec.elementBytes());
                }
              }
            });
          }
          return {end[2], add(it[1], c32(1))};
        });
    // The last dQ reduce-adds must have read shared memory before exit.
    ifThen(eq(thread, 0), [&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                           nullptr);
    });
  }

  void body(gpu::GPUFuncOp func, LLVM::GlobalOp smemGlobal) {
    Block &entry = func.getBody().front();
    q = entry.getArgument(0);
    k = entry.getArgument(1);
    v = entry.getArgument(2);
    dout = entry.getArgument(3);
    unsigned next = 4;
    if (spec.tf32) {
      kt = entry.getArgument(next++);
      qt = entry.getArgument(next++);
      dot = entry.getArgument(next++);
    }
    lse = entry.getArgument(next++);
    delta = entry.getArgument(next++);
    if (spec.headGroup)
      counter = entry.getArgument(next++);
    if (!spec.packedQuery)
      dqAcc = entry.getArgument(next++);
    // With packedGrads dV shares dK's binding (its layout has its offset),
    // with packedQuery dQ's accumulator too.
    dk = entry.getArgument(next++);
    dv = spec.packedGrads ? dk : entry.getArgument(next++);
    if (spec.packedQuery)
      dqAcc = dk;
    scratch = entry.getArgument(next++);
    scale = readShape(entry, next);
    next += 4;
    SmallVector<HeadsLayout *> layouts = {&qLayout,  &kLayout,  &vLayout,
                                          &doLayout, &dqLayout, &dkLayout,
                                          &dvLayout};
    if (spec.tf32)
      layouts.append({&ktLayout, &qtLayout, &dotLayout});
    for (HeadsLayout *layout : layouts) {
      *layout = layoutArgument(entry, next);
      next += 3;
    }
    scaleLog2 = fmul(scale, cf(1.4426950408889634));
    smem = LLVM::AddressOfOp::create(b, loc, smemGlobal);

    Value tid = id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value cta = id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value ctas = id(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    keyBlocks = ceilDiv(t, spec.blockM);
    queryBlocks = ceilDiv(t, spec.blockN);
    items = mul(keyBlocks, bh);

    Value mapK = byteOffset(global, scratch,
                            mul(cta, c32(kAttentionDescriptorBytesPerCta)));
    Value mapV = byteOffset(global, mapK, c32(kTensorMapBytes));
    Value mapQ = byteOffset(global, mapK, c32(2 * kTensorMapBytes));
    Value mapDo = byteOffset(global, mapK, c32(3 * kTensorMapBytes));
    Value mapDq = byteOffset(global, mapK, c32(4 * kTensorMapBytes));
    Value mapKt = byteOffset(global, mapK, c32(5 * kTensorMapBytes));
    Value mapQt = byteOffset(global, mapK, c32(6 * kTensorMapBytes));
    Value mapDot = byteOffset(global, mapK, c32(7 * kTensorMapBytes));
    ifThen(eq(tid, 0), [&] {
      int64_t bytes = spec.elementBytes();
      int type = spec.tf32 ? kTensorMapF32 : kTensorMapBf16;
      encodeHeadsMap(mapK, k, kLayout, spec.blockM, bytes, type);
      encodeHeadsMap(mapV, v, vLayout, spec.blockM, bytes, type);
      encodeHeadsMap(mapQ, q, qLayout, spec.blockN, bytes, type);
      encodeHeadsMap(mapDo, dout, doLayout, spec.blockN, bytes, type);
      // dQ's f32 accumulator in boxes of [blockN queries, 32 columns].
      encodeHeadsMap(mapDq, dqAcc, dqLayout, spec.blockN, 4, kTensorMapF32);
      SmallVector<Value> maps = {mapK, mapV, mapQ, mapDo, mapDq};
      if (spec.tf32) {
        encodeTransposedMap(mapKt, kt, ktLayout, spec.headDim);
        encodeTransposedMap(mapQt, qt, qtLayout, spec.headDim);
        encodeTransposedMap(mapDot, dot, dotLayout, spec.headDim);
        maps.append({mapKt, mapQt, mapDot});
      }
      publishTensorMaps(maps);
      int64_t arrivals = 4 * FlashAttentionSpec::kConsumers;
      NVVM::MBarrierInitOp::create(b, loc, kvFull(), c32(1), Value());
      NVVM::MBarrierInitOp::create(b, loc, kvEmpty(), c32(arrivals), Value());
      for (int64_t s = 0; s < spec.stages; ++s) {
        NVVM::MBarrierInitOp::create(b, loc, full(c32(s)), c32(1), Value());
        NVVM::MBarrierInitOp::create(b, loc, empty(c32(s)), c32(arrivals),
                                     Value());
      }
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    gpu::BarrierOp::create(b, loc);

    splitRoles(
        tid, /*moveRegisters=*/true, kProducerRegisters, kConsumerRegisters,
        [&] {
          producer(tid, cta, ctas, toGeneric(mapK), toGeneric(mapV),
                   toGeneric(mapQ), toGeneric(mapDo), toGeneric(mapKt),
                   toGeneric(mapQt), toGeneric(mapDot));
        },
        [&](Value group) { consumer(tid, cta, ctas, group, toGeneric(mapDq)); });
    gpu::ReturnOp::create(b, loc);
  }
};

} // namespace

OwningOpRef<ModuleOp>
cuda::buildFlashAttentionBackward(MLIRContext *context,
                                  const FlashAttentionSpec &spec) {
  OpBuilder b(context);
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, spec.kernelName(), "sm_90a", "+ptx83");
  LLVM::GlobalOp smem;
  int64_t transposes = spec.tf32 ? 3 : 0;
  gpu::GPUFuncOp func = AttentionBuilder::createKernel(
      b, spec,
      (spec.packedGrads ? 9 : 10) + transposes - (spec.packedQuery ? 1 : 0) +
          (spec.headGroup ? 1 : 0),
      4 + (7 + transposes) * 3, smem);
  BackwardKernel(b, b.getUnknownLoc(), spec).body(func, smem);
  return module;
}
