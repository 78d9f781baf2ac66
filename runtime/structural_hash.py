"""Cache key of a traced FX graph: a sha256 over its structure.

The key must be equal for two independent traces of the same program and must
change whenever anything that reaches the compiled code changes. So it covers:
op kinds and qualified targets, the argument structure with constants, value
references as *node indices* (node names, Python ids and object reprs vary
between traces and are never used), the shape/dtype/stride/device of every
value from ``node.meta["val"]`` (placeholders included), get_attr constants by
content, the pytree calling convention, and the caller's ``extra`` dict
(target, compiler version, options).

Anything we cannot serialize deterministically raises TypeError: a key that
silently ignores part of the program could hand back the wrong executable.
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
import math
from typing import Any

import torch
import torch.fx

_log = logging.getLogger(__name__)

__all__ = ["structural_hash"]

_HASH_VERSION = "nova-structural-hash-v1"  # bump when the encoding changes


def structural_hash(graph_module: torch.fx.GraphModule, extra: dict) -> str:
    """Hex sha256 of `graph_module`'s structure plus `extra`."""
    h = hashlib.sha256()
    h.update(_HASH_VERSION.encode())
    index: dict[torch.fx.Node, int] = {}
    enc = _Encoder(index, graph_module)
    for i, node in enumerate(graph_module.graph.nodes):
        index[node] = i
        record = (
            node.op,
            _target_name(node, graph_module),
            enc(node.args),
            enc(tuple(sorted(node.kwargs.items()))),
            enc.meta_val(node.meta.get("val")),
        )
        h.update(repr(record).encode())
        if node.op == "get_attr":
            _hash_attribute(h, graph_module, str(node.target))
    h.update(_codegen_signature(graph_module).encode())
    h.update(json.dumps(extra, sort_keys=True, default=_json_fallback).encode())
    digest = h.hexdigest()
    _log.debug("structural hash %s over %d nodes", digest[:16], len(index))
    return digest


def _target_name(node: torch.fx.Node, gm: torch.fx.GraphModule) -> str:
    target = node.target
    if node.op in ("placeholder", "output"):
        # Placeholder names vary between traces (arg0_1 vs x); position is
        # what matters and is already captured by the node index.
        return ""
    if node.op in ("call_method", "get_attr", "call_module"):
        # Method names are stable; attribute/module paths are assigned in
        # trace order by make_fx (_tensor_constant0, ...) so they are stable
        # too, and get_attr contents are hashed separately.
        if node.op == "call_module":
            sub = gm.get_submodule(str(target))
            return f"{target}:{type(sub).__module__}.{type(sub).__qualname__}"
        return str(target)
    return _callable_name(target)


def _callable_name(fn: Any) -> str:
    if isinstance(fn, torch._ops.OpOverload):
        return f"{fn._schema.name}.{fn._overloadname}"
    if isinstance(fn, torch._ops.OpOverloadPacket):
        return f"{fn._qualified_op_name}"
    if isinstance(fn, torch._ops.HigherOrderOperator):
        return f"hop::{fn.name()}"
    module = getattr(fn, "__module__", None) or ""
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if qualname is None:
        raise TypeError(f"cannot name call target {fn!r} for structural hashing")
    return f"{module}.{qualname}"


class _Encoder:
    """Turns node arguments and meta values into a deterministic tuple tree."""

    def __init__(self, index: dict[torch.fx.Node, int], gm: torch.fx.GraphModule):
        self._index = index
        self._gm = gm

    def __call__(self, x: Any) -> Any:
        if isinstance(x, torch.fx.Node):
            return ("%", self._index[x])
        if x is None or isinstance(x, (bool, str)):
            return x
        if isinstance(x, int):
            return ("i", x)
        if isinstance(x, float):
            # float.hex is exact; repr would be too, but nan/inf need care.
            return ("f", x.hex() if math.isfinite(x) else repr(x))
        if isinstance(x, complex):
            return ("c", x.real.hex(), x.imag.hex())
        if isinstance(x, (tuple, list)):
            return (type(x).__name__, tuple(self(v) for v in x))
        if isinstance(x, dict):
            return ("dict", tuple((self(k), self(v)) for k, v in x.items()))
        if isinstance(x, slice):
            return ("slice", self(x.start), self(x.stop), self(x.step))
        if isinstance(x, (torch.dtype, torch.layout, torch.memory_format)):
            return ("t", str(x))
        if isinstance(x, torch.device):
            return ("dev", x.type)  # the index is a placement decision, not code
        if isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            return ("sym", str(x))
        if isinstance(x, enum.Enum):
            return ("enum", type(x).__qualname__, x.name)
        if isinstance(x, torch.Tensor):
            # A tensor literal inside args (rare outside get_attr): by content.
            return ("tensor",) + _tensor_digest(x)
        if callable(x):
            return ("fn", _callable_name(x))
        raise TypeError(
            f"structural_hash: cannot encode argument of type {type(x).__qualname__}"
        )

    def meta_val(self, v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, torch.Tensor):  # FakeTensor in practice
            return (
                "T",
                tuple(self(s) for s in v.shape),
                str(v.dtype),
                tuple(self(s) for s in v.stride()),
                v.device.type,
            )
        if isinstance(v, (tuple, list)):
            return tuple(self.meta_val(e) for e in v)
        try:
            return self(v)
        except TypeError:
            # Meta of unusual nodes (e.g. opaque objects) only repeats what the
            # op and its inputs already determine: record the type, not repr.
            return ("opaque", type(v).__qualname__)


def _tensor_digest(t: torch.Tensor) -> tuple:
    head = (tuple(t.shape), str(t.dtype), tuple(t.stride()), t.device.type)
    if t.is_meta or isinstance(t, torch._subclasses.FakeTensor):
        return head + ("no-data",)
    data = t.detach().cpu().contiguous()
    if data.dtype == torch.bfloat16:
        data = data.view(torch.int16)  # numpy has no bf16
    return head + (hashlib.sha256(data.numpy().tobytes()).hexdigest(),)


def _hash_attribute(h: "hashlib._Hash", gm: torch.fx.GraphModule, name: str) -> None:
    obj: Any = gm
    for part in name.split("."):
        obj = getattr(obj, part)
    if isinstance(obj, torch.Tensor):
        h.update(repr(("attr",) + _tensor_digest(obj)).encode())
    elif isinstance(obj, torch.fx.GraphModule):
        h.update(structural_hash(obj, {}).encode())  # e.g. HOP subgraphs
    else:
        h.update(repr(("attr", type(obj).__qualname__)).encode())


def _codegen_signature(gm: torch.fx.GraphModule) -> str:
    """make_fx graphs flatten inputs/outputs with pytree specs: part of the ABI."""
    codegen = getattr(gm.graph, "_codegen", None)
    pytree_info = getattr(codegen, "pytree_info", None)
    if pytree_info is None:
        return "plain"
    return f"pytree:{pytree_info.in_spec}:{pytree_info.out_spec}"


def _json_fallback(o: Any) -> Any:
    if isinstance(o, (set, frozenset)):
        return sorted(o, key=repr)
    if isinstance(o, (tuple, list)):
        return list(o)
    text = str(o)
    if " at 0x" in text:
        raise TypeError(f"structural_hash: extra value {o!r} has no stable text form")
    return text
