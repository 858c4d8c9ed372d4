"""Runs fuzz cases and classifies each outcome. As a process (`python -m tests.fuzz.worker`),
it sets its own memory limit, then reads case ids on stdin (one a line) and answers one JSON
line each; the driver (`fuzzer.py`) sees aborts and hangs from outside.

Classes: ok (ran), clean (a ccscope error whose message is one line, names a field and is not
huge), bad_message (a ccscope error whose message is not that), traceback (any other exception),
panic (SimulationError "internal error": a Rust panic caught at the boundary), memory
(MemoryError under the worker's memory limit), harness (the fuzzer itself failed).
"""
from __future__ import annotations

import inspect
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

# A message names a field: it starts with a field path (a scenario field, `<scenario>`/`<file>`
# for the whole scenario, an API argument or builder parameter, a CLI option, or a scenario file
# path), then ` = value` and/or `: what is allowed`.
def _roots() -> list[str]:
    import dataclasses
    import inspect as _i

    from ccscope.scenario import builders, model
    names = {f.name for f in dataclasses.fields(model.Scenario)}
    for fn in (builders.dumbbell, builders.parking_lot, builders.periodic):
        names |= set(_i.signature(fn).parameters)
    names |= {"until_s", "record", "seed", "t_s", "scenario"}
    return sorted(names, key=len, reverse=True)


_FIELD_RE = None


def _field_re():
    global _FIELD_RE
    if _FIELD_RE is None:
        roots = "|".join(re.escape(n) for n in _roots())
        _FIELD_RE = re.compile(rf"^(?:<scenario>|<file>|--[a-z][a-z-]*|\S+\.(?:toml|json)|(?:{roots})(?=[\[.:]| = ))")
    return _FIELD_RE


# One error line: values quoted in it are cut (the rule: about 80 characters); a path,
# a value excerpt and a list of the allowed values fit well under this.
MAX_MESSAGE_CHARS = 1000

REPO = Path(__file__).resolve().parents[2]
DEFAULT_UNTIL_S = 2e-4
BUDGET_BYTES = 512 * 2**20


def _starts_with_key(msg: str, keys) -> bool:
    for k in keys:
        if k == "":
            k = '""'  # an empty key is shown quoted
        if isinstance(k, str) and msg.startswith(k):
            rest = msg[len(k):]
            if rest[:1] in ("[", ".", ":") or rest.startswith(" = "):
                return True
        # a long key is shown cut: its first characters, then `...`
        if isinstance(k, str) and len(k) > 40 and msg.startswith(k[:40]):
            return True
    return False


def judge_message(msg: str, keys=()) -> str | None:
    """None when `msg` is a clean one-line error naming a field, else why not. `keys`: the
    input's own top-level keys (an unknown key is named as the user wrote it)."""
    if "\n" in msg.strip():
        return "message has several lines"
    if len(msg) > MAX_MESSAGE_CHARS:
        return f"message is {len(msg)} chars (values are not cut)"
    if not (_field_re().match(msg) or _starts_with_key(msg, keys)):
        return "message names no field"
    if ": " not in msg:
        return "no `: what is allowed` part"
    return None


