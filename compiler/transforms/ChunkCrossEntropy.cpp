//===- ChunkCrossEntropy.cpp - the head and its loss in chunks of rows ----===//
//
// A language model's head makes [N, V] logits (gpt-146m at B24: 1.5 GiB of
// bf16) that the cross-entropy, its backward and the head's two backward
// GEMMs read, and all of it is alive where the backward starts: the step's
// peak. Every row of that chain is independent, so it is split into chunks of
// rows, each made and consumed in turn (logits, loss, gradient, the chunk's
// share of the weight gradient and its input gradient): only one chunk of
// logits is alive at a time. The weight gradient is summed over the chunks
// in f32.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Hoist.h"
#include "compiler/transforms/Passes.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVACHUNKCROSSENTROPY
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// Chunk rows are a multiple of this (whole GEMM tiles).
constexpr int64_t kRowMultiple = 128;
constexpr int64_t kMaxChunks = 16;

/// The head and loss chain around one nova.cross_entropy_backward.
struct Head {
  MatmulOp logits; // x [N, K] @ w [V, K]^T
  CrossEntropyOp loss;
  CrossEntropyBackwardOp grad;
  MatmulOp gradWeight; // grad^T @ x
  MatmulOp gradInput;  // grad @ w
};

bool plain(MatmulOp op) {
  return !op.getLoweringConfig() &&
         cast<RankedTensorType>(op.getType()).hasStaticShape();
}

std::optional<Head> matchHead(CrossEntropyBackwardOp grad) {
  Value logits = grad.getLogits();
  auto head = logits.getDefiningOp<MatmulOp>();
  if (!head || !plain(head) || head.getTransposeLhs() ||
      !head.getTransposeRhs() ||
      cast<RankedTensorType>(head.getType()).getRank() != 2)
    return std::nullopt;
  CrossEntropyOp loss;
  for (Operation *user : logits.getUsers()) {
    if (user == grad.getOperation())
      continue;
    auto ce = dyn_cast<CrossEntropyOp>(user);
    if (!ce || loss)
      return std::nullopt;
    loss = ce;
  }
  if (!loss || loss.getLse() != grad.getLse() ||
      loss.getTarget() != grad.getTarget() ||
      loss.getIgnoreIndex() != grad.getIgnoreIndex() ||
      grad->getBlock() != head->getBlock() ||
      loss->getBlock() != head->getBlock())
    return std::nullopt;
  Head h{head, loss, grad, nullptr, nullptr};
  Value x = head.getLhs(), w = head.getRhs();
  for (Operation *user : grad->getUsers()) {
    auto mm = dyn_cast<MatmulOp>(user);
    if (!mm || !plain(mm) || mm.getLhs() != grad.getResult())
      return std::nullopt;
    if (mm.getTransposeLhs() && !mm.getTransposeRhs() && mm.getRhs() == x &&
        !h.gradWeight)
      h.gradWeight = mm;
    else if (!mm.getTransposeLhs() && !mm.getTransposeRhs() &&
             mm.getRhs() == w && !h.gradInput)
      h.gradInput = mm;
    else
      return std::nullopt;
  }
  if (!h.gradWeight || !h.gradInput)
    return std::nullopt;
  return h;
}

/// The number of chunks whose logits stay within `chunkBytes`: the fewest
/// that divide the rows into multiples of kRowMultiple (1: none needed or
/// none possible).
int64_t chooseChunks(RankedTensorType logits, int64_t chunkBytes) {
  int64_t rows = logits.getDimSize(0);
  int64_t bytes = logits.getNumElements() *
                  std::max<int64_t>(1, logits.getElementTypeBitWidth() / 8);
  if (chunkBytes <= 0 || bytes <= chunkBytes)
    return 1;
  for (int64_t c = 2; c <= kMaxChunks; ++c)
    if (rows % c == 0 && (rows / c) % kRowMultiple == 0 &&
        bytes / c <= chunkBytes)
      return c;
  return 1;
}

