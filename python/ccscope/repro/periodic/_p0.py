"""Shared setup P0 of the periodic-behaviour paper (P001, FIGURES.md `periodic/*`) and its
measurements: loss of utilization on ingress / egress, the periodicity index (PI), total wnd,
congestion epochs and inter-drop gaps.

Place in the pipeline: every `periodic/fig4*..fig10*` module builds its runs with `scenario()`,
runs them through `simulate()` (cached per (variant, setup) so that figures sharing a run, e.g.
fig4a / fig5a / fig6a / fig9a, pay for it once per process) and reduces them with `measure()`.
"""
from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pandas as pd

import ccscope as cc

#: Bottleneck line rate, packets/s (1.5 Mb/s, 1000-B packets; FIGURES.md units).
C_PKTS = 187.5
RWND = 20
N_FLOWS = 50
BIN_S = 0.1  # [NG] rate bins / sampling interval of 100 ms (FIGURES.md P0)
EPOCH_GAP_S = 1.0  # [NG] congestion-epoch separation: a drop-free gap > 1 s (E23)
PKT_BPS_BIN = 1000 * 8 / 0.1  # one 1000-B packet per 100-ms bin, in b/s
MIN_RTO_S = 1.0  # [NG] RTO minimum 1 s (ns-2 Reno, FIGURES.md P0)
SEED = 1
NEAR_S = 1.34  # 'within 1 RTT' (fixed-RTT base RTT) for the per-flow drop clustering of Fig 10
BDP_FIXED, BDP_VAR = 251, 431


def l_sync(b: float) -> float:
    """[DER] Loss of utilization (fraction) of a fully synchronized Reno aggregate with buffer b·BDP."""
    m = (1 + b) / 2
    return 1 - ((1 - m * m) / 2 + b) / m


def red(max_th: float, min_th: float = 5.0) -> dict:
    """Appendix B RED: not gentle, drop, w_q = 0.002, max_p = 0.1 [NG]."""
    return cc.aqm.red(min_th_pkts=min_th, max_th_pkts=max_th, max_p=0.1, w_q=0.002, action="drop")


def setup(quick: bool, *, sim_s: float | None = None) -> dict[str, float]:
    """Timing of a run: full = 4200 s, starts in [0, 300] s, measured over 600-4200 s; quick = 600 s,
    starts in [0, 30] s, measured over 200-600 s (FIGURES.md quick variants)."""
    if quick and sim_s is not None and sim_s >= 900:
        # Long quick runs (drop-free or slowly settling cases: B = 750, max_th = 1500) keep the full
        # [0, 300] s start spread: with starts in [0, 30] s the 50 synchronized slow starts lock into a
        # drop cycle that B = 750 never leaves within 1800 s (measured), though it is drop-free from P0 starts.
        return {"until_s": sim_s, "start_spread_s": 300.0, "t0_s": sim_s / 2, "t1_s": sim_s}
    if quick:
        until = sim_s or 600.0
        return {"until_s": until, "start_spread_s": 30.0, "t0_s": min(200.0, until / 3), "t1_s": until}
    until = sim_s or 4200.0
    return {"until_s": until, "start_spread_s": 300.0, "t0_s": min(600.0, until / 3), "t1_s": until}


def scenario(rtt: str, queue: str, size: float, quick: bool, *, seed: int = SEED, clients: int = N_FLOWS,
             sim_s: float | None = None, client_delay_s: float = 0.02, server_delay_s: float = 0.65,
             rwnd: int = RWND) -> dict:
    """queue = "droptail" (size = buffer B pkts), "minfix" (size = max_th, min_th = 5) or
    "ratiofix" (size = max_th, min_th = max_th/3); RED gets the physical limit 2·max_th [NG]."""
    tm = setup(quick, sim_s=sim_s)
    if queue == "droptail":
        aqm, buf = cc.aqm.drop_tail(), int(size)
    elif queue == "minfix":
        aqm, buf = red(size), int(2 * size)
    elif queue == "ratiofix":
        aqm, buf = red(size, size / 3), int(2 * size)
    else:
        raise ValueError(queue)
    return cc.scenario.periodic(clients, rtt=rtt, aqm=aqm, buffer_pkts=buf, seed=seed,
                                start_spread_s=tm["start_spread_s"], min_rto_s=MIN_RTO_S,
                                client_delay_s=client_delay_s, server_delay_s=server_delay_s, rwnd_pkts=rwnd)


