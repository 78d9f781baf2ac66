//===- StridedCastKernel.h - f32 rows into a strided bf16 tensor -*- C++ -*-===//
//
// dst[r * dstStride + offset + c] = bf16(src[r * width + c]) for r < rows,
// c < width: rounds a dense f32 [rows, width] tensor into columns
// [offset, offset + width) of a bf16 tensor with rows of dstStride, in place
// (the other columns are untouched). The attention backward's dQ (an f32
// accumulator) lands this way in the qkv gradient its dK and dV were
// written into. Built through the gpu/llvm dialects; each thread converts
// `kStridedCastVector` elements (16-byte loads, 8-byte stores).
//
// ABI: (src f32, dst bf16 read-write; rows, width, dstStride, offset as
// i32). Block kStridedCastBlock, grid x = ceil(rows * width / (block *
// vector)). width must be a multiple of the vector.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_STRIDEDCASTKERNEL_H
#define NOVA_CODEGEN_CUDA_STRIDEDCASTKERNEL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

constexpr int64_t kStridedCastBlock = 256, kStridedCastVector = 4;
constexpr llvm::StringLiteral kStridedCastKernel = "nova_strided_cast_f32_bf16";

OwningOpRef<ModuleOp> buildStridedCastKernel(MLIRContext *context);

/// The kernel's PTX (built once per process); empty with the diagnostics in
/// `error` on failure.
std::string stridedCastPtx(std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_STRIDEDCASTKERNEL_H
