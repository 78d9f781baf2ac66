//===- DataMovement.cpp - nova shape and indexing ops to linalg -----------===//
//
// Broadcasts, transposes, reversals, reshapes, slices, concatenation, gathers,
// embeddings and scatter-adds (IREE's scatter; CUDA: ScatterAddCuda.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

/// A linalg.generic over the result reading operand dim i at result dim
/// dims[i], or at 0 where a size-1 dim expands.
struct BroadcastInDimLowering : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = op.getInput().getType(),
                     resultType = op.getType();
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(op.getDims())) {
      bool expands =
          inputType.getDimSize(i) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(expands ? getAffineConstantExpr(0, context)
                              : getAffineDimExpr(d, context));
    }
    AffineMap map = AffineMap::get(resultType.getRank(), 0, exprs, context);
    rewriter.replaceOp(op, copyThroughMap(rewriter, op.getLoc(), resultType,
                                          adaptor.getInput(), map));
    return success();
  }
};

/// A linalg.generic over the result reading input dim permutation[i] at
/// result dim i.
struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = rewriter.getContext();
    ArrayRef<int64_t> permutation = op.getPermutation();
    SmallVector<AffineExpr> exprs(permutation.size());
    for (auto [i, p] : llvm::enumerate(permutation))
      exprs[p] = getAffineDimExpr(i, context);
    AffineMap map = AffineMap::get(permutation.size(), 0, exprs, context);
    rewriter.replaceOp(op, copyThroughMap(rewriter, op.getLoc(), op.getType(),
                                          adaptor.getInput(), map));
    return success();
  }
};

/// A linalg.generic over the result whose body extracts input[..., size-1-i,
/// ...] along each reversed dim (a reversed affine map, `size-1-d`, trips
/// IREE's tiling of fused dispatches).
struct ReverseLowering : OpConversionPattern<ReverseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value input = adaptor.getInput();
    ResultRange results = parallelGeneric(
        rewriter, op.getLoc(), type, ValueRange{}, {},
        [&](OpBuilder &b, Location loc, ValueRange) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < type.getRank(); ++d) {
            Value index = linalg::IndexOp::create(b, loc, d);
            if (llvm::is_contained(op.getDims(), d))
              index = arith::SubIOp::create(
                  b, loc,
                  arith::ConstantIndexOp::create(b, loc, type.getDimSize(d) - 1),
                  index);
            coords.push_back(index);
          }
          return SmallVector<Value>{
              tensor::ExtractOp::create(b, loc, input, coords).getResult()};
        });
    rewriter.replaceOp(op, results.front());
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getInput(), op.getType()));
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, adaptor.getInput(),
        getAsIndexOpFoldResult(context, op.getStart()),
        getAsIndexOpFoldResult(context, resultType.getShape()),
        getAsIndexOpFoldResult(context, op.getStride()));
    return success();
  }
};

/// tensor.concat: IREE 3.13 decomposes it into insert_slices itself.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        op, op.getType(), static_cast<uint64_t>(op.getDim()),
        adaptor.getInputs());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

Value toIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

/// A linalg.generic over the result reading `index` elementwise; its body
/// extracts input[i with i[dim] = index[i]].
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    int64_t dim = op.getDim();
    Value input = adaptor.getInput();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), resultType, adaptor.getIndex(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          SmallVector<Value> coords;
                          for (int64_t d = 0; d < resultType.getRank(); ++d)
                            coords.push_back(
                                d == dim ? toIndex(b, loc, args[0])
                                         : linalg::IndexOp::create(b, loc, d)
                                               .getResult());
                          return tensor::ExtractOp::create(b, loc, input,
                                                           coords)
                              .getResult();
                        }));
    return success();
  }
};

/// A linalg.generic over (indices dims..., row dims...) reading `indices`
/// through the leading dims; its body extracts table[index, row...].
struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t rank = resultType.getRank();
    AffineMap indicesMap =
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())
            .getMajorSubMap(indexRank);
    Value table = adaptor.getTable();
    rewriter.replaceOp(
        op, parallelGeneric(
                rewriter, op.getLoc(), resultType, adaptor.getIndices(),
                indicesMap,
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  SmallVector<Value> coords = {toIndex(b, loc, args[0])};
                  for (int64_t d = indexRank; d < rank; ++d)
                    coords.push_back(linalg::IndexOp::create(b, loc, d));
                  return SmallVector<Value>{
                      tensor::ExtractOp::create(b, loc, table, coords)};
                })
                .front());
    return success();
  }
};


