"""Capture a whole training step (forward + backward + optimizer) as ONE FX graph.

The captured graph is a pure function over a flat list of tensors:

  inputs  = params            (role "param";   trainable parameters, model order,
                               tied weights once -- `model.named_parameters()`)
          + buffers           (role "buffer";  buffers and frozen parameters;
                               a buffer the forward writes, e.g. BatchNorm's
                               running statistics, is updated by the step)
          + optimizer state   (role "opt_state"; for each param in order, each
                               state key: SGD `momentum_buffer`; AdamW
                               `exp_avg`, `exp_avg_sq`)
          + hyperparameters   (role "hyper"; 0-d float32, per param group in
                               order: SGD lr, momentum, dampening, weight_decay,
                               is_first_step; AdamW lr, beta1, beta2, eps,
                               weight_decay, step)
          + batch             (role "batch"; the batch tuple as given)
          + seed              (role "seed"; only when the step draws random
                               numbers, e.g. dropout: a 0-d int64 tensor
                               drawn from torch's generator for each step,
                               see nova.random_ops)
  outputs = loss (role "loss") + new params + new values of the buffers the
            forward wrote (`TrainLayout.updated_buffers`) + new optimizer
            state (same orders).

Hyperparameters are inputs, so a changed learning rate (or the advancing step
count) needs no recompilation. Structural choices (nesterov, the param group
of each parameter) are baked in and checked again on every step.

`train_step_inputs` / `apply_train_step_outputs` convert between a live
model + torch.optim optimizer and that flat signature, keeping
`model.state_dict()` and `optimizer.state_dict()` identical in layout to what
eager torch would produce.

Tracing uses make_fx with fake tensors and torch-mlir's decomposition table,
under the MATH SDPA backend (other SDPA backends decompose to WRONG gradients)
and optionally under autocast. `scaled_dot_product_attention` calls without a
mask or dropout are captured whole, as the nova::attention custom op and its
backward (nova.attention_ops). FX nodes carry `stack_trace` metadata trimmed to
user frames (forward ops: the model line; backward ops: the line of the
forward op they differentiate; optimizer ops: the call site here), which the
torch-mlir importer turns into MLIR file locations.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import operator
import os
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
import torch.fx
import torch.fx.traceback as fx_traceback
from torch import Tensor, nn
from torch._decomp import get_decompositions
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils import _pytree as pytree

from nova import attention_ops, collective_ops, loss_ops, norm_ops, optim_ops, random_ops

__all__ = [
    "TensorSpec",
    "TrainLayout",
    "CapturedGraph",
    "capture_train_step",
    "capture_function",
    "train_step_inputs",
    "apply_train_step_outputs",
    "train_step_hyper_values",
    "optimizer_state_summary",
    "draw_seed",
    "module_tensors",
]

log = logging.getLogger(__name__)

ROLE_PARAM = "param"
ROLE_BUFFER = "buffer"
ROLE_OPT_STATE = "opt_state"
ROLE_HYPER = "hyper"
ROLE_BATCH = "batch"
ROLE_SEED = "seed"
ROLE_LOSS = "loss"
ROLE_INPUT = "input"
ROLE_OUTPUT = "output"

_HYPER_DTYPE = torch.float32


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    role: str
    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype


@dataclasses.dataclass(frozen=True)
class TrainLayout:
    """How a live model + optimizer map onto a captured train step's signature."""

    optimizer_kind: str  # "sgd", "adam", "adamw", "adam-amsgrad" or "adamw-amsgrad"
    param_names: tuple[str, ...]  # role "param", graph order
    param_group_of: tuple[int, ...]  # optimizer param group of each param
    buffer_names: tuple[str, ...]  # role "buffer", graph order
    state_keys: tuple[str, ...]  # torch optimizer.state keys per param, graph order
    hyper_keys: tuple[str, ...]  # per group, graph order
    group_flags: tuple[tuple[Any, ...], ...]  # baked-in structural options per group
    num_batch: int
    # The buffers the forward writes (BatchNorm's running statistics), in
    # buffer order: found while tracing, so not part of the structure check.
    updated_buffers: tuple[str, ...] = ()
    # Whether the step draws random numbers (dropout): then it takes a seed
    # after the batch. Found while tracing, like updated_buffers.
    random: bool = False


@dataclasses.dataclass
class CapturedGraph:
    graph_module: torch.fx.GraphModule
    input_specs: list[TensorSpec]
    output_specs: list[TensorSpec]
    train_layout: TrainLayout | None = None
    # torch's float32 matmul precision when captured: "highest" keeps f32
    # accuracy, "high"/"medium" allow TF32 (see f32_matmul_precision()).
    f32_matmul_precision: str = "highest"
    # Ranks of the data-parallel group the step averages its gradients over.
    world_size: int = 1


def f32_matmul_precision() -> str:
    """torch's current float32 matmul precision: `torch.get_float32_matmul_precision()`,
    or "high" when TF32 was allowed through `torch.backends.cuda.matmul.allow_tf32`."""
    precision = torch.get_float32_matmul_precision()
    if precision == "highest" and torch.backends.cuda.matmul.allow_tf32:
        return "high"
    return precision


# --------------------------------------------------------------------------
# Optimizer rules: torch.optim semantics <-> nova custom ops.
# --------------------------------------------------------------------------


