//===- TorchToNova.cpp - torch-mlir's torch dialect to nova ---------------===//
//
// The driver of -convert-torch-to-nova: reading opaque torch types and
// constants, converting a function op by op, and keeping unsupported ops for
// IREE under allow-fallback. The per-op handlers are in
// Elementwise.cpp and Structured.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/TorchToNova/TorchToNova.h"
#include "compiler/conversion/Passes.h"
#include "compiler/transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"

#include <cmath>

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTTORCHTONOVA
#include "compiler/conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::torch_to_nova;

//===----------------------------------------------------------------------===//
// Torch types, scalars and promotion
//===----------------------------------------------------------------------===//

static bool isTorchOp(Operation *op) {
  return op->getName().getStringRef().starts_with("torch.");
}

static bool isTorchType(Type type) {
  auto opaque = dyn_cast<OpaqueType>(type);
  return opaque && opaque.getDialectNamespace().getValue() == "torch";
}

std::optional<TorchTensorType>
torch_to_nova::parseTorchTensorType(Type type, std::string &error) {
  error.clear();
  if (!isTorchType(type))
    return std::nullopt;
  // The opaque data is the text between `!torch.` and the end of the type,
  // e.g. `vtensor<[2,3],f32>`, spaced as its writer spaced it.
  StringRef body = cast<OpaqueType>(type).getTypeData().trim();
  auto fail = [&](const Twine &why) -> std::optional<TorchTensorType> {
    error = why.str();
    return std::nullopt;
  };
  if (!body.consume_front("vtensor")) {
    if (body.starts_with("tensor"))
      return fail("non-value tensors are not supported (expected "
                  "!torch.vtensor)");
    return std::nullopt;
  }
  body = body.trim();
  if (!body.consume_front("<") || !body.consume_back(">"))
    return fail("its shape and dtype are unknown");
  body = body.trim();
  if (body.starts_with("*"))
    return fail("unranked tensors are not supported");
  if (!body.consume_front("[") || !body.contains(']'))
    return fail("malformed shape");
  auto [dimsText, rest] = body.split(']');
  rest = rest.trim();
  if (!rest.consume_front(","))
    return fail("expected ',' and a dtype after the shape");

  SmallVector<int64_t> shape;
  if (!dimsText.trim().empty()) {
    SmallVector<StringRef> dims;
    dimsText.split(dims, ',');
    for (StringRef dim : dims) {
      dim = dim.trim();
      if (dim == "?")
        return fail("dynamic dims are not supported (Nova compiles static "
                    "shapes)");
      int64_t size;
      if (dim.getAsInteger(10, size) || size < 0)
        return fail("malformed dim '" + dim + "'");
      shape.push_back(size);
    }
  }

  MLIRContext *context = type.getContext();
  StringRef dtypeText = rest.trim();
  Type dtype;
  {
    // A dtype that is not a builtin type (!torch.qint8) is our diagnostic,
    // not the parser's.
    ScopedDiagnosticHandler silence(context,
                                    [](Diagnostic &) { return success(); });
    size_t numRead = 0;
    dtype = parseType(dtypeText, context, &numRead);
    if (dtype && numRead != dtypeText.size())
      dtype = {};
  }
  Type element;
  if (auto floatType = dyn_cast_or_null<FloatType>(dtype))
    element = floatType;
  else if (auto intType = dyn_cast_or_null<IntegerType>(dtype))
    element = IntegerType::get(context, intType.getWidth());
  else
    return fail("unsupported dtype '" + dtypeText + "'");
  return TorchTensorType{RankedTensorType::get(shape, element), dtype};
}

Type TorchScalar::dtype(MLIRContext *context) const {
  switch (kind) {
  case Kind::Bool:
    return IntegerType::get(context, 1);
  case Kind::Int:
    return IntegerType::get(context, 64, IntegerType::Signed);
  case Kind::Float:
    return Float32Type::get(context);
  }
  llvm_unreachable("unknown scalar kind");
}

