//===- PtxSerialization.h - gpu.module -> PTX -------------------*- C++ -*-===//

#ifndef NOVA_CODEGEN_CUDA_PTXSERIALIZATION_H
#define NOVA_CODEGEN_CUDA_PTXSERIALIZATION_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

/// The MLIR context kernel builders build in: the gpu, nvvm, llvm, scf and
/// arith dialects with the LLVM IR translations and the NVVM target, apart
/// from the compiler's own context (kernels are built once and cached).
std::unique_ptr<MLIRContext> createKernelContext();

/// A module holding an empty `gpu.module @name` for `chip` with PTX
/// `features` (e.g. "sm_90a", "+ptx83"), `b` set to insert into it.
OwningOpRef<ModuleOp> createKernelModule(OpBuilder &b, StringRef name,
                                         StringRef chip, StringRef features);

/// `gpu.func @name(params)`, a kernel of `threads` threads a block (its known
/// block size), in the gpu.module `b` inserts into; `b` is left at the start
/// of its entry block.
gpu::GPUFuncOp createKernelFunc(OpBuilder &b, StringRef name,
                                TypeRange params, int64_t threads);

/// Lowers `module`, which holds one `gpu.module` with an `#nvvm.target`,
/// through MLIR's gpu-lower-to-nvvm pipeline and returns its PTX.
FailureOr<std::string> serializeToPtx(ModuleOp module);

/// The PTX of the module `build` makes in a fresh kernel context; empty with
/// the diagnostics in `error` on failure.
std::string buildPtx(function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> build,
                     std::string &error);

/// The PTX of kernel `name`, built by `build` the first time a process asks
/// and no earlier process left it in the kernel cache directory (then cached
/// in memory and in that directory; thread-safe, distinct kernels build
/// concurrently, each in its own context); empty with the diagnostics in
/// `error` on failure. A kernel's name determines its code.
std::string
cachedKernelPtx(StringRef name,
                function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> build,
                std::string &error);

/// Where cachedKernelPtx keeps each kernel's PTX across processes, as
/// `<directory>/<name>.ptx` ("": in memory only, the default). Its users put
/// the compiler's identity and the target in the path: a name determines a
/// kernel's code only for one build of the compiler.
void setKernelCacheDirectory(StringRef directory);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_PTXSERIALIZATION_H
