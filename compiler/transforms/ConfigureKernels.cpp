//===- ConfigureKernels.cpp - analytic kernel configuration ---------------===//

#include "compiler/codegen/cuda/AdamwKernel.h"
#include "compiler/codegen/cuda/AttentionConfigurator.h"
#include "compiler/codegen/cuda/ColumnSumsKernel.h"
#include "compiler/codegen/cuda/CrossEntropyConfigurator.h"
#include "compiler/codegen/cuda/FusedRowsConfigurator.h"
#include "compiler/codegen/cuda/GemmConfigurator.h"
#include "compiler/codegen/cuda/KnownTargets.h"
#include "compiler/codegen/cuda/WgmmaGemmKernel.h"
#include "compiler/dialect/NovaOps.h"
#include "compiler/transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVACONFIGUREKERNELS
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

using cuda::kTargetAttrName;

/// A GEMM epilogue's part in `problem` (the nova.fused region around `op`,
/// if any): the bytes per result element it moves beyond the product's own
/// write (its other element inputs and results, and its partial column
/// sums, one f32 per group of rows), and the inputs it stages in shared
/// memory.
LogicalResult addEpilogue(MatmulOp op, cuda::GemmProblem &problem,
                          std::string &why) {
  auto fused = dyn_cast<FusedOp>(op->getParentOp());
  if (!fused)
    return success();
  FailureOr<cuda::FusedRowsPlan> plan = cuda::analyzeFusedRows(fused, why);
  if (failed(plan))
    return failure();
  auto bytes = [](Value v) {
    return double(cast<RankedTensorType>(v.getType()).getElementTypeBitWidth()) / 8;
  };
  Block &body = fused.getBody().front();
  double total = -bytes(op.getResult());
  for (BlockArgument arg : body.getArguments())
    if (plan->kind.lookup(arg) == cuda::RowKind::Element)
      total += bytes(arg);
  for (Value v : body.getTerminator()->getOperands()) {
    cuda::RowKind kind = plan->kind.lookup(v);
    if (kind == cuda::RowKind::Element)
      total += bytes(v);
    else if (kind == cuda::RowKind::Partial)
      total += bytes(v) / double(plan->rowsPerGroup);
  }
  problem.epilogueBytes = std::max(total, 0.0);
  problem.stagedInputs = cuda::stagedEpilogueInputs(*plan).size();
  return success();
}

