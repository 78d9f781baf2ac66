//===- NovaDialect.h - The nova dialect -------------------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVADIALECT_H
#define NOVA_DIALECT_NOVADIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "compiler/dialect/NovaDialect.h.inc"

#endif // NOVA_DIALECT_NOVADIALECT_H
