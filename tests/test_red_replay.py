"""The engine's RED (P001 Appendix B, ALGORITHMS.md §3.2) driven through `ccscope.aqm.red_replay`,
against the independent numpy Floyd-Jacobson implementation of `periodic/appB`, plus the input
checks of `red_replay`. Fast: synthetic traces of a few thousand arrivals."""
from __future__ import annotations

import numpy as np
import pytest

import ccscope as cc
from ccscope.errors import ScenarioError
from ccscope.repro.periodic import appB


@pytest.fixture(scope="module")
def staircase():
    return appB.compare(appB.staircase_trace(2))


@pytest.fixture(scope="module")
def fifo():
    return appB.compare(appB.fifo_trace(60.0))


@pytest.mark.parametrize("name", ["staircase", "fifo"])
def test_engine_matches_the_reference_formulas_exactly(name, staircase, fifo):
    df, s = {"staircase": staircase, "fifo": fifo}[name]
    assert min(s["below_min_th"], s["in_ramp"], s["at_or_above_max_th"], s["idle_arrivals"]) > 0
    for k in ("avg", "p_b", "p_a"):
        assert s[f"max_abs_diff_{k}"] <= 1e-12, k
    assert (df["count"] == df["count_ref"]).all()


@pytest.mark.parametrize("name", ["staircase", "fifo"])
def test_deterministic_rules_hold(name, staircase, fifo):
    df, s = {"staircase": staircase, "fifo": fifo}[name]
    below, above = df.avg < appB.MIN_TH, df.avg >= appB.MAX_TH
    assert (df.verdict[below] == "enqueue").all()
    assert (df.p_b[below] == 0).all() and (df["count"][below] == -1).all()
    # not gentle: every arrival at or above max_th is dropped, with p_b = p_a = 1 and count reset
    assert (df.verdict[above] == "drop").all()
    assert (df.p_b[above] == 1).all() and (df["count"][above] == 0).all()
    # count spacing: an arrival with count·p_b >= 1 is dropped for sure; a drop resets count
    assert (df.verdict[df.p_a >= 1] == "drop").all()
    # p_a is the drop probability, min(1, p_b/(1 - count·p_b)): F&J's formula exceeds 1 for
    # 1 - p_b < count·p_b < 1 (the traces reach that region), the reported p_a never does
    assert df.p_a.between(0, 1).all()
    assert s["p_a_formula_above_1"] > 0 and s["max_p_a"] == 1.0
    assert (df["count"][df.verdict == "drop"] == 0).all()
    assert s["marks"] == 0  # action "drop": a non-ECT packet is never marked


def test_ewma_weight_is_0_002_per_arrival():
    # constant queue q from avg = 0: avg_n = q (1 - (1 - w)^n), no idle time
    n, q = 500, 30
    t = np.arange(n) * 2.0 ** -8
    df = cc.aqm.red_replay(appB.aqm(), time_s=t, q_pkts=np.full(n, q), rate_bps=appB.RATE_BPS)
    want = q * (1 - (1 - 0.002) ** np.arange(1, n + 1))
    np.testing.assert_allclose(df.avg, want, rtol=0, atol=1e-12)


def test_idle_time_decays_the_average_by_link_packet_times():
    # 1000 packets at q = 20, then the queue idles 2.0 s = 375 packet times at 187.5 pkt/s
    t = np.r_[np.arange(1000) * 2.0 ** -8, 1000 * 2.0 ** -8 + 2.0]
    q = np.r_[np.full(1000, 20), 0]
    es = np.r_[np.full(1000, np.nan), 1000 * 2.0 ** -8]
    df = cc.aqm.red_replay(appB.aqm(), time_s=t, q_pkts=q, empty_since_s=es, rate_bps=appB.RATE_BPS)
    before = df.avg.iloc[-2]
    assert df.avg.iloc[-1] == pytest.approx(before * 0.998 ** 375 * 0.998, rel=1e-12)


def test_early_drop_frequency_matches_mean_p_a(fifo):
    _, s = fifo
    assert s["in_ramp"] > 1000
    assert abs(s["early_drop_z"]) <= 3.0  # |drops - Σ p_a| within 3 binomial sd
    assert s["drop_freq_ramp"] == pytest.approx(s["mean_p_a_ramp"], abs=3 * s["early_drop_sd"] / s["in_ramp"])


def test_same_seed_same_verdicts_and_seed_changes_them():
    tr = appB.fifo_trace(30.0)
    kw = dict(time_s=tr.time_s, q_pkts=tr.q_pkts, empty_since_s=tr.empty_since_s, rate_bps=appB.RATE_BPS)
    a = cc.aqm.red_replay(appB.aqm(), seed=1, **kw)
    b = cc.aqm.red_replay(appB.aqm(), seed=1, **kw)
    c = cc.aqm.red_replay(appB.aqm(), seed=2, **kw)
    assert (a.verdict == b.verdict).all()
    assert (a.verdict != c.verdict).any()


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("field", ["q_pkts", "q_bytes", "empty_since_s", "size_bytes", "ect"])
def test_mismatched_lengths_name_the_field(field):
    kw = {"time_s": [0.0, 0.1], "q_pkts": [1, 2], field: [1] if field != "empty_since_s" else [np.nan]}
    with pytest.raises(ValueError, match=rf"^{field}: 1 values for 2 arrivals"):
        cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, **kw)


