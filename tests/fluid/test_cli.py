"""`ccscope fluid|guide|stability` commands, on a fresh typer app (ccscope.fluid_cli.register)."""
import pytest
import typer
from ccscope.fluid_cli import register
from typer.testing import CliRunner


@pytest.fixture(scope="module")
def run():
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_guide_dctcp_prints_k_and_g_range(run):
    r = run("guide", "dctcp", "--rate", "10Gbps", "--rtt", "300us")
    assert r.exit_code == 0
    assert "K = 42.5 pkts" in r.output and "0.0171 <= g <= 0.0585" in r.output


def test_stability_qcn_prints_the_corrected_bound(run):
    r = run("stability", "qcn", "--rate", "10Gbps", "--flows", "10")
    assert r.exit_code == 0 and "270.71 us" in r.output


def test_stability_dx_prints_bound_and_special_state(run):
    r = run("stability", "dx", "--rate", "10Gbps", "--flows", "50", "--rtt", "80us")
    assert r.exit_code == 0
    assert "105.05 us" in r.output and "66.67" in r.output


def test_stability_tcp_red_prints_hollot_condition_for_the_periodic_setup(run):
    # P001's setup (50 flows, 1.5 Mb/s, Tp 1.34 s): with max_th = 1500 the RED ramp is shallow enough
    # for Hollot's Proposition 1 (equilibrium W0 = 10.52 pkts, q0 = 275 pkts; tests/test_fluid_tcp_red.py
    # derives them); with max_th = 15 the loop gain is ~18 and the condition fails.
    r = run("stability", "tcp-red", "--max-th", "1500")
    assert r.exit_code == 0 and "Proposition 1 holds" in r.output and "W0 = 10.52" in r.output
    r = run("stability", "tcp-red", "--max-th", "15")
    assert r.exit_code == 0 and "Proposition 1 fails" in r.output and "UNSTABLE" in r.output
    r = run("stability", "tcp-red", "--max-th", "3")
    assert r.exit_code == 2 and "--max-th '3'" in r.output and "Traceback" not in r.output


def test_fluid_dctcp_normalized_poincare(run):
    r = run("fluid", "dctcp", "--normalized", "--wbar", "10", "--g", "1/16", "--poincare")
    assert r.exit_code == 0 and "stable" in r.output and "0.397" in r.output


@pytest.mark.parametrize("args,needle", [
    (("stability", "qcn", "--rate", "10Gbs"), "--rate '10Gbs'"),
    (("fluid", "dctcp", "--g", "2"), "--g '2': must lie in (0, 1]"),
    (("stability", "dx", "--flows", "-3"), "--flows '-3': must be >= 1"),
    (("fluid", "dctcp", "--rtt", "abc"), "--rtt 'abc'"),
])
def test_bad_input_is_one_line_with_exit_status_2(run, args, needle):
    r = run(*args)
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]
    assert "Traceback" not in r.output


def test_fluid_dctcp_runs_native_by_default_and_prints_the_numpy_numbers(run):
    args = ("fluid", "dctcp", "--n", "10", "--until", "5ms")
    default, ref = run(*args), run(*args, "--backend", "numpy")
    assert default.exit_code == 0 and ref.exit_code == 0
    assert default.output == ref.output and "final W = 14.18 pkts" in default.output


def test_fluid_backend_option_lists_the_allowed_values(run):
    r = run("fluid", "dctcp", "--until", "1ms", "--backend", "gpu")
    assert r.exit_code != 0
    assert "--backend 'gpu': allowed: native, numpy, jax" in r.output
