"""Metrics computed from recorded traces: throughput, utilization, loss of utilization, fairness,
convergence, flow completion times, drop bursts, Q/R-plane trajectories and the periodicity index.

Place in the pipeline: `ccscope.simulate` returns a `SimResult` whose `traces[...]`, `flows`,
`ports`, `rounds` and `scenario` these pure numpy/pandas functions read (nothing is re-simulated,
nothing is written back). Definitions follow ALGORITHMS.md §3.3 (P001 measurements), §7.4 (P003
T_r, AFCT), §8 (ccscope-wide metric definitions) and FIGURES.md "Measurement conventions"
(warm-up, utilization, periodicity index).

Conventions used by every function here:
- Times are seconds of simulated time (`_s`), rates bits per second (`_bps`), sizes bytes.
- `start_s` / `end_s` select a window; `start_s=None` means the FIGURES.md warm-up (the first 20 %
  of simulated time, `warmup_s(res)`) wherever a *steady-state* metric is computed, and `end_s=None`
  the end of the run.
- `port=None` means the bottleneck: the first recorded port (`res.summary["bottleneck_port"]`).
- Rates over bins come from the *cumulative* counters of the traces (link `tx_bytes`, delivered
  `received_bytes`), linearly interpolated at the bin edges, so a bin shorter than the recording
  interval (`record.queue_interval_s`, `record.flow_interval_s`) only smears, never invents, bytes.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: FIGURES.md "Measurement conventions": warm-up = first 20 % of simulated time.
WARMUP_FRACTION = 0.2
#: FIGURES.md periodicity index: bin width of the rate series (100 ms).
PI_BIN_S = 0.1
#: FIGURES.md periodicity index: lags searched, 1 s ... 60 s.
PI_MIN_LAG_S = 1.0
PI_MAX_LAG_S = 60.0
#: FIGURES.md periodicity index: PI = 0 when the coefficient of variation is below 1 %.
PI_CV_THRESHOLD = 0.01
#: ALGORITHMS.md §3.3 / E23 [CHOICE]: a new drop burst starts after a drop-free gap > 1 s
#: (shorter than P001's 1.34 s base RTT).
DROP_BURST_GAP_S = 1.0
#: P000 Fig 12 (ALGORITHMS.md §8): windows "within ±10 % of fair share".
CONVERGENCE_TOLERANCE = 0.10
#: Default flow-size buckets for FCT statistics, bytes (upper edges; KB = 1000 B).
FCT_BUCKETS_BYTES = (0.0, 10e3, 100e3, 1e6, 10e6, np.inf)
#: Drop events (the drops trace also holds ECN marks).
DROP_EVENTS = ("drop_overflow", "drop_aqm")

ArrayLike = np.ndarray | Sequence[float] | pd.Series


# --------------------------------------------------------------------------------------------
# helpers


def sim_time_s(res) -> float:
    """Simulated time of the run (seconds)."""
    if "sim_time_s" in res.summary:
        return float(res.summary["sim_time_s"])
    return float(res.meta.get("sim_time_s", res.scenario.get("until_s")))


def warmup_s(res) -> float:
    """FIGURES.md warm-up: the first `WARMUP_FRACTION` (20 %) of simulated time."""
    return float(res.summary.get("warmup_s", WARMUP_FRACTION * sim_time_s(res)))


def bottleneck_port(res) -> str:
    """The bottleneck port name: the first recorded port (same rule as `SimResult.summary`)."""
    name = res.summary.get("bottleneck_port")
    if name:
        return str(name)
    rec = res.ports[res.ports["recorded"]]
    if rec.empty:
        raise ValueError("no recorded port: pass port= explicitly or record a port")
    return str(rec.iloc[0]["name"])


def _port_row(res, port: str | None) -> pd.Series:
    name = bottleneck_port(res) if port is None else port
    rows = res.ports[res.ports["name"] == name]
    if rows.empty:
        raise ValueError(f"port = {name!r}: not a port of this scenario")
    return rows.iloc[0]


def _window(res, start_s: float | None, end_s: float | None, *, warm: bool = True) -> tuple[float, float]:
    t0 = (warmup_s(res) if warm else 0.0) if start_s is None else float(start_s)
    t1 = sim_time_s(res) if end_s is None else float(end_s)
    if not t1 > t0:
        raise ValueError(f"window [{t0}, {t1}] s is empty")
    return t0, t1


def _edges(t0: float, t1: float, bin_s: float) -> np.ndarray:
    """Bin edges t0, t0 + bin_s, ... covering whole bins only (a partial last bin is dropped)."""
    if not bin_s > 0:
        raise ValueError(f"bin_s = {bin_s}: must be > 0")
    n = int(np.floor((t1 - t0) / bin_s + 1e-9))
    if n < 1:
        raise ValueError(f"window [{t0}, {t1}] s is shorter than one bin ({bin_s} s)")
    return t0 + bin_s * np.arange(n + 1)


def _interp_cumulative(t: np.ndarray, c: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A cumulative counter sampled at times t, linearly interpolated at `at` (held constant
    outside the samples: before the first sample the counter is its first value)."""
    if len(t) == 0:
        return np.zeros(len(at))
    return np.interp(at, t, c.astype(float))


def _step_at(t: np.ndarray, v: np.ndarray, at: np.ndarray, *, before: float = 0.0) -> np.ndarray:
    """Sample-and-hold value of a sampled signal at `at` (the last sample at or before)."""
    idx = np.searchsorted(t, at, side="right") - 1
    out = np.where(idx >= 0, v[np.clip(idx, 0, None)] if len(v) else before, before)
    return out.astype(float)


def _port_trace(res, name: str, port: str) -> pd.DataFrame:
    df = res.traces.get(name)
    if df is None or df.empty:
        raise ValueError(f"trace {name!r} is empty: record it (record.traces) to compute this metric")
    g = df[df["port"] == port]
    if g.empty:
        raise ValueError(f"trace {name!r} has no rows for port {port!r}: add it to record.ports")
    return g.sort_values("time_s", kind="stable")


