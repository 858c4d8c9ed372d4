"""Command-line interface (typer): `ccscope run | scenario | plot | demo | fluid | guide | stability`.

Library code never prints; this module does. Errors from the engine or the scenario loader
are shown as one clear line on stderr with exit status 2, never as a traceback.
"""
from __future__ import annotations

import json
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

if TYPE_CHECKING:
    from rich.table import Table

# rich_markup_mode=None: help and usage errors in click's plain format; typer's rich help loads rich's
# Markdown and syntax highlighting (0.2-0.3 s) on every --help
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="ccscope: a laboratory for datacenter congestion control")
scenario_app = typer.Typer(no_args_is_help=True, help="Inspect scenario files: expand, validate, schema.")
app.add_typer(scenario_app, name="scenario")
_consoles: dict = {}


def _console(stderr: bool = False):
    """rich's Console for stdout or stderr, made on first use (rich.console costs ~0.1 s to load,
    which `--help` and `--version` do not need)."""
    c = _consoles.get(stderr)
    if c is None:
        from rich.console import Console
        c = _consoles[stderr] = Console(stderr=stderr)
    return c


def __getattr__(name: str):
    # `from ccscope.cli import err_console` in the command modules
    if name in ("err_console", "out_console"):
        return _console(name == "err_console")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _version(value: bool) -> None:
    if value:
        from ccscope import __version__
        typer.echo(f"ccscope {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")) -> None:
    """ccscope: a laboratory for datacenter congestion control"""

#: The embedded default scenario of `ccscope demo` (FIGURES.md D0 / DCTCP-analysis Fig. 2, N = 2).
DEMO_SCENARIO = {
    "name": "demo: DCTCP, 2 flows, 10 Gb/s dumbbell, 100 us RTT, K = 65, g = 1/16",
    "seed": 1,
    "until_s": 1.0,
    "topology": {"kind": "dumbbell", "bottleneck_bps": 10e9, "rtt_s": 100e-6, "buffer_pkts": 1000},
    "aqm": {"kind": "threshold", "k_pkts": 65},
    "dctcp": {"g": 1.0 / 16.0},
    "flows": {"count": 2, "cc": "dctcp", "start_jitter_s": 1e-3},
    "record": {"queue_interval_s": 1e-5, "flow_interval_s": 1e-5},
}


def fail(msg: str, code: int = 2) -> None:
    from ccscope.errors import cut_message
    from rich.markup import escape
    # the message is shown as it is: no markup, no :emoji: codes (a value such as "root:x:0" stays itself)
    _console(True).print(f"[bold red]error:[/] {escape(cut_message(str(msg)))}", highlight=False, soft_wrap=True,
                      emoji=False)
    raise typer.Exit(code)


def _until(text: Optional[str]) -> Optional[float]:
    if text is None:
        return None
    from ccscope.units import parse_time
    try:
        u = parse_time(text)
    except ValueError as e:
        fail(f"--until {text!r}: {e}; e.g. --until 1s or --until 500ms")
    if not u > 0:
        fail(f"--until {text!r}: must be > 0 (a simulated duration such as 1s, 500ms, 100us)")
    return u


#: `--allow-path` of the commands that read scenarios (data files outside the scenario's directory).
ALLOW_PATH_HELP = ("A directory data files named in the scenario (e.g. a CDF file) may be read from besides the "
                   "scenario's own directory; absolute paths and '..' need it (repeatable).")


def _load(path: Path, sets: List[str], allow_paths: Optional[List[Path]] = None) -> dict:
    """A scenario file with `--set` overrides; data files (also ones a --set names) are read
    relative to the file's directory under the sandbox rules (ccscope.scenario.io)."""
    from ccscope.scenario.io import _resolve_cdf_files, apply_set, load_file
    data = load_file(path, allow_paths=allow_paths)
    for s in sets:
        apply_set(data, s)
    if sets:
        _resolve_cdf_files(data, path.resolve().parent, allow_paths)
    return data


