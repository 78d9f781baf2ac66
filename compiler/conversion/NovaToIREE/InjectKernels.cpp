//===- InjectKernels.cpp - nova ops -> dispatches of Nova's kernels -------===//

#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/NovaOps.h"

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTNOVATOIREEKERNELS
#include "compiler/conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

struct ConvertNovaToIREEKernelsPass
    : nova::impl::ConvertNovaToIREEKernelsBase<ConvertNovaToIREEKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    cuda::setKernelCacheDirectory(kernelCache);
    if (failed(nova_to_iree::injectScatterAddKernels(module)) ||
        failed(nova_to_iree::injectGemmKernels(module, poisonOutputs,
                                               gemmStmatrix)) ||
        failed(nova_to_iree::injectAttentionKernels(module, poisonOutputs)) ||
        failed(
            nova_to_iree::injectCrossEntropyKernels(module, poisonOutputs)) ||
        failed(nova_to_iree::injectFusedKernels(module, poisonOutputs)) ||
        (stateInPlace && failed(nova_to_iree::injectOptimizerKernels(module))))
      signalPassFailure();
  }
};

} // namespace
