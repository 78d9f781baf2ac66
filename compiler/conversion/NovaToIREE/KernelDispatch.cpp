//===- KernelDispatch.cpp - Nova kernels as IREE dispatches ---------------===//

#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/IREENamespaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ThreadPool.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;

namespace {

/// Every binding is Indirect: a dispatch may then bind its buffers through
/// the command buffer's binding table, so a step's command buffer captures
/// no per-call buffer (its transients, the globals) and IREE records it once
/// (memoized at module init) instead of on every call. Without the flag IREE
/// binds such buffers directly and re-records all of a step's dispatches on
/// each call.
std::string pipelineLayout(const KernelExport &kernel) {
  std::string layout =
      "pipeline.layout<constants = " + std::to_string(kernel.constants) +
      ", bindings = [";
  for (auto [i, readOnly] : llvm::enumerate(kernel.readOnlyBindings))
    layout += std::string(i ? ", " : "") +
              "#hal.pipeline.binding<storage_buffer, " +
              (readOnly ? "\"ReadOnly|Indirect\">" : "Indirect>");
  return layout + "], flags = Indirect>";
}

} // namespace

LogicalResult nova_to_iree::requireUnregisteredDialects(Operation *op) {
  if (op->getContext()->allowsUnregisteredDialects())
    return success();
  return op->emitOpError() << "convert-nova-to-iree-kernels emits IREE's "
                              "hal/flow ops unregistered: allow unregistered "
                              "dialects";
}

void nova_to_iree::buildInParallel(
    ArrayRef<std::function<std::string(std::string &error)>> builds) {
  if (builds.size() < 2)
    return; // the lowering builds it
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency());
  for (const auto &build : builds)
    pool.async([&build] {
      std::string error;
      (void)build(error);
    });
  pool.wait();
}

bool nova_to_iree::hasExecutable(ModuleOp module, StringRef name) {
  return llvm::any_of(module.getOps(), [&](Operation &op) {
    auto symbol = op.getAttrOfType<StringAttr>("sym_name");
    return op.getName().getStringRef() == "hal.executable.source" && symbol &&
           symbol.getValue() == name;
  });
}

void nova_to_iree::createExecutable(ModuleOp module, StringRef name,
                                    StringRef ptx,
                                    ArrayRef<KernelExport> exports) {
  MLIRContext *context = module.getContext();
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Location loc = module.getLoc();
  std::string objects =
      ("executable.objects<{#hal.executable.target<\"cuda\", "
       "\"cuda-nvptx-fb\"> = [#hal.executable.object<{data = dense<\"0x" +
       llvm::toHex(ptx) + "\"> : vector<" + Twine(ptx.size()) +
       "xi8>}>]}>")
          .str();
  OperationState source(loc, "hal.executable.source");
  source.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr("objects", ireeAttr(context, "hal", objects)),
       b.getNamedAttr("sym_name", b.getStringAttr(name)),
       b.getNamedAttr("sym_visibility", b.getStringAttr("private"))});
  source.addRegion();
  Operation *sourceOp = b.create(source);

  b.setInsertionPointToStart(&sourceOp->getRegion(0).emplaceBlock());
  Type device = ireeType(context, "hal", "device");
  for (auto [ordinal, kernel] : llvm::enumerate(exports)) {
    OperationState exportState(loc, "hal.executable.export");
    SmallVector<Attribute> workgroupSize;
    for (int64_t size : kernel.workgroupSize)
      workgroupSize.push_back(b.getIndexAttr(size));
    SmallVector<NamedAttribute> properties = {
        b.getNamedAttr("layout",
                       ireeAttr(context, "hal", pipelineLayout(kernel))),
        b.getNamedAttr("ordinal", b.getIndexAttr(ordinal)),
        b.getNamedAttr("sym_name", b.getStringAttr(kernel.name)),
        b.getNamedAttr("sym_visibility", b.getStringAttr("public")),
        b.getNamedAttr("workgroup_size", b.getArrayAttr(workgroupSize))};
    // IREE's CUDA HAL raises the kernel's dynamic shared memory limit to it.
    if (kernel.sharedMemoryBytes)
      properties.push_back(
          b.getNamedAttr("workgroup_local_memory",
                         b.getIndexAttr(kernel.sharedMemoryBytes)));
    exportState.propertiesAttr = b.getDictionaryAttr(properties);
    exportState.addRegion(); // count(%device, %workload)
    exportState.addRegion(); // condition: none
    Operation *exportOp = b.create(exportState);

    OpBuilder::InsertionGuard guard(b);
    Block *count = b.createBlock(&exportOp->getRegion(0), {},
                                 {device, b.getIndexType()}, {loc, loc});
    OperationState ret(loc, "hal.return");
    Value workload = count->getArgument(1);
    if (kernel.grid) {
      ret.addOperands(kernel.grid(b, loc, workload));
    } else {
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      ret.addOperands({workload, one, one});
    }
    b.create(ret);
  }
  b.create(OperationState(loc, "hal.executable.source_end"));
}

