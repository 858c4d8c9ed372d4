"""The fixed-step DDE solver: backends agree, step halving converges, bad input is named."""
import numpy as np
import pytest
from ccscope.fluid.dctcp import (
    NORMALIZED_DDE,
    dctcp_normalized,
    normalized_limit_cycles,
)
from ccscope.fluid.solver import fraction_above, integrate

# A short batch that still holds >= 5 periods after settling (g = 1/4 settles in ~100 R*).
WBAR = np.array([2.5, 10.0, 40.0])
G = np.array([0.25, 0.25, 0.25])
SHORT = {"settle": 100.0, "measure": 60.0}


def test_fraction_above_is_exact_step_average_of_indicator():
    lo, hi = np.array([-1.0, 1.0, 2.0, -1.0]), np.array([3.0, -3.0, 1.0, -2.0])
    np.testing.assert_allclose(fraction_above(np, lo, hi, 0.0), [0.75, 0.25, 1.0, 0.0])


def test_numpy_and_jax_backends_agree_on_the_same_batch():
    pytest.importorskip("jax")
    a = normalized_limit_cycles(WBAR, G, backend="numpy", **SHORT)
    b = normalized_limit_cycles(WBAR, G, backend="jax", **SHORT)
    for key in ("q_min", "q_max", "period", "throughput"):
        np.testing.assert_allclose(a[key], b[key], rtol=0, atol=1e-9, err_msg=key)


def test_jax_recorded_traces_match_numpy():
    pytest.importorskip("jax")
    m = dctcp_normalized(10, 1 / 16)
    ta = m.solve(20.0, record_every=50).traces
    tb = m.solve(20.0, record_every=50, backend="jax").traces
    np.testing.assert_allclose(ta.values, tb.values, atol=1e-9)


def test_halving_the_step_changes_limit_cycle_by_less_than_1e4():
    # Order-2 Heun with step-averaged marking: the checkpoints need +-5e-4, we ask 5x tighter.
    coarse = normalized_limit_cycles(WBAR, G, dt=0.02, **SHORT)
    fine = normalized_limit_cycles(WBAR, G, dt=0.01, **SHORT)
    for key in ("q_min", "q_max"):
        np.testing.assert_allclose(coarse[key], fine[key], atol=1e-4, err_msg=key)
    np.testing.assert_allclose(coarse["period"], fine["period"], rtol=1e-4)


def test_step_larger_than_delay_is_rejected_naming_dt():
    with pytest.raises(ValueError, match=r"^dt = 2.*delay"):
        integrate(NORMALIZED_DDE, {"wbar": 10.0, "g": 0.1, "q_floor": -1.0}, [10, 0.5, 0], delays=1.0, history=0.0,
                  dt=2.0, until=10.0)


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="backend"):
        normalized_limit_cycles([10.0], [0.1], backend="cuda", **SHORT)
