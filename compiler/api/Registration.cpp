//===- Registration.cpp - everything nova registers -----------------------===//

#include "compiler/api/Registration.h"

#include "compiler/conversion/IREENamespaces.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/NovaDialect.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::nova {

void registerNovaDialects(DialectRegistry &registry) {
  registry.insert<NovaDialect, IreeUtilNamespace, arith::ArithDialect,
                  func::FuncDialect,
                  linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
}

/// Named pipelines: what Python and nova-opt ask for by name.
static void registerNovaPipelines() {
  PassPipelineRegistration<>(
      "nova-optimize",
      "Decompose composite ops, then canonicalize and CSE the nova program",
      [](OpPassManager &pm) {
        pm.addPass(createNovaDecompose());
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
      });
}

void registerAllNovaPasses() {
  registerNovaPasses();           // compiler/transforms/Passes.td
  registerNovaConversionPasses(); // compiler/conversion/Passes.td
  registerTransformsPasses();
  registerNovaPipelines();
}

} // namespace mlir::nova
