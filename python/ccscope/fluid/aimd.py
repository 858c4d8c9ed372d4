"""AIMD throughput-ratio model of DCTCP/NewReno coexistence, Irteza et al. (P003 §III.A eqs 3-4, Fig 1).

Synchronized AIMD flows with additive increase alpha_i and retained fraction beta_i converge to
windows proportional to alpha_i/(1 - beta_i) (eq 3), so with equal RTTs
    T_r = alpha_dctcp (1 - beta_tcp) / (alpha_tcp (1 - beta_dctcp))        (4)
Here beta is the fraction of the window KEPT after a back-off (Fig 1's x axis). DCTCP keeps
1 - alpha/2 of its window for a mean marking estimate alpha; the paper's "back-off factor 0.215"
(§IV.E) is that mean alpha, so T_r = 0.5/(0.1075) = 4.651 (erratum E64; 2.33 if read as a cut fraction).
ALGORITHMS.md §7.3; FIGURES.md coexistence/fig1.
"""
from __future__ import annotations

import numpy as np

from ccscope.fluid.base import check_array, check_positive

#: NewReno keeps half its window after a loss/mark (P003 §III.A).
BETA_TCP = 0.5
#: Additive increase of both protocols, pkts per RTT (P003 §III.A).
ALPHA_AI = 1.0


def throughput_ratio(beta_dctcp, *, beta_tcp: float = BETA_TCP, alpha_dctcp: float = ALPHA_AI,
                     alpha_tcp: float = ALPHA_AI):
    """T_r = T_dctcp / T_tcp of eq 4 for retained fractions beta in [0, 1) (array or scalar)."""
    b = check_array("beta_dctcp", beta_dctcp, lo=0.0, lo_open=False, hi=1.0, hi_open=True)
    check_array("beta_tcp", beta_tcp, lo=0.0, lo_open=False, hi=1.0, hi_open=True)
    check_positive("alpha_dctcp", alpha_dctcp)
    check_positive("alpha_tcp", alpha_tcp)
    out = alpha_dctcp * (1 - beta_tcp) / (alpha_tcp * (1 - b))
    return float(out) if np.ndim(out) == 0 else out


def beta_from_alpha(alpha):
    """DCTCP's retained fraction 1 - alpha/2 for a mean marking estimate alpha in [0, 1] (eq 4 of P000)."""
    a = check_array("alpha", alpha, lo=0.0, lo_open=False, hi=1.0)
    out = 1 - a / 2
    return float(out) if np.ndim(out) == 0 else out
