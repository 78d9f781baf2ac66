//===- CrossEntropyKernel.h - softmax cross-entropy row kernels -*- C++ -*-===//
//
// nova.cross_entropy and its backward as one CTA per row of the [N, C]
// logits, built through the gpu/llvm dialects from a #nova.lowering_config
// (kernel "cross_entropy_rows"): the logits are read once per kernel in
// 16-byte vectors and never exist in f32 in memory.
//
// Forward: each thread keeps an online (max, sum of 2^(x log2 e - max)) over
// its vectors, `unroll` loads in flight; the pairs combine over the warp
// (shuffles) and the CTA (shared memory); thread 0 writes lse = (max +
// log2 sum) ln 2 and loss = lse - x[target] (0 where target == ignore).
// Backward: grad = g (2^((x - lse) log2 e) - [j == target]) rounded to the
// logits' type, g = grad_loss[row] (0 on ignored rows), written as vectors;
// f32 grads can be rounded to TF32 as they are written (`roundTf32`, for a
// TF32 GEMM that reads them: no pass over them of its own).
//
// Fused (nova.cross_entropy_with_grad): the forward's pass, the row's lse
// broadcast to every thread through shared memory, then the backward's
// pass, whose read of the row comes from L2: the logits are read from DRAM
// once for both (in place, the gradient overwrites them).
//
// ABI: forward (logits, target, loss f32, lse f32; C, ignore_index),
// backward (grad_loss f32, logits, target, lse, grad_logits; C,
// ignore_index), fused (logits, target, grad_loss, grad_logits, loss, lse;
// C, ignore_index; in place without the first), ignore_index as i32
// (sign-extended). Grid x = N rows, block `threads`. C must be a multiple
// of `vector` (aligned loads).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_CROSSENTROPYKERNEL_H
#define NOVA_CODEGEN_CUDA_CROSSENTROPYKERNEL_H

#include "compiler/dialect/NovaAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

struct CrossEntropySpec {
  bool backward = false;
  bool fused = false;       // forward and backward in one kernel
  int64_t minCtasPerSm = 0; // ptxas's register cap for that many (0: none)
  int64_t elementBytes = 2; // logits: 2 (bf16, f16) or 4 (f32)
  bool f16 = false;         // 2-byte logits are f16, not bf16
  int64_t targetBytes = 8;  // i64 or i32 class indices
  int64_t threads = 256;    // per row
  int64_t vector = 8;       // logits per load
  int64_t unroll = 2;       // vector loads in flight per thread
  bool roundTf32 = false;   // backward, f32: grads rounded to TF32
  // Backward or fused: the gradient overwrites the logits (a row's logits are
  // read only by the thread that writes them), so a step never holds both.
  bool inPlace = false;

  std::string kernelName() const;
};

/// The spec for `config` (kernel "cross_entropy_rows"), or failure with the
/// reason in `why`.
FailureOr<CrossEntropySpec> crossEntropySpec(LoweringConfigAttr config,
                                             bool backward, bool fused,
                                             Type logits, Type target,
                                             int64_t classes, std::string &why);

OwningOpRef<ModuleOp> buildCrossEntropyKernel(MLIRContext *context,
                                              const CrossEntropySpec &spec);

/// The kernel's PTX (built once per spec per process); empty with the
/// diagnostics in `error` on failure.
std::string crossEntropyPtx(const CrossEntropySpec &spec, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_CROSSENTROPYKERNEL_H
