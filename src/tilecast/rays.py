"""One ray or segment on a tile map: ``traverse``, ``raycast``, ``raycast_all``, ``line_of_sight``.

Each function checks its few arguments, makes one call of the compiled walk
(:func:`tilecast._kernels.walk.walk`, the same walk the batch functions use,
so answers agree bit for bit) and wraps the answer. No NumPy array is built
per call (``traverse`` and ``raycast_all`` fill one small buffer per call).
Rays whose tile-space numbers leave the range where the compiled arithmetic
is proven take the exact far-range path (:mod:`tilecast._farwalk`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from tilecast import _farwalk
from tilecast._validate import (
    as_choice_index,
    as_direction,
    as_flag,
    as_max_distance,
    as_point,
    tile_coordinates,
)
from tilecast._walkmap import WalkMap, walk_map
from tilecast._walkspec import (
    ALL,
    CELLS,
    CORNER_POLICIES,
    DIAGONAL_GAPS,
    DONE,
    FIRST,
    FOUND,
    MORE,
    SIGHT,
    UNSAFE,
)
from tilecast.grid import Grid, check_map
from tilecast.results import Hit, Step
from tilecast.tiles import TileMap

__all__ = [
    "CORNER_POLICIES",
    "DIAGONAL_GAPS",
    "line_of_sight",
    "raycast",
    "raycast_all",
    "traverse",
]

_NO_EVENTS_F = np.empty((0, 5))
_NO_EVENTS_I = np.empty((0, 5), dtype=np.int64)
_NO_INFO = np.zeros((4, 1, 1), dtype=np.int8)
_NO_VARIANTS = np.zeros((1, 1), dtype=np.int32)
_NO_PIXELS = np.zeros((4, 1, 1, 1), dtype=np.int8)
_CHUNK = 64  # steps or hits per compiled call of traverse and raycast_all


_entry_point: Any = None


def _walk() -> Any:
    """Return the compiled walk's entry point (loaded on first use; no type dispatch per call).

    Every argument is of the one signature the walk is compiled for, so the
    dispatcher's type checks would find nothing: rays.py builds them that way.
    """
    global _entry_point
    if _entry_point is None:
        from tilecast._kernels.walk import WALK_SIGNATURE, walk

        walk.compile(WALK_SIGNATURE.args)
        overload = walk.overloads[WALK_SIGNATURE.args]
        _entry_point = overload.entry_point  # type: ignore[attr-defined]  # numba: untyped
    return _entry_point


def _pixel(is_tilemap: bool, px: int, py: int) -> tuple[int, int] | None:
    return (px, py) if is_tilemap else None


def raycast(
    grid: Grid | TileMap | np.ndarray,
    origin: Any,
    direction: Any,
    max_distance: float = math.inf,
    *,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
) -> Hit | None:
    """Cast one ray and return its first hit on a solid cell, or None.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map (a bool array is ``Grid(array)``: unit tiles at the origin).
        On a :class:`~tilecast.TileMap` the ray stops on the first solid
        *pixel*: every rule below applies to the expanded pixel grid
        (:meth:`~tilecast.TileMap.to_pixel_grid`), ``cell`` is the tile and
        ``Hit.pixel`` the pixel ``(px, py)`` inside it, as displayed.
    origin : (float, float)
        Start of the ray in world units (any sequence of two numbers).
    direction : (float, float)
        Direction in world units; need not be unit length, must not be zero.
    max_distance : float, default inf
        Longest distance travelled, inclusive: a face exactly at
        ``max_distance`` is hit.
    diagonal_gaps : {"block_if_both", "block_if_either", "open"}
        What happens when the ray passes exactly through a lattice point
        between two *shoulder* cells: stop if both are solid (default: rays
        never leak between two walls touching at a corner), if either is solid
        (closed-box physics), or never.
    ignore_start : bool, default False
        Let a ray that starts inside a solid cell leave that cell freely.

    Returns
    -------
    Hit or None
        None when nothing solid lies within ``max_distance`` (or the ray left a
        map whose ``outside`` is ``"empty"``).

    Notes
    -----
    A ray starting inside a solid cell returns ``Hit(point=origin,
    normal=(0, 0), distance=0, inside=True)``. A ray grazing along a wall's
    face does not hit it: on a grid line it occupies the cells on the
    half-open side. With ``outside="solid"`` the ray stops on entering the
    first cell beyond the border. A ray starting off a map whose outside is
    empty jumps to where it enters the map. Long rays jump over empty squares
    of the map (exactly), so their cost grows with the number of walls
    passed, not cells.

    Examples
    --------
    >>> from tilecast import Grid, raycast
    >>> grid = Grid([[0, 0, 0], [0, 0, 1], [0, 1, 0]])
    >>> hit = raycast(grid, (0.5, 0.5), (1.0, 1.0))  # corner between two walls
    >>> hit.point, hit.cell, round(hit.distance, 4)
    ((2.0, 2.0), (2, 1), 2.1213)
    >>> raycast(grid, (0.5, 0.5), (1.0, 1.0), diagonal_gaps="open") is None
    True
    >>> raycast(grid, (0.5, 0.5), (1.0, 0.0)) is None  # leaves the map
    True
    """
    view, is_tilemap = walk_map(grid)
    x0, y0 = as_point("origin", origin)
    dx, dy = as_direction("direction", direction)
    limit = as_max_distance(max_distance)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    ignore = as_flag("ignore_start", ignore_start)
    return cast_one(grid, view, is_tilemap, x0, y0, dx, dy, limit, gaps, ignore)


def walk_first(
    view: WalkMap, x0: float, y0: float, dx: float, dy: float, limit: float, gaps: int,
    ignore: bool,
) -> tuple[Any, ...]:  # fmt: skip
    """Run the compiled walk for one checked ray's first hit; return its raw result tuple.

    ``r[0]`` is the status (:data:`FOUND`, :data:`DONE`, or another value when
    the ray needs the exact far path of :func:`cast_one`); on ``FOUND``,
    ``r[7]`` is the distance, ``r[8:10]`` the point, ``r[10:12]`` the normal,
    ``r[12:14]`` the cell, ``r[14]`` inside (0 or 1), ``r[15:17]`` the pixel.
    """
    walk = _entry_point or _walk()
    result: tuple[Any, ...] = walk(*view, FIRST, gaps, 0, ignore, x0, y0, dx, dy, limit, 0, 0,
                                   0, 0, 0, 0.0, _NO_EVENTS_F, _NO_EVENTS_I)  # fmt: skip
    return result


def cast_one(
    grid: Any, view: WalkMap, is_tilemap: bool, x0: float, y0: float, dx: float, dy: float,
    limit: float, gaps: int, ignore: bool, origin_name: str = "origin",
) -> Hit | None:  # fmt: skip
    """First hit of one checked ray: one call of the compiled walk (exact far path beyond it).

    The arguments are already checked (``view, is_tilemap = walk_map(grid)``,
    finite floats, a non-zero direction, ``limit >= 0``, ``gaps`` an index of
    :data:`DIAGONAL_GAPS`); :func:`raycast` ends here, and a one-ray
    :func:`~tilecast.raycast_many` beyond the compiled range.
    """
    r = walk_first(view, x0, y0, dx, dy, limit, gaps, ignore)
    status = r[0]
    if status == FOUND:
        return tuple.__new__(
            Hit,
            ((r[8], r[9]), (r[10], r[11]), r[7], (r[12], r[13]), r[14] != 0,
             (r[15], r[16]) if is_tilemap else None),
        )  # fmt: skip
    if status == DONE:
        return None
    hits = _farwalk.cast(check_map(grid), (x0, y0), (dx, dy), limit, DIAGONAL_GAPS[gaps], ignore,
                         origin_name)  # fmt: skip
    return next(hits, None)


def _all_hits(
    grid: Any, origin: tuple[float, float], direction: tuple[float, float], limit: float,
    gaps: int, ignore: bool,
) -> Iterator[Hit]:  # fmt: skip
    """Yield every solid cell (or pixel) the ray enters, in order, from compiled chunks."""
    view, is_tilemap = walk_map(grid)
    for chunk in _chunks(view, ALL, gaps, 0, ignore, origin, direction, limit):
        if chunk is None:
            yield from _farwalk.cast(check_map(grid), origin, direction, limit,
                                     DIAGONAL_GAPS[gaps], ignore)  # fmt: skip
            return
        for (distance, x, y, normal_x, normal_y), (col, row, inside, px, py) in zip(
            *chunk, strict=True
        ):
            yield Hit((x, y), (normal_x, normal_y), distance, (col, row), inside != 0,
                      _pixel(is_tilemap, px, py))  # fmt: skip


def _chunks(
    view: tuple[Any, ...], mode: int, gaps: int, corners: int, ignore: bool,
    a: tuple[float, float], b: tuple[float, float], limit: float,
) -> Iterator[tuple[list[list[float]], list[list[int]]] | None]:  # fmt: skip
    """Run the compiled walk in chunks of events (ALL or CELLS mode), resuming where it stopped.

    Yields each chunk's events as lists ``(floats, ints)`` of rows (see the
    walk's ``out_f``, ``out_i``), or None, once and first, when the ray's
    numbers are beyond the compiled range (the caller takes the exact far
    path).
    """
    walk = _walk()
    events_f = np.empty((_CHUNK, 5))
    events_i = np.empty((_CHUNK, 5), dtype=np.int64)
    resume, i, j, nx, ny, t_prev = 0, 0, 0, 0, 0, 0.0
    while True:
        r = walk(*view, mode, gaps, corners, ignore, a[0], a[1], b[0], b[1], limit, resume, i, j,
                 nx, ny, t_prev, events_f, events_i)  # fmt: skip
        if r[0] == UNSAFE:
            yield None
            return
        count = r[1]
        yield events_f[:count].tolist(), events_i[:count].tolist()
        if r[0] != MORE:
            return
        resume, i, j, nx, ny, t_prev = 1, r[2], r[3], r[4], r[5], r[6]


def raycast_all(
    grid: Grid | TileMap | np.ndarray,
    origin: Any,
    direction: Any,
    max_distance: float = math.inf,
    *,
    max_results: int | None = None,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
) -> list[Hit]:
    """Return every solid cell a ray enters, in order (a laser that pierces).

    Same rules as :func:`raycast`: a start inside a wall is the first hit; at
    a blocking corner both solid shoulders are reported (x-step first) and
    the laser goes on; with ``outside="solid"`` the first cell beyond the
    border is the last hit (so at a corner of the map only the x-step
    shoulder beyond it is reported).

    Parameters
    ----------
    grid, origin, direction, max_distance, diagonal_gaps, ignore_start
        As for :func:`raycast`.
    max_results : int, optional
        Stop after this many hits.

    Returns
    -------
    list of Hit

    Notes
    -----
    On a ``TileMap`` every solid *pixel* entered is one hit (as on the
    expanded pixel grid); group them by ``Hit.cell`` for the tiles.

    Examples
    --------
    >>> from tilecast import Grid, raycast_all
    >>> grid = Grid([[0, 1, 1, 0, 1]])
    >>> [h.cell for h in raycast_all(grid, (0.5, 0.5), (1.0, 0.0))]
    [(1, 0), (2, 0), (4, 0)]
    >>> [h.cell for h in raycast_all(grid, (0.5, 0.5), (1.0, 0.0), max_results=1)]
    [(1, 0)]
    """
    check_map(grid)
    start = as_point("origin", origin)
    heading = as_direction("direction", direction)
    limit = as_max_distance(max_distance)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    ignore = as_flag("ignore_start", ignore_start)
    if max_results is not None:
        if isinstance(max_results, bool) or not isinstance(max_results, int | np.integer):
            raise TypeError("max_results must be an int or None")
        if max_results < 0:
            raise ValueError(f"max_results must be non-negative, got {max_results}")
    hits: list[Hit] = []
    if max_results == 0:
        return hits
    for hit in _all_hits(grid, start, heading, limit, gaps, ignore):
        hits.append(hit)
        if max_results is not None and len(hits) >= max_results:
            break
    return hits


def line_of_sight(
    grid: Grid | TileMap | np.ndarray, a: Any, b: Any, *, diagonal_gaps: str = "block_if_both"
) -> bool:
    """Return True when no solid cell strictly between the cells of ``a`` and ``b`` blocks.

    The segment ``a -> b`` is walked exactly (as :func:`traverse` does); the
    two end cells never block; a lattice point between two solid shoulders
    blocks as ``diagonal_gaps`` says. Symmetric: ``line_of_sight(a, b) ==
    line_of_sight(b, a)``. Cells beyond the map block when the map's
    ``outside`` is ``"solid"``.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map; on a ``TileMap`` the cells are the pixels of
        :meth:`~tilecast.TileMap.to_pixel_grid` (the end *pixels* never block).
    a, b : (float, float)
        World points.
    diagonal_gaps : {"block_if_both", "block_if_either", "open"}
        As for :func:`raycast`.

    Returns
    -------
    bool

    Examples
    --------
    >>> from tilecast import Grid, line_of_sight
    >>> grid = Grid([[0, 1, 0], [0, 0, 0]])
    >>> line_of_sight(grid, (0.5, 0.5), (2.5, 0.5))
    False
    >>> line_of_sight(grid, (0.5, 1.5), (2.5, 1.5))
    True
    """
    view, _ = walk_map(grid)
    xa, ya = as_point("a", a)
    xb, yb = as_point("b", b)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    walk = _entry_point or _walk()
    r = walk(*view, SIGHT, gaps, 0, False, xa, ya, xb, yb, math.inf, 0, 0, 0, 0, 0, 0.0,
             _NO_EVENTS_F, _NO_EVENTS_I)  # fmt: skip
    if r[0] == UNSAFE:
        return _farwalk.sight(check_map(grid), (xa, ya), (xb, yb), DIAGONAL_GAPS[gaps])
    return bool(r[0] == DONE)


def traverse(
    grid: Grid | TileMap | np.ndarray, start: Any, end: Any, *, corners: str = "both"
) -> Iterator[Step]:
    """Yield every cell the segment ``start -> end`` passes through, in order.

    The walk is lazy (stop iterating at the first interesting cell: the
    compiled walk runs a chunk of steps at a time) and pure geometry: cells
    beyond the map are yielded too.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        Supplies the tile size and origin (solidity is not consulted). On a
        ``TileMap`` the cells are its tiles (use ``tilemap.to_pixel_grid()``
        for its pixels).
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
    tiles = check_map(grid)
    start_point = as_point("start", start)
    end_point = as_point("end", end)
    policy = as_choice_index("corners", corners, CORNER_POLICIES)
    return _steps(tiles.origin, tiles.tile_size, start_point, end_point, policy)


def _steps(
    origin: tuple[float, float], tile_size: tuple[float, float], a: tuple[float, float],
    b: tuple[float, float], policy: int,
) -> Iterator[Step]:  # fmt: skip
    # CELLS reads no map: the walk cells are the tiles
    view = (_NO_INFO, _NO_VARIANTS, _NO_PIXELS, False, 0, *origin, *tile_size)
    for chunk in _chunks(view, CELLS, 0, policy, False, a, b, math.inf):
        if chunk is None:
            u0, v0 = tile_coordinates("start", a, origin, tile_size)
            u1, v1 = tile_coordinates("end", b, origin, tile_size)
            yield from _farwalk.cells(u0, v0, u1, v1, CORNER_POLICIES[policy])
            return
        for (t, _, _, normal_x, normal_y), (col, row, corner, _, _) in zip(*chunk, strict=True):
            yield Step((col, row), t, (normal_x, normal_y), corner != 0)
