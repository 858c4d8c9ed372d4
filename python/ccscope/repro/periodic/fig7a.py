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
STATUS = "partly"
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
    dt = df[(df.queue == "droptail") & (df.size_pkts >= 251)]
    c.add("DropTail egress loss ≤ 0.5% for B ≥ 251 (1 BDP)", float(dt.egress_loss_pct.max()), bool((dt.egress_loss_pct <= _fig7.FULL_LOSS_PCT).all()),
          "≤ 0.5", "1 BDP keeps the link full")
    if "ratiofix" in set(df.queue):
        c.add("minfix reaches full utilization at a max_th ≤ ratiofix's", _fig7.smallest_full(df, "minfix"),
              _fig7.smallest_full(df, "minfix") <= _fig7.smallest_full(df, "ratiofix"), f"≤ {_fig7.smallest_full(df, 'ratiofix')}", "paper §II.C.1")
    ok = all(x.passed for x in c.items if not x.advisory)
    return verdict(c, meas | {"table": df.to_dict("records")}, tolerance=f"'full' = egress loss ≤ {_fig7.FULL_LOSS_PCT}%",
                   notes=_p0.CAUSE if ok else cause(df) + _p0.SETUP_NOTE)


def cause(df) -> str:
    """Why the loss is not monotone in the buffer, with this sweep's numbers (means over the seeds)."""
    def loss(q, size):
        r = df[(df.queue == q) & (df.size_pkts == size)]
        return float(r.egress_loss_pct.iloc[0]) if len(r) else float("nan")
    dt = ", ".join(f"{loss('droptail', b):.1f}" for b in (15, 25, 50, 100))
    mf = {b: (loss("minfix", b), loss("ratiofix", b)) for b in (50, 251)}
    where = "; ".join(f"{q} {b0:g} -> {b1:g}: +{dy:.1f} pt" for q in ("droptail", "minfix", "ratiofix")
                      for b0, b1, dy in _fig7.steps(df, q) if dy > _fig7.RISE_ALLOWANCE_PT) or "none"
    return (
        f"DropTail egress loss by B = 15, 25, 50, 100 (mean over the seeds): {dt}%. Rises above the 0.5-pt noise "
        f"allowance: {where}. With the small buffers the loss depends on which overflow cycle the fixed-RTT "
        "dynamics lock into: B = 15 overflows in short, frequent episodes on a minority of the flows, B = 25 less "
        "often and longer, cutting more of them together, and at B = 50 a few flows park at rwnd, never dropped, "
        "so the link idles little (periodic/fig4a). ns-2 (ns-2.35, same setup and start times, seeds 1-3) loses "
        "5.5, 5.5, 5.5% at B = 15 and 6.0, 5.9, 6.0% at 25 (means 5.5 and 5.95%: a 0.45-pt rise, inside the "
        "allowance) and 4.7, 3.3, 1.1% at 50. A drop-by-drop comparison with ns-2 at B = 25 found three "
        "differences in ccscope's TCP and port, now fixed (docs/models/periodic_ns2.md, items 12-14: Reno halves "
        "its window rather than the data in flight, fast retransmit needs an ACK above recover + 1, a departure "
        "and an arrival at the same instant are ordered departure first); after them the two simulators agree on "
        "every drop of a 600-s run and on the first 4781 of a 4200-s run, and the remaining difference in the "
        "seed averages is which cycle each seed locks into. DropTail reaches full utilization (≤ 0.5%) at "
        f"B = {_fig7.smallest_full(df, 'droptail'):g}, RED minfix at max_th {_fig7.smallest_full(df, 'minfix'):g} and "
        f"ratiofix at {_fig7.smallest_full(df, 'ratiofix'):g}; minfix loses less than ratiofix (50: {mf[50][0]:.1f} vs "
        f"{mf[50][1]:.1f}%; 251: {mf[251][0]:.2f} vs {mf[251][1]:.2f}%), the order §II.C.1 reports.")


def plot(run: Run):
    return _fig7.plot(ID, 251, run)
