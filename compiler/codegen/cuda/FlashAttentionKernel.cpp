//===- FlashAttentionKernel.cpp - specs, PTX cache, shared helpers --------===//

#include "compiler/codegen/cuda/FlashAttentionBuilder.h"
#include "compiler/codegen/cuda/PtxSerialization.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"


using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::cuda;

std::string FlashAttentionSpec::kernelName() const {
  return llvm::formatv("nova_attention_{0}_d{1}_{2}x{3}_s{4}{5}{6}{7}{8}{9}",
                       backward ? "bwd" : "fwd", headDim, blockM, blockN,
                       stages, causal ? "_causal" : "",
                       packedQuery   ? "_qkv"
                       : packedGrads ? "_kv"
                                     : "",
                       tf32 ? "_tf32" : "",
                       !backward && queryBuffers == 1 ? "_q1" : "",
                       headGroup ? "_hg" + std::to_string(headGroup) : "")
      .str();
}

FailureOr<FlashAttentionSpec>
cuda::flashAttentionSpec(LoweringConfigAttr config, bool backward, bool causal,
                         int64_t headDim, int64_t sharedMemoryLimit,
                         std::string &why) {
  if (config.getKernel() != "flash_wgmma") {
    why = "kernel family is not flash_wgmma";
    return failure();
  }
  if (config.getPrecision() != "bf16" && config.getPrecision() != "tf32") {
    why = ("no attention kernel for precision " + config.getPrecision()).str();
    return failure();
  }
  FlashAttentionSpec spec;
  spec.tf32 = config.getPrecision() == "tf32";
  spec.backward = backward;
  spec.causal = causal;
  spec.headDim = headDim;
  ArrayRef<int64_t> tile = config.getTileSizes();
  if (tile.size() != 3 || tile[2] != headDim) {
    why = "expected a [block M, block N, head dim] tile";
    return failure();
  }
  spec.blockM = tile[0];
  spec.blockN = tile[1];
  spec.stages = config.getPipelineStages();
  // Two consumers of 64 query rows (forward) or 64 keys (backward) each.
  bool shapes =
      spec.blockM == 128 &&
      spec.blockN == FlashAttentionSpec::stepRows(backward, spec.tf32, headDim);
  // TF32 at head dim 128: the forward only (the backward's resident K, V,
  // K^T and stages of Q, dO, Q^T, dO^T do not fit).
  bool dims = headDim == 64 || (headDim == 128 && !(spec.tf32 && backward));
  // Two blocks' stages are in use at once (see the configurator): one
  // stage would deadlock.
  if (!shapes || !dims || spec.stages < 2) {
    why = "tile, head dim or stages out of the kernel's range";
    return failure();
  }
  // raster_group: heads per group of the dynamic order.
  if (config.getRasterGroup() > 1)
    spec.headGroup = config.getRasterGroup();
  spec.fitQueryBuffers(sharedMemoryLimit);
  if (spec.sharedMemoryBytes() > sharedMemoryLimit) {
    why = "the stages need more shared memory than a CTA has";
    return failure();
  }
  return spec;
}

std::string cuda::flashAttentionPtx(const FlashAttentionSpec &spec,
                                    std::string &error) {
  return cachedKernelPtx(
      spec.kernelName(),
      [&](MLIRContext *context) {
        return spec.backward ? buildFlashAttentionBackward(context, spec)
                             : buildFlashAttentionForward(context, spec);
      },
      error);
}

//===----------------------------------------------------------------------===//
// AttentionBuilder
//===----------------------------------------------------------------------===//

Type AttentionBuilder::accType(int64_t n) {
  return LLVM::LLVMStructType::getLiteral(b.getContext(),
                                          SmallVector<Type>(n / 2, f32));
}

