"""The nanobind module: loads, runs pipelines, reports diagnostics without crashing."""

import subprocess

import pytest

from nova import compiler

SOFTMAX = """
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = nova.softmax %x dim = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""


def test_mlir_version_is_22():
    assert compiler.mlir_version().startswith("22.")


def test_named_pipeline_decomposes_softmax():
    out = compiler.run_pipeline(SOFTMAX, "nova-optimize")
    assert "nova.softmax" not in out
    for op in ("nova.reduce_max", "nova.exp", "nova.reduce_sum", "nova.div"):
        assert op in out


def test_anchored_pipeline_runs():
    out = compiler.run_pipeline(SOFTMAX, "builtin.module(nova-decompose)")
    assert "nova.softmax" not in out


def test_generic_output_round_trips():
    generic = compiler.run_pipeline(SOFTMAX, "canonicalize", generic_output=True)
    assert '"nova.softmax"' in generic
    assert "nova.softmax" in compiler.run_pipeline(generic, "canonicalize")


def test_parse_error_is_a_diagnostic():
    with pytest.raises(compiler.CompilerError) as err:
        compiler.run_pipeline("func.func @f( {", "canonicalize")
    assert "<input>:1:" in err.value.diagnostics


def test_verifier_error_is_a_diagnostic():
    bad = """
    func.func @f(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
      %0 = "nova.add"(%a, %b) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    with pytest.raises(compiler.CompilerError) as err:
        compiler.run_pipeline(bad, "canonicalize")
    assert "operand #1 dim 0 is 8 but the result's dim 0 is 4" in err.value.diagnostics


def test_unknown_pass_is_a_diagnostic():
    with pytest.raises(compiler.CompilerError) as err:
        compiler.run_pipeline(SOFTMAX, "no-such-pass")
    assert "no-such-pass" in err.value.diagnostics


def test_unregistered_dialect_needs_opt_in():
    text = '"torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int\n'
    with pytest.raises(compiler.CompilerError):
        compiler.run_pipeline(text, "canonicalize")
    out = compiler.run_pipeline(text, "canonicalize", allow_unregistered_dialects=True, generic_output=True)
    assert "torch.constant.int" in out


def test_nova_opt_lists_nova_passes(nova_opt: str):
    help_text = subprocess.run([nova_opt, "--help"], capture_output=True, text=True, check=True).stdout
    for name in (
        "--nova-decompose",
        "--nova-optimize",
        "--nova-split-reductions",
        "--convert-torch-to-nova",
        "--convert-nova-to-linalg",
        "--convert-train-step-to-iree",
    ):
        assert name in help_text
