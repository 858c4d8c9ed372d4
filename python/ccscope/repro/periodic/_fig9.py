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
    # PI thresholds are FIGURES.md's definitions of periodic (≥ 0.5) and flat (≤ 0.2); seed means, two standard errors.
    if e.SIZE in (50, 15):
        _p0.beyond(c, "ingress PI ≥ 0.5", m, "ingress_pi", 0.5, ">", "≥ 0.5", "PI definition")
    else:
        _p0.beyond(c, "ingress PI ≤ 0.2", m, "ingress_pi", 0.2, "<", "≤ 0.2", "PI definition")
    if e.SIZE == 50:
        _p0.beyond(c, "egress loss > 2%", m, "egress_loss_pct", 2.0, ">", "> 2", "paper: visible underuse")
    elif e.SIZE == 15:
        _p0.order(c, "egress loss ≥ fig9a's", m, run.values["fig9a"], "egress_loss_pct", ">", 0.0, "",
                  "paper: RED as bad as small DropTail")
    else:
        # 99.5%: half a point covers the quantization of the 100-ms bins and the sub-ms idle gaps.
        _p0.beyond(c, "egress utilization ≥ 99.5% (loss < 0.5%)", m, "egress_loss_pct", 0.5, "<", "< 0.5", "full link")
    if e.SIZE == 750:
        # exact: no drop in any seed (a count, not an average).
        drops = _p0.by_seed(m, "drops_after_warmup")
        c.add("no drops after warm-up (every seed)", max(drops), max(drops) == 0, "0", "exact")
    if e.SIZE == 1500:
        # queue CV ≥ 0.05: the queue must still move (paper: 'the queue still fluctuates').
        _p0.beyond(c, "queue CV ≥ 0.05", m, "queue_cv", 0.05, ">", "≥ 0.05", "visible fluctuation")
    keys = ("ingress_pi", "ingress_pi_lag_s", "ingress_noise_ceiling", "egress_pi", "egress_loss_pct", "ingress_loss_pct",
            "drops_after_warmup", "queue_cv", "queue_mean_pkts", "total_wnd_period_peak", "total_wnd_period_s",
            "mean_frac_flows_cut", "flows_never_dropped", "cwnd_mean_pair_corr", "timeouts_per_flow_hour", "total_wnd_pi",
            "total_wnd_pi_lag_s")
    cv = _p0.values_for_cause(m, keys)
    cv["size"] = e.SIZE
    if "fig9a" in run.values:
        cv["ref_loss"] = run.values["fig9a"]["egress_loss_pct"]
    key = {50: "sync", 15: "red", 750: "flat", 1500: "flat"}[e.SIZE]
    return verdict(c, {k: m[k] for k in keys}, tolerance="PI thresholds of FIGURES.md; utilization within 0.5 pt; "
                   "two standard errors over the seeds", cause=_p0.failing_cause(c, key), cause_values=cv)


#: Cause templates (docs/VERDICTS.md §5).
CAUSE = {
    "sync": _p0.SYNC + " " + _p0.PI + _p0.SETUP,
    "red": ("RED max_th {v.size:g}: egress loss {v.egress_loss_pct:.2f} % (seeds {v.seeds}: {v.egress_loss_pct_by_seed} %) "
            "against DropTail's {v.ref_loss:.2f} % (periodic/fig9a); {v.mean_frac_flows_cut:.2f} of the flows cut per "
            "epoch. " + _p0.PI + _p0.SETUP),
    "flat": ("Buffer or max_th {v.size:g}: ingress PI {v.ingress_pi:.2f} (seeds: {v.ingress_pi_by_seed}), egress loss "
             "{v.egress_loss_pct:.2f} %, {v.drops_after_warmup:.3g} drops after warm-up (mean), queue CV "
             "{v.queue_cv:.3f}." + _p0.SETUP),
}


def plot(e, run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    s = run.frames["series"]
    _p0.plot_rates(axes[0, 0], axes[1, 0], {"series": s[s.run == "main"]},
                   f"{e.ID}: {'DropTail B' if e.QUEUE == 'droptail' else 'RED min_th 5, max_th'} = {e.SIZE} (seed 1)\ningress PI "
                   f"{_p0.label(run.values['main'], 'ingress_pi', '.2f')}, egress loss "
                   f"{_p0.label(run.values['main'], 'egress_loss_pct')}%")
    fig.tight_layout()
    return fig
