# ccscope: the README's commands. Every target sets up .venv itself (uv from PyPI).
SHELL := /bin/bash
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.deps-stamp
BUILD_STAMP := $(VENV)/.build-stamp
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null) Cargo.toml Cargo.lock pyproject.toml

.PHONY: demo test test-rust test-py bench lint build venv clean repro

$(UV):
	$(PY) -m venv $(VENV)
	$(VENV)/bin/pip install -q uv==0.13.8

$(STAMP): $(UV) pyproject.toml requirements-dev.txt
	$(UV) pip install -q --python $(VPY) -r requirements-dev.txt
	touch $@

venv: $(STAMP)

# Release build of the Rust extension, installed into .venv (editable Python sources).
$(BUILD_STAMP): $(STAMP) $(RUST_SRC)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --uv -q
	touch $@

build: $(BUILD_STAMP)

demo: $(BUILD_STAMP)
	$(VENV)/bin/ccscope demo --out demo-out

test-rust:
	cargo test --release -p ccscope-core -q

test-py: $(BUILD_STAMP)
	$(VPY) -m pytest tests

test: $(BUILD_STAMP)
	cargo test --release -p ccscope-core -q
	$(VPY) -m pytest tests

bench: $(BUILD_STAMP)
	cargo build --release -p ccscope-core --bin ccscope-bench -q
	$(VPY) -m ccscope.bench --out BENCHMARKS.md

lint: $(STAMP)
	cargo fmt --all -- --check
	cargo clippy --release -q -- -D warnings
	$(VENV)/bin/ruff check python tests

repro: $(BUILD_STAMP)
	$(VENV)/bin/ccscope repro all --jobs 2

clean:
	rm -rf $(VENV) target demo-out
