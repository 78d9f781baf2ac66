//===- BufferAddressKernel.h - a buffer's device address --------*- C++ -*-===//
//
// One thread writes the device address of its input binding as an i64:
//
//   binding 0  buffer   any bytes   read-only (not read)
//   binding 1  address  i64[1]      written
//
// IREE 3.13's CUDA HAL exports no pointer of a buffer it allocated from its
// stream-ordered memory pool, and sets that pool's release threshold to 0:
// the pool unmaps a step's freed transients at the next synchronization and
// maps them again for the next step. With this address the runtime finds the
// pool (cuPointerGetAttribute) and keeps its memory (runtime/cuda_pool.py).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_BUFFERADDRESSKERNEL_H
#define NOVA_CODEGEN_CUDA_BUFFERADDRESSKERNEL_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::nova::cuda {

constexpr llvm::StringLiteral kBufferAddressKernel = "nova_device_address";

/// The kernel as a module holding one gpu.module for sm_60 / PTX 6.0,
/// built in `context`.
OwningOpRef<ModuleOp> buildBufferAddressKernel(MLIRContext *context);

/// The kernel's PTX (cachedKernelPtx); empty with the diagnostics in `error`
/// on failure.
std::string bufferAddressPtx(std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_BUFFERADDRESSKERNEL_H
