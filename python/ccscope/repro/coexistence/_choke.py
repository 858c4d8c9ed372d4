"""CHOKe / modified CHOKe sweeps of coexistence Figs 5-6 (FIGURES.md, ALGORITHMS.md §7.2), with RED beside them.

Setup X0 (`_x0.run_x0`); max_th = 100, min_th swept [NG, E61]; RED/CHOKe p_max = 0.1, w_q = 0.002 [NG, E62];
CHOKe = one sample, "mark both" on a match; modified CHOKe = m = 7 samples drawn with replacement, all must match
(E63). The three AQMs share one cached sweep so that fig5a/b/c and fig6a/b of one process run it once.
"""
from __future__ import annotations

from functools import lru_cache

import pandas as pd

from ccscope.repro.coexistence._red import red
from ccscope.repro.coexistence._x0 import PARAMS, run_x0

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
    seeds = [1, 2] if quick else list(range(1, 11))
    until = 1.0 if quick else 5.0
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
            "aqm": "RED / CHOKe / modified CHOKe, p_max 0.1, w_q 0.002 [NG]; 10 seeds x 5 s (quick 2 x 1 s)"}


def summary(d: pd.DataFrame) -> pd.DataFrame:
    """Per (aqm, min_th): mean TCP share, T_r from the mean share, mean queue, mean DCTCP alpha."""
    s = d.groupby(["aqm", "min_th"]).agg(tcp_share=("tcp_share", "mean"), queue=("queue_mean_pkts", "mean"),
                                         alpha=("alpha_mean", "mean")).reset_index()
    s["t_r"] = (1 - s.tcp_share) / s.tcp_share
    return s


def table(d: pd.DataFrame, col: str) -> pd.DataFrame:
    """min_th x aqm table of one column of `summary`."""
    return summary(d).pivot(index="min_th", columns="aqm", values=col)


def at_least(n: int) -> int:
    """FIGURES.md asks '>= 5 of the 7 min_th values'; the same fraction, rounded up, of the points run."""
    return -(-5 * n // 7)


def plot_vs_min_th(run, col: str, ylabel: str, title: str, aqms=("red", "choke", "mchoke"), refs=None):
    from ccscope.repro._base import figure
    t = table(run.frames["runs"], col)
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    for a in aqms:
        ax.plot(t.index, t[a], "o-", label=f"ccscope {AQMS[a]}")
    for xs, ys, lab in refs or []:
        ax.plot(xs, ys, "s--", color="0.3", label=lab)
    ax.set_xlabel(f"min_th (pkts), max_th = {MAX_TH}")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig
