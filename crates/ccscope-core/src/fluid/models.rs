//! Right-hand sides of the fluid models for the native solver, each a transcription of its
//! `DelayModel` in `python/ccscope/fluid/` (same expressions, same order of operations: Python's
//! `a * b / c` is `(a * b) / c`, `where` is a select, `np.maximum`/`minimum`/`clip` keep NaN).
//!
//! Parameters arrive as one row of floats per trajectory in the order of [`ModelKind::params`];
//! per-group parameters (physical DCTCP's `n_flows`, `rtt_s`) take `m` consecutive entries.

use super::{fraction_above, lag_mean, np_clip, np_max, np_min, np_sum};

/// Largest number of RTT groups of the physical DCTCP model.
pub const MAX_GROUPS: usize = 32;

/// What the solver needs from a model (the Python `DelayModel` interface).
pub trait Dde {
    /// State components n.
    fn n_state(&self) -> usize;
    /// Delay groups m (one lag each).
    fn n_groups(&self) -> usize {
        1
    }
    /// Delayed observables k.
    fn n_obs(&self) -> usize {
        1
    }
    /// dx/dt given the delayed observables at both ends of the step (`lo`, `hi`: m x k, row-major).
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]);
    /// The delayed observables y(x) (k values).
    fn observable(&self, x: &[f64], out: &mut [f64]);
    /// Floors/constraints after a stage.
    fn project(&self, _x: &mut [f64]) {}
    /// Integrand averaged over whole periods by the monitor.
    fn rate(&self, _x: &[f64]) -> f64 {
        0.0
    }
}

/// The models the native solver implements, by the name Python's `DelayModel.native` gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    DctcpNormalized,
    DctcpPhysical,
    Dx,
    Qcn,
    TcpRed,
    Asm,
    AsmDelayed,
    Dcqcn,
}

impl ModelKind {
    /// Every model, for error messages.
    pub const ALL: [ModelKind; 8] = [
        ModelKind::DctcpNormalized,
        ModelKind::DctcpPhysical,
        ModelKind::Dx,
        ModelKind::Qcn,
        ModelKind::TcpRed,
        ModelKind::Asm,
        ModelKind::AsmDelayed,
        ModelKind::Dcqcn,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ModelKind::DctcpNormalized => "dctcp_normalized",
            ModelKind::DctcpPhysical => "dctcp_physical",
            ModelKind::Dx => "dx",
            ModelKind::Qcn => "qcn",
            ModelKind::TcpRed => "tcp_red",
            ModelKind::Asm => "asm",
            ModelKind::AsmDelayed => "asm_delayed",
            ModelKind::Dcqcn => "dcqcn",
        }
    }

    pub fn from_name(name: &str) -> Option<ModelKind> {
        ModelKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Parameter names in row order; `n_flows` and `rtt_s` of the physical model are per group.
    pub fn params(self) -> &'static [&'static str] {
        match self {
            ModelKind::DctcpNormalized => &["wbar", "g", "q_floor"],
            ModelKind::DctcpPhysical => &["n_flows", "rtt_s", "c_pps", "k_pkts", "g"],
            ModelKind::Dx => &["n", "c_bytes", "r0_s", "p", "seg"],
            ModelKind::Qcn => &[
                "n",
                "c",
                "qeq",
                "buffer",
                "w",
                "p",
                "gd",
                "r_ai",
                "f_max",
                "min_rate",
                "line_rate",
                "eta_p",
                "zeta_p",
                "eta_0",
                "zeta_0",
                "instant",
                "negative",
            ],
            ModelKind::TcpRed => &[
                "n", "c", "tp", "min_th", "max_th", "max_p", "gentle", "k", "buffer", "w_min",
                "w_max",
            ],
            ModelKind::Asm => &["w", "pc", "a_plus", "a_minus", "b_plus", "b_minus"],
            ModelKind::AsmDelayed => &[
                "w", "pc", "c", "a_plus", "a_minus", "b_plus", "b_minus", "x1_floor", "instant",
            ],
            ModelKind::Dcqcn => &[
                "w",
                "c",
                "kmin",
                "kmax",
                "pmax",
                "g",
                "tau",
                "tau_p",
                "bc",
                "timer",
                "f",
                "r_ai",
                "min_rate",
                "line_rate",
                "buffer",
            ],
        }
    }

    /// Length of a parameter row for `m` groups.
    pub fn row_len(self, m: usize) -> usize {
        match self {
            ModelKind::DctcpPhysical => 2 * m + 3,
            _ => self.params().len(),
        }
    }
}