def _summary_table(res) -> Table:
    s = res.summary
    from rich.table import Table

    t = Table(title=res.scenario.get("name") or "ccscope run", show_header=True)
    t.add_column("metric")
    t.add_column("value", justify="right")
    rule = f": {s['warmup_rule']}" if s.get("warmup_rule") else ""
    t.add_row("simulated time", f"{s['sim_time_s']:.6g} s (summary after {s['warmup_s']:.3g} s warm-up{rule})")
    t.add_row("bottleneck", str(s.get("bottleneck_port")))
    t.add_row("bottleneck utilization", f"{100 * s['bottleneck_utilization']:.3f} %")
    t.add_row("queue mean / p99", f"{s['queue_mean_pkts']:.2f} / {s['queue_p99_pkts']:.1f} pkts")
    t.add_row("marks / drops", f"{s['marks']} / {s['drops']}")
    _completion_rows(t, s)
    cc_names = res._column("flows", "cc")  # not res.flows: the table stays columns (no pandas)
    sizes = res._column("flows", "size_bytes") if s.get("flows_sized") else None
    # per-flow throughput of long-lived flows only: a flow with a size is summarized by its FCT above
    shown = [(i, bps) for i, bps in enumerate(s["flow_throughput_bps"])
             if sizes is None or not (sizes[i] == sizes[i] and sizes[i] > 0)]
    for i, bps in shown[:20]:
        value = f"{bps / 1e9:.4f} Gb/s" if bps == bps else "- (fewer than 2 samples after the warm-up)"
        t.add_row(f"flow {i} ({cc_names[i]}) throughput", value)
    if len(shown) > 20:
        t.add_row("...", f"{len(shown) - 20} more flows (flows.parquet)")
    t.add_row("events", f"{s['events']:,} in {s['wall_s']:.3f} s = {s['events_per_s'] / 1e6:.2f} M events/s")
    return t


def _completion_rows(t, s: dict) -> None:
    """The summary rows of flows with a size (incast, Poisson, sized flows): FCT and, for incast,
    query completion time (request to the round's last response byte)."""
    def ms(v: float) -> str:
        return f"{1e3 * v:.3f}" if v == v else "-"
    if s.get("flows_sized"):
        t.add_row("flows completed", f"{s['flows_completed']} of {s['flows_sized']} with a size")
        t.add_row("FCT mean / p50 / p99", f"{ms(s['fct_mean_s'])} / {ms(s['fct_p50_s'])} / {ms(s['fct_p99_s'])} ms")
    if s.get("rounds_completed") is not None:
        t.add_row("query completion mean / p99", f"{ms(s['qct_mean_s'])} / {ms(s['qct_p99_s'])} ms "
                  f"({s['rounds_completed']} rounds)")


def _max_memory(text: Optional[str]) -> Optional[int]:
    """--max-memory: bytes, with an optional unit (4GiB, 512MiB, 2G, 1e9)."""
    if text is None:
        return None
    from ccscope.units import parse_memory
    try:
        size = parse_memory(text)
    except ValueError:
        size = 0.0
    if not 1 <= size < 2 ** 64:
        fail(f"--max-memory {text[:80]!r}: must be a size >= 1 byte such as 4GiB, 512MiB or 2e9")
    return int(size)


def _note(msg: str) -> None:
    _console(True).print(msg, highlight=False, soft_wrap=True, markup=False)


