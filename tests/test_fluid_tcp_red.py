"""TCP/RED fluid model (Misra-Gong-Towsley 2000; Hollot et al. 2001) on P001's fixed-RTT setup.

Parameter sets (ALGORITHMS.md §3.1-3.2): N = 50 flows, 1.5 Mb/s of 1000-B packets (C = 187.5 pkts/s),
round-trip propagation 1.34 s, RED minfix (min_th = 5, w_q = 0.002, max_p = 0.1, not gentle).
They were chosen from the stability condition, not from runs:
- max_th = 1500: the DC loop gain L_red (R0 C)^3/(2N)^2 = (Tp C + q0)/(2 (q0 - min_th)) = 0.975 < 1, so
  Hollot et al.'s Proposition 1 holds (gain <= sqrt(wg^2/K^2 + 1)) and the loop is stable for any delay.
- max_th = 15: DC gain 18.3; at the gain crossover (about 1 rad/s) the phase is far below -180 deg, the
  exact delay margin is negative (-1.7 s with R0 = 1.4 s), so the loop is clearly unstable.
P001 observes the same split: periodic arrivals at max_th = 15, none at 1500 (FIGURES.md periodic/fig9c-d).
"""
import math

import numpy as np
import pytest
from ccscope.fluid.tcp_red import equilibrium, tcp_red

N, RATE, TP = 50, 1.5e6, 1.34
C = RATE / 8000.0            # 187.5 pkts/s
MIN_TH, MAX_P = 5.0, 0.1


def _q0_by_hand(max_th):
    """q0 from p(q0) = 2/W0^2 with W0 = (Tp C + q0)/N: (q0 - min_th)(Tp C + q0)^2 = 2 N^2 (max_th - min_th)/max_p."""
    bdp = TP * C
    rhs = 2 * N**2 * (max_th - MIN_TH) / MAX_P
    # expand (q - m)(q + B)^2 - rhs
    coeffs = [1, 2 * bdp - MIN_TH, bdp**2 - 2 * bdp * MIN_TH, -MIN_TH * bdp**2 - rhs]
    roots = np.roots(coeffs)
    return float(max(r.real for r in roots if abs(r.imag) < 1e-9))


@pytest.mark.parametrize("max_th", [1500.0, 15.0])
def test_equilibrium_matches_the_closed_form(max_th):
    e = equilibrium(N, RATE, TP, min_th_pkts=MIN_TH, max_th_pkts=max_th)
    q0 = _q0_by_hand(max_th)
    assert e.q0_pkts == pytest.approx(q0, rel=1e-9)
    assert e.r0_s == pytest.approx(TP + q0 / C, rel=1e-12)
    assert e.w0_pkts == pytest.approx((TP + q0 / C) * C / N, rel=1e-9)
    assert e.p0 == pytest.approx(MAX_P * (q0 - MIN_TH) / (max_th - MIN_TH), rel=1e-9)
    assert e.dc_gain == pytest.approx((TP * C + q0) / (2 * (q0 - MIN_TH)), rel=1e-9)


def test_stability_verdicts_of_hollot_et_al():
    stable = equilibrium(N, RATE, TP, min_th_pkts=MIN_TH, max_th_pkts=1500)
    unstable = equilibrium(N, RATE, TP, min_th_pkts=MIN_TH, max_th_pkts=15)
    assert stable.dc_gain < 1 <= stable.hollot_rhs and stable.hollot_stable and stable.linear_stable
    assert unstable.dc_gain > 10 and not unstable.hollot_stable
    assert unstable.delay_margin_s < -0.5 * unstable.r0_s and not unstable.linear_stable
    # K = -ln(1 - w_q) C (Hollot eq 3 with one sample per packet)
    assert stable.k_per_s == pytest.approx(-math.log(1 - 0.002) * C, rel=1e-12)


def test_stable_set_reaches_the_analytic_equilibrium():
    m = tcp_red(N, RATE, TP, min_th_pkts=MIN_TH, max_th_pkts=1500)
    e = m.eq
    r = m.solve(500.0, dt_s=e.r0_s / 20, record_every=20)
    last = r.traces.iloc[-1]
    assert r.success
    assert last.window_pkts == pytest.approx(e.w0_pkts, rel=5e-3)
    assert last.queue_pkts == pytest.approx(e.q0_pkts, rel=5e-3)
    assert last.p == pytest.approx(e.p0, rel=5e-3)
    assert not r.limit_cycle.periodic or r.limit_cycle.q_max - r.limit_cycle.q_min < 0.01 * e.q0_pkts


def test_unstable_set_oscillates_around_the_equilibrium():
    m = tcp_red(N, RATE, TP, min_th_pkts=MIN_TH, max_th_pkts=15)
    e = m.eq
    r = m.solve(300.0, dt_s=e.r0_s / 20, record_every=20)
    cyc = r.limit_cycle
    assert r.success and cyc.periodic and cyc.n_periods >= 3
    assert cyc.q_min < e.q0_pkts < cyc.q_max
    assert cyc.q_max - cyc.q_min > e.q0_pkts          # swings larger than the equilibrium queue itself
    assert cyc.throughput < 0.95                       # the queue empties: utilization is lost (P001 §II)


@pytest.mark.parametrize("kwargs,needle", [
    ({"max_th_pkts": 4.0}, "max_th_pkts = 4"),
    ({"max_th_pkts": 15.0, "max_p": 0.0}, "max_p = 0"),
    ({"max_th_pkts": 15.0, "w_q": 1.0}, "w_q = 1"),
])
def test_bad_parameters_name_the_field(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        tcp_red(N, RATE, TP, min_th_pkts=MIN_TH, **kwargs)
