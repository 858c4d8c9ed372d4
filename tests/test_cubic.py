"""CUBIC (RFC 9438) end to end: a scenario with cc = "cubic" runs from Python, cuts by beta at each
congestion event, keeps a drop-tail link full, lets the Reno-friendly region set the period at
a small BDP, takes its parameters from [cubic] (the Python mirror too), and refuses bad values
with one line naming the field."""
from __future__ import annotations

import math

import pytest

import ccscope
from ccscope.errors import ScenarioError
from ccscope.scenario import CubicConfig, dumbbell


def _run(cubic: CubicConfig | None = None, until_s: float = 20.0):
    sc = dumbbell(1, cc="cubic", bottleneck_bps=20e6, rtt_s=0.02, access_bps=200e6, buffer_pkts=33)
    sc.until_s = until_s
    sc.tcp.iw_pkts = 10
    if cubic is not None:
        sc.cubic = cubic
    sc.record.traces = ["cwnd", "link", "delivered"]
    sc.record.flow_interval_s = 1e-3
    return ccscope.simulate(sc)


def _events(r, t0: float = 2.0) -> list[tuple[float, float, float]]:
    """(time, ssthresh after, largest cwnd in the 100 ms before) at each entry into fast recovery
    after t0."""
    cw = r.traces["cwnd"]
    t, w, s, rec = (cw[c].tolist() for c in ("time_s", "cwnd_pkts", "ssthresh_pkts", "in_recovery"))
    out = []
    for i in range(1, len(t)):
        if rec[i] and not rec[i - 1] and t[i] > t0:
            before = [w[j] for j in range(max(0, i - 100), i)]
            out.append((t[i], s[i], max(before)))
    return out


def _utilization(r, t0: float, t1: float, rate_bps: float) -> float:
    d = r.traces["delivered"]
    a = d[d["time_s"] <= t0]["delivered_bytes"].iloc[-1]
    b = d[d["time_s"] <= t1]["delivered_bytes"].iloc[-1]
    return (b - a) * 8 / (t1 - t0) / rate_bps


def test_cubic_cuts_by_beta_and_keeps_a_drop_tail_link_full():
    r = _run()
    ev = _events(r)
    assert len(ev) >= 4, ev
    for t, ssthresh, cwnd_before in ev:
        # RFC 9438 Eq. 5: ssthresh = beta * flight_size; the flight at the third duplicate ACK
        # is the window before the loss, within a few segments
        assert abs(ssthresh / cwnd_before - 0.7) < 0.06, (t, ssthresh, cwnd_before)
    # BDP 33 + buffer 33: the cut to 0.7 x ~66 = 46 segments stays above the BDP
    assert _utilization(r, 2.0, 20.0, 20e6) > 0.97


def test_the_reno_friendly_region_shortens_the_period_at_a_small_bdp():
    # W_max ~ 66: K = cbrt(66 x 0.3 / 0.4) = 3.7 s on the cubic curve alone; W_est (0.53 then
    # 1 segment per 20 ms RTT) reaches W_max in ~1.5 s, so the region sets the period
    on, off = _events(_run()), _events(_run(CubicConfig(reno_friendly=False)))
    period = lambda ev: (ev[-1][0] - ev[0][0]) / (len(ev) - 1)  # noqa: E731
    assert period(on) < 2.5, on
    assert period(off) > 3.0, off
    assert period(off) > 1.5 * period(on)


def test_beta_and_c_come_from_the_cubic_section():
    ev = _events(_run(CubicConfig(beta=0.5)))
    assert ev and all(abs(s / w - 0.5) < 0.06 for _, s, w in ev), ev
    # a larger C climbs the cubic curve faster: more congestion events without the region
    slow = _events(_run(CubicConfig(reno_friendly=False)))
    fast = _events(_run(CubicConfig(reno_friendly=False, c=4.0)))
    assert len(fast) > len(slow) + 2, (len(fast), len(slow))


@pytest.mark.parametrize("field, value, want", [
    ("c", 0.0, "cubic.c = 0: must be > 0 and at most 100 segments/s^3 (RFC 9438 default 0.4)"),
    ("c", math.inf, "cubic.c = inf: must be a finite number"),
    ("beta", 1.0, "cubic.beta = 1: must be strictly between 0 and 1 (RFC 9438 default 0.7)"),
    ("beta", -0.1, "cubic.beta = -0.1: must be strictly between 0 and 1"),
    ("target_rtt", "max", "cubic.target_rtt: unknown variant `max`, expected `srtt` or `min_rtt`"),
    ("ssthresh_from", "rwnd", "cubic.ssthresh_from: unknown variant `rwnd`"),
])
def test_bad_cubic_values_name_the_field(field, value, want):
    sc = dumbbell(1, cc="cubic", bottleneck_bps=20e6, rtt_s=0.02)
    setattr(sc.cubic, field, value)
    with pytest.raises(ScenarioError) as e:
        ccscope.simulate(sc, until_s=0.01)
    msg = str(e.value)
    assert msg.startswith(want), msg
    assert len(msg.splitlines()) == 1


def test_ecn_echo_cuts_by_beta_without_a_loss():
    """RFC 9438 Eq. 5 on ECN-Echo: with tcp.ecn and a marking threshold below the buffer, the
    window is cut to beta times the flight at each mark (once per window), nothing is lost and
    fast recovery is never entered."""
    from ccscope.aqm import threshold
    sc = dumbbell(1, cc="cubic", bottleneck_bps=20e6, rtt_s=0.02, access_bps=200e6, buffer_pkts=200,
                  aqm=threshold(k_pkts=20))
    sc.until_s = 10.0
    sc.tcp.iw_pkts = 10
    sc.tcp.ecn = True
    sc.record.traces = ["cwnd", "drops"]
    sc.record.flow_interval_s = 1e-3
    r = ccscope.simulate(sc)
    events = r.traces["drops"]["event"].astype(str).tolist()
    assert events and set(events) == {"mark"}, set(events)
    cw = r.traces["cwnd"]
    assert cw["in_recovery"].max() == 0
    w, s, t = cw["cwnd_pkts"].tolist(), cw["ssthresh_pkts"].tolist(), cw["time_s"].tolist()
    cuts = [(t[i], w[i] / max(w[max(0, i - 50):i])) for i in range(1, len(w))
            if w[i] < 0.9 * w[i - 1] and t[i] > 1.0]
    assert len(cuts) >= 3, cuts
    for when, ratio in cuts:
        assert abs(ratio - 0.7) < 0.06, (when, ratio)
    # ssthresh follows each cut (Eq. 5: ssthresh = cwnd = beta x flight)
    assert min(s[i] for i in range(len(s)) if t[i] > 1.0) < 1e6
