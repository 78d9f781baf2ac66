//===- CrossEntropyConfigurator.h - row-kernel configurator -----*- C++ -*-===//
//
// Chooses how one nova.cross_entropy (or its backward) runs on a GPU as
// Nova's row kernel (CrossEntropyKernel.h): the widest 16-byte-or-less
// vector that divides the class count, threads per row for a few vectors
// each, and the loads each thread keeps in flight so that an SM's resident
// threads cover its share of DRAM bandwidth over the load latency (Little's
// law) - the same closed-form quantities as the other configurators. Fused
// (forward and backward in one kernel), the rows resident at once must fit
// in half the L2 for the backward's second read.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_CROSSENTROPYCONFIGURATOR_H
#define NOVA_CODEGEN_CUDA_CROSSENTROPYCONFIGURATOR_H

#include "compiler/dialect/NovaAttrs.h"

#include <optional>
#include <string>

namespace mlir::nova::cuda {

/// One cross-entropy: logits [rows, classes] of `elementBytes` each.
struct CrossEntropyProblem {
  int64_t rows = 0, classes = 0, elementBytes = 2;
  bool f16 = false, backward = false;
  /// The forward and backward in one kernel (nova.cross_entropy_with_grad):
  /// each row read twice, the second time from L2.
  bool fused = false;
};

/// The lowering_config for `problem` on `target`, or nullopt with the reason
/// in `why` (then the op is decomposed into nova primitives).
std::optional<LoweringConfigAttr>
configureCrossEntropy(const CrossEntropyProblem &problem, TargetAttr target,
                      std::string &why);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_CROSSENTROPYCONFIGURATOR_H
