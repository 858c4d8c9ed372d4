"""periodic/fig7b: loss of utilization vs buffer, short fixed RTT (40 ms).

DropTail (x = B), RED minfix (min_th 5, x = max_th) and RED ratiofix (min_th = max_th/3); ingress and
egress loss of utilization (P001 §II.C, footnote 5). Setup P0 via `_p0`.
"""
from __future__ import annotations

from ccscope.repro._base import Run, verdict
from ccscope.repro.periodic import _fig7, _p0

ID = "periodic/fig7b"
TITLE = "loss of utilization vs buffer / max_th, short fixed RTT (40 ms)"
KIND = "sim"
COST = 'full: 32 runs × 4200 s (~45 s); quick 5 × 300 s (~1 s)'
CLAIM = 'Short fixed RTT (shorter than the time to send one 20-packet window): RED needs far more buffer than DropTail to reach 100% utilization.'
RTT = 'fixed'
SERVER_DELAY_S = 0.0  # [NG] short RTT: 20 ms one way on D_i-M3, ~0 on the server side (E21)
GRID = [15, 25, 50, 100, 150, 251, 375, 500, 750, 1000]  # [NG] B and max_th grid (FIGURES.md)
# With a 40-ms RTT the BDP is ≈ 7.5 pkts, so DropTail is already full at the grid's 15 (2 BDP) and its
# smallest full B would be censored there; B = 5 and 10 resolve it (the check compares smallest sizes).
DROPTAIL_BELOW = (5, 10)
QUICK = {'droptail': [10, 25, 100], 'minfix': [25, 100]}  # 10: DropTail is full below 25 here too
QUICK_SIM_S = 300.0


def run(quick: bool) -> Run:
    return _fig7.run(RTT, SERVER_DELAY_S, GRID, QUICK, QUICK_SIM_S, quick, droptail_below=DROPTAIL_BELOW)


def check(run: Run) -> dict:
    df = run.frames["sweep"]
    c, meas = _fig7.common_checks(df)
    red = min(_fig7.smallest_full(df, "minfix"), _fig7.smallest_full(df, "ratiofix") if "ratiofix" in set(df.queue) else float("inf"))
    dt = _fig7.smallest_full(df, "droptail")
    # grid values of sizes classified 'full' by two standard errors (`_fig7.is_full`): an exact comparison.
    c.add("smallest RED max_th for full ≥ 2 × smallest DropTail B", red, red >= 2 * dt, f"≥ {2 * dt:g}", "paper: RED needs far more buffer")
    return verdict(c, meas | {"table": df.to_dict("records")}, tolerance=f"'full' = egress loss < {_fig7.FULL_LOSS_PCT}% by "
                   "two standard errors", cause=_p0.failing_cause(c, _fig7.cause_key(df)), cause_values=_fig7.cause_values(df, run.seeds))


SEEDS = _p0.SWEEP_SEEDS  # budget-limited sweep seeds: periodic/_p0.py, above SEEDS
CAUSE = _fig7.causes()


def plot(run: Run):
    return _fig7.plot(ID, 8, run)
