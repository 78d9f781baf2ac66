//===- BucketAllReduce.cpp - gradient all-reduce buckets ------------------===//
//
// Groups the per-gradient nova.all_reduce ops of a data-parallel train step
// into buckets (torch DDP's scheme: gradients in the order the backward
// produces them, up to a byte budget) and places each bucket's one
// all-reduce right after its last gradient is produced. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVABUCKETALLREDUCE
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

int64_t bytesOf(RankedTensorType type) {
  return type.getNumElements() *
         static_cast<int64_t>(type.getElementTypeBitWidth() / 8);
}

/// Where `value` becomes available in `block`: after its defining op, or at
/// the block's start for an argument or a value from outside the block.
Block::iterator availableAt(Value value, Block *block) {
  if (Operation *def = value.getDefiningOp())
    if (Operation *inBlock = block->findAncestorOpInBlock(*def))
      return std::next(inBlock->getIterator());
  return block->begin();
}

/// One bucket's all-reduce: the gradients flattened, concatenated, reduced
/// and split back, built at `point`; replaces the bucket's ops. Returns the
/// last op it placed.
Operation *reduceBucket(OpBuilder &b, MutableArrayRef<AllReduceOp> bucket,
                        Block::iterator point) {
  AllReduceOp first = bucket.front();
  b.setInsertionPoint(point->getBlock(), point);
  if (bucket.size() == 1) {
    if (&*point != first.getOperation())
      first->moveBefore(point->getBlock(), point);
    return first;
  }
  Location loc = b.getFusedLoc(llvm::map_to_vector(
      bucket, [](AllReduceOp op) { return op.getLoc(); }));
  Type element = typeOf(first.getInput()).getElementType();
  SmallVector<Value> flat;
  int64_t total = 0;
  auto reshaped = [&](Location l, Value value, RankedTensorType type) -> Value {
    if (value.getType() == type)
      return value;
    return ReshapeOp::create(b, l, type, value);
  };
  for (AllReduceOp op : bucket) {
    int64_t count = typeOf(op.getInput()).getNumElements();
    flat.push_back(reshaped(op.getLoc(), op.getInput(),
                            RankedTensorType::get({count}, element)));
    total += count;
  }
  auto flatType = RankedTensorType::get({total}, element);
  Value joined = ConcatOp::create(b, loc, flatType, flat, uint64_t{0});
  Value reduced =
      AllReduceOp::create(b, loc, flatType, joined, first.getReduction());
  int64_t offset = 0;
  Operation *last = nullptr;
  for (AllReduceOp op : bucket) {
    RankedTensorType type = typeOf(op.getInput());
    int64_t count = type.getNumElements();
    Value part = SliceOp::create(b, op.getLoc(),
                                 RankedTensorType::get({count}, element),
                                 reduced, ArrayRef<int64_t>{offset},
                                 ArrayRef<int64_t>{offset + count},
                                 ArrayRef<int64_t>{1});
    Value whole = reshaped(op.getLoc(), part, type);
    op.replaceAllUsesWith(whole);
    last = whole.getDefiningOp();
    offset += count;
  }
  // Erased last: one of them may be where the bucket was inserted.
  for (AllReduceOp op : bucket)
    op.erase();
  return last;
}

struct NovaBucketAllReducePass
    : mlir::nova::impl::NovaBucketAllReduceBase<NovaBucketAllReducePass> {
  using NovaBucketAllReduceBase::NovaBucketAllReduceBase;

  void runOnOperation() override {
    // Per block: all-reduces in the order their gradients are produced.
    llvm::MapVector<Block *, SmallVector<AllReduceOp>> byBlock;
    getOperation()->walk(
        [&](AllReduceOp op) { byBlock[op->getBlock()].push_back(op); });
    OpBuilder b(&getContext());
    for (auto &[block, ops] : byBlock) {
      // The op producing each gradient in this block (null: an argument).
      auto producer = [&](AllReduceOp op) -> Operation * {
        Operation *def = op.getInput().getDefiningOp();
        return def ? block->findAncestorOpInBlock(*def) : nullptr;
      };
      llvm::stable_sort(ops, [&](AllReduceOp a, AllReduceOp c) {
        Operation *x = producer(a), *y = producer(c);
        return y && (!x || x->isBeforeInBlock(y));
      });
      SmallVector<SmallVector<AllReduceOp>> buckets;
      int64_t bytes = 0;
      for (AllReduceOp op : ops) {
        int64_t size = bytesOf(typeOf(op.getInput()));
        bool fits = !buckets.empty() && bytes + size <= bucketBytes &&
                    buckets.back().front().getReduction() ==
                        op.getReduction() &&
                    typeOf(buckets.back().front().getInput())
                            .getElementType() ==
                        typeOf(op.getInput()).getElementType();
        if (!fits) {
          buckets.emplace_back();
          bytes = 0;
        }
        buckets.back().push_back(op);
        bytes += size;
      }
      // Each bucket right after its last gradient (the latest input), and
      // after the bucket before it, so that they stay in production order.
      Operation *previous = nullptr;
      for (SmallVector<AllReduceOp> &bucket : buckets) {
        Block::iterator point = availableAt(bucket.back().getInput(), block);
        if (previous && (point == block->end() ||
                         !previous->isBeforeInBlock(&*point)))
          point = std::next(previous->getIterator());
        previous = reduceBucket(b, bucket, point);
      }
    }
  }
};

} // namespace
