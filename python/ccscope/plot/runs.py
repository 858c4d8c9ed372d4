"""Plots of one or more saved runs in one figure (`ccscope plot RUN... --kind ...`).

Place in the pipeline: reads `ccscope run --out` directories (`ccscope.load`) and draws them; the
command line (`ccscope.cli.plot`) parses the options and writes the file. One panel per kind,
one colour per run (a single run keeps one colour per flow or port, as `plot_result` does).

* Titles and legends come from each run's resolved scenario (`scenario.json`, every default
  filled in and every `--set` applied), never from the template's `name`: the title lists what
  the runs share (`describe`), the legend what differs between them (`differing_fields`) unless
  labels are given.
* The y-range of a time panel is set by a high percentile of what the window shows
  (`Y_PERCENTILE`), not by its maximum, so a start-up spike does not flatten the rest; when
  points are cut off the panel says so (`clipped: max ...`).
* Bad input raises `PlotInputError` (a ValueError) naming the option, the value and what is
  allowed; the command line prints it as one line.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Kinds of panel, in the order the help lists them, with the trace each needs (None: the flows table).
KINDS: dict[str, str | None] = {"queue": "queue", "cwnd": "cwnd", "alpha": "alpha", "rate": "rate",
                                "throughput": "delivered", "fct-cdf": None, "slowdown": None, "pfc": None}
#: Kinds drawn from the flows table, not over time.
FLOW_KINDS = ("fct-cdf", "slowdown")
#: Kinds drawn per port, not over time ("pfc": PFC pause time per port, from the ports table or the pfc trace).
PORT_KINDS = ("pfc",)
#: Ports drawn in a pfc panel at most (those paused longest).
MAX_PORTS_DRAWN = 24
#: Flows of one run drawn in a per-flow panel when no flows are chosen.
MAX_FLOWS_DRAWN = 10
#: Percentile of the samples in the window that sets the top of a time panel's y-range.
Y_PERCENTILE = 99.5
#: The percentile ignores a run's warm-up (its summary's `warmup_s`, where the start-up spike lies) when
#: at least this share of the window's samples lie after it.
WARM_SHARE = 0.25
#: Headroom above that percentile (fraction of it): the y-range ends at p * (1 + Y_HEADROOM).
Y_HEADROOM = 0.25
#: The maximum is shown whole (no clipping) when it is at most this factor above that limit.
Y_CLIP_FACTOR = 1.1
#: Bins of a throughput panel over the shown window (goodput is averaged over each bin).
THROUGHPUT_BINS = 100
#: A throughput bin spans at least this many samples of the delivered trace.
THROUGHPUT_MIN_SAMPLES = 5
#: Fields of the resolved scenario named in a legend before "...".
MAX_LEGEND_FIELDS = 3
#: Flows whose path is traced to find the base RTT shown in a title.
RTT_FLOWS_CHECKED = 64


class PlotInputError(ValueError):
    """Bad input to a plot: the message names the option (`--kind`, `--from`, ...), the value and what
    is allowed."""


@dataclass
class Run:
    """One run to draw: its result, the label of its legend entry and where it was read from."""
    result: Any
    label: str
    source: str = ""


# --------------------------------------------------------------------------- describing scenarios

def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return ",".join(_fmt(x) for x in v)
    return str(v)


def _si(v: float, unit: str) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:g} {prefix}{unit}"
    return f"{v:g} {unit}"


def _time_text(t: float) -> str:
    if t == 0:
        return "0 s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if abs(t) >= scale:
            return f"{t / scale:.4g} {unit}"
    return f"{t * 1e9:.4g} ns"


def _links(scn: Mapping) -> list[dict]:
    topo = scn.get("topology") or {}
    return [ln for ln in topo.get("links") or [] if isinstance(ln, dict)]


def _bottleneck_link(scn: Mapping, summary: Mapping | None) -> dict | None:
    port = (summary or {}).get("bottleneck_port")
    if isinstance(port, str) and "->" in port:
        a, b = port.split("->", 1)
        for ln in _links(scn):
            if ln.get("from") == a and ln.get("to") == b:
                return ln
            if ln.get("duplex") and ln.get("from") == b and ln.get("to") == a:
                return ln
    return None


def _path_delay(adj: dict, src: str, dst: str) -> float | None:
    """Smallest sum of link delays from src to dst (Dijkstra), None when unreachable."""
    best = {src: 0.0}
    heap = [(0.0, src)]
    while heap:
        d, n = heapq.heappop(heap)
        if n == dst:
            return d
        if d > best.get(n, math.inf):
            continue
        for m, w in adj.get(n, ()):
            nd = d + w
            if nd < best.get(m, math.inf):
                best[m] = nd
                heapq.heappush(heap, (nd, m))
    return None


def base_rtt_s(scn: Mapping) -> float | None:
    """The smallest propagation RTT (link delays there and back) over the first flows, None if unknown."""
    adj: dict[str, list] = {}
    for ln in _links(scn):
        try:
            a, b, w = str(ln["from"]), str(ln["to"]), float(ln.get("delay_s", 0.0))
        except (KeyError, TypeError, ValueError):
            continue
        adj.setdefault(a, []).append((b, w))
        if ln.get("duplex"):
            adj.setdefault(b, []).append((a, w))
    rtts = []
    for f in (scn.get("flow") or [])[:RTT_FLOWS_CHECKED]:
        if not isinstance(f, dict):
            continue
        there, back = _path_delay(adj, str(f.get("src")), str(f.get("dst"))), _path_delay(adj, str(f.get("dst")),
                                                                                          str(f.get("src")))
        if there is not None and back is not None:
            rtts.append(there + back)
    return min(rtts) if rtts else None


#: Algorithm tables of the resolved scenario shown for the senders that use them.
_CC_TABLES = {"dctcp": "dctcp", "dctcp_per_ack": "dctcp", "qcn": "qcn_rp", "asm": "asm_rp", "dx": "dx", "rdma": "rdma",
              "dcqcn": "dcqcn"}


def _flatten(prefix: str, node: Any, out: dict) -> None:
    if isinstance(node, Mapping):
        for k in sorted(node):
            _flatten(f"{prefix}.{k}" if prefix else str(k), node[k], out)
    else:
        out[prefix] = node


def headline(result) -> dict[str, Any]:
    """The fields a reader of a figure wants to know, from the run's resolved scenario, keyed by the
    scenario path they come from (`flows.count`, `aqm.k_pkts`, `dctcp.g`, ...), in reading order."""
    scn = result.scenario or {}
    summary = getattr(result, "summary", None) or {}
    flows = [f for f in scn.get("flow") or [] if isinstance(f, dict)]
    out: dict[str, Any] = {}
    wccs = [w.get("cc") for w in scn.get("workload") or [] if isinstance(w, dict) and w.get("cc")]
    ccs = list(dict.fromkeys([str(f.get("cc", "?")) for f in flows]
                             + [str(c) for w in wccs for c in (w if isinstance(w, list) else [w])]))
    if ccs:
        out["flows.cc"] = "+".join(ccs)
    out["flows.count"] = len(flows)
    for w in scn.get("workload") or []:
        if isinstance(w, dict) and w.get("kind"):
            out.setdefault("workload.kind", w["kind"])
    bn = _bottleneck_link(scn, summary)
    if bn is not None:
        out["topology.bottleneck_bps"] = bn.get("rate_bps")
    rtt = base_rtt_s(scn)
    if rtt is not None:
        out["topology.rtt_s"] = rtt
    if bn is not None and "buffer_pkts" in bn:
        out["topology.buffer_pkts"] = bn["buffer_pkts"]
    aqm = (bn or {}).get("aqm") or scn.get("aqm") or {}
    flat: dict[str, Any] = {}
    _flatten("aqm", aqm, flat)
    out.update(flat)
    pfc = scn.get("pfc")
    if isinstance(pfc, Mapping) and pfc.get("classes"):
        out["pfc.classes"] = list(pfc["classes"])
        if out.get("aqm.kind") in (None, "drop_tail"):
            out.pop("aqm.kind", None)  # a lossless class never drops: "drop-tail" would mislead
    for cc in ccs:
        table = _CC_TABLES.get(cc)
        if table and isinstance(scn.get(table), Mapping):
            flat = {}
            _flatten(table, scn[table], flat)
            for k, v in flat.items():
                out.setdefault(k, v)
    if isinstance(scn.get("tcp"), Mapping) and any(c not in ("qcn", "asm", "cbr", "rdma", "dcqcn") for c in ccs):
        flat = {}
        _flatten("tcp", scn["tcp"], flat)
        out.update(flat)
    for k in ("packet_bytes", "seed"):
        if k in scn:
            out[k] = scn[k]
    return out


#: Headline fields a title names (the others only appear in a legend when they differ).
TITLE_FIELDS = ("flows.cc", "flows.count", "workload.kind", "topology.bottleneck_bps", "topology.rtt_s",
                "pfc.classes", "aqm.kind", "aqm.k_pkts", "aqm.min_th_pkts", "aqm.max_th_pkts", "aqm.max_p", "dctcp.g")


def _field_text(key: str, v: Any) -> str:
    if key == "flows.count":
        return f"{v} flow" + ("" if v == 1 else "s")
    if key == "flows.cc":
        return str(v)
    if key == "workload.kind":
        return f"{v} workload"
    if key == "topology.bottleneck_bps":
        return f"{_si(float(v), 'b/s')} bottleneck"
    if key == "topology.rtt_s":
        return f"RTT {_time_text(float(v))}"
    if key == "pfc.classes":
        return "lossless (PFC) class" + ("" if len(v) == 1 else "es") + " " + ", ".join(str(c) for c in v)
    if key == "aqm.kind":
        return {"threshold": "threshold marking", "drop_tail": "drop-tail"}.get(str(v), f"{v} AQM")
    if key == "aqm.k_pkts":
        return f"K = {_fmt(v)} pkts"
    short = key.split(".", 1)[1] if key.startswith(("aqm.", "dctcp.")) else key
    return f"{short} = {_fmt(v)}"


def describe(result, exclude: Sequence[str] = ()) -> str:
    """A one-line description of a run for a title, from its resolved scenario:
    "dctcp, 2 flows, 10 Gb/s bottleneck, RTT 100 us, threshold, K = 20 pkts, g = 0.0625"."""
    h = headline(result)
    if "workload.kind" in h and "flows.count" in h and "workload.kind" not in exclude and "flows.count" not in exclude:
        n = h.pop("flows.count")  # listed flows beside a workload's: "2 flows + poisson workload"
        if n:
            h["workload.kind"] = f"{n} flow{'' if n == 1 else 's'} + {h['workload.kind']}"
    parts = [_field_text(k, h[k]) for k in TITLE_FIELDS if k in h and k not in exclude]
    return ", ".join(parts)


def differing_fields(results: Sequence[Any]) -> list[str]:
    """The scenario fields whose values differ between the runs: the headline fields first, then any other
    field of the resolved scenarios (flow list, topology and record settings left out)."""
    heads = [headline(r) for r in results]
    keys = list(dict.fromkeys(k for h in heads for k in h))
    diff = [k for k in keys if len({_fmt(h.get(k)) for h in heads}) > 1]
    if diff:
        return diff
    flats = []
    for r in results:
        flat: dict[str, Any] = {}
        _flatten("", {k: v for k, v in (r.scenario or {}).items()
                      if k not in ("name", "flow", "topology", "record")}, flat)
        flats.append(flat)
    keys = list(dict.fromkeys(k for f in flats for k in f))
    return [k for k in keys if len({_fmt(f.get(k)) for f in flats}) > 1]


def legend_labels(results: Sequence[Any], sources: Sequence[str]) -> list[str]:
    """One legend label per run from the fields that differ ("aqm.k_pkts=20, flows.count=10"), or the
    run directories' names when the scenarios are the same."""
    diff = differing_fields(results)
    if not diff:
        return list(sources)
    shown = diff[:MAX_LEGEND_FIELDS]
    labels = []
    for r in results:
        h = headline(r)
        flat: dict[str, Any] = {}
        _flatten("", r.scenario or {}, flat)
        parts = [f"{k}={_fmt(h[k] if k in h else flat.get(k, '-'))}" for k in shown]
        labels.append(", ".join(parts) + (", ..." if len(diff) > len(shown) else ""))
    if len(set(labels)) < len(labels):  # the shown fields do not tell them apart: add where they came from
        labels = [f"{lab} ({src})" for lab, src in zip(labels, sources)]
    return labels


