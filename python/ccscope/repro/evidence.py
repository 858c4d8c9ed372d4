"""Committed evidence of the reproductions (docs/VERDICTS.md §5): `docs/repro/<ID>/full/{result.json,
figure.png}` and `docs/repro/<ID>/quick/result.json`, promoted from a reproduction output root
(`ccscope repro run/all --out ROOT`, full and quick variants) by `ccscope repro promote ROOT`.

The full run's figure is re-encoded smaller (at most FIGURE_MAX_WIDTH_PX wide, a FIGURE_COLORS-colour
palette, no dithering: deterministic for a given Pillow), so the whole docs/repro stays within a few
MB (BUDGET_BYTES is the ceiling `promote` warns about). result.json is copied byte for byte.
Each variant directory is written atomically (ccscope._outdir.write_dir, as the runner does): a
promotion interrupted half-way leaves every entry either as it was or complete.

Selection, `repro list` and the report read these files through `registry.committed`.
"""
from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccscope import _outdir
from ccscope.repro import registry

#: One variant directory of the evidence: docs/repro/<ID>/<variant>/.
EVIDENCE_ENTRY = _outdir.Kind("ccscope reproduction evidence", ("result.json",),
                              frozenset({"result.json", "figure.png"}))
#: Largest width of a committed figure (the runner's figures are ~700-1500 px at 110 dpi).
FIGURE_MAX_WIDTH_PX = 1000
#: Palette size of a committed figure (line plots: no visible loss).
FIGURE_COLORS = 256
#: The size docs/repro should stay under (the issue's budget); `promote` warns above it.
BUDGET_BYTES = 25 * 1024 * 1024


def reduce_figure(data: bytes) -> bytes:
    """A PNG at most FIGURE_MAX_WIDTH_PX wide, palette-encoded, deterministic for the same input."""
    from PIL import Image
    with Image.open(io.BytesIO(data)) as im:
        im = im.convert("RGB")
        if im.width > FIGURE_MAX_WIDTH_PX:
            h = max(1, round(im.height * FIGURE_MAX_WIDTH_PX / im.width))
            im = im.resize((FIGURE_MAX_WIDTH_PX, h), Image.Resampling.LANCZOS)
        im = im.quantize(colors=FIGURE_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        buf = io.BytesIO()
        im.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


@dataclass
class Promotion:
    """What `promote` did: entries written per variant, entries with no result, and warnings."""
    written: dict[str, list[str]] = field(default_factory=lambda: {"full": [], "quick": []})
    missing: dict[str, list[str]] = field(default_factory=lambda: {"full": [], "quick": []})
    warnings: list[str] = field(default_factory=list)
    size_bytes: int = 0


def _read(p: Path) -> dict[str, Any] | None:
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def source_paths(out_root: Path | str, entry_id: str, variant: str) -> Path:
    """Where `ccscope repro run --out out_root` wrote this entry's variant."""
    d = Path(out_root) / entry_id
    return d / "quick" if variant == "quick" else d


def promote(out_root: Path | str, to: Path | str | None = None, *, patterns: list[str] | str = "*",
            allow_dirty: bool = False) -> Promotion:
    """Copy each selected entry's full result.json (+ reduced figure.png) and quick result.json from
    `out_root` into `to` (default: registry.evidence_root(), i.e. docs/repro). Refuses (ValueError,
    before writing anything) a result produced from a working tree with uncommitted changes unless
    `allow_dirty`, and a result whose id or variant does not match its place."""
    out_root = Path(out_root)
    to = Path(to) if to is not None else registry.evidence_root()
    if not out_root.is_dir():
        raise FileNotFoundError(f"{out_root}: no reproduction output here (run `ccscope repro all --out {out_root}`)")
    chosen = registry.select(patterns)
    res = Promotion()
    plan: list[tuple[str, str, dict[str, Any], bytes, bytes | None]] = []
    problems = []
    for e in chosen:
        for variant in registry.VARIANTS:
            src = source_paths(out_root, e.id, variant)
            raw = (src / "result.json").read_bytes() if (src / "result.json").is_file() else None
            if raw is None:
                res.missing[variant].append(e.id)
                continue
            rec = json.loads(raw)
            if rec.get("id") != e.id or rec.get("variant") != variant:
                problems.append(f"{src / 'result.json'}: id {rec.get('id')!r} / variant {rec.get('variant')!r} "
                                f"does not match {e.id} / {variant}")
                continue
            if rec.get("dirty") and not allow_dirty:
                problems.append(f"{e.id} ({variant}) was produced from a working tree with uncommitted changes "
                                f"(commit {rec.get('commit')}, dirty): commit first and rerun, or allow_dirty")
                continue
            if rec.get("commit", "unknown") == "unknown":
                res.warnings.append(f"{e.id} ({variant}): produced outside a git checkout (commit unknown)")
            fig = None
            if variant == "full" and (src / "figure.png").is_file():
                fig = reduce_figure((src / "figure.png").read_bytes())
            plan.append((e.id, variant, rec, raw, fig))
    if problems:
        raise ValueError("nothing promoted:\n  " + "\n  ".join(problems))
    commits = sorted({(r.get("commit"), bool(r.get("dirty"))) for _i, _v, r, _b, _f in plan}, key=str)
    if len(commits) > 1:
        res.warnings.append("the promoted results come from several commits: "
                            + ", ".join(f"{c}{' (dirty)' if d else ''}" for c, d in commits))
    for eid, variant, rec, raw, fig in plan:
        def fill(tmp: Path, raw=raw, fig=fig) -> None:
            if fig is not None:
                (tmp / "figure.png").write_bytes(fig)
            (tmp / "result.json").write_bytes(raw)
        # the variant directory is ours (marker result.json); a figure left from an earlier promotion
        # without one is replaced by the swap
        _outdir.write_dir(to / eid / variant, EVIDENCE_ENTRY, fill, force=True)
        res.written[variant].append(eid)
        if variant == "full" and rec.get("verdict") == "reproduced" and eid in res.missing["quick"]:
            res.warnings.append(f"{eid}: reproduced, but no quick result to commit beside it (CI compares it)")
    errors = sorted({eid for eid, _v, rec, _b, _f in plan if rec.get("verdict") == "error"})
    if errors:
        res.warnings.append(f"{len(errors)} promoted results are errors (see their message): " + ", ".join(errors))
    res.size_bytes = tree_size(to)
    if res.size_bytes > BUDGET_BYTES:
        res.warnings.append(f"{to} holds {res.size_bytes / 2**20:.1f} MiB, above the {BUDGET_BYTES / 2**20:.0f} MiB "
                            "budget")
    return res


def tree_size(root: Path | str) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            total += os.path.getsize(os.path.join(dirpath, f))
    return total
