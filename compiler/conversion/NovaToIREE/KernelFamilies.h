//===- KernelFamilies.h - nova ops that run Nova's kernels ------*- C++ -*-===//

#ifndef NOVA_CONVERSION_NOVATOIREE_KERNELFAMILIES_H
#define NOVA_CONVERSION_NOVATOIREE_KERNELFAMILIES_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::nova::nova_to_iree {

/// f32 nova.scatter_add -> a dispatch of Nova's scatter-add kernel.
LogicalResult injectScatterAddKernels(ModuleOp module);

/// nova.matmul with a "wgmma_tma" config -> a dispatch of Nova's sm_90 GEMM
/// (into a NaN-filled output with `poisonOutputs`; bf16 results staged with
/// stmatrix with `stmatrix`).
LogicalResult injectGemmKernels(ModuleOp module, bool poisonOutputs,
                                bool stmatrix);

/// nova.attention / nova.attention_backward with a "flash_wgmma" config -> a
/// dispatch of Nova's sm_90 fused attention (NaN-filled outputs with
/// `poisonOutputs`).
LogicalResult injectAttentionKernels(ModuleOp module, bool poisonOutputs);

/// nova.cross_entropy / nova.cross_entropy_backward with a
/// "cross_entropy_rows" config -> a dispatch of Nova's row kernel.
LogicalResult injectCrossEntropyKernels(ModuleOp module, bool poisonOutputs);

/// nova.fused with a "fused_rows" config -> a dispatch of Nova's row kernel
/// generated from the region.
LogicalResult injectFusedKernels(ModuleOp module, bool poisonOutputs);

/// nova.adamw ops with a "multi_tensor_adamw" config -> dispatches of Nova's
/// multi-tensor AdamW kernel, updating in place: only for state the module
/// owns (a pure function's caller would see its arguments written).
LogicalResult injectOptimizerKernels(ModuleOp module);

} // namespace mlir::nova::nova_to_iree

#endif // NOVA_CONVERSION_NOVATOIREE_KERNELFAMILIES_H
