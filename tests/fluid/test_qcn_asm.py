"""QCN bound (P002 App. A with E33) and ASM sliding mode (P002 §4.2, App. B-C), ALGORITHMS.md §4.4, §5.2."""
from fractions import Fraction

import numpy as np
import pytest
from ccscope.fluid.asm import (
    GAINS_A,
    GAINS_S,
    asm_fluid,
    characteristic_roots,
    sliding_condition,
)
from ccscope.fluid.qcn import qcn_bound, qcn_loop


@pytest.mark.parametrize("rate,bound_us,margin_us", [(10e9, 270.71, 250.9), (100e9, 27.07, 25.09)])
def test_qcn_corrected_bound_and_exact_margin(rate, bound_us, margin_us):
    b = qcn_bound(rate, 10)
    assert b.bound_s * 1e6 == pytest.approx(bound_us, abs=0.01 * bound_us / 270.71 + 1e-3)
    assert b.delay_margin_s * 1e6 == pytest.approx(margin_us, rel=5e-4)
    assert b.delay_margin_s < b.bound_s  # (17) is only sufficient


def test_qcn_intermediate_values_and_scaling():
    b = qcn_bound(10e9, 10)
    assert (b.a3, b.b, b.gamma) == pytest.approx((1302.1, 833.3, 4166.7), abs=0.1)
    assert (b.a1, b.alpha, b.beta) == pytest.approx((240.574, 3.803, 1073.9), abs=1e-3 * 1073.9)
    assert (b.eta, b.zeta) == pytest.approx((0.0057737, 3.7936e-5), rel=1e-4)
    assert b.crossover_rad_s == pytest.approx(2470.8, abs=0.1)
    assert b.bound_s / qcn_bound(100e9, 10).bound_s == pytest.approx(10, abs=0.05)
    assert qcn_bound(10e9, 1).bound_s * 1e6 == pytest.approx(168.5, abs=0.1)
    assert qcn_bound(10e9, 50).bound_s * 1e6 == pytest.approx(281.6, abs=0.1)
    # at the exact margin the loop sits on -1
    loop = qcn_loop(b, delay_s=b.delay_margin_s)
    assert loop.response(b.crossover_rad_s) == pytest.approx(-1.0, abs=1e-9)


@pytest.mark.parametrize("gains", [GAINS_A, GAINS_S])
def test_asm_defaults_sit_exactly_on_the_sliding_boundary(gains):
    c = sliding_condition(**gains)
    assert c.gain_part_minus == 0 and isinstance(c.gain_part_minus, Fraction)
    assert c.m_minus == 1
    assert c.marginal and not c.satisfied
    assert c.m_plus > 0


def test_asm_spiral_gain_parts_match_algorithms():
    assert float(sliding_condition(**GAINS_A).gain_part_plus) == pytest.approx(3.94, abs=0.005)
    assert float(sliding_condition(**GAINS_S).gain_part_plus) == pytest.approx(1.97, abs=0.005)


def _compliant():
    g = dict(GAINS_S)
    g["b_minus"] = 2 * 32 * g["a_minus"]  # b- = 2 w a-
    return g


def test_asm_compliant_trajectories_reach_lambda_and_decay_at_pc_over_w():
    m = asm_fluid(1e9, gains=_compliant())
    assert m.condition.satisfied
    c = m.c_pps
    roots_spiral = characteristic_roots(m.gains["a_plus"], m.gains["b_plus"], p=m.p, c_pps=c)
    roots_parabola = characteristic_roots(m.gains["a_minus"], m.gains["b_minus"], p=m.p, c_pps=c)
    assert np.all(np.iscomplex(roots_spiral)) and np.all(roots_spiral.real < 0)
    assert np.all(np.isreal(roots_parabola)) and np.all(roots_parabola.real < 0)
    th = np.linspace(0, 2 * np.pi, 9)[:-1]
    tr = m.solve(64 * np.cos(th), 0.5 * c * np.sin(th), until_s=0.2).traces
    rate = m.sliding_rate_per_s
    for _, d in tr.groupby("traj"):
        late = d[d.time_s > 0.1]
        assert np.max(np.abs(late.fb_pkts)) < 0.05 * 64       # stays on Lambda (band 0.05 q0)
        slope = np.polyfit(late.time_s, np.log(np.abs(late.queue_offset_pkts)), 1)[0]
        assert -slope == pytest.approx(rate, rel=0.05)          # eq 16


def test_asm_noncompliant_b_minus_does_not_hold_lambda():
    g = dict(GAINS_S)
    g["b_minus"] = Fraction(0)   # b- too small: the parabola set pushes the state across Lambda
    m = asm_fluid(1e9, gains=g)
    assert not m.condition.satisfied
    tr = m.solve([64.0], [0.0], until_s=0.2).traces
    late = tr[tr.time_s > 0.1]
    assert np.max(np.abs(late.fb_pkts)) > 0.05 * 64 or np.any(np.diff(np.sign(late.queue_offset_pkts)) != 0)
