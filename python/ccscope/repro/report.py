"""Generate docs/REPRODUCTIONS.md and docs/gallery.md from the committed evidence alone
(docs/repro/<ID>/{full,quick}/result.json and full/figure.png; docs/VERDICTS.md §5).

The pages are deterministic: the same evidence (and the same modules' CAUSE templates and
QUICK_NOTEs) gives the same bytes -- no timestamps, catalogue order, fixed float formatting -- and every
link is relative to the docs directory and points at a committed file. One row per FIGURES.md ID:
the claim, the rows that decide the verdict (each strict row's measured value against what was
expected, failed rows first), the verdict of the full result, the commit that produced it and the
evidence. Below: every row that fails, every advisory row with its basis (an independent simulator's
number, or a numbered FIGURES.md known inconsistency), rows inside the noise, and each entry's cause
rendered from its committed record by the module's CAUSE template.

`check_stale` reruns every entry's quick variant at HEAD and lists the entries whose verdict or
measured values differ from the committed quick result (`ccscope repro report --check-stale`).

Output rules (ccscope._outdir, docs/reliability.md): only REPRODUCTIONS.md, gallery.md and the
thumbnails under gallery/ are written, each atomically; an existing REPRODUCTIONS.md or gallery.md
that this command did not generate is refused unless `force`; nothing else in `docs` is touched.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ccscope import _outdir
from ccscope.repro import registry
from ccscope.repro._base import DIAGNOSTIC, CauseError, basis_problem, render_cause

THUMB_DIR = "gallery"
THUMB_WIDTH_PX = 400
THUMB_COLORS = 96
#: Strict rows shown in the table's "deciding rows" cell besides the failed ones.
SHOWN_ROWS = 3
#: Relative and absolute tolerance of `check_stale`'s comparison of measured numbers (a rerun of the
#: same code and seeds is bit-identical on one machine; this absorbs libm differences between machines).
STALE_REL, STALE_ABS = 1e-6, 1e-12


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k} = {_fmt(x)}" for k, x in list(v.items())[:6]) + (", …" if len(v) > 6 else "")
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v[:6]) + (", …" if len(v) > 6 else "") + "]"
    return str(v)


def _md(s: str) -> str:
    """Text safe inside Markdown emphasis and tables (a '*' of W* is not an emphasis mark)."""
    return str(s).replace("*", "\\*")


def _cell(s: str) -> str:
    return _md(s).replace("|", "/").replace("\n", " ")


def _row_text(c: dict[str, Any]) -> str:
    s = f"{c['name']}: {_fmt(c['measured'])} (expected {c['expected']})"
    if c.get("noise"):
        s += f", inside the noise (se {_fmt(c.get('se'))})"
    return s


def deciding_rows(rec: dict[str, Any]) -> str:
    """The table cell: the strict rows (failed first, marked ✗; then up to SHOWN_ROWS passing, ✓)."""
    checks = rec.get("checks") or []
    strict = [c for c in checks if not c.get("advisory")]
    if not strict:
        return _cell(rec.get("message", "") or "no strict row")
    failed = [c for c in strict if not c.get("passed")]
    passed = [c for c in strict if c.get("passed")]
    shown = [f"✗ {_row_text(c)}" for c in failed] + [f"✓ {_row_text(c)}" for c in passed[:SHOWN_ROWS]]
    more = len(passed) - SHOWN_ROWS
    if more > 0:
        shown.append(f"+{more} more passing")
    return _cell("; ".join(shown))


def _commit(rec: dict[str, Any]) -> str:
    c = rec.get("commit") or "unknown"
    return ("`" + c[:10] + "`" if c != "unknown" else "unknown") + (" (dirty)" if rec.get("dirty") else "")


def _basis_text(c: dict[str, Any]) -> str:
    b = c.get("basis")
    if str(c.get("name", "")).startswith(DIAGNOSTIC):
        return "diagnostic"
    if isinstance(b, dict) and b.get("kind") == "independent":
        return (f"advisory: independent simulator {b.get('simulator')} measured {_fmt(b.get('measured'))} "
                f"({b.get('setup')})")
    if isinstance(b, dict) and b.get("kind") == "known_inconsistency":
        title = f" ({b['title']})" if b.get("title") else ""
        return f"advisory: FIGURES.md known inconsistency, {b.get('paper')} item {b.get('item')}{title}"
    return f"advisory WITHOUT an allowed basis ({basis_problem(c) or 'none'})"


def _cause(eid: str, rec: dict[str, Any]) -> str:
    mod = registry.Entry(eid, registry.module_name(eid)).try_load()
    if mod is None or getattr(mod, "CAUSE", None) is None:
        return rec.get("notes", "") or ""
    try:
        return render_cause(mod, rec)
    except CauseError as e:
        return f"(the cause template does not fit the committed record: {e})"


def _thumbnail_bytes(src: Path) -> bytes | None:
    """A small palette PNG of `src` (400 px wide, 96 colours), or None if unreadable."""
    import io

    from PIL import Image
    try:
        with Image.open(src) as im:
            im = im.convert("RGB")
            h = max(1, round(im.height * THUMB_WIDTH_PX / im.width))
            im = im.resize((THUMB_WIDTH_PX, h), Image.Resampling.LANCZOS)
            im = im.quantize(colors=THUMB_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
            buf = io.BytesIO()
            im.save(buf, format="PNG", optimize=True)
    except (OSError, ValueError):
        return None
    return buf.getvalue()


def _thumb_name(eid: str) -> str:
    return eid.replace("/", "__") + ".png"


#: Text every page this module generates carries near its top (how an earlier page is recognised).
GENERATED_SIGN = "ccscope repro report"
#: Bytes read from the top of an existing page to find GENERATED_SIGN.
SIGN_PROBE_BYTES = 2048
PAGES = ("REPRODUCTIONS.md", "gallery.md")


def check_docs(docs: Path | str, *, force: bool = False) -> Path:
    """Check that the report may be written into `docs` (raises `OutputRefused`): a directory (or a new
    path), whose REPRODUCTIONS.md / gallery.md, where present, were generated by this command (or
    `force`), and whose gallery/ is a directory."""
    docs = Path(docs)
    if os.path.lexists(docs) and not docs.is_dir():
        raise _outdir.OutputRefused(docs, "an existing file, not a directory", fix="give a directory")
    for name in PAGES:
        p = docs / name
        if os.path.lexists(p) and not p.is_file():
            raise _outdir.OutputRefused(p, "not a regular file", fix="choose another --docs directory")
        if p.is_file() and not force:
            try:
                with open(p, "rb") as fh:
                    head = fh.read(SIGN_PROBE_BYTES).decode("utf-8", "replace")
            except OSError:
                head = ""
            if GENERATED_SIGN not in head:
                raise _outdir.OutputRefused(p, f"an existing file not generated by `{GENERATED_SIGN}`",
                                            forceable=True, fix="choose another --docs directory",
                                            force_does="to replace it")
    g = docs / THUMB_DIR
    if os.path.lexists(g) and not g.is_dir():
        raise _outdir.OutputRefused(g, "an existing file, not a directory", fix="move it away")
    return docs


def _rel(target: Path, docs: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(target), os.path.abspath(docs))).as_posix()


def render(evidence: Path | str | None = None, docs: Path | str = "docs", *,
           stale: dict[str, str] | None = None) -> dict[str, str]:
    """{page name: text} of REPRODUCTIONS.md and gallery.md for the evidence under `evidence`
    (default registry.evidence_root()), with links relative to `docs`. `stale`: {ID: reason} from
    `check_stale`, marked in the table and listed (nothing is added when it is empty)."""
    ev = Path(evidence) if evidence is not None else registry.evidence_root()
    docs = Path(docs)
    stale = stale or {}
    rows, sections, gallery, not_run, quick_limits = [], [], [], [], []
    counts: dict[str, int] = {}
    commits: dict[str, int] = {}
    cited: dict[tuple[str, int], dict[str, Any]] = {}
    total_wall = 0.0
    for e in registry.entries():
        m = e.try_load()
        if m is not None and getattr(m, "QUICK_SHOWS_CLAIM", True) is False:
            quick_limits.append((e.id, getattr(m, "QUICK_NOTE", "") or "(no QUICK_NOTE given)"))
        rec = registry.committed(e.id, "full", ev)
        quick = registry.committed(e.id, "quick", ev)
        claim = _cell((rec or {}).get("claim") or getattr(m, "CLAIM", "(the module does not import)"))
        kind = (rec or {}).get("kind") or getattr(m, "KIND", "")
        if rec is None:
            not_run.append(e.id)
            counts[registry.NOT_RUN] = counts.get(registry.NOT_RUN, 0) + 1
            rows.append(f"| `{e.id}` | {kind} | {claim} | | {registry.NOT_RUN} | | |")
            continue
        verdict = rec.get("verdict", "error")
        counts[verdict] = counts.get(verdict, 0) + 1
        ckey = _commit(rec)
        commits[ckey] = commits.get(ckey, 0) + 1
        total_wall += float(rec.get("wall_s") or 0.0)
        full_dir = ev / e.id / "full"
        links = [f"[result]({_rel(full_dir / 'result.json', docs)})"]
        if quick is not None:
            links.append(f"[quick]({_rel(ev / e.id / 'quick' / 'result.json', docs)})")
        fig = full_dir / "figure.png"
        if fig.is_file():
            frel = _rel(fig, docs)
            trel = f"{THUMB_DIR}/{_thumb_name(e.id)}"
            links.insert(0, f"[figure]({frel})")
            links.insert(0, f"[thumbnail]({trel})")
            gallery.append((e.id, frel, trel, verdict))
        vcell = verdict + (" (stale)" if e.id in stale else "")
        rows.append(f"| `{e.id}` | {kind} | {claim} | {deciding_rows(rec)} | {vcell} | {_commit(rec)} | "
                    f"{' · '.join(links)} |")
        # the section of this entry: failed rows, advisory rows with their basis, cause, message
        lines = []
        for c in rec.get("checks") or []:
            if not c.get("advisory") and basis_problem(c):
                lines.append(f"- strict ({basis_problem(c)}), {'passes' if c.get('passed') else 'fails'}: "
                             f"**{_md(c['name'])}**: measured {_fmt(c['measured'])}, expected {c['expected']}")
            elif not c.get("advisory"):
                if not c.get("passed"):
                    lines.append(f"- failed{' (inside the noise)' if c.get('noise') else ''}: **{_md(c['name'])}**: "
                                 f"measured {_fmt(c['measured'])}, expected {c['expected']}"
                                 + (f" ({c['tolerance']})" if c.get("tolerance") else "")
                                 + (f"; se {_fmt(c.get('se'))}: the margin is under 2 se" if c.get("noise") else ""))
                continue
            b = c.get("basis")
            if isinstance(b, dict) and b.get("kind") == "known_inconsistency":
                k = (b.get("paper"), b.get("item"))
                cited.setdefault(k, {"title": b.get("title", ""), "rows": []})["rows"].append(
                    f"`{e.id}`: {c['name']}")
            lines.append(f"- {_basis_text(c)}, {'passes' if c.get('passed') else 'fails'}: **{_md(c['name'])}**: "
                         f"measured {_fmt(c['measured'])}, expected {c['expected']}"
                         + (f" ({c['tolerance']})" if c.get("tolerance") else ""))
        cause = _cause(e.id, rec)
        if cause:
            lines.append(f"- cause: {cause}")
        if rec.get("message"):
            lines.append(f"- {rec['message']}")
        if lines:
            sections.append("\n".join([f"### `{e.id}`: {verdict} ({_commit(rec)})", "", *lines]) + "\n")
    n_full = sum(v for k, v in counts.items() if k != registry.NOT_RUN)
    root = registry.repo_root()
    policy = _rel(root / "docs" / "VERDICTS.md", docs) if root is not None else "VERDICTS.md"
    md = ["# Reproductions", "",
          "Generated by `ccscope repro report` from the committed results under `docs/repro/` (each entry's full "
          "and quick `result.json` and the full run's figure); do not edit by hand. The policy is "
          f"[docs/VERDICTS.md]({policy}): an entry's verdict is its committed full run's; advisory rows never "
          "decide it and each names its basis; a row decided by less than two standard errors is inside the noise "
          "and fails. `ccscope repro report --check-stale` reruns every quick variant at HEAD and flags results "
          "that no longer match.", "",
          "## Counts", "", "| verdict (full run) | entries |", "| --- | --- |"]
    md += [f"| {k} | {v} |" for k, v in sorted(counts.items())]
    md += ["", f"{n_full} entries have a committed full result; wall time of those runs: {total_wall:.0f} s.", ""]
    if commits:
        md += ["Commits that produced them: " + ", ".join(
            f"{k} ({v})" for k, v in sorted(commits.items(), key=lambda kv: (-kv[1], kv[0]))) + ".", ""]
    if stale:
        md += ["## Stale results", "",
               f"{len(stale)} committed results no longer match their quick variant rerun at HEAD:", ""]
        md += [f"- `{k}`: {_cell(stale[k])}" for k in sorted(stale)]
        md += [""]
    md += ["## Table", "",
           "Deciding rows: each strict row, measured against what the paper (or FIGURES.md) expects; ✗ fails, "
           "✓ passes.", "",
           "| ID | kind | claim | deciding rows | verdict | commit | evidence |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    md += rows
    md += ["", "## Failed rows, advisory rows and causes", "",
           "Per entry: every strict row that fails (inside the noise when the margin is under two standard "
           "errors), every advisory row with its basis, and the cause, filled from the committed result by the "
           "module's `CAUSE` template.", ""]
    md += sections or ["None recorded.\n"]
    md += ["## Known inconsistencies cited", "",
           "Advisory rows resting on an item of FIGURES.md's *Known inconsistencies*.", ""]
    if cited:
        md += ["| paper | item | inconsistency | rows |", "| --- | --- | --- | --- |"]
        md += [f"| {p} | {i} | {_cell(cited[(p, i)]['title'])} | {'; '.join(cited[(p, i)]['rows'])} |"
               for p, i in sorted(cited, key=lambda k: (str(k[0]), int(k[1] or 0)))]
    else:
        md += ["None."]
    md += ["", "## Quick variants that cannot show the claim", "",
           "CI reruns the quick variant of every reproduced entry and compares its verdict with the committed quick "
           "result; for these entries the quick window cannot show the claim (the module's `QUICK_NOTE`).", ""]
    md += [f"- `{eid}`: {_cell(note)}" for eid, note in quick_limits] or ["None."]
    md += ["", "## Not run", ""]
    md += [(f"{len(not_run)} entries have no committed full result: " + ", ".join(f"`{x}`" for x in not_run) + ".")
           if not_run else "None: every entry has a committed full result."]
    md += [""]
    g = ["# Gallery", "",
         f"Generated by `{GENERATED_SIGN}`: thumbnails (in `docs/{THUMB_DIR}/`) of the committed full-run figures; "
         "each links to the figure under `docs/repro/`.", ""]
    for eid, frel, trel, verdict in gallery:
        g.append(f"<a href=\"{frel}\"><img src=\"{trel}\" width=\"260\" title=\"{eid}: {verdict}\" alt=\"{eid}\"></a>")
    g += ["", "| ID | verdict |", "| --- | --- |"] + [f"| [`{eid}`]({frel}) | {v} |" for eid, frel, _t, v in gallery]
    return {"REPRODUCTIONS.md": "\n".join(md), "gallery.md": "\n".join(g) + "\n"}


def write(evidence: Path | str | None, docs: Path | str, *, force: bool = False,
          stale: dict[str, str] | None = None) -> list[Path]:
    """Write docs/REPRODUCTIONS.md, docs/gallery.md and the thumbnails of the committed figures (an entry's
    thumbnail is removed when it has no committed figure; see `check_docs` for what is refused); returns the
    two pages."""
    ev = Path(evidence) if evidence is not None else registry.evidence_root()
    docs = Path(docs)
    check_docs(docs, force=force)
    docs.mkdir(parents=True, exist_ok=True)
    pages = render(ev, docs, stale=stale)
    for e in registry.entries():
        fig = ev / e.id / "full" / "figure.png"
        if not fig.is_file():  # a thumbnail of a figure no longer committed would be a stale file
            old = docs / THUMB_DIR / _thumb_name(e.id)
            if old.is_file():
                old.unlink()
            continue
        data = _thumbnail_bytes(fig)
        dst = docs / THUMB_DIR / _thumb_name(e.id)
        if data is not None and not (dst.is_file() and dst.read_bytes() == data):
            with _outdir.atomic_file(dst) as tmp:
                tmp.write_bytes(data)
    out = []
    for name in PAGES:
        p = docs / name
        if not (p.is_file() and p.read_text(encoding="utf-8") == pages[name]):
            with _outdir.atomic_file(p) as tmp:
                tmp.write_text(pages[name], encoding="utf-8")
        out.append(p)
    return out


# --- staleness ---------------------------------------------------------------------------------

def _close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=STALE_REL, abs_tol=STALE_ABS)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


def difference(committed: dict[str, Any], rerun: dict[str, Any]) -> str | None:
    """Why a rerun of the quick variant does not match its committed quick result (None: it does):
    the verdict, the `measured` values or a row's measured value or pass/fail."""
    if committed.get("verdict") != rerun.get("verdict"):
        return f"verdict {committed.get('verdict')} committed, {rerun.get('verdict')} at HEAD"
    if not _close(committed.get("measured"), rerun.get("measured")):
        keys = sorted(set(committed.get("measured") or {}) | set(rerun.get("measured") or {}))
        diff = [k for k in keys if not _close((committed.get("measured") or {}).get(k),
                                              (rerun.get("measured") or {}).get(k))]
        return "measured values differ: " + ", ".join(diff[:6])
    a = {c["name"]: c for c in committed.get("checks") or []}
    b = {c["name"]: c for c in rerun.get("checks") or []}
    if a.keys() != b.keys():
        return "the rows differ: " + ", ".join(sorted(set(a) ^ set(b))[:6])
    for k in a:
        if a[k].get("passed") != b[k].get("passed") or not _close(a[k].get("measured"), b[k].get("measured")):
            return f"row {k!r}: {_fmt(a[k].get('measured'))} committed, {_fmt(b[k].get('measured'))} at HEAD"
    return None


