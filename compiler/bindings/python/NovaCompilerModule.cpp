//===- NovaCompilerModule.cpp - nova._compiler nanobind module ------------===//

#include "compiler/api/NovaCompiler.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

namespace nb = nanobind;

NB_MODULE(_compiler, m) {
  m.doc() = "The nova MLIR compiler: parse, run a pass pipeline, print.";
  m.def(
      "run_pipeline",
      [](const std::string &module, const std::string &pipeline,
         bool allowUnregisteredDialects, bool genericOutput,
         bool printLocations) {
        nova::PipelineOptions options;
        options.allowUnregisteredDialects = allowUnregisteredDialects;
        options.genericOutput = genericOutput;
        options.printLocations = printLocations;
        nova::PipelineResult result;
        {
          // Compiling can take seconds; let other Python threads run.
          nb::gil_scoped_release release;
          result = nova::runPipeline(module, pipeline, options);
        }
        return std::make_tuple(result.ok, result.output, result.diagnostics);
      },
      nb::arg("module"), nb::arg("pipeline"),
      nb::arg("allow_unregistered_dialects") = false,
      nb::arg("generic_output") = false, nb::arg("print_locations") = false,
      "Returns (ok, output_text, diagnostics).");
  m.def("mlir_version", &nova::mlirVersion);
}