/// P000 eqs 11-14 (+ the §3.3.2 floor): state (W~, alpha~, q~), observable q~.
#[derive(Clone, Copy, Debug)]
pub struct Normalized {
    pub wbar: f64,
    pub g: f64,
    pub q_floor: f64,
}

impl Dde for Normalized {
    fn n_state(&self) -> usize {
        3
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let (w, alpha, q) = (x[0], x[1], x[2]);
        let u = fraction_above(lo[0], hi[0], 0.0);
        let den = 1.0 + q;
        out[0] = (1.0 - w * alpha * u / 2.0) / den;
        out[1] = self.g * (u - alpha) / den;
        let dq = w / (self.wbar * den) - 1.0;
        out[2] = if q <= self.q_floor {
            np_max(dq, 0.0)
        } else {
            dq
        };
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[2];
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        x[2] = np_max(x[2], self.q_floor);
    }
    #[inline(always)]
    fn rate(&self, x: &[f64]) -> f64 {
        x[0] / (self.wbar * (1.0 + x[2]))
    }
}

/// P000 eqs 5-8 with m RTT groups (eqs 37-38): state (W_1..W_m, alpha_1..alpha_m, q).
#[derive(Clone, Copy, Debug)]
pub struct Physical {
    pub m: usize,
    pub n_flows: [f64; MAX_GROUPS],
    pub rtt_s: [f64; MAX_GROUPS],
    pub c_pps: f64,
    pub k_pkts: f64,
    pub g: f64,
}

impl Dde for Physical {
    fn n_state(&self) -> usize {
        2 * self.m + 1
    }
    fn n_groups(&self) -> usize {
        self.m
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let m = self.m;
        let q = x[2 * m];
        let c = self.c_pps;
        let mut terms = [0.0; MAX_GROUPS];
        for j in 0..m {
            let (w, a) = (x[j], x[m + j]);
            let u = fraction_above(lo[j], hi[j], self.k_pkts);
            let r = self.rtt_s[j] + q / c;
            out[j] = 1.0 / r - w * a * u / (2.0 * r);
            out[m + j] = self.g / r * (u - a);
            terms[j] = self.n_flows[j] * w / r;
        }
        let dq = np_sum(&terms[..m]) - self.c_pps;
        out[2 * m] = if q <= 0.0 { np_max(dq, 0.0) } else { dq };
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[2 * self.m];
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        let i = 2 * self.m;
        x[i] = np_max(x[i], 0.0);
    }
    #[inline(always)]
    fn rate(&self, x: &[f64]) -> f64 {
        let m = self.m;
        let q = x[2 * m];
        let mut terms = [0.0; MAX_GROUPS];
        for j in 0..m {
            terms[j] = self.n_flows[j] * x[j] / (self.rtt_s[j] + q / self.c_pps);
        }
        let arrival = np_sum(&terms[..m]);
        if q > 0.0 {
            1.0
        } else {
            np_min(arrival / self.c_pps, 1.0)
        }
    }
}

/// [`Physical`] with one RTT group (the common case: every single-RTT run and sweep), with
/// scalar fields and no per-group loops; numpy's one-element sum is `0.0 + x`.
#[derive(Clone, Copy, Debug)]
pub struct Physical1 {
    pub n_flows: f64,
    pub rtt_s: f64,
    pub c_pps: f64,
    pub k_pkts: f64,
    pub g: f64,
}

impl Dde for Physical1 {
    fn n_state(&self) -> usize {
        3
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let (w, a, q) = (x[0], x[1], x[2]);
        let u = fraction_above(lo[0], hi[0], self.k_pkts);
        let r = self.rtt_s + q / self.c_pps;
        out[0] = 1.0 / r - w * a * u / (2.0 * r);
        out[1] = self.g / r * (u - a);
        let dq = (0.0 + self.n_flows * w / r) - self.c_pps;
        out[2] = if q <= 0.0 { np_max(dq, 0.0) } else { dq };
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[2];
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        x[2] = np_max(x[2], 0.0);
    }
    #[inline(always)]
    fn rate(&self, x: &[f64]) -> f64 {
        let q = x[2];
        let arrival = 0.0 + self.n_flows * x[0] / (self.rtt_s + q / self.c_pps);
        if q > 0.0 {
            1.0
        } else {
            np_min(arrival / self.c_pps, 1.0)
        }
    }
}

