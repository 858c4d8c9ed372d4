"""Shared code of dctcp-analysis/fig12a-d: convergence of two flows when a second flow joins.

D0, C = 10 Gb/s, d = 200 µs, K = 35 (Cd = 166.7, Wmax = Cd + K ≈ 200, W* = 100). Flow 1 starts at 0; flow 2
joins after T2 (1 s; quick 50 ms) at T0, the first time flow 1's cwnd reaches Wmax - 1 (see "Join time"). TCP =
NewReno + ECN with the same 0/1 marking at K [NG]. Access links 40 Gb/s [NG]: with access links as fast as the
bottleneck a lone flow never queues at the switch (its NIC paces it) and its cwnd grows without bound.
Convergence time: from T0 until both cwnds are first within ±10% of W* = 100 pkts (DCTCP also: both α within
±10% of α*). 5 seeds (1-ms start jitter of both flows) [NG].

Join time. §4.3: flow 1 "grabs all the available capacity (its window size reaches 200). At time 1sec, a second
flow begins with a window of 1 packet"; the hybrid model the figure is read against starts from that state,
W(T0) = (Wmax - 1, 1) (§4.1, FIGURES.md [DER]). A TCP flow alone does not hold 200: with halving at K it saws
between ~105 and ~204 pkts every ~22 ms, and a flow 2 started at a fixed time meets whatever phase the sawtooth
has then. The convergence time depends on that phase: flow 2 started at 1 s + 0, 1, ..., 24 ms (seed 1) takes
18, 18, 22, 22, 23, 23, 7, 8, 19, 19, 20, 33, 34, 31, 32, 32, 44, 43, 44, 43, 43, 43, 18, 18, 22 ms for flow-1
windows 105, 109, ..., 204, 106, 111, 116 pkts (~43 ms whenever flow 1 holds >= ~180 pkts, 7-23 ms when it
has just halved), and the 1-ms jitter of fixed-time starts samples one phase, right after a halving. Flow 2 is
therefore started when flow 1's window reaches Wmax - 1 (found by a probe run of flow 1 alone with the same
seed; the engine is deterministic, flow 1's trace up to T0 is identical with and without flow 2). For DCTCP
(small cuts) flow 1 stays near 200 and T0 is within a few RTTs of T2.

Flow 1's α at the join. §4.3: "In order to have the worst case convergence time with DCTCP, we begin the second
flow with α = 1, whereas the first flow has α = 0 before time 1sec". Held at 0 for the whole first second, flow 1
would never cut its window (FIGURES.md known inconsistency dctcp-analysis 10), so it is read as a reset at the
join: the engine's `dctcp.alpha_reset_s` = T0 sets flow 1's α to 0 at its first ACK at or after T0 (flow 2, first
acknowledged after T0, keeps `alpha_init` = 1). This is the start the hybrid model's [DER] times assume,
α = (0, 1). The probe run that finds T0 has no reset; it cannot change flow 1's trace before T0.

Late flow: `iw_pkts` = 1 with slow start, as in the paper's ns-2 runs. §4.3 says only that the second flow "begins
with a window of 1 packet" (ns-2's windowInit_), FIGURES.md "starts with cwnd = 1"; ns-2's TcpAgent::reset sets
ssthresh_ = int(wnd_) (the window_ bound), so an ns-2 flow slow-starts from that window, and §2 keeps Reno's slow
start for DCTCP. Joining at flow 1's peak, flow 2 meets marks within its first RTTs and leaves slow start at a
window of a few packets, so it grows additively from there as the hybrid model assumes; `tcp.initial_ssthresh_pkts`
is not used.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.repro._base import se
from ccscope.repro.dctcp_analysis._ns2 import TCP as NS2_TCP

C, D, K = 10e9, 200e-6, 35
PKT_BITS = 1500 * 8
WMAX = C * D / PKT_BITS + K     # Cd + K = 201.7 pkts
W_STAR = 100.0
#: How long after t2 the probe run of flow 1 alone looks for cwnd >= Wmax - 1 (TCP's sawtooth period is ~22 ms).
PROBE_S = 0.1
#: Flow 1's alpha is averaged over this window before the join (what the reset replaces).
ALPHA_PROBE_S = 0.005
#: Pilot seeds: the quick variant's (docs/VERDICTS.md §3). SEEDS (full) is fixed from the pilot's spread below.
PILOT_SEEDS = (1, 2, 3, 4, 5)
# Full-run seeds, fixed from the quick pilot (5 seeds, flow 2 at 50 ms, alpha reset at the join) before the full run:
# n >= (s / (margin / 4))^2 with s the pilot's sample sd (se x sqrt 5) and margin the distance from the paper's /
# [DER] value to the nearer band edge. Panel b, alpha/W ratio: s = 0.428 x sqrt 5 = 0.96, margin 4.4 - 2.5 = 1.9 ->
# n >= (0.96 / 0.475)^2 = 4.1 -> 5. Every other row needs fewer: a time s = 0.009 / 2.1 / 0.81 / 2.9 ms (panels
# a-d) against margins 8.2 / 11 / 13 / 35 ms -> n >= 1; a's ordering against b, s_b = 2.1 ms, margin 55 - 41 = 14 ms
# -> 1; ratios t_c/t_b s = 0.038 (margin 0.22), t_d/t_b 0.10 (0.64), alpha/W in c 0.046 (0.55), d 0.017 (0.3) -> 1.
SEEDS = (1, 2, 3, 4, 5)


def _scenario(kind: str, g: float | None, t1: float, t2: float, until: float, seed: int, *,
              alpha_reset: bool = False) -> dict:
    flows = [{"src": "s0", "dst": "r0", "cc": kind, "start_s": t1},
             {"src": "s1", "dst": "r0", "cc": kind, "start_s": t2}]
    sc = {"seed": seed, "until_s": until,
          "topology": {"kind": "dumbbell", "bottleneck_bps": C, "rtt_s": D, "buffer_pkts": 1000, "senders": 2,
                       "access_bps": 4 * C},
          "aqm": {"kind": "threshold", "k_pkts": K}, "flow": flows,
          "tcp": {"ecn": True, "iw_pkts": 1, **NS2_TCP},
          "record": {"traces": ["cwnd", "alpha"], "flow_interval_s": 2e-5}}
    if g is not None:
        sc["dctcp"] = {"g": g, "alpha_init": 1.0}
        if alpha_reset:
            # §4.3's worst case: flow 1's α is 0 when flow 2 joins (a reset at the join, see the module docstring)
            sc["dctcp"].update({"alpha_reset_s": t2, "alpha_reset_to": 0.0})
    return sc


def join_time(kind: str, g: float | None, t1: float, t_from: float, seed: int) -> float:
    """First time >= t_from at which flow 1 (alone) holds cwnd >= Wmax - 1: the hybrid model's T0."""
    probe = cc.simulate(_scenario(kind, g, t1, t_from + PROBE_S + 1.0, t_from + PROBE_S, seed))
    cw = probe.traces["cwnd"]
    hit = cw[(cw.flow == 0) & (cw.time_s >= t_from) & (cw.cwnd_pkts >= WMAX - 1)]
    if hit.empty:
        raise RuntimeError(f"flow 1 never reached Wmax - 1 = {WMAX - 1:.1f} pkts in [{t_from}, {t_from + PROBE_S}] s")
    return float(hit.time_s.iloc[0])


