"""CLI commands of the fluid models: `ccscope fluid dctcp|hybrid|qcn|asm|tcp-red|dcqcn|timely`, `ccscope guide
dctcp`, `ccscope stability qcn|dx|asm|tcp-red|dcqcn` (each with `-o file.png|pdf|svg` for a plot, written atomically).

`register(app)` adds them to the main typer app (called by ccscope.cli). Every option is taken as a
string and parsed with ccscope.units so that bad input gives ONE line on stderr and exit status 2
("error: --rate '10Gbs': unknown unit ..."), never a traceback. Library code never prints; this does.
"""
from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from typing import TypeVar

import typer

from ccscope.units import parse_fraction, parse_rate, parse_size, parse_time

T = TypeVar("T")

#: Exit status for bad command-line input (click's usage-error convention).
EXIT_USAGE = 2


class _BadInput(Exception):
    pass


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_USAGE)


def _parse(option: str, value: str, parser: Callable[[str], T], allowed: str) -> T:
    try:
        out = parser(value)
    except (ValueError, ZeroDivisionError) as exc:
        detail = str(exc) if "allowed" in str(exc) else f"{exc}; allowed: {allowed}"
        raise _BadInput(f"{option} {value!r}: {detail}") from None
    if isinstance(out, float) and not math.isfinite(out):
        raise _BadInput(f"{option} {value!r}: must be finite; allowed: {allowed}")
    return out


def _positive(option: str, value: str, parser: Callable[[str], float], allowed: str) -> float:
    out = _parse(option, value, parser, allowed)
    if out <= 0:
        raise _BadInput(f"{option} {value!r}: must be > 0; allowed: {allowed}")
    return out


def _count(option: str, value: str) -> int:
    def parse_int(text: str) -> int:
        v = float(text)
        if v != int(v):
            raise ValueError("must be a whole number")
        return int(v)

    out = _parse(option, value, parse_int, "a whole number >= 1")
    if out < 1:
        raise _BadInput(f"{option} {value!r}: must be >= 1; allowed: a whole number >= 1")
    return out


def _g(value: str) -> float:
    g = _parse("--g", value, parse_fraction, "a number or fraction in (0, 1], e.g. 1/16")
    if not 0 < g <= 1:
        raise _BadInput(f"--g {value!r}: must lie in (0, 1]; allowed: a number or fraction in (0, 1], e.g. 1/16")
    return g


def _run(body: Callable[[], None]) -> None:
    """Run a command body, turning input and model errors into one stderr line + exit 2."""
    try:
        body()
    except _BadInput as exc:
        _fail(str(exc))
    except ValueError as exc:  # model-level validation names the parameter
        _fail(str(exc).splitlines()[0])


#: Plot formats accepted by `-o` (matplotlib writers that need no extra package).
PLOT_FORMATS = ("png", "pdf", "svg")


class _OutPath(str):
    """The `-o` path of a fluid/stability command, carrying its `--force`."""
    force: bool = False


def _out(path: str | None, force: bool) -> "_OutPath | None":
    if not path:
        return None
    o = _OutPath(path)
    o.force = force
    return o


def _check_out(out: str | None) -> None:
    """Reject an unusable `-o` before any work: unknown suffix, a directory, or an existing file that
    is not a figure ccscope wrote (unless --force); a missing folder is created when writing."""
    if not out:
        return
    from ccscope import _outdir
    ext = os.path.splitext(out)[1].lstrip(".").lower()
    if ext not in PLOT_FORMATS:
        raise _BadInput(f"-o {out!r}: unknown plot format {ext or '(none)'!r}; allowed: a file name ending in "
                        + ", ".join(f".{e}" for e in PLOT_FORMATS))
    try:
        _outdir.check_figure(out, force=getattr(out, "force", False))
    except _outdir.OutputRefused as e:
        raise _BadInput(e.cli("-o")) from None


def _save(fig, out: str | None) -> None:
    """Write the figure atomically (ccscope._outdir rules: a temporary file renamed over `out`)."""
    if out:
        from ccscope import _outdir
        _check_out(out)
        fig.tight_layout()
        ext = os.path.splitext(out)[1].lstrip(".").lower()
        try:
            with _outdir.sigterm_as_exit(), _outdir.atomic_file(out) as tmp:
                with open(tmp, "wb") as fh:
                    fig.savefig(fh, format=ext, dpi=120)
        except _outdir.OutputRefused as e:
            raise _BadInput(e.cli("-o")) from None
        typer.echo(f"wrote {out}")


def _agg() -> None:
    """Plots from the CLI never need a display."""
    import matplotlib

    matplotlib.use("Agg")


def _prob(option: str, value: str) -> float:
    allowed = "a number in (0, 1), e.g. 0.01"
    v = _parse(option, value, parse_fraction, allowed)
    if not 0 < v < 1:
        raise _BadInput(f"{option} {value!r}: must lie in (0, 1); allowed: {allowed}")
    return v


def _nonneg(option: str, value: str, parser: Callable[[str], float], allowed: str) -> float:
    out = _parse(option, value, parser, allowed)
    if out < 0:
        raise _BadInput(f"{option} {value!r}: must be >= 0; allowed: {allowed}")
    return out


#: `--backend` values: the compiled solver (default), the numpy reference, JAX (optional).
BACKENDS = ("native", "numpy", "jax")
BACKEND_HELP = "native (compiled, default), numpy (the reference) or jax"
#: the options of the commands that solve a model (--backend) and write a plot (-o, --force)
BACKEND_OPT = typer.Option("native", "--backend", help=BACKEND_HELP)
OUT_OPT = typer.Option(None, "-o", "--out", help="write a plot (png/pdf/svg)")
FORCE_OPT = typer.Option(False, "--force", help="replace a file at -o that is not a figure ccscope wrote")


def _backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise _BadInput(f"--backend {backend!r}: allowed: {', '.join(BACKENDS)}")
    return backend


