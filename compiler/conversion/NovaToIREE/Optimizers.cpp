//===- Optimizers.cpp - AdamW updates through Nova's multi-tensor kernel --===//
//
// nova.adamw ops the configurator gave a "multi_tensor_adamw" config are
// gathered, in program order, into groups of up to kAdamwMaxTensors that
// share their hyperparameters and gradient dtype; each group becomes one
// dispatch of Nova's kernel (compiler/codegen/cuda/AdamwKernel.h) whose
// results are tied to the old params, exp_avg and exp_avg_sq (updated in
// place). A gradient that is a bf16 tensor widened by nova.cast is read as
// bf16. The bias corrections 1 - beta^t are computed once per group as
// 0-d nova ops, as the linalg lowering computes them per element, and packed
// with the hyperparameters into one f32[7] (IREE binds 16 buffers a launch)
// by elementwise selects IREE fuses into one small kernel.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/AdamwKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToIREE/KernelFamilies.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"


using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;

namespace {

bool hasAdamwKernelConfig(AdamwOp op) {
  auto config = op->getAttrOfType<LoweringConfigAttr>("lowering_config");
  return config && config.getKernel() == "multi_tensor_adamw";
}

/// Whether every user of `op`'s results lies after `last` (in its block).
bool usedOnlyAfter(AdamwOp op, Operation *last) {
  Block *block = last->getBlock();
  for (Operation *user : op->getUsers()) {
    Operation *owner = block->findAncestorOpInBlock(*user);
    if (!owner || owner == last || owner->isBeforeInBlock(last))
      return false;
  }
  return true;
}

LogicalResult lowerGroup(IRRewriter &rewriter, ModuleOp module,
                         ArrayRef<AdamwOp> group, bool bf16Grads) {
  AdamwOp head = group.front();
  int64_t n = group.size();
  std::string name = cuda::adamwKernelName(n, bf16Grads);
  KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings.assign(1 + n, true);
  kernel.readOnlyBindings.append(3 * n, false);
  kernel.constants = 2 * n;
  kernel.workgroupSize = {cuda::kAdamwBlock, 1, 1};
  if (failed(declareKernelOnce(module, head, "AdamW kernel", kernel,
                               [&](std::string &error) {
                                 return cuda::adamwPtx(n, bf16Grads, error);
                               })))
    return failure();

  Location loc = rewriter.getFusedLoc(llvm::to_vector(
      llvm::map_range(group, [](AdamwOp op) { return op.getLoc(); })));
  rewriter.setInsertionPointAfter(group.back());
  auto scalar = cast<RankedTensorType>(head.getStep().getType());
  Value one = ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(scalar, rewriter.getF32FloatAttr(1)));
  auto biasCorrection = [&](Value beta) -> Value {
    return SubOp::create(rewriter, loc, scalar, one,
                         PowOp::create(rewriter, loc, scalar, beta,
                                       head.getStep()));
  };
  // The kernel's scalars as one f32[7] (one binding of IREE's 16), built
  // elementwise (a select per scalar on the position) so that IREE makes one
  // small kernel of it, where a concat would be a copy per scalar.
  auto packedType =
      RankedTensorType::get({cuda::kAdamwScalars}, scalar.getElementType());
  Value values[] = {head.getLr(),
                    head.getBeta1(),
                    head.getBeta2(),
                    head.getEps(),
                    head.getWeightDecay(),
                    biasCorrection(head.getBeta1()),
                    biasCorrection(head.getBeta2())};
  auto broadcast = [&](Value v) -> Value {
    return BroadcastInDimOp::create(rewriter, loc, packedType, v,
                                    rewriter.getDenseI64ArrayAttr({}));
  };
  Value position = IotaOp::create(rewriter, loc, packedType, uint64_t{0});
  Value packed = broadcast(values[cuda::kAdamwScalars - 1]);
  for (int64_t i = cuda::kAdamwScalars - 2; i >= 0; --i) {
    Value index = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(packedType,
                               rewriter.getF32FloatAttr(float(i))));
    Value here = CompareOp::create(rewriter, loc,
                                   packedType.clone(rewriter.getI1Type()),
                                   CompareDirection::EQ, position, index);
    packed = SelectOp::create(rewriter, loc, packedType, here,
                              broadcast(values[i]), packed);
  }
  KernelDispatchBuilder dispatch(rewriter, loc, /*poison=*/false);
  dispatch.input(packed);
  for (AdamwOp op : group)
    dispatch.input(bf16Grads ? op.getWidenedBf16Grad() : op.getGrad());
  for (AdamwOp op : group) {
    RankedTensorType type = op.getParam().getType();
    dispatch.result(type, op.getParam());
    dispatch.result(type, op.getExpAvg());
    dispatch.result(type, op.getExpAvgSq());
  }
  SmallVector<int64_t> firstBlocks;
  int64_t blocks = 0;
  for (AdamwOp op : group) {
    int64_t elements = op.getParam().getType().getNumElements();
    dispatch.constant(elements);
    firstBlocks.push_back(blocks);
    blocks += (elements + cuda::adamwBlockElements() - 1) /
              cuda::adamwBlockElements();
  }
  for (int64_t first : firstBlocks)
    dispatch.constant(first);
  ResultRange results = dispatch.create(
      name, name, arith::ConstantIndexOp::create(rewriter, loc, blocks));
  for (auto [i, member] : llvm::enumerate(group)) {
    AdamwOp op = member;
    Operation *widen = bf16Grads ? op.getGrad().getDefiningOp() : nullptr;
    rewriter.replaceOp(op, results.slice(3 * i, 3));
    if (widen && widen->use_empty())
      rewriter.eraseOp(widen);
  }
  return success();
}

} // namespace

