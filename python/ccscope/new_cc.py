"""`ccscope new-cc NAME`: a new window controller in the engine, from a template.

Writes `crates/ccscope-core/src/cc/NAME.rs` (a `RenoBased` controller that starts as NewReno,
with the hooks to change marked), a test skeleton `crates/ccscope-core/tests/cc_NAME.rs` (a
dumbbell run with the new kind that must conserve packets), and the registration lines that
`cc/mod.rs` ("Adding a window algorithm") lists: the `mod`/`use` lines and the `Cc` variant with
its `dispatch!` arm (cc/mod.rs), the `Cc::new`, `Cc::window` and `Cc::window_mut` arms
(cc/factory.rs), and the `CcKind` variant, its place in `BUILTIN` and its `name()` (cc/kind.rs).

Each registration line goes above a marker comment in the source (`// new-cc: Cc::new arms ...`,
see `MARKER`), never next to a particular line of code, so the code around it may change. Every
edit is planned before anything is written: a bad NAME, an existing kind or file, or a source file
whose marker is missing (or doubled) is one error and no change. The files are then written
to temporary names beside their targets and renamed; if a step fails, what was renamed is put
back and the temporary files are removed.

Library code: returns the plan and raises `NewCcError`; the CLI prints.
"""
from __future__ import annotations

import keyword
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

CC_DIR = Path("crates/ccscope-core/src/cc")
TESTS_DIR = Path("crates/ccscope-core/tests")
#: Rust's keywords (strict and reserved, 2021 edition): not usable as a module name.
RUST_KEYWORDS = frozenset("""
as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref
return self Self static struct super trait true type unsafe use where while async await dyn abstract become box
do final macro override priv typeof unsized virtual yield try union
""".split())
#: A kind name: lowercase snake case whose words start with a letter, so that the Rust type name
#: (CamelCase) turns back into the same name under serde's `rename_all = "snake_case"`.
NAME_RE = re.compile(r"[a-z][a-z0-9]*(_[a-z][a-z0-9]*)*")


class NewCcError(Exception):
    """A refused `new-cc`: one line naming the offending name, file or line."""


@dataclass
class Plan:
    """What `new-cc` writes: path (relative to the root) -> new text, and the edits, for `--dry-run`."""

    root: Path
    name: str
    type_name: str
    files: dict[Path, str] = field(default_factory=dict)
    created: list[Path] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)

    def describe(self) -> list[str]:
        lines = [f"create {p}" for p in self.created]
        lines += self.edits
        return lines


def type_name(name: str) -> str:
    """`my_cc` -> `MyCc`."""
    return "".join(w[:1].upper() + w[1:] for w in name.split("_"))


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding crates/ccscope-core/src/cc/mod.rs."""
    for d in (start, *start.parents):
        if (d / CC_DIR / "mod.rs").is_file():
            return d
    return None


def _existing_kinds(kind_rs: str) -> set[str]:
    return set(re.findall(r'CcKind::\w+ => "([a-z0-9_]+)"', kind_rs))


#: The marker comment before which `new-cc` inserts each registration line: `// new-cc: WHAT ...`, one
#: per place, in cc/mod.rs, cc/factory.rs and cc/kind.rs. The code around a marker may change freely.
MARKER = "// new-cc: "


def _insert_at_marker(text: str, what: str, new: str, file: str) -> str:
    """Insert `new` above the single marker line `// new-cc: WHAT` (after its indentation)."""
    lines = text.split("\n")
    tag = f"{MARKER}{what}"
    hits = [i for i, ln in enumerate(lines) if ln.strip() == tag or ln.strip().startswith(tag + " ")]
    if len(hits) != 1:
        raise NewCcError(f"{file}: cannot place the {what}: expected exactly one marker line `{tag}`, found "
                         f"{len(hits)}; put the marker back (git diff {CC_DIR / Path(file).name}) or add the "
                         "lines by hand as cc/mod.rs ('Adding a window algorithm') says")
    i = hits[0]
    return "\n".join(lines[:i] + new.split("\n") + lines[i:])


def _insert_sorted(text: str, prefix: str, line: str, file: str, what: str) -> str:
    """Insert `line` among the consecutive top-level lines starting with `prefix`, keeping them sorted."""
    lines = text.split("\n")
    idx = [i for i, ln in enumerate(lines) if ln.startswith(prefix)]
    if not idx:
        raise NewCcError(f"{file}: cannot place {what}: no line starts with `{prefix}`")
    pos = next((i for i in idx if lines[i] > line), idx[-1] + 1)
    return "\n".join(lines[:pos] + [line] + lines[pos:])


def plan(root: Path, name: str) -> Plan:
    """Check NAME against the sources under `root` and compute every file's new text."""
    shown = name if len(name) <= 80 else name[:80] + "..."
    if not NAME_RE.fullmatch(name) or name in RUST_KEYWORDS or keyword.iskeyword(name):
        raise NewCcError(f"NAME {shown!r}: must be a Rust identifier in lowercase snake case whose words start "
                         "with a letter (e.g. my_cc, tcp_v2), not a Rust keyword")
    if len(name) > 40:
        raise NewCcError(f"NAME {shown!r}: at most 40 characters")
    cc_dir = root / CC_DIR
    sources = {}
    for f in ("mod.rs", "factory.rs", "kind.rs"):
        try:
            sources[f] = (cc_dir / f).read_text()
        except OSError as e:
            raise NewCcError(f"{CC_DIR / f}: cannot read it ({e.strerror or e}); run new-cc in the ccscope "
                             "repository (or give --root)") from None
    kinds = _existing_kinds(sources["kind.rs"])
    if name in kinds:
        raise NewCcError(f"NAME {name!r}: a controller kind of that name exists already "
                         f"(kinds: {', '.join(sorted(kinds))})")
    tname = type_name(name)
    for f, text in sources.items():
        code = "\n".join(ln.split("//")[0] for ln in text.split("\n"))  # comments may name examples
        if re.search(rf"\b{re.escape(tname)}\b", code):
            raise NewCcError(f"NAME {name!r}: its type name `{tname}` is already used in {CC_DIR / f}")
    src_file, test_file = CC_DIR / f"{name}.rs", TESTS_DIR / f"cc_{name}.rs"
    for p in (src_file, test_file):
        if (root / p).exists():
            raise NewCcError(f"{p}: exists already; new-cc never overwrites a file")

    p = Plan(root=root, name=name, type_name=tname)
    mod = sources["mod.rs"]
    mod = _insert_sorted(mod, "pub mod ", f"pub mod {name};", "cc/mod.rs", "the mod line")
    mod = _insert_sorted(mod, "pub use ", f"pub use {name}::{tname};", "cc/mod.rs", "the use line")
    mod = _insert_at_marker(mod, "Cc variants", f"    {tname}({tname}),", "cc/mod.rs")
    mod = _insert_at_marker(mod, "dispatch! arms", f"            Cc::{tname}($c) => $e,", "cc/mod.rs")
    p.edits += [f"edit {CC_DIR / 'mod.rs'}: `pub mod {name};`, `pub use {name}::{tname};`, "
                f"variant `Cc::{tname}` and its dispatch! arm"]

    fac = sources["factory.rs"]
    fac = _insert_at_marker(fac, "use lines", f"use super::{name}::{tname};", "cc/factory.rs")
    fac = _insert_at_marker(fac, "Cc::new arms",
                            f"            CcKind::{tname} => Cc::{tname}({tname}::new(mss, iw, p.ecn, dupacks)),",
                            "cc/factory.rs")
    fac = _insert_at_marker(fac, "Cc::window arms", f"            Cc::{tname}(c) => c.window(),", "cc/factory.rs")
    fac = _insert_at_marker(fac, "Cc::window_mut arms", f"            Cc::{tname}(c) => c.window_mut(),",
                            "cc/factory.rs")
    # the factory's own test checks every built-in kind: teach it the new one (ECT follows tcp.ecn)
    fac = _insert_at_marker(fac, "kind test arms", f"                (Cc::{tname}(_), CcKind::{tname}) => true,",
                            "cc/factory.rs")
    fac = _insert_at_marker(fac, "ECT test arms", f"                    CcKind::{tname} => ecn,", "cc/factory.rs")
    p.edits += [f"edit {CC_DIR / 'factory.rs'}: `use super::{name}::{tname};`, arms in Cc::new, Cc::window, "
                "Cc::window_mut and the kind test"]

    kind = sources["kind.rs"]
    kind = _insert_at_marker(kind, "CcKind variants",
                             f"    /// {tname}: describe the algorithm and cite its source (from `ccscope new-cc`).\n"
                             f"    {tname},", "cc/kind.rs")
    m = re.search(r"pub const BUILTIN: \[CcKind; (\d+)\] = \[", kind)
    if m is None:
        raise NewCcError("cc/kind.rs: cannot place the kind in BUILTIN: no line `pub const BUILTIN: [CcKind; N] = [`")
    n = int(m.group(1))
    start = m.end()
    end = kind.find("];", start)
    if end < 0:
        raise NewCcError("cc/kind.rs: cannot place the kind in BUILTIN: its closing `];` is missing")
    kind = kind[:m.start()] + f"pub const BUILTIN: [CcKind; {n + 1}] = [" + kind[start:end] + \
        f"    CcKind::{tname},\n" + kind[end:]
    kind = _insert_at_marker(kind, "name() arms", f'            CcKind::{tname} => "{name}",', "cc/kind.rs")
    p.edits += [f"edit {CC_DIR / 'kind.rs'}: variant `CcKind::{tname}`, BUILTIN ({n} -> {n + 1} kinds), "
                f'name() -> "{name}"']

    p.files = {src_file: controller_source(name, tname), test_file: test_source(name),
               CC_DIR / "mod.rs": mod, CC_DIR / "factory.rs": fac, CC_DIR / "kind.rs": kind}
    p.created = [src_file, test_file]
    return p


