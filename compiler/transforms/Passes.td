//===- Passes.td - nova passes -----------------------------*- tablegen -*-===//

#ifndef NOVA_TRANSFORMS_PASSES_TD
#define NOVA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NovaDecompose : Pass<"nova-decompose"> {
  let summary = "Rewrite composite nova ops into nova primitives";
  let description = [{
    Expands nova.softmax, nova.log_softmax, nova.layer_norm and nova.gelu into
    reductions, explicit broadcasts and elementwise ops, so that later passes
    (fusion, lowering) see only primitives. Softmax and log-softmax subtract
    the row maximum first for numerical stability.
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def ConvertTorchToNova : Pass<"convert-torch-to-nova", "::mlir::ModuleOp"> {
  let summary = "Convert torch-mlir's torch dialect (read as unregistered ops) to nova";
  let description = [{
    Nova's MLIR does not register the torch dialect, so the FX importer's
    output arrives in generic form: `torch.*` ops are unregistered operations
    and `!torch.vtensor<[2,3],f32>` / `!torch.int` are opaque types. This pass
    reads those types and the `torch.constant.*` values, and rewrites each
    supported aten op into nova ops on builtin tensors.

    An aten op it does not cover is either an error naming the op and its
    source location (the default), or, with `allow-fallback`, left in place
    for IREE's own torch lowering, its operands and results crossing the
    boundary through `torch_c.to_builtin_tensor` / `torch_c.from_builtin_tensor`.
  }];
  let options = [
    Option<"allowFallback", "allow-fallback", "bool", /*default=*/"false",
           "Leave unsupported torch ops for IREE's torch input pipeline">
  ];
  let dependentDialects = [
    "::mlir::nova::NovaDialect", "::mlir::func::FuncDialect",
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"
  ];
}

def ConvertNovaToLinalg : Pass<"convert-nova-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower nova ops to linalg on tensors";
  let description = [{
    Lowers every nova op to linalg (named ops and linalg.generic), tensor,
    arith and math ops on tensors, the input IREE compiles. Reductions of
    bf16/f16 accumulate in f32. nova.scatter_add with repeated indices is
    lowered without IREE's scatter (which runs non-unique indices on one
    thread).
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // NOVA_TRANSFORMS_PASSES_TD
