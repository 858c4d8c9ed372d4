"""TCP NewReno (RFC 5681, RFC 6582) as a Python controller, registered as `py_new_reno`.

The same arithmetic, in the same order, as the engine's built-in `new_reno` (cc/reno.rs with the
scenario defaults: no ns-2 options, `tcp.ca_increase = "per_ack"`), so that a run with
`cc = "py_new_reno"` gives bit-identical traces (tests/test_py_cc_equivalence.py).
"""
from ccscope import cc


class NewReno(cc.Controller):
    #: ECN-capable and halving on ECN-Echo: the built-in does so with tcp.ecn = true (not modelled
    #: here: py_new_reno is the built-in with tcp.ecn = false, the default).
    ecn = False
    #: floor of the window after an ECN cut, segments
    min_cwnd_pkts = 1.0

    def __init__(self, ctx):
        super().__init__(ctx)
        self.ss_limit = ctx.ss_limit_pkts * self.mss
        self.min_cwnd = self.min_cwnd_pkts * self.mss

    def grow(self, acked):
        """Slow start below ssthresh (at most ss_limit per ACK), else + MSS * min(acked, MSS) / cwnd."""
        if self.cwnd_bytes < self.ssthresh_bytes:
            self.cwnd_bytes += min(acked, self.ss_limit)
        else:
            self.cwnd_bytes += self.mss * min(acked, self.mss) / self.cwnd_bytes

    def halve_ssthresh(self, flight_bytes):
        self.ssthresh_bytes = max(flight_bytes / 2.0, 2.0 * self.mss)

    def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
        if in_recovery:  # partial ACK: deflate by the data acknowledged, add back one MSS
            self.cwnd_bytes = max(self.cwnd_bytes - acked_bytes + self.mss, self.mss)
        else:
            self.grow(float(acked_bytes))

    def on_dup_ack(self, now_s, ece, flight_bytes, in_recovery, snd_una, snd_nxt):
        if in_recovery:  # each further duplicate ACK: one segment has left the network
            self.cwnd_bytes += self.mss

    def on_congestion(self, now_s, kind, flight_bytes):
        self.halve_ssthresh(flight_bytes)
        if kind == "fast_retransmit":
            self.cwnd_bytes = self.ssthresh_bytes + self.ctx.dupack_threshold * self.mss
        elif kind == "timeout":
            self.cwnd_bytes = self.mss
        else:  # "ecn"
            self.cwnd_bytes = max(self.ssthresh_bytes, self.min_cwnd)

    def on_recovery_end(self, now_s, flight_bytes):
        self.cwnd_bytes = max(min(self.ssthresh_bytes, flight_bytes + self.mss), self.mss)


cc.register_cc("py_new_reno", NewReno)
