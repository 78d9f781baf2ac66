//===- Registration.h - everything nova registers ---------------*- C++ -*-===//
//
// The one place that registers nova's dialect, passes and named pipelines,
// shaped like an IREE compiler plugin's registration hooks.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_API_REGISTRATION_H
#define NOVA_API_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::nova {
/// The nova dialect plus every upstream dialect nova's passes produce or read.
void registerNovaDialects(DialectRegistry &registry);
/// nova's passes and named pipelines, plus the upstream passes they use.
void registerAllNovaPasses();
} // namespace mlir::nova

#endif // NOVA_API_REGISTRATION_H
