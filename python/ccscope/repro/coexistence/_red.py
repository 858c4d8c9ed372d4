"""RED (ECN) grids of coexistence Figs 4(b)/(c): p_max = 0.1, w_q = 0.002, not gentle [NG]; mark above max_th.

Parameter sources (E62): the paper gives neither p_max nor w_q; it ran ns-2. ns-2.35's defaults are q_weight_ = -1
("automatic": w_q = 1 - exp(-1/(10 max(0.1 s, 3(d + 1/C)) C)), C in packets/s, i.e. ~1/C = 1.2e-5 at 1 Gb/s with
1500-B mean_pktsize_, 4e-6 with the default 500 B), linterm_ = 10 (p_max = 0.1), gentle_ = true and use_mark_p_
(ECT packets dropped once p >= mark_p_ = 0.1); the last two contradict the paper's stated rule (mark everything above
max_th), so ccscope keeps FIGURES.md's [NG] w_q = 0.002 (Floyd & Jacobson's value, ns-2's pre-2.1b9 default),
p_max = 0.1, not gentle. None of these choices reaches the paper's T_r (see `cause`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import figure
from ccscope.repro.coexistence._x0 import run_x0


def red(min_th: float, max_th: float) -> dict:
    return {"kind": "red", "min_th_pkts": min_th, "max_th_pkts": max_th, "max_p": 0.1, "w_q": 0.002, "gentle": False,
            "action": "mark"}


def grid(pairs, *, quick: bool) -> pd.DataFrame:
    seeds = [1, 2] if quick else list(range(1, 11))
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
                    "t_r_sqrt_law": 1.64 / np.sqrt(p) if p > 0 else float("nan")})
    return out


def cause(g: dict) -> str:
    """The cause text of the RED entries, with the run's own numbers (`diagnose`)."""
    nan = float("nan")
    if g["dead_seeds"]:
        loss = (f"In {g['dead_seeds']} of {g['seeds']} seeds RED still dropped a NewReno packet after warm-up (a Not-ECT "
                f"packet; {g['tcp_timeouts_dead']:.1f} timeouts per such seed), which should not happen with ECT "
                "retransmissions and is excluded from the T_r below. ")
    else:
        loss = (f"No NewReno packet is dropped by RED after warm-up in any of the {g['seeds']} seeds "
                f"({g.get('tcp_timeouts_live', nan):.1f} timeouts per seed over the whole run, "
                f"{g['overflow_drops_tcp_post']} NewReno overflow drops after warm-up"
                + (": in 1-s quick runs NewReno's recovery from the first slow-start overshoot, one hole per RTT, "
                   "can run past the 0.2-s warm-up" if g["overflow_drops_tcp_post"] else "") + "). ")
    live = (f"The un-starved seeds give T_r = {g.get('t_r_live', nan):.1f}, with per-packet mark fractions TCP "
            f"{100 * g.get('p_tcp_live', nan):.1f}% and DCTCP {100 * g.get('p_dctcp_live', nan):.1f}%: RED in its ramp "
            "marks both flows alike, DCTCP settles at W ~ 2/p (alpha ~ p, one alpha/2 cut per window) and NewReno at "
            "the square-root law W ~ 1.22/sqrt(p), so T_r ~ 1.64/sqrt(p) = "
            f"{g.get('t_r_sqrt_law', nan):.1f}. ") if g["seeds"] > g["dead_seeds"] else ""
    return ("NewReno sends its retransmissions ECT as ns-2 does ([NG → ns-2 behaviour], see _x0), so RED marks them "
            "instead of dropping them. " + loss + "(With RFC 3168 Not-ECT retransmissions, the earlier setting, 42 of "
            "fig4b's 70 seeds starved in RTO back-off spirals after the slow-start overshoot and the all-seed T_r "
            "reached 12-93; that starvation was an artefact of the retransmission ECN semantics, not of RED.) "
            + live + "This is the whole gap to the paper: its T_r ~ 2-3.5 would need p ~ 0.2-0.7, i.e. windows "
            "totalling under the 21-pkt BDP, unreachable in RED's ramp with any w_q or p_max (diagnostic runs of X0 at "
            "50/100, 10 seeds x 5 s, w_q varied only to test the cause: w_q = 1 -> T_r 11.3, 0.02 -> 10.9, 0.002 -> "
            "10.6, ns-2's automatic 1.2e-5 -> 10.3, mark fractions 3.3-3.9%, no seed starved). The paper's numbers need "
            "a regime where the average often exceeds max_th and every packet is marked (DCTCP's alpha then rises "
            "towards 1 and it halves like TCP), which its unstated RED parameters may have produced. Not tuned. "
            "P003's own simulator with a standard DCTCP agrees with ccscope: ns-2.35 with DCTCP added as P000 §2 "
            "describes (docs/models/dctcp_ns2.md), X0, 10 seeds x 5 s, gives T_r = 10.3 / 10.8 / 11.1 at min_th 30 / "
            "50 / 90 (max_th 100) and 9.8 -> 12.4 for max_th 65 -> 200 (min_th 45), rising as here, while its "
            "DropTail (0.97) and DCTCP-AQM runs (5.0 / 8.1 / 12.2 at K = 20 / 65 / 150) land on the paper's values; "
            "with ns-2's own RED defaults (byte mode, 500-B mean packet size, automatic w_q, gentle) it gives "
            "7.0 / 7.4 / 3.7 and 6.8 -> 8.1.")


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

