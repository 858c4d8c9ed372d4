"""The [timely] section (TIMELY, Mittal et al., SIGCOMM 2015): the Python mirror carries the
paper's recommended values and the engine refuses bad values with one line naming the field
(T_low >= T_high among them)."""
from __future__ import annotations

import pytest

import ccscope
from ccscope.errors import ScenarioError
from ccscope.scenario import TimelyConfig, dumbbell


def test_defaults_are_the_papers_recommended_values():
    t = TimelyConfig()
    assert (t.alpha, t.beta, t.delta_bps, t.t_low_s, t.t_high_s, t.min_rtt_s) == (
        0.875, 0.8, 10e6, 50e-6, 500e-6, 20e-6)
    assert (t.hai_after, t.hai_factor, t.seg_bytes) == (5, 5, 64000)


@pytest.mark.parametrize("field, value, want", [
    ("t_low_s", 500e-6, "timely.t_low_s = 0.0005: must be < timely.t_high_s (0.0005)"),
    ("t_low_s", 1e-3, "timely.t_low_s = 0.001: must be < timely.t_high_s (0.0005)"),
    ("alpha", 0.0, "timely.alpha = 0: must be in (0, 1] (default 0.875)"),
    ("beta", 2.0, "timely.beta = 2: must be in (0, 1] (default 0.8)"),
    ("delta_bps", 0.0, "timely.delta_bps = 0: must be > 0"),
    ("hai_factor", 0, "timely.hai_factor = 0: must be >= 1 (default 5)"),
])
def test_bad_timely_values_name_the_field(field, value, want):
    sc = dumbbell(2, cc="new_reno", bottleneck_bps=10e9, rtt_s=20e-6)
    setattr(sc.timely, field, value)
    with pytest.raises(ScenarioError) as e:
        ccscope.simulate(sc, until_s=0.001)
    msg = str(e.value)
    assert msg.startswith(want), msg
    assert len(msg.splitlines()) == 1
