"""The product's exact far-range walk, on any ray: for white-box comparisons.

``tilecast._farwalk`` is the grid walk written in plain Python with Python
integers and :class:`fractions.Fraction` (the product uses it only for rays
beyond the compiled walk's proven range). These wrappers run it on any ray,
so the compiled walk can be checked against it step for step and bit for
bit. It is product code, not an oracle: both walks are checked against the
independent sorted-crossings oracles of ``tests/reference/oracle.py``.
"""

from __future__ import annotations

import math

from tilecast import _farwalk


def raycast_far(grid, origin, direction, max_distance=math.inf, *,
                      diagonal_gaps="block_if_both", ignore_start=False):  # fmt: skip
    hits = _farwalk.cast(grid, tuple(map(float, origin)), tuple(map(float, direction)),
                         float(max_distance), diagonal_gaps, ignore_start)  # fmt: skip
    return next(hits, None)


def raycast_all_far(grid, origin, direction, max_distance=math.inf, *,
                          diagonal_gaps="block_if_both", ignore_start=False):  # fmt: skip
    return list(_farwalk.cast(grid, tuple(map(float, origin)), tuple(map(float, direction)),
                              float(max_distance), diagonal_gaps, ignore_start))  # fmt: skip


def line_of_sight_far(grid, a, b, *, diagonal_gaps="block_if_both"):
    return _farwalk.sight(grid, tuple(map(float, a)), tuple(map(float, b)), diagonal_gaps)


def traverse_far(grid, start, end, *, corners="both"):
    (ox, oy), (w, h) = grid.origin, grid.tile_size
    u0, v0 = (float(start[0]) - ox) / w, (float(start[1]) - oy) / h
    u1, v1 = (float(end[0]) - ox) / w, (float(end[1]) - oy) / h
    return list(_farwalk.cells(u0, v0, u1, v1, corners))