def _series_from_edges(edges: np.ndarray, values: np.ndarray, name: str) -> pd.Series:
    return pd.Series(values, index=pd.Index(edges[:-1], name="time_s"), name=name)


# --------------------------------------------------------------------------------------------
# throughput and utilization


def flow_throughput(res, *, bin_s: float = PI_BIN_S, start_s: float | None = None, end_s: float | None = None,
                    flows: Iterable[int] | None = None, goodput: bool = False) -> pd.DataFrame:
    """Per-flow throughput in bits/s over bins of `bin_s` seconds (ALGORITHMS.md §8: bytes that
    reached the receiver per interval; state the bin: RTT-scale in P003 Fig 3, 100 ms for P001).

    Source: the delivered trace. By default `received_bytes` (distinct bytes that reached the
    receiver in any order), which never exceeds the link rate over a bin; `goodput=True` uses the
    in-order `delivered_bytes` (can lag a loss recovery and then jump). Returns a DataFrame indexed
    by bin start (`time_s`) with one column per flow id; a flow counts 0 before its first sample.
    `start_s=None` means time 0 here (a time series), not the warm-up.
    """
    t0, t1 = _window(res, start_s, end_s, warm=False)
    edges = _edges(t0, t1, bin_s)
    d = res.traces.get("delivered")
    if d is None or d.empty:
        raise ValueError("trace 'delivered' is empty: record it to compute throughput")
    col = "delivered_bytes" if goodput or "received_bytes" not in d else "received_bytes"
    want = None if flows is None else {int(f) for f in flows}
    out = {}
    for f, g in d.groupby("flow", sort=True):
        if want is not None and int(f) not in want:
            continue
        g = g.sort_values("time_s", kind="stable")
        c = _interp_cumulative(g["time_s"].to_numpy(), g[col].to_numpy(), edges)
        c = np.where(edges < g["time_s"].iloc[0], 0.0, c)
        out[int(f)] = np.diff(c) * 8.0 / bin_s
    df = pd.DataFrame(out, index=pd.Index(edges[:-1], name="time_s"))
    df.columns.name = "flow"
    return df


def aggregate_throughput(res, *, bin_s: float = PI_BIN_S, start_s: float | None = None,
                         end_s: float | None = None, flows: Iterable[int] | None = None,
                         goodput: bool = False) -> pd.Series:
    """Sum over flows of `flow_throughput` (bits/s per bin of `bin_s`)."""
    return flow_throughput(res, bin_s=bin_s, start_s=start_s, end_s=end_s, flows=flows,
                           goodput=goodput).sum(axis=1).rename("throughput_bps")


def mean_flow_throughput(res, *, start_s: float | None = None, end_s: float | None = None,
                         goodput: bool = False) -> pd.Series:
    """Mean throughput of each flow (bits/s) over [start_s, end_s] (default: after the 20 %
    warm-up), from the cumulative delivered counters at the window's ends. Indexed by flow id.
    A flow's window starts at max(start_s, its first sample)."""
    t0, t1 = _window(res, start_s, end_s)
    d = res.traces.get("delivered")
    if d is None or d.empty:
        raise ValueError("trace 'delivered' is empty: record it to compute throughput")
    col = "delivered_bytes" if goodput or "received_bytes" not in d else "received_bytes"
    out = {}
    for f, g in d.groupby("flow", sort=True):
        t = g["time_s"].to_numpy()
        a = max(t0, t[0])
        b = min(t1, t[-1])
        if b > a:
            c = _interp_cumulative(t, g[col].to_numpy(), np.array([a, b]))
            out[int(f)] = (c[1] - c[0]) * 8.0 / (b - a)
        else:
            out[int(f)] = np.nan
    return pd.Series(out, name="throughput_bps").rename_axis("flow")


def departure_rate(res, *, port: str | None = None, bin_s: float = PI_BIN_S, start_s: float | None = None,
                   end_s: float | None = None) -> pd.Series:
    """Departure rate of a port (bits/s per bin): bytes sent on the link (link trace `tx_bytes`,
    cumulative) per bin. `port=None` = bottleneck; `start_s=None` = time 0."""
    name = str(_port_row(res, port)["name"])
    t0, t1 = _window(res, start_s, end_s, warm=False)
    edges = _edges(t0, t1, bin_s)
    g = _port_trace(res, "link", name)
    c = _interp_cumulative(g["time_s"].to_numpy(), g["tx_bytes"].to_numpy(), edges)
    return _series_from_edges(edges, np.diff(c) * 8.0 / bin_s, "departure_bps")


def utilization(res, *, port: str | None = None, start_s: float | None = None,
                end_s: float | None = None) -> float:
    """Link utilization (FIGURES.md, ALGORITHMS.md §8): bytes leaving the port in the window ÷
    (line rate × window). Default window: after the 20 % warm-up to the end; `port=None` =
    bottleneck. Uses the link trace when the port is recorded, else the ports table (whole run)."""
    row = _port_row(res, port)
    link = res.traces.get("link")
    if link is None or link.empty or not (link["port"] == row["name"]).any():
        if start_s is not None or end_s is not None:
            raise ValueError(f"port {row['name']!r} is not recorded: a window needs its link trace")
        return float(row["utilization"])
    t0, t1 = _window(res, start_s, end_s)
    g = _port_trace(res, "link", str(row["name"]))
    c = _interp_cumulative(g["time_s"].to_numpy(), g["tx_bytes"].to_numpy(), np.array([t0, t1]))
    return float((c[1] - c[0]) * 8.0 / (float(row["rate_bps"]) * (t1 - t0)))


def ingress_port(res, port: str | None = None) -> str | None:
    """The recorded port feeding `port` (default bottleneck): a recorded port whose link ends at
    `port`'s node and does not come back from `port`'s far end. None when there is not exactly
    one (then `arrival_rate` falls back to conservation)."""
    row = _port_row(res, port)
    p = res.ports
    cand = p[(p["to"] == row["from"]) & (p["from"] != row["to"]) & p["recorded"]]
    return str(cand.iloc[0]["name"]) if len(cand) == 1 else None


