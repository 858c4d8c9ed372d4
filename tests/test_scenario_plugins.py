"""The scenario's `[plugins]` table: `modules = [...]` names the controller plugins (module names or
`.py` files) that `ccscope run`, `ccscope sweep` (and its Dask workers), `scenario validate` and
`ccscope.simulate` load before the engine checks the cc names. A relative file path resolves
against the scenario file's directory under the data-file sandbox; a bad entry is one scenario
error naming plugins.modules[i] and the value; the engine accepts and ignores the table, and
still refuses any other unknown table."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import ccscope
from ccscope import cc

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "ccscope"]
HANG_S = 300.0


def controller(name: str, cls: str = "Halve") -> str:
    """A plugin's source: a window controller that halves on congestion, registered as `name`."""
    return textwrap.dedent(f"""
        from ccscope import cc

        class {cls}(cc.Controller):
            def on_ack(self, now_s, acked_bytes, *rest):
                self.cwnd_bytes += self.mss * acked_bytes / self.cwnd_bytes

            def on_congestion(self, now_s, kind, flight_bytes):
                self.cwnd_bytes = max(self.cwnd_bytes / 2, self.mss)

        cc.register_cc({name!r}, {cls})
        """)


def toml_scenario(cc_name: str, modules: list[str]) -> str:
    return textwrap.dedent(f"""
        seed = 1
        until_s = 0.005
        [topology]
        kind = "dumbbell"
        bottleneck_bps = 1e9
        rtt_s = 1e-4
        buffer_pkts = 50
        [flows]
        count = 2
        cc = "{cc_name}"
        [plugins]
        modules = {json.dumps(modules)}
        """)


def test_a_file_plugin_next_to_the_scenario_loads_from_its_directory(tmp_path, monkeypatch):
    d = tmp_path / "exp"
    (d / "ctl").mkdir(parents=True)
    (d / "ctl" / "halve_a.py").write_text(controller("plug_halve_a"))
    sc = d / "s.toml"
    sc.write_text(toml_scenario("plug_halve_a", ["ctl/halve_a.py"]))
    monkeypatch.chdir(tmp_path)  # not the scenario's directory: the path still resolves against it
    res = ccscope.simulate(sc)
    assert res.flows["cc"].tolist() == ["plug_halve_a"] * 2
    assert "plug_halve_a" in cc.registered()
    # loaded once: a second run does not import the file again
    n = len(cc.loaded_plugins())
    ccscope.simulate(sc)
    assert len(cc.loaded_plugins()) == n
    # the engine carries the table (as an absolute path), resolve/expand accept it
    resolved = ccscope.scenario.io.resolve(sc)
    assert resolved["plugins"]["modules"] == [str((d / "ctl" / "halve_a.py").resolve())]


def test_a_module_plugin_and_the_python_api_with_a_dict(tmp_path, monkeypatch):
    pkg = tmp_path / "mypkg_plugins"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "halve_b.py").write_text(controller("plug_halve_b"))
    monkeypatch.syspath_prepend(str(tmp_path))
    sc = {"seed": 1, "until_s": 0.005,
          "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "buffer_pkts": 50},
          "flows": {"count": 2, "cc": "plug_halve_b"}, "plugins": {"modules": ["mypkg_plugins.halve_b"]}}
    res = ccscope.simulate(sc)
    assert res.flows["cc"].tolist() == ["plug_halve_b"] * 2
    assert {"module": "mypkg_plugins.halve_b", "path": str(tmp_path.resolve())} in cc.loaded_plugins()
    # the Scenario dataclass mirrors the table
    from ccscope.scenario.model import Plugins, Scenario
    assert Scenario(topology=None, plugins=Plugins(modules=["a.b"])).to_dict()["plugins"] == {"modules": ["a.b"]}


