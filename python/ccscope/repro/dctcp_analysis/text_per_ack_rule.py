"""dctcp-analysis/text-per-ack-rule: the eq 36 window rule (per ACK W += 1/W; W -= alpha/2 if marked).

This is a unit-level reproduction of the rule itself (a few lines here, no engine): a fully marked
window removes about W alpha/2 without any once-per-window state. The engine's `dctcp_per_ack`
sender is exercised by dctcp-analysis/fig13.
"""
from __future__ import annotations

import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict

ID = "dctcp-analysis/text-per-ack-rule"
TITLE = "Eq 36: alpha/2 per marked ACK removes ~W alpha/2 per marked window"
KIND = "fluid"
COST = "trivial"
CLAIM = ("Subtracting alpha/2 per marked ACK removes about W alpha/2 per fully marked window (one DCTCP cut) "
         "without per-window state; a partly marked window cuts less.")


def feed(w: float, alpha: float, marks: list[bool]) -> list[float]:
    """Eq 36 applied to a sequence of ACKs; reads only (W, alpha)."""
    out = []
    for m in marks:
        w = w + 1.0 / w - (alpha / 2 if m else 0.0)
        out.append(w)
    return out


def run(quick: bool) -> Run:
    full = feed(100.0, 0.2, [True] * 100)
    part = feed(100.0, 0.2, [i % 10 < 3 for i in range(100)])
    return Run(params={"w0": 100, "alpha": 0.2, "acks": 100, "partial_marks": 30},
               frames={"trace": pd.DataFrame({"ack": range(1, 101), "all_marked": full, "30_marked": part})},
               values={"end_full": full[-1], "end_part": part[-1]}, quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    # 100 - 10 + ~1: 100 increments of 1/W with W ~ 95 add ~1.05
    c.near("all 100 ACKs marked: final W", v["end_full"], 91.0, 0.5, "+1/W increments ~ +1")
    c.near("30 of 100 marked: decrease", 100 + 1.0 - v["end_part"], 3.0, 0.5, "alpha/2 x 30 = 3")
    return verdict(c, v)


def plot(run: Run):
    t = run.frames["trace"]
    fig, ax = figure(width=6, height=3.8)
    ax = ax[0, 0]
    ax.plot(t.ack, t.all_marked, label="every ACK marked")
    ax.plot(t.ack, t["30_marked"], label="30% of ACKs marked")
    ref_line(ax, 91, "one DCTCP cut: 100(1 - 0.2/2) + 1")
    ax.set_xlabel("ACK number")
    ax.set_ylabel("cwnd (pkts)")
    ax.set_title("Eq 36 per-ACK rule, W0 = 100, alpha = 0.2")
    ax.legend(fontsize=8)
    return fig
