//===- WgmmaGemmKernel.cpp - sm_90 TMA + wgmma GEMM kernels ---------------===//

#include "compiler/codegen/cuda/WgmmaGemmKernel.h"
#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/codegen/cuda/RegionElements.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"


using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

namespace {

// A transposing producer's warps after its TMA warp (see the header).
constexpr int64_t kTransposerThreads = 96;

/// Where output tile `t` lies and which K tiles it reduces.
struct Tile {
  Value index, split, batch, row0, col0, kBegin, kCount;
};

struct GemmKernel : KernelBuilder {
  const WgmmaGemmSpec &spec;
  GemmKernel(OpBuilder &b, Location loc, const WgmmaGemmSpec &spec)
      : KernelBuilder(b, loc), spec(spec) {}
  Value a, bOperand, c, scratch, m, n, k, batch;
  /// With an epilogue: the kernel parameter of each region input other than
  /// the matmul's operands, and of each region result.
  DenseMap<Value, Value> epilogueInputs;
  SmallVector<Value> epilogueResults;
  /// The epilogue's float column inputs (a bias), loaded as a tile starts
  /// (loadColumnPairs).
  SmallVector<BlockArgument> columnInputs;
  /// The epilogue's staged inputs (spec.stagedInputs()).
  SmallVector<BlockArgument> staged;
  Value smem;
  /// The consumer's first row within a tile.
  Value consumerRow0;
  Value tilesM, tilesN, perBatch, perSplit, kTiles, kPerSplit;
  Value cta, ctas;
  /// Clusters: this CTA's rank in its pair and the rows of tile pairs (else
  /// 0 and tilesM): the units are pairs of tiles, one row each.
  Value clusterRank, unitRowsM;
  /// The units (tiles, or stream-K parts of tiles) this CTA runs:
  /// unitFirst, unitFirst + unitStep, ... below unitEnd (see unit()).
  Value unitFirst, unitEnd, unitStep;
  /// Stream-K: the flags, all tiles' K steps, this CTA's range of them, and
  /// the last tile it touches.
  Value flags, iters, startIter, endIter, lastTile;

  Value aTile(Value stage) {
    return byteOffset(shared, smem, mul(stage, c32(spec.stageBytes())));
  }
  Value bTile(Value stage) {
    return byteOffset(shared, smem,
                      add(mul(stage, c32(spec.stageBytes())),
                          c32(spec.tileM * 128)));
  }
  int64_t barriersOffset() const {
    return spec.stages * spec.stageBytes() + spec.epilogueBytes() +
           spec.stagedInputBytes();
  }
  Value fullBarrier(Value stage) {
    return byteOffset(shared, smem,
                      add(c32(barriersOffset()), mul(stage, c32(8))));
  }
  Value emptyBarrier(Value stage) {
    return byteOffset(shared, smem,
                      add(c32(barriersOffset() + 8 * spec.stages),
                          mul(stage, c32(8))));
  }
  /// Ping-pong: consumer i's turn to wait on the ring (see consumer()).
  Value turnBarrier(Value consumer) {
    return byteOffset(shared, smem,
                      add(c32(barriersOffset() + 16 * spec.stages),
                          mul(consumer, c32(8))));
  }
  /// The stage's MN-major boxes have landed (TMA transactions).
  Value stagedBarrier(Value stage) {
    int64_t turns = spec.pingpong ? 8 * spec.consumers : 0;
    return byteOffset(shared, smem,
                      add(c32(barriersOffset() + 16 * spec.stages + turns),
                          mul(stage, c32(8))));
  }

  /// This thread's pair of each column input at every column group i of
  /// tile `tl` (columns 8 i + 2 (lane % 4) + {0, 1}, clamped in range),
  /// [input][group], loaded as the tile starts, under its main loop: the
  /// epilogue, one warp a scheduler, reads them from registers instead of
  /// waiting for a load at each column group of each result.
  SmallVector<Value> loadColumnPairs(const Tile &tl, Value lane) {
    SmallVector<Value> pairs;
    Value lastPair = sub(n, c32(2));
    Value pairCol = mul(rem(lane, c32(4)), c32(2));
    for (BlockArgument input : columnInputs) {
      Type type = RegionElements::storageType(
          cast<RankedTensorType>(input.getType()).getElementType(),
          b.getContext());
      int64_t bytes = type.getIntOrFloatBitWidth() / 8;
      for (int64_t i = 0; i < spec.tileN / 8; ++i) {
        Value col = min(add(tl.col0, add(pairCol, c32(8 * i))), lastPair);
        Value address = LLVM::GEPOp::create(b, loc, global, type,
                                            epilogueInputs.lookup(input),
                                            ValueRange{wide(col)});
        pairs.push_back(LLVM::LoadOp::create(
            b, loc, VectorType::get({2}, type), address, 2 * bytes,
            /*isVolatile=*/false, /*isNonTemporal=*/false,
            /*isInvariant=*/true));
      }
    }
    return pairs;
  }

  /// Byte `byteInRow` of row `row` (0..63) of a [64 rows, 128 bytes] box,
  /// 128B-swizzled: 16-byte unit u of row r at u ^ r % 8.
  Value swizzledBoxOffset(Value row, Value byteInRow) {
    Value unit = arith::XOrIOp::create(b, loc, div(byteInRow, c32(16)),
                                       rem(row, c32(8)));
    return add(mul(row, c32(128)),
               add(mul(unit, c32(16)), rem(byteInRow, c32(16))));
  }

  /// Consumer `consumer`'s rows of the tile of staged input `s`.
  Value stagedTile(Value consumer, int64_t s) {
    int64_t first = spec.stages * spec.stageBytes() + spec.epilogueBytes() +
                    s * spec.consumers * spec.stagedInputTileBytes();
    return byteOffset(
        shared, smem,
        add(c32(first), mul(consumer, c32(spec.stagedInputTileBytes()))));
  }
  /// Consumer `consumer`'s staged inputs have landed (one phase a tile).
  Value inputsBarrier(Value consumer) {
    int64_t offset = barriersOffset() + 16 * spec.stages +
                     (spec.pingpong ? 8 * spec.consumers : 0) +
                     (spec.transposes() ? 8 * spec.stages : 0);
    return byteOffset(shared, smem, add(c32(offset), mul(consumer, c32(8))));
  }

  /// The consumer's rows of tile `tl` of each staged input, TMA-loaded in
  /// boxes laid out as the C ring's (box (mt, j) at (mt x boxes + j) x 8
  /// KiB), completing on the consumer's inputs barrier.
  void loadStagedInputs(const Tile &tl, Value consumerIndex,
                        ArrayRef<Value> maps) {
    int64_t mTiles = spec.consumerRows() / 64, boxes = spec.tileN / 64;
    Value barrier = inputsBarrier(consumerIndex);
    // The last tile's epilogue read these buffers (generic proxy).
    fenceAsyncShared();
    expectBytes(barrier,
                int64_t(staged.size()) * mTiles * boxes * kEpilogueBoxBytes);
    for (auto [s, map] : llvm::enumerate(maps))
      for (int64_t mt = 0; mt < mTiles; ++mt)
        for (int64_t j = 0; j < boxes; ++j)
          tmaLoad(byteOffset(shared, stagedTile(consumerIndex, s),
                             c32((mt * boxes + j) * kEpilogueBoxBytes)),
                  map,
                  ValueRange{add(tl.col0, c32(64 * j)),
                             add(tl.row0, add(consumerRow0, c32(64 * mt))),
                             tl.batch},
                  barrier);
  }

  Tile tile(Value t) {
    Tile tile;
    tile.index = t;
    tile.split = div(t, perSplit);
    Value r = rem(t, perSplit);
    tile.batch = div(r, perBatch);
    r = rem(r, perBatch);
    // Raster bands of `rasterGroup` tile rows (clusters: as many rows in
    // pairs), column-major inside a band.
    int64_t group = std::max<int64_t>(1, spec.rasterGroup / spec.clusterM);
    Value span = mul(c32(group), tilesN);
    Value firstM = mul(div(r, span), c32(group));
    Value rows = min(sub(unitRowsM, firstM), c32(group));
    Value inBand = rem(r, span);
    Value unitRow = add(firstM, rem(inBand, rows));
    tile.row0 = mul(add(mul(unitRow, c32(spec.clusterM)), clusterRank),
                    c32(spec.tileM));
    tile.col0 = mul(div(inBand, rows), c32(spec.tileN));
    tile.kBegin = mul(tile.split, kPerSplit);
    Value left = arith::MaxSIOp::create(b, loc, sub(kTiles, tile.kBegin),
                                        c32(0));
    tile.kCount = min(left, kPerSplit);
    return tile;
  }

