"""Exactness support for float64 inputs: a float filter first, ``Fraction`` when too close.

Every input double is a rational number. Exact predicates compare sums of
squares of differences, where the terms are doubles or grid corners ``o + k*s``
taken as exact reals (usually not doubles). This module holds the error bounds
such float filters use (:data:`REL_ERROR`, :data:`ABS_ERROR`, :data:`ROUNDING`,
:func:`corner_error`) and the exact values for the rare close cases
(:func:`corner_exact`, :func:`dist2_exact`, with :class:`fractions.Fraction`).
The float estimate is trusted only when it is further from the threshold than
its worst-case error (a few ulps of the magnitudes involved, with a margin).
"""

from __future__ import annotations

from fractions import Fraction

# Relative bound on the rounding error of a*a + b*b - r*r computed in float64
# from exact-difference inputs (about 4 ulps); 1e-14 leaves a wide margin.
REL_ERROR = 1e-14
# Absolute slack for products that underflow towards subnormals.
ABS_ERROR = 1e-300
# Twice the unit roundoff: one float64 operation's result ``y`` is within
# ``ROUNDING * |y|`` of the exact value (subnormal sums and differences are exact).
ROUNDING = 2.0**-52
# Smallest subnormal: covers the absolute error of an underflowing product.
TINY = 2.0**-1074


def corner_error(o: float, s: float, n: int) -> float:
    """Bound the float64 rounding of the grid corners ``o + k*s`` for every integer ``|k| <= n``.

    The corner is computed as ``o + k * s`` in float64 (the product, then the
    sum); its exact value is the real number ``Fraction(o) + k*Fraction(s)``
    (:func:`corner_exact`). ``n <= 2**53`` so that ``k`` converts to a double
    exactly, and ``s > 0``. Each rounding is at most ``u`` (half an ulp)
    relative, so the error is at most ``u*|k*s| + u*|o + k*s|`` plus an underflow
    term, at most about ``u * (|o| + 2*n*s)``; the bound returned is twice that (so
    the rounding of this bound itself is covered). Overflow gives ``inf``.
    """
    return ROUNDING * (abs(o) + 2.0 * (n * s)) + TINY


def corner_exact(o: float, k: int, s: float) -> Fraction:
    """Return the exact value of ``o + k*s`` on the doubles ``o`` and ``s``."""
    return Fraction(o) + k * Fraction(s)


def dist2_exact(px: float, py: float, qx: float, qy: float) -> Fraction:
    """Exact squared distance between two points given as doubles."""
    dx = Fraction(px) - Fraction(qx)
    dy = Fraction(py) - Fraction(qy)
    return dx * dx + dy * dy
