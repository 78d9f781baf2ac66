//===- IREENamespaces.h - stand-ins for IREE dialect namespaces -*- C++ -*-===//
//
// IREE's dialects are not part of MLIR 22. Nova emits their ops unregistered
// (generic form, exchanged with IREE as text). A namespace registered with
// unknown operations allowed keeps such ops attached to a dialect, which
// matters where MLIR treats dialect-less ops conservatively.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CONVERSION_IREENAMESPACES_H
#define NOVA_CONVERSION_IREENAMESPACES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

namespace mlir::nova {

/// `iree_linalg_ext`: lets convert-nova-to-linalg emit
/// `iree_linalg_ext.scatter` and still verify, without asking every caller
/// for `--allow-unregistered-dialect`.
class IreeLinalgExtNamespace : public Dialect {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(IreeLinalgExtNamespace)
  explicit IreeLinalgExtNamespace(MLIRContext *context)
      : Dialect(getDialectNamespace(), context,
                TypeID::get<IreeLinalgExtNamespace>()) {
    allowUnknownOperations();
  }
  static StringRef getDialectNamespace() { return "iree_linalg_ext"; }
};

/// `util`: MLIR takes a single-region op of no dialect for a possible symbol
/// table, so a `func.call` inside an unregistered `util.func` would not find
/// its callee in the module.
class IreeUtilNamespace : public Dialect {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(IreeUtilNamespace)
  explicit IreeUtilNamespace(MLIRContext *context)
      : Dialect(getDialectNamespace(), context,
                TypeID::get<IreeUtilNamespace>()) {
    allowUnknownOperations();
  }
  static StringRef getDialectNamespace() { return "util"; }
};

/// A type of an IREE dialect, as opaque text: `!<dialect>.<body>`.
inline Type ireeType(MLIRContext *context, StringRef dialect, StringRef body) {
  return OpaqueType::get(StringAttr::get(context, dialect), body);
}

/// An attribute of an IREE dialect, as opaque text: `#<dialect>.<body>`.
inline Attribute ireeAttr(MLIRContext *context, StringRef dialect,
                          StringRef body, Type type = {}) {
  return OpaqueAttr::get(StringAttr::get(context, dialect), body,
                         type ? type : NoneType::get(context));
}

} // namespace mlir::nova

#endif // NOVA_CONVERSION_IREENAMESPACES_H