Type torch_to_nova::promoteTypes(Type a, Type b) {
  if (a == b)
    return a;
  if (a.isInteger(1))
    return b;
  if (b.isInteger(1))
    return a;
  auto floatA = dyn_cast<FloatType>(a), floatB = dyn_cast<FloatType>(b);
  if (floatA && floatB) {
    // f16 with bf16: neither holds the other.
    if (floatA.getWidth() == floatB.getWidth())
      return Float32Type::get(a.getContext());
    return floatA.getWidth() > floatB.getWidth() ? a : b;
  }
  if (floatA)
    return a;
  if (floatB)
    return b;
  auto intA = cast<IntegerType>(a), intB = cast<IntegerType>(b);
  if (intA.isUnsigned() == intB.isUnsigned())
    return intA.getWidth() >= intB.getWidth() ? a : b;
  IntegerType unsignedType = intA.isUnsigned() ? intA : intB;
  IntegerType signedType = intA.isUnsigned() ? intB : intA;
  if (signedType.getWidth() > unsignedType.getWidth())
    return signedType;
  return IntegerType::get(a.getContext(),
                          std::min(2 * unsignedType.getWidth(), 64u),
                          IntegerType::Signed);
}

std::optional<int64_t> torch_to_nova::normalizeDim(int64_t dim, int64_t rank) {
  // torch accepts dim 0 and -1 for 0-d tensors.
  int64_t extent = std::max<int64_t>(rank, 1);
  if (dim < -extent || dim >= extent)
    return std::nullopt;
  return dim < 0 ? dim + extent : dim;
}

//===----------------------------------------------------------------------===//
// Converter: what handlers read and build
//===----------------------------------------------------------------------===//

/// The `value` of a torch.constant.* op. Unregistered ops keep their
/// `<{...}>` properties as a dictionary, which getAttr reads.
static Attribute constantValue(Value value, StringRef opName) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != opName)
    return {};
  return def->getAttr("value");
}

static bool isDefinedBy(Value value, StringRef opName) {
  Operation *def = value.getDefiningOp();
  return def && def->getName().getStringRef() == opName;
}

FailureOr<Value> Converter::tensor(Value torchValue) {
  if (Value value = converted.lookup(torchValue))
    return value;
  return reject("an operand is not a tensor the conversion produced");
}

Type Converter::originalType(Value torchValue) const {
  if (Type type = argumentTorchTypes.lookup(torchValue))
    return type;
  return torchValue.getType();
}

FailureOr<TorchTensorType> Converter::torchType(Value torchValue) {
  std::string error;
  if (auto type = parseTorchTensorType(originalType(torchValue), error))
    return *type;
  return reject("expected a tensor operand");
}

RankedTensorType Converter::resultType(Operation *op, unsigned index) {
  std::string error;
  // The driver checked every result type before calling the handler.
  return parseTorchTensorType(op->getResult(index).getType(), error)->builtin;
}

std::optional<TorchScalar> Converter::scalar(Value value) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(
          constantValue(value, "torch.constant.int")))
    return TorchScalar{TorchScalar::Kind::Int, attr.getInt()};
  if (auto attr = dyn_cast_or_null<FloatAttr>(
          constantValue(value, "torch.constant.float")))
    return TorchScalar{TorchScalar::Kind::Float, 0, attr.getValueAsDouble()};
  if (auto attr = dyn_cast_or_null<BoolAttr>(
          constantValue(value, "torch.constant.bool")))
    return TorchScalar{TorchScalar::Kind::Bool, attr.getValue()};
  if (Attribute attr = constantValue(value, "torch.constant.number")) {
    if (auto intAttr = dyn_cast<IntegerAttr>(attr))
      return TorchScalar{TorchScalar::Kind::Int, intAttr.getInt()};
    if (auto floatAttr = dyn_cast<FloatAttr>(attr))
      return TorchScalar{TorchScalar::Kind::Float, 0,
                         floatAttr.getValueAsDouble()};
  }
  // The decompositions write `int(True)` for the fill value of masks.
  if (isDefinedBy(value, "torch.aten.Int.bool"))
    if (std::optional<bool> flag =
            constantBool(value.getDefiningOp()->getOperand(0)))
      return TorchScalar{TorchScalar::Kind::Int, *flag};
  return std::nullopt;
}

std::optional<int64_t> Converter::constantInt(Value value) {
  std::optional<TorchScalar> number = scalar(value);
  if (!number || number->kind == TorchScalar::Kind::Float)
    return std::nullopt;
  return number->intValue;
}

std::optional<bool> Converter::constantBool(Value value) {
  if (auto attr = dyn_cast_or_null<BoolAttr>(
          constantValue(value, "torch.constant.bool")))
    return attr.getValue();
  return std::nullopt;
}

std::optional<double> Converter::constantFloat(Value value) {
  std::optional<TorchScalar> number = scalar(value);
  if (!number)
    return std::nullopt;
  return number->toDouble();
}

std::optional<StringRef> Converter::constantString(Value value) {
  if (auto attr = dyn_cast_or_null<StringAttr>(
          constantValue(value, "torch.constant.str")))
    return attr.getValue();
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> Converter::constantIntList(Value value) {
  if (!isDefinedBy(value, "torch.prim.ListConstruct"))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Value element : value.getDefiningOp()->getOperands()) {
    std::optional<int64_t> number = constantInt(element);
    if (!number)
      return std::nullopt;
    values.push_back(*number);
  }
  return values;
}

bool Converter::isNone(Value value) {
  return isDefinedBy(value, "torch.constant.none");
}

FailureOr<SmallVector<Value>> Converter::listElements(Value list) {
  if (!isDefinedBy(list, "torch.prim.ListConstruct"))
    return reject("expected a list built by torch.prim.ListConstruct");
  return SmallVector<Value>(list.getDefiningOp()->getOperands());
}

FailureOr<SmallVector<Value>> Converter::tensorList(Value list) {
  auto found = convertedLists.find(list);
  if (found != convertedLists.end())
    return found->second;
  FailureOr<SmallVector<Value>> elements = listElements(list);
  if (failed(elements))
    return failure();
  SmallVector<Value> tensors;
  for (Value element : *elements) {
    FailureOr<Value> value = tensor(element);
    if (failed(value))
      return failure();
    tensors.push_back(*value);
  }
  return tensors;
}

Value Converter::splat(RankedTensorType type, const TorchScalar &value) {
  Type elementType = type.getElementType();
  Attribute element;
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    element = FloatAttr::get(floatType, value.toDouble());
  } else {
    auto intType = cast<IntegerType>(elementType);
    int64_t number = value.intValue;
    // Truncation toward zero, as torch casts; inf and NaN have no integer
    // value (and converting them is undefined behaviour in C++).
    if (value.kind == TorchScalar::Kind::Float)
      number = std::isfinite(value.floatValue)
                   ? static_cast<int64_t>(value.floatValue)
                   : 0;
    if (intType.getWidth() == 1)
      element = IntegerAttr::get(intType, APInt(1, number != 0));
    else
      element = IntegerAttr::get(
          intType, APInt(intType.getWidth(), number, /*isSigned=*/true,
                         /*implicitTrunc=*/true));
  }
  return create<ConstantOp>(type, DenseElementsAttr::get(type, element));
}

Value Converter::constant(RankedTensorType type, ArrayRef<double> values) {
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> elements;
  for (double value : values) {
    APFloat element(value);
    bool lost = false;
    element.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    elements.push_back(element);
  }
  return create<ConstantOp>(DenseElementsAttr::get(type, elements))
      .getResult();
}

Value Converter::splat(RankedTensorType type, double value) {
  if (isa<FloatType>(type.getElementType()))
    return splat(type, TorchScalar{TorchScalar::Kind::Float, 0, value});
  return splat(type, TorchScalar{TorchScalar::Kind::Int,
                                 static_cast<int64_t>(value)});
}