struct ConfigureKernelsPass
    : nova::impl::NovaConfigureKernelsBase<ConfigureKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> target = resolveTarget(module);
    if (failed(target))
      return signalPassFailure();
    FailureOr<cuda::GemmPrecision> f32Precision =
        cuda::f32MatmulPrecision(module, f32MatmulPrecision);
    if (failed(f32Precision))
      return signalPassFailure();

    configureAttentionOps(module, *target, *f32Precision);
    configureCrossEntropyOps(module, *target);
    configureFusedOps(module, *target);
    configureAdamwOps(module, *target);
    module.walk([&](MatmulOp op) {
      if (op.getLoweringConfigAttr())
        return;
      std::string why;
      FailureOr<cuda::GemmProblem> problem =
          cuda::gemmProblem(op, *f32Precision, why);
      if (succeeded(problem) && failed(addEpilogue(op, *problem, why)))
        problem = failure();
      if (failed(problem)) {
        if (remarks)
          op.emitRemark() << "not configured: " << why;
        return;
      }
      SmallVector<std::string> trace;
      std::optional<cuda::GemmPlan> plan =
          cuda::configureGemm(*problem, *target, remarks ? &trace : nullptr);
      if (!plan) {
        op.emitWarning() << "not configured: " << target->getArch()
                         << " has no peak_tflops for "
                         << cuda::stringifyPrecision(problem->precision);
        return;
      }
      op.setLoweringConfigAttr(plan->config);
      if (remarks) {
        InFlightDiagnostic remark = op.emitRemark();
        remark << problem->m << "x" << problem->n << "x" << problem->k
               << " (batch " << problem->batch << ", "
               << cuda::stringifyPrecision(problem->precision)
               << "): " << plan->summary();
        for (const std::string &line : trace)
          remark.attachNote() << "candidate " << line;
      }
    });
  }

  /// Sets `config` as `op`'s lowering_config and returns true, or (none)
  /// remarks `why` when asked to and returns false.
  bool setConfig(Operation *op, std::optional<LoweringConfigAttr> config,
                 StringRef why) {
    if (!config) {
      if (remarks)
        op->emitRemark() << "not configured: " << why;
      return false;
    }
    op->setAttr("lowering_config", *config);
    return true;
  }

  /// Attention ops Nova has a kernel for on `target` get its config (an
  /// attribute the kernel injection reads); the others are left for the
  /// decomposition.
  void configureAttentionOps(ModuleOp module, TargetAttr target,
                             cuda::GemmPrecision f32Precision) {
    module.walk([&](Operation *op) {
      auto forward = dyn_cast<AttentionOp>(op);
      auto backward = dyn_cast<AttentionBackwardOp>(op);
      if ((!forward && !backward) || op->hasAttr("lowering_config"))
        return;
      Value query = forward ? forward.getQuery() : backward.getQuery();
      auto type = cast<RankedTensorType>(query.getType());
      cuda::AttentionProblem problem;
      problem.backward = bool(backward);
      problem.headGroups = attentionHeadGroups;
      problem.causal = forward ? forward.getCausal() : backward.getCausal();
      problem.hasMask = bool(forward ? forward.getMask() : backward.getMask());
      Type element = type.getElementType();
      if (element.isBF16())
        problem.precision = cuda::GemmPrecision::BF16;
      else if (element.isF32())
        problem.precision = f32Precision;
      Value key = forward ? forward.getKey() : backward.getKey();
      Value value = forward ? forward.getValue() : backward.getValue();
      std::string why;
      if (!type.hasStaticShape() || key.getType() != type ||
          value.getType() != type)
        why = "q, k and v differ in shape or are dynamic";
      std::optional<cuda::AttentionPlan> plan;
      if (why.empty()) {
        ArrayRef<int64_t> shape = type.getShape();
        for (int64_t size : shape.drop_back(2))
          problem.batchHeads *= size;
        problem.t = shape[shape.size() - 2];
        problem.headDim = shape.back();
        plan = cuda::configureAttention(problem, target, why);
      }
      if (!setConfig(op, plan ? std::optional(plan->config) : std::nullopt,
                     why))
        return;
      if (remarks)
        op->emitRemark() << (backward ? "attention backward " : "attention ")
                         << problem.batchHeads << "x" << problem.t << "x"
                         << problem.headDim << ": " << plan->summary();
    });
  }

  /// Cross-entropy ops get Nova's row kernel where it runs (static shapes,
  /// an ignore_index that fits its i32 constant); the others are left for
  /// the decomposition. A forward fused with its backward that gets no
  /// fused kernel (its row too long to hold) is split back into the two,
  /// each configured in turn.
  void configureCrossEntropyOps(ModuleOp module, TargetAttr target) {
    SmallVector<CrossEntropyWithGradOp> unfit;
    module.walk([&](CrossEntropyWithGradOp op) {
      if (op->hasAttr("lowering_config"))
        return;
      std::string why;
      std::optional<LoweringConfigAttr> config =
          configureCrossEntropy(op, /*fused=*/true, target, why);
      if (setConfig(op, config, why))
        remarkCrossEntropy(op, "cross-entropy with gradient ", *config);
      else
        unfit.push_back(op);
    });
    for (CrossEntropyWithGradOp op : unfit) {
      OpBuilder b(op);
      op->replaceAllUsesWith(op.createUnfused(b));
      op->erase();
    }
    module.walk([&](Operation *op) {
      if (!isa<CrossEntropyOp, CrossEntropyBackwardOp>(op) ||
          op->hasAttr("lowering_config"))
        return;
      std::string why;
      std::optional<LoweringConfigAttr> config =
          configureCrossEntropy(op, /*fused=*/false, target, why);
      if (setConfig(op, config, why))
        remarkCrossEntropy(op,
                           isa<CrossEntropyBackwardOp>(op)
                               ? "cross-entropy backward "
                               : "cross-entropy ",
                           *config);
    });
  }

  /// The row kernel's config for cross-entropy op `op`, or nullopt with the
  /// reason in `why`.
  std::optional<LoweringConfigAttr> configureCrossEntropy(Operation *op,
                                                          bool fused,
                                                          TargetAttr target,
                                                          std::string &why) {
    auto logits =
        cast<RankedTensorType>(crossEntropyOperands(op).first.getType());
    int64_t ignoreIndex =
        op->getAttrOfType<IntegerAttr>("ignore_index").getInt();
    if (!logits.hasStaticShape()) {
      why = "dynamic shapes";
      return std::nullopt;
    }
    if (ignoreIndex != int64_t(int32_t(ignoreIndex))) {
      why = "ignore_index does not fit in i32";
      return std::nullopt;
    }
    cuda::CrossEntropyProblem problem;
    problem.rows = logits.getDimSize(0);
    problem.classes = logits.getDimSize(1);
    problem.elementBytes = logits.getElementTypeBitWidth() / 8;
    problem.f16 = logits.getElementType().isF16();
    problem.backward = isa<CrossEntropyBackwardOp>(op);
    problem.fused = fused;
    return cuda::configureCrossEntropy(problem, target, why);
  }

  void remarkCrossEntropy(Operation *op, StringRef what,
                          LoweringConfigAttr config) {
    if (!remarks)
      return;
    auto logits =
        cast<RankedTensorType>(crossEntropyOperands(op).first.getType());
    op->emitRemark() << what << logits.getDimSize(0) << "x"
                     << logits.getDimSize(1) << ": "
                     << config.getWarpLayout()[0] * 32 << " threads per row, "
                     << config.getTileSizes()[1] << "-wide loads, "
                     << config.getPipelineStages() << " in flight";
  }

  /// A column reduction's second stage (nova-fuse-elementwise's
  /// column-sums regions): the shapes are the kernel's whole config.
  static std::optional<LoweringConfigAttr>
  columnSumsConfig(FusedOp op, TargetAttr target, std::string &why) {
    if (!cuda::runsRowKernels(target, why))
      return std::nullopt;
    return LoweringConfigAttr::get(
        op.getContext(), /*tile_sizes=*/{1, 32, 1},
        /*warp_layout=*/{cuda::kColumnSumsThreads / 32, 1},
        /*mma_shape=*/{1, 1, 1}, /*pipeline_stages=*/cuda::kColumnSumsUnroll,
        /*swizzle=*/0, "column_sums", "f32", /*producer_warpgroups=*/0,
        /*cluster_m=*/1, /*cluster_n=*/1, /*split_k=*/1,
        /*persistent_ctas=*/0, /*raster_group=*/1, /*min_ctas_per_sm=*/0);
  }

  /// Every nova.fused region in one row space gets Nova's fused-rows
  /// kernel, a column-sums region Nova's column-sums kernel; the others are
  /// inlined back for IREE's code generation.
  void configureFusedOps(ModuleOp module, TargetAttr target) {
    module.walk([&](FusedOp op) {
      if (op.getLoweringConfigAttr())
        return;
      std::string why;
      std::optional<LoweringConfigAttr> config;
      FailureOr<cuda::FusedRowsPlan> plan = failure();
      int64_t buffers = op.getInputs().size() + op.getNumResults();
      if (buffers > cuda::kMaxDispatchBindings) {
        why = std::to_string(buffers) + " buffers, and a dispatch binds " +
              std::to_string(cuda::kMaxDispatchBindings);
      } else if (std::string columnWhy;
                 succeeded(cuda::analyzeColumnSums(op, columnWhy))) {
        config = columnSumsConfig(op, target, why);
        if (setConfig(op, config, why) && remarks)
          op->emitRemark() << "column sums of " << op.getInputs().size()
                           << " inputs";
        return;
      } else {
        plan = cuda::analyzeFusedRows(op, why);
      }
      if (succeeded(plan))
        config = cuda::configureFusedRows(*plan, target, why);
      if (!setConfig(op, config, why))
        return;
      if (remarks)
        op->emitRemark() << "fused rows " << plan->rows << "x"
                         << plan->columns << ": "
                         << config->getTileSizes()[1] << "-wide vectors, "
                         << config->getWarpLayout()[0] << " warps per CTA, "
                         << config->getTileSizes()[2] << " per row"
                         << (plan->rowsPerGroup > 1
                                 ? ", " + std::to_string(plan->rowsPerGroup) +
                                       " rows a partial group"
                                 : std::string())
                         << (config->getPipelineStages() > 1
                                 ? ", whole row in registers (" +
                                       std::to_string(
                                           config->getPipelineStages()) +
                                       " chunks)"
                                 : std::string())
                         << (config->getMinCtasPerSm()
                                 ? ", " +
                                       std::to_string(
                                           config->getMinCtasPerSm()) +
                                       " CTAs an SM (one wave)"
                                 : std::string());
    });
  }

  /// f32 AdamW updates get Nova's multi-tensor kernel; the others (bf16 or
  /// f64 parameters) keep their linalg lowering.
  void configureAdamwOps(ModuleOp module, TargetAttr target) {
    module.walk([&](AdamwOp op) {
      if (op->hasAttr("lowering_config"))
        return;
      RankedTensorType type = op.getParam().getType();
      std::string why;
      std::optional<LoweringConfigAttr> config;
      if (!type.hasStaticShape())
        why = "dynamic shapes";
      else if (!type.getElementType().isF32())
        why = "the kernel updates f32 parameters";
      else
        config = cuda::configureAdamw(type.getNumElements(), target, why);
      if (!setConfig(op, config, why))
        return;
      if (remarks)
        op->emitRemark() << "adamw of " << type.getNumElements()
                         << " elements: multi-tensor kernel, "
                         << config->getWarpLayout()[0] * 32 << " threads x "
                         << config->getTileSizes()[1] << " elements a block";
    });
  }

  FailureOr<TargetAttr> resolveTarget(ModuleOp module) {
    auto existing = module->getAttrOfType<TargetAttr>(kTargetAttrName);
    if (existing) {
      if (!target.empty() && target != existing.getArch())
        return module.emitError()
               << "target=" << target << " conflicts with the module's "
               << kTargetAttrName << " for " << existing.getArch();
      return existing;
    }
    if (target.empty())
      return module.emitError()
             << "no " << kTargetAttrName
             << " on the module: set one or pass target=<arch> (known: "
             << llvm::join(cuda::knownArchitectures(), ", ") << ")";
    FailureOr<TargetAttr> known = cuda::lookupKnownTarget(module, target);
    if (failed(known))
      return failure();
    if (smCount < 0 || sharedMemoryPerSm < 0)
      return module.emitError()
             << "sm-count and shared-memory-per-sm must be positive";
    TargetAttr resolved = TargetAttr::get(
        module.getContext(), known->getArch(),
        smCount ? smCount : known->getSmCount(),
        sharedMemoryPerSm ? sharedMemoryPerSm : known->getSharedMemoryPerSm(),
        known->getRegistersPerSm(), known->getMmaShapes(),
        known->getPeakTflops(), known->getMemoryBandwidthGbps());
    module->setAttr(kTargetAttrName, resolved);
    return resolved;
  }

};

} // namespace
