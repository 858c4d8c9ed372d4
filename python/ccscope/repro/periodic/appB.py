"""periodic/appB: the RED of P001 Appendix B, checked formula by formula against an independent numpy
Floyd-Jacobson implementation on synthetic queue traces.

Appendix B: queue counted in packets; not gentle (every arrival dropped once avg >= max_th); the
arriving packet is the victim ("drops from the tail"); no preference by packet type or size (packet
mode); q_w = 0.002; max_p = 0.1 [NG: ns-2 linterm 10]. ALGORITHMS.md §3.2 gives the F&J rules the
reference below implements: per arrival, after an idle period avg <- (1 - w_q)^m avg with
m = idle time x link packet rate, then avg <- (1 - w_q) avg + w_q q (q = queue before the arrival);
avg < min_th: accept, count <- -1; min_th <= avg < max_th: count++, p_b = max_p (avg - min_th) /
(max_th - min_th), p_a = min(1, p_b / (1 - count p_b)) (1 once count p_b >= 1; the formula exceeds 1
when 1 - p_b < count p_b < 1, and p_a is a probability), drop with probability p_a and count <- 0;
avg >= max_th: drop, count <- 0.

The engine's RED (the code a port runs) is driven through `ccscope.aqm.red_replay` with the same
trace. Its random draws decide which arrivals are dropped, so the reference is given the engine's
verdicts and must reproduce avg, p_b, p_a and count exactly (to 1e-12; count exactly), must agree
on every forced decision (accept below min_th, drop at or above max_th and whenever p_a = 1), and
the number of early drops must match sum p_a within binomial noise.

Traces [CHOICE] (synthetic; RED sees them open loop, its verdicts do not feed back):
- "staircase": the queue climbs 0 -> 40 pkts and back in steps, with idle gaps of 0.5-2 s between
  cycles (regions below min_th, in the ramp, above max_th, and the idle decay).
- "fifo": a 1.5 Mb/s FIFO (187.5 pkt/s, 1000-B packets) fed by Poisson arrivals whose rate
  alternates between 0.85 C and 1.0 C every 20 s (the average then spends about a third of the
  arrivals in each region); each arrival records the queue it finds and, when that queue is empty,
  the departure time at which it emptied.
Arrival times lie on a 2^-12 s grid, exact both as floats and in the engine's picosecond clock, so the
idle-time decay of both implementations sees the same idle time.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/appB"
TITLE = "RED settings: q_w=0.002, no gentle mode, tail drop, packet mode"
KIND = "sim (unit)"
COST = "full: 2 traces × ~40 k arrivals (< 2 s); quick 2 × ~10 k"
CLAIM = ("Appendix B RED (also with ns-2's small-queue rule and wait_ spacing, as the P0 runs use it): queue in packets, EWMA weight q_w = 0.002 per arrival, p_b = 0 below min_th and "
         "max_p (avg - min_th)/(max_th - min_th) between the thresholds with F&J count spacing p_a = min(1, p_b/(1 - count p_b)), "
         "every arrival dropped at or above max_th (not gentle), the arriving packet is the victim, no byte mode.")
PACKET_BYTES = 1000
RATE_BPS = 1.5e6  # the P001 bottleneck; link packet rate 187.5 pkt/s for the idle decay
PKT_RATE = RATE_BPS / (8 * PACKET_BYTES)
MIN_TH, MAX_TH, MAX_P, W_Q = 5.0, 15.0, 0.1, 0.002  # P001 minfix max_th = 15 (figs 4c/6b/9c/10a)
GRID_S = 2.0 ** -12  # 244 µs: exact in floats and in picoseconds (1e12 = 2^12 · 5^12)
SEED = 1
EXACT = 1e-12
Z_MAX = 3.0  # binomial tolerance: |early drops - sum p_a| <= 3 sd


def aqm(ns2: bool = False) -> dict:
    """The Appendix-B RED (min_th 5, max_th 15): with F&J count spacing (ALGORITHMS.md §3.2), or as the P0 runs
    use it (`ns2`: `_p0.red`, with ns-2's small-queue rule and wait_ spacing from queue/red.cc)."""
    if ns2:
        return _p0.red(MAX_TH, MIN_TH)
    return cc.aqm.red(min_th_pkts=MIN_TH, max_th_pkts=MAX_TH, max_p=MAX_P, w_q=W_Q, action="drop")


def _grid(t: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(t, float) / GRID_S) * GRID_S


def staircase_trace(cycles: int) -> pd.DataFrame:
    """Queue climbing 0 -> 40 -> 0 pkts in steps of 1, 60 arrivals per step at 1.5 C, then an idle gap."""
    rng = np.random.default_rng(7)
    levels = np.r_[np.arange(0, 41), np.arange(39, -1, -1)]
    t, q, es = [], [], []
    now = 0.0
    for _ in range(cycles):
        for lv in levels:
            for _ in range(60):
                now += 1.0 / (1.5 * PKT_RATE)
                t.append(now)
                q.append(lv)
                es.append(np.nan)
        empty_at = now + 1.0 / PKT_RATE  # the last packet leaves one service time later
        now = empty_at + rng.uniform(0.5, 2.0)  # idle gap
        # the first arrival of the next cycle finds the queue empty since `empty_at`
        t.append(now)
        q.append(0)
        es.append(empty_at)
    t, e = _grid(t), np.asarray(es)
    e = np.where(np.isnan(e), np.nan, np.minimum(_grid(np.nan_to_num(e)), t))
    return pd.DataFrame({"time_s": t, "q_pkts": np.asarray(q, np.int64), "empty_since_s": e})


def fifo_trace(duration_s: float, seed: int = 3) -> pd.DataFrame:
    """A FIFO at 187.5 pkt/s fed by Poisson arrivals alternating 0.85 C / 1.0 C every 20 s; per arrival the
    queue found (packets, before the arrival) and, if it is empty, when it emptied."""
    rng = np.random.default_rng(seed)
    t, now = [], 0.0
    while now < duration_s:
        lam = (0.85 if int(now // 20.0) % 2 == 0 else 1.0) * PKT_RATE
        now += rng.exponential(1.0 / lam)
        t.append(now)
    t = np.unique(_grid(t))
    service = 1.0 / PKT_RATE
    n = len(t)
    dep = np.empty(n)
    q = np.zeros(n, np.int64)
    es = np.full(n, np.nan)
    j = 0  # first packet not yet departed
    last_dep = 0.0
    for i in range(n):
        while j < i and dep[j] <= t[i]:
            j += 1
        q[i] = i - j
        if q[i] == 0:
            es[i] = _grid(min(last_dep, t[i])) if i else t[i]
            es[i] = min(es[i], t[i])
        start = max(t[i], dep[i - 1] if i else 0.0)
        dep[i] = start + service
        last_dep = dep[i]  # the queue empties at the last departure before the next idle arrival
    return pd.DataFrame({"time_s": t, "q_pkts": q, "empty_since_s": es})


def reference(time_s, q_pkts, empty_since_s, verdicts, *, min_th=MIN_TH, max_th=MAX_TH, max_p=MAX_P, w_q=W_Q,
              pkt_rate=PKT_RATE) -> pd.DataFrame:
    """Independent Floyd-Jacobson RED (ALGORITHMS.md §3.2, P001 App. B, not gentle, packet mode), given
    the outcome of each arrival (`verdicts`, True = dropped): avg, p_b, p_a and count per arrival."""
    t = np.asarray(time_s, float)
    q = np.asarray(q_pkts, float)
    es = np.asarray(empty_since_s, float)
    dropped = np.asarray(verdicts, bool)
    n = len(t)
    avg_o, pb_o, pa_o, raw_o = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    cnt_o = np.empty(n, np.int64)
    avg, count = 0.0, -1
    for i in range(n):
        if not np.isnan(es[i]):
            m = (t[i] - es[i]) * pkt_rate  # idle time in packet transmission times
            if m > 0:
                avg *= (1.0 - w_q) ** m
        avg = (1.0 - w_q) * avg + w_q * q[i]
        if avg < min_th:
            count, p_b, raw = -1, 0.0, 0.0
        elif avg < max_th:
            count += 1
            p_b = max_p * (avg - min_th) / (max_th - min_th)
            raw = math.inf if count * p_b >= 1.0 else p_b / (1.0 - count * p_b)
            if dropped[i]:
                count = 0
        else:
            p_b, raw, count = 1.0, 1.0, 0
        # F&J's p_b / (1 - count p_b) exceeds 1 when 1 - p_b < count p_b < 1; p_a is the drop probability
        avg_o[i], pb_o[i], pa_o[i], raw_o[i], cnt_o[i] = avg, p_b, min(raw, 1.0), raw, count
    return pd.DataFrame({"avg": avg_o, "p_b": pb_o, "p_a": pa_o, "p_a_formula": raw_o, "count": cnt_o})


def reference_ns2(time_s, q_pkts, empty_since_s, verdicts, *, min_th=MIN_TH, max_th=MAX_TH, max_p=MAX_P, w_q=W_Q,
                  pkt_rate=PKT_RATE) -> pd.DataFrame:
    """Independent reading of ns-2's queue/red.cc `REDQueue::enque` and `modify_p` (wait_ true, gentle_ false,
    packet mode), given the outcome of each arrival: `++count` per arrival; `if (qavg >= th_min && qlen > 1)`:
    forced drop at qavg >= th_max, else the first arrival of a dropping regime (`old == 0`) passes with count = 1,
    else p_b = max_p (avg - min_th)/(max_th - min_th) and, with wait_, p_a = 0 while count p_b < 1, p_b/(2 - count p_b)
    below 2, else 1 (capped at 1); a drop sets count = 0; otherwise `old = 0`. After an idle period red.cc
    computes `m = int(edp_.ptc * (now - idletime_))` and calls `estimator(nqueued, m + 1, ...)`, i.e. the
    average decays by (1 - w_q)^m with m truncated to whole packet times before the arrival's own update.
    Columns as `reference`, plus `early` (the arrival went through drop_early) and `must_pass`."""
    t = np.asarray(time_s, float)
    q = np.asarray(q_pkts, float)
    es = np.asarray(empty_since_s, float)
    dropped = np.asarray(verdicts, bool)
    n = len(t)
    avg_o, pb_o, pa_o = np.empty(n), np.empty(n), np.empty(n)
    cnt_o = np.empty(n, np.int64)
    early_o, pass_o = np.zeros(n, bool), np.zeros(n, bool)
    avg, count, old = 0.0, 0, 0
    for i in range(n):
        if not np.isnan(es[i]):
            m = math.floor((t[i] - es[i]) * pkt_rate)  # red.cc: m = int(ptc * idle time), idle time >= 0
            if m > 0:
                avg *= (1.0 - w_q) ** m
        avg = (1.0 - w_q) * avg + w_q * q[i]
        count += 1
        p_b = p_a = 0.0
        if avg >= min_th and q[i] > 1:
            if avg >= max_th:
                p_b = p_a = 1.0
                count = 0
            elif old == 0:
                count, old = 1, 1
                pass_o[i] = True
            else:
                p_b = max_p * (avg - min_th) / (max_th - min_th)
                cp = count * p_b
                p_a = 0.0 if cp < 1.0 else (min(1.0, p_b / (2.0 - cp)) if cp < 2.0 else 1.0)
                early_o[i] = True
                if dropped[i]:
                    count = 0
        else:
            old = 0
            pass_o[i] = True
        avg_o[i], pb_o[i], pa_o[i], cnt_o[i] = avg, p_b, p_a, count
    return pd.DataFrame({"avg": avg_o, "p_b": pb_o, "p_a": pa_o, "count": cnt_o, "early": early_o, "must_pass": pass_o})


def compare_ns2(trace: pd.DataFrame, seed: int = SEED) -> tuple[pd.DataFrame, dict]:
    """Engine replay of the P0 runs' RED (ns-2 rules) vs `reference_ns2` on one trace."""
    eng = cc.aqm.red_replay(aqm(ns2=True), time_s=trace.time_s, q_pkts=trace.q_pkts, empty_since_s=trace.empty_since_s,
                            rate_bps=RATE_BPS, packet_bytes=PACKET_BYTES, seed=seed)
    drop = (eng.verdict == "drop").to_numpy()
    ref = reference_ns2(trace.time_s, trace.q_pkts, trace.empty_since_s, drop)
    df = eng.join(ref.add_suffix("_ref"))
    early = df.early_ref.to_numpy()
    forced_drop = (df.avg_ref >= MAX_TH).to_numpy() & (df.q_pkts.to_numpy() > 1) if "q_pkts" in df else \
        ((df.avg_ref >= MAX_TH).to_numpy() & (trace.q_pkts.to_numpy() > 1))
    pa = df.p_a_ref[early].to_numpy()
    sd = float(np.sqrt(np.sum(pa * (1 - pa))))
    n_early = int(drop[early].sum())
    eng_pa = np.minimum(df.p_a.to_numpy(), 1.0)
    s = {
        "arrivals": int(len(df)), "below_min_th": int((df.avg_ref < MIN_TH).sum()), "in_ramp": int(early.sum()),
        "at_or_above_max_th": int(forced_drop.sum()), "idle_arrivals": int(trace.empty_since_s.notna().sum()),
        "small_queue_passes": int((df.must_pass_ref & (df.avg_ref >= MIN_TH)).sum()),
        "max_abs_diff_avg": float(np.max(np.abs(df.avg - df.avg_ref))),
        "max_abs_diff_p_b": float(np.max(np.abs(df.p_b - df.p_b_ref))),
        "max_abs_diff_p_a": float(np.max(np.abs(eng_pa - df.p_a_ref))),
        "count_mismatches": int((df["count"][early] != df.count_ref[early]).sum()),
        "marks": int((eng.verdict == "mark").sum()),
        "drops_below_min_th": int(drop[df.must_pass_ref.to_numpy()].sum()),
        "accepts_at_or_above_max_th": int((~drop[forced_drop]).sum()),
        "accepts_with_p_a_1": int((~drop[early & (df.p_a_ref.to_numpy() >= 1.0)]).sum())
        + int(drop[early & (df.p_a_ref.to_numpy() <= 0.0)].sum()),
        "max_p_a": float(eng_pa.max()), "p_a_formula_above_1": 0,
        "early_drops": n_early, "sum_p_a": float(pa.sum()), "early_drop_sd": sd,
        "early_drop_z": float((n_early - pa.sum()) / sd) if sd > 0 else float("nan"),
        "mean_p_a_ramp": float(pa.mean()) if len(pa) else float("nan"),
        "drop_freq_ramp": float(drop[early].mean()) if early.any() else float("nan"),
    }
    return df, s


def compare(trace: pd.DataFrame, seed: int = SEED) -> tuple[pd.DataFrame, dict]:
    """Engine replay vs reference on one trace: the joined frame and the summary numbers."""
    eng = cc.aqm.red_replay(aqm(), time_s=trace.time_s, q_pkts=trace.q_pkts, empty_since_s=trace.empty_since_s,
                            rate_bps=RATE_BPS, packet_bytes=PACKET_BYTES, seed=seed)
    drop = (eng.verdict == "drop").to_numpy()
    ref = reference(trace.time_s, trace.q_pkts, trace.empty_since_s, drop)
    df = eng.join(ref.add_suffix("_ref"))
    below, above = df.avg_ref < MIN_TH, df.avg_ref >= MAX_TH
    ramp = ~below & ~above
    # p_a = min(1, p_b/(1 - count p_b)) in both implementations (the engine caps its reported p_a at 1)
    pa = df.p_a_ref[ramp].to_numpy()
    early = int(drop[ramp].sum())
    sd = float(np.sqrt(np.sum(pa * (1 - pa))))
    s = {
        "arrivals": int(len(df)), "below_min_th": int(below.sum()), "in_ramp": int(ramp.sum()), "at_or_above_max_th": int(above.sum()),
        "idle_arrivals": int(trace.empty_since_s.notna().sum()),
        "max_abs_diff_avg": float(np.max(np.abs(df.avg - df.avg_ref))),
        "max_abs_diff_p_b": float(np.max(np.abs(df.p_b - df.p_b_ref))),
        "max_abs_diff_p_a": float(np.max(np.abs(df.p_a - df.p_a_ref))),
        "count_mismatches": int((df["count"] != df.count_ref).sum()),
        "marks": int((eng.verdict == "mark").sum()),
        "drops_below_min_th": int(drop[below].sum()), "accepts_at_or_above_max_th": int((~drop[above]).sum()),
        "accepts_with_p_a_1": int((~drop[ramp & (df.p_a_ref >= 1.0)]).sum()),
        "max_p_a": float(df.p_a.max()),
        "p_a_formula_above_1": int(((df.p_a_formula_ref > 1.0) & np.isfinite(df.p_a_formula_ref)).sum()),
        "early_drops": early, "sum_p_a": float(pa.sum()), "early_drop_sd": sd,
        "early_drop_z": float((early - pa.sum()) / sd) if sd > 0 else float("nan"),
        "mean_p_a_ramp": float(pa.mean()) if len(pa) else float("nan"),
        "drop_freq_ramp": float(drop[ramp].mean()) if ramp.any() else float("nan"),
    }
    return df, s


def run(quick: bool) -> Run:
    traces = {"staircase": staircase_trace(2 if quick else 8), "fifo": fifo_trace(60.0 if quick else 240.0)}
    frames, values = {}, {}
    for name, tr in traces.items():
        for label, fn in ((name, compare), (f"{name} (ns-2 rules)", compare_ns2)):
            df, s = fn(tr)
            df.insert(0, "trace", label)
            frames[label] = df[["trace", "time_s", "q_pkts", "avg", "p_b", "p_a", "count", "verdict", "avg_ref", "p_a_ref"]]
            values[label] = s
    return Run(params={"min_th_pkts": MIN_TH, "max_th_pkts": MAX_TH, "max_p": MAX_P, "w_q": W_Q, "gentle": False,
                       "action": "drop", "byte_mode": False, "packet_bytes": PACKET_BYTES, "rate_bps": RATE_BPS,
                       "time_grid_s": GRID_S, "seed": SEED, "traces": list(traces)},
               frames={"replay": pd.concat(frames.values(), ignore_index=True)}, values=values, seeds=[SEED], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    for name, s in run.values.items():
        c.add(f"{name}: covers all three regions and idle arrivals",
              [s["below_min_th"], s["in_ramp"], s["at_or_above_max_th"], s["idle_arrivals"]],
              min(s["below_min_th"], s["in_ramp"], s["at_or_above_max_th"], s["idle_arrivals"]) > 0, "> 0 each", "trace design")
        if "small_queue_passes" in s:
            c.add(f"{name}: exercises the small-queue rule (passes with avg ≥ min_th)", s["small_queue_passes"],
                  s["small_queue_passes"] > 0, "> 0", "trace design")
        for k in ("avg", "p_b", "p_a"):
            c.add(f"{name}: max |engine - reference| {k}", s[f"max_abs_diff_{k}"], s[f"max_abs_diff_{k}"] <= EXACT,
                  f"≤ {EXACT:g}", "same formulas, float rounding only")
        c.add(f"{name}: count mismatches", s["count_mismatches"], s["count_mismatches"] == 0, "0", "exact")
        c.add(f"{name}: p_a ≤ 1 (a probability)", s["max_p_a"], s["max_p_a"] <= 1.0, "≤ 1",
              "F&J's p_b/(1 - count p_b) exceeds 1 for 1 - p_b < count p_b < 1; drop probability min(1, ·)")
        forced = s["drops_below_min_th"] + s["accepts_at_or_above_max_th"] + s["accepts_with_p_a_1"] + s["marks"]
        c.add(f"{name}: forced decisions (accept below min_th, drop at/above max_th or p_a = 1, no marks)", forced,
              forced == 0, "0 violations", "deterministic rules, not gentle, action drop")
        c.add(f"{name}: early drops vs Σ p_a (z)", s["early_drop_z"], abs(s["early_drop_z"]) <= Z_MAX,
              f"|z| ≤ {Z_MAX:g}", "Bernoulli(p_a) per arrival given the past: sd = sqrt(Σ p_a (1 - p_a))")
    meas = {f"{n}_{k}": s[k] for n, s in run.values.items()
            for k in ("arrivals", "in_ramp", "max_abs_diff_avg", "max_abs_diff_p_a", "max_p_a", "p_a_formula_above_1",
                      "early_drops", "sum_p_a", "early_drop_z")}
    # Engine RED (ccscope.aqm.red_replay, the code a port runs) against an independent numpy Floyd-Jacobson
    # implementation (ALGORITHMS.md §3.2) on synthetic queue traces; the reference is given the engine's verdicts, so
    # the random draws are shared and every other quantity must agree. Appendix-B values: min_th 5, max_th 15, max_p
    # 0.1 [NG], w_q 0.002, not gentle, drop, packet mode. (The P0 runs add ns-2's small-queue rule and wait_ spacing,
    # tested against ns-2's enque logic in the engine's unit test ns2_small_queue_rule_follows_ns2_enque.)
    return verdict(c, meas, tolerance=f"avg/p_b/p_a to {EXACT:g}, count exact, early drops within {Z_MAX:g} binomial sd")


def plot(run: Run):
    d = run.frames["replay"]
    fig, axes = figure(2, 1, width=8, height=6)
    for ax, (name, g) in zip(axes[:, 0], [("staircase", d[d.trace == "staircase"]), ("fifo", d[d.trace == "fifo"])]):
        if name == "fifo":
            g = g[g.time_s <= g.time_s.min() + 40.0]
        ax.plot(g.time_s, g.q_pkts, lw=0.6, color="0.65", label="instantaneous queue (before arrival)")
        ax.plot(g.time_s, g.avg, lw=1.2, color="C0", label="RED avg (engine)")
        ax.plot(g.time_s, g.avg_ref, lw=0.8, ls=":", color="C3", label="avg (numpy reference)")
        ref_line(ax, MIN_TH, "min_th 5", color="C2")
        ref_line(ax, MAX_TH, "max_th 15", color="C1")
        dr = g[g.verdict == "drop"]
        top = max(float(g.q_pkts.max()), MAX_TH) * 1.05
        forced = dr.avg >= MAX_TH
        ax.plot(dr.time_s[~forced], np.full((~forced).sum(), top), "|", color="C3", ms=6, label="early drop")
        ax.plot(dr.time_s[forced], np.full(forced.sum(), top * 1.04), "|", color="k", ms=6, label="forced drop (avg ≥ max_th)")
        s = run.values[name]
        ax.set_title(f"{ID} — {name} trace: max |Δavg| {s['max_abs_diff_avg']:.1e}, early drops {s['early_drops']} vs "
                     f"Σp_a {s['sum_p_a']:.1f} (z {s['early_drop_z']:+.2f})", fontsize=8)
        ax.set_ylabel("packets")
        ax.legend(fontsize=6, loc="upper right", ncol=2)
    axes[1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    return fig
