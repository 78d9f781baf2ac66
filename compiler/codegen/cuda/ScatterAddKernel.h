//===- ScatterAddKernel.h - scatter-add kernel builder ----------*- C++ -*-===//
//
// dest[indices[n], d] += updates[n, d] for f32 rows, built with the gpu,
// llvm and scf dialects and serialized to PTX through MLIR.
//
// ABI (IREE's CUDA HAL): the kernel parameters are the bindings as 64-bit
// device pointers in the pipeline layout's order, then each i32 constant:
//
//   binding 0  dest     f32[V*D]   read-write
//   binding 1  indices  i64[N]     read-only
//   binding 2  updates  f32[N*D]   read-only
//   const 0    total = N*D   const 1  D   const 2  V
//
// Thread t < total: n = t / D, d = t % D; if 0 <= indices[n] < V:
// dest[indices[n]*D + d] += updates[t] (an atomic add). Out-of-range indices
// are skipped (torch raises; a kernel must not write out of bounds).
// Consecutive threads touch consecutive elements of a row, so loads and
// atomics coalesce.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_SCATTERADDKERNEL_H
#define NOVA_CODEGEN_CUDA_SCATTERADDKERNEL_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::nova::cuda {

constexpr int64_t kScatterBlockSize = 256;
constexpr llvm::StringLiteral kScatterExecutable = "nova_scatter_add";
constexpr llvm::StringLiteral kScatterKernel = "nova_scatter_add_f32";

/// The kernel as a module holding one gpu.module for sm_60 / PTX 6.0 (the
/// driver JITs it for any newer GPU), built in `context`.
OwningOpRef<ModuleOp> buildScatterAddKernel(MLIRContext *context);

/// The kernel's PTX (cachedKernelPtx). Empty with the diagnostics in `error`
/// if MLIR could not produce it.
std::string scatterAddPtx(std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_SCATTERADDKERNEL_H
