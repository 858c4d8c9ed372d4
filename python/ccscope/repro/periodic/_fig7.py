"""Shared body of periodic/fig7a-c: loss of utilization vs buffer. DropTail (x = B), RED minfix (min_th 5,
x = max_th) and RED ratiofix (min_th = max_th/3); ingress and egress loss of utilization (P001 §II.C,
footnote 5). Setup P0 via `_p0`; each figure module gives the RTT setting, the grid and its own checks."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line
from ccscope.repro.periodic import _p0

FULL_LOSS_PCT = 0.5  # 'no loss': half a point covers 100-ms-bin quantization and idle slivers
RISE_ALLOWANCE_PT = 0.5  # 'non-increasing': the drop-epoch phase moves a run's loss by a few tenths


def run(rtt: str, server_delay_s: float, grid: list[int], quick_plan: dict[str, list[int]],
        quick_sim_s: float | None, quick: bool, *, droptail_below: tuple[int, ...] = ()) -> Run:
    """`droptail_below`: DropTail sizes under the grid, for a panel whose DropTail is already full at the
    grid's smallest B (the smallest full B would otherwise be censored at the grid's floor)."""
    plan = quick_plan if quick else {q: grid for q in ("droptail", "minfix", "ratiofix")}
    if not quick and droptail_below:
        plan["droptail"] = sorted(set(droptail_below) | set(grid))
    rows = []
    for q, sizes in plan.items():
        for size in sizes:
            m = _p0.run(rtt, q, size, quick, sim_s=quick_sim_s if quick else None, server_delay_s=server_delay_s)
            rows.append({"queue": q, "size_pkts": size, "egress_loss_pct": m["egress_loss_pct"],
                         "ingress_loss_pct": m["ingress_loss_pct"], "drops": m["drops_after_warmup"]})
    df = pd.DataFrame(rows)
    return Run(params={"rtt": rtt, "server_delay_s": server_delay_s, "plan": {k: list(v) for k, v in plan.items()},
                       **_p0.setup(quick, sim_s=quick_sim_s if quick else None), "seeds": _p0.seeds(quick)},
               frames={"sweep": df}, values={"table": df.to_dict("records")}, seeds=_p0.seeds(quick), quick=quick)


def smallest_full(df: pd.DataFrame, q: str) -> float:
    d = df[(df.queue == q) & (df.egress_loss_pct <= FULL_LOSS_PCT)]
    return float(d.size_pkts.min()) if len(d) else float("inf")


def steps(df: pd.DataFrame, q: str) -> list[tuple[float, float, float]]:
    """(size, next size, change of egress loss in points) for each consecutive pair of `q`'s sizes."""
    d = df[df.queue == q].sort_values("size_pkts")
    b, y = d.size_pkts.to_numpy(dtype=float), d.egress_loss_pct.to_numpy()
    return [(float(b0), float(b1), float(dy)) for b0, b1, dy in zip(b[:-1], b[1:], np.diff(y))]


def common_checks(df: pd.DataFrame) -> tuple[Checks, dict]:
    """The checks every panel shares: loss non-increasing in the buffer, and ingress ≤ egress."""
    c = Checks()
    meas = {}
    for q in sorted(df.queue.unique()):
        inc = max((dy for _, _, dy in steps(df, q)), default=0.0)
        c.add(f"{q}: egress loss non-increasing in size (0.5-pt noise)", inc, inc <= RISE_ALLOWANCE_PT,
              f"max rise ≤ {RISE_ALLOWANCE_PT:g}", "seed noise")
        meas[f"{q}_smallest_full_pkts"] = smallest_full(df, q)
    # identity ingress = egress - 100·drop rate/line: ingress ≤ egress, equal only without drops.
    bad = df[(df.ingress_loss_pct > df.egress_loss_pct + 0.05) | ((df.drops > 0) & (df.ingress_loss_pct >= df.egress_loss_pct))]
    c.add("ingress ≤ egress in every run (equal only when drop-free)", len(bad), len(bad) == 0, "0 violations",
          "0.05-pt bin rounding")
    return c, meas


def plot(id_: str, bdp_pkts: int, run: Run):
    df = run.frames["sweep"]
    fig, axes = figure(1, 2, width=10, height=4, sharey=True)
    for ax, col, lab in ((axes[0, 0], "egress_loss_pct", "egress"), (axes[0, 1], "ingress_loss_pct", "ingress")):
        for q, d in df.groupby("queue"):
            d = d.sort_values("size_pkts")
            ax.plot(d.size_pkts, d[col], "o-", label={"droptail": "DropTail (B)", "minfix": "RED minfix (max_th)",
                                                       "ratiofix": "RED ratiofix (max_th)"}[q])
        ax.axhline(0, color="0.6", lw=0.8)
        ref_line(ax, bdp_pkts, f"BDP {bdp_pkts} pkts", vertical=True)
        ax.set_xscale("log")
        ax.set_xlabel("buffer B or max_th (pkts)")
        ax.set_title(f"{id_}: {lab}", fontsize=9)
        ax.legend(fontsize=7)
    axes[0, 0].set_ylabel("loss of utilization (%)")
    fig.tight_layout()
    return fig