@contextmanager
def _sigterm_as_interrupt():
    """SIGTERM (`timeout`, a job scheduler's kill) stops a run like Ctrl-C, so what was simulated
    is kept; the previous handler comes back afterwards."""
    def stop(signum, frame):
        raise KeyboardInterrupt
    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: signals cannot be handled here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _finish_interrupted(sim, out: Optional[Path], force: bool = False, protect=()) -> None:
    """Ctrl-C (or SIGTERM) stopped the run: keep what was simulated as a partial result, write it
    to --out through the same atomic save as a full result, say so, and exit 130. A second
    Ctrl-C while closing or writing abandons the partial result (the save leaves no half-written
    directory: --out is either the new result or as it was)."""
    import ccscope as cc
    from ccscope.errors import describe_interruption
    try:
        res = sim.finish()
    except KeyboardInterrupt:
        _note("interrupted again while closing the run; nothing written")
        raise typer.Exit(130) from None
    except cc.SimulationError as e:
        fail(f"simulation failed: {e}", code=1)
    msg = describe_interruption(res)
    if out is None:
        _note(f"{msg}; nothing written (no --out)")
        raise typer.Exit(130)
    try:
        res.save(out, force=force, protect=protect)
    except KeyboardInterrupt:
        _note(f"{msg}; interrupted again while writing: nothing written, {out}/ left as it was")
        raise typer.Exit(130) from None
    except (OSError, ValueError) as e:  # OutputRefused is an OSError
        _note(f"{msg}; --out {str(out)!r}: cannot write results ({e.strerror or e})")
        raise typer.Exit(130) from None
    _note(f"{msg}; partial results written to {out}/ (meta.json: partial = true)")
    raise typer.Exit(130)


def _run(data, until_s, out: Optional[Path], quiet: bool, seed: Optional[int], record: Optional[str],
         force: bool = False, protect=(), max_memory_bytes: Optional[int] = None):
    from ccscope import _outdir
    spill = None
    if out is not None:  # refuse a target ccscope may not write before the run, not after it
        try:
            plan = _outdir.plan_dir(out, _outdir.RUN, force=force, protect=protect)
        except _outdir.OutputRefused as e:
            fail(e.cli("--out"))
        spill = _spill_dir_for(plan)
    try:
        return _run_spilling(data, until_s, out, quiet, seed, record, force, protect, max_memory_bytes, spill)
    finally:  # every exit path; after a kill -9 the next write into the folder removes it
        if spill is not None:
            import shutil
            shutil.rmtree(spill, ignore_errors=True)


def _spill_dir_for(plan) -> Optional[Path]:
    """Where a run with --out spills its event traces: next to the staging copy the writer will use
    (in --out's parent, or inside --out for an update in place), under the writer's temporary name
    (`.NAME.tmp-PID-HOST-RAND`), so the stale-copy cleaner of the next write removes what a kill -9
    left. None (the private temporary directory) when that folder does not exist yet."""
    from ccscope import _outdir
    folder, name = (plan.path, "ccscope-spill") if plan.mode == "update" else (plan.path.parent, f"{plan.path.name}-spill")
    return folder / _outdir.temp_name(name) if folder.is_dir() else None


def _run_spilling(data, until_s, out, quiet, seed, record, force, protect, max_memory_bytes, spill):
    import ccscope as cc
    from ccscope import _outdir
    rec = [r.strip() for r in record.split(",") if r.strip()] if record else None
    try:
        sim = cc.Simulation(data, until_s=until_s, seed=seed, record=rec, max_memory_bytes=max_memory_bytes,
                            spill_dir=spill)
        try:
            if quiet:
                sim.run()
            else:  # rich.progress only here: --quiet runs without its import (0.1-0.2 s)
                from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
                with Progress(TextColumn("simulating"), BarColumn(), TextColumn("{task.fields[now]}"),
                              TimeElapsedColumn(), console=_console(True), transient=True) as prog:
                    task = prog.add_task("sim", total=sim.end_s, now="")
                    sim.run(progress=lambda now, end: prog.update(task, completed=now, now=f"{now:.4g} / {end:.4g} s"))
        except KeyboardInterrupt:
            _finish_interrupted(sim, out, force, protect)
        res = sim.finish()
    except KeyboardInterrupt:
        _note("interrupted before the run started; nothing written")
        raise typer.Exit(130) from None
    except (cc.ScenarioError, ValueError, TypeError) as e:
        fail(str(e))
    except cc.SimulationError as e:
        fail(f"simulation failed: {e}", code=1)
    if out is not None:
        try:
            with _outdir.sigterm_as_exit():
                res.save(out, force=force, protect=protect)
        except _outdir.OutputRefused as e:
            fail(e.cli("--out"))
        except OSError as e:
            fail(f"--out {str(out)!r}: cannot write results ({e.strerror or e})")
    return res


