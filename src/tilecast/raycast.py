"""First hit, all hits and line of sight for one ray on a tile grid.

Pure Python on the exact walk of :mod:`tilecast._walk`: this is the reference
that :func:`tilecast.raycast_many` must reproduce element for element.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tilecast._validate import (
    as_choice,
    as_direction,
    as_nonnegative_float,
    as_point,
)
from tilecast._walk import CORNER_NORMAL, TileWalker, last_cell
from tilecast.grid import Grid
from tilecast.tiles import EMPTY, FULL, MIXED, TileMap
from tilecast.traverse import segment_walker

__all__ = ["DIAGONAL_GAPS", "Hit", "line_of_sight", "raycast", "raycast_all"]

DIAGONAL_GAPS = ("block_if_both", "block_if_either", "open")


@dataclass(frozen=True, slots=True)
class Hit:
    """Where a ray meets a solid cell.

    Attributes
    ----------
    point : (float, float)
        World point of the hit (the origin for a ray starting inside a wall).
    normal : (float, float)
        Unit normal of the face entered, pointing back against the ray; the
        normalised diagonal at a corner; ``(0, 0)`` when ``inside``.
    distance : float
        Euclidean distance from the origin in world units.
    cell : (int, int)
        The solid cell ``(col, row)`` (possibly beyond the map when the grid's
        ``outside`` is ``"solid"``).
    inside : bool
        True when the ray started inside this solid cell.
    pixel : (int, int) or None
        On a ``TileMap``: the solid pixel ``(px, py)`` inside the tile, as
        displayed; None on a plain ``Grid``.

    Examples
    --------
    >>> from tilecast import Grid, raycast
    >>> hit = raycast(Grid([[0, 0, 1]]), (0.5, 0.5), (1.0, 0.0))
    >>> hit.point, hit.normal, hit.distance, hit.cell, hit.inside
    ((2.0, 0.5), (-1.0, 0.0), 1.5, (2, 0), False)
    """

    point: tuple[float, float]
    normal: tuple[float, float]
    distance: float
    cell: tuple[int, int]
    inside: bool
    pixel: tuple[int, int] | None = None


# ----------------------------------------------------------------- validation
def _check_grid(grid: Any) -> Grid | TileMap:
    if not isinstance(grid, Grid | TileMap):
        raise TypeError(f"grid must be a tilecast.Grid or TileMap, got {type(grid).__name__}")
    return grid


def _check_flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}")
    return value


def normalised_direction(dx: float, dy: float) -> tuple[float, float]:
    """Scale a direction by a power of two so its larger component is in [1, 2).

    The scaling is exact, so the ray is unchanged, and ray parameters stay in a
    range where ``t * |d|`` neither overflows nor underflows even for
    directions such as ``(1e-300, 0)``.
    """
    _, exponent = math.frexp(max(abs(dx), abs(dy)))
    return math.ldexp(dx, 1 - exponent), math.ldexp(dy, 1 - exponent)


# ------------------------------------------------------------- walk spaces
@dataclass(frozen=True, slots=True)
class _Space:
    """What a walk needs to know about a map, in the units of the cells it walks.

    On a ``Grid`` the walk cells are the tiles. On a ``TileMap`` they are the
    pixels of the expanded pixel grid (so every answer equals the pixel
    grid's), and ``empty_block`` lets the walk jump over whole tiles that have
    no solid pixel.
    """

    cell_size: tuple[float, float]
    origin: tuple[float, float]
    cols: int
    rows: int
    outside_solid: bool
    is_solid: Callable[[int, int], bool]
    # (i, j) -> ((cell), pixel or None): the public names of a walk cell
    name: Callable[[int, int], tuple[tuple[int, int], tuple[int, int] | None]]
    # (i, j) on the map -> (x_lo, x_hi, y_lo, y_hi) walk lines bounding an
    # empty block containing it, or None; None on maps without blocks
    empty_block: Callable[[int, int], tuple[int, int, int, int] | None] | None = None

    def on_map(self, i: int, j: int) -> bool:
        return 0 <= i < self.cols and 0 <= j < self.rows


def _grid_space(grid: Grid) -> _Space:
    solid = grid.solid
    rows, cols = solid.shape
    outside_solid = grid.outside == "solid"

    def is_solid(i: int, j: int) -> bool:
        if 0 <= i < cols and 0 <= j < rows:
            return bool(solid[j, i])
        return outside_solid

    def name(i: int, j: int) -> tuple[tuple[int, int], None]:
        return (i, j), None

    return _Space(grid.tile_size, grid.origin, cols, rows, outside_solid, is_solid, name)


def _tilemap_space(tilemap: TileMap) -> _Space:
    tw, th = tilemap.tile_pixels
    rows, cols = tilemap.shape
    kinds, variants = tilemap.cell_kinds, tilemap.cell_variant
    masks = tilemap.variant_masks
    outside_solid = tilemap.outside == "solid"
    pixel_cols, pixel_rows = cols * tw, rows * th

    def is_solid(p: int, q: int) -> bool:
        if 0 <= p < pixel_cols and 0 <= q < pixel_rows:
            i, px = divmod(p, tw)
            j, py = divmod(q, th)
            kind = kinds[j, i]
            if kind == MIXED:
                return bool(masks[variants[j, i], py, px])
            return kind == FULL
        return outside_solid

    def name(p: int, q: int) -> tuple[tuple[int, int], tuple[int, int]]:
        i, px = divmod(p, tw)
        j, py = divmod(q, th)
        return (i, j), (px, py)

    def empty_block(p: int, q: int) -> tuple[int, int, int, int] | None:
        i, j = p // tw, q // th
        if kinds[j, i] != EMPTY:
            return None
        return (i * tw, (i + 1) * tw, j * th, (j + 1) * th)

    return _Space(
        tilemap.pixel_size,
        tilemap.origin,
        pixel_cols,
        pixel_rows,
        outside_solid,
        is_solid,
        name,
        empty_block,
    )


def _space_of(grid: Grid | TileMap) -> _Space:
    if isinstance(grid, TileMap):
        return _tilemap_space(grid)
    return _grid_space(grid)


def _jump_block(walker: TileWalker, block: tuple[int, int, int, int]) -> None:
    """Seek to just before the ray leaves an empty block (ties left to the caller).

    The exit is the nearer of the block's two exit lines, decided exactly;
    nothing inside an empty block can stop a ray, not even a lattice point
    strictly inside it (its shoulders are in the block too).
    """
    x_lo, x_hi, y_lo, y_hi = block
    x_exit = x_hi if walker.sx > 0 else x_lo
    y_exit = y_hi if walker.sy > 0 else y_lo
    if walker.sx == 0:
        walker.seek_y(y_exit)
    elif walker.sy == 0 or walker.order(x_exit, y_exit) <= 0:
        walker.seek_x(x_exit)
    else:
        walker.seek_y(y_exit)


# ------------------------------------------------------------------ the walk
def _cast(
    grid: Grid | TileMap,
    origin: tuple[float, float],
    direction: tuple[float, float],
    max_distance: float,
    gaps: str,
    ignore_start: bool,
) -> Iterator[Hit]:
    """Yield every solid cell (or pixel) the ray enters, in order (see :func:`raycast_all`)."""
    space = _space_of(grid)
    x0, y0 = origin
    dx, dy = normalised_direction(*direction)
    (w, h), (ox, oy) = space.cell_size, space.origin
    cols, rows = space.cols, space.rows
    outside_solid = space.outside_solid
    is_solid, on_map, name = space.is_solid, space.on_map, space.name
    empty_block = space.empty_block
    norm = math.hypot(dx, dy)
    walker = TileWalker((x0 - ox) / w, (y0 - oy) / h, dx / w, dy / h)
    sx, sy = walker.sx, walker.sy

    def gone(i: int, j: int) -> bool:
        # off the map and moving away from it on some axis: never comes back
        return (
            (i < 0 and sx <= 0)
            or (i >= cols and sx >= 0)
            or (j < 0 and sy <= 0)
            or (j >= rows and sy >= 0)
        )

    def hit(point, normal, distance, i, j, inside=False) -> Hit:
        cell, pixel = name(i, j)
        return Hit(point, normal, distance, cell, inside, pixel)

    i, j = walker.i, walker.j
    if is_solid(i, j) and not ignore_start:
        yield hit((x0, y0), (0.0, 0.0), 0.0, i, j, True)
        if not on_map(i, j):
            return
    if not on_map(i, j) and not outside_solid:
        if gone(i, j) or not _seek_map_entry(walker, cols, rows):
            return

    x_normal = (float(-sx), 0.0)
    y_normal = (0.0, float(-sy))
    diagonal = (-sx * CORNER_NORMAL, -sy * CORNER_NORMAL)
    while True:
        if empty_block is not None and on_map(walker.i, walker.j):
            block = empty_block(walker.i, walker.j)
            if block is not None:
                _jump_block(walker, block)
        event = walker.next_event()
        x_line, y_line = walker.next_x, walker.next_y
        t = walker.t_at_x(x_line) if event <= 0 else walker.t_at_y(y_line)
        distance = t * norm
        if distance > max_distance:
            return
        if event == 0:
            point = (ox + x_line * w, oy + y_line * h)
            shoulders = ((walker.i + sx, walker.j), (walker.i, walker.j + sy))
            if gaps == "block_if_both":
                blocking = shoulders if all(is_solid(*c) for c in shoulders) else ()
            elif gaps == "block_if_either":
                blocking = tuple(c for c in shoulders if is_solid(*c))
            else:
                blocking = ()
            for cell in blocking:
                yield hit(point, diagonal, distance, *cell)
            if any(not on_map(*c) for c in blocking):
                return  # stopped by the solid outside
            walker.step_x()
            walker.step_y()
            normal = diagonal
        elif event < 0:
            walker.step_x()
            point = (ox + x_line * w, y0 + t * dy)
            normal = x_normal
        else:
            walker.step_y()
            point = (x0 + t * dx, oy + y_line * h)
            normal = y_normal
        i, j = walker.i, walker.j
        if is_solid(i, j):
            yield hit(point, normal, distance, i, j)
            if not on_map(i, j):
                return
        elif not outside_solid and gone(i, j):
            return


def _seek_map_entry(walker: TileWalker, cols: int, rows: int) -> bool:
    """Jump a ray that starts off the map to just before it enters the map box.

    Returns False (and leaves the walker alone) when the ray misses the map:
    it leaves the map's span on one axis strictly before it enters the span
    of the other. Passing exactly through a corner of the map is not a miss
    (the shoulder on the map may block).
    """
    sx, sy = walker.sx, walker.sy
    x_line = 0 if walker.i < 0 else (cols if walker.i >= cols else None)
    y_line = 0 if walker.j < 0 else (rows if walker.j >= rows else None)
    x_exit = cols if sx > 0 else 0
    y_exit = rows if sy > 0 else 0
    if y_line is not None and sx != 0 and walker.order(x_exit, y_line) < 0:
        return False
    if x_line is not None and sy != 0 and walker.order(x_line, y_exit) > 0:
        return False
    if x_line is not None and y_line is not None:
        # Enter at the later of the two crossings; a float misjudgement here
        # only seeks less far (the walk then steps the rest exactly).
        if walker.t_at_x(x_line) >= walker.t_at_y(y_line):
            walker.seek_x(x_line)
        else:
            walker.seek_y(y_line)
    elif x_line is not None:
        walker.seek_x(x_line)
    elif y_line is not None:
        walker.seek_y(y_line)
    return True


def _validated(
    grid: Any,
    origin: Any,
    direction: Any,
    max_distance: Any,
    diagonal_gaps: Any,
    ignore_start: Any,
) -> tuple[Grid | TileMap, tuple[float, float], tuple[float, float], float, str, bool]:
    return (
        _check_grid(grid),
        as_point("origin", origin),
        as_direction("direction", direction),
        as_nonnegative_float("max_distance", max_distance, allow_inf=True),
        as_choice("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS),
        _check_flag("ignore_start", ignore_start),
    )


# --------------------------------------------------------------- public API
def raycast(
    grid: Grid | TileMap,
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
    grid : Grid or TileMap
        The map. On a :class:`~tilecast.TileMap` the ray stops on the first
        solid *pixel*: every rule below applies to the expanded pixel grid
        (:meth:`~tilecast.TileMap.to_pixel_grid`), ``cell`` is the tile and
        ``Hit.pixel`` the pixel ``(px, py)`` inside it, as displayed.
    origin : (float, float)
        Start of the ray in world units.
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
    empty jumps to where it enters the map.

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
    args = _validated(grid, origin, direction, max_distance, diagonal_gaps, ignore_start)
    return next(_cast(*args), None)


def raycast_all(
    grid: Grid | TileMap,
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
    border is the last hit.

    Parameters
    ----------
    grid, origin, direction, max_distance, diagonal_gaps, ignore_start
        As for :func:`raycast`.
    max_results : int, optional
        Stop after this many hits.

    Notes
    -----
    On a ``TileMap`` every solid *pixel* entered is one hit (as on the
    expanded pixel grid); group them by ``Hit.cell`` for the tiles.

    Returns
    -------
    list of Hit

    Examples
    --------
    >>> from tilecast import Grid, raycast_all
    >>> grid = Grid([[0, 1, 1, 0, 1]])
    >>> [h.cell for h in raycast_all(grid, (0.5, 0.5), (1.0, 0.0))]
    [(1, 0), (2, 0), (4, 0)]
    >>> [h.cell for h in raycast_all(grid, (0.5, 0.5), (1.0, 0.0), max_results=1)]
    [(1, 0)]
    """
    args = _validated(grid, origin, direction, max_distance, diagonal_gaps, ignore_start)
    if max_results is not None:
        if isinstance(max_results, bool) or not isinstance(max_results, int):
            raise TypeError("max_results must be an int or None")
        if max_results < 0:
            raise ValueError(f"max_results must be non-negative, got {max_results}")
    hits: list[Hit] = []
    if max_results == 0:
        return hits
    for hit in _cast(*args):
        hits.append(hit)
        if max_results is not None and len(hits) >= max_results:
            break
    return hits


def line_of_sight(
    grid: Grid | TileMap, a: Any, b: Any, *, diagonal_gaps: str = "block_if_both"
) -> bool:
    """Return True when no solid cell strictly between the cells of ``a`` and ``b`` blocks.

    The segment ``a -> b`` is walked exactly (as :func:`traverse` does); the
    two end cells never block; a lattice point between two solid shoulders
    blocks as ``diagonal_gaps`` says. Symmetric: ``line_of_sight(a, b) ==
    line_of_sight(b, a)``. Cells beyond the map block when the grid's
    ``outside`` is ``"solid"``.

    Parameters
    ----------
    grid : Grid or TileMap
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
    space = _space_of(_check_grid(grid))
    pa, pb = as_point("a", a), as_point("b", b)
    gaps = as_choice("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    (w, h), (ox, oy) = space.cell_size, space.origin
    u0, v0 = (pa[0] - ox) / w, (pa[1] - oy) / h
    u1, v1 = (pb[0] - ox) / w, (pb[1] - oy) / h
    walker = segment_walker(u0, v0, u1, v1)
    sx, sy = walker.sx, walker.sy
    i_last = last_cell(u1, walker.du) if sx else walker.i
    j_last = last_cell(v1, walker.dv) if sy else walker.j
    cols, rows = space.cols, space.rows
    outside_solid = space.outside_solid
    is_solid, empty_block = space.is_solid, space.empty_block

    while True:
        i, j = walker.i, walker.j
        x_left = (i_last - i) * sx if sx else 0
        y_left = (j_last - j) * sy if sy else 0
        if x_left <= 0 and y_left <= 0:
            return True
        on_map = 0 <= i < cols and 0 <= j < rows
        if not outside_solid and not on_map:
            # Off an empty outside: nothing here blocks. Jump to the map, or
            # finish if the rest of the segment never reaches it.
            if _misses_map(i, j, sx, sy, i_last, j_last, cols, rows):
                return True
            before = (i, j)
            if not _seek_map_entry(walker, cols, rows):
                return True
            if (walker.i, walker.j) != before:
                continue
        if empty_block is not None and on_map:
            block = empty_block(i, j)
            if block is not None:
                x_lo, x_hi, y_lo, y_hi = block
                if x_lo <= i_last < x_hi and y_lo <= j_last < y_hi:
                    return True  # the rest of the segment stays in this empty block
                _jump_block(walker, block)
                i, j = walker.i, walker.j
                x_left = (i_last - i) * sx if sx else 0
                y_left = (j_last - j) * sy if sy else 0
        if x_left > 0 and y_left > 0:
            event = walker.next_event()
        else:
            event = -1 if x_left > 0 else 1
        if event == 0:
            shoulders = ((i + sx, j), (i, j + sy))
            solid_shoulders = [is_solid(*c) for c in shoulders]
            if gaps == "block_if_both" and all(solid_shoulders):
                return False
            if gaps == "block_if_either" and any(solid_shoulders):
                return False
            walker.step_x()
            walker.step_y()
        elif event < 0:
            walker.step_x()
        else:
            walker.step_y()
        cell = (walker.i, walker.j)
        if cell != (i_last, j_last) and is_solid(*cell):
            return False


def _misses_map(
    i: int, j: int, sx: int, sy: int, i_last: int, j_last: int, cols: int, rows: int
) -> bool:
    """Return True when a segment now in cell (i, j), off the map, never enters it again."""
    for cell, last, step, size in ((i, i_last, sx, cols), (j, j_last, sy, rows)):
        if cell < 0 and (step <= 0 or last < 0):
            return True
        if cell >= size and (step >= 0 or last >= size):
            return True
    return False
