"""DCQCN and TIMELY fluid models of Zhu et al., *ECN or Delay* (CoNEXT 2016, "Z16"), with their analysis.

Expected values come from the paper and the authors' published files, never from a previous run of this code:
- the phase margins of Fig. 3a are the authors' data files conext2016/figures/pm_rai40_delay{1,50,100}.txt
  (github.com/jitupadhye-zz/rdma), copied below with their N;
- the DCQCN fixed point is Theorem 1: sum R_C = C (8), R_C = C/N, q* from (9) with p* the root of (11);
- TIMELY: Theorems 3-4 (no fixed point / infinitely many) and the Fig. 9 experiment (two start splits).
"""
import math

import numpy as np
import pytest
from ccscope.fluid.dcqcn import DcqcnDde, DcqcnFluid, jacobian_stable, solve_batch
from ccscope.fluid.timely import TimelyFluid
from ccscope.fluid.timely import solve_batch as timely_batch

# (delay, N) -> phase margin in degrees, from the authors' files (Fig. 3a: C = 40 Gb/s, R_AI = 40 Mb/s, Kmax = 200 KB)
PUBLISHED_PM = {
    (1e-6, 2): 26.257, (1e-6, 4): 13.124, (1e-6, 10): 4.5296, (1e-6, 20): 9.4219, (1e-6, 50): 34.874,
    (1e-6, 100): 56.147,
    (50e-6, 2): 8.2626, (50e-6, 4): -0.75215, (50e-6, 10): -6.5844, (50e-6, 22): 0.67343, (50e-6, 100): 39.811,
    (100e-6, 2): -10.099, (100e-6, 10): -17.925, (100e-6, 34): -0.21667, (100e-6, 36): 1.2794,
    (100e-6, 100): 23.142,
}


@pytest.mark.parametrize("delay,n", sorted(PUBLISHED_PM))
def test_dcqcn_phase_margin_matches_the_published_curves(delay, n):
    pm = DcqcnFluid(40e9, n, delay_s=delay).phase_margin()
    assert pm.degrees == pytest.approx(PUBLISHED_PM[(delay, n)], abs=0.06)
    assert pm.stable == (PUBLISHED_PM[(delay, n)] > 0)


def test_dcqcn_phase_margin_is_non_monotonic_in_n():
    """Z16 §3.2: at 100 us the margin dips below zero for a range of N and rises again (stable from N = 36)."""
    pms = [DcqcnFluid(40e9, n, delay_s=100e-6).phase_margin().degrees for n in range(2, 101, 2)]
    worst = int(np.argmin(pms))
    assert 0 < worst < len(pms) - 1 and pms[0] < 0 and pms[-1] > 0
    assert [n for n, v in zip(range(2, 101, 2), pms) if v > 0][0] == 36


def _rhs_at(m, x):
    pr = {k: np.array([v]) for k, v in m.params().items()}
    pr["w"] = np.array([[m.n_flows]])
    model = DcqcnDde(1)
    y = np.asarray(model.observable(np, x, pr))[:, None, :]
    return model.rhs(np, x, y, y, pr)[0]


@pytest.mark.parametrize("n", [2, 10])
def test_dcqcn_fixed_point_is_an_equilibrium_of_eqs_3_to_7(n):
    m = DcqcnFluid(40e9, n)
    fp = m.fixed_point()
    assert fp.on_ramp and fp.rc_pps == pytest.approx(m.c_pps / n)
    assert fp.q_pkts == pytest.approx(5 + fp.p / 0.01 * 195)                              # eq (9), 1000-B packets
    assert fp.alpha == pytest.approx(1 - (1 - fp.p) ** (55e-6 * m.c_pps / n))             # eq (10)
    d = _rhs_at(m, np.array([[fp.q_pkts, fp.rc_pps, fp.rt_pps, fp.alpha]]))
    assert abs(d[0]) < 1e-9 * m.c_pps                       # eq (8): sum R_C = C
    assert np.abs(d[1:3]).max() < 1e-6 * fp.rc_pps / 50e-6   # dR_C/dt, dR_T/dt vanish (eq 11)
    assert abs(d[3]) < 1e-9
    # the closed form (13) approximates eq (11)'s root to within 20 % at these N (it drops O(p^4) terms)
    assert fp.p_approx == pytest.approx(fp.p, rel=0.35)


@pytest.fixture(scope="module")
def dcqcn_runs():
    """One batch (all flows at line rate, alpha = 1, as DCQCN starts): N = 2 and 10 at tau* = 4 us (Z16 Fig. 4
    top: stable) and at 85 us (Fig. 4 bottom: unstable for 10 flows, stable for 2)."""
    models = [DcqcnFluid(40e9, 2, delay_s=4e-6), DcqcnFluid(40e9, 10, delay_s=4e-6),
              DcqcnFluid(40e9, 10, delay_s=85e-6), DcqcnFluid(40e9, 2, delay_s=85e-6)]
    return models, solve_batch(models, 0.1, dt_s=4e-6)


