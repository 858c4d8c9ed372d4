"""Shared pieces of the reproduction modules: the `Run` a module's `run(quick)` returns, the
`Checks` list its `check(run)` fills, the bases of advisory rows, the statistics rule, cause
templates, and figure helpers.

Place in the pipeline: `repro/<paper>/<item>.py` builds scenarios or fluid problems through the
public API (`ccscope.simulate`, `ccscope.fluid`), returns a `Run`; `check` compares it with the
paper's claim (each tolerance justified in a comment next to it); `plot` draws a figure laid out
like the paper's. `repro.runner` writes figure.png, data.parquet and result.json.

The policy these helpers apply is docs/VERDICTS.md:

- Verdicts (§1): "reproduced" (every strict row passes), "partly" (some strict rows fail),
  "not reproduced" (all fail), "not yet" (the mechanism is not in ccscope yet).
- Advisory rows (§2) never change the verdict, and need a basis: `independent(simulator, measured,
  setup)` (an independent simulator's number on the same setup and seeds, never a port written for
  ccscope), `known_inconsistency(paper, item)` (a numbered item of FIGURES.md's "Known
  inconsistencies"), or a name starting with "[diagnostic]" (a labelled variant, a second reading).
  `Checks.add` refuses any other advisory row.
- Statistics (§3): `se(values)`; `Checks.beyond` / `Checks.order` pass only when the value is on the
  claimed side by at least two standard errors; between zero and two it is "inside the noise"
  (`noise: true` in the row) and fails.
- Causes (§5): a module's `CAUSE` template (or dict of templates) is filled from the run's
  `cause_values` and `measured` (`render_cause`); `cause_lint` refuses a digit that is neither a
  field, a reference (§4.5, eq 3, Fig 12, E23, ...) nor one of the module's `PAPER_NUMBERS`.
"""
from __future__ import annotations

import math
import re
import string
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

#: Verdict vocabulary (docs/VERDICTS.md §1).
REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_YET = "reproduced", "partly", "not reproduced", "not yet"

#: Prefix of a diagnostic row's name: advisory without a basis (docs/VERDICTS.md §2.4).
DIAGNOSTIC = "[diagnostic]"

#: Number of standard errors a `beyond` / `order` row must clear (docs/VERDICTS.md §3).
N_SE = 2.0

#: Paper slugs of the "Known inconsistencies" subsections of FIGURES.md.
PAPER_SLUGS = ("dctcp-analysis", "periodic", "asm", "coexistence", "dx")

#: Off: an advisory row without an allowed basis raises ValueError (docs/VERDICTS.md §2). On (only for
#: reading old modules): such a row gives a `LegacyBasisWarning` and is recorded as what the policy
#: makes it -- strict -- with {"kind": "legacy", "text": ...} as its basis; tests/repro refuses a
#: committed result with such a row.
LEGACY_GRACE = False


class NotYetError(NotImplementedError):
    """The entry needs a mechanism ccscope does not have yet; the message says which."""


class LegacyBasisWarning(UserWarning):
    """An advisory row uses the pre-VERDICTS.md basis (a free string, or none)."""


class CauseError(ValueError):
    """A cause template cannot be filled from the record (the message names the entry and field)."""


@dataclass
class Run:
    """What `run(quick)` returns: parameters (every [NG] choice), data frames, scalar values,
    errata applied ({"id", "paper", "corrected"}), the seeds used and the variant."""

    params: dict[str, Any] = field(default_factory=dict)
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    errata: list[dict[str, Any]] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    quick: bool = False


# --- bases of advisory rows (docs/VERDICTS.md §2) ------------------------------------------------

@dataclass(frozen=True)
class Basis:
    """Why an advisory row may be advisory; stored in the row as `as_dict()` ({"kind": ...})."""
    kind: str
    fields: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **dict(self.fields)}


