"""RED (ECN) grids of coexistence Figs 4(b)/(c): p_max = 0.1, w_q = 0.002, not gentle [NG]; mark above max_th."""
from __future__ import annotations

import pandas as pd

from ccscope.repro.coexistence._x0 import run_x0


def red(min_th: float, max_th: float) -> dict:
    return {"kind": "red", "min_th_pkts": min_th, "max_th_pkts": max_th, "max_p": 0.1, "w_q": 0.002, "gentle": False,
            "action": "mark"}


def grid(pairs, *, quick: bool) -> pd.DataFrame:
    seeds = [1, 2] if quick else list(range(1, 11))
    out = []
    for lo, hi in pairs:
        df, _ = run_x0(red(lo, hi), seeds=seeds, until_s=1.0 if quick else 5.0)
        out.append(df.assign(min_th=lo, max_th=hi))
    d = pd.concat(out, ignore_index=True)
    return d


def summarize(d: pd.DataFrame, by: str) -> pd.DataFrame:
    s = d.groupby(by).agg(tcp_share=("tcp_share", "mean"), queue=("queue_mean_pkts", "mean")).reset_index()
    s["t_r"] = (1 - s.tcp_share) / s.tcp_share
    return s
