"""The tiles a segment crosses, in order: an exact, lazy grid walk.

This is pure Python and is the reference every faster path is tested against.
See :func:`traverse` for the rules (occupancy on grid lines, corner policies).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tilecast._validate import as_choice, as_point
from tilecast._walk import CORNER_NORMAL, TileWalker, last_cell
from tilecast.grid import Grid

__all__ = ["CORNER_POLICIES", "Step", "traverse"]

CORNER_POLICIES = ("both", "x_first", "y_first", "none")


@dataclass(frozen=True, slots=True)
class Step:
    """One cell of a traversal.

    Attributes
    ----------
    cell : (int, int)
        The cell ``(i, j) = (col, row)``.
    t : float
        Segment parameter in [0, 1] where the segment enters the cell (0 for
        the first cell).
    normal : (float, float)
        Outward normal of the face entered (``(0, 0)`` for the first cell,
        the normalised diagonal for the steps of a corner crossing).
    corner : bool
        True for every step emitted by a crossing through a lattice point.

    Examples
    --------
    >>> from tilecast import Step
    >>> Step(cell=(1, 0), t=0.5, normal=(-1.0, 0.0), corner=False).cell
    (1, 0)
    """

    cell: tuple[int, int]
    t: float
    normal: tuple[float, float]
    corner: bool


def traverse(grid: Grid, start: Any, end: Any, *, corners: str = "both") -> Iterator[Step]:
    """Yield every cell the segment ``start -> end`` passes through, in order.

    The walk is lazy (stop iterating at the first interesting cell) and pure
    geometry: cells beyond the map are yielded too.

    Parameters
    ----------
    grid : Grid
        Supplies the tile size and origin (solidity is not consulted).
    start, end : (float, float)
        Segment end points in world units.
    corners : {"both", "x_first", "y_first", "none"}, default "both"
        What to emit when the segment passes exactly through a lattice point,
        touching the two *shoulder* cells only at that point. ``"both"``: both
        shoulders (the x-step one first), then the diagonal cell; never misses a
        touched tile and keeps ``set(traverse(a, b)) == set(traverse(b, a))``.
        ``"x_first"`` / ``"y_first"``: one shoulder, giving a 4-connected path of
        exactly ``|di| + |dj| + 1`` cells. ``"none"``: straight to the diagonal.

    Yields
    ------
    Step
        ``cell``, ``t`` (where the segment enters it), ``normal`` and ``corner``.

    Notes
    -----
    A segment *occupies* a cell for an open interval of ``t``: the first cell
    is the one occupied just after ``t = 0`` (a start on a grid line moving away
    does not report the cell it leaves), the last the one occupied just before
    ``t = 1``; a segment lying on a grid line occupies the cells on the
    half-open side (``[i, i + 1)``). A zero-length segment yields the cell of
    its point. Every crossing order is decided exactly on the tile-space
    doubles, and the walk ends by step count, so even a 10**6-cell segment
    ends in exactly the right cell.

    Examples
    --------
    >>> from tilecast import Grid, traverse
    >>> grid = Grid([[False] * 4] * 4)
    >>> [s.cell for s in traverse(grid, (0.5, 0.5), (2.5, 1.5))]
    [(0, 0), (1, 0), (1, 1), (2, 1)]
    >>> [(s.cell, s.corner) for s in traverse(grid, (0.5, 0.5), (1.5, 1.5))]
    [((0, 0), False), ((1, 0), True), ((0, 1), True), ((1, 1), True)]
    >>> [s.cell for s in traverse(grid, (0.5, 0.5), (1.5, 1.5), corners="none")]
    [(0, 0), (1, 1)]
    """
    if not isinstance(grid, Grid):
        raise TypeError(f"grid must be a tilecast.Grid, got {type(grid).__name__}")
    start_point = as_point("start", start)
    end_point = as_point("end", end)
    policy = as_choice("corners", corners, CORNER_POLICIES)
    u0, v0 = grid.to_tile_space(start_point)
    u1, v1 = grid.to_tile_space(end_point)
    return _traverse_tile_space(u0, v0, u1, v1, policy)


def segment_walker(u0: float, v0: float, u1: float, v1: float) -> TileWalker:
    """Return a walker for the tile-space segment ``(u0, v0) -> (u1, v1)``."""
    return TileWalker(
        u0,
        v0,
        u1 - u0,
        v1 - v0,
        Fraction(u1) - Fraction(u0),
        Fraction(v1) - Fraction(v0),
    )


def _traverse_tile_space(u0: float, v0: float, u1: float, v1: float, policy: str) -> Iterator[Step]:
    walker = segment_walker(u0, v0, u1, v1)
    i_last = last_cell(u1, walker.du) if walker.sx else walker.i
    j_last = last_cell(v1, walker.dv) if walker.sy else walker.j
    sx, sy = walker.sx, walker.sy
    yield Step((walker.i, walker.j), 0.0, (0.0, 0.0), False)
    t_prev = 0.0
    x_normal = (float(-sx), 0.0)
    y_normal = (0.0, float(-sy))
    diagonal = (-sx * CORNER_NORMAL, -sy * CORNER_NORMAL)
    while True:
        x_left = (i_last - walker.i) * sx if sx else 0
        y_left = (j_last - walker.j) * sy if sy else 0
        if x_left <= 0 and y_left <= 0:
            return
        if x_left > 0 and y_left > 0:
            event = walker.next_event()
        else:
            event = -1 if x_left > 0 else 1
        if event <= 0:
            t = walker.t_at_x(walker.next_x)
        else:
            t = walker.t_at_y(walker.next_y)
        # Clamp: the order is exact, the reported float t only rounds.
        t = min(max(t, t_prev), 1.0)
        t_prev = t
        if event < 0:
            walker.step_x()
            yield Step((walker.i, walker.j), t, x_normal, False)
        elif event > 0:
            walker.step_y()
            yield Step((walker.i, walker.j), t, y_normal, False)
        else:
            i, j = walker.i, walker.j
            if policy in ("both", "x_first"):
                yield Step((i + sx, j), t, diagonal, True)
            if policy in ("both", "y_first"):
                yield Step((i, j + sy), t, diagonal, True)
            walker.step_x()
            walker.step_y()
            yield Step((walker.i, walker.j), t, diagonal, True)
