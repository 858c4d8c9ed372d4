"""Run reproduction entries and write `<out>/<ID>/{figure.png, data.parquet, result.json}`
(quick variants under `<out>/<ID>/quick/`). Several entries run in parallel in worker processes
(`concurrent.futures.ProcessPoolExecutor`); each worker imports the entry and runs it alone.

Output rules (ccscope._outdir, docs/reliability.md): the root must be new, empty, a previous
reproduction root (marker file `ccscope-repro.json`, or only paper directories as written before the
marker existed) or `force`d; each entry's three files are staged and renamed into place (result.json
last), replacing only those three files of the previous result: other files in an entry's directory
(and the quick/ variant inside the full one) are kept.
"""
from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import pandas as pd

from ccscope import _outdir
from ccscope.repro import registry
from ccscope.repro._base import NOT_YET, NotYetError, Run, _plain, render_cause

#: Default output root (FIGURES.md / issue 7: repro-out/<paper>/<item>/).
DEFAULT_OUT = Path("repro-out")


def out_dir(root: Path, entry_id: str, quick: bool) -> Path:
    d = Path(root) / entry_id
    return d / "quick" if quick else d


def _root_kind() -> _outdir.Kind:
    papers = {e.id.split("/")[0] for e in registry.entries()}
    return _outdir.Kind("ccscope reproduction output", (_outdir.REPRO_ROOT_MARKER,),
                        frozenset(papers | {_outdir.REPRO_ROOT_MARKER}))


def prepare_root(root: Path | str, *, force: bool = False) -> Path:
    """Check that reproduction results may be written under `root` (raises `OutputRefused`: an
    existing file, or a non-empty directory that is not a reproduction root, unless `force`), create
    it and its marker file. Returns the root."""
    from ccscope import __version__
    root = Path(root)
    real = _outdir.ensure_dir(root, _root_kind(), force=force)
    marker = real / _outdir.REPRO_ROOT_MARKER
    if not marker.is_file():
        with _outdir.atomic_file(marker) as tmp:
            tmp.write_text(json.dumps({"written_by": "ccscope repro", "ccscope_version": __version__}, indent=2) + "\n")
    return root


def git_commit() -> dict[str, Any]:
    """{"commit": HEAD's sha, "dirty": whether tracked files differ from it} of the repository this
    package runs from; {"commit": "unknown", "dirty": None} outside a git checkout."""
    import subprocess
    root = registry.repo_root()
    unknown = {"commit": "unknown", "dirty": None}
    if root is None:
        return unknown
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=30, check=True).stdout.strip()
        st = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return unknown
    if not sha:
        return unknown
    return {"commit": sha, "dirty": bool(st.strip())}


def _frames_table(run: Run) -> pd.DataFrame | None:
    frames = []
    for name, df in run.frames.items():
        if df is None or len(df) == 0:
            continue
        f = df.copy()
        f.insert(0, "frame", name)
        for col in f.columns:
            if f[col].dtype == object:
                f[col] = f[col].astype(str)
        frames.append(f)
    return pd.concat(frames, ignore_index=True, sort=False) if frames else None


