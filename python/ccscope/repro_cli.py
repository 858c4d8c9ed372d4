"""`ccscope repro`: list / run / all / promote / report for the reproductions of FIGURES.md (ccscope.repro).

The verdict `list` and `report` show is the committed one (docs/repro/<ID>/full/result.json,
docs/VERDICTS.md §5): `run`/`all` write results under --out, `promote` copies them into docs/repro,
`report` rebuilds docs/REPRODUCTIONS.md from docs/repro alone."""
from __future__ import annotations

from pathlib import Path

import typer

repro_app = typer.Typer(no_args_is_help=True,
                        help="Reproduce the papers' figures: list, run, all, promote, report, site.")


def _console():
    from rich.console import Console
    return Console()


def _line(rec: dict) -> str:
    v = rec["verdict"]
    color = {"reproduced": "green", "partly": "yellow", "not yet": "dim", "error": "red"}.get(v, "red")
    extra = f" ({rec['message']})" if rec.get("message") else ""
    from rich.markup import escape  # "[quick, 1.2 s]" is text, not a style tag
    return f"[{color}]{v:>14}[/] {escape(rec['id'])} \\[{rec['variant']}, {rec.get('wall_s', 0):.1f} s]{escape(extra)}"


#: Characters of a claim printed by `repro run` under the verdict line.
CLAIM_CHARS = 200
#: Passing strict rows printed under a verdict (failed rows are all printed).
PASSING_ROWS = 3


def claim_lines(rec: dict, where: str = "result.json") -> list[str]:
    """What `repro run` prints under an entry's verdict: the claim, then each strict row's measured value
    against what was expected (failed rows first, marked ✗; then up to PASSING_ROWS passing, ✓)."""
    from rich.markup import escape

    from ccscope.repro.report import _row_text
    out = []
    claim = " ".join(str(rec.get("claim") or "").split())
    if claim:
        cut = claim if len(claim) <= CLAIM_CHARS else claim[:CLAIM_CHARS - 3].rstrip() + "..."
        out.append(f"{'':>15}claim: {escape(cut)}")
    checks = [c for c in rec.get("checks") or [] if isinstance(c, dict) and "name" in c]
    strict = [c for c in checks if not c.get("advisory")]
    failed = [c for c in strict if not c.get("passed")]
    passed = [c for c in strict if c.get("passed")]
    for c in failed:
        out.append(f"{'':>15}[red]✗[/] measured {escape(_row_text(c))}")
    for c in passed[:PASSING_ROWS]:
        out.append(f"{'':>15}[green]✓[/] measured {escape(_row_text(c))}")
    rest = len(passed) - PASSING_ROWS
    advisory = len(checks) - len(strict)
    more = ([f"{rest} more passing"] if rest > 0 else []) + ([f"{advisory} advisory"] if advisory else [])
    if more:
        out.append(f"{'':>15}(+{', '.join(more)} rows: {escape(where)})")
    return out


#: Seconds an entry runs before `repro run` prints that it is still running (then again every as long).
PROGRESS_EVERY_S = 15.0


class _Progress:
    """A line on stderr every PROGRESS_EVERY_S while entries are running: which one (with one job at a time, in
    catalogue order), for how long, and how many are done."""

    def __init__(self, ids: list[str], jobs: int):
        import threading
        import time
        self.ids, self.jobs, self.done = ids, max(1, jobs), set()
        self.since = time.monotonic()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def finished(self, eid: str) -> None:
        import time
        self.done.add(eid)
        self.since = time.monotonic()

    def _loop(self) -> None:
        import time

        from rich.console import Console
        err = Console(stderr=True)
        while not self.stop.wait(PROGRESS_EVERY_S):
            running = [i for i in self.ids if i not in self.done][:self.jobs]
            if not running:
                continue
            waited = time.monotonic() - self.since
            what = running[0] if self.jobs == 1 else f"{len(running)} entries ({', '.join(running[:3])}" + \
                (", ..." if len(running) > 3 else "") + ")"
            err.print(f"[dim]{'...':>14} {what} still running ({waited:.0f} s); {len(self.done)}/{len(self.ids)} "
                      "done[/]", highlight=False, soft_wrap=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=1)
        return False


