"""DCQCN's reaction point (Zhu et al., SIGCOMM 2015, §3.1) as a Python rate controller on the RDMA
transport, registered as `py_dcqcn`.

The built-in `dcqcn` with the scenario defaults of [dcqcn] (crates/ccscope-core/src/rate/dcqcn.rs;
CoNEXT 2016 eqs (1)-(2) and Table 1):

- a CNP (eq (1)): R_T <- R_C; R_C <- max(R_C (1 - alpha/2), min_rate); alpha <- (1 - g) alpha + g;
  the rate timer, the byte counter and both stages restart;
- alpha decays by (1 - g) per whole period K = 55 us without a CNP (eq (2)), applied when alpha is
  next needed (the alpha clock starts at the flow's first frame);
- timer (T = 55 us) and byte-counter (B = 10 MB) expiries: stage + 1, then fast recovery
  R_C <- (R_T + R_C)/2 while both stages are <= F = 5, additive increase R_T += R_AI = 40 Mb/s
  first when one stage exceeds F, hyper increase R_T += R_HAI = 400 Mb/s when both do;
- the limiter is released at line rate (within 1 ppm).

Times are kept in integer picoseconds as the engine's (`round(now_s * 1e12)` is exact), so the
alpha periods and deadlines are the engine's own. Bit-identical to the built-in
(tests/test_py_rate_equivalence.py).
"""
from ccscope import cc

PS = 1_000_000_000_000
RELEASE_REL_TOLERANCE = 1e-6


class Dcqcn(cc.RateController):
    rdma = True                 # the RDMA transport: go-back-N, ACKs, NACKs, CNPs
    g = 1.0 / 256.0
    tau_prime_ps = 55_000_000   # K, 55 us
    timer_ps = 55_000_000       # T, 55 us
    byte_counter_bytes = 10_000_000
    f_steps = 5
    r_ai_bps = 40e6
    r_hai_bps = 400e6
    min_rate_bps = 1e6
    alpha_init = 1.0

    def __init__(self, ctx):
        super().__init__(ctx)
        self.line = ctx.line_rate_bps
        self.min_rate = min(self.min_rate_bps, self.line)
        self.active = False
        self.target_rate_bps = self.line
        self.alpha = self.alpha_init
        self.alpha_since_ps = None
        self.bc_bytes = 0
        self.bc_stage = 0
        self.timer_stage = 0

    def alpha_at(self, now_ps):
        t = self.alpha_since_ps
        if t is not None and now_ps > t:
            n = (now_ps - t) // self.tau_prime_ps
            if n:
                return self.alpha * (1.0 - self.g) ** float(n)
        return self.alpha

    def on_cnp(self, now_s):
        now_ps = round(now_s * PS)
        alpha = self.alpha_at(now_ps)
        self.active = True
        self.target_rate_bps = self.rate_bps
        self.rate_bps = max(self.rate_bps * (1.0 - alpha / 2.0), self.min_rate)
        self.alpha = (1.0 - self.g) * alpha + self.g
        self.alpha_since_ps = now_ps
        self.bc_bytes = self.bc_stage = self.timer_stage = 0
        self.deadline_s = (now_ps + self.timer_ps) / PS

    def on_bytes_sent(self, now_s, nbytes):
        if self.alpha_since_ps is None:
            self.alpha_since_ps = round(now_s * PS)
        if not self.active:
            return
        self.bc_bytes += nbytes
        if self.bc_bytes >= self.byte_counter_bytes:
            self.bc_bytes -= self.byte_counter_bytes
            self.bc_stage += 1
            self.increase()

    def on_timer(self, now_s):
        self.timer_stage += 1
        self.deadline_s = (round(now_s * PS) + self.timer_ps) / PS
        self.increase()

    def increase(self):
        f = self.f_steps
        above = (self.timer_stage > f) + (self.bc_stage > f)
        if above == 1:
            self.target_rate_bps += self.r_ai_bps
        elif above == 2:
            self.target_rate_bps += self.r_hai_bps
        self.target_rate_bps = min(self.target_rate_bps, self.line)
        self.rate_bps = min(0.5 * (self.target_rate_bps + self.rate_bps), self.line)
        if self.rate_bps >= self.line * (1.0 - RELEASE_REL_TOLERANCE):
            self.active = False
            self.rate_bps = self.target_rate_bps = self.line
            self.bc_bytes = self.bc_stage = self.timer_stage = 0
            self.deadline_s = None


cc.register_cc("py_dcqcn", Dcqcn)