LogicalResult nova_to_iree::declareKernelOnce(
    ModuleOp module, Operation *op, StringRef what, const KernelExport &kernel,
    function_ref<std::string(std::string &error)> buildPtx) {
  if (hasExecutable(module, kernel.name))
    return success();
  std::string error;
  std::string ptx = buildPtx(error);
  if (ptx.empty())
    return op->emitOpError() << "could not build Nova's " << what << " "
                             << kernel.name << ":\n"
                             << error;
  createExecutable(module, kernel.name, ptx, {kernel});
  return success();
}

ResultRange nova_to_iree::createDispatch(OpBuilder &b, Location loc,
                                         StringRef executable,
                                         StringRef kernel, Value workload,
                                         ValueRange arguments,
                                         TypeRange resultTypes,
                                         ArrayRef<int64_t> tiedTo) {
  OperationState dispatch(loc, "flow.dispatch");
  dispatch.addOperands(workload);
  dispatch.addOperands(arguments);
  dispatch.addTypes(resultTypes);
  SmallVector<Attribute> tied;
  for (int64_t operand : tiedTo)
    tied.push_back(b.getIndexAttr(operand));
  dispatch.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr("entry_points",
                      b.getArrayAttr({SymbolRefAttr::get(
                          b.getStringAttr(executable),
                          {FlatSymbolRefAttr::get(b.getContext(), kernel)})})),
       // [workload], [arguments], [argument dims], [result dims]
       b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr(
                          {1, static_cast<int32_t>(arguments.size()), 0, 0})),
       b.getNamedAttr("tied_operands", b.getArrayAttr(tied))});
  return b.create(dispatch)->getResults();
}

void KernelDispatchBuilder::append(RankedTensorType type, Value tied) {
  assert(!(tied && llvm::any_of(tiedInits, [](Value v) { return !v; })) &&
         "tied results bind before untied ones");
  types.push_back(type);
  tiedInits.push_back(tied);
}

void KernelDispatchBuilder::result(RankedTensorType type, Value init) {
  if (!init && poison) {
    // A quiet NaN with a payload of its own.
    Type element = type.getElementType();
    auto floatType = cast<FloatType>(element);
    APInt bits = APFloat::getQNaN(floatType.getFloatSemantics())
                     .bitcastToAPInt();
    bits |= APInt(bits.getBitWidth(), ++payload);
    Value nan = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(element, APFloat(floatType.getFloatSemantics(), bits)));
    init = linalg::FillOp::create(
               b, loc, ValueRange{nan},
               ValueRange{tensor::EmptyOp::create(b, loc, type.getShape(),
                                                  element)})
               .getResult(0);
  }
  append(type, init);
}

void KernelDispatchBuilder::scratch(RankedTensorType type) {
  append(type, Value());
}

void KernelDispatchBuilder::constant(int64_t value) {
  Value &c = i32s[value];
  if (!c)
    c = arith::ConstantIntOp::create(b, loc, value, 32);
  constants.push_back(c);
}

ResultRange KernelDispatchBuilder::create(StringRef executable,
                                          StringRef kernel, Value workload) {
  SmallVector<Value> arguments(inputs);
  SmallVector<int64_t> tiedTo;
  for (Value init : tiedInits) {
    tiedTo.push_back(init ? int64_t(arguments.size()) : -1);
    if (init)
      arguments.push_back(init);
  }
  arguments.append(constants);
  return createDispatch(b, loc, executable, kernel, workload, arguments, types,
                        tiedTo);
}
