//===- FlashAttentionBuilder.h - IR helpers of the attention kernels -*- C++ -*-===//
//
// Private to FlashAttention{Kernel,Forward,Backward}.cpp: wgmma accumulator
// fragments (register 4i + 2h + e of a warp group's m64nN tile holds row
// 16 warp + lane / 4 + 8 h, column 8 i + 2 (lane % 4) + e), their row
// reductions over a lane quad, bf16 or TF32 copies of them (transposed too)
// in 128B-swizzled shared tiles, and the kernels' common entry (tensor
// maps, barriers, roles).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_FLASHATTENTIONBUILDER_H
#define NOVA_CODEGEN_CUDA_FLASHATTENTIONBUILDER_H

#include "compiler/codegen/cuda/FlashAttentionKernel.h"

namespace mlir::nova::cuda {

// Registers per thread after setmaxnreg: ptxas gives both kernels its cap
// for 384 threads (168), so 128 x 24 + 256 x 240 fits what the CTA holds.
// The producer needs few (at 24 it keeps one word in local memory, outside
// the consumers' loop); at 232 the d64 backward's consumers spilled inside
// their MMA loop (tests/python/test_kernel_registers.py).
constexpr int32_t kProducerRegisters = 24, kConsumerRegisters = 240;

/// Where the elements of a [B*H, T, D] operand are: (bh, t, d) at offset +
/// (bh / H) sB + (bh % H) sH + t sT + d, with sB = max(T sT, H sH). Dense
/// [B, H, T, D] has sT = D, sH = T D; [B, T, H, D] within rows of N
/// elements (e.g. q, k or v inside the packed qkv projection) sT = N, sH = D.
struct HeadsLayout {
  Value offset, rowStride, headStride, batchStride; // i64, elements
};

struct AttentionBuilder : KernelBuilder {
  const FlashAttentionSpec &spec;
  Value smem;
  Value warp, lane; // within the consumer's warp group
  Value t, bh, heads; // i32: sequence length, B * H, H

  /// The layout passed as kernel arguments first..first+2 (offset, sT, sH).
  HeadsLayout layoutArgument(Block &entry, unsigned first);
  /// i64 index of element (bh, row, 0).
  Value rowIndex(const HeadsLayout &layout, Value head, Value row);
  /// A tensor map over `base` laid out as `layout`: dims [D, T, H, B],
  /// boxes of [128 bytes, boxRows, 1, 1].
  void encodeHeadsMap(Value map, Value base, const HeadsLayout &layout,
                      int64_t boxRows, int64_t bytes, int elementType);
  /// A tensor map over the [B*H, D, T'] f32 transpose at `base` (row stride
  /// T', head stride D T' in `layout`): dims [T, D, B*H], boxes of [32
  /// positions, boxRows of D].
  void encodeTransposedMap(Value map, Value base, const HeadsLayout &layout,
                           int64_t boxRows);
  /// TMA coordinates of (head, row, column).
  SmallVector<Value, 4> headsCoords(Value column, Value row, Value head) {
    return {column, row, rem(head, heads), div(head, heads)};
  }

  AttentionBuilder(OpBuilder &b, Location loc, const FlashAttentionSpec &spec)
      : KernelBuilder(b, loc), spec(spec) {}

  /// With spec.headGroup: item `w`'s (block, head), in groups of that many
  /// heads, each group's `blocks` blocks in order, heads inner.
  std::pair<Value, Value> groupedItem(Value w, Value blocks) {
    Value groupItems = mul(blocks, c32(spec.headGroup));
    Value group = div(w, groupItems);
    Value r = sub(w, mul(group, groupItems));
    Value first = mul(group, c32(spec.headGroup));
    Value groupHeads = min(c32(spec.headGroup), sub(bh, first));
    return {div(r, groupHeads), add(first, rem(r, groupHeads))};
  }

  /// This CTA's work items of `items`, an iteration state of two counters
  /// carried from (0, 0). `next(it, w)` waits for the item's turn and
  /// returns its index: `w` in the static order (CTA c takes c, c + CTAs,
  /// ...); with spec.headGroup it fetches one (past `items`: none left,
  /// the loop ends). `body(w, it)` returns the next state.
  template <typename Next, typename Body>
  void forEachItem(Value cta, Value ctas, Value items, Next &&next,
                   Body &&body) {
    SmallVector<Value> init = {c32(0), c32(0)};
    if (!spec.headGroup) {
      loop(cta, items, ctas, init,
           [&](Value w, ValueRange it) -> SmallVector<Value> {
             return body(next(it, w), it);
           });
      return;
    }
    auto op = scf::WhileOp::create(b, loc, TypeRange{i32, i32, i32}, init);
    Block *before = b.createBlock(&op.getBefore(), {}, {i32, i32}, {loc, loc});
    Value w = next(before->getArguments(), Value());
    scf::ConditionOp::create(
        b, loc, ult(w, items),
        ValueRange{before->getArgument(0), before->getArgument(1), w});
    Block *after =
        b.createBlock(&op.getAfter(), {}, {i32, i32, i32}, {loc, loc, loc});
    SmallVector<Value> yields =
        body(after->getArgument(2), after->getArguments().take_front(2));
    scf::YieldOp::create(b, loc, yields);
    b.setInsertionPointAfter(op);
  }

