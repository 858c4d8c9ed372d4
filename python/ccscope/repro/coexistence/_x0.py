"""Common setup X0 of the coexistence paper (FIGURES.md): one NewReno+ECN and one DCTCP flow from two
10 Gb/s hosts into a 1 Gb/s bottleneck, RTT 250 us, buffer 250 pkts, starts U(0, 50 ms) [NG], DCTCP g = 1/16 [NG].
Throughputs and the bottleneck utilization are measured after a 20% warm-up (the last 4 s of a 5 s run, [NG]):
the "link" trace is recorded because SimResult falls back to whole-run utilization without it (and the
"delivered" trace for per-flow throughput likewise). Averages over seeds.

ECN-capable NewReno sends retransmissions ECT too, `TCP["ect_on_retransmissions"] = True`
[NG → ns-2 behaviour: ECT on every data packet]: the paper's simulations are ns-2, whose TcpAgent::output
(ns-2.35 tcp/tcp.cc) sets `hf->ect() = 1` whenever `ecn_` is on, with no test for a retransmission (only the CWR
flag is gated, by SetCWRonRetransmit_). ccscope's default for NewReno is RFC 3168 §6.1.5 (retransmissions
Not-ECT), under which a marking AQM drops a retransmission where it would mark it. The same `TCP` block is used
by every coexistence entry (X0, incast, short flows, back-off counts).

Mechanisms follow ns-2, the paper's simulator (docs/VERDICTS.md §4), decided from ns-2.35's source before the
runs under this policy, and kept whatever the verdicts:
- ECT on retransmissions: above (tcp/tcp.cc TcpAgent::output sets `hf->ect() = 1` whenever `ecn_`).
- RTO (`TCP` below): ns-2's TcpAgent::rtt_update counts RTT samples in ticks of `tcpTick_` (ns-default.tcl:
  `Agent/TCP set tcpTick_ 0.01`), keeps srtt/rttvar in fixed point (`T_SRTT_BITS 3`, `T_RTTVAR_BITS 2`) and times
  one segment per RTT (`rtt_active_` / `rtt_seq_`; `timestamps_ false` by default); rtt_timeout() clamps at
  `minrto_ 0.2` and `maxrto_ 60` and never goes under 2 ticks. Engine: `rto_estimator = "ns2_ticks"`,
  `clock_granularity_s = 0.01`, `rtt_sampling = "once_per_rtt"`, `min_rto_s = 0.2`, `max_rto_s = 60`. (ns-2.35's
  default `rfc2988_ true` clamps at minrto_ before the back-off instead of after it; with the 0.2-s floor above
  every RTO these runs compute, the two orders give the same timer.) The initial RTO is a parameter, not code:
  ns-2.35's Tcl default `rtxcur_init_ 3.0` is not used; the paper gives none and ccscope keeps RFC 6298's 1 s
  (FIGURES.md's X0 has no [NG] for it).
- RED (`_red.red`): ns-2's queue/red.cc rules, see there.
- NewReno recovery (`TCP` below; the engine applies these to NewReno and DCTCP flows: ns-2's DCTCP is
  `Agent/TCP/Newreno` with `dctcp_ true`, docs/models/dctcp_ns2.md), ns-2.35's defaults:
  * partial ACK: ns-default.tcl `Agent/TCP/Newreno set partial_window_deflation_ 1` ("Default changed to 1 on
    5/5/03, to reflect RFC 2582"; the C++ constructor's 0 is overridden by this bind). tcp-newreno.cc
    partialnewack: `if (dupwnd_ > deflate) dupwnd_ -= (deflate - 1); else { cwnd_ -= (deflate - dupwnd_);
    dupwnd_ = 1; }`, `if (cwnd_ < 1) cwnd_ = 1`. Same total window as RFC 6582 except the floor, but a partial
    ACK larger than the inflation cuts cwnd_ itself. Engine: `ns2_partial_window_deflation = True`.
  * leaving recovery: `Agent/TCP/Newreno set exit_recovery_fix_ 0`; tcp-newreno.cc recv, on `seqno >=
    recover_`: `dupwnd_ = 0`, cwnd_ kept (the halved window less those cuts), then recv_newack_helper ->
    opencwnd() grows it like any new ACK. ccscope's RFC 6582 default sets min(ssthresh, FlightSize + 1 MSS) and
    does not grow. Engine: `ns2_exit_recovery = True`.
  * limited transmit: `Agent/TCP set singledup_ 1` ("default changed on 2001/11/28"); tcp-newreno.cc recv:
    `else if (dupacks_ < numdupacks_ && singledup_) send_one();`, tcp.cc send_one sends one new segment if
    `t_seqno_ <= highest_ack_ + wnd_ && t_seqno_ < curseq_ && t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`.
    ccscope sent nothing on the first two duplicate ACKs. Engine: `ns2_limited_transmit = True`.
  * halving: tcp-newreno.cc dupack_action and tcp.cc ecn call tcp.cc `slowdown(CLOSE_SSTHRESH_HALF|
    CLOSE_CWND_HALF)`; with `Agent/TCP set precisionReduce_ true` ("default changed on 2006/1/24"): `halfwin =
    windowd() / 2`, windowd() = min(cwnd_ + dupwnd_, wnd_) (tcp-reno.cc; dupwnd_ = 0 there), `ssthresh_ = (int)
    halfwin` (>= 2), `cwnd_ = halfwin` (>= 1). ccscope's NewReno halved the flight (RFC 5681). Engine:
    `ns2_halve_window = True` (fractional; `ns2_halve_whole_segments` stays False). This one also acts on every
    NewReno ECN-Echo cut, so it changes the marking runs too; DCTCP's own ECN cut is unchanged. A timeout's
    ssthresh comes from the same halfwin (tcp.cc timeout: `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`,
    dupwnd_ = 0 first), except after an ECN cut (next item).
  * timeout after an ECN cut: tcp.cc timeout sets `recover_ = maxseq_` (line 1898), then `else if (highest_ack_ <
    recover_ && last_cwnd_action_ == CWND_ACTION_ECN) slowdown(CLOSE_CWND_ONE);` (lines 1919-1925): cwnd_ = 1,
    ssthresh_ kept, whenever the flow's last window action was an ECN cut (tcp.cc ecn sets CWND_ACTION_ECN, line
    1443; a fast retransmit sets CWND_ACTION_DUPACK, tcp-newreno.cc dupack_action); after either branch
    `last_cwnd_action_ = CWND_ACTION_TIMEOUT` (line 1946), so a second timeout halves. ns-2's DCTCP takes its
    cut through the same ecn(), so this acts on DCTCP flows most of all. Engine: `ns2_timeout_after_ecn = True`.
  * fast-retransmit decision: tcp-newreno.cc dupack_action (lines 113-175) with `Agent/TCP set bugFix_ true`,
    `lessCareful_ false`: a fast retransmit with a cut only when `highest_ack_ > recover_`; recover_ is also
    set by an ECN cut (tcp.cc ecn `recover_ = maxseq_`), which recv takes before counting the duplicate ACK
    (`if (hdr_flags::access(pkt)->ecnecho() && ecn_) ecn(tcph->seqno());`, line 222); below recover_, after an
    ECN cut, `if (ecn_ && last_cwnd_action_ == CWND_ACTION_ECN)` retransmits and enters recovery without a
    second cut (`dupwnd_ = numdupacks_`, recover_ kept); otherwise `if (bug_fix_) return;`. With
    `Agent/TCP set exitFastRetrans_ true` (ns-default.tcl, "for clean exits of Fast Retransmit") recv neither
    sets `dupwnd_ = numdupacks_` after a refused one nor inflates on later duplicates (`!exitFastRetrans_ ||
    last_cwnd_action_ == CWND_ACTION_DUPACK`), as the engine already did. What differed: ccscope's NewReno
    allowed a fast retransmit at ACK = recover + 1 and cut a second time after an ECN cut. Engine: `ns2_dupack_action = True`.
  * ECN cut after a timeout: tcp.cc ecn (lines 1438-1443) cuts when `seqno > recover_ || last_cwnd_action_ ==
    CWND_ACTION_TIMEOUT`, then `recover_ = maxseq_`: the first ECN-Echo ACK after a timeout cuts (new or duplicate;
    recv calls ecn() on every ACK), where ccscope waited until the ACK passed what was sent before the timeout.
    Engine: `ns2_ecn_after_timeout = True` (the cut's recover is then the highest segment sent).
  * ECN-Echo before the window update: tcp-newreno.cc recv calls ecn() (line 222) before the exit from recovery
    (`dupwnd_ = 0`) and recv_newack_helper, whose `if (!ect_ || !ecnecho || (old_ecn_ && ecn_burst_)) opencwnd();`
    (`old_ecn_ 0`) opens only on ACKs without ECN-Echo once one ECN-Echo ACK has come (`ect_ = 1` after it). Two
    facets of one order, so one option: a new ACK is cut before it grows the window, and on the full ACK that
    ends recovery the cut acts on the inflated window (`windowd()` = min(cwnd_ + dupwnd_, wnd_)), which leaving
    recovery keeps. ccscope grew first (NewReno on ECN-Echo ACKs too) and cut the deflated window. DCTCP's alpha
    is counted first in both. Engine: `ns2_ecn_first = True`.
  * `old_ecn_ 1`: the ns-2 DCTCP scripts set `Agent/TCP set old_ecn_ 1` for every TCP agent (decision written
    before the run that uses it: docs/models/dctcp_ns2.md, "Open: `old_ecn_`"), so recv_newack_helper opens the
    window on every new ACK except the first ECN-Echo ACK after ACKs without one (`ecn_burst_`). Engine:
    `ns2_old_ecn = True` (on top of `ns2_ecn_first`).
  * burst cap: tcp-newreno.cc recv ends with `if (dupacks_ == 0) send_much(0, 0, maxburst_); else if (dupacks_ >
    numdupacks_ - 1 && newreno_changes_ == 0) send_much(0, 0, 2);` (`Agent/TCP/Newreno set newreno_changes_ 0`,
    `Agent/TCP set maxburst_ 0` = no cap; partialnewack does not reset dupacks_). Engine: `ns2_recovery_maxburst =
    True`.
  The recovery items (and the timeout and fast-retransmit items, which act on DCTCP's losses after its ECN cuts
  too) act only when a flow loses packets: under the marking AQMs with ECT retransmissions NewReno loses
  none after warm-up (`tcp_aqm_drops_post`, `tcp_overflow_drops_post` below); under DropTail (fig2) and incast
  (fig7) it does.
Loss diagnostics per seed (for the causes in the RED/CHOKe entries): NewReno timeouts and fast retransmits over the
run, and after warm-up the NewReno packets the AQM dropped (`tcp_aqm_drops_post`: with ECT retransmissions the
AQM marks rather than drops every NewReno data packet, so any such drop would be a Not-ECT packet, none expected),
overflow drops, and the per-packet mark fraction of each flow.

Tolerance for T_r (FIGURES.md): bands are set on TCP's share s = 1/(1 + T_r), +-0.03 (30 Mb/s on 1 Gb/s):
the ratio itself explodes as TCP starves, while +-0.03 covers the run-to-run spread under probabilistic marking.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.repro._base import se

BOTTLENECK_BPS, ACCESS_BPS, RTT_S, BUFFER_PKTS = 1e9, 10e9, 250e-6, 250
START_MAX_S = 0.05
#: Seeds (docs/VERDICTS.md §3). X0 repeats each experiment ten times (P003 §III). Fixed before the full runs under
#: the policy from a pilot of 4 seeds x 5 s (seeds 101-104, every X0 AQM of Figs 2-6): sample sd of TCP's share
#: 0.0178 (DropTail), <= 0.0022 (DCTCP AQM, RED, CHOKe, modified CHOKe); mean queue <= 0.28 pkts; DCTCP alpha
#: <= 0.00094. The share bands' margin is SHARE_TOL = 0.03 -> se <= 0.0075 -> n >= (0.0178 / 0.0075)^2 = 5.6 -> 6
#: (DropTail), (0.0022 / 0.0075)^2 = 0.09 -> 2 (the others); the closest ordering, fig6b's alpha at min_th 30
#: (modified CHOKe 0.1789 vs CHOKe 0.1758 in the pilot, margin 0.0032), needs hypot(se, se) <= 0.0008 ->
#: n >= 2 (0.00094 / 0.0008)^2 = 2.8 -> 3. The paper's ten runs satisfy every requirement and are kept.
SEEDS = tuple(range(1, 11))
PILOT_SEEDS = (1, 2)
SHARE_TOL = 0.03
# NewReno + ECN as ns-2 runs it: ECT on every data packet, retransmissions included (see the module docstring)
TCP = {"ecn": True, "ect_on_retransmissions": True, "rto_estimator": "ns2_ticks", "clock_granularity_s": 0.01,
       "rtt_sampling": "once_per_rtt", "min_rto_s": 0.2, "max_rto_s": 60.0,
       "ns2_partial_window_deflation": True, "ns2_exit_recovery": True, "ns2_limited_transmit": True,
       "ns2_halve_window": True, "ns2_recovery_maxburst": True, "ns2_timeout_after_ecn": True,
       "ns2_dupack_action": True, "ns2_ecn_after_timeout": True, "ns2_ecn_first": True,
       "ns2_old_ecn": True}
PARAMS = {"bottleneck_bps": BOTTLENECK_BPS, "access_bps": ACCESS_BPS, "rtt_s": RTT_S, "buffer_pkts": BUFFER_PKTS,
          "start": "U(0, 50 ms) [NG]", "dctcp_g": 1 / 16, "tcp": "NewReno + ECN, ECT on retransmissions, ns-2 RTO (10-ms ticks, one sample per RTT), ns-2 NewReno recovery (partial deflation, exit, limited transmit, window halving, burst cap 2, timeout after an ECN cut, fast-retransmit decision, ECN cut after a timeout, ECN-Echo before the window update, old_ecn_ 1) [ns-2]", "warmup": "20% [NG]"}


def run_x0(aqm: dict, *, seeds: list[int], until_s: float, series: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, ts = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        starts = rng.uniform(0, START_MAX_S, 2)
        d = {"name": "coexistence X0", "seed": seed,
             "topology": {"kind": "dumbbell", "bottleneck_bps": BOTTLENECK_BPS, "access_bps": ACCESS_BPS, "senders": 2,
                          "rtt_s": RTT_S, "buffer_pkts": BUFFER_PKTS},
             "aqm": aqm, "tcp": dict(TCP), "dctcp": {"g": 1 / 16},
             "flow": [{"src": "s0", "dst": "r0", "cc": "new_reno", "start_s": float(starts[0])},
                      {"src": "s1", "dst": "r0", "cc": "dctcp", "start_s": float(starts[1])}],
             "record": {"queue_interval_s": 1e-4, "flow_interval_s": 1e-3}}
        res = cc.simulate(d, until_s=until_s, record=["queue", "link", "delivered", "alpha", "drops"])
        f = res.flows.set_index("cc")
        t_tcp, t_dctcp = float(f.loc["new_reno", "throughput_bps"]), float(f.loc["dctcp", "throughput_bps"])
        warm = res.summary["warmup_s"]
        al = res.traces["alpha"]
        al = al[(al.time_s >= warm) & (al.flow == 1)]
        dr = res.traces["drops"]
        dr = dr[(dr.time_s >= warm) & ~dr.is_ack]
        n = dr.groupby(["flow", "event"]).size()
        pkts = {fl: t * (until_s - warm) / (8 * 1500) for fl, t in ((0, t_tcp), (1, t_dctcp))}
        rows.append({"seed": seed, "t_tcp_bps": t_tcp, "t_dctcp_bps": t_dctcp, "t_r": t_dctcp / max(t_tcp, 1.0),
                     "tcp_share": t_tcp / (t_tcp + t_dctcp), "aggregate_frac": res.summary["bottleneck_utilization"],
                     "flow_sum_frac": (t_tcp + t_dctcp) / BOTTLENECK_BPS,
                     "queue_mean_pkts": res.summary["queue_mean_pkts"], "alpha_mean": float(al.alpha.mean()),
                     "marks": res.summary["marks"], "drops": res.summary["drops"],
                     "tcp_timeouts": int(f.loc["new_reno", "timeouts"]),
                     "tcp_fast_retransmits": int(f.loc["new_reno", "fast_retransmits"]),
                     "tcp_aqm_drops_post": int(n.get((0, "drop_aqm"), 0)),
                     "tcp_overflow_drops_post": int(n.get((0, "drop_overflow"), 0)),
                     "tcp_mark_frac": n.get((0, "mark"), 0) / max(pkts[0], 1.0),
                     "dctcp_mark_frac": n.get((1, "mark"), 0) / max(pkts[1], 1.0)})
        if series and seed == seeds[0]:
            dl = res.traces["delivered"]
            for fl, name in ((0, "tcp"), (1, "dctcp")):
                x = dl[dl.flow == fl].sort_values("time_s")
                b = x.iloc[::10]  # 10 ms bins from 1 ms samples
                # arrival-based (received_bytes), as flows.throughput_bps: in-order goodput jumps when a hole fills
                rate = np.diff(b.received_bytes.values) * 8 / np.diff(b.time_s.values)
                ts.append(pd.DataFrame({"time_s": b.time_s.values[1:], "flow": name, "rate_bps": rate}))
    return pd.DataFrame(rows), (pd.concat(ts, ignore_index=True) if ts else pd.DataFrame())


def share_band(t_r: float) -> tuple[float, float]:
    """T_r interval corresponding to TCP share 1/(1+T_r) +- SHARE_TOL."""
    s = 1 / (1 + t_r)
    return (1 / (s + SHARE_TOL) - 1, 1 / (s - SHARE_TOL) - 1)


def dead_seeds(d: pd.DataFrame) -> int:
    """Seeds whose NewReno flow lost a Not-ECT retransmission to the AQM after warm-up (RTO back-off spiral)."""
    return int((d.tcp_aqm_drops_post > 0).sum())


def plot_series(ax, ts: pd.DataFrame, title: str):
    for name, d in ts.groupby("flow"):
        ax.plot(d.time_s, d.rate_bps / 1e6, lw=0.8, label=f"{'TCP NewReno' if name == 'tcp' else 'DCTCP'}")
    ax.axvspan(0, 0.2 * float(ts.time_s.max()), color="0.9", zorder=0, label="warm-up (not measured)")
    ax.set_ylim(0, 1100)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mb/s, 10 ms bins, arrivals)")
    ax.set_title(title)


# --- rows over seed averages (docs/VERDICTS.md §3: every threshold and ordering clears its bound by 2 se) ----------

def mean_se(values) -> tuple[float, float]:
    v = np.asarray(values, float)
    return float(v.mean()), se(v)


def band_row(c, name: str, m: float, s: float, lo: float, hi: float, tolerance: str) -> bool:
    """One row for a band over seed means: passes when the mean is inside [lo, hi] by at least 2 se from each edge;
    inside but closer is "inside the noise" (docs/VERDICTS.md §3)."""
    from ccscope.repro._base import Checks
    t = Checks()
    a, b = t.beyond("lo", m, s, lo, ">"), t.beyond("hi", m, s, hi, "<")
    noise = any(x.noise for x in t.items)
    return c.add(name, m, a and b, f"[{lo:.4g}, {hi:.4g}] by ≥ 2 se", tolerance, se=s, noise=noise)


def share_rows(c, name: str, shares, target: float) -> float:
    """FIGURES.md's X0 tolerance, TCP share target +-SHARE_TOL, on the seed mean (one band row)."""
    m, s = mean_se(shares)
    band_row(c, f"{name}: TCP share", m, s, target - SHARE_TOL, target + SHARE_TOL,
             f"share {target:.3g} +-{SHARE_TOL} (X0)")
    return m


