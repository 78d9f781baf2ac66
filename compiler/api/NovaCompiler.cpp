//===- NovaCompiler.cpp - plain C++ API over the nova compiler ------------===//

#include "compiler/api/NovaCompiler.h"
#include "compiler/api/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace nova {

static void ensureRegistered() {
  static std::once_flag once;
  std::call_once(once, [] { mlir::nova::registerAllNovaPasses(); });
}

PipelineResult runPipeline(const std::string &moduleText,
                           const std::string &pipeline,
                           const PipelineOptions &options) {
  ensureRegistered();
  PipelineResult result;
  DialectRegistry registry;
  mlir::nova::registerNovaDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(options.allowUnregisteredDialects);

  llvm::raw_string_ostream diagnostics(result.diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(moduleText, "<input>"),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagnostics);

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return result;

  // Parsing into a module-anchored pass manager wants the pipeline's body:
  // given "builtin.module(...)" it would nest the anchor and run nothing.
  llvm::StringRef body = pipeline;
  if (body.consume_front("builtin.module(") && !body.consume_back(")")) {
    diagnostics << "invalid pass pipeline: " << pipeline << "\n";
    return result;
  }
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.enableVerifier(options.verifyEach);
  if (failed(parsePassPipeline(body, pm, diagnostics))) {
    diagnostics << "\ninvalid pass pipeline: " << pipeline << "\n";
    return result;
  }
  if (failed(pm.run(*module)))
    return result;

  llvm::raw_string_ostream output(result.output);
  OpPrintingFlags flags;
  if (options.genericOutput)
    flags.printGenericOpForm();
  if (options.printLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(output, flags);
  result.ok = true;
  return result;
}

std::string mlirVersion() { return LLVM_VERSION_STRING; }

} // namespace nova