RATE = "a rate such as 10Gbps, 100Mbps or 1e10"
TIME = "a time such as 100us, 50ms or 1e-4"


def _fluid_dctcp(n: str, rate: str, rtt: str, k: str, g: str, until: str, normalized: bool, wbar: str | None,
                 poincare: bool, backend: str, out: str | None) -> None:
    from ccscope.fluid.dctcp import DctcpFluid, DctcpNormalized

    gv = _g(g)
    _backend(backend)
    _check_out(out)
    if normalized:
        if wbar is None:
            raise _BadInput("--wbar: required with --normalized; allowed: a number > 0 (mean window, pkts)")
        wb = _positive("--wbar", wbar, float, "a number > 0 (mean window, pkts)")
        model = DctcpNormalized(wb, gv)
        fp = model.fixed_point()
        typer.echo(f"normalized DCTCP (P000 eqs 11-14): wbar = {wb:g}, g = {gv:g}")
        if fp is not None:
            typer.echo(f"fixed point (wbar <= 2): W~ = {fp['window_pkts']:g}, alpha~ = 1, q~ = {fp['queue_norm']:.4f}")
            return
        if poincare:
            r = model.poincare()
            mods = ", ".join(f"{abs(m):.4f}" for m in r.multipliers)
            fd = ", ".join(f"{abs(m):.4f}" for m in r.multipliers_fd)
            typer.echo(f"fixed point on S (q~ = 0, downward): W~ = {r.w_star:.4f}, alpha~ = {r.alpha_star:.4f}")
            typer.echo(f"half-periods: 1 + h_a = {1 + r.h_a:.4f}, 1 + h_b = {1 + r.h_b:.4f}; period = {r.period:.4f} R*")
            typer.echo(f"Qmin = {r.q_min:.4f}, Qmax = {r.q_max:.4f} (units of C R*)")
            typer.echo(f"Floquet multipliers |.| (variational eq., E8): {mods}; finite differences: {fd}")
            typer.echo(f"spectral radius = {r.spectral_radius:.4f} -> {'stable' if r.stable else 'UNSTABLE'} (Theorem 1)")
        else:
            cyc = model.limit_cycle(backend=backend)
            typer.echo(f"limit cycle: Qmin = {cyc.q_min:.4f}, Qmax = {cyc.q_max:.4f}, period = {cyc.period:.4f} R*")
        if out:
            from ccscope.plot.fluid import phase_portrait

            res = model.solve(200.0, backend=backend)
            ax = phase_portrait(res.traces)
            ax.set_title(f"normalized DCTCP, wbar = {wb:g}, g = {gv:g}")
            _save(ax.figure, out)
        return
    nv = _count("--n", n)
    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    rtt_s = _positive("--rtt", rtt, parse_time, TIME)
    k_pkts = _parse("--k", k, float, "a number of packets >= 0")
    if k_pkts < 0:
        raise _BadInput(f"--k {k!r}: must be >= 0; allowed: a number of packets >= 0")
    until_s = _positive("--until", until, parse_time, TIME)
    model = DctcpFluid(nv, rate_bps, rtt_s, k_pkts, g=gv)
    res = model.solve(until_s, backend=backend)
    cyc = res.limit_cycle
    typer.echo(f"DCTCP fluid (P000 eqs 5-8): N = {nv}, C = {model.c_pps:,.0f} pkts/s, d = {rtt_s * 1e6:g} us, "
               f"K = {k_pkts:g}, g = {gv:g}; R* = {model.r_star_s[0] * 1e6:.1f} us, wbar = {model.wbar:.2f}")
    if model.fixed_point() is not None:
        fp = model.fixed_point()
        typer.echo(f"wbar <= 2: fixed point W = 2, alpha = 1, q = 2N - Cd = {fp['queue_pkts']:.1f} pkts")
    if cyc.periodic:
        typer.echo(f"limit cycle (second half of the run): q in [{cyc.q_min:.1f}, {cyc.q_max:.1f}] pkts, "
                   f"period {cyc.period * 1e3:.3f} ms ({cyc.period / model.r_star_s[0]:.2f} R*), "
                   f"throughput {100 * cyc.throughput:.2f}%")
    else:
        last = res.traces.iloc[-1]
        typer.echo(f"no oscillation detected; final W = {last.window_pkts:.2f} pkts, alpha = {last.alpha:.3f}, "
                   f"q = {last.queue_pkts:.1f} pkts")
    if out:
        from ccscope.plot.fluid import dctcp_panels

        axes = dctcp_panels(res.traces, k_pkts=k_pkts)
        axes[0].set_title(f"DCTCP fluid model, N = {nv}, K = {k_pkts:g}, g = {gv:g}")
        _save(axes[0].figure, out)


def _guide_dctcp(rate: str, rtt: str) -> None:
    from ccscope.analysis.guidelines import dctcp_guidelines

    gd = dctcp_guidelines(_positive("--rate", rate, parse_rate, RATE), _positive("--rtt", rtt, parse_time, TIME))
    typer.echo(f"K = {gd.k_pkts:.1f} pkts;  {gd.g_min:.4f} <= g <= {gd.g_max:.4f}   (P000 eqs 1-2)")
    for line in gd.reasoning:
        typer.echo(f"  - {line}")


def _stability_qcn(rate: str, flows: str, out: str | None = None) -> None:
    from ccscope.fluid.qcn import qcn_bound

    rate_bps, n = _positive("--rate", rate, parse_rate, RATE), _count("--flows", flows)
    _check_out(out)
    b = qcn_bound(rate_bps, n)
    typer.echo(f"QCN (P002 App. A, corrected per E33): N = {b.n_flows:g}, p = 0.01, w = 2, Gd = 1/128, R_AI = 5 Mb/s")
    typer.echo(f"unstable for feedback delay >= {b.bound_s * 1e6:.2f} us (eq 17 bound); "
               f"exact delay margin of the linear loop {b.delay_margin_s * 1e6:.2f} us "
               f"(crossover {b.crossover_rad_s:.1f} rad/s)")
    if out:
        _agg()
        from ccscope.plot.fluid import qcn_delay_margin

        import numpy as np

        rates = np.geomspace(min(1e9, rate_bps / 3), max(400e9, 3 * rate_bps), 16)   # ~1/C: 16 points suffice
        _save(qcn_delay_margin(n, rates_bps=rates, mark_rate_bps=rate_bps).figure, out)