Value Converter::castTo(Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  RankedTensorType target = type.clone(elementType);
  // torch's bool(x) is x != 0, where a bit conversion would truncate.
  if (elementType.isInteger(1))
    return create<CompareOp>(target, CompareDirection::NE, value,
                             splat(type, 0.0));
  return create<CastOp>(target, value);
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

FailureOr<Value> Converter::broadcastTo(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  int64_t offset = static_cast<int64_t>(shape.size()) - type.getRank();
  auto incompatible = [&] {
    return reject("cannot broadcast " + formatShape(type.getShape()) +
                  " to " + formatShape(shape));
  };
  if (offset < 0)
    return incompatible();
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t from = type.getDimSize(d), to = shape[offset + d];
    if (from != to && from != 1)
      return incompatible();
    dims.push_back(offset + d);
  }
  return create<BroadcastInDimOp>(
             RankedTensorType::get(shape, type.getElementType()), value, dims)
      .getResult();
}

FailureOr<Value> Converter::operandAs(Value torchOperand,
                                      RankedTensorType target) {
  if (std::optional<TorchScalar> number = scalar(torchOperand))
    return splat(target, *number);
  std::string error;
  if (!parseTorchTensorType(originalType(torchOperand), error))
    return reject("an operand is neither a tensor nor a constant");
  FailureOr<Value> value = tensor(torchOperand);
  if (failed(value))
    return failure();
  // Cast before broadcasting: the cast then touches fewer elements.
  return broadcastTo(castTo(*value, target.getElementType()),
                     target.getShape());
}

Value Converter::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return create<ReshapeOp>(RankedTensorType::get(shape, type.getElementType()),
                           value);
}

LogicalResult Converter::replace(Operation *op, ValueRange newResults) {
  if (newResults.size() != op->getNumResults())
    return reject("internal error: " + Twine(newResults.size()) +
                  " values for " + Twine(op->getNumResults()) + " results");
  for (auto [index, value] : llvm::enumerate(newResults)) {
    if (!value)
      continue; // an unused result, possibly a None (convolution_backward)
    RankedTensorType expected = resultType(op, index);
    if (value.getType() != expected) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "internal error: result #" << index << " converted to "
         << value.getType() << ", expected " << expected;
      return reject(text);
    }
  }
  for (auto [result, value] : llvm::zip(op->getResults(), newResults))
    if (value)
      converted[result] = value;
  return success();
}

LogicalResult Converter::replaceList(Value list, ValueRange elements) {
  convertedLists[list] = SmallVector<Value>(elements);
  return success();
}

LogicalResult Converter::reject(const Twine &reason) {
  rejectReason = reason.str();
  return failure();
}

//===----------------------------------------------------------------------===//
// Converting one function
//===----------------------------------------------------------------------===//

namespace {

/// Constants and lists: read by the handlers of the ops using them, erased
/// when nothing kept uses them.
bool isConstantLike(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name.starts_with("torch.constant.") ||
         name == "torch.prim.ListConstruct" || name == "torch.aten.Int.bool";
}

/// The op's name for handler lookup and diagnostics: custom ops imported as
/// `torch.operator` are known by their `name` property.
StringRef torchOpName(Operation *op) {
  if (op->getName().getStringRef() == "torch.operator")
    if (auto name = dyn_cast_or_null<StringAttr>(op->getAttr("name")))
      return name.getValue();
  return op->getName().getStringRef();
}

Operation *createUnregistered(OpBuilder &builder, Location loc, StringRef name,
                              Value operand, Type resultType) {
  OperationState state(loc, name);
  state.addOperands(operand);
  state.addTypes(resultType);
  return builder.create(state);
}

class FunctionConverter : public Converter {
public:
  FunctionConverter(func::FuncOp func, const HandlerTable &handlers,
                    bool allowFallback)
      : Converter(func.getContext()), func(func), handlers(handlers),
        allowFallback(allowFallback) {}

  LogicalResult run();

private:
  LogicalResult convertSignature();
  /// Converts `op`, or keeps it for IREE under allow-fallback; failure (with
  /// a diagnostic) when neither.
  LogicalResult convertOp(Operation *op);
  LogicalResult checkTypes(Operation *op);
  bool hasUnsignedTensor(Operation *op) const;
  /// Whether `op` reads a value whose producer failed to convert.
  bool readsPoisoned(Operation *op) const;
  /// Leaves `op` to IREE's torch lowering: its results reach converted code
  /// through torch_c.to_builtin_tensor; its operands are reconnected once
  /// every op is converted (finish).
  void keepForIree(Operation *op);
  /// Erases converted ops and unused constants, reconnects kept ops through
  /// torch_c.from_builtin_tensor, and sets the function type.
  void finish();