def simulate(kind: str, g: float | None, t2: float, until: float, seed: int):
    jit = np.random.default_rng(seed).uniform(0, 1e-3, 2)
    t_join = join_time(kind, g, float(jit[0]), float(t2 + jit[1]), seed)
    return cc.simulate(_scenario(kind, g, float(jit[0]), t_join, until, seed, alpha_reset=True)), t_join


def _first_joint(tr: pd.DataFrame, col: str, t_from: float, lo: float, hi: float) -> float:
    tr = tr[tr.time_s >= t_from]
    wide = tr.pivot_table(index="time_s", columns="flow", values=col).sort_index().ffill()
    if wide.shape[1] < 2:
        return float("nan")
    ok = ((wide >= lo) & (wide <= hi)).all(axis=1)
    return float(ok.idxmax() - t_from) if ok.any() else float("nan")


def convergence(kind: str, g: float | None, t2: float, until: float, seeds) -> tuple[dict, pd.DataFrame]:
    rows, frames = [], []
    for seed in seeds:
        res, t_start = simulate(kind, g, t2, until, seed)
        cw = res.traces["cwnd"]
        row = {"seed": seed, "t_join_s": t_start,
               "t_w_s": _first_joint(cw, "cwnd_pkts", t_start, 0.9 * W_STAR, 1.1 * W_STAR)}
        if g is not None:
            al = res.traces["alpha"]
            pre = al[(al.flow == 0) & (al.time_s < t_start) & (al.time_s >= t_start - ALPHA_PROBE_S)]
            row["alpha1_before_join"] = float(pre.alpha.mean()) if len(pre) else float("nan")
            late = al[al.time_s >= until - 0.2 * (until - t_start)]
            a_star = float(late.alpha.mean())
            row["alpha_star"] = a_star
            row["t_alpha_s"] = _first_joint(al, "alpha", t_start, 0.9 * a_star, 1.1 * a_star)
        rows.append(row)
        if seed == seeds[0]:
            w = cw[(cw.time_s >= t_start - 0.02) & (cw.time_s <= until)].iloc[::5].assign(signal="cwnd")
            frames.append(w.rename(columns={"cwnd_pkts": "value"})[["time_s", "flow", "value", "signal"]])
            if g is not None:
                a = res.traces["alpha"]
                a = a[(a.time_s >= t_start - 0.02) & (a.time_s <= until)].iloc[::5].assign(signal="alpha")
                frames.append(a.rename(columns={"alpha": "value"})[["time_s", "flow", "value", "signal"]])
    df = pd.DataFrame(rows)
    out = {"per_seed": rows, "t_w_mean_s": float(df.t_w_s.mean()), "t2_s": t2,
           "alpha1_before_join": float(df.alpha1_before_join.mean()) if "alpha1_before_join" in df else -1.0,
           "t_join_mean_after_t2_s": float(df.t_join_s.mean() - t2)}
    out["t_w_se_s"] = se(df.t_w_s)
    if g is not None:
        out["t_alpha_mean_s"] = float(df.t_alpha_s.mean())
        out["alpha_over_w_speed"] = float(df.t_w_s.mean() / df.t_alpha_s.mean())
        out["alpha_over_w_speed_se"] = ratio_se(out["t_w_mean_s"], out["t_w_se_s"], out["t_alpha_mean_s"],
                                                se(df.t_alpha_s))
    return out, pd.concat(frames, ignore_index=True)


