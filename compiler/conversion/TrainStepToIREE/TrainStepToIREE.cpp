//===- TrainStepToIREE.cpp - train-step state as IREE globals -------------===//
//
// Turns Nova's pure train-step function into IREE's stateful program model:
// the params, buffers and optimizer state become mutable globals, the
// optimizer updates write them in place (dispatches with results tied to the
// old values' bindings) and the step becomes an asynchronous (coarse-fences)
// entry point taking only the hyperparameters and the batch. See the pass
// description in Passes.td.
//
// IREE's util/flow/hal/iree_tensor_ext ops, types and attributes are not part
// of MLIR 22: they are built as unregistered ops with opaque types and
// attributes, and the module travels to IREE as generic-form text.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/StepGateKernel.h"
#include "compiler/conversion/IREEGlobals.h"
#include "compiler/conversion/IREENamespaces.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"
#include "compiler/conversion/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTTRAINSTEPTOIREE
#include "compiler/conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// `!iree_tensor_ext.dispatch.tensor<access:tensor<...>>`.
Type dispatchTensorType(RankedTensorType type, StringRef access) {
  return ireeType(type.getContext(), "iree_tensor_ext",
                    ("dispatch.tensor<" + access + ":" + typeText(type) + ">")
                        .str());
}

/// A symbol name IREE's VM accepts for any state name ("h.0.attn.qkv.weight").
std::string globalSymbol(StringRef name, size_t index) {
  std::string symbol = "state" + std::to_string(index) + "_";
  for (char c : name)
    symbol += llvm::isAlnum(c) ? c : '_';
  return symbol;
}

void utilReturn(OpBuilder &b, Location loc, ValueRange values) {
  OperationState state(loc, "util.return");
  state.addOperands(values);
  b.create(state);
}

/// `util.func public @name` with an entry block; the builder is left inside.
Block *createUtilFunc(OpBuilder &b, Location loc, StringRef name,
                      FunctionType type, ArrayRef<DictionaryAttr> argAttrs,
                      ArrayRef<NamedAttribute> attrs) {
  SmallVector<NamedAttribute> props = {
      b.getNamedAttr("function_type", TypeAttr::get(type)),
      b.getNamedAttr("sym_name", b.getStringAttr(name)),
      b.getNamedAttr("sym_visibility", b.getStringAttr("public"))};
  if (!argAttrs.empty())
    props.push_back(b.getNamedAttr(
        "arg_attrs", b.getArrayAttr(SmallVector<Attribute>(argAttrs.begin(),
                                                           argAttrs.end()))));
  OperationState state(loc, "util.func");
  state.propertiesAttr = b.getDictionaryAttr(props);
  state.addAttributes(attrs);
  state.addRegion();
  Operation *func = b.create(state);
  Block *block = &func->getRegion(0).emplaceBlock();
  for (Type input : type.getInputs())
    block->addArgument(input, loc);
  b.setInsertionPointToStart(block);
  return block;
}

Value dispatchLoad(OpBuilder &b, Location loc, Value binding,
                   RankedTensorType type) {
  SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1);
  OperationState state(loc, "iree_tensor_ext.dispatch.tensor.load");
  state.addOperands(binding);
  state.addTypes(type);
  state.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({1, 0, 0, 0, 0})),
       b.getNamedAttr("static_offsets", b.getDenseI64ArrayAttr(zeros)),
       b.getNamedAttr("static_sizes",
                      b.getDenseI64ArrayAttr(type.getShape())),
       b.getNamedAttr("static_strides", b.getDenseI64ArrayAttr(ones))});
  return b.create(state)->getResult(0);
}

void dispatchStore(OpBuilder &b, Location loc, Value value, Value binding) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1);
  OperationState state(loc, "iree_tensor_ext.dispatch.tensor.store");
  state.addOperands({value, binding});
  state.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({1, 1, 0, 0, 0, 0})),
       b.getNamedAttr("static_offsets", b.getDenseI64ArrayAttr(zeros)),
       b.getNamedAttr("static_sizes",
                      b.getDenseI64ArrayAttr(type.getShape())),
       b.getNamedAttr("static_strides", b.getDenseI64ArrayAttr(ones))});
  b.create(state);
}

/// Why `update` cannot be written in place, or "" when it can: every result
/// must be a state update whose old value is an input read at the result's
/// own indices, and the payload must not read the (empty) outputs.
std::string inPlaceBlocker(linalg::GenericOp update,
                           ArrayRef<int64_t> tiedArgOfResult,
                           ArrayRef<int64_t> inputOfResult) {
  if (update.getNumReductionLoops() != 0)
    return "it reduces";
  for (auto [result, arg] : llvm::enumerate(tiedArgOfResult)) {
    if (arg < 0)
      return "result " + std::to_string(result) + " is not a state update";
    if (inputOfResult[result] < 0)
      return "result " + std::to_string(result) +
             " does not read the old value";
    OpOperand *input = update.getDpsInputOperand(inputOfResult[result]);
    OpOperand *init = update.getDpsInitOperand(result);
    if (update.getMatchingIndexingMap(input) !=
        update.getMatchingIndexingMap(init))
      return "result " + std::to_string(result) +
             " reads its old value at other indices";
    if (update.payloadUsesValueFromOperand(init))
      return "its payload reads an output";
  }
  // The dispatch region is isolated: captured constants are cloned into it.
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(update.getRegion(), captured);
  for (Value v : captured)
    if (!matchPattern(v, m_Constant()))
      return "its payload captures a non-constant value";
  return "";
}

