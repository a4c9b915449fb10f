"""Beam directions for lidar scans: a fast, accurate sine and cosine (Numba).

The scans turn ``theta + angle`` into a direction once per beam; libm's
``sin`` and ``cos`` cost about 30 ns a pair there, this polynomial a quarter
of that, within 2 units in the last place. ``tilecast.rays.beam_directions``
exposes the exact directions so that a scan can be reproduced ray by ray.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# pi/2 in three parts of 33 significant bits each (Cody and Waite), so that
# k * part is exact for |k| < 2**20; the error of the reduced angle is then
# about |k| * 1e-31, a unit in the last place or less of any result.
_PIO2_1 = 1.57079632673412561417e00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624871116645580e-21
_TWO_OVER_PI = 0.636619772367581343076
SINCOS_RANGE = 4.0e5  # |k| < 2**18 here; beyond, fall back to libm


@njit(cache=True, inline="always")
def sincos(x):
    """(sin x, cos x) within 2 ulps, about 4x faster than two libm calls.

    Range reduction by pi/2 (three-part constant), then Taylor polynomials
    on [-pi/4, pi/4] (their truncation error is below 1e-19 there).
    """
    if not abs(x) < SINCOS_RANGE:
        return math.sin(x), math.cos(x)
    return sincos_near(x)


@njit(cache=True, inline="always")
def floor(x):
    """``np.floor``: a whole float (``math.floor`` gives an int64, which SIMD code
    cannot convert to or from floats before AVX-512); on a CUDA device, which has
    no ``floor`` ufunc, ``math.floor``'s."""
    return np.floor(x)


@njit(cache=True, inline="always")
def sincos_near(x):
    """:func:`sincos` for ``abs(x) < SINCOS_RANGE`` (no branch: loops over it vectorise)."""
    k = floor(x * _TWO_OVER_PI + 0.5)
    r = ((x - k * _PIO2_1) - k * _PIO2_2) - k * _PIO2_3
    r2 = r * r
    sin_r = r + r * r2 * (
        -1.0 / 6.0
        + r2 * (1.0 / 120.0
        + r2 * (-1.0 / 5040.0
        + r2 * (1.0 / 362880.0
        + r2 * (-1.0 / 39916800.0
        + r2 * (1.0 / 6227020800.0
        + r2 * (-1.0 / 1307674368000.0
        + r2 * (1.0 / 355687428096000.0))))))))  # fmt: skip
    cos_r = 1.0 - 0.5 * r2 + r2 * r2 * (
        1.0 / 24.0
        + r2 * (-1.0 / 720.0
        + r2 * (1.0 / 40320.0
        + r2 * (-1.0 / 3628800.0
        + r2 * (1.0 / 479001600.0
        + r2 * (-1.0 / 87178291200.0
        + r2 * (1.0 / 20922789888000.0
        + r2 * (-1.0 / 6402373705728000.0))))))))  # fmt: skip
    # (sin, cos) of quadrants 0..3: (s, c), (c, -s), (-s, -c), (-c, s); written
    # with selects, since the quadrant of a random angle is unpredictable
    quadrant = np.int32(k) & 3
    odd = (quadrant & 1) != 0
    sin_x = cos_r if odd else sin_r
    cos_x = sin_r if odd else cos_r
    sin_x = -sin_x if (quadrant & 2) != 0 else sin_x
    cos_x = -cos_x if ((quadrant + 1) & 2) != 0 else cos_x
    return sin_x, cos_x


@njit(cache=True, parallel=True)
def scan_directions(poses, angles):
    """Unit directions (cos, sin) of theta + angle for every pose and beam, (P * B, 2)."""
    p = poses.shape[0]
    b = angles.shape[0]
    out = np.empty((p * b, 2))
    for q in prange(p):
        for a in range(b):
            s, c = sincos(poses[q, 2] + angles[a])
            out[q * b + a, 0] = c
            out[q * b + a, 1] = s
    return out