def _drop_bytes(res, drops: pd.DataFrame) -> np.ndarray:
    data_b = float(res.scenario.get("packet_bytes", 1500))
    ack_b = float(res.scenario.get("ack_bytes", 40))
    return np.where(drops["is_ack"].to_numpy(dtype=bool), ack_b, data_b)


def drops_at(res, *, port: str | None = None, events: Sequence[str] = DROP_EVENTS, include_acks: bool = True,
             start_s: float | None = None, end_s: float | None = None) -> pd.DataFrame:
    """Rows of the drops trace at `port` (default bottleneck) with `event` in `events`
    (default: both drop kinds, no marks), optionally without ACKs, in [start_s, end_s)."""
    name = str(_port_row(res, port)["name"])
    d = res.traces.get("drops")
    if d is None:
        raise ValueError("trace 'drops' was not recorded")
    sel = (d["port"] == name) & d["event"].isin(list(events))
    if not include_acks:
        sel &= ~d["is_ack"]
    if start_s is not None:
        sel &= d["time_s"] >= start_s
    if end_s is not None:
        sel &= d["time_s"] < end_s
    return d[sel].sort_values("time_s", kind="stable")


def arrival_rate(res, *, port: str | None = None, bin_s: float = PI_BIN_S, start_s: float | None = None,
                 end_s: float | None = None, method: str = "auto", ingress: str | None = None) -> pd.Series:
    """Arrival rate into a port's buffer (bits/s per bin), dropped packets included (P001
    footnote 5, ALGORITHMS.md §3.3). Two sources:

    - `method="ingress"`: departures of the recorded ingress port feeding it (`ingress=` or
      `ingress_port(res, port)`); exact when all of that link's traffic is routed to `port`
      (the periodic topology: M1->M2 feeds M2->M3 and carries only data) and its propagation delay
      is 0 (else the series is shifted by that delay). Packets later dropped at `port` were sent
      on the ingress link, so they are already counted.
    - `method="conservation"`: departures + change of the queue (`queue_bytes`, sample-and-hold
      at bin edges) + bytes dropped at the port in the bin (data = `packet_bytes`, ACK =
      `ack_bytes`; CHOKe victims included, they entered the queue earlier).
    - `method="auto"`: "ingress" when an ingress port is found, else "conservation".
    """
    row = _port_row(res, port)
    name = str(row["name"])
    if method == "auto":
        ingress = ingress or ingress_port(res, name)
        method = "ingress" if ingress else "conservation"
    if method == "ingress":
        ing = ingress or ingress_port(res, name)
        if ing is None:
            raise ValueError(f"no unique recorded ingress port feeds {name!r}: pass ingress= or use method='conservation'")
        return departure_rate(res, port=ing, bin_s=bin_s, start_s=start_s, end_s=end_s).rename("arrival_bps")
    if method != "conservation":
        raise ValueError(f"method = {method!r}: must be 'auto', 'ingress' or 'conservation'")
    t0, t1 = _window(res, start_s, end_s, warm=False)
    edges = _edges(t0, t1, bin_s)
    dep = departure_rate(res, port=name, bin_s=bin_s, start_s=t0, end_s=edges[-1]).to_numpy() * bin_s / 8.0
    q = _port_trace(res, "queue", name)
    qb = _step_at(q["time_s"].to_numpy(), q["queue_bytes"].to_numpy(), edges)
    d = drops_at(res, port=name)
    db = np.histogram(d["time_s"].to_numpy(), bins=edges, weights=_drop_bytes(res, d))[0] if len(d) else np.zeros(len(edges) - 1)
    arr = dep + np.diff(qb) + db
    return _series_from_edges(edges, arr * 8.0 / bin_s, "arrival_bps")


@dataclass
class LossOfUtilization:
    """P001 loss of utilization (fractions; the paper prints percent = 100 × these).

    egress  = 1 - mean departure rate / line rate at the bottleneck (footnote, ALGORITHMS.md §3.3)
    ingress = 1 - mean arrival rate into the bottleneck buffer / egress line rate, arrivals
              including packets later dropped; negative means more arrives than leaves.
    method: how arrivals were measured ("ports_table", "ingress" or "conservation").
    """
    egress: float
    ingress: float
    start_s: float
    end_s: float
    method: str


def loss_of_utilization(res, *, port: str | None = None, start_s: float | None = None,
                        end_s: float | None = None, method: str = "auto",
                        ingress: str | None = None) -> LossOfUtilization:
    """Ingress and egress loss of utilization of P001 (ALGORITHMS.md §3.3) over [start_s, end_s]
    (default after the 20 % warm-up). `method="ports_table"` uses the ports table's whole-run
    totals (`arrivals` and `tx_bytes`; arrivals in packets × `packet_bytes`, window ignored);
    otherwise arrivals come from `arrival_rate(method=...)` over one bin spanning the window."""
    row = _port_row(res, port)
    rate = float(row["rate_bps"])
    if method == "ports_table":
        T = sim_time_s(res)
        eg = 1.0 - float(row["tx_bytes"]) * 8.0 / (rate * T)
        ing = 1.0 - float(row["arrivals"]) * float(res.scenario.get("packet_bytes", 1500)) * 8.0 / (rate * T)
        return LossOfUtilization(egress=eg, ingress=ing, start_s=0.0, end_s=T, method=method)
    t0, t1 = _window(res, start_s, end_s)
    eg = 1.0 - utilization(res, port=str(row["name"]), start_s=t0, end_s=t1)
    if method == "auto":
        ingress = ingress or ingress_port(res, str(row["name"]))
        method = "ingress" if ingress else "conservation"
    arr = arrival_rate(res, port=str(row["name"]), bin_s=t1 - t0, start_s=t0, end_s=t1, method=method,
                       ingress=ingress).iloc[0]
    return LossOfUtilization(egress=float(eg), ingress=float(1.0 - arr / rate), start_s=t0, end_s=t1, method=method)


