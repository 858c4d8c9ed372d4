"""docs/extending.md runs as written: its ```python blocks, in order, in one namespace, from the
repository root (the page's paths are relative to it)."""
from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "extending.md"


def blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


def test_the_extending_tutorial_runs_as_written(capsys):
    code = blocks()
    assert len(code) >= 4, "the tutorial lost its code blocks"
    ns: dict = {"__name__": "extending_md"}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for i, src in enumerate(code):
            exec(compile(src, f"{DOC.name}[block {i}]", "exec"), ns)
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "delay_target" in out and 'controller "broken"' in out
    assert "UserModel('reno_droptail'" in out and "periodic=True" in out  # the fluid example ran


def test_the_interface_in_ten_lines_is_ten_lines():
    text = DOC.read_text()
    section = text.split("## The interface in ten lines", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    assert len(section.strip().splitlines()) == 10
