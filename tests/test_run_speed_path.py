"""The extension runs the engine's event loop compiled as the bench binary has it.

`cc.simulate` ran 1.57x slower than `ccscope-bench` on the same run (BENCHMARKS.md): the
extension's `Simulation.step` called the engine's `step`, a second caller of the event handler
`Simulation::handle`, and with two callers LLVM kept the handler out of line, so the loop of
`run_until_bounded` paid a call per event and lost the optimizations across it. The binary has
one caller and inlines it. This test reads the symbol tables (no timing): the extension must
not hold the handler as a function of its own where the binary does not."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ccscope import _native

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "target" / "release" / "ccscope-bench"
HANDLER = "ccscope_core::sim::Simulation::handle"
LOOP = "ccscope_core::sim::Simulation::run_until_bounded"


def symbols(path: Path) -> set[str]:
    out = subprocess.run(["nm", "-C", str(path)], capture_output=True, text=True, check=True).stdout
    return {line.split(" ", 2)[-1] for line in out.splitlines() if line.strip()}


def release_build(path: Path) -> bool:
    """No DWARF sections: the release profile has debug = false, a debug build has them."""
    out = subprocess.run(["readelf", "-S", "-W", str(path)], capture_output=True, text=True, check=True).stdout
    return ".debug_info" not in out


@pytest.mark.skipif(shutil.which("nm") is None or shutil.which("readelf") is None,
                    reason="needs nm and readelf (binutils)")
def test_the_extension_inlines_the_event_handler_where_the_binary_does():
    ext = Path(_native.__file__)
    if not release_build(ext):
        pytest.skip("a debug build of the extension: its inlining is not the release build's")
    syms = symbols(ext)
    if LOOP not in syms:
        pytest.skip("the extension's symbol table is stripped")
    expect_out_of_line = False
    if BENCH.exists() and release_build(BENCH) and LOOP in symbols(BENCH):
        expect_out_of_line = HANDLER in symbols(BENCH)
    assert (HANDLER in syms) == expect_out_of_line, (
        "the extension keeps the engine's event handler out of line where the bench binary inlines it: "
        "is there a second caller of Simulation::handle (e.g. the engine's step()) in crates/ccscope-py?")