# --------------------------------------------------------------------------------------------
# fairness and convergence


def jain_index(x: ArrayLike) -> float:
    """Jain's fairness index `(sum x_i)^2 / (n sum x_i^2)` (ALGORITHMS.md §8): 1 for equal shares,
    1/n when one of n takes everything. NaNs are ignored; nan for no data or all zeros."""
    a = np.asarray(x, dtype=float)
    a = a[np.isfinite(a)]
    if a.size == 0:
        return float("nan")
    s2 = float(np.sum(a * a))
    return float(np.sum(a) ** 2 / (a.size * s2)) if s2 > 0 else float("nan")


def throughput_ratio(res, numerator: Any, denominator: Any, *, by: str = "cc", start_s: float | None = None,
                     end_s: float | None = None, per_flow: bool = True) -> float:
    """Throughput ratio T_r = T_a / T_b between two classes of flows (P003 §IV–V, ALGORITHMS.md
    §7.4: T_r = T_dctcp / T_tcp), classes chosen by the flows-table column `by` (default "cc", e.g.
    `throughput_ratio(res, "dctcp", "new_reno")`). T per class is the mean per-flow throughput
    (`per_flow=True`, P003's "mean throughput per protocol") or the class total (`per_flow=False`),
    from `mean_flow_throughput` over [start_s, end_s] (default after the warm-up)."""
    thr = mean_flow_throughput(res, start_s=start_s, end_s=end_s)
    cls = res.flows.set_index("flow")[by].reindex(thr.index)

    def agg(v):
        sel = thr[cls == v]
        if sel.empty:
            raise ValueError(f"no flow with {by} = {v!r}")
        return float(sel.mean() if per_flow else sel.sum())

    den = agg(denominator)
    return agg(numerator) / den if den > 0 else float("inf")


def window_without_inflation(cwnd_trace: pd.DataFrame) -> np.ndarray:
    """cwnd in packets as ns-2 reports `cwnd_`: during fast recovery the window without the dupack
    inflation (ns-2 keeps that in `dupwnd_`), i.e. ssthresh; elsewhere cwnd. Traces without the
    `in_recovery` column are taken as they are."""
    w = cwnd_trace["cwnd_pkts"].to_numpy(dtype=float)
    if "in_recovery" not in cwnd_trace:
        return w
    rec = cwnd_trace["in_recovery"].to_numpy() > 0
    return np.where(rec, cwnd_trace["ssthresh_pkts"].to_numpy(dtype=float), w)


def total_window(res, *, bin_s: float | None = None, start_s: float | None = None,
                 end_s: float | None = None, rwnd_pkts: float | None = None,
                 flows: Iterable[int] | None = None) -> pd.Series:
    """P001 "total wnd" (footnote 2, ALGORITHMS.md §3.3): `sum_i min(cwnd_i, rwnd)` in packets, cwnd as
    ns-2's `cwnd_` (without the fast-recovery inflation: P001's simulator; `window_without_inflation`), on a
    common time grid (default step = record.flow_interval_s, the cwnd trace's interval).
    Each flow's cwnd is sample-and-hold; it counts 0 before its first sample and after its last
    sample plus one interval (a finished flow). `rwnd_pkts=None` takes the scenario's
    tcp.rwnd_pkts (no cap when absent); `start_s=None` = time 0."""
    rec = res.scenario.get("record") or {}
    step = float(bin_s if bin_s is not None else rec.get("flow_interval_s") or PI_BIN_S)
    if rwnd_pkts is None:
        rwnd_pkts = (res.scenario.get("tcp") or {}).get("rwnd_pkts")
    cap = np.inf if rwnd_pkts is None else float(rwnd_pkts)
    t0, t1 = _window(res, start_s, end_s, warm=False)
    grid = t0 + step * np.arange(int(np.floor((t1 - t0) / step + 1e-9)) + 1)
    c = res.traces.get("cwnd")
    if c is None or c.empty:
        raise ValueError("trace 'cwnd' is empty: record it to compute the total window")
    want = None if flows is None else {int(f) for f in flows}
    tot = np.zeros(len(grid))
    interval = float(rec.get("flow_interval_s") or step)
    for f, g in c.groupby("flow", sort=True):
        if want is not None and int(f) not in want:
            continue
        t = g["time_s"].to_numpy()
        w = np.minimum(window_without_inflation(g), cap)
        v = _step_at(t, w, grid + 1e-9)
        v[(grid + 1e-9 < t[0]) | (grid > t[-1] + interval + 1e-9)] = 0.0
        tot += v
    return pd.Series(tot, index=pd.Index(grid, name="time_s"), name="total_window_pkts")


