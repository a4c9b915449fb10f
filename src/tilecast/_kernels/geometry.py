"""Exact geometric predicates and the point-in-polygon kernel (Numba).

``orient2d`` decides the sign of ``(b - a) x (c - a)`` exactly on the doubles
given. A floating-point filter (Shewchuk's error bound, widened by a few
subnormal units for products that underflow) answers almost every call. The
rare close call is decided exactly, whatever the magnitudes, when the four
differences are exact doubles (then the sign of ``p*q - r*s`` is compared on
mantissas and exponents); otherwise by an error-free expansion of the
determinant after scaling the six coordinates by one power of two, which is
exact when their non-zero magnitudes span at most about ``2**960``. Beyond
that (a coordinate near ``1e-300`` next to one near ``1``, with a difference
that rounds), it returns :data:`UNDECIDED` and the caller decides in exact
rational arithmetic or refuses the input.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from tilecast._kernels import internal
from tilecast._kernels.exact import expansion_sign, two_prod, two_sum

_EPS = 2.0**-53
_CCW_BOUND = (3.0 + 16.0 * _EPS) * _EPS
# Absolute error of the filter's two products and the bound when they
# underflow into the subnormals (each at most half of 2**-1074), with margin.
_UNDERFLOW = 2.0**-1071
# The scaled expansion is exact when every non-zero coordinate lies in
# [2**-SAFE_EXPONENT, 2**SAFE_EXPONENT]: products stay within [2**-960, 2**960]
# and their rounding errors (multiples of 2**-1064) never underflow.
SAFE_EXPONENT = 480
_SAFE_LOW = 2.0**-SAFE_EXPONENT
#: orient2d's answer when it cannot decide exactly in float64 (see above).
UNDECIDED = 2


@internal
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


@internal
def _sign(x):
    return (x > 0.0) - (x < 0.0)


@internal
def product_difference_sign(p, q, r, s):
    """Exact sign of ``p*q - r*s`` for any finite doubles (no overflow, no underflow).

    Signs first; equal signs compare the magnitudes by exponent, and, when the
    exponents are within one of each other, the mantissa products exactly.
    """
    s1 = _sign(p) * _sign(q)
    s2 = _sign(r) * _sign(s)
    if s1 == 0:
        return -s2
    if s2 == 0 or s1 != s2:
        return s1
    mp, ep = math.frexp(abs(p))
    mq, eq = math.frexp(abs(q))
    mr, er = math.frexp(abs(r))
    ms, es = math.frexp(abs(s))
    # mantissas in [0.5, 1): each product of two lies in [0.25, 1)
    gap = (ep + eq) - (er + es)
    if gap >= 2:
        return s1
    if gap <= -2:
        return -s1
    terms = np.empty(4)
    hi, lo = two_prod(mp, mq)
    terms[0], terms[1] = math.ldexp(hi, gap), math.ldexp(lo, gap)
    hi, lo = two_prod(mr, ms)
    terms[2], terms[3] = -hi, -lo
    return s1 * expansion_sign(terms)


@internal
def _exact_difference(b, a):
    d, err = two_sum(b, -a)
    return d, math.isfinite(d) and err == 0.0


@internal
def _scaled(x, shift):
    """``x * 2**shift`` and whether it is exact and inside the safe range."""
    y = math.ldexp(x, shift)
    if x == 0.0:
        return y, True
    return y, math.ldexp(y, -shift) == x and abs(y) >= _SAFE_LOW


@internal
def _orient2d_slow(ax, ay, bx, by, cx, cy):
    d1, ok1 = _exact_difference(bx, ax)
    d2, ok2 = _exact_difference(cy, ay)
    d3, ok3 = _exact_difference(by, ay)
    d4, ok4 = _exact_difference(cx, ax)
    if ok1 and ok2 and ok3 and ok4:
        return product_difference_sign(d1, d2, d3, d4)
    big = max(abs(ax), abs(ay), abs(bx), abs(by), abs(cx), abs(cy))
    shift = SAFE_EXPONENT - math.frexp(big)[1]  # the largest becomes < 2**480
    sax, k1 = _scaled(ax, shift)
    say, k2 = _scaled(ay, shift)
    sbx, k3 = _scaled(bx, shift)
    sby, k4 = _scaled(by, shift)
    scx, k5 = _scaled(cx, shift)
    scy, k6 = _scaled(cy, shift)
    if k1 and k2 and k3 and k4 and k5 and k6:
        return _orient2d_exact(sax, say, sbx, sby, scx, scy)
    return UNDECIDED


@internal
def orient2d(ax, ay, bx, by, cx, cy):
    """Sign of (b - a) x (c - a): 1 left turn, -1 right, 0 collinear; UNDECIDED (2), rarely."""
    left = (bx - ax) * (cy - ay)
    right = (by - ay) * (cx - ax)
    det = left - right
    bound = _CCW_BOUND * (abs(left) + abs(right)) + _UNDERFLOW
    # overflow gives inf or NaN here: no comparison succeeds, the slow path decides
    if det > bound:
        return 1
    if -det > bound:
        return -1
    # Cheap exact answers for the common degenerate inputs (shared ends,
    # axis-aligned walls) before the exact arithmetic.
    if (ax == bx and ay == by) or (ax == cx and ay == cy) or (bx == cx and by == cy):
        return 0
    if (ax == bx and bx == cx) or (ay == by and by == cy):
        return 0
    return _orient2d_slow(ax, ay, bx, by, cx, cy)


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
@internal
def column_range(points, first, second):
    """Smallest and largest value in two columns (or one: first == second) of a 2D array."""
    lo = np.inf
    hi = -np.inf
    for k in range(points.shape[0]):
        lo = min(lo, points[k, first], points[k, second])
        hi = max(hi, points[k, first], points[k, second])
    return lo, hi


@internal
def prefix_sums(counts):
    """Inclusive running sums of an int64 array (``np.cumsum``)."""
    out = np.empty(counts.shape[0], dtype=np.int64)
    total = np.int64(0)
    for k in range(counts.shape[0]):
        total += counts[k]
        out[k] = total
    return out


@internal
def csr_slots(counts):
    """The second pass of a two-pass CSR build, from the first pass's ``counts``.

    ``counts[c + 1]`` holds how many members list ``c`` has (``counts[0]`` is
    0). Returns ``(starts, fill, members)``: list ``c`` is
    ``members[starts[c]:starts[c + 1]]``, and ``fill[c]`` is where its next
    member goes (the caller writes there and increments it).
    """
    starts = prefix_sums(counts)
    return starts, starts[:-1].copy(), np.empty(starts[-1], dtype=np.int64)


# ------------------------------------------------------------ point in polygon
class SlabIndex(NamedTuple):
    """A polygon's edges bucketed for point queries (:func:`build_slab_index`).

    Slab ``s`` is the rows between ``boundaries[s]`` and ``boundaries[s + 1]``
    (sorted vertex y values); its columns split ``[x0, x1]``, ``inv_x``
    columns per unit x. Cell ``(s, c)`` lists the edges a point there tests
    in ``entries[starts[s * n_cols + c]:starts[s * n_cols + c + 1]]``, and
    ``parity[s, c]`` (S, n_cols) counts the edges that cross every such
    point's ray.
    """

    boundaries: Any
    x0: float
    x1: float
    inv_x: float
    starts: Any
    entries: Any
    parity: Any


@internal
def count_at_most(ascending, value):
    """How many of the ``ascending`` values are ``<= value`` (a binary search).

    ``np.searchsorted(ascending, value, side="right")`` for finite values,
    written out: NumPy's compiles for every dtype it might meet (about a
    second of the first call).
    """
    lo = 0
    hi = ascending.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if ascending[mid] <= value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def build_slab_index(polygon, boundaries, n_cols):
    """Bucket the polygon's edges into slabs (between ``boundaries``) x columns (a SlabIndex).

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
    inv_x = column_scale(x0, x1, n_cols)
    counts = np.zeros(n_slabs * n_cols + 1, dtype=np.int64)
    toggles = np.zeros((n_slabs, n_cols + 1), dtype=np.bool_)
    starts = counts
    entries = np.empty(0, dtype=np.int64)
    fill = counts
    for rep in range(2):
        if rep == 1:
            starts, fill, entries = csr_slots(counts)
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
            s = count_at_most(boundaries, ymin) - 1
            while s < n_slabs and boundaries[s] < ymax:
                lo = boundaries[s]
                hi = boundaries[s + 1]
                full = ymin <= lo and ymax >= hi
                # Column span of the edge inside the slab, one column of slack
                # each side: columns computed in floating point may be off by one.
                xa = ax + (max(lo, ymin) - ay) * slope
                xb = ax + (min(hi, ymax) - ay) * slope
                # the edge's x inside the slab lies between its ends' x; a
                # slope that overflowed (NaN, inf) gives that whole range
                left = min(ax, bx)
                right = max(ax, bx)
                x_lo = min(xa, xb)
                x_hi = max(xa, xb)
                x_lo = x_lo if left <= x_lo <= right else left
                x_hi = x_hi if left <= x_hi <= right else right
                c0 = max(column_of(x_lo, x0, inv_x, n_cols) - 1, 0)
                c1 = min(column_of(x_hi, x0, inv_x, n_cols) + 1, n_cols - 1)
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
    return SlabIndex(boundaries, x0, x1, inv_x, starts, entries, parity)


