//===- Registration.cpp - everything nova registers -----------------------===//

#include "compiler/api/Registration.h"

#include "compiler/conversion/IREENamespaces.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/NovaDialect.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::nova {

void registerNovaDialects(DialectRegistry &registry) {
  registry.insert<NovaDialect, IreeUtilNamespace, arith::ArithDialect,
                  func::FuncDialect,
                  linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
}

namespace {

/// Options of nova-lower-to-linalg.
struct LowerToLinalgOptions : PassPipelineOptions<LowerToLinalgOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cpu, or cuda:<arch> (cuda:sm_90)"),
                             llvm::cl::init("cpu")};
  Option<int64_t> smCount{*this, "sm-count",
                          llvm::cl::desc("SM count of the GPU compiled on (0: the known target's)"),
                          llvm::cl::init(0)};
  Option<int64_t> sharedMemoryPerSm{
      *this, "shared-memory-per-sm",
      llvm::cl::desc("shared memory per SM of the GPU compiled on (0: the known target's)"),
      llvm::cl::init(0)};
  Option<std::string> f32MatmulPrecision{
      *this, "f32-matmul-precision",
      llvm::cl::desc("torch's float32 matmul precision: highest, high, medium"),
      llvm::cl::init("highest")};
  Option<int64_t> worldSize{
      *this, "world-size",
      llvm::cl::desc("ranks of the data-parallel group (1: no collectives)"),
      llvm::cl::init(1)};
  Option<int64_t> bucketBytes{
      *this, "bucket-bytes",
      llvm::cl::desc("largest gradient all-reduce bucket in bytes"),
      llvm::cl::init(26214400)};
  Option<bool> stateInPlace{
      *this, "state-in-place",
      llvm::cl::desc("the optimizer's params and state become module state "
                     "(a train step updated in place): CUDA optimizer "
                     "updates may write them in place"),
      llvm::cl::init(false)};
  Option<bool> packOptimizerState{
      *this, "pack-optimizer-state",
      llvm::cl::desc("pack a train step's params and AdamW state into flat "
                     "tensors, one update per group "
                     "(nova-pack-optimizer-state)"),
      llvm::cl::init(false)};
  Option<bool> gemmStmatrix{
      *this, "gemm-stmatrix",
      llvm::cl::desc("bf16 GEMM results staged with stmatrix (experimental)"),
      llvm::cl::init(false)};
  Option<bool> epilogueStagedInputs{
      *this, "epilogue-staged-inputs",
      llvm::cl::desc("GEMM epilogues that stage another element input in "
                     "shared memory, the GELU backward's (experimental)"),
      llvm::cl::init(false)};
  Option<bool> attentionHeadGroups{
      *this, "attention-head-groups",
      llvm::cl::desc("attention kernels' work handed out dynamically in "
                     "groups of heads (false: a static block-major order)"),
      llvm::cl::init(true)};
  Option<int64_t> headChunkBytes{
      *this, "head-chunk-bytes",
      llvm::cl::desc("split a language-model head and its cross-entropy into "
                     "chunks of at most this many bytes of logits "
                     "(nova-chunk-cross-entropy; 0: whole)"),
      llvm::cl::init(0)};
  Option<std::string> kernelCache{
      *this, "kernel-cache",
      llvm::cl::desc("directory keeping Nova's kernels (PTX) across "
                     "processes; empty: built once per process"),
      llvm::cl::init("")};
};

