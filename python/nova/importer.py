"""Captured FX graph -> torch-dialect MLIR text (torch-mlir's FX importer).

The text is printed in GENERIC op form with debug locations: Nova's compiler
is built on a different MLIR version than torch-mlir and does not register the
torch dialect, so it must parse this text with unregistered dialects allowed
(generic form is the stable interchange format across versions).

Locations come from each FX node's `stack_trace` (set and trimmed to user
frames by nova.capture): the importer turns the innermost frame into
`loc("file.py":LINE:0)` and wraps outer frames as `callsite(... at ...)`.
Columns are always 0 (the importer reads file and line only).
"""

from __future__ import annotations

import logging
import os
import time

from nova.capture import CapturedGraph

__all__ = ["import_to_torch_mlir"]

log = logging.getLogger(__name__)


def import_to_torch_mlir(
    captured: CapturedGraph, func_name: str = "main", source_root: str | None = None
) -> str:
    """Imports `captured` as `func.func @<func_name>` and returns the module text.

    Custom optimizer ops come out as
    `"torch.operator"(...) <{name = "torch.nova.sgd"}>` (resp. `torch.nova.adamw`)
    with one result per tensor the op returns.

    With `source_root`, location file names under it are made relative to it
    (stable text for checked-in test inputs).
    """
    # Lazy: the runtime side of Nova must import without torch-mlir installed.
    from torch_mlir import ir
    from torch_mlir.dialects import torch as torch_d
    from torch_mlir.extras.fx_importer import FxImporter

    start = time.perf_counter()
    context = ir.Context()
    torch_d.register_dialect(context)
    importer = FxImporter(context=context)
    importer.import_stateless_graph(captured.graph_module.graph, func_name=func_name)
    text = importer.module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    if source_root is not None:
        # File names appear only in locations, always right after a quote.
        text = text.replace('"' + os.path.join(os.path.abspath(source_root), ""), '"')
    log.info("imported %s: %d bytes in %.2fs", func_name, len(text), time.perf_counter() - start)
    return text
