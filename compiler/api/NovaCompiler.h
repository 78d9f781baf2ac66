//===- NovaCompiler.h - plain C++ API over the nova compiler ----*- C++ -*-===//
//
// No MLIR types cross this interface, so the nanobind module (built with RTTI
// and exceptions) can call into the MLIR code (built without).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_API_NOVACOMPILER_H
#define NOVA_API_NOVACOMPILER_H

#include <string>
#include <vector>

namespace nova {

struct PipelineResult {
  bool ok = false;
  /// The transformed module's text; empty when !ok.
  std::string output;
  /// Every diagnostic, rendered with source locations.
  std::string diagnostics;
};

struct PipelineOptions {
  /// Parse ops of dialects nova does not register (torch, torch_c) as
  /// unregistered operations, as the torch-dialect input needs.
  bool allowUnregisteredDialects = false;
  /// Print the result in the generic op form (the most stable text to hand
  /// to a compiler built on another MLIR version).
  bool genericOutput = false;
  /// Print debug locations.
  bool printLocations = false;
  /// Verify the module after each pass.
  bool verifyEach = true;
};

/// Parses `moduleText`, runs `pipeline` (a textual pass pipeline such as
/// `nova-optimize` or `builtin.module(nova-decompose,canonicalize)`; an
/// unanchored one is nested under builtin.module) and prints the result.
PipelineResult runPipeline(const std::string &moduleText,
                           const std::string &pipeline,
                           const PipelineOptions &options);

/// The MLIR version nova was built against, for cache keys.
std::string mlirVersion();

} // namespace nova

#endif // NOVA_API_NOVACOMPILER_H
