//===- NovaAttrs.h - nova attributes ----------------------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVAATTRS_H
#define NOVA_DIALECT_NOVAATTRS_H

#include "compiler/dialect/NovaDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "compiler/dialect/NovaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/NovaAttrs.h.inc"

#endif // NOVA_DIALECT_NOVAATTRS_H
