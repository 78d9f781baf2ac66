//===- FusedRowsKernel.h - nova.fused regions as row kernels ----*- C++ -*-===//
//
// A nova.fused region whose values live in one row space [R, C] (every
// tensor either [..., C] with R x C elements, a per-row value with R
// elements, a per-column vector [C] broadcast along the rows, or a scalar)
// and whose ops are elementwise, broadcasts, shape-preserving reshapes,
// splat constants and reductions over the last dim runs as one kernel: one
// warp per row, each lane owning `vector` consecutive columns of every
// 32 x vector chunk of the row. A reduction needs the whole row, so the row
// is swept once per reduction depth (layer norm: mean, variance, outputs):
// each sweep reloads the region's inputs (from L1/L2 after the first) and
// recomputes the elementwise values it needs, so registers hold one chunk,
// not the row, and any C works. Where the configurator finds a row's inputs
// fit in registers (pipeline_stages = the row's chunks), the sweeps are
// unrolled instead: every chunk's loads are in flight at once and the later
// sweeps read the inputs from registers. Lane partials combine by butterfly
// shuffles.
//
// Arithmetic is f32 throughout: bf16/f16 values are widened on load and
// rounded only where the region stores them or casts explicitly (as
// TorchInductor computes bf16 pointwise code), so a chain of bf16 ops is
// rounded once. Transcendentals use the MUFU approximations (ex2, lg2,
// rsqrt, rcp) with f32-level accuracy; tanh, erf and sigmoid are evaluated
// from them, except a tanh rounded to bf16/f16 before it reaches memory or a
// reduction (GELU under autocast): MUFU's own tanh, one instruction whose
// error (2^-10.99) bf16 cannot show (see RegionElements.h).
//
// A region without reductions over few long rows (a weight's cast) splits
// each row between `segments` warps, so that the grid still fills the GPU.
// Partial results (a column sum's groups of K rows, see RowKind::Partial)
// make each warp walk its K rows. With row reductions (a layer norm's
// backward) the row is swept whole per row, so every chunk's per-column
// partials stay live across the rows: they live in the warp's slice of
// shared memory, not registers (in registers they took 250 per thread and
// left 12% of the warps resident), and a group is the CTA's: each warp
// walks K / warps of its rows, then the CTA adds the slices up and stores
// the group's partials (a quarter of the partials one group a warp wrote).
// Without, chunks are outer and one chunk's partials are summed over the
// warp's K rows in registers.
//
// ABI: one pointer per region input, then per result; no constants (R and C
// are baked in: the kernel name hashes the region). Grid x =
// fusedRowsCtas: ceil(R / K x segments / warps), or R / K with CTA groups;
// block 32 x warps.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CODEGEN_CUDA_FUSEDROWSKERNEL_H
#define NOVA_CODEGEN_CUDA_FUSEDROWSKERNEL_H

#include "compiler/dialect/NovaAttrs.h"
#include "compiler/dialect/NovaOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::nova::cuda {

/// How a value of a fused region is indexed in its row space.
/// Partial: a result [G, C] that reduces each group of K consecutive rows
/// (a reduction over dim 1 of the [G, K, C] view): partial column sums of a
/// reduction over all rows, which one warp accumulates over its K rows.
enum class RowKind { Scalar, Row, Column, Element, Partial };

/// The row space of a nova.fused region and the kind and sweep of each of
/// its values (see the file comment).
struct FusedRowsPlan {
  int64_t rows = 0, columns = 0;
  /// Bytes of the widest element loaded or stored per column.
  int64_t widestBytes = 1;
  /// K, the rows each partial result sums (1 without them), and how many
  /// partial results.
  int64_t rowsPerGroup = 1, partials = 0;
  /// Whether a partial result is a max (else all are sums or means).
  bool partialMax = false;
  /// Inputs with one value per element (not per row or column), and
  /// results.
  int64_t elementInputs = 0, elementResults = 0;
  /// Whether the region reduces over the last dim (then rows are swept
  /// whole by one warp).
  bool rowReductions = false;
  /// A GEMM epilogue's matmul (the region's first op, its operands inputs
  /// of their own, its result an element value), or null.
  Operation *matmul = nullptr;
  llvm::DenseMap<Value, RowKind> kind;
  /// Element/column values: the sweep that first can compute them; row
  /// values: the sweep after which they are known (0: before any sweep).
  llvm::DenseMap<Value, int64_t> level;
};

