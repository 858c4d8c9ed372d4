"""bench/peers/htsim.py (the htsim peer comparison): bad arguments give one error line and build
nothing; the htsim driver's arguments are read from the scenario texts `make bench` times. Building
and running htsim itself needs its source and minutes of compiling, so it is not done here."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "peers" / "htsim.py"
#: the htsim headers the driver includes (find_sim checks they are there)
HEADERS = ("dctcp.h", "ecnqueue.h", "tcp.h", "pipe.h", "queue.h")


def _load():
    spec = importlib.util.spec_from_file_location("peers_htsim", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(*args: str, build_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args, "--build-dir", str(build_dir)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def _fake_checkout(root: Path, makefile: str, sources: tuple[str, ...] = ()) -> Path:
    sim = root / "sim"
    sim.mkdir(parents=True)
    (sim / "Makefile").write_text(makefile)
    (sim / "eventlist.h").write_text("")
    for s in sources:
        (sim / s).write_text("")
    return root


def _one_error_line(p: subprocess.CompletedProcess, status: int = 2) -> str:
    assert p.returncode == status, (p.returncode, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("bench/peers/htsim.py: error: ")
    assert "Traceback" not in p.stderr
    return lines[0]


@pytest.mark.parametrize("case", ["missing", "empty", "nonexistent", "file", "no_makefile", "no_objs",
                                  "missing_sources", "reps", "jobs", "long", "ccscope_bin", "cxx", "valgrind"])
def test_bad_arguments_give_one_line_and_build_nothing(tmp_path, case):
    build = tmp_path / "build"
    if case == "missing":
        line = _one_error_line(_run(build_dir=build))
        assert "--htsim" in line and "required" in line
    elif case == "empty":
        line = _one_error_line(_run("--htsim", "", build_dir=build))
        assert "--htsim = ''" in line and "empty" in line
    elif case == "nonexistent":
        line = _one_error_line(_run("--htsim", str(tmp_path / "nope"), build_dir=build))
        assert f"--htsim = '{tmp_path / 'nope'}'" in line and "no such directory" in line
        assert "github.com/Broadcom/csg-htsim" in line
    elif case == "file":
        f = tmp_path / "f.txt"
        f.write_text("x")
        line = _one_error_line(_run("--htsim", str(f), build_dir=build))
        assert "not a directory" in line
    elif case == "no_makefile":
        (tmp_path / "co").mkdir()
        line = _one_error_line(_run("--htsim", str(tmp_path / "co"), build_dir=build))
        assert "holds no sim/Makefile" in line
    elif case == "no_objs":
        co = _fake_checkout(tmp_path / "co", "all:\n\techo hi\n")
        line = _one_error_line(_run("--htsim", str(co), build_dir=build))
        assert "lists no OBJS" in line
    elif case == "missing_sources":
        co = _fake_checkout(tmp_path / "co", "OBJS=eventlist.o tcp.o \\\n  pipe.o\n", ("eventlist.cpp",))
        line = _one_error_line(_run("--htsim", str(co), build_dir=build))
        assert "sources missing for tcp.o, pipe.o" in line
    elif case == "reps":
        co = _fake_checkout(tmp_path / "co", "OBJS=eventlist.o\n", ("eventlist.cpp",))
        line = _one_error_line(_run("--htsim", str(co), "--reps", "0", build_dir=build))
        assert "--reps = 0: must be an integer >= 1" in line
    elif case == "jobs":
        co = _fake_checkout(tmp_path / "co", "OBJS=eventlist.o\n", ("eventlist.cpp",))
        line = _one_error_line(_run("--htsim", str(co), "--jobs", "two", build_dir=build))
        assert "--jobs" in line and "'two'" in line
    elif case == "long":
        long = str(tmp_path / ("x" * 300))
        line = _one_error_line(_run("--htsim", long, build_dir=build))
        assert "cannot be read" in line and "…" in line and len(line) < 250
    elif case == "ccscope_bin":
        co = _fake_checkout(tmp_path / "co", "OBJS=eventlist.o\n", ("eventlist.cpp", *HEADERS))
        line = _one_error_line(_run("--htsim", str(co), "--ccscope-bin", str(tmp_path / "bench"), build_dir=build))
        assert f"--ccscope-bin = '{tmp_path / 'bench'}': no such file" in line
    elif case == "cxx":
        co = _fake_checkout(tmp_path / "co", "OBJS=eventlist.o\n", ("eventlist.cpp", *HEADERS))
        line = _one_error_line(_run("--htsim", str(co), "--cxx", "no-such-c++", build_dir=build))
        assert "--cxx = 'no-such-c++': no such compiler on PATH" in line
    elif case == "valgrind":
        co = _fake_checkout(tmp_path / "co", "OBJS=eventlist.o\n", ("eventlist.cpp", *HEADERS))
        p = subprocess.run([sys.executable, str(SCRIPT), "--htsim", str(co), "--instructions", "--build-dir", str(build)],
                           capture_output=True, text=True, cwd=ROOT, timeout=60, env={"PATH": str(tmp_path)})
        line = _one_error_line(p)
        assert "--instructions needs valgrind on PATH" in line
    assert not build.exists()


def test_a_checkout_is_found_at_its_root_or_at_sim(tmp_path):
    mod = _load()
    co = _fake_checkout(tmp_path / "co", "OBJS=eventlist.o\n", ("eventlist.cpp", *HEADERS))
    assert mod.find_sim(str(co)) == co / "sim"
    assert mod.find_sim(str(co / "sim")) == co / "sim"
    (co / "sim" / "dctcp.h").unlink()
    with pytest.raises(mod.UsageError, match="dctcp.h is missing"):
        mod.find_sim(str(co))


def test_makefile_objs_joins_continuations(tmp_path):
    mod = _load()
    mk = tmp_path / "Makefile"
    mk.write_text("SUBDIRS=tests\nOBJS=a.o b.o \\\n   c.o\nHDRS=a.h\n")
    assert mod.makefile_objs(mk) == ["a.o", "b.o", "c.o"]
    assert mod.makefile_objs(tmp_path / "none") == []


def test_driver_arguments_come_from_the_bench_scenarios():
    mod = _load()
    runs = {name: args for name, _text, args in mod.runs()}
    assert len(runs) == 4

    def opts(args):
        return dict(zip(args[::2], args[1::2]))

    for n in (2, 10, 100):
        o = opts(runs[f"DCTCP 10G 100us K=65 N={n}"])
        assert o == {"--cc": "dctcp", "--flows": str(n), "--rate-gbps": "10.0", "--rtt-us": "100.0",
                     "--buffer-pkts": "1000", "--until-s": "1.1", "--seed": "1", "--k-pkts": "65.0"}
    o = opts(runs["NewReno 1G 250us DropTail 250, 2 flows"])
    assert o == {"--cc": "newreno", "--flows": "2", "--rate-gbps": "1.0", "--rtt-us": "250.0",
                 "--buffer-pkts": "250", "--until-s": "1.1", "--seed": "1"}
