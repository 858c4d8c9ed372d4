"""`ccscope.load` and `ccscope plot` on damaged result directories: one ResultError naming the file
and what is wrong (never a JSONDecodeError/UnicodeDecodeError/KeyError without a file, never a
silent load with NaN columns, never a hang on a FIFO); `ccscope plot` exits 2 with one line."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import ccscope as cc
from ccscope.cli import app


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    sc = cc.scenario.dumbbell(senders=2, cc="dctcp", bottleneck_bps=10e9, rtt_s=100e-6, buffer_pkts=20,
                              aqm=cc.aqm.threshold(k_pkts=10), start_jitter_s=1e-4)
    res = cc.simulate(sc, until_s=0.005)
    out = tmp_path_factory.mktemp("result") / "r"
    res.save(out)
    return out


def _write(p: Path, data: bytes) -> None:
    p.write_bytes(data)


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: max(1, p.stat().st_size // 2)])


def _table(p: Path, edit) -> None:
    df = pd.read_parquet(p)
    edit(df).to_parquet(p, index=False)


def _json(p: Path, edit) -> None:
    p.write_text(json.dumps(edit(json.loads(p.read_text()))))


def _replace_by_fifo(p: Path) -> None:
    p.unlink()
    os.mkfifo(p)


def _replace_by_dir(p: Path) -> None:
    p.unlink()
    p.mkdir()
    (p / "part.parquet").write_bytes(b"")


def _symlink_to(target: str):
    def f(p: Path) -> None:
        p.unlink()
        p.symlink_to(target)
    return f


def _drop_port(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["name"] != "sw->r0"]  # the bottleneck: every queue/link sample names it


# (name, file damaged (relative), damage, words the message must contain)
DAMAGES = [
    ("summary deleted", "summary.json", lambda p: p.unlink(), "no summary.json"),
    ("summary truncated", "summary.json", _truncate, "invalid JSON"),
    ("summary empty", "summary.json", lambda p: _write(p, b""), "empty"),
    ("summary garbage bytes", "summary.json", lambda p: _write(p, b"\xff\xfe\x00garbage\x80"), "not UTF-8"),
    ("summary is a list", "summary.json", lambda p: _write(p, b"[1, 2]"), "expected a JSON object"),
    ("summary is a string", "summary.json", lambda p: _write(p, b'"x"'), "expected a JSON object"),
    ("summary throughput not a list", "summary.json", lambda p: _json(p, lambda d: {**d, "flow_throughput_bps": "x"}),
     "flow_throughput_bps"),
    ("summary -> /dev/zero", "summary.json", _symlink_to("/dev/zero"), "not a regular file"),
    ("scenario deleted", "scenario.json", lambda p: p.unlink(), "missing"),
    ("scenario empty", "scenario.json", lambda p: _write(p, b"   \n"), "empty"),
    ("scenario is a number", "scenario.json", lambda p: _write(p, b"5"), "expected a JSON object"),
    ("scenario aqm not a table", "scenario.json", lambda p: _json(p, lambda d: {**d, "aqm": [1]}), "aqm"),
    ("meta deleted", "meta.json", lambda p: p.unlink(), "missing"),
    ("meta truncated", "meta.json", _truncate, "invalid JSON"),
    ("meta null", "meta.json", lambda p: _write(p, b"null"), "expected a JSON object"),
    ("flows deleted", "flows.parquet", lambda p: p.unlink(), "missing"),
    ("flows truncated", "flows.parquet", _truncate, "not a readable Parquet table"),
    ("flows empty file", "flows.parquet", lambda p: _write(p, b""), "not a readable Parquet table"),
    ("flows garbage bytes", "flows.parquet", lambda p: _write(p, os.urandom(3000)), "not a readable Parquet table"),
    ("flows JSON instead", "flows.parquet", lambda p: _write(p, b'{"flow": [0]}'), "not a readable Parquet table"),
    ("flows missing column", "flows.parquet", lambda p: _table(p, lambda df: df.drop(columns=["cc"])), "missing column cc"),
    ("flows is a directory", "flows.parquet", _replace_by_dir, "not a regular file"),
    ("flows is a FIFO", "flows.parquet", _replace_by_fifo, "not a regular file"),
    ("ports deleted", "ports.parquet", lambda p: p.unlink(), "missing"),
    ("ports truncated", "ports.parquet", _truncate, "not a readable Parquet table"),
    ("ports missing name", "ports.parquet", lambda p: _table(p, lambda df: df.drop(columns=["name"])), "missing column name"),
    ("ports duplicate names", "ports.parquet", lambda p: _table(p, lambda df: df.assign(name="x")), "distinct name"),
    ("ports lost one port", "ports.parquet", lambda p: _table(p, _drop_port), "ports.parquet"),
    ("ports rate as text", "ports.parquet", lambda p: _table(p, lambda df: df.assign(rate_bps="fast")), "rate_bps"),
    ("traces deleted", "traces", lambda p: shutil.rmtree(p), "traces"),
    ("queue truncated", "traces/queue.parquet", _truncate, "not a readable Parquet table"),
    ("queue garbage", "traces/queue.parquet", lambda p: _write(p, b"PAR1" + os.urandom(500) + b"PAR1"),
     "not a readable Parquet table"),
    ("queue missing column", "traces/queue.parquet", lambda p: _table(p, lambda df: df.drop(columns=["queue_pkts"])),
     "missing column queue_pkts"),
    ("link empty file", "traces/link.parquet", lambda p: _write(p, b""), "not a readable Parquet table"),
    ("cwnd time as text", "traces/cwnd.parquet", lambda p: _table(p, lambda df: df.assign(time_s="t")), "time_s"),
    ("drops unknown event", "traces/drops.parquet",
     lambda p: _table(p, lambda df: pd.DataFrame({"time_s": [0.0], "port": ["sw->r0"], "flow": [0], "seq": [0],
                                                  "event": ["boom"], "is_ack": [False]})), "boom"),
    ("rounds garbage", "rounds.parquet", lambda p: _write(p, b"not parquet"), "not a readable Parquet table"),
]


def _damaged(template: Path, tmp_path: Path, rel: str, damage) -> tuple[Path, Path]:
    d = tmp_path / "damaged"
    shutil.copytree(template, d)
    damage(d / rel)
    return d, d / rel


def test_the_undamaged_template_loads(template):
    res = cc.load(template)
    assert {"queue", "link", "cwnd"} <= set(res.traces)
    assert res.traces["queue"]["port"].notna().all()
    assert len(res.flows) == 2


@pytest.mark.parametrize("name,rel,damage,words", DAMAGES, ids=[d[0] for d in DAMAGES])
def test_load_of_a_damaged_result_raises_one_result_error_naming_the_file(template, tmp_path, name, rel, damage, words):
    d, target = _damaged(template, tmp_path, rel, damage)
    with pytest.raises(cc.ResultError) as ei:
        cc.load(d)
    msg = str(ei.value)
    assert isinstance(ei.value, ValueError)
    where = str(d) if rel == "summary.json" and "deleted" in name else str(target)
    assert where in msg, msg
    assert words in msg, msg
    assert "\n" not in msg and len(msg) < 400, msg


@pytest.mark.parametrize("name,rel,damage,words", DAMAGES, ids=[d[0] for d in DAMAGES])
def test_plot_of_a_damaged_result_exits_2_with_one_line(template, tmp_path, name, rel, damage, words):
    d, _ = _damaged(template, tmp_path, rel, damage)
    fig = tmp_path / "fig.png"
    r = CliRunner().invoke(app, ["plot", str(d), "-o", str(fig)])
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr, r.exception)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert words in lines[0]
    assert "Traceback" not in r.stderr + r.stdout
    assert not fig.exists()


def test_load_of_a_regular_file_or_nothing_names_it(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    for p, words in ((f, "not a directory"), (tmp_path / "nope", "no such directory")):
        with pytest.raises(cc.ResultError, match=words) as ei:
            cc.load(p)
        assert str(p) in str(ei.value)
