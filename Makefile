# Everything from a fresh machine: `make demo` and `make test` (see README).
VENV ?= .venv
PYTHON ?= python3
# The CPU wheel this machine carries; a bare `torch` would pull a CUDA build.
TORCH_SPEC ?= torch==2.13.0
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: setup build lit pytest test demo clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# Build requirements come from pyproject.toml so the pins live in one place;
# cmake and ninja come from PyPI too, so a bare machine needs only a C++ compiler.
setup: $(PY)
	$(PIP) install $(TORCH_SPEC)
	$(PIP) install $$($(PY) -c "import tomllib; print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires']))") ninja "cmake>=3.25"
	$(MAKE) build

# Incremental: scikit-build-core keeps its CMake tree in build/<wheel tag>.
build:
	$(PIP) install --no-build-isolation ".[test]"

lit:
	$(VENV)/bin/lit -sv tests/lit

pytest:
	$(PY) -m pytest -q tests/python

test: setup
	$(MAKE) lit
	$(MAKE) pytest

demo: setup
	$(PY) -m nova.demo

clean:
	rm -rf build $(VENV)
