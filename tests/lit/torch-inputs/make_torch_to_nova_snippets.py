"""Writes torch_to_nova_snippets.mlir: one function per op family, as the FX
importer prints them (generic form, no locations), and
torch_to_nova_fallback.mlir: graphs with ops Nova leaves to IREE, captured
by nova.capture with their source locations (lines of this file). The lit
tests of -convert-torch-to-nova (tests/lit/conversion/torch-to-nova*.mlir)
copy their inputs from there.

    PYTHONPATH=python python tests/lit/torch-inputs/make_torch_to_nova_snippets.py

Three ways into the importer, as three kinds of graphs reach Nova:
  "core":   make_fx with torch-mlir's decomposition table: the ops a captured
            training step really contains;
  "nova":   make_fx with nova.capture's table (torch-mlir's plus the torch
            decompositions Nova adds, e.g. of upsampling);
  "aten":   make_fx without decompositions: composite aten ops (addmm, t,
            _softmax, native_layer_norm, embedding_dense_backward, ...);
  "export": torch.export: the pre-dispatch ops (linear, matmul, layer_norm,
            softmax.int, ...).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils import _pytree as pytree
from torch_mlir import ir
from torch_mlir.dialects import torch as torch_d
from torch_mlir.extras.fx_decomp_util import get_decomposition_table
from torch_mlir.extras.fx_importer import FxImporter

from nova import attention_ops, optim_ops
from nova.capture import _decomposition_table, capture_function
from nova.importer import import_to_torch_mlir

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
aten = torch.ops.aten


def _importer() -> FxImporter:
    context = ir.Context()
    torch_d.register_dialect(context)
    return FxImporter(context=context)


# Large literals are `dense_resource` blobs, printed after the module.
RESOURCES: dict[str, str] = {}


def _function_text(importer: FxImporter) -> str:
    text = importer.module.operation.get_asm(print_generic_op_form=True)
    module, _, resources = text.partition("\n{-#")
    for line in resources.splitlines():
        key, sep, blob = line.strip().partition(": ")
        if sep and blob.startswith('"0x'):
            if RESOURCES.setdefault(key, blob) != blob:
                raise ValueError(f"two literals named {key}")
    lines = module.strip().splitlines()
    # Drop the builtin.module wrapper: the snippets share one module.
    return "\n".join(lines[1:-1])


def traced(name: str, fn, args, decompose: bool, nova_table: bool = False) -> str:
    def flat(*a):
        return tuple(pytree.tree_leaves(fn(*a)))

    table = (_decomposition_table() if nova_table else get_decomposition_table()) if decompose else None
    gm = make_fx(flat, tracing_mode="fake", decomposition_table=table)(*args)
    importer = _importer()
    importer.import_stateless_graph(gm.graph, func_name=name)
    return _function_text(importer)


def exported(name: str, fn, args) -> str:
    class Wrapper(torch.nn.Module):
        def forward(self, *a):
            return tuple(pytree.tree_leaves(fn(*a)))

    importer = _importer()
    importer.import_frozen_program(torch.export.export(Wrapper(), tuple(args)), func_name=name)
    return _function_text(importer)


def grad_and_value(loss_fn, argnums=0):
    return torch.func.grad_and_value(loss_fn, argnums=argnums)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def idx(high, *shape):
    return torch.randint(0, high, shape)


def attention(q, k, v):
    T, D = q.shape[-2], q.shape[-1]
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    att = att.masked_fill(~causal, float("-inf"))
    return F.softmax(att, dim=-1) @ v


SNIPPETS = [
    # --- core: what a captured training step contains -----------------------
    ("core", "linear_relu", lambda x, w, b: F.relu(F.linear(x, w, b)), (r(4, 8), r(16, 8), r(16))),
    ("core", "causal_attention", attention, (r(2, 2, 4, 8), r(2, 2, 4, 8), r(2, 2, 4, 8))),
    ("core", "layer_norm", lambda x, w, b: F.layer_norm(x, (8,), w, b), (r(2, 4, 8), r(8), r(8))),
    ("core", "gelu_tanh_backward",
     lambda x: grad_and_value(lambda y: F.gelu(y, approximate="tanh").sum())(x), (r(4, 8),)),
    ("core", "cross_entropy_backward",
     lambda logits, t: grad_and_value(lambda l: F.cross_entropy(l, t))(logits), (r(4, 10), idx(10, 4))),
    ("core", "embedding_backward",
     lambda w, i: grad_and_value(lambda w_: (F.embedding(i, w_) ** 2).sum())(w), (r(10, 8), idx(10, 2, 3))),
    ("core", "split_cat",
     lambda x: torch.cat(list(reversed(x.split([2, 3, 3], dim=1))), dim=1), (r(2, 8),)),
    ("core", "sgd",
     lambda p, g, b, lr, m, d, wd, first: optim_ops.SGD_OP(p, g, b, lr, m, d, wd, first, True),
     (r(4, 8), r(4, 8), r(4, 8), *[torch.tensor(v) for v in (0.1, 0.9, 0.0, 1e-4, 1.0)])),
    ("core", "adamw",
     lambda p, g, m, v, step, lr, b1, b2, eps, wd: optim_ops.ADAMW_OP(p, g, m, v, step, lr, b1, b2, eps, wd),
     (r(8), r(8), r(8), r(8).abs(), *[torch.tensor(v) for v in (1.0, 1e-3, 0.9, 0.999, 1e-8, 0.01)])),
    # --- aten: composite ops that the decompositions would expand -----------
    ("aten", "linear_addmm", lambda x, w, b: F.linear(x, w, b), (r(2, 3, 4), r(5, 4), r(5))),
    ("aten", "views",
     lambda x: (x.transpose(0, 2), x[1], x[:, -2::2], x[0].t(), x.unsqueeze(1).squeeze(1),
                x.reshape(6, 4), x[:, :1].expand(2, 3, 4)),
     (r(2, 3, 4),)),
    ("aten", "bmm_matmul", lambda a, b: a @ b, (r(2, 3, 4), r(2, 4, 5))),
    ("aten", "arithmetic",
     lambda x, y: (torch.sub(x, y, alpha=2), 1 - x, x / 4, x ** 3, x ** 2.5, x.abs() ** y, x.sqrt(),
                   x.erf(), x.sigmoid(), torch.maximum(x, y), torch.minimum(x, y), x.clamp(-1, 1),
                   x.clamp_min(0), x.reciprocal(), -x),
     (r(4, 8), r(8))),
    ("aten", "compare_select",
     lambda x, y, m: (x == y, x != 1, x < 0, x > y, x >= 0.5, torch.where(m, x, y), x.masked_fill(m, 0.0),
                      m | (x > 0), ~m, torch.logical_xor(m, x < y)),
     (r(4, 8), r(8), torch.rand(4, 8) > 0.5)),
    ("aten", "promotion",
     lambda i, j, h, f: (i + 0.5, i / j, i < 0.5, h * f, h * 0.044715, h * 2, (i > 0).sum(), i.to(torch.int32) + i,
                         h.bool()),
     (idx(10, 4), idx(10, 4) + 1, r(4, dtype=torch.bfloat16), torch.tensor(2.0))),
    ("aten", "reductions",
     lambda x: (x.sum(1, keepdim=True), x.sum(), x.mean((0, 2)), x.mean(), x.amax(-1), x.amin(0),
                torch.var(x, 1, correction=0), torch.var_mean(x, -1)),
     (r(2, 3, 4),)),
    ("aten", "softmax", lambda x: (torch.softmax(x, -1), torch.log_softmax(x, 0)), (r(4, 8),)),
    ("aten", "native_layer_norm",
     lambda x, w, b: (F.layer_norm(x, (8,), w, b, 1e-6), aten.native_layer_norm(x, [4, 8], None, None, 1e-5)),
     (r(2, 4, 8), r(8), r(8))),
    ("aten", "indexing",
     lambda w, i, x, t: (F.embedding(i, w), aten.embedding_dense_backward(x, i, 10, 0, False),
                         torch.gather(w, 1, t), w[i[0]], torch.scatter_add(w, 1, t, torch.ones(10, 2)),
                         aten.index_put(w, [i[0] - 5], torch.ones(3, 8), True)),
     (r(10, 8), idx(10, 2, 3), r(2, 3, 8), idx(8, 10, 2))),
    ("aten", "creation",
     lambda x: (torch.zeros(2, 3), torch.ones(3, dtype=torch.int64), torch.full((2,), 7.0), torch.arange(2, 11, 3),
                torch.zeros_like(x), x.new_ones(2), torch.tril(x), torch.triu(x, 1), torch.tensor([1.0, 2.0, 3.0])),
     (r(3, 3),)),
    ("aten", "casts_copies",
     lambda x, y: (x.to(torch.bfloat16), x.detach(), x.clone(), aten.alias(x), aten.copy(x, y)),
     (r(2, 4), r(4))),
    # --- convolution and pooling, forward and backward -----------------------
    ("core", "conv2d_grouped_backward",
     grad_and_value(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2).square().sum(),
                    argnums=(0, 1, 2)),
     (r(2, 4, 7, 6), r(6, 2, 3, 3), r(6))),
    ("core", "conv_transpose1d_backward",
     grad_and_value(lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1).square().sum(),
                    argnums=(0, 1)),
     (r(2, 3, 5), r(3, 4, 3))),
    ("core", "max_pool2d_backward",
     grad_and_value(lambda x: F.max_pool2d(x, 3, stride=2, padding=1).square().sum()), (r(2, 3, 7, 6),)),
    ("core", "avg_pool2d_backward",
     grad_and_value(lambda x: F.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False).square().sum()),
     (r(2, 3, 5, 5),)),
    # --- resampling backward, activations, index arithmetic -----------------
    ("nova", "adaptive_avg_pool2d_backward",
     grad_and_value(lambda x: F.adaptive_avg_pool2d(x, (2, 3)).square().sum()), (r(1, 2, 5, 7),)),
    ("nova", "upsample_backward",
     grad_and_value(lambda x: (F.interpolate(x, scale_factor=2.0).square().sum()
                               + F.interpolate(x, size=(5, 4), mode="bilinear").square().sum())),
     (r(1, 2, 3, 2),)),
    ("nova", "adaptive_max_pool2d_backward",
     grad_and_value(lambda x: F.adaptive_max_pool2d(x, (2, 2)).square().sum()), (r(1, 2, 3, 5),)),
    ("nova", "activations_and_indexing",
     lambda x, i: (F.leaky_relu(x, 0.2), torch.log1p(x.abs()), torch.expm1(x), x.repeat(2, 1, 3),
                   torch.div(i, 3, rounding_mode="floor"), x[:, i.clamp(0, 3)] * 2),
     (r(2, 4), torch.tensor([-5, 7, 2]))),
    # --- export: pre-dispatch composites ------------------------------------
    ("export", "export_composites",
     lambda x, w, b, y: (F.linear(x, w, b), x @ y, x[0] @ x[1].t(), F.layer_norm(x, (4,)), torch.softmax(x, -1),
                         torch.log_softmax(x, 1), x.square(), torch.stack([x, x], 1), x.chunk(2, 2)[1], x.max(),
                         torch.var(x, 1), torch.std(x, 1), x.to(torch.float64)),
     (r(2, 3, 4), r(5, 4), r(5), r(4, 6))),
]


class AtanBetween(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        return torch.atan(y) + 1


class SortThenAtan(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.sort(x.exp(), dim=-1)
        return torch.atan(torch.atan(values)), indices


class ScatterTwoIndices(torch.nn.Module):
    def forward(self, w, i, j, v):
        return aten.index_put(w, [i + 1, j], v * 2, True)


FALLBACK = [
    ("atan_between", AtanBetween(), (r(4, 8),)),
    ("sort_then_atan", SortThenAtan(), (r(4, 8),)),
    ("scatter_two_indices", ScatterTwoIndices(), (r(4, 8), idx(3, 5), idx(8, 5), r(5))),
]


def fused_attention(q, k, v, dy):
    """nova::attention and its backward, as scaled_dot_product_attention captures."""
    out, lse = attention_ops.ATTENTION_OP(q, k, v, True, 0.35355339059327373)
    return out, lse, attention_ops.ATTENTION_BACKWARD_OP(dy, q, k, v, out, lse, True, 0.35355339059327373)


# Defined after FALLBACK, whose source lines are part of its output.
SNIPPETS.append(("core", "fused_attention", fused_attention, tuple(r(2, 2, 4, 8, dtype=torch.bfloat16) for _ in range(4))))


def write_fallback() -> None:
    functions, aliases = [], []
    for name, module, args in FALLBACK:
        text = import_to_torch_mlir(capture_function(module, args), func_name=name, source_root=str(REPO))
        # Location aliases are per module: give each function its own.
        text = re.sub(r"#loc(\d*)\b", lambda m: f"#{name}_loc{m.group(1)}", text)
        lines = [line for line in text.strip().splitlines() if not line.startswith("//")]
        aliases += [line for line in lines if line.startswith("#")]
        module = [line for line in lines if not line.startswith("#")]
        # Drop the builtin.module wrapper: the functions share one module.
        functions.append("\n".join(module[1:-1]))
    out = HERE / "torch_to_nova_fallback.mlir"
    out.write_text(
        "// Generated by tests/lit/torch-inputs/make_torch_to_nova_snippets.py; do not edit.\n"
        '"builtin.module"() ({\n' + "\n".join(functions) + "\n}) : () -> ()\n" + "\n".join(aliases) + "\n"
    )
    print(f"wrote {out} ({len(functions)} functions)")


def main() -> None:
    torch.manual_seed(0)
    write_fallback()
    functions = []
    for kind, name, fn, args in SNIPPETS:
        if kind == "export":
            functions.append(exported(name, fn, args))
        else:
            functions.append(traced(name, fn, args, decompose=kind in ("core", "nova"), nova_table=kind == "nova"))
    header = (
        "// Generated by tests/lit/torch-inputs/make_torch_to_nova_snippets.py; do not edit.\n"
        '"builtin.module"() ({\n'
    )
    text = header + "\n".join(functions) + "\n}) : () -> ()\n"
    if RESOURCES:
        blobs = ",\n".join(f"      {key}: {blob}" for key, blob in RESOURCES.items())
        text += "\n{-#\n  dialect_resources: {\n    builtin: {\n" + blobs + "\n    }\n  }\n#-}\n"
    out = HERE / "torch_to_nova_snippets.mlir"
    out.write_text(text)
    print(f"wrote {out} ({len(functions)} functions)")


if __name__ == "__main__":
    main()
