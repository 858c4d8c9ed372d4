"""Shared body of periodic/fig6a and fig6b: per congestion epoch (drop burst, gaps <= 1 s, E23) the flows
that lost >= 2 packets in it (a likely timeout for Reno); histogram over epochs, RED against DropTail."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, se, verdict
from ccscope.repro.periodic import _p0


def run(runs: dict, quick: bool) -> Run:
    frames, values = [], {}
    for name, (rtt, q, size) in runs.items():
        m = _p0.run(rtt, q, size, quick)
        frames.append(pd.DataFrame({"run": name, "multi_drop_flows": m["multi_drop_flows"]}))
        # per seed: the mean number of multi-drop flows per epoch (the seed mean's standard error)
        per = [_p0.run(rtt, q, size, quick, seed=s)["multi_drop_flows"] for s in _p0.seeds(quick)]
        per_mean = [float(np.mean(x)) if len(x) else float("nan") for x in per]
        values[name] = {"epochs": len(m["multi_drop_flows"]), "mean_multi": float(np.nanmean(per_mean)), "mean_multi_by_seed": per_mean,
                        "multi": list(map(int, m["multi_drop_flows"])), "seeds": _p0.seeds(quick),
                        "timeouts_per_flow_hour": m["timeouts_per_flow_hour"],
                        "mean_frac_flows_cut": m["mean_frac_flows_cut"]}
    return Run(params={k: _p0.params(*v, quick) for k, v in runs.items()}, frames={"epochs": pd.concat(frames)},
               values=values, seeds=_p0.seeds(quick), quick=quick)


#: fig6a's claim (FIGURES.md index: "DropTail: few flows take multiple drops per burst"; P001 §II.B: RED
#: "tends to punish flows more severely than Drop Tail"). [DER] "few": fewer than one flow in ten (5 of the 50)
#: loses >= 2 packets in an epoch, on average over the epochs; a seed-mean threshold row (two standard errors).
FEW_MULTI = 5.0


def check(runs: dict, run: Run) -> dict:
    c = Checks()
    v = run.values
    need = 20 if run.quick else 100
    main = next(iter(runs))
    # FIGURES.md's sample-size condition for the histogram (pooled epochs of the seeds).
    c.add(f"histogram built from ≥ {need} epochs", v[main]["epochs"], v[main]["epochs"] >= need, f"≥ {need}", "sample size")
    meas = {f"{k}_mean_multi_drop_flows": v[k]["mean_multi"] for k in v} | {f"{k}_epochs": v[k]["epochs"] for k in v}
    if main == "droptail":
        c.beyond(f"mean flows with ≥ 2 drops per epoch < {FEW_MULTI:g} (few, one in ten flows)", v[main]["mean_multi"],
                 se(v[main]["mean_multi_by_seed"]), FEW_MULTI, "<", f"< {FEW_MULTI:g}", "DropTail: few multi-drop flows")
    if "droptail" in v and main != "droptail":
        from scipy.stats import mannwhitneyu
        p = float(mannwhitneyu(v[main]["multi"], v["droptail"]["multi"], alternative="greater").pvalue)
        alpha = 0.1 if run.quick else 0.01  # one-sided Mann-Whitney over the pooled epochs; fewer epochs in quick
        c.order("RED mean > DropTail mean (flows with ≥ 2 drops per epoch)", v[main]["mean_multi"],
                se(v[main]["mean_multi_by_seed"]), v["droptail"]["mean_multi"], se(v["droptail"]["mean_multi_by_seed"]),
                ">", "", "paper")
        c.add(f"Mann-Whitney p < {alpha}", p, p < alpha, f"< {alpha}", "one-sided test over epochs (FIGURES.md)")
        meas["mann_whitney_p"] = p
    cv = {"seeds": ", ".join(map(str, v[main]["seeds"]))}
    for k in v:
        cv[k] = {"mean_multi": v[k]["mean_multi"], "by_seed": ", ".join(f"{x:.2f}" for x in v[k]["mean_multi_by_seed"]),
                 "epochs": v[k]["epochs"], "size": runs[k][2], "timeouts": v[k]["timeouts_per_flow_hour"], "frac_cut": v[k]["mean_frac_flows_cut"]}
    return verdict(c, meas, tolerance="FIGURES.md thresholds; two standard errors over the seeds",
                   cause=_p0.failing_cause(c, main), cause_values=cv)


#: Cause templates (docs/VERDICTS.md §5).
CAUSE = {
    "droptail": ("DropTail B = {v.droptail.size:g}: {v.droptail.mean_multi:.2f} flows with two or more drops per epoch (seeds {v.seeds}: "
                 "{v.droptail.by_seed}) over {v.droptail.epochs:.0f} epochs; {v.droptail.frac_cut:.2f} of the flows cut "
                 "per epoch, {v.droptail.timeouts:.3g} timeouts per flow-hour." + _p0.SETUP),
    "red": ("RED max_th {v.red.size:g}: {v.red.mean_multi:.2f} flows with two or more drops per epoch (seeds {v.seeds}: {v.red.by_seed}), "
            "DropTail B = {v.droptail.size:g}: {v.droptail.mean_multi:.2f} ({v.droptail.by_seed}); RED's average queue stays above max_th "
            "for seconds after the queue drains, so it drops arrivals through the whole epoch (P001 §II.B); "
            "{v.red.timeouts:.3g} timeouts per flow-hour with RED, {v.droptail.timeouts:.3g} with DropTail." + _p0.SETUP),
}
PAPER_NUMBERS: tuple[str, ...] = ()


def plot(id_: str, runs: dict, run: Run):
    e = run.frames["epochs"]
    fig, axes = figure(width=6.4, height=4)
    ax = axes[0, 0]
    hi = int(e.multi_drop_flows.max()) + 2 if len(e) else 2
    for name in runs:
        x = e[e.run == name].multi_drop_flows
        ax.hist(x, bins=np.arange(-0.5, hi), alpha=0.6, density=True,
                label=f"{name} (mean {x.mean():.2f}, {len(x)} epochs)")
    ax.set_xlabel("flows with ≥ 2 drops in the congestion epoch")
    ax.set_ylabel("fraction of epochs")
    ax.set_title(id_, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