def apply(p: Plan) -> None:
    """Write the plan: every file to a temporary name first, then rename all; undo on error."""
    tmps: dict[Path, Path] = {}
    renamed: list[Path] = []
    backups: dict[Path, str] = {}
    try:
        for rel, text in p.files.items():
            target = p.root / rel
            tmp = target.with_name(f".{target.name}.new-cc-{os.getpid()}")
            tmp.write_text(text)
            tmps[rel] = tmp
            if target.exists():
                backups[rel] = target.read_text()
        for rel, tmp in tmps.items():
            os.replace(tmp, p.root / rel)
            renamed.append(rel)
    except OSError as e:
        for rel in renamed:  # put back what was replaced, remove what was created
            target = p.root / rel
            try:
                if rel in backups:
                    target.write_text(backups[rel])
                else:
                    target.unlink()
            except OSError:
                pass
        for tmp in tmps.values():
            try:
                tmp.unlink()
            except OSError:
                pass
        raise NewCcError(f"{getattr(e, 'filename', None) or p.root}: cannot write ({e.strerror or e}); "
                         "nothing was changed") from None


def controller_source(name: str, tname: str) -> str:
    return f'''//! {tname}: a window controller made by `ccscope new-cc {name}`. It starts as NewReno: change
//! the hooks marked below (docs/extending.md, "Moving a controller to Rust"). Cite the source
//! of each rule (paper, section, equation) next to the code that implements it.

use super::reno::RenoWindow;
use super::{{AckSample, CcProbe, RenoBased}};
use crate::units::SimTime;

/// Minimum cwnd after a cut, packets.
pub const MIN_CWND_PKTS: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct {tname} {{
    pub w: RenoWindow,
    // the algorithm's own state goes here
}}

impl {tname} {{
    /// `ecn`: send ECN-capable packets and react to ECN-Echo (the scenario's `tcp.ecn`).
    pub fn new(mss_bytes: u32, iw_pkts: u32, ecn: bool, dupack_threshold: u32) -> Self {{
        let mut w = RenoWindow::new(mss_bytes, iw_pkts, MIN_CWND_PKTS);
        w.ecn = ecn;
        w.dupack_threshold = dupack_threshold;
        {tname} {{ w }}
    }}
}}

impl RenoBased for {tname} {{
    #[inline]
    fn window(&self) -> &RenoWindow {{
        &self.w
    }}
    #[inline]
    fn window_mut(&mut self) -> &mut RenoWindow {{
        &mut self.w
    }}

    /// A new ACK. CHANGE ME: the growth rule (this is NewReno's: deflate in fast recovery,
    /// otherwise slow start or congestion avoidance).
    #[inline]
    fn on_ack(&mut self, s: &AckSample) {{
        if s.in_recovery {{
            self.w.deflate(s.newly_acked_bytes as f64);
        }} else {{
            self.w.grow(s.newly_acked_bytes as f64);
        }}
    }}

    /// ECN-Echo, once per window. CHANGE ME: the cut (this is NewReno's: halve, RFC 3168 §6.1.2).
    #[inline]
    fn on_ecn_echo(&mut self, _now: SimTime, flight_bytes: u64) {{
        self.w.halve_ssthresh(flight_bytes);
        self.w.cwnd = self.w.ssthresh.max(self.w.min_cwnd);
    }}

    /// What the recorders see (add the algorithm's own state in the tables' `alpha` column if it
    /// has one).
    #[inline]
    fn probe(&self, p: &mut CcProbe) {{
        p.cwnd_bytes = self.w.cwnd;
        p.ssthresh_bytes = self.w.ssthresh;
        p.alpha = f64::NAN;
    }}
}}

#[cfg(test)]
mod tests {{
    use super::*;
    use crate::cc::{{Congestion, CongestionControl}};

    fn ack(una: u64) -> AckSample {{
        AckSample {{
            now: SimTime(0),
            newly_acked_bytes: 1000,
            ece: false,
            rtt: None,
            snd_una: una,
            snd_nxt: una + 10,
            in_recovery: false,
            flight_bytes: 10_000,
        }}
    }}

    /// The rules as written: replace with the algorithm's own (growth, cut, floor). The hooks are
    /// called through `CongestionControl`, as the transport calls them.
    #[test]
    fn grows_on_acks_and_cuts_on_ecn_echo() {{
        let mut c = {tname}::new(1000, 10, true, 3);
        c.w.ssthresh = 0.0; // congestion avoidance
        let before = c.w.cwnd;
        for k in 1..=10 {{
            CongestionControl::on_ack(&mut c, &ack(k));
        }}
        assert!(c.w.cwnd > before);
        CongestionControl::on_congestion(&mut c, SimTime(0), Congestion::EcnEcho, 20_000);
        assert_eq!(c.w.cwnd, 10_000.0);
        assert!(CongestionControl::needs_ecn(&c));
    }}
}}
'''