def test_dcqcn_reaches_the_fixed_point_for_default_parameters(dcqcn_runs):
    models, df = dcqcn_runs
    for i in (0, 1):
        fp = models[i].fixed_point()
        row = df.iloc[i]
        assert not row.periodic
        assert row.q_final_pkts == pytest.approx(fp.q_pkts, rel=0.01)
        assert row.rate_final_bps == pytest.approx(40e9 / models[i].n_flows, rel=1e-3)   # fair share C/N
        assert row.q_max_pkts - row.q_min_pkts < 0.05 * fp.q_pkts


def test_dcqcn_loses_stability_at_85us_for_10_flows(dcqcn_runs):
    models, df = dcqcn_runs
    row = df.iloc[2]
    assert row.periodic and row.q_max_pkts - row.q_min_pkts > 50      # a sustained oscillation around q* = 122.6
    assert row.q_min_pkts < models[2].fixed_point().q_pkts < row.q_max_pkts
    assert not jacobian_stable(models[2])[0]
    # N = 2 at 85 us: the exact linearization is (lightly) stable, and the oscillation is small
    stable, root = jacobian_stable(models[3])
    assert stable and root.real > -50
    assert df.iloc[3].q_max_pkts - df.iloc[3].q_min_pkts < 0.5 * models[3].fixed_point().q_pkts


