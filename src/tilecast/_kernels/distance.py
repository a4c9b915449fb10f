"""The exact Euclidean distance transform, and the likelihood field's scan evaluation (Numba).

:func:`column_pass` and :func:`row_pass` are the two passes of Felzenszwalb
and Huttenlocher's distance transform ("Distance Transforms of Sampled
Functions", 2012): the distance along each column to the nearest blocking
cell, then, along each row, the lower envelope of the parabolas
``(x - q)**2 + f(q)``. The envelope's breakpoints are compared by cross
multiplication rather than by dividing, so for square cells (integer
inputs, products below 2**53: maps up to about 10**5 cells a side) every
decision is exact and the squared distance is an exact integer; the
distance is its square root (correctly rounded) times the cell size. Both
passes take a range of columns or rows and release the GIL, so the caller
runs them in parallel (:mod:`tilecast._threads`).

:func:`field_log_likelihood` evaluates the likelihood field for a range of
poses: each beam's end point, the cell holding it, one lookup.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from tilecast._kernels.beams import sincos


@njit(cache=True, nogil=True)
def column_pass(lo, hi, blocking, g):
    """g[r, c] = |r - r'| to the nearest blocking cell (r', c) of column c, inf if none.

    Columns lo .. hi - 1, swept row by row (contiguous reads) down, then up.
    """
    rows = blocking.shape[0]
    for c in range(lo, hi):
        g[0, c] = 0.0 if blocking[0, c] else np.inf
    for r in range(1, rows):
        for c in range(lo, hi):
            g[r, c] = 0.0 if blocking[r, c] else g[r - 1, c] + 1.0
    for r in range(rows - 2, -1, -1):
        for c in range(lo, hi):
            below = g[r + 1, c] + 1.0
            if below < g[r, c]:
                g[r, c] = below


@njit(cache=True, nogil=True)
def row_pass(lo, hi, g, ratio, cell_width, out):
    """out[r, x] = cell_width * sqrt(min_q (x - q)**2 + (ratio * g[r, q])**2), rows lo .. hi - 1.

    ``ratio`` is cell height / cell width (1 for square cells); ``inf``
    where the map has no blocking cell. The lower envelope of the parabolas
    of the finite ``g[r, q]``, breakpoints kept as fractions ``num / den``
    (``den > 0``; ``den == 0`` is minus infinity) and compared by cross
    multiplication.
    """
    cols = g.shape[1]
    f = np.empty(cols)
    v = np.empty(cols, dtype=np.int64)  # the parabolas on the envelope
    num = np.empty(cols + 1)  # breakpoint k: where parabola v[k] starts
    den = np.empty(cols + 1)
    for r in range(lo, hi):
        for q in range(cols):
            h = ratio * g[r, q]
            f[q] = h * h
        k = -1
        for q in range(cols):
            if f[q] == np.inf:
                continue
            if k < 0:
                k = 0
                v[0] = q
                den[0] = 0.0
                continue
            while True:
                p = v[k]
                s_num = (f[q] + q * q) - (f[p] + p * p)
                s_den = 2.0 * (q - p)
                # pop parabola v[k] while the new one takes over before it starts
                if den[k] != 0.0 and s_num * den[k] <= num[k] * s_den:
                    k -= 1
                else:
                    break
            k += 1
            v[k] = q
            num[k] = s_num
            den[k] = s_den
        if k < 0:
            for x in range(cols):
                out[r, x] = np.inf
            continue
        last = k
        k = 0
        for x in range(cols):
            # move on while the next parabola starts at or before x
            while k < last and num[k + 1] <= x * den[k + 1]:
                k += 1
            d = x - v[k]
            out[r, x] = cell_width * math.sqrt(d * d + f[v[k]])


@njit(cache=True, nogil=True)
def field_log_likelihood(lo, hi, poses, angles, observed, table, frame, cube, out):
    """out[p] for poses lo .. hi - 1 under the likelihood field.

    ``angles`` and ``observed`` are the beams that count (readings below
    max_range), ``frame`` (origin x, origin y, cell width, cell height,
    value off the map), ``table[row, col]`` the per-cell value: ``log pz``
    (``cube`` False: out is the sum over beams, in order) or ``pz**3``
    (``cube`` True: out is ``log(1 + sum)``, summed from 1.0 in beam order
    as nav2_amcl does).
    """
    ox, oy, w, h, off_map = frame
    rows, cols = table.shape
    for p in range(lo, hi):
        x0 = poses[p, 0]
        y0 = poses[p, 1]
        theta = poses[p, 2]
        total = 1.0 if cube else 0.0
        for b in range(angles.shape[0]):
            s, c = sincos(theta + angles[b])
            z = observed[b]
            u = (x0 + z * c - ox) / w
            v = (y0 + z * s - oy) / h
            if 0.0 <= u < cols and 0.0 <= v < rows:
                total += table[np.int64(v), np.int64(u)]
            else:
                total += off_map
        out[p] = math.log(total) if cube else total