def independent(simulator: str, measured: Any, setup: str) -> Basis:
    """Basis §2.2: `simulator` (the paper's own simulator running its own code, or a peer such as
    ns-3 / htsim -- never a port written for ccscope) measured `measured` for the same quantity on
    `setup` (the same setup and seeds) and missed the claim the same way."""
    if not isinstance(simulator, str) or not simulator.strip():
        raise ValueError("independent(): name the simulator, e.g. 'ns-2 (Agent/TCP/Reno, Queue/RED)'")
    if re.search(r"\bport\b|ccscope", simulator, re.I):
        raise ValueError(f"independent(): {simulator!r} is a port written for ccscope, not an independent "
                         "simulator (docs/VERDICTS.md §2.2)")
    m = _plain(measured)
    if m is None or (isinstance(m, str) and not m.strip()):
        raise ValueError("independent(): give the independent simulator's number (measured=)")
    if not isinstance(setup, str) or not setup.strip():
        raise ValueError("independent(): describe the setup and seeds the simulator ran (setup=)")
    return Basis("independent", (("simulator", simulator.strip()), ("measured", m), ("setup", setup.strip())))


def figures_md_path() -> Path | None:
    """FIGURES.md: $CCSCOPE_FIGURES_MD, else shared/FIGURES.md next to the repository, else None."""
    import os
    env = os.environ.get("CCSCOPE_FIGURES_MD")
    if env:
        return Path(env) if Path(env).is_file() else None
    here = Path(__file__).resolve()
    for cand in (here.parents[4] / "shared" / "FIGURES.md", here.parents[3] / "FIGURES.md"):
        if cand.is_file():
            return cand
    return None


@lru_cache(maxsize=4)
def _known_items(path: str) -> dict[str, dict[int, str]]:
    """{paper: {item number: title}} from FIGURES.md's "Known inconsistencies" section."""
    text = Path(path).read_text(encoding="utf-8")
    m = re.search(r"^## Known inconsistencies\s*$", text, re.M)
    if not m:
        return {}
    body = text[m.end():]
    nxt = re.search(r"^## ", body, re.M)
    body = body[:nxt.start()] if nxt else body
    out: dict[str, dict[int, str]] = {}
    paper = None
    for line in body.splitlines():
        h = re.match(r"^### ([a-z-]+)", line)
        if h:
            paper = h.group(1)
            out[paper] = {}
            continue
        it = re.match(r"^(\d+)\. (.*)", line)
        if it and paper:
            title = re.match(r"\*\*(.+?)\*\*", it.group(2))
            out[paper][int(it.group(1))] = (title.group(1) if title else it.group(2)).strip()
    return out


def known_items() -> dict[str, dict[int, str]]:
    """FIGURES.md's known inconsistencies ({} when FIGURES.md is not available)."""
    p = figures_md_path()
    return _known_items(str(p)) if p else {}


def known_inconsistency(paper: str, item: int) -> Basis:
    """Basis §2.3: item `item` of FIGURES.md's "Known inconsistencies" for `paper` (a slug such as
    "periodic" or "dctcp-analysis"); checked against FIGURES.md when it is available."""
    slug = str(paper).replace("_", "-")
    if slug not in PAPER_SLUGS:
        raise ValueError(f"known_inconsistency(): unknown paper {paper!r} (one of {', '.join(PAPER_SLUGS)})")
    if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
        raise ValueError(f"known_inconsistency(): the item is FIGURES.md's item number, got {item!r}")
    item = int(item)
    items = known_items()
    fields: list[tuple[str, Any]] = [("paper", slug), ("item", item)]
    if items:
        if item not in items.get(slug, {}):
            raise ValueError(f"known_inconsistency({slug!r}, {item}): FIGURES.md's Known inconsistencies for "
                             f"{slug} has items {sorted(items.get(slug, {}))}")
        fields.append(("title", items[slug][item]))
    return Basis("known_inconsistency", tuple(fields))


def basis_problem(row: dict[str, Any]) -> str | None:
    """Why a recorded row's basis is not allowed by docs/VERDICTS.md §2 (None if it is, or if the row is
    strict without a basis)."""
    b = row.get("basis")
    if isinstance(b, dict) and b.get("kind") == "legacy":
        return (f"row {row.get('name')!r} was written with a pre-policy basis ({b.get('text') or 'advisory=True'}): "
                "use independent(...), known_inconsistency(...) or a [diagnostic] name")
    if not row.get("advisory"):
        return None
    if str(row.get("name", "")).startswith(DIAGNOSTIC):
        return None
    b = row.get("basis")
    if not isinstance(b, dict):
        return f"advisory row {row.get('name')!r} has no basis"
    if b.get("kind") == "independent":
        if b.get("simulator") and b.get("measured") is not None and b.get("setup"):
            return None
        return f"advisory row {row.get('name')!r}: independent basis lacks simulator, measured or setup"
    if b.get("kind") == "known_inconsistency":
        items = known_items()
        if not items or b.get("item") in items.get(b.get("paper"), {}):
            return None
        return f"advisory row {row.get('name')!r}: no Known inconsistency {b.get('paper')} item {b.get('item')}"
    return f"advisory row {row.get('name')!r}: basis {b!r} is neither independent nor known_inconsistency"


