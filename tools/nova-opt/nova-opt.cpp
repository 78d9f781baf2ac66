//===- nova-opt.cpp - pass-level driver for lit tests ---------------------===//

#include "compiler/api/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::nova::registerNovaDialects(registry);
  mlir::nova::registerAllNovaPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nova optimizer driver\n", registry));
}
