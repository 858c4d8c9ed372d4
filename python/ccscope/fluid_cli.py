"""CLI commands of the fluid models: `ccscope fluid ...`, `ccscope guide dctcp`, `ccscope stability qcn|dx`.

`register(app)` adds them to the main typer app (called by ccscope.cli). Every option is taken as a
string and parsed with ccscope.units so that bad input gives ONE line on stderr and exit status 2
("error: --rate '10Gbs': unknown unit ..."), never a traceback. Library code never prints; this does.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import TypeVar

import typer

from ccscope.units import parse_fraction, parse_rate, parse_time

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


def _save(fig, out: str | None) -> None:
    if out:
        fig.tight_layout()
        fig.savefig(out, dpi=120)
        typer.echo(f"wrote {out}")


RATE = "a rate such as 10Gbps, 100Mbps or 1e10"
TIME = "a time such as 100us, 50ms or 1e-4"


def _fluid_dctcp(n: str, rate: str, rtt: str, k: str, g: str, until: str, normalized: bool, wbar: str | None,
                 poincare: bool, backend: str, out: str | None) -> None:
    from ccscope.fluid.dctcp import DctcpFluid, DctcpNormalized

    gv = _g(g)
    if backend not in ("numpy", "jax"):
        raise _BadInput(f"--backend {backend!r}: allowed: numpy, jax")
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


def _stability_qcn(rate: str, flows: str) -> None:
    from ccscope.fluid.qcn import qcn_bound

    b = qcn_bound(_positive("--rate", rate, parse_rate, RATE), _count("--flows", flows))
    typer.echo(f"QCN (P002 App. A, corrected per E33): N = {b.n_flows:g}, p = 0.01, w = 2, Gd = 1/128, R_AI = 5 Mb/s")
    typer.echo(f"unstable for feedback delay >= {b.bound_s * 1e6:.2f} us (eq 17 bound); "
               f"exact delay margin of the linear loop {b.delay_margin_s * 1e6:.2f} us "
               f"(crossover {b.crossover_rad_s:.1f} rad/s)")


def _stability_dx(rate: str, flows: str, rtt: str) -> None:
    from ccscope.fluid.dx import equilibrium, max_stable_r0, min_stable_flows

    rate_bps = _positive("--rate", rate, parse_rate, RATE)
    n = _count("--flows", flows)
    r0 = _positive("--rtt", rtt, parse_time, TIME)
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
        backend: str = typer.Option("numpy", "--backend", help="numpy or jax"),
        out: str | None = typer.Option(None, "-o", "--out", help="write a plot (png/pdf/svg)"),
    ) -> None:
        """DCTCP fluid model (P000): q(t), W(t), alpha(t) and the limit cycle; or the normalized model."""
        _run(lambda: _fluid_dctcp(n, rate, rtt, k, g, until, normalized, wbar, poincare, backend, out))

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
    ) -> None:
        """QCN delay bound (P002 App. A eq 17, corrected per E33) and the exact delay margin."""
        _run(lambda: _stability_qcn(rate, flows))

    @stab_app.command("dx")
    def stability_dx(
        rate: str = typer.Option("10Gbps", "--rate", help="link rate C"),
        flows: str = typer.Option("50", "--flows", help="number of flows N"),
        rtt: str = typer.Option("80us", "--rtt", help="base RTT R0"),
    ) -> None:
        """DX Bode bound (P004 Theorem 1 with E50) and the special stable state (Theorem 2)."""
        _run(lambda: _stability_dx(rate, flows, rtt))

    app.add_typer(fluid_app, name="fluid")
    app.add_typer(guide_app, name="guide")
    app.add_typer(stab_app, name="stability")


if __name__ == "__main__":  # pragma: no cover
    _app = typer.Typer()
    register(_app)
    sys.exit(_app())