@repro_app.command("list")
def list_cmd(pattern: str = typer.Argument("*", help="Glob over IDs, e.g. 'dx/*'."),
             quick_limits: bool = typer.Option(False, "--quick-limits", help="List the entries whose quick variant "
                                               "cannot show the claim (QUICK_SHOWS_CLAIM = False) and why."),
             plain: bool = typer.Option(False, "--plain", help="One tab-separated line per entry: ID, verdict, "
                                        "commit (for scripts).")):
    """Every ID with its kind, committed verdict (docs/repro/<ID>/full), the commit that produced it, and cost."""
    from rich.table import Table

    from ccscope.repro import registry
    try:
        chosen = registry.select(pattern)
    except KeyError as e:
        _console().print(f"[red]error:[/] {e.args[0]}")
        raise typer.Exit(2) from None
    if plain:
        for e in chosen:
            rec = registry.committed(e.id, "full") or {}
            typer.echo(f"{e.id}\t{registry.verdict(e.id)}\t{rec.get('commit', '')}")
        return
    if quick_limits:
        t = Table(show_header=True, title="quick variants that cannot show the claim")
        for col in ("ID", "quick note"):
            t.add_column(col)
        n = 0
        for e in chosen:
            m = e.try_load()
            if m is not None and getattr(m, "QUICK_SHOWS_CLAIM", True) is False:
                t.add_row(e.id, getattr(m, "QUICK_NOTE", "") or "(no QUICK_NOTE)")
                n += 1
        t.title = f"{n} quick variants that cannot show the claim"
        _console().print(t)
        return
    t = Table(show_header=True, title=f"{len(chosen)} reproductions (verdict: committed full result)")
    for col in ("ID", "kind", "verdict", "commit", "cost"):
        t.add_column(col)
    for e in chosen:
        m = e.try_load()
        rec = registry.committed(e.id, "full") or {}
        commit = rec.get("commit", "")
        commit = (commit[:10] if commit != "unknown" else commit) + (" (dirty)" if rec.get("dirty") else "")
        if m is None:
            t.add_row(e.id, "", registry.verdict(e.id), commit, "module does not import: "
                      + registry.IMPORT_ERRORS.get(e.module, ""))
        else:
            t.add_row(e.id, m.KIND, registry.verdict(e.id), commit, m.COST)
    _console().print(t)


def _refused(e, flag: str) -> None:
    from ccscope.cli import fail
    fail(e.cli(flag))


#: --force of `repro run` / `repro all`.
FORCE_HELP = ("Write into a non-empty --out directory that is not a reproduction output, and replace a "
              "REPRODUCTIONS.md/gallery.md not generated by `repro report` (other files are kept).")


def _run(patterns: list[str], quick: bool, jobs: int, out: Path, skip_not_yet: bool, force: bool = False) -> None:
    from ccscope import _outdir
    from ccscope.repro import registry, runner
    con = _console()
    try:
        chosen = registry.select(patterns)
    except KeyError as e:
        con.print(f"[red]error:[/] {e.args[0]}")
        raise typer.Exit(2) from None
    ids = [e.id for e in chosen if not skip_not_yet or registry.verdict(e.id) != runner.NOT_YET]

    def done(r: dict) -> None:
        progress.finished(r["id"])
        con.print(_line(r), highlight=False, soft_wrap=True)
        where = out / r["id"] / ("quick" if r.get("variant") == "quick" else "") / "result.json"
        for line in claim_lines(r, str(where)):
            con.print(line, highlight=False, soft_wrap=True)
    try:
        with _outdir.sigterm_as_exit(), _Progress(ids, jobs) as progress:
            recs = runner.run_many(patterns, quick=quick, jobs=jobs, out_root=out, skip_not_yet=skip_not_yet,
                                   on_done=done, force=force)
    except _outdir.OutputRefused as e:
        _refused(e, "--out")
    bad = [r for r in recs if r["verdict"] == "error"]
    con.print(f"{sum(r['verdict'] == 'reproduced' for r in recs)}/{len(recs)} reproduced; results under {out}/")
    if bad:
        raise typer.Exit(1)