def _scalar(value: Any) -> float:
    return float(value.item() if isinstance(value, Tensor) else value)


class _SGDRule:
    kind = "sgd"
    state_keys = ("momentum_buffer",)
    hyper_keys = ("lr", "momentum", "dampening", "weight_decay", "is_first_step")

    @staticmethod
    def check_group(group: dict[str, Any]) -> None:
        if group.get("maximize", False):
            raise NotImplementedError("torch.optim.SGD(maximize=True) is not supported by Nova")

    @staticmethod
    def group_flags(group: dict[str, Any]) -> tuple[Any, ...]:
        return (bool(group.get("nesterov", False)),)

    @staticmethod
    def state_summary(states: list[dict[str, Any]]) -> bool:
        """Whether the group's parameters have momentum buffers: torch keeps
        none until the first momentum step; one graph covers both cases by
        selecting on is_first_step."""
        has_buf = [s.get("momentum_buffer") is not None for s in states]
        if any(has_buf) and not all(has_buf):
            raise ValueError(
                "SGD param group mixes parameters with and without momentum_buffer; "
                "Nova needs one first-step flag per group"
            )
        return bool(has_buf) and all(has_buf)

    @staticmethod
    def hyper_values(group: dict[str, Any], has_buffers: bool, steps_on_device: int) -> list[float]:
        return [
            _scalar(group["lr"]),
            _scalar(group["momentum"]),
            _scalar(group["dampening"]),
            _scalar(group["weight_decay"]),
            0.0 if has_buffers or steps_on_device else 1.0,
        ]

    @staticmethod
    def update(
        param: Tensor, grad: Tensor, state: list[Tensor], hyper: list[Tensor], flags: tuple[Any, ...]
    ) -> tuple[Tensor, list[Tensor]]:
        lr, momentum, dampening, weight_decay, is_first = hyper
        new_param, new_buf = optim_ops.SGD_OP(
            param, grad, state[0], lr, momentum, dampening, weight_decay, is_first, flags[0]
        )
        return new_param, [new_buf]

    @staticmethod
    def new_state(
        old: dict[str, Any], new_state: list[Tensor], group: dict[str, Any], param: Tensor, steps: int = 1
    ) -> dict[str, Any] | None:
        # Mirrors torch: no state at all unless momentum is used.
        if _scalar(group["momentum"]) == 0:
            return None
        return {**old, "momentum_buffer": new_state[0]}


class _AdamWRule:
    """torch.optim.AdamW; the subclasses below cover torch.optim.Adam (L2
    weight decay added to the gradient, `decoupled = False`) and amsgrad
    (the running maximum of exp_avg_sq as a third state tensor)."""

    kind = "adamw"
    name = "torch.optim.AdamW"
    decoupled = True
    amsgrad = False
    state_keys: tuple[str, ...] = ("exp_avg", "exp_avg_sq")
    hyper_keys = ("lr", "beta1", "beta2", "eps", "weight_decay", "step")

    @classmethod
    def check_group(cls, group: dict[str, Any]) -> None:
        if group.get("maximize", False):
            raise NotImplementedError(f"{cls.name}(maximize=True) is not supported by Nova")
        if bool(group.get("amsgrad", False)) != cls.amsgrad:
            raise NotImplementedError(
                f"{cls.name}: param groups with and without amsgrad are not supported by Nova"
            )

    @staticmethod
    def group_flags(group: dict[str, Any]) -> tuple[Any, ...]:
        return ()

    @staticmethod
    def state_summary(states: list[dict[str, Any]]) -> float:
        """The steps the group's parameters have taken (one count for all)."""
        steps = {_scalar(s["step"]) if "step" in s else 0.0 for s in states}
        if len(steps) > 1:
            raise ValueError(f"AdamW param group has parameters at different steps {sorted(steps)}")
        return steps.pop() if steps else 0.0

    @classmethod
    def hyper_values(cls, group: dict[str, Any], steps_taken: float, steps_on_device: int) -> list[float]:
        beta1, beta2 = group["betas"]
        return [
            _scalar(group["lr"]),
            _scalar(beta1),
            _scalar(beta2),
            _scalar(group["eps"]),
            _scalar(group["weight_decay"]),
            steps_taken + steps_on_device + 1.0,  # the op takes the already-incremented count
        ]

    @classmethod
    def update(
        cls, param: Tensor, grad: Tensor, state: list[Tensor], hyper: list[Tensor], flags: tuple[Any, ...]
    ) -> tuple[Tensor, list[Tensor]]:
        lr, beta1, beta2, eps, weight_decay, step = hyper
        if not cls.decoupled:
            # Adam: L2 decay enters the moments through the gradient.
            grad = grad + weight_decay * param
            weight_decay = weight_decay * 0
        if not cls.amsgrad:
            new_param, exp_avg, exp_avg_sq = optim_ops.ADAMW_OP(
                param, grad, state[0], state[1], step, lr, beta1, beta2, eps, weight_decay
            )
            return new_param, [exp_avg, exp_avg_sq]
        # amsgrad as traced elementwise ops (the same arithmetic as the
        # nova::adamw kernel), which the compiler fuses like any other.
        new_param, exp_avg, exp_avg_sq, max_exp_avg_sq = optim_ops.adam_arithmetic(
            param, grad, state[0], state[1], step, lr, beta1, beta2, eps, weight_decay, state[2]
        )
        return new_param, [exp_avg, exp_avg_sq, max_exp_avg_sq]

    @classmethod
    def new_state(
        cls, old: dict[str, Any], new_state: list[Tensor], group: dict[str, Any], param: Tensor, steps: int = 1
    ) -> dict[str, Any] | None:
        old_step = old.get("step")
        if isinstance(old_step, Tensor):
            step = old_step + steps  # keeps torch's dtype/device choice for the step tensor
        else:
            # torch's default: a float32 CPU scalar unless capturable/fused.
            dev = param.device if group.get("capturable") or group.get("fused") else "cpu"
            step = torch.tensor(cls.state_summary([old]) + steps, dtype=_HYPER_DTYPE, device=dev)
        # Same key order as torch.optim.Adam._init_group.
        return {"step": step, **dict(zip(cls.state_keys, new_state))}


