"""Plots of packet-simulation traces (queue, cwnd, alpha) against time."""
from __future__ import annotations

from typing import Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ccscope.result import SimResult  # noqa: E402

MAX_FLOWS_DRAWN = 10


def plot_queue(res: SimResult, ax=None, *, port: Optional[str] = None, k_pkts: Optional[float] = None):
    """Queue length (packets) of the recorded port(s) against time (ms); K dashed if given."""
    ax = ax or plt.gca()
    q = res.traces.get("queue")
    if q is None or q.empty:
        ax.text(0.5, 0.5, "no queue trace recorded", ha="center", transform=ax.transAxes)
        return ax
    ports = [port] if port else list(dict.fromkeys(q["port"].astype(str)))
    for p in ports:
        g = q[q["port"].astype(str) == p]
        ax.plot(g["time_s"] * 1e3, g["queue_pkts"], lw=0.8, label=p, drawstyle="steps-post")
    if k_pkts is not None:
        ax.axhline(k_pkts, ls="--", color="k", lw=0.8, label=f"K = {k_pkts:g} pkts")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue (packets)")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def _per_flow(res: SimResult, trace: str, col: str, ylabel: str, ax, flows: Optional[Sequence[int]]):
    ax = ax or plt.gca()
    t = res.traces.get(trace)
    if t is None or t.empty:
        ax.text(0.5, 0.5, f"no {trace} trace recorded", ha="center", transform=ax.transAxes)
        return ax
    ids = list(flows) if flows is not None else sorted(t["flow"].unique())[:MAX_FLOWS_DRAWN]
    for f in ids:
        g = t[t["flow"] == f]
        ax.plot(g["time_s"] * 1e3, g[col], lw=0.8, label=f"flow {f}")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(ylabel)
    if len(ids) <= MAX_FLOWS_DRAWN:
        ax.legend(loc="upper right", fontsize="small", ncol=2)
    return ax


def plot_cwnd(res: SimResult, ax=None, *, flows: Optional[Sequence[int]] = None):
    """Congestion window (packets) of each flow against time (ms)."""
    return _per_flow(res, "cwnd", "cwnd_pkts", "cwnd (packets)", ax, flows)


def plot_alpha(res: SimResult, ax=None, *, flows: Optional[Sequence[int]] = None):
    """DCTCP alpha of each flow against time (ms)."""
    return _per_flow(res, "alpha", "alpha", "DCTCP alpha", ax, flows)


def plot_result(res: SimResult, path, *, queue: bool = True, cwnd: bool = True, alpha: bool = False,
                title: Optional[str] = None) -> None:
    """Stacked panels sharing the time axis, written to `path` (PNG/PDF/SVG by extension)."""
    panels = [(n, f) for n, f, on in (("queue", plot_queue, queue), ("cwnd", plot_cwnd, cwnd), ("alpha", plot_alpha, alpha)) if on]
    if not panels:
        panels = [("queue", plot_queue)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 3.0 * len(panels)), sharex=True, squeeze=False)
    k = None
    aqm = res.scenario.get("aqm", {})
    if aqm.get("kind") == "threshold":
        k = aqm.get("k_pkts")
    for ax, (name, fn) in zip(axes[:, 0], panels):
        if name == "queue":
            fn(res, ax, k_pkts=k)
        else:
            fn(res, ax)
    if title is None:  # from the resolved scenario (after any --set), not the template's name
        from ccscope.plot.runs import describe
        title = describe(res) or res.scenario.get("name") or "ccscope run"
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
