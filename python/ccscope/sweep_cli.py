"""`ccscope sweep`: run a scenario over a grid of overrides, locally or on Dask (see ccscope.sweep).

    ccscope sweep scenarios/dctcp_dumbbell.toml --grid flows.count=2,10,100 --grid aqm.k_pkts=20,65 \\
        --until 100ms --out sweep-out/ [--jobs N | --dask-local N | --scheduler tcp://host:8786] [--seeds 3]
    ccscope sweep --fluid dctcp_normalized --grid wbar=10,20,40 --grid g=0.0625 --out fluid-out/
    ccscope sweep --verify sweep-out/
    ccscope sweep plot sweep-out/ --x aqm.k_pkts --y bottleneck_utilization --y q_mean -o sweep.png

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
from typer.core import TyperCommand

#: Key of `ctx.meta` holding the context of `ccscope sweep plot` while the sweep command dispatches it.
_PLOT_CONTEXT = "ccscope.sweep.plot"


class _SweepCommand(TyperCommand):
    """`ccscope sweep FILE ...` as before, and `ccscope sweep plot OUT ...`: a first argument `plot` runs
    the plot command (a scenario file named plot is given as ./plot)."""

    def parse_args(self, ctx, args):
        if args and args[0] == "plot":
            sub = typer.main.get_command(_plot_app())
            # under the root context, so usage and errors read "ccscope sweep plot ..."
            ctx.meta[_PLOT_CONTEXT] = sub.make_context("sweep plot", list(args[1:]), parent=ctx.parent or ctx)
            return []
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        sub_ctx = ctx.meta.pop(_PLOT_CONTEXT, None)
        if sub_ctx is not None:
            with sub_ctx:
                return sub_ctx.command.invoke(sub_ctx)
        return super().invoke(ctx)


def _plot_app() -> typer.Typer:
    plot_app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)

    @plot_app.command()
    def sweep_plot(
        out: Path = typer.Argument(..., help="A sweep output directory (ccscope sweep ... --out OUT).", metavar="OUT"),
        x: str = typer.Option(..., "--x", help="The swept parameter on the x axis, e.g. aqm.k_pkts."),
        y: list[str] = typer.Option(..., "--y", help="A metric to plot (repeatable: one panel each), e.g. "
                                    "bottleneck_utilization, queue_mean_pkts (short: q_mean, q_p99, utilization, "
                                    "throughput, fct_mean, fairness)."),
        output: Path = typer.Option(Path("sweep.png"), "-o", "--output", help="Figure file (.png, .pdf, .svg); "
                                    "missing folders are created; an existing figure is replaced, any other "
                                    "existing file only with --force."),
        force: bool = typer.Option(False, "--force", help="Replace an existing -o file that is not a figure."),
        title: str | None = typer.Option(None, "--title", help="Figure title."),
    ) -> None:
        """Plot sweep results: the mean over seeds of each point with its 95 % Student-t interval, against one
        swept parameter; one panel per --y, one line per value of the other swept parameters."""
        from ccscope import _outdir
        from ccscope import sweep as sw
        from ccscope.cli import _console, fail, write_figure
        from ccscope.plot.sweep import plot_sweep
        try:
            _outdir.check_figure(output, force=force)
        except _outdir.OutputRefused as e:
            fail(e.cli("-o"))
        try:
            table = sw.load(out)
        except FileNotFoundError as e:
            fail(str(e))
        except (OSError, ValueError) as e:
            fail(f"{str(out)!r}: cannot read the sweep summary ({e})")
        try:
            fig = plot_sweep(table, x, y, title=title)
        except ValueError as e:
            fail(str(e))
        write_figure(fig, output)
        note = f" ({table.failed} failed runs left out)" if table.failed else ""
        _console(False).print(f"wrote {output}{note}")

    return plot_app


def register(app: typer.Typer) -> None:
    """Add the `sweep` command (and `sweep plot`) to the main app."""
    from ccscope.cli import ALLOW_PATH_HELP, PLUGIN_HELP

    @app.command("sweep", cls=_SweepCommand, epilog="Plot the results: ccscope sweep plot OUT --x PARAM --y METRIC "
                 "[--y METRIC ...] -o FILE (ccscope sweep plot --help).")
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
        set_: list[str] = typer.Option([], "--set", help="Override a base field: PATH=VALUE (repeatable); with "
                                       "--fluid, one value of a model parameter (g=0.0625) or a model option "
                                       "(until_s=0.05)."),
        record: str | None = typer.Option(None, "--record", help="Traces to keep per point, comma-separated "
                                                                    "(e.g. queue,link); default: the scenario's."),
        fluid: str | None = typer.Option(None, "--fluid", help="Sweep a fluid model instead (dctcp_normalized, "
                                                                  "dctcp, dctcp_poincare, dx, qcn)."),
        backend: str | None = typer.Option(None, "--backend", help="Fluid sweeps: native (compiled, default), "
                                                                      "numpy (the reference) or jax."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Run every point again, even finished ones."),
        force: bool = typer.Option(False, "--force", help="Write into a non-empty --out directory that is not a "
                                                          "sweep output (every other file in it is kept)."),
        verify: Path | None = typer.Option(None, "--verify", help="Check the sweep directory OUT: every point's "
                                           "files against the sha256 hashes in its point.json; lists damaged points, "
                                           "exit status 1 if any.", metavar="OUT"),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no table."),
        allow_path: list[Path] = typer.Option([], "--allow-path", help=ALLOW_PATH_HELP),
        plugin: list[str] = typer.Option([], "--plugin", help=PLUGIN_HELP),
    ) -> None:
        """Run a scenario (or a fluid model) over a grid of parameter values; one Parquet summary table."""
        from rich.markup import escape

        from ccscope import _outdir
        from ccscope import sweep as sw
        from ccscope.cli import _sigterm_as_interrupt, _until, err_console, fail
        from ccscope.errors import ScenarioError

        from ccscope.cli import load_plugins
        load_plugins(plugin)

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
            if not (fluid or spec.fluid):
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
        fluid_opts: dict = {}
        if model is not None:  # parameters not in --grid: --set, else the model's defaults (as a base scenario)
            try:
                spec.grid, fluid_opts = sw.fluid_grid(model, spec.grid, set_)
            except ScenarioError as e:
                fail(str(e))
        if not spec.grid:
            fail("no grid: give --grid PATH=V1,V2,... (or a [sweep.grid] table in the file)")

        if model is not None:
            if scheduler is not None or dask_local is not None or jobs is not None:
                err_console.print("note: a fluid sweep runs as one vectorized batch here; --jobs/--dask-local/"
                                  "--scheduler are not used")
            opts = dict(spec.options)
            opts.update(fluid_opts)
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
