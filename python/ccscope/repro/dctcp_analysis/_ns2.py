"""ns-2 transport settings of the dctcp-analysis packet runs (P000 ran ns-2; docs/VERDICTS.md §4).

Decided from ns-2.35's source before the runs under the verdict policy, and kept whatever the verdicts:
- RTO: TcpAgent::rtt_update (tcp/tcp.cc) counts RTT samples in ticks of `tcpTick_` (ns-default.tcl:
  `Agent/TCP set tcpTick_ 0.01`, also the value of the DCTCP authors' ns-2 scripts), keeps srtt / rttvar in fixed
  point (`T_SRTT_BITS 3`, `T_RTTVAR_BITS 2`), times one segment per RTT (`rtt_active_` / `rtt_seq_`;
  `timestamps_ false`); rtt_timeout() clamps at `minrto_ 0.2` and `maxrto_ 60`, never under 2 ticks. Engine:
  `rto_estimator = "ns2_ticks"`, `clock_granularity_s = 0.01`, `rtt_sampling = "once_per_rtt"`.
- ECT on retransmissions: TcpAgent::output sets `hf->ect() = 1` whenever `ecn_` is on, retransmissions included
  (`ect_on_retransmissions = True`; ccscope's DCTCP does so by default).
- DCTCP's ECN-Echo rule: the ns-2 DCTCP scripts set `Agent/TCP set old_ecn_ 1` for every TCP agent (decision
  written before the run that uses it: docs/models/dctcp_ns2.md, "Open: `old_ecn_`"): recv_newack_helper's
  `if (!ect_ || !ecnecho || (old_ecn_ && ecn_burst_)) opencwnd();` opens the window on every new ACK except the
  first ECN-Echo ACK after ACKs without one -> `ns2_old_ecn` (on top of `ns2_ecn_first`; it takes the place of
  the engine's `ecn_echo_blocks_growth` for these flows).
- Marking: P000's switch is ns-2's RED used as a step marker (`thresh_ = maxthresh_ = K`, `q_weight_ 1`); its
  `qlen > 1` guard in REDQueue::enque never acts at these K (>= 4 packets), so the engine's threshold marker is it.
  TCP-RED of Fig 13 is ns-2's RED with the rules of `coexistence._red` (small-queue guard, `wait_`, marking above
  max_th as with the DCTCP patch's `mark_p_`, whole-packet idle count `ns2_idle_truncate`: red.cc enque
  `m = int(edp_.ptc * (now - idletime_))`; fig13.py builds that RED and passes its options).
- NewReno recovery, ns-2.35's defaults, for NewReno and DCTCP flows alike (ns-2's DCTCP is `Agent/TCP/Newreno`
  with `dctcp_ true`, docs/models/dctcp_ns2.md):
  * partial ACK: ns-default.tcl `Agent/TCP/Newreno set partial_window_deflation_ 1` (changed to 1 on 5/5/03 to
    reflect RFC 2582); tcp-newreno.cc partialnewack: `if (dupwnd_ > deflate) dupwnd_ -= (deflate - 1); else
    { cwnd_ -= (deflate - dupwnd_); dupwnd_ = 1; }`, `if (cwnd_ < 1) cwnd_ = 1` -> `ns2_partial_window_deflation`.
  * leaving recovery: `Agent/TCP/Newreno set exit_recovery_fix_ 0`; tcp-newreno.cc recv on `seqno >= recover_`:
    `dupwnd_ = 0`, cwnd_ kept, then recv_newack_helper -> opencwnd() -> `ns2_exit_recovery`.
  * limited transmit: `Agent/TCP set singledup_ 1`; tcp-newreno.cc recv `else if (dupacks_ < numdupacks_ &&
    singledup_) send_one();`, tcp.cc send_one: one new segment if `t_seqno_ <= highest_ack_ + wnd_ && t_seqno_ <
    curseq_ && t_seqno_ <= highest_ack_ + cwnd_ + dupacks_` -> `ns2_limited_transmit`.
  * halving: tcp-newreno.cc dupack_action (and tcp.cc ecn for NewReno) -> tcp.cc `slowdown(CLOSE_SSTHRESH_HALF|
    CLOSE_CWND_HALF)` with `Agent/TCP set precisionReduce_ true`: `halfwin = windowd() / 2`, windowd() =
    min(cwnd_, wnd_) there, `ssthresh_ = (int) halfwin` (>= 2), `cwnd_ = halfwin` (>= 1) -> `ns2_halve_window`
    (ccscope's NewReno halved the flight); a timeout's ssthresh from the same halfwin (tcp.cc timeout,
    `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`), except after an ECN cut (next item).
  * timeout after an ECN cut: tcp.cc timeout, `recover_ = maxseq_` (line 1898) then `else if (highest_ack_ <
    recover_ && last_cwnd_action_ == CWND_ACTION_ECN) slowdown(CLOSE_CWND_ONE);` (lines 1919-1925): cwnd_ = 1,
    ssthresh_ kept, when the last window action was an ECN cut (tcp.cc ecn, line 1443, also DCTCP's cut); then
    `last_cwnd_action_ = CWND_ACTION_TIMEOUT` (line 1946), so a second timeout halves -> `ns2_timeout_after_ecn`.
  * fast-retransmit decision: tcp-newreno.cc dupack_action (lines 113-175; `bugFix_ true`, `lessCareful_
    false`): a cut only when `highest_ack_ > recover_`; recover_ is also set by an ECN cut (tcp.cc ecn), taken
    before the duplicate ACK is counted (recv line 222); below it, after an ECN cut, `if (ecn_ &&
    last_cwnd_action_ == CWND_ACTION_ECN)` retransmits and enters recovery without a second cut (`dupwnd_ =
    numdupacks_`, recover_ kept), otherwise `if (bug_fix_) return;` with no inflation (`exitFastRetrans_ true`)
    -> `ns2_dupack_action`.
  * ECN cut after a timeout: tcp.cc ecn cuts when `seqno > recover_ || last_cwnd_action_ ==
    CWND_ACTION_TIMEOUT` (lines 1438-1443), so the first ECN-Echo after a timeout cuts at once ->
    `ns2_ecn_after_timeout`.
  * order on a new ACK: tcp-newreno.cc recv calls ecn() (line 222) before the exit from recovery and
    recv_newack_helper (opencwnd by the `old_ecn_` rule above): the cut before
    the growth, on the full ACK ending recovery a cut of the inflated window (`windowd()` = cwnd_ + dupwnd_), and
    the flow's first ECN-Echo ACK grows after its cut -> `ns2_ecn_first` (one option: two facets of one order).
  * burst cap: tcp-newreno.cc recv `else if (dupacks_ > numdupacks_ - 1 && newreno_changes_ == 0)
    send_much(0, 0, 2);` (`newreno_changes_ 0`; otherwise `send_much(0, 0, maxburst_)`, `maxburst_ 0` = no cap)
    -> `ns2_recovery_maxburst`.
  The recovery items act only on packet losses, which the marking runs of P000 (buffer 1000 pkts, or Fig 10's 0/1
  marking) do not have after start-up; the halving also acts on NewReno's ECN-Echo cut (Fig 13's TCP-RED).
- Fig 1 is a hardware trace of [1] (Linux hosts, a Broadcom switch), not an ns-2 run: fig1 keeps ccscope's
  defaults.
"""
from __future__ import annotations

#: TcpConfig fields of ns-2's TCP (see the module docstring).
TCP = {"ect_on_retransmissions": True, "rto_estimator": "ns2_ticks", "clock_granularity_s": 0.01,
       "rtt_sampling": "once_per_rtt", "min_rto_s": 0.2, "max_rto_s": 60.0,
       "ns2_partial_window_deflation": True, "ns2_exit_recovery": True, "ns2_limited_transmit": True,
       "ns2_halve_window": True, "ns2_recovery_maxburst": True, "ns2_timeout_after_ecn": True,
       "ns2_dupack_action": True, "ns2_ecn_after_timeout": True, "ns2_ecn_first": True,
       "ns2_old_ecn": True}
