//===- KernelDispatch.h - Nova kernels as IREE dispatches -------*- C++ -*-===//
//
// How a Nova-generated kernel enters the IREE program: a
// `hal.executable.source` carrying the kernel's PTX inline (no file path: the
// vmfb stays self-contained) with one `hal.executable.export` per entry
// point, and a `flow.dispatch` of it per use. IREE's hal/flow ops and
// attributes are not part of MLIR 22: they are built as unregistered ops with
// opaque attributes and types, which needs unregistered dialects allowed
// (Python's pipeline does).
//
// ABI (IREE's CUDA HAL): the kernel parameters are the bindings as 64-bit
// device pointers in the pipeline layout's order, then each i32 constant as a
// 32-bit parameter; the grid is the export's `count` region applied to the
// dispatch's workload, the block its `workgroup_size`. A `flow.dispatch`
// binds its tensor arguments in order (a tied result shares its argument's
// binding); its i32 arguments become the constants in order. Every binding
// is Indirect, so IREE can record a step's command buffer once and bind
// each call's buffers through a binding table.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CONVERSION_NOVATOIREE_KERNELDISPATCH_H
#define NOVA_CONVERSION_NOVATOIREE_KERNELDISPATCH_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>

namespace mlir::nova::nova_to_iree {

/// One entry point of a kernel executable.
struct KernelExport {
  StringRef name;
  /// Per binding, in the kernel's parameter order: whether it is read-only.
  SmallVector<bool> readOnlyBindings;
  int64_t constants = 0;
  std::array<int64_t, 3> workgroupSize = {1, 1, 1};
  /// Dynamic shared memory per workgroup in bytes (0: none).
  int64_t sharedMemoryBytes = 0;
  /// The grid (x, y, z) for a dispatch's workload (one index value); unset,
  /// (workload, 1, 1).
  std::function<SmallVector<Value, 3>(OpBuilder &, Location, Value)> grid;
};

/// Fails with an error on `op` unless unregistered dialects are allowed
/// (IREE's hal/flow ops are built unregistered).
LogicalResult requireUnregisteredDialects(Operation *op);

/// Whether `module` already declares executable `name`.
bool hasExecutable(ModuleOp module, StringRef name);

/// Builds the PTX of every one of `builds` (distinct kernels, each kept in
/// the kernel cache: cuda::cachedKernelPtx) all at once on a thread pool, so
/// the lowering that follows finds them built. A build's error is reported
/// when the lowering asks for that kernel again.
void buildInParallel(
    ArrayRef<std::function<std::string(std::string &error)>> builds);

/// Declares executable `name` at the start of `module`, holding `ptx` for any
/// CUDA target, with `exports`.
void createExecutable(ModuleOp module, StringRef name, StringRef ptx,
                      ArrayRef<KernelExport> exports);

/// Declares `kernel`'s executable (named as the kernel) once per module, its
/// PTX from `buildPtx` (empty with the diagnostics in its argument on
/// failure: then an error on `op` naming `what`).
LogicalResult
declareKernelOnce(ModuleOp module, Operation *op, StringRef what,
                  const KernelExport &kernel,
                  function_ref<std::string(std::string &error)> buildPtx);

/// `flow.dispatch @executable::@kernel[workload](arguments)` returning
/// tensors of `resultTypes`, result i tied to (written in place into)
/// argument `tiedTo[i]`, or untied (IREE allocates it) where that is -1.
ResultRange createDispatch(OpBuilder &b, Location loc, StringRef executable,
                           StringRef kernel, Value workload,
                           ValueRange arguments, TypeRange resultTypes,
                           ArrayRef<int64_t> tiedTo);

/// One `flow.dispatch` of a Nova kernel, its bindings in the kernel's
/// parameter order: inputs, then results. A result either starts from a
/// given tensor (tied to it), or the kernel writes it whole: then it is an
/// untied result IREE allocates, or with `poison` tied to a NaN-filled
/// tensor (its own NaN payload: two results tied to one SSA value would
/// share one buffer). Untied results bind after all tied ones, so they
/// come last.
class KernelDispatchBuilder {
public:
  KernelDispatchBuilder(OpBuilder &b, Location loc, bool poison)
      : b(b), loc(loc), poison(poison) {}

  void input(Value tensor) { inputs.push_back(tensor); }
  /// A result starting as `init` (tied), or written whole when null.
  void result(RankedTensorType type, Value init = Value());
  /// A result written whole that is never poisoned (scratch).
  void scratch(RankedTensorType type);
  /// An i32 constant (one op per value).
  void constant(int64_t value);

  ResultRange create(StringRef executable, StringRef kernel, Value workload);

private:
  void append(RankedTensorType type, Value tied);

  OpBuilder &b;
  Location loc;
  bool poison;
  SmallVector<Value> inputs, constants;
  SmallVector<Type> types;
  SmallVector<Value> tiedInits;    // per result, null when untied
  llvm::DenseMap<int64_t, Value> i32s;
  int64_t payload = 0;
};

} // namespace mlir::nova::nova_to_iree

#endif // NOVA_CONVERSION_NOVATOIREE_KERNELDISPATCH_H