def convergence_time(res, *, signal: str = "cwnd", tolerance: float = CONVERGENCE_TOLERANCE,
                     flows: Iterable[int] | None = None, fair_share: str | float = "steady",
                     bin_s: float | None = None, from_s: float | None = None) -> float:
    """Convergence time (P000 Fig 12, ALGORITHMS.md §8): from the start of the last flow to start
    (the second flow, for two) until every flow's window first lies within ±`tolerance` (10 %) of
    the fair share; nan if that never happens before the end of the run.

    Generalized to n flows (all n inside the band at the same sample) and to throughput
    (`signal="throughput"`: `flow_throughput` over bins of `bin_s`, default the flow-trace
    interval; with `signal="cwnd"` the cwnd trace at its own samples, held between samples).
    Fair share: `"steady"` (default) = the n signals' total averaged over the last 20 % of the
    run, divided by n (P000's fixed fair share (C·d + K)/n, measured; flows that start together
    with equal initial windows are not "converged" at t = 0); `"instant"` = the mean of the n
    signals at each sample; or a constant (packets for cwnd, bits/s for throughput). `from_s`
    overrides the reference start time."""
    fl = res.flows if flows is None else res.flows[res.flows["flow"].isin(list(flows))]
    if len(fl) < 2:
        raise ValueError("convergence needs at least two flows")
    ids = [int(f) for f in fl["flow"]]
    t_ref = float(fl["start_s"].max()) if from_s is None else float(from_s)
    rec = res.scenario.get("record") or {}
    step = float(bin_s if bin_s is not None else rec.get("flow_interval_s") or PI_BIN_S)
    if signal == "throughput":
        df = flow_throughput(res, bin_s=step, start_s=t_ref, flows=ids)
        times = df.index.to_numpy() + step  # a bin's value is known at its end
        vals = df.reindex(columns=ids).fillna(0.0).to_numpy()
    elif signal == "cwnd":
        c = res.traces.get("cwnd")
        if c is None or c.empty:
            raise ValueError("trace 'cwnd' is empty: record it to compute convergence")
        c = c[(c["flow"].isin(ids)) & (c["time_s"] >= t_ref - 1e-12)]
        times = np.unique(c["time_s"].to_numpy())
        cols = []
        for f in ids:
            g = c[c["flow"] == f].sort_values("time_s", kind="stable")
            cols.append(_step_at(g["time_s"].to_numpy(), g["cwnd_pkts"].to_numpy(dtype=float), times, before=np.nan))
        vals = np.column_stack(cols) if cols else np.empty((0, 0))
    else:
        raise ValueError(f"signal = {signal!r}: must be 'cwnd' or 'throughput'")
    if vals.size == 0:
        return float("nan")
    if fair_share == "instant":
        share = np.nanmean(vals, axis=1)
    elif fair_share == "steady":
        tail = times >= times[0] + (1.0 - WARMUP_FRACTION) * (times[-1] - times[0])
        share = np.full(len(times), float(np.nanmean(np.nansum(vals[tail], axis=1))) / vals.shape[1])
    else:
        share = np.full(len(times), float(fair_share))
    with np.errstate(invalid="ignore"):
        ok = np.all(np.abs(vals - share[:, None]) <= tolerance * share[:, None], axis=1) & (share > 0)
    hit = np.flatnonzero(ok)
    return float(times[hit[0]] - t_ref) if hit.size else float("nan")


# --------------------------------------------------------------------------------------------
# flow completion times


def fct_stats(res_or_flows, *, buckets_bytes: Sequence[float] = FCT_BUCKETS_BYTES, by: str | None = None,
              percentiles: Sequence[float] = (50, 95, 99)) -> pd.DataFrame:
    """FCT and AFCT by flow-size bucket (ALGORITHMS.md §8: FCT = first packet sent → last byte
    received, the flows table's `fct_s`; AFCT = mean over a class, per protocol in P003).

    `buckets_bytes` are bucket edges (a flow of size s falls in (lo, hi]); `by` adds a grouping
    column of the flows table (e.g. "cc"). Only finite-size flows count. Columns: flows (finite
    size in the bucket), completed, afct_s, p<q>_fct_s for each percentile, min/max size.
    Accepts a SimResult or a flows DataFrame."""
    flows = res_or_flows if isinstance(res_or_flows, pd.DataFrame) else res_or_flows.flows
    f = flows[np.isfinite(flows["size_bytes"].astype(float))].copy()
    f["size_bucket"] = pd.cut(f["size_bytes"].astype(float), bins=list(buckets_bytes))
    keys = ["size_bucket"] if by is None else [by, "size_bucket"]
    rows = []
    for key, g in f.groupby(keys, observed=True, sort=True):
        done = g["fct_s"].astype(float)
        done = done[np.isfinite(done)]
        r: dict[str, Any] = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        r.update(flows=len(g), completed=len(done), afct_s=float(done.mean()) if len(done) else np.nan)
        for q in percentiles:
            r[f"p{q:g}_fct_s"] = float(np.percentile(done, q)) if len(done) else np.nan
        r.update(min_size_bytes=float(g["size_bytes"].min()), max_size_bytes=float(g["size_bytes"].max()))
        rows.append(r)
    return pd.DataFrame(rows)


def afct(res_or_flows, *, by: str = "cc") -> pd.Series:
    """Average FCT (seconds) of completed flows per class `by` (P003 Fig 7–8: per protocol)."""
    flows = res_or_flows if isinstance(res_or_flows, pd.DataFrame) else res_or_flows.flows
    done = flows[np.isfinite(flows["fct_s"].astype(float))]
    return done.groupby(by, sort=True)["fct_s"].mean().rename("afct_s")


# --------------------------------------------------------------------------------------------
# FCT slowdown by flow-size bin, queue CDF

#: Default number of flow-size bins of the slowdown figure (HPCC Fig. 11 style: deciles).
SLOWDOWN_BINS = 10


def builtin_cdf(name: str) -> list[list[float]]:
    """The points [[bytes, P(size <= bytes)], ...] of a builtin flow-size distribution
    ("websearch", "datamining", "hadoop"; scenarios/cdf/, docs/workloads.md), as the engine
    samples them."""
    from ccscope import _native
    table = dict(_native.cdf_builtins())
    if name not in table:
        raise ValueError(f"builtin = {name!r}: must be one of {', '.join(sorted(table))}")
    return [list(p) for p in table[name]]


def cdf_quantile(points: Sequence[Sequence[float]], q: ArrayLike) -> np.ndarray:
    """Sizes at cumulative probabilities `q` of an empirical CDF as the engine samples it
    (mass points[0][1] at the first size, linear interpolation between points)."""
    pts = np.asarray(points, dtype=float)
    qq = np.asarray(q, dtype=float)
    b, p = pts[:, 0], pts[:, 1]
    out = np.empty(qq.shape)
    for i, u in np.ndenumerate(qq):
        if u <= p[0]:
            out[i] = b[0]
            continue
        k = int(np.searchsorted(p, u, side="left"))
        k = min(max(k, 1), len(p) - 1)
        dp = p[k] - p[k - 1]
        out[i] = b[k] if dp <= 0 else b[k - 1] + (u - p[k - 1]) / dp * (b[k] - b[k - 1])
    return out


