"""dctcp-analysis/fig10: bottleneck throughput vs marking threshold K (packet simulation).

D0: C = 10 Gb/s, d = 480 µs (BDP 400 pkts), g = 0.05, N ∈ {2, 25} long-lived flows, buffer 1000 pkts, no
delayed ACKs, starts jittered in [0, 1 ms], ns-2 ECN-Echo growth rule. [NG: K ∈ {4, 8, 12, 20, 30, 40, 65, 100};
TCP = NewReno + ECN (RFC 3168: halve once per window on a mark) with the same 0/1 marking at K; 1 s per run,
throughput over the last 0.8 s.] Fluid reference: the worst case over w̄ at ψ = K/400 for g = 0.05
(`dctcp-analysis/fig9`'s [DER] table, linear in ψ between its points, 100% from ψ = 0.17).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.repro._base import Checks, Run, figure, se, verdict
from ccscope.repro.dctcp_analysis._ns2 import TCP as NS2_TCP
from ccscope.repro.dctcp_analysis.fig9 import DER_G005

ID = 'dctcp-analysis/fig10'
TITLE = 'Throughput vs marking threshold K (packet simulation)'
KIND = 'sim'
COST = 'full: 32 runs × 2 seeds × 1 s × 10 Gb/s ≈ 54 M pkts (~20 s); quick 3 runs × 2 seeds × 0.12 s'
CLAIM = ('DCTCP stays above 94% even at K = 4 (1% of BDP), always above the fluid worst case, and does worse with N = 25 '
         '(w̄ ≈ 16, near the worst case) than with N = 2; TCP loses much more and improves with more flows.')
C, D, G, BDP = 10e9, 480e-6, 0.05, 400


def fluid_worst(k: float) -> float:
    xs = sorted(DER_G005)
    return float(np.interp(k / BDP, xs, [DER_G005[x] for x in xs], right=1.0))


def _sim(kind: str, n: int, k: int, until: float, t0: float, seed: int) -> float:
    # ns-2's TCP timers and ECT rule for both kinds (dctcp_analysis._ns2)
    kw = {"tcp": cc.scenario.TcpConfig(ecn=kind != "dctcp", **NS2_TCP)}
    if kind == "dctcp":
        kw["dctcp"] = cc.scenario.DctcpConfig(g=G)
    sc = cc.scenario.dumbbell(n, cc=kind, bottleneck_bps=C, rtt_s=D, aqm=cc.aqm.threshold(k_pkts=k), buffer_pkts=1000,
                              start_jitter_s=1e-3, seed=seed, record=cc.scenario.RecordConfig(queue_interval_s=1e-4), **kw)
    res = cc.simulate(sc, until_s=until, record=["link"])
    lk = res.traces["link"]
    lk = lk[(lk.port == res.summary["bottleneck_port"]) & (lk.time_s >= t0)]
    return float((lk.tx_bytes.iloc[-1] - lk.tx_bytes.iloc[0]) * 8 / (C * (lk.time_s.iloc[-1] - lk.time_s.iloc[0])))


#: Pilot: the quick variant's seeds. Full seeds fixed from the pilot before the full run:
#: n >= (s / (margin / 4))^2. Pilot (2 seeds, 0.1-s windows, noisier than the full 0.8 s): sample sd 8.5e-5 (DCTCP
#: N = 25, K = 4) and 7.8e-4 (TCP N = 2, K = 4). Smallest margin: 1 pt (the fluid [DER] 95.0% at K = 4 against the
#: 94% bound, and the -1-pt gap row) -> se <= 0.0025 -> n >= (7.8e-4 / 0.0025)^2 = 0.1; a standard error needs
#: n >= 2 -> 2 seeds.
PILOT_SEEDS = (1, 2)
SEEDS = (1, 2)


def run(quick: bool) -> Run:
    if quick:
        until, t0, seeds = 0.12, 0.02, PILOT_SEEDS
        combos = [("dctcp", 25, 4), ("dctcp", 25, 40), ("new_reno", 2, 4)]
    else:
        until, t0, seeds = 1.0, 0.2, SEEDS
        combos = [(kind, n, k) for kind in ("dctcp", "new_reno") for n in (2, 25) for k in (4, 8, 12, 20, 30, 40, 65, 100)]
    rows = [{"cc": kind, "n": n, "k": k, "seed": sd, "throughput": _sim(kind, n, k, until, t0, sd),
             "fluid_worst": fluid_worst(k)} for kind, n, k in combos for sd in seeds]
    return Run(params={"rate_bps": C, "d_s": D, "g": G, "buffer_pkts": 1000, "until_s": until, "from_s": t0,
                       "tcp": "NewReno + ECN, 0/1 marking at K; ns-2 timers (_ns2)"},
               frames={"throughput": pd.DataFrame(rows)}, values={"rows": rows}, seeds=list(seeds), quick=quick)


def _means(rows) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    return df.groupby(["cc", "n", "k"]).agg(throughput=("throughput", "mean"), se=("throughput", se),
                                            fluid_worst=("fluid_worst", "first")).reset_index()


def check(run: Run) -> dict:
    # Every row is over seed means: each clears its threshold or ordering by 2 standard errors (docs/VERDICTS.md §3)
    c = Checks()
    df = _means(run.values["rows"])
    dc, tc = df[df.cc == "dctcp"], df[df.cc == "new_reno"]
    w = dc.loc[dc.throughput.idxmin()]
    c.beyond("DCTCP worst throughput", float(w.throughput), float(w.se), 0.94, ">", tolerance="paper's bound")
    # −1 pt: the packet system jitters around the fluid cycle (ACK clocking, start jitter)
    gaps = dc.throughput - dc.fluid_worst
    g = dc.loc[gaps.idxmin()]
    c.beyond("DCTCP − fluid worst case (min)", float(g.throughput - g.fluid_worst), float(g.se), -0.01, ">",
             tolerance="−1 pt: packet-level jitter")

    def get(frame, n, k):
        r = frame[(frame.n == n) & (frame.k == k)]
        return (float(r.throughput.iloc[0]), float(r.se.iloc[0])) if len(r) else None
    for k in (4, 8, 12, 20):
        a, b = get(dc, 25, k), get(dc, 2, k)
        if a is not None and b is not None:
            c.order(f"DCTCP N=25 < N=2 + 0.5 pt at K={k}", a[0], a[1], b[0] + 0.005, b[1], "<",
                    tolerance="w̄ ≈ 16 near worst case")
        ta, tb = get(tc, 25, k), get(tc, 2, k)
        if ta is not None and tb is not None:
            c.order(f"TCP N=25 > N=2 at K={k}", ta[0], ta[1], tb[0], tb[1], ">", tolerance="desynchronization")
    t24 = get(tc, 2, 4)
    if t24 is not None:
        # one synchronized Reno sawtooth with a 1%-of-BDP queue averages ≈ 76%
        c.beyond("TCP N=2, K=4", t24[0], t24[1], 0.85, "<", tolerance="sawtooth ≈ 76%")
    return verdict(c, {f"{r.cc}/N={r.n}/K={r.k}": r.throughput for r in df.itertuples()},
                   tolerance="FIGURES.md thresholds")


def plot(run: Run):
    fig, axes = figure(1, 1, width=7, height=4.2)
    ax = axes[0, 0]
    df = _means(run.values["rows"])
    for (kind, n), g in df.groupby(["cc", "n"]):
        ax.plot(g.k, 100 * g.throughput, "o-" if kind == "dctcp" else "s--",
                label=f"{'DCTCP' if kind == 'dctcp' else 'TCP (ECN)'} N = {n}")
    ks = np.linspace(4, 100, 50)
    ax.plot(ks, [100 * fluid_worst(k) for k in ks], "k:", label="fluid worst case (g = 0.05)")
    ax.axhline(94, ls="--", color="0.5", lw=1, label="94%")
    ax.set_xlabel("marking threshold K (pkts; BDP = 400)"); ax.set_ylabel("throughput (%)")
    ax.set_title("Throughput vs K, 10 Gb/s, d = 480 µs (Fig. 10)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
