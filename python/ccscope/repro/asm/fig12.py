"""asm/fig12: the parking-lot topology (builder test). The drawing is lost [NG]: the proposed chain
S1-S2-S3 with L1 = S1->S2 and L2 = S2->S3; F1 crosses L1 and L2; F2, F4 only L1; F3, F5 only L2; all links
1 Gb/s (see `_pl`)."""
from __future__ import annotations

import pandas as pd

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.asm import _pl

ID = 'asm/fig12'
TITLE = 'parking-lot topology, all links 1 Gb/s'
KIND = 'sim (schematic)'
COST = 'full: builder test (< 0.1 s)'
CLAIM = 'Parking lot with all links at 1 Gb/s: F1 shares L1 with F2/F4 and L2 with F3/F5.'
EXPECTED = {"F1": {"L1", "L2"}, "F2": {"L1"}, "F4": {"L1"}, "F3": {"L2"}, "F5": {"L2"}}


def run(quick: bool) -> Run:
    g = _pl.graph()
    rows = []
    for f in g["flow"] if "flow" in g else g["flows"]:
        p = _pl.route(g, f["src"], f["dst"])
        rows.append({"flow": _pl.NAMES[f["src"]], "src": f["src"], "dst": f["dst"], "path": " → ".join(p),
                     "links": ",".join(sorted(_pl.links_of(p)))})
    rates = sorted({lk["rate_bps"] for lk in g["topology"]["links"]})
    return Run(params={"hops": 2, "flows_per_group": 2, "rate_bps": 1e9},
               frames={"routes": pd.DataFrame(rows)}, values={"routes": {r["flow"]: r["links"] for r in rows},
                                                              "link_rates_bps": rates}, quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    got = run.values["routes"]
    for f, exp in EXPECTED.items():
        c.add(f"{f} bottleneck links", got.get(f, ""), set(filter(None, got.get(f, "").split(","))) == exp,
              ",".join(sorted(exp)), "exact")
    c.add("all link rates", run.values["link_rates_bps"], run.values["link_rates_bps"] == [1e9], "[1e9]", "exact")
    return verdict(c, run.values, tolerance="exact")


def plot(run: Run):
    fig, axes = figure(1, 1, width=7, height=3)
    ax = axes[0, 0]
    xs = {"S1": 0, "S2": 1, "S3": 2}
    for n, x in xs.items():
        ax.add_patch(__import__("matplotlib.patches", fromlist=["x"]).Rectangle((x - 0.08, -0.08), 0.16, 0.16, fc="0.85"))
        ax.text(x, 0, n, ha="center", va="center", fontsize=8)
    ax.annotate("", xy=(0.92, 0), xytext=(0.08, 0), arrowprops=dict(arrowstyle="->"))
    ax.annotate("", xy=(1.92, 0), xytext=(1.08, 0), arrowprops=dict(arrowstyle="->"))
    ax.text(0.5, 0.04, "L1 (1 Gb/s)", ha="center", fontsize=8); ax.text(1.5, 0.04, "L2 (1 Gb/s)", ha="center", fontsize=8)
    ys = {"F1": 0.5, "F2": 0.35, "F4": 0.25, "F3": -0.3, "F5": -0.4}
    spans = {"F1": (0, 2.3), "F2": (0, 1.2), "F4": (0, 1.2), "F3": (1, 2.3), "F5": (1, 2.3)}
    for f, y in ys.items():
        a, b = spans[f]
        ax.annotate("", xy=(b, y), xytext=(a - 0.2, y), arrowprops=dict(arrowstyle="->", color="C0"))
        ax.text(a - 0.25, y, f, ha="right", va="center", fontsize=8)
    ax.set_xlim(-0.6, 2.5); ax.set_ylim(-0.6, 0.7); ax.axis("off")
    ax.set_title("parking lot (Fig. 12, proposed layout): F1 crosses L1 and L2", fontsize=9)
    fig.tight_layout()
    return fig
