"""Export a run's flow list for a peer simulator (`ccscope scenario export-flows`), so that the
peer runs the same flows: same source, destination, size and start.

Place in the pipeline: reads a result (`ccscope.simulate`, `ccscope.load`): its `flows` table
(every flow of the run, the ones workloads created included) and its expanded scenario (the
hosts); writes text. Nothing here runs the engine.

Format `htsim-cm`: htsim's connection matrix, as `ConnectionMatrix::load(istream&)` reads it
(csg-htsim sim/datacenter/connection_matrix.cpp; examples in sim/datacenter/connection_matrices/):

    Nodes <N>
    Connections <C>
    <src>-><dst> id <k> start <picoseconds> size <bytes>

- nodes are htsim's host numbers 0..N-1: when the hosts are named PREFIX0 .. PREFIX<N-1> (the
  leaf_spine and fat_tree templates' h0, h1, ...), host PREFIXi is node i; otherwise the hosts
  are numbered in the order of the expanded scenario's node list, and `#` comment lines of the
  header give the map;
- `id` is the ccscope flow id + 1 (htsim refuses id 0); `start` is the flow's start in integer
  picoseconds (htsim's unit here; it reads it with `stof`, a single-precision float, so a start
  past 2^24 ps = 16.8 us is rounded to about 7 significant digits there); `size` is bytes (read
  with `stoi`: at most 2^31 - 1).

Format `paths`: the path each flow takes, as the engine forwards its packets (its per-flow ECMP
choice, read from the run's routes, `Simulation.flow_routes`; nothing here re-derives it), so that
a peer can put the same flow on the same switches:

    Paths <C>
    <src>-><dst> id <k> fwd <switch> <switch> ... rev <switch> ...

- `src`, `dst` and `id` are those of the `htsim-cm` line of the same flow (the same node numbers
  and `#` map), so the two files join on `id`;
- `fwd` lists the switches the flow's data packets cross, in order, by their ccscope names (a
  fat-tree's e<pod>_<i> edge, a<pod>_<j> aggregation and c<n> core switches: for a 3-tier
  fat-tree the aggregation and core choices); `rev` the switches its ACKs cross, from the
  destination back (chosen by the same hash with the reverse direction: not always the mirror of
  `fwd`). A run with per-packet spraying (`load_balance = "spray"`) has no one path per flow and
  is refused.
"""
from __future__ import annotations

import re
from typing import Any

#: Formats `export_flows` writes.
FORMATS = ("htsim-cm", "paths")
#: The largest size htsim's `stoi` reads.
HTSIM_MAX_SIZE_BYTES = 2**31 - 1


class ExportError(ValueError):
    """A flow list that the format cannot carry: the message names the flow and why."""


def host_numbers(scenario: dict) -> tuple[dict[str, int], bool]:
    """htsim node numbers of the scenario's hosts ({name: number}) and whether they come from the
    names (PREFIX0..PREFIX<N-1>) rather than the node order."""
    topo = scenario.get("topology") or {}
    hosts = [n["name"] for n in topo.get("nodes") or [] if n.get("kind") == "host"]
    if not hosts:
        raise ExportError("the result's scenario has no host list (topology.nodes): export needs the expanded "
                          "scenario a run saves (scenario.json)")
    parsed = [re.fullmatch(r"(.*?)(0|[1-9]\d*)", h) for h in hosts]
    if all(parsed):
        prefixes = {m.group(1) for m in parsed if m}
        nums = sorted(int(m.group(2)) for m in parsed if m)
        if len(prefixes) == 1 and nums == list(range(len(hosts))):
            return {h: int(m.group(2)) for h, m in zip(hosts, parsed) if m}, True
    return {h: i for i, h in enumerate(hosts)}, False


def to_htsim_cm(result: Any) -> str:
    """The run's flows as an htsim connection matrix (module doc). Raises ExportError for a flow
    without a size (long-lived) or larger than htsim reads."""
    scenario = result.scenario or {}
    numbers, by_name = host_numbers(scenario)
    flows = result.flows
    lines = []
    for row in flows[["flow", "src", "dst", "start_s", "size_bytes"]].itertuples(index=False):
        fid, src, dst, start_s, size = row
        if not size == size:  # NaN: a long-lived flow
            raise ExportError(f"flow {fid} ({src}->{dst}) has no size (a long-lived flow); an htsim connection "
                              "matrix needs a size for every flow")
        size = int(size)
        if size > HTSIM_MAX_SIZE_BYTES:
            raise ExportError(f"flow {fid} ({src}->{dst}) has {size} bytes; htsim reads sizes up to "
                              f"{HTSIM_MAX_SIZE_BYTES} (2^31 - 1)")
        start_ps = int(round(float(start_s) * 1e12))
        lines.append(f"{numbers[src]}->{numbers[dst]} id {int(fid) + 1} start {start_ps} size {size}")
    head = [f"# ccscope flow list of {scenario.get('name') or 'a run'} (seed {scenario.get('seed')}): "
            f"{len(lines)} flows; start in picoseconds, size in bytes"]
    if by_name:
        head.append("# node i is the ccscope host named with the number i (e.g. h0 = node 0)")
    else:
        head += [f"# node {n} = {h}" for h, n in numbers.items()]
    head += [f"Nodes {len(numbers)}", f"Connections {len(lines)}"]
    return "\n".join(head + lines) + "\n"


