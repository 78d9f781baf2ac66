//===- AttentionDeltaKernel.cpp - Delta = rowsum(dO * O) of attention -----===//

#include "compiler/codegen/cuda/AttentionDeltaKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

std::string cuda::attentionDeltaKernelName(int64_t headDim, bool f32) {
  return "nova_attention_delta_d" + std::to_string(headDim) +
         (f32 ? "_f32" : "");
}

OwningOpRef<ModuleOp> cuda::buildAttentionDeltaKernel(MLIRContext *context,
                                                      int64_t headDim,
                                                      bool f32) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  std::string name = attentionDeltaKernelName(headDim, f32);
  OwningOpRef<ModuleOp> module = createKernelModule(b, name, "sm_80", "+ptx70");
  KernelBuilder k(b, loc);
  SmallVector<Type> params(3, k.global);
  params.append(11, k.i32);
  Block &entry =
      createKernelFunc(b, name, params, kAttentionDeltaBlock).getBody().front();
  auto arg = [&](unsigned i) { return entry.getArgument(i); };
  Value rows = arg(3), t = arg(4), h = arg(5);
  Value thread = k.add(
      k.mul(k.id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
            k.c32(kAttentionDeltaBlock)),
      k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x)));
  Value row = k.div(thread, k.c32(kAttentionDeltaThreadsPerRow));
  Value part = k.rem(thread, k.c32(kAttentionDeltaThreadsPerRow));
  Value valid = k.ult(row, rows);
  // Rows past the end read row 0 and are not stored: every lane of a warp
  // takes part in the shuffles.
  Value r = k.select(valid, row, k.c32(0));
  Value bh = k.div(r, t), ti = k.rem(r, t);
  Value bi = k.div(bh, h), hi = k.rem(bh, h);
  // Element index of (b, h, t, 8 part) in operand `first` (its four strides).
  auto at = [&](unsigned first) {
    Value index = k.wide(arg(first));
    index = k.add(index, k.mul(k.wide(bi), k.wide(arg(first + 3))));
    index = k.add(index, k.mul(k.wide(hi), k.wide(arg(first + 2))));
    index = k.add(index, k.mul(k.wide(ti), k.wide(arg(first + 1))));
    return k.add(index, k.wide(k.mul(part, k.c32(8))));
  };
  Value doutAt = at(6), outAt = at(10);
  Type element = f32 ? k.f32 : Type(b.getBF16Type());
  Type vec = VectorType::get({8}, element), vecF32 = VectorType::get({8}, k.f32);
  auto load = [&](Value base, Value index) -> Value {
    Value v = LLVM::LoadOp::create(
        b, loc, vec,
        LLVM::GEPOp::create(b, loc, k.global, element, base, ValueRange{index}),
        16, /*isVolatile=*/false, /*isNonTemporal=*/false,
        /*isInvariant=*/true);
    return f32 ? v : arith::ExtFOp::create(b, loc, vecF32, v).getResult();
  };
  Value sum = k.cf(0);
  for (int64_t c = 0; c < headDim; c += 64) {
    Value x = load(arg(0), k.add(doutAt, k.c64(c)));
    Value y = load(arg(1), k.add(outAt, k.c64(c)));
    Value products = arith::MulFOp::create(b, loc, x, y);
    sum = k.fadd(sum, vector::ReductionOp::create(
                          b, loc, vector::CombiningKind::ADD, products)
                          .getResult());
  }
  for (int64_t offset : {4, 2, 1}) {
    Value other = NVVM::ShflOp::create(b, loc, k.f32, k.c32(-1), sum,
                                       k.c32(offset), k.c32(0x1f),
                                       NVVM::ShflKind::bfly, UnitAttr());
    sum = k.fadd(sum, other);
  }
  k.ifThen(k.andI(valid, k.eq(part, 0)), [&] {
    LLVM::StoreOp::create(
        b, loc, sum,
        LLVM::GEPOp::create(b, loc, k.global, k.f32, arg(2),
                            ValueRange{k.wide(row)}),
        4);
  });
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::attentionDeltaPtx(int64_t headDim, bool f32,
                                    std::string &error) {
  return cachedKernelPtx(
      attentionDeltaKernelName(headDim, f32),
      [&](MLIRContext *context) {
        return buildAttentionDeltaKernel(context, headDim, f32);
      },
      error);
}
