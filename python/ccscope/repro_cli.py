"""`ccscope repro`: list / run / all / report for the reproductions of FIGURES.md (ccscope.repro)."""
from __future__ import annotations

from pathlib import Path

import typer

repro_app = typer.Typer(no_args_is_help=True, help="Reproduce the papers' figures: list, run, all, report.")


def _console():
    from rich.console import Console
    return Console()


def _line(rec: dict) -> str:
    v = rec["verdict"]
    color = {"reproduced": "green", "partly": "yellow", "not yet": "dim", "error": "red"}.get(v, "red")
    extra = f" ({rec['message']})" if rec.get("message") else ""
    return f"[{color}]{v:>14}[/] {rec['id']} [{rec['variant']}, {rec.get('wall_s', 0):.1f} s]{extra}"


@repro_app.command("list")
def list_cmd(pattern: str = typer.Argument("*", help="Glob over IDs, e.g. 'dx/*'.")):
    """Every ID with its paper, kind, status and cost."""
    from rich.table import Table

    from ccscope.repro import registry
    try:
        chosen = registry.select(pattern)
    except KeyError as e:
        _console().print(f"[red]error:[/] {e.args[0]}")
        raise typer.Exit(2) from None
    t = Table(show_header=True, title=f"{len(chosen)} reproductions")
    for col in ("ID", "kind", "status", "cost"):
        t.add_column(col)
    for e in chosen:
        m = e.load()
        t.add_row(e.id, m.KIND, m.STATUS, m.COST)
    _console().print(t)


def _run(patterns: list[str], quick: bool, jobs: int, out: Path, skip_not_yet: bool) -> None:
    from ccscope.repro import registry, runner
    con = _console()
    try:
        registry.select(patterns)
    except KeyError as e:
        con.print(f"[red]error:[/] {e.args[0]}")
        raise typer.Exit(2) from None
    recs = runner.run_many(patterns, quick=quick, jobs=jobs, out_root=out, skip_not_yet=skip_not_yet,
                           on_done=lambda r: con.print(_line(r), highlight=False))
    bad = [r for r in recs if r["verdict"] == "error"]
    con.print(f"{sum(r['verdict'] == 'reproduced' for r in recs)}/{len(recs)} reproduced; results under {out}/")
    if bad:
        raise typer.Exit(1)


@repro_app.command("run")
def run_cmd(patterns: list[str] = typer.Argument(..., help="IDs or globs, e.g. 'dctcp-analysis/fig2-*'."),
            quick: bool = typer.Option(False, "--quick", help="Run the quick variants."),
            jobs: int = typer.Option(1, "--jobs", "-j", help="Entries run in parallel (processes)."),
            out: Path = typer.Option(Path("repro-out"), "--out", "-o", help="Output root.")):
    """Run entries; writes <out>/<ID>/{figure.png, data.parquet, result.json} (quick: <out>/<ID>/quick/)."""
    _run(patterns, quick, jobs, out, skip_not_yet=False)


@repro_app.command("all")
def all_cmd(quick: bool = typer.Option(False, "--quick", help="Run the quick variants."),
            jobs: int = typer.Option(1, "--jobs", "-j", help="Entries run in parallel (processes)."),
            out: Path = typer.Option(Path("repro-out"), "--out", "-o", help="Output root."),
            report: bool = typer.Option(True, "--report/--no-report", help="Rebuild docs/REPRODUCTIONS.md afterwards.")):
    """Run every entry that has a mechanism (status other than 'not yet'), then rebuild the report."""
    _run(["*"], quick, jobs, out, skip_not_yet=True)
    if report:
        report_cmd(out=out, docs=Path("docs"))


@repro_app.command("report")
def report_cmd(out: Path = typer.Option(Path("repro-out"), "--out", "-o", help="Output root with result.json files."),
               docs: Path = typer.Option(Path("docs"), "--docs", help="Where REPRODUCTIONS.md and gallery.md go.")):
    """Rebuild docs/REPRODUCTIONS.md and docs/gallery.md from the latest results."""
    from ccscope.repro import report
    paths = report.write(out, docs)
    _console().print("wrote " + ", ".join(str(p) for p in paths))


def register(app: typer.Typer) -> None:
    app.add_typer(repro_app, name="repro")