  func::FuncOp func;
  const HandlerTable &handlers;
  bool allowFallback;
  llvm::DenseSet<Operation *> convertedOps;
  SmallVector<Operation *> toBuiltinCasts;
};

LogicalResult FunctionConverter::convertSignature() {
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    std::string error;
    std::optional<TorchTensorType> type =
        parseTorchTensorType(arg.getType(), error);
    if (!type) {
      if (!isTorchType(arg.getType()))
        continue;
      return mlir::emitError(arg.getLoc())
             << "cannot convert argument #" << arg.getArgNumber()
             << " of type " << arg.getType() << ": "
             << (error.empty() ? "only tensors are supported" : error);
    }
    argumentTorchTypes[arg] = arg.getType();
    arg.setType(type->builtin);
    converted[arg] = arg;
  }
  for (auto [index, type] :
       llvm::enumerate(func.getFunctionType().getResults())) {
    std::string error;
    if (isTorchType(type) && !parseTorchTensorType(type, error))
      return func.emitError()
             << "cannot convert result #" << index << " of type " << type
             << ": " << (error.empty() ? "only tensors are supported" : error);
  }
  return success();
}

LogicalResult FunctionConverter::checkTypes(Operation *op) {
  auto check = [&](Type type) -> LogicalResult {
    std::string error;
    if (!parseTorchTensorType(type, error) && !error.empty())
      return op->emitError() << "cannot convert type " << type << ": "
                             << error;
    return success();
  };
  for (Type type : op->getOperandTypes())
    if (failed(check(type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(check(type)))
      return failure();
  return success();
}

bool FunctionConverter::readsPoisoned(Operation *op) const {
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    if (poisoned.contains(operand))
      return true;
    // A list's elements, or the bool a torch.aten.Int.bool reads.
    Operation *def = operand.getDefiningOp();
    return def && isConstantLike(def) &&
           llvm::any_of(def->getOperands(), [&](Value element) {
             return poisoned.contains(element);
           });
  });
}

bool FunctionConverter::hasUnsignedTensor(Operation *op) const {
  auto isUnsigned = [](Type type) {
    std::string error;
    std::optional<TorchTensorType> parsed = parseTorchTensorType(type, error);
    return parsed && parsed->dtype.isUnsignedInteger();
  };
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return isUnsigned(originalType(v)); }) ||
         llvm::any_of(op->getResultTypes(), isUnsigned);
}

LogicalResult FunctionConverter::convertOp(Operation *op) {
  if (!isTorchOp(op)) {
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return isTorchType(originalType(v)); }) ||
        llvm::any_of(op->getResultTypes(), isTorchType))
      return op->emitError() << "cannot convert '" << op->getName()
                             << "': only torch ops may use torch types";
    return success();
  }
  if (isConstantLike(op))
    return success();
  if (failed(checkTypes(op)))
    return failure();

  // The producer's failure is already reported.
  if (readsPoisoned(op)) {
    poisoned.insert(op->result_begin(), op->result_end());
    return success();
  }

  builder.setInsertionPoint(op);
  location = op->getLoc();
  rejectReason.clear();
  Operation *lastBefore = op->getPrevNode();

  LogicalResult result = failure();
  StringRef name = torchOpName(op);
  if (hasUnsignedTensor(op))
    result = reject("unsigned integer dtypes are not supported");
  else if (Handler handler = handlers.lookup(name))
    result = handler(*this, op);
  else
    result = reject();
  if (succeeded(result)) {
    convertedOps.insert(op);
    return success();
  }

  // Drop what the handler built before giving up.
  while (op->getPrevNode() != lastBefore)
    op->getPrevNode()->erase();
  if (allowFallback) {
    keepForIree(op);
    return success();
  }
  poisoned.insert(op->result_begin(), op->result_end());
  InFlightDiagnostic diag = op->emitError()
                            << "unsupported torch op '" << name << "'";
  if (!rejectReason.empty())
    diag << ": " << rejectReason;
  return failure();
}

