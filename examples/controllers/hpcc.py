"""HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, section 3.3,
Algorithm 1) as a Python rate controller on the RDMA transport, registered as `py_hpcc`.

The built-in `hpcc` with the scenario defaults of [hpcc] (crates/ccscope-core/src/rate/hpcc.rs),
driven by the in-band telemetry of each ACK (`on_int`: one `IntHop` per switch port on the path):

- MeasureInflight (lines 1-10): per hop, txRate = dTxBytes / dts and
  u' = min(qlen, qlen_prev) / (B T) + txRate / B; u = the largest u', tau = that hop's dts
  (at most T); U = (1 - tau/T) U + (tau/T) u;
- ComputeWind (lines 11-20): U >= eta or incStage >= maxStage: W = Wc / (U/eta) + W_AI (the
  stage restarts when Wc is updated), else W = Wc + W_AI (the stage advances); W within
  [min_rate x T, W_init]; Wc = W once per RTT (an ACK past lastUpdateSeq, which then becomes
  snd_nxt);
- the first ACK (and a path of another length) only stores the records; a hop whose two records
  carry the same time is skipped.

W caps the bytes in flight (`window_bytes`, rounded up) and the source paces at R = W / T.
Defaults: eta 0.95, maxStage 5, W_AI = W_init (1 - eta) / N with N = 10, T the flow's path RTT
(`ctx.base_rtt_s`), min rate 100 Mb/s, W_init = line rate x T. Time differences come from the
records' integer picoseconds (`IntHop.ts_ps`), as the engine's. Bit-identical to the built-in
(tests/test_py_hpcc_equivalence.py).
"""
import math

from ccscope import cc


class Hpcc(cc.RateController):
    rdma = True                 # the RDMA transport: ACKs carry the telemetry
    eta = 0.95
    max_stage = 5
    w_ai_bytes = None           # None: W_init (1 - eta) / flows_per_link
    flows_per_link = 10
    base_rtt_s = None           # None: the flow's path RTT
    min_rate_bps = 100e6
    max_hops = 8                # records kept per ACK (a longer list is cut)

    def __init__(self, ctx):
        super().__init__(ctx)
        t = ctx.base_rtt_s if self.base_rtt_s is None else self.base_rtt_s
        self.t_s = max(t, 1e-12)
        self.w_init = ctx.line_rate_bps / 8.0 * self.t_s
        self.w_ai = (self.w_init * (1.0 - self.eta) / float(self.flows_per_link)
                     if self.w_ai_bytes is None else self.w_ai_bytes)
        self.w_min = min(self.min_rate_bps / 8.0 * self.t_s, self.w_init)
        self.w = self.wc = self.w_init
        self.u = 1.0
        self.inc_stage = 0
        self.last_update_seq = 0
        self.prev = None            # the previous ACK's records (L)
        self._publish()

    def _publish(self):
        self.rate_bps = self.w * 8.0 / self.t_s
        self.window_bytes = math.ceil(self.w)

    def on_int(self, now_s, ackno, snd_nxt, hops):
        hops = hops[:self.max_hops]
        if self.prev is None or len(hops) != len(self.prev):
            # no previous L (or a new path): store the records, measure from the next ACK
            if self.prev is None:
                self.last_update_seq = snd_nxt
            self.prev = hops
            return
        update_wc = ackno > self.last_update_seq
        u_max = self.measure_inflight(hops)
        self.prev = hops
        if u_max is not None:
            self.compute_wind(update_wc)
            self._publish()
        if update_wc:
            self.last_update_seq = snd_nxt

    def measure_inflight(self, hops):
        t = self.t_s
        u = None
        tau = t
        for now, before in zip(hops, self.prev):
            if now.ts_ps <= before.ts_ps:
                continue
            dt = (now.ts_ps - before.ts_ps) * 1e-12
            b = now.rate_bps / 8.0
            tx_rate = max(now.tx_bytes - before.tx_bytes, 0) / dt
            q = float(min(now.qlen_bytes, before.qlen_bytes))
            u_hop = q / (b * t) + tx_rate / b
            if u is None or u_hop > u:
                u = u_hop
                tau = dt
        if u is not None:
            tau = min(tau, t)
            self.u = (1.0 - tau / t) * self.u + tau / t * u
        return u

    def compute_wind(self, update_wc):
        if self.u >= self.eta or self.inc_stage >= self.max_stage:
            w = self.wc / (self.u / self.eta) + self.w_ai
            if update_wc:
                self.inc_stage = 0
        else:
            if update_wc:
                self.inc_stage += 1
            w = self.wc + self.w_ai
        self.w = min(max(w, self.w_min), self.w_init)
        if update_wc:
            self.wc = self.w


cc.register_cc("py_hpcc", Hpcc)
