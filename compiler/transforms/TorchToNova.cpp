//===- TorchToNova.cpp -------------------------------------------------------===//
// In progress.
#include "compiler/transforms/Passes.h"

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTTORCHTONOVA
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

namespace {
struct ConvertTorchToNovaPass : mlir::nova::impl::ConvertTorchToNovaBase<ConvertTorchToNovaPass> {
  using ConvertTorchToNovaBase::ConvertTorchToNovaBase;
  void runOnOperation() override {}
};
} // namespace