/// Whether `op` can be recomputed inside an update's dispatch: an
/// all-parallel generic with one result, written from an empty tensor, whose
/// payload captures only constants.
bool isAbsorbable(linalg::GenericOp op) {
  if (!op || op->getNumResults() != 1 || op.getNumReductionLoops() != 0 ||
      !op.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return false;
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op.getRegion(), captured);
  return llvm::all_of(captured,
                      [](Value v) { return matchPattern(v, m_Constant()); });
}

/// The elementwise producers (e.g. a gradient's cast to f32) that only
/// `update` reads, transitively, producers first: IREE fuses no producer into
/// an explicit dispatch, so the update's dispatch computes them itself
/// instead of one more dispatch each.
SmallVector<linalg::GenericOp>
absorbedProducers(linalg::GenericOp update,
                  const llvm::SmallDenseSet<int64_t> &tiedInputs) {
  SmallVector<linalg::GenericOp> order;
  llvm::SmallDenseSet<Operation *> seen;
  std::function<void(Value)> visit = [&](Value v) {
    auto producer = v.getDefiningOp<linalg::GenericOp>();
    if (!producer || !v.hasOneUse() || !isAbsorbable(producer) ||
        !seen.insert(producer).second)
      return;
    for (OpOperand *input : producer.getDpsInputOperands())
      visit(input->get());
    order.push_back(producer);
  };
  for (OpOperand *input : update.getDpsInputOperands())
    if (!tiedInputs.contains(input->getOperandNumber()))
      visit(input->get());
  return order;
}

/// Whether `value` is a result of a dispatch that writes it into `old`'s
/// buffer (a Nova kernel updating state in place, e.g. the multi-tensor
/// AdamW).
bool isTiedTo(Value value, Value old) {
  auto result = dyn_cast<OpResult>(value);
  if (!result || result.getOwner()->getName().getStringRef() != "flow.dispatch")
    return false;
  Operation *dispatch = result.getOwner();
  auto ties = dispatch->getAttrOfType<ArrayAttr>("tied_operands");
  if (!ties || result.getResultNumber() >= ties.size())
    return false;
  int64_t tied = cast<IntegerAttr>(ties[result.getResultNumber()]).getInt();
  // flow.dispatch's tied indices count its tensor arguments after the
  // workload.
  auto segments = dispatch->getAttrOfType<DenseI32ArrayAttr>(
      "operandSegmentSizes");
  int64_t workload = segments ? segments[0] : 0;
  return tied >= 0 && workload + tied < dispatch->getNumOperands() &&
         dispatch->getOperand(workload + tied) == old;
}

