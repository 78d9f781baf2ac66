//===- KnownTargets.cpp - GPUs Nova plans kernels for ---------------------===//

#include "compiler/codegen/cuda/KnownTargets.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::nova;

namespace {

/// One row of the table: the vendor's numbers for the part named.
struct KnownGpu {
  StringRef arch;
  StringRef part;
  int64_t smCount;
  int64_t sharedMemoryPerSm; // bytes
  int64_t clockMhz; // boost clock of the SMs
  int64_t threadsPerSm; // resident threads an SM holds
  int64_t bandwidthGbps;
  int64_t l2Bytes;
  // Dense tensor-core TFLOP/s with f32 accumulation, and f32 FMA.
  int64_t bf16, f16, tf32, f32;
};

// H200 SXM; A100 SXM 80 GB; RTX 3060 (the paper's GPU); RTX 4090.
constexpr KnownGpu kKnownGpus[] = {
    {"sm_90", "H200", 132, 233472, 1980, 2048, 4800, 50 << 20, 989, 989, 494,
     67},
    {"sm_80", "A100", 108, 167936, 1410, 2048, 2039, 40 << 20, 312, 312, 156,
     19},
    {"sm_86", "RTX 3060", 28, 102400, 1780, 1536, 360, 3 << 20, 25, 25, 12, 12},
    {"sm_89", "RTX 4090", 128, 102400, 2520, 1536, 1008, 72 << 20, 165, 165, 82,
     82},
};

const KnownGpu *lookup(StringRef arch) {
  // sm_90a (arch-specific features) has the sm_90 numbers.
  StringRef base = arch.ends_with("a") ? arch.drop_back() : arch;
  for (const KnownGpu &gpu : kKnownGpus)
    if (gpu.arch == base)
      return &gpu;
  return nullptr;
}

} // namespace

std::optional<TargetAttr> cuda::getKnownTarget(MLIRContext *context,
                                               StringRef arch) {
  const KnownGpu *gpu = lookup(arch);
  if (!gpu)
    return std::nullopt;
  Builder b(context);
  bool hopper = gpu->arch == "sm_90";
  SmallVector<Attribute> mma = {b.getDenseI64ArrayAttr({16, 8, 16}),
                                b.getDenseI64ArrayAttr({16, 8, 8})};
  if (hopper)
    mma.append({b.getDenseI64ArrayAttr({64, 256, 16}),
                b.getDenseI64ArrayAttr({64, 256, 8})});
  auto peak = b.getDictionaryAttr({
      b.getNamedAttr("bf16", b.getI64IntegerAttr(gpu->bf16)),
      b.getNamedAttr("f16", b.getI64IntegerAttr(gpu->f16)),
      b.getNamedAttr("f32", b.getI64IntegerAttr(gpu->f32)),
      b.getNamedAttr("tf32", b.getI64IntegerAttr(gpu->tf32)),
  });
  return TargetAttr::get(context, arch, gpu->smCount, gpu->sharedMemoryPerSm,
                         /*registersPerSm=*/65536, b.getArrayAttr(mma), peak,
                         gpu->bandwidthGbps);
}

ArrayRef<StringRef> cuda::knownArchitectures() {
  static const StringRef archs[] = {"sm_80", "sm_86", "sm_89", "sm_90"};
  return archs;
}

int64_t cuda::computeCapability(TargetAttr target) {
  StringRef digits = target.getArch().drop_front(3); // "sm_"
  digits = digits.take_while([](char c) { return c >= '0' && c <= '9'; });
  int64_t value = 0;
  return digits.getAsInteger(10, value) ? 0 : value;
}

int64_t cuda::maxThreadsPerSm(TargetAttr target) {
  if (const KnownGpu *gpu = lookup(target.getArch()))
    return gpu->threadsPerSm;
  int64_t capability = computeCapability(target);
  return capability == 86 || capability == 87 || capability == 89 ? 1536
                                                                  : 2048;
}

int64_t cuda::l2CacheBytes(TargetAttr target) {
  const KnownGpu *gpu = lookup(target.getArch());
  return gpu ? gpu->l2Bytes : int64_t(4) << 20;
}

double cuda::smClockGhz(TargetAttr target) {
  const KnownGpu *gpu = lookup(target.getArch());
  return gpu ? gpu->clockMhz / 1000.0 : 1.5;
}

FailureOr<TargetAttr> cuda::lookupKnownTarget(Operation *op, StringRef arch) {
  std::optional<TargetAttr> known = getKnownTarget(op->getContext(), arch);
  if (!known)
    return op->emitError() << "unknown target '" << arch << "' (known: "
                           << llvm::join(knownArchitectures(), ", ") << ")";
  return *known;
}
