//===- Collectives.cpp - nova.all_reduce to IREE collectives -------------===//
//
// nova.all_reduce -> flow.collective.all_reduce on the default channel, held
// in a global made once by an initializer. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/IREEGlobals.h"
#include "compiler/conversion/IREENamespaces.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTNOVACOLLECTIVESTOIREE
#include "compiler/conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

constexpr StringLiteral kChannel = "nova_data_parallel_channel";

/// IREE's `#flow.collective.element_type` cases (as their i32 values in the
/// generic form) for the float types gradients have.
std::optional<int32_t> collectiveElementType(Type type) {
  if (type.isF32())
    return 9;
  if (type.isBF16())
    return 11;
  if (type.isF16())
    return 8;
  return std::nullopt;
}

/// `util.global private @channel : !flow.channel` and the initializer
/// storing the default channel into it.
void createChannel(OpBuilder &b, Location loc, Type channelType) {
  createGlobal(b, loc, kChannel, channelType, /*isMutable=*/false);

  OperationState init(loc, "util.initializer");
  init.propertiesAttr = b.getDictionaryAttr({b.getNamedAttr(
      "function_type", TypeAttr::get(b.getFunctionType({}, {})))});
  init.addRegion();
  Operation *initializer = b.create(init);
  Block *block = b.createBlock(&initializer->getRegion(0));
  b.setInsertionPointToStart(block);
  OperationState channel(loc, "flow.channel.default");
  channel.addTypes(channelType);
  Value value = b.create(channel)->getResult(0);
  storeGlobal(b, loc, kChannel, value);
  OperationState ret(loc, "util.return");
  b.create(ret);
}

struct ConvertNovaCollectivesToIREEPass
    : mlir::nova::impl::ConvertNovaCollectivesToIREEBase<
          ConvertNovaCollectivesToIREEPass> {
  using ConvertNovaCollectivesToIREEBase::ConvertNovaCollectivesToIREEBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertNovaCollectivesToIREEBase::getDependentDialects(registry);
    registry.insert<IreeUtilNamespace>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<AllReduceOp> ops;
    module.walk([&](AllReduceOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    if (worldSize < 1) {
      module.emitError() << "convert-nova-collectives-to-iree: world-size "
                            "must be >= 1, got "
                         << static_cast<int64_t>(worldSize);
      return signalPassFailure();
    }
    if (worldSize == 1) {
      for (AllReduceOp op : ops) {
        op.replaceAllUsesWith(op.getInput());
        op.erase();
      }
      return;
    }
    if (!context->allowsUnregisteredDialects()) {
      module.emitError() << "convert-nova-collectives-to-iree emits IREE's "
                            "flow/util ops unregistered: allow unregistered "
                            "dialects";
      return signalPassFailure();
    }
    Type channelType = ireeType(context, "flow", "channel");
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    createChannel(b, module.getLoc(), channelType);

    for (AllReduceOp op : ops) {
      auto type = cast<RankedTensorType>(op.getType());
      std::optional<int32_t> element =
          collectiveElementType(type.getElementType());
      if (!element) {
        op.emitOpError() << "has no IREE collective for element type "
                         << type.getElementType();
        return signalPassFailure();
      }
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value channel = loadGlobal(b, loc, kChannel, channelType);
      Value target = tensor::EmptyOp::create(b, loc, type.getShape(),
                                             type.getElementType());
      // The result is written into (tied to) the empty target.
      OperationState reduce(loc, "flow.collective.all_reduce");
      reduce.addOperands({target, op.getInput(), channel});
      reduce.addTypes(type);
      reduce.propertiesAttr = b.getDictionaryAttr(
          {b.getNamedAttr("element_type", b.getI32IntegerAttr(*element)),
           b.getNamedAttr("reduction_op", b.getI32IntegerAttr(1)),
           b.getNamedAttr("tied_operands",
                          b.getArrayAttr({b.getIndexAttr(0)}))});
      Value sum = b.create(reduce)->getResult(0);
      Value result = sum;
      if (op.getReduction() == "mean") {
        auto scale = DenseElementsAttr::get(
            type, b.getFloatAttr(type.getElementType(),
                                 1.0 / static_cast<double>(worldSize)));
        Value factor = ConstantOp::create(b, loc, scale);
        result = MulOp::create(b, loc, sum, factor);
      }
      op.replaceAllUsesWith(result);
      op.erase();
    }
  }
};

} // namespace
