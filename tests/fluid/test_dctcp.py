"""DCTCP fluid models against ALGORITHMS.md §2.3-2.5, §2.8 and §10 (P000).

Tolerances: the checkpoints are quoted to 4 digits and "stable to +-0.0005 between steps 1e-3 and
2.5e-4" (ALGORITHMS.md §2.5); our order-2 solver agrees with the independent high-accuracy
Poincaré orbit (scipy DOP853, rtol 1e-10) to < 1e-5, so +-5e-4 on Q and +-0.1% on the period
leave room only for the checkpoints' own rounding.
"""
import math

import numpy as np
import pytest
from ccscope.analysis.guidelines import dctcp_guidelines, k_fraction_from_qmin
from ccscope.fluid import dctcp, dctcp_normalized, sawtooth
from ccscope.fluid.dctcp import normalized_limit_cycles

Q_TOL = 5e-4
CHECKPOINTS = [  # g, wbar, Qmin, Qmax, period (R*)  -- ALGORITHMS.md §2.5
    (1 / 16, 2.5, -0.0289, 0.3251, 10.26),
    (1 / 16, 10, -0.1423, 0.1134, 7.177),
    (1 / 16, 100, -0.0818, 0.0110, 13.50),
    (0.01, 10, -0.1312, 0.1099, 6.892),
]


def test_limit_cycle_checkpoints_from_the_batched_dde_solver():
    g = np.array([c[0] for c in CHECKPOINTS])
    w = np.array([c[1] for c in CHECKPOINTS])
    # alpha starts at sqrt(2/wbar), near its orbit average; 20/g of settling for g = 0.01 is 2000 R*,
    # 600 R* already leaves the g = 0.01 orbit within 1e-5 of its limit (multiplier ~0.88 per period).
    out = normalized_limit_cycles(w, g, settle=600.0, measure=80.0)
    for i, (_, _, qmin, qmax, period) in enumerate(CHECKPOINTS):
        assert out["q_min"][i] == pytest.approx(qmin, abs=Q_TOL)
        assert out["q_max"][i] == pytest.approx(qmax, abs=Q_TOL)
        assert out["period"][i] == pytest.approx(period, rel=1e-3)


def test_fixed_point_for_wbar_at_most_two():
    m = dctcp_normalized(1.5, 1 / 16)
    fp = m.fixed_point()
    assert fp == {"window_pkts": 2.0, "alpha": 1.0, "queue_norm": pytest.approx(2 / 1.5 - 1)}
    final = m.solve(300.0, w0=5.0, alpha0=0.3, q0=0.1).traces.iloc[-1]
    assert final.window_pkts == pytest.approx(2.0, abs=1e-3)
    assert final.alpha == pytest.approx(1.0, abs=1e-3)
    assert final.queue_norm == pytest.approx(1 / 3, abs=1e-3)
    assert dctcp_normalized(2.5).fixed_point() is None


def test_physical_fixed_point_of_fig2_n100():
    fp = dctcp(100, 10e9, 100e-6, 65).fixed_point()
    assert fp["queue_pkts"] == pytest.approx(200 - 250 / 3, abs=1e-9)  # 2N - Cd = 116.7 pkts


def test_poincare_fixed_point_and_floquet_multipliers_at_wbar10_g16():
    r = dctcp_normalized(10, 1 / 16).poincare()
    assert r.converged
    assert r.w_star == pytest.approx(9.001, abs=2e-3)
    assert r.alpha_star == pytest.approx(0.4767, abs=5e-4)
    assert r.spectral_radius == pytest.approx(0.40, abs=0.02)
    assert r.stable and r.h_a > 0 and r.h_b > 0
    # E8: the variational equation and finite differences of the map give the same multipliers
    np.testing.assert_allclose(np.abs(r.multipliers), np.abs(r.multipliers_fd), atol=1e-5)
    # the orbit itself reproduces the limit-cycle checkpoint
    assert (r.q_min, r.q_max) == pytest.approx((-0.1423, 0.1134), abs=Q_TOL)
    assert r.period == pytest.approx(7.177, rel=1e-3)


@pytest.mark.parametrize("wbar,g,rho", [(2.5, 1 / 16, 0.32), (12, 0.1, 0.18)])
def test_poincare_spectral_radius_checkpoints(wbar, g, rho):
    assert dctcp_normalized(wbar, g).poincare().spectral_radius == pytest.approx(rho, abs=0.02)


