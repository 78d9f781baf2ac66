//===- KnownTargets.h - GPUs Nova plans kernels for -------------*- C++ -*-===//
//
// The #nova.target of each known CUDA architecture, for compiling away from
// the GPU (on a GPU the Python driver builds the target from the device's
// properties instead).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_KNOWNTARGETS_H
#define NOVA_CODEGEN_CUDA_KNOWNTARGETS_H

#include "compiler/dialect/NovaAttrs.h"

#include <optional>

namespace mlir::nova::cuda {

/// Buffers IREE 3.13's CUDA HAL binds to one dispatch
/// (IREE_HAL_CUDA_MAX_DISPATCH_BINDING_COUNT): an executable whose kernel
/// takes more fails to load.
constexpr int64_t kMaxDispatchBindings = 16;

/// The module attribute that holds the #nova.target kernels are planned for.
constexpr StringLiteral kTargetAttrName = "nova.target";

/// The target for `arch` ("sm_80", "sm_86", "sm_89", "sm_90"), or nullopt.
std::optional<TargetAttr> getKnownTarget(MLIRContext *context, StringRef arch);

/// The architectures getKnownTarget knows, for diagnostics.
ArrayRef<StringRef> knownArchitectures();

/// getKnownTarget, or an error on `op` naming the known architectures.
FailureOr<TargetAttr> lookupKnownTarget(Operation *op, StringRef arch);

/// The architecture's compute capability as an integer (sm_90a -> 90).
int64_t computeCapability(TargetAttr target);

/// Threads an SM holds at once: 2048 on sm_80 and sm_90, 1536 on sm_86,
/// sm_87 and sm_89 (the table's value; by compute capability otherwise).
int64_t maxThreadsPerSm(TargetAttr target);

/// L2 cache bytes (the table's value; 4 MiB for unknown parts).
int64_t l2CacheBytes(TargetAttr target);

/// SM boost clock in GHz (for per-cycle limits such as shared-memory
/// bandwidth; the table's value, 1.5 for unknown parts).
double smClockGhz(TargetAttr target);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_KNOWNTARGETS_H
