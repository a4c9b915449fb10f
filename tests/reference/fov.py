"""Symmetric shadowcasting in plain Python with Fraction slopes: the oracle of ``tilecast.fov``."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np


def range_test(radius: float | None, metric: str) -> Callable[[int, int], bool]:
    """Exact range test on an offset ``(dx, dy)`` in cells (reference only)."""
    if radius is None:
        return lambda dx, dy: True
    r = Fraction(radius)
    if metric == "euclidean":
        return lambda dx, dy: dx * dx + dy * dy <= r * r
    if metric == "chebyshev":
        return lambda dx, dy: max(abs(dx), abs(dy)) <= r
    return lambda dx, dy: abs(dx) + abs(dy) <= r


def fov_reference(
    solid: np.ndarray,
    origin: tuple[int, int],
    radius: float | None = None,
    metric: str = "euclidean",
    light_walls: bool = True,
) -> np.ndarray:
    """Symmetric shadowcasting in plain Python with ``Fraction`` slopes.

    Follows Ford's published code step by step. Two additions: the scan of a
    quadrant stops at the map's edge (columns are clipped to the map, and the
    depth to the last row or column), and a cell out of range is scanned as
    usual but not revealed. This is the oracle for the compiled kernel, which
    instead clips the scan to the range. With ``light_walls=False`` a wall is
    never revealed (the origin, revealed before the scan, aside); walls still
    block as usual.
    """
    rows, cols = solid.shape
    ox, oy = origin
    in_range = range_test(radius, metric)
    visible = np.zeros((rows, cols), dtype=bool)
    visible[oy, ox] = True

    # Each quadrant maps (depth, col) to a map cell (x, y): depth counts away
    # from the origin, col sideways (negative on one side, positive on the other).
    quadrants = [
        lambda depth, col: (ox + col, oy - depth),  # north
        lambda depth, col: (ox + col, oy + depth),  # south
        lambda depth, col: (ox + depth, oy + col),  # east
        lambda depth, col: (ox - depth, oy + col),  # west
    ]

    def round_ties_up(n: Fraction) -> int:
        return math.floor(n + Fraction(1, 2))

    def round_ties_down(n: Fraction) -> int:
        return math.ceil(n - Fraction(1, 2))

    def slope(depth: int, col: int) -> Fraction:
        # The slope of the left edge of the cell (depth, col): where its
        # near-left corner's ray passes through the row's centre line.
        return Fraction(2 * col - 1, 2 * depth)

    for transform in quadrants:

        def on_map(depth: int, col: int, transform: Any = transform) -> bool:
            x, y = transform(depth, col)
            return 0 <= x < cols and 0 <= y < rows

        def is_wall(depth: int, col: int, transform: Any = transform) -> bool:
            x, y = transform(depth, col)
            return bool(solid[y, x])

        def reveal(depth: int, col: int, transform: Any = transform) -> None:
            x, y = transform(depth, col)
            if in_range(x - ox, y - oy):
                visible[y, x] = True

        def scan(depth: int, start: Fraction, end: Fraction, on_map: Any = on_map) -> None:
            if not on_map(depth, 0):
                return  # past the map's last row (or column) in this quadrant
            first = round_ties_up(depth * start)
            last = round_ties_down(depth * end)
            prev_wall: bool | None = None  # None: no cell of this row yet
            for col in range(first, last + 1):
                if not on_map(depth, col):
                    continue  # off the map sideways: nothing there to see
                wall = is_wall(depth, col)
                # is_symmetric: the floor cell's centre lies inside the sector.
                if (wall and light_walls) or (not wall and depth * start <= col <= depth * end):
                    reveal(depth, col)
                if prev_wall is True and not wall:
                    start = slope(depth, col)
                if prev_wall is False and wall:
                    scan(depth + 1, start, slope(depth, col))
                prev_wall = wall
            if prev_wall is False:
                scan(depth + 1, start, end)

        scan(1, Fraction(-1), Fraction(1))
    return visible