/// nova -> linalg. CUDA: long leading reductions are split into two stages
/// (IREE gives a bias-gradient sum only C/256 workgroups), every matmul,
/// attention and cross-entropy is configured for the architecture, the
/// attention and cross-entropy ops without a Nova kernel are decomposed
/// (their matmuls configured in turn), and the ops Nova has kernels for
/// become dispatches of them. Other targets (cpu) decompose attention and
/// cross-entropy and get the portable lowering.
void buildLowerToLinalgPipeline(OpPassManager &pm,
                                const LowerToLinalgOptions &options) {
  if (options.packOptimizerState)
    pm.addPass(createNovaPackOptimizerState());
  // Gradient all-reduces first: bucketed where their gradients are made,
  // then IREE's collectives (removed for a world of one).
  NovaBucketAllReduceOptions buckets;
  buckets.bucketBytes = options.bucketBytes;
  pm.addPass(createNovaBucketAllReduce(buckets));
  ConvertNovaCollectivesToIREEOptions collectives;
  collectives.worldSize = options.worldSize;
  pm.addPass(createConvertNovaCollectivesToIREE(collectives));
  // One chunk of the head's logits alive at a time (memory for speed).
  if (options.headChunkBytes > 0) {
    NovaChunkCrossEntropyOptions chunking;
    chunking.chunkBytes = options.headChunkBytes;
    pm.addPass(createNovaChunkCrossEntropy(chunking));
  }
  // Each cross-entropy with its backward: one read of the logits for both
  // (split back where no kernel takes them, so every target runs it).
  pm.addPass(createNovaFuseCrossEntropy());
  StringRef target = options.target;
  if (target.consume_front("cuda")) {
    std::string arch = target.consume_front(":") ? target.str() : "";
    // TF32 GEMM operands rounded in the kernels that make them.
    NovaRoundTf32OperandsOptions rounding;
    rounding.target = arch;
    rounding.f32MatmulPrecision = options.f32MatmulPrecision;
    pm.addPass(createNovaRoundTf32Operands(rounding));
    // A packed group's bf16 or TF32 weights in one launch, not one each.
    pm.addPass(createNovaConvertPackedParams());
    pm.addPass(createNovaSaveInputsForBackward());
    // Fusion first: a column sum then keeps its first stage in the kernel
    // that produces its input, and its second is Nova's column-sums kernel;
    // other long reductions over leading dims are split.
    NovaFuseElementwiseOptions fusion;
    fusion.columnSums = true;
    pm.addPass(createNovaFuseElementwise(fusion));
    pm.addPass(createNovaRematerialize());
    pm.addPass(createNovaSplitReductions());
    NovaFuseMatmulEpilogueOptions epilogues;
    epilogues.target = arch;
    epilogues.stageInputs = options.epilogueStagedInputs;
    pm.addPass(createNovaFuseMatmulEpilogue(epilogues));
    NovaConfigureKernelsOptions configure;
    configure.target = arch;
    configure.f32MatmulPrecision = options.f32MatmulPrecision;
    configure.smCount = options.smCount;
    configure.sharedMemoryPerSm = options.sharedMemoryPerSm;
    configure.attentionHeadGroups = options.attentionHeadGroups;
    pm.addPass(createNovaConfigureKernels(configure));
    pm.addPass(createNovaDecomposeAttention());
    pm.addPass(createNovaDecomposeCrossEntropy());
    pm.addPass(createNovaConfigureKernels(configure));
    ConvertNovaToIREEKernelsOptions kernels;
    kernels.stateInPlace = options.stateInPlace;
    kernels.kernelCache = options.kernelCache;
    kernels.gemmStmatrix = options.gemmStmatrix;
    pm.addPass(createConvertNovaToIREEKernels(kernels));
  } else {
    pm.addPass(createNovaDecomposeAttention());
    pm.addPass(createNovaDecomposeCrossEntropy());
    pm.addPass(createNovaConvertPackedParams());
    // No row kernels here: the regions are inlined back, which checks the
    // grouping on every CPU step.
    pm.addPass(createNovaSaveInputsForBackward());
    pm.addPass(createNovaFuseElementwise());
    pm.addPass(createNovaRematerialize());
  }
  pm.addPass(createConvertNovaToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // What IREE cannot fuse into a reader shares a dispatch with its siblings.
  pm.addPass(createNovaMergeSiblingGenerics());
  // Concats (a packed optimizer's gradients) filled in the order their
  // inputs are made: IREE then writes each in place.
  pm.addPass(createNovaSequenceConcats());
}

/// Options of nova-train-step-to-iree: those of convert-train-step-to-iree.
struct TrainStepToIREEOptions : PassPipelineOptions<TrainStepToIREEOptions> {
  Option<int64_t> params{*this, "params",
                         llvm::cl::desc("trainable parameters (leading arguments)")};
  Option<int64_t> buffers{*this, "buffers",
                          llvm::cl::desc("buffers/frozen tensors after the params")};
  Option<int64_t> statesPerParam{
      *this, "states-per-param",
      llvm::cl::desc("optimizer state tensors per param (SGD 1, AdamW 2)")};
  Option<int64_t> hypers{*this, "hypers",
                         llvm::cl::desc("0-d f32 hyperparameter arguments")};
  ListOption<int64_t> updatedBuffers{
      *this, "updated-buffers",
      llvm::cl::desc("Indices of the buffers the step returns new values of")};
  ListOption<std::string> stateNames{
      *this, "state-names",
      llvm::cl::desc("names of the params, buffers and state tensors")};
  Option<std::string> parameterScope{
      *this, "parameter-scope",
      llvm::cl::desc("initialise the globals from IREE parameters of this scope")};
  Option<bool> inPlace{*this, "in-place", llvm::cl::desc("update in place"),
                       llvm::cl::init(true)};
  Option<bool> gate{*this, "gate",
                    llvm::cl::desc("@step waits on the device for `ready`"),
                    llvm::cl::init(false)};
  Option<bool> transients{
      *this, "transients",
      llvm::cl::desc("@step's transient storage from the caller"),
      llvm::cl::init(false)};
};

/// The pure train step -> IREE's stateful program, cleaned up.
void buildTrainStepToIREEPipeline(OpPassManager &pm,
                                  const TrainStepToIREEOptions &options) {
  ConvertTrainStepToIREEOptions convert;
  convert.params = options.params;
  convert.buffers = options.buffers;
  convert.statesPerParam = options.statesPerParam;
  convert.hypers = options.hypers;
  convert.updatedBuffers.assign(options.updatedBuffers.begin(),
                                options.updatedBuffers.end());
  convert.stateNames.assign(options.stateNames.begin(), options.stateNames.end());
  convert.parameterScope = options.parameterScope;
  convert.inPlace = options.inPlace;
  convert.transients = options.transients;
  convert.gate = options.gate;
  pm.addPass(createConvertTrainStepToIREE(convert));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

} // namespace

/// Named pipelines: what Python and nova-opt ask for by name.
static void registerNovaPipelines() {
  PassPipelineRegistration<LowerToLinalgOptions>(
      "nova-lower-to-linalg",
      "nova -> linalg on tensors for a target (cpu or cuda:<arch>)",
      buildLowerToLinalgPipeline);
  PassPipelineRegistration<TrainStepToIREEOptions>(
      "nova-train-step-to-iree",
      "A captured train step -> IREE's program: state in globals updated in "
      "place, an asynchronous @step",
      buildTrainStepToIREEPipeline);
  PassPipelineRegistration<>(
      "nova-optimize",
      "Decompose composite ops, canonicalize and CSE, then form fused "
      "attention from its decomposed pattern (canonicalize and CSE again)",
      [](OpPassManager &pm) {
        pm.addPass(createNovaDecompose());
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
        pm.addPass(createNovaFormAttention());
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createCSEPass());
      });
}

void registerAllNovaPasses() {
  registerNovaPasses();           // compiler/transforms/Passes.td
  registerNovaConversionPasses(); // compiler/conversion/Passes.td
  registerTransformsPasses();
  registerNovaPipelines();
}

} // namespace mlir::nova
