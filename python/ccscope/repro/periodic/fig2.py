"""periodic/fig2: flat vs periodic aggregate (P001 Fig 2 b-c; panel a is the topology, see `fig3`).

Setup P0, fixed RTT 1340 ms: (b) DropTail B = 251 (1 BDP), (c) DropTail B = 50 (the `fig4a` run).
Full 4200 s measured over 600-4200 s; quick 600 s, starts in [0, 30] s, measured over 200-600 s (`_p0`).
"""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig2"
TITLE = "smooth vs periodic aggregate: DropTail B = 251 (flat) vs B = 50 (periodic)"
KIND = "sim (schematic)"
COST = "full: 2 × 4200 s × 187.5 pkt/s ≈ 1.6 M pkts (~3 s); quick 2 × 600 s (< 1 s)"
CLAIM = ("Many periodic flows can sum to a flat aggregate (B = 251, one BDP: full link) or to an oscillating one (B = 50): "
         "when it oscillates the mean is below the peak, so the link is underused.")
RTT = "fixed"
SEEDS = _p0.SEEDS  # computation: periodic/_p0.py, above SEEDS (fig2's loss gap: n >= 2.6)
FLAT, PERIODIC = 251, 50


def run(quick: bool) -> Run:
    flat, per = _p0.run(RTT, "droptail", FLAT, quick), _p0.run(RTT, "droptail", PERIODIC, quick)
    return Run(params={**_p0.params(RTT, "droptail", PERIODIC, quick), "sizes_pkts": [FLAT, PERIODIC]},
               frames={"series": _p0.runs_frame({"b": flat, "c": per})},
               values={"b": _p0.flatten_json(flat), "c": _p0.flatten_json(per)}, seeds=_p0.seeds(quick), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    b, cc_ = run.values["b"], run.values["c"]
    # Seed means, two standard errors (docs/VERDICTS.md §3).
    _p0.beyond(c, "(b) B = 251: egress PI ≤ 0.2", b, "egress_pi", 0.2, "<", "≤ 0.2", "PI definition (flat)")
    # 99.5%: half a point covers the 100-ms bin quantization and sub-ms idle slivers.
    _p0.beyond(c, "(b) B = 251: utilization ≥ 99.5% (loss < 0.5%)", b, "egress_loss_pct", 0.5, "<", "< 0.5", "full link")
    _p0.beyond(c, "(c) B = 50: ingress PI ≥ 0.5", cc_, "ingress_pi", 0.5, ">", "≥ 0.5", "PI definition (periodic)")
    _p0.order(c, "(c) utilization lower than (b) by ≥ 2 pts", cc_, b, "egress_loss_pct", ">", 2.0, "",
              "visible underuse (FIGURES.md)")
    keys = ("egress_pi", "egress_loss_pct", "ingress_pi", "ingress_pi_lag_s", "ingress_noise_ceiling", "total_wnd_pi",
            "mean_frac_flows_cut", "flows_never_dropped", "cwnd_mean_pair_corr", "timeouts_per_flow_hour")
    cv = _p0.values_for_cause(cc_, keys)
    cv["b"] = _p0.values_for_cause(b, keys)
    key = "flat" if any(not x.passed for x in c.items[:2]) else "sync"
    return verdict(c, {"egress_pi_b": b["egress_pi"], "egress_loss_pct_b": b["egress_loss_pct"],
                       "ingress_pi_c": cc_["ingress_pi"], "ingress_pi_lag_s_c": cc_["ingress_pi_lag_s"],
                       "ingress_noise_ceiling_c": cc_["ingress_noise_ceiling"], "egress_loss_pct_c": cc_["egress_loss_pct"],
                       "total_wnd_pi_c": cc_["total_wnd_pi"]},
                   tolerance="FIGURES.md thresholds; two standard errors over the seeds",
                   cause=_p0.failing_cause(c, key), cause_values=cv)


#: Cause templates (docs/VERDICTS.md §5).
CAUSE = {
    "flat": ("(b) one BDP of buffer is not flat: egress PI {v.b.egress_pi:.2f} (seeds: {v.b.egress_pi_by_seed}) and loss "
             "{v.b.egress_loss_pct:.2f} % (seeds: {v.b.egress_loss_pct_by_seed} %), {v.b.timeouts_per_flow_hour:.3g} "
             "timeouts per flow-hour: synchronized halving from BDP + B leaves exactly one BDP in flight, so any cut "
             "deeper than halving (a timeout) empties the queue." + _p0.SETUP),
    "sync": "(c) against (b): " + _p0.SYNC + " " + _p0.PI + _p0.SETUP,
}


def plot(run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True, sharey=True)
    s = run.frames["series"]
    for ax, key, size in ((axes[0, 0], "b", FLAT), (axes[1, 0], "c", PERIODIC)):
        d = s[s.run == key]
        d = d[d.time_s >= d.time_s.max() - 200]
        v = run.values[key]
        ax.plot(d.time_s, d.ingress_bps.rolling(10, min_periods=1).mean() / 1e6, lw=0.8, label="arrivals (ingress M1→M2)")
        ax.plot(d.time_s, d.egress_bps.rolling(10, min_periods=1).mean() / 1e6, lw=0.8, label="departures (egress M2→M3)")
        ax.axhline(1.5, ls="--", lw=1, color="0.3", label="line rate 1.5 Mb/s")
        ax.set_title(f"({key}) DropTail B = {size}, seed 1: egress loss {_p0.label(v, 'egress_loss_pct')}%,\n"
                     f"ingress PI {_p0.label(v, 'ingress_pi', '.2f')}, egress PI {_p0.label(v, 'egress_pi', '.2f')}", fontsize=9)
        ax.set_ylabel("rate (Mb/s, 1-s mean)")
        ax.legend(fontsize=7, loc="lower left")
    axes[1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    return fig
