"""dx/fig6: CDF of the queue for several R0 (N = 50) (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import MECH, cause_key

ID = "dx/fig6"
TITLE = "CDF of the queue for several R0 (N = 50)"
KIND = "sim"
COST = "5 points x 10 seeds x 0.3 s, queue every 1 us (full ~18 s wall); quick 2 x 3 seeds x 50 ms"
CAUSE = {"partly": MECH + "Over {v.n_seeds} seeds at N = {v.n}: queue median {v.med} pkts and first percentile "
                           "{v.p01} pkts at base RTT {v.r0s} us; failed rows: {v.failed}."}
CLAIM = "At fixed N a smaller R0 pushes DX into the special state and raises the queue; at R0 = 20 us the queue never falls below 30 pkts."


def run(quick: bool) -> Run:
    r0s = [20, 80] if quick else [20, 40, 60, 80, 120]
    until = 0.05 if quick else 0.3
    sd = _y0.seeds(quick)
    rows, qs = [], []
    for r in r0s:
        for k in sd:
            st, q = _y0.run_y0(50, r, until_s=until, seed=k, fine_queue=True)
            rows.append(st)
            if k == sd[0]:  # the CDF figure: the first seed
                qs.append(q.assign(r0_us=r))
    import pandas as pd
    runs = pd.DataFrame(rows)
    return Run(params={**_y0.PARAMS, "n": 50, "r0_us": r0s, "queue_interval_s": 1e-6},
               frames={"runs": runs, "sweep": _y0.summary(runs), "queue": pd.concat(qs, ignore_index=True)},
               seeds=list(sd), quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].sort_values("r0_us").set_index("r0_us")
    c.beyond("1st percentile at 20 us > 30 pkts", d.queue_p01_pkts[20], d.queue_p01_pkts_se[20], 30, ">",
             tolerance="2 se ([DER] 33.3)")
    # "a smaller R0 raises the queue": each neighbouring pair through the special state and its edge
    # (R0 <= 80 us); beyond 80 us both medians are 0 in the stable state and are not ordered
    rs = [r for r in d.index if r <= 80]
    for a, b in zip(rs, rs[1:]):
        c.order(f"median queue at {a:g} us > at {b:g} us", d.queue_median_pkts[a], d.queue_median_pkts_se[a],
                d.queue_median_pkts[b], d.queue_median_pkts_se[b], ">", tolerance="2 se")
    z = d[d.index >= 80]
    lo = z.queue_zero_frac.idxmin()
    c.beyond(f"P(queue = 0) > 0 for R0 >= 80 us (lowest: {lo:g} us)", z.queue_zero_frac[lo], z.queue_zero_frac_se[lo],
             0.0, ">", tolerance="2 se (stable state drains)")
    failed = [x.name for x in c.items if not x.passed and not x.advisory]
    cv = {"n_seeds": int(d.n_seeds.iloc[0]), "n": 50, "r0s": [float(x) for x in d.index],
          "med": [round(float(x), 2) for x in d.queue_median_pkts], "p01": [round(float(x), 2) for x in d.queue_p01_pkts],
          "failed": "; ".join(failed) or "none"}
    return verdict(c, {f"median({int(k)}us)": float(v) for k, v in d.queue_median_pkts.items()}
                   | {f"p01({int(k)}us)": float(v) for k, v in d.queue_p01_pkts.items()},
                   cause=cause_key(c), cause_values=cv)


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