def ratio_se(a: float, se_a: float, b: float, se_b: float) -> float:
    """Standard error of a/b for independent means (first-order propagation, docs/VERDICTS.md §3: errors add in
    quadrature; relative errors for a ratio)."""
    return float(abs(a / b) * np.hypot(se_a / a, se_b / b))


def band(c, name: str, value: float, se_v: float, lo: float, hi: float, tolerance: str) -> bool:
    """One row for a band over seed means: inside [lo, hi] by at least 2 se from each edge (docs/VERDICTS.md §3);
    inside but closer is "inside the noise"."""
    from ccscope.repro._base import Checks
    t = Checks()
    a, b = t.beyond("lo", value, se_v, lo, ">"), t.beyond("hi", value, se_v, hi, "<")
    return c.add(name, value, a and b, f"[{lo:.4g}, {hi:.4g}] by ≥ 2 se", tolerance, se=se_v,
                 noise=any(x.noise for x in t.items))


#: Cause of a fig12 panel that misses a row; every number from this run (the hybrid-model predictions are
#: FIGURES.md's [DER] and P000's printed times, listed in each panel's PAPER_NUMBERS).
_CAUSE_TAIL = ("The windows converged after {v.t_w_ms:.3g} ms (standard error {v.t_w_se_ms:.2g} ms over {v.n} "
               "seeds; per seed {v.per_seed_ms} ms). A row inside the noise is decided by less than two standard "
               "errors; a row outside its band is the packet run's timing against the hybrid model of §4.1, whose "
               "RTT unit FIGURES.md leaves open (dctcp-analysis known inconsistency item 1).")
CAUSE = {
    "tcp": ("The second flow joined on average {v.join_after_t2_ms:.3g} ms after the nominal join time, when flow "
            "one's window came within a packet of Wmax. " + _CAUSE_TAIL),
    "dctcp": ("The second flow joined on average {v.join_after_t2_ms:.3g} ms after the nominal join time, when flow "
              "one's window came within a packet of Wmax; flow one's alpha (mean {v.alpha1_before:.3g} over the "
              "{v.alpha1_before_ms:.3g} ms before) was reset to zero there. Alpha converged after {v.t_a_ms:.3g} ms. "
              + _CAUSE_TAIL),
}


