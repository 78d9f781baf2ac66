//===- SplitReductions.cpp - two-stage reductions over leading dims -------===//

#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>

namespace mlir::nova {
#define GEN_PASS_DEF_NOVASPLITREDUCTIONS
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// reduce(x[R, C...], dims = [0 .. k)) with R = product of the k leading dims
///   -> reduce(reduce(reshape(x, [R / parts, parts, C...]), [0]), [0]).
template <typename ReduceOpT>
struct SplitLeadingReduction : OpRewritePattern<ReduceOpT> {
  SplitLeadingReduction(MLIRContext *context, int64_t minRows,
                        int64_t rowsPerThread)
      : OpRewritePattern<ReduceOpT>(context), minRows(minRows),
        rowsPerThread(rowsPerThread) {}

  LogicalResult matchAndRewrite(ReduceOpT op,
                                PatternRewriter &rewriter) const override {
    // A column-sums region's reductions are its kernel's (one launch).
    if (op->template getParentOfType<FusedOp>())
      return rewriter.notifyMatchFailure(op, "inside a fused region");
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    ArrayRef<int64_t> dims = op.getDims();
    // Only a leading block of dims (all of them: a reduction to a scalar).
    if (dims.empty() || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not a static leading reduction");
    bool all = static_cast<int64_t>(dims.size()) == inputType.getRank();
    for (auto [i, d] : llvm::enumerate(dims))
      if (d != static_cast<int64_t>(i))
        return rewriter.notifyMatchFailure(op, "reduces a non-leading dim");
    ArrayRef<int64_t> shape = inputType.getShape();
    int64_t rows = 1;
    for (int64_t d : dims)
      rows *= shape[d];
    int64_t parts = rows / firstStageRows(rows);
    if (rows < minRows || parts < 2 || rows % parts != 0)
      return rewriter.notifyMatchFailure(op, "too few rows to split");

    Location loc = op.getLoc();
    Type elementType = inputType.getElementType();
    // Low-precision sums and means accumulate across both stages in f32.
    bool widen = !std::is_same_v<ReduceOpT, ReduceMaxOp> &&
                 (elementType.isBF16() || elementType.isF16());
    Type stageType = widen ? rewriter.getF32Type() : elementType;

    ArrayRef<int64_t> kept = shape.drop_front(dims.size());
    // To a scalar: [parts, R / parts] summed along its rows first (IREE
    // gives a whole reduction one thread; row-wise, a workgroup per row).
    SmallVector<int64_t> splitShape =
        all ? SmallVector<int64_t>{parts, rows / parts}
            : SmallVector<int64_t>{rows / parts, parts};
    llvm::append_range(splitShape, kept);
    Value x = ReshapeOp::create(
        rewriter, loc, RankedTensorType::get(splitShape, elementType),
        op.getInput());
    if (widen)
      x = CastOp::create(rewriter, loc,
                         RankedTensorType::get(splitShape, stageType), x);
    auto reduceLeading = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      auto resultType = RankedTensorType::get(type.getShape().drop_front(),
                                              type.getElementType());
      return ReduceOpT::create(rewriter, loc, resultType, v,
                               rewriter.getDenseI64ArrayAttr({0}),
                               /*keepdim=*/false);
    };
    if (all) {
      auto rowsType =
          RankedTensorType::get({parts}, cast<RankedTensorType>(x.getType())
                                             .getElementType());
      x = ReduceOpT::create(rewriter, loc, rowsType, x,
                            rewriter.getDenseI64ArrayAttr({1}),
                            /*keepdim=*/false);
    } else {
      x = reduceLeading(x);
    }
    Value reduced = reduceLeading(x);
    if (widen)
      reduced = CastOp::create(
          rewriter, loc, RankedTensorType::get(kept, elementType), reduced);
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    if (resultType.getShape() != kept) // keepdim: restore the unit dims
      reduced = ReshapeOp::create(rewriter, loc, resultType, reduced);
    rewriter.replaceOp(op, reduced);
    return success();
  }

  /// Rows each first-stage output sums. IREE gives each stage's outputs
  /// threads that loop over that stage's rows, so a split costs about the
  /// rows of both stages: balanced, the largest divisor of `rows` not above
  /// its square root (4096 rows: 64 + 64 instead of 256 + 16).
  int64_t firstStageRows(int64_t rows) const {
    if (rowsPerThread > 0)
      return rowsPerThread;
    int64_t d = static_cast<int64_t>(std::sqrt(static_cast<double>(rows)));
    while (d > 1 && (d * d > rows || rows % d != 0))
      --d;
    return std::max<int64_t>(d, 1);
  }

  int64_t minRows, rowsPerThread;
};

struct NovaSplitReductionsPass
    : public mlir::nova::impl::NovaSplitReductionsBase<
          NovaSplitReductionsPass> {
  using NovaSplitReductionsBase::NovaSplitReductionsBase;

  void runOnOperation() override {
    if (rowsPerThread < 0) {
      getOperation()->emitError()
          << "rows-per-thread must be positive (or 0: balanced stages)";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitLeadingReduction<ReduceSumOp>,
                 SplitLeadingReduction<ReduceMaxOp>,
                 SplitLeadingReduction<ReduceMeanOp>>(&getContext(), minRows,
                                                      rowsPerThread);
    // The new reductions are short or over fewer rows than min-rows after
    // one split, so the rewrite terminates; no folding needed.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace
