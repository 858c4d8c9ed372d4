"""periodic/fig9a: arrivals and departures, DropTail B = 50: prominent periodic fluctuation.

Setup P0, fixed RTT 1340 ms [NG: the companion value 750 matches the fixed-RTT calculation]; see `_p0`.
"""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig9a"
TITLE = 'arrivals and departures, DropTail B = 50: prominent periodic fluctuation'
KIND = "sim"
STATUS = "not reproduced"
COST = "full: 4200 s ≈ 0.79 M pkts (~2 s); quick 600 s"
CLAIM = 'DropTail B = 50 (fixed RTT): the aggregate arrival rate fluctuates periodically and prominently; egress loss > 2%.'
RTT, QUEUE, SIZE = "fixed", 'droptail', 50
QUICK_SIM_S = None  # quick: 600 s, starts in [0, 30] s


def _main(quick: bool):
    return _p0.run(RTT, QUEUE, SIZE, quick, sim_s=QUICK_SIM_S if quick else None)


def run(quick: bool) -> Run:
    m = _main(quick)
    values = {"main": _p0.flatten_json(m)}
    if QUEUE == "minfix" and SIZE == 15:
        values["fig9a"] = _p0.flatten_json(_p0.run("fixed", "droptail", 50, quick))
    return Run(params=_p0.params(RTT, QUEUE, SIZE, quick, sim_s=QUICK_SIM_S if quick else None),
               frames={"series": _p0.runs_frame({"main": m})}, values=values, seeds=[_p0.SEED], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    m = run.values["main"]
    pi, loss = m["ingress_pi"], m["egress_loss_pct"]
    # PI thresholds are FIGURES.md's definitions of periodic (≥ 0.5) and flat (≤ 0.2).
    if SIZE in (50, 15):
        c.add("ingress PI ≥ 0.5", pi, pi >= 0.5, "≥ 0.5", "PI definition")
    else:
        c.add("ingress PI ≤ 0.2", pi, pi <= 0.2, "≤ 0.2", "PI definition")
    if SIZE == 50:
        c.add("egress loss > 2%", loss, loss > 2, "> 2", "paper: visible underuse")
    elif SIZE == 15:
        ref = run.values["fig9a"]["egress_loss_pct"]
        c.add("egress loss ≥ fig9a's", loss, loss >= ref, f"≥ {ref:.2f}", "paper: RED as bad as small DropTail")
    else:
        # 99.5%: half a point covers the quantization of the 100-ms bins and the sub-ms idle gaps.
        c.add("egress utilization ≥ 99.5%", 100 - loss, loss <= 0.5, "≥ 99.5", "full link")
    if SIZE == 750:
        c.add("no drops after warm-up", m["drops_after_warmup"], m["drops_after_warmup"] == 0, "0", "exact")
    if SIZE == 1500:
        # queue CV ≥ 0.05: the queue must still move (paper: 'the queue still fluctuates').
        c.add("queue CV ≥ 0.05", m["queue_cv"], m["queue_cv"] >= 0.05, "≥ 0.05", "visible fluctuation")
    return verdict(c, {k: m[k] for k in ("ingress_pi", "egress_pi", "egress_loss_pct", "ingress_loss_pct",
                                        "drops_after_warmup", "queue_cv", "queue_mean_pkts")},
                   tolerance="PI thresholds of FIGURES.md; utilization within 0.5 pt", notes=_p0.CAUSE)


def plot(run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    s = run.frames["series"]
    _p0.plot_rates(axes[0, 0], axes[1, 0], {"series": s[s.run == "main"]},
                   f"{ID}: {'DropTail B' if QUEUE == 'droptail' else 'RED min_th 5, max_th'} = {SIZE} — ingress PI "
                   f"{run.values['main']['ingress_pi']:.2f}, egress loss {run.values['main']['egress_loss_pct']:.1f}%")
    fig.tight_layout()
    return fig
