"""The capture key: a digest of everything a train step's capture depends on,
computed without capturing, so a warm process finds its compiled step
without tracing the model again (capture is most of a warm start: ~5 s for
gpt-146m on two cores).

What goes in (anything else makes the key None, and the step is captured):

- the model's module tree: each module's name, class and train/eval mode,
  its plain attributes (numbers, strings, dtypes, configs, small tensors by
  value, ...) and its forward/backward hooks; every parameter's and buffer's
  name, shape, dtype, device, requires_grad and which ones are the same
  tensor (tied weights);
- the code that runs: every class and function of the user's own code that
  the model's classes, the loss function and the hooks reach (bytecode,
  constants, defaults, closures, and the globals each one names, recursively;
  a module named as a global by its source file), while code from an
  installed, non-editable distribution (torch, transformers, nova) counts by
  its version;
- the optimizer: its class, which parameters each group holds, every group
  setting except the learning rate (an input of the step), and which state
  each parameter has (keys, shapes, dtypes; not values);
- the batch's shapes, dtypes and devices, and `nova.jit`'s options, torch's
  float32 matmul precision and the versions of Python, torch and Nova.

`NOVA_CAPTURE_KEY=0` always captures.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import importlib.metadata
import json
import logging
import os
import sys
import types
from typing import Any, Callable, Iterator

import torch
from torch import nn

log = logging.getLogger(__name__)

__all__ = ["ENV", "enabled", "train_step_capture_key"]

ENV = "NOVA_CAPTURE_KEY"

# Tensors held as plain attributes are keyed by value up to this many bytes.
_MAX_TENSOR_BYTES = 1 << 20
_MAX_DEPTH = 24
# nn.Module's own bookkeeping: tensors and submodules are keyed separately,
# and state-dict hooks do not change what a step computes.
_MODULE_INTERNALS = frozenset({
    "_parameters", "_buffers", "_modules", "_non_persistent_buffers_set", "training",
    "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks", "_is_full_backward_hook", "_compiled_call_impl",
})


def enabled() -> bool:
    """Whether warm processes look steps up by capture key (NOVA_CAPTURE_KEY,
    default 1)."""
    return os.environ.get(ENV, "1") != "0"


class _Unkeyable(Exception):
    """A value the key cannot stand for: the step is captured instead."""


def train_step_capture_key(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[..., Any] | None,
    batch: tuple[torch.Tensor, ...],
    options: dict[str, Any],
) -> str | None:
    """The capture key of a train step (see the module doc), or None where
    something it depends on cannot be keyed (logged). `options` holds the
    rest of what the compiled step depends on (jit options, target, switches),
    JSON-serializable."""
    if not enabled():
        return None
    keyer = _Keyer()
    try:
        keyer.feed("options", json.dumps(options, sort_keys=True, default=str))
        keyer.feed("versions", sys.version, torch.__version__)
        keyer.feed("batch", [(tuple(t.shape), str(t.dtype), t.device.type) for t in batch])
        keyer.module_tree(model)
        keyer.optimizer(model, optimizer)
        keyer.feed("loss_fn", keyer.value(loss_fn))
    except _Unkeyable as e:
        log.info("nova.jit: no capture key (%s): capturing", e)
        return None
    except Exception as e:  # a value whose inspection fails: capture as without the key
        log.info("nova.jit: no capture key (%s: %s): capturing", type(e).__name__, e)
        return None
    return keyer.hexdigest()


@functools.lru_cache(maxsize=None)
def _packages() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


@functools.lru_cache(maxsize=None)
def _distribution_version(top_level: str) -> str | None:
    """'name==version' of the installed, non-editable distribution that
    provides package `top_level`, or None (the user's own code)."""
    if top_level in sys.stdlib_module_names or top_level in ("builtins", "_abc"):
        return f"python=={sys.version.split()[0]}"
    names = _packages().get(top_level)
    if not names:
        return None
    try:
        dist = importlib.metadata.distribution(names[0])
        direct = dist.read_text("direct_url.json")
    except (importlib.metadata.PackageNotFoundError, OSError, ValueError):
        return None  # keyed as the user's own code
    if direct and json.loads(direct).get("dir_info", {}).get("editable"):
        return None  # installed from a working tree the user may edit
    return f"{dist.metadata['Name']}=={dist.version}"


def _library(module_name: str | None) -> str | None:
    if not module_name or module_name == "__main__":
        return None
    return _distribution_version(module_name.split(".")[0])


@functools.lru_cache(maxsize=None)
def _file_digest(path: str, mtime_ns: int) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class _Keyer:
    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        # Per object: its token once done, "cycle" while being keyed.
        self._seen: dict[int, Any] = {}
        self._keep: list[Any] = []  # ids stay unique while keyed

    def hexdigest(self) -> str:
        return self._hash.hexdigest()

    def feed(self, tag: str, *values: Any) -> None:
        self._hash.update(repr((tag, values)).encode())

    # -- the model ----------------------------------------------------------

    def module_tree(self, model: nn.Module) -> None:
        first_name: dict[int, str] = {}
        for kind, named in (("param", model.named_parameters(remove_duplicate=False)),
                            ("buffer", model.named_buffers(remove_duplicate=False))):
            for name, t in named:
                tied = first_name.setdefault(id(t), name)
                self.feed(kind, name, tuple(t.shape), str(t.dtype), t.device.type, t.requires_grad, tied)
        for name, module in model.named_modules(remove_duplicate=False):
            persistent = sorted(set(module._buffers) - module._non_persistent_buffers_set)
            self.feed("module", name, self.value(type(module)), module.training, persistent)
            for attr, v in sorted(vars(module).items()):
                if attr in _MODULE_INTERNALS:
                    continue
                if "hooks" in attr and isinstance(v, dict):  # by handle id: keyed in order
                    v = list(v.values())
                self.feed("attr", name, attr, self.value(v))

    def optimizer(self, model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
        position = {id(p): i for i, p in enumerate(model.parameters())}
        self.feed("optimizer", self.value(type(optimizer)))
        for group in optimizer.param_groups:
            members = [position.get(id(p), -1) for p in group["params"]]
            settings = {k: v for k, v in group.items() if k not in ("params", "lr")}
            self.feed("group", members, self.value(settings))
            for p in group["params"]:
                state = optimizer.state.get(p, {})
                self.feed("state", sorted(
                    (k, (tuple(v.shape), str(v.dtype)) if isinstance(v, torch.Tensor) else type(v).__name__)
                    for k, v in state.items()))

    # -- values -------------------------------------------------------------

    def value(self, v: Any, depth: int = 0) -> Any:
        """A token standing for `v` (what the trace can read of it)."""
        if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
            return v
        if isinstance(v, (torch.dtype, torch.device, torch.Size, torch.memory_format, torch.layout)):
            return str(v)
        if isinstance(v, enum.Enum):
            return (type(v).__qualname__, v.name)
        if depth > _MAX_DEPTH:
            raise _Unkeyable(f"a value nested over {_MAX_DEPTH} deep")
        token = self._seen.get(id(v))
        if token is not None:
            return token
        self._seen[id(v)] = "cycle"
        self._keep.append(v)
        token = self._object(v, depth + 1)
        self._seen[id(v)] = token if not isinstance(token, (list, dict)) else repr(token)
        return token

    def _object(self, v: Any, depth: int) -> Any:
        if isinstance(v, (tuple, list, set, frozenset)):
            items = [self.value(x, depth) for x in v]
            return (type(v).__name__, sorted(map(repr, items)) if isinstance(v, (set, frozenset)) else items)
        if isinstance(v, dict):
            return ("dict", sorted((repr(self.value(k, depth)), repr(self.value(x, depth))) for k, x in v.items()))
        if isinstance(v, torch.Tensor):
            return self._tensor(v)
        if isinstance(v, type):
            return self._class(v)
        if isinstance(v, types.ModuleType):
            return self._module(v)
        if isinstance(v, (types.FunctionType, types.MethodType, types.BuiltinFunctionType,
                          functools.partial, staticmethod, classmethod, property)):
            return self._callable(v, depth)
        if isinstance(v, nn.Module):  # a module held outside the tree (a loss)
            return ("module", self._class(type(v)), v.training,
                    [(k, self.value(x, depth)) for k, x in sorted(vars(v).items()) if k not in _MODULE_INTERNALS])
        if isinstance(v, torch.optim.Optimizer):
            raise _Unkeyable("an optimizer held by the model")
        if dataclasses.is_dataclass(v) or hasattr(v, "__dict__"):
            # A library object's stored hash is derived from its other fields
            # (and from Python's per-process string hashing, e.g.
            # transformers' GenerationConfig._original_object_hash).
            derived = _library(type(v).__module__) is not None
            fields = vars(v) if hasattr(v, "__dict__") else {f.name: getattr(v, f.name) for f in dataclasses.fields(v)}
            return ("object", self._class(type(v)),
                    [(k, self.value(x, depth)) for k, x in sorted(fields.items())
                     if not (derived and k.lower().endswith("hash"))])
        if _library(type(v).__module__) is not None and hasattr(v, "__reduce_ex__"):
            return ("library-object", self._class(type(v)), repr(v))
        raise _Unkeyable(f"a {type(v).__qualname__}")

    def _tensor(self, t: torch.Tensor) -> Any:
        if t.is_meta or t.untyped_storage().nbytes() > _MAX_TENSOR_BYTES:
            raise _Unkeyable(f"a tensor attribute of {tuple(t.shape)} (its values are traced as constants)")
        data = t.detach().cpu().contiguous()
        digest = hashlib.sha256(data.view(torch.uint8).numpy().tobytes() if data.numel() else b"").hexdigest()
        return ("tensor", tuple(t.shape), str(t.dtype), t.device.type, digest)

    def _module(self, module: types.ModuleType) -> Any:
        library = _library(module.__name__)
        if library is not None:
            return ("library", library)
        path = getattr(module, "__file__", None)
        if not path:
            raise _Unkeyable(f"module {module.__name__} without a source file")
        return ("source", module.__name__, _file_digest(path, os.stat(path).st_mtime_ns))

    def _class(self, cls: type) -> Any:
        library = _library(cls.__module__)
        if library is not None:
            return ("library", library, cls.__module__, cls.__qualname__)
        members = []
        for base in cls.__mro__:
            if _library(base.__module__) is not None:
                members.append(self._class(base))
                continue
            for name, attr in sorted(vars(base).items()):
                # Python's own class bookkeeping (the dunder data, ABC caches).
                dunder_data = name.startswith("__") and name.endswith("__") and not callable(attr)
                if dunder_data or name == "__weakref__" or name.startswith("_abc_"):
                    continue
                members.append((name, self.value(attr)))
        return ("class", cls.__module__, cls.__qualname__, members)

    def _callable(self, fn: Any, depth: int) -> Any:
        if isinstance(fn, (staticmethod, classmethod)):
            return (type(fn).__name__, self.value(fn.__func__, depth))
        if isinstance(fn, property):
            return ("property", self.value(fn.fget, depth), self.value(fn.fset, depth))
        if isinstance(fn, functools.partial):
            return ("partial", self.value(fn.func, depth), self.value(fn.args, depth), self.value(fn.keywords, depth))
        if isinstance(fn, types.MethodType):
            return ("method", self.value(fn.__func__, depth), self.value(fn.__self__, depth))
        library = _library(getattr(fn, "__module__", None))
        if library is not None or isinstance(fn, types.BuiltinFunctionType):
            return ("library", library, getattr(fn, "__module__", None), getattr(fn, "__qualname__", repr(fn)))
        code = fn.__code__
        closure = [self.value(cell.cell_contents, depth) for cell in fn.__closure__ or ()]
        referenced = {name: self.value(fn.__globals__[name], depth)
                      for name in sorted(set(_names(code))) if name in fn.__globals__}
        return ("function", fn.__module__, fn.__qualname__, _code_token(code),
                self.value(fn.__defaults__, depth), self.value(fn.__kwdefaults__, depth), closure, referenced)


def _names(code: types.CodeType) -> Iterator[str]:
    """Every name `code` and its nested code objects load (globals, and
    attribute names, which is more than needed)."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _code_token(code: types.CodeType) -> Any:
    consts = tuple(
        _code_token(c) if isinstance(c, types.CodeType)
        else repr(sorted(map(repr, c))) if isinstance(c, frozenset)  # repr's order follows string hashing
        else repr(c)
        for c in code.co_consts
    )
    return (code.co_code.hex(), consts, code.co_names, code.co_varnames, code.co_freevars)