# --------------------------------------------------------------------------- checks

def check_kinds(kinds: Sequence[str]) -> list[str]:
    out = []
    for k in kinds:
        if k not in KINDS:
            raise PlotInputError(f"--kind {k[:80]!r}: unknown kind; allowed: {', '.join(KINDS)}")
        if k not in out:
            out.append(k)
    return out


def check_window(t_from: float | None, t_to: float | None, runs: Sequence[Run]) -> tuple[float, float]:
    """The shown window in seconds: [t_from, t_to], defaults 0 and the longest run's end."""
    for opt, v in (("--from", t_from), ("--to", t_to)):
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise PlotInputError(f"{opt} {_fmt(v)}: must be a time >= 0 such as 0.1s, 100ms or 250us")
    if t_from is not None and t_to is not None and t_from >= t_to:
        raise PlotInputError(f"--from {_time_text(t_from)} must be before --to {_time_text(t_to)}")
    end = max((float(r.result.summary.get("sim_time_s") or 0.0) for r in runs), default=0.0)
    lo = 0.0 if t_from is None else t_from
    hi = end if t_to is None else t_to
    if end > 0 and lo >= end:
        raise PlotInputError(f"--from {_time_text(lo)}: at or after the end of every run (the longest ends at "
                             f"{_time_text(end)})")
    if not hi > lo:
        hi = lo + 1e-9
    return lo, hi


