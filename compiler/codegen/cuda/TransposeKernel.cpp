//===- TransposeKernel.cpp - batched f32 transposes for TF32 GEMM operands -===//

#include "compiler/codegen/cuda/TransposeKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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
  constexpr int64_t vector = 4, vectorsPerRow = tile / vector; // 16
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
  Value offset32 = entry.getArgument(7), rowStride32 = entry.getArgument(8),
        headStride32 = entry.getArgument(9), dstStride32 = entry.getArgument(10);
  // i64: a matrix of the batch may pass 2^31 elements altogether.
  Value srcOffset = k.wide(offset32);
  Value srcRowStride = k.wide(rowStride32);
  Value srcHeadStride = k.wide(headStride32);
  Value dstRowStride = k.wide(dstStride32);
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
  auto globalAt = [&](Value ptr, Value index) {
    return LLVM::GEPOp::create(b, loc, k.global, k.f32, ptr,
                               ValueRange{index});
  };
  auto round = [&](Value x) {
    return roundToTf32 ? RoundTf32Op::buildScalar(b, loc, x) : x;
  };

  // Whole tiles whose rows start 16-byte aligned on both sides move as
  // 16-byte vectors (4 in flight per thread each way); edge tiles and
  // unaligned layouts element by element.
  Value aligned = k.eq(
      k.rem(k.orI(k.orI(offset32, rowStride32), k.orI(headStride32, dstStride32)),
            k.c32(vector)),
      0);
  Value whole = k.andI(
      k.cmp(arith::CmpIPredicate::ule, k.add(r0, k.c32(tile)), rows),
      k.cmp(arith::CmpIPredicate::ule, k.add(c0, k.c32(tile)), cols));
  auto paths = scf::IfOp::create(b, loc, k.andI(aligned, whole),
                                 /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(paths.thenBlock());
    Type vectorType = VectorType::get({vector}, k.f32);
    Value q = k.rem(thread, k.c32(vectorsPerRow));
    Value first = k.div(thread, k.c32(vectorsPerRow)); // 0..15
    int64_t passes = tile * vectorsPerRow / kTransposeBlock;     // 4
    int64_t rowsPerPass = kTransposeBlock / vectorsPerRow;       // 16
    // Load: tile rows first + 16 p, columns 4q..4q+3, all issued before the
    // first shared store.
    SmallVector<Value> loaded;
    for (int64_t p = 0; p < passes; ++p) {
      Value i = k.add(first, k.c32(p * rowsPerPass));
      loaded.push_back(LLVM::LoadOp::create(
          b, loc, vectorType,
          globalAt(src, at(srcBase, k.add(r0, i),
                           k.add(c0, k.mul(q, k.c32(vector))), srcRowStride)),
          16, /*isVolatile=*/false, /*isNonTemporal=*/false,
          /*isInvariant=*/true));
    }
    for (int64_t p = 0; p < passes; ++p) {
      Value i = k.add(first, k.c32(p * rowsPerPass));
      Value x = loaded[p];
      for (int64_t e = 0; e < vector; ++e) {
        Value v = vector::ExtractOp::create(b, loc, x, e);
        LLVM::StoreOp::create(
            b, loc, round(v),
            smemAt(i, k.add(k.mul(q, k.c32(vector)), k.c32(e))), 4);
      }
    }
    gpu::BarrierOp::create(b, loc);
    // Store: dst row c0 + first + 16 p, columns r0 + 4q..4q+3.
    for (int64_t p = 0; p < passes; ++p) {
      Value j = k.add(first, k.c32(p * rowsPerPass));
      SmallVector<Value> values;
      for (int64_t e = 0; e < vector; ++e)
        values.push_back(LLVM::LoadOp::create(
            b, loc, k.f32,
            smemAt(k.add(k.mul(q, k.c32(vector)), k.c32(e)), j), 4));
      Value x = vector::FromElementsOp::create(b, loc, vectorType, values);
      LLVM::StoreOp::create(
          b, loc, x,
          globalAt(dst, at(dstBase, k.add(c0, j),
                           k.add(r0, k.mul(q, k.c32(vector))), dstRowStride)),
          16);
    }
    b.setInsertionPointToStart(paths.elseBlock());
    Value tx = k.rem(thread, k.c32(tile)), ty = k.div(thread, k.c32(tile));
    int64_t rowsPerScalarPass = kTransposeBlock / tile; // 4
    // Load: tile row ty + 4 p, column tx (coalesced along C).
    Value c = k.add(c0, tx);
    for (int64_t p = 0; p < tile / rowsPerScalarPass; ++p) {
      Value i = k.add(ty, k.c32(p * rowsPerScalarPass));
      Value r = k.add(r0, i);
      k.ifThen(k.andI(k.ult(r, rows), k.ult(c, cols)), [&] {
        Value x = LLVM::LoadOp::create(
            b, loc, k.f32, globalAt(src, at(srcBase, r, c, srcRowStride)), 4,
            /*isVolatile=*/false, /*isNonTemporal=*/false,
            /*isInvariant=*/true);
        LLVM::StoreOp::create(b, loc, round(x), smemAt(i, tx), 4);
      });
    }
    gpu::BarrierOp::create(b, loc);
    // Store: dst row c0 + ty + 4 p, column r0 + tx (coalesced along R).
    Value r = k.add(r0, tx);
    for (int64_t p = 0; p < tile / rowsPerScalarPass; ++p) {
      Value j = k.add(ty, k.c32(p * rowsPerScalarPass));
      Value cc = k.add(c0, j);
      k.ifThen(k.andI(k.ult(cc, cols), k.ult(r, rows)), [&] {
        Value x = LLVM::LoadOp::create(b, loc, k.f32, smemAt(tx, j), 4);
        LLVM::StoreOp::create(b, loc, x,
                              globalAt(dst, at(dstBase, cc, r, dstRowStride)),
                              4);
      });
    }
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