def _stability_dx(rate: str, flows: str, rtt: str, out: str | None = None) -> None:
    from ccscope.fluid.dx import equilibrium, max_stable_r0, min_stable_flows

    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    n = _count("--flows", flows)
    r0 = _positive("--rtt", rtt, parse_time, TIME)
    _check_out(out)
    e = equilibrium(n, rate_bps, r0)
    typer.echo(f"DX (P004, p = 0.95, seg = 1500 B, tau = R0): N = {n}, C = {rate_bps / 1e9:g} Gb/s, R0 = {r0 * 1e6:g} us")
    typer.echo(f"equilibrium: Q0 = {e.q0_s * 1e6:.3f} us, W0 = {e.w0_bytes:.1f} B; crossover {e.crossover_rad_s:.1f} rad/s")
    typer.echo(f"Theorem 1 bound (sign fix E50): tau < {e.bound_s * 1e6:.2f} us (printed form gives "
               f"{e.bound_printed_s * 1e6:.2f} us) -> {'stable' if e.stable else 'not guaranteed stable'} at tau = R0")
    typer.echo(f"stable from N >= {min_stable_flows(rate_bps, r0):.2f} flows at this R0; "
               f"up to R0 = {max_stable_r0(n, rate_bps) * 1e6:.2f} us at this N")
    state = "applies" if e.special_state else "does not apply"
    typer.echo(f"special stable state (Theorem 2, N >= C R0/seg = {e.special_threshold_flows:.2f}): {state}"
               + (f"; W* = 1 seg, Q* = {e.special_queue_s * 1e6:.2f} us" if e.special_state else ""))
    if out:
        _agg()
        from ccscope.plot.fluid import dx_stability_region

        _save(dx_stability_region(rate_bps, r0, n_max=1.5 * n, mark_n=n).figure, out)


ASM_SETS = ("A", "S", "compliant")


def _asm_gains(name: str) -> dict:
    from ccscope.fluid.asm import GAINS_A, GAINS_S, W_ASM

    if name == "A":
        return dict(GAINS_A)
    if name == "S":
        return dict(GAINS_S)
    if name == "compliant":
        return {**GAINS_S, "b_minus": 2 * W_ASM * GAINS_S["a_minus"]}
    raise _BadInput(f"--gains {name!r}: allowed: {', '.join(ASM_SETS)} (§5.1 approach set, sliding set, "
                    "sliding set with b- = 2 w a-)")


def _stability_asm(rate: str, w: str, p: str, out: str | None) -> None:
    from ccscope.fluid.asm import sliding_condition

    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    wv = _positive("--w", w, float, "a number > 0 (feedback weight, P002 §5.1: 32)")
    pv = _prob("--p", p)
    _check_out(out)
    typer.echo(f"ASM sliding condition (P002 ineq. 15 via eq 28, E39), w = {wv:g}, p = {pv:g}, "
               f"C = {rate_bps / 1e9:g} Gb/s; gains in units of C/128 per pkt")
    sets = {}
    for name in ASM_SETS:
        g = _asm_gains(name)
        c = sliding_condition(g["a_plus"], g["a_minus"], g["b_plus"], g["b_minus"], w=wv, p=pv, rate_bps=rate_bps)
        state = "satisfied" if c.satisfied else ("marginal (w a- = b-), not satisfied" if c.marginal else "NOT satisfied")
        typer.echo(f"  set {name}: M(a-, b-) = {float(c.m_minus):.4g}, M(a+, b+) = {float(c.m_plus):.4g}; "
                   f"needs b- > {float(c.b_minus_required):.4g} (b- = {float(g['b_minus']):.4g}) -> {state}")
        sets[f"set {name}"] = g
    if out:
        _agg()
        from ccscope.plot.fluid import asm_sliding_region

        _save(asm_sliding_region(w=wv, p=pv, gain_sets=sets).figure, out)


