"""dx/fig4a: average cwnd vs N (R0 = 120 us): 1 seg in the special state (setup Y0, see `_y0`)."""
from __future__ import annotations


from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import MECH, cause_key
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig4a"
TITLE = "average cwnd vs N (R0 = 120 us): 1 seg in the special state"
KIND = "sim"
COST = "7 points x 10 seeds x 0.3 s (full ~18 s wall); quick 2 x 3 seeds x 0.1 s"
CAUSE = {"partly": MECH + "Over {v.n_seeds} seeds at base RTT {v.r0} us: mean cwnd {v.cwnd} seg at N = {v.ns}; "
                           "failed rows: {v.failed}."}
CLAIM = "The special-state condition is N >= 100 at R0 = 120 us; there the average window is 1 segment."


def run(quick: bool) -> Run:
    ns = [50, 120] if quick else [20, 40, 60, 80, 100, 120, 140]
    sd = _y0.seeds(quick)
    d = _y0.table([(n, 120) for n in ns], until_s=0.1 if quick else 0.3, seeds=sd)
    return Run(params={**_y0.PARAMS, "r0_us": 120, "n": ns}, frames={"runs": d, "sweep": _y0.summary(d)},
               seeds=list(sd), quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].set_index("n")
    w, s = d.cwnd_mean_pkts, d.cwnd_mean_pkts_se
    for n in w.index:
        if n >= 120:  # +-0.02: the sampled cwnd of a flow pinned at the 1-seg floor is exactly 1
            _y0.band(c, f"mean cwnd at N = {n}", w[n], s[n], 0.98, 1.02, "1 seg +-0.02")
        elif n <= 80:
            c.beyond(f"mean cwnd at N = {n} > 1.2", w[n], s[n], 1.2, ">", tolerance="2 se ([DER] W0 = 2.1 seg at N = 50)")
    failed = [x.name for x in c.items if not x.passed and not x.advisory]
    cv = {"n_seeds": int(d.n_seeds.iloc[0]), "r0": 120, "ns": [int(x) for x in w.index],
          "cwnd": [round(float(x), 3) for x in w], "failed": "; ".join(failed) or "none"}
    # N = 100 is exactly on the boundary C R0/seg = 100 and only logged
    return verdict(c, {f"cwnd(N={k})": float(v) for k, v in w.items()}, cause=cause_key(c), cause_values=cv)


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "n", "cwnd_mean_pkts", xlabel="number of flows N", ylabel="average cwnd (segments)",
                      title="DX R0 = 120 us: average cwnd vs N (Fig. 4a)", refs=[(100, "special state N >= 100", True), (1, "1 segment", False)])
