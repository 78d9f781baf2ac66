//===- ColumnSumsKernel.h - column sums of partials, one launch -*- C++ -*-===//
//
// The second stage of a row kernel's column reductions (a bias or
// norm-gain gradient): a nova.fused region whose ops each reduce one of its
// f32 inputs [G, C] over dim 0 (sum, mean or max) to [C], yielded. One CTA
// of 32 warps takes 32 columns of one input: each warp walks every 32nd row
// (8 loads in flight a lane, a warp's 32 lanes one 128-byte row segment),
// the warps' 32 sums meet in shared memory and warp 0 adds them up in warp
// order (deterministic) and stores them. IREE's reduction over a leading dim
// gives each thread 4 outputs' whole columns and a workgroup of one warp 128
// outputs (a [32, 512] stage merged 8 ways: 4 warps on the GPU, 26 us).
//
// ABI: one pointer per input, then per result. Grid x = the inputs' column
// blocks (ceil(C / 32) each), block kColumnSumsThreads.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_COLUMNSUMSKERNEL_H
#define NOVA_CODEGEN_CUDA_COLUMNSUMSKERNEL_H

#include "compiler/dialect/NovaOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

constexpr int64_t kColumnSumsThreads = 1024, kColumnSumsUnroll = 8;

struct ColumnSumsSpec {
  enum class Kind { Sum, Mean, Max };
  struct Column {
    int64_t rows = 0, columns = 0;
    Kind kind = Kind::Sum;
    /// The result this input's reduction is yielded as.
    unsigned result = 0;
  };
  /// One per region input, in order.
  SmallVector<Column> inputs;
  std::string kernelName;

  /// CTAs of the grid: 32 columns of one input each.
  int64_t ctas() const;
};

/// The spec of a region that only reduces each of its f32 [G, C] inputs
/// over dim 0, or failure with the reason in `why`.
FailureOr<ColumnSumsSpec> analyzeColumnSums(FusedOp op, std::string &why);

OwningOpRef<ModuleOp> buildColumnSumsKernel(MLIRContext *context,
                                            const ColumnSumsSpec &spec);

/// The kernel's PTX (cached by name); empty with the diagnostics in `error`
/// on failure.
std::string columnSumsPtx(const ColumnSumsSpec &spec, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_COLUMNSUMSKERNEL_H