def test_dcqcn_flows_converge_to_the_fair_share():
    """Theorem 2 (convergence): two flows starting at 40 and 10 Gb/s approach C/N = 20 Gb/s each."""
    m = DcqcnFluid(40e9, 2)
    t = m.solve(0.05, rates_bps=[40e9, 10e9], weights=[1, 1], dt_s=4e-6).traces
    gap = (t.rc0_bps - t.rc1_bps).abs()
    assert gap.iloc[-1] < 0.05 * 30e9
    assert gap.iloc[len(t) // 2] > gap.iloc[-1]
    assert (t.rc0_bps + t.rc1_bps).iloc[-1] == pytest.approx(40e9, rel=0.01)


def test_dcqcn_symmetric_slot_equals_explicit_flows():
    """One slot of weight N is the same system as N identical slots of weight 1."""
    m = DcqcnFluid(40e9, 4)
    a = m.solve(0.004, dt_s=2e-6).traces
    b = m.solve(0.004, rates_bps=[40e9] * 4, weights=[1] * 4, dt_s=2e-6).traces
    np.testing.assert_allclose(a.queue_pkts, b.queue_pkts, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(a.rc0_bps, b.rc3_bps, rtol=1e-12)


@pytest.mark.parametrize("kwargs,field,allowed", [
    ({"kmin_bytes": 300e3, "kmax_bytes": 200e3}, "kmax_bytes = 200000", "must be > kmin_bytes (300000)"),
    ({"kmin_bytes": 200e3, "kmax_bytes": 200e3}, "kmax_bytes = 200000", "must be > kmin_bytes"),
    ({"pmax": 0.0}, "pmax = 0", "(0, 1]"),
    ({"pmax": 1.5}, "pmax = 1.5", "(0, 1]"),
    ({"g": -1}, "g = -1", "(0, 1]"),
    ({"delay_s": 0}, "delay_s = 0", "> 0"),
    ({"tau_s": float("nan")}, "tau_s = nan", "finite"),
])
def test_dcqcn_rejects_bad_parameters(kwargs, field, allowed):
    with pytest.raises(ValueError) as e:
        DcqcnFluid(40e9, 2, **kwargs)
    assert field in str(e.value) and allowed in str(e.value)


def test_dcqcn_rejects_a_bad_start():
    with pytest.raises(ValueError, match=r"rates_bps\[1\] = 5e\+10: must lie in \[1e\+06, 4e\+10\]"):
        DcqcnFluid(40e9, 2).solve(0.001, rates_bps=[40e9, 50e9])
    with pytest.raises(ValueError, match=r"dt_s = 1e-05: must not exceed delay_s"):
        DcqcnFluid(40e9, 2).solve(0.001, dt_s=1e-5)


# ------------------------------------------------------------------------------------------------ TIMELY

def test_timely_theorem_3_no_fixed_point():
    """At any candidate (sum R = C, g = 0, C T_low < q < C T_high) eq (20) still increases every rate."""
    m = TimelyFluid()
    q = m.c_pps * 200e-6
    for split in ([7e9, 3e9], [5e9, 5e9]):
        d = m.rhs_at(q, split)
        assert d["dq_dt"] == 0 and np.all(d["dg_dt"] == 0)
        assert np.all(d["dr_dt_bps_per_s"] > 0)
        # delta / tau* with tau* = Seg / R (> D_minRTT here): 10 Mb/s per 64 KB at the flow's rate
        assert d["dr_dt_bps_per_s"] == pytest.approx(10e6 * np.array(split) / (64e3 * 8))


def test_timely_theorem_4_infinitely_many_fixed_points():
    """With eq (27) (increase only when g < 0) every split of C is a fixed point for q in the band."""
    m = TimelyFluid(strict=False)
    for q_us in (60e-6, 200e-6, 490e-6):
        for split in ([7e9, 3e9], [5e9, 5e9], [9.9e9, 0.1e9 + 1e-6]):
            d = m.rhs_at(m.c_pps * q_us, split)
            assert d["dq_dt"] == pytest.approx(0, abs=1e-3) and np.all(d["dg_dt"] == 0)
            assert np.all(d["dr_dt_bps_per_s"] == 0)
    # outside the band the rates move
    assert np.all(m.rhs_at(m.c_pps * 40e-6, [5e9, 5e9])["dr_dt_bps_per_s"] > 0)
    assert np.all(m.rhs_at(m.c_pps * 600e-6, [5e9, 5e9])["dr_dt_bps_per_s"] < 0)


def test_timely_start_split_decides_the_end_split():
    """Z16 Fig. 9 (a) vs (c): two flows starting at 5/5 and at 7/3 Gb/s keep different splits with the same total."""
    m = TimelyFluid()
    df = timely_batch([m, m], 0.04, rates_bps=[[7e9, 3e9], [5e9, 5e9]])
    unfair, fair = df.iloc[0], df.iloc[1]
    assert fair.mean_r0_bps == pytest.approx(fair.mean_r1_bps, rel=1e-9)
    assert unfair.mean_r0_bps / unfair.mean_r1_bps > 2.0                  # still ~7:3 after 40 ms
    assert unfair.mean_total_bps == pytest.approx(fair.mean_total_bps, rel=0.01)
    assert 0.9 * 10e9 < fair.mean_total_bps <= 10e9 * (1 + 1e-9)
    # the queue oscillates (no fixed point): it empties and refills around C T_low = 62.5 packets
    assert fair.q_min_pkts == 0 and fair.q_max_pkts > 50


@pytest.mark.parametrize("kwargs,text", [
    ({"t_low_s": 500e-6, "t_high_s": 500e-6}, "t_low_s = 0.0005: must be < t_high_s (0.0005)"),
    ({"t_low_s": 600e-6}, "t_low_s = 0.0006: must be < t_high_s (0.0005)"),
    ({"beta": 0}, "beta = 0: must lie in (0, 1]"),
    ({"alpha": 2}, "alpha = 2: must lie in (0, 1]"),
    ({"seg_bytes": -1}, "seg_bytes = -1: must be finite and > 0"),
])
def test_timely_rejects_bad_parameters(kwargs, text):
    with pytest.raises(ValueError) as e:
        TimelyFluid(**kwargs)
    assert text in str(e.value)


def test_timely_rejects_a_step_above_the_smallest_delay():
    with pytest.raises(ValueError, match="dt_s = 1e-05: must not exceed the smallest feedback delay"):
        TimelyFluid().solve(0.001, dt_s=1e-5)


def test_timely_batch_matches_single_runs():
    m1, m2 = TimelyFluid(), TimelyFluid(delta_bps=20e6)
    both = timely_batch([m1, m2], 0.003, rates_bps=[6e9, 4e9])
    one = timely_batch([m2], 0.003, rates_bps=[6e9, 4e9])
    assert both.iloc[1].mean_r0_bps == pytest.approx(one.iloc[0].mean_r0_bps, rel=1e-12)
    assert math.isfinite(both.iloc[0].q_mean_pkts)


# ------------------------------------------------------------------------------------------------ backends, sweeps, CLI

def test_dcqcn_jax_backend_matches_numpy():
    pytest.importorskip("jax")
    m = DcqcnFluid(40e9, 4, delay_s=10e-6)
    a = m.solve(0.003, rates_bps=[40e9, 30e9], weights=[2, 2], dt_s=2e-6, backend="numpy").traces
    b = m.solve(0.003, rates_bps=[40e9, 30e9], weights=[2, 2], dt_s=2e-6, backend="jax").traces
    np.testing.assert_allclose(b.to_numpy(), a.to_numpy(), rtol=1e-9, atol=1e-9)


def test_dcqcn_native_backend_matches_numpy_to_1e9():
    """The compiled model (one slot of N flows) against the numpy reference: a stable, an oscillating and an
    off-ramp case in one batch, whole recorded trajectories and the monitor."""
    from ccscope.fluid.dcqcn import _integrate

    models = [DcqcnFluid(40e9, 2, delay_s=4e-6), DcqcnFluid(40e9, 10, delay_s=85e-6),
              DcqcnFluid(40e9, 64, delay_s=20e-6, kmax_bytes=150e3, pmax=0.5)]
    r0 = np.array([[m.c_pps] for m in models])
    w = np.array([[m.n_flows] for m in models])
    kw = dict(until_s=0.01, dt_s=2e-6, record_every=10, settle_s=0.005, levels=np.array([20.0, 120.0, 100.0]))
    a = _integrate(models, r0, w, np.zeros(3), backend="numpy", **kw)
    b = _integrate(models, r0, w, np.zeros(3), backend="native", **kw)
    scale = np.maximum(np.abs(a.x), 1e-6)
    assert np.max(np.abs(b.x - a.x) / scale) < 1e-9
    for key in ("min", "max", "n_cross"):
        np.testing.assert_allclose(b.monitor[key], a.monitor[key], rtol=1e-9)
    assert a.monitor["n_cross"].sum() > 0          # the crossing bookkeeping is exercised too


def test_dcqcn_native_backend_refuses_several_slots():
    with pytest.raises(ValueError, match="backend = 'native': the compiled DCQCN model holds one flow slot"):
        DcqcnFluid(40e9, 2).solve(0.001, rates_bps=[40e9, 20e9], backend="native")


def test_fluid_sweep_runs_dcqcn_and_timely_as_one_batch():
    from ccscope.fluid import sweep

    df = sweep("dcqcn", {"rate_bps": [40e9], "n_flows": [2, 10], "delay_s": [4e-6]}, until_s=0.002, dt_s=2e-6)
    assert list(df.n_flows) == [2, 10]
    assert df.rc_star_bps.tolist() == pytest.approx([20e9, 4e9])
    assert df.phase_margin_deg.iloc[1] == pytest.approx(DcqcnFluid(40e9, 10).phase_margin().degrees)
    assert {"q_min_pkts", "q_max_pkts", "periodic", "q_star_pkts", "p_star", "linear_stable"} <= set(df.columns)
    dt = sweep("timely", {"rate_bps": [10e9], "r0_bps": [7e9, 5e9], "r1_bps": [3e9, 5e9]}, until_s=0.002)
    assert len(dt) == 4 and {"mean_r0_bps", "mean_r1_bps", "mean_total_bps"} <= set(dt.columns)
    with pytest.raises(ValueError, match="grid: unknown parameter"):
        sweep("dcqcn", {"rate_bps": [40e9], "n_flows": [2], "delay_s": [4e-6], "kmid": [1]})


@pytest.fixture(scope="module")
def cli():
    import typer
    from ccscope.fluid_cli import register
    from typer.testing import CliRunner

    app = typer.Typer()
    register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_cli_stability_dcqcn_prints_fixed_point_and_both_linear_checks(cli):
    r = cli("stability", "dcqcn", "--flows", "10", "--delay", "85us")
    assert r.exit_code == 0, r.output
    assert "q* = 122.62 pkts" in r.output and "R_C* = C/N = 4 Gb/s" in r.output
    assert "-14.56 deg -> UNSTABLE" in r.output and "1/s -> UNSTABLE" in r.output
    r = cli("stability", "dcqcn", "--flows", "64")
    assert "NOT on the RED ramp" in r.output and "not applicable" in r.output


def test_cli_fluid_dcqcn_and_timely_run(cli):
    r = cli("fluid", "dcqcn", "--flows", "2", "--until", "2ms")
    assert r.exit_code == 0, r.output
    assert "q* = 20.15 pkts" in r.output and "25.12 deg -> stable" in r.output
    r = cli("fluid", "timely", "--until", "2ms", "--rates", "6Gbps,4Gbps")
    assert r.exit_code == 0, r.output
    assert "2 flows starting at 6, 4 Gb/s" in r.output and "mean rates over the second half" in r.output


@pytest.mark.parametrize("args,needle", [
    (("fluid", "dcqcn", "--kmin", "300KB"), "--kmax '200KB': must be > --kmin (300000 B)"),
    (("stability", "dcqcn", "--pmax", "0"), "--pmax '0': must lie in (0, 1]"),
    (("fluid", "dcqcn", "--delay", "0"), "--delay '0': must be > 0"),
    (("fluid", "timely", "--rates", "7Gbps,x"), "--rates 'x'"),
    (("fluid", "timely", "--rates", "20Gbps"), "rates_bps[0] = 2e+10: must lie in [1e+08, 1e+10]"),
])
def test_cli_bad_input_is_one_error_line(cli, args, needle):
    r = cli(*args)
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.output