/// Wraps `update` in a `flow.dispatch.workgroups` whose result k is tied to
/// the argument holding result k's old value (`oldValues[k]`), which is read
/// and written through one readwrite binding; the other inputs are readonly.
/// The elementwise producers only the update reads are computed inside.
/// Replaces `update`'s results with the dispatch's.
void wrapInPlace(OpBuilder &b, linalg::GenericOp update,
                 ArrayRef<int64_t> inputOfResult) {
  Location loc = update.getLoc();
  int64_t numResults = update.getNumResults();
  llvm::SmallDenseSet<int64_t> tiedInputs(inputOfResult.begin(),
                                          inputOfResult.end());
  SmallVector<linalg::GenericOp> producers =
      absorbedProducers(update, tiedInputs);
  llvm::SmallDenseSet<Value> absorbed;
  for (linalg::GenericOp producer : producers)
    absorbed.insert(producer->getResult(0));
  // The dispatch takes the update's place: the producers' inputs dominate it.
  b.setInsertionPoint(update);
  // Dispatch operands: the tied old values first (result order), then the
  // other inputs of the producers and of the update, each once.
  SmallVector<Value> operands;
  DenseMap<Value, int64_t> operandIndex;
  auto operandOf = [&](Value v) {
    auto [it, inserted] = operandIndex.try_emplace(v, operands.size());
    if (inserted)
      operands.push_back(v);
    return it->second;
  };
  SmallVector<Attribute> ties;
  for (int64_t k = 0; k < numResults; ++k)
    ties.push_back(b.getIndexAttr(
        operandOf(update.getDpsInputOperand(inputOfResult[k])->get())));
  for (linalg::GenericOp producer : producers)
    for (OpOperand *input : producer.getDpsInputOperands())
      if (!absorbed.contains(input->get()))
        operandOf(input->get());
  for (OpOperand *input : update.getDpsInputOperands())
    if (!tiedInputs.contains(input->getOperandNumber()) &&
        !absorbed.contains(input->get()))
      operandOf(input->get());
  int64_t numTied = numResults;

  OperationState state(loc, "flow.dispatch.workgroups");
  state.addOperands(operands);
  state.addTypes(update.getResultTypes());
  state.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr(
                          {0, static_cast<int32_t>(operands.size()), 0, 0})),
       b.getNamedAttr("tied_operands", b.getArrayAttr(ties))});
  state.addRegion(); // body
  state.addRegion(); // workgroup count: IREE's default (from the body)
  Operation *dispatch = b.create(state);

  Block *body = &dispatch->getRegion(0).emplaceBlock();
  for (auto [i, v] : llvm::enumerate(operands))
    body->addArgument(
        dispatchTensorType(cast<RankedTensorType>(v.getType()),
                           static_cast<int64_t>(i) < numTied ? "readwrite"
                                                             : "readonly"),
        loc);
  OpBuilder inner = OpBuilder::atBlockBegin(body);
  // Each dispatch operand and absorbed producer result -> its value inside.
  IRMapping inside;
  SmallVector<Value> loaded;
  for (auto [i, v] : llvm::enumerate(operands)) {
    loaded.push_back(dispatchLoad(inner, loc, body->getArgument(i),
                                  cast<RankedTensorType>(v.getType())));
    inside.map(v, loaded.back());
  }
  for (linalg::GenericOp producer : producers) {
    // Its empty init and captured constants are cloned in (once each).
    SetVector<Value> defined;
    getUsedValuesDefinedAbove(producer.getRegion(), defined);
    defined.insert(producer.getDpsInitOperand(0)->get());
    for (Value v : defined)
      if (!inside.contains(v))
        inside.map(v, inner.clone(*v.getDefiningOp())->getResult(0));
    inner.clone(*producer, inside);
  }

  // The same generic with each old value moved from `ins` to `outs`: the
  // payload reads it as the output element it overwrites.
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  SmallVector<int64_t> keptInputs;
  for (OpOperand *input : update.getDpsInputOperands()) {
    if (tiedInputs.contains(input->getOperandNumber()))
      continue;
    keptInputs.push_back(input->getOperandNumber());
    ins.push_back(inside.lookup(input->get()));
    maps.push_back(update.getMatchingIndexingMap(input));
  }
  SmallVector<Value> outs(loaded.begin(), loaded.begin() + numTied);
  for (OpOperand &init : update.getDpsInitsMutable())
    maps.push_back(update.getMatchingIndexingMap(&init));
  auto generic = linalg::GenericOp::create(
      inner, loc, update.getResultTypes(), ins, outs, maps,
      update.getIteratorTypesArray());
  Block &oldPayload = update.getRegion().front();
  Block *payload = inner.createBlock(&generic.getRegion());
  for (Value v : ins)
    payload->addArgument(cast<ShapedType>(v.getType()).getElementType(), loc);
  for (Value v : outs)
    payload->addArgument(cast<ShapedType>(v.getType()).getElementType(), loc);
  IRMapping mapping;
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(update.getRegion(), captured);
  {
    OpBuilder::InsertionGuard guard(inner);
    inner.setInsertionPointToStart(body);
    for (Value v : captured)
      mapping.map(v, inner.clone(*v.getDefiningOp())->getResult(0));
  }
  for (auto [newIndex, oldIndex] : llvm::enumerate(keptInputs))
    mapping.map(oldPayload.getArgument(oldIndex),
                payload->getArgument(newIndex));
  for (int64_t k = 0; k < numResults; ++k) {
    BlockArgument out = payload->getArgument(ins.size() + k);
    mapping.map(oldPayload.getArgument(inputOfResult[k]), out);
    mapping.map(oldPayload.getArgument(update.getNumDpsInputs() + k), out);
  }
  inner.setInsertionPointToStart(payload);
  for (Operation &op : oldPayload)
    inner.clone(op, mapping);

  inner.setInsertionPointAfter(generic);
  for (int64_t k = 0; k < numResults; ++k)
    dispatchStore(inner, loc, generic.getResult(k), body->getArgument(k));
  inner.create(OperationState(loc, "flow.return"));
  update->replaceAllUsesWith(dispatch->getResults());
  update.erase();
  for (linalg::GenericOp producer : llvm::reverse(producers))
    producer.erase();
}

struct ConvertTrainStepToIREEPass
    : mlir::nova::impl::ConvertTrainStepToIREEBase<ConvertTrainStepToIREEPass> {
  using ConvertTrainStepToIREEBase::ConvertTrainStepToIREEBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertTrainStepToIREEBase::getDependentDialects(registry);
    registry.insert<mlir::nova::IreeUtilNamespace>();
  }

  void runOnOperation() override;

