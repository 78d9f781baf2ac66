//===- Random.cpp - nova.random_uniform to linalg ------------------------===//
//
// nova.random_uniform as one parallel linalg.generic: each element hashes
// its row-major index with the seed and stream (splitmix64's finalizer, in
// wrapping i64 arithmetic) and keeps the top 24 bits as an f32 in [0, 1).
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

// splitmix64's constants (Steele, Lea and Flood 2014).
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kStreamMix = 0xD1B54A32D192ED03ULL;
constexpr uint64_t kMix1 = 0xBF58476D1CE4E5B9ULL;
constexpr uint64_t kMix2 = 0x94D049BB133111EBULL;

struct RandomUniformLowering : OpConversionPattern<RandomUniformOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    ArrayRef<int64_t> shape = resultType.getShape();
    auto seedMap = AffineMap::get(rank, 0, {}, rewriter.getContext());
    uint64_t streamKey = static_cast<uint64_t>(op.getStream()) * kStreamMix;
    Value result =
        parallelGeneric(
            rewriter, loc, resultType, adaptor.getSeed(), seedMap,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Type i64 = b.getI64Type();
              auto constant = [&](uint64_t v) -> Value {
                return arith::ConstantOp::create(
                    b, l, b.getIntegerAttr(i64, static_cast<int64_t>(v)));
              };
              // Row-major index + 1.
              Value index = constant(1);
              int64_t stride = 1;
              for (int64_t d = rank - 1; d >= 0; --d) {
                Value at = arith::IndexCastOp::create(
                    b, l, i64, linalg::IndexOp::create(b, l, d));
                index = arith::AddIOp::create(
                    b, l, index,
                    arith::MulIOp::create(b, l, at, constant(stride)));
                stride *= shape[d];
              }
              Value key = arith::XOrIOp::create(b, l, args[0],
                                                constant(streamKey));
              Value z = arith::AddIOp::create(
                  b, l, key,
                  arith::MulIOp::create(b, l, index, constant(kGolden)));
              auto xorShift = [&](Value x, uint64_t bits) -> Value {
                return arith::XOrIOp::create(
                    b, l, x, arith::ShRUIOp::create(b, l, x, constant(bits)));
              };
              z = arith::MulIOp::create(b, l, xorShift(z, 30), constant(kMix1));
              z = arith::MulIOp::create(b, l, xorShift(z, 27), constant(kMix2));
              z = xorShift(z, 31);
              Value top = arith::ShRUIOp::create(b, l, z, constant(40));
              Value asFloat =
                  arith::UIToFPOp::create(b, l, b.getF32Type(), top);
              Value scale = arith::ConstantOp::create(
                  b, l, b.getF32FloatAttr(1.0f / (1 << 24)));
              return SmallVector<Value>{
                  arith::MulFOp::create(b, l, asFloat, scale)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void nova_to_linalg::populateRandomPatterns(RewritePatternSet &patterns) {
  patterns.add<RandomUniformLowering>(patterns.getContext());
}