def _rerun_quick(entry_id: str) -> dict[str, Any]:
    from ccscope.repro.runner import run_entry
    return run_entry(entry_id, quick=True, write=False)


def check_stale(evidence: Path | str | None = None, *, patterns: list[str] | str = "*", jobs: int = 1,
                on_done: Callable[[str, str | None], None] | None = None) -> dict[str, str]:
    """{ID: reason} of the entries with a committed full result whose quick variant, rerun at HEAD,
    differs from the committed quick result (or that have no committed quick result)."""
    ev = Path(evidence) if evidence is not None else registry.evidence_root()
    todo, out = [], {}
    for e in registry.select(patterns):
        if registry.committed(e.id, "full", ev) is None:
            continue
        if registry.committed(e.id, "quick", ev) is None:
            out[e.id] = "no committed quick result"
            if on_done:
                on_done(e.id, out[e.id])
            continue
        todo.append(e.id)

    def done(eid: str, rec: dict[str, Any]) -> None:
        why = difference(registry.committed(eid, "quick", ev) or {}, rec)
        if why:
            out[eid] = why
        if on_done:
            on_done(eid, why)

    if jobs <= 1 or len(todo) <= 1:
        for eid in todo:
            done(eid, _rerun_quick(eid))
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futs = {pool.submit(_rerun_quick, eid): eid for eid in todo}
            for f in as_completed(futs):
                done(futs[f], f.result())
    return dict(sorted(out.items()))
