"""dctcp-analysis/fig11: the hybrid model (eqs 19-21) for 2 flows: linear growth, synchronized cuts
whenever sum W = Wmax. Checks the event condition and eq 21 against a numerical solution of
d alpha/dt = g (p - alpha) with p = 1 for the first RTT of the epoch, then 0."""
from __future__ import annotations

from scipy.integrate import solve_ivp

from ccscope.fluid import dctcp_hybrid
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict

ID = "dctcp-analysis/fig11"
TITLE = "Hybrid model picture: synchronized cuts whenever sum W = Wmax (2 flows)"
KIND = "fluid (schematic)"
COST = "trivial (< 1 s)"
CLAIM = "In the hybrid model, sum_i W_i(T_k) = Wmax at every congestion event; epochs have the length of eq 19."
W_MAX, G = 200.0, 1 / 16


def run(quick: bool) -> Run:
    res = dctcp_hybrid([150.0, 10.0], [0.2, 1.0], w_max_pkts=W_MAX, g=G).run(events=40)
    return Run(params={"w0_pkts": [150, 10], "alpha0": [0.2, 1.0], "w_max_pkts": W_MAX, "g": G, "events": 40},
               frames={"events": res.traces}, quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    tr = run.frames["events"]
    s = tr.window_pkts_0 + tr.window_pkts_1
    err = float((s - W_MAX).abs().max())
    c.add("|sum W(T_k) - Wmax|", err, err < 1e-9, "< 1e-9", "float rounding")
    worst = 0.0
    for k in range(len(tr) - 1):
        dt = tr.time_rtt.iloc[k + 1] - tr.time_rtt.iloc[k]
        for i in (0, 1):
            a0 = tr[f"alpha_{i}"].iloc[k]
            f = lambda t, a, tb=0.0: [G * ((1.0 if t < 1.0 else 0.0) - a[0])]
            sol = solve_ivp(f, (0, dt), [a0], rtol=1e-11, atol=1e-13, max_step=0.05)
            worst = max(worst, abs(sol.y[0, -1] - tr[f"alpha_{i}"].iloc[k + 1]))
    c.add("eq 21 vs ODE", worst, worst < 1e-6, "< 1e-6", "ODE tolerance 1e-11")
    return verdict(c, {"max_event_error": err, "max_alpha_error": worst})


def plot(run: Run):
    tr = run.frames["events"]
    fig, ax = figure(width=7, height=4)
    ax = ax[0, 0]
    # piecewise-linear windows between events: cut, hold one RTT, then slope 1
    for i in (0, 1):
        t, w = [], []
        for k in range(len(tr) - 1):
            t0, t1 = tr.time_rtt.iloc[k], tr.time_rtt.iloc[k + 1]
            wk, ak = tr[f"window_pkts_{i}"].iloc[k], tr[f"alpha_{i}"].iloc[k]
            cut = (1 - ak / 2) * wk
            t += [t0, t0, t0 + 1, t1]
            w += [wk, cut, cut, tr[f"window_pkts_{i}"].iloc[k + 1]]
        ax.plot(t, w, label=f"W_{i + 1}(t)")
    ref_line(ax, W_MAX / 2, "W* = Wmax/2")
    ax.set_xlabel("time (RTTs)")
    ax.set_ylabel("window (pkts)")
    ax.set_title("Hybrid model, N = 2, Wmax = 200, g = 1/16 (Fig. 11)")
    ax.legend(fontsize=8)
    return fig
