"""Output that never destroys: the one place where ccscope decides what it may write over.

Every writer goes through here: `SimResult.save` (`ccscope run --out`, `ccscope demo --out`),
`ccscope plot -o`, the reproduction runner and report (`ccscope repro run --out`, `repro report
--docs`) and sweeps (`ccscope sweep --out`).

The rules (docs/reliability.md):

* A target that does not exist, or an empty directory, is written.
* A directory that holds a previous ccscope output of the same kind (recognised by its marker
  file: `summary.json` and `meta.json` for a run, `sweep.json` for a sweep, `result.json` for a
  reproduction entry, `ccscope-repro.json` for a reproduction root) is updated: ccscope replaces
  or removes only its own entries of that kind (`Kind.own`); every other entry (the scenario
  file, a figure from `ccscope plot`, notes) is kept.
* A directory holding anything that is not ccscope's own, and no marker, is refused with
  `OutputRefused` unless `force=True`. `force` writes ccscope's entries into it (a file with one
  of ccscope's names is replaced) and still keeps every other entry: nothing ccscope did not
  write is ever deleted.
* Something that is not a directory at the target (a regular file, a dangling link) is refused,
  `force` included: a file is never turned into a directory.
* A path that must survive (the scenario file being run) which is one of ccscope's own entries of
  the target is refused; elsewhere in the target it is kept like any other file.
* Writes are staged and renamed into place. When the target has no entry of its own to keep and
  is not the current directory (or one above it), the whole directory is swapped in one rename
  (a reader sees the old result or the new one). Otherwise each of ccscope's entries is renamed
  into place in the target (markers out first, in last, so an interrupted update is never taken
  for a complete result).
* Temporary and old copies are named `.NAME.tmp-PID-HOST-RAND` / `.NAME.old-PID-HOST-RAND`
  (next to the target, or inside it with NAME = `ccscope` for an update in place). They are
  removed on every exit path (`finally`; the CLI turns SIGTERM into `SystemExit` with
  `sigterm_as_exit`), and those a `kill -9` left behind are removed by the next write into the
  same folder once their process is gone (same host, pid not alive); a swap or an update in place
  that a kill cut in two is first put back (or, once the new entries were moving in, completed).
  New directories get the permissions of the umask.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]

#: Entries listed by name in a refusal before "... and N more".
LIST_ENTRIES = 5
#: Characters of an entry name shown in a refusal.
NAME_CHARS = 40


@dataclass(frozen=True)
class Kind:
    """A kind of output directory: what ccscope writes there and what marks a previous one."""
    label: str                     #: "ccscope run result", used in messages
    markers: tuple[str, ...]       #: files that must all exist for "a previous output of this kind"
    own: frozenset[str]            #: top-level entries ccscope writes (and may replace or remove)


#: A run result: `SimResult.save` (plus `point.json` inside a sweep point and the demo's figure).
RUN = Kind("ccscope run result", ("summary.json", "meta.json"),
           frozenset({"summary.json", "meta.json", "scenario.json", "flows.parquet", "ports.parquet",
                      "rounds.parquet", "traces", "point.json", "queue_cwnd.png"}))
#: A sweep output directory (`ccscope sweep --out`): updated point by point, never swapped whole.
SWEEP = Kind("ccscope sweep output", ("sweep.json",),
             frozenset({"sweep.json", "summary.parquet", "points", "fluid"}))
#: One reproduction entry's directory, `<root>/<paper>/<item>[/quick]`.
REPRO_ENTRY = Kind("ccscope reproduction result", ("result.json",),
                   frozenset({"figure.png", "data.parquet", "result.json"}))
#: The root of reproduction outputs (`ccscope repro run --out`); its marker file is written on first use.
REPRO_ROOT_MARKER = "ccscope-repro.json"


#: What `--force` does to a directory, as the refusal says it.
FORCE_WRITES_INTO = "to write ccscope's files into it (every other file is kept)"


class OutputRefused(FileExistsError):
    """ccscope will not write there: the message says what is in the way and what to do.

    `str(e)` is the library wording (`force=True`); `e.cli("--out")` the command line's (`--force`)."""

    def __init__(self, path: PathLike, problem: str, *, forceable: bool = False, fix: str = "",
                 force_does: str = FORCE_WRITES_INTO):
        self.path, self.problem, self.forceable, self.fix = str(path), problem, forceable, fix
        self.force_does = force_does
        super().__init__(self._text("", "force=True"))

    def __reduce__(self):  # picklable across processes (keyword arguments are not kept by the default)
        return (_rebuild, (self.path, self.problem, self.forceable, self.fix, self.force_does))

    def _text(self, flag: str, force: str) -> str:
        head = f"{flag} {_short(self.path)!r}" if flag else repr(_short(self.path))
        tail = f"; {self.fix}" if self.fix else ""
        if self.forceable:
            tail += f", or pass {force} {self.force_does}"
        return f"{head}: {self.problem}{tail}"

    def cli(self, flag: str) -> str:
        """The error line of the command line, naming the option."""
        return self._text(flag, "--force")


