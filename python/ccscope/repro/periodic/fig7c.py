"""periodic/fig7c: loss of utilization vs buffer, variable RTT (mean 2300 ms).

DropTail (x = B), RED minfix (min_th 5, x = max_th) and RED ratiofix (min_th = max_th/3); ingress and
egress loss of utilization (P001 §II.C, footnote 5). Setup P0 via `_p0`.
"""
from __future__ import annotations

from ccscope.repro._base import Run, verdict
from ccscope.repro.periodic import _fig7, _p0

ID = "periodic/fig7c"
TITLE = "loss of utilization vs buffer / max_th, variable RTT (mean 2300 ms)"
KIND = "sim"
COST = 'full: 31 runs × 4200 s (~50 s); quick 2 × 600 s (~1 s)'
CLAIM = 'Variable RTT: DropTail with one mean-RTT BDP (431 pkts) already gives 100% utilization; curves fall to 0 with the buffer.'
RTT = 'variable'
SERVER_DELAY_S = 0.65  # P0 server side
GRID = [15, 25, 50, 100, 150, 251, 375, 431, 500, 750, 1000]  # [NG] B and max_th grid (FIGURES.md)
QUICK = {'droptail': [86, 431]}
QUICK_SIM_S = None


def run(quick: bool) -> Run:
    return _fig7.run(RTT, SERVER_DELAY_S, GRID, QUICK, QUICK_SIM_S, quick)


def check(run: Run) -> dict:
    df = run.frames["sweep"]
    c, meas = _fig7.common_checks(df)
    dt = df[(df.queue == "droptail") & (df.size_pkts == 431)]
    r = dt.iloc[0]
    c.beyond("DropTail egress loss < 0.5% at B = 431 (mean-RTT BDP)", float(r.egress_loss_pct), float(r.egress_loss_se),
             _fig7.FULL_LOSS_PCT, "<", "< 0.5", "1 BDP keeps the link full")
    return verdict(c, meas | {"table": df.to_dict("records")}, tolerance=f"'full' = egress loss < {_fig7.FULL_LOSS_PCT}% by "
                   "two standard errors", cause=_p0.failing_cause(c, _fig7.cause_key(df)), cause_values=_fig7.cause_values(df, run.seeds))


SEEDS = _p0.SWEEP_SEEDS  # budget-limited sweep seeds: periodic/_p0.py, above SEEDS
CAUSE = _fig7.causes()


def plot(run: Run):
    return _fig7.plot(ID, 431, run)
