//===- Matmul.cpp - nova matmuls to linalg --------------------------------===//
//
// nova.matmul (batched, any operand layout) as one linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

/// One linalg.generic with loops (batch..., m, n, k). The accumulator is the
/// result type, widened to f32 for bf16/f16 results (then truncated), and
/// starts from a zero fill; operands are extended to it in the body, which
/// is how bf16 x bf16 -> f32 reads.
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();
    if (!elementType.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Type accType = computeType(elementType);
    auto accTensorType = resultType.clone(accType);

    int64_t rank = resultType.getRank(), batch = rank - 2;
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> batchDims;
    for (int64_t d = 0; d < batch; ++d)
      batchDims.push_back(getAffineDimExpr(d, context));
    AffineExpr m = getAffineDimExpr(batch, context),
               n = getAffineDimExpr(batch + 1, context),
               k = getAffineDimExpr(batch + 2, context);
    auto map = [&](AffineExpr inner0, AffineExpr inner1) {
      SmallVector<AffineExpr> exprs(batchDims);
      exprs.append({inner0, inner1});
      return AffineMap::get(rank + 1, 0, exprs, context);
    };
    SmallVector<AffineMap> maps = {
        op.getTransposeLhs() ? map(k, m) : map(m, k),
        op.getTransposeRhs() ? map(n, k) : map(k, n), map(m, n)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);

    Value init = filledTensor(rewriter, loc, accTensorType,
                              scalarConstant(rewriter, loc, accType, 0));
    bool isFloat = isa<FloatType>(accType);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, accTensorType,
            ValueRange{adaptor.getLhs(), adaptor.getRhs()}, init, maps,
            iterators,
            [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
              Value lhs = castScalar(b, nestedLoc, args[0], accType);
              Value rhs = castScalar(b, nestedLoc, args[1], accType);
              Value product =
                  isFloat
                      ? arith::MulFOp::create(b, nestedLoc, lhs, rhs)
                            .getResult()
                      : arith::MulIOp::create(b, nestedLoc, lhs, rhs)
                            .getResult();
              linalg::YieldOp::create(
                  b, nestedLoc, addScalars(b, nestedLoc, args[2], product));
            })
            ->getResult(0);
    if (accType != elementType)
      result = elementwise(rewriter, loc, resultType, result,
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             return castScalar(b, l, args[0], elementType);
                           });
    rewriter.replaceOp(op, result);
    return success();
  }
};


} // namespace

void nova_to_linalg::populateMatmulPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering>(patterns.getContext());
}
