"""dx/fig4a: average cwnd vs N (R0 = 120 us): 1 seg in the special state (setup Y0, see `_y0`)."""
from __future__ import annotations


from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig4a"
TITLE = "average cwnd vs N (R0 = 120 us): 1 seg in the special state"
KIND = "sim"
STATUS = "reproduced"
COST = "7 x 0.3 s (~1 s); quick 2 x 0.1 s"
CLAIM = "The special-state condition is N >= 100 at R0 = 120 us; there the average window is 1 segment."


def run(quick: bool) -> Run:
    ns = [50, 120] if quick else [20, 40, 60, 80, 100, 120, 140]
    d = _y0.table([(n, 120) for n in ns], until_s=0.1 if quick else 0.3)
    return Run(params={**_y0.PARAMS, "r0_us": 120, "n": ns}, frames={"sweep": d}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].set_index("n").cwnd_mean_pkts
    for n, w in d.items():
        if n >= 120:  # +-0.02: the sampled cwnd of a flow pinned at the 1-seg floor is exactly 1
            c.near(f"mean cwnd at N = {n}", w, 1.0, 0.02, "1 seg +-0.02")
        elif n <= 80:
            c.add(f"mean cwnd at N = {n}", w, w >= 1.2, ">= 1.2", "[DER] W0 = 2.1 seg at N = 50")
    return verdict(c, {f"cwnd(N={k})": float(v) for k, v in d.items()},
                   notes="N = 100 is exactly on the boundary C R0/seg = 100 and only logged.")


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "n", "cwnd_mean_pkts", xlabel="number of flows N", ylabel="average cwnd (segments)",
                      title="DX R0 = 120 us: average cwnd vs N (Fig. 4a)", refs=[(100, "special state N >= 100", True), (1, "1 segment", False)])
