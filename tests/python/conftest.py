"""Shared fixtures."""

import os
import shutil
import sysconfig

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
