"""Generic Poincaré-map tools: finite-difference Jacobian, Newton fixed point, multipliers.

Place in the pipeline: a model supplies its return map P (e.g. the DCTCP map on the switching
plane q~ = 0, `ccscope.fluid.dctcp.DctcpNormalized.poincare`); these helpers find x* = P(x*) and
the eigenvalues of DP(x*). The orbit is locally asymptotically stable iff every multiplier has
modulus < 1 (P000 Theorem 1).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Relative step of the central differences (balances truncation against the map's ~1e-11 noise).
FD_REL_STEP = 1e-5
#: Newton stops when the step is below this (relative to the state).
NEWTON_TOL = 1e-10
NEWTON_MAX_ITER = 30


def fd_jacobian(fmap: Callable[[np.ndarray], np.ndarray], x: np.ndarray, *, rel_step: float = FD_REL_STEP) -> np.ndarray:
    """Central-difference Jacobian of `fmap` at `x`."""
    x = np.asarray(x, dtype=float)
    jac = np.empty((len(fmap(x)), len(x)))
    for j in range(len(x)):
        h = rel_step * max(abs(x[j]), 1.0)
        e = np.zeros_like(x)
        e[j] = h
        jac[:, j] = (np.asarray(fmap(x + e)) - np.asarray(fmap(x - e))) / (2 * h)
    return jac


def fixed_point(fmap: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, *, tol: float = NEWTON_TOL,
                max_iter: int = NEWTON_MAX_ITER) -> tuple[np.ndarray, bool]:
    """Solve x = fmap(x) by Newton's method with a finite-difference Jacobian.

    Returns (x*, converged).
    """
    x = np.asarray(x0, dtype=float)
    eye = np.eye(len(x))
    for _ in range(max_iter):
        r = np.asarray(fmap(x)) - x
        jac = fd_jacobian(fmap, x) - eye
        step = np.linalg.solve(jac, -r)
        # damp steps that would leave the region where the map is defined
        x = x + step if np.all(np.isfinite(step)) else x
        if np.max(np.abs(step) / np.maximum(np.abs(x), 1.0)) < tol:
            return x, True
    return x, bool(np.max(np.abs(np.asarray(fmap(x)) - x)) < 1e3 * tol)


def multipliers(jac: np.ndarray) -> np.ndarray:
    """Eigenvalues of a Jacobian sorted by decreasing modulus."""
    ev = np.linalg.eigvals(np.asarray(jac, dtype=float))
    return ev[np.argsort(-np.abs(ev))]


def spectral_radius(jac: np.ndarray) -> float:
    return float(np.max(np.abs(np.linalg.eigvals(np.asarray(jac, dtype=float)))))


def saltation_projection(field: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """I - F c / (c F): moves a perturbation along the flow F onto the plane {c x = const}.

    This is the matrix in front of each propagator in P000 Theorem 1 (Z1, Z2).
    """
    field = np.asarray(field, dtype=float)
    normal = np.asarray(normal, dtype=float)
    return np.eye(len(field)) - np.outer(field, normal) / float(normal @ field)
