"""asm/text-qcn-delay-bound: Appendix A, Proposition 1 (eq 17), with the corrected loop (E33).

gamma = pC/w and rates in frames/s (E33), omega* with a3^4/4 (E33), N = 10, 1500-B frames, w = 2,
Gd = 1/128, p = 0.01, R_AI = 5 Mb/s (ccscope.fluid.qcn_bound). The exact delay margin of the same
linear loop must lie below (17), which is only sufficient for instability.
"""
from __future__ import annotations

import pandas as pd

from ccscope.fluid import qcn_bound
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict

ID = 'asm/text-qcn-delay-bound'
TITLE = 'QCN is unstable for delay ≥ ≈271 µs at 10 Gb/s and ≥ ≈27 µs at 100 Gb/s'
KIND = 'fluid'
COST = 'full: closed form (< 0.1 s)'
CLAIM = 'QCN is unstable once the delay reaches ≈271 µs at 10 Gb/s and ≈27 µs at 100 Gb/s; the bound shrinks as speed grows.'


def run(quick: bool) -> Run:
    rows = []
    for rate in (1e9, 10e9, 40e9, 100e9):
        for n in (1, 2, 5, 10, 20, 50):
            b = qcn_bound(rate, n)
            rows.append({"rate_bps": rate, "n": n, "bound_us": b.bound_s * 1e6, "margin_us": b.delay_margin_s * 1e6})
    df = pd.DataFrame(rows)
    get = lambda r, n, k: float(df[(df.rate_bps == r) & (df.n == n)][k].iloc[0])
    vals = {"bound_10g_us": get(10e9, 10, "bound_us"), "bound_100g_us": get(100e9, 10, "bound_us"),
            "margin_10g_us": get(10e9, 10, "margin_us"), "margin_100g_us": get(100e9, 10, "margin_us"),
            "bound_10g_n1_us": get(10e9, 1, "bound_us"), "bound_10g_n50_us": get(10e9, 50, "bound_us"),
            "bound_100g_max_us": float(df[df.rate_bps == 100e9].bound_us.max())}
    return Run(params={"n": 10, "frame_bytes": 1500, "w": 2, "gd": 1 / 128, "p": 0.01, "r_ai_bps": 5e6},
               frames={"bounds": df}, values=vals,
               errata=[{"id": "E33", "paper": "gamma dimensionless, omega* with a4^3/4",
                        "corrected": "gamma = pC/w in frames/s, a3^4/4"}], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    # closed form: tolerances only cover the paper's rounding (271 -> 270.7) and float round-off
    c.near("bound (17) at 10 Gb/s (µs)", v["bound_10g_us"], 270.7, 0.5, "rounding of the printed ≈271")
    c.near("bound (17) at 100 Gb/s (µs)", v["bound_100g_us"], 27.07, 0.05, "rounding of ≈27")
    ratio = v["bound_10g_us"] / v["bound_100g_us"]
    c.near("10 G / 100 G ratio", ratio, 10.0, 0.05, "bound ∝ 1/C")
    c.add("exact margin below (17) at 10 Gb/s", v["margin_10g_us"], v["margin_10g_us"] < v["bound_10g_us"],
          "< bound", "(17) is sufficient only")
    c.add("exact margin below (17) at 100 Gb/s", v["margin_100g_us"], v["margin_100g_us"] < v["bound_100g_us"],
          "< bound", "(17) is sufficient only")
    c.add("fig10's 60 µs RTT at 100 Gb/s beyond the bound for all N", v["bound_100g_max_us"], v["bound_100g_max_us"] < 60,
          "< 60 µs", "N in 1..50")
    return verdict(c, v, tolerance="±0.5 µs / ±0.05 µs (printed rounding)")


def plot(run: Run):
    fig, axes = figure(1, 2, width=11, height=4)
    df = run.frames["bounds"]
    ax = axes[0, 0]
    for rate, g in df.groupby("rate_bps"):
        ax.plot(g.n, g.bound_us, "o-", label=f"(17), {rate / 1e9:g} Gb/s")
        ax.plot(g.n, g.margin_us, "x:", color=ax.lines[-1].get_color(), label=f"exact margin, {rate / 1e9:g} Gb/s")
    ax.set_xscale("log"); ax.set_yscale("log")
    ax.set_xlabel("flows N"); ax.set_ylabel("delay bound (µs)"); ax.legend(fontsize=6)
    ax.set_title("QCN delay bound vs N (E33-corrected)", fontsize=9)
    ax = axes[0, 1]
    g = df[df.n == 10]
    ax.loglog(g.rate_bps / 1e9, g.bound_us, "o-", label="(17), N = 10")
    ax.loglog(g.rate_bps / 1e9, g.margin_us, "x:", label="exact delay margin")
    ax.plot([10, 100], [271, 27], "k*", ms=10, label="paper: 271 / 27 µs")
    ref_line(ax, 60, "fig10 RTT 60 µs")
    ax.set_xlabel("link rate C (Gb/s)"); ax.set_ylabel("delay (µs)"); ax.legend(fontsize=7)
    ax.set_title("bound shrinks as 1/C", fontsize=9)
    fig.tight_layout()
    return fig
