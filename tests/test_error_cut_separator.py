"""A cut error line keeps its shape "<field path> = <cut value>: <what is allowed>": the `:`
(or `,`) right after a long value is not swallowed by the cut (it used to be, so a 1e308 or a
500-character key gave a line without its `: what is allowed` separator)."""
from __future__ import annotations

import copy
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.errors import MAX_MESSAGE_CHARS, MAX_VALUE_CHARS, cut_message

ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = tomllib.loads((ROOT / "scenarios" / "dctcp_dumbbell.toml").read_text())
#: "<field path> = <value cut with its length>: <what is allowed>"
CUT_LINE = re.compile(r"^(?P<field>[A-Za-z_][\w.\[\]]*) = (?P<value>\S+\.\.\. \(\d+ chars\)): (?P<allowed>\S.*)$")


def refusal(mutate) -> str:
    data = copy.deepcopy(DUMBBELL)
    mutate(data)
    with pytest.raises(cc.ScenarioError) as e:
        cc.scenario.validate(data)
    return str(e.value)


@pytest.mark.parametrize("path,value,allowed", [
    ("dctcp.g", 1e308, "must be in (0, 1]"),
    ("dctcp.g", -1e308, "must be in (0, 1]"),
    ("topology.bottleneck_bps", -1e308, "must be a finite number > 0"),
    ("topology.rtt_s", -1e300, "must be"),
])
def test_a_huge_number_is_shown_short_and_the_line_keeps_its_separator(path, value, allowed):
    # the engine prints values beyond 1e16 in scientific notation (fmt_f): 1e308, not 309 digits cut
    # by the line cutter (whose separator handling is tested on hand-made lines below)
    table, key = path.split(".")
    msg = refusal(lambda d: d.setdefault(table, {}).__setitem__(key, value))
    assert msg.startswith(f"{path} = {value:g}: {allowed}".replace("e+", "e")), msg
    assert len(msg) < 200


def test_a_500_character_unknown_key_is_cut_and_keeps_its_separator():
    key = "a" * 500
    msg = refusal(lambda d: d["flows"].__setitem__(key, 1))
    head, sep, allowed = msg.partition(": ")
    assert sep and head.startswith("flows." + "a" * 100) and head.endswith("... (506 chars)"), msg
    assert allowed.startswith("unknown field") and "expected one of `count`" in allowed, msg
    assert len(msg) < 500


@pytest.mark.parametrize("where", ["topology.kind", "flows.cc"])
def test_a_100_kb_string_is_cut_and_the_line_says_what_is_allowed(where):
    table, key = where.split(".")
    msg = refusal(lambda d: d[table].__setitem__(key, "x" * 100_000))
    assert msg.startswith(f"{where}: ") and "(100000 chars)" in msg and "expected one of" in msg, msg
    assert len(msg) < 400


@pytest.mark.parametrize("tail", [": must be in (0, 1]", ", expected one of `a`, `b`", ":", ""])
def test_cut_message_keeps_what_follows_a_long_token(tail):
    msg = "x.y = " + "9" * 309 + tail
    cut = cut_message(msg)
    assert cut == "x.y = " + "9" * (2 * MAX_VALUE_CHARS) + "... (309 chars)" + tail


def test_a_100_kb_unquoted_token_is_cut_and_short_tokens_are_untouched():
    cut = cut_message("a.b = " + "z" * 100_000 + ": must be short, or " + "w" * 200 + ": too")
    assert cut == ("a.b = " + "z" * 160 + "... (100000 chars): must be short, or " + "w" * 160 + "... (200 chars): too")
    same = "a.b = " + "q:" * 70 + " x: must be y"  # 140 chars with inner colons: under the limit, kept
    assert cut_message(same) == same
    assert len(cut_message("k = " + ("y" * 300 + " ") * 40 + ": z")) <= MAX_MESSAGE_CHARS + 40


def test_cli_line_of_a_huge_number_keeps_its_separator(tmp_path):
    p = subprocess.run([sys.executable, "-m", "ccscope", "scenario", "validate",
                        str(ROOT / "scenarios" / "dctcp_dumbbell.toml"), "--set", "dctcp.g=1e308"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    line = p.stderr.strip().splitlines()[-1]
    assert line.endswith("dctcp.g = 1e308: must be in (0, 1]"), p.stderr


@pytest.mark.parametrize("msg", [
    "dctcp.g = " + "1" + "0" * 308 + ": must be in (0, 1]",
    "flows." + "a" * 500 + ": unknown field `" + "a" * 500 + "`, expected one of `count`, `cc`",
    "topology.kind: unknown variant `" + "x" * 100_000 + "`, expected one of `dumbbell`",
    'name = "' + "n" * 5000 + '": must be short',
    "k = " + ("y" * 300 + " ") * 40 + ": z",
])
def test_cutting_twice_gives_the_line_cutting_once_gives(msg):
    """The library cuts, and the CLI cuts what it prints again: the second cut changes nothing."""
    once = cut_message(msg)
    assert cut_message(once) == once
    assert len(once) <= MAX_MESSAGE_CHARS + 40