/// P004 eqs 3-4: state (W bytes, Q s), observable Q.
#[derive(Clone, Copy, Debug)]
pub struct Dx {
    pub n: f64,
    pub c_bytes: f64,
    pub r0_s: f64,
    pub p: f64,
    pub seg: f64,
}

impl Dde for Dx {
    fn n_state(&self) -> usize {
        2
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let (w, q) = (x[0], x[1]);
        let qd = lag_mean(lo[0], hi[0]);
        let r = self.r0_s + qd;
        let dw = self.seg * (1.0 - self.p) / r - self.p * qd * (w - self.seg) / (self.r0_s * r);
        let dq = self.n * w / (self.c_bytes * r) - 1.0;
        let dq = if q <= 0.0 { np_max(dq, 0.0) } else { dq };
        let dw = if w <= self.seg { np_max(dw, 0.0) } else { dw };
        out[0] = dw;
        out[1] = dq;
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[1];
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        x[0] = np_max(x[0], self.seg);
        x[1] = np_max(x[1], 0.0);
    }
    #[inline(always)]
    fn rate(&self, x: &[f64]) -> f64 {
        let arrival = self.n * x[0] / (self.c_bytes * self.r0_s);
        if x[1] > 0.0 {
            1.0
        } else {
            np_min(arrival, 1.0)
        }
    }
}

/// P002 QCN: state (q, R_C, R_T), delayed observables (F, R_C).
#[derive(Clone, Copy, Debug)]
pub struct Qcn {
    pub n: f64,
    pub c: f64,
    pub qeq: f64,
    pub buffer: f64,
    pub w: f64,
    pub p: f64,
    pub gd: f64,
    pub r_ai: f64,
    pub f_max: f64,
    pub min_rate: f64,
    pub line_rate: f64,
    pub eta_p: f64,
    pub zeta_p: f64,
    pub eta_0: f64,
    pub zeta_0: f64,
    pub instant: f64,
    pub negative: f64,
}

impl Qcn {
    #[inline(always)]
    fn dq(&self, x: &[f64]) -> f64 {
        let dq = self.n * x[1] - self.c;
        let dq = if x[0] >= self.buffer {
            np_min(dq, 0.0)
        } else {
            dq
        };
        if x[0] <= 0.0 {
            np_max(dq, 0.0)
        } else {
            dq
        }
    }
    #[inline(always)]
    fn congestion(&self, x: &[f64]) -> f64 {
        x[0] - self.qeq + self.w / (self.p * self.c) * self.dq(x)
    }
}

impl Dde for Qcn {
    fn n_state(&self) -> usize {
        3
    }
    fn n_obs(&self) -> usize {
        2
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let (rc, rt) = (x[1], x[2]);
        let f_now = self.congestion(x);
        let inst = self.instant > 0.0;
        let f_lo = if inst { f_now } else { lo[0] };
        let f_hi = if inst { f_now } else { hi[0] };
        let rc_d = if inst { rc } else { lag_mean(lo[1], hi[1]) };
        let f = np_clip(lag_mean(f_lo, f_hi), -self.f_max, self.f_max);
        let above = if inst {
            if f_now > 0.0 {
                1.0
            } else {
                0.0
            }
        } else {
            fraction_above(f_lo, f_hi, 0.0)
        };
        let neg = self.negative > 0.0;
        let u = if neg { above } else { 1.0 };
        let f = if neg { np_max(f, 0.0) } else { f };
        let eta = u * self.eta_p + (1.0 - u) * self.eta_0;
        let zeta = u * self.zeta_p + (1.0 - u) * self.zeta_0;
        let d_rc = -self.gd * f * rc * self.p * rc_d + 0.5 * (rt - rc) * eta * rc_d;
        let d_rt = -(rt - rc) * u * self.p * rc_d + self.r_ai * zeta * rc_d;
        let d_rc = if rc <= self.min_rate {
            np_max(d_rc, 0.0)
        } else {
            d_rc
        };
        let d_rc = if rc >= self.line_rate {
            np_min(d_rc, 0.0)
        } else {
            d_rc
        };
        let d_rt = if rt >= self.line_rate {
            np_min(d_rt, 0.0)
        } else {
            d_rt
        };
        out[0] = self.dq(x);
        out[1] = d_rc;
        out[2] = d_rt;
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = self.congestion(x);
        out[1] = x[1];
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        x[0] = np_clip(x[0], 0.0, self.buffer);
        x[1] = np_clip(x[1], self.min_rate, self.line_rate);
        x[2] = np_clip(x[2], self.min_rate, self.line_rate);
    }
}

/// TCP/RED (Misra-Gong-Towsley): state (W, q, avg), observable W p(avg)/R.
#[derive(Clone, Copy, Debug)]
pub struct TcpRed {
    pub n: f64,
    pub c: f64,
    pub tp: f64,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub gentle: f64,
    pub k: f64,
    pub buffer: f64,
    pub w_min: f64,
    pub w_max: f64,
}

impl TcpRed {
    #[inline(always)]
    fn mark(&self, v: f64) -> f64 {
        let ramp = self.max_p * (v - self.min_th) / (self.max_th - self.min_th);
        let gentle = np_min(
            self.max_p + (1.0 - self.max_p) * (v - self.max_th) / self.max_th,
            1.0,
        );
        let above = if self.gentle > 0.0 { gentle } else { 1.0 };
        if v < self.min_th {
            0.0
        } else if v < self.max_th {
            ramp
        } else {
            above
        }
    }
}

impl Dde for TcpRed {
    fn n_state(&self) -> usize {
        3
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let (w, q, avg) = (x[0], x[1], x[2]);
        let r = self.tp + q / self.c;
        let signals = lag_mean(lo[0], hi[0]);
        let dw = 1.0 / r - w * signals / 2.0;
        let dw = if w <= self.w_min {
            np_max(dw, 0.0)
        } else if w >= self.w_max {
            np_min(dw, 0.0)
        } else {
            dw
        };
        let dq = self.n * w / r - self.c;
        let dq = if q <= 0.0 {
            np_max(dq, 0.0)
        } else if q >= self.buffer {
            np_min(dq, 0.0)
        } else {
            dq
        };
        out[0] = dw;
        out[1] = dq;
        out[2] = self.k * (q - avg);
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[0] * self.mark(x[2]) / (self.tp + x[1] / self.c);
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        x[0] = np_clip(x[0], self.w_min, self.w_max);
        x[1] = np_clip(x[1], 0.0, self.buffer);
        x[2] = np_max(x[2], 0.0);
    }
    #[inline(always)]
    fn rate(&self, x: &[f64]) -> f64 {
        let q = x[1];
        let arrival = self.n * x[0] / (self.tp + q / self.c);
        if q > 0.0 {
            1.0
        } else {
            np_min(arrival / self.c, 1.0)
        }
    }
}

/// P002 eq 26 with the region switch of eq 12, no delay: state (x1, x2), observable x1 (unused).
#[derive(Clone, Copy, Debug)]
pub struct Asm {
    pub w: f64,
    pub pc: f64,
    pub a_plus: f64,
    pub a_minus: f64,
    pub b_plus: f64,
    pub b_minus: f64,
}

impl Dde for Asm {
    fn n_state(&self) -> usize {
        2
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], _lo: &[f64], _hi: &[f64], out: &mut [f64]) {
        let (x1, x2) = (x[0], x[1]);
        let fb = -x1 - self.w / self.pc * x2;
        let parabola = (x1 * fb) > 0.0;
        let a = if parabola { self.a_minus } else { self.a_plus };
        let b = if parabola { self.b_minus } else { self.b_plus };
        out[0] = x2;
        out[1] = -self.pc * a * x1 - b * x2;
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[0];
    }
}

/// P002 eq 26 with feedback delay (App. D) and floors: state (x1, x2), observables (x1, dQ).
#[derive(Clone, Copy, Debug)]
pub struct AsmDelayed {
    pub w: f64,
    pub pc: f64,
    pub c: f64,
    pub a_plus: f64,
    pub a_minus: f64,
    pub b_plus: f64,
    pub b_minus: f64,
    pub x1_floor: f64,
    pub instant: f64,
}

impl AsmDelayed {
    #[inline(always)]
    fn dq(&self, x: &[f64]) -> f64 {
        if x[0] <= self.x1_floor {
            np_max(x[1], 0.0)
        } else {
            x[1]
        }
    }
}