@repro_app.command("run")
def run_cmd(patterns: list[str] = typer.Argument(..., help="IDs or globs, e.g. 'dctcp-analysis/fig2-*'."),
            quick: bool = typer.Option(False, "--quick", help="Run the quick variants."),
            jobs: int = typer.Option(1, "--jobs", "-j", help="Entries run in parallel (processes)."),
            out: Path = typer.Option(Path("repro-out"), "--out", "-o", help="Output root (new, empty or a previous "
                                     "reproduction output; only each entry's own files are replaced)."),
            force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Run entries; writes <out>/<ID>/{figure.png, data.parquet, result.json} (quick: <out>/<ID>/quick/)."""
    _run(patterns, quick, jobs, out, skip_not_yet=False, force=force)


@repro_app.command("all")
def all_cmd(quick: bool = typer.Option(False, "--quick", help="Run the quick variants."),
            jobs: int = typer.Option(1, "--jobs", "-j", help="Entries run in parallel (processes)."),
            out: Path = typer.Option(Path("repro-out"), "--out", "-o", help="Output root."),
            force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Run every entry (those whose committed verdict is 'not yet' are skipped) under --out. The report is
    built from the committed evidence: `ccscope repro promote OUT` then `ccscope repro report`."""
    _run(["*"], quick, jobs, out, skip_not_yet=True, force=force)


@repro_app.command("promote")
def promote_cmd(out: Path = typer.Argument(..., help="Reproduction output root holding full and quick results "
                                           "(`repro all --out OUT` and `repro all --quick --out OUT`)."),
                to: Path = typer.Option(None, "--to", help="Evidence root (default: the repository's docs/repro)."),
                pattern: list[str] = typer.Option(["*"], "--only", help="Promote only these IDs or globs."),
                allow_dirty: bool = typer.Option(False, "--allow-dirty", help="Promote results produced from a "
                                                 "working tree with uncommitted changes (marked dirty in the report).")):
    """Copy each entry's full result.json and figure (reduced) and quick result.json into docs/repro/<ID>/."""
    from ccscope import _outdir
    from ccscope.repro import evidence, registry
    con = _console()
    try:
        res = evidence.promote(out, to, patterns=pattern, allow_dirty=allow_dirty)
    except (ValueError, FileNotFoundError) as e:
        con.print(f"[red]error:[/] {e}", highlight=False)
        raise typer.Exit(2) from None
    except KeyError as e:
        con.print(f"[red]error:[/] {e.args[0]}")
        raise typer.Exit(2) from None
    except _outdir.OutputRefused as e:
        _refused(e, "--to")
    dest = to if to is not None else registry.evidence_root()
    con.print(f"promoted {len(res.written['full'])} full and {len(res.written['quick'])} quick results into {dest} "
              f"({res.size_bytes / 2**20:.1f} MiB)", highlight=False)
    for v in registry.VARIANTS:
        if res.missing[v]:
            shown = ", ".join(res.missing[v][:8]) + (", ..." if len(res.missing[v]) > 8 else "")
            con.print(f"[yellow]no {v} result[/] for {len(res.missing[v])} entries: {shown}", highlight=False)
    for w in res.warnings:
        con.print(f"[yellow]warning:[/] {w}", highlight=False)


@repro_app.command("report")
def report_cmd(evidence: Path = typer.Option(None, "--evidence", "--out", "-o", help="Committed evidence root "
                                             "(default: the repository's docs/repro)."),
               docs: Path = typer.Option(Path("docs"), "--docs", help="Where REPRODUCTIONS.md and gallery.md go."),
               force: bool = typer.Option(False, "--force", help="Replace a REPRODUCTIONS.md/gallery.md in --docs that "
                                          "`repro report` did not generate."),
               check_stale: bool = typer.Option(False, "--check-stale", help="Rerun every entry's quick variant at "
                                                "HEAD; flag (and exit 1 on) those that differ from the committed quick "
                                                "result."),
               jobs: int = typer.Option(1, "--jobs", "-j", help="Quick reruns in parallel (with --check-stale).")):
    """Rebuild docs/REPRODUCTIONS.md and docs/gallery.md from the committed results (docs/repro)."""
    from ccscope import _outdir
    from ccscope.repro import report
    con = _console()
    try:
        report.check_docs(docs, force=force)
    except _outdir.OutputRefused as e:
        _refused(e, "--docs")
    stale = None
    if check_stale:
        def said(eid: str, why: str | None) -> None:
            con.print(f"[red]{'stale':>7}[/] {eid}: {why}" if why else f"[green]{'same':>7}[/] {eid}", highlight=False)
        with _outdir.sigterm_as_exit():
            stale = report.check_stale(evidence, jobs=jobs, on_done=said)
    try:
        paths = report.write(evidence, docs, force=force, stale=stale)
    except _outdir.OutputRefused as e:
        _refused(e, "--docs")
    con.print("wrote " + ", ".join(str(p) for p in paths))
    if stale:
        con.print(f"[red]{len(stale)} stale results[/]: " + ", ".join(stale))
        raise typer.Exit(1)


@repro_app.command("site")
def site_cmd(out: Path = typer.Option(Path("repro-site"), "--out", "-o", help="Directory of the site (index.html, "
                                      "entries/, figures/); missing folders are created."),
             evidence: Path = typer.Option(None, "--evidence", help="Committed evidence root (default: the "
                                           "repository's docs/repro)."),
             force: bool = typer.Option(False, "--force", help="Write into a non-empty --out directory that holds no "
                                        "site written by `repro site` (other files are kept).")):
    """Build a static HTML site of every reproduction from the committed evidence (docs/repro): claim, measured
    against expected, verdict, figure and cause; open OUT/index.html."""
    from ccscope import _outdir
    from ccscope.cli import fail
    from ccscope.report_html import write_site
    if evidence is not None and not evidence.is_dir():
        fail(f"--evidence {str(evidence)!r}: not a directory (give the evidence root, e.g. docs/repro)")
    try:
        with _outdir.sigterm_as_exit():
            index = write_site(out, evidence, force=force)
    except _outdir.OutputRefused as e:
        _refused(e, "--out")
    except OSError as e:
        fail(f"--out {str(out)!r}: cannot write the site ({e.strerror or e})")
    _console().print(f"wrote {index}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(repro_app, name="repro")