def _workload_cdf(scenario: dict) -> list | None:
    """The CDF points of the scenario's Poisson workloads when they all share one cdf size."""
    found = []
    for w in scenario.get("workload") or []:
        size = w.get("size") if isinstance(w, dict) and w.get("kind") == "poisson" else None
        if not isinstance(size, dict) or size.get("kind") != "cdf":
            continue
        found.append(builtin_cdf(size["builtin"]) if size.get("builtin") else size.get("points"))
    if found and all(f == found[0] for f in found):
        return found[0]
    return None


def slowdown_bin_edges(res_or_flows, *, bins: int = SLOWDOWN_BINS, size_cdf: Sequence | None = None) -> np.ndarray:
    """Edges of `bins` flow-size bins holding equal shares of the workload's flows: the
    quantiles 0, 1/bins, ..., 1 of the workload's size distribution — `size_cdf` if given, else
    the scenario's Poisson CDF (one shared `cdf` size, builtin or points), else the sizes of the
    run's flows. Repeated edges (a distribution with an atom, e.g. data mining's 50 % of
    1-packet flows) merge their bins, so fewer bins may come back."""
    if not (isinstance(bins, int) and bins >= 1):
        raise ValueError(f"bins = {bins!r}: must be an integer >= 1")
    q = np.linspace(0.0, 1.0, bins + 1)
    if size_cdf is None and not isinstance(res_or_flows, pd.DataFrame):
        size_cdf = _workload_cdf(res_or_flows.scenario or {})
    if size_cdf is not None:
        edges = cdf_quantile(size_cdf, q)
    else:
        flows = res_or_flows if isinstance(res_or_flows, pd.DataFrame) else res_or_flows.flows
        sizes = flows["size_bytes"].astype(float).to_numpy()
        sizes = sizes[np.isfinite(sizes)]
        if sizes.size == 0:
            raise ValueError("no flow has a size: the slowdown needs flows with size_bytes")
        edges = np.quantile(sizes, q)
    return np.unique(edges)


def slowdown_stats(res_or_flows, *, bins: int = SLOWDOWN_BINS, edges_bytes: Sequence[float] | None = None,
                   size_cdf: Sequence | None = None, percentiles: Sequence[float] = (50, 95, 99),
                   by: str | None = None) -> pd.DataFrame:
    """FCT slowdown (the flows table's `slowdown` = fct_s / ideal_fct_s, docs/workloads.md) of
    completed flows by flow-size bin: `edges_bytes` if given, else `slowdown_bin_edges` (10 bins
    of equal workload share). A flow of size s is in bin k when edges[k] < s <= edges[k+1] (the
    first bin also holds s = edges[0]; sizes outside the edges are left out). `by` adds a
    grouping column (e.g. "cc").

    Columns: bin, lo_bytes, hi_bytes, flows (with a size in the bin), completed, mean, then
    p<q> for each percentile (the slowdown; NaN for a bin without a completed flow).
    Accepts a SimResult or a flows DataFrame (give edges_bytes or size_cdf, or it uses the
    flows' sizes)."""
    flows = res_or_flows if isinstance(res_or_flows, pd.DataFrame) else res_or_flows.flows
    if "slowdown" not in flows:
        raise ValueError("the flows table has no slowdown column (a result saved before ccscope computed it: "
                         "rerun the scenario)")
    edges = (np.unique(np.asarray(edges_bytes, dtype=float)) if edges_bytes is not None
             else slowdown_bin_edges(res_or_flows, bins=bins, size_cdf=size_cdf))
    if len(edges) < 2:
        edges = np.array([edges[0], edges[0]]) if len(edges) else np.array([0.0, np.inf])
    size = flows["size_bytes"].astype(float).to_numpy()
    k = np.searchsorted(edges, size, side="left") - 1
    k = np.where(size == edges[0], 0, k)
    inside = np.isfinite(size) & (k >= 0) & (k < len(edges) - 1)
    f = flows.assign(_bin=k)[inside]
    groups = [(None, f)] if by is None else list(f.groupby(by, sort=True))
    rows = []
    for key, g in groups:
        for b in range(len(edges) - 1):
            gb = g[g["_bin"] == b]
            sd = gb["slowdown"].astype(float).to_numpy()
            sd = sd[np.isfinite(sd)]
            r: dict[str, Any] = {} if by is None else {by: key}
            r.update(bin=b, lo_bytes=float(edges[b]), hi_bytes=float(edges[b + 1]), flows=len(gb),
                     completed=len(sd), mean=float(sd.mean()) if len(sd) else np.nan)
            for q in percentiles:
                r[f"p{q:g}"] = float(np.percentile(sd, q)) if len(sd) else np.nan
            rows.append(r)
    return pd.DataFrame(rows)


def queue_cdf(res, *, port: str | None = None, unit: str = "pkts", start_s: float | None = None,
              end_s: float | None = None) -> pd.DataFrame:
    """Time-weighted CDF of the queue at `port` (default: the bottleneck) over [start_s, end_s]
    (default: after the warm-up): each queue sample holds until the next one (sample-and-hold,
    exact for `record.queue_every_change`). Columns: queue_<unit> (sorted distinct values),
    fraction (of the window's time the queue was at most that). unit: "pkts" or "bytes"."""
    if unit not in ("pkts", "bytes"):
        raise ValueError(f"unit = {unit!r}: must be 'pkts' or 'bytes'")
    t0, t1 = _window(res, start_s, end_s)
    name = bottleneck_port(res) if port is None else port
    q = _port_trace(res, "queue", name)
    t = q["time_s"].to_numpy(dtype=float)
    v = q[f"queue_{unit}"].to_numpy(dtype=float)
    # the pieces [t_i, t_{i+1}) cut to the window; before the first sample the queue is empty
    starts = np.concatenate(([t0], t[(t > t0) & (t < t1)]))
    ends = np.concatenate((starts[1:], [t1]))
    vals = _step_at(t, v, starts)
    dur = ends - starts
    col = f"queue_{unit}"
    df = pd.DataFrame({col: vals, "dur": dur}).groupby(col, sort=True)["dur"].sum()
    return pd.DataFrame({col: df.index.to_numpy(), "fraction": np.cumsum(df.to_numpy()) / (t1 - t0)})


