//===- RoundTf32Operands.cpp - TF32 rounding where GEMM operands are made -===//
//
// Under torch's "high" or "medium" f32 matmul precision an f32 matmul on
// sm_90 runs on Nova's TF32 GEMM, whose operands must be rounded to TF32
// first. Left to the GEMM's lowering, each rounding is a pass of its own
// over the operand (on gpt-42m tf32, ~10 of 60 GPU ms a step: the logits
// gradient alone 2.5 ms). Placed here, before nova-fuse-elementwise, a
// nova.round_tf32 joins the kernel that produces the operand, which then
// writes it rounded (and unrounded too only where something else reads it).
// Values some GEMM reads as they lie (K-contiguous: an lhs without
// transpose_lhs, an rhs with transpose_rhs) are rounded, and every GEMM
// then reads them rounded; a value only ever read MN-major by its GEMMs is
// left to them: the GEMM rounds it as it transposes it in shared memory (or
// Nova's transpose kernel, where TMA cannot read it, in the same pass).
// Attention's f32 q, k, v and dO are rounded too (its TF32 kernel reads
// them where they lie), at the tensor they are views of when only
// attention reads it through them (q, k and v of the packed qkv
// projection: the rounding joins the kernel that adds its bias).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAROUNDTF32OPERANDS
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

struct NovaRoundTf32OperandsPass
    : public mlir::nova::impl::NovaRoundTf32OperandsBase<
          NovaRoundTf32OperandsPass> {
  using NovaRoundTf32OperandsBase::NovaRoundTf32OperandsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<cuda::GemmPrecision> precision =
        cuda::f32MatmulPrecision(module, f32MatmulPrecision);
    if (failed(precision))
      return signalPassFailure();
    if (*precision != cuda::GemmPrecision::TF32)
      return; // exact f32 (three TF32 products): nothing is rounded
    FailureOr<TargetAttr> resolved = resolveTarget(module);
    if (failed(resolved))
      return signalPassFailure();
    if (!*resolved || cuda::computeCapability(*resolved) < 90)
      return; // no TF32 GEMM of Nova's: IREE computes these matmuls

    // One rounding per value, right after it is made, for all its GEMMs.
    DenseMap<Value, Value> rounded;
    auto round = [&](Value v) -> Value {
      if (v.getDefiningOp<RoundTf32Op>())
        return v;
      Value &r = rounded[v];
      if (!r) {
        OpBuilder b(module.getContext());
        if (Operation *def = v.getDefiningOp())
          b.setInsertionPointAfter(def);
        else
          b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
        r = RoundTf32Op::create(b, v.getLoc(), v);
      }
      return r;
    };
    // The f32 operands of matmuls, and the values some GEMM reads as they lie.
    SmallVector<OpOperand *> operands;
    llvm::SetVector<Value> kMajor;
    module.walk([&](MatmulOp op) {
      if (!cast<RankedTensorType>(op.getLhs().getType())
               .getElementType()
               .isF32())
        return;
      operands.push_back(&op.getLhsMutable());
      operands.push_back(&op.getRhsMutable());
      if (!op.getTransposeLhs())
        kMajor.insert(op.getLhs());
      if (op.getTransposeRhs())
        kMajor.insert(op.getRhs());
    });
    // A value rounded for one GEMM is read rounded by all of them: the
    // transpose kernel's rounding is then a no-op, and the unrounded value
    // need not be stored for it.
    for (OpOperand *operand : operands)
      if (kMajor.contains(operand->get()))
        operand->set(round(operand->get()));

    SmallVector<OpOperand *> attentionOperands;
    module.walk([&](Operation *op) {
      SmallVector<OpOperand *> inputs;
      if (auto forward = dyn_cast<AttentionOp>(op))
        inputs = {&forward.getQueryMutable(), &forward.getKeyMutable(),
                  &forward.getValueMutable()};
      else if (auto backward = dyn_cast<AttentionBackwardOp>(op))
        inputs = {&backward.getQueryMutable(), &backward.getKeyMutable(),
                  &backward.getValueMutable(), &backward.getGradOutMutable()};
      for (OpOperand *input : inputs)
        if (cast<RankedTensorType>(input->get().getType())
                .getElementType()
                .isF32())
          attentionOperands.push_back(input);
    });
    for (OpOperand *operand : attentionOperands) {
      OpOperand *use = viewedUse(operand);
      use->set(round(use->get()));
    }
  }

  /// Whether only attention ops read `v`, directly or through views.
  static bool onlyAttentionReads(Value v) {
    return llvm::all_of(v.getUsers(), [](Operation *user) {
      if (isa<AttentionOp, AttentionBackwardOp>(user))
        return true;
      return isa<TransposeOp, ReshapeOp, SliceOp>(user) &&
             onlyAttentionReads(user->getResult(0));
    });
  }

  /// The use to round for attention operand `operand`: down its chain of
  /// transposes, reshapes and slices as far as only attention reads the
  /// views (the kernel reads through them where the data lies).
  static OpOperand *viewedUse(OpOperand *operand) {
    while (Operation *def = operand->get().getDefiningOp()) {
      if (!isa<TransposeOp, ReshapeOp, SliceOp>(def) ||
          !onlyAttentionReads(def->getResult(0)))
        break;
      operand = &def->getOpOperand(0);
    }
    return operand;
  }

  FailureOr<TargetAttr> resolveTarget(ModuleOp module) {
    if (auto existing = module->getAttrOfType<TargetAttr>(cuda::kTargetAttrName))
      return existing;
    if (target.empty())
      return TargetAttr(); // none: nova-configure-kernels reports it
    return cuda::lookupKnownTarget(module, target);
  }
};

} // namespace
