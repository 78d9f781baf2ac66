//===- ScatterAddCuda.cpp - CUDA scatter_add through Nova's kernel --------===//

#include "compiler/codegen/cuda/ScatterAddKernel.h"
#include "compiler/conversion/NovaToLinalg/PopulatePatterns.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"

#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_linalg;

namespace {

//===----------------------------------------------------------------------===//
// CUDA: scatter_add through Nova's own kernel
//===----------------------------------------------------------------------===//

/// IREE 3.13 runs `iree_linalg_ext.scatter` with non-unique indices on ONE
/// GPU thread (~330 ms of a 470 ms gpt-42m step on the H200). For CUDA, an
/// f32 scatter_add becomes a `flow.dispatch` of the kernel below instead: one
/// thread per update element, `red.global.add.f32` into its row. The kernel
/// travels inline in a `hal.executable.source` (no file path: the vmfb stays
/// self-contained). IREE's hal/flow ops and attributes are not part of MLIR:
/// they are emitted as unregistered ops with opaque attributes and types,
/// which needs unregistered dialects allowed (Python's pipeline does).
///
/// The kernel and its ABI: compiler/codegen/cuda/ScatterAddKernel.h, built
/// through MLIR's gpu/llvm dialects and serialized to PTX once per process.
/// A `flow.dispatch` binds its tensor operands in order (the tied result
/// shares its operand's binding), its i32 operands become the constants in
/// order.
using cuda::kScatterBlockSize;
using cuda::kScatterExecutable;
using cuda::kScatterKernel;

/// An attribute of IREE's hal dialect, as opaque text (`#hal.<body>`).
Attribute halAttr(MLIRContext *context, StringRef body) {
  return OpaqueAttr::get(StringAttr::get(context, "hal"), body,
                         NoneType::get(context));
}

/// `hal.executable.source private @nova_scatter_add` holding the PTX for any
/// CUDA target, with one export whose grid is ceil(workload / 256) blocks.
LogicalResult createScatterExecutable(OpBuilder &b, Location loc) {
  MLIRContext *context = b.getContext();
  std::string error;
  StringRef ptx = cuda::scatterAddPtx(error);
  if (ptx.empty())
    return emitError(loc) << "could not build Nova's scatter-add kernel:\n"
                          << error;
  std::string objects =
      ("executable.objects<{#hal.executable.target<\"cuda\", "
       "\"cuda-nvptx-fb\"> = [#hal.executable.object<{data = dense<\"0x" +
       llvm::toHex(ptx) + "\"> : vector<" + Twine(ptx.size()) +
       "xi8>}>]}>")
          .str();
  OperationState source(loc, "hal.executable.source");
  source.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr("objects", halAttr(context, objects)),
       b.getNamedAttr("sym_name", b.getStringAttr(kScatterExecutable)),
       b.getNamedAttr("sym_visibility", b.getStringAttr("private"))});
  source.addRegion();
  Operation *sourceOp = b.create(source);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sourceOp->getRegion(0).emplaceBlock());
  OperationState exportState(loc, "hal.executable.export");
  Attribute index1 = b.getIndexAttr(1);
  exportState.propertiesAttr = b.getDictionaryAttr(
      {b.getNamedAttr(
           "layout",
           halAttr(context,
                   "pipeline.layout<constants = 3, bindings = ["
                   "#hal.pipeline.binding<storage_buffer>, "
                   "#hal.pipeline.binding<storage_buffer, ReadOnly>, "
                   "#hal.pipeline.binding<storage_buffer, ReadOnly>]>")),
       b.getNamedAttr("ordinal", b.getIndexAttr(0)),
       b.getNamedAttr("sym_name", b.getStringAttr(kScatterKernel)),
       b.getNamedAttr("sym_visibility", b.getStringAttr("public")),
       b.getNamedAttr("workgroup_size",
                      b.getArrayAttr({b.getIndexAttr(kScatterBlockSize),
                                      index1, index1}))});
  exportState.addRegion(); // count(%device, %workload)
  exportState.addRegion(); // condition: none
  Operation *exportOp = b.create(exportState);
  b.create(OperationState(loc, "hal.executable.source_end"));

  Type device = OpaqueType::get(StringAttr::get(context, "hal"), "device");
  Block *count = b.createBlock(&exportOp->getRegion(0), {},
                               {device, b.getIndexType()}, {loc, loc});
  Value blocks = arith::CeilDivUIOp::create(
      b, loc, count->getArgument(1),
      arith::ConstantIndexOp::create(b, loc, kScatterBlockSize));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  OperationState ret(loc, "hal.return");
  ret.addOperands({blocks, one, one});
  b.create(ret);
  return success();
}

