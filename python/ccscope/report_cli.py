"""`ccscope report OUT`: one self-contained report.html for a run or a sweep (ccscope.report_html)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def report_cmd(out: Path = typer.Argument(..., help="A directory written by `ccscope run --out` or `ccscope sweep "
                                          "--out`.", metavar="OUT"),
               output: Optional[Path] = typer.Option(None, "-o", "--output", help="The page to write (default: "
                                                     "OUT/report.html); missing folders are created; an existing "
                                                     "report is replaced, any other file only with --force."),
               force: bool = typer.Option(False, "--force", help="Replace an existing -o file that is not a report.")):
    """Write one self-contained HTML page for a run or a sweep: summary, scenario, tables and every
    recorded trace (or every metric of a sweep) as a zoomable plot that works offline.

    ccscope report k20/  ->  k20/report.html"""
    from ccscope import _outdir
    from ccscope.cli import _console, fail
    from ccscope.report_html import ReportError, write_report
    try:
        with _outdir.sigterm_as_exit():
            path = write_report(out, output, force=force)
    except ReportError as e:
        fail(str(e))
    except _outdir.OutputRefused as e:
        fail(e.cli("-o"))
    except OSError as e:
        fail(f"-o {str(output or out / 'report.html')!r}: cannot write the report ({e.strerror or e})")
    _console(False).print(f"wrote {path}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("report")(report_cmd)
