//===- Passes.h - nova passes -----------------------------------*- C++ -*-===//

#ifndef NOVA_TRANSFORMS_PASSES_H
#define NOVA_TRANSFORMS_PASSES_H

#include "compiler/dialect/NovaDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::nova {

#define GEN_PASS_DECL
#include "compiler/transforms/Passes.h.inc"

/// Marks ops and regions that recompute a value in the backward
/// (nova-save-inputs-for-backward, nova-rematerialize): CSE would merge them
/// back, and a value such an op reads was kept to be read, not recomputed.
constexpr llvm::StringLiteral kRecomputedAttr = "nova.recomputed";

/// The rewrites of -nova-decompose, for passes that need primitives only.
void populateNovaDecomposePatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"

} // namespace mlir::nova

#endif // NOVA_TRANSFORMS_PASSES_H
