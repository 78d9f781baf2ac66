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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
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

namespace {

/// Kernels' PTX by name, in memory and in the kernel cache directory.
struct KernelCache {
  std::mutex mutex;
  llvm::StringMap<std::string> kernels;
  std::string directory;
};

KernelCache &kernelCache() {
  static KernelCache cache;
  return cache;
}

/// A cached kernel as an earlier process wrote it, or "" (none, or not PTX).
std::string readCachedPtx(StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return {};
  StringRef ptx = (*file)->getBuffer();
  // Written whole (renamed into place); what is not a complete PTX module
  // is rebuilt and overwritten.
  if (!ptx.contains(".entry") || !ptx.ends_with("\n"))
    return {};
  return ptx.str();
}

} // namespace

void nova::cuda::setKernelCacheDirectory(StringRef directory) {
  KernelCache &cache = kernelCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.directory = directory.str();
}

/// Leaves `ptx` in the cache directory as `path` (written to a temporary
/// file and renamed, so readers see all of it or nothing). A cache that
/// cannot be written only costs the next process a build.
static void writeCachedPtx(StringRef path, StringRef ptx) {
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return;
  llvm::consumeError(llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << ptx;
    return llvm::Error::success();
  }));
}

std::string nova::cuda::cachedKernelPtx(
    StringRef name, function_ref<OwningOpRef<ModuleOp>(MLIRContext *)> build,
    std::string &error) {
  KernelCache &cache = kernelCache();
  std::string path, ptx;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (!cache.directory.empty())
      path = (Twine(cache.directory) + "/" + name + ".ptx").str();
    auto cached = cache.kernels.find(name);
    if (cached != cache.kernels.end())
      ptx = cached->second;
  }
  if (!ptx.empty()) {
    // Built in this process, maybe before the directory was set.
    if (!path.empty() && !llvm::sys::fs::exists(path))
      writeCachedPtx(path, ptx);
    return ptx;
  }
  // Read or built outside the lock: each build has its own context.
  if (!path.empty())
    ptx = readCachedPtx(path);
  if (ptx.empty()) {
    ptx = buildPtx(build, error);
    if (ptx.empty())
      return ptx;
    if (!path.empty())
      writeCachedPtx(path, ptx);
  }
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.kernels[name] = ptx;
  return ptx;
}
