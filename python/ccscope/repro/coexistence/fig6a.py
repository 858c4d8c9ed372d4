"""coexistence/fig6a: modified CHOKe (m = 7) -- T_r ~1.5 at min_th = 30 -> ~2 at 90, fairer than RED."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.coexistence import _choke as ch
from ccscope.repro.coexistence._x0 import SEEDS as SEEDS  # noqa: F401  re-exported: fixed from the pilot (_x0)
from ccscope.repro.coexistence._x0 import share_rows

ID = "coexistence/fig6a"
TITLE = "modified CHOKe (m=7): T_r ~1.5 at min_th=30 -> ~2 at 90, fairer than RED"
KIND = "sim"
COST = "reuses the fig5a sweep (~80 s full, shared); quick ~3 s, shared"
CLAIM = ("Modified CHOKe (m = 7) marks DCTCP more at small min_th: T_r ~ 1.5 at min_th = 30 rising to ~ 2 at 90, "
         "below RED's T_r at every min_th.")

CAUSE = {"mchoke": (
    "Modified CHOKe gives T_r {v.t_r_lo:.3g} at min_th = {v.lo} and {v.t_r_hi:.3g} at {v.hi}. Marks start only where "
    "the average reaches min_th, so the standing queue follows min_th ({v.q_lo:.3g} -> {v.q_hi:.3g} pkts) and the "
    "total window grows ({v.w_lo:.3g} -> {v.w_hi:.3g} pkts). TCP's window barely changes ({v.w_tcp_lo:.3g} -> "
    "{v.w_tcp_hi:.3g} pkts): the all-m match practically never fires on its {v.tcp_share_hi:.0%} queue share, so "
    "only the RED ramp marks it (per packet {v.p_tcp_lo:.2%} -> {v.p_tcp_hi:.2%}), while DCTCP takes the extra buffer "
    "({v.w_dctcp_lo:.3g} -> {v.w_dctcp_hi:.3g} pkts; marked {v.p_dctcp_lo:.2%} -> {v.p_dctcp_hi:.2%}, alpha "
    "{v.alpha_lo:.3g} -> {v.alpha_hi:.3g}). max_th of the CHOKe sweeps is not given (E61: an [NG] value); "
    "with the highest min_th the RED ramp is narrow. Not tuned.")}


def run(quick: bool) -> Run:
    d = ch.sweep(quick)
    return Run(params=ch.params(quick), frames={"runs": d}, errata=list(ch.ERRATA),
               seeds=sorted(d.seed.unique().tolist()), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    d = run.frames["runs"]
    t = ch.table(d, "t_r")
    m = d[d.aqm == "mchoke"]
    # FIGURES.md bands: TCP share 1/(1+T_r) +- 0.03 around the paper's 1.5 and 2 (X0 tolerance)
    share_rows(c, "modified CHOKe T_r(min_th=30) ~ 1.5", m[m.min_th == 30].tcp_share, 0.40)
    share_rows(c, "modified CHOKe T_r(min_th=90) ~ 2", m[m.min_th == 90].tcp_share, 1 / 3)
    # T_r(mod) < T_r(RED) is TCP share mod > RED, at every min_th, each by 2 se
    o = ch.point_orders(d, "tcp_share", "mchoke", "red")
    n_ok = int(o.resolved_gt.sum())
    c.add("min_th points with T_r(modified CHOKe) < T_r(RED), each by >= 2 se", n_ok, n_ok == len(o),
          f"all {len(o)}", "ordering")
    g = ch.diagnostics(d).set_index(["aqm", "min_th"]).loc["mchoke"]
    lo, hi = int(g.index.min()), int(g.index.max())
    a, b = g.loc[lo], g.loc[hi]
    cv = {"lo": lo, "hi": hi, "t_r_lo": float(a.t_r), "t_r_hi": float(b.t_r), "q_lo": float(a.queue),
          "q_hi": float(b.queue), "w_lo": float(a.w_tcp + a.w_dctcp), "w_hi": float(b.w_tcp + b.w_dctcp),
          "w_tcp_lo": float(a.w_tcp), "w_tcp_hi": float(b.w_tcp), "w_dctcp_lo": float(a.w_dctcp),
          "w_dctcp_hi": float(b.w_dctcp), "p_tcp_lo": float(a.p_tcp), "p_tcp_hi": float(b.p_tcp),
          "p_dctcp_lo": float(a.p_dctcp), "p_dctcp_hi": float(b.p_dctcp), "alpha_lo": float(a.alpha),
          "alpha_hi": float(b.alpha), "tcp_share_hi": float(b.tcp_share)}
    return verdict(c, {**{f"T_r mCHOKe({k})": float(v) for k, v in t.mchoke.items()},
                       **{f"T_r RED({k})": float(v) for k, v in t.red.items()}},
                   cause=None if c.verdict == "reproduced" else "mchoke", cause_values=cv)


def plot(run: Run):
    return ch.plot_vs_min_th(run, "t_r", "throughput ratio T_r = T_dctcp / T_tcp",
                             "modified CHOKe (m = 7) vs RED: T_r vs min_th (Fig. 6a)", aqms=("red", "mchoke"),
                             refs=[([30, 90], [1.5, 2.0], "paper modified CHOKe: ~1.5 -> ~2"),
                                   ([30, 90], [2.0, 3.5], "paper RED (Fig. 4b): ~2 -> ~3.5")], log=True)