class _AdamWAmsgradRule(_AdamWRule):
    kind = "adamw-amsgrad"
    amsgrad = True
    state_keys = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")


class _AdamRule(_AdamWRule):
    kind = "adam"
    name = "torch.optim.Adam"
    decoupled = False


class _AdamAmsgradRule(_AdamRule):
    kind = "adam-amsgrad"
    amsgrad = True
    state_keys = _AdamWAmsgradRule.state_keys


def _adam_rule(optimizer: torch.optim.Optimizer) -> Any:
    groups = optimizer.param_groups
    amsgrad = bool(groups and groups[0].get("amsgrad", False))
    # Adam(decoupled_weight_decay=True) is AdamW.
    decoupled = type(optimizer) is torch.optim.AdamW or bool(groups and groups[0].get("decoupled_weight_decay", False))
    if any(bool(g.get("decoupled_weight_decay", False)) != bool(groups[0].get("decoupled_weight_decay", False)) for g in groups):
        raise NotImplementedError("torch.optim.Adam: param groups disagreeing on decoupled_weight_decay")
    if decoupled:
        return _AdamWAmsgradRule if amsgrad else _AdamWRule
    return _AdamAmsgradRule if amsgrad else _AdamRule


_RULES: dict[type, Any] = {torch.optim.SGD: lambda _: _SGDRule, torch.optim.AdamW: _adam_rule, torch.optim.Adam: _adam_rule}


def _rule_for(optimizer: torch.optim.Optimizer) -> Any:
    # Exact type match: a subclass may override step() with other math.
    choose = _RULES.get(type(optimizer))
    if choose is None:
        cls = type(optimizer)
        raise NotImplementedError(
            f"Nova cannot capture optimizer {cls.__module__}.{cls.__qualname__}; "
            "supported: torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW"
        )
    rule = choose(optimizer)
    for group in optimizer.param_groups:
        rule.check_group(group)
    return rule


# --------------------------------------------------------------------------
# Layout: live model/optimizer <-> flat signature.
# --------------------------------------------------------------------------


def _plan_layout(
    model: nn.Module, optimizer: torch.optim.Optimizer, rule: Any, num_batch: int
) -> TrainLayout:
    group_of_param: dict[int, int] = {}
    for gi, group in enumerate(optimizer.param_groups):
        for p in group["params"]:
            group_of_param[id(p)] = gi
    param_names, groups, frozen = [], [], []
    # named_parameters() lists a tied weight once, so it becomes one input
    # whose gradient accumulates over all its uses.
    for name, p in model.named_parameters():
        if p.requires_grad and id(p) in group_of_param:
            param_names.append(name)
            groups.append(group_of_param[id(p)])
        else:
            frozen.append(name)
    known = {id(p) for _, p in model.named_parameters()}
    if any(pid not in known for pid in group_of_param):
        raise ValueError("optimizer holds parameters that are not in the model")
    buffer_names = frozen + [name for name, _ in model.named_buffers()]
    return TrainLayout(
        optimizer_kind=rule.kind,
        param_names=tuple(param_names),
        param_group_of=tuple(groups),
        buffer_names=tuple(buffer_names),
        state_keys=rule.state_keys,
        hyper_keys=rule.hyper_keys,
        group_flags=tuple(rule.group_flags(g) for g in optimizer.param_groups),
        num_batch=num_batch,
    )


def module_tensors(module: nn.Module) -> list[Tensor]:
    """A module's parameters then buffers, in the order capture_function lifts them."""
    return list(_named_tensors(module).values())


def _named_tensors(model: nn.Module) -> dict[str, Tensor]:
    named = dict(model.named_parameters())
    named.update(model.named_buffers())
    return named


def _check_layout_current(
    layout: TrainLayout, model: nn.Module, optimizer: torch.optim.Optimizer
) -> Any:
    rule = _rule_for(optimizer)
    fresh = _plan_layout(model, optimizer, rule, layout.num_batch)
    if dataclasses.replace(fresh, updated_buffers=layout.updated_buffers, random=layout.random) != layout:
        raise ValueError(
            "model/optimizer structure changed since capture (parameters, param groups, "
            "optimizer kind or nesterov); capture the train step again"
        )
    return rule


def _layout_of(captured: CapturedGraph | TrainLayout) -> TrainLayout:
    layout = captured if isinstance(captured, TrainLayout) else captured.train_layout
    if layout is None:
        raise ValueError("not a captured train step")
    return layout


