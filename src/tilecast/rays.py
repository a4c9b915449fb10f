"""One ray or segment on a tile map: ``traverse``, ``raycast``, ``raycast_all``, ``line_of_sight``.

Each function checks its few arguments and hands them to the engine
(:mod:`tilecast._engine`), which makes one call of the compiled walk (the
same walk the batch functions use, so answers agree bit for bit), takes the
exact far-range walk where the compiled arithmetic is not proven, and wraps
the answer. No NumPy array is built per call (``traverse`` and
``raycast_all`` fill one small buffer per call).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from tilecast._engine import (
    all_hits,
    blocked_by_bodies,
    first_hit,
    first_with_bodies,
    sight,
    steps,
)
from tilecast._validate import (
    as_choice_index,
    as_direction,
    as_flag,
    as_max_distance,
    as_point,
)
from tilecast._walkmap import walk_map
from tilecast._walkspec import ALL_LAYERS, CORNER_POLICIES, DIAGONAL_GAPS
from tilecast.grid import Grid, check_map
from tilecast.results import Hit, Step
from tilecast.spatial_hash import SpatialHash, as_bodies
from tilecast.tiles import TileMap

__all__ = [
    "CORNER_POLICIES",
    "DIAGONAL_GAPS",
    "line_of_sight",
    "raycast",
    "raycast_all",
    "traverse",
]


def raycast(
    grid: Grid | TileMap | np.ndarray,
    origin: Any,
    direction: Any,
    max_distance: float = math.inf,
    *,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
    mask: int = ALL_LAYERS,
    bodies: SpatialHash | None = None,
    ignore: Any = None,
) -> Hit | None:
    """Cast one ray and return its first hit on a solid cell (or body), or None.

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
    mask : int, default ALL_LAYERS
        The collision layers that stop the ray: a cell (a tile's pixels)
        blocks when ``layers & mask != 0`` (:meth:`~tilecast.World.masked`);
        the answer is the one on the map with every other cell emptied.
    bodies : SpatialHash, optional
        Moving bodies: the answer is the first contact among the map's solid
        cells and the bodies (those whose layers meet the query's mask),
        decided exactly. A body's hit has ``Hit.body`` (its id), ``cell``
        ``(-1, -1)`` and the body's surface normal; a ray starting inside
        or on a body hits it at distance 0 with ``inside=True``. **Ties**: a
        cell and a body met at exactly the same point (a body touching a
        wall there): the cell wins; two bodies: the smaller id.
    ignore : int or iterable of int, optional
        Ids of bodies left out (the shooter's own body).

    Returns
    -------
    Hit or None
        None when nothing solid lies within ``max_distance`` (or the ray left a
        map whose ``outside`` is ``"empty"``, and met no body).

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
    >>> glass = Grid([[0, 2, 1]])  # layer 2 glass, then a layer 1 wall
    >>> raycast(glass, (0.5, 0.5), (1.0, 0.0)).cell
    (1, 0)
    >>> raycast(glass, (0.5, 0.5), (1.0, 0.0), mask=1).cell  # sight passes the glass
    (2, 0)

    With bodies (a circle in front of the wall, then left out):

    >>> from tilecast import SpatialHash
    >>> crowd = SpatialHash(1.0)
    >>> crowd.insert(7, circle=((1.5, 0.5), 0.25))
    >>> hit = raycast(grid, (0.5, 0.5), (1.0, 0.0), bodies=crowd)
    >>> hit.body, hit.point, hit.cell
    (7, (1.25, 0.5), (-1, -1))
    >>> raycast(grid, (0.5, 0.5), (1.0, 0.0), bodies=crowd, ignore=7) is None
    True
    """
    world = grid if mask is ALL_LAYERS else check_map(grid, mask)
    view, is_tilemap = walk_map(world)
    x0, y0 = as_point("origin", origin)
    dx, dy = as_direction("direction", direction)
    limit = as_max_distance(max_distance)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    start_free = as_flag("ignore_start", ignore_start)
    hit = first_hit(world, view, is_tilemap, x0, y0, dx, dy, limit, gaps, start_free)
    if bodies is None:
        return hit
    return first_with_bodies(as_bodies(bodies), view, hit, (x0, y0, dx, dy), limit, int(mask),
                             ignore)  # fmt: skip


def raycast_all(
    grid: Grid | TileMap | np.ndarray,
    origin: Any,
    direction: Any,
    max_distance: float = math.inf,
    *,
    max_results: int | None = None,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
    mask: int = ALL_LAYERS,
    bodies: SpatialHash | None = None,
    ignore: Any = None,
) -> list[Hit]:
    """Return every solid cell a ray enters, in order (a laser that pierces).

    Same rules as :func:`raycast`: a start inside a wall is the first hit; at
    a blocking corner both solid shoulders are reported (x-step first) and
    the laser goes on; with ``outside="solid"`` the first cell beyond the
    border is the last hit (so at a corner of the map only the x-step
    shoulder beyond it is reported).

    Parameters
    ----------
    grid, origin, direction, max_distance, diagonal_gaps, ignore_start, mask
        As for :func:`raycast`.
    max_results : int, optional
        Stop after this many hits.
    bodies, ignore
        As for :func:`raycast`: every body the ray meets is one hit too,
        interleaved with the cells by distance (a cell before a body at the
        same distance; bodies at one distance in exact contact order, then
        by id).

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
    world = check_map(grid, mask)
    start = as_point("origin", origin)
    heading = as_direction("direction", direction)
    limit = as_max_distance(max_distance)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    start_free = as_flag("ignore_start", ignore_start)
    if max_results is not None:
        if isinstance(max_results, bool) or not isinstance(max_results, int | np.integer):
            raise TypeError("max_results must be an int or None")
        if max_results < 0:
            raise ValueError(f"max_results must be non-negative, got {max_results}")
    hits: list[Hit] = []
    if max_results == 0:
        return hits
    cells: Iterator[Hit] = all_hits(world, start, heading, limit, gaps, start_free)
    if bodies is not None:
        found = as_bodies(bodies).ray_hits(start, heading, limit, int(mask), ignore,
                                           exact_order=True)  # fmt: skip
        cells = _interleave(cells, found)
    for hit in cells:
        hits.append(hit)
        if max_results is not None and len(hits) >= max_results:
            break
    return hits


def _interleave(cells: Iterator[Hit], found: list[Any]) -> Iterator[Hit]:
    """Merge the cell hits and the body contacts by distance (a cell first on a tie)."""
    pending = list(found)
    for hit in cells:
        while pending and pending[0][0].distance < hit.distance:
            yield _body_hit(*pending.pop(0))
        yield hit
    for contact, normal in pending:
        yield _body_hit(contact, normal)


def _body_hit(contact: Any, normal: tuple[float, float]) -> Hit:
    return Hit(contact.point, normal, contact.distance, (-1, -1), normal == (0.0, 0.0), None,
               contact.id)  # fmt: skip


def line_of_sight(
    grid: Grid | TileMap | np.ndarray, a: Any, b: Any, *, diagonal_gaps: str = "block_if_both",
    mask: int = ALL_LAYERS, bodies: SpatialHash | None = None, ignore: Any = None,
) -> bool:  # fmt: skip
    """Return True when no solid cell strictly between the cells of ``a`` and ``b`` blocks.

    The segment ``a -> b`` is walked exactly (as :func:`traverse` does); the
    two end cells never block; a lattice point between two solid shoulders
    blocks as ``diagonal_gaps`` says. Symmetric: ``line_of_sight(a, b) ==
    line_of_sight(b, a)`` (with ``bodies`` too). Cells beyond the map block when the map's
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
    mask : int, default ALL_LAYERS
        The layers that block sight, as for :func:`raycast`.
    bodies : SpatialHash, optional
        Bodies block too: the sight is blocked when a body (not in
        ``ignore``, its layers meeting the mask) meets the closed segment
        between ``a`` and ``b``: touching counts, at either end too (a
        body holding ``a`` or ``b`` blocks). So leave the viewer's and the
        target's own bodies out with ``ignore``. Symmetric: the segment is
        taken from the smaller of ``a`` and ``b`` (by ``(x, y)``) along the
        float64 difference to the other, exactly the segment when that
        difference is exact.
    ignore : int or iterable of int, optional
        Ids of bodies left out.

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
    world = grid if mask is ALL_LAYERS else check_map(grid, mask)
    view, _ = walk_map(world)
    xa, ya = as_point("a", a)
    xb, yb = as_point("b", b)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    if bodies is not None:
        if blocked_by_bodies(as_bodies(bodies), (xa, ya), (xb, yb), int(mask), ignore):
            return False
    return sight(world, view, (xa, ya), (xb, yb), gaps)


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
    return steps(tiles.origin, tiles.tile_size, start_point, end_point, policy)
