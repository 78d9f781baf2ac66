//===- PtxSerialization.cpp - gpu.module -> PTX ---------------------------===//

#include "compiler/codegen/cuda/PtxSerialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

std::unique_ptr<MLIRContext> nova::cuda::createKernelContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->disableMultithreading();
  context->loadAllAvailableDialects();
  return context;
}

OwningOpRef<ModuleOp> nova::cuda::createKernelModule(OpBuilder &b,
                                                     StringRef name,
                                                     StringRef chip,
                                                     StringRef features) {
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToStart(module->getBody());
  auto target = NVVM::NVVMTargetAttr::get(b.getContext(), /*optLevel=*/3,
                                          "nvptx64-nvidia-cuda", chip,
                                          features);
  auto gpuModule =
      gpu::GPUModuleOp::create(b, loc, name, b.getArrayAttr({target}));
  b.setInsertionPointToStart(gpuModule.getBody());
  return module;
}

gpu::GPUFuncOp nova::cuda::createKernelFunc(OpBuilder &b, StringRef name,
                                            TypeRange params,
                                            int64_t threads) {
  auto func = gpu::GPUFuncOp::create(b, b.getUnknownLoc(), name,
                                     b.getFunctionType(params, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  return func;
}

FailureOr<std::string> nova::cuda::serializeToPtx(ModuleOp module) {
  // PTX text ("isa"), JIT-compiled by the driver for the GPU it runs on.
  gpu::GPUToNVVMPipelineOptions options;
  options.cubinFormat = "isa";
  options.optLevel = 3;
  auto target = module.getOps<gpu::GPUModuleOp>().begin();
  if (target == module.getOps<gpu::GPUModuleOp>().end() ||
      !(*target).getTargetsAttr() || (*target).getTargetsAttr().size() != 1)
    return module.emitError("serializeToPtx: expected one gpu.module with "
                            "one #nvvm.target");
  auto nvvm = cast<NVVM::NVVMTargetAttr>((*target).getTargetsAttr()[0]);
  options.cubinChip = nvvm.getChip().str();
  options.cubinFeatures = nvvm.getFeatures().str();
  PassManager pm(module.getContext());
  gpu::buildLowerToNVVMPassPipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects())
      return cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  return module.emitError("serializeToPtx: no gpu.binary was produced");
}

std::string
nova::cuda::buildPtx(function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> build,
                     std::string &error) {
  std::unique_ptr<MLIRContext> context = createKernelContext();
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &diag) {
    os << diag << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = build(context.get());
  FailureOr<std::string> ptx = serializeToPtx(*module);
  if (failed(ptx)) {
    error = diagnostics;
    return {};
  }
  return std::move(*ptx);
}

std::string nova::cuda::cachedKernelPtx(
    StringRef name, function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> build,
    std::string &error) {
  static std::mutex mutex;
  static llvm::StringMap<std::string> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto cached = cache.find(name);
    if (cached != cache.end())
      return cached->second;
  }
  // Built outside the lock: each build has its own context.
  std::string ptx = buildPtx(build, error);
  if (!ptx.empty()) {
    std::lock_guard<std::mutex> lock(mutex);
    cache[name] = ptx;
  }
  return ptx;
}
