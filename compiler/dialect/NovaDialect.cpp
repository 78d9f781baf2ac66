//===- NovaDialect.cpp - The nova dialect ---------------------------------===//

#include "compiler/dialect/NovaDialect.h"
#include "compiler/dialect/NovaAttrs.h"
#include "compiler/dialect/NovaOps.h"

using namespace mlir;
using namespace mlir::nova;

#include "compiler/dialect/NovaDialect.cpp.inc"

void NovaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/NovaOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *NovaDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
