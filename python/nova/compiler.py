"""The nova MLIR compiler, from Python: parse text, run a pass pipeline, print."""

from __future__ import annotations

import logging

from . import _compiler

log = logging.getLogger(__name__)


class CompilerError(RuntimeError):
    """A pipeline failed; `diagnostics` holds MLIR's rendered messages."""

    def __init__(self, pipeline: str, diagnostics: str) -> None:
        super().__init__(f"nova pipeline '{pipeline}' failed:\n{diagnostics}")
        self.pipeline = pipeline
        self.diagnostics = diagnostics


def run_pipeline(
    module: str,
    pipeline: str,
    *,
    allow_unregistered_dialects: bool = False,
    generic_output: bool = False,
    print_locations: bool = False,
) -> str:
    """Runs `pipeline` (e.g. "nova-optimize") over `module` text and returns the
    result as text. Malformed IR or a failing pass raises CompilerError."""
    ok, output, diagnostics = _compiler.run_pipeline(
        module,
        pipeline,
        allow_unregistered_dialects=allow_unregistered_dialects,
        generic_output=generic_output,
        print_locations=print_locations,
    )
    if not ok:
        raise CompilerError(pipeline, diagnostics)
    if diagnostics:
        log.warning("%s: %s", pipeline, diagnostics)
    return output


def mlir_version() -> str:
    return _compiler.mlir_version()
