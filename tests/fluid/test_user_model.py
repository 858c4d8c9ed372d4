"""Fluid models given by the user (`ccscope.fluid.user_model`): the built-in DCTCP equations
(P000 eqs 5-8) written as user functions give the built-in model's trajectory, limit cycle and
sweep on the numpy backend; a bad model is one error naming the model, the quantity and the time."""
from __future__ import annotations

import numpy as np
import pytest

import ccscope.fluid as fluid
from ccscope.fluid.user import UserModelError

N, RATE_BPS, RTT_S, K_PKTS, G = 10, 10e9, 100e-6, 65.0, 1 / 16
UNTIL_S = 0.006
STEPS_PER_RSTAR = 50


def dctcp_rhs(x, xd, p):
    """P000 eqs 5-8, one group, in the operation order of fluid/dctcp.py's _PhysicalDde."""
    w, a, q = x["w"], x["alpha"], x["q"]
    r = p["rtt_s"] + q / p["c_pps"]
    u = xd.above("q", p["k_pkts"])             # p(t - R*) = 1{q(t - R*) > K}, exact step average
    dw = 1.0 / r - w * a * u / (2.0 * r)
    da = p["g"] / r * (u - a)
    dq = p["n"] * w / r - p["c_pps"]
    dq = np.where(q <= 0.0, np.maximum(dq, 0.0), dq)
    return dw, da, dq


def utilization(x, p):
    q = x["q"]
    arrival = p["n"] * x["w"] / (p["rtt_s"] + q / p["c_pps"])
    return np.where(q > 0.0, 1.0, np.minimum(arrival / p["c_pps"], 1.0))


def dctcp_user(c_pps: float):
    return fluid.user_model(
        "dctcp_as_user", state=("w", "alpha", "q"), rhs=dctcp_rhs, rate=utilization, delayed=("q",),
        params={"n": N, "c_pps": c_pps, "rtt_s": RTT_S, "k_pkts": K_PKTS, "g": G},
        delay=lambda p: p["rtt_s"] + p["k_pkts"] / p["c_pps"], floors={"q": 0.0}, monitor="q", level="k_pkts")


def test_dctcp_written_as_a_user_model_equals_the_built_in_trajectory():
    built_in = fluid.dctcp(N, RATE_BPS, RTT_S, K_PKTS, g=G)
    dt = float(built_in.r_star_s[0]) / STEPS_PER_RSTAR
    a = built_in.solve(UNTIL_S, dt_s=dt, record_every=5, backend="numpy")
    user = dctcp_user(built_in.c_pps)
    b = user.solve(UNTIL_S, x0={"w": built_in.wbar, "alpha": 0.5, "q": K_PKTS}, dt=dt, record_every=5)
    xa = a.traces[["time_s", "window_pkts", "alpha", "queue_pkts"]].to_numpy()
    xb = b.traces[["time_s", "w", "alpha", "q"]].to_numpy()
    assert xa.shape == xb.shape and xa.shape[0] > 100
    assert np.max(np.abs(xa - xb) / np.maximum(1.0, np.abs(xa))) <= 1e-12
    assert a.limit_cycle.periodic and b.limit_cycle.periodic
    for f in ("q_min", "q_max", "period", "throughput"):
        assert getattr(b.limit_cycle, f) == pytest.approx(getattr(a.limit_cycle, f), rel=1e-12, abs=1e-12), f


def test_a_user_model_sweep_equals_the_built_in_sweep():
    grid = {"n": [5.0, 20.0], "rate_bps": [RATE_BPS], "rtt_s": [RTT_S], "k_pkts": [K_PKTS], "g": [G]}
    until = 0.004
    built = fluid.sweep("dctcp", grid, until_s=until, backend="numpy")
    c = 10e9 / (1500 * 8)
    user = dctcp_user(c)
    wbar = lambda p: (p["c_pps"] * p["rtt_s"] + p["k_pkts"]) / p["n"]  # noqa: E731 - as _sweep_dctcp starts
    # _sweep_dctcp's step: min(R*) / 500 over the grid
    dt = (RTT_S + K_PKTS / c) / 500
    got = fluid.sweep(user, {"n": [5.0, 20.0]}, until=until, dt=dt,
                      x0=lambda p: {"w": wbar(p), "alpha": 0.5, "q": p["k_pkts"]})
    for ours, theirs in (("q_min", "q_min_pkts"), ("q_max", "q_max_pkts"), ("period", "period_s"),
                         ("throughput", "throughput"), ("periodic", "periodic")):
        np.testing.assert_allclose(got[ours].to_numpy(dtype=float), built[theirs].to_numpy(dtype=float),
                                   rtol=1e-12, atol=0, err_msg=ours)
    assert np.all(np.isfinite(got.q_min)) and np.all(got.q_max > got.q_min)


def _model(rhs, **kw):
    args = {"state": ("w", "q"), "rhs": rhs, "params": {"c": 100.0, "d": 0.01}, "delay": "d", **kw}
    return fluid.user_model("mine", **args)


X0 = {"w": 1.0, "q": 0.0}


def test_a_wrong_number_of_derivatives_names_the_model_and_the_time():
    m = _model(lambda x, xd, p: (1.0,))
    with pytest.raises(UserModelError, match=r"fluid model 'mine': rhs returned 1 derivatives at t = 0; "
                                             r"expected 2 \(w, q\)"):
        m.solve(0.1, x0=X0)


def test_a_derivative_of_the_wrong_shape_is_named():
    m = _model(lambda x, xd, p: (np.ones(3), 0.0))
    with pytest.raises(UserModelError, match=r"fluid model 'mine': dw/dt has shape \(3,\) at t = 0; expected a "
                                             r"scalar or the batch shape \(1,\)"):
        m.solve(0.1, x0=X0)


def test_a_nan_from_rhs_names_the_component_the_time_and_the_state():
    def rhs(x, xd, p):  # blows up once the delayed window exceeds 2
        return 10.0, np.where(xd["w"] > 2.0, np.nan, 0.0)
    m = _model(rhs)
    with pytest.raises(UserModelError) as e:
        m.solve(1.0, x0=X0, dt=0.001)
    msg = str(e.value)
    assert msg.startswith("fluid model 'mine': dq/dt = nan at t = 0.11 ")
    assert "batch point 0, state w=" in msg and "must be finite" in msg


def test_an_exception_inside_rhs_names_the_model_and_the_time_and_keeps_the_cause():
    def rhs(x, xd, p):
        if np.any(x["w"] > 1.5):
            raise ZeroDivisionError("my bug")
        return 1.0, 0.0
    m = _model(rhs)
    with pytest.raises(UserModelError, match=r"fluid model 'mine': rhs raised ZeroDivisionError: my bug "
                                             r"\(in the step at t = 0\.49\)") as e:
        m.solve(1.0, x0=X0, dt=0.01)
    assert isinstance(e.value.__cause__, ZeroDivisionError)


def test_bad_definitions_are_refused_before_integrating():
    ok = lambda x, xd, p: (0.0, 0.0)  # noqa: E731
    with pytest.raises(UserModelError, match=r"floors names 'queue', not a state component; state: w, q"):
        _model(ok, floors={"queue": 0.0})
    with pytest.raises(UserModelError, match=r"delay = 'rtt': not a parameter; parameters: c, d"):
        _model(ok, delay="rtt")
    with pytest.raises(UserModelError, match=r"parameter c = nan: must be a finite number"):
        _model(ok, params={"c": float("nan"), "d": 0.01})
    m = _model(ok)
    with pytest.raises(UserModelError, match=r"grid: unknown parameter 'n'; parameters: c, d"):
        m.sweep({"n": [1, 2]}, until=0.1, x0=X0)
    with pytest.raises(UserModelError, match=r"x0 has keys \['w'\]; expected one value per state: w, q"):
        m.solve(0.1, x0={"w": 1.0})
    with pytest.raises(UserModelError, match=r"backend = 'jax': user models run on the numpy backend"):
        m.solve(0.1, x0=X0, backend="jax")
    with pytest.raises(UserModelError, match=r"delay = -1.0: must be finite and > 0"):
        m.solve(0.1, x0=X0, d=-1.0)


def test_the_delayed_state_is_what_it_was_one_delay_ago():
    # dw/dt = 1 (w = t), dq/dt = w(t - d): q(t) = (t - d)^2 / 2 for t >= d (history w = 0)
    m = _model(lambda x, xd, p: (1.0, xd["w"]), delayed=("w",), params={"c": 1.0, "d": 0.1})
    r = m.solve(0.5, x0={"w": 0.0, "q": 0.0}, dt=0.01, record_every=1)
    t, q = r.traces.time_s.to_numpy(), r.traces.q.to_numpy()
    late = t >= 0.1
    np.testing.assert_allclose(q[late], (t[late] - 0.1) ** 2 / 2, rtol=0, atol=1e-12)


def test_rhs_may_return_a_dict_and_keywords_override_parameters():
    m = _model(lambda x, xd, p: {"q": 0.0, "w": p["c"]}, params={"c": 1.0, "d": 0.1})
    r = m.solve(0.5, x0=X0, dt=0.01, c=3.0)
    assert r.traces.w.iloc[-1] == pytest.approx(1.0 + 3.0 * 0.5, rel=1e-12)
    assert r.params["c"] == 3.0 and r.traces.q.eq(0.0).all()
    bad = _model(lambda x, xd, p: {"w": 0.0})
    with pytest.raises(UserModelError, match=r"rhs returned the keys \['w'\] at t = 0; expected one derivative "
                                             r"per state: w, q"):
        bad.solve(0.1, x0=X0)
