//===- NovaDialect.td - The nova dialect -------------------*- tablegen -*-===//
//
// Value-semantic tensor ops for a whole captured training step: forward,
// backward and optimizer update.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVADIALECT_TD
#define NOVA_DIALECT_NOVADIALECT_TD

include "mlir/IR/OpBase.td"

def Nova_Dialect : Dialect {
  let name = "nova";
  let cppNamespace = "::mlir::nova";
  let summary = "Value-semantic tensor ops for whole-program training steps";
  let description = [{
    The nova dialect holds one captured training step (forward, backward and
    optimizer update) as a single value-semantic program over builtin ranked
    tensors. Broadcasting is always explicit (`nova.broadcast_in_dim`), so
    elementwise ops take operands of exactly the result's shape.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Nova_Op<string mnemonic, list<Trait> traits = []>
    : Op<Nova_Dialect, mnemonic, traits>;

#endif // NOVA_DIALECT_NOVADIALECT_TD
