"""coexistence/fig3b: DCTCP AQM -- aggregate throughput stays at 1 Gb/s (the fig3a runs)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.coexistence import fig3a
from ccscope.repro.coexistence._x0 import SEEDS as SEEDS  # noqa: F401  re-exported: fixed from the pilot (_x0)
from ccscope.repro.coexistence._x0 import mean_se

ID = "coexistence/fig3b"
TITLE = "DCTCP AQM: aggregate stays at 1 Gb/s"
KIND = "sim"
COST = fig3a.COST
CLAIM = "With the DCTCP AQM the aggregate throughput T_a stays at 1 Gb/s."


def run(quick: bool) -> Run:
    return fig3a.run(quick)


def check(run: Run) -> dict:
    c = Checks()
    d = run.frames["runs"]
    m, s = mean_se(d["aggregate_frac"])
    c.beyond("aggregate / 1 Gb/s", m, s, 0.99, ">", tolerance="T_a >= 99% (threshold marking keeps a standing queue)")
    return verdict(c, {"aggregate": m, "per_seed": d["aggregate_frac"].tolist()})


def plot(run: Run):
    ts = run.frames["series"]
    agg = ts.groupby("time_s").rate_bps.sum()
    fig, ax = figure(width=7, height=3.6)
    ax = ax[0, 0]
    ax.plot(agg.index, agg.values / 1e6, label="aggregate T_a")
    ref_line(ax, 1000, "1 Gb/s line rate")
    ax.set_ylim(0, 1100)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mb/s, 10 ms bins)")
    ax.set_title("DCTCP AQM: aggregate throughput (Fig. 3b)")
    ax.legend(fontsize=8)
    return fig
