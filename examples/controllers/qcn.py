"""The QCN reaction point (IEEE 802.1Qau) as a Python rate controller, registered as `py_qcn`.

The built-in `qcn` with the scenario defaults of [qcn_rp] (crates/ccscope-core/src/rate/qcn_rp.rs;
P002 = Alizadeh et al., "Data Center Transport Mechanisms", §2.3.1 eqs 6-8; ALGORITHMS.md §4.2):

- a CNM with quantized feedback F (eq 6): install the limiter at line rate if it is not installed;
  target R <- r; r <- max(r max(1 - Gd F, 1 - MinDecFac), MinRate); reset the byte counter and
  both stages; restart the timer;
- byte-counter expiry (150 KB, 75 KB once the byte stage > F_th) and timer expiry (15 ms, 7.5 ms
  once the timer stage > F_th): stage + 1, then one increase step: Fast Recovery r <- (r + R)/2
  (eq 7) while both stages are <= F_th; Active Increase R <- R + R_AI first (eq 8) when one
  stage exceeds F_th; Hyper-Active Increase R <- R + R_HAI when both do;
- the limiter is released (line rate, counters and timer off) once r is within 1 ppm of line rate.

Defaults (802.1Qau MIB): Gd = 1/128, MinDecFac = 0.5, byte counter 150 000 B, timer 15 ms,
F_th = 5, R_AI = 5 Mb/s, R_HAI = 50 Mb/s, MinRate = 5 Mb/s. Bit-identical to the built-in
(tests/test_py_rate_equivalence.py).
"""
from ccscope import cc

QCN_FB_MAX = 63
RELEASE_REL_TOLERANCE = 1e-6


class Qcn(cc.RateController):
    gd = 1.0 / 128.0
    min_dec_fac = 0.5
    byte_counter_bytes = 150_000
    timer_period_s = 0.015
    fast_recovery_threshold = 5
    r_ai_bps = 5e6
    r_hai_bps = 50e6
    min_rate_bps = 5e6

    def __init__(self, ctx):
        super().__init__(ctx)            # rate_bps = line rate, deadline_s = None
        self.line = ctx.line_rate_bps
        self.min_rate = min(self.min_rate_bps, self.line)
        self.active = False              # the rate limiter is installed
        self.target_rate_bps = self.line  # recorded in the rate trace
        self.bc_bytes = 0
        self.bc_stage = 0
        self.timer_stage = 0

    def timer_period(self):
        f_th = self.fast_recovery_threshold
        return self.timer_period_s / 2 if self.timer_stage > f_th else self.timer_period_s

    def on_feedback(self, now_s, kind, cpid, value):
        if kind != "qcn":
            return
        fb_q = min(value, QCN_FB_MAX)
        if not self.active:               # eq 6
            self.active = True
            self.rate_bps = self.line
            self.target_rate_bps = self.line
        self.target_rate_bps = self.rate_bps
        factor = max(1.0 - self.gd * fb_q, 1.0 - self.min_dec_fac)
        self.rate_bps = max(self.rate_bps * factor, self.min_rate)
        self.bc_bytes = self.bc_stage = self.timer_stage = 0
        self.deadline_s = now_s + self.timer_period()

    def on_bytes_sent(self, now_s, nbytes):
        if not self.active:
            return
        self.bc_bytes += nbytes
        limit = self.byte_counter_bytes // 2 if self.bc_stage > self.fast_recovery_threshold \
            else self.byte_counter_bytes
        if self.bc_bytes >= limit:
            self.bc_stage += 1
            self.bc_bytes = 0
            self.increase()

    def on_timer(self, now_s):
        self.timer_stage += 1
        self.deadline_s = now_s + self.timer_period()
        self.increase()

    def increase(self):
        f_th = self.fast_recovery_threshold
        above = (self.bc_stage > f_th) + (self.timer_stage > f_th)
        if above == 1:                    # Active Increase (eq 8)
            self.target_rate_bps += self.r_ai_bps
        elif above == 2:                  # Hyper-Active Increase
            self.target_rate_bps += self.r_hai_bps
        self.target_rate_bps = min(self.target_rate_bps, self.line)
        self.rate_bps = min(0.5 * (self.rate_bps + self.target_rate_bps), self.line)  # eq 7
        if self.rate_bps >= self.line * (1.0 - RELEASE_REL_TOLERANCE):
            self.active = False           # release the limiter
            self.rate_bps = self.target_rate_bps = self.line
            self.bc_bytes = self.bc_stage = self.timer_stage = 0
            self.deadline_s = None


cc.register_cc("py_qcn", Qcn)
