//===- SequenceConcats.cpp - a concat's inputs inserted as they are made --===//
//
// IREE lowers a tensor.concat to updates of its result in operand order and
// places each input's dispatch result directly into the result only when
// the updates before it can move ahead of that dispatch. Inserted in the
// order the inputs are made, every input can be placed: no copies.
//
//===----------------------------------------------------------------------===//

#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVASEQUENCECONCATS
#include "compiler/transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

struct NovaSequenceConcatsPass
    : mlir::nova::impl::NovaSequenceConcatsBase<NovaSequenceConcatsPass> {
  void runOnOperation() override {
    SmallVector<tensor::ConcatOp> concats;
    getOperation()->walk([&](tensor::ConcatOp op) {
      if (op.getType().hasStaticShape() &&
          llvm::all_of(op.getInputs(), [](Value v) {
            return cast<RankedTensorType>(v.getType()).hasStaticShape();
          }))
        concats.push_back(op);
    });
    for (tensor::ConcatOp concat : concats)
      sequence(concat);
  }

  static Value throughReshapes(Value value) {
    while (auto *def = value.getDefiningOp()) {
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
        break;
      value = def->getOperand(0);
    }
    return value;
  }

  /// The one op making every tensor input of `op` when `op` is elementwise
  /// (a cast of a sum's results, say): IREE fuses such an op into that
  /// producer's dispatch, so its results are made where the producer is.
  static Operation *elementwiseSource(Operation *op) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic.getNumReductionLoops() != 0 ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return nullptr;
    Operation *source = nullptr;
    for (Value input : generic.getDpsInputs()) {
      if (!isa<RankedTensorType>(input.getType()))
        continue;
      Operation *def = throughReshapes(input).getDefiningOp();
      if (!def || (source && def != source))
        return nullptr;
      source = def;
    }
    return source;
  }

  /// Where `value` is made in `block`, looking through reshapes and
  /// elementwise ops of one producer: block arguments first, then (op
  /// position, result number).
  static std::tuple<int64_t, int64_t, int64_t>
  madeAt(Value value, Block *block, DenseMap<Operation *, int64_t> &position) {
    value = throughReshapes(value);
    if (auto arg = dyn_cast<BlockArgument>(value))
      return {0, arg.getOwner() == block ? 0 : 1, arg.getArgNumber()};
    Operation *made = value.getDefiningOp();
    int64_t result = cast<OpResult>(value).getResultNumber();
    while (Operation *source = elementwiseSource(made))
      made = source;
    Operation *owner = block->findAncestorOpInBlock(*made);
    if (!owner)
      return {0, 1, 0};
    if (position.empty())
      for (auto [i, op] : llvm::enumerate(*block))
        position[&op] = i;
    return {1, position.lookup(owner), result};
  }

  void sequence(tensor::ConcatOp concat) {
    Block *block = concat->getBlock();
    DenseMap<Operation *, int64_t> position;
    int64_t dim = concat.getDim();
    RankedTensorType type = concat.getType();
    // Each input with its offset along `dim`, then in the order made.
    SmallVector<std::pair<Value, int64_t>> inputs;
    int64_t offset = 0;
    for (Value input : concat.getInputs()) {
      inputs.push_back({input, offset});
      offset += cast<RankedTensorType>(input.getType()).getDimSize(dim);
    }
    llvm::stable_sort(inputs, [&](const auto &a, const auto &b) {
      return madeAt(a.first, block, position) <
             madeAt(b.first, block, position);
    });
    OpBuilder b(concat);
    Location loc = concat.getLoc();
    Value result = tensor::EmptyOp::create(b, loc, type.getShape(),
                                           type.getElementType());
    for (auto [input, at] : inputs) {
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
      offsets[dim] = b.getIndexAttr(at);
      SmallVector<OpFoldResult> sizes = llvm::map_to_vector(
          inputType.getShape(),
          [&](int64_t size) -> OpFoldResult { return b.getIndexAttr(size); });
      SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
      result = tensor::InsertSliceOp::create(b, loc, input, result, offsets,
                                             sizes, strides);
    }
    concat.replaceAllUsesWith(result);
    concat.erase();
  }
};

} // namespace
