"""asm/fig1: the 802.1Qau loop (CP samples with probability p, sends feedback, the RP rate limiter reacts),
checked structurally on the `fig5a` run through the engine's feedback trace.

Run: the `fig5a` scenario (A0 dumbbell, 3 ASM sources starting at 500 Mb/s on 1 Gb/s, 2 µs per link,
q0 = 64 pkts, 87-pkt buffer, p = 0.01, seed 1; quick 0.3 s, full 0.5 s) with the `feedback` trace and the
hosts' egress links recorded every 1 µs (recording does not change the run: the CP sees the same arrivals
and drops as `fig5a`). Each feedback frame gives a "sent" row at the CP (port = the CP, its index is the
CPID; flow = destination; a, b = quantized Qf, dQ) and an "applied" row when it reaches the source.

Expected feedback count. Every data frame arriving at the CP (dropped ones too: the CP samples before the
buffer decides) is a Bernoulli(p) trial, except frames that the §4.5 de-duplication makes ineligible. ccscope
follows §4.5 literally (engine default `dedup_expiry = "never"`, docs/VERDICTS.md §4): the CP records the
destination of its last feedback and does not sample that source's frames until a frame of another source is
sampled. So N − p·n_eligible is a sum of centred Bernoulli terms: |N − p·n_elig| ≤ 3·sqrt(n_elig·p(1 − p)).
n_elig is counted from the hosts' egress links: a host link's 1 µs samples show in which microsecond each
frame started (at most one: a frame takes 12 µs), and it reaches the CP 12 µs serialization + 6 µs
propagation later; a frame of feedback k's destination (other than the sampled one) whose arrival can lie
between the sample and the next feedback counts as ineligible (certain if its whole 1 µs arrival interval
lies inside, possible if it overlaps; half the difference is added to the tolerance).

De-duplication check: FIGURES.md's "no two consecutive feedbacks to the same source", exact under the
literal rule. Labelled variants, reported as [diagnostic] rows only: `dedup_expiry = "delivered"` (the
memory also ends when the feedback reaches its source, §4.5's stated purpose; its count against p × its own
eligible arrivals, and no feedback generated while the previous one to the same source was in flight) and
`dedup = false`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig1'
TITLE = '802.1Qau loop: CP samples with probability p, sends feedback, RP rate limiter reacts'
KIND = 'sim (schematic)'
COST = 'full: the fig5a run × 3 (literal §4.5, the delivered variant, no de-duplication; 0.5 s, ≈ 42 k pkts each, ~4 s with 1 µs link sampling); quick: fig5a quick (0.3 s)'
CLAIM = ('Switches sample arriving frames with probability p, compute the congestion measure from the queue and '
         'send feedback frames carrying their CPID to the sampled frame\'s source, whose rate limiter reacts.')
CP = "sw->r0"
CAUSE = ("Under §4.5's literal rule the CP sent {v.n_feedback} feedback frames for {v.cp_arrivals} arrivals, "
         "{v.frac_of_naive:.2f} of p × all arrivals ({v.naive_expected_n:.1f}): between {v.ineligible_certain} and "
         "{v.ineligible_possible} frames arrived while their source was the last feedback's destination, leaving "
         "{v.eligible_arrivals:.0f} eligible (expected {v.expected_n:.1f} ± {v.sd_n:.1f}); "
         "{v.consecutive_same} consecutive feedbacks went to the same source. The delivered variant (diagnostic) "
         "sends {v.delivered_n}, no de-duplication {v.nodedup_n}.")


def _scenario(until: float, **aqm_extra) -> dict:
    s = _a0.scenario("asm", n=3, rate_bps=1e9, q0_pkts=64, until_s=until, link_delay_s=2e-6, buffer_pkts=87,
                     initial_rate_bps=5e8)
    s["aqm"].update(aqm_extra)
    s["record"] = {"traces": ["queue", "link", "rate", "drops", "feedback"], "queue_interval_s": 1e-6,
                   "ports": [CP, "s0->sw", "s1->sw", "s2->sw"]}
    return s


def _frames(res) -> dict[int, np.ndarray]:
    """Per flow: the 1 µs intervals (lo, hi] in which each of its frames reaches the CP (host link samples:
    a frame starts in the sample interval where tx_bytes steps; + serialization + propagation)."""
    lk, ports = res.traces["link"], res.ports.set_index("name")
    out = {}
    for _, fr in res.flows.iterrows():
        port = f"{fr.src}->sw"
        g = lk[lk.port == port]
        t = g.time_s.to_numpy()
        n = np.rint(np.diff(g.tx_bytes.to_numpy(), prepend=0) / _a0.PKT).astype(int)
        assert n.max() <= 1, "at most one frame start per sample interval"
        shift = float(ports.delay_s[port]) + _a0.PKT * 8 / float(ports.rate_bps[port])
        hi = t[n == 1] + shift
        out[int(fr.flow)] = np.column_stack([hi - 1e-6, hi])
    return out


def _eligible(frames: dict[int, np.ndarray], sent: pd.DataFrame, until: float, *, memory: str) -> dict:
    """(all, ineligible certain, ineligible possible) CP arrivals for the de-duplication `memory`
    ("delivered": a feedback's destination is skipped from the sample until the feedback reaches it or another
    source is sampled; "never": until another source is sampled)."""
    t_fb, d_fb = sent.time_s.to_numpy(), sent.flow.to_numpy()
    nxt = np.append(t_fb[1:], until)
    if memory == "delivered":
        arr = sent.applied_s.to_numpy()
        end = np.minimum(nxt, np.where(np.isnan(arr), until, arr))
    else:
        end = nxt
    # frames still on the wire at the end have not reached the CP (a 1 µs arrival interval may straddle it)
    n_all = int(sum((v[:, 1] <= until).sum() for v in frames.values()))
    n_all_max = int(sum((v[:, 0] < until).sum() for v in frames.values()))
    certain = possible = 0
    for t0, t1, d in zip(t_fb, end, d_fb):
        iv = frames[int(d)]
        lo, hi = iv[:, 0], iv[:, 1]
        own = (lo < t0) & (t0 <= hi + 1e-12)             # the sampled frame itself
        assert own.sum() == 1, "the sampled frame is found in its source's link trace"
        certain += int((~own & (lo >= t0) & (hi < t1)).sum())
        possible += int((~own & (hi > t0) & (lo < t1)).sum())
    return {"n_all": n_all, "n_all_max": n_all_max, "inelig_certain": certain, "inelig_possible": possible}


def _count(res, until: float, memory: str) -> dict:
    """Feedback count, eligible arrivals and the expected count for one run."""
    pairs = _a0.feedback_pairs(res)
    e = _eligible(_frames(res), pairs, until, memory=memory)
    n_elig = 0.5 * (e["n_all"] + e["n_all_max"] - e["inelig_certain"] - e["inelig_possible"])
    flows = pairs.flow.to_numpy()
    same = flows[1:] == flows[:-1]
    # a repeat to the same source generated before the previous feedback to it had arrived
    in_flight = int((same & (pairs.time_s.to_numpy()[1:] < pairs.applied_s.to_numpy()[:-1])).sum())
    return {"n": len(pairs), **e, "n_elig": n_elig, "expected_n": _a0.P * n_elig,
            "sd_n": float(np.sqrt(n_elig * _a0.P * (1 - _a0.P))),
            "ambiguity_n": _a0.P * 0.5 * (e["n_all_max"] - e["n_all"] + e["inelig_possible"] - e["inelig_certain"]),
            "consecutive_same": int(same.sum()), "repeat_in_flight": in_flight}


def run(quick: bool) -> Run:
    until = 0.3 if quick else 0.5
    res = cc.simulate(_scenario(until))
    pairs = _a0.feedback_pairs(res)
    fb = res.traces["feedback"]
    n_applied_rows = int((fb.event == "applied").sum())
    ports = res.ports.set_index("name")
    cp_index = int(res.ports.index[res.ports.name == CP][0])
    cp_arrivals = int(ports.arrivals[CP])
    cnt = _count(res, until, "never")
    # reverse path of each feedback: CP switch -> the flow's source host (64-B frame + propagation)
    src_of = res.flows.set_index("flow").src
    rev = np.array([float(ports.delay_s[f"sw->{src_of[f]}"]) + 64 * 8 / float(ports.rate_bps[f"sw->{src_of[f]}"])
                    for f in pairs.flow])
    ap = pairs[pairs.applied_s.notna()]
    rev_ap = rev[pairs.applied_s.notna().to_numpy()]
    in_flight_ok = bool((pairs[pairs.applied_s.isna()].time_s > until - rev.max()).all())
    # the RP's reaction: eq 11 with the §5.1 gains, clamped to [MinRate, C] (ALGORITHMS.md §5.1)
    ref = _a0.asm_step(ap.a, ap.b, 1e9)
    expect = np.clip(ap.rate_before_bps.to_numpy() + ref.delta_bps.to_numpy(), _a0.MIN_RATE_BPS, 1e9)
    rp_err = float(np.max(np.abs(expect - ap.rate_after_bps.to_numpy()))) if len(ap) else float("nan")
    # diagnostics: the "delivered" variant, and no de-duplication (every arrival eligible)
    var = _count(cc.simulate(_scenario(until, dedup_expiry="delivered")), until, "delivered")
    res_nd = cc.simulate(_scenario(until, dedup=False))
    nd = _a0.feedback_pairs(res_nd)
    q = _a0.series(res, CP)
    q = q.iloc[::20].reset_index(drop=True)        # 20 µs grid for the figure
    vals = {"until_s": until, "n_feedback": len(pairs), "n_applied_rows": n_applied_rows,
            "n_applied_matched": len(ap), "cp_arrivals": cp_arrivals, "arrivals_from_hosts": cnt["n_all"],
            "arrivals_from_hosts_max": cnt["n_all_max"],
            "ineligible_certain": cnt["inelig_certain"], "ineligible_possible": cnt["inelig_possible"],
            "eligible_arrivals": cnt["n_elig"], "expected_n": cnt["expected_n"], "sd_n": cnt["sd_n"],
            "ambiguity_n": cnt["ambiguity_n"], "naive_expected_n": _a0.P * cp_arrivals,
            "delay_min_s": float(ap.delay_s.min()), "delay_max_s": float(ap.delay_s.max()),
            "delay_path_err_s": float(np.max(np.abs(ap.delay_s.to_numpy() - rev_ap))), "in_flight_at_end_ok": in_flight_ok,
            "cpid_sent": sorted(set(pairs.cpid)), "cpid_applied": sorted(set(ap.applied_cpid)), "cp_index": cp_index,
            "sent_ports": sorted(set(pairs.port)), "consecutive_same": cnt["consecutive_same"],
            "repeat_in_flight": cnt["repeat_in_flight"], "rp_max_err_bps": rp_err,
            "per_flow": {int(k): int(v) for k, v in pairs.flow.value_counts().sort_index().items()},
            "drops": _a0.drops(res), "delivered": var,
            "nodedup_n": len(nd), "nodedup_same_as_default": bool(
                len(nd) == len(pairs) and np.array_equal(nd.time_s.to_numpy(), pairs.time_s.to_numpy())
                and np.array_equal(nd.flow.to_numpy(), pairs.flow.to_numpy()))}
    return Run(params={**_a0.FIG5_PARAMS, "until_s": until, "cp": CP, "link_sample_s": 1e-6,
                       "dedup": "§4.5 literally: memory until another source is sampled (engine default "
                                "dedup_expiry = never)"},
               frames={"feedback": pairs, "queue": q, "rate": res.traces["rate"]}, values=vals, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    # binomial: each eligible arrival is a Bernoulli(p) trial; 3 s.d. (FIGURES.md), plus half the frames whose
    # 1 µs arrival interval straddles an in-flight window (none expected here)
    c.near("feedback count vs p × eligible arrivals at the CP", v["n_feedback"], v["expected_n"],
           3 * v["sd_n"] + v["ambiguity_n"], "3 binomial s.d.")
    c.add("arrivals counted from the hosts = CP arrivals", f"{v['arrivals_from_hosts']}-{v['arrivals_from_hosts_max']}",
          v["arrivals_from_hosts"] <= v["cp_arrivals"] <= v["arrivals_from_hosts_max"], f"{v['cp_arrivals']}",
          "exact (range: a frame's 1 µs arrival interval may straddle the end)")
    c.add("every feedback applied once at the sampled frame's source", f"{v['n_applied_matched']} of {v['n_feedback']}",
          v["n_applied_matched"] == v["n_applied_rows"] and v["in_flight_at_end_ok"]
          and v["n_feedback"] - v["n_applied_matched"] <= 1, "all (except one in flight at the end)", "exact")
    # the reverse path is sw -> source: 6 µs propagation + 64 B at 1 Gb/s = 6.512 µs, no queueing
    c.add("feedback delay − reverse path (max |err|, s)", v["delay_path_err_s"], v["delay_path_err_s"] < 1e-9,
          "0", "< 1 ns")
    c.add("CPID read at the source = emitting port's index", f"{v['cpid_applied']} / port {v['cp_index']}",
          v["cpid_applied"] == [v["cp_index"]] and v["cpid_sent"] == [v["cp_index"]] and v["sent_ports"] == [CP],
          f"[{v['cp_index']}] ({CP})", "exact")
    # §4.5 literally (FIGURES.md: no two consecutive feedbacks to the same source)
    c.add("consecutive feedbacks to the same source", v["consecutive_same"], v["consecutive_same"] == 0, "0",
          "exact (§4.5 de-duplication)")
    c.add("RP reaction = eq 11 with §5.1 gains, clamped (max |err|, bps)", v["rp_max_err_bps"],
          v["rp_max_err_bps"] < 1.0, "0", "< 1 bps")
    # diagnostics: the "delivered" variant of §4.5, and the rule switched off
    dv = v["delivered"]
    c.near("[diagnostic] dedup_expiry = delivered: count vs p × its eligible arrivals", dv["n"],
           dv["expected_n"], 3 * dv["sd_n"] + dv["ambiguity_n"], "3 binomial s.d.")
    c.add("[diagnostic] dedup_expiry = delivered: feedbacks generated while the previous one to the same source "
          "was in flight", dv["repeat_in_flight"], dv["repeat_in_flight"] == 0, "0", "exact")
    c.add("[diagnostic] dedup = false: same feedback sequence as the delivered variant",
          v["nodedup_n"] == dv["n"], v["nodedup_n"] == dv["n"], "True", "count")
    cv = {k: v[k] for k in ("n_feedback", "cp_arrivals", "eligible_arrivals", "expected_n", "sd_n", "naive_expected_n",
                            "ineligible_certain", "ineligible_possible", "consecutive_same", "nodedup_n")}
    cv["delivered_n"] = dv["n"]
    cv["frac_of_naive"] = v["n_feedback"] / v["naive_expected_n"]
    return verdict(c, {**{k: v[k] for k in ("n_feedback", "expected_n", "sd_n", "naive_expected_n", "eligible_arrivals",
                                            "ineligible_certain", "ineligible_possible", "cp_arrivals", "delay_min_s",
                                            "consecutive_same", "repeat_in_flight", "rp_max_err_bps", "per_flow",
                                            "nodedup_n")},
                       "delivered": {k: dv[k] for k in ("n", "expected_n", "sd_n", "n_elig", "repeat_in_flight")}},
                   tolerance="count within 3 binomial s.d. of p × eligible arrivals; structure exact",
                   cause_values=cv)


def plot(run: Run):
    fig, axes = figure(3, 1, width=8, height=7, sharex=True)
    fb, q, r = run.frames["feedback"], run.frames["queue"], run.frames["rate"]
    ax = axes[0, 0]
    ax.plot(q.time_s * 1e3, q.queue_pkts, lw=0.6, color="0.2", label=f"queue at the CP ({CP})")
    ref_line(ax, 64, "q0 = 64 pkts")
    ax.set_ylabel("queue (pkts)")
    ax.legend(fontsize=7, loc="upper right")
    ax = axes[1, 0]
    cols = {0: "C0", 1: "C1", 2: "C2"}
    ref = _a0.asm_step(fb.a, fb.b, 1e9)
    for f, g in fb.groupby("flow"):
        dec = ref.delta_bps.to_numpy()[fb.flow.to_numpy() == f] < 0
        ax.plot(g.time_s[dec] * 1e3, np.full(dec.sum(), f), "v", ms=3, color=cols.get(f, "k"))
        ax.plot(g.time_s[~dec] * 1e3, np.full((~dec).sum(), f), "^", ms=3, color=cols.get(f, "k"), mfc="none")
    ax.plot([], [], "kv", ms=3, label="feedback sent: decrease")
    ax.plot([], [], "k^", ms=3, mfc="none", label="feedback sent: increase")
    ax.set_yticks(sorted(fb.flow.unique()))
    ax.set_ylabel("destination source")
    ax.set_ylim(-0.7, 2.7)
    ax.legend(fontsize=7, loc="upper right", ncol=2)
    ax = axes[2, 0]
    for f, g in r.groupby("flow"):
        ax.step(g.time_s * 1e3, g.rate_bps / 1e6, where="post", lw=0.7, color=cols.get(f, "k"), label=f"source {f}")
        a = fb[(fb.flow == f) & fb.applied_s.notna()]
        ax.plot(a.applied_s * 1e3, a.rate_after_bps / 1e6, ".", ms=2.5, color=cols.get(f, "k"))
    ref_line(ax, 1e3 / 3, "C/3")
    ax.set_ylabel("source rate (Mb/s)")
    ax.set_xlabel("time (ms)")
    ax.legend(fontsize=7, loc="upper right", ncol=4)
    v = run.values
    axes[0, 0].set_title(f"802.1Qau loop on the fig5a run (Fig. 1): {v['n_feedback']} feedbacks, expected "
                         f"{v['expected_n']:.0f} ± {v['sd_n']:.0f}; dots = rate after each applied feedback",
                         fontsize=8)
    fig.tight_layout()
    return fig
