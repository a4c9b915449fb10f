"""Compiled symmetric shadowcasting (Albert Ford, 2020) on integer slopes.

The pure-Python reference is ``fov_reference`` in ``tests/reference/fov.py``; these kernels must
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

- The maps are passed flat (C order, cell ``(x, y)`` at ``y * cols + x``):
  a row of a quadrant is then a run with a fixed step, and every cell
  strictly inside a row's column range passes the ``is_symmetric`` test,
  so the visible cells of a row are written as one run.

- Every visible cell goes through ``_mark``, which serves all outputs with
  one compiled signature: a bool mask (``counts`` empty), or a count per
  cell (``counts`` and ``stamp`` of the map's size). The four quadrants
  share their diagonals (and only those), so a diagonal cell may be
  reached twice by one origin; ``stamp`` holds the tag of the last origin
  that counted it, so each origin counts a cell once.
- Many origins with one mask or count each run in parallel: each thread
  takes every ``chunks``-th origin (neighbouring origins cost about the
  same, so striding balances the threads) with its own scratch, and the
  per-thread counts are summed at the end. (The other way, a mask per
  origin summed in chunks, writes and reads a whole map per origin; the
  stamps touch only the cells in view.)

Validation happens in ``tilecast.field_of_view``: the kernels trust their input
(origins on the map, ``solid`` and the outputs flat views of ``rows * cols``,
fewer than ``2**31 - 1`` origins when counting).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from tilecast._kernels import internal

# Range metric codes shared with tilecast.field_of_view.
METRIC_NONE = 0
METRIC_EUCLIDEAN = 1  # dx*dx + dy*dy <= bound
METRIC_CHEBYSHEV = 2  # max(|dx|, |dy|) <= bound
METRIC_MANHATTAN = 3  # |dx| + |dy| <= bound


class Marks(NamedTuple):
    """Where one origin's view marks the cells it sees (see ``_mark``).

    A bool mask ``out`` (flat) when ``counts`` is empty; else one more in
    ``counts`` (flat int32) per cell seen, with ``stamp`` (int32, the map's
    size) taking the origin's ``tag`` so that a cell two quadrants reach is
    counted once.
    """

    out: Any
    counts: Any
    stamp: Any
    tag: int


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


# the tag of a call that marks a mask (typed: the counting calls pass int64
# tags, and a literal 0 would compile the whole scan a second time)
_NO_TAG = np.int64(0)


@internal
def _count(solid, marks, index, light_walls):
    # Count flat cell `index` once for origin `marks.tag` (a diagonal cell,
    # which two quadrants reach).
    stamp = marks.stamp
    if stamp[index] != marks.tag and (light_walls or not solid[index]):
        stamp[index] = marks.tag
        marks.counts[index] += 1


@internal
def _mark(solid, marks, row_base, step, first, last, depth, light_walls):
    # Mark the cells of columns first..last at this depth (flat row_base + col * step)
    # as seen by origin `marks.tag`: in the bool mask `marks.out`, or (when
    # `marks.counts` is not empty) in the counts. Without light_walls, solid
    # cells are left unmarked.
    out, counts = marks.out, marks.counts
    if counts.shape[0] == 0:
        if light_walls:
            for index in range(row_base + first * step, row_base + last * step + 1, step):
                out[index] = True
        else:
            for index in range(row_base + first * step, row_base + last * step + 1, step):
                if not solid[index]:
                    out[index] = True
        return
    # Quadrants overlap only on the diagonals (|col| == depth): only those
    # cells need the stamp to be counted once.
    if first == -depth:
        _count(solid, marks, row_base + first * step, light_walls)
        first += 1
    if last == depth and last >= first:
        _count(solid, marks, row_base + last * step, light_walls)
        last -= 1
    for index in range(row_base + first * step, row_base + last * step + 1, step):
        if light_walls or not solid[index]:
            counts[index] += 1


@internal
def _scan_quadrant(solid, marks, rows, cols, ox, oy, quadrant, metric, bound, light_walls):
    # solid and the marks are flat (C-order) map arrays, cell (x, y) at y*cols + x.
    # Quadrant frame: depth d >= 1 away from the origin, column c sideways.
    # north: (x, y) = (ox + c, oy - d); south: (ox + c, oy + d);
    # east: (ox + d, oy + c); west: (ox - d, oy + c).
    # Cell (d, c) is at flat index row_base + c * step, row_base moving by
    # depth_step per depth.
    if quadrant == 0:
        max_depth, lo, hi = oy, -ox, cols - 1 - ox
        depth_step, step = -cols, 1
    elif quadrant == 1:
        max_depth, lo, hi = rows - 1 - oy, -ox, cols - 1 - ox
        depth_step, step = cols, 1
    elif quadrant == 2:
        max_depth, lo, hi = cols - 1 - ox, -oy, rows - 1 - oy
        depth_step, step = 1, cols
    else:
        max_depth, lo, hi = ox, -oy, rows - 1 - oy
        depth_step, step = -1, cols
    if max_depth < 1:
        return
    unlimited = rows + cols
    # A sector per entry: start_num, start_den, end_num, end_den.
    # Each pushed sector owns a floor cell of the depth before and the
    # sectors of one depth cover disjoint columns, so one depth never holds
    # more than hi - lo + 1 of them.
    cap = hi - lo + 2
    current = np.empty((cap, 4), dtype=np.int64)
    following = np.empty((cap, 4), dtype=np.int64)
    current[0, 0] = -1
    current[0, 1] = 1
    current[0, 2] = 1
    current[0, 3] = 1
    n_current = 1
    depth = np.int64(1)  # typed, not a literal: one signature for _mark
    row_base = oy * cols + ox
    while n_current > 0 and depth <= max_depth:
        width = _half_width(depth, metric, bound, unlimited)
        if width < 0:
            break
        row_base += depth_step
        col_lo = max(lo, -width)
        col_hi = min(hi, width)
        n_following = 0
        for s in range(n_current):
            start_num = current[s, 0]
            start_den = current[s, 1]
            end_num = current[s, 2]
            end_den = current[s, 3]
            # round_ties_up(depth * start) and round_ties_down(depth * end).
            first = (2 * depth * start_num + start_den) // (2 * start_den)
            last = -((end_den - 2 * depth * end_num) // (2 * end_den))
            if first < col_lo:
                first = col_lo
            if last > col_hi:
                last = col_hi
            if first > last:
                continue
            # Walls in range are always seen. Floor cells are seen when their
            # centre is in the sector (is_symmetric), which every cell strictly
            # between first and last passes: only the two ends need the test
            # (a start slope moved inside the row stays half a cell behind).
            seen_first = first
            if not solid[row_base + first * step] and first * start_den < depth * start_num:
                seen_first = first + 1
            seen_last = last
            if not solid[row_base + last * step] and last * end_den > depth * end_num:
                seen_last = last - 1
            if seen_first <= seen_last:
                _mark(solid, marks, row_base, step, seen_first, seen_last, depth, light_walls)
            # Split the sector at each run of walls: the part before a run
            # goes on to the next depth, the part after starts at its end.
            col = first
            index = row_base + first * step
            while col <= last:
                if solid[index]:
                    col += 1
                    index += step
                    while col <= last and solid[index]:
                        col += 1
                        index += step
                    if col <= last:
                        start_num = 2 * col - 1
                        start_den = 2 * depth
                else:
                    col += 1
                    index += step
                    while col <= last and not solid[index]:
                        col += 1
                        index += step
                    following[n_following, 0] = start_num
                    following[n_following, 1] = start_den
                    if col <= last:
                        following[n_following, 2] = 2 * col - 1
                        following[n_following, 3] = 2 * depth
                    else:
                        following[n_following, 2] = end_num
                        following[n_following, 3] = end_den
                    n_following += 1
        current, following = following, current
        n_current = n_following
        depth += 1


@internal
def _view(solid, marks, rows, cols, ox, oy, metric, bound, light_walls):
    # The origin is always seen, solid or not, and marked first.
    origin = oy * cols + ox
    if marks.counts.shape[0] == 0:
        marks.out[origin] = True
    else:
        marks.stamp[origin] = marks.tag
        marks.counts[origin] += 1
    for quadrant in range(4):
        _scan_quadrant(solid, marks, rows, cols, ox, oy, quadrant, metric, bound, light_walls)


@njit(cache=True)
def fov_into(solid, out, rows, cols, ox, oy, metric, bound, light_walls):
    """Mark in flat ``out`` the cells visible from cell ``(ox, oy)`` of flat ``solid``."""
    none = np.empty(0, dtype=np.int32)
    _view(solid, Marks(out, none, none, _NO_TAG), rows, cols, ox, oy, metric, bound, light_walls)


@njit(cache=True, nogil=True)
def views_into(
    solid, masks, counts, stamp, rows, cols, origins, first, stride, metric, bound, light_walls
):
    """Add the views of origins ``first, first + stride, ...`` of ``origins`` (N, 2).

    With ``counts`` (flat int32) not empty, each view adds one to the cells
    it sees; origin ``k`` tags the cells it counted with ``k + 1`` in
    ``stamp`` (int32, the map's size), which must not hold those tags
    already (zeros will do). Otherwise each view marks its cells in row
    ``k`` of the bool ``masks`` (N, rows * cols), or in its only row (the
    union). GIL-free: tilecast's thread pool runs one stride per thread
    (:func:`tilecast._threads.run_each`).
    """
    union = masks.shape[0] == 1
    for k in range(first, origins.shape[0], stride):
        _view(
            solid,
            Marks(masks[0 if union or counts.shape[0] != 0 else k], counts, stamp, k + 1),
            rows,
            cols,
            origins[k, 0],
            origins[k, 1],
            metric,
            bound,
            light_walls,
        )