def train_step_inputs(
    captured: CapturedGraph | TrainLayout,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: Sequence[Tensor] | None,
    missing_state: Callable[[Tensor], Any] | None = None,
) -> list[Any]:
    """Flat input list for `captured` from the live model and optimizer.

    Hyperparameters are read fresh from `optimizer.param_groups`; missing
    optimizer state (before the first step) is zeros like its parameter, or
    what `missing_state(param)` returns for it.
    """
    layout = _layout_of(captured)
    rule = _check_layout_current(layout, model, optimizer)
    if batch is None:
        batch = []  # the caller supplies it per step
    elif len(batch) != layout.num_batch:
        raise ValueError(f"expected a batch of {layout.num_batch} tensors, got {len(batch)}")
    named = _named_tensors(model)
    params = [named[n].detach() for n in layout.param_names]
    buffers = [named[n].detach() for n in layout.buffer_names]
    states: list[Tensor] = []
    for n, p in zip(layout.param_names, params):
        # optimizer.state is keyed by the Parameter object itself.
        pstate = optimizer.state.get(named[n], {})
        for key in layout.state_keys:
            s = pstate.get(key)
            if s is None:
                s = missing_state(p) if missing_state else torch.zeros_like(p, memory_format=torch.preserve_format)
            states.append(s)
    seed = [draw_seed(params[0].device)] if layout.random and batch else []
    return [*params, *buffers, *states, *_hypers(rule, optimizer, params[0].device, 0), *batch, *seed]


def draw_seed(device: torch.device) -> Tensor:
    """The seed of one step's random numbers, from torch's default generator
    (so `torch.manual_seed` makes a run reproducible)."""
    return torch.randint(-(2**63), 2**63 - 1, (), dtype=torch.int64).to(device)


def optimizer_state_summary(optimizer: torch.optim.Optimizer) -> list[Any]:
    """What the hyperparameters read from `optimizer.state`, per param group
    (AdamW: the step count; SGD: whether momentum buffers exist), checked
    to be one value per group. Read when the state is uploaded, not every
    step: walking every parameter's state costs ~100 us a step on gpt-146m."""
    rule = _rule_for(optimizer)
    return [rule.state_summary([optimizer.state.get(p, {}) for p in g["params"]]) for g in optimizer.param_groups]


def train_step_hyper_values(
    captured: CapturedGraph | TrainLayout,
    optimizer: torch.optim.Optimizer,
    steps_on_device: int,
    state_summary: Sequence[Any] | None = None,
) -> list[float]:
    """The hyperparameters of the next step in signature order (the one
    tensor a compiled step takes), read fresh from `optimizer.param_groups`,
    when `steps_on_device` steps have run since `optimizer.state` was last
    written (nova.jit keeps the state on the device); `state_summary` is
    `optimizer_state_summary(optimizer)` of that state (read here if None)."""
    _layout_of(captured)
    return _hyper_values(_rule_for(optimizer), optimizer, steps_on_device, state_summary)


def _hyper_values(
    rule: Any, optimizer: torch.optim.Optimizer, steps_on_device: int, state_summary: Sequence[Any] | None = None
) -> list[float]:
    summary = state_summary if state_summary is not None else optimizer_state_summary(optimizer)
    values: list[float] = []
    for group, group_summary in zip(optimizer.param_groups, summary, strict=True):
        values.extend(rule.hyper_values(group, group_summary, steps_on_device))
    return values


def _hypers(rule: Any, optimizer: torch.optim.Optimizer, device: torch.device, steps_on_device: int) -> list[Tensor]:
    return [torch.tensor(v, dtype=_HYPER_DTYPE, device=device) for v in _hyper_values(rule, optimizer, steps_on_device)]


def apply_train_step_outputs(
    captured: CapturedGraph | TrainLayout,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    outputs: Sequence[Tensor | None],
    steps: int = 1,
) -> Tensor | None:
    """Writes a step's outputs back into the model's parameters (in place, so
    the optimizer's references stay valid) and `optimizer.state` in torch's own
    format; returns the loss. `steps` is how many steps produced them since
    `optimizer.state` was last written (step counters advance by that much)."""
    layout = _layout_of(captured)
    rule = _check_layout_current(layout, model, optimizer)
    n_params, n_keys, n_buffers = len(layout.param_names), len(layout.state_keys), len(layout.updated_buffers)
    if len(outputs) != 1 + n_buffers + n_params * (1 + n_keys):
        raise ValueError(f"unexpected number of outputs: {len(outputs)}")
    loss, new_params = outputs[0], outputs[1 : 1 + n_params]
    new_buffers = outputs[1 + n_params : 1 + n_params + n_buffers]
    new_states = outputs[1 + n_params + n_buffers :]
    named = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    with torch.no_grad():
        for name, value in zip(layout.updated_buffers, new_buffers):
            buffers[name].copy_(value)
        for i, name in enumerate(layout.param_names):
            p = named[name]
            p.copy_(new_params[i])
            group = optimizer.param_groups[layout.param_group_of[i]]
            # .get: optimizer.state is a defaultdict, and torch creates no
            # entry for a parameter without state (SGD without momentum).
            new = rule.new_state(
                optimizer.state.get(p, {}), list(new_states[i * n_keys : (i + 1) * n_keys]), group, p, steps
            )
            if new is not None:
                optimizer.state[p] = new
    return loss