PLUGIN_HELP = ("A module (mypkg.mycc) or .py file that registers Python congestion controllers with "
               "ccscope.cc.register_cc, imported before the scenario is read (repeatable; docs/extending.md).")


def load_plugins(plugins: List[str]) -> None:
    """Import each --plugin; an error in it is one line naming the plugin, then its traceback."""
    if not plugins:
        return
    import traceback

    from ccscope import cc
    for p in plugins:
        try:
            cc.load_plugin(p)
        except ValueError as e:
            fail(str(e))
        except Exception as e:  # noqa: BLE001 - the plugin's own error, shown with its traceback
            tb = "".join(traceback.format_exception(e)).rstrip()
            fail(f"--plugin {p!r}: importing it failed:\n{tb}")


@app.command()
def run(scenario: Path = typer.Argument(..., help="Scenario file (.toml or .json)."),
        until: Optional[str] = typer.Option(None, "--until", help="Simulated time, e.g. 1s, 200ms (default: the scenario's until_s)."),
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write traces (Parquet), tables and metadata here "
                                           "(a new or empty directory, or a previous result, whose own files are replaced; "
                                           "other files in it are kept)."),
        force: bool = typer.Option(False, "--force", help="Write into a non-empty --out directory that is not a result "
                                   "(ccscope's files are written, every other file is kept)."),
        set_: List[str] = typer.Option([], "--set", help="Override a field: PATH=VALUE, e.g. --set flows.count=10 (repeatable)."),
        seed: Optional[int] = typer.Option(None, "--seed", help="Override the scenario seed."),
        record: Optional[str] = typer.Option(None, "--record", help="Traces to keep, comma-separated (queue,link,cwnd,alpha,delivered,drops)."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no summary table."),
        json_summary: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
        allow_path: List[Path] = typer.Option([], "--allow-path", help=ALLOW_PATH_HELP),
        max_memory: Optional[str] = typer.Option(None, "--max-memory", help="Memory budget, e.g. 4GiB, 512MiB (default: half the machine's memory). A scenario estimated above it is refused before it runs; event traces are capped inside it."),
        plugin: List[str] = typer.Option([], "--plugin", help=PLUGIN_HELP)):
    """Run a scenario file and print a summary; --out writes the results."""
    import ccscope as cc
    load_plugins(plugin)
    budget = _max_memory(max_memory)
    try:
        data = _load(scenario, set_, allow_path)
    except cc.ScenarioError as e:
        fail(str(e))
    with _sigterm_as_interrupt():
        res = _run(data, _until(until), out, quiet, seed, record, force=force, protect=[scenario],
                   max_memory_bytes=budget)
    # from the engine's columns: res.traces would make every trace a DataFrame (pandas' import)
    for row in res.truncated_rows():
        if row.get("reason", "memory") == "disk":
            _note(f"warning: trace {row['series']!r} stopped after {row['rows_kept']:,} rows ({row['detail']}): "
                  f"{row['rows_left_out']:,} rows were not recorded")
        else:
            _note(f"warning: trace {row['series']!r} reached its cap of {row['cap_rows']:,} rows: "
                  f"{row['rows_left_out']:,} rows were not recorded (raise --max-memory to keep more)")
    if json_summary:
        from ccscope.result import _jsonable
        print(json.dumps(_jsonable(res.summary), indent=2))
    elif not quiet:
        _console(False).print(_summary_table(res))
        if out is not None:
            _console(False).print(f"results written to {out}/")


EXPAND_MAX_MEMORY_HELP = ("Memory budget, e.g. 4GiB, 512MiB (default: half the machine's memory). A scenario whose "
                          "expansion (topology and flow list) is estimated above it is refused before expanding.")
VALIDATE_MAX_MEMORY_HELP = ("Memory budget of the run, e.g. 4GiB, 512MiB (default: half the machine's memory), as "
                            "run --max-memory: a scenario estimated above it is refused.")


