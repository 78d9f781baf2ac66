"""Tests for nova.runtime: structural hash, cache, iree compile, session.

Run: PYTHONPATH=python pytest -q tests/python/test_runtime.py
(python/nova/runtime is a symlink to runtime/ in a dev checkout).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from nova.runtime import (
    DeviceArray,
    ExecutableCache,
    NovaCompileError,
    Session,
    cache_info,
    compile_to_vmfb,
    default_cache,
    reset_default_cache,
    structural_hash,
    to_host,
)

# -- MLIR fixtures ------------------------------------------------------------

# One SGD-with-momentum step: (w, m, g, lr) -> (w', m', sum(w')).
# lr and the loss-like sum are 0-d tensors.
STEP_MLIR = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
#red = affine_map<(d0, d1) -> ()>
func.func @step(%w: tensor<4x8xf32>, %m: tensor<4x8xf32>, %g: tensor<4x8xf32>, %lr: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) {
  %mu = arith.constant 0.9 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %m2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %mu : f32
    %s = arith.addf %t, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %w2 = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %m2, %lr : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %l: f32, %o: f32):
    %t = arith.mulf %b, %l : f32
    %s = arith.subf %a, %t : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %acc0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%w2 : tensor<4x8xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %w2, %m2, %sum : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>
}

// bf16 in, bf16 and f32 out: y = x * 2 computed in f32.
func.func @bf16_double(%x: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xf32>) {
  %two = arith.constant 2.0 : f32
  %e16 = tensor.empty() : tensor<2x3xbf16>
  %e32 = tensor.empty() : tensor<2x3xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xbf16>) outs(%e16, %e32 : tensor<2x3xbf16>, tensor<2x3xf32>) {
  ^bb0(%a: bf16, %o16: bf16, %o32: f32):
    %f = arith.extf %a : bf16 to f32
    %d = arith.mulf %f, %two : f32
    %h = arith.truncf %d : f32 to bf16
    linalg.yield %h, %d : bf16, f32
  } -> (tensor<2x3xbf16>, tensor<2x3xf32>)
  return %r#0, %r#1 : tensor<2x3xbf16>, tensor<2x3xf32>
}

// Returns its first argument unchanged (output may alias an imported input).
func.func @passthrough(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %x, %r : tensor<16xf32>, tensor<16xf32>
}
"""

SMALL_MLIR = """
func.func @add(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
"""


@pytest.fixture(scope="module")
def cpu_vmfb() -> bytes:
    return compile_to_vmfb(STEP_MLIR, "cpu", "none")


@pytest.fixture(scope="module")
def session(cpu_vmfb: bytes) -> Session:
    return Session(cpu_vmfb, "local-task")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "nova-cache"
    monkeypatch.setenv("NOVA_CACHE_DIR", str(d))
    reset_default_cache()
    yield d
    reset_default_cache()


# -- structural hash ----------------------------------------------------------


def _trace(shape=(4, 8), dtype=torch.float32, act=torch.relu, scale=2.0, const=3.0):
    def f(x, w):
        y = act(x @ w) * scale + torch.tensor(const)
        return y.sum(), y

    x = torch.randn(*shape, dtype=dtype)
    w = torch.randn(shape[1], 5, dtype=dtype)
    return make_fx(f, tracing_mode="fake")(x, w)


def test_structural_hash_stable_across_traces():
    extra = {"target": "cpu", "compiler": "iree-3.13.0", "flags": ["-O2"]}
    assert structural_hash(_trace(), extra) == structural_hash(_trace(), extra)


@pytest.mark.parametrize(
    "change",
    [
        dict(shape=(4, 9)),
        dict(dtype=torch.bfloat16),
        dict(act=torch.sigmoid),
        dict(scale=2.5),
        dict(const=4.0),
    ],
    ids=["shape", "dtype", "op", "scalar-arg", "tensor-constant"],
)
def test_structural_hash_sensitive(change):
    extra = {"target": "cpu"}
    assert structural_hash(_trace(**change), extra) != structural_hash(_trace(), extra)


def test_structural_hash_extra_matters():
    g = _trace()
    assert structural_hash(g, {"target": "cpu"}) != structural_hash(g, {"target": "cuda:sm_90"})
    # Key order in extra is irrelevant.
    assert structural_hash(g, {"a": 1, "b": 2}) == structural_hash(g, {"b": 2, "a": 1})


# -- cache ----------------------------------------------------------------------


class _Compiler:
    """A fake compile_fn that counts its calls."""

    def __init__(self, payload: bytes = b"vmfb-bytes" * 100):
        self.calls = 0
        self.payload = payload

    def __call__(self) -> bytes:
        self.calls += 1
        return self.payload


