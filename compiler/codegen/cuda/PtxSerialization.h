//===- PtxSerialization.h - gpu.module -> PTX -------------------*- C++ -*-===//

#ifndef NOVA_CODEGEN_CUDA_PTXSERIALIZATION_H
#define NOVA_CODEGEN_CUDA_PTXSERIALIZATION_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::nova::cuda {

/// The MLIR context kernel builders build in: the gpu, nvvm, llvm, scf and
/// arith dialects with the LLVM IR translations and the NVVM target, apart
/// from the compiler's own context (kernels are built once and cached).
std::unique_ptr<MLIRContext> createKernelContext();

/// Lowers `module`, which holds one `gpu.module` with an `#nvvm.target`,
/// through MLIR's gpu-lower-to-nvvm pipeline and returns its PTX.
FailureOr<std::string> serializeToPtx(ModuleOp module);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_PTXSERIALIZATION_H