# --------------------------------------------------------------------------------------------
# drops: bursts (congestion epochs), multi-drop counts, inter-drop times


def drop_bursts(res, *, port: str | None = None, gap_s: float = DROP_BURST_GAP_S,
                events: Sequence[str] = DROP_EVENTS, include_acks: bool = False,
                start_s: float | None = None, end_s: float | None = None) -> pd.DataFrame:
    """Drops at `port` (default bottleneck) grouped into bursts (congestion epochs; P001 Fig 6,
    ALGORITHMS.md §3.3): a new burst starts after a drop-free gap > `gap_s` (1 s, [CHOICE] E23).
    Default: data drops of both kinds, whole run (`start_s=None` = time 0).

    One row per burst: burst, start_s, end_s, drops, flows (flows that lost >= 1 packet),
    multi_drop_flows (flows that lost >= 2 packets: P001's multi-drop count)."""
    d = drops_at(res, port=port, events=events, include_acks=include_acks, start_s=start_s, end_s=end_s)
    return group_drop_bursts(d["time_s"].to_numpy(), d["flow"].to_numpy(), gap_s=gap_s)


def group_drop_bursts(time_s: ArrayLike, flow: ArrayLike, *, gap_s: float = DROP_BURST_GAP_S) -> pd.DataFrame:
    """`drop_bursts` on plain arrays (drop times and flow ids, any order)."""
    t = np.asarray(time_s, dtype=float)
    fl = np.asarray(flow)
    cols = ["burst", "start_s", "end_s", "drops", "flows", "multi_drop_flows"]
    if t.size == 0:
        return pd.DataFrame({c: pd.Series(dtype=float if c.endswith("_s") else np.int64) for c in cols})
    o = np.argsort(t, kind="stable")
    t, fl = t[o], fl[o]
    bid = np.concatenate([[0], np.cumsum(np.diff(t) > gap_s)])
    df = pd.DataFrame({"burst": bid, "time_s": t, "flow": fl})
    per_flow = df.groupby(["burst", "flow"]).size()
    g = df.groupby("burst")["time_s"]
    out = pd.DataFrame({"start_s": g.min(), "end_s": g.max(), "drops": g.size(),
                        "flows": per_flow.groupby(level=0).size(),
                        "multi_drop_flows": (per_flow >= 2).groupby(level=0).sum()})
    return out.reset_index().astype({"drops": np.int64, "flows": np.int64, "multi_drop_flows": np.int64})[cols]


def multi_drop_histogram(res, *, port: str | None = None, gap_s: float = DROP_BURST_GAP_S,
                         start_s: float | None = None, end_s: float | None = None) -> pd.Series:
    """P001 Fig 6: number of bursts (index = flows that lost >= 2 packets in the burst, 0 ..
    max) from `drop_bursts`."""
    b = drop_bursts(res, port=port, gap_s=gap_s, start_s=start_s, end_s=end_s)
    if b.empty:
        return pd.Series(dtype=np.int64, name="bursts")
    h = np.bincount(b["multi_drop_flows"].to_numpy(dtype=np.int64))
    return pd.Series(h, index=pd.RangeIndex(len(h), name="multi_drop_flows"), name="bursts")


