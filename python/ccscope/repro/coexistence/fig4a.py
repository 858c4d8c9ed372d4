"""coexistence/fig4a: RED 50/100 (ECN) -- TCP does better than under the DCTCP AQM; both flows fluctuate."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.coexistence._red import RED_CAUSE, cause_values, diagnose, red
from ccscope.repro.coexistence._x0 import PILOT_SEEDS, SEEDS, PARAMS, mean_se, plot_series, run_x0, share_rows

ID = "coexistence/fig4a"
TITLE = "RED 50/100: TCP better off than under the DCTCP AQM; both fluctuate"
KIND = "sim"
COST = "2 x 10 runs x 5 s (~20 s); quick 2 x 2 x 1 s (~2 s)"
CLAIM = "Under RED (min_th 50, max_th 100, ECN) T_r ~ 2.5 (< DCTCP AQM's ~8); both flows fluctuate strongly."

CAUSE = {"red": RED_CAUSE + (" Fluctuation (bins of {v.bin_ms:.3g} ms, seed {v.seed} after warm-up): coefficient of variation "
                              "DCTCP {v.cv_dctcp:.3g}, NewReno {v.cv_tcp:.3g}; DCTCP takes what NewReno leaves, and "
                              "its cuts under RED's sparse random marks are a small fraction of its window.")}


def run(quick: bool) -> Run:
    seeds = list(PILOT_SEEDS if quick else SEEDS)
    until = 1.0 if quick else 5.0
    df, ts = run_x0(red(50, 100), seeds=seeds, until_s=until, series=True)
    dt, _ = run_x0({"kind": "threshold", "k_pkts": 65}, seeds=seeds, until_s=until)
    return Run(params={**PARAMS, "aqm": "RED 50/100, p_max 0.1, w_q 0.002 [NG]"},
               frames={"runs": df, "series": ts, "dctcp_aqm": dt}, seeds=seeds, quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    d, dt = run.frames["runs"], run.frames["dctcp_aqm"]
    s_r, se_r = mean_se(d.tcp_share)
    s_d, se_d = mean_se(dt.tcp_share)
    t_r, t_d = (1 - s_r) / s_r, (1 - s_d) / s_d
    # T_r falls as TCP's share grows: T_r(RED) < T_r(DCTCP AQM) is TCP share RED > DCTCP AQM
    c.order("T_r(RED) < T_r(DCTCP AQM, K=65), as TCP shares", s_r, se_r, s_d, se_d, ">", tolerance="ordering")
    share_rows(c, "RED 50/100 (T_r ~ 2.5)", d.tcp_share, 1 / 3.5)
    ts = run.frames["series"]
    cv = ts[ts.time_s > ts.time_s.max() * 0.2].groupby("flow").rate_bps.agg(lambda x: np.std(x) / np.mean(x))
    # one plotted seed (the paper's Fig 4a is one run): a single-run row; 0.1 is FIGURES.md's "fluctuate strongly"
    c.add("CV of 10 ms throughput, each flow", cv.to_dict(), bool((cv >= 0.1).all()), ">= 0.1", "probabilistic marking")
    g = diagnose(d)
    return verdict(c, {"t_r": t_r, "t_r_dctcp_aqm": t_d, "tcp_share": s_r, "starved_seeds": g["dead_seeds"],
                       "t_r_other_seeds": g.get("t_r_live", float("nan"))},
                   cause=None if c.verdict == "reproduced" else "red",
                   cause_values={"red": cause_values(g), "cv_dctcp": float(cv.get("dctcp", float("nan"))),
                                 "cv_tcp": float(cv.get("tcp", float("nan"))), "seed": run.seeds[0],
                                 "bin_ms": 10.0})


def plot(run: Run):
    fig, ax = figure(width=7, height=4)
    plot_series(ax[0, 0], run.frames["series"], "RED 50/100 (ECN): DCTCP vs TCP (Fig. 4a)")
    ref_line(ax[0, 0], 1000 * 2.5 / 3.5, "paper: T_r ~ 2.5")
    ref_line(ax[0, 0], 1000 / 3.5)
    ax[0, 0].legend(fontsize=8)
    return fig
