"""dctcp-analysis/fig3: fluid and Sawtooth models vs packet simulation at large g (N = 2, g = 0.4).

D0 as `fig2-n2` (10 Gb/s, d = 100 µs, K = 65, buffer 1000, α starts at 1, ns-2 ECN-Echo rule, 1 ms start jitter)
with g = 0.4. Fluid: eqs 5-8 (`ccscope.fluid.dctcp`); Sawtooth: the closed form of [1] (`ccscope.fluid.sawtooth`),
α = √(2/W*). Phase alignment: the simulated queue (10 µs grid) is cut into windows of one simulated
limit-cycle period; in each window each model trace gets its own best phase shift (so the few-% period mismatch
between sim and fluid does not accumulate), and the RMS is taken over all windows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid.sawtooth import sawtooth
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.dctcp_analysis import _fig2 as f2

ID = 'dctcp-analysis/fig3'
TITLE = 'Fluid model tracks the sim at g = 0.4; the Sawtooth model (constant alpha) mispredicts the queue'
KIND = 'both'
COST = 'full: 0.1 s × 10 Gb/s ≈ 83 k pkts + 30 ms fluid (~5 s); quick 30 ms sim'
QUICK_SHOWS_CLAIM = False
QUICK_NOTE = ('since the rerun at 29f95ca (old_ecn_ 1 on the ns-2 flows): the quick 30-ms window puts the simulated '
              "queue's 2nd percentile at 48 pkts (full run: 40), nearer the Sawtooth minimum than the fluid one; the "
              'full run, whose window covers many more alpha cycles, shows the claim')
CLAIM = ('At g = 0.4 the Sawtooth model (α constant) mispredicts the queue badly (Qmin 54.8 pkts); the fluid model '
         'follows the α oscillations (q from ≈ 33 to ≈ 68 pkts) and matches the simulation.')
N, G = 2, 0.4
GRID = 1e-5
FLUID_S = 0.03


def _align(t_sim, q_sim, t_mod, q_mod, period, window):
    """Phase-aligned RMS: the simulated trace is cut into windows of `window` s; in each, the model trace is
    shifted (in [0, period), GRID steps) to the best match, so a small period mismatch does not accumulate.
    Returns (RMS over all windows, shifts per window)."""
    n_win = max(1, int((t_sim[-1] - t_sim[0]) // window))
    m = int(round(window / GRID))
    shifts = np.arange(0.0, period, GRID)
    base = t_mod[0] + np.arange(m) * GRID
    cand = np.interp(base[None, :] + shifts[:, None], t_mod, q_mod)      # (shifts, m)
    sq, best = [], []
    for k in range(n_win):
        seg = q_sim[k * m:(k + 1) * m]
        if len(seg) < m:
            break
        e = np.mean((cand - seg[None, :]) ** 2, axis=1)
        sq.append(e.min())
        best.append(float(shifts[int(e.argmin())]))
    return float(np.sqrt(np.mean(sq))), best


def run(quick: bool) -> Run:
    until = 0.03 if quick else 0.1
    t0 = until / 2
    res = f2.simulate(N, until, g=G)
    # the fluid limit cycle is reached within ~10 ms at g = 0.4 (α relaxes at rate g per R*); the alignment needs
    # ~2.5 periods (≈ 9 ms) of it. R*/200 steps: the cycle extremes move by < 0.1 pkt against R*/500.
    fl = f2.fluid(N, FLUID_S, g=G, steps_per_rstar=200)
    ft = fl.traces
    ft = ft[ft.time_s >= FLUID_S / 2]
    st = f2.sim_stats(res, t0)
    saw = sawtooth(N, f2.C_BPS, f2.D_S, f2.K, until_s=2 * until)
    q = res.traces["queue"]
    q = q[q.time_s >= t0]
    t_grid = np.arange(t0, until, GRID)
    q_grid = np.interp(t_grid, q.time_s.to_numpy(), q.queue_pkts.to_numpy().astype(float))
    period_f = st["period_s"] if np.isfinite(st["period_s"]) else 2e-3
    # windows of one simulated period; each model gets its own best phase per window
    win = period_f
    rms_f, sh_f = _align(t_grid, q_grid, ft.time_s.to_numpy(), ft.queue_pkts.to_numpy(), 1.5 * period_f, win)
    rms_s, sh_s = _align(t_grid, q_grid, saw.traces.time_s.to_numpy(), saw.traces.queue_pkts.to_numpy(), saw.period_s, win)
    vals = {"sim": st, "fluid_q_min": float(ft.queue_pkts.min()), "fluid_q_max": float(ft.queue_pkts.max()),
            "saw_q_min": saw.q_min_pkts, "saw_q_max": saw.q_max_pkts, "saw_alpha": saw.alpha,
            "rms_fluid": rms_f, "rms_saw": rms_s, "window_s": win}
    m = int(round(win / GRID))

    def al(tm, qm, shifts):
        out = np.full(len(t_grid), np.nan)
        for k, sh in enumerate(shifts):
            out[k * m:(k + 1) * m] = np.interp(tm[0] + sh + np.arange(m) * GRID, tm, qm)
        return out
    frame = pd.DataFrame({"time_s": t_grid, "sim": q_grid,
                          "fluid": al(ft.time_s.to_numpy(), ft.queue_pkts.to_numpy(), sh_f),
                          "sawtooth": al(saw.traces.time_s.to_numpy(), saw.traces.queue_pkts.to_numpy(), sh_s)})
    return Run(params={**f2.PARAMS, "g": G, "n": N, "until_s": until, "compare_from_s": t0, "grid_s": GRID},
               frames={"aligned": frame, "fluid": fl.traces}, values=vals, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    # [DER] fluid band [33.3, 67.5]; ±2 pkts covers the fluid step (R*/500) and the recording stride
    c.near("fluid q min (pkts)", v["fluid_q_min"], 33.3, 2.0, "[DER] 33.3")
    c.near("fluid q max (pkts)", v["fluid_q_max"], 67.5, 2.0, "[DER] 67.5")
    c.near("Sawtooth Qmin (pkts)", v["saw_q_min"], 54.8, 0.1, "closed form")
    q2 = v["sim"]["q_p2"]
    c.add("sim q2 nearer fluid min than Sawtooth min", q2, abs(q2 - 33.3) < abs(q2 - 54.8), "|q2 − 33.3| < |q2 − 54.8|",
          "FIGURES.md")
    # ±30%: the packet queue's minimum is set by the few RTTs around each cut, where ACK clocking is discrete
    c.rel("K − sim q2 (pkts)", f2.K - q2, 31.7, 0.30, "±30% of 31.7")
    c.add("RMS(sim − fluid) < RMS(sim − Sawtooth)", v["rms_fluid"], v["rms_fluid"] < v["rms_saw"], f"< {v['rms_saw']:.3g}",
          "phase-aligned")
    return verdict(c, {k: v[k] for k in ("fluid_q_min", "fluid_q_max", "saw_q_min", "rms_fluid", "rms_saw")} | {"sim_q2": q2,
                   "sim_q98": v["sim"]["q_p98"]}, tolerance="fluid band ±2 pkts; K − q2 ±30%")


def plot(run: Run):
    fig, axes = figure(1, 1, width=7.5, height=4)
    ax = axes[0, 0]
    a = run.frames["aligned"]
    ax.plot(1e3 * a.time_s, a.sim, lw=0.7, label="packet sim")
    ax.plot(1e3 * a.time_s, a.fluid, lw=2, color="k", label="fluid model (aligned per window)")
    ax.plot(1e3 * a.time_s, a.sawtooth, lw=1.2, color="C3", ls="--", label="Sawtooth model [1] (aligned per window)")
    ref_line(ax, f2.K, f"K = {f2.K}")
    ax.set_xlabel("time (ms)"); ax.set_ylabel("queue (pkts)")
    ax.set_title("N = 2, g = 0.4: fluid vs Sawtooth vs simulation (Fig. 3)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
