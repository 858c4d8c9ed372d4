"""The command line starts without the heavy libraries: `--help` and `--version` load neither
numpy, pandas, matplotlib, JAX nor rich's console (their cost is the start-up a user waits for on
every command; BENCHMARKS.md has the timings). `import ccscope` and the API that runs the engine
load no pandas, matplotlib or JAX, and `ccscope run` (with --out) none of them either: its result
is summarised and written from the engine's columns (tests/test_result_io_direct.py checks the
files against pandas' own)."""
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


RUN_HEAVY = ("pandas", "matplotlib", "jax", "scipy", "dask")


def test_import_ccscope_and_its_run_api_load_no_pandas_matplotlib_or_jax():
    assert not [m for m in ("numpy", *RUN_HEAVY) if m in _modules_after("import ccscope")]
    mods = _modules_after("import ccscope\nccscope.simulate, ccscope.Simulation, ccscope.SimResult, ccscope.load")
    assert not [m for m in RUN_HEAVY if m in mods]


def test_a_run_through_the_api_loads_pandas_only_when_a_table_is_asked_for():
    code = ("import sys, ccscope as cc\n"
            "res = cc.simulate({'until_s': 0.002, 'topology': {'kind': 'dumbbell', 'bottleneck_bps': 1e9, "
            "'rtt_s': 1e-4}, 'flows': {'count': 2, 'cc': 'dctcp'}})\n"
            "assert res.summary['events'] > 0 and 'pandas' not in sys.modules\n"
            "res.flows")
    assert "pandas" in _modules_after(code)
    assert "pandas" not in _modules_after(code.rsplit("\n", 1)[0])


def test_ccscope_run_with_out_loads_no_pandas_matplotlib_or_jax(tmp_path):
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps({"until_s": 0.002, "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4},
                              "flows": {"count": 2, "cc": "dctcp"}, "record": {"traces": ["queue", "link", "drops"]}}))
    for quiet in (["--quiet"], []):
        out = tmp_path / f"out{len(quiet)}"
        argv = ["run", str(sc), "--out", str(out), *quiet]
        code = ("import sys\nsys.argv = ['ccscope', *%r]\nfrom ccscope._entry import main\n"
                "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code" % (argv,))
        mods = _modules_after(code)
        assert not [m for m in RUN_HEAVY if m in mods], quiet
        assert (out / "traces" / "queue.parquet").is_file() and (out / "summary.json").is_file()
