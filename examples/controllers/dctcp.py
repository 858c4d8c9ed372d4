"""DCTCP (Alizadeh et al., SIGCOMM 2010) as a Python controller, registered as `py_dctcp`.

The built-in `dctcp` with the scenario defaults ([dctcp] g = 1/16, alpha_init = 1,
min_cwnd_pkts = 2, ecn_echo_blocks_growth = true): alpha <- (1 - g) alpha + g F once per window
of data, F the fraction of bytes acknowledged with ECN-Echo; on ECN-Echo, at most once per window,
cwnd <- max(cwnd (1 - alpha/2), 2 MSS); an ACK with ECN-Echo does not grow the window; losses are
NewReno's. Bit-identical to the built-in (tests/test_py_cc_equivalence.py).
"""
import sys
from pathlib import Path

from ccscope import cc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from new_reno import NewReno  # noqa: E402  (the example next to this one)


class Dctcp(NewReno):
    ecn = True                  # data packets are ECN-capable
    dctcp_echo = True           # the receiver echoes CE per packet (DCTCP's ACK state machine)
    ecn_once_per_window = True  # on_congestion("ecn") at most once per window
    g = 1.0 / 16.0
    alpha_init = 1.0
    min_cwnd_pkts = 2.0

    def __init__(self, ctx):
        super().__init__(ctx)
        self.alpha = self.alpha_init  # recorded in the alpha trace
        self.window_end = 0           # segment that closes the current observation window
        self.bytes_acked = 0
        self.bytes_marked = 0

    def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
        self.bytes_acked += acked_bytes
        if ece:
            self.bytes_marked += acked_bytes
        if snd_una > self.window_end:  # a window of data acknowledged: fold F into alpha
            if self.bytes_acked > 0:
                f = float(self.bytes_marked) / float(self.bytes_acked)
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f
            self.bytes_acked = 0
            self.bytes_marked = 0
            self.window_end = snd_nxt
        if in_recovery:
            self.cwnd_bytes = max(self.cwnd_bytes - acked_bytes + self.mss, self.mss)
        elif not ece:
            self.grow(float(acked_bytes))

    def on_congestion(self, now_s, kind, flight_bytes):
        if kind == "ecn":
            self.cwnd_bytes = max(self.cwnd_bytes * (1.0 - self.alpha / 2.0), self.min_cwnd)
            self.ssthresh_bytes = self.cwnd_bytes
        else:
            super().on_congestion(now_s, kind, flight_bytes)


cc.register_cc("py_dctcp", Dctcp)