@internal
def column_scale(x0, x1, n_cols):
    """Columns per unit x for ``n_cols`` columns on [x0, x1]; 0 (one column) if not finite."""
    inv_x = n_cols / (x1 - x0) if x1 > x0 else 0.0
    return inv_x if math.isfinite(inv_x) else 0.0


@internal
def column_of(x, x0, inv_x, n_cols):
    """Column of ``x`` (clamped to [0, n_cols - 1]; NaN from an overflow is column 0)."""
    u = (x - x0) * inv_x
    if not u >= 1.0:  # also NaN: never converted to an integer
        return 0
    if u >= n_cols:
        return n_cols - 1
    return int(u)


@njit(cache=True, nogil=True)
def points_in_polygon(lo, hi, points, polygon, index, out, undecided):
    """Even-odd test of points lo .. hi - 1: writes ``out`` (inside) and ``undecided``.

    ``index``: the polygon's :class:`SlabIndex`.

    ``undecided[i]`` is set when a predicate said UNDECIDED (the caller
    decides those points exactly). GIL-free over a range, for
    :func:`tilecast._threads.run_tasks` (no parallel-loop compile).
    """
    boundaries, x0, x1, inv_x = index.boundaries, index.x0, index.x1, index.inv_x
    starts, entries, parity = index.starts, index.entries, index.parity
    n = polygon.shape[0]
    n_slabs, n_cols = parity.shape
    for i in range(lo, hi):
        px = points[i, 0]
        py = points[i, 1]
        if not (py >= boundaries[0] and py < boundaries[n_slabs] and px >= x0 and px <= x1):
            continue
        s = count_at_most(boundaries, py) - 1
        c = column_of(px, x0, inv_x, n_cols)
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
                side = orient2d(ax, ay, bx, by, px, py)
            else:
                side = orient2d(bx, by, ax, ay, px, py)
            if side == UNDECIDED:
                undecided[i] = True
            elif side > 0:
                inside = not inside
        out[i] = inside
