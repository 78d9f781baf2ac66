"""What a compiled module allocates on its device, as IREE planned it.

IREE packs every value a function holds on the device into a few
allocations (`stream.resource.alloca`): one slab per execution region for its
transients, laid out by liveness (values that are never alive together share
bytes), or the part of the caller's transient storage a step uses, the
module's variables (a train step's state), the results it hands
out. Their sizes are static for static shapes and fixed once
`iree-stream-layout-slices` has run, so iree-compile prints each function's IR
after that pass into a directory (`--mlir-print-ir-tree-dir`) and `read`
sums the allocations per function and lifetime. The dump is a few MiB of
text and adds no measurable time to a compile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MemoryPlan", "iree_flags", "read"]

_PASS = "iree-stream-layout-slices"
# `%r, %t = stream.resource.alloca ... : !stream.resource<transient>{%c123_4}`
_ALLOCA = re.compile(r"stream\.resource\.alloca\b.*?!stream\.resource<(\w+)>\{(%[\w]+)\}")
# Caller-provided transient storage (`iree.abi.transients`): imported, then
# `%t = stream.resource.subview %i[%c0] : !stream.resource<transient>{%length}
# -> !stream.resource<transient>{%c123}`, the size the step uses of it.
_CALLER_TRANSIENTS = re.compile(
    r"stream\.resource\.subview %\w+\[%\w+\] : !stream\.resource<transient>\{%length\w*\} -> "
    r"!stream\.resource<transient>\{(%\w+)\}")
_CONSTANT = re.compile(r"^\s*(%[\w]+) = arith\.constant (\d+) : index", re.M)
# `util_func_step`, `util_initializer_no-symbol-name`
_FUNCTION_DIR = re.compile(r"^util_(?:func_(.+)|initializer.*)$")


@dataclass(frozen=True)
class MemoryPlan:
    """Bytes a module's functions allocate, per function and resource
    lifetime ("transient", "variable", "external", "constant")."""

    allocations: dict[str, dict[str, int]] = field(default_factory=dict)

    def bytes(self, function: str, lifetime: str) -> int:
        return self.allocations.get(function, {}).get(lifetime, 0)

    def to_json(self) -> dict[str, dict[str, int]]:
        return {f: dict(sorted(a.items())) for f, a in sorted(self.allocations.items())}

    @classmethod
    def from_json(cls, data: dict[str, dict[str, int]]) -> MemoryPlan:
        return cls({f: {k: int(v) for k, v in a.items()} for f, a in data.items()})


def iree_flags(directory: Path) -> list[str]:
    """iree-compile flags that write what `read(directory)` reads."""
    return [f"--mlir-print-ir-after={_PASS}", f"--mlir-print-ir-tree-dir={directory}"]


def read(directory: Path) -> MemoryPlan:
    """The allocations of each function, from its last dump after the pass
    (the pass runs more than once; the last run's sizes are final). Module
    initializers count as "<initializer>"."""
    allocations: dict[str, dict[str, int]] = {}
    for function_dir in sorted(p for p in Path(directory).glob("*/*") if p.is_dir()):
        m = _FUNCTION_DIR.match(function_dir.name)
        if m is None:
            continue
        dumps = sorted(function_dir.glob(f"*_{_PASS}.mlir"), key=_dump_order)
        if not dumps:
            continue
        text = dumps[-1].read_text()
        constants = {name: int(value) for name, value in _CONSTANT.findall(text)}
        per_lifetime = allocations.setdefault(m.group(1) or "<initializer>", {})
        allocas = _ALLOCA.findall(text) + [("transient", size) for size in _CALLER_TRANSIENTS.findall(text)]
        for lifetime, size in allocas:
            if size not in constants:
                raise ValueError(f"allocation of a dynamic size {size} in {function_dir.name}")
            per_lifetime[lifetime] = per_lifetime.get(lifetime, 0) + constants[size]
    return MemoryPlan(allocations)


def _dump_order(path: Path) -> tuple[int, ...]:
    # "0_1_iree-stream-layout-slices.mlir": the pass's run counters.
    return tuple(int(x) for x in path.name.split("_")[:2] if x.isdigit())
