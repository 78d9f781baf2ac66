"""`nova bench compile`: a first and a second process compile one step, the
second reading the first one's kernels from the kernel cache."""

from __future__ import annotations

from nova import bench, compile_bench


def test_compile_bench_rows_of_a_first_and_a_second_process(fresh_cache):
    rows = compile_bench.bench(["gpt-tiny"], ["bf16"], "cuda:sm_90", batch=2)
    assert [r.get("process") for r in rows] == ["first", "second"]
    first, second = rows
    assert "status" not in first and "status" not in second, first.get("error") or second.get("error")
    # The first process builds every kernel and leaves it in the cache it
    # shares with the second, which builds none.
    assert first["kernels_cached_before"] == 0 and first["kernels_cached_after"] >= 5
    assert second["kernels_cached_before"] == second["kernels_cached_after"] == first["kernels_cached_after"]
    for row in rows:
        assert list(row["stage_seconds"]) == [
            "import", "convert-torch-to-nova", "nova-optimize", "nova-lower-to-linalg", "nova-train-step-to-iree",
            "iree-compile",
        ]  # fmt: skip
        assert row["capture_s"] > 0 and abs(row["compile_s"] - sum(row["stage_seconds"].values())) < 0.01
        assert 0 < row["capture_key_s"] < row["capture_s"]
    table = bench.report([{**r, "date": "2026-12-04", "cpu_count": 2} for r in rows])
    assert "| gpt-tiny | bf16 | second | " in table and "the build box (2 CPUs)" in table
