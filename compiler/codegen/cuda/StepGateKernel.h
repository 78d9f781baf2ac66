//===- StepGateKernel.h - a train step ordered with torch on the device -*- C++
//-*-===//
//
// The first kernel of a gated train step (nova-gate-train-step): one thread
// reads the step's epoch e (how many steps ran) and sleeps until the caller's
// `ready` word reaches e + 1, which torch's stream writes
// (cuStreamWriteValue32) once it has copied that step's batch and
// hyperparameters in; then the block copies those inputs into the
// step's own tensors and thread 0 stores e + 1. Inputs are 16-byte aligned
// (IREE's buffers); a batch of 256 KB takes four rounds of loads. So the host
// enqueues steps ahead and IREE never waits on a host-signalled semaphore.
//
// ABI: (ready i32, src 0..n-1, epoch i32 read-write, dst 0..n-1; the word
// count of each input as i32). Block kStepGateBlock, grid 1.
//
// The last kernel of a gated step (the step's close): one thread copies the
// loss into the caller's storage, fences, and writes the epoch the gate
// advanced into the caller's `done` word, which torch's stream waits on
// (cuStreamWaitValue32). The release of torch's stream is then GPU work
// enqueued with the step: no host thread has anything left to do once torch
// waits (a host-set word stalled: docs/benchmarks/2026-12-06-worker-stall.md).
//
// ABI: (epoch i32, loss, loss copy, done i32). Block 32, grid 1.
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

/// "nova_step_done_b<loss bits>".
std::string stepDoneKernelName(int64_t lossBits);

/// `lossBits`: 16 or 32 (the loss is one element).
OwningOpRef<ModuleOp> buildStepDoneKernel(MLIRContext *context,
                                          int64_t lossBits);

std::string stepDonePtx(int64_t lossBits, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_STEPGATEKERNEL_H
