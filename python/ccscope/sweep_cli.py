"""`ccscope sweep`: run a scenario over a grid of overrides, locally or on Dask (see ccscope.sweep).

    ccscope sweep scenarios/dctcp_dumbbell.toml --grid flows.count=2,10,100 --grid aqm.k_pkts=20,65 \\
        --until 100ms --out sweep-out/ [--jobs N | --dask-local N | --scheduler tcp://host:8786] [--seeds 3]
    ccscope sweep --fluid dctcp_normalized --grid wbar=10,20,40 --grid g=0.0625 --out fluid-out/
    ccscope sweep --verify sweep-out/

Writes OUT/summary.parquet (one row per point) and OUT/points/<address>/ (one result directory per
point); Ctrl-C or SIGTERM stops a sweep within a fraction of a second, keeps the finished points
and exits 130; a rerun skips finished points whose files still match the sizes and sha256 hashes their
point.json recorded, and recomputes (and names) the others. OUT must be new, empty or a previous
sweep output (--force writes into another directory, keeping its files). Exit status 0 when every
point ran, 1 when some failed (each is listed with its parameters), 2 on bad input. `--verify OUT`
checks every point of OUT and lists the damaged ones: exit status 0 when all match, 1 otherwise.

Files the sweep file names (`[sweep] base = "..."`, CDF data files, also ones a --set names) are
read in the data-file sandbox: relative to the file naming them and staying under its directory,
regular files under the size limit only; absolute paths and '..' need --allow-path DIR.
"""
from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add the `sweep` command to the main app."""
    from ccscope.cli import ALLOW_PATH_HELP

    @app.command("sweep")
    def sweep_cmd(
        scenario: Path | None = typer.Argument(None, help="Base scenario file (.toml/.json), optionally with a "
                                                             "\\[sweep] table (grid, seeds, until_s, record, fluid)."),
        grid: list[str] = typer.Option([], "--grid", "-g", help="PATH=V1,V2,... values of one field (repeatable; "
                                                                "the grid is their Cartesian product)."),
        until: str | None = typer.Option(None, "--until", help="Simulated time per point, e.g. 100ms."),
        out: Path = typer.Option(Path("sweep-out"), "--out", "-o", help="Output directory (summary.parquet, points/)."),
        jobs: int | None = typer.Option(None, "--jobs", "-j", help="Parallel local runs (default: CPUs available)."),
        dask_local: int | None = typer.Option(None, "--dask-local", help="Run on a local Dask cluster of N worker "
                                                                           "processes (127.0.0.1)."),
        scheduler: str | None = typer.Option(None, "--scheduler", help="Run on a Dask cluster, e.g. tcp://host:8786 "
                                                                         "(OUT must be on a filesystem the workers share)."),
        design: str = typer.Option("grid", "--design", help="grid (Cartesian product), zip (i-th values together) "
                                   "or random (--samples points drawn from the grid)."),
        samples: int | None = typer.Option(None, "--samples", help="Points of a random design."),
        seeds: int | None = typer.Option(None, "--seeds", help="Replicates per grid point (derived seeds; default 1)."),
        set_: list[str] = typer.Option([], "--set", help="Override a base field: PATH=VALUE (repeatable)."),
        record: str | None = typer.Option(None, "--record", help="Traces to keep per point, comma-separated "
                                                                    "(e.g. queue,link); default: the scenario's."),
        fluid: str | None = typer.Option(None, "--fluid", help="Sweep a fluid model instead (dctcp_normalized, "
                                                                  "dctcp, dctcp_poincare, dx, qcn)."),
        backend: str | None = typer.Option(None, "--backend", help="Fluid sweeps: numpy or jax (default: jax "
                                                                      "when installed)."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Run every point again, even finished ones."),
        force: bool = typer.Option(False, "--force", help="Write into a non-empty --out directory that is not a "
                                                          "sweep output (every other file in it is kept)."),
        verify: Path | None = typer.Option(None, "--verify", help="Check the sweep directory OUT: every point's "
                                           "files against the sha256 hashes in its point.json; lists damaged points, "
                                           "exit status 1 if any.", metavar="OUT"),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no table."),
        allow_path: list[Path] = typer.Option([], "--allow-path", help=ALLOW_PATH_HELP),
    ) -> None:
        """Run a scenario (or a fluid model) over a grid of parameter values; one Parquet summary table."""
        from rich.markup import escape

        from ccscope import _outdir
        from ccscope import sweep as sw
        from ccscope.cli import _sigterm_as_interrupt, _until, err_console, fail
        from ccscope.errors import ScenarioError

        if verify is not None:
            _verify(verify, quiet)
            return

        if sum(x is not None for x in (jobs, dask_local, scheduler)) > 1:
            fail("give at most one of --jobs, --dask-local and --scheduler")
        for name, v in (("--jobs", jobs), ("--dask-local", dask_local), ("--seeds", seeds)):
            if v is not None and v < 1:
                fail(f"{name} {v}: must be >= 1")
        try:
            spec = (sw.load_sweep_file(scenario, allow_paths=allow_path) if scenario is not None
                    else sw.SweepSpec(base={}, grid={}))
            from ccscope.scenario.io import _resolve_cdf_files, apply_set
            for s in set_:
                apply_set(spec.base, s)
            if set_ and scenario is not None:  # a data file a --set names: relative to the file, sandboxed
                _resolve_cdf_files(spec.base, scenario.resolve().parent, allow_path)
            for g in grid:
                path, values = sw.parse_grid_option(g)
                spec.grid[path] = values
        except ScenarioError as e:
            fail(str(e))
        model = fluid or spec.fluid
        until_s = _until(until) if until is not None else spec.until_s
        if not spec.grid:
            fail("no grid: give --grid PATH=V1,V2,... (or a [sweep.grid] table in the file)")

        if model is not None:
            if scheduler is not None or dask_local is not None or jobs is not None:
                err_console.print("note: a fluid sweep runs as one vectorized batch here; --jobs/--dask-local/"
                                  "--scheduler are not used")
            opts = dict(spec.options)
            if until_s is not None and model == "dctcp":
                opts["until_s"] = until_s
            try:
                with _outdir.sigterm_as_exit():
                    df = sw.fluid_sweep(model, spec.grid, out=out, backend=backend, cache=not no_cache, force=force,
                                        on_notice=lambda line: err_console.print(f"[yellow]note:[/] {escape(line)}",
                                                                                 highlight=False, soft_wrap=True,
                                                                                 emoji=False),
                                        **opts)
            except _outdir.OutputRefused as e:
                fail(e.cli("--out"))
            except (ScenarioError, ValueError, TypeError) as e:
                fail(str(e))
            except ImportError as e:
                fail(f"--backend {backend}: {e}; install the extra: pip install 'ccscope[jax]'")
            if not quiet:
                typer.echo(df.to_string(max_rows=40))
            typer.echo(f"{len(df)} points; summary written to {out}/summary.parquet")
            return

        if scenario is None:
            fail("give a base scenario file (or --fluid MODEL for a fluid-model sweep)")
        if dask_local is not None or scheduler is not None:
            try:
                import distributed  # noqa: F401
            except ImportError:
                fail("Dask is not installed: pip install 'ccscope[dask]'")
        rec = [r.strip() for r in record.split(",") if r.strip()] if record else spec.record
        n_seeds = seeds if seeds is not None else spec.seeds
        kwargs = {"out": out, "until_s": until_s, "record": rec, "seeds": n_seeds, "jobs": jobs, "scheduler": scheduler,
                  "dask_local": dask_local, "cache": not no_cache, "design": design, "samples": samples,
                  "force": force,
                  "on_notice": lambda line: err_console.print(f"[yellow]note:[/] {escape(line)}", highlight=False,
                                                              soft_wrap=True, emoji=False)}
        try:
            _outdir.plan_dir(out, _outdir.SWEEP, force=force)  # refused before any point runs
        except _outdir.OutputRefused as e:
            fail(e.cli("--out"))
        try:
            if quiet:
                with _sigterm_as_interrupt():
                    res = sw.sweep(spec.base, spec.grid, **kwargs)
            else:
                from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                           TimeRemainingColumn)
                with Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("elapsed"),
                              TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=err_console,
                              transient=False) as prog:
                    task = prog.add_task("points", total=None)

                    def progress(done: int, total: int, row: dict) -> None:
                        prog.update(task, completed=done, total=total)
                        if row and row.get("status") != "ok":
                            prog.console.print(f"[bold red]point {row['point']} failed[/] {_params(row, spec.grid)}: "
                                               f"{row.get('error')}", highlight=False, soft_wrap=True)
                    with _sigterm_as_interrupt():
                        res = sw.sweep(spec.base, spec.grid, progress=progress, **kwargs)
        except _outdir.OutputRefused as e:
            fail(e.cli("--out"))
        except (ScenarioError, ValueError, TypeError) as e:
            fail(str(e))
        except OSError as e:
            fail(f"--out {str(out)!r}: {e.strerror or e}")
        except sw.SweepInterrupted as e:
            failed = f" ({e.failed} failed)" if e.failed else ""
            err_console.print(f"interrupted: rerun the same command to resume: {e.done} of {e.total} points done"
                              f"{failed}", highlight=False, soft_wrap=True)
            raise typer.Exit(130) from None
        except KeyboardInterrupt:  # before any point ran (reading the grid, checking the cache)
            err_console.print("interrupted: rerun the same command to resume", highlight=False, soft_wrap=True)
            raise typer.Exit(130) from None

        t = res.table
        n_err = int((t["status"] != "ok").sum())
        if not quiet:
            cols = [c for c in dict.fromkeys(("point", *spec.grid, "seed", "status", "bottleneck_utilization", "queue_mean_pkts",
                                "queue_p99_pkts", "throughput_mean_bps", "cached")) if c in t.columns]
            typer.echo(t[cols].to_string(index=False, max_rows=40))
        for _, row in res.errors.iterrows():
            seed_txt = "" if "seed" in spec.grid else f" seed={row['seed']}"
            err_console.print(f"[bold red]error:[/] point {row['point']} {_params(row, spec.grid)}{seed_txt}: "
                              f"{row['error']}", highlight=False, soft_wrap=True)
        typer.echo(f"{len(t)} points: {len(res.ran)} run, {len(res.cached)} from the cache, {n_err} failed; "
                   f"summary written to {out}/summary.parquet")
        if n_err:
            raise typer.Exit(1)


def _verify(out: Path, quiet: bool) -> None:
    """`ccscope sweep --verify OUT`: one line per damaged point, a count, exit status 1 if any."""
    from rich.markup import escape

    from ccscope import sweep as sw
    from ccscope.cli import err_console, fail
    try:
        checks = sw.verify_sweep(out)
    except FileNotFoundError as e:
        fail(f"--verify {str(out)!r}: {e.args[0] if e.args else e}")
    except OSError as e:
        fail(f"--verify {str(out)!r}: {e.strerror or e}")
    bad = [c for c in checks if not c.ok]
    for c in bad:
        where = f"point {c.point} ({c.dir})" if c.point is not None else c.dir
        err_console.print(f"[bold red]bad:[/] {escape(f'{where}: {c.problem}')}", highlight=False, soft_wrap=True,
                          emoji=False)
    typer.echo(f"{len(checks)} checked: {len(checks) - len(bad)} ok, {len(bad)} bad"
               + ("; rerun the sweep to recompute the bad points" if bad else ""))
    if bad:
        raise typer.Exit(1)


def _params(row, grid) -> str:
    return ", ".join(f"{k}={row[k]!r}" for k in grid)
