"""Scenario files of the periodic-behaviour paper (P001), generated from the Python builder so that the
files and `ccscope.scenario.periodic` cannot drift apart (tests/test_repro_periodic_scenarios.py).

    .venv/bin/python -m ccscope.repro.periodic._scenarios   # rewrites scenarios/periodic_*.toml

Each file is P0 of FIGURES.md (full run: 4200 s, starts in [0, 300] s) in graph form, with ns-2's TCP timers,
start-up and RED rules as `_p0` sets them (its docstring gives the ns-2 source for each).
"""
from __future__ import annotations

from pathlib import Path

from ccscope import _native
from ccscope.repro.periodic import _p0
from ccscope.scenario.io import to_engine_json

#: file stem -> (rtt, queue, size, one-line description)
FAMILIES = {
    "periodic_fixed_rtt": ("fixed", "droptail", 50,
                           "P001 Figs 4a/5a/6a/9a: 50 Reno downloads, fixed RTT 1340 ms, DropTail B = 50 pkts (20% of the 251-pkt BDP)"),
    "periodic_variable_rtt": ("variable", "droptail", 86,
                              "P001 Figs 4b/5b: 50 Reno downloads, RTT 1300 ms + 2·U(0, 1 s) (mean 2300 ms), DropTail B = 86 pkts (20% of 431)"),
    "periodic_red_minfix": ("fixed", "minfix", 15,
                            "P001 Figs 4c/6b/9c/10a: 50 Reno downloads, fixed RTT 1340 ms, RED min_th 5, max_th 15, limit 30 (App. B)"),
}


def text(stem: str) -> str:
    rtt, queue, size, what = FAMILIES[stem]
    sc = _p0.scenario(rtt, queue, size, quick=False)
    sc["name"] = stem
    sc["until_s"] = _p0.setup(False)["until_s"]
    head = (f"# {what}.\n"
            f"# Generated from ccscope.repro.periodic._scenarios (cc.scenario.periodic(50, rtt={rtt!r}, ...)); do not edit by hand:\n"
            "# `.venv/bin/python -m ccscope.repro.periodic._scenarios` rewrites it. Measure over 600-4200 s (FIGURES.md P0).\n")
    return head + _native.to_toml(to_engine_json(sc))


def write(root: Path) -> list[Path]:
    out = []
    for stem in FAMILIES:
        p = root / "scenarios" / f"{stem}.toml"
        p.write_text(text(stem))
        out.append(p)
    return out


if __name__ == "__main__":
    for p in write(Path.cwd()):
        print(p)