  /// Unit `u`: tile u; with stream-K, the CTA's u-th tile from its last
  /// (so that CTAs run the same K steps at about the same time: each runs
  /// a tile's first steps first, its other tile's last steps last), only
  /// its K steps in this CTA's range.
  Tile unit(Value u) {
    if (!spec.streamK)
      return tile(u);
    Value t = sub(lastTile, u);
    Tile tl = tile(t);
    Value kStart = mul(t, kTiles);
    tl.kBegin = select(ugt(startIter, kStart), sub(startIter, kStart), c32(0));
    Value kEnd = select(ult(endIter, add(kStart, kTiles)),
                        sub(endIter, kStart), kTiles);
    tl.kCount = sub(kEnd, tl.kBegin);
    return tl;
  }

  /// The first of the K steps (of all tiles, tile after tile) CTA `c` runs.
  Value firstIteration(Value c) {
    return arith::TruncIOp::create(b, loc, b.getI32Type(),
                                   div(mul(wide(c), wide(iters)), wide(ctas)));
  }

  /// CTA `c`'s slot of the scratch binding: its tensor maps, then its
  /// partial tile.
  Value scratchSlot(Value c) {
    return byteOffset(global, scratch, mul(c, c32(spec.scratchBytesPerCta())));
  }

  /// The 16 bytes of CTA `c`'s shared stream-K part holding registers
  /// 4j..4j+3 of subtile `mt` of `thread` of consumer `consumerIndex`, laid
  /// out [consumer][subtile][j][thread]: a warp's accesses are contiguous.
  Value partialQuad(Value c, Value consumerIndex, int64_t mt, int64_t j,
                    Value thread, int64_t mTiles) {
    int64_t quads = spec.tileN / 8;
    Value quad = add(mul(add(mul(consumerIndex, c32(mTiles)), c32(mt)),
                         c32(quads)),
                     c32(j));
    return byteOffset(
        global, scratchSlot(c),
        add(c32(spec.descriptorBytesPerCta()),
            mul(add(mul(quad, c32(128)), thread), c32(16))));
  }

  Value flag(Value c) { return byteOffset(global, flags, mul(c, c32(4))); }

  /// A consumer's accumulators into (or added from) CTA `c`'s shared part.
  void storePartial(Value c, Value consumerIndex, Value thread,
                    ValueRange accs, int64_t mTiles) {
    VectorType quadType = VectorType::get({4}, f32);
    for (int64_t mt = 0; mt < mTiles; ++mt)
      for (int64_t j = 0; j < spec.tileN / 8; ++j) {
        SmallVector<Value> values;
        for (int64_t e = 0; e < 4; ++e)
          values.push_back(
              LLVM::ExtractValueOp::create(b, loc, accs[mt], 4 * j + e));
        LLVM::StoreOp::create(
            b, loc, vector::FromElementsOp::create(b, loc, quadType, values),
            partialQuad(c, consumerIndex, mt, j, thread, mTiles), 16);
      }
  }
  void addPartial(Value c, Value consumerIndex, Value thread,
                  MutableArrayRef<Value> accs, int64_t mTiles) {
    VectorType quadType = VectorType::get({4}, f32);
    for (int64_t mt = 0; mt < mTiles; ++mt)
      for (int64_t j = 0; j < spec.tileN / 8; ++j) {
        Value quad = LLVM::LoadOp::create(
            b, loc, quadType,
            partialQuad(c, consumerIndex, mt, j, thread, mTiles), 16);
        for (int64_t e = 0; e < 4; ++e) {
          Value sum = fadd(
              LLVM::ExtractValueOp::create(b, loc, accs[mt], 4 * j + e),
              vector::ExtractOp::create(b, loc, quad, e));
          accs[mt] =
              LLVM::InsertValueOp::create(b, loc, accs[mt], sum, 4 * j + e);
        }
      }
  }