/// Whether `op` goes to the CUDA kernel: f32 rows, a non-empty scatter and
/// sizes the kernel's 32-bit counters hold.
bool usesCudaScatterKernel(ScatterAddOp op) {
  RankedTensorType destType = tensorType(op.getDest());
  RankedTensorType updatesType = tensorType(op.getUpdates());
  if (!destType.getElementType().isF32() ||
      !updatesType.getElementType().isF32() || destType.getRank() < 1)
    return false;
  int64_t rows = destType.getDimSize(0);
  int64_t total = updatesType.getNumElements();
  constexpr int64_t limit = std::numeric_limits<int32_t>::max();
  return rows > 0 && total > 0 && rows <= limit &&
         total <= limit - kScatterBlockSize;
}

/// scatter_add as a `flow.dispatch` of the kernel into a fresh zero [V, D]
/// tensor (the dispatch's result is tied to it, accumulated in place; never
/// `dest` itself, which may be a caller's buffer, iree-org/iree#16168), then
/// `dest` added as on the CPU path.
void lowerScatterAddToCudaKernel(IRRewriter &rewriter, ScatterAddOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  RankedTensorType destType = tensorType(op.getDest());
  RankedTensorType indicesType = tensorType(op.getIndices());
  RankedTensorType updatesType = tensorType(op.getUpdates());
  Type f32 = rewriter.getF32Type();
  int64_t rows = destType.getDimSize(0);
  int64_t rowSize = destType.getNumElements() / rows;
  int64_t count = indicesType.getNumElements();
  int64_t total = updatesType.getNumElements();

  auto flatIndicesType = RankedTensorType::get({count}, rewriter.getI64Type());
  Value indices = reshapeTensor(
      rewriter, loc, op.getIndices(),
      RankedTensorType::get({count}, indicesType.getElementType()));
  if (!indicesType.getElementType().isInteger(64))
    indices = elementwise(rewriter, loc, flatIndicesType, indices,
                          [&](OpBuilder &b, Location l, ValueRange args) {
                            return castScalar(b, l, args[0],
                                              b.getI64Type());
                          });
  Value updates =
      reshapeTensor(rewriter, loc, op.getUpdates(),
                    RankedTensorType::get({count, rowSize}, f32));
  auto tableType = RankedTensorType::get({rows, rowSize}, f32);
  Value zero = filledTensor(rewriter, loc, tableType,
                            scalarConstant(rewriter, loc, f32, 0));
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, v, 32);
  };

  OperationState dispatch(loc, "flow.dispatch");
  dispatch.addOperands({arith::ConstantIndexOp::create(rewriter, loc, total),
                        i32(total), i32(rowSize), i32(rows), zero, indices,
                        updates});
  dispatch.addTypes(tableType);
  dispatch.propertiesAttr = rewriter.getDictionaryAttr(
      {rewriter.getNamedAttr(
           "entry_points",
           rewriter.getArrayAttr({SymbolRefAttr::get(
               rewriter.getStringAttr(kScatterExecutable),
               {FlatSymbolRefAttr::get(rewriter.getContext(),
                                       kScatterKernel)})})),
       // [workload], [arguments], [argument dims], [result dims]
       rewriter.getNamedAttr("operandSegmentSizes",
                             rewriter.getDenseI32ArrayAttr({1, 6, 0, 0})),
       // The result is argument 3 (`zero`), updated in place.
       rewriter.getNamedAttr("tied_operands",
                             rewriter.getArrayAttr({rewriter.getIndexAttr(3)}))});
  Value sums = rewriter.create(dispatch)->getResult(0);
  sums = reshapeTensor(rewriter, loc, sums, destType);
  rewriter.replaceOp(op, addScatterDest(rewriter, loc, op.getDest(), sums));
}

/// Lowers the scatter_adds that qualify to the CUDA kernel, adding the
/// executable to the module once.
} // namespace

LogicalResult nova_to_linalg::lowerScatterAddsForCuda(ModuleOp module) {
  SmallVector<ScatterAddOp> ops;
  module.walk([&](ScatterAddOp op) {
    if (usesCudaScatterKernel(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  MLIRContext *context = module.getContext();
  if (!context->allowsUnregisteredDialects())
    return ops.front().emitOpError()
           << "convert-nova-to-linalg{target=cuda} emits IREE's hal/flow ops "
              "unregistered: allow unregistered dialects";
  IRRewriter rewriter(context);
  bool haveExecutable = llvm::any_of(module.getOps(), [](Operation &op) {
    auto name = op.getAttrOfType<StringAttr>("sym_name");
    return op.getName().getStringRef() == "hal.executable.source" && name &&
           name.getValue() == kScatterExecutable;
  });
  if (!haveExecutable) {
    rewriter.setInsertionPointToStart(module.getBody());
    if (failed(createScatterExecutable(rewriter, module.getLoc())))
      return failure();
  }
  for (ScatterAddOp op : ops)
    lowerScatterAddToCudaKernel(rewriter, op);
  return success();
}

/// Replaces each nova.fused with its body: IREE forms its own dispatches, so
/// the grouping carries nothing linalg can use.
