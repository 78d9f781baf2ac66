//===- TorchToNova.h - shared by the torch -> nova conversion ---*- C++ -*-===//
//
// The conversion reads torch-mlir's output without the torch dialect: ops are
// unregistered, types are opaque (`!torch.vtensor<[2,3],f32>`), constants are
// `torch.constant.*` ops. A Converter walks one function in program order and
// maps every torch tensor value to a builtin tensor; one handler per aten op
// builds the nova ops. Handlers live in
// Elementwise.cpp, Structured.cpp, Convolution.cpp and Resampling.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CONVERSION_TORCHTONOVA_TORCHTONOVA_H
#define NOVA_CONVERSION_TORCHTONOVA_TORCHTONOVA_H

#include "compiler/dialect/NovaOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace mlir::nova::torch_to_nova {

/// A `!torch.vtensor<[dims],dtype>` read from its opaque spelling.
struct TorchTensorType {
  /// The builtin equivalent: same shape, signless element type.
  RankedTensorType builtin;
  /// The element type as torch spells it (si64, ui8, i1, f32, ...); type
  /// promotion depends on integer signedness.
  Type dtype;
};

/// Reads `type` if it is a torch tensor type. Returns std::nullopt for any
/// other type, and also for a torch tensor type Nova cannot represent, in
/// which case `error` says why (dynamic or unknown shape, unsupported dtype).
std::optional<TorchTensorType> parseTorchTensorType(Type type,
                                                    std::string &error);

/// A compile-time Python number: a `torch.constant.{int,float,bool}`.
struct TorchScalar {
  enum class Kind { Bool, Int, Float };
  Kind kind;
  int64_t intValue = 0;
  double floatValue = 0;

  double toDouble() const {
    return kind == Kind::Float ? floatValue : static_cast<double>(intValue);
  }
  /// The dtype torch gives the number when it meets tensors: i1, si64, or
  /// the default dtype f32.
  Type dtype(MLIRContext *context) const;
};

/// torch's result dtype (c10::promoteTypes) of two dtypes as torch spells
/// them.
Type promoteTypes(Type a, Type b);

/// The ranked tensor type of a (converted, builtin) tensor value.
inline RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// `dim` counted from the back when negative; std::nullopt when out of range.
std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank);

class Converter;
/// Builds the nova ops for one torch op and records its results with
/// Converter::replace, or returns Converter::reject.
using Handler = LogicalResult (*)(Converter &, Operation *);
using HandlerTable = llvm::StringMap<Handler>;

void addElementwiseHandlers(HandlerTable &table);
void addStructuredHandlers(HandlerTable &table);
void addConvolutionHandlers(HandlerTable &table);
void addResamplingHandlers(HandlerTable &table);

/// The state of converting one function, as the handlers see it: the builtin
/// tensors of the torch values converted so far, constants, and a builder
/// that inserts before the op being converted, at its location.
class Converter {
public:
  explicit Converter(MLIRContext *context) : builder(context) {}

  //===--- Reading the torch op -------------------------------------------===//

  /// The builtin tensor a torch tensor value was converted to.
  FailureOr<Value> tensor(Value torchValue);
  /// The parsed torch type of a tensor value.
  FailureOr<TorchTensorType> torchType(Value torchValue);
  /// The torch type of a value, also for the function's arguments, which
  /// are retyped to builtin tensors up front.
  Type originalType(Value torchValue) const;
  /// The builtin type of the op's tensor result `index`.
  RankedTensorType resultType(Operation *op, unsigned index = 0);

  std::optional<TorchScalar> scalar(Value value);
  std::optional<int64_t> constantInt(Value value);
  std::optional<bool> constantBool(Value value);
  std::optional<double> constantFloat(Value value);
  std::optional<StringRef> constantString(Value value);
  std::optional<SmallVector<int64_t>> constantIntList(Value value);
  bool isNone(Value value);
  /// The operands of a `torch.prim.ListConstruct` (null for a `None` entry
  /// of a list of optional tensors); failure for any other list.
  FailureOr<SmallVector<Value>> listElements(Value list);
  /// The tensors of a list made by `torch.prim.ListConstruct` or by a
  /// converted op returning a list (split_with_sizes).
  FailureOr<SmallVector<Value>> tensorList(Value list);

  //===--- Building nova --------------------------------------------------===//

  OpBuilder &b() { return builder; }
  template <typename OpT, typename... Args> OpT create(Args &&...args) {
    return OpT::create(builder, location, std::forward<Args>(args)...);
  }

  /// A splat constant of `type`.
  Value splat(RankedTensorType type, const TorchScalar &value);
  Value splat(RankedTensorType type, double value);
  /// A constant of float `type` holding `values` (row-major), each rounded
  /// to the element type.
  Value constant(RankedTensorType type, ArrayRef<double> values);
  /// `value` converted elementwise to `elementType` (torch's casting: to i1
  /// means `!= 0`).
  Value castTo(Value value, Type elementType);
  /// `value` broadcast to `shape` by torch's rules (trailing dims align,
  /// size-1 dims expand); failure when incompatible.
  FailureOr<Value> broadcastTo(Value value, ArrayRef<int64_t> shape);
  /// A tensor operand or a constant scalar operand of a torch op as a tensor
  /// of `target`'s element type and shape.
  FailureOr<Value> operandAs(Value torchOperand, RankedTensorType target);
  /// `value` reshaped to `shape` (no op when it already has it).
  Value reshape(Value value, ArrayRef<int64_t> shape);

  //===--- Results --------------------------------------------------------===//

  /// Records the builtin tensors standing for `op`'s results; a null value
  /// marks a result that has no uses.
  LogicalResult replace(Operation *op, ValueRange newResults);
  /// Records the tensors of a converted op's list result.
  LogicalResult replaceList(Value list, ValueRange elements);
  /// Gives up on the current op; `reason` (may be empty) completes the
  /// "unsupported torch op" diagnostic, or the op is kept for IREE under
  /// allow-fallback.
  LogicalResult reject(const Twine &reason = "");

protected:
  OpBuilder builder;
  Location location = builder.getUnknownLoc();
  DenseMap<Value, Value> converted;
  DenseMap<Value, SmallVector<Value>> convertedLists;
  DenseMap<Value, Type> argumentTorchTypes;
  /// Values whose producer failed to convert; their users fail silently so
  /// that only the root cause is reported.
  llvm::DenseSet<Value> poisoned;
  std::string rejectReason;
};

} // namespace mlir::nova::torch_to_nova

#endif // NOVA_CONVERSION_TORCHTONOVA_TORCHTONOVA_H
