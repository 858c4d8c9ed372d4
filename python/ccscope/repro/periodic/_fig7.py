"""Shared body of periodic/fig7a-c: loss of utilization vs buffer. DropTail (x = B), RED minfix (min_th 5,
x = max_th) and RED ratiofix (min_th = max_th/3); ingress and egress loss of utilization (P001 §II.C,
footnote 5). Setup P0 via `_p0`; each figure module gives the RTT setting, the grid and its own checks."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, se
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
            m = _p0.run(rtt, q, size, quick, sim_s=quick_sim_s if quick else None, server_delay_s=server_delay_s,
                        sweep=True)
            rows.append({"queue": q, "size_pkts": size, "egress_loss_pct": m["egress_loss_pct"],
                         "egress_loss_se": se(m["per_seed"]["egress_loss_pct"]),
                         "egress_loss_by_seed": ", ".join(f"{x:.2f}" for x in m["per_seed"]["egress_loss_pct"]),
                         "ingress_loss_pct": m["ingress_loss_pct"], "drops": m["drops_after_warmup"],
                         "drops_by_seed": m["per_seed"]["drops_after_warmup"]})
    df = pd.DataFrame(rows)
    return Run(params={"rtt": rtt, "server_delay_s": server_delay_s, "plan": {k: list(v) for k, v in plan.items()},
                       **_p0.setup(quick, sim_s=quick_sim_s if quick else None), "seeds": _p0.seeds(quick, sweep=True)},
               frames={"sweep": df.drop(columns=["drops_by_seed"])}, values={"table": df.to_dict("records")},
               seeds=_p0.seeds(quick, sweep=True), quick=quick)


def is_full(r) -> bool:
    """'Full' utilization at one grid point: the seed-mean loss below FULL_LOSS_PCT by >= 2 standard errors
    (docs/VERDICTS.md §3; one seed: on the mean alone, as a single run)."""
    s_ = r["egress_loss_se"]
    s_ = 0.0 if s_ is None or not np.isfinite(s_) else s_
    return bool(FULL_LOSS_PCT - r["egress_loss_pct"] >= 2 * s_ and r["egress_loss_pct"] < FULL_LOSS_PCT)


def smallest_full(df: pd.DataFrame, q: str) -> float:
    """Smallest size of `q` that is 'full' (`is_full`); the orderings of these grid values are then exact."""
    d = df[df.queue == q]
    full = [float(r.size_pkts) for r in d.itertuples() if is_full(r._asdict())]
    return min(full) if full else float("inf")


def steps(df: pd.DataFrame, q: str) -> list[tuple[float, float, float, float]]:
    """(size, next size, change of egress loss in points, its standard error) for each consecutive pair."""
    d = df[df.queue == q].sort_values("size_pkts")
    b, y = d.size_pkts.to_numpy(dtype=float), d.egress_loss_pct.to_numpy()
    e = np.nan_to_num(d.egress_loss_se.to_numpy(dtype=float), nan=0.0)
    return [(float(b[i]), float(b[i + 1]), float(y[i + 1] - y[i]), float(np.hypot(e[i], e[i + 1])))
            for i in range(len(b) - 1)]


def worst_step(df: pd.DataFrame, q: str) -> tuple[float, float, float, float]:
    """The consecutive pair closest to violating 'non-increasing' (largest rise + 2 se)."""
    st = steps(df, q)
    return max(st, key=lambda x: x[2] + 2 * x[3]) if st else (float("nan"), float("nan"), 0.0, 0.0)


def common_checks(df: pd.DataFrame) -> tuple[Checks, dict]:
    """The checks every panel shares: loss non-increasing in the buffer, and ingress ≤ egress."""
    c = Checks()
    meas = {}
    for q in sorted(df.queue.unique()):
        b0, b1, rise, s_ = worst_step(df, q)
        # 'non-increasing' with a 0.5-pt allowance: every rise below it by two standard errors; the row shows the pair
        # closest to violating it (seed means, errors of the two sizes in quadrature).
        c.beyond(f"{q}: egress loss non-increasing in size (rise < {RISE_ALLOWANCE_PT:g} pt; worst pair {b0:g} -> {b1:g})",
                 rise, s_, RISE_ALLOWANCE_PT, "<",
                 f"< {RISE_ALLOWANCE_PT:g}", "seed noise allowance")
        meas[f"{q}_smallest_full_pkts"] = smallest_full(df, q)
    # identity ingress = egress - 100·drop rate/line: ingress ≤ egress, equal only without drops (exact, per run).
    bad = df[(df.ingress_loss_pct > df.egress_loss_pct + 0.05) | ((df.drops > 0) & (df.ingress_loss_pct >= df.egress_loss_pct))]
    c.add("ingress ≤ egress in every run (equal only when drop-free)", len(bad), len(bad) == 0, "0 violations",
          "0.05-pt bin rounding")
    return c, meas


def cause_values(df: pd.DataFrame, seeds: list[int]) -> dict:
    """cause_values of a sweep: per queue, each size's mean loss and per-seed losses, the worst step and the
    smallest full size."""
    out: dict = {"seeds": ", ".join(map(str, seeds))}
    for q in sorted(df.queue.unique()):
        d = df[df.queue == q].sort_values("size_pkts")
        b0, b1, rise, s_ = worst_step(df, q)
        out[q] = {"losses": "; ".join(f"{r.size_pkts:g}: {r.egress_loss_pct:.2f} ({r.egress_loss_by_seed})"
                                      for r in d.itertuples()),
                  "worst_from": b0, "worst_to": b1, "worst_rise": rise, "worst_se": s_,
                  "smallest_full": smallest_full(df, q)}
    return out


#: Cause template shared by fig7a-c (docs/VERDICTS.md §5): the sweep's numbers, per queue.
SWEEP = ("Egress loss by size, mean (per seed) in %: DropTail {v.droptail.losses}. The rise closest to violating "
         "'non-increasing': DropTail {v.droptail.worst_from:g} -> {v.droptail.worst_to:g}: "
         "{v.droptail.worst_rise:+.2f} pt (se {v.droptail.worst_se:.2f}). Smallest full size: DropTail "
         "{v.droptail.smallest_full:g}.")
#: fig7a's sentence: why the fixed-RTT DropTail curve is not smooth.
FIXED_NOTE = (" With small buffers the loss depends on which overflow cycle the fixed-RTT dynamics lock into, which "
              "the start times select (periodic/fig4a; ns-2 on this setup: docs/models/periodic_ns2.md, drop-by-drop "
              "comparison).")
RED_SWEEP = (" RED minfix {v.minfix.losses}; smallest full {v.minfix.smallest_full:g}, worst rise "
             "{v.minfix.worst_rise:+.2f} pt (se {v.minfix.worst_se:.2f}).")
RATIO_SWEEP = (" RED ratiofix {v.ratiofix.losses}; smallest full {v.ratiofix.smallest_full:g}, worst rise "
               "{v.ratiofix.worst_rise:+.2f} pt (se {v.ratiofix.worst_se:.2f}).")


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

def cause_key(df: pd.DataFrame) -> str:
    qs = set(df.queue)
    return "all" if {"minfix", "ratiofix"} <= qs else ("minfix" if "minfix" in qs else "droptail")


def causes(extra: str = "") -> dict[str, str]:
    """The three templates of a panel (by the queues its variant ran), with the panel's own sentence."""
    return {"droptail": SWEEP + extra + _p0.SETUP, "minfix": SWEEP + RED_SWEEP + extra + _p0.SETUP,
            "all": SWEEP + RED_SWEEP + RATIO_SWEEP + extra + _p0.SETUP}
