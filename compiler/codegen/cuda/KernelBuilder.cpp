//===- KernelBuilder.cpp - IR helpers shared by Nova's sm_90 kernels ------===//

#include "compiler/codegen/cuda/KernelBuilder.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::nova::cuda;

void KernelBuilder::replaceField(Value map, StringRef field,
                                 std::optional<int> ord, Value value,
                                 StringRef type) {
  std::string ptx = ("tensormap.replace.tile." + field + ".global.b1024." +
                     type + " [$0], " +
                     (ord ? std::to_string(*ord) + ", " : std::string()) +
                     "$1;")
                        .str();
  NVVM::InlinePtxOp::create(b, loc, TypeRange{}, ValueRange{map, value},
                            ValueRange{}, ptx, Value());
}

void KernelBuilder::replaceField(Value map, StringRef field, int immediate) {
  std::string ptx = ("tensormap.replace.tile." + field +
                     ".global.b1024.b32 [$0], " + Twine(immediate) + ";")
                        .str();
  NVVM::InlinePtxOp::create(b, loc, TypeRange{}, ValueRange{map}, ValueRange{},
                            ptx, Value());
}

void KernelBuilder::encodeTensorMap(Value map, Value base,
                                    ArrayRef<Value> dims,
                                    ArrayRef<Value> strides, int64_t boxRows,
                                    int64_t bytes, int elementType) {
  assert(dims.size() >= 2 && strides.size() + 1 == dims.size());
  auto zeros = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({4}, i32), b.getI32IntegerAttr(0)));
  for (int64_t offset = 0; offset < kTensorMapBytes; offset += 16)
    LLVM::StoreOp::create(b, loc, zeros, byteOffset(global, map, c32(offset)),
                          /*alignment=*/16);
  replaceField(map, "global_address", std::nullopt,
               LLVM::PtrToIntOp::create(b, loc, i64, base), "b64");
  int rank = dims.size();
  replaceField(map, "rank", rank - 1);
  for (int ord = 0; ord < rank; ++ord) {
    replaceField(map, "box_dim", ord,
                 c32(ord == 0 ? 128 / bytes : ord == 1 ? boxRows : 1));
    replaceField(map, "global_dim", ord, dims[ord]);
    replaceField(map, "element_stride", ord, c32(1));
  }
  for (auto [ord, stride] : llvm::enumerate(strides))
    replaceField(map, "global_stride", ord, stride, "b64");
  replaceField(map, "elemtype", elementType);
  replaceField(map, "interleave_layout", 0);
  replaceField(map, "swizzle_mode", kSwizzle128B);
  replaceField(map, "fill_mode", 0);
}

void KernelBuilder::encodeTensorMap(Value map, Value base, Value planes,
                                    Value rows, Value inner, int64_t boxRows,
                                    int64_t bytes, int elementType) {
  Value rowStride = mul(wide(inner), c64(bytes));
  encodeTensorMap(map, base, {inner, rows, planes},
                  {rowStride, mul(rowStride, wide(rows))}, boxRows, bytes,
                  elementType);
}

void KernelBuilder::publishTensorMaps(ArrayRef<Value> maps) {
  NVVM::FenceProxyReleaseOp::create(b, loc, NVVM::MemScopeKind::GPU);
  for (Value map : maps)
    NVVM::FenceProxyAcquireOp::create(b, loc, NVVM::MemScopeKind::GPU,
                                      toGeneric(map), c32(kTensorMapBytes));
}

Value KernelBuilder::matrixDescriptor(Value byteAddress, int64_t leadingBytes) {
  int64_t fixed = (int64_t(leadingBytes >> 4) << 16) |
                  (int64_t(1024 >> 4) << 32) | // stride byte offset
                  (int64_t(1) << 62);          // 128B swizzle
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, byteAddress, c64(4)),
      c64(0x3FFF));
  return arith::OrIOp::create(b, loc, start, c64(fixed));
}

void KernelBuilder::tmaLoad(Value dst, Value map, ValueRange coords,
                            Value barrier, Value multicastMask) {
  // The CTA's own shared memory as shared::cluster.
  dst = LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), dst);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, loc, dst, map, coords, barrier, ValueRange{}, multicastMask, Value(),
      NVVM::TMALoadMode::TILE, false, nullptr, Value());
}

void KernelBuilder::fenceAsyncShared() {
  NVVM::FenceProxyOp::create(
      b, loc,
      NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

Value KernelBuilder::intrinsic(StringRef name, Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name),
                                       ValueRange{x})
      .getResult(0);
}
