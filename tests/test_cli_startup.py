"""The command line starts without the heavy libraries: `--help` and `--version` load neither
numpy, pandas, matplotlib, JAX nor rich's console (their cost is the start-up a user waits for on
every command; BENCHMARKS.md has the timings)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ccscope

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "pandas", "matplotlib", "jax", "scipy", "pyarrow", "dask", "rich.console", "rich.markdown")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_loading_the_command_line_loads_no_heavy_library():
    mods = _modules_after("import ccscope.cli")
    assert not [m for m in HEAVY if m in mods]


def test_help_and_version_load_no_heavy_library():
    for argv in (["--help"], ["--version"], ["run", "--help"], ["fluid", "--help"]):
        code = ("import sys\nsys.argv = ['ccscope', *%r]\nfrom ccscope._entry import main\n"
                "try:\n    main()\nexcept SystemExit:\n    pass" % (argv,))
        mods = _modules_after(code)
        assert not [m for m in HEAVY if m in mods], argv


def test_version_prints_the_package_version():
    p = subprocess.run([sys.executable, "-m", "ccscope", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"ccscope {ccscope.__version__}"


def test_help_lists_every_command():
    p = subprocess.run([sys.executable, "-m", "ccscope", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    for cmd in ("run", "plot", "demo", "sweep", "scenario", "fluid", "guide", "stability", "repro"):
        assert f"\n  {cmd} " in p.stdout, cmd
