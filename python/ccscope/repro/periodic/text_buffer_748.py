"""periodic/text-buffer-748: the buffer that lets every flow sit at its receiver window (§II.C.2).

Closed form (flows × rwnd)/C = RTT + B/C; simulation of P0 fixed RTT with B = 750 (just above) and
B = 700 (below)."""
from __future__ import annotations

import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/text-buffer-748"
TITLE = "B = 50·20 − 187.5·1.34 ≈ 748 pkts lets every flow sit at rwnd"
KIND = "both"
# The B = 700 contrast run varies its total window by only 1.2 % (< the 2 % check); B = 750 is drop-free
# with every window at rwnd (see CAUSE).
COST = "closed form + 2 runs × 4200 s (~3 s); quick 2 × 900 s"
QUICK_SIM_S = 900.0  # quick keeps the [0, 300] s starts (see _p0.setup)
CLAIM = ("(50 × 20)/C = RTT + B/C with C = 187.5 pkt/s and RTT 1.34 s gives B = 748 pkts, matching the 750-pkt "
         "DropTail buffer that just removed the periodicity in Fig 7a.")


def run(quick: bool) -> Run:
    closed = _p0.N_FLOWS * _p0.RWND - _p0.C_PKTS * 1.34
    runs = {b: _p0.run("fixed", "droptail", b, quick, sim_s=QUICK_SIM_S if quick else None) for b in (700, 750)}
    frames = []
    for b, m in runs.items():
        s = m["series"][["time_s", "total_wnd_pkts", "queue_pkts"]].copy()
        s.insert(0, "buffer_pkts", b)
        frames.append(s)
    return Run(params={"rtt": "fixed", "buffers": [700, 750], **_p0.setup(quick, sim_s=QUICK_SIM_S if quick else None), "seeds": _p0.seeds(quick)},
               frames={"series": pd.concat(frames)},
               values={"closed_form_pkts": closed, **{str(b): _p0.flatten_json(m) for b, m in runs.items()}},
               seeds=_p0.seeds(quick), quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.near("closed form B (pkts)", v["closed_form_pkts"], 748.75, 1e-9, "exact")
    d750, d700 = _p0.by_seed(v["750"], "drops_after_warmup"), _p0.by_seed(v["700"], "drops_after_warmup")
    # exact counts: no drop in any seed at 750, drops in every seed at 700
    c.add("B = 750: no drops after warm-up (every seed)", max(d750), max(d750) == 0, "0", "exact")
    _p0.beyond(c, "B = 750: total wnd ≥ 990 for ≥ 99% of the time", v["750"], "total_wnd_frac_ge_990", 0.99, ">", "≥ 0.99",
               "every flow at rwnd")
    c.add("B = 700: drops (every seed)", min(d700), min(d700) > 0, "> 0", "below the bound")
    # CV ≥ 0.02: FIGURES.md's reading of 'visible cycling' (any drop cuts one window of 20 by half, ≥ 1% of 1000; a
    # cycle of several gives ≥ 2%). Strict: ns-2 measured it on seed 1 only (docs/models/periodic_ns2.md), not on
    # the seeds averaged here.
    _p0.beyond(c, "B = 700: CV(total wnd) ≥ 0.02", v["700"], "total_wnd_cv", 0.02, ">", "≥ 0.02", "visible cycling")
    cv = {"seeds": _p0.seeds_text(v["700"]), "d700": ", ".join(f"{x:.0f}" for x in d700),
          "d750": ", ".join(f"{x:.0f}" for x in d750), "cv700": v["700"]["total_wnd_cv"],
          "cv700_by_seed": _p0.per_seed_text(v["700"], "total_wnd_cv", ".4f"), "frac750": v["750"]["total_wnd_frac_ge_990"], "b_hi": 750, "b_lo": 700}
    return verdict(c, {"closed_form_pkts": v["closed_form_pkts"], "drops_750": v["750"]["drops_after_warmup"],
                       "frac_ge_990_750": v["750"]["total_wnd_frac_ge_990"], "drops_700": v["700"]["drops_after_warmup"],
                       "cv_700": v["700"]["total_wnd_cv"]},
                   tolerance="exact closed form; FIGURES.md thresholds; two standard errors over the seeds",
                   cause=_p0.failing_cause(c, "contrast"), cause_values=cv)


SEEDS = _p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
#: Cause template (docs/VERDICTS.md §5); ns-2 on this setup: docs/models/periodic_ns2.md.
CAUSE = {"contrast": (
    "B = {v.b_hi:g}: drops after warm-up per seed {v.d750}, total wnd at or above the line during {v.frac750:.3f} of the "
    "window. B = {v.b_lo:g}: drops per seed {v.d700}, CV(total wnd) {v.cv700:.4f} (seeds: {v.cv700_by_seed}): the queue "
    "overflows only when nearly every flow sits at rwnd, and each loss halves one window while the others stay at "
    "rwnd, so the total window dips now and then instead of cycling. ns-2 on this setup: "
    "docs/models/periodic_ns2.md." + _p0.SETUP)}


def plot(run: Run):
    d = run.frames["series"]
    fig, axes = figure(width=7, height=4)
    ax = axes[0, 0]
    for b, g in d.groupby("buffer_pkts"):
        ax.plot(g.time_s, g.total_wnd_pkts, lw=0.8, label=f"DropTail B = {b}")
    ref_line(ax, 1000, "50 × rwnd 20 = 1000 (B ≥ 748)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("total wnd (pkts)")
    ax.set_title(ID, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
