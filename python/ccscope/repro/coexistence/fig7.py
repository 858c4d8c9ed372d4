"""coexistence/fig7: incast -- 1 MB split over n servers; TCP responses' AFCT > 2x DCTCP's at n = 90.

Setup (FIGURES.md, E66): one switch (dumbbell, every link 1 Gb/s) from n servers to the client r0; the client asks
each server for 1 MB/n per round; servers alternate DCTCP / NewReno+ECN [NG, E66]; two long-lived background flows
(one DCTCP, one NewReno) into the client's port [NG]; RED or modified CHOKe, min_th = 70, max_th = 100, m = 7 [NG];
buffer 250 pkts, RTT 250 us, RTO_min 200 ms; rounds spaced 200 ms after completion (`gap_s`) [NG].
AFCT = mean response (per-server flow) completion time per protocol [NG, E66: responses, not queries].
"""
from __future__ import annotations

import pandas as pd

import ccscope as cc
from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.coexistence._choke import choke
from ccscope.repro.coexistence._red import red
from ccscope.repro.coexistence._x0 import TCP

ID = "coexistence/fig7"
TITLE = "incast (1 MB split over n senders): TCP AFCT > 2x DCTCP at n=90"
KIND = "sim"
STATUS = "not reproduced"
COST = "2 AQMs x 9 n x 10 rounds (~20 s); quick: modified CHOKe, n in {10, 90}, 3 rounds (~1 s)"
CLAIM = ("DCTCP responses usually finish sooner than TCP responses under both RED and modified CHOKe (min_th 70), "
         "and the gap widens with n; at n = 90 TCP's AFCT is more than 2x DCTCP's.")

GAP_S, START_S = 0.2, 0.05
TAIL_S = 3.2  # horizon tail: room for a fifth Karn back-off of one response (0.2 + ... + 3.2 s, seen at n = 90)
AQMS = {"red": lambda: red(70, 100), "mchoke": lambda: choke(70, 7)}


def _one(n: int, aqm: str, rounds: int, seed: int) -> pd.DataFrame:
    d = {"name": f"coexistence incast n={n}", "seed": seed,
         "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "access_bps": 1e9, "senders": n + 2, "rtt_s": 250e-6,
                      "buffer_pkts": 250},
         "aqm": AQMS[aqm](), "tcp": {**TCP, "min_rto_s": 0.2}, "dctcp": {"g": 1 / 16},
         "flow": [{"src": "s0", "dst": "r0", "cc": "dctcp", "start_s": 0.0},
                  {"src": "s1", "dst": "r0", "cc": "new_reno", "start_s": 0.0005}],
         "workload": [{"kind": "incast", "client": "r0", "servers": [f"s{i + 2}" for i in range(n)],
                       "total_bytes": 1_000_000, "rounds": rounds, "gap_s": GAP_S, "start_s": START_S,
                       "cc": ["dctcp", "new_reno"]}]}
    # generous horizon: a round is usually at most a few RTO back-offs (0.2 + 0.4 + 0.8 s) plus the gap, and TAIL_S
    res = cc.simulate(d, until_s=START_S + rounds * (GAP_S + 1.6) + TAIL_S, record=["drops"])
    f = res.flows
    f = f[f.workload.notna()]
    # AQM drops of a response's packets: a marking AQM drops only Not-ECT packets (none with ECT retransmissions)
    dr = res.traces["drops"]
    aqm_drops = dr[(dr.event == "drop_aqm") & ~dr.is_ack].groupby("flow").size()
    f = f.assign(aqm_drops=f.flow.map(aqm_drops).fillna(0).astype(int))
    return f.assign(n=n, aqm=aqm, seed=seed)[["n", "aqm", "seed", "round", "cc", "fct_s", "timeouts", "aqm_drops"]]


def run(quick: bool) -> Run:
    ns = [10, 90] if quick else list(range(10, 100, 10))
    aqms = ["mchoke"] if quick else ["red", "mchoke"]
    rounds = 3 if quick else 10
    d = pd.concat([_one(n, a, rounds, 1) for a in aqms for n in ns], ignore_index=True)
    return Run(params={"n": ns, "aqm": aqms, "rounds": rounds, "min_th": 70, "max_th": 100, "m": 7,
                       "links_bps": 1e9, "buffer_pkts": 250, "rtt_s": 250e-6, "min_rto_s": 0.2, "gap_s": GAP_S,
                       "servers": "alternate DCTCP / NewReno+ECN [NG, E66]", "tcp": "NewReno + ECN, ECT on retransmissions [NG → ns-2]",
                       "background": "1 DCTCP + 1 NewReno [NG]"},
               frames={"flows": d},
               errata=[{"id": "E66", "paper": "server protocol mix and AFCT unit unstated",
                        "corrected": "servers alternate DCTCP/TCP; AFCT over responses"}],
               seeds=[1], quick=quick)


