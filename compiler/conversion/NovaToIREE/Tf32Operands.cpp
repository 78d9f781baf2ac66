//===- Tf32Operands.cpp - f32 operands made ready for TF32 wgmma ----------===//

#include "compiler/conversion/NovaToIREE/Tf32Operands.h"
#include "compiler/codegen/cuda/TransposeKernel.h"
#include "compiler/conversion/NovaToIREE/KernelDispatch.h"
#include "compiler/conversion/NovaToLinalg/Utils.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::nova_to_iree;
using namespace mlir::nova::nova_to_linalg;

Value nova_to_iree::roundToTf32(OpBuilder &b, Location loc, Value x) {
  return elementwise(
      b, loc, tensorType(x), x, [](OpBuilder &nb, Location l, ValueRange v) {
        return RoundTf32Op::buildScalar(nb, l, v[0]);
      });
}

bool nova_to_iree::isRoundedToTf32(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<RoundTf32Op>(def))
      return true;
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      v = reshape.getInput();
    } else if (auto fused = dyn_cast<FusedOp>(def)) {
      v = fused.getBody().front().getTerminator()->getOperand(
          cast<OpResult>(v).getResultNumber());
    } else {
      return false;
    }
  }
  return false;
}

FailureOr<Value> nova_to_iree::transposeOnDevice(
    OpBuilder &b, Location loc, ModuleOp module, Operation *op,
    const TransposeSource &src, int64_t dstRowStride, bool round) {
  std::string name = cuda::transposeKernelName(round);
  KernelExport kernel;
  kernel.name = name;
  kernel.readOnlyBindings = {true, false};
  // R, C, tiles along C, tiles per matrix, H, offset, sR, sH, dst row stride
  kernel.constants = 9;
  kernel.workgroupSize = {cuda::kTransposeBlock, 1, 1};
  if (failed(declareKernelOnce(module, op, "transpose kernel", kernel,
                               [&](std::string &error) {
                                 return cuda::transposePtx(round, error);
                               })))
    return failure();
  int64_t tile = cuda::kTransposeTile;
  int64_t tilesC = (src.cols + tile - 1) / tile;
  int64_t tiles = (src.rows + tile - 1) / tile * tilesC;
  KernelDispatchBuilder dispatch(b, loc, /*poison=*/false);
  dispatch.input(src.base);
  dispatch.result(RankedTensorType::get({src.batch, src.cols, dstRowStride},
                                        b.getF32Type()));
  for (int64_t v : {src.rows, src.cols, tilesC, tiles, src.heads, src.offset,
                    src.rowStride, src.headStride, dstRowStride})
    dispatch.constant(v);
  return dispatch.create(
      name, name, arith::ConstantIndexOp::create(b, loc, src.batch * tiles))[0];
}