void FunctionConverter::keepForIree(Operation *op) {
  builder.setInsertionPointAfter(op);
  for (Value result : op->getResults()) {
    std::string error;
    if (std::optional<TorchTensorType> type =
            parseTorchTensorType(result.getType(), error)) {
      Operation *cast =
          createUnregistered(builder, op->getLoc(),
                             "torch_c.to_builtin_tensor", result,
                             type->builtin);
      toBuiltinCasts.push_back(cast);
      converted[result] = cast->getResult(0);
    }
  }
}

void FunctionConverter::finish() {
  Block &body = func.getBody().front();
  auto returnOp = cast<func::ReturnOp>(body.getTerminator());
  for (OpOperand &operand : returnOp->getOpOperands())
    if (Value value = converted.lookup(operand.get()))
      operand.set(value);

  // Constants and lists die with their last user (users follow their
  // operands, so one backward sweep sees every user first).
  llvm::DenseSet<Operation *> dead = convertedOps;
  for (Operation &op : llvm::reverse(body)) {
    if (!isConstantLike(&op))
      continue;
    if (llvm::all_of(op.getUsers(), [&](Operation *user) {
          return dead.contains(body.findAncestorOpInBlock(*user));
        }))
      dead.insert(&op);
  }

  // Kept torch ops still read the torch values of converted ops (or the
  // retyped arguments): give them the converted value cast back to torch.
  auto reconnect = [&](Value old, Value builtin, Type torchType) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : old.getUses()) {
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      if (isTorchOp(user) && !dead.contains(user))
        uses.push_back(&use);
    }
    if (uses.empty())
      return;
    builder.setInsertionPointAfterValue(builtin);
    Value cast = createUnregistered(builder, builtin.getLoc(),
                                    "torch_c.from_builtin_tensor", builtin,
                                    torchType)
                     ->getResult(0);
    for (OpOperand *use : uses)
      use->set(cast);
  };
  for (BlockArgument arg : body.getArguments())
    if (Type torchType = argumentTorchTypes.lookup(arg))
      reconnect(arg, arg, torchType);
  for (Operation &op : body)
    if (convertedOps.contains(&op))
      for (Value result : op.getResults())
        if (Value builtin = converted.lookup(result))
          reconnect(result, builtin, result.getType());

  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (dead.contains(&op))
      op.erase();
  // Casts of kept results that only kept ops read.
  for (Operation *cast : toBuiltinCasts)
    if (cast->use_empty())
      cast->erase();

  func.setFunctionType(FunctionType::get(func.getContext(),
                                         body.getArgumentTypes(),
                                         returnOp.getOperandTypes()));
}

LogicalResult FunctionConverter::run() {
  if (func.isExternal())
    return success();
  if (!llvm::hasSingleElement(func.getBody()))
    return func.emitError()
           << "expected a single-block function (a captured graph has no "
              "control flow)";
  if (failed(convertSignature()))
    return failure();
  Block &body = func.getBody().front();
  bool hadError = false;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    hadError |= failed(convertOp(&op));
  if (hadError)
    return failure();
  finish();
  return success();
}

struct ConvertTorchToNovaPass
    : mlir::nova::impl::ConvertTorchToNovaBase<ConvertTorchToNovaPass> {
  using ConvertTorchToNovaBase::ConvertTorchToNovaBase;

  void runOnOperation() override {
    HandlerTable handlers;
    addElementwiseHandlers(handlers);
    addStructuredHandlers(handlers);
    addConvolutionHandlers(handlers);
    addResamplingHandlers(handlers);
    bool hadError = false;
    for (auto func : getOperation().getOps<func::FuncOp>())
      hadError |=
          failed(FunctionConverter(func, handlers, allowFallback).run());
    if (hadError)
      signalPassFailure();
  }
};

} // namespace
