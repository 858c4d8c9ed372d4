"""periodic/fig9a-d shared: arrivals and departures at the bottleneck (P001 Fig 9).

Each entry module names its constants (RTT, QUEUE, SIZE, ...) and passes itself as `e`.
"""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.periodic import _p0


def _main(e, quick: bool):
    return _p0.run(e.RTT, e.QUEUE, e.SIZE, quick, sim_s=e.QUICK_SIM_S if quick else None)


def run(e, quick: bool) -> Run:
    m = _main(e, quick)
    values = {"main": _p0.flatten_json(m)}
    if e.QUEUE == "minfix" and e.SIZE == 15:
        values["fig9a"] = _p0.flatten_json(_p0.run("fixed", "droptail", 50, quick))
    return Run(params=_p0.params(e.RTT, e.QUEUE, e.SIZE, quick, sim_s=e.QUICK_SIM_S if quick else None),
               frames={"series": _p0.runs_frame({"main": m})}, values=values, seeds=_p0.seeds(quick), quick=quick)


def check(e, run: Run) -> dict:
    c = Checks()
    m = run.values["main"]
    pi, loss = m["ingress_pi"], m["egress_loss_pct"]
    # PI thresholds are FIGURES.md's definitions of periodic (≥ 0.5) and flat (≤ 0.2).
    if e.SIZE in (50, 15):
        c.add("ingress PI ≥ 0.5", pi, pi >= 0.5, "≥ 0.5", "PI definition")
    else:
        c.add("ingress PI ≤ 0.2", pi, pi <= 0.2, "≤ 0.2", "PI definition")
    if e.SIZE == 50:
        c.add("egress loss > 2%", loss, loss > 2, "> 2", "paper: visible underuse")
    elif e.SIZE == 15:
        ref = run.values["fig9a"]["egress_loss_pct"]
        c.add("egress loss ≥ fig9a's", loss, loss >= ref, f"≥ {ref:.2f}", "paper: RED as bad as small DropTail")
    else:
        # 99.5%: half a point covers the quantization of the 100-ms bins and the sub-ms idle gaps.
        c.add("egress utilization ≥ 99.5%", 100 - loss, loss <= 0.5, "≥ 99.5", "full link")
    if e.SIZE == 750:
        c.add("no drops after warm-up", m["drops_after_warmup"], m["drops_after_warmup"] == 0, "0", "exact")
    if e.SIZE == 1500:
        # queue CV ≥ 0.05: the queue must still move (paper: 'the queue still fluctuates').
        c.add("queue CV ≥ 0.05", m["queue_cv"], m["queue_cv"] >= 0.05, "≥ 0.05", "visible fluctuation")
    cause = _p0.cause_ingress_pi(m) + _p0.SETUP_NOTE if e.SIZE in (50, 15) and pi < 0.5 else _p0.CAUSE
    if e.SIZE in (50, 15) and 0.5 <= pi < 0.55:
        cause = (f"Ingress PI {pi:.3f}: periodic by FIGURES.md's line, with a thin margin (noise ceiling "
                 f"{m['ingress_noise_ceiling']:.2f}; total-wnd ACF peak {m['total_wnd_period_peak']:.2f} at "
                 f"{m['total_wnd_period_s']:.1f} s). " + _p0.CAUSE)
    if e.SIZE == 50 and loss <= 2:
        cause = _p0.cause_sync(m) + _p0.SETUP_NOTE
    return verdict(c, {k: m[k] for k in ("ingress_pi", "ingress_pi_lag_s", "ingress_noise_ceiling", "egress_pi", "egress_loss_pct",
                                        "ingress_loss_pct", "drops_after_warmup", "queue_cv", "queue_mean_pkts",
                                        "total_wnd_period_peak", "total_wnd_period_s")},
                   tolerance="PI thresholds of FIGURES.md; utilization within 0.5 pt", notes=cause)


def plot(e, run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    s = run.frames["series"]
    _p0.plot_rates(axes[0, 0], axes[1, 0], {"series": s[s.run == "main"]},
                   f"{e.ID}: {'DropTail B' if e.QUEUE == 'droptail' else 'RED min_th 5, max_th'} = {e.SIZE} (seed 1)\ningress PI "
                   f"{_p0.label(run.values['main'], 'ingress_pi', '.2f')}, egress loss "
                   f"{_p0.label(run.values['main'], 'egress_loss_pct')}%")
    fig.tight_layout()
    return fig
