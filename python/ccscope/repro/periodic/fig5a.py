"""periodic/fig5a: total window vs individual windows, fixed RTT (the `fig4a` run, DropTail B = 50).

total wnd = Σ_i min(cwnd_i, rwnd) sampled every 100 ms (P001 footnote 2); three flows drawn at random
with a fixed seed; congestion epochs are drop bursts separated by > 1 s (E23).
"""
from __future__ import annotations


from ccscope.repro._base import Run, figure
from ccscope.repro.periodic import _p0

ID = "periodic/fig5a"
TITLE = "total window vs individual windows, fixed RTT: regular aggregate, unsynchronized flows"
KIND = "sim"
COST = "reuses the fig4a run (full ~2 s, quick ~0.3 s)"
CLAIM = ("The total window is a regular sawtooth that follows the arrival rate, while individual cwnds are not in step "
         "(some grow while others cut at each epoch): a deterministic-looking aggregate of chaotic-looking flows.")
SEEDS = _p0.SEEDS  # the seed count's computation: periodic/_p0.py, above SEEDS
CAUSE = _p0.SYNC_CAUSE
RTT, QUEUE, SIZE = 'fixed', "droptail", 50


def run(quick: bool) -> Run:
    m = _p0.run(RTT, QUEUE, SIZE, quick)
    v = _p0.flatten_json(m)
    v["three_flows"] = m["three_flows"]
    return Run(params=_p0.params(RTT, QUEUE, SIZE, quick), frames={"series": _p0.runs_frame({"main": m})},
               values=v, seeds=_p0.seeds(quick), quick=quick)


def check(run: Run) -> dict:
    return _p0.sync_verdict(run.values, fixed_rtt=True)


def plot(run: Run):
    s = run.frames["series"]
    s = s[s.time_s >= s.time_s.max() - 200]
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    axes[0, 0].plot(s.time_s, s.total_wnd_pkts, lw=0.8)
    axes[0, 0].set_ylabel("total wnd (pkts)")
    axes[0, 0].set_title(f"{ID}, seed 1: total wnd (PI {_p0.label(run.values, 'total_wnd_pi', '.2f')}) and 3 random flows", fontsize=9)
    for f in run.values["three_flows"]:
        axes[1, 0].plot(s.time_s, s[f"cwnd_flow{f}"], lw=0.8, label=f"flow {f}")
    axes[1, 0].axhline(_p0.RWND, ls="--", lw=1, color="0.3", label="rwnd 20")
    axes[1, 0].set_ylabel("min(cwnd, rwnd) (pkts)")
    axes[1, 0].set_xlabel("time (s)")
    axes[1, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig
