"""Scenario I/O: read TOML/JSON files, apply `--set path=value` overrides, and produce the
JSON the engine reads (JSON is the one format at the Rust boundary).

Data files named in a scenario (a Poisson workload's `size = {kind = "cdf", file = "..."}`) are
read in a sandbox:

- a relative path resolves against the scenario file's directory (for a dict or `Scenario`
  object: against the current directory, the *base*), and must stay under it once symbolic
  links are resolved: `..` may not climb out of it;
- an absolute path, or one that leaves the base, is read only when it lies under a directory
  given with `--allow-path DIR` (CLI) or `allow_paths=[DIR, ...]` (Python);
- only a regular file of at most MAX_DATA_FILE_BYTES is read (a FIFO, a device or /proc-style
  endless file is refused, never waited on), and it must be UTF-8 text without NUL bytes;
- an error quotes at most a short excerpt (MAX_EXCERPT_CHARS) of the offending token, never
  the rest of the file.
"""
from __future__ import annotations

import json
import math
import os
import stat
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional, Union

from ccscope import _native
from ccscope.errors import ScenarioError, cut_message, engine_call, shown
from ccscope.scenario.model import Scenario

ScenarioLike = Union[Scenario, dict, str, Path]
#: Directories data files may be read from besides the base (`allow_paths=`).
AllowPaths = Optional[Iterable[Union[str, Path]]]

#: The largest data file (e.g. a flow-size CDF) a scenario may name: 16 MiB.
MAX_DATA_FILE_BYTES = 16 * 1024 * 1024
#: The most characters of a data file's offending token an error line quotes.
MAX_EXCERPT_CHARS = 24


def load_file(path: Union[str, Path], *, allow_paths: AllowPaths = None) -> dict:
    """Read a .toml or .json scenario file into plain data (validated later, in Rust).

    Data files it names are read now, relative to the file's directory (see the module doc);
    `allow_paths` lists further directories they may come from."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read the scenario file ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{p}: not a UTF-8 text file (byte {e.start}); a scenario must be TOML or JSON text") from None
    return parse_scenario_text(text, p, allow_paths=allow_paths)


def parse_scenario_text(text: str, p: Path, *, allow_paths: AllowPaths = None) -> dict:
    """`load_file` of text already read from `p` (TOML, or JSON when `p` ends in .json); data
    files it names resolve relative to `p`'s directory (module doc)."""
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
    _resolve_cdf_files(data, p.resolve().parent, allow_paths)
    if data.get("plugins") is not None:  # [plugins] file paths resolve against the file's directory
        from ccscope.cc import resolve_scenario_plugins
        resolve_scenario_plugins(data, p.resolve().parent, allow_paths=allow_paths)
    return data


def _allowed_roots(allow_paths: AllowPaths) -> list[Path]:
    if allow_paths is None:
        return []
    if isinstance(allow_paths, (str, Path)):
        allow_paths = [allow_paths]
    roots = []
    for a in allow_paths:
        if not isinstance(a, (str, Path)) or not str(a) or "\0" in str(a):
            raise ScenarioError(f"allow_paths: {shown(a)}: must be a directory path")
        roots.append(Path(os.path.realpath(a)))
    return roots


def resolve_data_path(value: Any, base: Union[str, Path], *, allow_paths: AllowPaths = None,
                      field: str = "file") -> Path:
    """Where a data file named in a scenario is, under the sandbox rules (module doc): the real
    path (symbolic links resolved), or a ScenarioError naming `field` when it is not allowed."""
    if not isinstance(value, str) or not value:
        raise ScenarioError(f"{field} = {shown(value)}: must be a path to a data file (a non-empty string)")
    if "\0" in value:
        raise ScenarioError(f"{field} = {shown(value)}: a path cannot contain a NUL character")
    given = Path(value)
    base = Path(base)
    real = Path(os.path.realpath(given if given.is_absolute() else base / given))
    roots = _allowed_roots(allow_paths)
    if not given.is_absolute() and real.is_relative_to(os.path.realpath(base)):
        return real
    if any(real.is_relative_to(r) for r in roots):
        return real
    why = ("an absolute path" if given.is_absolute() else
           f"it leaves the scenario's directory {shown(str(base))} (via '..' or a symbolic link)")
    raise ScenarioError(f"{field} = {shown(value)}: {why}; data files are read relative to the scenario's directory "
                        "and must stay under it, unless their directory is allowed with --allow-path DIR "
                        "(allow_paths= in Python)")


def read_data_file(path: Path, *, field: str, shown_as: str) -> str:
    """The text of a data file: a regular file of at most MAX_DATA_FILE_BYTES, UTF-8, no NUL
    bytes. Opened non-blocking, so that a FIFO swapped in cannot make it wait."""
    where = f"{field} = {shown_as}"
    try:
        st = os.stat(path)
    except OSError as e:
        raise ScenarioError(f"{where}: cannot read the data file ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ScenarioError(f"{where}: not a regular file; a data file must be a plain file "
                            "(not a directory, FIFO, socket or device)")
    if st.st_size > MAX_DATA_FILE_BYTES:
        raise ScenarioError(f"{where}: {st.st_size} bytes; a data file may have at most {MAX_DATA_FILE_BYTES} "
                            f"bytes ({MAX_DATA_FILE_BYTES // 2**20} MiB)")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise ScenarioError(f"{where}: cannot read the data file ({e.strerror or e})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between stat and open
            raise ScenarioError(f"{where}: not a regular file; a data file must be a plain file")
        chunks, n = [], 0
        while n <= MAX_DATA_FILE_BYTES:  # read to the limit, not to st_size (/proc files say 0)
            try:
                b = os.read(fd, min(1 << 20, MAX_DATA_FILE_BYTES + 1 - n))
            except BlockingIOError:
                raise ScenarioError(f"{where}: the data file would block; it must be a plain file") from None
            except OSError as e:
                raise ScenarioError(f"{where}: cannot read the data file ({e.strerror or e})") from None
            if not b:
                break
            chunks.append(b)
            n += len(b)
    finally:
        os.close(fd)
    if n > MAX_DATA_FILE_BYTES:
        raise ScenarioError(f"{where}: more than {MAX_DATA_FILE_BYTES} bytes; a data file may have at most "
                            f"{MAX_DATA_FILE_BYTES // 2**20} MiB")
    raw = b"".join(chunks)
    nul = raw.find(b"\0")
    if nul >= 0:
        raise ScenarioError(f"{where}: a binary file (NUL byte at offset {nul}); a data file must be text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{where}: not UTF-8 text (byte {e.start}); a data file must be text") from None


def _excerpt(token: str) -> str:
    """A short, printable excerpt of an offending token of a data file."""
    t = "".join(c if c.isprintable() else "?" for c in token[:MAX_EXCERPT_CHARS])
    return repr(t + ("..." if len(token) > MAX_EXCERPT_CHARS else ""))


def load_cdf(path: Union[str, Path], *, field: str = "size.file", base: Union[str, Path, None] = None,
             allow_paths: AllowPaths = None) -> list[list[float]]:
    """Read an empirical flow-size CDF: one `bytes cumulative_probability` pair per line
    (comma or whitespace separated, `#` comments), both non-decreasing, ending at 1.

    `path` is checked by the sandbox rules (module doc) against `base` (default: the current
    directory) and `allow_paths`."""
    value = str(path) if isinstance(path, Path) else path
    real = resolve_data_path(value, Path.cwd() if base is None else Path(base), allow_paths=allow_paths, field=field)
    where = shown(value)
    lines = read_data_file(real, field=field, shown_as=where).splitlines()
    pts: list[list[float]] = []
    for i, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        if len(parts) != 2:
            raise ScenarioError(f"{field} = {where} line {i}: expected two numbers `bytes probability`, "
                                f"got {len(parts)} fields (the first: {_excerpt(parts[0])})")
        vals = []
        for k, tok in enumerate(parts):
            try:
                v = float(tok)
            except ValueError:
                v = float("nan")
            if not math.isfinite(v):
                raise ScenarioError(f"{field} = {where} line {i}: {_excerpt(tok)} is not a finite number "
                                    f"({'bytes' if k == 0 else 'probability'})")
            vals.append(v)
        b, q = vals
        if not (b >= 1 and 0 <= q <= 1) or (pts and (b < pts[-1][0] or q < pts[-1][1])):
            raise ScenarioError(f"{field} = {where} line {i}: {b:g} {q:g}: sizes must be >= 1 and probabilities in "
                                "[0, 1], both non-decreasing (a CDF)")
        pts.append([b, q])
    if len(pts) < 2 or abs(pts[-1][1] - 1.0) > 1e-9:
        raise ScenarioError(f"{field} = {where}: a CDF needs at least two points and must end at probability 1")
    return pts


def _workloads(data: dict) -> list:
    """`data["workload"]` as a list (empty when absent); a ScenarioError naming the field otherwise."""
    w = data.get("workload")
    if w is None:
        return []
    if not isinstance(w, list):
        raise ScenarioError(f"workload = {shown(w)}: must be an array of tables ([[workload]])")
    return w


def _has_cdf_files(data: dict) -> bool:
    return any(isinstance(w, dict) and isinstance(w.get("size"), dict) and "file" in w["size"] for w in _workloads(data))


def _resolve_cdf_files(data: dict, base: Path, allow_paths: AllowPaths = None) -> None:
    """Replace `size = {kind = "cdf", file = "x.csv"}` in workloads by the file's points."""
    for i, w in enumerate(_workloads(data)):
        size = w.get("size") if isinstance(w, dict) else None
        if isinstance(size, dict) and "file" in size:
            f = size.pop("file")
            size["points"] = load_cdf(f, field=f"workload[{i}].size.file", base=base, allow_paths=allow_paths)


def _parse_value(text: str) -> Any:
    """A --set value: TOML literal syntax (numbers, true/false, "strings", [arrays], {tables});
    a bare word that is not a literal is taken as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _set_key(part: str, assignment: str) -> tuple[str, Optional[int]]:
    """One step of a --set path: `name` or `name[i]` (i a list index >= 0)."""
    import re
    m = re.fullmatch(r"([^\[\]]+)(?:\[(\d+)\])?", part)
    if not m:
        raise ScenarioError(f"--set {shown(assignment)}: {shown(part)} is not a field name or name[index], e.g. "
                            f"aqm.k_pkts or workload[0].rounds")
    return m.group(1).strip(), None if m.group(2) is None else int(m.group(2))


def apply_set(data: dict, assignment: str) -> dict:
    """Apply one `path=value` override in place: the path is dotted field names, e.g.
    `aqm.k_pkts=40`; a list item is `name[i]`, e.g. `workload[0].rounds=50`. A list of tables
    named without an index (`workload.rounds=50`) is that list's only item when it has one."""
    if "=" not in assignment:
        raise ScenarioError(f"--set {shown(assignment)}: expected PATH=VALUE, e.g. --set flows.count=10")
    path, _, value = assignment.partition("=")
    parts = [k.strip() for k in path.strip().split(".")]
    if not path.strip() or any(not k for k in parts):
        raise ScenarioError(f"--set {shown(assignment)}: the path must be dotted field names, e.g. aqm.k_pkts "
                            f"(a list item: workload[0].rounds)")
    steps = [_set_key(k, assignment) for k in parts]
    node: Any = data
    done = ""
    for i, (k, idx) in enumerate(steps):
        last = i == len(steps) - 1
        done = f"{done}.{k}" if done else k
        if last and idx is None:
            node[k] = _parse_value(value.strip())
            break
        nxt = node.get(k)
        if idx is not None:
            if nxt is None:
                raise ScenarioError(f"--set {shown(assignment)}: the scenario has no {done}, so {done}[{idx}] "
                                    f"names nothing (add the list to the file first)")
            if not isinstance(nxt, list):
                raise ScenarioError(f"--set {shown(assignment)}: {done} = {shown(nxt)} is not a list, so "
                                    f"{done}[{idx}] names nothing")
            if idx >= len(nxt):
                raise ScenarioError(f"--set {shown(assignment)}: {done}[{idx}]: index out of range; {done} has "
                                    f"{len(nxt)} item(s), indices 0..{len(nxt) - 1}" if nxt else
                                    f"--set {shown(assignment)}: {done}[{idx}]: {done} is an empty list")
            done = f"{done}[{idx}]"
            if last:
                nxt[idx] = _parse_value(value.strip())
                break
            nxt_item = nxt[idx]
            if not isinstance(nxt_item, dict):
                raise ScenarioError(f"--set {shown(assignment)}: {done} = {shown(nxt_item)} is not a table")
            node = nxt_item
            continue
        if nxt is None:
            nxt = node[k] = {}
        if isinstance(nxt, list) and nxt and all(isinstance(x, dict) for x in nxt):
            # a list of tables ([[workload]]) named without an index: its only item, else say how to pick one
            if len(nxt) != 1:
                raise ScenarioError(f"--set {shown(assignment)}: {done} is a list of {len(nxt)} tables; name one "
                                    f"by index, {done}[0] .. {done}[{len(nxt) - 1}], e.g. "
                                    f"--set {done}[0].{'.'.join(parts[i + 1:])}={value.strip()}")
            nxt = nxt[0]
            done = f"{done}[0]"
        if not isinstance(nxt, dict):
            raise ScenarioError(f"--set {shown(assignment)}: {done} = {shown(nxt)} is not a table")
        node = nxt
    return data


def _check_finite(obj: Any, path: str = "", depth: int = 0) -> None:
    if depth > 64:
        raise ScenarioError(cut_message(f"{path}: nested too deeply; a scenario is a few levels of tables"))
    if isinstance(obj, float) and not math.isfinite(obj):
        shown = "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
        raise ScenarioError(cut_message(f"{path or '<scenario>'} = {shown}: must be a finite number"))
    if isinstance(obj, dict):
        for k, v in obj.items():
            name = str(k) if k != "" else '""'  # an empty key still names a field
            _check_finite(v, f"{path}.{name}" if path else name, depth + 1)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_finite(v, f"{path or '<scenario>'}[{i}]", depth + 1)


def as_dict(scenario: ScenarioLike, *, allow_paths: AllowPaths = None) -> dict:
    """Plain data of a Scenario, dict or file path (a file's data files are read: `load_file`)."""
    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    if isinstance(scenario, dict):
        return scenario
    if isinstance(scenario, (str, Path)):
        return load_file(scenario, allow_paths=allow_paths)
    raise TypeError(f"scenario: expected a ccscope.Scenario, a dict or a path to a .toml/.json file, got {type(scenario).__name__}")


def to_engine_json(scenario: ScenarioLike, *, allow_paths: AllowPaths = None) -> str:
    """The JSON text the engine reads. Non-finite numbers are refused here (JSON cannot carry them).
    Data files still named in a dict or Scenario resolve against the current directory (the base),
    under the same sandbox rules as a file's (module doc)."""
    data = as_dict(scenario, allow_paths=allow_paths)
    if isinstance(data, dict) and data.get("plugins") is not None:
        # the controllers the scenario names are registered before the engine checks cc names
        from ccscope.cc import load_scenario_plugins
        load_scenario_plugins(data, allow_paths=allow_paths)
    if _has_cdf_files(data):
        import copy
        data = copy.deepcopy(data)
        _resolve_cdf_files(data, Path.cwd(), allow_paths)
    try:
        return json.dumps(data, allow_nan=False)
    except RecursionError:
        _check_finite(data)  # names the path that nests too deeply (walked only on failure)
        raise ScenarioError("<scenario>: nested too deeply; a scenario is a few levels of tables") from None
    except (TypeError, ValueError) as e:
        _check_finite(data)  # names the field of a non-finite number (walked only on failure)
        raise ScenarioError(f"<scenario>: cannot be written as JSON ({shown(str(e))}); use numbers, strings, booleans, "
                            "lists and tables") from None


def validate(scenario: ScenarioLike, *, allow_paths: AllowPaths = None,
             max_memory_bytes: Optional[int] = None) -> dict:
    """Validate exactly as a run does; returns the scenario with every default filled in.

    Beyond the schema checks this builds the simulation (topology, hosts, routes, congestion
    points) and discards it, so that a scenario `validate` accepts is one `simulate` can start.
    max_memory_bytes: the memory budget the run would have (None: half the machine's memory);
    a scenario estimated above it is refused before anything is built."""
    from ccscope.sim import _check_max_memory
    budget = _check_max_memory(max_memory_bytes)
    text = to_engine_json(scenario, allow_paths=allow_paths)
    return json.loads(engine_call(_native.validate_build, text, budget))


def resolve(scenario: ScenarioLike, *, allow_paths: AllowPaths = None) -> dict:
    """The schema checks alone (fields, types, ranges, references between sections), with every
    default filled in; nothing is built. `validate` adds what only building finds (hosts, routes,
    congestion points, the memory budget)."""
    return _resolve_text(to_engine_json(scenario, allow_paths=allow_paths))


def _resolve_text(text: str) -> dict:
    return json.loads(engine_call(_native.validate, text, "json"))


def expand(scenario: ScenarioLike, *, allow_paths: AllowPaths = None,
           max_memory_bytes: Optional[int] = None) -> dict:
    """The explicit form: graph topology, every flow listed, recorded ports named.

    max_memory_bytes: memory budget (None: half the machine's memory); a scenario whose
    explicit form (topology and flow list, estimated before expanding) exceeds it raises
    ScenarioError naming the fields that drive the estimate, as a run does."""
    from ccscope.sim import _check_max_memory
    budget = _check_max_memory(max_memory_bytes)
    return json.loads(engine_call(_native.expand, to_engine_json(scenario, allow_paths=allow_paths), "json", budget))
