//===- ScatterAddKernel.cpp - scatter-add kernel builder ------------------===//

#include "compiler/codegen/cuda/ScatterAddKernel.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::nova;

OwningOpRef<ModuleOp> cuda::buildScatterAddKernel(MLIRContext *context) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module =
      createKernelModule(b, kScatterExecutable, "sm_60", "+ptx60");

  // Global-memory pointers, so loads and the atomic are ld/red.global.
  Type ptr = LLVM::LLVMPointerType::get(context, /*addressSpace=*/1);
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  Block &body = createKernelFunc(b, kScatterKernel,
                                 {ptr, ptr, ptr, i32, i32, i32},
                                 kScatterBlockSize)
                    .getBody()
                    .front();
  Value dest = body.getArgument(0), indices = body.getArgument(1),
        updates = body.getArgument(2), total = body.getArgument(3),
        rowSize = body.getArgument(4), rows = body.getArgument(5);

  auto toI32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, i32, index).getResult();
  };
  Value t = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
          toI32(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x))),
      toI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x)));
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, total);
  auto ifInRange = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
  b.setInsertionPointToStart(ifInRange.thenBlock());
  Value n = arith::DivUIOp::create(b, loc, t, rowSize);
  Value d = arith::SubIOp::create(
      b, loc, t, arith::MulIOp::create(b, loc, n, rowSize));
  auto wide = [&](Value v) {
    return arith::ExtUIOp::create(b, loc, i64, v).getResult();
  };
  Value indexPtr = LLVM::GEPOp::create(b, loc, ptr, i64, indices,
                                       ValueRange{wide(n)});
  // Indices and updates are never written by the kernel: invariant loads
  // (ld.global.nc), aligned to their element size.
  auto readOnly = [&](Type type, Value address, unsigned alignment) {
    return LLVM::LoadOp::create(b, loc, type, address, alignment,
                                /*isVolatile=*/false, /*isNonTemporal=*/false,
                                /*isInvariant=*/true)
        .getResult();
  };
  Value row = readOnly(i64, indexPtr, 8);
  // Unsigned row >= V also catches negative rows.
  Value rowOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                      wide(rows));
  auto ifRowOk = scf::IfOp::create(b, loc, rowOk, /*withElse=*/false);
  b.setInsertionPointToStart(ifRowOk.thenBlock());
  Value updatePtr =
      LLVM::GEPOp::create(b, loc, ptr, f32, updates, ValueRange{wide(t)});
  Value update = readOnly(f32, updatePtr, 4);
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, wide(rowSize)), wide(d));
  Value destPtr =
      LLVM::GEPOp::create(b, loc, ptr, f32, dest, ValueRange{offset});
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::fadd, destPtr, update,
                            LLVM::AtomicOrdering::monotonic)
      .setAlignment(4);
  b.setInsertionPointToEnd(&body);
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::scatterAddPtx(std::string &error) {
  return cachedKernelPtx(kScatterKernel, buildScatterAddKernel, error);
}
