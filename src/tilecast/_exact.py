"""Exact predicates on float64 inputs: a float filter first, ``Fraction`` when too close.

Every input double is a rational number; these helpers decide comparisons
between sums of squares of differences of doubles exactly. The float estimate
is trusted only when it is further from the threshold than its worst-case
rounding error (a few ulps of the magnitudes involved, with a margin); the
rare close cases are recomputed with :class:`fractions.Fraction`.
"""

from __future__ import annotations

import math
from fractions import Fraction

# Relative bound on the rounding error of a*a + b*b - r*r computed in float64
# from exact-difference inputs (about 4 ulps); 1e-14 leaves a wide margin.
_REL = 1e-14
# Absolute slack for products that underflow towards subnormals.
_ABS = 1e-300


def gap(c: float, lo: float, hi: float) -> tuple[float, float]:
    """Return the gap from ``c`` to the interval ``[lo, hi]`` as an exact pair ``p - q``.

    Zero inside the interval. This is the "folded" clamp: ``max(|c - mid| -
    half, 0)``, written without rounding ``mid`` and ``half``.
    """
    if c < lo:
        return (lo, c)
    if c > hi:
        return (c, hi)
    return (0.0, 0.0)


def sq_le(gx: tuple[float, float], gy: tuple[float, float], r: float) -> bool:
    """Exactly ``(gx[0] - gx[1])**2 + (gy[0] - gy[1])**2 <= r**2``."""
    a = gx[0] - gx[1]
    b = gy[0] - gy[1]
    lhs = a * a + b * b
    rhs = r * r
    if math.isfinite(lhs) and math.isfinite(rhs):
        tol = _REL * (lhs + rhs) + _ABS
        if lhs < rhs - tol:
            return True
        if lhs > rhs + tol:
            return False
    fa = Fraction(gx[0]) - Fraction(gx[1])
    fb = Fraction(gy[0]) - Fraction(gy[1])
    fr = Fraction(r)
    return fa * fa + fb * fb <= fr * fr


def dist2_exact(px: float, py: float, qx: float, qy: float) -> Fraction:
    """Exact squared distance between two points given as doubles."""
    dx = Fraction(px) - Fraction(qx)
    dy = Fraction(py) - Fraction(qy)
    return dx * dx + dy * dy
