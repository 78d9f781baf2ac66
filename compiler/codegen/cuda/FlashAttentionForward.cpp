//===- FlashAttentionForward.cpp - sm_90 attention forward ----------------===//
//
// See FlashAttentionKernel.h. Shared memory: 1-2 x Q [128 rows] | stages x
// (K, V) [blockN rows each; TF32: K and V^T] | TF32: P [64 x blockN] per
// consumer | barriers (Q full/empty per Q tile, then full/empty per stage).
// Every [rows, D] tile is stored as column blocks of [rows, 128 B] (64 bf16 or
// 32 f32 columns), 128B-swizzled, as TMA writes them; V^T as blocks of [D, 32
// keys].
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/FlashAttentionBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {

struct ForwardKernel : AttentionBuilder {
  using AttentionBuilder::AttentionBuilder;
  Value q, k, v, counter, o, lse, scratch, scaleLog2;
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
  /// Item `it`'s Q tile and the parity of its barriers' phase.
  std::pair<Value, Value> qSlot(Value it) {
    return ringSlot(it, spec.queryBuffers);
  }
  Value kTile(Value s) { return sharedAt(kvOffset(), mul(s, c32(spec.stageBytes()))); }
  Value vTile(Value s) {
    return sharedAt(kvOffset() + spec.tileBytes(spec.blockN),
                    mul(s, c32(spec.stageBytes())));
  }

  /// With headGroup, the index of the item in Q tile `buffer`, after the
  /// mbarriers (one per tile).
  Value itemSlot(Value buffer) {
    return sharedAt(barrierOffset() + 32 + 16 * spec.stages,
                    mul(buffer, c32(4)));
  }

  /// Work item `w`: query block (the causal diagonal's longest rows first)
  /// and head; with headGroup, in groups of that many heads.
  std::pair<Value, Value> item(Value w) {
    auto [i, head] = spec.headGroup
                         ? groupedItem(w, qBlocks)
                         : std::pair<Value, Value>{div(w, bh), rem(w, bh)};
    return {sub(sub(qBlocks, c32(1)), i), head};
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
    // Each item waits for its Q tile to be free (with headGroup, its slot
    // read too), then takes the next from the counter into the tile's
    // slot. Past the items, the slot tells the consumers so and the tile's
    // barrier completes with no bytes.
    auto next = [&](ValueRange it, Value w) -> Value {
      auto [buffer, parity] = qSlot(it[1]);
      waitFreed(qEmpty(buffer), parity);
      if (!spec.headGroup)
        return w;
      return fetchItem(counter, items, ctas, itemSlot(buffer), qFull(buffer));
    };
    ifThen(eq(tid, 0), [&] {
      forEachItem(
          cta, ctas, items, next,
          [&](Value w, ValueRange it) -> SmallVector<Value> {
            auto [qb, head] = item(w);
            Value buffer = qSlot(it[1]).first;
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
                            mapV, {add(row, c32(32 * kc)), c32(0), head}, full);
                  return {add(kv[0], c32(1))};
                });
            return {end[0], add(it[1], c32(1))};
          });
    });
  }

  /// One block's raw scores, -inf past the causal diagonal and the sequence
  /// end when `masked`.
  SmallVector<Value> maskedScores(Value s, Value rowBase, Value colBase,
                                  bool masked) {
    int64_t n = spec.blockN;
    SmallVector<Value> x = unpack(s, n);
    if (!masked)
      return x;
    Value minusInf = cf(-std::numeric_limits<double>::infinity());
    for (int64_t r = 0; r < n / 2; ++r) {
      int64_t i = r / 4, h = r / 2 % 2, e = r % 2;
      Value row = add(rowBase, c32(8 * h));
      Value col = add(colBase, c32(8 * i + e));
      Value out = cmp(arith::CmpIPredicate::uge, col, t);
      if (spec.causal)
        out = orI(out, ugt(col, row));
      x[r] = select(out, minusInf, x[r]);
    }
    return x;
  }

  /// max or sum of `values` as a balanced tree: independent operations the
  /// scheduler can overlap, not one dependent chain.
  Value treeReduce(SmallVector<Value> values, bool isMax) {
    while (values.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < values.size(); i += 2)
        next.push_back(isMax ? fmax(values[i], values[i + 1])
                             : fadd(values[i], values[i + 1]));
      if (values.size() % 2)
        next.push_back(values.back());
      values = std::move(next);
    }
    return values.front();
  }

  struct SoftmaxStep {
    SmallVector<Value> p;     // 2^(scale log2(e) s - m), the block's P
    Value m[2], l[2], alpha[2]; // per fragment row h: max (log2 units), sum,
                                // the factor the previous O and l take
  };

  /// The online softmax of block `j`'s scores `s` (rows h = 0, 1 of this
  /// thread) given the running max `m` and sum `l`.
  SoftmaxStep softmax(Value s, Value j, Value qb, Value rowBase, Value m0,
                      Value m1, Value l0, Value l1) {
    int64_t n = spec.blockN;
    Type sType = accType(n);
    // Blocks with keys past the tile's first row (on the diagonal) or
    // across the sequence end mask.
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
          b, loc, pack(sType, maskedScores(s, rowBase, colBase, true)));
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, loc, s);
    }
    SoftmaxStep step;
    step.p = unpack(branch.getResult(0), n);
    Value minusInf = cf(-std::numeric_limits<double>::infinity());
    Value zero = cf(0.0);
    Value mPrev[2] = {m0, m1}, lPrev[2] = {l0, l1};
    for (int64_t h = 0; h < 2; ++h) {
      SmallVector<Value> row;
      for (int64_t r = 0; r < n / 2; ++r)
        if (r / 2 % 2 == h)
          row.push_back(step.p[r]);
      // The scale is positive: the max of the raw scores, scaled once.
      Value mx = fmul(quadMax(treeReduce(row, true)), scaleLog2);
      step.m[h] = fmax(mPrev[h], mx);
      // A row with nothing unmasked yet subtracts 0, not -inf.
      Value isEmpty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            step.m[h], minusInf);
      Value base = select(isEmpty, zero, step.m[h]);
      step.alpha[h] = ex2(fsub(mPrev[h], base));
      row.clear();
      for (int64_t r = 0; r < n / 2; ++r)
        if (r / 2 % 2 == h) {
          // One FMA: scale log2(e) s - m.
          step.p[r] = ex2(fsub(fmul(step.p[r], scaleLog2), base));
          row.push_back(step.p[r]);
        }
      step.l[h] = fadd(fmul(lPrev[h], step.alpha[h]), treeReduce(row, false));
    }
    return step;
  }

  /// P into this consumer's shared tile, once every warp is done reading
  /// the previous one, then visible to wgmma.
  void storeP(Value pTile, Value barrierId, ArrayRef<Value> p) {
    namedBarrier(barrierId, 128);
    storeSwizzled(pTile, p, spec.blockN,
                  spec.tf32 ? f32 : Type(b.getBF16Type()), spec.tf32);
    fenceAsyncShared();
    namedBarrier(barrierId, 128);
  }

  /// Issues S = Q K^T over D (one wgmma group).
  Value issueScores(Value qBase, Value stage) {
    int64_t n = spec.blockN, d = spec.headDim;
    Value s = LLVM::UndefOp::create(b, loc, accType(n));
    for (int64_t ks = 0; ks < d / spec.kStep(); ++ks)
      s = mma(s, n, kMajor(qBase, spec.blockM, 0, ks),
              kMajor(kTile(stage), n, 0, ks), false, false, ks > 0);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    return s;
  }

  /// Issues O += P V over a block's keys (one wgmma group). P: bf16, its
  /// A fragments in registers (packRegisterA); TF32, the shared tile.
  Value issueValues(Value acc, Value p, Value stage) {
    int64_t n = spec.blockN, d = spec.headDim;
    for (int64_t ks = 0; ks < n / spec.kStep(); ++ks) {
      if (!spec.registerScores()) {
        acc = mma(acc, d, kMajor(p, 64, 0, ks), kMajor(vTile(stage), d, 0, ks),
                  false, false, true);
        continue;
      }
      acc = mmaRegisterA(acc, d, p, ks, mnMajor(vTile(stage), n, 0, ks), true);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    return acc;
  }

  /// Block P for the next P V, once the last P V is done: with bf16 its A
  /// fragments (`packed`, made under that P V), with TF32 (whose register
  /// fragments do not match the accumulator's) the shared tile.
  Value keepP(Value pTile, Value barrierId, ArrayRef<Value> p, Value packed) {
    if (spec.registerScores())
      return packed;
    storeP(pTile, barrierId, p);
    return pTile;
  }
  Value packP(ArrayRef<Value> p) {
    return spec.registerScores() ? packRegisterA(p) : Value();
  }

  /// The consumers' item after `w` (the first: `w` the CTA), whose Q tile
  /// is slot `itQ`'s: waits for its turn and returns its index (past
  /// `items`: none left). In the static order only items have a Q tile to
  /// wait for; with headGroup the producer's fetch completes the slot's
  /// barrier even past the items, with the index in the slot.
  Value nextItem(Value itQ, Value w) {
    auto [buffer, parity] = qSlot(itQ);
    if (!spec.headGroup) {
      ifThen(ult(w, items), [&] { waitParity(qFull(buffer), parity); });
      return w;
    }
    waitParity(qFull(buffer), parity);
    return LLVM::LoadOp::create(b, loc, i32, itemSlot(buffer), 4);
  }

  /// This consumer's 64 rows of Q tile slot `itQ`.
  Value queryRows(Value itQ, Value c) {
    return byteOffset(shared, qTile(qSlot(itQ).first), mul(c, c32(64 * 128)));
  }

  /// Issues item `w`'s first scores S_0 from Q slot `itQ` and K/V ring
  /// iteration `kvIt` (in this consumer's turn, after a wgmma fence: the
  /// caller passes the turn). Past the items nothing is
  /// waited for and the result, dropped, is whatever the tiles hold: the
  /// wgmma stays out of branches, where ptxas would serialize the pipeline.
  Value issueFirstScores(Value w, Value itQ, Value kvIt, Value c) {
    auto [stage, parity] = ringSlot(kvIt, spec.stages);
    ifThen(ult(w, items), [&] { waitParity(kvFull(stage), parity); });
    takeTurn(c);
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    return issueScores(queryRows(itQ, c), stage);
  }

  /// Ping-pong between the two consumers (FlashAttention-3): consumer c
  /// issues its wgmmas only once the other has issued its own, so one's
  /// softmax runs under the other's MMAs. Named barrier 3 + c is c's turn:
  /// bar.sync by c's 128 threads, bar.arrive by the other's. bf16 only:
  /// TF32's MMAs take twice as long beside the same softmax, and its
  /// forward measured 1-2% slower in turns at T = 2048 and 4096 (H100).
  void takeTurn(Value c) {
    if (!spec.tf32)
      namedBarrier(add(c, c32(3)), 256);
  }
  void passTurn(Value c) {
    if (!spec.tf32)
      NVVM::BarrierArriveOp::create(b, loc, add(sub(c32(1), c), c32(3)),
                                    c32(256));
  }

  /// A consumer's view of item `w` (clamped to the last item: past the
  /// items it is computed and dropped).
  struct ItemView {
    Value qb, head, nkv, lastBlock, buffer, qBase, rowBase;
  };
  ItemView view(Value w, Value itQ, Value c) {
    ItemView v;
    std::tie(v.qb, v.head) = item(min(w, sub(items, c32(1))));
    v.nkv = keyBlocks(v.qb);
    v.lastBlock = sub(v.nkv, c32(1));
    v.buffer = qSlot(itQ).first;
    v.qBase = queryRows(itQ, c);
    v.rowBase = add(add(mul(v.qb, c32(spec.blockM)), mul(c, c32(64))),
                    add(mul(warp, c32(16)), div(lane, c32(4))));
    return v;
  }

  /// Item `w`'s block 0 once its scores `s0` are in registers: its Q tile
  /// is free when that was its only block; the softmax of S_0.
  SoftmaxStep firstBlock(Value w, const ItemView &v, Value s0) {
    ifThen(andI(ult(w, items), eq(v.lastBlock, 0)),
           [&] { arrivePerWarp(qEmpty(v.buffer)); });
    Value minusInf = cf(-std::numeric_limits<double>::infinity());
    Value zero = cf(0.0);
    return softmax(s0, c32(0), v.qb, v.rowBase, minusInf, minusInf, zero, zero);
  }

  // Each consumer pipelines its blocks (FlashAttention-3's intra-warp-group
  // overlap): block j's S = Q K_j^T and the previous block's O += P V are
  // in flight together, and block j's softmax runs under the latter. Items
  // chain the same way: the next item's S_0 with the last block's P V, its
  // softmax under that P V.
  void consumer(Value tid, Value cta, Value ctas, Value group) {
    Value thread = sub(tid, mul(group, c32(128)));
    warp = div(thread, c32(32));
    lane = rem(thread, c32(32));
    Value c = sub(group, c32(1));
    Value pTile = sharedAt(pOffset(), mul(c, c32(spec.scoreTileBytes())));
    Value barrierId = group; // 1, 2: named barriers of the warp groups
    int64_t d = spec.headDim;
    Type oType = accType(d);

    // Per item: the item, its Q slot's iteration, its first K/V ring
    // iteration, then block 0's softmax done: m, l (two rows each) and P.
    ifThen(eq(c, 1), [&] { passTurn(c); }); // consumer 0 goes first
    Value w0 = nextItem(c32(0), cta);
    Value s0 = issueFirstScores(w0, c32(0), c32(0), c);
    passTurn(c);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    SoftmaxStep first = firstBlock(w0, view(w0, c32(0), c), s0);
    SmallVector<Value> init = {
        w0,         c32(0),
        c32(0),     first.m[0],
        first.m[1], first.l[0],
        first.l[1], keepP(pTile, barrierId, first.p, packP(first.p))};
    SmallVector<Type> types = llvm::to_vector(ValueRange(init).getTypes());
    SmallVector<Location> locs(types.size(), loc);
    auto whileOp = scf::WhileOp::create(b, loc, types, init);
    Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
    scf::ConditionOp::create(b, loc, ult(before->getArgument(0), items),
                             before->getArguments());
    Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
    ValueRange args = after->getArguments();
    Value w = args[0], itQ = args[1];
    ItemView v = view(w, itQ, c);
    SmallVector<Value> state = {zeroAcc(d), args[3], args[4], args[5],
                                args[6],    args[2], args[7]};
    // Blocks 1..: S_j with the previous block's P V.
    ValueRange end =
        loop(c32(1), v.nkv, c32(1), state,
             [&](Value j, ValueRange st) -> SmallVector<Value> {
               Value previous = st[5], kvIt = add(previous, c32(1));
               Value prevStage = ringSlot(previous, spec.stages).first;
               auto [stage, parity] = ringSlot(kvIt, spec.stages);
               waitParity(kvFull(stage), parity);
               takeTurn(c);
               NVVM::WgmmaFenceAlignedOp::create(b, loc);
               Value s = issueScores(v.qBase, stage);
               Value acc = issueValues(st[0], st[6], prevStage);
               passTurn(c);
               NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
               ifThen(cmp(arith::CmpIPredicate::eq, j, v.lastBlock),
                      [&] { arrivePerWarp(qEmpty(v.buffer)); });
               SoftmaxStep step =
                   softmax(s, j, v.qb, v.rowBase, st[1], st[2], st[3], st[4]);
               Value packed = packP(step.p);
               NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
               arrivePerWarp(kvEmpty(prevStage));
               SmallVector<Value> ov = unpack(acc, d);
               for (int64_t r = 0; r < d / 2; ++r)
                 ov[r] = fmul(ov[r], step.alpha[r / 2 % 2]);
               Value p = keepP(pTile, barrierId, step.p, packed);
               return {pack(oType, ov), step.m[0], step.m[1], step.l[0],
                       step.l[1],       kvIt,      p};
             });
    // The next item's S_0 with the last block's P V, the next item's
    // block-0 softmax under that P V, then this item's epilogue.
    Value nextQ = add(itQ, c32(1)), nextKv = add(end[5], c32(1));
    Value next = nextItem(nextQ, add(w, ctas));
    ItemView nextView = view(next, nextQ, c);
    Value lastStage = ringSlot(end[5], spec.stages).first;
    Value nextS0 = issueFirstScores(next, nextQ, nextKv, c);
    Value acc = issueValues(end[0], end[6], lastStage);
    passTurn(c);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    SoftmaxStep nextFirst = firstBlock(next, nextView, nextS0);
    Value packed = packP(nextFirst.p);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    arrivePerWarp(kvEmpty(lastStage));
    SmallVector<Value> out = {acc, end[1], end[2], end[3], end[4]};
    epilogue(out, v.rowBase, v.head);
    Value p = keepP(pTile, barrierId, nextFirst.p, packed);
    scf::YieldOp::create(b, loc,
                         ValueRange{next, nextQ, nextKv, nextFirst.m[0],
                                    nextFirst.m[1], nextFirst.l[0],
                                    nextFirst.l[1], p});
    b.setInsertionPointAfter(whileOp);
    // Consumer 1 passed the turn once more than consumer 0 takes it above.
    ifThen(eq(c, 0), [&] { takeTurn(c); });
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
    unsigned next = 3;
    if (spec.headGroup)
      counter = entry.getArgument(next++);
    o = entry.getArgument(next++);
    lse = entry.getArgument(next++);
    scratch = entry.getArgument(next++);
    // softmax(scale S) = 2^(scale log2(e) S - max) / sum.
    scaleLog2 = fmul(readShape(entry, next), cf(1.4426950408889634));
    qLayout = layoutArgument(entry, next + 4);
    kLayout = layoutArgument(entry, next + 7);
    vLayout = layoutArgument(entry, next + 10);
    oLayout = layoutArgument(entry, next + 13);
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
  gpu::GPUFuncOp func = AttentionBuilder::createKernel(
      b, spec, spec.headGroup ? 7 : 6, 4 + 4 * 3, smem);
  ForwardKernel(b, b.getUnknownLoc(), spec).body(func, smem);
  return module;
}
