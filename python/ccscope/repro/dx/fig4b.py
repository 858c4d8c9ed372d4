"""dx/fig4b: average cwnd vs R0 (N = 50): 1 seg for R0 <= 60 us (setup Y0, see `_y0`)."""
from __future__ import annotations


from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import MECH, cause_key
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig4b"
TITLE = "average cwnd vs R0 (N = 50): 1 seg for R0 <= 60 us"
KIND = "sim"
COST = "7 points x 10 seeds x 0.3 s (full ~15 s wall); quick 2 x 3 seeds x 0.1 s"
CAUSE = {"partly": MECH + "Over {v.n_seeds} seeds at N = {v.n}: mean cwnd {v.cwnd} seg at base RTT {v.r0s} us; "
                           "failed rows: {v.failed}."}
CLAIM = "The special state holds for R0 <= 60 us at N = 50, where the average window is 1 segment."


def run(quick: bool) -> Run:
    r0s = [20, 120] if quick else [20, 40, 60, 80, 120, 200, 320]
    sd = _y0.seeds(quick)
    d = _y0.table([(50, r) for r in r0s], until_s=0.1 if quick else 0.3, seeds=sd)
    return Run(params={**_y0.PARAMS, "n": 50, "r0_us": r0s}, frames={"runs": d, "sweep": _y0.summary(d)},
               seeds=list(sd), quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].set_index("r0_us")
    w, s = d.cwnd_mean_pkts, d.cwnd_mean_pkts_se
    for r in w.index:
        if r <= 50:  # pinned at the 1-seg floor
            _y0.band(c, f"mean cwnd at R0 = {r:g} us", w[r], s[r], 0.98, 1.02, "1 seg +-0.02")
        elif r >= 80:
            c.beyond(f"mean cwnd at R0 = {r:g} us > 1.3", w[r], s[r], 1.3, ">", tolerance="2 se ([DER] W0 = 1.48 seg at 80 us)")
    failed = [x.name for x in c.items if not x.passed and not x.advisory]
    cv = {"n_seeds": int(d.n_seeds.iloc[0]), "n": 50, "r0s": [float(x) for x in w.index],
          "cwnd": [round(float(x), 3) for x in w], "failed": "; ".join(failed) or "none"}
    # R0 = 60 us is the boundary and only logged
    return verdict(c, {f"cwnd({int(k)}us)": float(v) for k, v in w.items()}, cause=cause_key(c), cause_values=cv)


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "r0_us", "cwnd_mean_pkts", xlabel="base RTT R0 (us)", ylabel="average cwnd (segments)",
                      title="DX N = 50: average cwnd vs R0 (Fig. 4b)", refs=[(60, "special state R0 <= 60 us", True), (1, "1 segment", False)])
