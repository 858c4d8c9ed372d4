"""Registry of reproduction modules: one module per FIGURES.md ID under `ccscope.repro.<paper>`.

A module is found by walking the paper packages; its ID is its `ID` constant (paper slug with
'-', e.g. "dctcp-analysis/fig2-n10"; the module path maps '-' to '_'). Every module defines
ID, TITLE, KIND ("sim" | "fluid" | "both", "(schematic)" allowed), COST (human-readable: runs and
wall time on 2 cores), CLAIM, and run(quick) / check(run) / plot(run); optionally CAUSE and
PAPER_NUMBERS (ccscope.repro._base.render_cause), QUICK_SHOWS_CLAIM = False with QUICK_NOTE, SEEDS.

There is no hand-written status (docs/VERDICTS.md §5): an entry's verdict is the one in its committed
full result, docs/repro/<ID>/full/result.json (`committed`, `verdict`).
"""
from __future__ import annotations

import fnmatch
import importlib
import json
import os
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

#: Paper packages in catalogue order (FIGURES.md: 000..004).
PAPERS = ("dctcp_analysis", "periodic", "asm", "coexistence", "dx")
REQUIRED = ("ID", "TITLE", "KIND", "COST", "CLAIM", "run", "check", "plot")
#: Variants of the committed evidence (docs/repro/<ID>/<variant>/result.json).
VARIANTS = ("full", "quick")
#: Environment variable that overrides the evidence root (tests).
EVIDENCE_ENV = "CCSCOPE_REPRO_EVIDENCE"
#: What `verdict` says of an entry without committed evidence.
NOT_RUN = "not run"


@dataclass(frozen=True)
class Entry:
    id: str
    module: str

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)

    def try_load(self) -> ModuleType | None:
        """The module, or None when it does not import (IMPORT_ERRORS says why)."""
        try:
            return self.load()
        except Exception as e:  # noqa: BLE001
            IMPORT_ERRORS[self.module] = f"{type(e).__name__}: {e}"
            return None


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


def _id_of(module: str) -> str:
    """'ccscope.repro.dctcp_analysis.fig2_n10' -> 'dctcp-analysis/fig2-n10' (IDs have no '_')."""
    paper, item = module.split(".")[-2:]
    return f"{paper.replace('_', '-')}/{item.replace('_', '-')}"


#: Modules that failed to import in `entries()` ({module: "ExcType: message"}); their entries are listed
#: (ID from the module name) and fail when run, so one broken module does not hide the others.
IMPORT_ERRORS: dict[str, str] = {}


def entries() -> list[Entry]:
    """Every registered entry, in catalogue order."""
    out = []
    for paper in PAPERS:
        pkg = importlib.import_module(f"ccscope.repro.{paper}")
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name.startswith("_"):
                continue
            name = f"{pkg.__name__}.{info.name}"
            try:
                mod = importlib.import_module(name)
            except Exception as e:  # noqa: BLE001 - reported per entry (runner: verdict "error")
                IMPORT_ERRORS[name] = f"{type(e).__name__}: {e}"
                out.append(Entry(_id_of(name), name))
                continue
            IMPORT_ERRORS.pop(name, None)
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


def repo_root() -> Path | None:
    """The repository this package was loaded from (None when installed elsewhere)."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / "pyproject.toml").is_file() and (root / "python" / "ccscope").is_dir() else None


_evidence_override: Path | None = None


def evidence_root() -> Path:
    """Root of the committed evidence: `set_evidence_root`, else $CCSCOPE_REPRO_EVIDENCE, else
    <repository>/docs/repro (docs/repro under the current directory when not in a checkout)."""
    if _evidence_override is not None:
        return _evidence_override
    env = os.environ.get(EVIDENCE_ENV)
    if env:
        return Path(env)
    root = repo_root()
    return (root if root is not None else Path.cwd()) / "docs" / "repro"


def set_evidence_root(path: Path | str | None) -> None:
    """Read committed evidence from `path` (None: back to the default)."""
    global _evidence_override
    _evidence_override = None if path is None else Path(path)


def evidence_path(entry_id: str, variant: str = "full", root: Path | str | None = None) -> Path:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    return Path(root if root is not None else evidence_root()) / entry_id / variant / "result.json"


def committed(entry_id: str, variant: str = "full", root: Path | str | None = None) -> dict[str, Any] | None:
    """The committed result record of `entry_id` (docs/repro/<ID>/<variant>/result.json), or None."""
    p = evidence_path(entry_id, variant, root)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def verdict(entry_id: str, root: Path | str | None = None) -> str:
    """The entry's verdict: its committed full result's, or "not run"."""
    rec = committed(entry_id, "full", root)
    return rec.get("verdict", NOT_RUN) if rec else NOT_RUN