def test_source(name: str) -> str:
    return f'''//! `{name}` end to end (made by `ccscope new-cc {name}`): a dumbbell run with the new kind
//! conserves packets (`finish()` fails on a violation) and delivers data. Add the algorithm's own
//! regime checks here (queue, utilization, fairness) as tests/behaviour.rs does for DCTCP.

use ccscope_core::output::Column;
use ccscope_core::{{parse, Format, Simulation}};

#[test]
fn {name}_runs_a_dumbbell_and_conserves_packets() {{
    let toml = r#"
seed = 1
until_s = 0.02
[topology]
kind = "dumbbell"
bottleneck_bps = 1e9
rtt_s = 100e-6
buffer_pkts = 100
[flows]
count = 2
cc = "{name}"
"#;
    let sc = parse(toml, Format::Toml).unwrap_or_else(|e| panic!("{{e}}"));
    let mut sim = Simulation::new(&sc, None).unwrap();
    sim.run();
    let o = sim.finish().expect("packet conservation holds");
    let tx = match o.table("link").and_then(|t| t.column("tx_bytes")) {{
        Some(Column::U64(v)) => v.clone(),
        _ => panic!("no link.tx_bytes column"),
    }};
    assert!(
        tx.last().copied().unwrap_or(0) > 1_000_000,
        "the bottleneck carried too little: {{tx:?}}"
    );
}}
'''