def _recorded(result) -> list[str] | None:
    rec = (result.scenario or {}).get("record") or {}
    t = rec.get("traces")
    return [str(x) for x in t] if isinstance(t, list) else None


def check_recorded(kind: str, run: Run) -> None:
    """Raise PlotInputError when `run` has no data for `kind`, saying which trace to enable."""
    trace = KINDS[kind]
    res = run.result
    if kind == "pfc":
        if "paused_s" not in res.ports:
            raise PlotInputError(f"--kind pfc: run {run.source!r} has no PFC pause times (its scenario has no [pfc] "
                                 "table, or it was saved by a ccscope before the ports table had paused_s)")
        return
    if trace is None:
        fct = res.flows["fct_s"] if "fct_s" in res.flows else pd.Series(dtype=float)
        if not np.isfinite(fct.to_numpy(dtype=float)).any():
            raise PlotInputError(f"--kind {kind}: run {run.source!r} has no completed flows (flows with a size, "
                                 "e.g. a poisson or incast workload; long-lived flows never complete)")
        if kind == "slowdown" and "slowdown" not in res.flows:
            raise PlotInputError(f"--kind slowdown: run {run.source!r} has no slowdown column (saved by a ccscope "
                                 "before the FCT slowdown existed); rerun it with ccscope run --out")
        return
    rec = _recorded(res)
    t = res.traces.get(trace) if trace in res.traces else None
    if (rec is not None and trace not in rec) or t is None:
        kept = ", ".join(rec) if rec else "none"
        raise PlotInputError(f"--kind {kind}: run {run.source!r} did not record the {trace!r} trace (it kept: "
                             f"{kept}); rerun it with --record {','.join([*(rec or []), trace])} (or add {trace!r} to "
                             "[record] traces)")
    if t.empty:
        why = (" (written by rate-based senders only: cc = \"qcn\" or \"asm\")" if trace == "rate" else "")
        raise PlotInputError(f"--kind {kind}: run {run.source!r} recorded no {trace!r} samples{why}")


