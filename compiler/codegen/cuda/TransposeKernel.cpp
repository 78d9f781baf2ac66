//===- TransposeKernel.cpp - batched f32 transposes for TF32 GEMM operands -===//

#include "compiler/codegen/cuda/TransposeKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

std::string cuda::transposeKernelName(bool roundToTf32) {
  return roundToTf32 ? "nova_transpose_f32_tf32" : "nova_transpose_f32";
}

OwningOpRef<ModuleOp> cuda::buildTransposeKernel(MLIRContext *context,
                                                 bool roundToTf32) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  std::string name = transposeKernelName(roundToTf32);
  OwningOpRef<ModuleOp> module = createKernelModule(b, name, "sm_80", "+ptx70");
  constexpr int64_t tile = kTransposeTile, pitch = tile + 1;
  constexpr int64_t rowsPerPass = kTransposeBlock / tile; // 8
  auto smemGlobal = LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(b.getF32Type(), tile * pitch),
      /*isConstant=*/false, LLVM::Linkage::Internal, "nova_transpose_tile",
      Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  KernelBuilder k(b, loc);
  SmallVector<Type> params(2, k.global);
  params.append(9, k.i32);
  Block &entry =
      createKernelFunc(b, name, params, kTransposeBlock).getBody().front();
  Value src = entry.getArgument(0), dst = entry.getArgument(1);
  Value rows = entry.getArgument(2), cols = entry.getArgument(3);
  Value tilesC = entry.getArgument(4), tilesPerMatrix = entry.getArgument(5);
  Value heads = entry.getArgument(6);
  // i64: a matrix of the batch may pass 2^31 elements altogether.
  Value srcOffset = k.wide(entry.getArgument(7));
  Value srcRowStride = k.wide(entry.getArgument(8));
  Value srcHeadStride = k.wide(entry.getArgument(9));
  Value dstRowStride = k.wide(entry.getArgument(10));
  Value srcBatchStride = arith::MaxUIOp::create(
      b, loc, k.mul(k.wide(rows), srcRowStride),
      k.mul(k.wide(heads), srcHeadStride));
  Value smem = LLVM::AddressOfOp::create(b, loc, smemGlobal);
  Value block = k.id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value thread = k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value z = k.div(block, tilesPerMatrix);
  Value inMatrix = k.rem(block, tilesPerMatrix);
  Value r0 = k.mul(k.div(inMatrix, tilesC), k.c32(tile));
  Value c0 = k.mul(k.rem(inMatrix, tilesC), k.c32(tile));
  Value tx = k.rem(thread, k.c32(tile)), ty = k.div(thread, k.c32(tile));
  Value srcBase = k.add(
      srcOffset, k.add(k.mul(k.wide(k.div(z, heads)), srcBatchStride),
                       k.mul(k.wide(k.rem(z, heads)), srcHeadStride)));
  Value dstBase = k.mul(k.wide(z), k.mul(k.wide(cols), dstRowStride));
  auto at = [&](Value base, Value row, Value col, Value stride) {
    return k.add(base, k.add(k.mul(k.wide(row), stride), k.wide(col)));
  };
  auto smemAt = [&](Value i, Value j) {
    return LLVM::GEPOp::create(b, loc, k.shared, k.f32, smem,
                               ValueRange{k.add(k.mul(i, k.c32(pitch)), j)});
  };
  // Load: tile row ty + 8 p, column tx (coalesced along C).
  Value c = k.add(c0, tx);
  for (int64_t p = 0; p < tile / rowsPerPass; ++p) {
    Value i = k.add(ty, k.c32(p * rowsPerPass));
    Value r = k.add(r0, i);
    k.ifThen(k.andI(k.ult(r, rows), k.ult(c, cols)), [&] {
      Value x = LLVM::LoadOp::create(
          b, loc, k.f32,
          LLVM::GEPOp::create(b, loc, k.global, k.f32, src,
                              ValueRange{at(srcBase, r, c, srcRowStride)}),
          4, /*isVolatile=*/false, /*isNonTemporal=*/false,
          /*isInvariant=*/true);
      if (roundToTf32)
        x = RoundTf32Op::buildScalar(b, loc, x);
      LLVM::StoreOp::create(b, loc, x, smemAt(i, tx), 4);
    });
  }
  gpu::BarrierOp::create(b, loc);
  // Store: dst row c0 + ty + 8 p, column r0 + tx (coalesced along R).
  Value r = k.add(r0, tx);
  for (int64_t p = 0; p < tile / rowsPerPass; ++p) {
    Value j = k.add(ty, k.c32(p * rowsPerPass));
    Value cc = k.add(c0, j);
    k.ifThen(k.andI(k.ult(cc, cols), k.ult(r, rows)), [&] {
      Value x = LLVM::LoadOp::create(b, loc, k.f32, smemAt(tx, j), 4);
      LLVM::StoreOp::create(
          b, loc, x,
          LLVM::GEPOp::create(b, loc, k.global, k.f32, dst,
                              ValueRange{at(dstBase, cc, r, dstRowStride)}),
          4);
    });
  }
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::transposePtx(bool roundToTf32, std::string &error) {
  return cachedKernelPtx(
      transposeKernelName(roundToTf32),
      [&](MLIRContext *context) {
        return buildTransposeKernel(context, roundToTf32);
      },
      error);
}
