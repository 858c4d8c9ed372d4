"""ASM fluid model as one batch (`ccscope.fluid.asm.solve_batch`, `sweep("asm" | "asm_fluid")`).

The batch must give, point by point, what the single-model integrator gives (same step, same start),
and the closed-form columns must be ineq. 15 / eq 16 evaluated for that point: the §5.1 sliding set is
marginal (E39: w a- = b-, M(a-, b-) = 1), b- = 2 w a- satisfies it, and pC/w scales with C.
"""
import numpy as np
import pytest
from ccscope.fluid.asm import GAINS_S, STEPS_PER_TAU, asm_fluid, solve_batch
from ccscope.fluid.sweep import sweep

RATE = 10e9


def test_closed_form_sweep_is_inequality_15_and_eq_16():
    d = sweep("asm", {"rate_bps": [1e9, 10e9], "b_minus": [float(GAINS_S["b_minus"]), 2 * float(GAINS_S["b_minus"])]})
    default = d[d.b_minus == float(GAINS_S["b_minus"])]
    assert (default.m_minus == 1.0).all() and default.marginal.all() and not default.sliding.any()
    compliant = d[d.b_minus == 2 * float(GAINS_S["b_minus"])]
    assert compliant.sliding.all() and (compliant.m_minus < 0).all()
    # pC/w with p = 0.01, w = 32, 1500-B packets: 26.04 /s at 1 Gb/s, ten times that at 10 Gb/s
    rates = d.drop_duplicates("rate_bps").set_index("rate_bps").sliding_rate_per_s
    assert rates[1e9] == pytest.approx(0.01 * 1e9 / 12000 / 32)
    assert rates[10e9] == pytest.approx(10 * rates[1e9])


@pytest.mark.parametrize("delay_s", [0.0, 10e-6])
def test_batch_point_equals_the_single_model_run(delay_s):
    gains = {**GAINS_S, "b_minus": 2 * GAINS_S["b_minus"]}
    models = [asm_fluid(RATE, gains=gains, delay_s=d, q0_pkts=64) for d in (0.0, 10e-6, 20e-6)]
    out = solve_batch(models, x1_pkts=20.0, x2_pps=-0.3 * models[0].c_pps, until_tau=4.0)
    i = [0.0, 10e-6, 20e-6].index(delay_s)
    m = models[i]
    dt = 1.0 / m.sliding_rate_per_s / STEPS_PER_TAU
    tr = m.solve(20.0, -0.3 * m.c_pps, until_s=out.until_s[0], dt_s=dt, record_every=1).traces
    late = tr[tr.time_s > 0.5 * out.until_s[0] + 0.5 * dt]  # the monitor counts steps after the settle time
    assert out.band_pkts[i] == pytest.approx(late.queue_offset_pkts.abs().max(), rel=1e-9, abs=1e-9)
    assert out.q_offset_final_pkts[i] == pytest.approx(tr.queue_offset_pkts.iloc[-1], rel=1e-9, abs=1e-9)
    assert out.sliding[i]


def test_delay_sweep_converges_into_a_band_and_rejects_delays_below_the_step():
    d = sweep("asm_fluid", {"rate_bps": [RATE], "delay_s": [0.0, 2e-6, 20e-6], "q0_pkts": [64],
                            "b_minus": [2 * float(GAINS_S["b_minus"])]})
    # from 30 % below the line rate the queue returns to a band of a few packets around q0 (Prop 2)
    assert (d.band_pkts < 2.0).all()
    assert np.isfinite(d.rate_excess_final_pps).all()
    with pytest.raises(ValueError, match="delay_s"):
        sweep("asm_fluid", {"rate_bps": [RATE], "delay_s": [1e-9]})
    with pytest.raises(ValueError, match="unknown parameter"):
        sweep("asm_fluid", {"rate_bps": [RATE], "delay_s": [0.0], "gain": [1]})


def test_numpy_and_jax_batches_agree():
    pytest.importorskip("jax")
    models = [asm_fluid(RATE, delay_s=d, q0_pkts=64) for d in (0.0, 5e-6)]
    a = solve_batch(models, until_tau=2.0)
    b = solve_batch(models, until_tau=2.0, backend="jax")
    assert np.allclose(a.band_pkts, b.band_pkts, rtol=1e-9, atol=1e-9)
    assert np.allclose(a.q_offset_final_pkts, b.q_offset_final_pkts, rtol=1e-9, atol=1e-9)
