"""Run reproduction entries and write `<out>/<ID>/{figure.png, data.parquet, result.json}`
(quick variants under `<out>/<ID>/quick/`). Several entries run in parallel in worker processes
(`concurrent.futures.ProcessPoolExecutor`); each worker imports the entry and runs it alone.
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

from ccscope.repro import registry
from ccscope.repro._base import NOT_YET, NotYetError, Run, _plain

#: Default output root (FIGURES.md / issue 7: repro-out/<paper>/<item>/).
DEFAULT_OUT = Path("repro-out")


def out_dir(root: Path, entry_id: str, quick: bool) -> Path:
    d = Path(root) / entry_id
    return d / "quick" if quick else d


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
              write: bool = True) -> dict[str, Any]:
    """Run one entry (run -> check -> plot) and return its result record (also written as JSON)."""
    from ccscope import __version__
    mod = registry.get(entry_id)
    rec: dict[str, Any] = {"id": entry_id, "title": mod.TITLE, "kind": mod.KIND, "claim": mod.CLAIM,
                           "variant": "quick" if quick else "full", "ccscope_version": __version__}
    t0 = time.perf_counter()
    d = out_dir(Path(out_root), entry_id, quick)
    try:
        run = mod.run(quick)
        verdict = mod.check(run)
        rec.update({"verdict": verdict["verdict"], "measured": _plain(verdict.get("measured", {})),
                    "checks": verdict["checks"], "tolerance": verdict.get("tolerance", ""),
                    "parameters": _plain(run.params), "errata": _plain(run.errata), "seeds": run.seeds,
                    "notes": verdict.get("notes", "")})
        if write:
            d.mkdir(parents=True, exist_ok=True)
            fig = mod.plot(run)
            if fig is not None:
                fig.savefig(d / "figure.png", dpi=110, bbox_inches="tight")
                import matplotlib.pyplot as plt
                plt.close(fig)
                rec["figure"] = str(d / "figure.png")
            table = _frames_table(run)
            if table is not None:
                table.to_parquet(d / "data.parquet", index=False)
    except NotYetError as e:
        rec.update({"verdict": NOT_YET, "message": str(e)})
    except Exception as e:  # a failing entry is reported, never hides the others
        rec.update({"verdict": "error", "message": f"{type(e).__name__}: {e}",
                    "traceback": traceback.format_exc(limit=8)})
    rec["wall_s"] = time.perf_counter() - t0
    if write:
        d.mkdir(parents=True, exist_ok=True)
        (d / "result.json").write_text(json.dumps(_plain(rec), indent=2, default=str) + "\n")
    return rec


def _worker(args: tuple[str, bool, str]) -> dict[str, Any]:
    entry_id, quick, root = args
    return run_entry(entry_id, quick=quick, out_root=root)


def run_many(patterns: list[str] | str, *, quick: bool = False, jobs: int = 1, out_root: Path | str = DEFAULT_OUT,
             on_done: Callable[[dict[str, Any]], None] | None = None, skip_not_yet: bool = False) -> list[dict[str, Any]]:
    """Run every entry matching the glob(s), `jobs` at a time; returns the records in catalogue order."""
    chosen = registry.select(patterns)
    if skip_not_yet:
        chosen = [e for e in chosen if registry.get(e.id).STATUS != NOT_YET]
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