# --------------------------------------------------------------------------
# Source locations on FX nodes.
# --------------------------------------------------------------------------

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_THIS_FILE = os.path.abspath(__file__)


def _trim_stack_trace(stack_trace: str) -> str:
    """Keeps the user's frames: drops torch internals (nn.Linear.forward etc.)
    and this module's wrapper frames unless nothing else is left."""
    frames = traceback.StackSummary.from_list(
        [
            (f, int(line), name, text)
            for f, line, name, text in _parse_frames(stack_trace)
        ]
    )
    keep = [f for f in frames if not f.filename.startswith(_TORCH_DIR)]
    user = [f for f in keep if os.path.abspath(f.filename) != _THIS_FILE]
    keep = user or keep
    if not keep:
        return stack_trace
    return "".join(traceback.StackSummary.from_list(keep).format()).strip()


def _parse_frames(stack_trace: str) -> Iterator[tuple[str, str, str, str]]:
    lines = stack_trace.splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith('File "'):
            fname, _, rest = s[len('File "') :].partition('", line ')
            lineno, _, name = rest.partition(", in ")
            text = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if lineno.isdigit():
                yield fname, lineno, name, text


def _reject_cumulative_batch_norm(model: nn.Module) -> None:
    """BatchNorm(momentum=None) averages over num_batches_tracked through a
    host-side float() of it, which a traced step cannot do: say so, naming
    the modules, rather than fake tensors' data-dependence error."""
    modules = [
        name or type(model).__name__
        for name, m in model.named_modules()
        if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.training and m.track_running_stats and m.momentum is None
    ]
    if modules:
        raise NotImplementedError(
            f"nova.jit: BatchNorm(momentum=None) (a cumulative average over num_batches_tracked) is not supported "
            f"(modules {', '.join(modules)}); give it a momentum"
        )


def _user_frame(tb: Any) -> traceback.FrameSummary | None:
    """The innermost frame of `tb` in the user's code (neither torch's nor
    nova's, nor the standard library's)."""
    nova_dir = os.path.dirname(_THIS_FILE) + os.sep
    stdlib_dir = os.path.dirname(contextlib.__file__) + os.sep
    user = [
        f
        for f in traceback.extract_tb(tb)
        if not f.filename.startswith((_TORCH_DIR, nova_dir, stdlib_dir)) and not f.filename.startswith("<")
    ]
    return user[-1] if user else None


@contextlib.contextmanager
def _raised_at_user_line() -> Iterator[None]:
    """An error torch raises while tracing the user's code (a dtype or device
    mismatch, a bad shape) is re-raised naming the user's line, without the
    trace through torch's and nova's internals (kept as `nova_cause`)."""
    try:
        yield
    except Exception as e:
        frame = _user_frame(e.__traceback__)
        innermost = traceback.extract_tb(e.__traceback__)[-1:]
        if frame is None or not innermost or not innermost[0].filename.startswith(_TORCH_DIR):
            raise
        message = f"{e} (at {frame.filename}:{frame.lineno}, in {frame.name}: {frame.line})"
        try:
            error = type(e)(message)
        except Exception:
            error = RuntimeError(message)
        error.nova_cause = e  # type: ignore[attr-defined]
        raise error from None


@contextlib.contextmanager
def _nodes_located_here() -> Iterator[None]:
    """Gives FX nodes created inside the `with` block the `with` statement's
    line as stack trace (make_fx records none outside `forward` frames)."""
    # Stack: [the with statement, contextlib __enter__, this generator].
    where = traceback.format_list(traceback.extract_stack(limit=3)[:1])
    fx_traceback.set_stack_trace(where)
    try:
        yield
    finally:
        fx_traceback.set_stack_trace([])


