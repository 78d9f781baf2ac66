//===- IREEGlobals.h - IREE util globals, built unregistered ----*- C++ -*-===//
//
// `util.global`, `util.global.load` and `util.global.store` as unregistered
// ops (IREE's util dialect is not part of MLIR 22; the module reaches IREE as
// generic-form text).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CONVERSION_IREEGLOBALS_H
#define NOVA_CONVERSION_IREEGLOBALS_H

#include "mlir/IR/Builders.h"

namespace mlir::nova {

/// `util.global <visibility> [mutable] @symbol : type`, initialised with
/// `initialValue` when given.
Operation *createGlobal(OpBuilder &b, Location loc, StringRef symbol, Type type,
                        bool isMutable, Attribute initialValue = {},
                        StringRef visibility = "private");

/// `util.global.load @symbol : type`.
Value loadGlobal(OpBuilder &b, Location loc, StringRef symbol, Type type);

/// `util.global.store %value, @symbol`.
void storeGlobal(OpBuilder &b, Location loc, StringRef symbol, Value value);

} // namespace mlir::nova

#endif // NOVA_CONVERSION_IREEGLOBALS_H
