"""QCN time-domain fluid model (P002 eqs 1, 4-8; App. A loop eq 18 with E33), ALGORITHMS.md §4.2-4.4.

Expected values come from the closed forms of App. A (corrected, E33) and the equilibrium of the model
equations, never from a previous run: the fixed point (Qeq + F*, C/N, C/N + delta) with
delta = R_AI zeta/p and F* = delta eta/(2 Gd p C/N); the closed-loop polynomial of eq 18 at tau = 0,
s (s^2 + beta s + alpha) + a3 (s + b)(s + gamma); and the delay margin / crossover of the same loop.
"""
import math

import numpy as np
import pytest
from ccscope.fluid.qcn import QCN_DDE, qcn_fluid, solve_batch

RATE, N = 10e9, 10


def _equilibrium(m):
    b = m.bound
    delta = m.r_ai_pps * b.zeta / m.p                      # dR_T/dt = 0
    f_star = delta * b.eta / (2 * m.gd * m.p * m.fair_rate_pps)  # dR_C/dt = 0
    return np.array([[m.qeq_pkts + f_star, m.fair_rate_pps, m.fair_rate_pps + delta]])


def test_linearization_at_the_stable_point_is_the_loop_of_appendix_a():
    m = qcn_fluid(RATE, N)
    b, params = m.bound, {k: np.array([v]) for k, v in m._params().items()}
    x = _equilibrium(m)
    lag = np.zeros((1, 1, 2))  # unused: delay 0 reads the current state
    assert np.abs(QCN_DDE.rhs(np, x, lag, lag, params)).max() < 1e-6 * m.fair_rate_pps
    jac = np.zeros((3, 3))
    for j in range(3):
        h = 1e-4 * max(1.0, abs(x[0, j]))
        xp, xm = x.copy(), x.copy()
        xp[0, j] += h
        xm[0, j] -= h
        jac[:, j] = (QCN_DDE.rhs(np, xp, lag, lag, params) - QCN_DDE.rhs(np, xm, lag, lag, params))[0] / (2 * h)
    # 1 + G(s) = 0 with tau = 0 (eq 18, E33): s^3 + (beta + a3) s^2 + (alpha + a3 (b + gamma)) s + a3 b gamma
    expected = np.roots([1, b.beta + b.a3, b.alpha + b.a3 * (b.b + b.gamma), b.a3 * b.b * b.gamma])
    got = np.linalg.eigvals(jac)
    assert np.sort_complex(got) == pytest.approx(np.sort_complex(expected), rel=1e-6)
    assert np.any(np.abs(expected.imag) > 0)  # a complex pair: QCN circles (Qeq, C) (P002 §2.3.3, Fig 2)


@pytest.fixture(scope="module")
def delay_runs():
    """One batch: tau = 0, 0.5 x the exact delay margin, the margin itself, 2 x the eq-17 bound.

    Margins: the exact delay margin (250.9 us) is where the linear loop loses stability; at half of it the
    phase margin is half its tau = 0 value, so the loop is clearly stable. Eq 17 (270.7 us) is only a
    sufficient condition for instability; twice it gives a clearly growing linear mode, which the
    nonlinearities (q >= 0, the 50 % cut cap) turn into a bounded oscillation."""
    b = qcn_fluid(RATE, N).bound
    delays = (0.0, 0.5 * b.delay_margin_s, b.delay_margin_s, 2 * b.bound_s)
    models = [qcn_fluid(RATE, N, delay_s=d) for d in delays]
    # start 50 % above the fair share with an empty queue; 10 us steps resolve gamma = 4167/s (gamma dt = 0.04)
    return models, solve_batch(models, 0.04, dt_s=1e-5, r0_bps=1.5 * RATE / N)


def test_without_delay_converges_to_qeq_and_c(delay_runs):
    models, df = delay_runs
    m, row = models[0], df.iloc[0]
    x_star = _equilibrium(m)[0]
    assert row.q_final_pkts == pytest.approx(x_star[0], abs=1e-3)      # Qeq + F* (F* = 7e-4 frames)
    assert abs(row.q_final_pkts - m.qeq_pkts) < 0.01 * m.qeq_pkts
    assert row.rate_final_bps == pytest.approx(RATE, rel=1e-4)
    assert not row.periodic


def test_half_the_delay_margin_settles_twice_the_bound_oscillates(delay_runs):
    models, df = delay_runs
    qeq = models[0].qeq_pkts
    stable, unstable = df.iloc[1], df.iloc[3]
    assert stable.q_max_pkts - stable.q_min_pkts < 0.01 * qeq          # settled in the second half
    assert stable.rate_final_bps == pytest.approx(RATE, rel=1e-3)
    assert unstable.periodic and unstable.q_max_pkts - unstable.q_min_pkts > qeq  # keeps swinging
    assert unstable.q_min_pkts == 0.0                                  # drains the buffer (P002 §5.2, Fig 10)


def test_at_the_delay_margin_the_loop_rings_at_the_crossover_frequency(delay_runs):
    models, df = delay_runs
    b = models[0].bound
    row = df.iloc[2]
    assert row.periodic
    assert row.period_s == pytest.approx(2 * math.pi / b.crossover_rad_s, rel=0.02)  # 2.543 ms


def test_negative_only_feedback_also_settles_without_delay():
    m = qcn_fluid(RATE, N, feedback="negative")
    r = m.solve(0.03, dt_s=1e-5, r0_bps=1.5 * RATE / N, record_every=100)
    last = r.traces.iloc[-1]
    assert r.success
    assert abs(last.queue_pkts - m.qeq_pkts) < 0.01 * m.qeq_pkts
    assert last.aggregate_rate_bps == pytest.approx(RATE, rel=1e-3)


def test_numpy_and_jax_backends_agree():
    pytest.importorskip("jax")
    m = qcn_fluid(RATE, N, delay_s=100e-6)
    a = m.solve(2e-3, dt_s=1e-5, r0_bps=1.5 * RATE / N, record_every=20).traces
    j = m.solve(2e-3, dt_s=1e-5, r0_bps=1.5 * RATE / N, record_every=20, backend="jax").traces
    assert np.allclose(a.queue_pkts, j.queue_pkts, rtol=1e-9, atol=1e-9)
    assert np.allclose(a.rate_pps, j.rate_pps, rtol=1e-9)


@pytest.mark.parametrize("kwargs,needle", [
    ({"delay_s": -1e-6}, "delay_s = -1e-06"),
    ({"feedback": "both"}, "feedback = 'both'"),
    ({"qeq_pkts": float("nan")}, "qeq_pkts"),
])
def test_bad_parameters_name_the_field(kwargs, needle):
    with pytest.raises(ValueError, match=needle.replace("(", r"\(")):
        qcn_fluid(RATE, N, **kwargs)
