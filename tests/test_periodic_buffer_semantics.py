"""The bottleneck buffer of `cc.scenario.periodic` follows ns-2's `queue-limit`, the buffer P001 sets
(B = 50, 750, ...): ns-2's DropTail counts the packet being transmitted against the limit (it drops an
arrival once the waiting queue + 1 reaches the limit, queue/drop-tail.cc; ns-2.35 with limit 50 holds at
most 49 waiting packets while one is on the wire), while ns-2's RED compares its limit with the waiting
queue alone (queue/red.cc). The engine's port limit counts waiting packets, so a DropTail bottleneck of
B packets is a port limit of B - 1."""
from __future__ import annotations

import ccscope as cc


def _bottleneck(sc):
    return {(lk["from"], lk["to"]): lk for lk in sc["topology"]["links"]}[("M2", "M3")]


def test_droptail_buffer_counts_the_packet_on_the_wire():
    # 50 flows starting together overflow a 20-packet buffer at once: at most 19 packets wait
    sc = cc.scenario.periodic(50, rtt="fixed", aqm=cc.aqm.drop_tail(), buffer_pkts=20, start_spread_s=0.0,
                              min_rto_s=1.0)
    assert _bottleneck(sc)["buffer_pkts"] == 19
    res = cc.simulate(sc, until_s=60.0, record=["queue", "drops"])
    q = res.traces["queue"]
    q = q[q.port == "M2->M3"]
    drops = res.traces["drops"]
    assert (drops.port == "M2->M3").sum() > 0  # the buffer did overflow
    assert q.queue_pkts.max() == 19  # waiting packets; the 20th of the buffer is the one being sent


def test_red_limit_is_the_waiting_queue():
    red = cc.aqm.red(min_th_pkts=5, max_th_pkts=15, max_p=0.1, w_q=0.002, action="drop")
    sc = cc.scenario.periodic(50, rtt="fixed", aqm=red, buffer_pkts=30)
    assert _bottleneck(sc)["buffer_pkts"] == 30
