//===- NovaOps.h - nova operations ------------------------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVAOPS_H
#define NOVA_DIALECT_NOVAOPS_H

#include "compiler/dialect/NovaAttrs.h"
#include "compiler/dialect/NovaDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::nova {
/// Checks that every operand of an elementwise op has the result's shape and,
/// for all but nova.cast/nova.compare/nova.select's condition, its element
/// type; the diagnostic names the operand and the dim.
LogicalResult verifyElementwise(Operation *op, Type resultType,
                                bool sameElementType = true,
                                unsigned firstOperand = 0);
/// Checks a reduction's dims and its result shape.
LogicalResult verifyReduction(Operation *op, RankedTensorType inputType,
                              ArrayRef<int64_t> dims, bool keepdim,
                              Type resultType);
/// The shape of reducing `shape` over `dims`.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> dims, bool keepdim);
} // namespace mlir::nova

#define GET_OP_CLASSES
#include "compiler/dialect/NovaOps.h.inc"

namespace mlir::nova {
/// The logits and target of a nova.cross_entropy,
/// nova.cross_entropy_backward or nova.cross_entropy_with_grad; nulls for
/// any other op.
std::pair<Value, Value> crossEntropyOperands(Operation *op);
} // namespace mlir::nova

#endif // NOVA_DIALECT_NOVAOPS_H
