"""Short flows beside long flows, coexistence Fig 8 (FIGURES.md): X0 (1 Gb/s bottleneck, 10 Gb/s access, RTT 250 us,
buffer 250 pkts) with one long NewReno+ECN and one long DCTCP flow, plus Poisson short flows at 10% + 10% of 1 Gb/s,
sizes U[10 KB, 50 KB] (~417 arrivals/s per protocol [DER]); each protocol's short flows leave from the host of its
long flow [NG]. max_th = 100, min_th in {30, 50, 70, 90}, 10 s per point (quick 1 s), AFCT pooled over 10 seeds
(the paper's count, FIGURES.md's seed convention; quick 3).
AFCT over short flows that start after the 20% warm-up and at least 0.5 s before the end (so a flow hit by
a couple of 200-ms RTOs still completes inside the run) [NG].
"""
from __future__ import annotations

from functools import lru_cache

import pandas as pd

import ccscope as cc
from ccscope.repro.coexistence._choke import choke
from ccscope.repro.coexistence._red import red
from ccscope.repro.coexistence._x0 import SEEDS, TCP

SIZE = {"kind": "uniform", "min_bytes": 10_000, "max_bytes": 50_000}
MAX_TH = 100


def seeds(quick: bool) -> list[int]:
    """Poisson arrival sequences pooled per point: P003 repeats each experiment ten times (X0 SEEDS; quick: 3).
    The AFCT rows' standard errors come from the pooled flows (thousands per point), not from the seed count."""
    return [1, 2, 3] if quick else list(SEEDS)

AQMS = {"red": lambda mt: red(mt, MAX_TH), "mchoke": lambda mt: choke(mt, 7)}
PARAMS = {"bottleneck_bps": 1e9, "access_bps": 10e9, "rtt_s": 250e-6, "buffer_pkts": 250, "max_th": MAX_TH,
          "short_load": "0.1 DCTCP + 0.1 NewReno of 1 Gb/s", "sizes": "U[10, 50] KB", "warmup": "20% [NG]",
          "red": "p_max 0.1, w_q 0.002 [NG]", "m": 7, "tcp": "NewReno + ECN, ECT on retransmissions [NG → ns-2]"}


def min_ths(quick: bool) -> list[int]:
    return [30, 90] if quick else [30, 50, 70, 90]


def _one(aqm: str, min_th: int, until_s: float, seed: int) -> pd.DataFrame:
    d = {"name": "coexistence short flows", "seed": seed,
         "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "access_bps": 10e9, "senders": 2, "rtt_s": 250e-6,
                      "buffer_pkts": 250},
         "aqm": AQMS[aqm](min_th), "tcp": dict(TCP), "dctcp": {"g": 1 / 16},
         "flow": [{"src": "s0", "dst": "r0", "cc": "new_reno", "start_s": 0.0},
                  {"src": "s1", "dst": "r0", "cc": "dctcp", "start_s": 0.0005}],
         "workload": [{"kind": "poisson", "src": ["s0"], "dst": ["r0"], "load": 0.1, "reference_bps": 1e9,
                       "size": SIZE, "cc": ["new_reno"]},
                      {"kind": "poisson", "src": ["s1"], "dst": ["r0"], "load": 0.1, "reference_bps": 1e9,
                       "size": SIZE, "cc": ["dctcp"]}]}
    res = cc.simulate(d, until_s=until_s)
    f = res.flows
    f = f[f.workload.notna() & (f.start_s >= 0.2 * until_s) & (f.start_s <= until_s - 0.5)]
    return f.assign(aqm=aqm, min_th=min_th, seed=seed)[["aqm", "min_th", "seed", "cc", "start_s", "size_bytes",
                                                         "fct_s", "timeouts"]]


@lru_cache(maxsize=4)
def _sweep(aqms: tuple, quick: bool) -> pd.DataFrame:
    until = 1.0 if quick else 10.0
    return pd.concat([_one(a, mt, until, s) for a in aqms for mt in min_ths(quick) for s in seeds(quick)], ignore_index=True)


def sweep(aqms: tuple, quick: bool) -> pd.DataFrame:
    return _sweep(tuple(aqms), bool(quick)).copy()


def afct(d: pd.DataFrame) -> pd.DataFrame:
    return d.groupby(["aqm", "min_th", "cc"]).agg(afct_s=("fct_s", "mean"), flows=("fct_s", "size"),
                                                  incomplete=("fct_s", lambda x: int(x.isna().sum())),
                                                  timeouts=("timeouts", "sum")).reset_index()


def plot(d: pd.DataFrame, aqms, title: str):
    from ccscope.repro._base import figure
    a = afct(d)
    fig, ax = figure(width=6.5, height=4)
    ax = ax[0, 0]
    names = {"red": "RED", "mchoke": "mod. CHOKe"}
    for (aqm, ccn), g in a[a.aqm.isin(aqms)].groupby(["aqm", "cc"]):
        ax.plot(g.min_th, 1e3 * g.afct_s, "o-" if ccn == "dctcp" else "s--",
                label=f"{'DCTCP' if ccn == 'dctcp' else 'TCP NewReno'} short flows, {names[aqm]}")
    ax.set_xlabel(f"min_th (pkts), max_th = {MAX_TH}")
    ax.set_ylabel("AFCT of 10-50 KB flows (ms)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig
