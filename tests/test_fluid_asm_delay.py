"""ASM fluid model with feedback delay (P002 §4.4, App. D, Prop 2; ALGORITHMS.md §5.3).

Gains: the sliding set S with b- = 2 w a- (satisfies ineq. 15, ALGORITHMS.md §5.2); 100 Gb/s, q0 = 64 pkts
(FIGURES.md asm/fig4). Expected values: eq 16's decay pC/w (no delay) and the band q0 ± 0.1 q0 of FIGURES.md.
"""
import numpy as np
import pytest
from ccscope.fluid.asm import GAINS_S, W_ASM, asm_fluid, quasi_sliding_width, sliding_condition

RATE, Q0 = 100e9, 64.0
COMPLIANT = {**GAINS_S, "b_minus": 2 * W_ASM * GAINS_S["a_minus"]}


def _run(delay_s, *, q0=Q0, until_tau=4.0):
    m = asm_fluid(RATE, gains=COMPLIANT, delay_s=delay_s, q0_pkts=q0)
    tau = 1 / m.sliding_rate_per_s
    # one start in region III (q above q0, rate above C); 1000 steps per tau_s (dt = 0.38 us)
    r = m.solve(0.5 * Q0, 0.25 * m.c_pps, until_s=until_tau * tau, dt_s=tau / 1000, record_every=4)
    return m, r.traces


def _decay(tr):
    t, x = tr.time_s.to_numpy(), np.abs(tr.queue_offset_pkts.to_numpy())
    j = len(x) - int(np.argmax((x > 0.5 * Q0)[::-1])) if (x > 0.5 * Q0).any() else 0
    sel = np.zeros(len(x), bool)
    sel[j:] = True
    sel &= (x > 1e-3 * Q0) & (x < 0.5 * Q0)
    return -np.polyfit(t[sel], np.log(x[sel]), 1)[0]


def test_zero_delay_with_distant_floors_is_the_ideal_model():
    m_ideal = asm_fluid(RATE, gains=COMPLIANT)
    tau = 1 / m_ideal.sliding_rate_per_s
    a = m_ideal.solve(0.5 * Q0, 0.25 * m_ideal.c_pps, until_s=2 * tau, dt_s=tau / 1000, record_every=4).traces
    b = asm_fluid(RATE, gains=COMPLIANT, q0_pkts=1e9).solve(0.5 * Q0, 0.25 * m_ideal.c_pps, until_s=2 * tau,
                                                             dt_s=tau / 1000, record_every=4).traces
    assert np.allclose(a.queue_offset_pkts, b.queue_offset_pkts, rtol=1e-12, atol=1e-9)
    assert _decay(a) == pytest.approx(m_ideal.sliding_rate_per_s, rel=0.05)   # eq 16


def test_delay_gives_quasi_sliding_and_still_converges_to_q0():
    m, tr = _run(10e-6, until_tau=5.0)
    t = tr.time_s.to_numpy()
    x1, fb = tr.queue_offset_pkts.to_numpy(), tr.fb_pkts.to_numpy()
    tau = 1 / m.sliding_rate_per_s
    # eq 16 from the worst offset of the approach (< 2 q0 during the first tau_s): 2 q0 e^-3 = 0.1 q0 at 4 tau_s
    late = t >= 4 * tau
    assert np.all(np.abs(x1[late]) <= 0.1 * Q0)                # in the FIGURES.md band and staying there
    assert abs(x1[-1]) < 0.01 * Q0                             # converging to q0
    # quasi-sliding: Fb no longer stays on Lambda (|Fb| << q0 in the ideal slide) but chatters around it
    _, tr0 = _run(0.0, until_tau=5.0)
    win = (t >= 1 * tau) & (t <= 2 * tau)
    assert np.abs(fb[win]).max() > 10 * np.abs(tr0.fb_pkts.to_numpy()[win]).max()
    assert np.abs(x1).min() >= 0 and (tr.queue_offset_pkts >= -Q0).all()   # queue floor q >= 0


def test_eq46_width_is_zero_without_disturbance_and_linear_in_e1():
    cond = sliding_condition(**COMPLIANT, rate_bps=RATE)
    m = asm_fluid(RATE, gains=COMPLIANT)
    d = quasi_sliding_width(cond, [0.0, 1e9, 2e9], w=m.w, p=m.p, c_pps=m.c_pps)
    m_min = min(abs(float(cond.m_minus)), abs(float(cond.m_plus)))
    assert d[0] == 0 and d[2] == pytest.approx(2 * d[1])
    assert d[1] == pytest.approx(W_ASM**2 * 1e9 / ((0.01 * m.c_pps) ** 2 * m_min), rel=1e-12)


def test_bad_delay_names_the_field():
    with pytest.raises(ValueError, match="delay_s = -1"):
        asm_fluid(RATE, delay_s=-1.0)
    m = asm_fluid(RATE, delay_s=1e-7)
    with pytest.raises(ValueError, match="dt_s"):
        m.solve(1.0, 0.0, until_s=1e-5, dt_s=1e-6)