struct NovaChunkCrossEntropyPass
    : mlir::nova::impl::NovaChunkCrossEntropyBase<NovaChunkCrossEntropyPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Head> heads;
    getOperation()->walk([&](CrossEntropyBackwardOp grad) {
      if (std::optional<Head> h = matchHead(grad))
        heads.push_back(*h);
    });
    for (Head &h : heads) {
      int64_t chunks =
          chooseChunks(cast<RankedTensorType>(h.logits.getType()), chunkBytes);
      // What the loss gradient is made of (e.g. 1 / the count of targets)
      // moves before the loss, where the chunks go; not where it depends on
      // the loss itself, nor on the logits the chunks split.
      if (chunks > 1 && succeeded(hoistBefore(h.grad.getGradLoss(), h.loss,
                                              {h.logits.getOperation()})))
        split(h, chunks);
    }
  }

  static Value rows(OpBuilder &b, Location loc, Value v, int64_t first,
                    int64_t count) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
        stride(type.getRank(), 1);
    start[0] = first;
    limit[0] = first + count;
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = count;
    return SliceOp::create(b, loc, type.clone(shape), v, start, limit, stride);
  }

  static void split(Head &h, int64_t chunks) {
    OpBuilder b(h.loss);
    Location loc = h.loss.getLoc();
    Value x = h.logits.getLhs(), w = h.logits.getRhs();
    Value target = h.loss.getTarget(), gradLoss = h.grad.getGradLoss();
    auto logitsType = cast<RankedTensorType>(h.logits.getType());
    auto gradWeightType = cast<RankedTensorType>(h.gradWeight.getType());
    auto gradInputType = cast<RankedTensorType>(h.gradInput.getType());
    auto lossType = cast<RankedTensorType>(h.loss.getLoss().getType());
    Type f32 = b.getF32Type();
    int64_t n = logitsType.getDimSize(0), r = n / chunks;
    auto rowsOf = [&](RankedTensorType type) {
      SmallVector<int64_t> shape(type.getShape());
      shape[0] = r;
      return type.clone(shape);
    };
    SmallVector<Value> losses, lses, gradInputs;
    Value gradWeight;
    for (int64_t i = 0; i < chunks; ++i) {
      Value xi = rows(b, loc, x, i * r, r);
      Value ti = rows(b, loc, target, i * r, r);
      Value gi = rows(b, loc, gradLoss, i * r, r);
      Value logits = MatmulOp::create(b, loc, rowsOf(logitsType), xi, w, false,
                                      true, LoweringConfigAttr());
      auto ce =
          CrossEntropyOp::create(b, loc, rowsOf(lossType), rowsOf(lossType),
                                 logits, ti, h.loss.getIgnoreIndexAttr());
      Value grad = CrossEntropyBackwardOp::create(b, loc, rowsOf(logitsType),
                                                  gi, logits, ti, ce.getLse(),
                                                  h.grad.getIgnoreIndexAttr());
      Value gw = MatmulOp::create(b, loc, gradWeightType, grad, xi, true, false,
                                  LoweringConfigAttr());
      gradInputs.push_back(MatmulOp::create(b, loc, rowsOf(gradInputType), grad,
                                            w, false, false,
                                            LoweringConfigAttr()));
      gw = CastOp::create(b, loc, gradWeightType.clone(f32), gw);
      gradWeight = gradWeight ? AddOp::create(b, loc, gradWeight, gw) : gw;
      losses.push_back(ce.getLoss());
      lses.push_back(ce.getLse());
    }
    h.loss.getLoss().replaceAllUsesWith(
        ConcatOp::create(b, loc, lossType, losses, uint64_t{0}));
    if (!llvm::all_of(h.loss.getLse().getUsers(),
                      [&](Operation *u) { return u == h.grad; }))
      h.loss.getLse().replaceAllUsesWith(
          ConcatOp::create(b, loc, lossType, lses, uint64_t{0}));
    h.gradInput.getResult().replaceAllUsesWith(
        ConcatOp::create(b, loc, gradInputType, gradInputs, uint64_t{0}));
    // An f32 reader takes the f32 sum itself.
    for (Operation *user : llvm::to_vector(h.gradWeight->getUsers()))
      if (auto cast = dyn_cast<CastOp>(user);
          cast && cast.getType() == gradWeight.getType()) {
        cast.getResult().replaceAllUsesWith(gradWeight);
        cast.erase();
      }
    if (!h.gradWeight->use_empty())
      h.gradWeight.getResult().replaceAllUsesWith(
          CastOp::create(b, loc, gradWeightType, gradWeight));
    h.gradInput.erase();
    h.gradWeight.erase();
    h.grad.erase();
    h.loss.erase();
    h.logits.erase();
  }
};

} // namespace