def cause_values(v: dict) -> dict:
    per = [r["t_w_s"] for r in v["per_seed"]]
    return {"join_after_t2_ms": 1e3 * v["t_join_mean_after_t2_s"], "alpha1_before": v.get("alpha1_before_join", -1.0),
            "alpha1_before_ms": 1e3 * ALPHA_PROBE_S, "t_w_ms": 1e3 * v["t_w_mean_s"], "t_w_se_ms": 1e3 * v["t_w_se_s"],
            "n": len(per), "per_seed_ms": " / ".join(f"{1e3 * x:.3g}" for x in per),
            "t_a_ms": 1e3 * v.get("t_alpha_mean_s", float("nan"))}


# --- shared module body for fig12a-d ------------------------------------------------------------------------
G_B = 0.0707          # 1/sqrt(Wmax)
PANELS = {"a": None, "b": G_B, "c": 0.025, "d": 0.005}


def timing(panel: str, quick: bool) -> tuple[float, float]:
    if quick:
        return 0.05, (0.35 if panel == "d" else 0.2)
    return 1.0, 1.5


def run_panel(panel: str, quick: bool):
    """This panel's convergence plus fig12b's (the reference of a, c, d)."""
    from ccscope.repro._base import Run
    t2, until = timing(panel, quick)
    kind = "new_reno" if panel == "a" else "dctcp"
    seeds = PILOT_SEEDS if quick else SEEDS
    out, frame = convergence(kind, PANELS[panel], t2, until, seeds)
    vals = {"this": out}
    if panel != "b":
        tb2, tbu = timing("b", quick)
        vals["b"], _ = convergence("dctcp", G_B, tb2, tbu, seeds)
    return Run(params={"rate_bps": C, "d_s": D, "k_pkts": K, "g": PANELS[panel], "cc": kind, "t2_s": t2, "until_s": until,
                       "seeds": list(seeds), "access_bps": 4 * C, "iw_pkts": 1, "alpha_init": 1.0,
                       "alpha_flow1_at_join": 0.0 if kind == "dctcp" else None,
                       "join": "flow 2 at the first t >= t2 with flow 1's cwnd >= Wmax - 1 (probe run)",
                       "criterion": "both cwnd within ±10% of 100 pkts (α within ±10% of α*), from the join",
                       "alpha_star": "mean α over the last 20% of the run"},
               frames={"traces": frame, "per_seed": pd.DataFrame(out["per_seed"])}, values=vals, seeds=list(seeds),
               quick=quick)


def plot_panel(run, title: str):
    from ccscope.repro._base import figure, ref_line
    tr = run.frames["traces"]
    has_alpha = (tr.signal == "alpha").any()
    fig, axes = figure(2 if has_alpha else 1, 1, width=7, height=5 if has_alpha else 3.2, sharex=True)
    t2 = run.values["this"]["per_seed"][0]["t_join_s"]   # the traces are seed 1's
    for fl, g in tr[tr.signal == "cwnd"].groupby("flow"):
        axes[0, 0].plot(1e3 * (g.time_s - t2), g.value, lw=0.6, label=f"flow {fl + 1}")
    ref_line(axes[0, 0], W_STAR, "W* = 100")
    t = run.values["this"]["t_w_mean_s"]
    axes[0, 0].axvline(1e3 * t, color="C3", lw=1, label=f"converged (mean {1e3 * t:.0f} ms)")
    axes[0, 0].set_ylabel("cwnd (pkts)"); axes[0, 0].legend(fontsize=7); axes[0, 0].set_ylim(0, 260)
    axes[0, 0].set_title(title, fontsize=9)
    if has_alpha:
        for fl, g in tr[tr.signal == "alpha"].groupby("flow"):
            axes[1, 0].plot(1e3 * (g.time_s - t2), g.value, lw=0.8, label=f"α flow {fl + 1}")
        axes[1, 0].set_ylabel("α"); axes[1, 0].legend(fontsize=7)
    axes[-1, 0].set_xlabel(f"time since flow 2 joins (ms; at {t2:.4f} s, when flow 1's cwnd reaches Wmax - 1)")
    fig.tight_layout()
    return fig
