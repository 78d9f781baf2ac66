//===- StepGateKernel.cpp - a train step ordered with torch on the device -===//

#include "compiler/codegen/cuda/StepGateKernel.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

std::string cuda::stepGateKernelName(int64_t inputs) {
  return "nova_step_gate_n" + std::to_string(inputs);
}

OwningOpRef<ModuleOp> cuda::buildStepGateKernel(MLIRContext *context,
                                                int64_t inputs) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  std::string name = stepGateKernelName(inputs);
  OwningOpRef<ModuleOp> module = createKernelModule(b, name, "sm_80", "+ptx70");
  KernelBuilder k(b, loc);
  SmallVector<Type> params(2 + 2 * inputs, k.global);
  params.append(inputs, k.i32);
  Block &entry =
      createKernelFunc(b, name, params, kStepGateBlock).getBody().front();
  Value ready = entry.getArgument(0);
  Value epoch = entry.getArgument(1 + inputs);
  Value thread = k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  auto load = [&](Value ptr, bool isVolatile) {
    return LLVM::LoadOp::create(b, loc, k.i32, ptr, 4, isVolatile).getResult();
  };
  k.ifThen(k.eq(thread, 0), [&] {
    Value next = k.add(load(epoch, false), k.c32(1));
    // while (ready < next) sleep; signed: the words count up from 0.
    auto wait = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
    Block *before = b.createBlock(&wait.getBefore());
    Value behind =
        k.cmp(arith::CmpIPredicate::slt, load(ready, true), next);
    scf::ConditionOp::create(b, loc, behind, ValueRange{});
    b.createBlock(&wait.getAfter());
    NVVM::NanosleepOp::create(b, loc, k.c32(kStepGatePollNs));
    scf::YieldOp::create(b, loc, ValueRange{});
    b.setInsertionPointAfter(wait);
    (void)before;
    // Order the reads of the inputs after seeing the word (torch's stream
    // wrote them before it, behind a system-wide fence).
    NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::SYS);
    LLVM::StoreOp::create(b, loc, next, epoch, 4);
  });
  gpu::BarrierOp::create(b, loc);
  // Copies: 16-byte vectors, kStepGateUnroll independent loads in flight
  // per thread, then the words past the last whole vector. Plain loads: no
  // thread of this kernel read the inputs before the barrier.
  Type vec = VectorType::get({4}, k.i32);
  for (int64_t i = 0; i < inputs; ++i) {
    Value src = entry.getArgument(1 + i);
    Value dst = entry.getArgument(2 + inputs + i);
    Value words = entry.getArgument(2 + 2 * inputs + i);
    Value vectors = k.div(words, k.c32(4));
    k.loop(thread, vectors, k.c32(kStepGateBlock * kStepGateUnroll), {},
           [&](Value first, ValueRange) -> SmallVector<Value> {
             SmallVector<Value> at, valid, values;
             for (int64_t u = 0; u < kStepGateUnroll; ++u) {
               Value v = k.add(first, k.c32(u * kStepGateBlock));
               valid.push_back(k.ult(v, vectors));
               at.push_back(k.wide(k.select(valid.back(), v, first)));
               values.push_back(LLVM::LoadOp::create(
                   b, loc, vec,
                   LLVM::GEPOp::create(b, loc, k.global, vec, src,
                                       ValueRange{at.back()}),
                   16));
             }
             for (int64_t u = 0; u < kStepGateUnroll; ++u)
               k.ifThen(valid[u], [&] {
                 LLVM::StoreOp::create(
                     b, loc, values[u],
                     LLVM::GEPOp::create(b, loc, k.global, vec, dst,
                                         ValueRange{at[u]}),
                     16);
               });
             return {};
           });
    k.loop(k.add(k.mul(vectors, k.c32(4)), thread), words,
           k.c32(kStepGateBlock), {},
           [&](Value w, ValueRange) -> SmallVector<Value> {
             Value at = k.wide(w);
             Value word = load(LLVM::GEPOp::create(b, loc, k.global, k.i32,
                                                   src, ValueRange{at}),
                               false);
             LLVM::StoreOp::create(
                 b, loc, word,
                 LLVM::GEPOp::create(b, loc, k.global, k.i32, dst,
                                     ValueRange{at}),
                 4);
             return {};
           });
  }
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::stepGatePtx(int64_t inputs, std::string &error) {
  return cachedKernelPtx(
      stepGateKernelName(inputs),
      [&](MLIRContext *context) { return buildStepGateKernel(context, inputs); },
      error);
}

std::string cuda::stepDoneKernelName(int64_t lossBits) {
  return "nova_step_done_b" + std::to_string(lossBits);
}

OwningOpRef<ModuleOp> cuda::buildStepDoneKernel(MLIRContext *context,
                                                int64_t lossBits) {
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  std::string name = stepDoneKernelName(lossBits);
  OwningOpRef<ModuleOp> module = createKernelModule(b, name, "sm_80", "+ptx70");
  KernelBuilder k(b, loc);
  SmallVector<Type> params(4, k.global);
  Block &entry = createKernelFunc(b, name, params, 32).getBody().front();
  Value thread = k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  k.ifThen(k.eq(thread, 0), [&] {
    Type lossType = b.getIntegerType(lossBits);
    Value loss = LLVM::LoadOp::create(b, loc, lossType, entry.getArgument(1),
                                      lossBits / 8);
    LLVM::StoreOp::create(b, loc, loss, entry.getArgument(2), lossBits / 8);
    Value epoch = LLVM::LoadOp::create(b, loc, k.i32, entry.getArgument(0), 4);
    // The loss (and everything before this kernel) visible to torch's
    // stream before the word that releases it.
    NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::SYS);
    LLVM::StoreOp::create(b, loc, epoch, entry.getArgument(3), 4,
                          /*isVolatile=*/true);
  });
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::stepDonePtx(int64_t lossBits, std::string &error) {
  return cachedKernelPtx(
      stepDoneKernelName(lossBits),
      [&](MLIRContext *context) {
        return buildStepDoneKernel(context, lossBits);
      },
      error);
}