def band_rows(c, name: str, values, lo: float, hi: float, tolerance: str) -> float:
    m, s = mean_se(values)
    band_row(c, name, m, s, lo, hi, tolerance)
    return m


def spearman_se(d: pd.DataFrame, by: str, col: str, *, n_boot: int = 400) -> tuple[float, float]:
    """Spearman correlation of the per-`by` seed means of `col` with `by`, and its standard error: the sd of the
    same statistic over bootstrap resamples of the seeds within each `by` (fixed generator, so reruns agree)."""
    from ccscope.repro._base import spearman
    groups = [(x, g[col].to_numpy(float)) for x, g in d.groupby(by)]
    xs = [x for x, _ in groups]
    rho = spearman(xs, [v.mean() for _, v in groups])
    rng = np.random.default_rng(12345)
    boot = []
    for _ in range(n_boot):
        m = [rng.choice(v, size=len(v), replace=True).mean() for _, v in groups]
        if np.ptp(m) > 0:
            boot.append(spearman(xs, m))
    return float(rho), (float(np.std(boot, ddof=1)) if len(boot) > 1 else float("nan"))


def spearman_row(c, name: str, d: pd.DataFrame, by: str, col: str, bound: float, side: str, tolerance: str) -> float:
    rho, s = spearman_se(d, by, col)
    c.beyond(name, rho, s, bound, side, tolerance=tolerance + "; se: bootstrap over seeds")
    return rho


