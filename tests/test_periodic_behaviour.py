"""Periodic behaviour of Reno over DropTail (P001 §II.B-C, FIGURES.md `periodic/*` conventions).

Setup P0 of FIGURES.md: 50 Reno downloads through the 1.5 Mb/s bottleneck M2->M3, 1000-B packets,
rwnd 20, RTO minimum 1 s, starts uniform in [0, 300] s, 4200 s simulated, measured over 600-4200 s
(each run takes about a second). The periodicity index (PI) is FIGURES.md's: the maximum over lags
1-60 s of the normalized autocorrelation of a 100-ms series with its mean removed.

Measured with the engine that restarts Reno's retransmission timer at fast retransmit (before that
fix nearly every fast retransmit was followed by a spurious timeout; a lone flow restarted at 0.05x
its peak). What the paper claims and what this file asserts:
- A lone Reno flow (FIGURES.md fig1): each loss is a single drop at the peak BDP + B + 1 = 302,
  recovered by fast retransmit (no timeout), and the window restarts from half the peak.
- Fixed RTT (1340 ms), B = 50: drops come in congestion epochs (~10 s apart), individual cwnds are
  not in step (mean pairwise correlation ~0.14), the total window is a periodic sawtooth (ACF peak
  ~0.6 at ~9.8 s, after the ACF's first minimum) and the 100-ms arrival rate shares its period with
  FIGURES.md's PI just above 0.5 (0.51 at seed 1; still capped by the bins' sub-second noise,
  ceiling ~0.78).
- NOT reproduced: "not every flow cuts in an epoch" (FIGURES.md fig5a: fraction of flows with a drop
  per epoch <= 0.8). Measured 0.93: with one common RTT the buffer overflows for ~1.9 s per epoch
  (longer than one RTT, since a cut acts only an RTT after the loss), ~107 drops per epoch fall on
  the arriving packets of 50 flows whose windows are ~6 packets, so a flow escapes with probability
  ~(1 - 0.26)^7 ≈ 0.1. P001 only says "some cwnd values continue to increase while others do not"
  (its Fig 5/6 images are lost); the 0.8 bound is FIGURES.md's inference.
- Random RTT (B = 50): drops still come in bursts but each hits only ~19% of the flows, the epochs are
  irregular and the total window has no period (ACF after its first minimum ≈ 0.1); FIGURES.md's PI
  of the total window is ≈ 0.88 only because its maximum sits at the 1-s lower lag bound (the index
  rewards smoothness, `test_pi_definition_rewards_smoothness_at_the_one_second_lag`). The 100-ms
  arrival count is super-Poisson (each flow's train returns after its own RTT): ingress PI ≈ 0.08.
- B = 750 (≥ the 748.75-pkt drop-free buffer of §II.C.2): no drops after warm-up, the link stays
  full, PI of arrivals and of the total window ≤ 0.2, for fixed and random RTT.
The strict-xfail tests record the claims that ccscope does not reproduce (if the engine changes so
that they pass, pytest reports it).
"""
from __future__ import annotations

import numpy as np
import pytest

import ccscope as cc
from ccscope.analysis import metrics as A

C_PKTS = 1.5e6 / 8000  # 187.5 pkts/s (1000-B packets)
T_END, T0 = 4200.0, 600.0  # FIGURES.md P0: run 4200 s, measure 600-4200 s
WIN = {"start_s": T0, "end_s": T_END}
PKT_BPS_BIN = 8000 / 0.1  # one packet per 100-ms bin, in bit/s


def _sim(rtt: str, b: int, seed: int = 1):
    sc = cc.scenario.periodic(50, rtt=rtt, aqm=cc.aqm.drop_tail(), buffer_pkts=b, min_rto_s=1.0, seed=seed)
    return cc.simulate(sc, until_s=T_END, record=["queue", "link", "cwnd", "drops"])


@pytest.fixture(scope="module")
def runs():
    return {(rtt, b): _sim(rtt, b) for rtt in ("fixed", "variable") for b in (50, 750)}


def _series(res):
    arr = A.arrival_rate(res, **WIN).to_numpy()
    tw = A.total_window(res, bin_s=0.1, **WIN).to_numpy()
    return arr, tw


def _acf(x, max_lag_s=60.0):
    return A.autocorrelation(x, int(round(max_lag_s / 0.1)))


def _period_peak(r):
    """(value, lag in s) of the largest ACF value after the first local minimum: a genuine period,
    as opposed to the slow decay from lag 0 that the FIGURES.md index also picks up."""
    d = np.diff(r)
    first_min = np.flatnonzero((d[:-1] < 0) & (d[1:] >= 0))
    if not len(first_min):
        return float("nan"), float("nan")
    m = int(first_min[0]) + 1
    j = m + int(np.argmax(r[m:]))
    return float(r[j]), j * 0.1


# ----------------------------------------------------------------------- the index itself


def test_pi_definition_rewards_smoothness_at_the_one_second_lag():
    # AR(1) with coefficient phi per 100-ms bin: ACF(k) = phi^k, no period at all. With phi = 0.97 the
    # FIGURES.md index is phi^10 = 0.737 (at the 1-s lower lag bound), above the 0.5 'periodic' line.
    rng = np.random.default_rng(0)
    phi, n = 0.97, 200_000
    from scipy.signal import lfilter
    x = 50.0 + lfilter([1.0], [1.0, -phi], rng.normal(size=n))  # CV ≈ 8% (> the 1% flat rule)
    assert A.periodicity_index(x) == pytest.approx(phi ** 10, abs=0.02)
    assert np.isnan(_period_peak(_acf(x))[0]) or _period_peak(_acf(x))[0] < 0.1


def test_noise_floor_lowers_the_normalized_acf_by_the_variance_ratio():
    # r_x(k) = r_s(k)·var(s)/(var(s)+var(n)) for white n: a 10-s sawtooth of variance A²/12 plus
    # Poisson noise of variance 18.75 (one 100-ms bin at 1.5 Mb/s).
    rng = np.random.default_rng(1)
    t = np.arange(36_000) * 0.1
    amp = 14.0
    s = 18.75 + amp * ((t / 10.0) % 1.0 - 0.5)
    x = rng.poisson(s).astype(float)
    expected = (amp ** 2 / 12) / (amp ** 2 / 12 + 18.75)
    assert A.periodicity_index(x) == pytest.approx(expected, abs=0.03)


# ----------------------------------------------------------------------- fixed RTT, B = 50


def test_lone_flow_recovers_each_single_loss_by_fast_retransmit():
    # FIGURES.md fig1 (quick): one flow, DropTail B = 50, rwnd unlimited. The buffer overflows by one
    # packet at W = BDP + B + 1 = 302; fast retransmit halves the window (ssthresh 151) and no timeout
    # follows it (the timer restarts at the retransmission; RTO ≈ srtt ≈ 1.6 s < detection + 1 RTT).
    sc = cc.scenario.periodic(1, rtt="fixed", aqm=cc.aqm.drop_tail(), buffer_pkts=50, start_spread_s=0.0,
                              min_rto_s=1.0, rwnd_pkts=1_000_000)
    res = cc.simulate(sc, until_s=1000.0, record=["cwnd", "drops"])
    drops = A.drops_at(res, include_acks=False)
    fl = res.flows.iloc[0]
    assert len(drops) == fl.fast_retransmits >= 3  # one drop per cycle, each a fast retransmit
    assert fl.timeouts <= 1  # only the initial RTO (1 s < the 1.34-s first RTT), before any loss
    assert fl.retransmits <= len(drops) + 2  # + the initial window (2 segments) resent after the startup RTO
    cw = res.traces["cwnd"]
    after = [cw[cw.time_s >= t + 10 * 1.34].ssthresh_pkts.iloc[0] for t in drops.time_s]
    assert np.allclose(after, 151, atol=1)  # half of the 302-pkt peak


def test_fixed_rtt_drops_come_in_epochs_that_hit_nearly_every_flow(runs):
    res = runs[("fixed", 50)]
    drops = A.drops_at(res, start_s=T0, include_acks=False)
    bursts = A.drop_bursts(res, start_s=T0)
    assert len(bursts) >= 100  # FIGURES.md fig6a: >= 100 epochs in the full run
    # drops cluster: within-burst gaps are short, so there are far fewer bursts than drops
    assert len(bursts) < 0.1 * len(drops)
    # one common RTT: the overflow lasts longer than an RTT and its drops (> 1 per flow on average)
    # fall on ~6-pkt windows, so nearly every flow loses a packet in each epoch
    assert bursts["drops"].mean() > 50
    assert bursts["flows"].mean() / 50 >= 0.8
    cw = res.traces["cwnd"]
    cw = cw[cw.time_s >= T0]
    wide = cw.pivot_table(index=(cw.time_s * 10).round(), columns="flow", values="cwnd_pkts").ffill()
    corr = wide.corr().to_numpy()
    assert np.nanmean(corr[np.triu_indices_from(corr, 1)]) < 0.5  # FIGURES.md fig5a: cwnds not in step


@pytest.mark.xfail(strict=True, reason="FIGURES.md fig5a not reproduced: 0.93 of the flows lose a packet per epoch "
                                      "(fixed RTT, B = 50), above the 0.8 bound (see the module docstring)")
def test_fixed_rtt_not_every_flow_cuts_in_an_epoch(runs):
    bursts = A.drop_bursts(runs[("fixed", 50)], start_s=T0)
    assert bursts["flows"].mean() / 50 <= 0.8


