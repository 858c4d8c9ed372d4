"""DX fluid model, equilibrium and corrected Theorem 1 bound (P004 with E50, E53), ALGORITHMS.md §6.2."""
import numpy as np
import pytest
from ccscope.fluid import dx
from ccscope.fluid.dx import equilibrium, loop, max_stable_r0, min_stable_flows

TABLE = [  # N, R0 (us), Q0 (us), W0 (B), wc, bound (us), stable
    (10, 120, 0.697, 15087, 10147, 94.59, False),
    (42, 120, 4.307, 3700, 9154, 120.43, True),
    (50, 80, 8.778, 2219.5, 12134, 105.05, True),
    (50, 120, 5.762, 3144, 8903, 128.42, True),
    (100, 80, 50.09, 1626, 8089, 184.04, True),
]


@pytest.mark.parametrize("n,r0,q0,w0,wc,bound,stable", TABLE)
def test_equilibrium_and_corrected_bound(n, r0, q0, w0, wc, bound, stable):
    e = equilibrium(n, 10e9, r0 * 1e-6)
    assert e.q0_s * 1e6 == pytest.approx(q0, rel=2e-3)
    assert e.w0_bytes == pytest.approx(w0, rel=5e-4)
    assert e.crossover_rad_s == pytest.approx(wc, abs=1)
    assert e.bound_s * 1e6 == pytest.approx(bound, abs=0.01)
    assert e.stable is stable
    assert e.bound_printed_s < 0  # E50: the printed sign gives a negative bound


def test_equilibrium_solves_eqs_5_6_and_loop_hits_minus_one_at_the_bound():
    e = equilibrium(50, 10e9, 80e-6)
    c, seg, p = 10e9 / 8, 1500, 0.95
    assert seg * e.r0_s * (1 - p) == pytest.approx(p * e.q0_s * (e.w0_bytes - seg), rel=1e-12)
    assert 50 * e.w0_bytes == pytest.approx(c * (e.r0_s + e.q0_s), rel=1e-12)
    lp = loop(e, delay_s=e.bound_s)
    assert abs(lp.response(e.crossover_rad_s)) == pytest.approx(1.0, abs=1e-9)
    assert lp.response(e.crossover_rad_s) == pytest.approx(-1.0, abs=1e-9)
    assert loop(e, delay_s=0.0).delay_margin() == pytest.approx(e.bound_s, rel=1e-9)  # bound = exact margin


def test_stability_thresholds():
    n_min = [min_stable_flows(10e9, r0 * 1e-6) for r0 in (80, 120, 200, 400)]
    np.testing.assert_allclose(n_min, [27.70, 41.55, 69.26, 138.51], atol=0.01)  # E51: paper's 50 at 200 us
    assert max_stable_r0(50, 10e9) * 1e6 == pytest.approx(144.39, abs=0.01)


def test_special_state_thresholds():
    assert equilibrium(50, 10e9, 80e-6).special_threshold_flows == pytest.approx(200 / 3)
    assert not equilibrium(66, 10e9, 80e-6).special_state and equilibrium(67, 10e9, 80e-6).special_state
    assert equilibrium(100, 10e9, 120e-6).special_threshold_flows == pytest.approx(100)
    assert equilibrium(50, 10e9, 20e-6).special_queue_s == pytest.approx(40e-6)


def test_fluid_model_settles_to_equilibrium_when_stable_and_oscillates_when_not():
    stable = dx(50, 10e9, 80e-6).solve(0.015, dt_s=80e-6 / 100)
    assert stable.success
    assert stable.traces.queue_delay_s.iloc[-1] == pytest.approx(8.778e-6, rel=1e-3)
    unstable = dx(10, 10e9, 120e-6).solve(0.015, dt_s=120e-6 / 100).limit_cycle
    assert unstable.periodic and unstable.q_min == 0.0
