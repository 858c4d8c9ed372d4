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
"""
from __future__ import annotations

import re
from typing import Any

#: Formats `export_flows` writes.
FORMATS = ("htsim-cm",)
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


def export_flows(result: Any, fmt: str = "htsim-cm") -> str:
    """The run's flow list in `fmt` (one of FORMATS)."""
    if fmt not in FORMATS:
        raise ExportError(f"--format {fmt[:80]!r}: unknown format; allowed: {', '.join(FORMATS)}")
    return to_htsim_cm(result)