# --- rows and verdicts -------------------------------------------------------------------------

@dataclass
class Check:
    name: str
    measured: Any
    expected: str
    passed: bool
    tolerance: str = ""
    advisory: bool = False
    basis: dict[str, Any] | None = None
    se: float | None = None
    noise: bool = False
    operands: list[Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        if d["operands"] is None:
            del d["operands"]
        return d


def _basis(name: str, advisory: bool, basis: Any) -> tuple[bool, dict[str, Any] | None]:
    """(advisory, basis dict) of a new row, or ValueError (docs/VERDICTS.md §2)."""
    if isinstance(basis, Basis):
        return True, basis.as_dict()
    if name.startswith(DIAGNOSTIC):
        if basis:
            raise ValueError(f"{name!r}: a [diagnostic] row takes no basis")
        return True, None
    if not advisory and not basis:
        return False, None
    what = (f"basis {basis!r} is a string" if basis else "advisory=True without a basis")
    msg = (f"advisory row {name!r}: {what}; use basis=independent(simulator, measured, setup), "
           f"basis=known_inconsistency(paper, item), or name it '{DIAGNOSTIC} ...' (docs/VERDICTS.md §2)")
    if not LEGACY_GRACE:
        raise ValueError(msg)
    warnings.warn(msg + "; recorded as a strict row", LegacyBasisWarning, stacklevel=4)
    return False, {"kind": "legacy", "text": str(basis or "")}


def _finite(x: Any) -> bool:
    try:
        return bool(np.isfinite(float(x)))
    except (TypeError, ValueError):
        return False


class Checks:
    """Accumulates named rows and turns them into a verdict (docs/VERDICTS.md §1)."""

    def __init__(self) -> None:
        self.items: list[Check] = []

    def add(self, name: str, measured: Any, passed: bool, expected: str, tolerance: str = "", *,
            advisory: bool = False, basis: Any = None, se: float | None = None, noise: bool = False,
            operands: list[Any] | None = None) -> bool:
        adv, b = _basis(str(name), advisory, basis)
        self.items.append(Check(str(name), _plain(measured), expected, bool(passed), tolerance, adv, b,
                                _plain(se), bool(noise), _plain(operands) if operands is not None else None))
        return bool(passed)

    def within(self, name: str, measured: float, lo: float, hi: float, tolerance: str = "", *,
               advisory: bool = False, basis: Any = None) -> bool:
        ok = bool(np.isfinite(measured) and lo <= measured <= hi)
        return self.add(name, measured, ok, f"[{lo:.6g}, {hi:.6g}]", tolerance, advisory=advisory, basis=basis)

    def near(self, name: str, measured: float, target: float, tol_abs: float, tolerance: str = "", *,
             advisory: bool = False, basis: Any = None) -> bool:
        ok = bool(np.isfinite(measured) and abs(measured - target) <= tol_abs)
        return self.add(name, measured, ok, f"{target:.6g} ± {tol_abs:.3g}", tolerance, advisory=advisory, basis=basis)

    def rel(self, name: str, measured: float, target: float, tol_rel: float, tolerance: str = "", *,
            advisory: bool = False, basis: Any = None) -> bool:
        ok = bool(np.isfinite(measured) and abs(measured - target) <= tol_rel * abs(target))
        return self.add(name, measured, ok, f"{target:.6g} ± {100 * tol_rel:.3g}%", tolerance, advisory=advisory,
                        basis=basis)

    def beyond(self, name: str, value: float, se: float | None, bound: float, side: str, expected: str = "",
               tolerance: str = "", *, advisory: bool = False, basis: Any = None,
               operands: list[Any] | None = None) -> bool:
        """Threshold row (docs/VERDICTS.md §3): passes iff `value` is on the claimed `side` (">" or "<")
        of `bound` by at least two standard errors. On the claimed side by less: fails with
        `noise: true` ("inside the noise"). `se=None` marks a single-run row without a standard
        error (decided on the side alone; justify it in a comment); a NaN `se` (fewer than two
        seeds) cannot establish the margin and fails as inside the noise."""
        if side not in (">", "<"):
            raise ValueError(f"{name!r}: side must be '>' or '<', got {side!r}")
        margin = (value - bound) if side == ">" else (bound - value)
        single = se is None
        s = 0.0 if single else float(se)
        if not _finite(value) or not _finite(bound):
            passed = noise = False
        elif not single and not (np.isfinite(s) and s >= 0):
            passed, noise = False, bool(margin > 0)
        else:
            need = N_SE * s
            passed = bool(margin > 0 and margin >= need)
            noise = bool(margin > 0 and not passed)
        exp = expected or (f"{side} {bound:.6g}" + ("" if single else f" by ≥ {N_SE:g} se"))
        return self.add(name, value, passed, exp, tolerance, advisory=advisory, basis=basis,
                        se=None if single else s, noise=noise, operands=operands)

    def order(self, name: str, a: float, se_a: float | None, b: float, se_b: float | None, side: str,
              expected: str = "", tolerance: str = "", *, advisory: bool = False, basis: Any = None) -> bool:
        """Ordering row: `beyond` on a - b against 0, with se = hypot(se_a, se_b) (None when both are
        None: single runs). The row's `measured` is a - b and its `operands` [a, b]."""
        if se_a is None and se_b is None:
            s = None
        else:
            s = float(math.hypot(float("nan") if se_a is None else se_a, float("nan") if se_b is None else se_b))
        exp = expected or (f"a {side} b" + ("" if s is None else f" by ≥ {N_SE:g} se"))
        return self.beyond(name, float(a) - float(b), s, 0.0, side, exp, tolerance, advisory=advisory, basis=basis,
                           operands=[a, b])

    @property
    def verdict(self) -> str:
        strict = [c for c in self.items if not c.advisory]
        if not strict:
            return NOT_REPRODUCED
        n_ok = sum(c.passed for c in strict)
        if n_ok == len(strict):
            return REPRODUCED
        return PARTLY if n_ok else NOT_REPRODUCED

    def as_dicts(self) -> list[dict[str, Any]]:
        return [c.as_dict() for c in self.items]


def se(values) -> float:
    """Standard error of the mean: sample standard deviation / sqrt(n) (NaN for n < 2)."""
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float).ravel()
    if x.size < 2:
        return float("nan")
    return float(np.std(x, ddof=1) / math.sqrt(x.size))


