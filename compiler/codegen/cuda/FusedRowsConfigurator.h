//===- FusedRowsConfigurator.h - row-kernel config of nova.fused -*- C++ -*-===//
//
// Chooses how one nova.fused region runs as Nova's fused-rows kernel
// (FusedRowsKernel.h): the widest vector of 16 bytes or less (of the widest
// element the region loads or stores) that divides the row, four warps per
// CTA, and - for a region without last-dim reductions over too few rows (or
// groups of rows) to fill the GPU - the warps that share each row.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_FUSEDROWSCONFIGURATOR_H
#define NOVA_CODEGEN_CUDA_FUSEDROWSCONFIGURATOR_H

#include "compiler/codegen/cuda/FusedRowsKernel.h"

#include <optional>
#include <string>

namespace mlir::nova::cuda {

/// Whether `target` runs Nova's row kernels (fused rows, column sums), else
/// the reason in `why`.
bool runsRowKernels(TargetAttr target, std::string &why);

/// The lowering_config for a region with `plan` on `target`, or nullopt with
/// the reason in `why` (the region is then inlined back for IREE).
std::optional<LoweringConfigAttr>
configureFusedRows(const FusedRowsPlan &plan, TargetAttr target,
                   std::string &why);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_FUSEDROWSCONFIGURATOR_H
