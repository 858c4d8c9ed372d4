"""`ccscope new-cc NAME`: the Rust template, its registration lines and its test skeleton, written
into a copy of the crate sources (no build here: the edits are checked where they must be); one
test builds and runs the generated test when CCSCOPE_BUILD_NEW_CC=1 (minutes)."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ccscope import new_cc as nc

ROOT = Path(__file__).resolve().parents[1]
CC = nc.CC_DIR


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "crates", tmp_path / "crates", ignore=shutil.ignore_patterns("target"))
    for f in ("Cargo.toml", "Cargo.lock"):
        shutil.copy2(ROOT / f, tmp_path / f)
    return tmp_path


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([sys.executable, "-m", "ccscope", "new-cc", *args], capture_output=True, text=True,
                          cwd=cwd, env=env)


def nc_builtin_before() -> list[str]:
    """The built-in kinds of the repository's kind.rs (before new-cc adds one)."""
    kind = (ROOT / CC / "kind.rs").read_text()
    m = re.search(r"pub const BUILTIN: \[CcKind; (\d+)\] = \[(.*?)\];", kind, flags=re.S)
    return re.findall(r"CcKind::\w+", m.group(2))


def block(text: str, header: str) -> str:
    """From the line containing `header` to its matching closing brace."""
    i = text.index(header)
    j = text.index("{", i)
    depth = 0
    for k in range(j, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return text[i:k + 1]
    raise AssertionError(f"unbalanced braces after {header!r}")


def balanced(text: str) -> bool:
    code = re.sub(r"//[^\n]*", "", re.sub(r'r#".*?"#|"(\\.|[^"\\])*"', '""', text, flags=re.S))
    return all(code.count(a) == code.count(b) for a, b in ("{}", "()", "[]"))


def test_new_cc_writes_the_template_the_registrations_and_the_test_skeleton(tree):
    p = cli("tcp_v2", cwd=tree / "crates")  # found from a subfolder of the repository
    assert p.returncode == 0, p.stderr
    assert "create crates/ccscope-core/src/cc/tcp_v2.rs" in p.stdout
    src = (tree / CC / "tcp_v2.rs").read_text()
    assert "pub struct TcpV2 {" in src and "impl RenoBased for TcpV2 {" in src and "fn window_mut" in src
    test = (tree / nc.TESTS_DIR / "cc_tcp_v2.rs").read_text()
    assert 'cc = "tcp_v2"' in test and 'finish().expect("packet conservation holds")' in test

    mod = (tree / CC / "mod.rs").read_text()
    mods = [ln for ln in mod.splitlines() if ln.startswith("pub mod ")]
    assert "pub mod tcp_v2;" in mods and mods == sorted(mods)
    assert "pub use tcp_v2::TcpV2;" in mod
    enum = block(mod, "pub enum Cc {")
    assert enum.index("TcpV2(TcpV2),") < enum.index("Ext(Box<ExtCc>)")
    assert "Cc::TcpV2($c) => $e," in block(mod, "macro_rules! dispatch")

    fac = (tree / CC / "factory.rs").read_text()
    assert "use super::tcp_v2::TcpV2;" in fac
    new = block(fac, "pub fn new(kind: CcKind, p: &CcParams) -> Cc {")
    assert "CcKind::TcpV2 => Cc::TcpV2(TcpV2::new(mss, iw, p.ecn, dupacks))," in new
    assert "Cc::TcpV2(c) => c.window()," in block(fac, "pub fn window(&self)")
    assert "Cc::TcpV2(c) => c.window_mut()," in block(fac, "pub fn window_mut(&mut self)")
    assert "(Cc::TcpV2(_), CcKind::TcpV2) => true," in block(fac, "fn each_kind_gets_its_controller")

    kind = (tree / CC / "kind.rs").read_text()
    enum = block(kind, "pub enum CcKind {")
    assert re.search(r"\n    TcpV2,\n", enum) and enum.index("TcpV2,") < enum.index("Ext(ExtId)")
    m = re.search(r"pub const BUILTIN: \[CcKind; (\d+)\] = \[(.*?)\];", kind, flags=re.S)
    entries = re.findall(r"CcKind::\w+", m.group(2))
    assert int(m.group(1)) == len(entries) == len(nc_builtin_before()) + 1 and entries[-1] == "CcKind::TcpV2"
    assert 'CcKind::TcpV2 => "tcp_v2",' in block(kind, "pub fn name(self)")
    for f in (CC / "tcp_v2.rs", nc.TESTS_DIR / "cc_tcp_v2.rs", CC / "mod.rs", CC / "factory.rs", CC / "kind.rs"):
        assert balanced((tree / f).read_text()), f
    assert not list(tree.rglob(".*new-cc*")), "temporary files left behind"


@pytest.mark.parametrize("name, needle", [
    ("9lives", "must be a Rust identifier"), ("My-cc", "must be a Rust identifier"),
    ("type", "not a Rust keyword"), ("a_1", "must be a Rust identifier"), ("dctcp", "kind of that name exists"),
    ("cc", "type name `Cc` is already used"), ("reno_window", "`RenoWindow` is already used"),
])
def test_a_bad_name_is_one_error_line_and_changes_nothing(tree, name, needle):
    before = snapshot(tree)
    p = cli(name, "--root", str(tree), cwd=tree)
    assert p.returncode == 2, p.stdout
    assert "Traceback" not in p.stderr and needle in p.stderr and name in p.stderr
    assert len(p.stderr.strip().splitlines()) <= 3  # one line, wrapped by the terminal width at most
    assert snapshot(tree) == before


def test_an_existing_file_is_refused_by_name(tree):
    (tree / nc.TESTS_DIR / "cc_mine.rs").write_text("// someone's test\n")
    before = snapshot(tree)
    p = cli("mine", "--root", str(tree), cwd=tree)
    assert p.returncode == 2 and "tests/cc_mine.rs: exists already" in p.stderr.replace("\n", "")
    assert snapshot(tree) == before


def test_dry_run_prints_the_changes_and_writes_nothing(tree):
    before = snapshot(tree)
    p = cli("mine", "--dry-run", cwd=tree)
    assert p.returncode == 0, p.stderr
    assert "would create crates/ccscope-core/src/cc/mine.rs" in p.stdout
    assert "would edit crates/ccscope-core/src/cc/kind.rs" in p.stdout
    # one line per change, unwrapped whatever the terminal width
    assert "would edit crates/ccscope-core/src/cc/mod.rs: `pub mod mine;`, `pub use mine::Mine;`, variant " \
           "`Cc::Mine` and its dispatch! arm\n" in p.stdout
    assert len(p.stdout.splitlines()) == 5
    assert snapshot(tree) == before


def _drop_marker(text: str, what: str) -> str:
    lines = text.split("\n")
    keep = [ln for ln in lines if not ln.strip().startswith(f"// new-cc: {what} ")]
    assert len(keep) == len(lines) - 1, what
    return "\n".join(keep)


@pytest.mark.parametrize("doubled", [False, True], ids=["missing", "doubled"])
def test_a_missing_or_doubled_marker_is_refused_before_anything_is_written(tree, doubled):
    f = tree / CC / "factory.rs"
    text = f.read_text()
    if doubled:
        marker = next(ln for ln in text.split("\n") if "// new-cc: Cc::window_mut arms " in ln)
        text = text.replace(marker, marker + "\n" + marker)
    else:
        text = _drop_marker(text, "Cc::window_mut arms")
    f.write_text(text)
    before = snapshot(tree)
    with pytest.raises(nc.NewCcError, match=r"cc/factory.rs: cannot place the Cc::window_mut arms: expected "
                                            rf"exactly one marker line `// new-cc: Cc::window_mut arms`, found "
                                            rf"{2 if doubled else 0}"):
        nc.plan(tree, "mine")
    p = cli("mine", "--root", str(tree), cwd=tree)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert snapshot(tree) == before


def test_the_lines_go_above_the_markers_whatever_the_code_around_them(tree):
    """The registration lines follow the `// new-cc:` marker comments, not lines of code: the
    code next to each marker rewritten (arms reordered, bindings renamed), new-cc still places
    every line, right above its marker."""
    edits = {
        "factory.rs": [("CcKind::Qcn | CcKind::Asm | CcKind::Cbr => {", "CcKind::Asm | CcKind::Qcn | CcKind::Cbr => {"),
                       ("Cc::Ext(c) => c.window(),", "Cc::Ext(ext) => ext.window(),"),
                       ("Cc::Ext(c) => c.window_mut(),", "Cc::Ext(ext) => ext.window_mut(),"),
                       ("use super::reno::{RenoWindow, ABC_LIMIT_SEGMENTS};",
                        "use super::reno::{ABC_LIMIT_SEGMENTS, RenoWindow};"),
                       ("CcKind::NewReno | CcKind::Reno | CcKind::Cubic => ecn,",
                        "CcKind::Reno | CcKind::NewReno | CcKind::Cubic => ecn,")],
        "mod.rs": [("Cc::Ext($c) => $e,", "Cc::Ext($c) => { $e }")],
        "kind.rs": [("CcKind::Ext(id) => ext::spec(id).name,", "CcKind::Ext(i) => ext::spec(i).name,")],
    }
    for f, pairs in edits.items():
        path = tree / CC / f
        text = path.read_text()
        for old, new in pairs:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        path.write_text(text)
    p = cli("mine", "--root", str(tree), cwd=tree)
    assert p.returncode == 0, p.stderr
    for f, what, line in [
        ("factory.rs", "use lines", "use super::mine::Mine;"),
        ("factory.rs", "Cc::new arms", "CcKind::Mine => Cc::Mine(Mine::new(mss, iw, p.ecn, dupacks)),"),
        ("factory.rs", "Cc::window arms", "Cc::Mine(c) => c.window(),"),
        ("factory.rs", "Cc::window_mut arms", "Cc::Mine(c) => c.window_mut(),"),
        ("factory.rs", "kind test arms", "(Cc::Mine(_), CcKind::Mine) => true,"),
        ("factory.rs", "ECT test arms", "CcKind::Mine => ecn,"),
        ("mod.rs", "Cc variants", "Mine(Mine),"),
        ("mod.rs", "dispatch! arms", "Cc::Mine($c) => $e,"),
        ("kind.rs", "CcKind variants", "Mine,"),
        ("kind.rs", "name() arms", 'CcKind::Mine => "mine",'),
    ]:
        lines = [ln.strip() for ln in (tree / CC / f).read_text().split("\n")]
        at = [i for i, ln in enumerate(lines) if ln.startswith(f"// new-cc: {what} ")]
        assert len(at) == 1 and lines[at[0] - 1] == line, (f, what, lines[at[0] - 2:at[0] + 1])
    for f in ("mod.rs", "factory.rs", "kind.rs"):
        assert balanced((tree / CC / f).read_text()), f


def test_a_failure_while_renaming_puts_every_file_back(tree, monkeypatch):
    before = snapshot(tree)
    plan = nc.plan(tree, "mine")
    real, calls = os.replace, []

    def flaky(a, b):
        calls.append(b)
        if len(calls) == 4:
            raise OSError(28, "No space left on device", str(b))
        real(a, b)

    monkeypatch.setattr(nc.os, "replace", flaky)
    with pytest.raises(nc.NewCcError, match="No space left on device.*nothing was changed"):
        nc.apply(plan)
    assert snapshot(tree) == before  # no new file, no edited file, no temporary file


def test_outside_a_repository_it_says_where_to_run_it(tmp_path):
    p = cli("mine", cwd=tmp_path)
    assert p.returncode == 2 and "no crates/ccscope-core/src/cc/mod.rs" in p.stderr


@pytest.mark.skipif(not os.environ.get("CCSCOPE_BUILD_NEW_CC"),
                    reason="builds the engine (minutes): set CCSCOPE_BUILD_NEW_CC=1")
def test_the_generated_controller_compiles_and_its_test_passes(tree):
    shutil.copytree(ROOT / "scenarios", tree / "scenarios")  # the engine embeds scenarios and CDFs
    assert cli("mine", cwd=tree).returncode == 0
    env = {**os.environ, "CARGO_TARGET_DIR": os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))}
    p = subprocess.run(["cargo", "test", "--release", "-p", "ccscope-core", "--test", "cc_mine", "--lib", "--",
                        "mine", "factory"], cwd=tree, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "mine_runs_a_dumbbell_and_conserves_packets ... ok" in p.stdout
