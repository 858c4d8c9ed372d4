"""dctcp-analysis/text-guidelines: K ~ 0.17 C d and 5/(Cd+K) <~ g <~ 1/sqrt(Cd+K) (eqs 1-2, 17, 18, 27).

Erratum dctcp-3: "K = 35 (or 17% of the BDP)" is 21% of Cd = 166.7 (35 is 17% of Wmax = Cd + K)."""
from __future__ import annotations

import numpy as np

from ccscope.analysis.guidelines import dctcp_guidelines, k_fraction_from_qmin
from ccscope.fluid.dctcp import normalized_limit_cycles
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict

ID = "dctcp-analysis/text-guidelines"
TITLE = "Parameter guidelines: K ~ 0.17 C d, g in [5/(Cd+K), 1/sqrt(Cd+K)]"
KIND = "fluid"
COST = "closed form + 2 fluid runs (~2 s)"
CLAIM = "At 10 Gb/s, 300 us, 1500 B: K ~ 42 pkts and 0.02 <~ g <~ 0.06; K/(Cd) = |Qmin|/(1-|Qmin|) ~ 0.15-0.17."


def run(quick: bool) -> Run:
    gl = dctcp_guidelines(10e9, 300e-6)
    out = normalized_limit_cycles([10.0, 12.0, 14.0], 1 / 16, dt=0.02, settle=320, measure=100)
    qmin = float(np.min(out["q_min"]))
    return Run(params={"rate_bps": 10e9, "rtt_s": 300e-6, "packet_bytes": 1500},
               values={"bdp": gl.bdp_pkts, "k": gl.k_pkts, "g_min": gl.g_min, "g_max": gl.g_max,
                       "qmin_g16": qmin, "k_fraction_from_fig7": k_fraction_from_qmin(qmin), "reasoning": gl.reasoning},
               errata=[{"id": "dctcp-3", "paper": "K = 35 is 17% of the BDP", "corrected": "21% of Cd (17% of Cd + K)"}],
               quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.near("C d (pkts)", v["bdp"], 250.0, 1e-9, "closed form")
    c.near("K (pkts)", v["k"], 42.5, 0.01, "closed form 0.17 Cd")
    c.near("g_min", v["g_min"], 0.0171, 5e-5, "5/(Cd+K), 3 digits")
    c.near("g_max", v["g_max"], 0.0585, 5e-5, "1/sqrt(Cd+K), 3 digits")
    c.add("paper's rounding 0.02 / 0.06", (v["g_min"], v["g_max"]),
          round(v["g_min"], 2) == 0.02 and round(v["g_max"], 2) == 0.06, "rounds to [0.02, 0.06]", "2 digits")
    c.within("K/(Cd) from fig7's worst Qmin (g = 1/16)", v["k_fraction_from_fig7"], 0.15, 0.17, "[DER] 0.131..0.143 undershoot")
    return verdict(c, {k: v[k] for k in ("bdp", "k", "g_min", "g_max", "qmin_g16", "k_fraction_from_fig7")})


def plot(run: Run):
    v = run.values
    fig, ax = figure(width=6.4, height=4)
    ax = ax[0, 0]
    cd = np.linspace(20, 1000, 200)
    wmax = cd * 1.17
    ax.fill_between(cd, 5 / wmax, wmax ** -0.5, alpha=0.3, label="5/(Cd+K) <= g <= 1/sqrt(Cd+K)")
    ax.plot([v["bdp"]], [v["g_min"]], "v", color="C3", label=f"10 Gb/s, 300 us: g in [{v['g_min']:.4f}, {v['g_max']:.4f}]")
    ax.plot([v["bdp"]], [v["g_max"]], "^", color="C3")
    ref_line(ax, 0.02, "paper: 0.02 and 0.06")
    ref_line(ax, 0.06)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bandwidth-delay product C d (pkts)")
    ax.set_ylabel("EWMA gain g")
    ax.set_title(f"DCTCP guidelines (K = 0.17 C d = {v['k']:.1f} pkts at Cd = 250)")
    ax.legend(fontsize=8)
    return fig