def inter_drop_times(res, *, port: str | None = None, per_flow: bool = False,
                     events: Sequence[str] = DROP_EVENTS, include_acks: bool = False,
                     start_s: float | None = None, end_s: float | None = None) -> pd.DataFrame:
    """Inter-drop times (P001 Fig 10, ALGORITHMS.md §3.3): gaps between consecutive drops at the
    link (`per_flow=False`), or between consecutive drops of the same flow (`per_flow=True`).
    Returns a DataFrame with `gap_s` (and `flow` when per flow), one row per gap; feed it to a
    histogram for the distribution."""
    d = drops_at(res, port=port, events=events, include_acks=include_acks, start_s=start_s, end_s=end_s)
    if not per_flow:
        return pd.DataFrame({"gap_s": np.diff(d["time_s"].to_numpy(dtype=float))})
    parts = []
    for f, g in d.groupby("flow", sort=True):
        gaps = np.diff(g["time_s"].to_numpy(dtype=float))
        parts.append(pd.DataFrame({"flow": np.full(len(gaps), int(f)), "gap_s": gaps}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({"flow": [], "gap_s": []})


# --------------------------------------------------------------------------------------------
# Q/R plane


def qr_trajectory(res, *, port: str | None = None, flows: Iterable[int] | None = None,
                  start_s: float | None = None, end_s: float | None = None) -> pd.DataFrame:
    """Q/R-plane trajectory of QCN / ASM (P002 §2.2–2.3, ALGORITHMS.md §4.3): queue at `port`
    (default bottleneck) against the aggregate sending rate of the rate-limited flows, at common
    sample times (the rate trace's times; queue sample-and-hold at those times).

    Columns: time_s, queue_pkts, queue_bytes, rate_bps (sum of `rate_bps` over flows, each held
    from its last sample, 0 before the first), rate_excess_bps = rate_bps - line rate (P002's
    A - C axis). `start_s=None` = time 0."""
    row = _port_row(res, port)
    r = res.traces.get("rate")
    if r is None or r.empty:
        raise ValueError("trace 'rate' is empty: Q/R needs rate-based flows (qcn/asm) with the rate trace recorded")
    if flows is not None:
        r = r[r["flow"].isin([int(f) for f in flows])]
    t0, t1 = _window(res, start_s, end_s, warm=False)
    r = r[(r["time_s"] <= t1)]
    times = np.unique(r["time_s"].to_numpy())
    times = times[times >= t0]
    agg = np.zeros(len(times))
    for _, g in r.groupby("flow", sort=True):
        g = g.sort_values("time_s", kind="stable")
        agg += _step_at(g["time_s"].to_numpy(), g["rate_bps"].to_numpy(dtype=float), times)
    q = _port_trace(res, "queue", str(row["name"]))
    qt = q["time_s"].to_numpy()
    return pd.DataFrame({"time_s": times,
                         "queue_pkts": _step_at(qt, q["queue_pkts"].to_numpy(), times),
                         "queue_bytes": _step_at(qt, q["queue_bytes"].to_numpy(), times),
                         "rate_bps": agg, "rate_excess_bps": agg - float(row["rate_bps"])})


# --------------------------------------------------------------------------------------------
# periodicity index


def autocorrelation(x: ArrayLike, max_lag: int) -> np.ndarray:
    """Normalized autocorrelation of `x` with its mean removed, lags 0..max_lag:
    r(k) = [sum_t (x_t - m)(x_{t+k} - m) / (N - k)] / [sum_t (x_t - m)^2 / N]
    (the per-lag averaged estimator: a pure periodic signal gives r ≈ 1 at its period for every
    lag, not shrunk by (N - k)/N). Computed by FFT; r(0) = 1."""
    a = np.asarray(x, dtype=float)
    a = a - a.mean()
    n = a.size
    max_lag = int(min(max_lag, n - 1))
    nfft = 1 << int(np.ceil(np.log2(2 * n)))
    spec = np.fft.rfft(a, nfft)
    acov = np.fft.irfft(spec * np.conj(spec), nfft)[: max_lag + 1]
    var = acov[0] / n
    if var <= 0:
        return np.full(max_lag + 1, np.nan)
    return acov / (n - np.arange(max_lag + 1)) / var


def periodicity_index(x: ArrayLike, *, dt_s: float = PI_BIN_S, min_lag_s: float = PI_MIN_LAG_S,
                      max_lag_s: float = PI_MAX_LAG_S, cv_threshold: float = PI_CV_THRESHOLD,
                      quantum: float | None = None) -> float:
    """Periodicity index (FIGURES.md "Measurement conventions", used by `periodic`): the maximum,
    over lags `min_lag_s`..`max_lag_s` (1–60 s), of the normalized autocorrelation
    (`autocorrelation`) of a series sampled every `dt_s` (100 ms bins) with its mean removed.
    PI = 0 when the coefficient of variation std/|mean| < `cv_threshold` (1 %: a queue that never
    empties drains at exactly line rate). Periodic means PI >= 0.5, flat PI <= 0.2.

    `quantum` (series units, e.g. one packet per bin = packet_bytes·8/dt_s bits/s): PI = 0 also
    when std < quantum [CHOICE]. Packet counts per bin are integers, so a link busy at exactly line
    rate gives a deterministic floor/ceil pattern (1.5 Mb/s, 1000 B, 100 ms: 18 or 19 packets,
    period 4 bins, CV 2.3 % > 1 %) whose ACF is ≈ 1; fluctuations within one packet per bin are
    granularity, not rate variation. `periodicity()` sets it for rate signals.

    Lags are capped at half the series length so each lag averages at least N/2 products (a
    shorter series searches fewer lags). `x` is equally spaced (e.g. `departure_rate`,
    `arrival_rate`, `total_window` after the warm-up); NaNs are not allowed."""
    a = np.asarray(x, dtype=float)
    if a.size < 4 or not np.all(np.isfinite(a)):
        raise ValueError("periodicity_index needs a finite series of at least 4 samples")
    m = float(a.mean())
    sd = float(a.std())
    if sd == 0.0 or (m != 0.0 and sd / abs(m) < cv_threshold) or (quantum is not None and sd < quantum):
        return 0.0
    lo = max(1, int(np.ceil(min_lag_s / dt_s - 1e-9)))
    hi = min(int(np.floor(max_lag_s / dt_s + 1e-9)), a.size // 2)
    if hi < lo:
        raise ValueError(f"series of {a.size} samples × {dt_s} s is too short for lags ≥ {min_lag_s} s")
    r = autocorrelation(a, hi)
    return float(np.max(r[lo:hi + 1]))


def periodicity(res, *, signal: str = "arrival", port: str | None = None, bin_s: float = PI_BIN_S,
                start_s: float | None = None, end_s: float | None = None, **kw) -> float:
    """Periodicity index of a recorded series after the warm-up (default 20 %): `signal` is
    "arrival" (ingress arrival rate into the bottleneck buffer, `arrival_rate`), "departure"
    (`departure_rate`) or "total_window" (`total_window`, P001's total wnd). Extra keywords go to
    `periodicity_index` (min_lag_s, max_lag_s, cv_threshold, quantum); for the rate signals
    `quantum` defaults to one data packet per bin (packet_bytes·8/bin_s), for the total window to
    None."""
    t0, t1 = _window(res, start_s, end_s)
    if signal in ("arrival", "departure"):
        kw.setdefault("quantum", float(res.scenario.get("packet_bytes", 1500)) * 8.0 / bin_s)
    if signal == "arrival":
        s = arrival_rate(res, port=port, bin_s=bin_s, start_s=t0, end_s=t1)
    elif signal == "departure":
        s = departure_rate(res, port=port, bin_s=bin_s, start_s=t0, end_s=t1)
    elif signal == "total_window":
        s = total_window(res, bin_s=bin_s, start_s=t0, end_s=t1)
    else:
        raise ValueError(f"signal = {signal!r}: must be 'arrival', 'departure' or 'total_window'")
    return periodicity_index(s.to_numpy(), dt_s=bin_s, **kw)


__all__ = [
    "LossOfUtilization", "afct", "aggregate_throughput", "arrival_rate", "autocorrelation", "bottleneck_port",
    "convergence_time", "departure_rate", "drop_bursts", "drops_at", "fct_stats", "flow_throughput",
    "group_drop_bursts", "ingress_port", "inter_drop_times", "jain_index", "loss_of_utilization",
    "mean_flow_throughput", "multi_drop_histogram", "periodicity", "periodicity_index", "qr_trajectory",
    "sim_time_s", "throughput_ratio", "total_window", "utilization", "warmup_s",
]
