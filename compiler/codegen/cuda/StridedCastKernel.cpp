//===- StridedCastKernel.cpp - f32 rows into a strided bf16 tensor --------===//

#include "compiler/codegen/cuda/StridedCastKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

OwningOpRef<ModuleOp> cuda::buildStridedCastKernel(MLIRContext *context) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, kStridedCastKernel, "sm_80", "+ptx70");
  KernelBuilder k(b, loc);
  SmallVector<Type> params(2, k.global);
  params.append(4, k.i32);
  Block &entry = createKernelFunc(b, kStridedCastKernel, params,
                                  kStridedCastBlock)
                     .getBody()
                     .front();
  Value src = entry.getArgument(0), dst = entry.getArgument(1),
        rows = entry.getArgument(2), width = entry.getArgument(3),
        stride = entry.getArgument(4), offset = entry.getArgument(5);
  Value thread = k.add(
      k.mul(k.id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
            k.c32(kStridedCastBlock)),
      k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x)));
  // i64: rows * width may pass 2^31.
  Value first = k.mul(k.wide(thread), k.c64(kStridedCastVector));
  Value total = k.mul(k.wide(rows), k.wide(width));
  k.ifThen(k.cmp(arith::CmpIPredicate::ult, first, total), [&] {
    Value row = arith::DivUIOp::create(b, loc, first, k.wide(width));
    Value column = k.sub(first, k.mul(row, k.wide(width)));
    Type in = VectorType::get({kStridedCastVector}, k.f32);
    Type out = VectorType::get({kStridedCastVector}, b.getBF16Type());
    Value values = LLVM::LoadOp::create(
        b, loc, in,
        LLVM::GEPOp::create(b, loc, k.global, k.f32, src, ValueRange{first}),
        16, /*isVolatile=*/false, /*isNonTemporal=*/false,
        /*isInvariant=*/true);
    Value rounded = arith::TruncFOp::create(b, loc, out, values);
    Value at = k.add(k.add(k.mul(row, k.wide(stride)), k.wide(offset)), column);
    LLVM::StoreOp::create(
        b, loc, rounded,
        LLVM::GEPOp::create(b, loc, k.global, b.getBF16Type(), dst,
                            ValueRange{at}),
        8);
  });
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::stridedCastPtx(std::string &error) {
  return cachedKernelPtx(kStridedCastKernel, buildStridedCastKernel, error);
}
