"""Compiled symmetric shadowcasting (Albert Ford, 2020) on integer slopes.

The pure-Python reference is ``tilecast.fov._fov_reference``; these kernels must
give exactly the same mask. Differences from the reference, all for speed:

- Slopes are ``(numerator, denominator)`` integer pairs with a positive
  denominator, compared by cross multiplication; no floats anywhere.
- Rows are processed depth by depth (breadth first) from two explicit
  buffers of sectors instead of recursion. Sectors of one depth are disjoint
  and ordered by column, so each depth is one left-to-right pass over the
  map. The order of the scan does not change the result: a row's work
  depends only on its own sector.
- The range limit clips the scan itself: a depth's columns are cut to the
  cells within range, and the scan stops at the first depth with none. Cells
  cut off this way could only cast shadows on cells further out, which are
  out of range too (the in-range columns shrink with depth), so the mask is
  the unlimited one restricted to the range. Nothing outside the range box is
  read or written.

Validation happens in ``tilecast.fov``: the kernels trust their input
(origin on the map, ``out`` all False and of the map's shape).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Range metric codes shared with tilecast.fov.
METRIC_NONE = 0
METRIC_EUCLIDEAN = 1  # dx*dx + dy*dy <= bound
METRIC_CHEBYSHEV = 2  # max(|dx|, |dy|) <= bound
METRIC_MANHATTAN = 3  # |dx| + |dy| <= bound


@njit(cache=True, inline="always")
def _isqrt(n):
    # Largest r with r*r <= n, for 0 <= n < 2**52 (float guess, then fixed).
    r = np.int64(np.sqrt(np.float64(n)))
    while r * r > n:
        r -= 1
    while (r + 1) * (r + 1) <= n:
        r += 1
    return r


@njit(cache=True, inline="always")
def _half_width(depth, metric, bound, unlimited):
    # How far the range reaches sideways at this depth; -1 when it ends.
    if metric == METRIC_NONE:
        return unlimited
    if metric == METRIC_EUCLIDEAN:
        rest = bound - depth * depth
        if rest < 0:
            return -1
        return _isqrt(rest)
    if metric == METRIC_CHEBYSHEV:
        if depth > bound:
            return -1
        return bound
    return bound - depth  # manhattan; negative past the end


@njit(cache=True)
def _scan_quadrant(solid, out, ox, oy, quadrant, metric, bound):
    rows, cols = solid.shape
    # Quadrant frame: depth d >= 1 away from the origin, column c sideways.
    # north: (x, y) = (ox + c, oy - d); south: (ox + c, oy + d);
    # east: (ox + d, oy + c); west: (ox - d, oy + c).
    if quadrant == 0:
        max_depth, lo, hi = oy, -ox, cols - 1 - ox
    elif quadrant == 1:
        max_depth, lo, hi = rows - 1 - oy, -ox, cols - 1 - ox
    elif quadrant == 2:
        max_depth, lo, hi = cols - 1 - ox, -oy, rows - 1 - oy
    else:
        max_depth, lo, hi = ox, -oy, rows - 1 - oy
    if max_depth < 1:
        return
    unlimited = rows + cols
    # A sector row per entry: start_num, start_den, end_num, end_den.
    # Each pushed sector owns at least one floor cell of the depth before,
    # so one depth never holds more than hi - lo + 1 of them.
    cap = hi - lo + 2
    current = np.empty((cap, 4), dtype=np.int64)
    following = np.empty((cap, 4), dtype=np.int64)
    current[0, 0] = -1
    current[0, 1] = 1
    current[0, 2] = 1
    current[0, 3] = 1
    n_current = 1
    depth = 1
    while n_current > 0 and depth <= max_depth:
        width = _half_width(depth, metric, bound, unlimited)
        if width < 0:
            break
        col_lo = max(lo, -width)
        col_hi = min(hi, width)
        n_following = 0
        for s in range(n_current):
            start_num = current[s, 0]
            start_den = current[s, 1]
            end_num = current[s, 2]
            end_den = current[s, 3]
            # round_ties_up(depth * start) and round_ties_down(depth * end).
            a = 2 * depth * start_num
            first = (a + start_den) // (2 * start_den)
            b = 2 * depth * end_num
            last = -((end_den - b) // (2 * end_den))
            if first < col_lo:
                first = col_lo
            if last > col_hi:
                last = col_hi
            prev = -1  # -1 no cell yet, 0 floor, 1 wall
            for col in range(first, last + 1):
                if quadrant == 0:
                    x = ox + col
                    y = oy - depth
                elif quadrant == 1:
                    x = ox + col
                    y = oy + depth
                elif quadrant == 2:
                    x = ox + depth
                    y = oy + col
                else:
                    x = ox - depth
                    y = oy + col
                if solid[y, x]:
                    # A wall is seen whenever the sector touches it.
                    out[y, x] = True
                    if prev == 0:
                        following[n_following, 0] = start_num
                        following[n_following, 1] = start_den
                        following[n_following, 2] = 2 * col - 1
                        following[n_following, 3] = 2 * depth
                        n_following += 1
                    prev = 1
                else:
                    # A floor cell is seen when its centre lies in the sector.
                    if col * start_den >= depth * start_num and col * end_den <= depth * end_num:
                        out[y, x] = True
                    if prev == 1:
                        start_num = 2 * col - 1
                        start_den = 2 * depth
                    prev = 0
            if prev == 0:
                following[n_following, 0] = start_num
                following[n_following, 1] = start_den
                following[n_following, 2] = end_num
                following[n_following, 3] = end_den
                n_following += 1
        current, following = following, current
        n_current = n_following
        depth += 1


@njit(cache=True)
def fov_into(solid, out, ox, oy, metric, bound):
    """Mark in ``out`` the cells visible from cell ``(ox, oy)`` of ``solid``."""
    out[oy, ox] = True
    for quadrant in range(4):
        _scan_quadrant(solid, out, ox, oy, quadrant, metric, bound)


@njit(cache=True)
def fov_many_into(solid, out, origins, metric, bound):
    """Mark in ``out`` the cells visible from any origin of ``origins`` (N, 2)."""
    for k in range(origins.shape[0]):
        fov_into(solid, out, origins[k, 0], origins[k, 1], metric, bound)
