"""Typed errors. `ScenarioError` (a ValueError) names the field path, the value and what is
allowed; `SimulationError` (a RuntimeError) means an internal check failed during a run;
`ResultError` (a ValueError) means a saved result directory cannot be read back, and names the
file and what is wrong with it. `Interrupted` (a KeyboardInterrupt) is a run stopped by Ctrl-C,
carrying its partial result.

Every error is picklable (so it crosses process boundaries intact, e.g. `simulate_many(...,
executor="process")` or a Dask sweep), and every error line cuts long values (`shown`,
`cut_message`) so that a 100 KB value never fills a terminal.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable, TypeVar

from ccscope._native import ScenarioError, SimulationError

__all__ = ["Interrupted", "ResultError", "ScenarioError", "SimulationError", "cut_message", "shown"]

# The engine's exception types are created by the extension module as `_native.ScenarioError`,
# a module name that pickle cannot import. Their public home is this module: say so, so that
# pickle finds them here (the classes are the same objects, `except ScenarioError` is unchanged).
for _cls in (ScenarioError, SimulationError):
    _cls.__module__ = __name__


class ResultError(ValueError):
    """A result directory (written by `SimResult.save` / `ccscope run --out`) that cannot be read:
    the message names the file and what is wrong with it."""


#: The most characters of one value an error line shows.
MAX_VALUE_CHARS = 80
#: The most characters of a whole error line (field path and what is allowed included).
MAX_MESSAGE_CHARS = 1000


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} chars)"


def shown(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """A value for an error line, written as a scenario file would (JSON/TOML: `true`, `"x"`,
    `[1, 2]`; `repr` for other objects), cut to `limit` characters (the full length is said)."""
    try:
        if isinstance(value, (bool, type(None), str, int, float, list, dict)):
            text = json.dumps(value, ensure_ascii=False)
        else:
            text = repr(value)
    except (TypeError, ValueError, RecursionError):
        text = _safe_repr(value)
    except Exception:  # noqa: BLE001 - a value that cannot be shown must not hide the real error
        text = f"<{type(value).__name__}>"
    return _cut(text, limit)


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # noqa: BLE001
        return f"<{type(value).__name__}>"


# quoted values in the engine's messages: `...` (serde) and "..." (JSON strings)
_QUOTED = re.compile(r'`[^`]*`|"(?:[^"\\]|\\.)*"')
# an unbroken run of characters longer than twice MAX_VALUE_CHARS; a `:` or `,` right after it
# (the separator before what is allowed) is not part of it, so that the cut line keeps it. A
# token already cut (its head and `...`, 3 more characters) is not cut again: cutting twice
# (the library, then the CLI) gives the same line as cutting once.
_LONG_TOKEN = re.compile(r"\S{%d,}?(?=[:,]?(?:\s|$))" % (2 * MAX_VALUE_CHARS + 4))


def cut_message(msg: str, limit: int = MAX_VALUE_CHARS) -> str:
    """An error line with every long value in it cut: quoted values to `limit` characters, any
    other unbroken run of characters to twice that, and the whole line to MAX_MESSAGE_CHARS
    (keeping its head, where the field path is, and its tail, which says what is allowed)."""
    def quoted(m: re.Match) -> str:
        s = m.group(0)
        if len(s) <= limit + 5:  # a value already cut (`head...`) is not cut again
            return s
        return f"{s[:limit + 1]}...{s[-1]} ({len(s) - 2} chars)"
    msg = _QUOTED.sub(quoted, msg)
    msg = _LONG_TOKEN.sub(lambda m: _cut(m.group(0), 2 * limit), msg)
    if len(msg) > MAX_MESSAGE_CHARS:
        head, tail = MAX_MESSAGE_CHARS * 2 // 3, MAX_MESSAGE_CHARS // 4
        msg = f"{msg[:head]} ... ({len(msg) - head - tail} chars cut) ... {msg[-tail:]}"
    return msg


T = TypeVar("T")


def engine_call(fn: Callable[..., T], *args: Any) -> T:
    """Call into the engine; a ScenarioError it raises comes back with long values cut."""
    try:
        return fn(*args)
    except ScenarioError as e:
        msg = str(e)
        short = cut_message(msg)
        if short == msg:
            raise
        raise ScenarioError(short) from None


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (SIGINT; in the CLI also SIGTERM) before its end.

    result: what was simulated so far, a `SimResult` marked partial (`meta["partial"]` is True,
    `meta["interrupted_at_s"]` the simulated time reached, the summary over [warm-up, that
    time]), or None when nothing could be kept. A KeyboardInterrupt, so code that does not
    know it stops as before; a notebook can keep the result:

        try:
            res = ccscope.simulate(sc)
        except ccscope.Interrupted as e:
            res = e.result
    """

    def __init__(self, result=None, message=None):
        self.result = result
        if message is None:
            message = describe_interruption(result)
        super().__init__(message)

    def __reduce__(self):
        return (type(self), (self.result, str(self)))


def describe_interruption(result) -> str:
    """ "interrupted at 0.431 s of 1 s simulated" for a partial result (or a plain line)."""
    meta = getattr(result, "meta", None) or {}
    at, end = meta.get("interrupted_at_s"), meta.get("scheduled_end_s")
    if at is None:
        return "interrupted; nothing simulated was kept"
    if end is None:
        return f"interrupted at {at:.3g} s simulated"
    return f"interrupted at {at:.3g} s of {end:.6g} s simulated"
