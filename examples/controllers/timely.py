"""TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015,
Algorithm 1) as a Python rate controller on the RDMA transport, registered as `py_timely`.

The built-in `timely` with the scenario defaults of [timely] (crates/ccscope-core/src/rate/timely.rs):
one completion event per `seg_bytes` (64 KB) acknowledged, with that ACK's RTT sample:

    rtt_diff = (1 - alpha) rtt_diff + alpha (new_rtt - prev_rtt);  g = rtt_diff / minRTT
    new_rtt < T_low  : rate += delta
    new_rtt > T_high : rate *= 1 - beta (1 - T_high / new_rtt)
    g <= 0           : rate += N delta  (N = 5 after 5 consecutive negative gradients, else 1)
    g >  0           : rate *= 1 - beta g

the rate kept in [min_rate, line rate]. Defaults: alpha 0.875, beta 0.8, delta 10 Mb/s, T_low 50 us,
T_high 500 us, minRTT 20 us, HAI after 5 events with N = 5, min rate 100 Mb/s, start at line rate.
Bit-identical to the built-in (tests/test_py_rate_equivalence.py): it exercises `on_ack`.
"""
from ccscope import cc


class Timely(cc.RateController):
    rdma = True                  # the RDMA transport: its ACKs carry the RTT samples
    alpha = 0.875
    beta = 0.8
    delta_bps = 10e6
    t_low_s = 50e-6
    t_high_s = 500e-6
    min_rtt_s = 20e-6
    hai_after = 5
    hai_factor = 5
    seg_bytes = 64_000
    min_rate_bps = 100e6
    initial_rate_bps = None      # None: line rate

    def __init__(self, ctx):
        super().__init__(ctx)
        self.line = ctx.line_rate_bps
        self.min_rate = min(self.min_rate_bps, self.line)
        start = self.line if self.initial_rate_bps is None else self.initial_rate_bps
        self.rate_bps = min(max(start, self.min_rate), self.line)
        self.prev_rtt = None
        self.rtt_diff = 0.0
        self.neg_gradients = 0
        self.acked = 0

    def on_ack(self, now_s, acked_bytes, ackno, rtt_s, ecn, data_seq):
        self.acked += acked_bytes
        if self.acked >= self.seg_bytes:   # a completion event
            self.acked %= self.seg_bytes
            self.on_rtt_sample(rtt_s)

    def on_rtt_sample(self, rtt_s):
        if self.prev_rtt is not None:
            self.rtt_diff = (1.0 - self.alpha) * self.rtt_diff + self.alpha * (rtt_s - self.prev_rtt)
        self.prev_rtt = rtt_s
        g = self.rtt_diff / self.min_rtt_s
        self.neg_gradients = self.neg_gradients + 1 if g < 0.0 else 0
        r = self.rate_bps
        if rtt_s < self.t_low_s:
            new = r + self.delta_bps
        elif rtt_s > self.t_high_s:
            new = r * (1.0 - self.beta * (1.0 - self.t_high_s / rtt_s))
        elif g <= 0.0:
            n = float(self.hai_factor) if self.neg_gradients >= self.hai_after else 1.0
            new = r + n * self.delta_bps
        else:
            new = r * (1.0 - self.beta * g)
        self.rate_bps = min(max(new, self.min_rate), self.line)


cc.register_cc("py_timely", Timely)