  /// Stream-K: the unit that ends tile `t` after lower CTAs ran its
  /// earlier K steps (each shared its part first thing in its range) adds
  /// their parts to its accumulators, each once that CTA's consumers have
  /// all counted on its flag (acquire). Waits only go to lower CTAs, which
  /// wait for nothing before they share: the grid completes whatever the
  /// order its CTAs become resident in. Each of this CTA's consumers then
  /// counts itself on the flag too, wrapping at 2 * consumers: the last one
  /// leaves it 0, so the kernel ends with its flags as it found them: they
  /// are an input, zeroed once (a module constant).
  SmallVector<Value> addSharedParts(Value t, Value consumerIndex,
                                    Value thread, ValueRange accs,
                                    int64_t mTiles) {
    // The CTA that runs the tile's first K step.
    Value tileStart = mul(t, kTiles);
    Value first = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        div(sub(mul(add(wide(tileStart), c64(1)), wide(ctas)), c64(1)),
            wide(iters)));
    ValueRange sums = loop(
        first, cta, c32(1), accs,
        [&](Value peer, ValueRange acc) -> SmallVector<Value> {
          ifThen(eq(thread, 0), [&] {
            scf::WhileOp::create(
                b, loc, TypeRange{}, ValueRange{},
                [&](OpBuilder &, Location, ValueRange) {
                  Value arrived = LLVM::LoadOp::create(
                      b, loc, i32, flag(peer), /*alignment=*/4,
                      /*isVolatile=*/false, /*isNonTemporal=*/false,
                      /*isInvariant=*/false, /*isInvariantGroup=*/false,
                      LLVM::AtomicOrdering::acquire, "device");
                  scf::ConditionOp::create(
                      b, loc, ult(arrived, c32(spec.consumers)), ValueRange{});
                },
                [&](OpBuilder &, Location, ValueRange) {
                  scf::YieldOp::create(b, loc);
                });
            // Read by every consumer: none waits on a flag already reset.
            LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::uinc_wrap,
                                      flag(peer), c32(2 * spec.consumers - 1),
                                      LLVM::AtomicOrdering::monotonic, "device",
                                      /*alignment=*/4);
          });
          namedBarrier(add(consumerIndex, c32(1)), 128);
          SmallVector<Value> next(acc.begin(), acc.end());
          addPartial(peer, consumerIndex, thread, next, mTiles);
          return next;
        });
    return SmallVector<Value>(sums.begin(), sums.end());
  }

  /// A finished tile's accumulators through the epilogue.
  void finishTile(const Tile &tl, ValueRange accs, Value consumerIndex,
                  Value thread, Value warp, Value lane, int64_t mTiles,
                  ArrayRef<Value> storeMaps, ArrayRef<Value> columnPairs,
                  Value inputsParity) {
    if (spec.epilogue)
      fusedEpilogue(tl, accs, consumerIndex, thread, warp, lane, mTiles,
                    storeMaps, columnPairs, inputsParity);
    else if (spec.tmaStore)
      stageAndStore(tl, consumerIndex, thread, warp, lane, mTiles,
                    storeMaps[0], [&](int64_t mt, int64_t reg, Value, Value) {
                      return std::make_pair(
                          convert(LLVM::ExtractValueOp::create(b, loc, accs[mt],
                                                               reg)),
                          convert(LLVM::ExtractValueOp::create(b, loc, accs[mt],
                                                               reg + 1)));
                    });
    else
      epilogue(tl, accs, warp, lane, mTiles);
  }

  /// K-major rows hold 128 bytes of K; MN-major rows hold 64 M (or N)
  /// elements of one K, and the next 64 M lie one [64 K, 128 B] box later.
  Value operandDescriptor(Value byteAddress, bool mnMajor) {
    return matrixDescriptor(byteAddress, mnMajor ? 64 * 128 : 16);
  }

  /// `body(tile, kk, stage, parity)` for each K step the CTA loads, in the
  /// ring's order.
  void forEachLoad(
      function_ref<void(const Tile &, Value, Value, Value)> body) {
    loop(unitFirst, unitEnd, unitStep, ValueRange{c32(0)},
         [&](Value t, ValueRange args) -> SmallVector<Value> {
           Tile tl = unit(t);
           ValueRange end = loop(
               c32(0), tl.kCount, c32(1), args,
               [&](Value kk, ValueRange it) -> SmallVector<Value> {
                 auto [stage, parity] = ringSlot(it[0], spec.stages);
                 body(tl, kk, stage, parity);
                 return {add(it[0], c32(1))};
               });
           return {end[0]};
         });
  }

  void producer(Value tid, Value mapA, Value mapB) {
    int64_t direct = spec.stageBytes() - spec.transposedBytes();
    ifThen(eq(tid, 0), [&] {
      forEachLoad([&](const Tile &tl, Value kk, Value stage, Value parity) {
        waitFreed(emptyBarrier(stage), parity);
        Value full = fullBarrier(stage), staged = stagedBarrier(stage);
        if (direct)
          expectBytes(full, direct);
        else
          NVVM::MBarrierArriveOp::create(b, loc, i64, full, Value(),
                                         NVVM::MemScopeKind::CTA, false);
        if (spec.transposes())
          expectBytes(staged, spec.transposedBytes());
        Value kElem = mul(add(tl.kBegin, kk), c32(spec.tileK()));
        // K-major: one box of [rows, 128 B of K]; MN-major: one [K, 128 B]
        // box per 128 bytes of rows, tileK() x 128 bytes apart.
        auto load = [&](Value dst, Value map, Value row0, int64_t rows,
                        bool mnMajor, Value barrier) {
          if (!mnMajor)
            return tmaLoad(dst, map, ValueRange{kElem, row0, tl.batch},
                           barrier);
          int64_t boxRows = 128 / spec.elementBytes();
          for (int64_t j = 0; j < rows / boxRows; ++j)
            tmaLoad(byteOffset(shared, dst, c32(j * spec.tileK() * 128)), map,
                    ValueRange{add(row0, c32(boxRows * j)), kElem, tl.batch},
                    barrier);
        };
        load(aTile(stage), mapA, tl.row0, spec.tileM, spec.aMnMajor,
             spec.transposesA() ? staged : full);
        if (!spec.multicastsB()) {
          load(bTile(stage), mapB, tl.col0, spec.tileN, spec.bMnMajor,
               spec.transposesB() ? staged : full);
          return;
        }
        // This CTA's half of B, into both CTAs' stages at its place: rows
        // (K-major) or 64-element boxes (MN-major) [rank x tileN / 2, ...).
        int64_t half = spec.bLoadRows();
        Value first = mul(clusterRank, c32(half));
        Value mask = arith::ConstantIntOp::create(b, loc, 3, 16);
        if (!spec.bMnMajor) {
          tmaLoad(byteOffset(shared, bTile(stage), mul(first, c32(128))), mapB,
                  ValueRange{kElem, add(tl.col0, first), tl.batch}, full, mask);
          return;
        }
        int64_t boxRows = 128 / spec.elementBytes();
        for (int64_t j = 0; j < half / boxRows; ++j) {
          Value box = add(div(first, c32(boxRows)), c32(j));
          tmaLoad(
              byteOffset(shared, bTile(stage),
                         mul(box, c32(spec.tileK() * 128))),
              mapB,
              ValueRange{add(tl.col0, mul(box, c32(boxRows))), kElem, tl.batch},
              full, mask);
        }
      });
    });
    if (!spec.transposes())
      return;
    Value thread = sub(tid, c32(32));
    ifThen(cmp(arith::CmpIPredicate::uge, tid, c32(32)), [&] {
      forEachLoad([&](const Tile &, Value, Value stage, Value parity) {
        waitParity(stagedBarrier(stage), parity);
        transposeBoxes(stage, thread);
        // The warp's writes, for the consumers' wgmma (async proxy).
        fenceAsyncShared();
        NVVM::SyncWarpOp::create(b, loc, c32(-1));
        ifThen(eq(rem(thread, c32(32)), 0), [&] {
          NVVM::MBarrierArriveOp::create(b, loc, i64, fullBarrier(stage),
                                         Value(), NVVM::MemScopeKind::CTA,
                                         false);
        });
      });
    });
  }

  /// The stage's MN-major boxes made K-major in place, rounded to TF32:
  /// the transposer warps take boxes (A's, then B's) in turn. A box of 32
  /// K rows x 32 elements (element (k, r) at k * 128 + ((r / 4) ^ k % 8) * 16
  /// + r % 4 * 4, 128B swizzle) holds the bytes of the K-major tile's rows r
  /// (row r's 16-byte unit u at r * 128 + (u ^ r % 8) * 16): lane r reads
  /// its column (each load one 128-byte row: no bank conflicts) and, once
  /// the warp has read all, writes its row (eight lanes a bank range).
  void transposeBoxes(Value stage, Value thread) {
    int64_t boxesA = spec.transposesA() ? spec.tileM / 32 : 0;
    int64_t boxes = boxesA + (spec.transposesB() ? spec.tileN / 32 : 0);
    Value lane = rem(thread, c32(32));
    Value chunk = div(lane, c32(4));
    Value within = mul(rem(lane, c32(4)), c32(4));
    Value rowOffset = mul(lane, c32(128));
    Value rowPhase = rem(lane, c32(8));
    VectorType quadType = VectorType::get({4}, f32);
    loop(div(thread, c32(32)), c32(boxes), c32(kTransposerThreads / 32),
         ValueRange{}, [&](Value j, ValueRange) -> SmallVector<Value> {
           // Box j: A's rows 32 j, or B's rows 32 (j - boxesA).
           Value inB = cmp(arith::CmpIPredicate::uge, j, c32(boxesA));
           Value tile = select(inB, bTile(stage), aTile(stage));
           Value box = byteOffset(
               shared, tile,
               mul(select(inB, sub(j, c32(boxesA)), j), c32(32 * 128)));
           SmallVector<Value> column;
           for (int64_t k = 0; k < 32; ++k) {
             Value unit = arith::XOrIOp::create(b, loc, chunk, c32(k % 8));
             column.push_back(LLVM::LoadOp::create(
                 b, loc, f32,
                 byteOffset(shared, box,
                            add(c32(k * 128), add(mul(unit, c32(16)), within))),
                 4));
           }
           NVVM::SyncWarpOp::create(b, loc, c32(-1));
           for (int64_t u = 0; u < 8; ++u) {
             Value quad = vector::FromElementsOp::create(
                 b, loc, quadType, ArrayRef<Value>(column).slice(4 * u, 4));
             Value unit = arith::XOrIOp::create(b, loc, c32(u), rowPhase);
             LLVM::StoreOp::create(
                 b, loc, RoundTf32Op::buildScalar(b, loc, quad),
                 byteOffset(shared, box, add(rowOffset, mul(unit, c32(16)))),
                 16);
           }
           return {};
         });
  }

  void consumer(Value tid, Value total, Value group, ArrayRef<Value> storeMaps,
                ArrayRef<Value> stagedMaps) {
    MLIRContext *context = b.getContext();
    int64_t mTiles = spec.consumerRows() / 64;
    Type accType = LLVM::LLVMStructType::getLiteral(
        context, SmallVector<Type>(spec.tileN / 2, f32));
    Value thread = sub(tid, mul(group, c32(128)));
    Value warp = div(thread, c32(32)), lane = rem(thread, c32(32));
    Value consumerIndex = sub(group, c32(1));
    // This warp group's first row of the tile (ping-pong: all its rows).
    consumerRow0 =
        spec.pingpong ? c32(0) : mul(consumerIndex, c32(mTiles * 64));
    Value aRowBytes = mul(consumerRow0, c32(128)); // 128 bytes per A row
    // Clusters: the stage is the peer's to refill too (its multicast). The
    // arrival releases at CTA scope, as the local one: the stage's reads are
    // done (wgmma waited for), and a cluster-scope release would wait for
    // every memory operation of the warp, in the MMA loop.
    Value peer = spec.multicastsB() ? sub(c32(1), clusterRank) : Value();
    auto release = [&](Value it) {
      ifThen(eq(lane, 0), [&] {
        Value empty = emptyBarrier(rem(it, c32(spec.stages)));
        NVVM::MBarrierArriveOp::create(b, loc, i64, empty, Value(),
                                       NVVM::MemScopeKind::CTA, false);
        if (peer)
          NVVM::MBarrierArriveOp::create(
              b, loc, Type(),
              NVVM::MapaOp::create(
                  b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), empty,
                  peer),
              Value(), NVVM::MemScopeKind::CTA, false);
      });
    };

    // Ping-pong: consumer i takes the CTA's tiles i, i + 2, ...; the ring's
    // stages before one of them are all earlier tiles' K steps (one split:
    // every tile has kTiles of them). A consumer starts a tile's main loop
    // only when the other has waited for all of the previous tile's stages:
    // a full barrier's parity tells apart only its last two phases, so no
    // consumer may wait on a stage more than one round ahead of the loads.
    Value first = unitFirst, end = unitEnd, step = unitStep;
    if (spec.pingpong) {
      first = add(unitFirst, mul(consumerIndex, unitStep));
      step = mul(unitStep, c32(2));
    }
    loop(first, end, step, ValueRange{c32(0)},
         [&](Value t, ValueRange args) -> SmallVector<Value> {
           Tile tl = unit(t);
           Value itBegin = args[0];
           SmallVector<Value> columnPairs = loadColumnPairs(tl, lane);
           // The consumer's n-th tile: its staged inputs' phase.
           Value inputsParity = andI(div(sub(t, first), step), c32(1));
           if (!staged.empty())
             ifThen(eq(thread, 0),
                    [&] { loadStagedInputs(tl, consumerIndex, stagedMaps); });
           if (spec.pingpong) {
             // The CTA's tile (or pair) index.
             Value local = div(sub(t, unitFirst), unitStep);
             itBegin = mul(local, kTiles);
             // The other consumer's tiles so far each arrived once.
             ifThen(ugt(local, c32(0)), [&] {
               waitParity(turnBarrier(consumerIndex),
                          andI(div(sub(local, c32(1)), c32(2)), c32(1)));
             });
           }
           // The MMAs' accumulators, then (exact f32) the sums they are
           // promoted into, then the stage counter.
           int64_t sums = spec.promoteEvery ? mTiles : 0;
           SmallVector<Value> init(mTiles + sums,
                                   LLVM::ZeroOp::create(b, loc, accType));
           init.push_back(itBegin);
           ValueRange end = loop(
               c32(0), tl.kCount, c32(1), init,
               [&](Value kk, ValueRange carried) -> SmallVector<Value> {
                 Value it = carried.back();
                 auto [stage, parity] = ringSlot(it, spec.stages);
                 waitParity(fullBarrier(stage), parity);
                 Value aBase = add(sharedAddress(aTile(stage)),
                                   wide(aRowBytes));
                 Value bBase = sharedAddress(bTile(stage));
                 SmallVector<Value> accs(carried.take_front(mTiles));
                 SmallVector<Value> totals(carried.drop_front(mTiles).drop_back());
                 NVVM::WgmmaFenceAlignedOp::create(b, loc);
                 // One MMA's K slice: 32 bytes of a K-major row, or 16
                 // MN-major rows (2 KiB). Transposed TF32 tiles are K-major.
                 auto kStep = [](bool mnMajor) { return mnMajor ? 2048 : 32; };
                 bool aMnMajor = spec.aMnMajor && !spec.transposesA();
                 bool bMnMajor = spec.bMnMajor && !spec.transposesB();
                 for (int64_t ks = 0; ks < spec.tileK() / spec.mmaK(); ++ks) {
                   Value descB = operandDescriptor(
                       add(bBase, c64(kStep(bMnMajor) * ks)), bMnMajor);
                   for (int64_t mt = 0; mt < mTiles; ++mt) {
                     // Rows (or 64-element M chunks) of this subtile: 8 KiB.
                     Value descA = operandDescriptor(
                         add(aBase, c64(mt * 64 * 128 + kStep(aMnMajor) * ks)),
                         aMnMajor);
                     NVVM::WGMMATypes type = spec.tf32 ? NVVM::WGMMATypes::tf32
                                                       : NVVM::WGMMATypes::bf16;
                     accs[mt] = NVVM::WgmmaMmaAsyncOp::create(
                         b, loc, accType, accs[mt], descA, descB,
                         NVVM::MMAShapeAttr::get(context, 64, spec.tileN,
                                                 spec.mmaK()),
                         type, type, NVVM::WGMMATypes::f32,
                         NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
                         NVVM::WGMMAScaleIn::one,
                         aMnMajor ? NVVM::MMALayout::col
                                  : NVVM::MMALayout::row,
                         bMnMajor ? NVVM::MMALayout::row
                                  : NVVM::MMALayout::col,
                         nullptr);
                   }
                 }
                 NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
                 // The previous stage's MMAs are done: hand it back.
                 NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
                 ifThen(cmp(arith::CmpIPredicate::ugt, kk, c32(0)),
                        [&] { release(sub(it, c32(1))); });
                 if (spec.promoteEvery)
                   promote(kk, tl.kCount, accs, totals, accType);
                 accs.append(totals);
                 accs.push_back(add(it, c32(1)));
                 return accs;
               });
           if (spec.pingpong)
             ifThen(eq(thread, 0), [&] {
               NVVM::MBarrierArriveOp::create(
                   b, loc, i64, turnBarrier(sub(c32(1), consumerIndex)),
                   Value(), NVVM::MemScopeKind::CTA, false);
             });
           NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
           Value itEnd = end.back();
           ValueRange results = spec.promoteEvery
                                    ? end.drop_front(mTiles).drop_back()
                                    : end.drop_back();
           ifThen(cmp(arith::CmpIPredicate::ugt, tl.kCount, c32(0)),
                  [&] { release(sub(itEnd, c32(1))); });
           auto finish = [&](ValueRange accs) {
             finishTile(tl, accs, consumerIndex, thread, warp, lane, mTiles,
                        storeMaps, columnPairs, inputsParity);
           };
           if (!spec.streamK) {
             finish(results);
             return {itEnd};
           }
           // Stream-K: a unit ending before its tile does is shared with
           // the CTA that finishes the tile (the one that runs its last K
           // step); that one adds the shared parts and finishes it, as it
           // does a whole tile.
           Value kEnd = add(tl.kBegin, tl.kCount);
           auto shared = scf::IfOp::create(b, loc, ult(kEnd, kTiles),
                                           /*withElse=*/true);
           {
             OpBuilder::InsertionGuard guard(b);
             b.setInsertionPointToStart(shared.thenBlock());
             storePartial(cta, consumerIndex, thread, results, mTiles);
             namedBarrier(add(consumerIndex, c32(1)), 128);
             ifThen(eq(thread, 0), [&] {
               LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel,
                                     "device");
               LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                                         flag(cta), c32(1),
                                         LLVM::AtomicOrdering::monotonic,
                                         "device", /*alignment=*/4);
             });
             b.setInsertionPointToStart(shared.elseBlock());
             finish(addSharedParts(tl.index, consumerIndex, thread, results,
                                   mTiles));
           }
           return {itEnd};
         });
    // The last tile's stores must have read shared memory before exit.
    if (spec.tmaStore)
      ifThen(eq(thread, 0), [&] {
        NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                             nullptr);
      });
  }

  /// Every `promoteEvery` K steps (and after the last): wait for the MMAs,
  /// add their accumulators into `totals` with round-to-nearest f32 adds and
  /// restart them from zero. The tensor cores' own accumulation loses low
  /// bits over long K (measured: relative error growing with K, 2e-4 at
  /// K = 16384), which exact f32 cannot afford.
  void promote(Value kk, Value kCount, SmallVectorImpl<Value> &accs,
               SmallVectorImpl<Value> &totals, Type accType) {
    Value next = add(kk, c32(1));
    Value due = arith::OrIOp::create(
        b, loc, eq(rem(next, c32(spec.promoteEvery)), 0),
        cmp(arith::CmpIPredicate::eq, next, kCount));
    SmallVector<Type> types(accs.size() + totals.size(), accType);
    auto branch = scf::IfOp::create(b, loc, types, due, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
      SmallVector<Value> yields;
      Value zero = LLVM::ZeroOp::create(b, loc, accType);
      for (size_t i = 0; i < accs.size(); ++i)
        yields.push_back(zero);
      int64_t n = cast<LLVM::LLVMStructType>(accType).getBody().size();
      for (auto [acc, total] : llvm::zip(accs, totals)) {
        Value sum = LLVM::UndefOp::create(b, loc, accType);
        for (int64_t i = 0; i < n; ++i) {
          Value x = arith::AddFOp::create(
              b, loc, LLVM::ExtractValueOp::create(b, loc, total, i),
              LLVM::ExtractValueOp::create(b, loc, acc, i));
          sum = LLVM::InsertValueOp::create(b, loc, sum, x, i);
        }
        yields.push_back(sum);
      }
      scf::YieldOp::create(b, loc, yields);
      b.setInsertionPointToStart(branch.elseBlock());
      SmallVector<Value> same(accs.begin(), accs.end());
      same.append(totals.begin(), totals.end());
      scf::YieldOp::create(b, loc, same);
    }
    for (size_t i = 0; i < accs.size(); ++i) {
      accs[i] = branch.getResult(i);
      totals[i] = branch.getResult(accs.size() + i);
    }
  }

  /// C's element type (f32 for split-K partial sums).
  Type outElement() {
    return spec.outBytes() == 2 ? Type(b.getBF16Type()) : f32;
  }

  /// An f32 accumulator value in C's element type.
  Value convert(Value v) {
    Type element = outElement();
    return element.isF32()
               ? v
               : arith::TruncFOp::create(b, loc, element, v).getResult();
  }

  /// Box j of subtile mt (bf16 C: 64 rows x 64 columns) written with
  /// stmatrix: one x4 per warp and pair of column groups i, i + 1 stores
  /// the warp's four 8x8 matrices (rows 0-7 and 8-15 of each group), lane l
  /// giving the address of row l % 8 of matrix l / 8 and, as register q,
  /// its own fragment pair of matrix q: the accumulator's layout (registers
  /// 4i + 2h, 4i + 2h + 1 at row 8h + l / 4, columns 2 (l % 4) + {0, 1}).
  /// A matrix row is one 16-byte unit, so the box's swizzle (unit u of row
  /// r at u ^ r % 8) only moves whole rows. A quarter of the stores of
  /// pairs, with fewer address computations.
  void stmatrixBox(
      int64_t mt, int64_t j, Value warp, Value lane, Value buffer,
      function_ref<std::pair<Value, Value>(int64_t, int64_t, Value, Value)>
          pairAt,
      function_ref<void(int64_t, int64_t)> afterColumns) {
    constexpr int64_t groupsPerBox = 8; // 64 bf16 columns of 8
    Value rowInTile = add(mul(warp, c32(16)), div(lane, c32(4)));
    Value pairCol = mul(rem(lane, c32(4)), c32(2));
    Value matrix = div(lane, c32(8)), rowInMatrix = rem(lane, c32(8));
    // The row this lane addresses: 16 warp + 8 (matrix % 2) + l % 8.
    Value addressRow = add(add(mul(warp, c32(16)),
                               mul(rem(matrix, c32(2)), c32(8))),
                           rowInMatrix);
    Type i32 = b.getI32Type();
    VectorType pairType = VectorType::get({2}, outElement());
    for (int64_t i = j * groupsPerBox; i < (j + 1) * groupsPerBox; i += 2) {
      SmallVector<Value> sources;
      for (int64_t g = i; g < i + 2; ++g) {
        for (int64_t h = 0; h < 2; ++h) {
          auto [v0, v1] =
              pairAt(mt, 4 * g + 2 * h,
                     add(add(rowInTile, c32(8 * h)), c32(64 * mt)),
                     add(pairCol, c32(8 * g)));
          Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                                      ValueRange{v0, v1});
          sources.push_back(LLVM::BitcastOp::create(b, loc, i32, pair));
        }
        if (afterColumns)
          afterColumns(mt, g);
      }
      // This lane's matrix row: column group i + matrix / 2 of the box.
      Value unit = add(c32(i % groupsPerBox), div(matrix, c32(2)));
      Value swizzled = arith::XOrIOp::create(b, loc, unit, rowInMatrix);
      Value offset = add(mul(addressRow, c32(128)), mul(swizzled, c32(16)));
      NVVM::StMatrixOp::create(b, loc, byteOffset(shared, buffer, offset),
                               sources, NVVM::MMALayout::row,
                               NVVM::LdStMatrixShapeAttr::get(
                                   b.getContext(), 8, 8),
                               NVVM::LdStMatrixEltType::B16);
    }
  }

  /// The consumer's C rows, box by box ([64 rows, 128 bytes], 128B-swizzled),
  /// through a ring of two box buffers in shared memory: each box is written
  /// and TMA-stored while the previous one's store is still reading. A box
  /// waits only for the store of the box before the previous one (the
  /// tile's first box for all of them: what the last tile left pending).
  /// Fragment (r, c) goes to byte r * 128 + ((u ^ r % 8) * 16) + within, u the
  /// 16-byte unit of c in the box row: the eight rows one store instruction
  /// touches land in eight different units, no bank conflicts.
  /// `pairAt(mt, reg, row, col)` gives the values (in C's type) of registers
  /// reg and reg + 1 of subtile mt, at fragment row `row` of the tile (0..63
  /// + 64 mt) and column `col`; `afterColumns(mt, i)` runs after column
  /// group i's pairs (groups in ascending order per subtile).
  void stageAndStore(
      const Tile &tl, Value consumerIndex, Value thread, Value warp,
      Value lane, int64_t mTiles, Value map,
      function_ref<std::pair<Value, Value>(int64_t, int64_t, Value, Value)>
          pairAt,
      function_ref<void(int64_t, int64_t)> afterColumns = {}) {
    Type outElement = this->outElement();
    int64_t outBytes = spec.outBytes();
    int64_t boxCols = 128 / outBytes, boxes = spec.tileN / boxCols;
    Value ring = byteOffset(
        shared, smem,
        add(c32(spec.stages * spec.stageBytes()),
            mul(consumerIndex, c32(kEpilogueRingBytes))));
    Value barrierId = add(consumerIndex, c32(1)); // 0 is the CTA's
    auto groupBarrier = [&] { namedBarrier(barrierId, 128); };
    Value rowInTile = add(mul(warp, c32(16)), div(lane, c32(4)));
    Value pairCol = mul(rem(lane, c32(4)), c32(2));
    Value plane = add(mul(tl.split, batch), tl.batch);
    for (int64_t mt = 0; mt < mTiles; ++mt) {
      for (int64_t j = 0; j < boxes; ++j) {
        int64_t n = mt * boxes + j;
        Value buffer = byteOffset(shared, ring, c32(n % 2 * kEpilogueBoxBytes));
        // This buffer's last store has read it.
        ifThen(eq(thread, 0), [&] {
          NVVM::CpAsyncBulkWaitGroupOp::create(
              b, loc, b.getI32IntegerAttr(n == 0 ? 0 : 1), b.getUnitAttr());
        });
        groupBarrier();
        if (spec.stmatrix) {
          stmatrixBox(mt, j, warp, lane, buffer, pairAt, afterColumns);
        } else {
          for (int64_t i = j * boxCols / 8; i < (j + 1) * boxCols / 8; ++i) {
            for (int64_t h = 0; h < 2; ++h) {
              Value row = add(rowInTile, c32(8 * h)); // 0..63 in the box
              int64_t col0 = 8 * i;                   // + pairCol
              Value offset = swizzledBoxOffset(
                  row, mul(add(c32(col0 % boxCols), pairCol), c32(outBytes)));
              auto [v0, v1] = pairAt(mt, 4 * i + 2 * h, add(row, c32(64 * mt)),
                                     add(pairCol, c32(col0)));
              Value pair = vector::FromElementsOp::create(
                  b, loc, VectorType::get({2}, outElement), ValueRange{v0, v1});
              LLVM::StoreOp::create(b, loc, pair,
                                    byteOffset(shared, buffer, offset),
                                    2 * outBytes);
            }
            if (afterColumns)
              afterColumns(mt, i);
          }
        }
        fenceAsyncShared(); // before the TMA reads the box
        groupBarrier();
        ifThen(eq(thread, 0), [&] {
          Value row = add(tl.row0, add(consumerRow0, c32(mt * 64)));
          NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
              b, loc, map, buffer,
              ValueRange{add(tl.col0, c32(j * boxCols)), row, plane}, Value(),
              NVVM::TMAStoreMode::TILE, Value());
          NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
        });
      }
    }
  }

  /// The epilogue region at every fragment pair of the consumer's rows (see
  /// the file comment): its element results staged and stored one after
  /// another, its partial sums (with the first) from registers.
  void fusedEpilogue(const Tile &tl, ValueRange accs, Value consumerIndex,
                     Value thread, Value warp, Value lane, int64_t mTiles,
                     ArrayRef<Value> storeMaps, ArrayRef<Value> columnPairs,
                     Value inputsParity) {
    const FusedRowsPlan &plan = *spec.epiloguePlan;
    Block &region = spec.epilogue.getBody().front();
    auto yield = cast<YieldOp>(region.getTerminator());
    Value product = plan.matmul->getResult(0);
    Type productType =
        cast<RankedTensorType>(product.getType()).getElementType();
    RegionElements values(b, loc, plan, region, /*width=*/2);
    values.pointers = epilogueInputs;
    values.emitKnown(0, /*scalars=*/true);
    SmallVector<Operation *> partials;
    for (Value v : yield.getValues())
      if (plan.kind.lookup(v) == RowKind::Partial)
        partials.push_back(v.getDefiningOp());
    // Rows of the tile this consumer holds, in the matrix.
    Value rowBase = add(tl.row0, consumerRow0);
    Value lastRow = sub(m, c32(1)), lastPair = sub(n, c32(2));
    SmallVector<unsigned> stored = spec.storedResults();
    if (!staged.empty())
      waitParity(inputsBarrier(consumerIndex), inputsParity);
    // Staged input `s`'s pair at (rowInTile, col) of the consumer's rows:
    // where stageAndStore writes that pair of a C box.
    Type bf16 = b.getBF16Type();
    auto stagedPair = [&](int64_t s, Value rowInTile, Value col) {
      Value box = add(mul(div(rowInTile, c32(64)), c32(spec.tileN / 64)),
                      div(col, c32(64)));
      Value offset = add(mul(box, c32(kEpilogueBoxBytes)),
                         swizzledBoxOffset(rem(rowInTile, c32(64)),
                                           mul(rem(col, c32(64)), c32(2))));
      Value pair = LLVM::LoadOp::create(
          b, loc, VectorType::get({2}, bf16),
          byteOffset(shared, stagedTile(consumerIndex, s), offset), 4);
      return SmallVector<Value>{
          values.widen(vector::ExtractOp::create(b, loc, pair, 0), false),
          values.widen(vector::ExtractOp::create(b, loc, pair, 1), false)};
    };
    for (auto [s, result] : llvm::enumerate(stored)) {
      Value target = yield.getValues()[result];
      bool withPartials = s == 0;
      // Per partial, this column group's two column sums.
      SmallVector<std::array<Value, 2>> sums;
      auto combine = [&](Operation *reduce, Value x, Value y) {
        return isa<ReduceMaxOp>(reduce) ? fmax(x, y) : fadd(x, y);
      };
      auto pairAt = [&](int64_t mt, int64_t reg, Value rowInTile,
                        Value col) -> std::pair<Value, Value> {
        bool firstRow = reg % 4 == 0;
        // A new column group: nothing of the last one is reused.
        if (firstRow)
          values.chunk.clear();
        else
          for (auto it = values.chunk.begin(); it != values.chunk.end();) {
            auto next = std::next(it);
            if (plan.kind.lookup(it->first) != RowKind::Column)
              values.chunk.erase(it);
            it = next;
          }
        // Loads stay in bounds; out-of-range values are clipped by the
        // stores and left out of the sums.
        values.row = min(add(rowBase, rowInTile), lastRow);
        values.column = min(add(tl.col0, col), lastPair);
        SmallVector<Value> acc;
        for (int64_t e = 0; e < 2; ++e) {
          Value x = LLVM::ExtractValueOp::create(b, loc, accs[mt], reg + e);
          acc.push_back(values.widen(
              values.narrow(x, RegionElements::storageType(productType,
                                                           b.getContext())),
              /*boolean=*/false));
        }
        values.chunk[product] = acc;
        for (auto [c, input] : llvm::enumerate(columnInputs)) {
          Value pair = columnPairs[c * (spec.tileN / 8) + reg / 4];
          values.chunk[input] = {
              values.widen(vector::ExtractOp::create(b, loc, pair, 0), false),
              values.widen(vector::ExtractOp::create(b, loc, pair, 1), false)};
        }
        for (auto [s, input] : llvm::enumerate(staged))
          values.chunk[input] = stagedPair(s, rowInTile, col);
        if (withPartials) {
          if (firstRow)
            sums.clear();
          for (auto [p, reduce] : llvm::enumerate(partials)) {
            SmallVector<Value> x = values.elements(reduce->getOperand(0));
            if (firstRow)
              sums.push_back({x[0], x[1]});
            else
              sums[p] = {combine(reduce, sums[p][0], x[0]),
                         combine(reduce, sums[p][1], x[1])};
          }
        }
        SmallVector<Value> out = values.elements(target);
        return {values.narrow(out[0], outElement()),
                values.narrow(out[1], outElement())};
      };
      // A column group's partial sums over the warp's 16 rows: lanes l,
      // l ^ 4, ..., l ^ 28 hold one column pair's other rows.
      auto storeSums = [&](int64_t mt, int64_t i) {
        Value groupRow = add(rowBase, c32(64 * mt));
        groupRow = add(groupRow, mul(warp, c32(16)));
        Value col = add(add(tl.col0, c32(8 * i)),
                        mul(rem(lane, c32(4)), c32(2)));
        Value ok = andI(andI(ult(lane, c32(4)), ult(groupRow, m)),
                        ult(col, n));
        for (auto [p, reduce] : llvm::enumerate(partials)) {
          std::array<Value, 2> total = sums[p];
          for (Value &t : total) {
            for (int64_t offset : {4, 8, 16})
              t = combine(reduce, t,
                          NVVM::ShflOp::create(b, loc, f32, c32(-1), t,
                                               c32(offset), c32(0x1f),
                                               NVVM::ShflKind::bfly,
                                               UnitAttr())
                              .getResult());
            if (isa<ReduceMeanOp>(reduce))
              t = fmul(t, cf(1.0 / double(plan.rowsPerGroup)));
          }
          unsigned index = llvm::find(yield.getValues(), reduce->getResult(0)) -
                           yield.getValues().begin();
          ifThen(ok, [&] {
            Value offset = add(mul(wide(div(groupRow, c32(16))), wide(n)),
                               wide(col));
            Value address = LLVM::GEPOp::create(
                b, loc, global, f32, epilogueResults[index],
                ValueRange{offset});
            Value pair = vector::FromElementsOp::create(
                b, loc, VectorType::get({2}, f32),
                ValueRange{total[0], total[1]});
            LLVM::StoreOp::create(b, loc, pair, address, 8);
          });
        }
      };
      stageAndStore(tl, consumerIndex, thread, warp, lane, mTiles,
                    storeMaps[s], pairAt,
                    withPartials && !partials.empty()
                        ? function_ref<void(int64_t, int64_t)>(storeSums)
                        : function_ref<void(int64_t, int64_t)>());
    }
  }

  /// Accumulator fragment (row, col) of register 4i + 2h + {0, 1}: row
  /// 16 warp + lane / 4 + 8 h, col 8 i + 2 (lane % 4) + {0, 1}.
  void epilogue(const Tile &tl, ValueRange accs, Value warp, Value lane,
                int64_t mTiles) {
    Type outElement = this->outElement();
    unsigned outBytes = spec.outBytes();
    Value rowBase = add(add(tl.row0, consumerRow0),
                        add(mul(warp, c32(16)), div(lane, c32(4))));
    Value colBase = add(tl.col0, mul(rem(lane, c32(4)), c32(2)));
    // C (or this split's partial sums) of the tile's batch.
    Value plane = add(mul(tl.split, batch), tl.batch);
    Value planeOffset = mul(wide(plane), mul(wide(m), wide(n)));
    Value nEven = eq(rem(n, c32(2)), 0);
    Value inside = andI(
        andI(cmp(arith::CmpIPredicate::ule, add(tl.row0, c32(spec.tileM)), m),
             cmp(arith::CmpIPredicate::ule, add(tl.col0, c32(spec.tileN)), n)),
        nEven);
    auto address = [&](Value row, Value col) {
      Value offset = add(planeOffset, add(mul(wide(row), wide(n)), wide(col)));
      return LLVM::GEPOp::create(b, loc, global, outElement, c,
                                 ValueRange{offset})
          .getResult();
    };
    auto stores = [&](bool predicated) {
      for (int64_t mt = 0; mt < mTiles; ++mt) {
        for (int64_t i = 0; i < spec.tileN / 8; ++i) {
          for (int64_t h = 0; h < 2; ++h) {
            Value row = add(rowBase, c32(mt * 64 + 8 * h));
            Value col = add(colBase, c32(8 * i));
            int64_t reg = 4 * i + 2 * h;
            Value v0 = convert(LLVM::ExtractValueOp::create(b, loc, accs[mt], reg));
            Value v1 = convert(
                LLVM::ExtractValueOp::create(b, loc, accs[mt], reg + 1));
            if (!predicated) {
              Value pair = vector::FromElementsOp::create(
                  b, loc, VectorType::get({2}, outElement), ValueRange{v0, v1});
              LLVM::StoreOp::create(b, loc, pair, address(row, col),
                                    2 * outBytes);
              continue;
            }
            Value rowOk = cmp(arith::CmpIPredicate::ult, row, m);
            ifThen(andI(rowOk, cmp(arith::CmpIPredicate::ult, col, n)), [&] {
              LLVM::StoreOp::create(b, loc, v0, address(row, col), outBytes);
            });
            Value col1 = add(col, c32(1));
            ifThen(andI(rowOk, cmp(arith::CmpIPredicate::ult, col1, n)), [&] {
              LLVM::StoreOp::create(b, loc, v1, address(row, col1), outBytes);
            });
          }
        }
      }
    };
    auto branch = scf::IfOp::create(b, loc, inside, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    stores(false);
    b.setInsertionPointToStart(branch.elseBlock());
    stores(true);
  }

  void body(gpu::GPUFuncOp func, LLVM::GlobalOp smemGlobal) {
    Block &entry = func.getBody().front();
    a = entry.getArgument(0);
    bOperand = entry.getArgument(1);
    unsigned param = 2;
    if (spec.epilogue)
      for (BlockArgument arg :
           cuda::epilogueInputs(spec.epiloguePlan->matmul)) {
        epilogueInputs[arg] = entry.getArgument(param++);
        if (spec.epiloguePlan->kind.lookup(arg) == RowKind::Column &&
            isa<FloatType>(
                cast<RankedTensorType>(arg.getType()).getElementType()))
          columnInputs.push_back(arg);
      }
    if (spec.streamK)
      flags = entry.getArgument(param++);
    if (spec.epilogue) {
      for (unsigned i = 0; i < spec.epilogue.getNumResults(); ++i)
        epilogueResults.push_back(entry.getArgument(param++));
    } else {
      c = entry.getArgument(param++);
    }
    scratch = entry.getArgument(param++);
    m = entry.getArgument(param++);
    n = entry.getArgument(param++);
    k = entry.getArgument(param++);
    batch = entry.getArgument(param++);
    smem = LLVM::AddressOfOp::create(b, loc, smemGlobal);
    staged = spec.stagedInputs();

    Value tid = id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    cta = id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    ctas = id(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    tilesM = ceilDiv(m, spec.tileM);
    tilesN = ceilDiv(n, spec.tileN);
    bool pairs = spec.multicastsB();
    clusterRank = pairs ? rem(cta, c32(2)) : c32(0);
    unitRowsM = pairs ? div(tilesM, c32(2)) : tilesM;
    perBatch = mul(unitRowsM, tilesN);
    perSplit = mul(perBatch, batch);
    kTiles = ceilDiv(k, spec.tileK());
    kPerSplit = div(add(kTiles, c32(spec.splitK - 1)), c32(spec.splitK));
    Value total = mul(perSplit, c32(spec.splitK));
    // Clusters: cluster c (CTAs 2c, 2c + 1) takes pairs c, c + ctas / 2, ...
    unitFirst = pairs ? div(cta, c32(2)) : cta;
    unitEnd = total;
    unitStep = pairs ? div(ctas, c32(2)) : ctas;
    if (spec.streamK) {
      // CTA c runs K steps [c I / ctas, (c + 1) I / ctas) of all I: the
      // tiles it touches, last first (see unit()).
      iters = mul(total, kTiles);
      startIter = firstIteration(cta);
      endIter = firstIteration(add(cta, c32(1)));
      Value firstTile = div(startIter, kTiles);
      Value endTile = select(ult(startIter, endIter),
                             add(div(sub(endIter, c32(1)), kTiles), c32(1)),
                             firstTile);
      lastTile = sub(endTile, c32(1));
      unitFirst = c32(0);
      unitEnd = sub(endTile, firstTile);
      unitStep = c32(1);
    }

    Value mapA = scratchSlot(cta);
    Value mapB = byteOffset(global, mapA, c32(kTensorMapBytes));
    // C's map, or one per result the epilogue stores.
    SmallVector<Value> storeMaps;
    if (spec.tmaStore)
      for (size_t j = 0; j < std::max<size_t>(1, spec.storedResults().size());
           ++j)
        storeMaps.push_back(
            byteOffset(global, mapA, c32((2 + j) * kTensorMapBytes)));
    SmallVector<Value> stagedMaps;
    for (size_t j = 0; j < staged.size(); ++j)
      stagedMaps.push_back(
          byteOffset(global, mapA,
                     c32(int64_t(2 + storeMaps.size() + j) * kTensorMapBytes)));
    ifThen(eq(tid, 0), [&] {
      int operandType = spec.tf32 ? kTensorMapF32 : kTensorMapBf16;
      // K-major [batch, rows, K] in boxes of all the tile's rows; MN-major
      // [batch, K, rows] in boxes of the stage's K rows.
      auto operandMap = [&](Value map, Value base, Value rows, int64_t tileRows,
                            bool mnMajor) {
        if (mnMajor)
          encodeTensorMap(map, base, batch, k, rows, spec.tileK(),
                          spec.elementBytes(), operandType);
        else
          encodeTensorMap(map, base, batch, rows, k, tileRows,
                          spec.elementBytes(), operandType);
      };
      operandMap(mapA, a, m, spec.tileM, spec.aMnMajor);
      operandMap(mapB, bOperand, n, spec.bLoadRows(), spec.bMnMajor);
      // C (or the partial sums) as [split x batch, M, N] in boxes of one
      // consumer's 64 rows.
      SmallVector<Value> outputs = {c};
      if (spec.epilogue) {
        outputs.clear();
        for (unsigned result : spec.storedResults())
          outputs.push_back(epilogueResults[result]);
      }
      for (auto [map, output] : llvm::zip(storeMaps, outputs))
        encodeTensorMap(map, output, mul(batch, c32(spec.splitK)), m, n, 64,
                        spec.outBytes(),
                        spec.outBytes() == 2 ? kTensorMapBf16 : kTensorMapF32);
      // Staged inputs: [batch, M, N] bf16 in the C boxes' shape.
      for (auto [map, input] : llvm::zip(stagedMaps, staged))
        encodeTensorMap(map, epilogueInputs.lookup(input), batch, m, n, 64, 2,
                        kTensorMapBf16);
      SmallVector<Value> maps = {mapA, mapB};
      maps.append(storeMaps);
      maps.append(stagedMaps);
      publishTensorMaps(maps);
      for (int64_t s = 0; s < spec.stages; ++s) {
        // Full: the TMA thread's arrival, then each transposer warp's.
        NVVM::MBarrierInitOp::create(
            b, loc, fullBarrier(c32(s)),
            c32(1 + (spec.transposes() ? kTransposerThreads / 32 : 0)),
            Value());
        if (spec.transposes())
          NVVM::MBarrierInitOp::create(b, loc, stagedBarrier(c32(s)), c32(1),
                                       Value());
        // A stage is freed by each warp that reads it: all consumers'
        // (cooperative) or one consumer's (ping-pong), of both CTAs of a
        // cluster.
        NVVM::MBarrierInitOp::create(
            b, loc, emptyBarrier(c32(s)),
            c32(4 * (spec.pingpong ? 1 : spec.consumers) * spec.clusterM),
            Value());
      }
      for (int64_t i = 0; spec.pingpong && i < spec.consumers; ++i)
        NVVM::MBarrierInitOp::create(b, loc, turnBarrier(c32(i)), c32(1),
                                     Value());
      for (int64_t i = 0; !staged.empty() && i < spec.consumers; ++i)
        NVVM::MBarrierInitOp::create(b, loc, inputsBarrier(c32(i)), c32(1),
                                     Value());
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    // Clusters: the peer's barriers are initialized before any multicast
    // or remote arrival reaches them.
    auto clusterBarrier = [&] {
      NVVM::ClusterArriveOp::create(b, loc, nullptr);
      NVVM::ClusterWaitOp::create(b, loc, nullptr);
    };
    if (spec.multicastsB())
      clusterBarrier();
    else
      gpu::BarrierOp::create(b, loc);

    splitRoles(
        tid, spec.movesRegisters(), spec.producerRegisters(),
        spec.consumerRegisters(),
        [&] { producer(tid, toGeneric(mapA), toGeneric(mapB)); },
        [&](Value group) {
          SmallVector<Value> generic, genericStaged;
          for (Value map : storeMaps)
            generic.push_back(toGeneric(map));
          for (Value map : stagedMaps)
            genericStaged.push_back(toGeneric(map));
          consumer(tid, total, group, generic, genericStaged);
        });
    // No CTA leaves while its peer may still arrive on its barriers.
    if (spec.multicastsB())
      clusterBarrier();
    gpu::ReturnOp::create(b, loc);
  }
};

} // namespace

SmallVector<unsigned> WgmmaGemmSpec::storedResults() const {
  SmallVector<unsigned> stored;
  if (!epilogue)
    return stored;
  auto yield = cast<YieldOp>(epilogue.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(yield.getValues()))
    if (epiloguePlan->kind.lookup(v) == RowKind::Element)
      stored.push_back(i);
  return stored;
}

SmallVector<BlockArgument> WgmmaGemmSpec::stagedInputs() const {
  if (!epilogue)
    return {};
  return stagedEpilogueInputs(*epiloguePlan);
}

SmallVector<BlockArgument>
cuda::stagedEpilogueInputs(const FusedRowsPlan &plan) {
  SmallVector<BlockArgument> inputs;
  for (BlockArgument arg : epilogueInputs(plan.matmul))
    if (plan.kind.lookup(arg) == RowKind::Element)
      inputs.push_back(arg);
  return inputs;
}

SmallVector<BlockArgument> cuda::epilogueInputs(Operation *matmul) {
  SmallVector<BlockArgument> inputs;
  for (BlockArgument arg : matmul->getBlock()->getArguments())
    if (!llvm::is_contained(matmul->getOperands(), Value(arg)))
      inputs.push_back(arg);
  return inputs;
}

LogicalResult cuda::checkEpilogueRegion(const FusedRowsPlan &plan,
                                        std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (!plan.matmul)
    return fail("the region has no matmul");
  if (plan.rowReductions)
    return fail("an epilogue cannot reduce over a row");
  if (plan.partials && (plan.rowsPerGroup != 16 || plan.rows % 16))
    return fail("partial sums must be over whole groups of 16 rows");
  Block &body = plan.matmul->getBlock()->getParentOp()->getRegion(0).front();
  bool element = false;
  for (Value v : body.getTerminator()->getOperands()) {
    RowKind kind = plan.kind.lookup(v);
    if (kind == RowKind::Row)
      return fail("an epilogue has no per-row results");
    if (kind == RowKind::Element) {
      element = true;
      if (!cast<RankedTensorType>(v.getType()).getElementType().isBF16())
        return fail("an epilogue's element results must be bf16");
    }
  }
  if (!element)
    return fail("an epilogue stores at least one element result");
  for (BlockArgument arg : body.getArguments())
    if (plan.kind.lookup(arg) == RowKind::Row)
      return fail("an epilogue takes no per-row inputs");
  SmallVector<BlockArgument> staged = stagedEpilogueInputs(plan);
  for (BlockArgument arg : staged)
    if (!cast<RankedTensorType>(arg.getType()).getElementType().isBF16())
      return fail("an epilogue's element inputs must be bf16 (staged in "
                  "shared memory)");
  if (int64_t(staged.size()) > kMaxStagedInputs)
    return fail("an epilogue stages at most " + Twine(kMaxStagedInputs) +
                " element input");
  return success();
}

LogicalResult cuda::checkGemmEpilogue(const WgmmaGemmSpec &spec,
                                      const FusedRowsPlan &plan,
                                      std::string &why) {
  if (spec.tf32 || spec.splitK != 1 || !spec.tmaStore || !spec.bf16Result) {
    why = "an epilogue needs a bf16 GEMM of one split with TMA stores";
    return failure();
  }
  // A stream-K unit that does not end its tile runs no epilogue, so its
  // staged inputs' phases would not match the tiles'.
  if (spec.streamK && !spec.stagedInputs().empty()) {
    why = "an epilogue with staged inputs needs whole tiles (no stream-K)";
    return failure();
  }
  return checkEpilogueRegion(plan, why);
}

std::string WgmmaGemmSpec::kernelName() const {
  std::string epilogueSuffix =
      epilogue ? llvm::formatv("_e{0:x16}", epilogueHash).str() : "";
  return llvm::formatv(
             "nova_gemm_{0}{10}_{1}_{2}x{3}x{4}_s{5}_c{6}_g{7}_k{8}{9}{11}{12}{"
             "13}",
             tf32 ? "tf32" : "bf16",
             writesPartials() ? "partial"
             : bf16Result     ? "bf16"
                              : "f32",
             tileM, tileN, tileK(), stages, consumers, rasterGroup, splitK,
             std::string(tmaStore ? "_tma" : "") + (stmatrix ? "_sm" : "") +
                 (pingpong ? "_pp" : "") + (streamK ? "_sk" : ""),
             aMnMajor || bMnMajor ? std::string("_") + (aMnMajor ? "m" : "k") +
                                        (bMnMajor ? "n" : "k")
                                  : std::string(),
             promoteEvery ? "_p" + std::to_string(promoteEvery) : std::string(),
             multicastsB() ? "_x2" : "", epilogueSuffix)
      .str();
}

FailureOr<WgmmaGemmSpec>
cuda::wgmmaGemmSpec(LoweringConfigAttr config, bool bf16Result, int64_t m,
                    int64_t n, bool aMnMajor, bool bMnMajor,
                    int64_t sharedMemoryLimit, std::string &why) {
  WgmmaGemmSpec spec;
  if (config.getKernel() != "wgmma_tma" &&
      config.getKernel() != "wgmma_tma_pingpong" &&
      config.getKernel() != "wgmma_tma_stream_k") {
    why = "kernel family is not wgmma_tma, wgmma_tma_pingpong or "
          "wgmma_tma_stream_k";
    return failure();
  }
  spec.pingpong = config.getKernel() == "wgmma_tma_pingpong";
  spec.streamK = config.getKernel() == "wgmma_tma_stream_k";
  if (spec.streamK && config.getSplitK() != 1) {
    why = "a stream-K GEMM splits K itself (split_k = 1)";
    return failure();
  }
  // tf32x3 runs the TF32 kernel over hi/lo parts its caller lays out,
  // promoting its accumulators to f32 sums as it goes.
  StringRef precision = config.getPrecision();
  spec.tf32 = precision == "tf32" || precision == "tf32x3";
  if (precision == "tf32x3")
    spec.promoteEvery = kExactPromoteEvery;
  if (!spec.tf32 && precision != "bf16") {
    why = ("no wgmma kernel for precision " + config.getPrecision()).str();
    return failure();
  }
  ArrayRef<int64_t> tile = config.getTileSizes();
  ArrayRef<int64_t> warps = config.getWarpLayout();
  if (tile.size() != 3 || warps.size() != 2 || warps[1] != 1) {
    why = "expected a [M, N, K] tile over [consumers, 1] warp groups";
    return failure();
  }
  spec.tileM = tile[0];
  spec.tileN = tile[1];
  // Ping-pong: one warp group per tile, two of them taking turns.
  spec.consumers = spec.pingpong ? 2 : warps[0];
  if (spec.pingpong && (warps[0] != 1 || config.getSplitK() != 1)) {
    why = "a ping-pong GEMM has one warp group per tile and one split";
    return failure();
  }
  spec.stages = config.getPipelineStages();
  spec.rasterGroup = config.getRasterGroup();
  spec.splitK = config.getSplitK();
  spec.bf16Result = bf16Result;
  spec.aMnMajor = aMnMajor && !spec.promoteEvery;
  spec.bMnMajor = bMnMajor && !spec.promoteEvery;
  spec.tmaStore = n * spec.outBytes() % 16 == 0 &&
                  spec.tileN % (128 / spec.outBytes()) == 0;
  if (spec.sharedMemoryBytes() > sharedMemoryLimit)
    spec.tmaStore = false; // the config's stages leave no room for C
  if (tile[2] != spec.tileK() || config.getSwizzle() != 128) {
    why = "expected one 128-byte swizzled K row per stage";
    return failure();
  }
  if (spec.consumers < 1 || spec.consumers > 2 ||
      spec.consumerRows() % 64 || spec.tileN % 8 ||
      spec.tileN > 256 || spec.tileM > 256 || spec.stages < 1 ||
      spec.rasterGroup < 1 || spec.splitK < 1) {
    why = "tile, warp groups or stages out of the kernel's range";
    return failure();
  }
  // A consumer's accumulators (f32, one per thread per 128 elements) must
  // leave registers for addresses and the epilogue.
  if (spec.consumerRows() * spec.tileN / 128 > 192) {
    why = "a consumer's accumulators need more registers than it has";
    return failure();
  }
  if (spec.sharedMemoryBytes() > sharedMemoryLimit) {
    why = "the stages need more shared memory than a CTA has";
    return failure();
  }
  // Clusters where every CTA of the (even) grid has a peer with a tile of
  // the same columns, and B's half is whole boxes of 8-row swizzle atoms.
  int64_t bBoxRows = spec.bMnMajor ? 128 / spec.elementBytes() : 8;
  if (config.getClusterM() == 2 && config.getClusterN() == 1 && !spec.streamK &&
      spec.splitK == 1 && !spec.transposes() &&
      config.getPersistentCtas() % 2 == 0 && m % (2 * spec.tileM) == 0 &&
      spec.tileN % (2 * bBoxRows) == 0)
    spec.clusterM = 2;
  return spec;
}

OwningOpRef<ModuleOp> cuda::buildWgmmaGemmKernel(MLIRContext *context,
                                                 const WgmmaGemmSpec &spec) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  std::string name = spec.kernelName();
  // sm_90a: wgmma and setmaxnreg; PTX 8.3: tensormap.replace.
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, name, "sm_90a", "+ptx83");
  // The dynamic shared memory (tiles, then barriers); 1024-aligned for the
  // 128B swizzle atoms.
  auto smem = LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
      LLVM::Linkage::External, "nova_gemm_shared", Attribute(),
      /*alignment=*/1024, /*addrSpace=*/3);

  Type ptr = LLVM::LLVMPointerType::get(context, 1), i32 = b.getI32Type();
  // A, B, [the epilogue's other inputs,] [stream-K flags,] C (or the
  // epilogue's results), scratch.
  int64_t pointers = 4;
  if (spec.epilogue)
    pointers = 3 + epilogueInputs(spec.epiloguePlan->matmul).size() +
               spec.epilogue.getNumResults();
  pointers += spec.streamK;
  SmallVector<Type> params(pointers, ptr);
  params.append(4, i32);
  auto func = createKernelFunc(b, name, params, spec.threads());
  if (spec.multicastsB())
    func.setKnownClusterSizeAttr(
        b.getDenseI32ArrayAttr({int32_t(spec.clusterM), 1, 1}));
  GemmKernel(b, loc, spec).body(func, smem);
  return module;
}

std::string cuda::wgmmaGemmPtx(const WgmmaGemmSpec &spec, std::string &error) {
  return cachedKernelPtx(
      spec.kernelName(),
      [&](MLIRContext *context) { return buildWgmmaGemmKernel(context, spec); },
      error);
}
