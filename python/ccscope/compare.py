"""Fluid model against packet simulation at the same parameters (`ccscope compare MODEL`).

Place in the pipeline: takes one set of model parameters (the fluid model's names, e.g. `k_pkts`),
builds the packet scenario that means the same thing (the explicit `mapping` of each model below,
documented in docs/workbench.md), runs both, measures both queues with one rule and draws them in one
figure. The reproductions pair fluid and packet the same way at fixed parameters
(repro/dctcp_analysis/_fig2.py); this module does it at the user's.

Limit-cycle numbers, the same rule for both series (after `settle`, half the run): the queue's amplitude
is p98 - p2 (a packet queue has single-packet spikes, so not max - min), its mean, and its period is the
peak of the spectrum of the queue resampled on a uniform grid (downward crossings of the mean, the fluid
rule of analysis/limit_cycle.py, count every packet-level wiggle of a packet trace). Per-flow quantities
(window, alpha, rate) are the mean over flows and time after `settle`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from ccscope.errors import ScenarioError, shown


@dataclass
class ModelPair:
    """One fluid model and its packet counterpart.

    `defaults`: the parameters (fluid names) and their defaults; `mapping`: parameter -> the scenario
    field it sets (the packet side of the same quantity); `scenario(p)`: the packet scenario;
    `fluid(p, until_s)`: a DataFrame with time_s, queue_pkts and the per-flow columns of `flow`;
    `flow`: (label, fluid column, packet trace, packet column, scale of the packet column to the fluid's).
    """
    name: str
    title: str
    defaults: dict[str, float]
    mapping: dict[str, str]
    until_s: float
    scenario: Callable[[dict], Any]
    fluid: Callable[[dict, float], pd.DataFrame]
    flow: list[tuple[str, str, str, str, float]]
    level: Optional[Callable[[dict], float]] = None
    notes: str = ""
    extra: dict = field(default_factory=dict)


def _dctcp_scenario(p: dict):
    import ccscope as cc
    n = int(p["n"])
    return cc.scenario.dumbbell(n, cc="dctcp", bottleneck_bps=p["rate_bps"], rtt_s=p["rtt_s"],
                                aqm=cc.aqm.threshold(k_pkts=int(p["k_pkts"])), buffer_pkts=1000, start_jitter_s=1e-3,
                                dctcp=cc.scenario.DctcpConfig(g=p["g"], alpha_init=1.0),
                                record=cc.scenario.RecordConfig(queue_interval_s=1e-6, flow_interval_s=1e-5),
                                name="compare dctcp")


def _dctcp_fluid(p: dict, until_s: float) -> pd.DataFrame:
    from ccscope.fluid import dctcp
    m = dctcp(int(p["n"]), p["rate_bps"], p["rtt_s"], p["k_pkts"], g=p["g"])
    dt = float(m.r_star_s[0]) / 200
    return m.solve(until_s, dt_s=dt, alpha0=0.5, settle_s=until_s / 2, record_every=8).traces


def _dx_scenario(p: dict):
    import ccscope as cc
    return cc.scenario.dumbbell(int(p["n_flows"]), cc="dx", bottleneck_bps=p["rate_bps"], rtt_s=p["r0_s"],
                                buffer_bytes=256000, start_jitter_s=1e-3, tcp=cc.scenario.TcpConfig(min_rto_s=0.01),
                                record=cc.scenario.RecordConfig(queue_interval_s=1e-6, flow_interval_s=1e-5),
                                name="compare dx")


def _dx_fluid(p: dict, until_s: float) -> pd.DataFrame:
    from ccscope.fluid import dx
    m = dx(p["n_flows"], p["rate_bps"], p["r0_s"])
    t = m.solve(until_s).traces
    seg = 1500.0
    return pd.DataFrame({"time_s": t.time_s, "queue_pkts": t.queue_delay_s * p["rate_bps"] / (8 * seg),
                         "window_pkts": t.window_bytes / seg})


def _qcn_scenario(p: dict):
    import ccscope as cc
    return cc.scenario.dumbbell(int(p["n_flows"]), cc="qcn", bottleneck_bps=p["rate_bps"], rtt_s=20e-6,
                                aqm={"kind": "qcn"}, buffer_pkts=2000,
                                record=cc.scenario.RecordConfig(queue_interval_s=1e-6, flow_interval_s=1e-5),
                                name="compare qcn")


def _qcn_fluid(p: dict, until_s: float) -> pd.DataFrame:
    from ccscope.fluid import qcn_fluid
    t = qcn_fluid(p["rate_bps"], p["n_flows"]).solve(until_s).traces
    return pd.DataFrame({"time_s": t.time_s, "queue_pkts": t.queue_pkts, "rate_gbps": t.rate_pps * 1500 * 8 / 1e9})


def _red_scenario(p: dict):
    import ccscope as cc
    return cc.scenario.dumbbell(int(p["n_flows"]), cc="new_reno", bottleneck_bps=p["rate_bps"], rtt_s=p["tp_s"],
                                aqm=cc.aqm.red(min_th_pkts=p["min_th_pkts"], max_th_pkts=p["max_th_pkts"],
                                               max_p=p["max_p"], w_q=p["w_q"], action="drop"),
                                buffer_pkts=int(2 * p["max_th_pkts"]), start_jitter_s=p["tp_s"], packet_bytes=1000,
                                record=cc.scenario.RecordConfig(queue_interval_s=p["tp_s"] / 100,
                                                                flow_interval_s=p["tp_s"] / 10),
                                name="compare tcp_red")


def _red_fluid(p: dict, until_s: float) -> pd.DataFrame:
    from ccscope.fluid import tcp_red
    m = tcp_red(p["n_flows"], p["rate_bps"], p["tp_s"], min_th_pkts=p["min_th_pkts"], max_th_pkts=p["max_th_pkts"],
                max_p=p["max_p"], w_q=p["w_q"], packet_bytes=1000)
    return m.solve(until_s).traces


def _asm_scenario(p: dict):
    import ccscope as cc
    sc = cc.scenario.dumbbell(int(p["n_flows"]), cc="asm", bottleneck_bps=p["rate_bps"], rtt_s=p["delay_s"],
                              aqm={"kind": "asm", "q0_pkts": p["q0_pkts"]}, buffer_pkts=2000,
                              record=cc.scenario.RecordConfig(queue_interval_s=1e-6, flow_interval_s=1e-5),
                              name="compare asm")
    sc.asm_rp.adaptive_gains = False  # one gain set, as the fluid model: set A (approach)
    return sc


def _asm_fluid(p: dict, until_s: float) -> pd.DataFrame:
    from ccscope.fluid.asm import GAINS_A, asm_fluid
    n = int(p["n_flows"])
    m = asm_fluid(p["rate_bps"], gains=GAINS_A, delay_s=p["delay_s"], q0_pkts=p["q0_pkts"])
    # start: empty queue, every source at line rate (the packet sources' initial rate), A = N C
    t = m.solve(-p["q0_pkts"], (n - 1) * m.c_pps, until_s=until_s, dt_s=min(p["delay_s"], 1e-6)).traces
    return pd.DataFrame({"time_s": t.time_s, "queue_pkts": p["q0_pkts"] + t.queue_offset_pkts,
                         "rate_gbps": (m.c_pps + t.rate_excess_pps) / n * 1500 * 8 / 1e9})


MODELS: dict[str, ModelPair] = {
    "dctcp": ModelPair(
        "dctcp", "DCTCP: fluid model (DCTCP-analysis eqs 5-8) vs packet simulation",
        {"n": 2, "rate_bps": 10e9, "rtt_s": 100e-6, "k_pkts": 65, "g": 1 / 16},
        {"n": "flows.count (= topology.senders)", "rate_bps": "topology.bottleneck_bps", "rtt_s": "topology.rtt_s",
         "k_pkts": "aqm.k_pkts (aqm.kind = threshold)", "g": "dctcp.g"},
        0.06, _dctcp_scenario, _dctcp_fluid,
        [("window (pkts)", "window_pkts", "cwnd", "window_pkts", 1.0), ("alpha", "alpha", "alpha", "alpha", 1.0)],
        notes="packet side: buffer 1000 pkts, alpha starts at 1, starts jittered in [0, 1 ms], no delayed ACKs"),
    "dx": ModelPair(
        "dx", "DX: fluid model (DX paper eqs 3-4) vs packet simulation",
        {"n_flows": 10, "rate_bps": 10e9, "r0_s": 120e-6},
        {"n_flows": "flows.count (= topology.senders)", "rate_bps": "topology.bottleneck_bps", "r0_s": "topology.rtt_s"},
        0.06, _dx_scenario, _dx_fluid, [("window (pkts)", "window_pkts", "cwnd", "window_pkts", 1.0)],
        notes="packet side: buffer 256 kB, min RTO 10 ms, starts jittered in [0, 1 ms]; fluid queue delay x C = pkts"),
    "qcn": ModelPair(
        "qcn", "QCN: fluid model (Alizadeh et al. 2008) vs packet simulation",
        {"n_flows": 10, "rate_bps": 10e9},
        {"n_flows": "flows.count (= topology.senders)", "rate_bps": "topology.bottleneck_bps"},
        0.2, _qcn_scenario, _qcn_fluid, [("rate (Gb/s)", "rate_gbps", "rate", "rate_bps", 1e-9)],
        notes="packet side: RTT 20 us, buffer 2000 pkts, QCN congestion point at the bottleneck; fluid delay 0"),
    "tcp_red": ModelPair(
        "tcp_red", "TCP/RED: fluid model (Misra-Gong-Towsley, Hollot et al.) vs packet simulation (NewReno, RED drop)",
        {"n_flows": 20, "rate_bps": 100e6, "tp_s": 10e-3, "min_th_pkts": 20, "max_th_pkts": 80, "max_p": 0.1,
         "w_q": 0.002},
        {"n_flows": "flows.count (= topology.senders), cc = new_reno", "rate_bps": "topology.bottleneck_bps",
         "tp_s": "topology.rtt_s", "min_th_pkts": "aqm.min_th_pkts (aqm.kind = red, action = drop)",
         "max_th_pkts": "aqm.max_th_pkts (and topology.buffer_pkts = 2 max_th, the fluid model's buffer)",
         "max_p": "aqm.max_p", "w_q": "aqm.w_q"},
        4.0, _red_scenario, _red_fluid, [("window (pkts)", "window_pkts", "cwnd", "window_pkts", 1.0)],
        notes="packet side: 1000-byte packets (the fluid model's), starts jittered over one RTT"),
    "asm": ModelPair(
        "asm", "ASM: fluid model (P002 eq 26, feedback delay App. D) vs packet simulation",
        {"n_flows": 10, "rate_bps": 10e9, "q0_pkts": 5, "delay_s": 20e-6},
        {"n_flows": "flows.count (= topology.senders), cc = asm", "rate_bps": "topology.bottleneck_bps",
         "q0_pkts": "aqm.q0_pkts (aqm.kind = asm)", "delay_s": "topology.rtt_s (the feedback delay)"},
        0.2, _asm_scenario, _asm_fluid, [("rate (Gb/s)", "rate_gbps", "rate", "rate_bps", 1e-9)],
        notes="gains: set A on both sides (asm_rp.adaptive_gains = false), w = 32, p = 0.01; sources start at "
              "line rate; fluid per-flow rate = A / N"),
}

#: Fluid models without a packet counterpart here, and why (the MODEL error names them).
NO_PACKET_COUNTERPART = {
    "dctcp_normalized": "normalized units (time in R*, no rates); compare `dctcp` instead",
    "dctcp_poincare": "a return map, not a trajectory; compare `dctcp` instead",
    "qcn_fluid": "this is `qcn` here", "asm_fluid": "this is `asm` here",
}


def parse_sets(model: str, sets: list[str]) -> tuple[dict, float]:
    """The parameters of `model` with `--set NAME=VALUE` applied, and `until_s` (also a --set).
    Raises ScenarioError naming the option for an unknown model or name, or a value that is not a number."""
    if model not in MODELS:
        extra = f" ({model}: {NO_PACKET_COUNTERPART[model]})" if model in NO_PACKET_COUNTERPART else ""
        raise ScenarioError(f"MODEL {shown(model)}: unknown model; allowed: {', '.join(MODELS)}{extra}")
    m = MODELS[model]
    params = dict(m.defaults)
    until = m.until_s
    for s in sets:
        name, eq, text = s.partition("=")
        name = name.strip()
        if not eq or not name:
            raise ScenarioError(f"--set {shown(s)}: expected NAME=VALUE, e.g. --set {next(iter(params))}=10")
        if name not in params and name != "until_s":
            raise ScenarioError(f"--set {shown(s)}: {name!r} is not a parameter of {model}; allowed: "
                                f"{', '.join(params)}, until_s (the names of the fluid model; docs/workbench.md "
                                f"maps each to its scenario field)")
        try:
            from ccscope.units import parse_time
            v = parse_time(text.strip()) if name.endswith("_s") else float(text)
        except ValueError:
            raise ScenarioError(f"--set {shown(s)}: {text.strip()!r} is not a number") from None
        if not (np.isfinite(v) and v > 0):
            raise ScenarioError(f"--set {shown(s)}: {name} must be a finite number > 0")
        if name == "until_s":
            until = v
        else:
            params[name] = v
    for k in ("n", "n_flows"):
        if k in params and (params[k] != int(params[k]) or params[k] < 1):
            raise ScenarioError(f"--set {k}={params[k]:g}: must be a whole number of flows >= 1")
    return params, until


def queue_cycle(t: np.ndarray, q: np.ndarray, settle_s: float) -> dict:
    """Amplitude (p98 - p2), mean, min / max and period (spectrum peak, uniform resampling) of a queue
    after `settle_s`: the rule of the module doc, the same for fluid and packet traces."""
    t, q = np.asarray(t, float), np.asarray(q, float)
    keep = t >= settle_s
    t, q = t[keep], q[keep]
    out = {"q_mean_pkts": float(q.mean()), "q_p2_pkts": float(np.percentile(q, 2)),
           "q_p98_pkts": float(np.percentile(q, 98))}
    amp = out["q_p98_pkts"] - out["q_p2_pkts"]
    # a fixed point reached to solver precision is no oscillation (1e-6 pkts: far below one packet)
    out["amplitude_pkts"] = amp if amp > 1e-6 else 0.0
    grid = np.linspace(t[0], t[-1], 8192)
    # a step trace (packet queue) is sampled on change: hold the last value, not interpolate
    idx = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, len(q) - 1)
    x = q[idx] - q[idx].mean()
    spec = np.abs(np.fft.rfft(x))
    freqs = np.fft.rfftfreq(len(x), grid[1] - grid[0])
    k = 1 + int(np.argmax(spec[1:])) if len(spec) > 1 else 0
    # a period needs at least 3 whole cycles in the window (the spectrum's lowest bins are the trend)
    period = float(1 / freqs[k]) if k and out["amplitude_pkts"] > 0 else float("nan")
    out["period_s"] = period if period <= (t[-1] - t[0]) / 3 else float("nan")
    return out


@dataclass
class Comparison:
    """Both series and their numbers: `fluid` (DataFrame: time_s, queue_pkts, per-flow columns), `packet`
    (the SimResult), `numbers` (DataFrame: one row per quantity, columns fluid, packet, ratio)."""
    model: str
    params: dict
    until_s: float
    fluid: pd.DataFrame
    packet: Any
    numbers: pd.DataFrame

    def plot(self, title: Optional[str] = None):
        return plot_comparison(self, title=title)


def compare(model: str, sets: Optional[list[str]] = None) -> Comparison:
    """Run the fluid model `model` and its packet counterpart at the parameters of `sets` (NAME=VALUE,
    fluid names) and measure both (module doc). `ccscope compare` is this plus the figure."""
    import ccscope as cc
    params, until = parse_sets(model, list(sets or []))
    m = MODELS[model]
    settle = until / 2
    fl = m.fluid(params, until)
    traces = ["queue", "link"] + sorted({tr for _, _, tr, _, _ in m.flow})
    sc = m.scenario(params)
    res = cc.simulate(sc, until_s=until, record=traces)
    rows = {}
    fq = queue_cycle(fl.time_s.to_numpy(), fl.queue_pkts.to_numpy(), settle)
    q = res.traces["queue"]
    port = res.summary.get("bottleneck_port")
    if "port" in q.columns and port is not None and q["port"].dtype == object:
        q = q[q["port"] == port]
    pq = queue_cycle(q.time_s.to_numpy(), q.queue_pkts.to_numpy(), settle)
    for key, label in (("amplitude_pkts", "queue amplitude p98-p2 (pkts)"), ("q_mean_pkts", "queue mean (pkts)"),
                       ("q_p2_pkts", "queue p2 (pkts)"), ("q_p98_pkts", "queue p98 (pkts)"),
                       ("period_s", "queue period (ms)")):
        scale = 1e3 if key == "period_s" else 1.0
        rows[label] = (scale * fq[key], scale * pq[key])
    for label, fcol, tr, pcol, scale in m.flow:
        f = fl[fl.time_s >= settle][fcol].to_numpy(float)
        d = _packet_frame(res, tr)
        d = d[d.time_s >= settle]
        per_flow = d.groupby("flow")[pcol].mean() * scale
        rows[f"{label}, mean per flow"] = (float(f.mean()), float(per_flow.mean()))
    from ccscope.analysis import utilization
    rows["bottleneck utilization"] = (_fluid_utilization(fl, settle), utilization(res, start_s=settle))
    num = pd.DataFrame([(k, a, b) for k, (a, b) in rows.items()], columns=["quantity", "fluid", "packet"])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = num.packet / num.fluid
    num["packet/fluid"] = ratio.where(np.isfinite(ratio))
    return Comparison(model, params, until, fl, res, num)


def _packet_frame(res, trace: str) -> pd.DataFrame:
    """A packet trace with the derived columns the pairs compare: `window_pkts` of the cwnd trace is
    the window without the dupack inflation of fast recovery (ssthresh there, as ns-2's `cwnd_` and the
    fluid models' W: analysis.window_without_inflation)."""
    d = res.traces[trace]
    if trace == "cwnd":
        from ccscope.analysis import window_without_inflation
        d = d.assign(window_pkts=window_without_inflation(d))
    return d


def _fluid_utilization(fl: pd.DataFrame, settle: float) -> float:
    """Fraction of time after `settle` with a queue above 0.01 pkt (a fluid queue that is empty is
    underused only while the arrival rate is below C, which this lower bound leaves out: NaN when the
    queue is empty most of the time and utilization cannot be told from it)."""
    q = fl[fl.time_s >= settle].queue_pkts.to_numpy(float)
    busy = float((q > 0.01).mean())
    return 1.0 if busy > 0.999 else float("nan")


def _param_text(params: dict) -> str:
    out = []
    for k, v in params.items():
        if k.endswith("_bps"):
            out.append(f"{k} = {v / 1e9:g} Gb/s")
        elif k.endswith("_s"):
            out.append(f"{k} = {v * 1e6:g} us" if v < 1e-3 else f"{k} = {v * 1e3:g} ms")
        else:
            out.append(f"{k} = {v:g}")
    return ", ".join(out)


def plot_comparison(c: Comparison, title: Optional[str] = None):
    """Queue panel and one panel per per-flow quantity: packet traces (thin, several flows) and the fluid
    series (bold, black) after the settle time, with the numbers of both in a table under the panels."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    m = MODELS[c.model]
    settle = c.until_s / 2
    n_panels = 1 + len(m.flow)
    fig, axes = plt.subplots(n_panels + 1, 1, figsize=(9.5, 2.6 * n_panels + 2.2), sharex=False,
                             gridspec_kw={"height_ratios": [3] * n_panels + [2.2]})
    fl = c.fluid[c.fluid.time_s >= settle]
    q = c.packet.traces["queue"]
    q = q[q.time_s >= settle]
    ax = axes[0]
    ax.step(1e3 * q.time_s, q.queue_pkts, where="post", lw=0.6, color="tab:blue", label="packet simulation")
    ax.plot(1e3 * fl.time_s, fl.queue_pkts, lw=2, color="k", label="fluid model")
    if "k_pkts" in c.params:
        ax.axhline(c.params["k_pkts"], ls="--", color="0.5", lw=0.8, label=f"K = {c.params['k_pkts']:g}")
    ax.set_ylabel("queue (pkts)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    for i, (label, fcol, tr, pcol, scale) in enumerate(m.flow, start=1):
        ax = axes[i]
        d = _packet_frame(c.packet, tr)
        d = d[d.time_s >= settle]
        for j, (fid, g) in enumerate(d.groupby("flow")):
            if j >= 4:
                break
            ax.plot(1e3 * g.time_s, g[pcol] * scale, lw=0.6, label=f"packet flow {fid}" if j < 2 else None)
        ax.plot(1e3 * fl.time_s, fl[fcol], lw=2, color="k", label="fluid")
        ax.set_ylabel(label)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    for ax in axes[:n_panels]:
        ax.set_xlim(1e3 * settle, 1e3 * c.until_s)
        ax.grid(alpha=0.3)
    axes[n_panels - 1].set_xlabel("time (ms)")
    tab = axes[n_panels]
    tab.axis("off")
    cells = [[r.quantity, _fmt(r.fluid), _fmt(r.packet), _fmt(r["packet/fluid"])] for _, r in c.numbers.iterrows()]
    t = tab.table(cellText=cells, colLabels=["after the settle time", "fluid", "packet", "packet/fluid"],
                  loc="center", cellLoc="right", colLoc="right")
    t.auto_set_font_size(False)
    t.set_fontsize(7.5)
    t.scale(1, 1.15)
    params = _param_text(c.params)
    axes[0].set_title(title or f"{m.title}\n{params}, after {1e3 * settle:g} ms", fontsize=9)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    if m.notes:
        fig.text(0.01, 0.005, m.notes, fontsize=7, color="0.3", ha="left", va="bottom")
    return fig


def _fmt(v: float) -> str:
    return "-" if not np.isfinite(v) else f"{v:.4g}"