private:
  LogicalResult checkSignature(func::FuncOp func);
  /// The argument result `r` (>= 1) is the new value of: new params, then
  /// the updated buffers, then the optimizer state.
  int64_t updatedArgument(int64_t r) const {
    int64_t updated = updatedBuffers.size();
    if (r <= funcParams)
      return r - 1;
    if (r <= funcParams + updated)
      return funcParams + updatedBuffers[r - 1 - funcParams];
    return buffers + r - 1 - updated;
  }
  /// State tensors of the signature (load_state's) and arguments of the
  /// function (fewer where packed).
  int64_t abiStateCount() const {
    return params + buffers + params * statesPerParam;
  }
  int64_t funcStateCount() const {
    return funcParams + buffers + funcParams * statesPerParam;
  }
  void makeUpdatesInPlace(func::FuncOp func);
  LogicalResult readPackedState(func::FuncOp func);
  LogicalResult mapState(func::FuncOp func);

  /// A group of params nova-pack-optimizer-state packed into one flat
  /// argument (and its states likewise).
  struct PackedGroup {
    SmallVector<int64_t> members; // the signature's param indices
    SmallVector<int64_t> offsets;
    SmallVector<RankedTensorType> types;
    int64_t elements;
  };
  SmallVector<PackedGroup> packedGroups;

  /// The function's params: `params`, less what nova-pack-optimizer-state
  /// packed (its groups count once each).
  int64_t funcParams = 0;
  /// Per state argument of the function, the state tensors of the signature
  /// (load_state's, read_state's) it holds: their index, offset and type.
  struct Held {
    int64_t index;
    int64_t offset;
    RankedTensorType type;
  };
  SmallVector<SmallVector<Held, 1>> held;
  /// The signature's state tensor types (the function's where not packed).
  SmallVector<Type> abiStateTypes;
};

LogicalResult ConvertTrainStepToIREEPass::checkSignature(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  int64_t numState = funcStateCount();
  int64_t numArgs = type.getNumInputs();
  if (params < 1 || buffers < 0 || statesPerParam < 0 || hypers < 0)
    return func.emitError() << "convert-train-step-to-iree: needs params >= 1 "
                               "and non-negative buffers, states-per-param "
                               "and hypers";
  if (numArgs < numState + hypers)
    return func.emitError() << "expected at least " << numState + hypers
                            << " arguments (state and hyperparameters), got "
                            << numArgs;
  int64_t numUpdated = updatedBuffers.size();
  for (auto [i, index] : llvm::enumerate(updatedBuffers))
    if (index < 0 || index >= buffers ||
        (i > 0 && index <= updatedBuffers[i - 1]))
      return func.emitError() << "updated-buffers must be increasing buffer "
                                 "indices below "
                              << static_cast<int64_t>(buffers) << ", got "
                              << index;
  int64_t numResults = type.getNumResults();
  if (numResults != 1 + funcParams + numUpdated + funcParams * statesPerParam)
    return func.emitError()
           << "expected "
           << 1 + funcParams + numUpdated + funcParams * statesPerParam
           << " results (loss, new params, new buffers, new state), got "
           << numResults;
  int64_t numAbiState = abiStateCount();
  if (!stateNames.empty() &&
      static_cast<int64_t>(stateNames.size()) != numAbiState)
    return func.emitError() << "state-names has " << stateNames.size()
                            << " names for " << numAbiState << " state tensors";
  auto scalarF32 = RankedTensorType::get({}, Float32Type::get(&getContext()));
  for (int64_t i = 0; i < numArgs; ++i)
    if (!isa<RankedTensorType>(type.getInput(i)) ||
        !cast<RankedTensorType>(type.getInput(i)).hasStaticShape())
      return func.emitError() << "argument " << i
                              << " is not a statically shaped tensor";
  for (int64_t h = 0; h < hypers; ++h)
    if (type.getInput(numState + h) != scalarF32)
      return func.emitError() << "hyperparameter argument " << numState + h
                              << " must be tensor<f32>, got "
                              << type.getInput(numState + h);
  for (int64_t r = 1; r < numResults; ++r) {
    int64_t arg = updatedArgument(r);
    if (type.getResult(r) != type.getInput(arg))
      return func.emitError() << "result " << r << " (" << type.getResult(r)
                              << ") updates argument " << arg << " of type "
                              << type.getInput(arg);
  }
  if (!isa<RankedTensorType>(type.getResult(0)) ||
      cast<RankedTensorType>(type.getResult(0)).getRank() != 0)
    return func.emitError() << "the loss (result 0) must be a 0-d tensor, got "
                            << type.getResult(0);
  return success();
}

void ConvertTrainStepToIREEPass::makeUpdatesInPlace(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // The argument each returned value updates (result r >= 1).
  DenseMap<Value, int64_t> updatedArg;
  SetVector<linalg::GenericOp> updates;
  int64_t numUpdatedBuffers = updatedBuffers.size();
  for (int64_t r = 1; r < ret.getNumOperands(); ++r) {
    // Buffers the forward writes (running statistics, small) are stored
    // as new values.
    if (r > funcParams && r <= funcParams + numUpdatedBuffers)
      continue;
    Value value = ret.getOperand(r);
    int64_t arg = updatedArgument(r);
    if (!updatedArg.try_emplace(value, arg).second) {
      updatedArg[value] = -1; // returned twice: cannot tie both
      continue;
    }
    if (auto generic = value.getDefiningOp<linalg::GenericOp>())
      updates.insert(generic);
    else if (!isTiedTo(value, func.getArgument(arg)))
      emitRemark(value.getLoc())
          << "state update " << r << " is not computed by a linalg.generic: "
          << "not updated in place";
  }
  OpBuilder b(&getContext());
  for (linalg::GenericOp update : updates) {
    SmallVector<int64_t> tiedArg, inputOfResult;
    for (OpResult result : update->getResults()) {
      // Tied only when the return is its one use (nothing reads the new value
      // inside the step) and it updates exactly one argument.
      auto it = updatedArg.find(result);
      bool onlyReturned =
          result.hasOneUse() && *result.getUsers().begin() == ret.getOperation();
      int64_t arg = onlyReturned && it != updatedArg.end() ? it->second : -1;
      tiedArg.push_back(arg);
      int64_t input = -1;
      if (arg >= 0)
        for (OpOperand *operand : update.getDpsInputOperands())
          if (operand->get() == func.getArgument(arg))
            input = operand->getOperandNumber();
      inputOfResult.push_back(input);
    }
    std::string blocker = inPlaceBlocker(update, tiedArg, inputOfResult);
    if (!blocker.empty()) {
      update.emitRemark() << "state update not written in place: " << blocker;
      continue;
    }
    wrapInPlace(b, update, inputOfResult);
  }
}

/// A gated step's inputs as the gate copied them, and the epoch it
/// advanced to (this step's number).
struct GatedInputs {
  SmallVector<Value> inputs;
  Value epoch;
};

/// The step gate (compiler/codegen/cuda/StepGateKernel.h) over `inputs`:
/// their copies, made once the caller's `ready` word reaches the step's
/// epoch + 1 (the global @nova_step_epoch, advanced in place).
FailureOr<GatedInputs> gateInputs(OpBuilder &b, Location loc, ModuleOp module,
                                  ValueRange inputs, Value ready) {
  SmallVector<int64_t> words; // per input
  for (Value v : inputs) {
    auto type = cast<RankedTensorType>(v.getType());
    if (!type.hasStaticShape() ||
        (type.getNumElements() * type.getElementTypeBitWidth()) % 32 != 0) {
      module.emitError() << "convert-train-step-to-iree gate: step input "
                         << type << " is not whole 32-bit words";
      return failure();
    }
    words.push_back(type.getNumElements() * type.getElementTypeBitWidth() / 32);
  }
  if (failed(nova_to_iree::requireUnregisteredDialects(module)))
    return failure();
  int64_t n = inputs.size();
  std::string name = cuda::stepGateKernelName(n);
  nova_to_iree::KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings.assign(1 + n, true); // ready, inputs
  kernel.readOnlyBindings.push_back(false);    // epoch
  kernel.readOnlyBindings.append(n, false);    // copies
  kernel.constants = n;                        // words per input
  kernel.workgroupSize = {cuda::kStepGateBlock, 1, 1};
  if (failed(nova_to_iree::declareKernelOnce(
          module, module, "step gate kernel", kernel,
          [&](std::string &error) { return cuda::stepGatePtx(n, error); })))
    return failure();
  constexpr StringLiteral epochSymbol = "nova_step_epoch";
  auto epochType = RankedTensorType::get({1}, b.getI32Type());
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    // Its own initial value; no other global is an i32 zero of this shape.
    createGlobal(
        b, loc, epochSymbol, epochType, /*isMutable=*/true,
        DenseElementsAttr::get(epochType, b.getI32IntegerAttr(0).getValue()));
  }
  nova_to_iree::KernelDispatchBuilder dispatch(b, loc, /*poison=*/false);
  dispatch.input(ready);
  for (Value v : inputs)
    dispatch.input(v);
  dispatch.result(epochType, loadGlobal(b, loc, epochSymbol, epochType));
  for (Value v : inputs)
    dispatch.result(cast<RankedTensorType>(v.getType()));
  for (int64_t w : words)
    dispatch.constant(w);
  ResultRange results = dispatch.create(
      name, name, arith::ConstantIndexOp::create(b, loc, 1));
  storeGlobal(b, loc, epochSymbol, results[0]);
  return GatedInputs{SmallVector<Value>(results.drop_front()), results[0]};
}

