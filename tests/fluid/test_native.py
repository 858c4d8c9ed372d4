"""The compiled (native) fluid solver against the numpy reference: every DDE model, its default
parameters and a couple of others, the state trajectories and the derived numbers (limit-cycle
extremes, period, throughput, periodic verdict) agree to 1e-9 relative; bad input is named.

Horizons are short (a few thousand steps) because the numpy reference pays ~100 us per step.
"""
import math

import numpy as np
import pytest
from ccscope.fluid import asm_fluid, dctcp, dctcp_normalized, dx, qcn_fluid, sweep, tcp_red
from ccscope.fluid.asm import GAINS_S
from ccscope.fluid.asm import solve_batch as asm_batch
from ccscope.fluid.dctcp import NORMALIZED_DDE, normalized_limit_cycles
from ccscope.fluid.qcn import solve_batch as qcn_batch
from ccscope.fluid.solver import DelayModel, integrate

RTOL = 1e-9


def close(a, b, what=""):
    """|a - b| <= 1e-9 x the magnitude of the reference column (NaN where the reference is NaN)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, what
    assert np.array_equal(np.isnan(a), np.isnan(b)), f"{what}: NaN pattern differs"
    ok = ~np.isnan(b)
    if not ok.any():
        return
    scale = np.max(np.abs(b[ok])) if b.ndim else abs(float(b))
    scale = scale if np.isfinite(scale) and scale > 0 else 1.0
    diff = np.abs(np.where(ok, a, 0.0) - np.where(ok, b, 0.0))
    assert np.all(diff[ok] <= RTOL * scale), f"{what}: max |diff| {np.max(diff[ok]):.3g} vs scale {scale:.3g}"


def same_result(res_native, res_numpy):
    assert res_native.success == res_numpy.success
    assert list(res_native.traces.columns) == list(res_numpy.traces.columns)
    for col in res_numpy.traces.columns:
        close(res_native.traces[col].values, res_numpy.traces[col].values, col)
    ca, cb = res_native.limit_cycle, res_numpy.limit_cycle
    for field in ("q_min", "q_max", "period", "throughput"):
        close(getattr(ca, field), getattr(cb, field), field)
    assert (ca.n_periods, ca.periodic) == (cb.n_periods, cb.periodic)


def both(solve):
    """Run `solve(backend)` on the native and numpy backends."""
    return solve("native"), solve("numpy")


@pytest.mark.parametrize("n, rtt, k, g", [(2, 100e-6, 65, 1 / 16), (10, 100e-6, 65, 1 / 16), (2, 300e-6, 20, 0.3)])
def test_dctcp_physical_matches_numpy(n, rtt, k, g):
    m = dctcp(n, 10e9, rtt, k, g=g)
    a, b = both(lambda be: m.solve(0.004, settle_s=0.001, backend=be))
    same_result(a, b)


def test_dctcp_physical_rtt_groups_match_numpy():
    # two groups with different R*: the non-uniform lag path, the per-group sum of eq 5
    m = dctcp([1, 2], 10e9, [100e-6, 230e-6], 40)
    a, b = both(lambda be: m.solve(0.003, settle_s=0.001, backend=be))
    same_result(a, b)


@pytest.mark.parametrize("wbar, g, psi", [(10.0, 1 / 16, None), (40.0, 0.25, None), (10.0, 1 / 16, 0.5),
                                          (1.5, 0.1, None)])
def test_dctcp_normalized_matches_numpy(wbar, g, psi):
    m = dctcp_normalized(wbar, g, psi=psi)
    a, b = both(lambda be: m.solve(60.0, alpha0=0.3, backend=be))
    same_result(a, b)


def test_normalized_map_statistics_and_verdicts_match_numpy():
    w, g = np.meshgrid(np.geomspace(1.5, 100, 6), np.geomspace(0.05, 1, 5))
    kw = {"settle": 100.0, "measure": 60.0}
    a = normalized_limit_cycles(w.ravel(), g.ravel(), backend="native", **kw)
    b = normalized_limit_cycles(w.ravel(), g.ravel(), backend="numpy", **kw)
    assert np.any(b["periodic"]) and not np.all(b["periodic"])    # both regimes are in the map
    np.testing.assert_array_equal(a["periodic"], b["periodic"])
    np.testing.assert_array_equal(a["n_periods"], b["n_periods"])
    for key in ("q_min", "q_max", "period", "throughput"):
        close(a[key], b[key], key)


@pytest.mark.parametrize("n, r0", [(50, 80e-6), (10, 120e-6)])
def test_dx_matches_numpy(n, r0):
    m = dx(n, 10e9, r0)
    a, b = both(lambda be: m.solve(0.004, dt_s=r0 / 100, backend=be))
    same_result(a, b)


@pytest.mark.parametrize("delay_s, feedback", [(0.0, "linear"), (100e-6, "linear"), (100e-6, "negative")])
def test_qcn_matches_numpy(delay_s, feedback):
    m = qcn_fluid(10e9, 10, delay_s=delay_s, feedback=feedback)
    a, b = both(lambda be: m.solve(0.004, dt_s=1e-5, r0_bps=1.5e9, record_every=5, backend=be))
    same_result(a, b)


def test_qcn_batch_matches_numpy():
    models = [qcn_fluid(10e9, n, delay_s=d) for n, d in ((10, 50e-6), (20, 200e-6), (5, 0.0))]
    a = qcn_batch(models, 0.003, dt_s=1e-5, backend="native")
    b = qcn_batch(models, 0.003, dt_s=1e-5, backend="numpy")
    for col in b.columns:
        close(a[col].values, b[col].values, col)


def test_tcp_red_matches_numpy():
    # P001's setup (the CLI's defaults) and a faster link with gentle RED
    for m, until in ((tcp_red(50, 1.5e6, 1.34, min_th_pkts=5, max_th_pkts=15), 60.0),
                     (tcp_red(20, 100e6, 0.05, min_th_pkts=20, max_th_pkts=60, gentle=True), 2.0)):
        a, b = both(lambda be, m=m, until=until: m.solve(until, backend=be))
        same_result(a, b)


def test_asm_ideal_and_delayed_match_numpy():
    th = np.linspace(0, 2 * math.pi, 4, endpoint=False)
    for m in (asm_fluid(1e9), asm_fluid(10e9, delay_s=10e-6, q0_pkts=64),
              asm_fluid(10e9, gains={**GAINS_S, "b_minus": 0.1}, delay_s=20e-6)):
        a, b = both(lambda be, m=m: m.solve(64 * np.cos(th), 0.5 * m.c_pps * np.sin(th), until_s=0.002, backend=be))
        assert a.success == b.success
        for col in b.traces.columns:
            close(a.traces[col].values, b.traces[col].values, col)


def test_asm_batch_matches_numpy():
    models = [asm_fluid(10e9, delay_s=d, q0_pkts=64) for d in (0.0, 5e-6, 20e-6)]
    a = asm_batch(models, backend="native", until_tau=20)
    b = asm_batch(models, backend="numpy", until_tau=20)
    for col in b.columns:
        close(a[col].values, b[col].values, col)


def test_dctcp_sweep_matches_numpy():
    grid = {"n": [2, 10], "rate_bps": [10e9], "rtt_s": [100e-6, 200e-6], "k_pkts": [65], "g": [1 / 16]}
    a = sweep("dctcp", grid, until_s=0.003, backend="native")
    b = sweep("dctcp", grid, until_s=0.003, backend="numpy")
    np.testing.assert_array_equal(a.periodic.values, b.periodic.values)
    for col in ("q_min_pkts", "q_max_pkts", "period_s", "throughput"):
        close(a[col].values, b[col].values, col)


def test_the_default_backend_is_native_and_gives_the_numpy_answer():
    m = dctcp(2, 10e9, 100e-6, 65)
    default = m.solve(0.002)
    same_result(default, m.solve(0.002, backend="numpy"))
    np.testing.assert_array_equal(default.traces.values, m.solve(0.002, backend="native").traces.values)


def test_sweep_command_path_defaults_to_native_with_the_numpy_numbers(tmp_path):
    from ccscope import sweep as sw

    grid = {"wbar": [1.5, 10.0, 40.0], "g": [1 / 16, 0.25]}
    default = sw.fluid_sweep("dctcp_normalized", grid, out=tmp_path / "a")
    ref = sw.fluid_sweep("dctcp_normalized", grid, out=tmp_path / "b", backend="numpy")
    assert sw.default_fluid_backend() == "native"
    np.testing.assert_array_equal(default.periodic.values, ref.periodic.values)
    for col in ("q_min", "q_max", "period_rtt", "throughput"):
        close(default[col].values, ref[col].values, col)


class _Decay(DelayModel):
    """A user-defined model with no compiled implementation: x' = -y(t - 1)."""

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        return -0.5 * (lag_lo + lag_hi)

    def observable(self, xp, x, p):
        return x[..., 0]