impl Dde for AsmDelayed {
    fn n_state(&self) -> usize {
        2
    }
    fn n_obs(&self) -> usize {
        2
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let inst = self.instant > 0.0;
        let dq_now = self.dq(x);
        let x1d = if inst { x[0] } else { lag_mean(lo[0], hi[0]) };
        let dqd = if inst { dq_now } else { lag_mean(lo[1], hi[1]) };
        let fb = -x1d - self.w / self.pc * dqd;
        let parabola = (x1d * fb) > 0.0;
        let a = if parabola { self.a_minus } else { self.a_plus };
        let b = if parabola { self.b_minus } else { self.b_plus };
        let dx2 = -self.pc * a * x1d - b * dqd;
        let dx2 = if x[1] <= -self.c {
            np_max(dx2, 0.0)
        } else {
            dx2
        };
        out[0] = dq_now;
        out[1] = dx2;
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[0];
        out[1] = self.dq(x);
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        x[0] = np_max(x[0], self.x1_floor);
        x[1] = np_max(x[1], -self.c);
    }
}

/// Largest p inside the logarithms of [`Dcqcn`] (`P_CLIP` of `ccscope.fluid.dcqcn`).
const DCQCN_P_CLIP: f64 = 1.0 - 1e-12;

/// Zhu et al. (CoNEXT 2016) DCQCN, Fig. 1 eqs 3-7, one slot of `w` identical flows:
/// state (q, R_C, R_T, alpha), delayed observables (q, R_C).
#[derive(Clone, Copy, Debug)]
pub struct Dcqcn {
    pub w: f64,
    pub c: f64,
    pub kmin: f64,
    pub kmax: f64,
    pub pmax: f64,
    pub g: f64,
    pub tau: f64,
    pub tau_p: f64,
    pub bc: f64,
    pub timer: f64,
    pub f: f64,
    pub r_ai: f64,
    pub min_rate: f64,
    pub line_rate: f64,
    pub buffer: f64,
}

impl Dcqcn {
    /// Eq (3): RED marking probability of a queue q.
    #[inline(always)]
    fn marking(&self, q: f64) -> f64 {
        if q <= self.kmin {
            0.0
        } else if q <= self.kmax {
            self.pmax * (q - self.kmin) / (self.kmax - self.kmin)
        } else {
            1.0
        }
    }
    #[inline(always)]
    fn arrival(&self, x: &[f64]) -> f64 {
        self.w * x[1]
    }
}

impl Dde for Dcqcn {
    fn n_state(&self) -> usize {
        4
    }
    fn n_obs(&self) -> usize {
        2
    }
    #[inline(always)]
    fn rhs(&self, x: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
        let (q, rc, rt, al) = (x[0], x[1], x[2], x[3]);
        let q_d = lag_mean(lo[0], hi[0]);
        let r = np_max(lag_mean(lo[1], hi[1]), self.min_rate);
        let p = self.marking(q_d);
        // eq (12) terms and the alpha target of eq (5), with the exact p -> 0 limits
        let (a, b, c, d, e, at) = if p > 0.0 {
            let ps = np_clip(p, 1e-300, DCQCN_P_CLIP);
            let lg = (-ps).ln_1p();
            let a = -(self.tau * r * lg).exp_m1();
            let at = -(self.tau_p * r * lg).exp_m1();
            let b = ps * (self.bc * lg).exp() / -(self.bc * lg).exp_m1();
            let d = ps * (self.timer * r * lg).exp() / -(self.timer * r * lg).exp_m1();
            let c = b * (self.f * self.bc * lg).exp();
            let e = d * (self.f * self.timer * r * lg).exp();
            (a, b, c, d, e, at)
        } else {
            let bb = 1.0 / self.bc;
            let dd = 1.0 / (self.timer * r);
            (0.0, bb, bb, dd, dd, 0.0)
        };
        let d_al = self.g / self.tau_p * (at - al);
        let d_rt = -(rt - rc) / self.tau * a + self.r_ai * r * (c + e);
        let d_rc = -rc * al * a / (2.0 * self.tau) + 0.5 * (rt - rc) * r * (b + d);
        let d_rc = if rc >= self.line_rate {
            np_min(d_rc, 0.0)
        } else if rc <= self.min_rate {
            np_max(d_rc, 0.0)
        } else {
            d_rc
        };
        let d_rt = if rt >= self.line_rate {
            np_min(d_rt, 0.0)
        } else if rt <= self.min_rate {
            np_max(d_rt, 0.0)
        } else {
            d_rt
        };
        let dq = self.arrival(x) - self.c;
        out[0] = if q <= 0.0 {
            np_max(dq, 0.0)
        } else if q >= self.buffer {
            np_min(dq, 0.0)
        } else {
            dq
        };
        out[1] = d_rc;
        out[2] = d_rt;
        out[3] = d_al;
    }
    #[inline(always)]
    fn observable(&self, x: &[f64], out: &mut [f64]) {
        out[0] = x[0];
        out[1] = x[1];
    }
    #[inline(always)]
    fn project(&self, x: &mut [f64]) {
        x[0] = np_clip(x[0], 0.0, self.buffer);
        x[1] = np_clip(x[1], self.min_rate, self.line_rate);
        x[2] = np_clip(x[2], self.min_rate, self.line_rate);
        x[3] = np_clip(x[3], 0.0, 1.0);
    }
    #[inline(always)]
    fn rate(&self, x: &[f64]) -> f64 {
        let q = x[0];
        if q > 0.0 {
            1.0
        } else {
            np_min(self.arrival(x) / self.c, 1.0)
        }
    }
}

