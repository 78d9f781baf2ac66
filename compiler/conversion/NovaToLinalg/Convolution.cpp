//===- Convolution.cpp - nova.convolution to linalg ----------------------===//
//
// nova.convolution as one linalg.generic over (n, g, f, o..., c, k...):
// the input is first dilated and padded (inserted into a zero tensor with
// strides), input and weight are viewed with a group dim, and the window
// offset o*stride + k*dilation is an affine index of the input. IREE's
// codegen compiles it as a convolution on every target (correct first; Nova
// has no convolution kernel yet).
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

struct ConvolutionLowering : OpConversionPattern<ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();
    Type accType = computeType(elementType);
    RankedTensorType inputType = tensorType(adaptor.getInput()),
                     weightType = tensorType(adaptor.getWeight());
    int64_t spatial = inputType.getRank() - 2, groups = op.getGroups();

    // The input with lhs_dilation - 1 zeros between neighbours and the
    // padding around it.
    Value input = adaptor.getInput();
    ArrayRef<int64_t> low = op.getPaddingLow(), high = op.getPaddingHigh(),
                      lhsDilation = op.getLhsDilation();
    bool expanded = llvm::any_of(low, [](int64_t v) { return v > 0; }) ||
                    llvm::any_of(high, [](int64_t v) { return v > 0; }) ||
                    llvm::any_of(lhsDilation, [](int64_t v) { return v > 1; });
    if (expanded) {
      SmallVector<int64_t> shape(inputType.getShape());
      SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0)),
          sizes, strides(2, rewriter.getIndexAttr(1));
      sizes.push_back(rewriter.getIndexAttr(shape[0]));
      sizes.push_back(rewriter.getIndexAttr(shape[1]));
      for (int64_t d = 0; d < spatial; ++d) {
        int64_t extent = shape[2 + d];
        shape[2 + d] = lhsDilation[d] * (extent - 1) + 1 + low[d] + high[d];
        offsets.push_back(rewriter.getIndexAttr(low[d]));
        sizes.push_back(rewriter.getIndexAttr(extent));
        strides.push_back(rewriter.getIndexAttr(lhsDilation[d]));
      }
      Type inputElement = inputType.getElementType();
      Value zeros =
          filledTensor(rewriter, loc, inputType.clone(shape),
                       scalarConstant(rewriter, loc, inputElement, 0));
      input = tensor::InsertSliceOp::create(rewriter, loc, input, zeros,
                                            offsets, sizes, strides);
      inputType = tensorType(input);
    }

    // [N, C, P...] -> [N, G, Cg, P...]; [F, Cg, K...] -> [G, Fg, Cg, K...].
    int64_t channels = inputType.getDimSize(1) / groups;
    int64_t features = weightType.getDimSize(0) / groups;
    SmallVector<int64_t> groupedInput = {inputType.getDimSize(0), groups,
                                         channels};
    llvm::append_range(groupedInput, inputType.getShape().drop_front(2));
    SmallVector<int64_t> groupedWeight = {groups, features,
                                          weightType.getDimSize(1)};
    llvm::append_range(groupedWeight, weightType.getShape().drop_front(2));
    SmallVector<int64_t> groupedResult = {resultType.getDimSize(0), groups,
                                          features};
    llvm::append_range(groupedResult, resultType.getShape().drop_front(2));
    input = reshapeTensor(rewriter, loc, input,
                          inputType.clone(groupedInput));
    Value weight = reshapeTensor(rewriter, loc, adaptor.getWeight(),
                                 weightType.clone(groupedWeight));

    // Loops (n, g, f, o..., c, k...).
    int64_t numLoops = 4 + 2 * spatial;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, context); };
    AffineExpr n = dim(0), g = dim(1), f = dim(2), c = dim(3 + spatial);
    SmallVector<AffineExpr> inputExprs = {n, g, c}, weightExprs = {g, f, c},
                            resultExprs = {n, g, f};
    for (int64_t d = 0; d < spatial; ++d) {
      AffineExpr o = dim(3 + d), k = dim(4 + spatial + d);
      inputExprs.push_back(o * op.getStride()[d] + k * op.getDilation()[d]);
      weightExprs.push_back(k);
      resultExprs.push_back(o);
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(numLoops, 0, inputExprs, context),
        AffineMap::get(numLoops, 0, weightExprs, context),
        AffineMap::get(numLoops, 0, resultExprs, context)};
    SmallVector<utils::IteratorType> iterators(3 + spatial,
                                               utils::IteratorType::parallel);
    iterators.append(1 + spatial, utils::IteratorType::reduction);

    auto accTensorType = RankedTensorType::get(groupedResult, accType);
    Value init = filledTensor(rewriter, loc, accTensorType,
                              scalarConstant(rewriter, loc, accType, 0));
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, accTensorType, ValueRange{input, weight}, init,
            maps, iterators,
            [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
              Value x = castScalar(b, nestedLoc, args[0], accType);
              Value w = castScalar(b, nestedLoc, args[1], accType);
              Value product = arith::MulFOp::create(b, nestedLoc, x, w);
              linalg::YieldOp::create(
                  b, nestedLoc, addScalars(b, nestedLoc, args[2], product));
            })
            ->getResult(0);
    if (accType != elementType)
      result = elementwise(rewriter, loc, accTensorType.clone(elementType),
                           result,
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             return castScalar(b, l, args[0], elementType);
                           });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void nova_to_linalg::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvolutionLowering>(patterns.getContext());
}