/// `iree_linalg_ext.scatter` with `unique_indices = false`, its region adding
/// each update to the row it targets. Indices get an explicit trailing index
/// depth of 1 (`[batch..., 1]`) so that IREE cannot read a trailing unit dim
/// of the batch as the index depth.
///
/// The scatter writes into a fresh zero tensor and `dest` is added after it:
/// IREE 3.13 updates a scatter's `outs` in place, and when that is a function
/// argument (or a reshape of one) it overwrites the caller's buffer
/// (iree-org/iree#16168; seen here with device arrays on llvm-cpu and CUDA).
/// Rows accumulate in the element type. Widening bf16 updates to f32 in a
/// separate generic would match the reductions, but IREE 3.13 fuses that
/// extf into the scatter's dispatch, whose llvm-cpu codegen then fails
/// ("exceeded stack allocation limit"), at gpt-42m's size too. Under
/// autocast the embedding tables are f32 master weights, so only models cast
/// wholesale to bf16 accumulate in bf16 here.
///
/// Cost: on llvm-cpu the scatter is a loop over the updates, O(updates). On
/// CUDA, IREE 3.13 runs a scatter with non-unique indices on ONE GPU thread:
/// gpt-42m's token-embedding backward (16384 updates of 512 f32 into 32000
/// rows) takes ~310 ms on the H200 (NOTES §3: ~70% of IREE's step). The
/// alternative expressible in linalg on tensors, a compare-select reduction
/// over all updates per table row (a one-hot contraction), does rows x
/// updates x row-size work: ~2.0 s there. So with target=cuda, f32
/// scatter_adds go to Nova's own atomic kernel (below); this lowering serves
/// the CPU and the dtypes that kernel does not take.
struct ScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dest = adaptor.getDest();
    RankedTensorType destType = tensorType(dest);
    Type elementType = destType.getElementType();
    if (!elementType.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "unsupported element type");

    // Indices [batch..., 1]; a single (0-d) index still needs one batch dim,
    // and then so do the updates.
    Value indices = adaptor.getIndices();
    RankedTensorType indicesType = tensorType(indices);
    Value updates = adaptor.getUpdates();
    SmallVector<int64_t> indicesShape(indicesType.getShape());
    if (indicesType.getRank() == 0) {
      indicesShape.push_back(1);
      RankedTensorType updatesType = tensorType(updates);
      SmallVector<int64_t> updatesShape = {1};
      llvm::append_range(updatesShape, updatesType.getShape());
      updates = reshapeTensor(rewriter, loc, updates,
                              updatesType.clone(updatesShape));
    }
    indicesShape.push_back(1);
    indices = reshapeTensor(rewriter, loc, indices,
                            indicesType.clone(indicesShape));

    Value init = filledTensor(rewriter, loc, destType,
                              scalarConstant(rewriter, loc, elementType, 0));
    OperationState state(loc, "iree_linalg_ext.scatter");
    state.addOperands({updates, indices, init});
    state.addTypes(destType);
    state.propertiesAttr = rewriter.getDictionaryAttr(
        {rewriter.getNamedAttr("dimension_map",
                               rewriter.getDenseI64ArrayAttr({0})),
         rewriter.getNamedAttr("unique_indices", rewriter.getBoolAttr(false))});
    state.addRegion();
    Operation *scatter = rewriter.create(state);

    // The region gets (update element, current element).
    Block *body = rewriter.createBlock(&scatter->getRegion(0), {},
                                       {elementType, elementType}, {loc, loc});
    OperationState yield(loc, "iree_linalg_ext.yield");
    yield.addOperands(addScalars(rewriter, loc, body->getArgument(0),
                                 body->getArgument(1)));
    rewriter.create(yield);
    rewriter.setInsertionPointAfter(scatter);

    rewriter.replaceOp(op,
                       addScatterDest(rewriter, loc, dest, scatter->getResult(0)));
    return success();
  }
};


} // namespace

void nova_to_linalg::populateDataMovementPatterns(RewritePatternSet &patterns) {
  patterns.add<BroadcastInDimLowering, TransposeLowering, ReverseLowering,
               ReshapeLowering, SliceLowering, ConcatLowering, GatherLowering,
               EmbeddingLowering, ScatterAddLowering>(patterns.getContext());
}
