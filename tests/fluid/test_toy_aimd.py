"""Periodic-behaviour toy model (P001 App. A, ALGORITHMS.md §3.4) and AIMD coexistence model (P003 eq 4)."""
import numpy as np
import pytest
from ccscope.fluid import beta_from_alpha, invariant_density, throughput_ratio, toy
from ccscope.fluid.toy import drop_free_buffer_pkts, epoch_length, mean_field_iterate


def test_epoch_and_invariant_masses_fig11():
    assert epoch_length(50, 0.25, 1.0) == pytest.approx(0.005)  # E24: caption prints 0.002
    d = invariant_density(50, 0.25, 1.0)
    np.testing.assert_allclose(d.rate[:4], [0, 0.005, 0.010, 0.015])
    np.testing.assert_allclose(d.mass[:4], [0.25, 0.1875, 0.140625, 0.10546875])
    assert d.mass.sum() == pytest.approx(1.0, abs=1e-11)


def test_capped_density_puts_the_tail_at_d():
    d = invariant_density(50, 0.25, 1.0, cap=0.1)
    assert len(d) == 22 and d.rate.iloc[-1] == 0.1
    assert d.mass.iloc[-1] == pytest.approx(0.75 ** 21)
    assert d.mass.sum() == pytest.approx(1.0, abs=1e-12)


def test_mean_field_converges_geometrically():
    _pos, _mass, lengths, left = mean_field_iterate(np.linspace(0, 0.03, 31), np.full(31, 1 / 31), n=50, r=0.25, c=1.0,
                                                  epochs=20)
    assert left == pytest.approx(0.75 ** 20, abs=1e-12)
    np.testing.assert_allclose(lengths[1:], 0.005, atol=1e-12)


def test_finite_model_fig11_statistics():
    # FIGURES.md periodic/fig11: independent resets; seed s.d. of the time average 0.0014
    run = toy(seed=3).run(1000)
    assert run.mean_epoch == pytest.approx(0.005, rel=0.05)
    assert run.mean_a_after_reset == pytest.approx(0.75, abs=0.02)
    assert run.time_avg_a == pytest.approx(0.862, abs=0.01)
    np.testing.assert_allclose(run.age_fractions, 0.25 * 0.75 ** np.arange(6), atol=0.02)
    # histogram distance to the invariant density: L1 over ages 0..5 below 0.05
    assert np.abs(run.age_fractions - 0.25 * 0.75 ** np.arange(6)).sum() < 0.05


def test_exact_resets_reach_the_mean_field_average():
    run = toy(reset="exact", seed=0).run(1000)
    # 12 resets per epoch: mean-field r = 0.24 -> dt = 0.0048 on average (which 12 is random)
    assert run.mean_epoch == pytest.approx(12 / 50 / 50, rel=0.01)
    assert run.time_avg_a == pytest.approx(1 - 0.25 / 2, abs=3e-3)  # ALGORITHMS.md §3.4: ~ C(1 - r/2)


def test_drop_free_buffer():
    assert drop_free_buffer_pkts() == pytest.approx(748.75)


def test_aimd_throughput_ratio():
    assert throughput_ratio(beta_from_alpha(0.215)) == pytest.approx(4.651, abs=5e-4)  # E64
    np.testing.assert_allclose(throughput_ratio([0.5, 0.75, 0.9]), [1, 2, 5], rtol=1e-12)
    assert throughput_ratio(1 - 0.215) == pytest.approx(2.33, abs=0.005)  # the misreading E64 warns about
    b = np.linspace(0.5, 0.99, 50)
    assert np.all(np.diff(throughput_ratio(b)) > 0)
    with pytest.raises(ValueError, match=r"beta_dctcp\[0\] = 1"):
        throughput_ratio([1.0])
