"""Exact geometric predicates and the point-in-polygon kernel (Numba).

``orient2d`` is exact for every pair of finite doubles whose products neither
overflow nor underflow: a floating-point filter (Shewchuk's error bound) answers
almost every call; the rare near-degenerate call falls back to an error-free
expansion of the determinant (Dekker products, Knuth sums).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from tilecast._kernels.exact import expansion_sign, two_prod

_EPS = 2.0**-53
_CCW_BOUND = (3.0 + 16.0 * _EPS) * _EPS


@njit(cache=True)
def _orient2d_exact(ax, ay, bx, by, cx, cy):
    # det = bx*cy - bx*ay - ax*cy - by*cx + by*ax + ay*cx, every product split
    # exactly into two doubles, then summed exactly.
    terms = np.empty(12)
    terms[0], terms[1] = two_prod(bx, cy)
    terms[2], terms[3] = two_prod(-bx, ay)
    terms[4], terms[5] = two_prod(-ax, cy)
    terms[6], terms[7] = two_prod(-by, cx)
    terms[8], terms[9] = two_prod(by, ax)
    terms[10], terms[11] = two_prod(ay, cx)
    return expansion_sign(terms)


@njit(cache=True)
def orient2d(ax, ay, bx, by, cx, cy):
    """Sign of the cross product (b - a) x (c - a): 1 left turn, -1 right, 0 collinear."""
    left = (bx - ax) * (cy - ay)
    right = (by - ay) * (cx - ax)
    det = left - right
    bound = _CCW_BOUND * (abs(left) + abs(right))
    if det > bound:
        return 1
    if -det > bound:
        return -1
    # Cheap exact answers for the common degenerate inputs (shared ends,
    # axis-aligned walls) before the expansion arithmetic.
    if (ax == bx and ay == by) or (ax == cx and ay == cy) or (bx == cx and by == cy):
        return 0
    if (ax == bx and bx == cx) or (ay == by and by == cy):
        return 0
    return _orient2d_exact(ax, ay, bx, by, cx, cy)


@njit(cache=True)
def orient_many(a, b, c):
    n = a.shape[0]
    out = np.empty(n, dtype=np.int8)
    for k in range(n):
        out[k] = orient2d(a[k, 0], a[k, 1], b[k, 0], b[k, 1], c[k, 0], c[k, 1])
    return out


# ------------------------------------------------------------- bucketing aids
# Plain loops instead of NumPy reductions (min, max, cumsum, floor) keep each
# kernel's compile short: every NumPy function compiles its own generic code.
@njit(cache=True)
def column_range(points, first, second):
    """Smallest and largest value in two columns (or one: first == second) of a 2D array."""
    lo = np.inf
    hi = -np.inf
    for k in range(points.shape[0]):
        lo = min(lo, points[k, first], points[k, second])
        hi = max(hi, points[k, first], points[k, second])
    return lo, hi


@njit(cache=True)
def prefix_sums(counts):
    """Inclusive running sums of an int64 array (``np.cumsum``)."""
    out = np.empty(counts.shape[0], dtype=np.int64)
    total = np.int64(0)
    for k in range(counts.shape[0]):
        total += counts[k]
        out[k] = total
    return out


# ------------------------------------------------------------ point in polygon
@njit(cache=True)
def build_slab_index(polygon, boundaries, n_cols):
    """Bucket the polygon's edges into slabs (rows between ``boundaries``) x columns.

    ``boundaries`` are sorted vertex y values (all of them, or a subset for huge
    polygons), so most edges span whole slabs. For cell (s, c),
    ``entries[starts[s * n_cols + c]:starts[s * n_cols + c + 1]]`` lists what a
    query point there must test: ``k`` for an edge near the column (full test)
    and ``-(k + 1)`` for an edge wholly to its right that spans the slab only
    partly (a straddle test suffices). An edge wholly to the right that spans
    the slab crosses every query's ray: those are folded into ``parity[s, c]``.
    Edges wholly to the left never count. Edge k joins vertices k and k + 1.
    """
    n = polygon.shape[0]
    n_slabs = boundaries.shape[0] - 1
    x0, x1 = column_range(polygon, np.int64(0), np.int64(0))
    hx = (x1 - x0) / n_cols
    inv_x = 1.0 / hx if hx > 0.0 else 0.0
    counts = np.zeros(n_slabs * n_cols + 1, dtype=np.int64)
    toggles = np.zeros((n_slabs, n_cols + 1), dtype=np.bool_)
    starts = counts
    entries = np.empty(0, dtype=np.int64)
    fill = counts
    for rep in range(2):
        if rep == 1:
            starts = prefix_sums(counts)
            fill = starts[:-1].copy()
            entries = np.empty(starts[-1], dtype=np.int64)
        for k in range(n):
            ax = polygon[k, 0]
            ay = polygon[k, 1]
            bx = polygon[(k + 1) % n, 0]
            by = polygon[(k + 1) % n, 1]
            ymin = min(ay, by)
            ymax = max(ay, by)
            if ymin == ymax:
                continue  # a horizontal edge never straddles a horizontal ray
            slope = (bx - ax) / (by - ay)
            s = np.searchsorted(boundaries, ymin, side="right") - 1
            while s < n_slabs and boundaries[s] < ymax:
                lo = boundaries[s]
                hi = boundaries[s + 1]
                full = ymin <= lo and ymax >= hi
                # Column span of the edge inside the slab, one column of slack
                # each side: columns computed in floating point may be off by one.
                xa = ax + (max(lo, ymin) - ay) * slope
                xb = ax + (min(hi, ymax) - ay) * slope
                c0 = max(math.floor((min(xa, xb) - x0) * inv_x) - 1, 0)
                c1 = min(math.floor((max(xa, xb) - x0) * inv_x) + 1, n_cols - 1)
                if full and rep == 0:
                    toggles[s, c0] = not toggles[s, c0]
                for c in range(c0 if full else 0, c1 + 1):
                    cell = s * n_cols + c
                    if rep == 0:
                        counts[cell + 1] += 1
                    else:
                        entries[fill[cell]] = k if c >= c0 else -(k + 1)
                        fill[cell] += 1
                s += 1
    parity = np.zeros((n_slabs, n_cols), dtype=np.bool_)
    for s in range(n_slabs):
        acc = False
        for c in range(n_cols - 1, -1, -1):
            acc = acc != toggles[s, c + 1]
            parity[s, c] = acc
    return boundaries, x0, x1, inv_x, starts, entries, parity


@njit(cache=True, parallel=True)
def points_in_polygon(points, polygon, boundaries, x0, x1, inv_x, starts, entries, parity):
    m = points.shape[0]
    n = polygon.shape[0]
    n_slabs, n_cols = parity.shape
    out = np.zeros(m, dtype=np.bool_)
    for i in prange(m):
        px = points[i, 0]
        py = points[i, 1]
        if not (py >= boundaries[0] and py < boundaries[n_slabs] and px >= x0 and px <= x1):
            continue
        s = np.searchsorted(boundaries, py, side="right") - 1
        c = min(int((px - x0) * inv_x), n_cols - 1)
        cell = s * n_cols + c
        inside = parity[s, c]
        for e in range(starts[cell], starts[cell + 1]):
            k = entries[e]
            right_only = k < 0
            if right_only:
                k = -k - 1
            ay = polygon[k, 1]
            by = polygon[(k + 1) % n, 1]
            # Half-open rule: the edge counts when one end is strictly above
            # the line y = py and the other on or below it ...
            if (ay > py) == (by > py):
                continue
            if right_only:
                inside = not inside
                continue
            # ... and it crosses that line strictly right of p (decided exactly).
            ax = polygon[k, 0]
            bx = polygon[(k + 1) % n, 0]
            if by > ay:
                if orient2d(ax, ay, bx, by, px, py) > 0:
                    inside = not inside
            elif orient2d(bx, by, ax, ay, px, py) > 0:
                inside = not inside
        out[i] = inside
    return out