/// Run trajectories of model `kind`: `rows` holds one parameter row per trajectory (each of
/// length [`ModelKind::row_len`]`(m)`), `trs` the trajectories, in the same order.
pub fn run(
    kind: ModelKind,
    m: usize,
    rows: &[f64],
    steps: &super::Steps,
    trs: &[super::Trajectory<'_>],
) -> Result<Vec<super::Outcome>, String> {
    let len = kind.row_len(m);
    if rows.len() != len * trs.len() {
        return Err(format!(
            "{}: {} parameter values for {} trajectories, expected {len} each",
            kind.name(),
            rows.len(),
            trs.len()
        ));
    }
    if kind != ModelKind::DctcpPhysical && m != 1 {
        return Err(format!("{}: one delay group only, got {m}", kind.name()));
    }
    if kind == ModelKind::DctcpPhysical && (m == 0 || m > MAX_GROUPS) {
        return Err(format!(
            "dctcp: {m} RTT groups; the native solver holds 1 to {MAX_GROUPS}"
        ));
    }
    fn go<M: Dde>(
        rows: &[f64],
        len: usize,
        make: impl Fn(&[f64]) -> M,
        steps: &super::Steps,
        trs: &[super::Trajectory<'_>],
    ) -> Result<Vec<super::Outcome>, String> {
        let models: Vec<M> = rows.chunks_exact(len).map(make).collect();
        for (model, tr) in models.iter().zip(trs) {
            super::check_trajectory(model, steps, tr)?;
        }
        Ok(super::integrate_many(&models, steps, trs))
    }
    match kind {
        ModelKind::DctcpNormalized if super::simd::applies(steps, trs) => {
            let models: Vec<Normalized> = rows
                .chunks_exact(len)
                .map(|p| Normalized {
                    wbar: p[0],
                    g: p[1],
                    q_floor: p[2],
                })
                .collect();
            for (model, tr) in models.iter().zip(trs) {
                super::check_trajectory(model, steps, tr)?;
            }
            Ok(super::simd::integrate_normalized(&models, steps, trs))
        }
        ModelKind::DctcpNormalized => go(
            rows,
            len,
            |p| Normalized {
                wbar: p[0],
                g: p[1],
                q_floor: p[2],
            },
            steps,
            trs,
        ),
        ModelKind::DctcpPhysical if m == 1 => go(
            rows,
            len,
            |p| Physical1 {
                n_flows: p[0],
                rtt_s: p[1],
                c_pps: p[2],
                k_pkts: p[3],
                g: p[4],
            },
            steps,
            trs,
        ),
        ModelKind::DctcpPhysical => go(
            rows,
            len,
            |p| {
                let mut model = Physical {
                    m,
                    n_flows: [0.0; MAX_GROUPS],
                    rtt_s: [0.0; MAX_GROUPS],
                    c_pps: p[2 * m],
                    k_pkts: p[2 * m + 1],
                    g: p[2 * m + 2],
                };
                model.n_flows[..m].copy_from_slice(&p[..m]);
                model.rtt_s[..m].copy_from_slice(&p[m..2 * m]);
                model
            },
            steps,
            trs,
        ),
        ModelKind::Dx => go(
            rows,
            len,
            |p| Dx {
                n: p[0],
                c_bytes: p[1],
                r0_s: p[2],
                p: p[3],
                seg: p[4],
            },
            steps,
            trs,
        ),
        ModelKind::Qcn => go(
            rows,
            len,
            |p| Qcn {
                n: p[0],
                c: p[1],
                qeq: p[2],
                buffer: p[3],
                w: p[4],
                p: p[5],
                gd: p[6],
                r_ai: p[7],
                f_max: p[8],
                min_rate: p[9],
                line_rate: p[10],
                eta_p: p[11],
                zeta_p: p[12],
                eta_0: p[13],
                zeta_0: p[14],
                instant: p[15],
                negative: p[16],
            },
            steps,
            trs,
        ),
        ModelKind::TcpRed => go(
            rows,
            len,
            |p| TcpRed {
                n: p[0],
                c: p[1],
                tp: p[2],
                min_th: p[3],
                max_th: p[4],
                max_p: p[5],
                gentle: p[6],
                k: p[7],
                buffer: p[8],
                w_min: p[9],
                w_max: p[10],
            },
            steps,
            trs,
        ),
        ModelKind::Asm => go(
            rows,
            len,
            |p| Asm {
                w: p[0],
                pc: p[1],
                a_plus: p[2],
                a_minus: p[3],
                b_plus: p[4],
                b_minus: p[5],
            },
            steps,
            trs,
        ),
        ModelKind::AsmDelayed => go(
            rows,
            len,
            |p| AsmDelayed {
                w: p[0],
                pc: p[1],
                c: p[2],
                a_plus: p[3],
                a_minus: p[4],
                b_plus: p[5],
                b_minus: p[6],
                x1_floor: p[7],
                instant: p[8],
            },
            steps,
            trs,
        ),
        ModelKind::Dcqcn => go(
            rows,
            len,
            |p| Dcqcn {
                w: p[0],
                c: p[1],
                kmin: p[2],
                kmax: p[3],
                pmax: p[4],
                g: p[5],
                tau: p[6],
                tau_p: p[7],
                bc: p[8],
                timer: p[9],
                f: p[10],
                r_ai: p[11],
                min_rate: p[12],
                line_rate: p[13],
                buffer: p[14],
            },
            steps,
            trs,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dcqcn() -> Dcqcn {
        // Zhu et al. (CoNEXT 2016) defaults in 1000-byte packets: 40 Gb/s, N = 2 in one slot
        Dcqcn {
            w: 2.0,
            c: 5e6,
            kmin: 5.0,
            kmax: 200.0,
            pmax: 0.01,
            g: 1.0 / 256.0,
            tau: 50e-6,
            tau_p: 55e-6,
            bc: 1e4,
            timer: 55e-6,
            f: 5.0,
            r_ai: 5e3,
            min_rate: 125.0,
            line_rate: 5e6,
            buffer: f64::INFINITY,
        }
    }

    #[test]
    fn dcqcn_rate_terms_are_continuous_at_p_zero() {
        // a queue exactly at Kmin marks nothing (the exact p -> 0 limits); one a hair above it marks
        // with p ~ 5e-16 and must give the same derivatives to 1e-9 relative (first-order effects of p: ~1e-12)
        let m = dcqcn();
        let x = [20.0, 2.4e6, 2.6e6, 0.2];
        let (mut d0, mut d1) = ([0.0; 4], [0.0; 4]);
        m.rhs(&x, &[5.0, 2.4e6], &[5.0, 2.4e6], &mut d0);
        let q = 5.0 + 1e-11;
        m.rhs(&x, &[q, 2.4e6], &[q, 2.4e6], &mut d1);
        for i in 0..4 {
            let scale = d0[i].abs().max(1.0);
            assert!(
                (d0[i] - d1[i]).abs() <= 1e-9 * scale,
                "{i}: {} vs {}",
                d0[i],
                d1[i]
            );
        }
        // above Kmax p = 1: every packet marked, no byte-counter or timer increase, a = 1
        let mut d2 = [0.0; 4];
        m.rhs(&x, &[300.0, 2.4e6], &[300.0, 2.4e6], &mut d2);
        assert_eq!(d2[2], -(2.6e6 - 2.4e6) / 50e-6);
        assert!(d2[1] < 0.0 && d2[3] > 0.0);
    }
}
