//===- BufferAddressKernel.cpp - a buffer's device address ----------------===//

#include "compiler/codegen/cuda/BufferAddressKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

OwningOpRef<ModuleOp> cuda::buildBufferAddressKernel(MLIRContext *context) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, kBufferAddressKernel, "sm_60", "+ptx60");
  KernelBuilder k(b, loc);
  Block &entry = createKernelFunc(b, kBufferAddressKernel, {k.global, k.global},
                                  /*threads=*/1)
                     .getBody()
                     .front();
  Value address = LLVM::PtrToIntOp::create(b, loc, k.i64, entry.getArgument(0));
  LLVM::StoreOp::create(b, loc, address, entry.getArgument(1), 8);
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::bufferAddressPtx(std::string &error) {
  return cachedKernelPtx(kBufferAddressKernel, buildBufferAddressKernel, error);
}