def _rebuild(path, problem, forceable, fix, force_does):
    return OutputRefused(path, problem, forceable=forceable, fix=fix, force_does=force_does)


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


# --------------------------------------------------------------------------- temporary names

def _host() -> str:
    return re.sub(r"[^A-Za-z0-9]", "", socket.gethostname())[:16] or "host"


_TAG = re.compile(r"^\.(?P<name>.+)\.(?P<role>tmp|old)-(?P<pid>\d+)-(?P<host>[A-Za-z0-9]+)-[0-9a-f]{8}"
                  r"(?:\.[A-Za-z0-9]+)?$")
#: Names `tempfile.mkdtemp` gave in earlier versions (no pid): `.NAME.tmp-XXXXXXXX`, `.KEY.partial-XXXXXXXX`.
_LEGACY = re.compile(r"^\.(?P<name>.+)\.(?:tmp|old|partial)-[a-z0-9_]{8}$")


def temp_name(name: str, role: str = "tmp", suffix: str = "") -> str:
    """`.NAME.ROLE-PID-HOST-RAND[SUFFIX]`: a name the stale-copy cleaner recognises as this process's."""
    return f".{name}.{role}-{os.getpid()}-{_host()}-{secrets.token_hex(4)}{suffix}"


def is_temp(name: str) -> bool:
    """True for a temporary or old copy written by ccscope (this version's names)."""
    return _TAG.match(name) is not None


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except (OverflowError, ValueError, OSError):
        return False
    return True


def _remove(p: Path) -> None:
    try:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink()
    except OSError:
        pass


def clean_stale(folder: PathLike, legacy_names: Iterable[str] = ()) -> list[Path]:
    """Remove the temporary and old copies in `folder` whose process is gone (same host, pid not
    alive), and the pid-less copies of earlier versions named after `legacy_names` (or any name
    when `legacy_names` is "*"). An old copy whose directory is missing (the process was killed
    between the two renames of a swap) is renamed back instead; an update in place that was killed
    is completed (`_recover_in_place`). Returns what was removed."""
    folder = Path(folder)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    legacy = None if legacy_names == "*" else set(legacy_names)
    host, removed = _host(), []
    for n in names:  # first the updates in place a kill interrupted: they need their staging copy
        m = _TAG.match(n)
        if m and m["name"] == IN_PLACE and m["role"] == "old" and m["host"] == host and not _alive(int(m["pid"])):
            _recover_in_place(folder, folder / n, m["pid"])
    names = os.listdir(folder)
    for n in names:
        m = _TAG.match(n)
        if m:
            if m["host"] == host and not _alive(int(m["pid"])):
                back = folder / m["name"]
                if m["role"] == "old" and m["name"] != IN_PLACE and not os.path.lexists(back):
                    try:
                        os.rename(folder / n, back)
                        continue
                    except OSError:
                        pass
                _remove(folder / n)
                removed.append(folder / n)
            continue
        m = _LEGACY.match(n)
        if m and (legacy is None or m["name"] in legacy):
            _remove(folder / n)
            removed.append(folder / n)
    return removed


#: NAME of the staging and old copies of an update in place (inside the target directory).
IN_PLACE = "ccscope"
#: File put in the old copy of an update in place once the new entries start moving in; it lists the
#: marker files, which move in last.
MOVING_IN = ".ccscope-moving-in.json"


def _recover_in_place(folder: Path, old: Path, pid: str) -> None:
    """Finish an update in place whose process died: before the new entries started moving in, put
    the previous entries back; after, move the rest of the new ones in (markers last)."""
    host = _host()
    try:
        last = json.loads((old / MOVING_IN).read_text()).get("last", [])
        moving_in = True
    except FileNotFoundError:
        moving_in, last = False, []
    except (OSError, ValueError, AttributeError):
        moving_in, last = True, []
    sources = [old]
    if moving_in:
        sources = []
        for n in os.listdir(folder):
            m = _TAG.match(n)
            if m and m["name"] == IN_PLACE and m["role"] == "tmp" and m["pid"] == pid and m["host"] == host:
                sources.append(folder / n)
    for src in sources:
        try:
            entries = [n for n in os.listdir(src) if n != MOVING_IN]
        except OSError:
            continue
        for n in sorted(entries, key=lambda n: (n in last, n)):
            if not os.path.lexists(folder / n):
                try:
                    os.rename(src / n, folder / n)
                except OSError:
                    pass