def params(rtt: str, queue: str, size: float, quick: bool, **kw) -> dict[str, Any]:
    tm = setup(quick, sim_s=kw.get("sim_s"))
    p = {"rtt": rtt, "queue": queue, "size_pkts": size, "seed": kw.get("seed", SEED), **tm,
         "min_rto_s": MIN_RTO_S, "bin_s": BIN_S, "epoch_gap_s": EPOCH_GAP_S, "packet_bytes": 1000, "rwnd_pkts": RWND,
         "server_delay_s": kw.get("server_delay_s", 0.65), "client_delay_s": kw.get("client_delay_s", 0.02),
         "fast_link_bps": 100e6, "red": "min_th 5 (minfix) or max_th/3 (ratiofix), max_p 0.1, w_q 0.002, limit 2 max_th"}
    return p


@functools.lru_cache(maxsize=64)
def _run_cached(rtt: str, queue: str, size: float, quick: bool, seed: int, sim_s: float | None,
                client_delay_s: float, server_delay_s: float) -> dict[str, Any]:
    sc = scenario(rtt, queue, size, quick, seed=seed, sim_s=sim_s, client_delay_s=client_delay_s,
                  server_delay_s=server_delay_s)
    tm = setup(quick, sim_s=sim_s)
    res = cc.simulate(sc, until_s=tm["until_s"], record=["queue", "link", "cwnd", "drops"])
    return measure(res, tm["t0_s"], tm["t1_s"])


def run(rtt: str, queue: str, size: float, quick: bool, *, seed: int = SEED, sim_s: float | None = None,
        client_delay_s: float = 0.02, server_delay_s: float = 0.65) -> dict[str, Any]:
    """Simulate one P0 configuration and return its measurements (see `measure`)."""
    return _run_cached(rtt, queue, float(size), bool(quick), int(seed), sim_s, float(client_delay_s),
                       float(server_delay_s))


def _rate_series(link: pd.DataFrame, port: str, t0: float, t1: float) -> pd.DataFrame:
    d = link[link.port == port].sort_values("time_s")
    t = d.time_s.to_numpy()
    b = d.tx_bytes.to_numpy(float)
    edges = np.arange(t0, t1 + 1e-9, BIN_S)
    cum = np.interp(edges, t, b)
    rate = np.diff(cum) * 8 / BIN_S
    return pd.DataFrame({"time_s": edges[:-1], "rate_bps": rate})


def periodicity_index(x: np.ndarray, *, lag_lo_s: float = 1.0, lag_hi_s: float = 60.0,
                      flat_pkts: float | None = None, bin_s: float = BIN_S) -> float:
    """FIGURES.md PI: max over lags in [1, 60] s of the normalized ACF of a 100-ms series; 0 when CV < 1%."""
    x = np.asarray(x, float)
    if len(x) < 4 or x.mean() == 0 or x.std() / abs(x.mean()) < 0.01:
        return 0.0
    if flat_pkts is not None and x.std() <= flat_pkts:
        # A busy link sends 18 or 19 packets per 100-ms bin (18.75 on average): that +-1-packet
        # quantization has CV 2.3% > 1% and a perfectly regular ACF. FIGURES.md means such a
        # series to be flat ("drains at exactly line rate"), so a s.d. within one packet per bin is flat.
        return 0.0
    y = x - x.mean()
    n = len(y)
    f = np.fft.rfft(y, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n]
    acf = acf / acf[0]
    lo, hi = int(round(lag_lo_s / bin_s)), min(int(round(lag_hi_s / bin_s)), n - 1)
    return float(acf[lo:hi + 1].max())