def run_entry(entry_id: str, *, quick: bool = False, out_root: Path | str = DEFAULT_OUT,
              write: bool = True, force: bool = False) -> dict[str, Any]:
    """Run one entry (run -> check -> plot) and return its result record (also written as JSON).
    With `write`, `out_root` is checked first (`prepare_root`; raises `OutputRefused`)."""
    from ccscope import __version__
    if write:
        prepare_root(out_root, force=force)
    try:
        mod = registry.get(entry_id)
    except Exception as e:  # noqa: BLE001 - a module that does not import is this entry's error
        rec = {"id": entry_id, "variant": "quick" if quick else "full", "ccscope_version": __version__,
               **git_commit(), "verdict": "error", "message": f"importing the module: {type(e).__name__}: {e}",
               "traceback": traceback.format_exc(limit=8), "wall_s": 0.0}
        if write:
            d = out_dir(Path(out_root), entry_id, quick)
            _outdir.write_dir(d, _outdir.REPRO_ENTRY, lambda tmp: (tmp / "result.json").write_text(
                json.dumps(_plain(rec), indent=2, default=str) + "\n"), force=True)
        return rec
    rec: dict[str, Any] = {"id": entry_id, "title": mod.TITLE, "kind": mod.KIND, "claim": mod.CLAIM,
                           "variant": "quick" if quick else "full", "ccscope_version": __version__,
                           **git_commit()}
    t0 = time.perf_counter()
    d = out_dir(Path(out_root), entry_id, quick)
    fig = table = None
    try:
        run = mod.run(quick)
        verdict = mod.check(run)
        rec.update({"verdict": verdict["verdict"], "measured": _plain(verdict.get("measured", {})),
                    "checks": verdict["checks"], "tolerance": verdict.get("tolerance", ""),
                    "parameters": _plain(run.params), "errata": _plain(run.errata), "seeds": run.seeds,
                    "notes": verdict.get("notes", "")})
        if "cause" in verdict:
            rec["cause"] = verdict["cause"]
        if "cause_values" in verdict:
            rec["cause_values"] = _plain(verdict["cause_values"])
        if getattr(mod, "CAUSE", None) is not None:  # the notes are the cause filled from this run
            rec["notes"] = render_cause(mod, rec)
        if write:
            fig = mod.plot(run)
            table = _frames_table(run)
    except NotYetError as e:
        rec.update({"verdict": NOT_YET, "message": str(e)})
    except Exception as e:  # a failing entry is reported, never hides the others
        rec.update({"verdict": "error", "message": f"{type(e).__name__}: {e}",
                    "traceback": traceback.format_exc(limit=8)})
    rec["wall_s"] = time.perf_counter() - t0
    if write:
        def fill(tmp: Path) -> None:
            try:
                if fig is not None:
                    fig.savefig(tmp / "figure.png", dpi=110, bbox_inches="tight")
                    rec["figure"] = "figure.png"  # next to result.json
                if table is not None:
                    table.to_parquet(tmp / "data.parquet", index=False)
            except Exception as e:  # noqa: BLE001 - reported in the record like a failing run
                rec.update({"verdict": "error", "message": f"writing the outputs: {type(e).__name__}: {e}",
                            "traceback": traceback.format_exc(limit=8)})
            (tmp / "result.json").write_text(json.dumps(_plain(rec), indent=2, default=str) + "\n")
        try:
            # the entry directory belongs to the root checked above: its other files are kept (force)
            _outdir.write_dir(d, _outdir.REPRO_ENTRY, fill, force=True)
        finally:
            if fig is not None:
                import matplotlib.pyplot as plt
                plt.close(fig)
    return rec


def _worker(args: tuple[str, bool, str]) -> dict[str, Any]:
    entry_id, quick, root = args
    return run_entry(entry_id, quick=quick, out_root=root, force=True)  # the root was checked by run_many


def run_many(patterns: list[str] | str, *, quick: bool = False, jobs: int = 1, out_root: Path | str = DEFAULT_OUT,
             on_done: Callable[[dict[str, Any]], None] | None = None, skip_not_yet: bool = False,
             force: bool = False) -> list[dict[str, Any]]:
    """Run every entry matching the glob(s), `jobs` at a time; returns the records in catalogue order.
    `out_root` is checked first (`prepare_root`; raises `OutputRefused` unless `force`)."""
    chosen = registry.select(patterns)
    prepare_root(out_root, force=force)
    if skip_not_yet:  # the committed full verdict; an entry without evidence runs (NotYetError says not yet)
        chosen = [e for e in chosen if registry.verdict(e.id) != NOT_YET]
    args = [(e.id, quick, str(out_root)) for e in chosen]
    results: dict[str, dict[str, Any]] = {}
    if jobs <= 1 or len(args) <= 1:
        for a in args:
            r = _worker(a)
            results[a[0]] = r
            if on_done:
                on_done(r)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futs = {pool.submit(_worker, a): a[0] for a in args}
            for f in as_completed(futs):
                r = f.result()
                results[futs[f]] = r
                if on_done:
                    on_done(r)
    return [results[e.id] for e in chosen]


def latest_results(out_root: Path | str = DEFAULT_OUT) -> dict[str, dict[str, dict[str, Any]]]:
    """{id: {"full": record, "quick": record}} from the result.json files under out_root."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    root = Path(out_root)
    if not root.exists():
        return out
    for p in root.rglob("result.json"):
        try:
            rec = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        out.setdefault(rec["id"], {})[rec.get("variant", "full")] = rec
    return out