def test_a_model_without_native_code_runs_on_numpy_by_default_and_is_refused_natively():
    res = integrate(_Decay(), {}, [1.0], delays=1.0, history=1.0, dt=0.1, until=1.0)
    assert res.x_final[0, 0] == pytest.approx(0.0, abs=1e-12)    # x(1) = 1 - 1 (y = 1 on [-1, 0])
    with pytest.raises(ValueError, match=r"^backend = 'native': _Decay has no compiled implementation"):
        integrate(_Decay(), {}, [1.0], delays=1.0, history=1.0, dt=0.1, until=1.0, backend="native")


def test_bad_backend_and_monitor_index_are_named():
    with pytest.raises(ValueError, match=r"^backend = 'gpu': allowed values are 'auto', 'native', 'numpy', 'jax'"):
        dctcp(2, 10e9, 100e-6, 65).solve(0.001, backend="gpu")
    with pytest.raises(ValueError, match=r"^monitor_index = 7: the state has 3 components"):
        integrate(NORMALIZED_DDE, {"wbar": 10.0, "g": 0.1, "q_floor": -1.0}, [10, 0.5, 0], delays=1.0, history=0.0,
                  dt=0.01, until=1.0, monitor_index=7)


def test_native_rejects_a_bad_shape_with_an_error_not_a_crash():
    from ccscope import _native

    one = np.ones((1, 1))
    with pytest.raises(ValueError, match=r"params: shape \[1, 2\], expected \[1, 3\]"):
        _native.fluid_integrate("dctcp_normalized", 1, np.ones((1, 2)), np.ones((1, 3)), np.ones((1, 1), np.int64),
                                one, one, np.ones(1), 0.01, 10, 0, 0, 3, 2)
    with pytest.raises(ValueError, match=r"k_lag = 9: must lie in \[0, ring_len - 2\]"):
        _native.fluid_integrate("dctcp_normalized", 1, np.ones((1, 3)), np.ones((1, 3)), np.full((1, 1), 9, np.int64),
                                one, one, np.ones(1), 0.01, 10, 0, 0, 3, 2)
    with pytest.raises(ValueError, match=r"model = \"nope\": the native solver has dctcp_normalized"):
        _native.fluid_integrate("nope", 1, np.ones((1, 3)), np.ones((1, 3)), np.ones((1, 1), np.int64),
                                one, one, np.ones(1), 0.01, 10, 0, 0, 3, 2)


