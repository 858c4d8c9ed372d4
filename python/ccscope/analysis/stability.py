"""Frequency-domain stability of rational loops with a pure delay: L(s) = k e^{-s tau} prod(s - z)/prod(s - p).

Place in the pipeline: the QCN bound (P002 App. A, `ccscope.fluid.qcn`) and the DX Bode bound
(P004 Theorem 1, `ccscope.fluid.dx`) build a `DelayedRationalLoop` and compare the paper's closed
forms with the exact gain crossover and delay margin computed here. Phases are sums of factor
angles, so they are continuous (no 2*pi wrapping) for the real gains and real-axis roots used here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def brentq(*args, **kwargs):
    """scipy.optimize.brentq, imported on first use (keeps scipy out of `import ccscope.fluid`)."""
    from scipy.optimize import brentq as _brentq

    return _brentq(*args, **kwargs)

#: Frequency bracket (rad/s) searched for the gain crossover, as multiples of the loop's corner scale.
CROSSOVER_BRACKET = (1e-9, 1e9)


@dataclass
class DelayedRationalLoop:
    """Open loop k e^{-s tau} prod(s - zeros)/prod(s - poles) with real k > 0 (zeros/poles: complex ok)."""

    gain: float
    zeros: list[complex] = field(default_factory=list)
    poles: list[complex] = field(default_factory=list)
    delay_s: float = 0.0

    def response(self, omega: np.ndarray | float) -> np.ndarray:
        """L(j omega)."""
        s = 1j * np.asarray(omega, dtype=float)
        num = np.prod([s - z for z in self.zeros], axis=0) if self.zeros else 1.0
        den = np.prod([s - p for p in self.poles], axis=0) if self.poles else 1.0
        return self.gain * np.exp(-s * self.delay_s) * num / den

    def magnitude(self, omega):
        return np.abs(self.response(omega))

    def phase(self, omega) -> np.ndarray:
        """Continuous phase (rad): sum of zero angles - sum of pole angles - omega tau."""
        w = np.asarray(omega, dtype=float)
        ph = sum(np.angle(1j * w - z) for z in self.zeros) - sum(np.angle(1j * w - p) for p in self.poles)
        return ph - w * self.delay_s

    def gain_crossover(self) -> float:
        """The omega with |L(j omega)| = 1 (the first one scanning upward from the bracket's low end)."""
        f = lambda lw: math.log(float(self.magnitude(math.exp(lw))))
        grid = np.linspace(math.log(CROSSOVER_BRACKET[0]), math.log(CROSSOVER_BRACKET[1]), 2001)
        vals = np.array([f(x) for x in grid])
        idx = np.flatnonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))
        if len(idx) == 0:
            raise ValueError("loop gain never crosses 1: no gain crossover")
        i = int(idx[0])
        return math.exp(brentq(f, grid[i], grid[i + 1], xtol=1e-14, rtol=1e-14))

    def delay_margin(self) -> float:
        """Largest extra delay (s) keeping the phase at crossover above -pi: (pi + phase(wc)) / wc."""
        wc = self.gain_crossover()
        return float((math.pi + self.phase(wc)) / wc)
