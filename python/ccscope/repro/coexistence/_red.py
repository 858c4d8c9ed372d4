"""RED (ECN) grids of coexistence Figs 4(b)/(c): p_max = 0.1, w_q = 0.002, not gentle [NG]; mark above max_th.

Parameter sources (E62): the paper gives neither p_max nor w_q; it ran ns-2. ns-2.35's defaults are q_weight_ = -1
("automatic": w_q = 1 - exp(-1/(10 max(0.1 s, 3(d + 1/C)) C)), C in packets/s, i.e. ~1/C = 1.2e-5 at 1 Gb/s with
1500-B mean_pktsize_, 4e-6 with the default 500 B), linterm_ = 10 (p_max = 0.1), gentle_ = true and use_mark_p_
(ECT packets dropped once p >= mark_p_ = 0.1); the last two contradict the paper's stated rule (mark everything above
max_th), so ccscope keeps FIGURES.md's [NG] w_q = 0.002 (Floyd & Jacobson's value, ns-2's pre-2.1b9 default),
p_max = 0.1, not gentle.

ns-2's RED code (docs/VERDICTS.md §4), decided from ns-2.35's queue/red.cc before the runs under this policy:
- small queue: REDQueue::enque tests `if (qavg >= edp_.th_min && qlen > 1)`; with at most one packet waiting
  nothing is marked or dropped early, and `edv_.old = 0`, so the next arrival in the marking regime passes and
  restarts `count` at 1 (engine `ns2_small_queue`);
- spacing: `Queue/RED set wait_ true` (ns-default.tcl); modify_p with `wait` gives p_a = 0 while count p_b < 1,
  p_b / (2 - count p_b) up to 2, then 1 (engine `ns2_wait`);
- above max_th: the paper states that every packet is marked. In ns-2.35 with `use_mark_p_ true` there is no
  forced drop above max_th (`if (!edp_.use_mark_p && ...) droptype = DTYPE_FORCED`); drop_early sees p = 1 and
  marks an ECT packet when `edv_.v_prob1 <= edp_.mark_p` (the DCTCP patch's `<=`, used with `mark_p_ 1.0`), which
  is the paper's rule, so `ns2_drop_ecn_above_p` stays off;
- idle period: REDQueue::enque counts it in whole packet times, `m = int(edp_.ptc * (now - idletime_))`, then
  `estimator(.., m + 1, ..)` (engine `ns2_idle_truncate`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import figure
from ccscope.repro.coexistence._x0 import PILOT_SEEDS, SEEDS, run_x0


#: T_r ~ K / sqrt(p) under flow-blind marking: DCTCP W ~ 2/p, NewReno W ~ sqrt(3/2)/sqrt(p) = 1.22/sqrt(p).
SQRT_LAW_K = 2 / np.sqrt(1.5)


def red(min_th: float, max_th: float) -> dict:
    return {"kind": "red", "min_th_pkts": min_th, "max_th_pkts": max_th, "max_p": 0.1, "w_q": 0.002, "gentle": False,
            "action": "mark", "ns2_small_queue": True, "ns2_wait": True,
            "ns2_idle_truncate": True}


def grid(pairs, *, quick: bool) -> pd.DataFrame:
    seeds = list(PILOT_SEEDS if quick else SEEDS)
    out = []
    for lo, hi in pairs:
        df, _ = run_x0(red(lo, hi), seeds=seeds, until_s=1.0 if quick else 5.0)
        out.append(df.assign(min_th=lo, max_th=hi))
    d = pd.concat(out, ignore_index=True)
    return d


def summarize(d: pd.DataFrame, by: str) -> pd.DataFrame:
    s = d.groupby(by).agg(tcp_share=("tcp_share", "mean"), queue=("queue_mean_pkts", "mean")).reset_index()
    s["t_r"] = (1 - s.tcp_share) / s.tcp_share
    return s


def diagnose(d: pd.DataFrame) -> dict:
    """Numbers behind `cause`: seeds whose NewReno flow lost Not-ECT retransmissions to RED after warm-up ("dead"),
    the T_r of the other seeds, their per-packet mark fractions and the square-root-law estimate from them."""
    dead = d.tcp_aqm_drops_post > 0
    live = d[~dead]
    out = {"seeds": int(len(d)), "dead_seeds": int(dead.sum()),
           "tcp_timeouts_dead": float(d[dead].tcp_timeouts.mean()) if dead.any() else 0.0,
           "tcp_timeouts_live": float(live.tcp_timeouts.mean()) if len(live) else float("nan"),
           "overflow_drops_tcp_post": int(d.tcp_overflow_drops_post.sum())}
    if len(live):
        s = float(live.tcp_share.mean())
        p = float(np.average([live.tcp_mark_frac.mean(), live.dctcp_mark_frac.mean()],
                             weights=[s, 1 - s]))
        out.update({"t_r_live": (1 - s) / s, "p_tcp_live": float(live.tcp_mark_frac.mean()),
                    "p_dctcp_live": float(live.dctcp_mark_frac.mean()),
                    "t_r_sqrt_law": SQRT_LAW_K / np.sqrt(p) if p > 0 else float("nan")})
    return out


#: Cause of the RED entries, filled from `diagnose` (cause_values "red"); the runs of other settings (w_q and p_max
#: varied, Not-ECT retransmissions, the DCTCP-in-ns-2 cross-check) are in docs/models/tcp_red.md.
RED_CAUSE = (
    "NewReno sends its retransmissions ECT as ns-2 does, so RED marks them instead of dropping them: "
    "{v.red.dead_seeds} of {v.red.seeds} runs lost a NewReno packet to RED after warm-up "
    "({v.red.tcp_timeouts_live:.2g} NewReno timeouts per run over the whole run, {v.red.overflow_drops_tcp_post} "
    "NewReno overflow drops after warm-up). In its ramp RED marks both flows alike, per packet and flow-blind "
    "(mark fractions TCP {v.red.p_tcp_live:.2%}, DCTCP {v.red.p_dctcp_live:.2%}): DCTCP settles where its alpha "
    "equals the mark fraction p and its window is about two over p, NewReno at the square-root law, so "
    "T_r ~ {v.red.sqrt_law_k:.3g}/sqrt(p) = {v.red.t_r_sqrt_law:.3g} against the measured {v.red.t_r_live:.3g}. The "
    "paper's ratios would need p large enough that the windows total less than the bandwidth-delay product, which "
    "RED's ramp does not reach with these parameters; other w_q and p_max values and ns-2 with a DCTCP port give "
    "the same picture (docs/models/tcp_red.md).")


def cause_values(g: dict) -> dict:
    """`diagnose`'s numbers for RED_CAUSE (NaN where no seed qualifies)."""
    nan = float("nan")
    return {"seeds": g["seeds"], "dead_seeds": g["dead_seeds"], "tcp_timeouts_live": g.get("tcp_timeouts_live", nan),
            "overflow_drops_tcp_post": g["overflow_drops_tcp_post"], "p_tcp_live": g.get("p_tcp_live", nan),
            "p_dctcp_live": g.get("p_dctcp_live", nan), "sqrt_law_k": SQRT_LAW_K,
            "t_r_sqrt_law": g.get("t_r_sqrt_law", nan), "t_r_live": g.get("t_r_live", nan)}


def live_t_r(d: pd.DataFrame, by: str) -> str:
    """T_r by `by` over the seeds without a starved NewReno flow (no RED drop after warm-up), as text."""
    live = d[d.tcp_aqm_drops_post == 0].groupby(by).tcp_share.mean()
    return ", ".join(f"{k}: {(1 - v) / v:.1f}" for k, v in live.items())


def plot_t_r(d: pd.DataFrame, by: str, paper: tuple[list, list, str], xlabel: str, title: str):
    """T_r against `by` on a log axis: all seeds, the un-starved seeds, and the paper's two end points."""
    s = summarize(d, by)
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    ax.plot(s[by], s.t_r, "o-", label="ccscope (mean share of all seeds)")
    live = summarize(d[d.tcp_aqm_drops_post == 0], by)
    ax.plot(live[by], live.t_r, "^-", label="ccscope, seeds without a starved NewReno flow")
    ax.set_yscale("log")
    ax.plot(paper[0], paper[1], "s--", color="0.3", label=paper[2])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("throughput ratio T_r = T_dctcp / T_tcp")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig

