//===- AdamwKernel.h - multi-tensor AdamW update ----------------*- C++ -*-===//
//
// One launch updates up to kAdamwMaxTensors f32 parameters in place with
// torch.optim.AdamW's step (nova.adamw's arithmetic, AdamwOp::
// buildElementUpdate), instead of one launch per parameter: the optimizer's
// ~100 small updates of a GPT step were launch-bound. IREE's binding limit
// keeps a launch to 3 tensors.
//
// Each tensor owns a contiguous run of blocks (its first block a constant);
// a block finds its tensor by comparing its index with the runs' starts and
// updates kAdamwBlock * kAdamwElementsPerThread consecutive elements,
// thread t elements t, t + block, ... (coalesced). The gradients are f32 or
// (`bf16Grads`) bf16, widened as they are read.
//
// ABI (IREE's CUDA HAL: bindings, then i32 constants): the scalars lr,
// beta1, beta2, eps, weight_decay, 1 - beta1^t, 1 - beta2^t as one f32[7];
// the N gradients; then per tensor param, exp_avg, exp_avg_sq (read-write);
// then the N element counts and the N first blocks. Block kAdamwBlock, grid
// x = the blocks of all runs.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_ADAMWKERNEL_H
#define NOVA_CODEGEN_CUDA_ADAMWKERNEL_H

#include "compiler/dialect/NovaAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>

namespace mlir::nova::cuda {

constexpr int64_t kAdamwBlock = 256, kAdamwElementsPerThread = 4;
constexpr int64_t kAdamwScalars = 7;
/// IREE 3.13's CUDA HAL binds at most 16 buffers a dispatch
/// (native_executable.c refuses more when the module loads): the scalars
/// + 4 per tensor.
constexpr int64_t kAdamwMaxTensors = (16 - 1) / 4;

/// The elements one block updates.
constexpr int64_t adamwBlockElements() {
  return kAdamwBlock * kAdamwElementsPerThread;
}

/// The config of an f32 nova.adamw of `elements` on `target` (kernel
/// "multi_tensor_adamw": the block and the elements per thread), or none
/// with the reason in `why`. Which updates share a launch is the
/// injection's choice (consecutive ones with the same hyperparameters).
std::optional<LoweringConfigAttr>
configureAdamw(int64_t elements, TargetAttr target, std::string &why);

std::string adamwKernelName(int64_t tensors, bool bf16Grads);

OwningOpRef<ModuleOp> buildAdamwKernel(MLIRContext *context, int64_t tensors,
                                       bool bf16Grads);

/// The kernel's PTX (built once per variant per process); empty with the
/// diagnostics in `error` on failure.
std::string adamwPtx(int64_t tensors, bool bf16Grads, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_ADAMWKERNEL_H
