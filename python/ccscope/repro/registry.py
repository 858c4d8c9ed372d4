"""Registry of reproduction modules: one module per FIGURES.md ID under `ccscope.repro.<paper>`.

A module is found by walking the paper packages; its ID is its `ID` constant (paper slug with
'-', e.g. "dctcp-analysis/fig2-n10"; the module path maps '-' to '_'). Every module defines
ID, TITLE, KIND ("sim" | "fluid" | "both", "(schematic)" allowed), STATUS (the status `repro list`
shows: reproduced | partly | not yet), COST (human-readable: runs and wall time on 2 cores),
CLAIM, and run(quick) / check(run) / plot(run).
"""
from __future__ import annotations

import fnmatch
import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType

#: Paper packages in catalogue order (FIGURES.md: 000..004).
PAPERS = ("dctcp_analysis", "periodic", "asm", "coexistence", "dx")
REQUIRED = ("ID", "TITLE", "KIND", "STATUS", "COST", "CLAIM", "run", "check", "plot")


@dataclass(frozen=True)
class Entry:
    id: str
    module: str

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)


def module_name(entry_id: str) -> str:
    """'dctcp-analysis/fig2-n10' -> 'ccscope.repro.dctcp_analysis.fig2_n10'."""
    paper, item = entry_id.split("/", 1)
    return f"ccscope.repro.{paper.replace('-', '_')}.{item.replace('-', '_')}"


def _order_key(entry_id: str):
    import re
    paper, item = entry_id.split("/", 1)
    m = re.match(r"(fig|table|app)?(\d+)?(.*)", item)
    kind = {"fig": 0, "table": 0, "app": 2}.get(m.group(1) or "", 1)
    if item.startswith("text-"):
        kind = 3
    num = int(m.group(2)) if m.group(2) else 0
    return (PAPERS.index(paper.replace("-", "_")), kind, num, m.group(3))


def entries() -> list[Entry]:
    """Every registered entry, in catalogue order."""
    out = []
    for paper in PAPERS:
        pkg = importlib.import_module(f"ccscope.repro.{paper}")
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name.startswith("_"):
                continue
            name = f"{pkg.__name__}.{info.name}"
            mod = importlib.import_module(name)
            missing = [a for a in REQUIRED if not hasattr(mod, a)]
            if missing:
                raise RuntimeError(f"{name}: missing {', '.join(missing)}")
            if module_name(mod.ID) != name:
                raise RuntimeError(f"{name}: ID {mod.ID!r} does not map to this module")
            out.append(Entry(mod.ID, name))
    return sorted(out, key=lambda e: _order_key(e.id))


def select(patterns: list[str] | str) -> list[Entry]:
    """Entries whose ID matches any glob pattern ('dx/*', 'dctcp-analysis/fig2-*', exact IDs)."""
    if isinstance(patterns, str):
        patterns = [patterns]
    all_ = entries()
    chosen = [e for e in all_ if any(fnmatch.fnmatchcase(e.id, p) for p in patterns)]
    if not chosen:
        raise KeyError(f"no reproduction ID matches {', '.join(patterns)!s}; see `ccscope repro list`")
    return chosen


def get(entry_id: str) -> ModuleType:
    return importlib.import_module(module_name(entry_id))
