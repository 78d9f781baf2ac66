//===- IREEGlobals.cpp - IREE util globals, built unregistered ------------===//

#include "compiler/conversion/IREEGlobals.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

Operation *nova::createGlobal(OpBuilder &b, Location loc, StringRef symbol,
                              Type type, bool isMutable, Attribute initialValue,
                              StringRef visibility) {
  SmallVector<NamedAttribute> props = {
      b.getNamedAttr("sym_name", b.getStringAttr(symbol)),
      b.getNamedAttr("sym_visibility", b.getStringAttr(visibility)),
      b.getNamedAttr("type", TypeAttr::get(type))};
  if (isMutable)
    props.push_back(b.getNamedAttr("is_mutable", b.getUnitAttr()));
  if (initialValue)
    props.push_back(b.getNamedAttr("initial_value", initialValue));
  OperationState state(loc, "util.global");
  state.propertiesAttr = b.getDictionaryAttr(props);
  return b.create(state);
}

Value nova::loadGlobal(OpBuilder &b, Location loc, StringRef symbol,
                       Type type) {
  OperationState state(loc, "util.global.load");
  state.propertiesAttr = b.getDictionaryAttr({b.getNamedAttr(
      "global", FlatSymbolRefAttr::get(b.getContext(), symbol))});
  state.addTypes(type);
  return b.create(state)->getResult(0);
}

void nova::storeGlobal(OpBuilder &b, Location loc, StringRef symbol,
                       Value value) {
  OperationState state(loc, "util.global.store");
  state.addOperands(value);
  state.propertiesAttr = b.getDictionaryAttr({b.getNamedAttr(
      "global", FlatSymbolRefAttr::get(b.getContext(), symbol))});
  b.create(state);
}
