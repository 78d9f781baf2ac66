//===- BufferAddress.cpp - @nova_buffer_address for the CUDA runtime ------===//

#include "compiler/codegen/cuda/BufferAddressKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAADDBUFFERADDRESS
#include "compiler/conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;

namespace {

constexpr StringLiteral kFunction = "nova_buffer_address";
constexpr int64_t kBufferBytes = 256;

struct NovaAddBufferAddressPass
    : nova::impl::NovaAddBufferAddressBase<NovaAddBufferAddressPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.lookupSymbol(kFunction)) {
      module.emitError() << "nova-add-buffer-address: the module already "
                            "defines @"
                         << kFunction;
      return signalPassFailure();
    }
    KernelExport kernel;
    kernel.name = cuda::kBufferAddressKernel;
    kernel.readOnlyBindings = {true, false}; // buffer, address
    if (failed(requireUnregisteredDialects(module)) ||
        failed(declareKernelOnce(module, module, "buffer address kernel",
                                 kernel, cuda::bufferAddressPtx)))
      return signalPassFailure();

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    auto bufferType = RankedTensorType::get({kBufferBytes}, b.getI8Type());
    auto addressType = RankedTensorType::get({1}, b.getI64Type());
    auto func = func::FuncOp::create(
        b, loc, kFunction, b.getFunctionType({bufferType}, {addressType}));
    b.setInsertionPointToStart(func.addEntryBlock());
    KernelDispatchBuilder dispatch(b, loc, /*poison=*/false);
    dispatch.input(func.getArgument(0));
    dispatch.result(addressType);
    Value address = dispatch.create(
        kernel.name, kernel.name, arith::ConstantIndexOp::create(b, loc, 1))[0];
    func::ReturnOp::create(b, loc, address);
  }
};

} // namespace
