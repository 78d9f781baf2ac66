//===- KernelBuilder.h - IR helpers shared by Nova's sm_90 kernels -*- C++ -*-===//
//
// What the GEMM and attention kernel builders have in common: i32/i64
// arithmetic over one OpBuilder, structured control flow, TMA tensor maps
// encoded on the device (an IREE dispatch gets only buffer pointers), wgmma
// shared-memory descriptors of 128B-swizzled tiles, TMA loads and mbarrier
// waits.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_KERNELBUILDER_H
#define NOVA_CODEGEN_CUDA_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::nova::cuda {

constexpr int64_t kTensorMapBytes = 128;
// mbarrier.try_wait suspend-time hint (ns).
constexpr int32_t kWaitTicks = 10000000;
// Device-side tensor-map encodings (PTX ISA, tensormap.replace).
constexpr int kTensorMapBf16 = 10, kTensorMapF32 = 7, kSwizzle128B = 3;

struct KernelBuilder {
  OpBuilder &b;
  Location loc;
  Type i32, i64, f32;
  Type global, shared, generic; // !llvm.ptr<1>, <3>, <0>

  KernelBuilder(OpBuilder &b, Location loc)
      : b(b), loc(loc), i32(b.getI32Type()), i64(b.getI64Type()),
        f32(b.getF32Type()),
        global(LLVM::LLVMPointerType::get(b.getContext(), 1)),
        shared(LLVM::LLVMPointerType::get(b.getContext(), 3)),
        generic(LLVM::LLVMPointerType::get(b.getContext(), 0)) {}