@scenario_app.command("expand")
def scenario_expand(scenario: Path = typer.Argument(..., help="Scenario file (.toml or .json)."),
                    set_: List[str] = typer.Option([], "--set", help="Override a field: PATH=VALUE."),
                    fmt: str = typer.Option("toml", "--format", help="Output format: toml or json."),
                    allow_path: List[Path] = typer.Option([], "--allow-path", help=ALLOW_PATH_HELP),
                    max_memory: Optional[str] = typer.Option(None, "--max-memory", help=EXPAND_MAX_MEMORY_HELP),
                    plugin: List[str] = typer.Option([], "--plugin", help=PLUGIN_HELP)):
    """Print the fully expanded scenario (explicit graph, every flow, every default)."""
    import ccscope as cc
    load_plugins(plugin)
    from ccscope import _native
    from ccscope.errors import engine_call
    if fmt not in ("toml", "json"):
        fail(f"--format {fmt!r}: must be toml or json")
    budget = _max_memory(max_memory)
    try:
        data = _load(scenario, set_, allow_path)
        text = cc.scenario.io.to_engine_json(data)
        expanded = engine_call(_native.expand, text, "json", budget)
        out = engine_call(_native.to_toml, expanded) if fmt == "toml" else expanded
    except (cc.ScenarioError, ValueError, TypeError) as e:
        fail(str(e))
    except cc.SimulationError as e:
        fail(f"internal error: {e}", code=1)
    print(out)


@scenario_app.command("validate")
def scenario_validate(scenario: Path = typer.Argument(..., help="Scenario file (.toml or .json)."),
                      set_: List[str] = typer.Option([], "--set", help="Override a field: PATH=VALUE."),
                      allow_path: List[Path] = typer.Option([], "--allow-path", help=ALLOW_PATH_HELP),
                      max_memory: Optional[str] = typer.Option(None, "--max-memory", help=VALIDATE_MAX_MEMORY_HELP),
                      plugin: List[str] = typer.Option([], "--plugin", help=PLUGIN_HELP)):
    """Check a scenario as `run` does (schema, hosts, routes, congestion points, memory budget); prints 'ok' or the first error."""
    import ccscope as cc
    load_plugins(plugin)
    budget = _max_memory(max_memory)
    try:
        cc.scenario.validate(_load(scenario, set_, allow_path), max_memory_bytes=budget)
    except (cc.ScenarioError, ValueError, TypeError) as e:
        fail(str(e))
    except cc.SimulationError as e:
        fail(f"internal error: {e}", code=1)
    print("ok")


@scenario_app.command("export-flows")
def scenario_export_flows(source: Path = typer.Argument(..., help="A scenario file (.toml or .json; it is run to "
                                                        "produce its flows) or a result directory of `ccscope run "
                                                        "--out`."),
                          fmt: str = typer.Option("htsim-cm", "--format", help="Output format: htsim-cm (htsim's "
                                                  "connection matrix: src->dst id K start PS size BYTES) or "
                                                  "paths (each flow's switches as the engine routed it: src->dst "
                                                  "id K fwd SWITCH... rev SWITCH...; scenario file only)."),
                          output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write here (default: "
                                                                "standard output); an existing file only with "
                                                                "--force."),
                          force: bool = typer.Option(False, "--force", help="Replace an existing -o file."),
                          until: Optional[str] = typer.Option(None, "--until", help="Simulated time of the run "
                                                              "(scenario file only), e.g. 100ms."),
                          set_: List[str] = typer.Option([], "--set", help="Override a field: PATH=VALUE."),
                          seed: Optional[int] = typer.Option(None, "--seed", help="Override the scenario seed."),
                          allow_path: List[Path] = typer.Option([], "--allow-path", help=ALLOW_PATH_HELP),
                          plugin: List[str] = typer.Option([], "--plugin", help=PLUGIN_HELP)):
    """Write the flow list of a run (every flow, workload flows included) for a peer simulator, so that
    it runs the same flows: htsim's connection matrix (docs/workloads.md)."""
    import ccscope as cc
    from ccscope import _outdir
    from ccscope.export import FORMATS, ExportError, export_flows, simulate_with_routes
    load_plugins(plugin)
    if fmt not in FORMATS:
        fail(f"--format {fmt[:80]!r}: unknown format; allowed: {', '.join(FORMATS)}")
    if output is not None and output.exists() and not force:
        fail(f"-o {str(output)[:80]!r}: exists; give --force to replace it, or another file name")
    try:
        routes = None
        if source.is_dir():
            if set_ or seed is not None or until is not None:
                fail(f"{str(source)[:80]!r} is a result directory: --set, --seed and --until apply to a scenario file")
            if fmt == "paths":
                fail(f"--format paths: {str(source)[:80]!r} is a result directory, which holds no routes; give the "
                     "scenario file (it is run to read the engine's routes)")
            res = cc.load(source)
        elif fmt == "paths":
            data = _load(source, set_, allow_path)
            res, routes = simulate_with_routes(data, until_s=_until(until), seed=seed, record=[],
                                               allow_paths=allow_path or None)
        else:
            data = _load(source, set_, allow_path)
            res = cc.simulate(data, until_s=_until(until), seed=seed, record=[], allow_paths=allow_path or None)
        text = export_flows(res, fmt, routes)
    except (cc.ScenarioError, cc.ResultError, ExportError, ValueError, TypeError) as e:
        fail(str(e))
    except cc.SimulationError as e:
        fail(f"internal error: {e}", code=1)
    if output is None:
        print(text, end="")
        return
    try:
        with _outdir.sigterm_as_exit(), _outdir.atomic_file(output) as tmp:
            tmp.write_text(text)
    except _outdir.OutputRefused as e:
        fail(e.cli("-o"))
    except OSError as e:
        fail(f"-o {str(output)[:80]!r}: {e}")
    _console(True).print(f"wrote {output} ({text.count(chr(10))} lines)")


