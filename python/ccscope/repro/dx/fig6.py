"""dx/fig6: CDF of the queue for several R0 (N = 50) (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.dx import _y0

ID = "dx/fig6"
TITLE = "CDF of the queue for several R0 (N = 50)"
KIND = "sim"
STATUS = "reproduced"
COST = "5 x 0.3 s, queue every 1 us (~1 s); quick 2 x 50 ms"
CLAIM = "At fixed N a smaller R0 pushes DX into the special state and raises the queue; at R0 = 20 us the queue never falls below 30 pkts."


def run(quick: bool) -> Run:
    r0s = [20, 80] if quick else [20, 40, 60, 80, 120]
    until = 0.05 if quick else 0.3
    rows, qs = [], []
    for r in r0s:
        st, q = _y0.run_y0(50, r, until_s=until, fine_queue=True)
        rows.append(st)
        qs.append(q.assign(r0_us=r))
    import pandas as pd
    return Run(params={**_y0.PARAMS, "n": 50, "r0_us": r0s, "queue_interval_s": 1e-6}, frames={"sweep": pd.DataFrame(rows),
               "queue": pd.concat(qs, ignore_index=True)}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].sort_values("r0_us").set_index("r0_us")
    c.add("1st percentile at 20 us >= 30 pkts", d.queue_p01_pkts[20], d.queue_p01_pkts[20] >= 30, ">= 30", "[DER] 33.3")
    rise = float(np.max(np.diff(d.queue_median_pkts.values), initial=0.0))
    c.add("median non-increasing in R0", rise, rise <= 0, "rise <= 0", "exact")
    z = d[d.index >= 80].queue_zero_frac
    c.add("P(queue = 0) > 0 for R0 >= 80 us", float(z.min()), bool((z > 0).all()), "> 0", "stable state drains")
    return verdict(c, {f"median({int(k)}us)": float(v) for k, v in d.queue_median_pkts.items()}
                   | {f"p01({int(k)}us)": float(v) for k, v in d.queue_p01_pkts.items()})


def plot(run: Run):
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    for r, g in run.frames["queue"].groupby("r0_us"):
        x = np.sort(g.queue_pkts.values)
        ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=f"R0 = {r:g} us")
    ax.axvline(30, ls="--", color="0.3", label="paper: > 30 pkts at 20 us")
    ax.set_xlabel("queue size (pkts)")
    ax.set_ylabel("CDF")
    ax.set_title("DX N = 50: queue CDF vs R0 (Fig. 6)")
    ax.legend(fontsize=8)
    return fig