def mkdir_temp(folder: Path, name: str, role: str = "tmp") -> Path:
    """A new empty directory named by `temp_name`, with the umask's permissions (not mkdtemp's 0700)."""
    while True:
        p = folder / temp_name(name, role)
        try:
            os.mkdir(p, 0o777)
            return p
        except FileExistsError:
            continue


@contextlib.contextmanager
def sigterm_as_exit() -> Iterator[None]:
    """While inside, SIGTERM raises SystemExit(143) in the main thread, so `finally` blocks (and
    with them the removal of temporary copies) run. Does nothing outside the main thread or when
    SIGTERM already has a handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        prev = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):
        prev = None
    if prev is not signal.SIG_DFL:
        yield
        return

    def _exit(signum, frame):  # noqa: ARG001
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, _exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, prev)


# --------------------------------------------------------------------------- directories

@dataclass
class Plan:
    """What a write into `path` will do: "new" (create), "swap" (one rename) or "update" (in place)."""
    path: Path
    mode: str
    kind: Kind


def _entries(d: Path) -> list[str]:
    return sorted(n for n in os.listdir(d) if not is_temp(n))


def _describe(d: Path, names: list[str]) -> str:
    shown = []
    for n in names[:LIST_ENTRIES]:
        s = _short(n, NAME_CHARS)
        shown.append(s + "/" if (d / n).is_dir() else s)
    more = len(names) - LIST_ENTRIES
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _within(p: Path, d: Path) -> bool:
    try:
        p.relative_to(d)
        return True
    except ValueError:
        return False


def plan_dir(target: PathLike, kind: Kind, *, force: bool = False, protect: Iterable[PathLike] = ()) -> Plan:
    """Check that ccscope may write a `kind` output at `target` (raises OutputRefused) and say how.
    Writes nothing but the recovery of an update in place a kill interrupted (`clean_stale`): the
    command line calls it before a long run so a refusal comes first."""
    raw = Path(target)
    if os.path.lexists(raw) and not raw.is_dir():
        what = "a link to nothing" if raw.is_symlink() and not raw.exists() else (
            "an existing file" if raw.is_file() else "an existing entry that is not a directory")
        raise OutputRefused(raw, f"{what}, not a directory",
                            fix="choose a new or empty directory (ccscope never replaces a file with a directory)")
    path = Path(os.path.realpath(raw))
    if not path.exists():
        return Plan(path, "new", kind)
    clean_stale(path)
    names = _entries(path)
    foreign = [n for n in names if n not in kind.own]
    keep = [Path(os.path.realpath(p)) for p in protect]
    # the scenario file being run may live in its output directory (an experiment's folder): kept, not in the way
    unexpected = [n for n in foreign if path / n not in keep]
    marked = all((path / m).is_file() for m in kind.markers)
    if unexpected and not marked and not force:
        raise OutputRefused(raw, f"a non-empty directory that is not a {kind.label} "
                            f"(contains {_describe(path, unexpected)})",
                            forceable=True, fix="choose an empty or new directory")
    cwd = Path(os.path.realpath(os.getcwd()))
    if _within(cwd, path):
        keep.append(cwd)
    for k in keep:
        if _within(k, path) and k != path:
            top = k.relative_to(path).parts[0]
            if top in kind.own:
                what = "the current directory" if k == cwd else str(k)
                raise OutputRefused(raw, f"writing here would replace {_short(what)} (ccscope's entry {top!r})",
                                    fix="choose another directory")
    in_place = bool(foreign) or _within(cwd, path) or any(_within(k, path) for k in keep) \
        or path.parent == path or not os.access(path.parent, os.W_OK)
    return Plan(path, "update" if in_place else "swap", kind)


def write_dir(target: PathLike, kind: Kind, fill: Callable[[Path], None], *, force: bool = False,
              protect: Iterable[PathLike] = ()) -> Path:
    """Write a `kind` output at `target` by calling `fill(staging_dir)`, under the rules above.
    Returns the directory written (links resolved)."""
    real = Path(os.path.realpath(target))
    clean_stale(real.parent, legacy_names=[real.name])  # first: it may put back a copy a kill -9 left aside
    plan = plan_dir(target, kind, force=force, protect=protect)
    path = plan.path
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    if plan.mode == "update":
        clean_stale(path)
        _update_in_place(path, kind, fill)
        return path
    tmp = mkdir_temp(parent, path.name)
    try:
        fill(tmp)
        if plan.mode == "new" or (path.is_dir() and not os.listdir(path)):
            os.rename(tmp, path)  # replaces an empty directory in the same rename
        else:
            old = parent / temp_name(path.name, "old")
            os.rename(path, old)
            try:
                os.rename(tmp, path)
            except BaseException:
                os.rename(old, path)
                raise
            _remove(old)
    finally:
        if tmp.exists():
            _remove(tmp)
    return path


def _update_in_place(path: Path, kind: Kind, fill: Callable[[Path], None]) -> None:
    stage = mkdir_temp(path, IN_PLACE)
    old = None
    try:
        fill(stage)
        new = set(os.listdir(stage))
        replaced = (set(kind.own) | new) & set(os.listdir(path))
        old = mkdir_temp(path, IN_PLACE, "old")
        # markers leave first and come back last: an interrupted update is never a complete result,
        # and the next write completes it (_recover_in_place: back before MOVING_IN, forward after)
        for n in sorted(replaced, key=lambda n: (n not in kind.markers, n)):
            os.rename(path / n, old / n)
        (old / MOVING_IN).write_text(json.dumps({"last": list(kind.markers)}))
        for n in sorted(new, key=lambda n: (n in kind.markers, n)):
            os.rename(stage / n, path / n)
    finally:
        _remove(stage)
        if old is not None:
            _remove(old)


def ensure_dir(target: PathLike, kind: Kind, *, force: bool = False) -> Path:
    """For outputs updated entry by entry (sweeps, reproduction roots): check `target` under the
    rules, create it, remove stale copies in it; returns the directory (links resolved)."""
    plan = plan_dir(target, kind, force=force)
    plan.path.mkdir(parents=True, exist_ok=True)
    clean_stale(plan.path)
    return plan.path


# --------------------------------------------------------------------------- single files

@contextlib.contextmanager
def atomic_file(target: PathLike) -> Iterator[Path]:
    """Yield a temporary path next to `target` (same extension) to write; on success it is renamed
    over `target` in one step, on any failure removed. `target` must not be a directory."""
    raw = Path(target)
    if raw.is_dir():
        raise OutputRefused(raw, "a directory", fix="give a file name, e.g. " + str(raw / "fig.png"))
    path = Path(os.path.realpath(raw))
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(path.parent)
    tmp = path.parent / temp_name(path.name, "tmp", path.suffix)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            _remove(tmp)


#: Figure formats `ccscope plot -o` writes, with the bytes a file of that format starts with.
FIGURE_MAGIC = {".png": (b"\x89PNG",), ".pdf": (b"%PDF",), ".svg": (b"<?xml", b"<svg")}
#: Text matplotlib (which draws every ccscope figure) leaves in the files it writes.
FIGURE_SIGNS = (b"Matplotlib", b"matplotlib", b"ccscope")
#: Bytes read from each end of an existing figure to recognise it.
FIGURE_PROBE_BYTES = 64 * 1024


def is_our_figure(path: PathLike) -> bool:
    """True for a PNG/PDF/SVG file written by matplotlib (every ccscope figure is)."""
    p = Path(path)
    magic = FIGURE_MAGIC.get(p.suffix.lower())
    if magic is None:
        return False
    try:
        with open(p, "rb") as fh:
            head = fh.read(FIGURE_PROBE_BYTES)
            size = os.fstat(fh.fileno()).st_size
            if size > FIGURE_PROBE_BYTES:
                fh.seek(max(FIGURE_PROBE_BYTES, size - FIGURE_PROBE_BYTES))
                head += fh.read(FIGURE_PROBE_BYTES)
    except OSError:
        return False
    return head.lstrip().startswith(magic) and any(s in head for s in FIGURE_SIGNS)


def check_figure(target: PathLike, *, force: bool = False) -> Path:
    """Check a figure path: a known extension, not a directory, and an existing file only if it is a
    figure written by matplotlib/ccscope (or `force`). Returns the path."""
    p = Path(target)
    if p.is_dir():
        raise OutputRefused(p, "a directory", fix=f"give a file name, e.g. {_short(str(p / 'fig.png'))}")
    if p.suffix.lower() not in FIGURE_MAGIC:
        raise OutputRefused(p, f"unknown figure format {p.suffix or '(none)'!r}",
                            fix="allowed: a file name ending in " + ", ".join(FIGURE_MAGIC))
    if os.path.lexists(p) and not p.is_file():
        raise OutputRefused(p, "an existing entry that is not a regular file", fix="choose another file name")
    if p.is_file() and not force and not is_our_figure(p):
        raise OutputRefused(p, "an existing file that is not a figure written by ccscope",
                            forceable=True, fix="choose another file name", force_does="to replace it")
    return p
