//===- Passes.h - nova conversions to other program models ------*- C++ -*-===//

#ifndef NOVA_CONVERSION_PASSES_H
#define NOVA_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::nova {

#define GEN_PASS_DECL
#include "compiler/conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/conversion/Passes.h.inc"

} // namespace mlir::nova

#endif // NOVA_CONVERSION_PASSES_H