  Value c32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value c64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }
  Value cf(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value ceilDiv(Value x, int64_t y) { return div(add(x, c32(y - 1)), c32(y)); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value eq(Value x, int64_t y) {
    return cmp(arith::CmpIPredicate::eq, x, c32(y));
  }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  Value ugt(Value x, Value y) { return cmp(arith::CmpIPredicate::ugt, x, y); }
  // Contractable, as nvcc and Triton compile f32 code: LLVM fuses a product
  // into the sum that takes it (one FMA, one rounding). Without the flag
  // NVPTX prints mul.rn/add.rn, which ptxas may not fuse, and polynomial
  // code (tanh, erf, softmax) issues twice the instructions.
  Value fmul(Value x, Value y) {
    return arith::MulFOp::create(b, loc, x, y, arith::FastMathFlags::contract);
  }
  Value fadd(Value x, Value y) {
    return arith::AddFOp::create(b, loc, x, y, arith::FastMathFlags::contract);
  }
  Value fsub(Value x, Value y) {
    return arith::SubFOp::create(b, loc, x, y, arith::FastMathFlags::contract);
  }
  Value fmax(Value x, Value y) {
    return arith::MaxNumFOp::create(b, loc, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  /// A unary f32 LLVM intrinsic (`llvm.nvvm.*`) of `x`.
  Value intrinsic(StringRef name, Value x);
  /// 2^x and log2(x), MUFU approximations (ftz).
  Value ex2(Value x) { return intrinsic("llvm.nvvm.ex2.approx.ftz.f", x); }
  Value lg2(Value x) { return intrinsic("llvm.nvvm.lg2.approx.ftz.f", x); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value wide(Value x) { return arith::ExtUIOp::create(b, loc, i64, x); }
  Value id(Value index) {
    return arith::IndexCastUIOp::create(b, loc, i32, index);
  }
  Value byteOffset(Type ptrType, Value base, Value bytes) {
    return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                               ValueRange{bytes});
  }
  template <typename Fn> void ifThen(Value cond, Fn &&fn) {
    auto op = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(op.thenBlock());
    fn();
  }
  /// `for iv in [lb, ub) step s` carrying `init`; `body` returns the yields.
  template <typename Fn>
  ValueRange loop(Value lb, Value ub, Value step, ValueRange init, Fn &&body) {
    auto op = scf::ForOp::create(
        b, loc, lb, ub, step, init,
        [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          SmallVector<Value> yields = body(iv, args);
          scf::YieldOp::create(b, loc, yields);
        });
    return op.getResults();
  }

  Value toGeneric(Value ptr) {
    return LLVM::AddrSpaceCastOp::create(b, loc, generic, ptr);
  }
  Value sharedAddress(Value ptr) {
    return LLVM::PtrToIntOp::create(b, loc, i64, ptr);
  }

  /// One `tensormap.replace.tile.<field>` (PTX ISA 8.3; MLIR 22 has no op).
  void replaceField(Value map, StringRef field, std::optional<int> ord,
                    Value value, StringRef type = "b32");
  void replaceField(Value map, StringRef field, int immediate);

  /// A tiled tensor map over `base`: `dims` sizes (innermost first, it
  /// contiguous) with `strides` bytes between consecutive indices of
  /// dims[1..] (i64, multiples of 16), elements of `bytes`, boxes of
  /// [128 bytes, boxRows, 1, ...], 128B swizzle, zero fill, written from a
  /// zeroed 128 bytes.
  void encodeTensorMap(Value map, Value base, ArrayRef<Value> dims,
                       ArrayRef<Value> strides, int64_t boxRows, int64_t bytes,
                       int elementType);
  /// The dense 3-d case: [planes, rows, inner].
  void encodeTensorMap(Value map, Value base, Value planes, Value rows,
                       Value inner, int64_t boxRows, int64_t bytes,
                       int elementType);
  /// Makes the tensor maps written (generic proxy) visible to TMA.
  void publishTensorMaps(ArrayRef<Value> maps);

  /// wgmma shared-memory descriptor at `byteAddress` (i64) of a
  /// 128B-swizzled tile of 8-row x 128-byte atoms stacked 1024 bytes apart
  /// (the stride byte offset). `leadingBytes` steps to the next 64 M/N
  /// elements of an MN-major operand (unused for K-major: 16).
  Value matrixDescriptor(Value byteAddress, int64_t leadingBytes);

  /// One TMA box load of `map` at `coords` into this CTA's shared `dst`,
  /// completing on `barrier`'s transaction count; with `multicastMask` (i16)
  /// into `dst` and onto `barrier` of each CTA of the cluster in the mask.
  void tmaLoad(Value dst, Value map, ValueRange coords, Value barrier,
               Value multicastMask = Value());
  void waitParity(Value barrier, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parity,
                                          c32(kWaitTicks));
  }
  /// A producer's wait for its consumers to free a slot of phase `parity`
  /// (passes at once on a fresh barrier).
  void waitFreed(Value barrier, Value parity) {
    waitParity(barrier, arith::XOrIOp::create(b, loc, parity, c32(1)));
  }
  /// Arms `barrier` for `bytes` of TMA transactions (one arrival).
  void expectBytes(Value barrier, int64_t bytes) {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), barrier,
                                           c32(bytes), NVVM::MemScopeKind::CTA,
                                           false, Value());
  }
  /// Slot (iteration % slots) of a ring and the parity of its phase.
  std::pair<Value, Value> ringSlot(Value iteration, int64_t slots) {
    Value slot = rem(iteration, c32(slots));
    return {slot, andI(div(iteration, c32(slots)), c32(1))};
  }
  /// Warp group 0 runs `producer`, the others `consumer(group)`; with
  /// `moveRegisters` (setmaxnreg) the producer gives registers to them.
  template <typename P, typename C>
  void splitRoles(Value tid, bool moveRegisters, int32_t producerRegisters,
                  int32_t consumerRegisters, P &&producer, C &&consumer) {
    Value group = div(tid, c32(128));
    auto roles = scf::IfOp::create(b, loc, eq(group, 0), /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(roles.thenBlock());
    if (moveRegisters)
      NVVM::SetMaxRegisterOp::create(b, loc, producerRegisters,
                                     NVVM::SetMaxRegisterAction::decrease);
    producer();
    b.setInsertionPointToStart(roles.elseBlock());
    if (moveRegisters)
      NVVM::SetMaxRegisterOp::create(b, loc, consumerRegisters,
                                     NVVM::SetMaxRegisterAction::increase);
    consumer(group);
  }
  /// Generic-proxy shared-memory writes before async-proxy (wgmma, TMA)
  /// reads of them.
  void fenceAsyncShared();
  /// bar.sync `id` over `threads` threads.
  void namedBarrier(Value id, int64_t threads) {
    NVVM::BarrierOp::create(b, loc, Type(), id, c32(threads), nullptr,
                            Value());
  }
};

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_KERNELBUILDER_H