def _fluid_qcn(rate: str, flows: str, delay: str, qeq: str | None, feedback: str, until: str, backend: str,
               out: str | None) -> None:
    from ccscope.fluid.qcn import FEEDBACK_MODES, qcn_fluid

    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    n = _count("--flows", flows)
    delay_s = _nonneg("--delay", delay, parse_time, TIME + " (0 = no delay)")
    qeq_pkts = None if qeq is None else _positive("--qeq", qeq, float, "a number of frames > 0 (default 26 KB)")
    if feedback not in FEEDBACK_MODES:
        raise _BadInput(f"--feedback {feedback!r}: allowed: linear (App. A, every sample acts), "
                        "negative (802.1Qau, CNMs only while congested)")
    until_s = _positive("--until", until, parse_time, TIME)
    _backend(backend)
    _check_out(out)
    m = qcn_fluid(rate_bps, n, delay_s=delay_s, qeq_pkts=qeq_pkts, feedback=feedback)
    b = m.bound
    typer.echo(f"QCN fluid (P002 eqs 1, 4-8; App. A model, E33): N = {n}, C = {m.c_pps:,.0f} frames/s, "
               f"Qeq = {m.qeq_pkts:.2f} frames, delay = {delay_s * 1e6:g} us, feedback = {feedback}")
    typer.echo(f"App. A: delay margin {b.delay_margin_s * 1e6:.2f} us, eq 17 bound {b.bound_s * 1e6:.2f} us -> "
               + ("delay beyond the margin: expect sustained oscillation" if delay_s > b.delay_margin_s
                  else "delay within the margin: expect convergence to (Qeq, C)"))
    typer.echo("start: empty queue, every flow at 1.5 C/N")
    res = m.solve(until_s, r0_bps=1.5 * rate_bps / n, backend=backend)
    cyc, last = res.limit_cycle, res.traces.iloc[-1]
    if cyc.periodic:
        typer.echo(f"oscillation (second half): q in [{cyc.q_min:.2f}, {cyc.q_max:.2f}] frames, "
                   f"period {cyc.period * 1e3:.3f} ms")
    else:
        typer.echo(f"no oscillation period in the second half; final q = {last.queue_pkts:.3f} frames, "
                   f"aggregate rate = {last.aggregate_rate_bps / 1e9:.4f} Gb/s, "
                   f"target rate R_T = {last.target_rate_pps * m.frame_bytes * 8 / 1e9:.4f} Gb/s per flow")
    if out:
        _agg()
        import matplotlib.pyplot as plt

        from ccscope.plot.fluid import q_r_plane, time_series

        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        q_r_plane(res.traces, c_pps=m.c_pps, w=m.w, p=m.p, ax=axes[0])
        axes[0].set_xlabel("q - Qeq (frames)")
        axes[0].set_ylabel("A - C (frames/s)")
        axes[0].set_title("Q/R plane (P002 Fig 2)", fontsize=9)
        time_series(res.traces, "queue_pkts", ax=axes[1])
        axes[1].axhline(m.qeq_pkts, color="grey", ls="--", lw=0.8, label="Qeq")
        axes[1].set_ylabel("queue (frames)")
        axes[1].set_title(f"QCN fluid, N = {n}, delay {delay_s * 1e6:g} us", fontsize=9)
        _save(fig, out)


def _fluid_asm(rate: str, delay: str, q0: str, gains: str, until: str, backend: str, out: str | None) -> None:
    from ccscope.fluid.asm import asm_fluid

    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    delay_s = _nonneg("--delay", delay, parse_time, TIME + " (0 = no delay)")
    q0_pkts = _positive("--q0", q0, float, "a number of packets > 0")
    g = _asm_gains(gains)
    _backend(backend)
    _check_out(out)
    m = asm_fluid(rate_bps, gains=g, delay_s=delay_s, q0_pkts=q0_pkts)
    tau = 1 / m.sliding_rate_per_s
    until_s = 8 * tau if until is None else _positive("--until", until, parse_time, TIME)
    if delay_s > 0 and tau / 2000 > delay_s:
        raise _BadInput(f"--delay {delay!r}: must be 0 or >= {tau / 2000 * 1e9:.3g} ns (one integration step)")
    import numpy as np

    th = 2 * np.pi * np.arange(4) / 4 + np.pi / 4
    res = m.solve(q0_pkts * np.cos(th), 0.5 * m.c_pps * np.sin(th), until_s=until_s, backend=backend)
    state = "satisfied" if m.condition.satisfied else ("marginal" if m.condition.marginal else "not satisfied")
    typer.echo(f"ASM fluid (P002 eq 26, App. D delay): C = {rate_bps / 1e9:g} Gb/s, gains {gains}, ineq. 15 {state}; "
               f"sliding time constant w/(pC) = {tau * 1e3:.4g} ms; delay {delay_s * 1e6:g} us")
    fin = res.traces.groupby("traj").queue_offset_pkts.last().abs()
    typer.echo(f"4 starts on the circle (q0, 0.5 C): |q - q0| after {until_s * 1e3:.3g} ms: "
               + ", ".join(f"{v:.3g}" for v in fin) + " pkts")
    if out:
        _agg()
        from ccscope.plot.fluid import q_r_plane

        ax = q_r_plane(res.traces, c_pps=m.c_pps, w=m.w, p=m.p)
        ax.set_title(f"ASM fluid, {gains} gains, delay {delay_s * 1e6:g} us (P002 Figs 3-4)", fontsize=9)
        _save(ax.figure, out)


def _tcp_red_model(flows: str, rate: str, rtt: str, min_th: str, max_th: str, max_p: str, wq: str):
    """Parse the TCP/RED options, build the model and print its equilibrium and Hollot's condition."""
    from ccscope.fluid.tcp_red import tcp_red

    n = _count("--flows", flows)
    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    tp_s = _positive("--rtt", rtt, parse_time, TIME)
    lo = _nonneg("--min-th", min_th, float, "a number of packets >= 0")
    hi = _parse("--max-th", max_th, float, "a number of packets > --min-th")
    if hi <= lo:
        raise _BadInput(f"--max-th {max_th!r}: must be > --min-th ({lo:g}); allowed: a number of packets > --min-th")
    mp = _prob("--max-p", max_p)
    w_q = _prob("--wq", wq)
    m = tcp_red(n, rate_bps, tp_s, min_th_pkts=lo, max_th_pkts=hi, max_p=mp, w_q=w_q)
    e = m.eq
    typer.echo(f"TCP/RED fluid (Misra-Gong-Towsley; Hollot et al. 2001): N = {n}, C = {m.c_pps:,.1f} pkts/s (1000 B), "
               f"Tp = {tp_s:g} s, RED [{lo:g}, {hi:g}] max_p {mp:g} w_q {w_q:g}")
    ramp = "" if e.on_ramp else " (NOT on the RED ramp: p0 > max_p, no equilibrium there)"
    typer.echo(f"equilibrium: W0 = {e.w0_pkts:.3f} pkts, p0 = {e.p0:.5f}, q0 = {e.q0_pkts:.2f} pkts, "
               f"R0 = {e.r0_s:.4f} s{ramp}")
    typer.echo(f"loop gain {e.dc_gain:.4g} vs sqrt(wg^2/K^2 + 1) = {e.hollot_rhs:.6g}: Proposition 1 "
               f"{'holds (stable)' if e.hollot_stable else 'fails'}; exact delay margin "
               + ("inf (gain < 1)" if math.isinf(e.delay_margin_s) else f"{e.delay_margin_s:.4g} s")
               + f" -> linear loop {'stable' if e.linear_stable else 'UNSTABLE'}")
    return m, n, lo, hi


