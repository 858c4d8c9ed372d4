"""periodic/fig3: the simulation topology S - M1 - M2 ==1.5 Mb/s== M3 - D_i (P001 Fig 3), as built by
`ccscope.scenario.periodic` (a scenario-builder test; the figure itself is lost, E20)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig3"
TITLE = "simulation topology: 50 clients behind a 1.5 Mb/s bottleneck, RTT 1340 ms fixed or 2300 ms mean"
KIND = "sim (schematic)"
COST = "trivial (scenario construction only)"
CLAIM = ("Server S -> M1 -> M2 => 1.5 Mb/s => M3 -> 50 clients; fixed RTT 1340 ms per flow, or variable with a mean of "
         "2300 ms; BDP 251 pkts (fixed) and 431 pkts (mean variable) at 187.5 pkt/s.")


def _rtts(sc: dict) -> np.ndarray:
    links = {(l["from"], l["to"]): l for l in sc["topology"]["links"]}
    path = links[("S", "M1")]["delay_s"] + links[("M1", "M2")]["delay_s"] + links[("M2", "M3")]["delay_s"]
    return np.array([2 * (path + links[("M3", f["dst"])]["delay_s"]) for f in sc["flow"]])


def run(quick: bool) -> Run:
    fixed = _p0.scenario("fixed", "droptail", 50, quick)
    var = _p0.scenario("variable", "droptail", 86, quick)
    bott = {(l["from"], l["to"]): l for l in fixed["topology"]["links"]}[("M2", "M3")]["rate_bps"]
    rf, rv = _rtts(fixed), _rtts(var)
    c_pkts = bott / (8 * fixed["packet_bytes"])
    df = pd.concat([pd.DataFrame({"rtt": "fixed", "flow": range(len(rf)), "base_rtt_s": rf}),
                    pd.DataFrame({"rtt": "variable", "flow": range(len(rv)), "base_rtt_s": rv})])
    return Run(params={"seed": _p0.SEED}, frames={"rtts": df},
               values={"flows_fixed": len(fixed["flow"]), "flows_variable": len(var["flow"]), "bottleneck_bps": bott,
                       "rtt_fixed_min_s": float(rf.min()), "rtt_fixed_max_s": float(rf.max()), "rtt_var_mean_s": float(rv.mean()),
                       "bdp_fixed_pkts": float(c_pkts * rf.mean()), "bdp_var_pkts": float(c_pkts * 2.3)}, seeds=[_p0.SEED], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.add("50 flows (fixed and variable)", [v["flows_fixed"], v["flows_variable"]], v["flows_fixed"] == v["flows_variable"] == 50, "50", "exact")
    c.within("fixed base RTT min (s)", v["rtt_fixed_min_s"], 1.339, 1.341, "± 1 ms")
    c.within("fixed base RTT max (s)", v["rtt_fixed_max_s"], 1.339, 1.341, "± 1 ms")
    # ± 10%: the s.d. of a 50-sample mean of U(0, 1 s) one-way delays is 2·0.289/√50 ≈ 82 ms.
    c.rel("variable sample mean RTT (s)", v["rtt_var_mean_s"], 2.3, 0.10, "sampling error of 50 RTTs")
    c.near("bottleneck (b/s)", v["bottleneck_bps"], 1.5e6, 0.5, "exact")
    c.near("BDP fixed (pkts)", v["bdp_fixed_pkts"], 251.25, 0.5, "187.5 × 1.34")
    c.near("BDP variable (pkts)", v["bdp_var_pkts"], 431.25, 0.5, "187.5 × 2.3")
    return verdict(c, v, tolerance="exact construction; sampling error for the variable mean")


def plot(run: Run):
    d = run.frames["rtts"]
    fig, axes = figure(width=6.4, height=4)
    ax = axes[0, 0]
    for name, g in d.groupby("rtt"):
        ax.plot(g.flow, g.base_rtt_s * 1e3, "o", ms=3, label=f"{name} RTT (mean {g.base_rtt_s.mean() * 1e3:.0f} ms)")
    ref_line(ax, 1340, "paper 1340 ms")
    ref_line(ax, 2300, "paper mean 2300 ms", color="C1")
    ax.set_xlabel("client D_i")
    ax.set_ylabel("base RTT S→D_i→S (ms)")
    ax.set_title("periodic/fig3: S–M1–M2 ═1.5 Mb/s═ M3–D_i, 50 clients", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
