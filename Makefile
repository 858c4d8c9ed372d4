# ccscope: the README's commands. Every target sets up .venv itself (uv from PyPI).
SHELL := /bin/bash
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.deps-stamp
BUILD_STAMP := $(VENV)/.build-stamp
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null) Cargo.toml Cargo.lock pyproject.toml

.PHONY: demo test test-rust test-py bench peers lint build venv clean repro repro-check fuzz

$(UV):
	$(PY) -m venv $(VENV)
	$(VENV)/bin/pip install -q uv==0.13.8

$(STAMP): $(UV) pyproject.toml requirements-dev.txt
	$(UV) pip install -q --compile-bytecode --python $(VPY) -r requirements-dev.txt
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

# Peer comparison with htsim: HTSIM=PATH is a checkout of https://github.com/Broadcom/csg-htsim (read, never
# written); htsim is built under target/peers/htsim with a dumbbell driver of ours (bench/peers/).
peers: $(BUILD_STAMP)
	$(VPY) bench/peers/htsim.py --htsim "$(HTSIM)"
	$(VPY) bench/peers/htsim_fabric.py --htsim "$(HTSIM)" --k 8 --bench --bench-ms 0.5

lint: $(STAMP)
	cargo fmt --all -- --check
	cargo clippy --release -q -- -D warnings
	$(VENV)/bin/ruff check python tests

# Long fuzzing run: 10^5 mutated scenarios through the Python API and 300 through `ccscope run`
# (tests/fuzz/; `make test` runs a fixed 5,000 + 30 of them), then the engine's JSON entry point
# under proptest with more cases. Non-clean cases are written to target/fuzz-failures/.
FUZZ_CASES ?= 100000
FUZZ_CLI_CASES ?= 300
FUZZ_SEED ?= 1
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_PROPTEST_CASES ?= 20000
fuzz: $(BUILD_STAMP)
	$(VPY) -m tests.fuzz.fuzzer --cases $(FUZZ_CASES) --cli-cases $(FUZZ_CLI_CASES) --seed $(FUZZ_SEED) --jobs $(FUZZ_JOBS) --progress
	CCSCOPE_PROPTEST_CASES=$(FUZZ_PROPTEST_CASES) cargo test --release -p ccscope-core --test proptest_json -q

# Every reproduction, full and quick, into REPRO_OUT; then the committed evidence (docs/repro/<ID>/) and
# docs/REPRODUCTIONS.md rebuilt from it (docs/VERDICTS.md §5). Commit the code first: `repro promote`
# refuses results of a working tree with uncommitted changes. repro-check: rerun every quick variant at
# HEAD and fail on a result that no longer matches the committed one.
REPRO_OUT ?= repro-out
repro: $(BUILD_STAMP)
	$(VENV)/bin/ccscope repro all --jobs 2 --out $(REPRO_OUT)
	$(VENV)/bin/ccscope repro all --quick --jobs 2 --out $(REPRO_OUT)
	$(VENV)/bin/ccscope repro promote $(REPRO_OUT)
	$(VENV)/bin/ccscope repro report

repro-check: $(BUILD_STAMP)
	$(VENV)/bin/ccscope repro report --check-stale --jobs 2

clean:
	rm -rf $(VENV) target demo-out