def _budget_kw(fn) -> dict:
    """A memory budget for the run when the API has one (so a huge but valid scenario is refused
    before it allocates, instead of failing under this process's memory limit)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    for name in params:
        if "memory" in name or "budget" in name:
            return {name: BUDGET_BYTES}
    return {}


def run_case(case, until_s: float = DEFAULT_UNTIL_S) -> dict:
    """Run one case in this process; returns {cls, exc, msg, why, validated}."""
    import ccscope
    from ccscope.scenario import apply_set, validate
    out = {"cls": "ok", "exc": "", "msg": "", "why": "", "validated": None}
    stage = "harness"
    tmp = None
    seen_keys: list = []
    try:
        p = case.payload
        bkw = _budget_kw(ccscope.simulate)
        if case.mode in ("api", "set"):
            sc = p["scenario"]
            if case.mode == "set":
                stage = "apply_set"
                for s in p["sets"]:
                    apply_set(sc, s)
            stage = "validate"
            validate(sc, max_memory_bytes=BUDGET_BYTES)  # the budget the run gets
            out["validated"] = True
            stage = "simulate"
            ccscope.simulate(sc, until_s=until_s, **bkw)
        elif case.mode == "args":
            stage = "simulate"
            sim = ccscope.Simulation(p["scenario"], until_s=p.get("until_s", until_s), record=p.get("record"),
                                     seed=p.get("seed"), **_budget_kw(ccscope.Simulation))
            if "run_until" in p:
                stage = "run_until"
                sim.run_until(p["run_until"])
            stage = "simulate"
            if sim.end_s <= 1e-3:
                sim.run()
            sim.finish()
        elif case.mode == "builder":
            from ccscope import scenario as S
            stage = "builder"
            fn = getattr(S, p["call"])
            sc = fn(*p["args"], **p["kwargs"])
            seen_keys[:] = list(sc) if isinstance(sc, dict) else []
            stage = "validate"
            validate(sc, max_memory_bytes=BUDGET_BYTES)  # the budget the run gets
            out["validated"] = True
            stage = "simulate"
            ccscope.simulate(sc, until_s=until_s, **bkw)
        elif case.mode == "file":
            stage = "harness"
            fd, tmp = tempfile.mkstemp(suffix=p["suffix"], prefix="fuzz-")
            with os.fdopen(fd, "wb") as f:
                f.write(p["text"])
            stage = "load_file"
            from ccscope.scenario import load_file
            sc = load_file(tmp)
            seen_keys[:] = list(sc)
            stage = "validate"
            validate(sc, max_memory_bytes=BUDGET_BYTES)  # the budget the run gets
            out["validated"] = True
            stage = "simulate"
            ccscope.simulate(tmp, until_s=until_s, **bkw)
        elif case.mode == "cli":
            return run_cli_case(case)
        else:
            raise AssertionError(f"unknown mode {case.mode}")
    except MemoryError:
        out.update(cls="memory", exc="MemoryError", msg=f"in {stage}")
    except BaseException as e:  # noqa: BLE001 - classify everything
        if stage == "harness" or isinstance(e, (KeyboardInterrupt, SystemExit)):
            out.update(cls="harness", exc=type(e).__name__, msg=traceback.format_exc()[-2000:])
            return out
        msg = str(e)
        out["exc"] = type(e).__name__
        out["msg"] = msg[:2000]
        out["stage"] = stage
        if isinstance(e, ccscope.SimulationError) and "internal error" in msg:
            out["cls"] = "panic"
        elif isinstance(e, (ccscope.ScenarioError, ccscope.SimulationError)):
            keys = list(p["scenario"]) if isinstance(p.get("scenario"), dict) else list(seen_keys)
            keys += [str(x).split("=", 1)[0].strip().split(".")[0] for x in p.get("sets", [])]
            why = judge_message(msg, keys)
            out["cls"] = "bad_message" if why else "clean"
            out["why"] = why or ""
        else:
            out["cls"] = "traceback"
            out["why"] = "".join(traceback.format_exception(e)[-6:])[-3000:]
    finally:
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    if out["cls"] == "clean" and out["validated"]:
        out["validate_gap"] = True  # `validate` accepted what the run refused
    return out


def _cli_has(option: str) -> bool:
    global _CLI_HELP
    if _CLI_HELP is None:
        r = subprocess.run([sys.executable, "-m", "ccscope", "run", "--help"], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "COLUMNS": "200"})
        _CLI_HELP = r.stdout
    return option in _CLI_HELP


_CLI_HELP: str | None = None
CLI_TIMEOUT_S = 60.0


def run_cli_case(case) -> dict:
    """`ccscope run FILE --until ... --out DIR` in a subprocess: exit 0 with a result, or a
    non-zero exit with a one-line error on stderr, no traceback, and nothing at --out."""
    p = case.payload
    out = {"cls": "ok", "exc": "", "msg": "", "why": "", "validated": None}
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as d:
        f = Path(d) / f"scenario{p['suffix']}"
        f.write_bytes(p["text"])
        res = Path(d) / "res"
        argv = [sys.executable, "-m", "ccscope", "run", str(f), "--until", p["until"], "--quiet", "--out", str(res)]
        argv += p["argv"]
        if _cli_has("--max-memory"):
            argv += ["--max-memory", str(BUDGET_BYTES)]
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, cwd=d,
                               env={**os.environ, "COLUMNS": "200"}, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            out.update(cls="hang", msg=f"ccscope run did not end in {CLI_TIMEOUT_S:.0f} s")
            return out
        err = r.stderr.strip()
        out["exc"] = f"exit {r.returncode}"
        out["msg"] = err[-2000:]
        if r.returncode < 0:
            out["cls"] = "abort"
            out["why"] = f"killed by signal {-r.returncode}"
        elif "Traceback (most recent call last)" in err or "panicked at" in err:
            out["cls"] = "traceback" if "Traceback" in err else "panic"
        elif r.returncode == 0:
            if not (res / "meta.json").is_file():
                out.update(cls="bad_output", why="exit 0 but no meta.json at --out")
        else:
            keys = list(p.get("keys", []))
            keys += [a.split("=", 1)[0].strip().split(".")[0] for a in p["argv"] if "=" in a]
            lines = [ln for ln in err.splitlines() if ln.strip()]
            last = lines[-1] if lines else ""
            last = re.sub(r"^(?:error|Error|ccscope):\s*", "", last)
            if "MemoryError" in err:
                out["cls"] = "memory"
            elif "internal error" in err:
                out["cls"] = "panic"
            elif res.exists() and any(res.iterdir()):
                out.update(cls="bad_output", why=f"refused (exit {r.returncode}) but wrote {sorted(x.name for x in res.iterdir())[:5]}")
            elif r.returncode == 2 and "Usage:" in err and re.search(r"'--[a-z-]+'|Invalid value|No such option", err):
                out["cls"] = "clean"  # the CLI's own argument parsing (typer's usage box names the option)
            elif len(lines) != 1:
                why = judge_message(last, keys) or ""
                out.update(cls="bad_message", why=f"{len(lines)} stderr lines; " + why)
            else:
                why = judge_message(last, keys)
                out["cls"] = "bad_message" if why else "clean"
                out["why"] = why or ""
    return out


def _limit_memory(mb: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if mb > 0:
        b = mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (b, b))


def main() -> None:
    mb = int(os.environ.get("CCSCOPE_FUZZ_MEM_MB", "3072"))
    until_s = float(os.environ.get("CCSCOPE_FUZZ_UNTIL_S", str(DEFAULT_UNTIL_S)))
    _limit_memory(mb)
    from tests.fuzz.gen import bases, make_case
    bases()
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing the library might print can break the protocol
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        case_id = line.strip()
        if not case_id:
            continue
        sys.stderr.write(f"@@case {case_id}\n")
        sys.stderr.flush()
        if case_id.startswith("selftest:"):  # the driver's own test: die or hang on purpose
            if case_id.startswith("selftest:abort"):
                os.abort()
            time.sleep(3600)
        t0 = time.perf_counter()
        try:
            case = make_case(case_id)
            res = run_case(case, until_s)
        except MemoryError:
            res = {"cls": "memory", "exc": "MemoryError", "msg": "outside the checked calls", "why": ""}
        except Exception:  # noqa: BLE001
            res = {"cls": "harness", "exc": "", "msg": traceback.format_exc()[-2000:], "why": ""}
        res["id"] = case_id
        res["t"] = round(time.perf_counter() - t0, 4)
        out.write(json.dumps(res) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