@contextlib.contextmanager
def _backward_seq_nr_tracking(loss: Tensor) -> Iterator[None]:
    """Tags FX nodes created while autograd runs a grad_fn with that grad_fn's
    sequence number -- the same `seq_nr` make_fx records on the forward nodes
    that created it -- so backward nodes can inherit forward source locations
    (the same mechanism AOTAutograd uses, without its anomaly-mode stacks)."""
    handles = []
    seen: set[Any] = set()
    todo = [loss.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        seq = fn._sequence_nr()
        handles.append(fn.register_prehook(lambda _g, s=seq: fx_traceback.set_grad_fn_seq_nr(s)))
        handles.append(fn.register_hook(lambda _gi, _go: fx_traceback.reset_grad_fn_seq_nr()))
        todo.extend(f for f, _ in fn.next_functions)
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def _finish_locations(gm: torch.fx.GraphModule) -> None:
    """Backward nodes get the (trimmed) trace of the forward node with the same
    seq_nr; all traces are trimmed to user frames."""
    by_seq: dict[int, str] = {}
    for node in gm.graph.nodes:
        st = node.meta.get("stack_trace")
        seq = node.meta.get("seq_nr")
        if st and seq is not None and seq >= 0:
            by_seq.setdefault(seq, st)
    for node in gm.graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        st = node.meta.get("stack_trace")
        if not st:
            st = by_seq.get(node.meta.get("seq_nr", -1))
        if st:
            node.meta["stack_trace"] = _trim_stack_trace(st)


# --------------------------------------------------------------------------
# Tracing.
# --------------------------------------------------------------------------


def _decomposition_table() -> dict[Any, Callable[..., Any]]:
    # Imported lazily: torch_mlir is only needed where graphs are captured.
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    # torch's own decompositions of forward ops torch-mlir's table leaves
    # whole (their backward ops Nova converts); torch-mlir's win.
    aten = torch.ops.aten
    table = get_decompositions(
        [aten.elu, aten.upsample_nearest1d, aten.upsample_nearest2d, aten.upsample_nearest3d,
         aten.upsample_linear1d, aten.upsample_bilinear2d, aten.upsample_trilinear3d]
    )
    table.update(get_decomposition_table())
    # addmm stays whole: its decomposition computes bf16/f16 products in f32
    # (opmath), which turns every autocast Linear into an f32 GEMM.
    return {op: fn for op, fn in table.items() if op.overloadpacket is not aten.addmm}


def _trace(
    fn: Callable[..., Any],
    example_inputs: Sequence[Tensor],
    random: random_ops.RandomStreams | None = None,
    stack_traces: bool = True,
) -> torch.fx.GraphModule:
    # scaled_dot_product_attention without mask or dropout becomes one
    # nova.attention node (and nova.attention_backward); the other calls
    # trace through the MATH backend. cross_entropy over class indices
    # becomes nova.cross_entropy (and its backward). batch_norm is traced as
    # plain ops whose running-statistics update the trace sees; random ops
    # draw from `random`'s seed.
    with (
        _raised_at_user_line(),
        fx_traceback.preserve_node_meta(),
        sdpa_kernel(SDPBackend.MATH),
        attention_ops.route_sdpa(),
        loss_ops.route_cross_entropy(),
        norm_ops.route_batch_norm(),
    ):
        table = _decomposition_table()
        if random is not None:  # random ops draw from the step's seed
            table.update(random_ops.random_decompositions(random))
        gm = make_fx(
            fn,
            tracing_mode="fake",
            decomposition_table=table,
            record_stack_traces=stack_traces,
        )(*example_inputs)
        gm = _functionalized(gm, example_inputs, stack_traces)
    _finish_locations(gm)
    return gm


class _AtenViews(torch.fx.Interpreter):
    """Runs a graph with its prims view ops (a decomposition's squeeze) as
    their aten forms, which functionalization knows (it rejects prims ops
    whose outputs alias their inputs)."""

    def call_function(self, target: Any, args: Any, kwargs: Any) -> Any:
        if target is torch.ops.prims.squeeze.default:
            return torch.ops.aten.squeeze.dims(args[0], list(args[1]))
        return super().call_function(target, args, kwargs)


def _functionalized(
    gm: torch.fx.GraphModule, example_inputs: Sequence[Tensor], stack_traces: bool = True
) -> torch.fx.GraphModule:
    """`gm` without in-place ops (a model's `copy_` or `add_`, an activation's
    inplace path): retraced through functionalization when it has any. The
    retrace runs the graph node by node, so each new node keeps the source
    location of the one it replaces."""
    mutating = [
        n for n in gm.graph.nodes
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and n.target._schema.is_mutable
    ]
    if not mutating:
        return gm
    log.debug("functionalizing %d in-place ops (%s ...)", len(mutating), mutating[0].target)
    interpreter = _AtenViews(gm)
    return make_fx(
        torch.func.functionalize(lambda *xs: interpreter.run(*xs), remove="mutations"),
        tracing_mode="fake",
        record_stack_traces=stack_traces,
    )(*example_inputs)


def _drop_last_input(gm: torch.fx.GraphModule) -> None:
    """Removes the graph's last input (unused)."""
    last = [n for n in gm.graph.nodes if n.op == "placeholder"][-1]
    assert not last.users, "the dropped input is used"
    gm.graph.erase_node(last)
    gm.recompile()


def _output_vals(gm: torch.fx.GraphModule) -> list[Any]:
    out = next(n for n in gm.graph.nodes if n.op == "output")
    return [a.meta["val"] for a in pytree.tree_leaves(out.args[0])]


def _spec(role: str, name: str, t: Tensor) -> TensorSpec:
    return TensorSpec(role, name, tuple(int(d) for d in t.shape), t.dtype)


def _fake_inputs(real_or_shapes: Sequence[Tensor | tuple[torch.Size, torch.dtype, torch.device]]) -> list[Tensor]:
    """Fake tensors for tracing; optimizer state is described by shape only so
    capturing a large model allocates no state memory."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    # Tensors a traced function closes over stay real and become constants.
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    out = []
    for x in real_or_shapes:
        if isinstance(x, Tensor):
            out.append(mode.from_tensor(x.detach()))
        else:
            shape, dtype, device = x
            with mode:
                out.append(torch.zeros(shape, dtype=dtype, device=device))
    return out


def _check_micro_batches(batch: Sequence[Tensor], steps: int) -> None:
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"gradient_accumulation_steps must be a positive int, got {steps!r}")
    for i, b in enumerate(batch):
        if steps > 1 and (b.dim() == 0 or b.shape[0] % steps):
            raise ValueError(
                f"gradient_accumulation_steps={steps}: batch input {i} of shape {tuple(b.shape)} does not split "
                f"into {steps} equal micro-batches along dim 0"
            )


def _clip_grad_norm(grads: dict[str, Tensor], max_norm: float) -> dict[str, Tensor]:
    """torch.nn.utils.clip_grad_norm_'s arithmetic (L2), functionally: the
    global norm (the root of the per-tensor sums of squares, in f32), a
    coefficient clamped at 1."""
    squares = [(g.float() * g.float()).sum() for g in grads.values()]
    total = torch.sqrt(functools.reduce(operator.add, squares))
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return {name: g * coef.to(g.dtype) for name, g in grads.items()}


def capture_train_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[Any, Tensor], Tensor] | None,
    example_batch: tuple[Tensor, ...],
    autocast_dtype: torch.dtype | None = None,
    max_grad_norm: float | None = None,
    gradient_accumulation_steps: int = 1,
    world_size: int = 1,
    stack_traces: bool = True,
) -> CapturedGraph:
    """Traces forward + backward + optimizer update as one graph (see module doc).

    With `loss_fn` None, `model(*batch)` returns the loss; otherwise the loss
    is `loss_fn(model(*batch[:-1]), batch[-1])`. With `max_grad_norm`, the
    gradients are clipped to that global L2 norm before the update, as
    `torch.nn.utils.clip_grad_norm_` does (a constant of the graph). With
    `gradient_accumulation_steps` k > 1, every batch tensor is split along
    dim 0 into k micro-batches, each runs forward and backward in turn
    (buffers the forward writes carry over), and the update applies the mean
    of their gradients, as eager's `(loss / k).backward()` per micro-batch
    followed by `optimizer.step()`; the step's loss is the mean loss. With
    `world_size` > 1 (data parallelism) each gradient is averaged over the
    ranks (`nova::all_reduce`, torch DDP's semantics) before clipping and the
    update; the loss stays the rank's own. `stack_traces` False records no
    source location per node (a quarter of a gpt-146m capture's time): for
    callers that capture again with them when they need to name a line.
    """
    if max_grad_norm is not None and not max_grad_norm > 0:
        raise ValueError(f"max_grad_norm must be positive, got {max_grad_norm}")
    _check_micro_batches(example_batch, gradient_accumulation_steps)
    if not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    rule = _rule_for(optimizer)
    layout = _plan_layout(model, optimizer, rule, len(example_batch))
    named = _named_tensors(model)
    params = [named[n] for n in layout.param_names]
    if not params:
        raise ValueError("no trainable parameters")
    device = params[0].device
    n_p, n_b = len(layout.param_names), len(layout.buffer_names)
    n_s = n_p * len(layout.state_keys)
    n_groups = len(optimizer.param_groups)
    n_h = n_groups * len(layout.hyper_keys)
    autocast_ctx: Callable[[], contextlib.AbstractContextManager[Any]] = (
        (lambda: torch.autocast(device_type=device.type, dtype=autocast_dtype))
        if autocast_dtype is not None
        else contextlib.nullcontext
    )

    def train_step(*flat: Tensor) -> tuple[Tensor, ...]:
        p_in = dict(zip(layout.param_names, flat[:n_p]))
        consts = dict(zip(layout.buffer_names, flat[n_p : n_p + n_b]))
        s_in = flat[n_p + n_b : n_p + n_b + n_s]
        h_in = flat[n_p + n_b + n_s : n_p + n_b + n_s + n_h]
        batch = flat[n_p + n_b + n_s + n_h : -1]
        random.seed = flat[-1]

        # Named `forward` on purpose: make_fx records stack traces only
        # through frames of that name, and this frame is where loss_fn runs.
        def forward(trainable: dict[str, Tensor], batch: Sequence[Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
            # Buffers enter as copies made inside the grad transform, which
            # lets the forward write them (BatchNorm's running statistics);
            # the ones it wrote are the step's new buffer values.
            buffers = {n: consts[n].clone() for n in buffer_names}
            versions = {n: t._version for n, t in buffers.items()}
            with autocast_ctx():
                tensors = {**trainable, **consts, **buffers}
                if loss_fn is None:
                    loss = torch.func.functional_call(model, tensors, tuple(batch))
                else:
                    out = torch.func.functional_call(model, tensors, tuple(batch[:-1]))
                    loss = loss_fn(out, batch[-1])
            # Armed before grad_and_value runs autograd on this loss.
            stack.enter_context(_backward_seq_nr_tracking(loss))
            return loss, {n: t for n, t in buffers.items() if t._version != versions[n]}

        micro_batches: Any = [batch]
        if gradient_accumulation_steps > 1 and batch:
            micro_batches = zip(*(b.chunk(gradient_accumulation_steps) for b in batch))
        grads: dict[str, Tensor] = {}
        losses: list[Tensor] = []
        written: dict[str, Tensor] = {}
        for micro in micro_batches:
            with contextlib.ExitStack() as stack:
                micro_grads, (loss, wrote) = torch.func.grad_and_value(forward, has_aux=True)(p_in, micro)
            grads = {n: grads[n] + g for n, g in micro_grads.items()} if grads else micro_grads
            losses.append(loss)
            written.update(wrote)
            consts.update(wrote)  # the next micro-batch sees the written buffers
        if gradient_accumulation_steps > 1:
            grads = {n: g / gradient_accumulation_steps for n, g in grads.items()}
            loss = functools.reduce(operator.add, losses) / gradient_accumulation_steps
        written = {n: written[n] for n in buffer_names if n in written}  # buffer order
        updated_buffers[:] = list(written)
        if world_size > 1:
            with _nodes_located_here():  # the gradients' all-reduce
                grads = {n: collective_ops.ALL_REDUCE_OP(g, "mean") for n, g in grads.items()}
        if max_grad_norm is not None:
            grads = _clip_grad_norm(grads, max_grad_norm)

        k = len(layout.hyper_keys)
        new_params: list[Tensor] = []
        new_states: list[Tensor] = []
        for i, name in enumerate(layout.param_names):
            g = layout.param_group_of[i]
            nk = len(layout.state_keys)
            with _nodes_located_here():  # optimizer update of one parameter
                new_p, new_s = rule.update(
                    p_in[name],
                    grads[name],
                    list(s_in[i * nk : (i + 1) * nk]),
                    list(h_in[g * k : (g + 1) * k]),
                    layout.group_flags[g],
                )
            new_params.append(new_p)
            new_states.extend(new_s)
        return (loss, *new_params, *written.values(), *new_states)

    shapes = [
        (p.shape, p.dtype, p.device) for p in params for _ in layout.state_keys
    ]
    hyper_shapes = [(torch.Size([]), _HYPER_DTYPE, device)] * n_h
    seed_shape = (torch.Size([]), torch.int64, device)
    example = _fake_inputs(
        [*params, *(named[n] for n in layout.buffer_names), *shapes, *hyper_shapes, *example_batch, seed_shape]
    )
    _reject_cumulative_batch_norm(model)
    buffer_names = [n for n, _ in model.named_buffers()]
    updated_buffers: list[str] = []  # filled while tracing
    random = random_ops.RandomStreams(example[-1])
    gm = _trace(train_step, example, random, stack_traces)
    if not random.count:
        _drop_last_input(gm)
    layout = dataclasses.replace(layout, updated_buffers=tuple(updated_buffers), random=bool(random.count))

    input_specs = [_spec(ROLE_PARAM, n, named[n]) for n in layout.param_names]
    input_specs += [_spec(ROLE_BUFFER, n, named[n]) for n in layout.buffer_names]
    input_specs += [
        TensorSpec(ROLE_OPT_STATE, f"{n}.{key}", tuple(named[n].shape), named[n].dtype)
        for n in layout.param_names
        for key in layout.state_keys
    ]
    input_specs += [
        TensorSpec(ROLE_HYPER, f"group{g}.{key}", (), _HYPER_DTYPE)
        for g in range(n_groups)
        for key in layout.hyper_keys
    ]
    input_specs += [_spec(ROLE_BATCH, f"batch{i}", t) for i, t in enumerate(example_batch)]
    if layout.random:
        input_specs.append(TensorSpec(ROLE_SEED, "seed", (), torch.int64))
    outs = _output_vals(gm)
    out_names = [ROLE_LOSS, *layout.param_names, *layout.updated_buffers]
    out_names += [s.name for s in input_specs if s.role == ROLE_OPT_STATE]
    out_roles = [ROLE_LOSS] + [ROLE_PARAM] * n_p + [ROLE_BUFFER] * len(layout.updated_buffers)
    out_roles += [ROLE_OPT_STATE] * n_s
    output_specs = [_spec(r, n, t) for r, n, t in zip(out_roles, out_names, outs, strict=True)]
    log.info(
        "captured %s train step: %d nodes, %d inputs, %d outputs",
        layout.optimizer_kind,
        len(gm.graph.nodes),
        len(input_specs),
        len(output_specs),
    )
    return CapturedGraph(gm, input_specs, output_specs, layout, f32_matmul_precision(), world_size)


def capture_function(fn: Callable[..., Any], example_args: Sequence[Tensor]) -> CapturedGraph:
    """Captures a forward-only function of tensors (roles "input"/"output").

    The graph returns a tuple of the function's output tensors (flattened).
    Source locations are recorded through `forward` methods only (make_fx's
    rule), i.e. for module code, not for the body of a plain function.

    An nn.Module is captured with its parameters and buffers lifted to leading
    inputs (roles "param"/"buffer") instead of baked-in constants.
    """
    lifted: dict[str, Tensor] = {}
    if isinstance(fn, nn.Module):
        module = fn
        lifted = _named_tensors(module)
        n_params = len(dict(module.named_parameters()))
        names = list(lifted)

        def call(*flat: Tensor) -> Any:
            return torch.func.functional_call(
                module, dict(zip(names, flat[: len(names)])), tuple(flat[len(names) :])
            )

        user_fn: Callable[..., Any] = call
    else:
        n_params = 0
        user_fn = fn

    def target(*flat: Tensor) -> tuple[Any, ...]:
        # Always a tuple, so the graph (and the imported func) has a flat
        # list of results however `fn` nests or returns them.
        return tuple(pytree.tree_leaves(user_fn(*flat)))

    example = _fake_inputs([*lifted.values(), *example_args])
    with torch.no_grad():
        gm = _trace(target, example)
    input_specs = [
        _spec(ROLE_PARAM if i < n_params else ROLE_BUFFER, n, t) for i, (n, t) in enumerate(lifted.items())
    ]
    input_specs += [_spec(ROLE_INPUT, f"arg{i}", t) for i, t in enumerate(example_args)]
    output_specs = [_spec(ROLE_OUTPUT, f"out{i}", t) for i, t in enumerate(_output_vals(gm))]
    return CapturedGraph(gm, input_specs, output_specs, f32_matmul_precision=f32_matmul_precision())