@pytest.mark.parametrize("plugins, needle", [
    ({"modules": ["nope_no_such.mod"]},
     'plugins.modules[0] = "nope_no_such.mod": no module of that name on the Python path'),
    ({"modules": ["missing.py"]}, 'plugins.modules[0] = "missing.py": no such file'),
    ({"modules": ["../outside.py"]}, 'plugins.modules[0] = "../outside.py": it leaves the scenario\'s directory'),
    ({"modules": ["crash.py"]},
     'plugins.modules[0] = "crash.py": importing it failed: NameError: name \'undefined_thing\' is not defined'),
    ({"modules": ["not a module"]}, 'plugins.modules[0] = "not a module": not a module name'),
    ({"modules": [3]}, "plugins.modules[0] = 3: must be a module name (mypkg.mycc) or a path to a .py file"),
    ({"modules": "x.py"}, 'plugins.modules = "x.py": must be a list'),
    ({"module": ["x.py"]}, "plugins.module: unknown field, expected `modules`"),
    (["x.py"], 'plugins = ["x.py"]: must be a table'),
])
def test_a_bad_entry_is_one_scenario_error_naming_it(tmp_path, plugins, needle):
    d = tmp_path / "exp"
    d.mkdir()
    (d / "crash.py").write_text("undefined_thing()\n")
    (tmp_path / "outside.py").write_text(controller("plug_outside"))
    data = json.loads(json.dumps({"seed": 1, "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9,
                                                          "rtt_s": 1e-4, "buffer_pkts": 50},
                                  "flows": {"count": 1, "cc": "new_reno"}, "plugins": plugins}))
    sc = d / "s.json"
    sc.write_text(json.dumps(data))
    with pytest.raises(ccscope.ScenarioError) as e:
        ccscope.simulate(sc, until_s=0.001)
    assert needle in str(e.value), str(e.value)
    assert "\n" not in str(e.value)
    r = subprocess.run(CLI + ["run", str(sc), "-q", "-o", str(tmp_path / "out")], capture_output=True, text=True,
                       timeout=HANG_S)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_other_unknown_tables_are_still_errors():
    sc = {"seed": 1, "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "buffer_pkts": 50},
          "flows": {"count": 1}, "plugin": {"modules": []}}
    with pytest.raises(ccscope.ScenarioError, match="unknown field `plugin`"):
        ccscope.simulate(sc, until_s=0.001)
    # and an empty table is fine
    sc["plugins"] = sc.pop("plugin")
    assert ccscope.simulate(sc, until_s=0.001).flows["cc"].tolist() == ["new_reno"]


def test_cli_run_and_sweep_load_the_table(tmp_path):
    d = tmp_path / "exp"
    d.mkdir()
    (d / "halve_c.py").write_text(controller("plug_halve_c"))
    sc = d / "s.toml"
    sc.write_text(toml_scenario("plug_halve_c", ["halve_c.py"]))
    r = subprocess.run(CLI + ["run", str(sc), "-q", "-o", str(tmp_path / "run")], capture_output=True, text=True,
                       cwd=tmp_path, timeout=HANG_S)
    assert r.returncode == 0, r.stderr
    assert pd.read_parquet(tmp_path / "run" / "flows.parquet")["cc"].tolist() == ["plug_halve_c"] * 2
    for cmd in (["scenario", "validate"], ["scenario", "expand"]):
        v = subprocess.run(CLI + cmd + [str(sc)], capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S)
        assert v.returncode == 0, (cmd, v.stderr)
    outs = {}
    executors = [("local", ["--jobs", "2"])]
    try:
        import distributed  # noqa: F401
        executors.append(("dask", ["--dask-local", "1"]))
    except ImportError:
        pass
    for name, ex in executors:
        s = subprocess.run(CLI + ["sweep", str(sc), "--grid", "topology.buffer_pkts=20,40", "-q", *ex,
                                  "-o", str(tmp_path / name)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=HANG_S)
        assert s.returncode == 0, s.stderr
        outs[name] = pd.read_parquet(tmp_path / name / "summary.parquet")
        assert outs[name].status.tolist() == ["ok", "ok"], outs[name].error.tolist()
    if "dask" in outs:
        vol = ["wall_s", "events_per_s", "cached", "result_dir"]
        pd.testing.assert_frame_equal(outs["dask"].drop(columns=vol, errors="ignore").reset_index(drop=True),
                                      outs["local"].drop(columns=vol, errors="ignore").reset_index(drop=True))