/// The step's close (compiler/codegen/cuda/StepGateKernel.h): the loss
/// copied, then `epoch` as the `done` word. Returns (loss, done).
FailureOr<std::pair<Value, Value>> closeStep(OpBuilder &b, Location loc,
                                             ModuleOp module, Value loss,
                                             Value epoch) {
  auto lossType = cast<RankedTensorType>(loss.getType());
  int64_t bits = lossType.getElementTypeBitWidth();
  if (lossType.getRank() != 0 || (bits != 16 && bits != 32)) {
    module.emitError() << "convert-train-step-to-iree gate: the loss "
                       << lossType << " is not one 16- or 32-bit element";
    return failure();
  }
  std::string name = cuda::stepDoneKernelName(bits);
  nova_to_iree::KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings = {true, true, false, false};
  kernel.workgroupSize = {32, 1, 1};
  if (failed(nova_to_iree::declareKernelOnce(
          module, module, "step done kernel", kernel,
          [&](std::string &error) { return cuda::stepDonePtx(bits, error); })))
    return failure();
  nova_to_iree::KernelDispatchBuilder dispatch(b, loc, /*poison=*/false);
  dispatch.input(epoch);
  dispatch.input(loss);
  dispatch.result(lossType);
  dispatch.result(cast<RankedTensorType>(epoch.getType()));
  ResultRange results =
      dispatch.create(name, name, arith::ConstantIndexOp::create(b, loc, 1));
  return std::make_pair(Value(results[0]), Value(results[1]));
}

LogicalResult ConvertTrainStepToIREEPass::readPackedState(func::FuncOp func) {
  funcParams = params;
  auto groups = func->getAttrOfType<ArrayAttr>("nova.packed_state");
  if (!groups)
    return success();
  auto malformed = [&]() {
    return func.emitError() << "convert-train-step-to-iree: malformed "
                               "nova.packed_state (see "
                               "nova-pack-optimizer-state)";
  };
  llvm::SmallDenseSet<int64_t> seen;
  for (Attribute entry : groups) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto members = dict ? dict.getAs<DenseI64ArrayAttr>("members") : nullptr;
    auto offsets = dict ? dict.getAs<DenseI64ArrayAttr>("offsets") : nullptr;
    auto types = dict ? dict.getAs<ArrayAttr>("types") : nullptr;
    auto elements = dict ? dict.getAs<IntegerAttr>("elements") : nullptr;
    if (!members || !offsets || !types || !elements ||
        members.size() < 1 || offsets.size() != members.size() ||
        types.size() != members.size())
      return malformed();
    PackedGroup group;
    group.elements = elements.getInt();
    for (auto [member, offset, type] :
         llvm::zip(members.asArrayRef(), offsets.asArrayRef(), types)) {
      auto tensor = dyn_cast<TypeAttr>(type)
                        ? dyn_cast<RankedTensorType>(
                              cast<TypeAttr>(type).getValue())
                        : nullptr;
      if (!tensor || !tensor.hasStaticShape() || tensor.getRank() == 0 ||
          member < 0 || member >= params || !seen.insert(member).second ||
          offset < 0 || offset + tensor.getNumElements() > group.elements)
        return malformed();
      group.members.push_back(member);
      group.offsets.push_back(offset);
      group.types.push_back(tensor);
    }
    funcParams -= static_cast<int64_t>(group.members.size()) - 1;
    packedGroups.push_back(std::move(group));
  }
  if (!parameterScope.empty())
    return func.emitError() << "convert-train-step-to-iree: packed state "
                               "(nova.packed_state) cannot be initialised "
                               "from a parameter archive";
  return success();
}

LogicalResult ConvertTrainStepToIREEPass::mapState(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  held.assign(funcStateCount(), {});
  abiStateTypes.assign(abiStateCount(), Type());
  // A param and its states; the group's flat argument when packed.
  DenseMap<int64_t, std::pair<size_t, size_t>> memberOf; // (group, k)
  for (auto [g, group] : llvm::enumerate(packedGroups))
    for (auto [k, member] : llvm::enumerate(group.members))
      memberOf[member] = {g, k};
  auto abiStateOf = [&](int64_t param, int64_t s) {
    return params + buffers + param * statesPerParam + s;
  };
  auto funcStateOf = [&](int64_t param, int64_t s) {
    return funcParams + buffers + param * statesPerParam + s;
  };
  int64_t next = 0; // the function's param index
  for (int64_t j = 0; j < params; ++j) {
    auto it = memberOf.find(j);
    if (it == memberOf.end()) {
      auto t = cast<RankedTensorType>(type.getInput(next));
      held[next] = {{j, 0, t}};
      for (int64_t s = 0; s < statesPerParam; ++s)
        held[funcStateOf(next, s)] = {
            {abiStateOf(j, s), 0,
             cast<RankedTensorType>(type.getInput(funcStateOf(next, s)))}};
      ++next;
      continue;
    }
    const PackedGroup &group = packedGroups[it->second.first];
    if (j != *llvm::min_element(group.members))
      continue; // the group is at its first member's place
    auto flat = RankedTensorType::get({group.elements},
                                      Float32Type::get(&getContext()));
    for (int64_t s = -1; s < statesPerParam; ++s) {
      int64_t arg = s < 0 ? next : funcStateOf(next, s);
      if (type.getInput(arg) != flat || type.getResult(1 + next) != flat)
        return func.emitError()
               << "convert-train-step-to-iree: argument " << arg
               << " should be the packed " << flat << ", got "
               << type.getInput(arg);
      for (auto [member, offset, t] :
           llvm::zip(group.members, group.offsets, group.types))
        held[arg].push_back(
            {s < 0 ? member : abiStateOf(member, s), offset, t});
    }
    ++next;
  }
  for (int64_t i = 0; i < buffers; ++i)
    held[funcParams + i] = {
        {params + i, 0,
         cast<RankedTensorType>(type.getInput(funcParams + i))}};
  for (const auto &pieces : held)
    for (const Held &piece : pieces)
      abiStateTypes[piece.index] = piece.type;
  return success();
}

void ConvertTrainStepToIREEPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  if (!context->allowsUnregisteredDialects()) {
    module.emitError() << "convert-train-step-to-iree emits IREE's util/flow/"
                          "hal ops unregistered: allow unregistered dialects";
    return signalPassFailure();
  }
  auto func = module.lookupSymbol<func::FuncOp>(function);
  if (!func || func.isExternal()) {
    module.emitError() << "convert-train-step-to-iree: no function @"
                       << function;
    return signalPassFailure();
  }
  if (failed(readPackedState(func)) || failed(checkSignature(func)) ||
      failed(mapState(func)))
    return signalPassFailure();
  if (inPlace)
    makeUpdatesInPlace(func);

  FunctionType type = func.getFunctionType();
  Location loc = func.getLoc();
  int64_t numState = funcStateCount();
  SmallVector<Type> stateTypes(type.getInputs().take_front(numState));
  SmallVector<Type> batchTypes(type.getInputs().drop_front(numState + hypers));
  SmallVector<std::string> symbols;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto nameOf = [&](int64_t abi) {
    return stateNames.empty() ? "state" + std::to_string(abi)
                              : std::string(stateNames[abi]);
  };
  for (int64_t i = 0; i < numState; ++i) {
    // A packed global is named after its first tensor.
    std::string name = nameOf(held[i].front().index);
    if (held[i].size() > 1)
      name = "packed." + name;
    symbols.push_back(globalSymbol(name, i));
    auto stateType = cast<RankedTensorType>(stateTypes[i]);
    // From the parameter archive's key `name` when there is a scope.
    Attribute initialValue;
    if (!parameterScope.empty())
      initialValue = ireeAttr(
          context, "flow",
          "parameter.named<\"" + parameterScope + "\"::\"" + name + "\">",
          stateType);
    createGlobal(b, loc, symbols.back(), stateType, /*isMutable=*/true,
                 initialValue);
  }

  // load_state takes the signature's tensors: a packed global is assembled
  // from its members, zeros between them.
  auto isWhole = [&](int64_t i) {
    return held[i].size() == 1 && held[i].front().type == stateTypes[i];
  };
  b.setInsertionPoint(func);
  {
    OpBuilder::InsertionGuard g(b);
    Block *block = createUtilFunc(
        b, loc, "load_state", b.getFunctionType(abiStateTypes, {}), {}, {});
    for (int64_t i = 0; i < numState; ++i) {
      if (isWhole(i)) {
        storeGlobal(b, loc, symbols[i],
                    block->getArgument(held[i].front().index));
        continue;
      }
      auto flatType = cast<RankedTensorType>(stateTypes[i]);
      Value flat = nova_to_linalg::filledTensor(
          b, loc, flatType,
          nova_to_linalg::scalarConstant(b, loc, flatType.getElementType(), 0));
      for (const Held &piece : held[i]) {
        int64_t n = piece.type.getNumElements();
        Value part = nova_to_linalg::reshapeTensor(
            b, loc, block->getArgument(piece.index),
            RankedTensorType::get({n}, piece.type.getElementType()));
        flat = tensor::InsertSliceOp::create(
            b, loc, part, flat,
            ArrayRef<OpFoldResult>{b.getIndexAttr(piece.offset)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(n)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      }
      storeGlobal(b, loc, symbols[i], flat);
    }
    utilReturn(b, loc, {});
  }
  {
    // The globals themselves (one result each, packed ones whole: a result
    // per tensor would cost IREE ~1.6 of gpt-146m's 7.5 s); where each of
    // the signature's tensors lies in them is the function's reflection.
    OpBuilder::InsertionGuard g(b);
    std::string layout;
    llvm::raw_string_ostream os(layout);
    os << "[";
    for (int64_t i = 0; i < numState; ++i) {
      os << (i ? ", " : "");
      if (isWhole(i)) {
        os << held[i].front().index;
        continue;
      }
      os << "[";
      for (auto [k, piece] : llvm::enumerate(held[i])) {
        os << (k ? ", " : "") << "[" << piece.index << ", " << piece.offset
           << ", [";
        llvm::interleave(piece.type.getShape(), os, ", ");
        os << "]]";
      }
      os << "]";
    }
    os << "]";
    createUtilFunc(
        b, loc, "read_state", b.getFunctionType({}, stateTypes), {},
        {b.getNamedAttr("iree.reflection",
                        b.getDictionaryAttr({b.getNamedAttr(
                            "nova.state_layout", b.getStringAttr(layout))}))});
    SmallVector<Value> values;
    for (int64_t i = 0; i < numState; ++i)
      values.push_back(loadGlobal(b, loc, symbols[i], stateTypes[i]));
    utilReturn(b, loc, values);
  }

  // @step(hypers, batch...[, ready], loss storage[, done storage][,
  // transients]) -> loss[, done]: the function called on the globals,
  // hyperparameters sliced from one tensor. A gated step also returns its
  // number as `done`, written after the loss by its last kernel.
  Type f32 = b.getF32Type();
  auto hyperType = RankedTensorType::get({hypers}, f32);
  SmallVector<Type> stepInputs = {hyperType};
  llvm::append_range(stepInputs, batchTypes);
  auto readyType = RankedTensorType::get({1}, b.getI32Type());
  if (gate)
    stepInputs.push_back(readyType);
  // The loss's storage, then (with `transients`) the step's transient
  // storage: IREE then suballocates instead of a queue alloca per call.
  Type buffer = ireeType(context, "hal", "buffer");
  int64_t lossStorage = stepInputs.size();
  stepInputs.push_back(buffer);
  if (gate)
    stepInputs.push_back(buffer);
  if (transients)
    stepInputs.push_back(buffer);
  SmallVector<DictionaryAttr> argAttrs(stepInputs.size(),
                                       b.getDictionaryAttr({}));
  argAttrs[lossStorage] = b.getDictionaryAttr(
      {b.getNamedAttr("iree.abi.output", b.getIndexAttr(0))});
  SmallVector<Type> stepResults = {type.getResult(0)};
  if (gate) {
    argAttrs[lossStorage + 1] = b.getDictionaryAttr(
        {b.getNamedAttr("iree.abi.output", b.getIndexAttr(1))});
    stepResults.push_back(readyType);
  }
  if (transients)
    argAttrs.back() = b.getDictionaryAttr(
        {b.getNamedAttr("iree.abi.transients", b.getUnitAttr())});
  SmallVector<NamedAttribute> stepAttrs = {
      b.getNamedAttr("iree.abi.model", b.getStringAttr("coarse-fences"))};
  if (gate)
    stepAttrs.push_back(
        b.getNamedAttr("iree.reflection",
                       b.getDictionaryAttr({b.getNamedAttr(
                           "nova.step_gate", b.getStringAttr("ready,done"))})));
  Block *step =
      createUtilFunc(b, loc, "step", b.getFunctionType(stepInputs, stepResults),
                     argAttrs, stepAttrs);
  // What torch's stream writes: the hyperparameters and the batch (through
  // the gate's copies with `gate`).
  SmallVector<Value> inputs(step->getArguments().take_front(1 + batchTypes.size()));
  Value epoch;
  if (gate) {
    FailureOr<GatedInputs> gated =
        gateInputs(b, loc, module, inputs, step->getArgument(lossStorage - 1));
    if (failed(gated))
      return signalPassFailure();
    inputs = gated->inputs;
    epoch = gated->epoch;
  }
  // The pure function stays (private, called once): IREE's input pipelines
  // (e.g. the torch fallback's, convert func.func bodies; IREE inlines it).
  SmallVector<Value> operands;
  for (int64_t i = 0; i < numState; ++i)
    operands.push_back(loadGlobal(b, loc, symbols[i], stateTypes[i]));
  auto scalarType = RankedTensorType::get({}, f32);
  OpFoldResult one = b.getIndexAttr(1);
  for (int64_t h = 0; h < hypers; ++h) {
    Value slice = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({1}, f32), inputs[0],
        ArrayRef<OpFoldResult>{b.getIndexAttr(h)}, ArrayRef<OpFoldResult>{one},
        ArrayRef<OpFoldResult>{one});
    operands.push_back(tensor::CollapseShapeOp::create(
        b, loc, scalarType, slice, ArrayRef<ReassociationIndices>{}));
  }
  for (size_t i = 0; i < batchTypes.size(); ++i)
    operands.push_back(inputs[1 + i]);
  func.setPrivate();
  Operation *call = func::CallOp::create(b, loc, func, operands);
  for (int64_t r = 1; r < static_cast<int64_t>(call->getNumResults()); ++r) {
    int64_t arg = updatedArgument(r);
    storeGlobal(b, loc, symbols[arg], call->getResult(r));
  }
  if (!gate) {
    utilReturn(b, loc, {call->getResult(0)});
    return;
  }
  FailureOr<std::pair<Value, Value>> closed =
      closeStep(b, loc, module, call->getResult(0), epoch);
  if (failed(closed))
    return signalPassFailure();
  utilReturn(b, loc, {closed->first, closed->second});
}

} // namespace
