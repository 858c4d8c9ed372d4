"""Short text and HTML views of results for the REPL and Jupyter.

`SimResult`, `FluidResult` and `SweepTable` call these from `__repr__` (a few lines: what ran, how
long, the flows, the traces with their row counts, the summary's headline) and `_repr_html_` (the
same as a table plus a small inline PNG plot). Nothing here makes a table a DataFrame that was not
one already, except for drawing the plot of the HTML view; matplotlib is imported only then.
"""
from __future__ import annotations

import base64
import html
import io
import math
from typing import Any, Mapping

#: Size of the inline plot of an HTML view, inches at PLOT_DPI.
PLOT_SIZE_IN = (5.0, 1.9)
PLOT_DPI = 80
#: Series drawn at most in the inline plot (flows, ports).
PLOT_SERIES = 8
#: Rows of a sweep's aggregate table shown in its HTML view.
SWEEP_ROWS = 12

#: Summary keys of a packet run shown as its headline, with their label and unit formatter.
_HEADLINE = (("bottleneck_port", "bottleneck", "text"), ("bottleneck_utilization", "utilization", "pct"),
             ("queue_mean_pkts", "queue mean", "pkts"), ("queue_p99_pkts", "queue p99", "pkts"),
             ("throughput_mean_bps", "throughput mean", "bps"), ("jain_fairness", "fairness", "num"),
             ("fct_mean_s", "FCT mean", "s"), ("fct_p99_s", "FCT p99", "s"), ("drops", "drops", "int"),
             ("marks", "marks", "int"))


def _num(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return "nan"
    return f"{f:.4g}"


def _si(v: Any, unit: str) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not math.isfinite(f):
        return f"{f} {unit}"
    for scale, p in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(f) >= scale:
            return f"{f / scale:.4g} {p}{unit}"
    return f"{f:.4g} {unit}"


def seconds(v: Any) -> str:
    """A duration with a readable unit: 0.2 -> '200 ms'."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not math.isfinite(f):
        return str(f)
    a = abs(f)
    if a == 0 or a >= 1:
        return f"{f:.4g} s"
    if a >= 1e-3:
        return f"{f * 1e3:.4g} ms"
    if a >= 1e-6:
        return f"{f * 1e6:.4g} us"
    return f"{f * 1e9:.4g} ns"


def _fmt(v: Any, how: str) -> str:
    if how == "text":
        return str(v)
    if how == "pct":
        try:
            return f"{float(v) * 100:.1f} %"
        except (TypeError, ValueError):
            return str(v)
    if how == "pkts":
        return f"{_num(v)} pkts"
    if how == "bps":
        return _si(v, "b/s")
    if how == "s":
        return seconds(v)
    return _num(v)


# --------------------------------------------------------------------------- packet runs

def trace_rows(res) -> dict[str, int]:
    """{trace name: rows} of a SimResult without making any trace a DataFrame."""
    from ccscope.result import Traces, _rows
    if res._traces is None:
        return {n: _rows(c) for n, c in (res._cols.get("traces") or {}).items()}
    tr = res._traces
    if isinstance(tr, Traces):
        out = {}
        for n, df in tr._frames.items():
            if df is not None:
                out[n] = len(df)
            elif n in tr._spilled:
                out[n] = tr._spilled[n].rows
            else:
                out[n] = _rows(tr._lazy.get(n) or {})
        return out
    return {n: len(df) for n, df in dict(tr).items()}


def _flow_count(res) -> int | None:
    s = res.summary or {}
    if isinstance(s.get("flows"), int):
        return s["flows"]
    lazy = res._cols.get("flows") if res._flows is None else None
    if lazy is not None:
        from ccscope.result import _rows
        return _rows(lazy)
    if res._flows is not None:
        return len(res._flows)
    return None


def sim_headline(res) -> list[tuple[str, str]]:
    """(label, value) pairs of a run's headline: duration, flows, then the summary keys it has."""
    s = res.summary or {}
    out = [("simulated", seconds(s.get("sim_time_s", (res.meta or {}).get("sim_time_s", float("nan")))))]
    n = _flow_count(res)
    if n is not None:
        out.append(("flows", str(n)))
    if "warmup_s" in s:
        out.append(("warm-up", seconds(s["warmup_s"])))
    for key, label, how in _HEADLINE:
        if key in s and s[key] is not None:
            out.append((label, _fmt(s[key], how)))
    meta = res.meta or {}
    if "seed" in meta:
        out.append(("seed", str(meta["seed"])))
    if meta.get("partial"):
        out.append(("partial", "yes (the run was stopped early)"))
    return out


def sim_text(res) -> str:
    name = (res.scenario or {}).get("name") or "(unnamed)"
    head = dict(sim_headline(res))
    rows = trace_rows(res)
    first = f"<SimResult {name!r}: {head.pop('simulated')} simulated"
    if "flows" in head:
        first += f", {head.pop('flows')} flows"
    lines = [first + ">"]
    lines.append("  traces: " + (", ".join(f"{n} ({r} rows)" for n, r in rows.items()) or "none recorded"))
    lines.append("  summary: " + ", ".join(f"{k} {v}" for k, v in head.items()))
    lines.append("  tables: .flows .ports .rounds .traces[name] .summary .scenario; plot: ccscope.plot.plot_result")
    return "\n".join(lines)


def _table_html(rows: list[tuple[str, str]], caption: str = "") -> str:
    cap = f"<caption style='text-align:left;font-weight:bold'>{html.escape(caption)}</caption>" if caption else ""
    body = "".join(f"<tr><th style='text-align:left;white-space:nowrap'>{html.escape(k)}</th><td style='text-align:left'>"
                   f"{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<table>{cap}{body}</table>"


def png_data_uri(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=PLOT_DPI)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _small_figure():
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    fig = Figure(figsize=PLOT_SIZE_IN, dpi=PLOT_DPI)
    ax = fig.add_subplot(1, 1, 1)
    ax.tick_params(labelsize=7)
    return fig, ax


def _sim_plot(res) -> str | None:
    """An inline PNG of the bottleneck queue (else the cwnd of the first flows), or None."""
    rows = trace_rows(res)
    fig = None
    if rows.get("queue"):
        q = res.traces["queue"]
        port = (res.summary or {}).get("bottleneck_port")
        ports = list(dict.fromkeys(q["port"].astype(str)))
        ports = [port] if port in ports else ports[:PLOT_SERIES]
        fig, ax = _small_figure()
        for p in ports:
            d = q[q["port"].astype(str) == p]
            ax.plot(d["time_s"] * 1e3, d["queue_pkts"], lw=0.8, label=p)
        ax.set_ylabel("queue (pkts)", fontsize=7)
    elif rows.get("cwnd"):
        c = res.traces["cwnd"]
        fig, ax = _small_figure()
        for fl in list(dict.fromkeys(c["flow"]))[:PLOT_SERIES]:
            d = c[c["flow"] == fl]
            ax.plot(d["time_s"] * 1e3, d["cwnd_pkts"], lw=0.8, label=f"flow {fl}")
        ax.set_ylabel("cwnd (pkts)", fontsize=7)
    if fig is None:
        return None
    ax.set_xlabel("time (ms)", fontsize=7)
    ax.legend(fontsize=6, loc="upper right")
    fig.tight_layout(pad=0.3)
    return png_data_uri(fig)


def sim_html(res) -> str:
    name = (res.scenario or {}).get("name") or "(unnamed)"
    rows = trace_rows(res)
    head = sim_headline(res)
    head.append(("traces", ", ".join(f"{n} ({r} rows)" for n, r in rows.items()) or "none recorded"))
    uri = _sim_plot(res)
    img = f"<img alt='queue' src='{uri}'>" if uri else ""
    return (f"<div><b>SimResult</b> {html.escape(repr(name))}"
            f"<div style='display:flex;gap:1em;align-items:flex-start'>{_table_html(head)}{img}</div></div>")


# --------------------------------------------------------------------------- fluid models

def _params_text(params: Mapping[str, Any]) -> str:
    def one(v: Any) -> str:
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(_num(x) for x in list(v)[:4]) + (", ..." if len(v) > 4 else "") + "]"
        return _num(v)
    return ", ".join(f"{k}={one(v)}" for k, v in params.items())


def fluid_headline(fr) -> list[tuple[str, str]]:
    t = fr.traces
    tcol = t.columns[0] if len(t.columns) else "time_s"
    out = [("status", "ok" if fr.success else f"failed: {fr.message}")]
    if len(t):
        span = float(t[tcol].iloc[-1] - t[tcol].iloc[0])
        out.append(("time", seconds(span) if tcol == "time_s" else f"{span:.4g} ({tcol})"))
    out.append(("rows", str(len(t))))
    out.append(("columns", ", ".join(str(c) for c in t.columns[1:])))
    lc = fr.limit_cycle
    if lc is not None:
        per = seconds(lc.period) if tcol == "time_s" else _num(lc.period)
        out.append(("limit cycle", f"q {_num(lc.q_min)} to {_num(lc.q_max)}, period {per}, throughput "
                                   f"{_num(lc.throughput)}, {lc.n_periods} periods"
                                   + ("" if lc.periodic else " (not periodic)")))
    if fr.params:
        out.append(("params", _params_text(fr.params)))
    return out


def fluid_text(fr) -> str:
    head = dict(fluid_headline(fr))
    lines = [f"<FluidResult ({head.pop('status')}): {head.pop('time', 'no rows')}, {head.pop('rows')} rows>"]
    lines += [f"  {k}: {v}" for k, v in head.items()]
    return "\n".join(lines)


def fluid_html(fr) -> str:
    t = fr.traces
    img = ""
    if len(t) and len(t.columns) > 1:
        fig, ax = _small_figure()
        tcol = t.columns[0]
        scale, xl = (1e3, "time (ms)") if tcol == "time_s" else (1.0, tcol)
        col = next((c for c in t.columns[1:] if str(c).startswith("queue")), t.columns[1])
        ax.plot(t[tcol] * scale, t[col], lw=0.8)
        ax.set_xlabel(xl, fontsize=7)
        ax.set_ylabel(str(col), fontsize=7)
        fig.tight_layout(pad=0.3)
        img = f"<img alt='{html.escape(str(col))}' src='{png_data_uri(fig)}'>"
    return (f"<div><b>FluidResult</b><div style='display:flex;gap:1em;align-items:flex-start'>"
            f"{_table_html(fluid_headline(fr))}{img}</div></div>")


# --------------------------------------------------------------------------- sweeps

def sweep_html(t) -> str:
    kind = f"fluid {t.fluid}" if t.fluid else "packet"
    head = [("kind", kind), ("rows", str(len(t.table))), ("points", str(len(t.points()))),
            ("parameters", ", ".join(t.params) or "(none)"), ("metrics", ", ".join(t.metrics))]
    if t.failed:
        head.append(("failed", f"{t.failed} run(s) left out"))
    if t.out_dir is not None:
        head.append(("directory", str(t.out_dir)))
    parts = [f"<div><b>SweepTable</b>{_table_html(head)}"]
    metric = next((m for m in ("bottleneck_utilization", "queue_mean_pkts", "q_max_pkts") if m in t.metrics),
                  t.metrics[0] if t.metrics else None)
    if metric is not None and t.params and len(t.table):
        agg = t.agg(metric)
        shown = agg.head(SWEEP_ROWS)
        parts.append(shown.to_html(index=False, float_format=lambda v: f"{v:.4g}", border=0))
        if len(agg) > SWEEP_ROWS:
            parts.append(f"<p>... {len(agg) - SWEEP_ROWS} more rows: <code>.agg({metric!r})</code></p>")
        varied = [p for p in t.params if t.table[p].nunique(dropna=False) > 1]  # a fluid sweep lists its defaults
        x = (varied or t.params)[0]
        fig, ax = _small_figure()
        others = [p for p in varied if p != x]
        groups = agg.groupby(others, sort=True) if others else [((), agg)]
        for i, (key, g) in enumerate(groups):
            if i >= PLOT_SERIES:
                break
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{p}={_num(v)}" for p, v in zip(others, key)) or None
            g = g.sort_values(x)
            ax.errorbar(g[x], g[f"{metric}_mean"], yerr=g[f"{metric}_ci95"].fillna(0), marker="o", ms=3,
                        lw=0.8, capsize=2, label=label)
        ax.set_xlabel(x, fontsize=7)
        ax.set_ylabel(metric, fontsize=7)
        if others:
            ax.legend(fontsize=6)
        fig.tight_layout(pad=0.3)
        parts.append(f"<img alt='{html.escape(metric)} against {html.escape(x)}' src='{png_data_uri(fig)}'>")
    parts.append("</div>")
    return "".join(parts)
