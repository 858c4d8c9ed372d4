"""periodic/text-buffer-748: the buffer that lets every flow sit at its receiver window (§II.C.2).

Closed form (flows × rwnd)/C = RTT + B/C; simulation of P0 fixed RTT with B = 750 (just above) and
B = 700 (below)."""
from __future__ import annotations

import pandas as pd

from ccscope.repro._base import SIMULATOR_MISSES_TOO, Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/text-buffer-748"
TITLE = "B = 50·20 − 187.5·1.34 ≈ 748 pkts lets every flow sit at rwnd"
KIND = "both"
# The B = 700 contrast run varies its total window by only 1.2 % (< the 2 % check); B = 750 is drop-free
# with every window at rwnd (see CAUSE).
STATUS = "reproduced"
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
    c.add("B = 750: no drops after warm-up", v["750"]["drops_after_warmup"], v["750"]["drops_after_warmup"] == 0, "0", "exact")
    c.add("B = 750: total wnd ≥ 990 for ≥ 99% of the time", v["750"]["total_wnd_frac_ge_990"],
          v["750"]["total_wnd_frac_ge_990"] >= 0.99, "≥ 0.99", "every flow at rwnd")
    c.add("B = 700: drops", v["700"]["drops_after_warmup"], v["700"]["drops_after_warmup"] > 0, "> 0", "below the bound")
    # CV ≥ 0.02: FIGURES.md's reading of 'visible cycling' (any drop cuts one window of 20 by half, ≥ 1% of
    # 1000; a cycle of several gives ≥ 2%). Advisory: ns-2, the paper's simulator, run on this setup with the
    # same start times drops 400 packets at B = 700 but its total window varies by only CV 0.010
    # (docs/models/periodic_ns2.md); the paper's own statement is the drop/no-drop edge checked above.
    c.add("B = 700: CV(total wnd) ≥ 0.02", v["700"]["total_wnd_cv"], v["700"]["total_wnd_cv"] >= 0.02, "≥ 0.02",
          "visible cycling; ns-2 on this setup: 0.010", basis=SIMULATOR_MISSES_TOO)
    return verdict(c, {"closed_form_pkts": v["closed_form_pkts"], "drops_750": v["750"]["drops_after_warmup"],
                       "frac_ge_990_750": v["750"]["total_wnd_frac_ge_990"], "drops_700": v["700"]["drops_after_warmup"],
                       "cv_700": v["700"]["total_wnd_cv"]}, tolerance="exact closed form; FIGURES.md thresholds",
                   notes=_p0.CAUSE if v["700"]["total_wnd_cv"] >= 0.02 else CAUSE.format(
                       cv=v["700"]["total_wnd_cv"], drops=v["700"]["drops_after_warmup"]) + _p0.SETUP_NOTE)


CAUSE = ("B = 750 behaves as §II.C.2 says (no drops after warm-up, total wnd = 1000). The B = 700 contrast is weaker than "
         "FIGURES.md's CV ≥ 0.02: {drops} drops after warm-up but CV(total wnd) {cv:.4f}. 700 is only 49 pkts short of "
         "the 748.75-pkt bound, so the queue overflows only when nearly every flow sits at rwnd 20, and each loss cuts one "
         "window of 20 to 10 (1% of 1000) while the others stay at rwnd: the total window dips by a few percent now and "
         "then instead of cycling (inferred from the drop count). The '≥ 2%' is FIGURES.md's inference, not a number of the paper: "
         "ns-2 (ns-2.35, same setup and start times, DropTail limit 700; docs/models/periodic_ns2.md) gives 400 drops after "
         "warm-up and CV 0.010, below it too.")


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