def _plain(v: Any) -> Any:
    """JSON-friendly scalars (numpy -> python, NaN kept as None)."""
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if math.isnan(f) else f
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, np.ndarray):
        return [_plain(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def not_yet(needs: str) -> None:
    """Raise the standard 'needs <mechanism>' error of entries whose mechanism is missing."""
    raise NotYetError(f"needs {needs}")


# --- figure helpers ---------------------------------------------------------------------------

def figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.0, **kw):
    """A matplotlib figure on the Agg backend (no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, **kw)
    return fig, axes


def ref_line(ax, y: float, label: str | None = None, *, color: str = "0.3", vertical: bool = False) -> None:
    """A paper reference value drawn dashed (every figure marks the paper's numbers this way)."""
    (ax.axvline if vertical else ax.axhline)(y, ls="--", lw=1.0, color=color, label=label)


def spearman(x, y) -> float:
    from scipy.stats import spearmanr
    r = spearmanr(np.asarray(x, float), np.asarray(y, float)).statistic
    return float(r)


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    return float(np.polyfit(lx, ly, 1)[0])


def verdict(checks: Checks, measured: dict[str, Any] | None = None, *, tolerance: str = "",
            notes: str = "", cause: str | None = None, cause_values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The dict a module's `check(run)` returns. `cause` picks a template of a dict `CAUSE` (None: no
    cause); `cause_values` are the numbers the template reads as {v.name}. `notes` is the old free
    text, kept only while modules move to `CAUSE`."""
    out = {"verdict": checks.verdict, "measured": _plain(measured or {}), "checks": checks.as_dicts(),
           "tolerance": tolerance, "notes": notes}
    if cause is not None:
        out["cause"] = cause
    if cause_values is not None:
        out["cause_values"] = _plain(cause_values)
    return out


# --- cause templates (docs/VERDICTS.md §5) -----------------------------------------------------

class _Fields:
    """Attribute (and item) access to a record's dict for a template: {v.a.b}, {m.x}, {v.xs[0]}."""

    def __init__(self, data: Any, path: str, where: str) -> None:
        self._data, self._path, self._where = data, path, where

    def _get(self, key: Any) -> Any:
        d = self._data
        try:
            val = d[key] if isinstance(d, dict) else d[int(key)]
        except (KeyError, IndexError, TypeError, ValueError):
            have = ", ".join(sorted(map(str, d))) if isinstance(d, dict) else f"{type(d).__name__}"
            raise CauseError(f"{self._where} needs {{{self._path}.{key}}}: the record has no {key!r} in "
                             f"{self._path} (has: {have or 'nothing'})") from None
        return _Fields(val, f"{self._path}.{key}", self._where) if isinstance(val, (dict, list)) else val

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        return self._get(key)

    def __getitem__(self, key: Any) -> Any:
        return self._get(key)

    def __format__(self, spec: str) -> str:
        return format(self._data, spec) if spec else _fmt_plain(self._data)

    def __str__(self) -> str:
        return _fmt_plain(self._data)


def _fmt_plain(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt_plain(x) for x in v) + "]"
    if isinstance(v, dict):
        return ", ".join(f"{k} = {_fmt_plain(x)}" for k, x in v.items())
    return str(v)


class _CauseFormatter(string.Formatter):
    def __init__(self, where: str) -> None:
        self.where = where

    def get_value(self, key, args, kwargs):
        if isinstance(key, int) or key not in kwargs:
            raise CauseError(f"{self.where}: field {{{key}}} is neither {{v.name}} (cause_values) nor "
                             "{m.name} (measured)")
        return kwargs[key]

    def format_field(self, value, format_spec):
        if isinstance(value, _Fields):
            value = value._data
        if value is None and format_spec:
            value = float("nan")  # a NaN stored as null in JSON
        if format_spec:
            try:
                return format(value, format_spec)
            except (TypeError, ValueError) as e:
                raise CauseError(f"{self.where}: cannot format {value!r} with '{format_spec}': {e}") from None
        return _fmt_plain(value)


def _module(module: ModuleType | str) -> ModuleType:
    if isinstance(module, str):
        from ccscope.repro import registry
        return registry.get(module)
    return module


def cause_template(module: ModuleType | str, record: dict[str, Any]) -> tuple[str, str | None]:
    """(where, template) of the cause `record` selects from the module's CAUSE (template None: no cause)."""
    mod = _module(module)
    eid = getattr(mod, "ID", getattr(mod, "__name__", "?"))
    cause = getattr(mod, "CAUSE", None)
    if cause is None:
        return eid, None
    if isinstance(cause, str):
        if "cause" in record and record["cause"] is None:
            return eid, None
        return f"{eid}: CAUSE", cause
    if isinstance(cause, dict):
        key = record.get("cause")
        if key is None:
            return eid, None
        if key not in cause:
            raise CauseError(f"{eid}: check() chose cause {key!r}, CAUSE has {', '.join(map(repr, cause))}")
        return f"{eid}: CAUSE[{key!r}]", cause[key]
    raise CauseError(f"{eid}: CAUSE must be a str or a dict of str, not {type(cause).__name__}")


def render_cause(module: ModuleType | str, record: dict[str, Any]) -> str:
    """The module's cause text filled from `record` ({v.x}: record["cause_values"], {m.x}:
    record["measured"], nested dicts by attribute); "" when the module or the record selects none.
    Raises CauseError naming the entry and the missing field."""
    where, tpl = cause_template(module, record)
    if tpl is None:
        return ""
    values = record.get("cause_values") or {}
    measured = record.get("measured") or {}
    fmt = _CauseFormatter(where)
    return fmt.vformat(tpl, (), {"v": _Fields(values, "v", where), "m": _Fields(measured, "m", where)})


#: Reference forms whose digits a cause may contain (docs/VERDICTS.md §5, contract item 4).
REFERENCE_FORMS = re.compile("|".join([
    r"§\s?[\dIVX]+(?:\.[\dA-Za-z]+)*",                       # §4.5, §II.C.2
    r"\beqs?\.?\s?\d+(?:\s?[–-]\s?\d+)?",                    # eq 3, eqs 3-4
    r"\bFig(?:ure)?s?\.?\s?\d+(?:\([a-z]\)|[a-z])?(?:\s?[–-]\s?\d+[a-z]?)?",   # Fig 12, Figs 7-8, Fig 4(c)
    r"\bfig\d+[a-z]?(?:-n\d+)?",                             # entry items: fig4c, fig2-n10
    r"\bTables?\s?\d+(?:\s?[–-]\s?\d+)?",                    # Table 1
    r"\b(?:Theorem|Lemma|Corollary|Proposition|Appendix|footnote|ineq\.?|item)s?\s?\d+(?:\s?[–-]\s?\d+)?",
    r"\bns-[23]\b",                                          # ns-2, ns-3
    r"\bP00\d\b",                                            # P001
    r"\bRFC\s?\d+",                                          # RFC 6298
    r"\bE\d+\b",                                             # erratum E23
    r"\b[PXYA]0\b",                                          # setups P0, X0, Y0, A0
    r"(?<![\w.])[A-Za-zα-ωΑ-Ω]_?[0-2](?!\w|\.\d)",              # symbols with a subscript: q0, R0, Z1, x_2
    r"\bdocs/[\w./#-]+",                                     # docs/models/periodic_ns2.md
    r"\b(?:dctcp-analysis|periodic|asm|coexistence|dx)/[\w-]+",   # entry IDs
]))


def _templates(mod: ModuleType) -> list[tuple[str, Any]]:
    cause = getattr(mod, "CAUSE", None)
    if cause is None:
        return []
    if isinstance(cause, dict):
        return [(f"CAUSE[{k!r}]", t) for k, t in cause.items()]
    return [("CAUSE", cause)]


def cause_lint(module: ModuleType | str) -> list[str]:
    """Problems of a module's CAUSE (contract item 4): every digit of a template's literal text is in a
    {field}, a reference form (REFERENCE_FORMS) or a string of the module's PAPER_NUMBERS; fields are
    {v.name} or {m.name}. [] when clean (or when the module has no CAUSE)."""
    mod = _module(module)
    eid = getattr(mod, "ID", getattr(mod, "__name__", "?"))
    problems: list[str] = []
    pn = getattr(mod, "PAPER_NUMBERS", ())
    if isinstance(pn, str) or not all(isinstance(x, str) and x for x in pn):
        problems.append(f"{eid}: PAPER_NUMBERS must be a tuple of non-empty strings")
        pn = ()
    cause = getattr(mod, "CAUSE", None)
    if cause is not None and not isinstance(cause, (str, dict)):
        return [f"{eid}: CAUSE must be a str or a dict of str"]
    for where, tpl in _templates(mod):
        if not isinstance(tpl, str):
            problems.append(f"{eid}: {where} is not a str")
            continue
        try:
            parsed = list(string.Formatter().parse(tpl))
        except ValueError as e:
            problems.append(f"{eid}: {where}: {e}")
            continue
        for literal, fname, _spec, _conv in parsed:
            if fname is not None and not re.match(r"^[vm][.\[]", fname):
                problems.append(f"{eid}: {where}: field {{{fname}}} is neither {{v.name}} nor {{m.name}}")
            allowed = [False] * len(literal)
            spans = [m.span() for m in REFERENCE_FORMS.finditer(literal)]
            for num in pn:
                # a whole number only: "1" does not cover the 1 of "12" or of "0.1"
                spans += [(m.start(), m.end()) for m in re.finditer(r"(?<![\d.])" + re.escape(num) + r"(?!\.?\d)",
                                                                    literal)]
            for a, b in spans:
                allowed[a:b] = [True] * (b - a)
            for m in re.finditer(r"\d", literal):
                if allowed[m.start()]:
                    continue
                ctx = literal[max(0, m.start() - 30):m.end() + 30].strip()
                problems.append(f"{eid}: {where}: the digit {m.group()!r} in {ctx!r} is neither in a {{field}}, "
                                "a reference (§4.5, eq 3, Fig 12, Table 1, E23, ns-2, P001, docs/...) nor in "
                                "PAPER_NUMBERS")
                break
    return problems
