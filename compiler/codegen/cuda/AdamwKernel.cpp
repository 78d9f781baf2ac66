//===- AdamwKernel.cpp - multi-tensor AdamW update ------------------------===//

#include "compiler/codegen/cuda/AdamwKernel.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/codegen/cuda/KernelBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

std::optional<LoweringConfigAttr>
cuda::configureAdamw(int64_t elements, TargetAttr target, std::string &why) {
  if (computeCapability(target) < 80) {
    why = "Nova's optimizer kernel needs sm_80 or newer";
    return std::nullopt;
  }
  if (elements < 1 || elements >= (int64_t(1) << 31) - adamwBlockElements()) {
    why = "element count out of the kernel's 32-bit range";
    return std::nullopt;
  }
  return LoweringConfigAttr::get(
      target.getContext(), /*tile_sizes=*/{1, kAdamwElementsPerThread, 1},
      /*warp_layout=*/{kAdamwBlock / 32, 1}, /*mma_shape=*/{1, 1, 1},
      /*pipeline_stages=*/1, /*swizzle=*/0, "multi_tensor_adamw", "f32",
      /*producer_warpgroups=*/0, /*cluster_m=*/1, /*cluster_n=*/1,
      /*split_k=*/1, /*persistent_ctas=*/0, /*raster_group=*/1,
      /*min_ctas_per_sm=*/0);
}

std::string cuda::adamwKernelName(int64_t tensors, bool bf16Grads) {
  return "nova_adamw_f32_x" + std::to_string(tensors) +
         (bf16Grads ? "_bf16grad" : "");
}

OwningOpRef<ModuleOp> cuda::buildAdamwKernel(MLIRContext *context,
                                             int64_t tensors, bool bf16Grads) {
  assert(tensors >= 1 && tensors <= kAdamwMaxTensors);
  OpBuilder b(context);
  Location loc = b.getUnknownLoc();
  std::string name = adamwKernelName(tensors, bf16Grads);
  OwningOpRef<ModuleOp> module = createKernelModule(b, name, "sm_80", "+ptx70");
  KernelBuilder k(b, loc);
  int64_t n = tensors;
  SmallVector<Type> params(1 + 4 * n, k.global);
  params.append(2 * n, k.i32);
  Block &entry = createKernelFunc(b, name, params, kAdamwBlock).getBody().front();
  auto arg = [&](int64_t i) { return entry.getArgument(i); };
  auto at = [&](Value ptr, Type type, Value index) -> Value {
    return LLVM::GEPOp::create(b, loc, k.global, type, ptr, ValueRange{index});
  };
  auto invariantLoad = [&](Type type, Value ptr, Value index) -> Value {
    return LLVM::LoadOp::create(b, loc, type, at(ptr, type, index),
                                type.getIntOrFloatBitWidth() / 8,
                                /*isVolatile=*/false, /*isNonTemporal=*/false,
                                /*isInvariant=*/true);
  };
  SmallVector<Value> scalars;
  for (int64_t s = 0; s < kAdamwScalars; ++s)
    scalars.push_back(invariantLoad(k.f32, arg(0), k.c32(s)));

  // This block's tensor: the last whose run starts at or before it.
  Value block = k.id(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value thread = k.id(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  int64_t constants = 1 + 4 * n;
  auto gradOf = [&](int64_t i) { return arg(1 + i); };
  auto stateOf = [&](int64_t i, int64_t j) { return arg(1 + n + 3 * i + j); };
  Value grad = gradOf(0), param = stateOf(0, 0), expAvg = stateOf(0, 1),
        expAvgSq = stateOf(0, 2);
  Value count = arg(constants), first = arg(constants + n);
  for (int64_t i = 1; i < n; ++i) {
    Value start = arg(constants + n + i);
    Value mine = k.cmp(arith::CmpIPredicate::uge, block, start);
    grad = k.select(mine, gradOf(i), grad);
    param = k.select(mine, stateOf(i, 0), param);
    expAvg = k.select(mine, stateOf(i, 1), expAvg);
    expAvgSq = k.select(mine, stateOf(i, 2), expAvgSq);
    count = k.select(mine, arg(constants + i), count);
    first = k.select(mine, start, first);
  }
  Value base = k.add(k.mul(k.sub(block, first), k.c32(adamwBlockElements())),
                     thread);
  Type gradType = bf16Grads ? Type(b.getBF16Type()) : k.f32;
  // All loads first (zeros past the end), then the updates: the stores may
  // alias later loads as far as the compiler knows, so interleaving them
  // would leave one element's loads in flight at a time.
  SmallVector<Value> indices;
  SmallVector<SmallVector<Value, 4>> loaded;
  for (int64_t e = 0; e < kAdamwElementsPerThread; ++e) {
    Value index = k.add(base, k.c32(e * kAdamwBlock));
    auto branch = scf::IfOp::create(b, loc, SmallVector<Type>(4, k.f32),
                                    k.ult(index, count), /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      Value g = invariantLoad(gradType, grad, index);
      if (bf16Grads)
        g = arith::ExtFOp::create(b, loc, k.f32, g);
      auto load = [&](Value ptr) -> Value {
        return LLVM::LoadOp::create(b, loc, k.f32, at(ptr, k.f32, index), 4);
      };
      scf::YieldOp::create(
          b, loc, ValueRange{load(param), g, load(expAvg), load(expAvgSq)});
      b.setInsertionPointToStart(branch.elseBlock());
      Value zero = k.cf(0.0);
      scf::YieldOp::create(b, loc, ValueRange{zero, zero, zero, zero});
    }
    indices.push_back(index);
    loaded.emplace_back(branch.getResults());
  }
  for (auto [index, values] : llvm::zip(indices, loaded)) {
    k.ifThen(k.ult(index, count), [&] {
      SmallVector<Value, 3> updated = AdamwOp::buildElementUpdate(
          b, loc, values, scalars,
          [&](Value x) { return k.intrinsic("llvm.nvvm.sqrt.rn.f", x); });
      Value state[] = {param, expAvg, expAvgSq};
      for (auto [value, ptr] : llvm::zip(updated, state))
        LLVM::StoreOp::create(b, loc, value, at(ptr, k.f32, index), 4);
    });
  }
  gpu::ReturnOp::create(b, loc);
  return module;
}

std::string cuda::adamwPtx(int64_t tensors, bool bf16Grads,
                           std::string &error) {
  return cachedKernelPtx(
      adamwKernelName(tensors, bf16Grads),
      [&](MLIRContext *context) {
        return buildAdamwKernel(context, tensors, bf16Grads);
      },
      error);
}