def epochs(drops: pd.DataFrame) -> list[pd.DataFrame]:
    """Congestion epochs: maximal runs of drops whose gaps are < EPOCH_GAP_S (E23)."""
    if drops.empty:
        return []
    t = drops.time_s.to_numpy()
    cut = np.flatnonzero(np.diff(t) > EPOCH_GAP_S) + 1
    return [drops.iloc[a:b] for a, b in zip(np.r_[0, cut], np.r_[cut, len(t)])]


def measure(res, t0: float, t1: float) -> dict[str, Any]:
    link = res.traces["link"]
    eg = _rate_series(link, "M2->M3", t0, t1)
    ing = _rate_series(link, "M1->M2", t0, t1)
    line = 1.5e6
    q = res.traces["queue"]
    q = q[(q.port == "M2->M3") & (q.time_s >= t0) & (q.time_s < t1)]
    qs = q.groupby((q.time_s / BIN_S).round().astype(int)).queue_pkts.mean()
    cw = res.traces["cwnd"]
    cw = cw[(cw.time_s >= t0) & (cw.time_s < t1)].copy()
    cw["tb"] = (cw.time_s / BIN_S).round().astype(int)
    cw["w"] = np.minimum(cw.cwnd_pkts, RWND)
    wide = cw.pivot_table(index="tb", columns="flow", values="w", aggfunc="last").ffill()
    total = wide.sum(axis=1)
    dr = res.traces["drops"]
    dr = dr[(dr.port == "M2->M3") & (~dr.is_ack)].sort_values("time_s")
    dr_w = dr[(dr.time_s >= t0) & (dr.time_s < t1)]
    eps = epochs(dr_w)
    multi = [int((e.groupby("flow").size() >= 2).sum()) for e in eps]
    frac_cut = [e.flow.nunique() / N_FLOWS for e in eps]
    gaps_link = np.diff(dr_w.time_s.to_numpy())
    gaps_flow = np.concatenate([np.diff(g.time_s.to_numpy()) for _, g in dr_w.groupby("flow")] or [np.array([])])
    near, tot = 0, 0
    for _, g in dr_w.groupby("flow"):
        t = g.time_s.to_numpy()
        gap = np.diff(t)
        before = np.r_[np.inf, gap] < NEAR_S
        after = np.r_[gap, np.inf] < NEAR_S
        near += int((before | after).sum())
        tot += len(t)
    corr = wide.corr().to_numpy()
    iu = np.triu_indices_from(corr, 1)
    egress_loss = 100 * (1 - eg.rate_bps.mean() / line)
    ingress_loss = 100 * (1 - ing.rate_bps.mean() / line)
    rng = np.random.default_rng(0)
    three = sorted(rng.choice(wide.columns.to_numpy(), size=min(3, wide.shape[1]), replace=False).tolist())
    series = pd.DataFrame({"time_s": eg.time_s, "egress_bps": eg.rate_bps, "ingress_bps": ing.rate_bps})
    series["queue_pkts"] = qs.reindex((series.time_s / BIN_S).round().astype(int)).to_numpy()
    series["total_wnd_pkts"] = total.reindex((series.time_s / BIN_S).round().astype(int)).to_numpy()
    for f in three:
        series[f"cwnd_flow{f}"] = wide[f].reindex((series.time_s / BIN_S).round().astype(int)).to_numpy()
    tw = total.to_numpy()
    qv = qs.to_numpy()
    return {
        "egress_loss_pct": float(egress_loss), "ingress_loss_pct": float(ingress_loss),
        "egress_pi": periodicity_index(eg.rate_bps.to_numpy(), flat_pkts=PKT_BPS_BIN),
        "ingress_pi": periodicity_index(ing.rate_bps.to_numpy(), flat_pkts=PKT_BPS_BIN),
        "drops": int(len(dr_w)), "drops_after_warmup": int(len(dr_w)),
        "total_wnd_mean": float(tw.mean()) if len(tw) else math.nan,
        "total_wnd_cv": float(tw.std() / tw.mean()) if len(tw) and tw.mean() else math.nan,
        "total_wnd_frac_ge_990": float((tw >= 990).mean()) if len(tw) else math.nan,
        "total_wnd_pi": periodicity_index(tw, flat_pkts=1.0),
        "queue_mean_pkts": float(qv.mean()) if len(qv) else math.nan,
        "queue_cv": float(qv.std() / qv.mean()) if len(qv) and qv.mean() else math.nan,
        "epochs": len(eps), "multi_drop_flows": multi, "frac_flows_cut": frac_cut,
        "cwnd_mean_pair_corr": float(np.nanmean(corr[iu])) if np.isfinite(corr[iu]).any() else math.nan,
        "flow_drops_near_frac": near / tot if tot else math.nan,
        "gaps_link_s": gaps_link, "gaps_flow_s": gaps_flow, "series": series, "three_flows": three,
    }