# --------------------------------------------------------------------------- drawing

def _time_unit(span_s: float) -> tuple[str, float]:
    if span_s >= 2.0:
        return "s", 1.0
    if span_s >= 2e-3:
        return "ms", 1e3
    return "us", 1e6


def _window(df: pd.DataFrame, lo: float, hi: float) -> pd.DataFrame:
    t = df["time_s"].to_numpy()
    return df[(t >= lo) & (t <= hi)]


def _flows_of(df: pd.DataFrame, flows: Sequence[int] | None) -> list:
    ids = sorted(pd.unique(df["flow"]))
    if flows is None:
        return ids[:MAX_FLOWS_DRAWN]
    return [f for f in flows if f in set(ids)]


def _throughput(df: pd.DataFrame, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """Goodput (bits/s) of one flow averaged over THROUGHPUT_BINS bins of [lo, hi] (at least a sample
    interval each), from its cumulative delivered bytes."""
    t = df["time_s"].to_numpy(dtype=float)
    b = df["delivered_bytes"].to_numpy(dtype=float)
    if len(t) < 2:
        return np.array([]), np.array([])
    step = float(np.median(np.diff(t))) if len(t) > 1 else (hi - lo)
    width = max((hi - lo) / THROUGHPUT_BINS, THROUGHPUT_MIN_SAMPLES * step)
    edges = np.arange(lo, hi + width * 0.5, width)
    if len(edges) < 2:
        edges = np.array([lo, hi])
    cum = np.interp(edges, t, b, left=0.0, right=b[-1])
    rate = np.diff(cum) * 8.0 / np.diff(edges)
    mids = (edges[:-1] + edges[1:]) / 2
    live = (mids >= t[0]) & (mids <= t[-1])
    return mids[live], rate[live]


def _mean_over_flows(drawn: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The mean of several flows' series at the sample times they share (every flow is sampled at
    the same instants; a flow that has not started yet, or has ended, is left out of the mean there)."""
    frames = [pd.Series(y, index=x) for x, y in drawn if len(x)]
    if not frames:
        return np.array([]), np.array([])
    df = pd.concat([f[~f.index.duplicated()] for f in frames], axis=1)
    m = df.mean(axis=1, skipna=True).sort_index()
    return m.index.to_numpy(dtype=float), m.to_numpy(dtype=float)


@dataclass
class _Series:
    x: np.ndarray
    y: np.ndarray
    label: str
    #: x (in the panel's time unit) where the run's warm-up ends (`summary["warmup_s"]`)
    warm: float = -math.inf


def _set_ylim(ax, series: list[_Series], *, floor: float = 0.0, cap: float | None = None, unit: str = "",
              xunit: str = "") -> None:
    """Top of the y-range from a high percentile of what is shown; mark what lies above it."""
    ys, refs = [], []
    for s in series:
        ok = np.isfinite(s.y)
        y = s.y[ok]
        if not len(y):
            continue
        ys.append(y)
        # the percentile is taken after the warm-up (where the start-up spike lies) when most of the
        # window is past it
        after = s.y[ok & (s.x >= s.warm)]
        refs.append(after if len(after) >= WARM_SHARE * len(y) else y)
    if not ys:
        return
    allv = np.concatenate(ys)
    top = float(np.percentile(np.concatenate(refs), Y_PERCENTILE))
    peak = float(allv.max())
    if cap is not None:
        ax.set_ylim(floor, cap)
        return
    if top <= floor:
        top = peak if peak > floor else floor + 1.0
    limit = floor + (top - floor) * (1 + Y_HEADROOM)
    if peak <= limit * Y_CLIP_FACTOR:
        ax.set_ylim(floor, peak + (peak - floor) * 0.05 if peak > floor else floor + 1.0)
        return
    ax.set_ylim(floor, limit)
    s_peak = max(series, key=lambda s: np.nanmax(s.y) if len(s.y) else -math.inf)
    i = int(np.nanargmax(s_peak.y))
    ax.plot([s_peak.x[i]], [limit], marker="^", color="0.3", ms=6, clip_on=False, zorder=5)
    who = f" ({s_peak.label})" if s_peak.label else ""
    # above the panel, where it hides no data and no legend
    ax.set_title(f"clipped above {limit:.3g}{unit} (p{Y_PERCENTILE:g} after warm-up + {Y_HEADROOM:.0%}): "
                 f"max {peak:.4g}{unit} at {s_peak.x[i]:.4g} {xunit}{who}", loc="left", fontsize="x-small",
                 color="0.3")


def _colours(n: int) -> list:
    import matplotlib.pyplot as plt
    cyc = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return [cyc[i % len(cyc)] for i in range(n)]


def _draw_time_kind(ax, kind: str, runs: Sequence[Run], lo: float, hi: float, unit: tuple[str, float], *,
                    port: str | None, flows: Sequence[int] | None) -> None:
    name, scale = unit
    single = len(runs) == 1
    colours = _colours(max(len(runs), MAX_FLOWS_DRAWN))
    series: list[_Series] = []
    ks: dict[float, list[int]] = {}
    ports_used: set[str] = set()
    for ri, run in enumerate(runs):
        res = run.result
        warm = float(res.summary.get("warmup_s") or 0.0) * scale
        first = len(series)
        if kind == "queue":
            q = res.traces["queue"]
            all_ports = list(dict.fromkeys(q["port"].astype(str)))
            if port is not None:
                if port not in all_ports:
                    raise PlotInputError(f"--port {port[:80]!r}: run {run.source!r} recorded no queue at that port; "
                                         f"it recorded: {', '.join(all_ports)}")
                chosen = [port]
            elif single:
                chosen = all_ports
            else:
                bn = str(res.summary.get("bottleneck_port") or "")
                chosen = [bn if bn in all_ports else all_ports[0]]
            ports_used.update(chosen)
            w = _window(q, lo, hi)
            for pi, p in enumerate(chosen):
                g = w[w["port"].astype(str) == p]
                x, y = g["time_s"].to_numpy() * scale, g["queue_pkts"].to_numpy(dtype=float)
                colour = colours[pi] if single else colours[ri]
                label = p if single else run.label
                ax.plot(x, y, lw=0.8, drawstyle="steps-post", color=colour, label=label)
                series.append(_Series(x, y, label))
            bl = _bottleneck_link(res.scenario or {}, res.summary)
            aqm = (bl or {}).get("aqm") or (res.scenario or {}).get("aqm") or {}
            if aqm.get("kind") == "threshold" and aqm.get("k_pkts") is not None:
                ks.setdefault(float(aqm["k_pkts"]), []).append(ri)
            for sr in series[first:]:
                sr.warm = warm
            continue
        col, tname = {"cwnd": ("cwnd_pkts", "cwnd"), "alpha": ("alpha", "alpha"), "rate": ("rate_bps", "rate"),
                      "throughput": ("delivered_bytes", "delivered")}[kind]
        t = res.traces[tname]
        ids = _flows_of(t, flows)
        if flows is not None and not ids:
            have = sorted(pd.unique(t["flow"]))
            raise PlotInputError(f"--flow {','.join(str(f) for f in flows)}: run {run.source!r} has no such flow in "
                                 f"its {tname!r} trace; it has flows {_fmt(have[:20])}"
                                 + (" ..." if len(have) > 20 else ""))
        w = _window(t, lo, hi) if kind != "throughput" else t
        drawn = []
        for fi, f in enumerate(ids):
            g = w[w["flow"] == f]
            if kind == "throughput":
                x, y = _throughput(g, lo, hi)
                y = y / 1e9
            else:
                x, y = g["time_s"].to_numpy(dtype=float), g[col].to_numpy(dtype=float)
                if kind == "rate":
                    y = y / 1e9
            x = x * scale
            drawn.append((x, y))
            step = "steps-post" if kind in ("cwnd", "rate") else "default"
            if single:
                label = f"flow {f}"
                ax.plot(x, y, lw=0.8, color=colours[fi % len(colours)], label=label, drawstyle=step)
                series.append(_Series(x, y, label))
            elif len(ids) == 1:
                ax.plot(x, y, lw=0.8, color=colours[ri], label=f"{run.label} (flow {f})", drawstyle=step)
                series.append(_Series(x, y, run.label))
            else:  # several flows of several runs: each flow faint, their mean bold in the run's colour
                ax.plot(x, y, lw=0.5, color=colours[ri], alpha=0.25, label="_nolegend_", drawstyle=step)
                series.append(_Series(x, y, f"{run.label}, flow {f}"))
        if not single and len(drawn) > 1:
            x, y = _mean_over_flows(drawn)
            ax.plot(x, y, lw=1.3, color=colours[ri], label=f"{run.label} (mean of {len(drawn)} flows)",
                    drawstyle="steps-post" if kind in ("cwnd", "rate") else "default")
            series.append(_Series(x, y, run.label))
        for sr in series[first:]:
            sr.warm = warm
    if kind == "queue":
        for k, who in ks.items():
            same = len(ks) == 1
            colour = "k" if same else colours[who[0]]
            ax.axhline(k, ls="--", lw=0.8, color=colour, label=f"K = {k:g} pkts" if same else "_nolegend_")
        where = f" at {next(iter(ports_used))}" if len(ports_used) == 1 else ""
        ax.set_ylabel(f"queue{where} (packets)")
        _set_ylim(ax, series, unit=" pkts", xunit=name)
        if ks:  # a threshold above the clipped range would be invisible: keep it in view
            lo_y, hi_y = ax.get_ylim()
            if max(ks) > hi_y:
                ax.set_ylim(lo_y, max(ks) * (1 + Y_HEADROOM))
    elif kind == "alpha":
        ax.set_ylabel("DCTCP alpha")
        ax.set_ylim(0, 1.02)
    else:
        ax.set_ylabel({"cwnd": "cwnd (packets)", "rate": "sending rate (Gb/s)",
                       "throughput": "goodput (Gb/s)"}[kind])
        _set_ylim(ax, series, unit={"cwnd": " pkts", "rate": " Gb/s", "throughput": " Gb/s"}[kind], xunit=name)
    ax.set_xlim(lo * scale, hi * scale)
    ax.set_xlabel(f"time ({name})")
    ax.grid(True, lw=0.3, alpha=0.5)


def _draw_fct_cdf(ax, runs: Sequence[Run], lo: float, hi: float) -> None:
    colours = _colours(len(runs))
    for ri, run in enumerate(runs):
        fl = run.result.flows
        st = fl["start_s"].to_numpy(dtype=float)
        fct = fl["fct_s"].to_numpy(dtype=float)
        keep = np.isfinite(fct) & (st >= lo) & (st <= hi)
        v = np.sort(fct[keep])
        if not len(v):
            continue
        y = np.arange(1, len(v) + 1) / len(v)
        ax.plot(v * 1e3, y, drawstyle="steps-post", lw=1.0, color=colours[ri],
                label=f"{run.label} ({len(v)} flows)" if len(runs) > 1 else f"{len(v)} flows")
    from matplotlib.ticker import FuncFormatter, LogLocator
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_xlabel("flow completion time (ms, log scale)")
    ax.set_ylabel("CDF")
    ax.set_ylim(0, 1.02)
    ax.grid(True, lw=0.3, alpha=0.5, which="both")


def _size_text(b: float) -> str:
    """A flow size for an axis: 1460 -> "1.5K", 2e6 -> "2M" (K = 1000 bytes)."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if b >= div:
            return f"{b / div:.3g}{suffix}"
    return f"{b:.3g}"


def _draw_slowdown(ax, runs: Sequence[Run], lo: float, hi: float) -> None:
    """The standard FCT-slowdown figure (HPCC Fig. 11 style): p50 (solid) and p99 (dashed)
    slowdown per flow-size bin, one colour per run; the bins are 10 equal shares of the first
    run's workload (`slowdown_bin_edges`), applied to every run."""
    from matplotlib.lines import Line2D

    from ccscope.analysis.metrics import slowdown_bin_edges, slowdown_stats
    colours = _colours(len(runs))
    edges = slowdown_bin_edges(runs[0].result)
    ymax = 1.0
    for ri, run in enumerate(runs):
        fl = run.result.flows
        st = fl["start_s"].to_numpy(dtype=float)
        tab = slowdown_stats(fl[(st >= lo) & (st <= hi)], edges_bytes=edges)
        x = tab["bin"].to_numpy()
        done = int(tab["completed"].sum())
        for q, ls in (("p50", "-"), ("p99", "--")):
            y = tab[q].to_numpy(dtype=float)
            ax.plot(x, y, ls=ls, marker="o", ms=3, lw=1.2, color=colours[ri],
                    label=(f"{run.label} ({done} flows)" if len(runs) > 1 else f"{done} flows") if q == "p50" else None)
            if np.isfinite(y).any():
                ymax = max(ymax, float(np.nanmax(y)))
    ax.set_yscale("log")
    ax.set_ylim(0.9, ymax * 1.5)
    # plain numbers on the log axis (1, 2, 5, 10, ...), not 10^0-style labels
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(edges) - 1))
    ax.set_xticklabels([_size_text(b) for b in edges[1:]], fontsize="small")
    ax.set_xlabel("flow size (bytes, upper edge of each bin; bins hold equal shares of the workload's flows)")
    ax.set_ylabel("FCT slowdown (log)")
    ax.grid(True, lw=0.3, alpha=0.5, which="both")
    style = [Line2D([], [], color="0.3", ls="-", marker="o", ms=3, label="p50"),
             Line2D([], [], color="0.3", ls="--", marker="o", ms=3, label="p99")]
    ax.add_artist(ax.legend(handles=style, loc="upper left", fontsize="small", framealpha=0.85))


def pause_intervals(result) -> dict[str, list[tuple[float, float]]]:
    """Per port: the intervals during which at least one class was paused, from the "pfc" trace
    (a pause lasts its quanta x 512 bit times at the port's rate, a refresh extends it, a resume ends
    it; as the engine's paused_s). Intervals still open end at the run's end."""
    ports = result.ports
    rate = dict(zip(ports["name"].astype(str), ports["rate_bps"].to_numpy(dtype=float)))
    end = float(result.summary.get("sim_time_s") or 0.0)
    tr = result.traces["pfc"]
    per_class: dict[tuple[str, int], list[list[float]]] = {}
    for t, p, c, ev, q in zip(tr["time_s"].to_numpy(dtype=float), tr["port"].astype(str), tr["class"].to_numpy(),
                              tr["event"].astype(str), tr["quanta"].to_numpy(dtype=float)):
        iv = per_class.setdefault((p, int(c)), [])
        open_ = bool(iv) and t < iv[-1][1]
        if ev == "resume":
            if open_:
                iv[-1][1] = t
            continue
        until = t + q * 512.0 / rate[p]
        if open_:
            iv[-1][1] = until
        else:
            iv.append([t, until])
    out: dict[str, list[tuple[float, float]]] = {}
    for (p, _), iv in per_class.items():
        out.setdefault(p, []).extend((a, min(b, end) if end > 0 else b) for a, b in iv)
    for p, iv in out.items():  # the union over the port's classes
        iv.sort()
        merged: list[tuple[float, float]] = []
        for a, b in iv:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        out[p] = merged
    return out


