"""CHOKe / modified CHOKe sweeps of coexistence Figs 5-6 (FIGURES.md, ALGORITHMS.md §7.2), with RED beside them.

Setup X0 (`_x0.run_x0`); max_th = 100, min_th swept [NG, E61]; RED/CHOKe p_max = 0.1, w_q = 0.002 [NG, E62];
CHOKe = one sample, "mark both" on a match; modified CHOKe = m = 7 samples drawn with replacement, all must match
(E63). The three AQMs share one cached sweep so that fig5a/b/c and fig6a/b of one process run it once.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ccscope.repro.coexistence._red import red
from ccscope.repro.coexistence._x0 import PILOT_SEEDS, SEEDS, PARAMS, run_x0

MAX_TH = 100
M = 7
AQMS = {"red": "RED", "choke": "CHOKe", "mchoke": "modified CHOKe (m = 7)"}
ERRATA = [{"id": "E61", "paper": "max_th of the CHOKe sweeps unstated", "corrected": "max_th = 100 (as Fig 4b) [NG]"},
          {"id": "E63", "paper": "modified CHOKe: 'm packets' rule and victims unstated",
           "corrected": "all m = 7 samples (with replacement) must match; mark the arrival and the matches"}]


def choke(min_th: float, samples: int) -> dict:
    return {"kind": "choke", "min_th_pkts": min_th, "max_th_pkts": MAX_TH, "max_p": 0.1, "w_q": 0.002,
            "samples": samples}


def min_ths(quick: bool) -> list[int]:
    return [30, 90] if quick else [30, 40, 50, 60, 70, 80, 90]


@lru_cache(maxsize=4)
def _sweep(quick: bool) -> pd.DataFrame:
    seeds = list(PILOT_SEEDS if quick else SEEDS)
    # [CHOICE] quick runs are 5 s like the full ones (FIGURES.md: 1 s): 1-s runs measure inside the slow-start
    # transient, and fig6b's alpha ordering (a few thousandths) needs the 5-s averages; 12 runs take ~3 s
    until = 5.0
    out = []
    for mt in min_ths(quick):
        for name, aqm in (("red", red(mt, MAX_TH)), ("choke", choke(mt, 1)), ("mchoke", choke(mt, M))):
            df, _ = run_x0(aqm, seeds=seeds, until_s=until)
            out.append(df.assign(min_th=mt, aqm=name))
    return pd.concat(out, ignore_index=True)


def sweep(quick: bool) -> pd.DataFrame:
    return _sweep(bool(quick)).copy()


def params(quick: bool) -> dict:
    return {**PARAMS, "max_th": MAX_TH, "min_th": min_ths(quick), "m": M,
            "aqm": "RED / CHOKe / modified CHOKe, p_max 0.1, w_q 0.002 [NG]; 10 seeds x 5 s (quick 2 x 5 s)"}


def summary(d: pd.DataFrame) -> pd.DataFrame:
    """Per (aqm, min_th): mean TCP share, T_r from the mean share, mean queue, mean DCTCP alpha."""
    s = d.groupby(["aqm", "min_th"]).agg(tcp_share=("tcp_share", "mean"), queue=("queue_mean_pkts", "mean"),
                                         alpha=("alpha_mean", "mean")).reset_index()
    s["t_r"] = (1 - s.tcp_share) / s.tcp_share
    return s


BDP_PKTS = 1e9 * 250e-6 / (8 * 1500)  # 20.8 (E60)


def diagnostics(d: pd.DataFrame) -> pd.DataFrame:
    """Per (aqm, min_th): starved seeds (a NewReno packet dropped by the AQM after warm-up: a Not-ECT
    retransmission, see `_red.cause`), per-packet mark fractions of each flow, DCTCP's alpha, mean queue, and the
    windows implied by the shares, w = share x (BDP + mean queue)."""
    g = d.assign(starved=d.tcp_aqm_drops_post > 0).groupby(["aqm", "min_th"])
    s = g.agg(starved=("starved", "sum"), seeds=("seed", "count"), tcp_share=("tcp_share", "mean"),
              p_tcp=("tcp_mark_frac", "mean"), p_dctcp=("dctcp_mark_frac", "mean"), alpha=("alpha_mean", "mean"),
              queue=("queue_mean_pkts", "mean")).reset_index()
    s["t_r"] = (1 - s.tcp_share) / s.tcp_share
    s["w_tcp"] = s.tcp_share * (BDP_PKTS + s.queue)
    s["w_dctcp"] = (1 - s.tcp_share) * (BDP_PKTS + s.queue)
    live = d[d.tcp_aqm_drops_post == 0].groupby(["aqm", "min_th"])
    nan = float("nan")
    sh, pt, pd_ = live.tcp_share.mean(), live.tcp_mark_frac.mean(), live.dctcp_mark_frac.mean()
    keys = list(zip(s.aqm, s.min_th))
    s["t_r_unstarved"] = [(1 - sh.get(k, nan)) / sh.get(k, nan) for k in keys]
    s["p_tcp_unstarved"] = [pt.get(k, nan) for k in keys]
    s["p_dctcp_unstarved"] = [pd_.get(k, nan) for k in keys]
    return s


def table(d: pd.DataFrame, col: str) -> pd.DataFrame:
    """min_th x aqm table of one column of `summary`."""
    return summary(d).pivot(index="min_th", columns="aqm", values=col)


def at_least(n: int) -> int:
    """FIGURES.md asks '>= 5 of the 7 min_th values'; the same fraction, rounded up, of the points run."""
    return -(-5 * n // 7)


def plot_vs_min_th(run, col: str, ylabel: str, title: str, aqms=("red", "choke", "mchoke"), refs=None,
                   log: bool = False):
    from ccscope.repro._base import figure
    t = table(run.frames["runs"], col)
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    for a in aqms:
        ax.plot(t.index, t[a], "o-", label=f"ccscope {AQMS[a]}")
    if col == "t_r" and "red" in aqms:
        g = diagnostics(run.frames["runs"])
        g = g[g.aqm == "red"]
        ax.plot(g.min_th, g.t_r_unstarved, "^:", color="C0", label="ccscope RED, seeds without a starved NewReno flow")
    if log:
        ax.set_yscale("log")
    for i, (xs, ys, lab) in enumerate(refs or []):
        ax.plot(xs, ys, "s--" if i == 0 else "D--", color="0.3" if i == 0 else "0.6", label=lab)
    ax.set_xlabel(f"min_th (pkts), max_th = {MAX_TH}")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig


def point_orders(d: pd.DataFrame, col: str, a: str, b: str) -> pd.DataFrame:
    """Per min_th: mean of `col` under AQM `a` minus under `b`, its standard error (hypot of the two seed-mean
    errors) and whether a > b by at least two of them (docs/VERDICTS.md §3)."""
    from ccscope.repro._base import N_SE, se
    rows = []
    for mt, g in d.groupby("min_th"):
        xa, xb = g[g.aqm == a][col], g[g.aqm == b][col]
        diff, s = float(xa.mean() - xb.mean()), float(np.hypot(se(xa), se(xb)))
        rows.append({"min_th": mt, "diff": diff, "se": s, "resolved_gt": bool(diff > 0 and diff >= N_SE * s),
                     "resolved_lt": bool(diff < 0 and -diff >= N_SE * s)})
    return pd.DataFrame(rows).set_index("min_th")
