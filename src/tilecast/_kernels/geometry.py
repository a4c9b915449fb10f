"""Exact geometric predicates and the point-in-polygon kernel (Numba).

``orient2d`` is exact for every pair of finite doubles whose products neither
overflow nor underflow: a floating-point filter (Shewchuk's error bound) answers
almost every call; the rare near-degenerate call falls back to an error-free
expansion of the determinant (Dekker products, Knuth sums).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_EPS = 2.0**-53
_CCW_BOUND = (3.0 + 16.0 * _EPS) * _EPS
_SPLITTER = 134217729.0  # 2**27 + 1


@njit(cache=True, inline="always")
def _two_sum(a, b):
    x = a + b
    bv = x - a
    av = x - bv
    return x, (a - av) + (b - bv)


@njit(cache=True, inline="always")
def _two_prod(a, b):
    x = a * b
    c = _SPLITTER * a
    ahi = c - (c - a)
    alo = a - ahi
    c = _SPLITTER * b
    bhi = c - (c - b)
    blo = b - bhi
    err = alo * blo - (((x - ahi * bhi) - alo * bhi) - ahi * blo)
    return x, err


@njit(cache=True)
def _orient2d_exact(ax, ay, bx, by, cx, cy):
    # det = bx*cy - bx*ay - ax*cy - by*cx + by*ax + ay*cx, every product split
    # exactly into two doubles, then summed exactly (grow-expansion).
    terms = np.empty(12)
    terms[0], terms[1] = _two_prod(bx, cy)
    terms[2], terms[3] = _two_prod(-bx, ay)
    terms[4], terms[5] = _two_prod(-ax, cy)
    terms[6], terms[7] = _two_prod(-by, cx)
    terms[8], terms[9] = _two_prod(by, ax)
    terms[10], terms[11] = _two_prod(ay, cx)
    expansion = np.empty(13)
    m = 0
    for i in range(12):
        q = terms[i]
        k = 0
        for j in range(m):
            q, h = _two_sum(q, expansion[j])
            if h != 0.0:
                expansion[k] = h
                k += 1
        expansion[k] = q
        k += 1
        m = k
    for j in range(m - 1, -1, -1):
        if expansion[j] > 0.0:
            return 1
        if expansion[j] < 0.0:
            return -1
    return 0


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
    return _orient2d_exact(ax, ay, bx, by, cx, cy)


@njit(cache=True)
def orient_many(a, b, c):
    n = a.shape[0]
    out = np.empty(n, dtype=np.int8)
    for k in range(n):
        out[k] = orient2d(a[k, 0], a[k, 1], b[k, 0], b[k, 1], c[k, 0], c[k, 1])
    return out


# ------------------------------------------------------------ point in polygon
@njit(cache=True)
def build_slabs(polygon, n_slabs):
    """Bucket the polygon's edges into horizontal slabs of equal height.

    Returns ``(y0, inv_height, starts, edges)``: the edges overlapping slab s are
    ``edges[starts[s]:starts[s + 1]]`` (edge k joins vertex k and k + 1).
    """
    n = polygon.shape[0]
    y0 = polygon[0, 1]
    y1 = polygon[0, 1]
    for k in range(n):
        y0 = min(y0, polygon[k, 1])
        y1 = max(y1, polygon[k, 1])
    height = (y1 - y0) / n_slabs
    inv_height = 1.0 / height if height > 0.0 else 0.0
    counts = np.zeros(n_slabs + 1, dtype=np.int64)
    lo = np.empty(n, dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    for k in range(n):
        ya = polygon[k, 1]
        yb = polygon[(k + 1) % n, 1]
        # One slab of slack on each side: a slab index computed in floating
        # point may be off by one, and a missed edge would be a wrong answer.
        s0 = int((min(ya, yb) - y0) * inv_height) - 1
        s1 = int((max(ya, yb) - y0) * inv_height) + 1
        lo[k] = max(s0, 0)
        hi[k] = min(s1, n_slabs - 1)
        for s in range(lo[k], hi[k] + 1):
            counts[s + 1] += 1
    starts = np.cumsum(counts)
    fill = starts[:-1].copy()
    edges = np.empty(starts[-1], dtype=np.int64)
    for k in range(n):
        for s in range(lo[k], hi[k] + 1):
            edges[fill[s]] = k
            fill[s] += 1
    return y0, y1, inv_height, starts, edges


@njit(cache=True, inline="always")
def _inside_slab(px, py, polygon, edges, first, last):
    n = polygon.shape[0]
    inside = False
    for e in range(first, last):
        k = edges[e]
        ax = polygon[k, 0]
        ay = polygon[k, 1]
        bx = polygon[(k + 1) % n, 0]
        by = polygon[(k + 1) % n, 1]
        # Half-open rule: the edge counts when it crosses the horizontal line
        # y = py with one end strictly above and the other on or below.
        if (ay > py) != (by > py):
            # The crossing lies strictly right of p iff p is on the inner side
            # of the upward-directed edge; decided exactly.
            if by > ay:
                if orient2d(ax, ay, bx, by, px, py) > 0:
                    inside = not inside
            elif orient2d(bx, by, ax, ay, px, py) > 0:
                inside = not inside
    return inside


@njit(cache=True, parallel=True)
def points_in_polygon(points, polygon, y0, y1, inv_height, starts, edges):
    m = points.shape[0]
    n_slabs = starts.shape[0] - 1
    out = np.zeros(m, dtype=np.bool_)
    for i in prange(m):
        px = points[i, 0]
        py = points[i, 1]
        if not (py >= y0 and py <= y1):
            continue
        s = int((py - y0) * inv_height)
        if s >= n_slabs:
            s = n_slabs - 1
        out[i] = _inside_slab(px, py, polygon, edges, starts[s], starts[s + 1])
    return out
