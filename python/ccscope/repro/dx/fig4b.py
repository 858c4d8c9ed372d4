"""dx/fig4b: average cwnd vs R0 (N = 50): 1 seg for R0 <= 60 us (setup Y0, see `_y0`)."""
from __future__ import annotations


from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig4b"
TITLE = "average cwnd vs R0 (N = 50): 1 seg for R0 <= 60 us"
KIND = "sim"
STATUS = "reproduced"
COST = "7 x 0.3 s (~1 s); quick 2 x 0.1 s"
CLAIM = "The special state holds for R0 <= 60 us at N = 50, where the average window is 1 segment."


def run(quick: bool) -> Run:
    r0s = [20, 120] if quick else [20, 40, 60, 80, 120, 200, 320]
    d = _y0.table([(50, r) for r in r0s], until_s=0.1 if quick else 0.3)
    return Run(params={**_y0.PARAMS, "n": 50, "r0_us": r0s}, frames={"sweep": d}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].set_index("r0_us").cwnd_mean_pkts
    for r, w in d.items():
        if r <= 50:  # pinned at the 1-seg floor
            c.near(f"mean cwnd at R0 = {r:g} us", w, 1.0, 0.02, "1 seg +-0.02")
        elif r >= 80:
            c.add(f"mean cwnd at R0 = {r:g} us", w, w >= 1.3, ">= 1.3", "[DER] W0 = 1.48 seg at 80 us")
    return verdict(c, {f"cwnd({int(k)}us)": float(v) for k, v in d.items()}, notes="R0 = 60 us is the boundary and only logged.")


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "r0_us", "cwnd_mean_pkts", xlabel="base RTT R0 (us)", ylabel="average cwnd (segments)",
                      title="DX N = 50: average cwnd vs R0 (Fig. 4b)", refs=[(60, "special state R0 <= 60 us", True), (1, "1 segment", False)])