LogicalResult nova_to_iree::injectOptimizerKernels(ModuleOp module) {
  // Per block, the configured updates in order, keyed by what a launch
  // shares: the hyperparameters and the gradients' dtype.
  using Key = std::tuple<Block *, SmallVector<Value, 6>, bool>;
  SmallVector<std::pair<Key, SmallVector<AdamwOp>>> candidates;
  module.walk([&](AdamwOp op) {
    if (!hasAdamwKernelConfig(op))
      return;
    bool bf16Grads = bool(op.getWidenedBf16Grad());
    SmallVector<Value, 6> hypers = {op.getStep(), op.getLr(),
                                    op.getBeta1(), op.getBeta2(),
                                    op.getEps(), op.getWeightDecay()};
    Key key(op->getBlock(), hypers, bf16Grads);
    auto it = llvm::find_if(candidates,
                            [&](const auto &entry) { return entry.first == key; });
    if (it == candidates.end())
      candidates.push_back({key, {op}});
    else
      it->second.push_back(op);
  });
  if (candidates.empty())
    return success();
  if (failed(requireUnregisteredDialects(candidates.front().second.front())))
    return failure();
  IRRewriter rewriter(module.getContext());
  for (auto &[key, ops] : candidates) {
    bool bf16Grads = std::get<2>(key);
    for (size_t begin = 0; begin < ops.size();
         begin += cuda::kAdamwMaxTensors) {
      ArrayRef<AdamwOp> chunk = ArrayRef<AdamwOp>(ops).slice(
          begin, std::min<size_t>(cuda::kAdamwMaxTensors, ops.size() - begin));
      // The launch goes after the chunk's last update: members whose new
      // values are read before that keep their own lowering.
      // Tensors tied twice would share one buffer: such an update keeps its
      // own lowering too.
      SmallVector<AdamwOp> group;
      llvm::SmallDenseSet<Value> tied;
      for (AdamwOp op : chunk) {
        if (op != chunk.back() && !usedOnlyAfter(op, chunk.back()))
          continue;
        Value state[] = {op.getParam(), op.getExpAvg(), op.getExpAvgSq()};
        if (llvm::any_of(state, [&](Value v) { return tied.contains(v); }) ||
            state[0] == state[1] || state[0] == state[2] ||
            state[1] == state[2])
          continue;
        tied.insert(std::begin(state), std::end(state));
        group.push_back(op);
      }
      if (group.empty())
        continue;
      if (failed(lowerGroup(rewriter, module, group, bf16Grads)))
        return failure();
    }
  }
  return success();
}
