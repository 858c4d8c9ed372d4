"""coexistence/fig3a: DCTCP AQM (mark if q > K, K = 65 [NG]) -- DCTCP nearly starves TCP (~8x)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.coexistence._x0 import PILOT_SEEDS, SEEDS, PARAMS, plot_series, run_x0, share_rows

ID = "coexistence/fig3a"
TITLE = "DCTCP AQM: DCTCP gets ~8x TCP"
KIND = "sim"
COST = "10 runs x 5 s (~10 s); quick 2 x 1 s (~1 s)"
CLAIM = "With the DCTCP AQM (instantaneous-queue threshold K), DCTCP gets about 8x TCP's throughput."
K = 65


def run(quick: bool) -> Run:
    seeds = list(PILOT_SEEDS if quick else SEEDS)
    df, ts = run_x0({"kind": "threshold", "k_pkts": K}, seeds=seeds, until_s=1.0 if quick else 5.0, series=True)
    return Run(params={**PARAMS, "aqm": f"threshold K = {K} [NG]"}, frames={"runs": df, "series": ts}, seeds=seeds,
               quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    d = run.frames["runs"]
    share = share_rows(c, "DCTCP AQM K = 65 (T_r ~ 8)", d.tcp_share, 1 / 9)
    t_r = (1 - share) / share
    return verdict(c, {"t_r": t_r, "tcp_share": share, "aggregate": float(d["aggregate_frac"].mean())})


def plot(run: Run):
    fig, ax = figure(width=7, height=4)
    plot_series(ax[0, 0], run.frames["series"], f"DCTCP AQM, K = {K}: DCTCP vs TCP (Fig. 3a)")
    ref_line(ax[0, 0], 1000 * 8 / 9, "paper: T_r ~ 8 (889 / 111 Mb/s)")
    ref_line(ax[0, 0], 1000 / 9)
    ax[0, 0].legend(fontsize=8)
    return fig
