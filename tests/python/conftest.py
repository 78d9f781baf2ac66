"""Shared fixtures."""

import os
import shutil
import sysconfig
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def nova_opt() -> str:
    """The nova-opt driver: $NOVA_OPT, else the one installed beside this
    Python (the package's scripts dir), else PATH. Missing is a failure."""
    path = os.environ.get("NOVA_OPT") or shutil.which(
        "nova-opt", path=sysconfig.get_path("scripts") + os.pathsep + os.environ.get("PATH", "")
    )
    assert path, "nova-opt not found: install the package (make build) or set NOVA_OPT"
    return path


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An empty executable cache (on disk under tmp_path, and in memory) and
    no progress lines, for tests that compile."""
    from nova.runtime import reset_default_cache

    monkeypatch.setenv("NOVA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NOVA_PROGRESS", "0")
    reset_default_cache()
    yield
    reset_default_cache()