def _child_batch(queue):
    w, g = np.meshgrid([5.0, 10.0, 20.0, 40.0], [0.1, 0.3, 0.6, 1.0])
    out = normalized_limit_cycles(w.ravel(), g.ravel(), settle=20.0, measure=20.0, backend="native")
    queue.put(float(np.nansum(out["q_max"])))


def test_a_forked_process_can_run_parallel_batches_after_its_parent_did():
    # A process-global thread pool does not survive fork(): a child that submits work to the
    # pool its parent started waits forever. The native solver builds its pool per call.
    import multiprocessing as mp

    w, g = np.meshgrid([5.0, 10.0, 20.0, 40.0], [0.1, 0.3, 0.6, 1.0])
    parent = normalized_limit_cycles(w.ravel(), g.ravel(), settle=20.0, measure=20.0, backend="native")
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_batch, args=(queue,))
    child.start()
    child.join(timeout=120)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung in the native solver")
    assert child.exitcode == 0
    assert queue.get(timeout=5) == float(np.nansum(parent["q_max"]))


def test_importing_the_fluid_models_loads_neither_scipy_nor_jax():
    # scipy.optimize cost ~1 s of `ccscope fluid ...` start-up; the models import it on first use
    import subprocess
    import sys

    code = "import sys, ccscope.fluid; print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'jax'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_more_rtt_groups_than_the_native_solver_holds_run_on_numpy_by_default():
    m = dctcp([1] * 33, 10e9, [100e-6 + 1e-6 * i for i in range(33)], 65)
    res = m.solve(2e-4)                                  # auto: numpy, not an error
    assert res.success and len(res.traces.columns) == 1 + 2 * 33 + 1
    with pytest.raises(ValueError, match=r"^delays: 33 groups; backend='native' holds at most 32"):
        m.solve(2e-4, backend="native")
    few = dctcp([1] * 32, 10e9, [100e-6 + 1e-6 * i for i in range(32)], 65)
    same_result(few.solve(5e-4, backend="native"), few.solve(5e-4, backend="numpy"))


_BIG_MAP = """
import signal
import sys
import numpy as np
signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever disposition the runner left us
from ccscope.fluid.dctcp import normalized_limit_cycles
w, g = np.meshgrid(np.geomspace(2.5, 100, 1000), np.geomspace(0.05, 1, 1000))
print("start", flush=True)
normalized_limit_cycles(w.ravel(), g.ravel(), settle=100.0, measure=60.0)   # ~10^2 s of CPU
print("finished", flush=True)
"""


def test_ctrl_c_stops_a_long_native_batch():
    # The numpy loop could always be interrupted; the native solver handles pending signals
    # between waves of trajectories, so Ctrl-C raises KeyboardInterrupt instead of waiting for
    # the whole batch (10^6 points here).
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _BIG_MAP], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "start"
        import time
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        # uninterrupted, the batch needs ~50 s on 2 idle cores (and prints "finished"); interrupted, it
        # stops within a wave of trajectories. The limit only bounds a hung test on a loaded machine.
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "finished" not in out
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
