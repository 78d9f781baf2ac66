//===- NovaAttrs.td - nova attributes ----------------------*- tablegen -*-===//

#ifndef NOVA_DIALECT_NOVAATTRS_TD
#define NOVA_DIALECT_NOVAATTRS_TD

include "compiler/dialect/NovaDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Nova_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Nova_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Nova_CompareDirection : I32EnumAttr<"CompareDirection",
    "comparison predicate of nova.compare", [
      I32EnumAttrCase<"EQ", 0, "eq">, I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">, I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">, I32EnumAttrCase<"GE", 5, "ge">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nova";
}
def Nova_CompareDirectionAttr
    : EnumAttr<Nova_Dialect, Nova_CompareDirection, "compare_direction">;

def Nova_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation used by nova.gelu", [
      I32EnumAttrCase<"None", 0, "none">, I32EnumAttrCase<"Tanh", 1, "tanh">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nova";
}
def Nova_GeluApproximationAttr
    : EnumAttr<Nova_Dialect, Nova_GeluApproximation, "gelu_approximation">;

//===----------------------------------------------------------------------===//
// #nova.target
//===----------------------------------------------------------------------===//

def Nova_TargetAttr : Nova_Attr<"Target", "target"> {
  let summary = "Hardware description the analytic configurator plans against";
  let description = [{
    Everything a tiling decision needs to know about the GPU:

    ```mlir
    #nova.target<arch = "sm_90", sm_count = 132, shared_memory_per_sm = 233472,
                 registers_per_sm = 65536,
                 mma_shapes = [array<i64: 16, 8, 16>, array<i64: 64, 256, 16>],
                 peak_tflops = {bf16 = 989 : i64, f32 = 67 : i64, tf32 = 494 : i64},
                 memory_bandwidth_gbps = 4800>
    ```

    `shared_memory_per_sm` is in bytes, `mma_shapes` lists the tensor-core
    instruction shapes as `[m, n, k]`, `peak_tflops` maps an element type name
    (f64, f32, tf32, bf16, f16, f8) to dense peak TFLOP/s.
  }];
  let parameters = (ins
    StringRefParameter<"GPU architecture, e.g. sm_90">:$arch,
    "int64_t":$sm_count,
    "int64_t":$shared_memory_per_sm,
    "int64_t":$registers_per_sm,
    "::mlir::ArrayAttr":$mma_shapes,
    "::mlir::DictionaryAttr":$peak_tflops,
    "int64_t":$memory_bandwidth_gbps
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// #nova.lowering_config
//===----------------------------------------------------------------------===//

// A list of integers written `[a, b, c]`. ArrayRefParameter's default is a
// bare comma list, which a struct(params) format cannot tell from its own
// separators.
class Nova_I64ListParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
    ::llvm::SmallVector<int64_t> values;
    if ($_parser.parseCommaSeparatedList(
            ::mlir::AsmParser::Delimiter::Square,
            [&] { return $_parser.parseInteger(values.emplace_back()); }))
      return ::mlir::failure();
    return values;
  }() }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']'
  }];
}

def Nova_LoweringConfigAttr : Nova_Attr<"LoweringConfig", "lowering_config"> {
  let summary = "How one matmul (or fused region) is tiled onto the GPU";
  let description = [{
    ```mlir
    #nova.lowering_config<tile_sizes = [128, 256, 64], warp_layout = [2, 1],
                          mma_shape = [64, 256, 16], pipeline_stages = 4,
                          swizzle = 128>
    ```

    `tile_sizes` is the CTA tile `[M, N, K]`; `warp_layout` the arrangement of
    warp groups over `[M, N]`; `mma_shape` the tensor-core instruction
    `[m, n, k]`, which must divide the tile; `pipeline_stages` the depth of the
    shared-memory pipeline; `swizzle` the shared-memory swizzle in bytes
    (0, 32, 64 or 128).

    The analytic configurator (`nova-configure-kernels`) also sets, each
    omitted when it has its default:
    - `kernel`: the kernel family, `"wgmma_tma"` (sm_90: TMA loads, wgmma;
      consumer warp groups split each tile), `"wgmma_tma_pingpong"` (the
      same, two consumer warp groups taking whole tiles in turn) or
      `"mma_sync_cp_async"` (sm_80/86/89: cp.async, mma.sync);
    - `precision`: what the tensor cores compute in, `"bf16"`, `"f16"`,
      `"tf32"` or `"tf32x3"` (f32 to f32 accuracy from three TF32 products);
    - `producer_warpgroups`: warp groups that only issue loads (warp
      specialization; 0 = none);
    - `cluster_m`, `cluster_n`: the thread-block cluster (TMA multicast);
    - `split_k`: K is split over this many CTAs, partial sums reduced after;
    - `persistent_ctas`: a persistent grid of this many CTAs walks the tiles
      (0 = one CTA per tile);
    - `raster_group`: tiles are visited in bands of this many tile rows, so
      that a band's operands stay in L2 (1 = row by row);
    - `min_ctas_per_sm`: the kernel's registers are capped so that an SM
      holds this many CTAs at once (PTX `.minnctapersm`; 0 = no bound), e.g.
      so that a grid fits in one wave.
  }];
  let parameters = (ins
    Nova_I64ListParameter<"CTA tile [M, N, K]">:$tile_sizes,
    Nova_I64ListParameter<"warp groups over [M, N]">:$warp_layout,
    Nova_I64ListParameter<"MMA instruction [m, n, k]">:$mma_shape,
    "int64_t":$pipeline_stages,
    "int64_t":$swizzle,
    StringRefParameter<"kernel family", "\"\"">:$kernel,
    StringRefParameter<"tensor-core precision", "\"\"">:$precision,
    DefaultValuedParameter<"int64_t", "0", "load-only warp groups">:$producer_warpgroups,
    DefaultValuedParameter<"int64_t", "1", "cluster CTAs along M">:$cluster_m,
    DefaultValuedParameter<"int64_t", "1", "cluster CTAs along N">:$cluster_n,
    DefaultValuedParameter<"int64_t", "1", "CTAs sharing one tile's K">:$split_k,
    DefaultValuedParameter<"int64_t", "0", "persistent grid size">:$persistent_ctas,
    DefaultValuedParameter<"int64_t", "1", "tile rows per raster band">:$raster_group,
    DefaultValuedParameter<"int64_t", "0", "CTAs an SM must hold at once">:$min_ctas_per_sm
  );
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<int64_t>":$tile_sizes,
                     "::llvm::ArrayRef<int64_t>":$warp_layout,
                     "::llvm::ArrayRef<int64_t>":$mma_shape,
                     "int64_t":$pipeline_stages, "int64_t":$swizzle), [{
      return $_get($_ctxt, tile_sizes, warp_layout, mma_shape, pipeline_stages,
                   swizzle, "", "", 0, 1, 1, 1, 0, 1, 0);
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // NOVA_DIALECT_NOVAATTRS_TD