def scalars(m: dict[str, Any]) -> dict[str, Any]:
    """The JSON-friendly scalars of a measurement."""
    keep = ("egress_loss_pct", "ingress_loss_pct", "egress_pi", "ingress_pi", "drops_after_warmup",
            "total_wnd_mean", "total_wnd_cv", "total_wnd_frac_ge_990", "total_wnd_pi", "queue_mean_pkts", "queue_cv",
            "epochs", "cwnd_mean_pair_corr")
    return {k: m[k] for k in keep}


def runs_frame(runs: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One long frame of the 100-ms series of several runs (column `run`)."""
    out = []
    for name, m in runs.items():
        s = m["series"].copy()
        s.insert(0, "run", name)
        out.append(s)
    return pd.concat(out, ignore_index=True, sort=False)


def plot_rates(ax_rate, ax_q, m: dict[str, Any], title: str, *, window_s: float = 200.0) -> None:
    """Fig 4 / Fig 9 layout: arrival (ingress) and departure (egress) rate, and the queue, over a 200-s window [NG]."""
    s = m["series"]
    t_end = s.time_s.max()
    s = s[s.time_s >= t_end - window_s]
    sm = 10  # 1-s moving average drawn over the 100-ms bins, for readability
    ax_rate.plot(s.time_s, s.ingress_bps.rolling(sm, min_periods=1).mean() / 1e6, lw=0.8, label="arrival (ingress M1→M2)")
    ax_rate.plot(s.time_s, s.egress_bps.rolling(sm, min_periods=1).mean() / 1e6, lw=0.8, label="departure (egress M2→M3)")
    ax_rate.axhline(1.5, ls="--", lw=1, color="0.3", label="line rate 1.5 Mb/s")
    ax_rate.set_ylabel("rate (Mb/s, 1-s mean)")
    ax_rate.set_title(title, fontsize=9)
    ax_rate.legend(fontsize=7, loc="lower left")
    ax_q.plot(s.time_s, s.queue_pkts, lw=0.8, color="C2")
    ax_q.set_ylabel("queue (pkts)")
    ax_q.set_xlabel("time (s)")


def flatten_json(m: dict[str, Any]) -> dict[str, Any]:
    return {k: (float(v) if isinstance(v, (np.floating, float)) else v) for k, v in scalars(m).items()}


#: Cause of the periodic-entry disagreements, found by measurement (REPRODUCTIONS.md).
CAUSE = ("ccscope's 50 flows stay desynchronized (mean pairwise cwnd correlation ≈ 0.01 with DropTail B = 50; "
         "~55% of flows see a drop per epoch, ~11 take ≥ 2) so the aggregate window hardly dips: DropTail B = 50 "
         "loses 0.5% (fixed) / 1.6% (variable) instead of 5-7%, and the 100-ms arrival series is dominated by "
         "packet shot noise (CV ≈ 23% at 18.75 pkts/bin) which caps PI near 0.1-0.3. Likely causes: the engine's "
         "sender is NewReno (partial-ACK recovery, fewer timeouts than ns-2 Reno, no plain Reno available) and the "
         "[NG] 100 Mb/s client links (10 Mb/s proposed); RED minfix 15 loses 8.3% fixed / 22% variable (paper ≈ 15%), "
         "so RED-worse-than-DropTail holds. With large RED max_th and fixed RTT the total-window CV grows again "
         "(slow avg-queue cycles at w_q = 0.002), unlike the paper's smooth curves.")