def _fluid_tcp_red(flows: str, rate: str, rtt: str, min_th: str, max_th: str, max_p: str, wq: str, until: str,
                   backend: str, out: str | None) -> None:
    until_s = _positive("--until", until, parse_time, TIME)
    _backend(backend)
    _check_out(out)
    m, n, lo, hi = _tcp_red_model(flows, rate, rtt, min_th, max_th, max_p, wq)
    e = m.eq
    res = m.solve(until_s, backend=backend)
    cyc, last = res.limit_cycle, res.traces.iloc[-1]
    if cyc.periodic:
        typer.echo(f"oscillation (second half): q in [{cyc.q_min:.1f}, {cyc.q_max:.1f}] pkts, period {cyc.period:.3g} s, "
                   f"utilization {100 * cyc.throughput:.1f}%")
    else:
        typer.echo(f"no oscillation period in the second half; final W = {last.window_pkts:.3f} pkts, "
                   f"q = {last.queue_pkts:.2f} pkts, p = {last.p:.5f}")
    if out:
        _agg()
        from ccscope.plot.fluid import red_panels

        axes = red_panels(res.traces, q0_pkts=e.q0_pkts)
        axes[0].set_title(f"TCP/RED fluid, N = {n}, RED [{lo:g}, {hi:g}]", fontsize=9)
        _save(axes[0].figure, out)


SIZE = "a size such as 5KB, 200KB or 1e4 (bytes)"


def _dcqcn_model(rate: str, flows: str, delay: str, kmin: str, kmax: str, pmax: str, rai: str):
    """Parse the DCQCN options and build the model (Zhu et al., CoNEXT 2016, Fig. 1)."""
    from ccscope.fluid.dcqcn import DcqcnFluid

    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    n = _count("--flows", flows)
    delay_s = _positive("--delay", delay, parse_time, TIME)
    kmin_b = _nonneg("--kmin", kmin, parse_size, SIZE)
    kmax_b = _positive("--kmax", kmax, parse_size, SIZE)
    if kmax_b <= kmin_b:
        raise _BadInput(f"--kmax {kmax!r}: must be > --kmin ({kmin_b:g} B); allowed: {SIZE} above --kmin")
    pm = _parse("--pmax", pmax, parse_fraction, "a number in (0, 1], e.g. 0.01")
    if not 0 < pm <= 1:
        raise _BadInput(f"--pmax {pmax!r}: must lie in (0, 1]; allowed: a number in (0, 1], e.g. 0.01")
    rai_bps = _positive("--rai", rai, parse_rate, RATE)
    return DcqcnFluid(rate_bps, n, delay_s=delay_s, kmin_bytes=kmin_b, kmax_bytes=kmax_b, pmax=pm, r_ai_bps=rai_bps)


def _dcqcn_header(m) -> None:
    fp, pm = m.fixed_point(), m.phase_margin()
    bits = m.packet_bytes * 8
    typer.echo(f"DCQCN fluid (Zhu et al. CoNEXT 2016, Fig. 1 eqs 3-7): N = {m.n_flows:g}, C = {m.rate_bps / 1e9:g} Gb/s, "
               f"tau* = {m.delay_s * 1e6:g} us, RED [{m.kmin_bytes / 1e3:g} KB, {m.kmax_bytes / 1e3:g} KB] "
               f"Pmax {m.pmax:g}, R_AI = {m.r_ai_bps / 1e6:g} Mb/s")
    ramp = "" if fp.on_ramp else " (p* > Pmax: beyond Kmax, NOT on the RED ramp; eq 9 does not hold)"
    typer.echo(f"fixed point (Theorem 1, eq 11): p* = {fp.p:.5g} (eq 13 approx {fp.p_approx:.5g}), "
               f"q* = {fp.q_pkts:.2f} pkts of {m.packet_bytes:g} B, R_C* = C/N = {fp.rc_pps * bits / 1e9:.4g} Gb/s, "
               f"alpha* = {fp.alpha:.4f}{ramp}")
    typer.echo(f"phase margin (App. A loop) at tau* = {m.delay_s * 1e6:g} us: {pm.degrees:.2f} deg -> "
               f"{'stable' if pm.stable else 'UNSTABLE'}")


def _fluid_dcqcn(rate, flows, delay, kmin, kmax, pmax, rai, until, backend, out) -> None:
    until_s = _positive("--until", until, parse_time, TIME)
    be = _backend(backend)
    _check_out(out)
    m = _dcqcn_model(rate, flows, delay, kmin, kmax, pmax, rai)
    _dcqcn_header(m)
    res = m.solve(until_s, backend=be)
    cyc, last = res.limit_cycle, res.traces.iloc[-1]
    bits = m.packet_bytes * 8
    if cyc.periodic:
        typer.echo(f"oscillation (second half): q in [{cyc.q_min:.1f}, {cyc.q_max:.1f}] pkts, period "
                   f"{cyc.period * 1e3:.3f} ms, utilization {100 * cyc.throughput:.2f}%")
    else:
        typer.echo(f"no oscillation in the second half; final q = {last.queue_pkts:.2f} pkts, "
                   f"R_C = {last.rc0_bps / 1e9:.4f} Gb/s per flow, alpha = {last.alpha0:.4f}")
    if out:
        _agg()
        import matplotlib.pyplot as plt

        from ccscope.plot.fluid import time_series

        fig, axes = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
        time_series(res.traces, "rc0_bps", ax=axes[0])
        axes[0].axhline(m.fixed_point().rc_pps * bits, color="grey", ls="--", lw=0.8)
        axes[0].set_ylabel("R_C per flow (b/s)")
        axes[0].set_title(f"DCQCN fluid, N = {m.n_flows:g}, tau* = {m.delay_s * 1e6:g} us", fontsize=9)
        time_series(res.traces, "queue_pkts", ax=axes[1])
        axes[1].axhline(m.fixed_point().q_pkts, color="grey", ls="--", lw=0.8)
        axes[1].set_ylabel("queue (pkts)")
        _save(fig, out)


def _stability_dcqcn(rate, flows, delay, kmin, kmax, pmax, rai, out) -> None:
    _check_out(out)
    m = _dcqcn_model(rate, flows, delay, kmin, kmax, pmax, rai)
    _dcqcn_header(m)
    from ccscope.fluid.dcqcn import jacobian_stable

    stable, root = jacobian_stable(m)
    if not m.fixed_point().on_ramp:
        typer.echo("exact linearization of eqs 3-7: not applicable (no fixed point on the RED ramp; the paper's "
                   "loop above assumes the ramp's slope)")
    else:
        typer.echo(f"exact linearization of eqs 3-7: rightmost root {root.real:.4g} {root.imag:+.4g}j 1/s -> "
                   f"{'stable' if stable else 'UNSTABLE'}")
    if out:
        _agg()
        import matplotlib.pyplot as plt

        from ccscope.fluid.dcqcn import DcqcnFluid

        ns = list(range(2, 101, 2))
        fig, ax = plt.subplots(figsize=(6, 4))
        for d in (1e-6, 50e-6, 100e-6, m.delay_s):
            pms = [DcqcnFluid(m.rate_bps, n, delay_s=d, kmin_bytes=m.kmin_bytes, kmax_bytes=m.kmax_bytes,
                              pmax=m.pmax, r_ai_bps=m.r_ai_bps).phase_margin().degrees for n in ns]
            ax.plot(ns, pms, label=f"{d * 1e6:g} us delay")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel("number of flows N")
        ax.set_ylabel("phase margin (deg)")
        ax.set_title("DCQCN phase margin (Zhu et al. 2016, Fig. 3)", fontsize=9)
        ax.legend(fontsize=8)
        _save(fig, out)


def _fluid_timely(rate: str, rates: str, until: str, modified: bool, out: str | None) -> None:
    from ccscope.fluid.timely import TimelyFluid

    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    starts = [_positive("--rates", r.strip(), parse_rate, RATE + " per flow, comma-separated")
              for r in rates.split(",") if r.strip()]
    if not starts:
        raise _BadInput(f"--rates {rates!r}: give at least one rate; allowed: {RATE} per flow, comma-separated")
    until_s = _positive("--until", until, parse_time, TIME)
    _check_out(out)
    m = TimelyFluid(rate_bps, strict=not modified)
    res = m.solve(until_s, starts)
    pr = res.params
    typer.echo(f"TIMELY fluid (Zhu et al. CoNEXT 2016, eqs 19-23{', eq 27' if modified else ''}): C = {rate_bps / 1e9:g} "
               f"Gb/s, {len(starts)} flows starting at " + ", ".join(f"{r / 1e9:g}" for r in starts) + " Gb/s")
    typer.echo("mean rates over the second half: "
               + ", ".join(f"{pr[f'mean_r{j}_bps'] / 1e9:.3f}" for j in range(len(starts)))
               + f" Gb/s (total {pr['mean_total_bps'] / 1e9:.3f} Gb/s); queue {pr['q_min_pkts']:.1f}-"
               f"{pr['q_max_pkts']:.1f} pkts (mean {pr['q_mean_pkts']:.1f})")
    typer.echo("no unique fixed point (Theorems 3-4): the split between flows depends on where they started")
    if out:
        _agg()
        import matplotlib.pyplot as plt

        from ccscope.plot.fluid import time_series

        fig, axes = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
        for j in range(len(starts)):
            time_series(res.traces, f"r{j}_bps", ax=axes[0], label=f"flow {j}")
        axes[0].set_ylabel("rate (b/s)")
        axes[0].legend(fontsize=8)
        axes[0].set_title("TIMELY fluid model", fontsize=9)
        time_series(res.traces, "queue_pkts", ax=axes[1])
        axes[1].set_ylabel("queue (pkts)")
        _save(fig, out)