Routes = list[tuple[list[str], list[str]]]


def simulate_with_routes(scenario: Any, **kwargs: Any) -> tuple[Any, Routes]:
    """Run `scenario` (as `ccscope.simulate`, with its keyword arguments but `progress`) and
    return (its result, each flow's (data route, ACK route) as the engine forwarded on them:
    `Simulation.flow_routes`, read after the run)."""
    from ccscope.sim import Simulation

    sim = Simulation(scenario, **kwargs)
    sim.run()
    routes = sim.flow_routes()
    return sim.finish(), routes


def route_switches(ports: list[str]) -> list[str]:
    """The nodes between the two ends of a route given as port names "from->to" in crossing
    order: the switches it crosses."""
    return [p.split("->", 1)[1] for p in ports[:-1]]


def to_paths(result: Any, routes: Routes) -> str:
    """Each flow's path as the switches its data and its ACKs cross (module doc, format
    `paths`). Raises ExportError for a sprayed run or routes that are not this run's."""
    scenario = result.scenario or {}
    if ((scenario.get("topology") or {}).get("load_balance")) == "spray":
        raise ExportError("topology.load_balance = \"spray\": a sprayed flow has no one path; the paths format "
                          "needs per-flow routing (\"ecmp\" or \"single\")")
    numbers, by_name = host_numbers(scenario)
    lines = []
    for row in result.flows[["flow", "src", "dst"]].itertuples(index=False):
        fid, src, dst = int(row[0]), row[1], row[2]
        if not 0 <= fid < len(routes):
            raise ExportError(f"flow {fid} ({src}->{dst}): no route given for it ({len(routes)} routes); pass the "
                              "routes of the same run (simulate_with_routes)")
        fwd, rev = routes[fid]
        if not fwd or fwd[0].split("->", 1)[0] != src or fwd[-1].split("->", 1)[1] != dst:
            raise ExportError(f"flow {fid} ({src}->{dst}): its route {' '.join(fwd)[:80]!r} does not join its hosts; "
                              "pass the routes of the same run (simulate_with_routes)")
        lines.append(f"{numbers[src]}->{numbers[dst]} id {fid + 1} fwd {' '.join(route_switches(fwd))} "
                     f"rev {' '.join(route_switches(rev))}")
    head = [f"# ccscope flow paths of {scenario.get('name') or 'a run'} (seed {scenario.get('seed')}): "
            f"{len(lines)} flows; the switches each flow's data (fwd) and ACKs (rev) cross, in order"]
    if by_name:
        head.append("# node i is the ccscope host named with the number i (e.g. h0 = node 0)")
    else:
        head += [f"# node {n} = {h}" for h, n in numbers.items()]
    head.append(f"Paths {len(lines)}")
    return "\n".join(head + lines) + "\n"


def parse_paths(text: str) -> dict[int, tuple[int, int, list[str], list[str]]]:
    """The `paths` format read back: {id: (src node, dst node, fwd switches, rev switches)}.
    Raises ExportError naming the line that does not parse."""
    out: dict[int, tuple[int, int, list[str], list[str]]] = {}
    pat = re.compile(r"(\d+)->(\d+) id (\d+) fwd ((?:\S+ )*)rev((?: \S+)*)")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("Paths "):
            continue
        m = pat.fullmatch(line.strip())
        if not m:
            raise ExportError(f"paths line {n} {line[:80]!r}: expected '<src>-><dst> id <k> fwd <switch>... rev "
                              "<switch>...'")
        out[int(m.group(3))] = (int(m.group(1)), int(m.group(2)), m.group(4).split(), m.group(5).split())
    return out


def export_flows(result: Any, fmt: str = "htsim-cm", routes: Routes | None = None) -> str:
    """The run's flow list in `fmt` (one of FORMATS); `paths` needs the run's `routes`
    (`simulate_with_routes`)."""
    if fmt not in FORMATS:
        raise ExportError(f"--format {fmt[:80]!r}: unknown format; allowed: {', '.join(FORMATS)}")
    if fmt == "paths":
        if routes is None:
            raise ExportError("--format paths: needs the engine's routes of the run, which a saved result does not "
                              "hold; give the scenario file (it is run to read them)")
        return to_paths(result, routes)
    return to_htsim_cm(result)
