//===- NovaToLinalg.cpp -------------------------------------------------------===//
// In progress.
#include "compiler/transforms/Passes.h"

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTNOVATOLINALG
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

namespace {
struct ConvertNovaToLinalgPass : mlir::nova::impl::ConvertNovaToLinalgBase<ConvertNovaToLinalgPass> {
  using ConvertNovaToLinalgBase::ConvertNovaToLinalgBase;
  void runOnOperation() override {}
};
} // namespace