  /// With spec.headGroup: the next item from the counter at `counter`,
  /// stored at `slot` for the consumers, who wait on `full` before reading
  /// it; past the items `full` completes with no bytes, so they see none is
  /// left. uinc_wrap at items + CTAs - 1: every CTA's last fetch finds
  /// none, so the counter ends each launch at zero.
  Value fetchItem(Value counter, Value items, Value ctas, Value slot,
                  Value full) {
    Value limit = sub(add(items, ctas), c32(1));
    Value fetched = LLVM::AtomicRMWOp::create(
        b, loc, LLVM::AtomicBinOp::uinc_wrap, counter, limit,
        LLVM::AtomicOrdering::monotonic, "device", /*alignment=*/4);
    LLVM::StoreOp::create(b, loc, fetched, slot, 4);
    ifThen(cmp(arith::CmpIPredicate::uge, fetched, items),
           [&] { expectBytes(full, 0); });
    return fetched;
  }

  /// The m64nN f32 accumulator type (N / 2 registers per thread).
  Type accType(int64_t n);
  Value zeroAcc(int64_t n) { return LLVM::ZeroOp::create(b, loc, accType(n)); }
  Value get(Value acc, int64_t i) {
    return LLVM::ExtractValueOp::create(b, loc, acc, i);
  }
  Value pack(Type type, ArrayRef<Value> values);
  SmallVector<Value> unpack(Value acc, int64_t n);

  /// acc (+)= A * B over one K step (k16 bf16, k8 TF32), both from shared
  /// memory. MN-major operands are read transposed (bf16 only).
  Value mma(Value acc, int64_t n, Value descA, Value descB, bool aMnMajor,
            bool bMnMajor, bool accumulate);

  /// acc += A * B over k16 step `ks`, bf16, A from registers: `packedA`
  /// from packRegisterA. MLIR 22's nvvm.wgmma.mma_async reads A from shared
  /// memory only, so this emits the register form of the same instruction
  /// as that op emits its own (inline PTX).
  Value mmaRegisterA(Value acc, int64_t n, Value packedA, int64_t ks,
                     Value descB, bool bMnMajor);
  /// An m64nN fragment (f32) as the A fragments of wgmmas over its N: bf16
  /// pairs (register 2j, 2j + 1 -> pair j), the four of k16 step ks at
  /// 4 ks..4 ks + 3, as vector<N/4 x i32>.
  Value packRegisterA(ArrayRef<Value> values);

  /// The sum or max of `v` over the lane quad holding one fragment row.
  Value quadMax(Value v);
  Value quadSum(Value v);
  /// vector<2xbf16> of two f32 values (round to nearest).
  Value bf16Pair(Value x, Value y);

  /// Fragment row (0..63) and column (0..n) of register 4i + 2h + e.
  Value fragmentRow(int64_t h) {
    return add(add(mul(warp, c32(16)), div(lane, c32(4))), c32(8 * h));
  }
  Value fragmentCol(int64_t i, int64_t e) {
    return add(mul(rem(lane, c32(4)), c32(2)), c32(8 * i + e));
  }

  /// Byte offset of byte `byteInRow` of `row` in the 128B-swizzled column
  /// block at byte `block` of a tile: 16-byte unit u of row r at u ^ r % 8.
  Value swizzledOffset(Value block, Value row, Value byteInRow);
  /// Writes `values` (an m64nN fragment, f32) as `element` (bf16 or f32,
  /// rounded to TF32 with `roundTf32`) into `tile`: `n` columns stored as
  /// blocks of [64 rows, 128 B], 128B-swizzled (16-byte unit u of row r at
  /// u ^ r % 8: conflict-free for a warp's eight rows), as TMA and wgmma
  /// read them.
  void storeSwizzled(Value tile, ArrayRef<Value> values, int64_t n,
                     Type element, bool roundTf32 = false);
  /// Writes the transpose of `values` (an m64nN f32 fragment; rounded to
  /// TF32 with `roundTf32`) into `tile`: [n rows, 64 columns] as two
  /// swizzled blocks of [n rows, 128 B].
  void storeTransposed(Value tile, ArrayRef<Value> values, int64_t n,
                       bool roundTf32);

  /// wgmma descriptor of a K-major operand: `rows`-row tile at `base`
  /// stored as column blocks of [rows, 128 B]; rows from `row0`, k16 slice
  /// `ks`.
  Value kMajor(Value base, int64_t rows, int64_t row0, int64_t ks);
  /// Descriptor of an MN-major operand whose K runs down the rows of such a
  /// tile (from `row0`), its 64-column blocks `rows` x 128 B apart.
  Value mnMajor(Value base, int64_t rows, int64_t row0, int64_t ks);

  Value sharedAt(int64_t offset) {
    return byteOffset(shared, smem, c32(offset));
  }
  Value sharedAt(int64_t offset, Value plus) {
    return byteOffset(shared, smem, add(c32(offset), plus));
  }
  /// Arrive on `barrier` once per warp (counts of 4 per warp group).
  void arrivePerWarp(Value barrier);

  /// Kernel entry: parameters, the dynamic shared memory global and a
  /// gpu.func of `spec.threads()` threads; returns its body's builder state.
  static gpu::GPUFuncOp createKernel(OpBuilder &b, const FlashAttentionSpec &spec,
                                     int64_t pointers, int64_t integers,
                                     LLVM::GlobalOp &smemGlobal);
  /// Reads T, B*H, the scale (f32 bits) and H from the kernel arguments
  /// from `first` on; returns the scale.
  Value readShape(Block &entry, unsigned first);
};

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_FLASHATTENTIONBUILDER_H