@scenario_app.command("schema")
def scenario_schema():
    """Print the JSON Schema of scenario files (fields, units, defaults)."""
    from ccscope import _native
    print(_native.schema())


def _plot_time(option: str, text: Optional[str]) -> Optional[float]:
    """--from / --to: a time >= 0 with a unit (0.1s, 100ms, 250us; a bare number is seconds)."""
    if text is None:
        return None
    from ccscope.units import parse_time
    try:
        t = parse_time(text)
    except ValueError as e:
        fail(f"{option} {text[:80]!r}: {e}; e.g. {option} 0.1s or {option} 100ms")
    if not (t >= 0 and t != float("inf")):
        fail(f"{option} {text[:80]!r}: must be a time >= 0 such as 0.1s, 100ms or 250us")
    return t


@app.command()
def plot(runs: List[Path] = typer.Argument(..., help="Result directories written by `ccscope run --out` "
                                           "(one or more: each run gets its own colour).", metavar="RUN..."),
         kind: List[str] = typer.Option([], "--kind", "-k", help="Panel to draw: queue, cwnd, alpha, rate, "
                                        "throughput, fct-cdf, slowdown (FCT slowdown p50/p99 by flow-size bin) or pfc "
                                        "(PFC pause time and frames per port; with --from/--to from the pfc trace) "
                                        "(repeatable or comma-separated; one panel each). "
                                        "Default: queue and cwnd."),
         label: List[str] = typer.Option([], "--label", "-l", help="Legend label of each run, in order (one per "
                                         "run; default: the scenario fields that differ between the runs)."),
         t_from: Optional[str] = typer.Option(None, "--from", help="Start of the time window, e.g. 0.1s, 100ms."),
         t_to: Optional[str] = typer.Option(None, "--to", help="End of the time window, e.g. 0.2s (default: the "
                                            "end of the longest run)."),
         port: Optional[str] = typer.Option(None, "--port", help="Queue panel: the port drawn, e.g. 'sw->r0' "
                                            "(default: each run's bottleneck; all recorded ports of a single run)."),
         flow: List[int] = typer.Option([], "--flow", help="Per-flow panels: the flow ids drawn (repeatable; "
                                        "default: the first 10)."),
         title: Optional[str] = typer.Option(None, "--title", help="Figure title (default: from the resolved "
                                             "scenarios: what the runs share)."),
         queue: bool = typer.Option(False, "--queue", help="Queue length panel (same as --kind queue)."),
         cwnd: bool = typer.Option(False, "--cwnd", help="cwnd panel (same as --kind cwnd)."),
         alpha: bool = typer.Option(False, "--alpha", help="DCTCP alpha panel (same as --kind alpha)."),
         output: Path = typer.Option(Path("fig.png"), "-o", "--output", help="Figure file (.png, .pdf, .svg); missing "
                                     "folders are created; an existing figure is replaced, any other existing file "
                                     "only with --force."),
         force: bool = typer.Option(False, "--force", help="Replace an existing -o file that is not a figure.")):
    """Plot traces of one or more saved runs in one figure (one colour per run).

    ccscope plot k20/ k65/ --kind queue --from 0.1s --to 0.2s -o queue.png"""
    import ccscope as cc
    from ccscope import _outdir
    from ccscope.plot.runs import KINDS, PlotInputError, check_kinds, load_runs, plot_runs
    kinds = [k.strip() for text in kind for k in text.split(",") if k.strip()]
    kinds += [name for name, on in (("queue", queue), ("cwnd", cwnd), ("alpha", alpha)) if on]
    lo, hi = _plot_time("--from", t_from), _plot_time("--to", t_to)
    if lo is not None and hi is not None and lo >= hi:
        fail(f"--from {t_from!r} must be before --to {t_to!r}")
    try:
        kinds = check_kinds(kinds)
        _outdir.check_figure(output, force=force)
    except PlotInputError as e:
        fail(str(e))
    except _outdir.OutputRefused as e:
        fail(e.cli("-o"))
    try:
        loaded = load_runs(runs, label)
    except PlotInputError as e:
        fail(str(e))
    except (cc.ResultError, OSError) as e:
        fail(str(e))
    if not kinds:  # today's default: queue and cwnd, each where every run recorded it
        def has(res, trace):
            rec = (res.scenario or {}).get("record", {}).get("traces")
            return trace in res.traces and (not isinstance(rec, list) or trace in rec)
        kinds = [k for k in ("queue", "cwnd") if all(has(r.result, KINDS[k]) for r in loaded)] or ["queue"]
    try:
        fig = plot_runs(loaded, kinds, t_from=lo, t_to=hi, port=port, flows=flow or None, title=title)
    except PlotInputError as e:
        fail(str(e))
    except (KeyError, TypeError, ValueError) as e:  # a result whose tables lack what the panel reads
        fail(f"cannot plot {', '.join(str(r) for r in runs)}: {type(e).__name__}: {e}")
    try:
        with _outdir.sigterm_as_exit(), _outdir.atomic_file(output) as tmp:
            fig.savefig(tmp, dpi=120)
    except _outdir.OutputRefused as e:
        fail(e.cli("-o"))
    except (OSError, ValueError) as e:
        fail(f"-o {str(output)!r}: {e}")
    finally:
        import matplotlib.pyplot as plt
        plt.close(fig)
    _console(False).print(f"wrote {output}")


