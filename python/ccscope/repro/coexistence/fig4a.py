"""coexistence/fig4a: RED 50/100 (ECN) -- TCP does better than under the DCTCP AQM; both flows fluctuate."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.coexistence._red import cause, diagnose, red
from ccscope.repro.coexistence._x0 import PARAMS, plot_series, run_x0

ID = "coexistence/fig4a"
TITLE = "RED 50/100: TCP better off than under the DCTCP AQM; both fluctuate"
KIND = "sim"
STATUS = "not reproduced"
COST = "2 x 10 runs x 5 s (~20 s); quick 2 x 2 x 1 s (~2 s)"
CLAIM = "Under RED (min_th 50, max_th 100, ECN) T_r ~ 2.5 (< DCTCP AQM's ~8); both flows fluctuate strongly."


def run(quick: bool) -> Run:
    seeds = [1, 2] if quick else list(range(1, 11))
    until = 1.0 if quick else 5.0
    df, ts = run_x0(red(50, 100), seeds=seeds, until_s=until, series=True)
    dt, _ = run_x0({"kind": "threshold", "k_pkts": 65}, seeds=seeds, until_s=until)
    return Run(params={**PARAMS, "aqm": "RED 50/100, p_max 0.1, w_q 0.002 [NG]"},
               frames={"runs": df, "series": ts, "dctcp_aqm": dt}, seeds=seeds, quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    share = float(run.frames["runs"].tcp_share.mean())
    t_r = (1 - share) / share
    s_d = float(run.frames["dctcp_aqm"].tcp_share.mean())
    t_d = (1 - s_d) / s_d
    c.add("T_r(RED) < T_r(DCTCP AQM, K=65)", (t_r, t_d), t_r < t_d, "less", "ordering")
    c.near("TCP share (T_r ~ 2.5)", share, 1 / 3.5, 0.03, "share +-0.03; 2.5 interpolated from fig4b")
    ts = run.frames["series"]
    cv = ts[ts.time_s > ts.time_s.max() * 0.2].groupby("flow").rate_bps.agg(lambda x: np.std(x) / np.mean(x))
    c.add("CV of 10 ms throughput, each flow", cv.to_dict(), bool((cv >= 0.1).all()), ">= 0.1", "probabilistic marking")
    g = diagnose(run.frames["runs"])
    return verdict(c, {"t_r": t_r, "t_r_dctcp_aqm": t_d, "tcp_share": share, "starved_seeds": g["dead_seeds"],
                       "t_r_other_seeds": g.get("t_r_live", float("nan"))},
                   notes=cause(g) + (f" Fluctuation (plotted seed {run.seeds[0]}, 10-ms CV after warm-up): DCTCP "
                                     f"{cv.get('dctcp', float('nan')):.3f}, NewReno {cv.get('tcp', float('nan')):.2f}; "
                                     "DCTCP takes whatever NewReno leaves of the link, and with RED marking ~3% of "
                                     "packets at random its alpha/2 cuts are a few % of the window, so its throughput "
                                     "is nearly flat."))


def plot(run: Run):
    fig, ax = figure(width=7, height=4)
    plot_series(ax[0, 0], run.frames["series"], "RED 50/100 (ECN): DCTCP vs TCP (Fig. 4a)")
    ref_line(ax[0, 0], 1000 * 2.5 / 3.5, "paper: T_r ~ 2.5")
    ref_line(ax[0, 0], 1000 / 3.5)
    ax[0, 0].legend(fontsize=8)
    return fig
