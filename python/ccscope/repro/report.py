"""Generate docs/REPRODUCTIONS.md and docs/gallery.md from the latest result.json files.

One row per FIGURES.md ID (claim | measured | verdict | figure), the full variant preferred and the
quick one shown when no full run exists; a section per disagreement (any entry that is not
`reproduced`, and every advisory check that fails), and the known inconsistencies of FIGURES.md with
our analysis of each.

Output rules (ccscope._outdir, docs/reliability.md): only REPRODUCTIONS.md, gallery.md and the
thumbnails under gallery/ are written, each atomically; an existing REPRODUCTIONS.md or gallery.md
that this command did not generate is refused unless `force`; nothing else in `docs` is touched.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ccscope import _outdir
from ccscope.repro import registry
from ccscope.repro._base import SIMULATOR_MISSES_TOO
from ccscope.repro.runner import latest_results

#: FIGURES.md "Known inconsistencies", each with the entry that handles it and what we found.
KNOWN = [
    ("dctcp-analysis", "1", "Hybrid model vs 55:67:185 ms (Fig 12)", "dctcp-analysis/fig12b",
     "The hybrid model (ccscope.fluid.dctcp_hybrid) gives 274.6 / 330.7 / 866.7 RTT, i.e. 55 / 66 / 173 ms with "
     "RTT = d; ratio 1 : 1.20 : 3.16 vs the paper's 1 : 1.22 : 3.36. No single RTT unit matches all three; the "
     "fig12 entries report the d-based times and the ratio."),
    ("dctcp-analysis", "2", "g in Fig 12(c): 5/sqrt(Wmax) vs 5/Wmax", "dctcp-analysis/fig12c",
     "We use the caption's 5/Wmax = 0.025 (5/sqrt(Wmax) = 0.354 would not be 'reduced')."),
    ("dctcp-analysis", "3", "\"K = 35 (or 17% of the BDP)\"", "dctcp-analysis/text-guidelines",
     "35/166.7 = 21% of Cd; 35 is 17% of Cd + K. Recorded as erratum dctcp-3 in the result."),
    ("dctcp-analysis", "4", "Fixed point W = 2/wbar", "dctcp-analysis/fig2-n100",
     "The change of variables does not rescale W: the fixed point is W = 2 (E2); text-normalization and fig4 "
     "confirm (2, 1, 2/wbar - 1) numerically."),
    ("dctcp-analysis", "5", "Marking at q >= K vs q > K", "dctcp-analysis/fig2-n2",
     "The engine marks q > K (threshold `mark_at_or_above = false`), as eq 8; +-1 packet is below every tolerance."),
    ("dctcp-analysis", "6", "The 1.4x convergence bound", "dctcp-analysis/text-convergence-rate",
     "Exact rates: beta_TCP/beta_DCTCP = 1.56 at W* = 100 (g = 1/sqrt(W*)), tending to 2 log 2 = 1.39 only as "
     "W* -> infinity (checked within 2% at W* = 1e4)."),
    ("dctcp-analysis", "7", "Propagator exp(int J)", "dctcp-analysis/fig6",
     "fig6 uses the fundamental matrix of the variational equation (E8) and cross-checks with a finite-difference "
     "Jacobian of the return map (agreement < 5%, < 1e-4 absolute where rho < 1e-3)."),
    ("dctcp-analysis", "8", "Queue ~120 at N = 100 depends on the ns-2 ECN-Echo growth rule", "dctcp-analysis/fig2-n100",
     "The entry runs with `ecn_echo_blocks_growth = true` (ns-2) and states it in its parameters."),
    ("dctcp-analysis", "9", "Worst undershoot at wbar 12-16 / 94% at g = 0.1", "dctcp-analysis/fig7",
     "The model's worst undershoot is at wbar ~ 12 on our grid (the paper says 12-16, [DER] 10-14); fig9 records "
     "the borderline 93.95% at g = 0.1, psi = 0.001 as an advisory check."),
    ("dctcp-analysis", "10", "\"Before 1 s, flow 1 has alpha = 0\"", "dctcp-analysis/fig12b",
     "Read as a reset at 1 s in the hybrid model (fig12b-d's predictions). The packet runs do not reset alpha: "
     "flow 1 enters t = 1 s with the alpha it holds alone (~0.1), which the fig12 causes state."),
    ("dctcp-analysis", "11", "Unstated ns-2 details", "dctcp-analysis/fig10",
     "Every [NG] choice is recorded in each result.json under `parameters`."),
    ("periodic", "1", "Fig 11 step 0.002 vs 0.005", "periodic/fig11", "Mean epoch measured 0.00502 (E24)."),
    ("periodic", "2-3, 5-6, 9", "Server-side delay, short RTT, RED thresholds, figure references", "periodic/fig4a",
     "Server side 650 ms on S-M1 (E20, ccscope.scenario.periodic); short RTT = 40 ms with ~0 server delay (fig7b, E21); "
     "RED max_th = 15 as Figs 6b/9c/10a, with max_th = 50 also run and recorded in fig4c/fig4d (8.3% -> 6.5% fixed, "
     "22.4% -> 15.2% variable); epochs separated by > 1 s (E23)."),
    ("periodic", "4", "rN = 12.5 not an integer", "periodic/fig11", "Independent resets with probability r (E25)."),
    ("periodic", "7", "Corollary 1 with large capped mass", "periodic/text-toy-bounded",
     "At D = 0.03 the finite model's mean epoch is ~0.0071, not rC/N = 0.005: recorded as advisory."),
    ("periodic", "8", "Theorem 4's sum has no upper limit", "periodic/text-toy-jitter",
     "We check Lemma 1/2 exactly and the i.i.d. mean epoch; the L ~ N/r horizon is assumed."),
    ("asm", "1-3", "Sign of the switching rule; missing N; x2 definition", "asm/fig3",
     "ccscope.fluid.asm uses the A0 reading (E34, E37, E38); fig3 checks the root classes with N alpha."),
    ("asm", "4", "QCN delay bound printed omega* and gamma", "asm/text-qcn-delay-bound",
     "Corrected bound (E33) 270.71 us at 10 Gb/s and 27.07 us at 100 Gb/s; the exact delay margin is below it."),
    ("asm", "6", "\"b- != 0 is sufficient\" is false", "asm/text-sliding-condition",
     "The defaults of §5.1 sit exactly on the boundary (M(a-, b-) = 1); a compliant set needs b- > w a- + pC/w."),
    ("asm", "5, 7-9", "Typos and unstated simulation parameters", "asm/fig5a",
     "Typos read as intended (e^{-tau s}, A-dot, Lambda, RP). Three links per direction (fig10's 60 us RTT). "
     "Unstated values are [NG] choices in each result.json: quantization 1 pkt at 128 units, rates clamped to "
     "[10 Mb/s, line rate], QCN timer 15 ms, Qeq = q0. §4.5's de-duplication follows its stated purpose: "
     "a source is not sampled while a feedback to it is still in flight (dedup_expiry = delivered, the default). "
     "The literal reading (not sampled again until another source is) freezes a lone source and starves "
     "sources at MinRate; it is shown as advisory rows in fig1 and fig6-fig11."),
    ("coexistence", "1", "Three meanings of 'back-off factor'", "coexistence/fig1",
     "0.215 is DCTCP's mean alpha: beta = 0.8925, T_r = 4.65 (E64); coexistence/fig1 checks 4.65 exactly."),
    ("coexistence", "2", "Fig 4(c) caption swaps min_th/max_th", "coexistence/fig4c",
     "min_th fixed at 45, max_th varied 65-200 (the text's reading)."),
    ("coexistence", "3", "BDP ~22 packets", "coexistence/fig2", "1 Gb/s x 250 us / 12000 bit = 20.8 pkts."),
    ("coexistence", "4", "K for Fig 3(a)/(b) not given", "coexistence/fig3a", "K = 65 (between Fig 3(c)'s 20 and 150)."),
    ("coexistence", "5-7", "Modified CHOKe rule; conclusion vs §IV.C; unstated parameters", "coexistence/fig6a",
     "Modified CHOKe: m independent samples, all m must match to mark the arrival and the matches (E63). Our RED "
     "T_r rises with max_th (fig4c), so neither the conclusion nor §IV.C's 2.7 -> 2.25 appears (cause in fig4c). "
     "Unstated values are [NG] choices recorded per result (g = 1/16, 5 s runs, starts U(0, 50 ms), p_max 0.1, "
     "w_q 0.002, max_th 100 for CHOKe, RTO_min 200 ms, servers alternate DCTCP/TCP)."),
    ("dx", "1", "\"N > 50 at 200 us\"", "dx/text-stability-thresholds",
     "Theorem 1 (tau = R0) gives N > 70 at 200 us (E51); the other thresholds (28, 42, 139, 145 us) reproduce."),
    ("dx", "2", "Phase sign in eqs 15/17", "dx/fig1a",
     "Evaluated literally, eq 17 is negative (-89 us at N = 50, R0 = 80 us); with the sign fix (E50) "
     "G(j w_c) = -1 at tau* to 1e-9 (dx/text-equilibrium)."),
    ("dx", "3", "What tau is", "dx/text-stability-thresholds", "tau = R0 reproduces the paper's numbers (E53)."),
    ("dx", "4-10", "Special-state inequality, Table 1 mean, boundary cases, fluid-model limits", "dx/table1",
     "Theorem 2's N >= C R0/seg is used (at 80 us the packet path's R0 includes serializations, C R0/seg = 68.75: "
     "with exact R0 every window sits at 1 seg and the queue at N - 68.75 pkts, docs/engine.md). Table 1's p is measured per cell (0.69-0.89 outside the special state, "
     "> 0.99 in it). N = 100 at 120 us sits on the boundary: ccscope gives 100% utilization there. "
     "Outside the special state the packet DX is a whole-segment on/off loop whose utilization follows "
     "BDP/N, not Theorem 1's margin (cause in dx/table1); the fluid model's (1 - p) seg growth is kept as "
     "printed (p = 0.95) and its W >= seg clamp is added for the special state."),
]


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k} = {_fmt(x)}" for k, x in list(v.items())[:6])
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v[:6]) + "]"
    return str(v)


def _measured(rec: dict) -> str:
    m = rec.get("measured") or {}
    items = [(k, v) for k, v in m.items() if not isinstance(v, (dict, list))][:4]
    if not items:
        items = list(m.items())[:2]
    return "; ".join(f"{k} = {_fmt(v)}" for k, v in items).replace("|", "/")


THUMB_DIR = "gallery"
THUMB_WIDTH_PX = 400
THUMB_COLORS = 96


def _thumbnail(src: Path, dst: Path) -> Path | None:
    """A small palette PNG of `src` at `dst` (400 px wide, 96 colours: ~15-30 KB, readable at the gallery's
    260 px). Rewritten only when its bytes change, so an unchanged figure leaves git clean. None if the
    figure is missing or unreadable."""
    import io

    from PIL import Image

    try:
        with Image.open(src) as im:
            im = im.convert("RGB")
            h = max(1, round(im.height * THUMB_WIDTH_PX / im.width))
            im = im.resize((THUMB_WIDTH_PX, h), Image.Resampling.LANCZOS)
            im = im.quantize(colors=THUMB_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
            buf = io.BytesIO()
            im.save(buf, format="PNG", optimize=True)
    except (OSError, ValueError):
        return None
    data = buf.getvalue()
    if not (dst.is_file() and dst.read_bytes() == data):
        with _outdir.atomic_file(dst) as tmp:
            tmp.write_bytes(data)
    return dst


#: Text every page this module generates carries near its top (how an earlier page is recognised).
GENERATED_SIGN = "ccscope repro report"
#: Bytes read from the top of an existing page to find GENERATED_SIGN.
SIGN_PROBE_BYTES = 2048
PAGES = ("REPRODUCTIONS.md", "gallery.md")


def check_docs(docs: Path | str, *, force: bool = False) -> Path:
    """Check that the report may be written into `docs` (raises `OutputRefused`): a directory (or a new
    path), whose REPRODUCTIONS.md / gallery.md, where present, were generated by this command (or
    `force`), and whose gallery/ is a directory."""
    docs = Path(docs)
    if os.path.lexists(docs) and not docs.is_dir():
        raise _outdir.OutputRefused(docs, "an existing file, not a directory", fix="give a directory")
    for name in PAGES:
        p = docs / name
        if os.path.lexists(p) and not p.is_file():
            raise _outdir.OutputRefused(p, "not a regular file", fix="choose another --docs directory")
        if p.is_file() and not force:
            try:
                with open(p, "rb") as fh:
                    head = fh.read(SIGN_PROBE_BYTES).decode("utf-8", "replace")
            except OSError:
                head = ""
            if GENERATED_SIGN not in head:
                raise _outdir.OutputRefused(p, f"an existing file not generated by `{GENERATED_SIGN}`",
                                            forceable=True, fix="choose another --docs directory",
                                            force_does="to replace it")
    g = docs / THUMB_DIR
    if os.path.lexists(g) and not g.is_dir():
        raise _outdir.OutputRefused(g, "an existing file, not a directory", fix="move it away")
    return docs


def write(out_root: Path | str, docs: Path | str, *, force: bool = False) -> list[Path]:
    """Write docs/REPRODUCTIONS.md, docs/gallery.md and the thumbnails (see `check_docs` for what is
    refused); returns the two pages."""
    out_root, docs = Path(out_root), Path(docs)
    check_docs(docs, force=force)
    docs.mkdir(parents=True, exist_ok=True)
    res = latest_results(out_root)
    rows, disagreements, gallery, set_aside = [], [], [], []
    counts: dict[str, int] = {}
    total_wall = 0.0
    for e in registry.entries():
        m = e.load()
        r = res.get(e.id, {})
        rec = r.get("full") or r.get("quick")
        if rec is None:
            verdict = "not yet" if registry.verdict(e.id) == "not yet" else "not run"
            variant, meas, fig = "", "", ""
        else:
            verdict, variant, meas = rec["verdict"], rec["variant"], _measured(rec)
            total_wall += rec.get("wall_s", 0.0) if rec["variant"] == "full" else 0.0
            fig = ""
            if rec.get("figure"):
                rel = os.path.relpath(rec["figure"], docs)
                thumb = _thumbnail(Path(rec["figure"]), docs / THUMB_DIR / (e.id.replace("/", "__") + ".png"))
                trel = os.path.relpath(thumb, docs) if thumb else None
                fig = (f"[thumbnail]({trel}) · " if trel else "") + f"[png]({rel})"
                gallery.append((e.id, rel, trel, verdict))
        if rec is not None and verdict == "reproduced" and any(
                c.get("basis") == SIMULATOR_MISSES_TOO and not c["passed"] for c in rec.get("checks", [])):
            set_aside.append(e.id)
        key = verdict + (f" ({variant})" if variant else "")
        counts[key] = counts.get(key, 0) + 1
        claim = m.CLAIM.replace("|", "/").replace("\n", " ")
        rows.append(f"| `{e.id}` | {m.KIND} | {claim} | {meas} | {verdict}{' (' + variant + ')' if variant else ''} | {fig} |")
        if rec is not None and (verdict not in ("reproduced", "not yet") or
                                any(c["advisory"] and not c["passed"] for c in rec.get("checks", []))):
            lines = [f"### `{e.id}` — {verdict} ({variant})", ""]
            for c in rec.get("checks", []):
                if not c["passed"]:
                    tag = f"advisory ({c.get('basis') or 'known paper inconsistency'})" if c["advisory"] else "failed"
                    lines.append(f"- {tag}: **{c['name']}**: measured {_fmt(c['measured'])}, expected {c['expected']} "
                                 f"({c['tolerance']})")
            if rec.get("notes"):
                lines.append(f"- cause: {rec['notes']}")
            if rec.get("message"):
                lines.append(f"- {rec['message']}")
            disagreements.append("\n".join(lines) + "\n")
        elif rec is None and registry.verdict(e.id) == "not yet":
            pass
    not_yet = [e.id for e in registry.entries() if registry.verdict(e.id) == "not yet"]
    md = ["# Reproductions", "",
          "Generated by `ccscope repro report` from the latest `repro-out/**/result.json`; do not edit by hand.",
          "Each row: the paper's claim (FIGURES.md), what ccscope measured, the verdict of the entry's check "
          "(tolerances are justified in each module), and the figure. The full variant is shown where it was run, "
          "else the quick one.", "",
          "## Counts", "", "| verdict | entries |", "| --- | --- |"]
    md += [f"| {k} | {v} |" for k, v in sorted(counts.items())]
    if set_aside:
        md += ["", f"{len(set_aside)} of the reproduced entries fail a FIGURES.md inference that a reference simulator run "
               "on the same setup misses the same way (ns-2, the simulator P000 and P001 ran; for DCTCP with the sender of P000 §2 added, docs/models/dctcp_ns2.md); those checks are kept as advisory rows, with the reference simulator's number, in the "
               "section of each entry below: " + ", ".join(f"`{x}`" for x in set_aside) + "."]
    md += ["", f"Wall time of the full runs recorded here: {total_wall:.0f} s.", "",
           "## Table", "", "| ID | kind | claim | measured | verdict | figure |", "| --- | --- | --- | --- | --- | --- |"]
    md += rows
    md += ["", "## Disagreements and their causes", ""]
    md += disagreements or ["None recorded.\n"]
    md += ["## Known inconsistencies (FIGURES.md) and our analysis", "", "| paper | item | inconsistency | entry | our analysis |",
           "| --- | --- | --- | --- | --- |"]
    md += [f"| {p} | {i} | {t} | `{e}` | {a} |" for p, i, t, e, a in KNOWN]
    md += ["", "## Not yet reproducible", "",
           (f"{len(not_yet)} entries need mechanisms the engine does not have yet (each module's NEEDS says which): "
            + ", ".join(f"`{x}`" for x in not_yet) + ".") if not_yet
           else "None: every entry has a module that runs its mechanism.", ""]
    p1 = docs / "REPRODUCTIONS.md"
    with _outdir.atomic_file(p1) as tmp:
        tmp.write_text("\n".join(md))
    g = ["# Gallery", "", "Thumbnails of the latest reproduction figures (`ccscope repro report` rebuilds this page and "
         f"the thumbnails in `docs/{THUMB_DIR}/`, which are kept in git; each links to the full figure under "
         "`repro-out/`, which `make repro` or `ccscope repro run ID` writes).", ""]
    for eid, rel, trel, verdict in gallery:
        g.append(f"<a href=\"{rel}\"><img src=\"{trel or rel}\" width=\"260\" title=\"{eid}: {verdict}\" alt=\"{eid}\"></a>")
    g += ["", "| ID | verdict |", "| --- | --- |"] + [f"| [`{eid}`]({rel}) | {v} |" for eid, rel, _t, v in gallery]
    p2 = docs / "gallery.md"
    with _outdir.atomic_file(p2) as tmp:
        tmp.write_text("\n".join(g) + "\n")
    return [p1, p2]