def test_cache_memory_then_disk_hit(cache_dir: Path):
    comp = _Compiler()
    c1 = ExecutableCache()
    assert c1.directory == cache_dir
    assert c1.get_or_compile("k1", comp) == comp.payload
    assert c1.get_or_compile("k1", comp) == comp.payload
    assert comp.calls == 1
    i = c1.info()
    assert (i.misses, i.memory_hits, i.disk_hits) == (1, 1, 0)
    assert (cache_dir / "k1.vmfb").read_bytes() == comp.payload

    c2 = ExecutableCache()  # fresh process-like view of the same directory
    assert c2.get_or_compile("k1", comp) == comp.payload
    assert comp.calls == 1
    i = c2.info()
    assert (i.misses, i.memory_hits, i.disk_hits) == (0, 0, 1)


def test_cache_lookup_finds_entries_without_compiling(cache_dir: Path):
    comp = _Compiler()
    c1 = ExecutableCache()
    assert c1.lookup("k4") is None
    c1.get_or_compile("k4", comp)
    c2 = ExecutableCache()  # another process: reads the entry from disk
    assert c2.lookup("k4") == comp.payload and c2.lookup("absent") is None
    i = c2.info()
    assert (i.misses, i.memory_hits, i.disk_hits) == (0, 0, 1)
    assert c2.lookup("k4") == comp.payload and c2.info().memory_hits == 1


def test_cache_keeps_metadata_the_compile_adds(cache_dir: Path):
    # What compile_fn adds to the metadata (Nova: the memory plan) is stored
    # with the entry and read back by a fresh process-like view.
    metadata = {"name": "m"}

    def compile_fn() -> bytes:
        metadata["memory_plan"] = {"peak": 123}
        return b"vmfb"

    c1 = ExecutableCache()
    c1.get_or_compile("k3", compile_fn, metadata=metadata)
    assert c1.metadata("k3") == {"name": "m", "memory_plan": {"peak": 123}}
    assert ExecutableCache().metadata("k3") == {"name": "m", "memory_plan": {"peak": 123}}
    assert ExecutableCache().metadata("absent") == {}


@pytest.mark.parametrize("damage", ["truncate", "flip", "bad-json"])
def test_cache_detects_corruption_and_rebuilds(cache_dir: Path, damage: str, caplog):
    comp = _Compiler()
    ExecutableCache().get_or_compile("k2", comp)
    payload_path, meta_path = cache_dir / "k2.vmfb", cache_dir / "k2.json"
    if damage == "truncate":
        payload_path.write_bytes(comp.payload[:10])
    elif damage == "flip":
        data = bytearray(comp.payload)
        data[5] ^= 0xFF
        payload_path.write_bytes(bytes(data))
    else:
        meta_path.write_text("{not json")

    c = ExecutableCache()
    with caplog.at_level("WARNING", logger="nova.runtime.cache"):
        assert c.get_or_compile("k2", comp) == comp.payload
    assert comp.calls == 2
    assert c.info().corrupt_entries == 1 and c.info().misses == 1
    assert any("deleting and rebuilding" in r.getMessage() for r in caplog.records)
    # The rebuilt entry is good again.
    c3 = ExecutableCache()
    assert c3.get_or_compile("k2", comp) == comp.payload
    assert comp.calls == 2 and c3.info().disk_hits == 1


def test_cache_rejects_path_like_keys(cache_dir: Path):
    with pytest.raises(ValueError):
        ExecutableCache().get_or_compile("../evil", _Compiler())


def _mp_worker(directory: str, key: str, log_path: str, barrier, queue) -> None:
    # Runs in a spawned process: compile_fn is slow so the other one waits.
    def slow_compile() -> bytes:
        with open(log_path, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(1.0)
        return b"compiled-once" * 10

    from nova.runtime.cache import ExecutableCache as Cache

    cache = Cache(directory)
    barrier.wait()
    payload = cache.get_or_compile(key, slow_compile)
    i = cache.info()
    queue.put((payload, i.misses, i.disk_hits))


def test_cache_two_processes_compile_once(tmp_path: Path):
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    log_path = tmp_path / "compiles.log"
    directory = tmp_path / "shared-cache"
    procs = [
        ctx.Process(target=_mp_worker, args=(str(directory), "kshared", str(log_path), barrier, queue))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert len(log_path.read_text().split()) == 1  # exactly one compile
    assert {r[0] for r in results} == {b"compiled-once" * 10}
    assert sorted((r[1], r[2]) for r in results) == [(0, 1), (1, 0)]


def test_cache_info_counts_default_cache(cache_dir: Path):
    comp = _Compiler()

    def timed() -> bytes:
        time.sleep(0.05)
        return comp()

    default_cache().get_or_compile("k3", timed)
    default_cache().get_or_compile("k3", timed)
    default_cache().get_or_compile("k4", timed)
    info = cache_info()
    assert info.directory == str(cache_dir)
    assert (info.misses, info.memory_hits, info.disk_hits, info.hits) == (2, 1, 0, 1)
    assert info.compile_seconds >= 0.1
    assert info.entries_in_memory == 2


# -- compile and run on local-task -------------------------------------------------


def test_step_device_resident_loop(session: Session):
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((4, 8), dtype=np.float32)
    lr = np.array(0.1, dtype=np.float32)  # 0-d

    # Parameters and state go to the device once; then only outputs circulate.
    w = session.to_device(torch.from_numpy(w0.copy()))
    m = session.to_device(np.zeros((4, 8), np.float32))
    ref_w, ref_m = w0.astype(np.float64), np.zeros((4, 8))
    for it in range(5):
        g = rng.standard_normal((4, 8), dtype=np.float32)
        g_in = torch.from_numpy(g) if it % 2 else g  # torch (DLPack) and numpy inputs
        w, m, loss = session.invoke("step", w, m, g_in, lr)
        assert isinstance(w, DeviceArray) and isinstance(loss, DeviceArray)
        with pytest.raises(ValueError):
            np.asarray(w)  # no implicit host transfer
        ref_m = 0.9 * ref_m + g
        ref_w = ref_w - 0.1 * ref_m
    np.testing.assert_allclose(to_host(w), ref_w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(to_host(m), ref_m, rtol=1e-5, atol=1e-5)
    loss_host = to_host(loss)
    assert loss_host.shape == () and abs(float(loss_host) - ref_w.sum()) < 1e-3
    t = session.to_torch(w)
    assert t.dtype == torch.float32 and t.shape == (4, 8)


def test_device_arrays_are_reused_without_host_copy(session: Session, monkeypatch):
    w = session.to_device(np.ones((4, 8), np.float32))
    m = session.to_device(np.zeros((4, 8), np.float32))
    g = session.to_device(np.ones((4, 8), np.float32))
    lr = session.to_device(np.array(0.5, np.float32))
    # Every way invoke could touch the host or copy an argument.
    calls = []
    record = lambda what: (lambda *a, **k: calls.append(what))
    monkeypatch.setattr(Session, "_copy_in", record("copy_in"))
    monkeypatch.setattr(Session, "_import_torch", record("import"))
    monkeypatch.setattr(Session, "_device_copy", record("device_copy"))
    monkeypatch.setattr(DeviceArray, "_transfer_to_host", record("to_host"))
    for _ in range(3):
        w, m, _loss = session.invoke("step", w, m, g, lr)
    assert calls == []
    monkeypatch.undo()
    np.testing.assert_allclose(to_host(m), np.full((4, 8), 1 + 0.9 + 0.81, np.float32), rtol=1e-6)


def test_bf16_round_trip(session: Session):
    x = torch.tensor([[1.5, -2.0, 3.25], [0.0, 100.0, -0.125]], dtype=torch.bfloat16)
    for arg in (x, torch_to_ml(x)):  # torch (DLPack) and numpy(ml_dtypes) inputs
        y16, y32 = session.invoke("bf16_double", arg)
        assert y16.dtype == np.dtype(ml_dtypes.bfloat16)
        host = to_host(y16)
        assert host.dtype == np.dtype(ml_dtypes.bfloat16)
        t = session.to_torch(y16)
        assert t.dtype == torch.bfloat16
        assert torch.equal(t, x * 2)
        assert torch.equal(session.to_torch(y32), x.float() * 2)
        # Zero-copy export keeps dtype too.
        assert torch.equal(session.to_torch(y16, copy=False), x * 2)


def torch_to_ml(t: torch.Tensor) -> np.ndarray:
    return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)


def test_passthrough_output_does_not_alias_input(session: Session):
    x = torch.arange(16, dtype=torch.float32)
    y = torch.ones(16)
    out_x, out_y = session.invoke("passthrough", x, y)
    x.fill_(-1.0)  # caller mutates its tensor after the call
    np.testing.assert_array_equal(to_host(out_x), np.arange(16, dtype=np.float32))
    np.testing.assert_array_equal(to_host(out_y), np.full(16, 2.0, np.float32))


def test_unaligned_and_strided_torch_inputs_fall_back_to_copy(session: Session):
    base = torch.arange(40, dtype=torch.float32)
    x = base[1:17]  # storage offset 4 bytes: not 64-byte aligned
    y = torch.ones(2, 16).t()[:, 0]  # strided view
    out_x, out_y = session.invoke("passthrough", x, y)
    np.testing.assert_array_equal(to_host(out_x), np.arange(1, 17, dtype=np.float32))
    np.testing.assert_array_equal(to_host(out_y), np.full(16, 2.0, np.float32))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_zeros_are_made_on_the_device(session: Session, dtype: torch.dtype):
    # What load_state uploads for optimizer state that does not exist yet:
    # filled by the device, so the buffer's previous contents must not show.
    poison = session.to_device(torch.full((3, 5), 7, dtype=dtype))
    del poison  # its memory may be reused
    zeros = session.zeros((3, 5), dtype)
    out = session.to_torch(zeros, device="cpu")
    assert out.dtype == dtype and out.shape == (3, 5)
    assert torch.equal(out, torch.zeros(3, 5, dtype=dtype))


def test_unknown_function_lists_names(session: Session):
    with pytest.raises(KeyError, match="step"):
        session.invoke("nope")


def test_compile_error_has_diagnostics():
    with pytest.raises(NovaCompileError) as e:
        compile_to_vmfb("func.func @f( {", "cpu", "none")
    assert "error" in e.value.diagnostics


def test_unknown_target():
    with pytest.raises(ValueError, match="unknown Nova target"):
        compile_to_vmfb(SMALL_MLIR, "tpu", "none")


# -- CUDA compile (no GPU needed) -------------------------------------------------


@pytest.mark.parametrize("target", ["cuda:sm_89", "cuda:sm_90"])
def test_cuda_compile(target: str, tmp_path: Path):
    dump = tmp_path / "ptx"
    vmfb = compile_to_vmfb(
        SMALL_MLIR, target, "none", extra_flags=[f"--iree-hal-dump-executable-binaries-to={dump}"]
    )
    # A vmfb is a zip-framed flatbuffer whose file identifier is "IREE".
    assert vmfb[:4] == b"PK\x03\x04" and b"IREE" in vmfb[:256]
    ptx = "".join(p.read_text() for p in dump.glob("*.ptx"))
    assert f".target {target.split(':')[1]}" in ptx


# -- runtime-only machine: a cache hit must not need iree.compiler -----------------

_NO_COMPILER_SCRIPT = """
import sys
sys.modules["iree.compiler"] = None  # any import of the compiler now fails
import numpy as np
from nova.runtime import ExecutableCache, Session, to_host
def no_compile():
    raise AssertionError("compile on a cache hit")
vmfb = ExecutableCache(sys.argv[1]).get_or_compile("small", no_compile)
(out,) = Session(vmfb, "local-task").invoke("add", np.ones(64, np.float32), np.ones(64, np.float32))
assert (to_host(out) == 2).all()
print("ok")
"""


def test_cache_hit_and_run_without_compiler(tmp_path: Path):
    ExecutableCache(tmp_path).get_or_compile("small", lambda: compile_to_vmfb(SMALL_MLIR, "cpu", "none"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run(
        [sys.executable, "-c", _NO_COMPILER_SCRIPT, str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


# -- IREE runtime flags ---------------------------------------------------------

_FLAGS_PROBE = """
import sys
import numpy as np
from nova.runtime import Session
session = Session(open(sys.argv[1], "rb").read(), "local-task")
w = np.ones((4, 8), np.float32)
out = session.invoke("step", w, w, w, np.array(0.5, np.float32))
print(float(session.to_host(out[2])))
"""


@pytest.mark.parametrize(
    ("variable", "value", "ok"),
    [
        ("NOVA_IREE_RUNTIME_FLAGS", "--task_topology_max_group_count=1", True),
        ("NOVA_IREE_RUNTIME_FLAGS", "--no_such_flag=1", False),
    ],
)
def test_runtime_switches_from_the_environment(cpu_vmfb: bytes, tmp_path: Path, variable: str, value: str, ok: bool):
    # Read when a session makes its device, process-wide: each case runs in a
    # fresh process. A value the switch does not know is an error naming it.
    vmfb = tmp_path / "step.vmfb"
    vmfb.write_bytes(cpu_vmfb)
    result = subprocess.run(
        [sys.executable, "-c", _FLAGS_PROBE, str(vmfb)],
        capture_output=True,
        text=True,
        env={**os.environ, variable: value},
    )
    if ok:
        assert result.returncode == 0, result.stderr
        # w' = w - 0.5 * (0.9 * w + w) = 0.05 everywhere: sum over 32 elements.
        assert abs(float(result.stdout) - 1.6) < 1e-5
    else:
        assert result.returncode != 0
        assert variable in result.stderr and value.strip("-").split("=")[0] in result.stderr
