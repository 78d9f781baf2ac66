//===- StepGateKernel.h - a train step waits on the device for its inputs -*- C++ -*-===//
//
// The first kernel of a gated train step (nova-gate-train-step): one thread
// reads the step's epoch e (how many steps ran) and sleeps until the caller's
// `ready` word reaches e + 1, which torch's stream writes
// (cuStreamWriteValue32) once it has copied that step's batch and
// hyperparameters in; then the block copies those inputs into the
// step's own tensors and thread 0 stores e + 1. Inputs are 16-byte aligned
// (IREE's buffers); a batch of 256 KB takes four rounds of loads. So the host enqueues steps
// ahead and IREE never waits on a host-signalled semaphore.
//
// ABI: (ready i32, src 0..n-1, epoch i32 read-write, dst 0..n-1; the word
// count of each input as i32). Block kStepGateBlock, grid 1.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_STEPGATEKERNEL_H
#define NOVA_CODEGEN_CUDA_STEPGATEKERNEL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

constexpr int64_t kStepGateBlock = 1024, kStepGateUnroll = 4;
// Sleep between two reads of the ready word (ns).
constexpr int32_t kStepGatePollNs = 500;

/// "nova_step_gate_n<inputs>".
std::string stepGateKernelName(int64_t inputs);

OwningOpRef<ModuleOp> buildStepGateKernel(MLIRContext *context, int64_t inputs);

/// The kernel's PTX for `inputs` inputs (built once per process); empty with
/// the diagnostics in `error` on failure.
std::string stepGatePtx(int64_t inputs, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_STEPGATEKERNEL_H