def pause_time_by_port(result, lo: float | None = None, hi: float | None = None) -> pd.DataFrame:
    """PFC pause time and frames per port: columns name, paused_s, pause_rx (ports that were never
    paused left out), longest pause first. Without a window, the ports table's whole-run columns;
    with one ([lo, hi], seconds), the "pfc" trace's frames and pauses inside it (PlotInputError when
    the run did not record that trace)."""
    if lo is None and hi is None:
        ports = result.ports
        df = pd.DataFrame({"name": ports["name"].astype(str), "paused_s": ports["paused_s"].to_numpy(dtype=float),
                           "pause_rx": ports["pause_rx"].to_numpy()})
    else:
        if "pfc" not in result.traces:
            raise PlotInputError("--kind pfc with --from/--to reads the 'pfc' trace, which this run did not record; "
                                 "rerun it with --record pfc (or add 'pfc' to [record] traces), or drop the window")
        lo = 0.0 if lo is None else lo
        hi = math.inf if hi is None else hi
        tr = result.traces["pfc"]
        t = tr["time_s"].to_numpy(dtype=float)
        inside = tr[(t >= lo) & (t <= hi)]
        frames = inside["port"].astype(str).value_counts()
        names, paused = [], []
        for p, iv in pause_intervals(result).items():
            names.append(p)
            paused.append(sum(max(0.0, min(b, hi) - max(a, lo)) for a, b in iv))
        df = pd.DataFrame({"name": names, "paused_s": paused})
        df["pause_rx"] = [int(frames.get(n, 0)) for n in names]
    df = df[(df["paused_s"] > 0) | (df["pause_rx"] > 0)]
    return df.sort_values(["paused_s", "name"], ascending=[False, True]).reset_index(drop=True)