def test_fixed_rtt_total_window_is_periodic_and_arrivals_share_its_period(runs):
    arr, tw = _series(runs[("fixed", 50)])
    assert A.periodicity_index(tw) >= 0.5
    # a genuine period: an ACF peak >= 0.5 after the ACF's first minimum, at the epoch spacing (~10 s)
    peak, period = _period_peak(_acf(tw))
    assert peak >= 0.5
    assert 5.0 < period < 20.0
    # P001 footnote 3: the arrival rate follows the total window; its ACF peaks at the same lag
    ra = _acf(arr)
    lag_arr = (10 + int(np.argmax(ra[10:]))) * 0.1
    assert lag_arr == pytest.approx(period, rel=0.1)
    pi_arr = A.periodicity_index(arr, quantum=PKT_BPS_BIN)
    assert pi_arr > 0.2  # not flat (FIGURES.md: flat means PI <= 0.2)


def test_fixed_rtt_arrival_pi_is_capped_by_the_bin_noise(runs):
    arr, _ = _series(runs[("fixed", 50)])
    n_per_bin = arr * 0.1 / 8000
    assert n_per_bin.mean() == pytest.approx(C_PKTS * 0.1, rel=0.1)  # ≈ 18.75 pkts per bin
    y = n_per_bin - n_per_bin.mean()
    psd = np.abs(np.fft.rfft(y)) ** 2 / len(y)
    f = np.fft.rfftfreq(len(y), 0.1)
    white = psd[f > 2.0].mean()  # variance of a white process with the floor's level
    ceiling = 1.0 - white / y.var()
    pi_arr = A.periodicity_index(arr, quantum=PKT_BPS_BIN)
    assert pi_arr <= ceiling
    assert ceiling < 0.8  # the sub-second floor takes a sizeable share of the variance


def test_fixed_rtt_arrival_rate_pi_at_least_half(runs):
    # FIGURES.md fig4a/fig9a: periodic arrivals. Measured 0.51 at seed 1 (0.23 before the engine
    # restarted the timer at fast retransmit): the synchronized epochs make the sawtooth deep enough
    # to clear the 100-ms bin noise, with little margin.
    arr, _ = _series(runs[("fixed", 50)])
    assert A.periodicity_index(arr, quantum=PKT_BPS_BIN) >= 0.5


# ----------------------------------------------------------------------- random RTT, B = 50


def test_random_rtt_drops_in_bursts_partial_cuts_uncorrelated_flows(runs):
    res = runs[("variable", 50)]
    bursts = A.drop_bursts(res, start_s=T0)
    drops = A.drops_at(res, start_s=T0, include_acks=False)
    assert len(bursts) >= 100 and len(bursts) < 0.3 * len(drops)
    assert 0.05 <= bursts["flows"].mean() / 50 <= 0.8
    lou = A.loss_of_utilization(res, **WIN)
    # L_sync(b) ceiling (FIGURES.md P0) with b = B / mean-RTT BDP = 50/431
    b = 50 / 431.25
    m = (1 + b) / 2
    assert 0 < lou.egress < 1 - ((1 - m * m) / 2 + b) / m


def test_random_rtt_total_window_index_comes_from_the_one_second_lag(runs):
    # FIGURES.md's index of the total window passes (>= 0.5), but at the 1-s lag bound; the
    # total window has no period (recorded disagreement with P001 Fig 5b, see the module docstring).
    _, tw = _series(runs[("variable", 50)])
    r = _acf(tw)
    assert A.periodicity_index(tw) >= 0.5
    assert int(np.argmax(r[10:])) == 0
    assert _period_peak(r)[0] < 0.5


@pytest.mark.xfail(strict=True, reason="P001 claim not reproduced: random-RTT ingress PI ≈ 0.08 at 100-ms bins")
def test_random_rtt_arrival_rate_pi_at_least_half(runs):
    arr, _ = _series(runs[("variable", 50)])
    assert A.periodicity_index(arr, quantum=PKT_BPS_BIN) >= 0.5


@pytest.mark.xfail(strict=True, reason="P001 claim not reproduced: random-RTT total window has no period (ACF after its first minimum < 0.5)")
def test_random_rtt_total_window_has_a_period(runs):
    _, tw = _series(runs[("variable", 50)])
    assert _period_peak(_acf(tw))[0] >= 0.5


# ----------------------------------------------------------------------- B = 750


@pytest.mark.parametrize("rtt", ["fixed", "variable"])
def test_buffer_750_removes_the_periodicity(runs, rtt):
    # 750 >= 50·20 - C·RTT: 748.75 pkts for 1340 ms (§II.C.2); for random RTTs the flattening buffer
    # C·Q (Σ 20/(RTT_i + Q) = C) is smaller still, so every window sits at rwnd without drops.
    res = runs[(rtt, 750)]
    assert A.drops_at(res, start_s=T0).empty
    assert A.utilization(res, **WIN) >= 0.995
    arr, tw = _series(res)
    assert A.periodicity_index(arr, quantum=PKT_BPS_BIN) <= 0.2
    assert A.periodicity_index(tw) <= 0.2
    assert tw.mean() == pytest.approx(1000, abs=10)