@pytest.mark.parametrize("wbar,g", [(355.25, 0.5623), (274.26, 0.75), (211.74, 1.0)])
def test_return_map_accuracy_on_long_orbits(wbar, g):
    # Long orbits (50-70 R*) with a shallow upward crossing of S: before the step cap (MAP_MAX_STEP) the
    # crossing was located on DOP853's dense output over steps of several R*, and Z1 Z2 was off by
    # 7e-6 .. 3e-4 (the map by up to 3e-8 relative) against a 1000x tighter reference integration.
    ref_tol = {"rtol": 1e-13, "atol": 1e-16, "max_step": 0.1}
    m = dctcp_normalized(wbar, g)
    x = np.array([0.9 * wbar, math.sqrt(2 / wbar)])
    for _ in range(4):
        x = m._map2(x, **ref_tol)
    ref = m.return_map(*x, variational=True, **ref_tol)
    r = m.return_map(*x, variational=True)
    assert r["w"] == pytest.approx(ref["w"], rel=1e-9)
    assert r["alpha"] == pytest.approx(ref["alpha"], abs=1e-9)
    np.testing.assert_allclose(r["monodromy"], ref["monodromy"], rtol=0, atol=1e-9)


def test_worst_undershoot_near_wbar_11_for_g_one_sixteenth():
    wbar = np.arange(9.0, 14.01, 0.5)
    out = normalized_limit_cycles(wbar, np.full(wbar.shape, 1 / 16), settle=320.0, measure=60.0)
    i = int(np.argmin(out["q_min"]))
    assert out["q_min"][i] == pytest.approx(-0.1427, abs=Q_TOL)
    assert 10.5 <= wbar[i] <= 11.5  # E4: worst undershoot at wbar ~ 11, not 12-16


@pytest.mark.parametrize("g,expected", [(1 / 16, 0.9405), (0.05, 0.9411)])
def test_worst_case_throughput_as_k_to_zero(g, expected):
    # ALGORITHMS.md §2.5 table, psi = 0 row; the worst wbar sits at 13-16 (grid spacing 0.5 moves the
    # minimum by < 1e-4 because the curve is flat there). E5: pin g.
    wbar = np.arange(11.0, 18.01, 0.5)
    out = normalized_limit_cycles(wbar, np.full(wbar.shape, g), psi=0.0, measure=60.0)
    assert np.min(out["throughput"]) == pytest.approx(expected, abs=1e-3)
    assert 12.5 <= wbar[np.argmin(out["throughput"])] <= 16.5


def test_full_throughput_at_psi_017_for_small_g():
    wbar = np.array([10.0, 14.0, 20.0])
    out = normalized_limit_cycles(wbar, np.full(3, 0.05), psi=0.17, measure=60.0)
    assert np.min(out["throughput"]) >= 0.999


@pytest.mark.parametrize("n,qmin,qmax,period_ms,until", [(2, 51.5, 67.2, 2.14, 0.03), (10, 44.2, 76.5, 1.35, 0.02)])
def test_physical_model_fig2_limit_cycle(n, qmin, qmax, period_ms, until):
    # ALGORITHMS.md §2.5 (values to 0.1 pkt); dt = R*/100 is enough for the order-2 scheme.
    m = dctcp(n, 10e9, 100e-6, 65, g=1 / 16)
    res = m.solve(until, dt_s=m.r_star_s[0] / 100)
    assert res.success
    assert list(res.traces.columns) == ["time_s", "window_pkts", "alpha", "queue_pkts"]
    cyc = res.limit_cycle
    assert cyc.q_min == pytest.approx(qmin, abs=0.1)
    assert cyc.q_max == pytest.approx(qmax, abs=0.1)
    assert cyc.period * 1e3 == pytest.approx(period_ms, rel=0.01)


def test_guidelines_worked_example_and_100us():
    gd = dctcp_guidelines(10e9, 300e-6)
    assert gd.bdp_pkts == pytest.approx(250)
    assert gd.k_pkts == pytest.approx(42.5)
    assert (gd.g_min, gd.g_max) == pytest.approx((0.0171, 0.0585), abs=1e-4)
    assert dctcp_guidelines(10e9, 100e-6).k_pkts == pytest.approx(0.17 * 250 / 3)
    assert k_fraction_from_qmin(-0.15) == pytest.approx(0.15 / 0.85)


def test_sawtooth_fig3_numbers():
    s = sawtooth(2, 10e9, 100e-6, 65)
    assert s.alpha == pytest.approx(0.164, abs=1e-3)
    assert s.q_max_pkts == 67
    assert s.amplitude_pkts == pytest.approx(0.5 * math.sqrt(4 * (250 / 3 + 65)))
    assert s.q_min_pkts == pytest.approx(54.8, abs=0.05)


@pytest.mark.parametrize("kwargs,name", [({"rate_bps": -1}, "rate_bps"), ({"g": 0}, "g"), ({"g": 1.5}, "g"),
                                          ({"n": 0}, "n"), ({"rtt_s": float("nan")}, "rtt_s")])
def test_bad_parameters_name_the_parameter(kwargs, name):
    args = {"n": 10, "rate_bps": 10e9, "rtt_s": 100e-6, "k_pkts": 65}
    g = kwargs.pop("g", 1 / 16)
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{name} = "):
        dctcp(args.pop("n"), args.pop("rate_bps"), args.pop("rtt_s"), args.pop("k_pkts"), g=g)