Value AttentionBuilder::pack(Type type, ArrayRef<Value> values) {
  Value acc = LLVM::UndefOp::create(b, loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    acc = LLVM::InsertValueOp::create(b, loc, acc, v, i);
  return acc;
}

SmallVector<Value> AttentionBuilder::unpack(Value acc, int64_t n) {
  SmallVector<Value> values;
  for (int64_t i = 0; i < n / 2; ++i)
    values.push_back(get(acc, i));
  return values;
}

Value AttentionBuilder::mma(Value acc, int64_t n, Value descA, Value descB,
                            bool aMnMajor, bool bMnMajor, bool accumulate) {
  MLIRContext *context = b.getContext();
  assert(!(spec.tf32 && (aMnMajor || bMnMajor)) && "TF32 reads K-major only");
  NVVM::WGMMATypes type =
      spec.tf32 ? NVVM::WGMMATypes::tf32 : NVVM::WGMMATypes::bf16;
  return NVVM::WgmmaMmaAsyncOp::create(
      b, loc, accType(n), acc, descA, descB,
      NVVM::MMAShapeAttr::get(context, 64, n, spec.kStep()), type, type,
      NVVM::WGMMATypes::f32,
      accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
      NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
      aMnMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      bMnMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col, nullptr);
}

Value AttentionBuilder::mmaRegisterA(Value acc, int64_t n, Value packedA,
                                     int64_t ks, Value descB, bool bMnMajor) {
  assert(!spec.tf32 && "bf16 k16 A fragments only");
  int64_t outputs = n / 2;
  auto reg = [](int64_t i) { return "$" + std::to_string(i); };
  std::string d;
  for (int64_t i = 0; i < outputs; ++i)
    d += (i ? ", " : "") + reg(i);
  std::string ptx = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n" +
                    std::to_string(n) + "k16.f32.bf16.bf16 {" + d + "}, {" +
                    reg(outputs) + ", " + reg(outputs + 1) + ", " +
                    reg(outputs + 2) + ", " + reg(outputs + 3) + "}, " +
                    reg(outputs + 4) + ", p, 1, 1, " + (bMnMajor ? "1" : "0") +
                    ";\n}";
  // Accumulator outputs, tied to the accumulator inputs after A and B.
  std::string constraints;
  for (int64_t i = 0; i < outputs; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l";
  for (int64_t i = 0; i < outputs; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands;
  for (int64_t r = 0; r < 4; ++r)
    operands.push_back(vector::ExtractOp::create(b, loc, packedA, 4 * ks + r));
  operands.push_back(descB);
  llvm::append_range(operands, unpack(acc, n));
  return LLVM::InlineAsmOp::create(
             b, loc, accType(n), operands, ptx, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

Value AttentionBuilder::packRegisterA(ArrayRef<Value> values) {
  // A k16 A fragment holds (row r, columns c, c + 1), (r + 8, c, c + 1),
  // then the same 8 columns on: an accumulator's registers 8 ks..8 ks + 7
  // for its columns 16 ks..16 ks + 15, pair by pair.
  SmallVector<Value> pairs;
  for (size_t j = 0; j + 1 < values.size(); j += 2)
    pairs.push_back(LLVM::BitcastOp::create(
        b, loc, i32, bf16Pair(values[j], values[j + 1])));
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({int64_t(pairs.size())}, i32), pairs);
}

static Value quadReduce(AttentionBuilder &ab, Value v, bool isMax) {
  for (int64_t offset : {1, 2}) {
    Value other = NVVM::ShflOp::create(ab.b, ab.loc, ab.f32, ab.c32(-1), v,
                                       ab.c32(offset), ab.c32(0x1f),
                                       NVVM::ShflKind::bfly, UnitAttr());
    v = isMax ? ab.fmax(v, other) : ab.fadd(v, other);
  }
  return v;
}

Value AttentionBuilder::quadMax(Value v) { return quadReduce(*this, v, true); }
Value AttentionBuilder::quadSum(Value v) { return quadReduce(*this, v, false); }

Value AttentionBuilder::bf16Pair(Value x, Value y) {
  Type bf16 = b.getBF16Type();
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({2}, bf16),
      ValueRange{arith::TruncFOp::create(b, loc, bf16, x),
                 arith::TruncFOp::create(b, loc, bf16, y)});
}

Value AttentionBuilder::swizzledOffset(Value block, Value row,
                                      Value byteInRow) {
  Value unit = arith::XOrIOp::create(b, loc, div(byteInRow, c32(16)),
                                     rem(row, c32(8)));
  return add(add(block, mul(row, c32(128))),
             add(mul(unit, c32(16)), rem(byteInRow, c32(16))));
}

void AttentionBuilder::storeSwizzled(Value tile, ArrayRef<Value> values,
                                     int64_t n, Type element, bool roundTf32) {
  int64_t bytes = element.isF32() ? 4 : 2, perRow = 128 / bytes;
  for (int64_t i = 0; i < n / 8; ++i) {
    for (int64_t h = 0; h < 2; ++h) {
      Value row = fragmentRow(h);
      int64_t col0 = 8 * i; // + 2 (lane % 4)
      Value byteInRow = mul(add(c32(col0 % perRow), mul(rem(lane, c32(4)), c32(2))),
                            c32(bytes));
      Value offset =
          swizzledOffset(c32(col0 / perRow * 64 * 128), row, byteInRow);
      int64_t reg = 4 * i + 2 * h;
      Value pair = element.isF32()
                       ? vector::FromElementsOp::create(
                             b, loc, VectorType::get({2}, f32),
                             ValueRange{values[reg], values[reg + 1]})
                             .getResult()
                       : bf16Pair(values[reg], values[reg + 1]);
      if (element.isF32() && roundTf32)
        pair = RoundTf32Op::buildScalar(b, loc, pair);
      LLVM::StoreOp::create(b, loc, pair, byteOffset(shared, tile, offset),
                            2 * bytes);
    }
  }
}

void AttentionBuilder::storeTransposed(Value tile, ArrayRef<Value> values,
                                       int64_t n, bool roundTf32) {
  for (int64_t i = 0; i < n / 8; ++i)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t e = 0; e < 2; ++e) {
        // Fragment (row, col) -> tile (col, row): column blocks of 32.
        Value row = fragmentRow(h), col = fragmentCol(i, e);
        Value offset = swizzledOffset(mul(div(row, c32(32)), c32(n * 128)),
                                      col, mul(rem(row, c32(32)), c32(4)));
        Value x = values[4 * i + 2 * h + e];
        if (roundTf32)
          x = RoundTf32Op::buildScalar(b, loc, x);
        LLVM::StoreOp::create(b, loc, x, byteOffset(shared, tile, offset), 4);
      }
}

Value AttentionBuilder::kMajor(Value base, int64_t rows, int64_t row0,
                               int64_t ks) {
  Value address = add(sharedAddress(base),
                      c64(ks / 4 * rows * 128 + row0 * 128 + ks % 4 * 32));
  return matrixDescriptor(address, 16);
}

Value AttentionBuilder::mnMajor(Value base, int64_t rows, int64_t row0,
                                int64_t ks) {
  Value address =
      add(sharedAddress(base), c64(row0 * 128 + ks * 16 * 128));
  return matrixDescriptor(address, rows * 128);
}

HeadsLayout AttentionBuilder::layoutArgument(Block &entry, unsigned first) {
  HeadsLayout layout;
  layout.offset = wide(entry.getArgument(first));
  layout.rowStride = wide(entry.getArgument(first + 1));
  layout.headStride = wide(entry.getArgument(first + 2));
  layout.batchStride = arith::MaxUIOp::create(
      b, loc, mul(wide(t), layout.rowStride), mul(wide(heads), layout.headStride));
  return layout;
}

Value AttentionBuilder::rowIndex(const HeadsLayout &layout, Value head,
                                 Value row) {
  return add(add(layout.offset, mul(wide(div(head, heads)), layout.batchStride)),
             add(mul(wide(rem(head, heads)), layout.headStride),
                 mul(wide(row), layout.rowStride)));
}

void AttentionBuilder::encodeHeadsMap(Value map, Value base,
                                      const HeadsLayout &layout,
                                      int64_t boxRows, int64_t bytes,
                                      int elementType) {
  Value first = LLVM::GEPOp::create(
      b, loc, global, b.getIntegerType(8 * bytes), base,
      ValueRange{layout.offset});
  auto bytesOf = [&](Value elements) { return mul(elements, c64(bytes)); };
  encodeTensorMap(map, first,
                  {c32(spec.headDim), t, heads, div(bh, heads)},
                  {bytesOf(layout.rowStride), bytesOf(layout.headStride),
                   bytesOf(layout.batchStride)},
                  boxRows, bytes, elementType);
}

void AttentionBuilder::encodeTransposedMap(Value map, Value base,
                                           const HeadsLayout &layout,
                                           int64_t boxRows) {
  Value first = LLVM::GEPOp::create(b, loc, global, f32, base,
                                    ValueRange{layout.offset});
  encodeTensorMap(map, first, {t, c32(spec.headDim), bh},
                  {mul(layout.rowStride, c64(4)), mul(layout.headStride, c64(4))},
                  boxRows, 4, kTensorMapF32);
}

Value AttentionBuilder::readShape(Block &entry, unsigned first) {
  t = entry.getArgument(first);
  bh = entry.getArgument(first + 1);
  heads = entry.getArgument(first + 3);
  return arith::BitcastOp::create(b, loc, f32, entry.getArgument(first + 2));
}

void AttentionBuilder::arrivePerWarp(Value barrier) {
  ifThen(eq(lane, 0), [&] {
    NVVM::MBarrierArriveOp::create(b, loc, i64, barrier, Value(),
                                   NVVM::MemScopeKind::CTA, false);
  });
}

gpu::GPUFuncOp AttentionBuilder::createKernel(OpBuilder &b,
                                              const FlashAttentionSpec &spec,
                                              int64_t pointers,
                                              int64_t integers,
                                              LLVM::GlobalOp &smemGlobal) {
  Location loc = b.getUnknownLoc();
  MLIRContext *context = b.getContext();
  // 1024-aligned for the 128B swizzle atoms.
  smemGlobal = LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0), /*isConstant=*/false,
      LLVM::Linkage::External, "nova_attention_shared", Attribute(),
      /*alignment=*/1024, /*addrSpace=*/3);
  SmallVector<Type> params(pointers, LLVM::LLVMPointerType::get(context, 1));
  params.append(integers, b.getI32Type());
  auto func = createKernelFunc(b, spec.kernelName(), params, spec.threads());
  // .minnctapersm 1 pins the register count at entry; without it ptxas may
  // ignore setmaxnreg (C7508) and spill the consumers.
  func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                b.getI32IntegerAttr(1));
  return func;
}