@pytest.mark.parametrize("bad", [[1, 2.5], [1, np.nan], [1, np.inf]])
def test_non_integer_queue_is_rejected_naming_q_pkts(bad):
    # np.asarray(..., int64) would silently truncate 2.5 to 2 (and NaN to garbage)
    with pytest.raises(ValueError, match=r"q_pkts\[1\].*q_pkts must hold integers"):
        cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, time_s=[0.0, 0.1], q_pkts=bad)


def test_integer_valued_floats_are_accepted_as_queue_lengths():
    a = cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, time_s=[0.0, 0.1], q_pkts=[1.0, 2.0])
    b = cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, time_s=[0.0, 0.1], q_pkts=[1, 2])
    assert a.q_pkts.tolist() == [1, 2] and np.array_equal(a.avg, b.avg)


def test_mismatched_lengths_are_rejected():
    with pytest.raises(ValueError, match="values for 2 arrivals"):
        cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, time_s=[0.0, 0.1], q_pkts=[1])


def test_decreasing_times_are_rejected_naming_the_index():
    with pytest.raises(ValueError, match=r"time_s\[1\].*non-decreasing"):
        cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, time_s=[0.2, 0.1], q_pkts=[1, 2])


def test_empty_since_after_the_arrival_is_rejected():
    with pytest.raises(ValueError, match=r"empty_since_s\[1\]"):
        cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, time_s=[0.0, 0.1], q_pkts=[1, 0], empty_since_s=[np.nan, 0.5])


def test_negative_queue_is_rejected():
    with pytest.raises(ValueError, match="q_pkts"):
        cc.aqm.red_replay(appB.aqm(), rate_bps=appB.RATE_BPS, time_s=[0.0, 0.1], q_pkts=[1, -1])


@pytest.mark.parametrize("aqm", [cc.aqm.drop_tail(), cc.aqm.threshold(k_pkts=5)])
def test_non_red_aqm_is_rejected_naming_the_kind(aqm):
    with pytest.raises(ScenarioError, match=r'aqm\.kind = "(drop_tail|threshold)".*"red"'):
        cc.aqm.red_replay(aqm, rate_bps=appB.RATE_BPS, time_s=[0.0], q_pkts=[1])


def test_bad_red_fields_are_rejected_naming_the_field():
    with pytest.raises(ScenarioError, match="max_th_pkts"):
        cc.aqm.red_replay({"kind": "red", "min_th_pkts": 5, "max_th_pkts": 3}, rate_bps=appB.RATE_BPS, time_s=[0.0], q_pkts=[1])
    with pytest.raises(ValueError, match="rate_bps"):
        cc.aqm.red_replay(appB.aqm(), rate_bps=0.0, time_s=[0.0], q_pkts=[1])


def test_ns2_small_queue_rule_spares_an_almost_empty_queue():
    # avg driven above max_th by a long queue, then the queue drains to 0-1 packets and refills:
    # with ns-2's rule nothing is dropped while <= 1 packet waits (avg still above max_th), the first
    # arrival of each new dropping regime passes with count 1; without it every such arrival is dropped
    n = 3000
    t = np.arange(n) * 2.0 ** -8
    q = np.r_[np.full(1500, 40), np.arange(1500) % 2]
    q[2000:2300] = 3
    base = dict(min_th_pkts=5, max_th_pkts=15, action="drop")
    kw = dict(time_s=t, q_pkts=q, rate_bps=appB.RATE_BPS)
    ns2 = cc.aqm.red_replay(cc.aqm.red(**base, ns2_small_queue=True), **kw)
    fj = cc.aqm.red_replay(cc.aqm.red(**base), **kw)
    small, high = q <= 1, ns2.avg >= 15
    assert (small & high).sum() > 100
    assert (ns2.verdict[small] == "enqueue").all()
    assert (fj.verdict[small & high] == "drop").all()
    # an arrival in the ramp whose predecessor was outside the dropping regime (avg < min_th or <= 1 waiting)
    # opens a regime: it passes with count 1 (the start-up crossing of min_th and the refill at 2000)
    active = (ns2.avg >= 5) & (q > 1)
    opens = np.flatnonzero(active & (ns2.avg < 15) & ~np.r_[False, active[:-1]])
    assert 2000 in opens and len(opens) >= 2
    assert (ns2.verdict[opens] == "enqueue").all() and (ns2["count"][opens] == 1).all() and (ns2.p_a[opens] == 0).all()
    # above max_th with more than one packet waiting it is still a forced drop
    assert (ns2.verdict[(q > 1) & high] == "drop").all()