def register(app: typer.Typer) -> None:
    """Add `fluid`, `guide` and `stability` command groups to the main app."""
    fluid_app = typer.Typer(no_args_is_help=True, help="Fluid models of the papers (DDEs, limit cycles, Poincare maps).")
    guide_app = typer.Typer(no_args_is_help=True, help="Parameter guidelines with their reasoning.")
    stab_app = typer.Typer(no_args_is_help=True, help="Closed-form stability bounds.")

    @fluid_app.command("dctcp")
    def fluid_dctcp(
        n: str = typer.Option("10", "--n", help="number of flows N"),
        rate: str = typer.Option("10Gbps", "--rate", help="bottleneck rate C, e.g. 10Gbps"),
        rtt: str = typer.Option("100us", "--rtt", help="propagation RTT d, e.g. 100us"),
        k: str = typer.Option("65", "--k", help="marking threshold K (pkts)"),
        g: str = typer.Option("1/16", "--g", help="EWMA gain g in (0, 1], e.g. 1/16"),
        until: str = typer.Option("50ms", "--until", help="simulated time, e.g. 50ms"),
        normalized: bool = typer.Option(False, "--normalized", help="use the normalized model (eqs 11-14)"),
        wbar: str | None = typer.Option(None, "--wbar", help="normalized model: mean window (Cd+K)/N, pkts"),
        poincare: bool = typer.Option(False, "--poincare", help="normalized model: fixed point and Floquet multipliers"),
        backend: str = BACKEND_OPT,
        out: str | None = OUT_OPT,
        force: bool = FORCE_OPT,
    ) -> None:
        """DCTCP fluid model (P000): q(t), W(t), alpha(t) and the limit cycle; or the normalized model."""
        _run(lambda: _fluid_dctcp(n, rate, rtt, k, g, until, normalized, wbar, poincare, backend, _out(out, force)))

    @fluid_app.command("hybrid")
    def fluid_hybrid(
        w_max: str = typer.Option("200", "--wmax", help="Cd + K in pkts"),
        g: str = typer.Option("1/16", "--g", help="EWMA gain g"),
    ) -> None:
        """Hybrid model (P000 eqs 19-21), Fig 12 start W = (Wmax-1, 1), alpha = (0, 1): convergence time."""
        def body() -> None:
            from ccscope.fluid.dctcp_hybrid import dctcp_hybrid

            wm = _positive("--wmax", w_max, float, "a number of packets > 2")
            gv = _g(g)
            model = dctcp_hybrid([wm - 1, 1], [0, 1], w_max_pkts=wm, g=gv)
            r, rate = model.run(), model.rate()
            typer.echo(f"converged (both windows within +-10% of {r.w_star_pkts:g}) after {r.convergence_time_rtt:.1f} RTT")
            typer.echo(f"alpha* = {rate.alpha_star:.5f}, gamma = {rate.gamma:.6f}, beta = min(g, gamma) = {rate.beta:.6f}, "
                       f"beta_TCP/beta = {rate.beta_tcp_ratio:.3f} (E6)")
        _run(body)

    @fluid_app.command("qcn")
    def fluid_qcn(
        rate: str = typer.Option("10Gbps", "--rate", help="link rate C"),
        flows: str = typer.Option("10", "--flows", help="number of flows N"),
        delay: str = typer.Option("0", "--delay", help="feedback delay tau, e.g. 100us (0: none)"),
        qeq: str | None = typer.Option(None, "--qeq", help="queue set point Qeq in frames (default 26 KB)"),
        feedback: str = typer.Option("linear", "--feedback", help="linear (App. A) or negative (802.1Qau CNMs)"),
        until: str = typer.Option("100ms", "--until", help="simulated time"),
        backend: str = BACKEND_OPT,
        out: str | None = OUT_OPT,
        force: bool = FORCE_OPT,
    ) -> None:
        """QCN fluid model with feedback delay (P002 eqs 1, 4-8; the model of App. A): q(t), rates, Q/R plane."""
        _run(lambda: _fluid_qcn(rate, flows, delay, qeq, feedback, until, backend, _out(out, force)))

    @fluid_app.command("asm")
    def fluid_asm(
        rate: str = typer.Option("100Gbps", "--rate", help="link rate C"),
        delay: str = typer.Option("0", "--delay", help="feedback delay tau, e.g. 10us (0: none)"),
        q0: str = typer.Option("64", "--q0", help="target queue q0 (pkts); floors q >= 0, A >= 0"),
        gains: str = typer.Option("compliant", "--gains", help="A, S (P002 §5.1) or compliant (S with b- = 2 w a-)"),
        until: str | None = typer.Option(None, "--until", help="simulated time (default 8 w/(pC))"),
        backend: str = BACKEND_OPT,
        out: str | None = OUT_OPT,
        force: bool = FORCE_OPT,
    ) -> None:
        """ASM fluid model (P002 eq 26) with feedback delay (App. D): 4 starts, Q/R plane."""
        _run(lambda: _fluid_asm(rate, delay, q0, gains, until, backend, _out(out, force)))

    # the TCP/RED setup options of `fluid tcp-red` and `stability tcp-red` (P001's setup by default)
    RED_OPT = {
        "flows": typer.Option("50", "--flows", help="number of TCP flows N"),
        "rate": typer.Option("1.5Mbps", "--rate", help="bottleneck rate C (1000-B packets)"),
        "rtt": typer.Option("1.34s", "--rtt", help="round-trip propagation delay Tp"),
        "min_th": typer.Option("5", "--min-th", help="RED min_th (pkts)"),
        "max_th": typer.Option("15", "--max-th", help="RED max_th (pkts)"),
        "max_p": typer.Option("0.1", "--max-p", help="RED max_p in (0, 1)"),
        "wq": typer.Option("0.002", "--wq", help="RED EWMA weight w_q in (0, 1)"),
    }

    @fluid_app.command("tcp-red")
    def fluid_tcp_red(
        flows: str = RED_OPT["flows"],
        rate: str = RED_OPT["rate"],
        rtt: str = RED_OPT["rtt"],
        min_th: str = RED_OPT["min_th"],
        max_th: str = RED_OPT["max_th"],
        max_p: str = RED_OPT["max_p"],
        wq: str = RED_OPT["wq"],
        until: str = typer.Option("400s", "--until", help="simulated time"),
        backend: str = BACKEND_OPT,
        out: str | None = OUT_OPT,
        force: bool = FORCE_OPT,
    ) -> None:
        """TCP over RED fluid model (Misra-Gong-Towsley) and Hollot et al.'s stability condition (P001 setup)."""
        _run(lambda: _fluid_tcp_red(flows, rate, rtt, min_th, max_th, max_p, wq, until, backend, _out(out, force)))

    DCQCN_OPT = {
        "rate": typer.Option("40Gbps", "--rate", help="bottleneck rate C"),
        "flows": typer.Option("2", "--flows", help="number of flows N"),
        "delay": typer.Option("4us", "--delay", help="control-loop delay tau*"),
        "kmin": typer.Option("5KB", "--kmin", help="RED Kmin"),
        "kmax": typer.Option("200KB", "--kmax", help="RED Kmax (> Kmin)"),
        "pmax": typer.Option("0.01", "--pmax", help="RED Pmax in (0, 1]"),
        "rai": typer.Option("40Mbps", "--rai", help="additive increase step R_AI"),
    }

    @fluid_app.command("dcqcn")
    def fluid_dcqcn(
        rate: str = DCQCN_OPT["rate"],
        flows: str = DCQCN_OPT["flows"],
        delay: str = DCQCN_OPT["delay"],
        kmin: str = DCQCN_OPT["kmin"],
        kmax: str = DCQCN_OPT["kmax"],
        pmax: str = DCQCN_OPT["pmax"],
        rai: str = DCQCN_OPT["rai"],
        until: str = typer.Option("50ms", "--until", help="simulated time"),
        backend: str = BACKEND_OPT,
        out: str | None = OUT_OPT,
        force: bool = FORCE_OPT,
    ) -> None:
        """DCQCN fluid model (Zhu et al. CoNEXT 2016): all flows start at line rate; fixed point, phase margin."""
        _run(lambda: _fluid_dcqcn(rate, flows, delay, kmin, kmax, pmax, rai, until, backend, _out(out, force)))

    @fluid_app.command("timely")
    def fluid_timely(
        rate: str = typer.Option("10Gbps", "--rate", help="bottleneck rate C"),
        rates: str = typer.Option("7Gbps,3Gbps", "--rates", help="starting rate of each flow, comma-separated"),
        until: str = typer.Option("40ms", "--until", help="simulated time"),
        modified: bool = typer.Option(False, "--modified", help="eq 27: increase only when the gradient is < 0"),
        out: str | None = OUT_OPT,
        force: bool = FORCE_OPT,
    ) -> None:
        """TIMELY fluid model (Zhu et al. CoNEXT 2016, eqs 19-23): the end split depends on the start split."""
        _run(lambda: _fluid_timely(rate, rates, until, modified, _out(out, force)))

    @guide_app.command("dctcp")
    def guide_dctcp(
        rate: str = typer.Option("10Gbps", "--rate", help="bottleneck rate C"),
        rtt: str = typer.Option("100us", "--rtt", help="propagation RTT d"),
    ) -> None:
        """K ~ 0.17 C d and 5/(Cd+K) <~ g <~ 1/sqrt(Cd+K) (P000 eqs 1-2), with the reasoning."""
        _run(lambda: _guide_dctcp(rate, rtt))

    @stab_app.command("qcn")
    def stability_qcn(
        rate: str = typer.Option("10Gbps", "--rate", help="link rate C"),
        flows: str = typer.Option("10", "--flows", help="number of flows N"),
        out: str | None = typer.Option(None, "-o", "--out", help="plot delay margin and bound vs rate (png/pdf/svg)"),
        force: bool = FORCE_OPT,
    ) -> None:
        """QCN delay bound (P002 App. A eq 17, corrected per E33) and the exact delay margin."""
        _run(lambda: _stability_qcn(rate, flows, _out(out, force)))

    @stab_app.command("dx")
    def stability_dx(
        rate: str = typer.Option("10Gbps", "--rate", help="link rate C"),
        flows: str = typer.Option("50", "--flows", help="number of flows N"),
        rtt: str = typer.Option("80us", "--rtt", help="base RTT R0"),
        out: str | None = typer.Option(None, "-o", "--out", help="plot the bound vs N with the stable region (png/pdf/svg)"),
        force: bool = FORCE_OPT,
    ) -> None:
        """DX Bode bound (P004 Theorem 1 with E50) and the special stable state (Theorem 2)."""
        _run(lambda: _stability_dx(rate, flows, rtt, _out(out, force)))

    @stab_app.command("asm")
    def stability_asm(
        rate: str = typer.Option("1Gbps", "--rate", help="link rate C"),
        w: str = typer.Option("32", "--w", help="feedback weight w (P002 §5.1: 32)"),
        p: str = typer.Option("0.01", "--p", help="sampling probability p in (0, 1)"),
        out: str | None = typer.Option(None, "-o", "--out", help="plot the sliding region in the (a-, b-) plane"),
        force: bool = FORCE_OPT,
    ) -> None:
        """ASM sliding condition (P002 ineq. 15, E39) for the §5.1 gain sets and a compliant set."""
        _run(lambda: _stability_asm(rate, w, p, _out(out, force)))

    @stab_app.command("tcp-red")
    def stability_tcp_red(
        flows: str = RED_OPT["flows"],
        rate: str = RED_OPT["rate"],
        rtt: str = RED_OPT["rtt"],
        min_th: str = RED_OPT["min_th"],
        max_th: str = RED_OPT["max_th"],
        max_p: str = RED_OPT["max_p"],
        wq: str = RED_OPT["wq"],
    ) -> None:
        """TCP/RED equilibrium and Hollot et al.'s stability condition (Proposition 1, exact delay margin)."""
        _run(lambda: _tcp_red_model(flows, rate, rtt, min_th, max_th, max_p, wq))

    @stab_app.command("dcqcn")
    def stability_dcqcn(
        rate: str = DCQCN_OPT["rate"],
        flows: str = DCQCN_OPT["flows"],
        delay: str = DCQCN_OPT["delay"],
        kmin: str = DCQCN_OPT["kmin"],
        kmax: str = DCQCN_OPT["kmax"],
        pmax: str = DCQCN_OPT["pmax"],
        rai: str = DCQCN_OPT["rai"],
        out: str | None = typer.Option(None, "-o", "--out", help="plot phase margin vs N (Fig. 3; png/pdf/svg)"),
        force: bool = FORCE_OPT,
    ) -> None:
        """DCQCN fixed point (Theorem 1), the paper's phase margin (App. A) and the exact linearization."""
        _run(lambda: _stability_dcqcn(rate, flows, delay, kmin, kmax, pmax, rai, _out(out, force)))

    app.add_typer(fluid_app, name="fluid")
    app.add_typer(guide_app, name="guide")
    app.add_typer(stab_app, name="stability")


if __name__ == "__main__":  # pragma: no cover
    _app = typer.Typer()
    register(_app)
    sys.exit(_app())
