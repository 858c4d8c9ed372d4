"""Scenario I/O: read TOML/JSON files, apply `--set path=value` overrides, and produce the
JSON the engine reads (JSON is the one format at the Rust boundary)."""
from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any, Union

from ccscope import _native
from ccscope.errors import ScenarioError
from ccscope.scenario.model import Scenario

ScenarioLike = Union[Scenario, dict, str, Path]


def load_file(path: Union[str, Path]) -> dict:
    """Read a .toml or .json scenario file into plain data (validated later, in Rust)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read the scenario file ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{p}: not a UTF-8 text file (byte {e.start}); a scenario must be TOML or JSON text") from None
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text, parse_constant=lambda c: float(c.replace("Infinity", "inf")))
        except json.JSONDecodeError as e:
            raise ScenarioError(f"{p}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
        except RecursionError:
            raise ScenarioError(f"{p}: nested too deeply; a scenario is a few levels of tables") from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{p}: invalid TOML: {e}") from None
        except RecursionError:
            raise ScenarioError(f"{p}: nested too deeply; a scenario is a few levels of tables") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{p}: the top level must be a table of scenario fields")
    _resolve_cdf_files(data, p.resolve().parent)
    return data


def load_cdf(path: Union[str, Path], *, field: str = "size.file") -> list[list[float]]:
    """Read an empirical flow-size CDF: one `bytes cumulative_probability` pair per line
    (comma or whitespace separated, `#` comments), both non-decreasing, ending at 1."""
    p = Path(path)
    try:
        lines = p.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{field} = {str(path)!r}: cannot read the CDF file ({getattr(e, 'strerror', None) or e})") from None
    pts: list[list[float]] = []
    for i, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        try:
            if len(parts) != 2:
                raise ValueError
            b, q = float(parts[0]), float(parts[1])
        except ValueError:
            raise ScenarioError(f"{field} = {str(path)!r} line {i}: expected two numbers `bytes probability`, got {line!r}") from None
        if not (b >= 1 and 0 <= q <= 1) or (pts and (b < pts[-1][0] or q < pts[-1][1])):
            raise ScenarioError(f"{field} = {str(path)!r} line {i}: {line!r}: sizes must be >= 1 and probabilities in [0, 1], "
                                "both non-decreasing (a CDF)")
        pts.append([b, q])
    if len(pts) < 2 or abs(pts[-1][1] - 1.0) > 1e-9:
        raise ScenarioError(f"{field} = {str(path)!r}: a CDF needs at least two points and must end at probability 1")
    return pts


def _resolve_cdf_files(data: dict, base: Path) -> None:
    """Replace `size = {kind = "cdf", file = "x.csv"}` in workloads by the file's points."""
    for i, w in enumerate(data.get("workload") or []):
        size = w.get("size") if isinstance(w, dict) else None
        if isinstance(size, dict) and "file" in size:
            f = size.pop("file")
            if not isinstance(f, str):
                raise ScenarioError(f"workload[{i}].size.file = {f!r}: must be a path to a CDF file")
            fp = Path(f) if Path(f).is_absolute() else base / f
            size["points"] = load_cdf(fp, field=f"workload[{i}].size.file")


def _parse_value(text: str) -> Any:
    """A --set value: TOML literal syntax (numbers, true/false, "strings", [arrays], {tables});
    a bare word that is not a literal is taken as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_set(data: dict, assignment: str) -> dict:
    """Apply one `path=value` override in place (path dotted, e.g. `aqm.k_pkts=40`)."""
    if "=" not in assignment:
        raise ScenarioError(f"--set {assignment!r}: expected PATH=VALUE, e.g. --set flows.count=10")
    path, _, value = assignment.partition("=")
    keys = [k.strip() for k in path.strip().split(".")]
    if not path.strip() or any(not k for k in keys):
        raise ScenarioError(f"--set {assignment!r}: the path must be dotted field names, e.g. aqm.k_pkts")
    node = data
    for i, k in enumerate(keys[:-1]):
        nxt = node.get(k)
        if nxt is None:
            nxt = node[k] = {}
        if not isinstance(nxt, dict):
            raise ScenarioError(f"--set {assignment!r}: {'.'.join(keys[:i + 1])} is not a table")
        node = nxt
    node[keys[-1]] = _parse_value(value.strip())
    return data


def _check_finite(obj: Any, path: str = "", depth: int = 0) -> None:
    if depth > 64:
        raise ScenarioError(f"{path}: nested too deeply; a scenario is a few levels of tables")
    if isinstance(obj, float) and not math.isfinite(obj):
        shown = "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
        raise ScenarioError(f"{path or '<scenario>'} = {shown}: must be a finite number")
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_finite(v, f"{path}.{k}" if path else str(k), depth + 1)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_finite(v, f"{path}[{i}]", depth + 1)


def as_dict(scenario: ScenarioLike) -> dict:
    """Plain data of a Scenario, dict or file path."""
    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    if isinstance(scenario, dict):
        return scenario
    if isinstance(scenario, (str, Path)):
        return load_file(scenario)
    raise TypeError(f"scenario: expected a ccscope.Scenario, a dict or a path to a .toml/.json file, got {type(scenario).__name__}")


def to_engine_json(scenario: ScenarioLike) -> str:
    """The JSON text the engine reads. Non-finite numbers are refused here (JSON cannot carry them)."""
    data = as_dict(scenario)
    if any(isinstance(w, dict) and isinstance(w.get("size"), dict) and "file" in w["size"] for w in data.get("workload") or []):
        import copy
        data = copy.deepcopy(data)
        _resolve_cdf_files(data, Path.cwd())
    _check_finite(data)
    try:
        return json.dumps(data, allow_nan=False)
    except RecursionError:
        raise ScenarioError("<scenario>: nested too deeply; a scenario is a few levels of tables") from None
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"<scenario>: cannot be written as JSON ({e}); use numbers, strings, booleans, lists and tables") from None


def validate(scenario: ScenarioLike) -> dict:
    """Validate in the engine; returns the scenario with every default filled in."""
    return json.loads(_native.validate(to_engine_json(scenario), "json"))


def expand(scenario: ScenarioLike) -> dict:
    """The explicit form: graph topology, every flow listed, recorded ports named."""
    return json.loads(_native.expand(to_engine_json(scenario), "json"))