def afct(run: Run) -> pd.DataFrame:
    f = run.frames["flows"]
    return f.groupby(["aqm", "n", "cc"]).agg(afct_s=("fct_s", "mean"), incomplete=("fct_s", lambda x: int(x.isna().sum())),
                                             timeouts=("timeouts", "sum")).reset_index()


def check(run: Run) -> dict:
    c = Checks()
    a = afct(run)
    p = a.pivot_table(index=["aqm", "n"], columns="cc", values="afct_s")
    c.add("incomplete responses", int(a.incomplete.sum()), int(a.incomplete.sum()) == 0, "0", "horizon long enough")
    big = p[p.index.get_level_values("n") >= 40]
    ok = bool((big.new_reno >= big.dctcp).all())
    c.add("AFCT_TCP >= AFCT_DCTCP for every n >= 40", ok, ok, "all", "ordering")
    r90 = (p.new_reno / p.dctcp).xs(90, level="n")
    # AFCT is dominated by whether a response hits a 200-ms RTO, so the ratio moves in steps: +-20% on the paper's 2x
    c.add("max over AQMs of AFCT_TCP/AFCT_DCTCP at n = 90", float(r90.max()), float(r90.max()) >= 1.6, ">= 1.6",
          "paper > 2, -20% for RTO-count granularity")
    f = run.frames["flows"]
    big = f[f.n >= 40]
    hit = big.groupby("cc").agg(rto=("timeouts", lambda x: float((x > 0).mean())),
                                aqm=("aqm_drops", lambda x: float((x > 0).mean())))
    allm = big.groupby("cc").fct_s.mean()
    ratio = ", ".join(f"{a} {v:.2f}" for a, v in r90.items())
    notes = ("NewReno sends its retransmissions ECT as ns-2 does ([NG → ns-2 behaviour], see _x0). With that, TCP and "
             f"DCTCP responses finish alike: AFCT_TCP/AFCT_DCTCP at n = 90 is {ratio}, against the paper's > 2. "
             "Mechanism (n >= 40, all AQMs): responses hitting at least one 200-ms RTO: NewReno "
             f"{100 * hit.rto.get('new_reno', float('nan')):.0f}%, DCTCP {100 * hit.rto.get('dctcp', float('nan')):.0f}%; "
             f"with a packet dropped by the AQM: NewReno {100 * hit.aqm.get('new_reno', float('nan')):.0f}%, DCTCP "
             f"{100 * hit.aqm.get('dctcp', float('nan')):.0f}%. NewReno AFCT {1e3 * allm.get('new_reno', float('nan')):.0f} ms, "
             f"DCTCP {1e3 * allm.get('dctcp', float('nan')):.0f} ms. The incast losses are buffer overflows of the "
             "servers' synchronized first windows: at n = 90 a response is 11.1 KB (8 segments) and its lost segments "
             "are the 2nd-4th, 1-3 ms after it starts (diagnostic run, 3 rounds), before any ECN feedback can act and "
             "with too few segments behind them for three dupacks, so DCTCP's marking reaction does not protect its "
             "responses and the RTO count, the same "
             "for both protocols, sets the AFCT. The earlier 'reproduced' (TCP 1.6x DCTCP at n = 90 under modified CHOKe, 2.5x under RED) came from "
             "ccscope's RFC 3168 default of Not-ECT retransmissions: the AQM dropped NewReno's retransmissions where it "
             "would mark them, often at each Karn back-off; ns-2, the paper's simulator, does not do that. ns-2.35 "
             "with DCTCP added as P000 §2 describes (docs/models/dctcp_ns2.md; same incast under RED 70/100, 10 rounds) "
             "agrees with ccscope: AFCT_TCP/AFCT_DCTCP = 1.21, 0.99, 0.98, 1.04, 1.02 at n = 10, 30, 50, 70, 90, with "
             "the same share of responses hitting an RTO for both protocols (0.74 at n = 90). What in the paper's "
             "setup (server mix, background flows, RTO, its DCTCP code) gives TCP twice DCTCP's AFCT is unstated (E66); "
             "not tuned.")
    return verdict(c, {f"{aqm} n={n} AFCT {k} (ms)": 1e3 * float(v) for (aqm, n), row in p.iterrows() for k, v in row.items()},
                   notes=notes)


def plot(run: Run):
    a = afct(run)
    fig, ax = figure(width=6.5, height=4)
    ax = ax[0, 0]
    names = {"red": "RED", "mchoke": "mod. CHOKe"}
    for (aqm, ccn), g in a.groupby(["aqm", "cc"]):
        ax.plot(g.n, 1e3 * g.afct_s, "o-" if ccn == "dctcp" else "s--",
                label=f"{'DCTCP' if ccn == 'dctcp' else 'TCP NewReno'}, {names[aqm]}")
    ax.set_xlabel("number of servers n (1 MB split evenly)")
    ax.set_ylabel("AFCT of responses (ms)")
    ax.set_title("Incast with background flows, min_th = 70 (Fig. 7); paper: TCP > 2x DCTCP at n = 90")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=8)
    return fig