@app.command()
def demo(out: Path = typer.Option(Path("demo-out"), "--out", "-o", help="Where to write traces and the figure "
                                   "(same rules as run --out)."),
         force: bool = typer.Option(False, "--force", help="Write into a non-empty --out directory that is not a result "
                                    "(every other file is kept)."),
         quiet: bool = typer.Option(False, "--quiet", "-q")):
    """Run the embedded default scenario (DCTCP, 2 flows, 10 Gb/s, 100 us, K = 65, g = 1/16, 1 s)."""
    from ccscope import _outdir
    from ccscope.plot import plot_result
    res = _run(DEMO_SCENARIO, None, out, quiet, None, None, force=force)
    try:
        with _outdir.sigterm_as_exit(), _outdir.atomic_file(out / "queue_cwnd.png") as tmp:
            plot_result(res, tmp, queue=True, cwnd=True, alpha=True, title=DEMO_SCENARIO["name"])
    except OSError as e:
        fail(f"--out {str(out)!r}: cannot write the figure ({e.strerror or e})")
    _console(False).print(_summary_table(res))
    _console(False).print(f"traces (Parquet) and queue_cwnd.png written to {out}/")


@app.command()
def compare(model: str = typer.Argument(..., help="Fluid model with a packet counterpart: dctcp, dx, qcn, tcp_red, asm."),
            sets: List[str] = typer.Option([], "--set", help="NAME=VALUE: a parameter of the model (its fluid name, "
                                           "e.g. k_pkts=40; docs/workbench.md maps each to the scenario) or until_s."),
            output: Path = typer.Option(None, "-o", "--output", help="Figure (.png/.pdf/.svg); default "
                                        "compare-MODEL.png. Missing folders are created.")):
    """Fluid model and packet simulation at the same parameters in one figure, with the limit-cycle
    numbers of both (queue amplitude, mean, period; window, alpha or rate)."""
    from ccscope import _outdir
    from ccscope.compare import compare as run_compare
    from ccscope.errors import ScenarioError, SimulationError
    output = output or Path(f"compare-{model}.png")
    if output.suffix.lower() not in (".png", ".pdf", ".svg"):
        fail(f"-o {str(output)!r}: the figure must end in .png, .pdf or .svg")
    try:
        c = run_compare(model, sets)
    except (ScenarioError, SimulationError, ValueError) as e:
        fail(str(e))
    fig = c.plot()
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with _outdir.atomic_file(output) as tmp:
            fig.savefig(tmp, dpi=110, format=output.suffix[1:].lower())
    except _outdir.OutputRefused as e:
        fail(f"-o {str(output)!r}: {e}")
    except OSError as e:
        fail(f"-o {str(output)!r}: cannot write the figure ({e.strerror or e})")
    from rich.table import Table
    t = Table(title=f"{model}: fluid vs packet, after {c.until_s / 2:g} s")
    for col in ("quantity", "fluid", "packet", "packet/fluid"):
        t.add_column(col, justify="left" if col == "quantity" else "right")
    for _, r in c.numbers.iterrows():
        t.add_row(r.quantity, *(f"{v:.4g}" if v == v else "-" for v in (r.fluid, r.packet, r["packet/fluid"])))
    _console(False).print(t)
    _console(False).print(f"wrote {output}")


