"""ASM in the packet simulator: the sliding-mode condition (P002 ineq. 15) decides whether the
queue slides to q0 along Λ or circles the stable point (ALGORITHMS.md §5.2, issue "Every
algorithm" tests).

Setup (the A0 dumbbell of FIGURES.md `asm/*`): 3 ASM sources start at line rate on a 1 Gb/s
bottleneck, q0 = 64 pkts, p = 0.01, w = 32, 1500-B frames, a buffer large enough for no drops.
All three overshoot to a queue of several hundred packets; what happens after the peak is the
test.

Expected values come from the fluid model, not from the code:
- on Λ the queue decays as exp(-pC t / w) (eq 16): pC/w = 0.01 × 83 333 / 32 = 26.04 /s;
- compliant gains (b- = 2 w a-, both sets) satisfy ineq. 15 with margin, so the decay follows
  eq 16; tolerance ±15 %: a feedback arrives every 1/(pC) = 1.2 ms, about 30 per time constant,
  and Qf/dQ are quantized to 1 pkt over a ~400-pkt excursion;
- b- = 0 violates ineq. 15 (M(a-, 0) = 1 > 0 and the parabola region has no damping), so the
  trajectory crosses Λ and circles the stable point: the queue swings through q0 by more than
  B0 = 16 pkts repeatedly and empties;
- the paper's defaults sit on the boundary (w a- = b-); packet runs slide (Fig 5): after the
  peak the queue does not swing through q0 by more than B0.

The CP's de-duplication (§4.5) is off here: the sliding analysis (§4.2, App. B) assumes every
sample feeds back to the sampled source. The "delivered" variant (a source is not sampled
while a feedback to it is in flight) changes nothing in this setup: a feedback reaches its
source 6.5 µs after the sample, before that source's next frame can reach the CP (≥ 12 µs
apart at 1 Gb/s), so the run is identical (tested below). The literal rule (never sample the
last destination again until another source is sampled, the engine default) changes who
is sampled: this 3-source start then measured compliant gains peak 919 pkts, decay 22.7 /s,
two swings through q0 and an emptied queue; defaults peak 689, decay 11.2 /s, no swing; b- = 0
three swings (docs/engine.md, "ASM de-duplication").
"""
from __future__ import annotations

import numpy as np
import pytest

import ccscope as cc

Q0 = 64.0
PKT = 1500
RATE = 1e9
W = 32.0
P = 0.01
PC_OVER_W = P * RATE / (8 * PKT) / W  # 26.04 /s
APPROACH = dict(a_plus=1 / 8, a_minus=1 / 64, b_plus=1 / 16, b_minus=1 / 2)
SLIDING = dict(a_plus=1 / 16, a_minus=1 / 128, b_plus=1 / 32, b_minus=1 / 4)


def run_queue(approach: dict, sliding: dict, until_s: float = 0.4, dedup: bool = False,
              **cp) -> tuple[np.ndarray, np.ndarray, int]:
    sc = {
        "seed": 1, "until_s": until_s,
        "topology": {"kind": "dumbbell", "bottleneck_bps": RATE, "rtt_s": 12e-6, "buffer_pkts": 3000},
        "aqm": {"kind": "asm", "q0_pkts": Q0, "sampling_p": P, "dedup": dedup, **cp},
        "flows": {"count": 3, "cc": "asm"},
        "asm_rp": {"w": W, "initial_rate_bps": RATE, "approach": approach, "sliding": sliding},
        "record": {"traces": ["queue", "drops"], "queue_interval_s": 1e-4},
    }
    res = cc.simulate(sc)
    q = res.traces["queue"]
    q = q[q.port == q.port.iloc[0]]
    return q.time_s.to_numpy(), q.queue_pkts.to_numpy().astype(float), int(res.summary["drops"])


def half_turns(x: np.ndarray, h: float) -> int:
    """Times x swings from above +h to below -h or back (hysteresis h)."""
    state, n = 0, 0
    for v in x:
        s = 1 if v > h else (-1 if v < -h else 0)
        if s and s != state:
            n += state != 0
            state = s
    return n


def decay_rate(t: np.ndarray, x: np.ndarray) -> float:
    """Log-linear decay rate of x (> 0 after its peak) between 80 % and 20 % of the peak."""
    pk = x[0]
    i80, i20 = int(np.argmax(x < 0.8 * pk)), int(np.argmax(x < 0.2 * pk))
    assert i20 > i80 + 10, "the excursion must decay through 80 % .. 20 % of its peak"
    return float(-np.polyfit(t[i80:i20], np.log(x[i80:i20]), 1)[0])


def after_peak(t, q):
    k = int(np.argmax(q))
    return t[k:], q[k:] - Q0


def test_compliant_gains_slide_at_the_eq16_rate():
    t, q, drops = run_queue({**APPROACH, "b_minus": 2 * W * APPROACH["a_minus"]},
                            {**SLIDING, "b_minus": 2 * W * SLIDING["a_minus"]})
    assert drops == 0
    ta, x = after_peak(t, q)
    assert x[0] > 200, "the line-rate start overshoots well above q0"
    assert decay_rate(ta, x) == pytest.approx(PC_OVER_W, rel=0.15)
    assert half_turns(x, 16) == 0, "sliding: no swing through q0 by more than B0"
    assert x.min() > -Q0 / 2, "the queue never drains toward empty"


def test_gains_violating_ineq15_cross_the_surface_and_circle():
    t, q, _ = run_queue({**APPROACH, "b_minus": 0.0}, {**SLIDING, "b_minus": 0.0})
    ta, x = after_peak(t, q)
    assert half_turns(x, 16) >= 2, "crosses Λ and circles the stable point"
    assert x.min() == -Q0, "the undershoot empties the queue"
    # and it falls much faster than the sliding motion allows (no sliding along Λ)
    assert decay_rate(ta, x) > 2 * PC_OVER_W


def test_paper_defaults_slide_in_packet_runs():
    t, q, drops = run_queue(APPROACH, SLIDING)
    assert drops == 0
    ta, x = after_peak(t, q)
    assert half_turns(x, 16) == 0
    tail = x[ta > ta[0] + 0.25]
    assert abs(tail.mean()) <= 8, "settles at q0 within B0/2"


def test_delivered_dedup_suppresses_nothing_when_feedback_arrives_before_the_next_frame():
    """§4.5's rule with the "delivered" variant (memory ends when the feedback arrives): no frame
    of a source reaches the CP while its feedback is in flight here, so the run equals dedup off;
    the literal rule (the engine default: memory until another source is sampled) changes it."""
    gains = ({**APPROACH, "b_minus": 2 * W * APPROACH["a_minus"]}, {**SLIDING, "b_minus": 2 * W * SLIDING["a_minus"]})
    _, q_off, _ = run_queue(*gains, until_s=0.15)
    _, q_default, _ = run_queue(*gains, until_s=0.15, dedup=True, dedup_expiry="delivered")
    _, q_literal, _ = run_queue(*gains, until_s=0.15, dedup=True)
    np.testing.assert_array_equal(q_default, q_off)
    assert not np.array_equal(q_literal, q_off)
