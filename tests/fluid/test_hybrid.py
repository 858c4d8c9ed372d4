"""Hybrid model (P000 eqs 19-27) against ALGORITHMS.md §2.6 and FIGURES.md fig11/fig12/text-convergence-rate."""
import math

import numpy as np
import pytest
from ccscope.fluid import convergence_rate, dctcp_hybrid
from scipy.integrate import solve_ivp

FIG12 = [  # g, alpha*, gamma, beta, beta_TCP/beta, convergence time (RTT)
    (1 / math.sqrt(200), 0.11728, 0.008804, 0.008804, 1.544, 274.6),
    (5 / 200, 0.12623, 0.008917, 0.008917, 1.524, 330.7),
    (1 / 200, 0.13062, 0.008968, 0.005, 2.718, 866.7),
]


@pytest.mark.parametrize("g,a_star,gamma,beta,ratio,t_conv", FIG12)
def test_fig12_convergence_times_and_rates(g, a_star, gamma, beta, ratio, t_conv):
    r = dctcp_hybrid([199, 1], [0, 1], w_max_pkts=200, g=g).run()
    assert r.convergence_time_rtt == pytest.approx(t_conv, abs=0.05)  # table is rounded to 0.1 RTT
    rate = convergence_rate(200, 2, g)
    assert rate.alpha_star == pytest.approx(a_star, abs=5e-6)
    assert rate.gamma == pytest.approx(gamma, abs=5e-7)
    assert rate.beta == pytest.approx(beta, abs=5e-7)
    assert rate.beta_tcp_ratio == pytest.approx(ratio, abs=5e-4)  # E6: > 1.4 at W* = 100
    assert rate.alpha_star_lower < rate.alpha_star < rate.alpha_star_upper  # Theorem 3


def test_convergence_ratio_1_1204_3156():
    t = [dctcp_hybrid([199, 1], [0, 1], w_max_pkts=200, g=g).run().convergence_time_rtt for g, *_ in FIG12]
    assert (t[1] / t[0], t[2] / t[0]) == pytest.approx((1.204, 3.156), abs=1e-3)


def test_windows_sum_to_wmax_at_every_event_and_alpha_follows_eq21():
    r = dctcp_hybrid([150, 30, 20], [0.2, 0.5, 1.0], w_max_pkts=200, g=0.05).run(events=50)
    w = r.traces.filter(like="window_pkts").values
    np.testing.assert_allclose(w.sum(axis=1), 200, atol=1e-9)
    # eq 21 = solution of dalpha/dt = g(p - alpha), p = 1 on the first RTT of the epoch, then 0
    t = r.traces.time_rtt.values
    a = r.traces.filter(like="alpha").values
    d_t = t[2] - t[1]
    sol = solve_ivp(lambda s, y: 0.05 * ((1.0 if s < 1 else 0.0) - y), (0, d_t), a[1], rtol=1e-10, atol=1e-12,
                    max_step=0.01)
    np.testing.assert_allclose(sol.y[:, -1], a[2], atol=1e-6)


def test_theorem2_bound_holds_for_random_starts():
    rng = np.random.default_rng(7)
    for _ in range(10):
        n = int(rng.choice([2, 4, 8]))
        w_max = float(rng.choice([100, 200, 1000]))
        g = float(rng.choice([5 / w_max, 1 / math.sqrt(w_max)]))
        w0 = rng.dirichlet(np.ones(n)) * w_max
        model = dctcp_hybrid(w0, rng.uniform(0, 1, n), w_max_pkts=w_max, g=g)
        rate = model.rate()
        r = model.run(until_rtt=rate.t_p2_rtt + 15 / rate.beta)
        from ccscope.fluid.dctcp_hybrid import theorem2_bound
        t = r.traces.time_rtt.values
        dev = np.abs(r.traces.filter(like="window_pkts").values - w_max / n).max(axis=1)
        bound = theorem2_bound(w_max, n, g, t, np.arange(len(t)))
        active = dev > 1e-9 * w_max
        assert np.all(dev[active] < bound[active])


def test_hybrid_rejects_bad_g():
    with pytest.raises(ValueError, match=r"^g = "):
        dctcp_hybrid([1, 1], [0, 0], w_max_pkts=10, g=0)