def _draw_pfc(ax, runs: Sequence[Run], lo: float | None, hi: float | None) -> None:
    """PFC pause time per port (horizontal bars, one colour per run), the frames received written at
    each bar's end; the ports paused longest in the first run first."""
    colours = _colours(len(runs))
    tables = [pause_time_by_port(r.result, lo, hi) for r in runs]
    order: list[str] = []
    for tab in tables:
        order += [n for n in tab["name"] if n not in order]
    shown = order[:MAX_PORTS_DRAWN]
    top = max((float(t["paused_s"].max()) for t in tables if len(t)), default=0.0)
    unit, scale = _time_unit(top) if top > 0 else ("s", 1.0)
    height = 0.8 / len(runs)
    y = np.arange(len(shown), dtype=float)
    for ri, (run, tab) in enumerate(zip(runs, tables)):
        by = tab.set_index("name")
        vals = np.array([float(by["paused_s"].get(n, 0.0)) * scale for n in shown])
        rx = [int(by["pause_rx"].get(n, 0)) for n in shown]
        pos = y - 0.4 + height * (ri + 0.5)
        ax.barh(pos, vals, height=height * 0.9, color=colours[ri], label=run.label if len(runs) > 1 else None)
        for yy, v, n in zip(pos, vals, rx):
            ax.text(v, yy, f" {n} frames", va="center", fontsize="x-small", color="0.25")
    ax.set_yticks(y)
    ax.set_yticklabels(shown, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlim(0, top * scale * 1.25 if top > 0 else 1.0)
    window = "whole run" if lo is None and hi is None else f"{_time_text(lo or 0.0)} to {_time_text(hi) if hi is not None else 'end'}"
    ax.set_xlabel(f"time paused by PFC ({unit}; at least one class; {window})")
    ax.set_ylabel("port (paused)")
    ax.grid(True, axis="x", lw=0.3, alpha=0.5)
    if len(order) > len(shown):
        ax.set_title(f"{len(shown)} of {len(order)} paused ports (longest paused first)", fontsize="small")
    if not order:
        ax.text(0.5, 0.5, "no port was paused", transform=ax.transAxes, ha="center", va="center")


def plot_runs(runs: Sequence[Run], kinds: Sequence[str] = ("queue", "cwnd"), *, t_from: float | None = None,
              t_to: float | None = None, port: str | None = None, flows: Sequence[int] | None = None,
              title: str | None = None):
    """One figure with a panel per kind (sharing the time axis), one colour per run; returns the Figure.

    runs:   `Run(result, label, source)`; a label of "" is filled from the scenario fields that differ
    kinds:  any of KINDS; the time window [t_from, t_to] (seconds) applies to every time panel and, for
            fct-cdf and slowdown, selects the flows that started in it
    port:   the queue drawn (default: each run's bottleneck; every recorded port for a single run)
    flows:  the flow ids drawn in per-flow panels (default: the first MAX_FLOWS_DRAWN)
    Raises PlotInputError for a kind a run has no data for, a window outside every run, ..."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not runs:
        raise PlotInputError("RUN: give at least one result directory")
    kinds = check_kinds(list(kinds) or ["queue"])
    lo, hi = check_window(t_from, t_to, runs)
    for k in kinds:
        for r in runs:
            check_recorded(k, r)
    if any(not r.label for r in runs):
        auto = legend_labels([r.result for r in runs], [r.source for r in runs])
        runs = [Run(r.result, r.label or a, r.source) for r, a in zip(runs, auto)]
    unit = _time_unit(hi - lo)
    time_kinds = [k for k in kinds if k not in FLOW_KINDS and k not in PORT_KINDS]
    n = len(kinds)
    fig, axes = plt.subplots(n, 1, figsize=(9, 2.9 * n + 0.6), squeeze=False)
    axes = axes[:, 0]
    time_axes = []
    for ax, kind in zip(axes, kinds):
        if kind == "fct-cdf":
            _draw_fct_cdf(ax, runs, lo, hi)
        elif kind == "slowdown":
            _draw_slowdown(ax, runs, lo, hi)
        elif kind == "pfc":
            _draw_pfc(ax, runs, t_from, t_to)
        else:
            _draw_time_kind(ax, kind, runs, lo, hi, unit, port=port, flows=flows)
            time_axes.append(ax)
        handles, labels = ax.get_legend_handles_labels()
        if labels and len(labels) <= 2 * MAX_FLOWS_DRAWN:
            ax.legend(loc="upper right", fontsize="small", ncol=1 if len(labels) <= 5 else 2, framealpha=0.85)
    for ax in time_axes[:-1]:  # shared time axis: labels only under the lowest time panel
        if len(time_kinds) > 1:
            ax.sharex(time_axes[-1])
            ax.tick_params(labelbottom=False)
            ax.set_xlabel("")
    if title is None:
        results = [r.result for r in runs]
        diff = set(differing_fields(results)) if len(runs) > 1 else set()
        title = describe(results[0], exclude=diff)
        if len(runs) > 1:
            title = f"{len(runs)} runs: {title}" if title else f"{len(runs)} runs"
        window = f"{_time_text(lo)} to {_time_text(hi)}"
        title = f"{title}\n(time window {window})" if (t_from is not None or t_to is not None) else title
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig


def load_runs(dirs: Sequence[Any], labels: Sequence[str] = ()) -> list[Run]:
    """Read each `ccscope run --out` directory (`ccscope.load`; ResultError on a damaged one) and pair it
    with its label ("" when none is given: `plot_runs` fills it from the scenarios)."""
    import ccscope as cc

    labels = list(labels)
    if labels and len(labels) != len(dirs):
        few = "fewer" if len(labels) < len(dirs) else "more"
        raise PlotInputError(f"--label: {len(labels)} label{'s' if len(labels) != 1 else ''} for {len(dirs)} "
                             f"run{'s' if len(dirs) != 1 else ''} ({few} labels than runs); give one --label per run "
                             "in the order of the runs, or none (the legend then names the fields that differ)")
    out = []
    for i, d in enumerate(dirs):
        res = cc.load(d)
        out.append(Run(res, labels[i] if labels else "", str(d).rstrip("/") or str(d)))
    return out
