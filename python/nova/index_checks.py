"""Out-of-range indices in a step's inputs raise, as in eager.

A compiled kernel reads whatever an out-of-range index points at, so a bad
embedding id or cross-entropy target would give a wrong loss instead of
eager's `IndexError`. At capture, `index_bounds()` follows every index operand
of the graph's gathering ops (embedding, cross-entropy / nll targets, gather,
index_select, indexing) back through view-like ops to a batch input, with the
size of the dim it indexes; `check_indices()` checks a batch against them
before the step is enqueued.

On the CPU every call is checked. On CUDA the check reads the indices' range
back to the host (a synchronization per step), so it runs only with
`NOVA_CHECK_INDICES=1` (a debug switch, documented in the README); without it
an out-of-range index on the GPU is not detected.
"""

from __future__ import annotations

import dataclasses
import operator
import os
from collections.abc import Sequence

import torch
import torch.fx

from nova import capture

__all__ = ["IndexBound", "index_bounds", "check_indices", "checks_enabled"]

aten = torch.ops.aten

# Ops that only rearrange or copy their first operand: an index read through
# them is still the batch input's value.
_VIEW_LIKE = {
    aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.expand.default,
    aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.unsqueeze.default,
    aten.permute.default, aten.t.default, aten.transpose.int, aten.clone.default,
    aten.alias.default, aten.slice.Tensor, aten.select.int, aten.flatten.using_ints,
    aten._to_copy.default, aten.contiguous.default,
}  # fmt: skip
# Ops splitting their first operand into parts (gradient accumulation's
# micro-batches): a part's values are the input's.
_SPLITS = {aten.split.Tensor, aten.split_with_sizes.default, aten.chunk.default, aten.unbind.int}


@dataclasses.dataclass(frozen=True)
class IndexBound:
    """Batch input `input` (0-based) is used as an index into a dim of
    `size` by `op`; `ignore` is a value the op accepts besides [0, size)
    (cross-entropy's ignore_index); `wraps` when negative indices count from
    the end, as in torch's indexing."""

    input: int
    size: int
    op: str
    ignore: int | None = None
    wraps: bool = False


def _source_input(node: object, inputs: dict[torch.fx.Node, int]) -> int | None:
    """The batch input `node` reads unchanged (through view-like ops), if any."""
    while isinstance(node, torch.fx.Node):
        if node in inputs:
            return inputs[node]
        parent = node.args[0] if node.op == "call_function" and node.args else None
        if node.target is operator.getitem and isinstance(parent, torch.fx.Node) and parent.target in _SPLITS:
            node = parent.args[0]
            continue
        if node.op != "call_function" or node.target not in _VIEW_LIKE:
            return None
        node = parent
    return None


def _dim_size(node: object, dim: int) -> int | None:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    if val is None or not isinstance(val, torch.Tensor) or val.dim() == 0:
        return None
    return int(val.shape[dim])


def _uses(node: torch.fx.Node) -> list[tuple[object, object, int, str, int | None, bool]]:
    """(index operand, indexed tensor, indexed dim, op name, ignored value,
    wraps) for each index operand of a gathering op."""
    target, args = node.target, node.args
    if target is aten.embedding.default:
        return [(args[1], args[0], 0, "embedding", None, False)]
    if target in (torch.ops.nova.cross_entropy.default, aten.nll_loss_forward.default,
                  aten.nll_loss2d_forward.default):  # fmt: skip
        ignore = args[2] if target is torch.ops.nova.cross_entropy.default else args[4]
        return [(args[1], args[0], 1 if _rank(args[0]) > 1 else 0, "cross_entropy target", int(ignore), False)]
    if target in (aten.gather.default, aten.index_select.default):
        return [(args[2], args[0], int(args[1]), target.__name__.split(".")[0], None, False)]
    if target is aten.index.Tensor:
        return [(index, args[0], dim, "index", None, True) for dim, index in enumerate(args[1]) if index is not None]
    return []


def _rank(node: object) -> int:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val.dim() if isinstance(val, torch.Tensor) else 0


def index_bounds(captured: capture.CapturedGraph) -> list[IndexBound]:
    """Every (batch input, bound) pair the captured graph indexes with."""
    graph = captured.graph_module.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    inputs: dict[torch.fx.Node, int] = {}
    position = 0
    for node, spec in zip(placeholders, captured.input_specs):
        if spec.role in (capture.ROLE_BATCH, capture.ROLE_INPUT):
            inputs[node] = position
            position += 1
    bounds: list[IndexBound] = []
    for node in graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        for index, indexed, dim, op, ignore, wraps in _uses(node):
            source = _source_input(index, inputs)
            size = _dim_size(indexed, dim)
            if source is not None and size is not None:
                bound = IndexBound(source, size, op, ignore, wraps)
                if bound not in bounds:
                    bounds.append(bound)
    return bounds


def checks_enabled(device: torch.device) -> bool:
    """Whether calls on `device` are checked (see the module doc)."""
    return device.type == "cpu" or os.environ.get("NOVA_CHECK_INDICES", "") not in ("", "0")


def check_indices(bounds: Sequence[IndexBound], batch: Sequence[torch.Tensor]) -> None:
    """Raises IndexError, as eager would, if an input holds an index out of
    its bound."""
    for bound in bounds:
        values = batch[bound.input]
        if values.numel() == 0:
            continue
        low = -bound.size if bound.wraps else 0
        bad = (values < low) | (values >= bound.size)
        if bound.ignore is not None:
            bad &= values != bound.ignore
        if bool(bad.any()):
            value = int(values[bad].flatten()[0])
            if bound.op == "cross_entropy target":
                message = f"Target {value} is out of bounds."
            else:
                message = "index out of range in self"
            raise IndexError(
                f"{message} (nova: batch input {bound.input} holds {value}, used as an index by {bound.op} "
                f"into a dim of size {bound.size})"
            )