@app.command("new-cc")
def new_cc(name: str = typer.Argument(..., help="The new kind's name in scenarios (lowercase snake case, "
                                      "e.g. my_cc); its Rust type is the CamelCase of it."),
           dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be created and edited; "
                                        "write nothing."),
           root: Optional[Path] = typer.Option(None, "--root", help="The ccscope repository (default: the nearest "
                                               "folder at or above the current one holding crates/ccscope-core).")):
    """Start a window controller in the engine (Rust): writes cc/NAME.rs from a template (NewReno's
    hooks, marked to change), registers it in cc/mod.rs, cc/factory.rs and cc/kind.rs, and adds a
    test skeleton tests/cc_NAME.rs. Then `cargo test --release -p ccscope-core --test cc_NAME`."""
    from ccscope import new_cc as nc
    base = root if root is not None else nc.find_root(Path.cwd())
    if base is None:
        fail("new-cc: no crates/ccscope-core/src/cc/mod.rs at or above the current folder; run it in the ccscope "
             "repository or give --root")
    try:
        p = nc.plan(base, name)
        if not dry_run:
            nc.apply(p)
    except nc.NewCcError as e:
        fail(str(e))
    for line in p.describe():  # plain lines (no wrapping): they name files and code
        typer.echo(("would " if dry_run else "") + line)
    if not dry_run:
        typer.echo(f"next: edit {nc.CC_DIR / (name + '.rs')}, then `cargo test --release -p ccscope-core "
                   f"--test cc_{name}` (docs/extending.md, 'Moving a controller to Rust')")


def _register_optional_commands() -> None:
    # Command groups that live in their own modules add themselves here (each module defines
    # `register(app)`): fluid models, reproductions, sweeps.
    import importlib
    for name in ("fluid_cli", "repro_cli", "sweep_cli", "report_cli"):
        try:
            mod = importlib.import_module(f"ccscope.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"ccscope.{name}":
                continue
            raise
        mod.register(app)


_register_optional_commands()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        _console(True).print("interrupted")
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
