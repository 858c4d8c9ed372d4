"""periodic/fig7a: loss of utilization vs buffer, long fixed RTT (1340 ms).

DropTail (x = B), RED minfix (min_th 5, x = max_th) and RED ratiofix (min_th = max_th/3); ingress and
egress loss of utilization (P001 §II.C, footnote 5). Setup P0 via `_p0`.
"""
from __future__ import annotations

from ccscope.repro._base import Run, verdict
from ccscope.repro.periodic import _fig7, _p0

ID = "periodic/fig7a"
TITLE = "loss of utilization vs buffer / max_th, long fixed RTT (1340 ms)"
KIND = "sim"
COST = 'full: 28 runs × 4200 s (~45 s); quick 4 × 600 s (~1.5 s)'
CLAIM = 'Fixed RTT 1340 ms: DropTail with one BDP (251 pkts) reaches 100% utilization; every curve falls to 0 as B or max_th grows; minfix needs a smaller max_th than ratiofix; ingress loss can be negative (standing queue).'
RTT = 'fixed'
SERVER_DELAY_S = 0.65  # P0 server side
GRID = [15, 25, 50, 100, 150, 251, 375, 500, 750, 1000]  # [NG] B and max_th grid (FIGURES.md)
QUICK = {'droptail': [50, 251], 'minfix': [50, 251]}
QUICK_SIM_S = None


def run(quick: bool) -> Run:
    return _fig7.run(RTT, SERVER_DELAY_S, GRID, QUICK, QUICK_SIM_S, quick)


def check(run: Run) -> dict:
    df = run.frames["sweep"]
    c, meas = _fig7.common_checks(df)
    # "DropTail with one BDP reaches 100 %": every B ≥ 251 full, i.e. loss < 0.5 % by two standard errors; the row
    # shows the size closest to failing (largest mean + 2 se).
    dt = df[(df.queue == "droptail") & (df.size_pkts >= 251)]
    worst = dt.assign(k=dt.egress_loss_pct + 2 * dt.egress_loss_se.fillna(0)).sort_values("k").iloc[-1]
    c.beyond(f"DropTail egress loss < 0.5% for B ≥ 251 (1 BDP; worst B = {worst.size_pkts:g})", float(worst.egress_loss_pct),
             float(worst.egress_loss_se), _fig7.FULL_LOSS_PCT, "<", "< 0.5", "1 BDP keeps the link full")
    if "ratiofix" in set(df.queue):
        # grid values of sizes classified 'full' by two standard errors (`_fig7.is_full`): an exact comparison.
        c.add("minfix reaches full utilization at a max_th ≤ ratiofix's", _fig7.smallest_full(df, "minfix"),
              _fig7.smallest_full(df, "minfix") <= _fig7.smallest_full(df, "ratiofix"),
              f"≤ {_fig7.smallest_full(df, 'ratiofix')}", "paper §II.C.1")
    cv = _fig7.cause_values(df, run.seeds)
    return verdict(c, meas | {"table": df.to_dict("records")}, tolerance=f"'full' = egress loss < {_fig7.FULL_LOSS_PCT}% by "
                   "two standard errors", cause=_p0.failing_cause(c, _fig7.cause_key(df)), cause_values=cv)


SEEDS = _p0.SWEEP_SEEDS  # budget-limited sweep seeds: periodic/_p0.py, above SEEDS
CAUSE = _fig7.causes(_fig7.FIXED_NOTE)


def plot(run: Run):
    return _fig7.plot(ID, 251, run)
