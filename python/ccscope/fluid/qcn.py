"""QCN delay-stability bound, P002 Appendix A, Proposition 1 (eq 17), corrected per erratum E33.

Linearized QCN loop (eq 18, with the missing e^{-s tau}):
    G(s) = e^{-s tau} a3 (s + b)(s + gamma) / (s (s^2 + beta s + alpha))
with Rc = C/N, b = p Rc, a1 = eta Rc/2 + eta zeta R_AI/(2p), a2 = eta Rc/2, a3 = Gd w Rc,
alpha = b (a1 - a2), beta = b + a1, gamma = p C / w (E33: the printed gamma is dimensionless),
eta(p) = p/((1-p)^-100 - 1), zeta(p) = eta(p) (1-p)^500 (100-frame byte-counter cycle, 5 FR cycles).
QCN is unstable if tau >= [atan(w*/b) + atan(w*/gamma) - atan(wbar/beta - alpha/(beta wbar))]/wbar
(eq 17 with w* from a3^4/4, E33). Rates in frames/s. ALGORITHMS.md §4.4; FIGURES.md asm/text-qcn-delay-bound.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ccscope.analysis.stability import DelayedRationalLoop
from ccscope.fluid.base import (
    PACKET_BYTES_DEFAULT,
    check_positive,
    check_range,
    pkts_per_s,
)

#: Sampling probability p (P002 App. A p_s = 1%; 802.1Qau base 150 KB ~ 1% of 1500-B frames).
SAMPLING_P = 0.01
#: Feedback weight w (P002 App. A; 802.1Qau MIB cpFeedbackWeight).
W_FEEDBACK = 2.0
#: Decrease gain Gd = 1/128 (P002 eq 6; MIB rpgGd 7 -> 2^-7).
GD = 1 / 128
#: Additive increase step R_AI = 5 Mb/s (P002 §2.3.1).
R_AI_BPS = 5e6
#: Frames per byte-counter cycle and byte-counter cycles to leave Fast Recovery (the 100 and 500 in eta, zeta).
BC_CYCLE_FRAMES = 100
FR_CYCLES = 5


@dataclass
class QcnBound:
    """All intermediate quantities of Proposition 1 (frames/s, rad/s) and the two delay figures (s).

    bound_s: eq 17 (sufficient condition for instability); delay_margin_s: the exact delay margin
    of the same linear loop (phase margin / gain crossover), which lies below the bound.
    """

    rate_bps: float
    n_flows: float
    a1: float
    a2: float
    a3: float
    b: float
    gamma: float
    alpha: float
    beta: float
    eta: float
    zeta: float
    omega_star: float
    omega_bar: float
    bound_s: float
    crossover_rad_s: float
    delay_margin_s: float


def eta_zeta(p: float) -> tuple[float, float]:
    """eta(p) and zeta(p) of App. A."""
    eta = p / ((1 - p) ** (-BC_CYCLE_FRAMES) - 1)
    return eta, eta * (1 - p) ** (BC_CYCLE_FRAMES * FR_CYCLES)


def qcn_bound(rate_bps: float, n_flows: float, *, p: float = SAMPLING_P, w: float = W_FEEDBACK, gd: float = GD,
              r_ai_bps: float = R_AI_BPS, frame_bytes: float = PACKET_BYTES_DEFAULT) -> QcnBound:
    """Corrected Proposition 1 bound (E33) and the exact delay margin for N flows at `rate_bps`."""
    c = pkts_per_s(check_positive("rate_bps", rate_bps), check_positive("frame_bytes", frame_bytes))
    n = check_positive("n_flows", n_flows)
    p = check_range("p", p, 0.0, 1.0, lo_open=True, hi_open=True)
    w = check_positive("w", w)
    gd = check_positive("gd", gd)
    r_ai = pkts_per_s(check_positive("r_ai_bps", r_ai_bps, allow_zero=True), frame_bytes)
    rc = c / n
    eta, zeta = eta_zeta(p)
    b = p * rc
    a1 = eta * rc / 2 + eta * zeta * r_ai / (2 * p)
    a2 = eta * rc / 2
    a3 = gd * w * rc
    alpha = b * (a1 - a2)
    beta = b + a1
    gamma = p * c / w                                                    # E33
    omega_star = math.sqrt(a3**2 / 2 + math.sqrt(a3**4 / 4 + gamma**2 * a3**2))   # E33: a3^4/4
    x = a3**2 + 2 * alpha - beta**2
    omega_bar = math.sqrt((x + math.sqrt(x**2 + 4 * (a3**2 * gamma**2 - alpha**2))) / 2)
    bound = (math.atan(omega_star / b) + math.atan(omega_star / gamma)
             - math.atan(omega_bar / beta - alpha / (beta * omega_bar))) / omega_bar
    disc = complex(beta**2 - 4 * alpha) ** 0.5
    loop = DelayedRationalLoop(gain=a3, zeros=[-b, -gamma], poles=[0.0, (-beta + disc) / 2, (-beta - disc) / 2])
    wc = loop.gain_crossover()
    return QcnBound(rate_bps=rate_bps, n_flows=n, a1=a1, a2=a2, a3=a3, b=b, gamma=gamma, alpha=alpha, beta=beta,
                    eta=eta, zeta=zeta, omega_star=omega_star, omega_bar=omega_bar, bound_s=bound,
                    crossover_rad_s=wc, delay_margin_s=loop.delay_margin())


def qcn_loop(bound: QcnBound, *, delay_s: float = 0.0) -> DelayedRationalLoop:
    """The corrected loop G(s) of a computed bound, with a chosen delay (for Bode/Nyquist plots)."""
    disc = complex(bound.beta**2 - 4 * bound.alpha) ** 0.5
    return DelayedRationalLoop(gain=bound.a3, zeros=[-bound.b, -bound.gamma],
                               poles=[0.0, (-bound.beta + disc) / 2, (-bound.beta - disc) / 2], delay_s=delay_s)