/// How `broadcast`'s input is indexed when its result is [..., columns] with
/// rows x columns elements: a scalar, a row value (one per row: the trailing
/// dim is the one broadcast), a column vector (the same for every row), or
/// none of these.
std::optional<RowKind> classifyBroadcastInput(BroadcastInDimOp broadcast,
                                              int64_t rows, int64_t columns);

/// Ops a fused-rows kernel computes: elementwise (nova.add ... nova.cast),
/// nova.broadcast_in_dim, nova.reshape, splat nova.constant and
/// reductions over the last dim (sum, max, mean).
bool isFusedRowsOp(Operation *op);

/// Whether `op` is a sum, max or mean over the last dim of its input.
bool isLastDimReduction(Operation *op);

/// Whether `op` reduces dim 1 of a [G, K, C] value (a partial result).
bool isGroupReduction(Operation *op);

/// A hash of `op`'s printed form (generic, no locations): a kernel generated
/// from the region is named by it.
uint64_t regionHash(FusedOp op);

/// The plan for `op`, or failure with the reason in `why`.
FailureOr<FusedRowsPlan> analyzeFusedRows(FusedOp op, std::string &why);

struct FusedRowsSpec {
  int64_t vector = 4;   // columns per lane per chunk
  int64_t warps = 4;    // warps per CTA
  int64_t segments = 1; // warps per row (regions without reductions only)
  /// Rows swept more than once: all chunks' inputs loaded at once and held
  /// in registers across the sweeps (config pipeline_stages = the chunks).
  bool wholeRow = false;
  /// CTAs an SM must hold at once (.minnctapersm; 0: no bound).
  int64_t minCtasPerSm = 0;
  std::string kernelName;
};

/// Static shared memory a CTA may declare (sm_80 to sm_90).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

/// Chunks of 32 x `vector` columns a row has.
int64_t rowChunks(const FusedRowsPlan &plan, int64_t vector);

/// Shared memory of one slice of partials with `vector`-wide chunks: all of
/// a row's chunks with row reductions, none (registers) without.
int64_t partialSliceBytes(const FusedRowsPlan &plan, int64_t vector);

/// Whether a CTA's warps sum one partial group together (partials with row
/// reductions: in shared memory); else each warp sums a group alone.
bool sharesGroupsInCta(const FusedRowsPlan &plan);

/// Whether a CTA's warps add their rows' partials into one shared slice
/// (sums and means: shared-memory atomic adds); else (a max) each warp
/// keeps a slice of its own and the CTA combines the slices at the end.
bool sharesPartialSlice(const FusedRowsPlan &plan);

/// A CTA's shared memory for its partials, with `warps` warps.
int64_t partialSharedBytes(const FusedRowsPlan &plan, int64_t vector,
                           int64_t warps);

/// The kernel's grid size.
int64_t fusedRowsCtas(const FusedRowsPlan &plan, const FusedRowsSpec &spec);

/// Whether a warp can carry `plan`'s partials of `vector`-wide chunks
/// (in registers or its shared slice, see the file comment).
bool partialsFit(const FusedRowsPlan &plan, int64_t vector);

/// The spec for `op`'s "fused_rows" config, or failure with the reason.
FailureOr<FusedRowsSpec> fusedRowsSpec(FusedOp op, const FusedRowsPlan &plan,
                                       std::string &why);

OwningOpRef<ModuleOp> buildFusedRowsKernel(MLIRContext *context, FusedOp op,
                                           const FusedRowsPlan &plan,
                                           const FusedRowsSpec &spec);

/// The kernel's PTX (built once per name per process); empty with the
/// diagnostics in `error` on failure.
std::string fusedRowsPtx(FusedOp op, const FusedRowsPlan &plan,
                         const FusedRowsSpec &spec, std::string &error);

} // namespace mlir::nova::cuda

#endif // NOVA_CODEGEN_CUDA_FUSEDROWSKERNEL_H
