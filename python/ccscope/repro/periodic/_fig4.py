"""periodic/fig4a-d shared: loss of utilization and periodicity of the aggregate (P001 Fig 4).

Each entry module names its constants (RTT, QUEUE, SIZE, ...) and passes itself as `e`.
"""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.periodic import _p0


def run(e, quick: bool) -> Run:
    m = _p0.run(e.RTT, e.QUEUE, e.SIZE, quick)
    values = {"main": _p0.flatten_json(m)}
    runs = {"main": m}
    if e.COMPARE:
        c = _p0.run(e.COMPARE[0], e.COMPARE[1], e.COMPARE[2], quick)
        values["compare"] = _p0.flatten_json(c)
    if e.QUEUE != "droptail":
        # FIGURES.md ⚠: §II.B asks for max_th ≈ 20% of BDP (≈ 50) while Figs 6b/9c/10a say 15; run both.
        values["max_th_50"] = _p0.flatten_json(_p0.run(e.RTT, e.QUEUE, 50, quick))
    return Run(params=_p0.params(e.RTT, e.QUEUE, e.SIZE, quick), frames={"series": _p0.runs_frame(runs)}, values=values,
               seeds=_p0.seeds(quick), quick=quick)


def check(e, run: Run) -> dict:
    c = Checks()
    m = run.values["main"]
    # Band [LOSS_LO, LOSS_HI] % around the paper's reading (FIGURES.md): two threshold rows on the seed mean,
    # each decided by two standard errors (docs/VERDICTS.md §3).
    _p0.beyond(c, f"egress loss of utilization > {e.LOSS_LO} %", m, "egress_loss_pct", e.LOSS_LO, ">", f"> {e.LOSS_LO}",
               "paper's band (FIGURES.md)")
    _p0.beyond(c, f"egress loss of utilization < {e.LOSS_HI} %", m, "egress_loss_pct", e.LOSS_HI, "<", f"< {e.LOSS_HI}",
               "paper's band (FIGURES.md)")
    # L_sync(b) is a ceiling: only cuts deeper than halving (mass timeouts) could exceed it.
    ceiling = 100 * _p0.l_sync(e.B_SYNC)
    _p0.beyond(c, "egress loss below L_sync(%.2f)" % e.B_SYNC, m, "egress_loss_pct", ceiling, "<", f"< {ceiling:.1f}",
               "synchronized-halving ceiling")
    if e.COMPARE:
        ref = run.values["compare"]
        margin = 3.0 if e.COMPARE[3] == "fig4a" else 0.0  # FIGURES.md: fig4c loss ≥ fig4a + 3 pts; fig4d loss > fig4b.
        _p0.order(c, f"egress loss > {e.COMPARE[3]} (DropTail){f' + {margin:g} pts' if margin else ''}", m, ref,
                  "egress_loss_pct", ">", margin, "", "RED worse than DropTail (paper)")
    # PI ≥ 0.5: FIGURES.md definition of 'periodic' (ACF peak of the 100-ms arrival series).
    _p0.beyond(c, "ingress PI ≥ 0.5 (periodic arrivals)", m, "ingress_pi", 0.5, ">", "≥ 0.5", "PI definition")
    keys = ("egress_loss_pct", "ingress_loss_pct", "ingress_pi", "ingress_pi_lag_s", "ingress_noise_ceiling", "egress_pi",
            "total_wnd_pi", "total_wnd_pi_lag_s", "total_wnd_period_peak", "total_wnd_period_s", "mean_frac_flows_cut",
            "flows_never_dropped", "cwnd_mean_pair_corr", "timeouts_per_flow_hour")
    meas = {k: m[k] for k in keys}
    cv = _p0.values_for_cause(m, keys)
    cv.update({"lo": e.LOSS_LO, "hi": e.LOSS_HI, "ceiling": ceiling, "max_th": e.SIZE})
    if "max_th_50" in run.values:
        meas["egress_loss_pct_max_th_50"] = cv["loss_max_th_50"] = run.values["max_th_50"]["egress_loss_pct"]
        cv["alt_max_th"] = 50
    if e.COMPARE:
        cv["ref_loss"] = run.values["compare"]["egress_loss_pct"]
        cv["ref_loss_by_seed"] = _p0.per_seed_text(run.values["compare"], "egress_loss_pct")
    key = ("random_red" if e.QUEUE != "droptail" else "random") if e.RTT == "variable" else \
        ("red" if e.QUEUE != "droptail" else "sync")
    return verdict(c, meas, tolerance=f"loss in [{e.LOSS_LO}, {e.LOSS_HI}]%, < L_sync; PI ≥ 0.5; two standard errors",
                   cause=_p0.failing_cause(c, key), cause_values=cv)


_LOSS = "Egress loss {v.egress_loss_pct:.2f} % (seeds {v.seeds}: {v.egress_loss_pct_by_seed} %; band {v.lo}-{v.hi} %). "
_RED = ("RED min_th 5 / max_th {v.max_th:g}: avg follows the queue with a time constant of seconds (w_q 0.002), so "
        "once it exceeds max_th every arrival that finds more than one packet queued is dropped until avg falls "
        "(P001 §II.B); {v.mean_frac_flows_cut:.2f} of the flows are cut per epoch and {v.timeouts_per_flow_hour:.3g} "
        "timeouts per flow-hour follow; with max_th {v.alt_max_th:g} (the §II.B reading of FIGURES.md) the loss is "
        "{v.loss_max_th_50:.2f} %. ns-2's RED on this setup: docs/models/periodic_ns2.md, item 5. ")
_REF = "The DropTail run it is compared with loses {v.ref_loss:.2f} % (seeds: {v.ref_loss_by_seed} %). "

#: Cause templates (docs/VERDICTS.md §5), chosen by RTT and queue when a strict row fails.
CAUSE = {
    "sync": "Band {v.lo}-{v.hi} % around P001's 5-7 %. " + _p0.SYNC + " " + _p0.PI + _p0.SETUP,
    "random": _LOSS + _p0.RANDOM + _p0.SETUP,
    "red": _LOSS + _RED + _REF + _p0.PI + _p0.SETUP,
    "random_red": _LOSS + _RED + _REF + _p0.RANDOM + _p0.SETUP,
}
PAPER_NUMBERS = ("min_th 5", "w_q 0.002", "5-7 %")


def plot(e, run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    s = run.frames["series"]
    m = {"series": s[s.run == "main"]}
    _p0.plot_rates(axes[0, 0], axes[1, 0], m, f"{e.ID}: {e.QUEUE} {e.SIZE} pkts, {e.RTT} RTT — egress loss "
                   f"{_p0.label(run.values['main'], 'egress_loss_pct')}% (paper ≈ {'5–7' if e.QUEUE == 'droptail' else '15'}%)")
    fig.tight_layout()
    return fig