def increasing_row(c, name: str, d: pd.DataFrame, by: str, col: str, tolerance: str) -> bool:
    """'col increases with by' over seed means: its smallest step, cleared by 2 se of that step."""
    g = d.groupby(by)[col]
    m, s = g.mean(), g.apply(se)
    steps = [(m.iloc[i + 1] - m.iloc[i], float(np.hypot(s.iloc[i + 1], s.iloc[i]))) for i in range(len(m) - 1)]
    z = [st / e if e > 0 else (np.inf if st > 0 else -np.inf) for st, e in steps]
    i = int(np.argmin(z))
    return c.beyond(name + " (smallest step)", float(steps[i][0]), steps[i][1], 0.0, ">", tolerance=tolerance)


def trend_row(c, name: str, d: pd.DataFrame, by: str, col: str, bound: float, side: str, tolerance: str) -> None:
    """Spearman(by, col) on the seed means beyond `bound` (side ">" for a rising trend, "<" for a falling one), or,
    with two points only (quick variants), the end points ordered the same way; both by 2 se."""
    if d[by].nunique() > 2:
        spearman_row(c, name, d, by, col, bound, side, tolerance)
        return
    lo, hi = d[d[by] == d[by].min()][col], d[d[by] == d[by].max()][col]
    c.order(name + " (two points: highest vs lowest)", *mean_se(hi), *mean_se(lo), side, tolerance=tolerance)


def ratio_se(a: float, se_a: float, b: float, se_b: float) -> float:
    """Standard error of a/b for independent means (first order: relative errors in quadrature)."""
    return float(abs(a / b) * np.hypot(se_a / a, se_b / b))
