"""The engine: the one layer between the public functions and the compiled kernels.

Public modules check their arguments, then call what is here; they do not
import :mod:`tilecast._kernels` themselves. The engine

- loads kernel families on first use (:func:`kernels`), so that ``import
  tilecast`` loads neither Numba nor any compiled code;
- runs the one grid walk for a single ray or segment (:func:`first_hit`,
  :func:`all_hits`, :func:`sight`, :func:`steps`) from the compiled walk's
  entry point, with no type dispatch per call;
- decides, in one place, when a ray takes the exact far-range walk
  (:mod:`tilecast._farwalk`): whenever a compiled walk answers
  :data:`~tilecast._walkspec.UNSAFE` (its tile-space numbers are beyond the
  proven range), for a single ray and for the rare rows of a batch
  (:func:`far_first_hit`);
- wraps the walk's raw answers in the public records.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from tilecast import _farwalk
from tilecast._load import kernels
from tilecast._validate import tile_coordinates
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
from tilecast.grid import check_map
from tilecast.results import Hit, Step

__all__ = [
    "all_hits",
    "far_all_hits",
    "far_first_hit",
    "first_hit",
    "kernels",
    "raw_first_hit",
    "sight",
    "steps",
    "walk_address",
    "walk_caller",
]

# ------------------------------------------------------------ the walk
_NO_EVENTS_F = np.empty((0, 5))
_NO_EVENTS_I = np.empty((0, 5), dtype=np.int64)
_NO_INFO = np.zeros((4, 1, 1), dtype=np.int8)
_NO_VARIANTS = np.zeros((1, 1), dtype=np.int32)
_NO_PIXELS = np.zeros((4, 1, 1, 1), dtype=np.int8)
_CHUNK = 64  # steps or hits per compiled call of traverse and raycast_all

_walk_entry: Any = None


def _load_walk() -> Any:
    """Return the compiled walk's entry point (loaded on first use; no type dispatch per call).

    Every argument is of the one signature the walk is compiled for, so the
    dispatcher's type checks would find nothing: the engine builds them so.
    """
    global _walk_entry
    if _walk_entry is None:
        walk = kernels("walk")
        walk.walk.compile(walk.WALK_SIGNATURE.args)
        overload = walk.walk.overloads[walk.WALK_SIGNATURE.args]
        _walk_entry = overload.entry_point
    return _walk_entry


def raw_first_hit(
    view: WalkMap, x0: float, y0: float, dx: float, dy: float, limit: float, gaps: int,
    ignore: bool,
) -> tuple[Any, ...]:  # fmt: skip
    """Run the compiled walk for one checked ray's first hit; return its raw result tuple.

    ``r[0]`` is the status (:data:`FOUND`, :data:`DONE`, or :data:`UNSAFE`
    when the ray needs the far-range walk of :func:`first_hit`); on
    ``FOUND``, ``r[7]`` is the distance, ``r[8:10]`` the point, ``r[10:12]``
    the normal, ``r[12:14]`` the cell, ``r[14]`` inside (0 or 1), ``r[15:17]``
    the pixel.

    Examples
    --------
    >>> from tilecast import Grid
    >>> view, _ = walk_map(Grid([[0, 1]]))
    >>> r = raw_first_hit(view, 0.5, 0.5, 1.0, 0.0, math.inf, 0, False)
    >>> r[0] == FOUND, r[7], (r[12], r[13])
    (True, 0.5, (1, 0))
    """
    walk = _walk_entry or _load_walk()
    result: tuple[Any, ...] = walk(*view, FIRST, gaps, 0, ignore, x0, y0, dx, dy, limit, 0, 0,
                                   0, 0, 0, 0.0, _NO_EVENTS_F, _NO_EVENTS_I)  # fmt: skip
    return result


def first_hit(
    grid: Any, view: WalkMap, is_tilemap: bool, x0: float, y0: float, dx: float, dy: float,
    limit: float, gaps: int, ignore: bool, origin_name: str = "origin",
) -> Hit | None:  # fmt: skip
    """First hit of one checked ray: one call of the compiled walk (the far-range walk beyond it).

    The arguments are already checked (``view, is_tilemap = walk_map(grid)``,
    finite floats, a non-zero direction, ``limit >= 0``, ``gaps`` an index of
    :data:`DIAGONAL_GAPS`); ``origin_name`` is what an error names.

    Examples
    --------
    >>> from tilecast import Grid
    >>> grid = Grid([[0, 1]])
    >>> view, is_tilemap = walk_map(grid)
    >>> first_hit(grid, view, is_tilemap, 0.5, 0.5, 1.0, 0.0, math.inf, 0, False).cell
    (1, 0)
    """
    r = raw_first_hit(view, x0, y0, dx, dy, limit, gaps, ignore)
    status = r[0]
    if status == FOUND:
        return tuple.__new__(
            Hit,
            ((r[8], r[9]), (r[10], r[11]), r[7], (r[12], r[13]), r[14] != 0,
             (r[15], r[16]) if is_tilemap else None),
        )  # fmt: skip
    if status == DONE:
        return None
    return far_first_hit(grid, (x0, y0), (dx, dy), limit, gaps, ignore, origin_name)


def far_first_hit(
    grid: Any, start: tuple[float, float], direction: tuple[float, float], limit: float,
    gaps: int, ignore: bool, origin_name: str,
) -> Hit | None:  # fmt: skip
    """First hit of a ray on the exact far-range walk (the compiled walk said UNSAFE).

    Examples
    --------
    >>> from tilecast import Grid
    >>> far_first_hit(Grid([[0, 1]]), (0.5, 0.5), (1.0, 1e-300), math.inf, 0, False, "o").cell
    (1, 0)
    """
    hits = _farwalk.cast(check_map(grid), start, direction, limit, DIAGONAL_GAPS[gaps], ignore,
                         origin_name)  # fmt: skip
    return next(hits, None)


def far_all_hits(
    grid: Any, start: tuple[float, float], direction: tuple[float, float], limit: float,
    gaps: int, ignore: bool, origin_name: str,
) -> Iterator[Hit]:  # fmt: skip
    """Every hit of a ray on the exact far-range walk (a compiled walk said UNSAFE).

    Examples
    --------
    >>> from tilecast import Grid
    >>> hits = far_all_hits(Grid([[0, 1, 1]]), (0.5, 0.5), (1.0, 1e-300), math.inf, 0, False, "o")
    >>> [h.cell for h in hits]
    [(1, 0), (2, 0)]
    """
    return _farwalk.cast(check_map(grid), start, direction, limit, DIAGONAL_GAPS[gaps], ignore,
                         origin_name)  # fmt: skip


def all_hits(
    grid: Any, origin: tuple[float, float], direction: tuple[float, float], limit: float,
    gaps: int, ignore: bool,
) -> Iterator[Hit]:  # fmt: skip
    """Yield every solid cell (or pixel) the ray enters, in order, from compiled chunks.

    Examples
    --------
    >>> from tilecast import Grid
    >>> [h.cell for h in all_hits(Grid([[0, 1, 1]]), (0.5, 0.5), (1.0, 0.0), math.inf, 0, False)]
    [(1, 0), (2, 0)]
    """
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
                      (px, py) if is_tilemap else None)  # fmt: skip


def _chunks(
    view: tuple[Any, ...], mode: int, gaps: int, corners: int, ignore: bool,
    a: tuple[float, float], b: tuple[float, float], limit: float,
) -> Iterator[tuple[list[list[float]], list[list[int]]] | None]:  # fmt: skip
    """Run the compiled walk in chunks of events (ALL or CELLS mode), resuming where it stopped.

    Yields each chunk's events as lists ``(floats, ints)`` of rows (see the
    walk's ``out_f``, ``out_i``), or None, once and first, when the ray's
    numbers are beyond the compiled range (the caller takes the far-range
    walk).
    """
    walk = _walk_entry or _load_walk()
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


def sight(
    grid: Any, view: WalkMap, a: tuple[float, float], b: tuple[float, float], gaps: int
) -> bool:
    """Line of sight between two checked world points (the far-range walk beyond the range).

    Examples
    --------
    >>> from tilecast import Grid
    >>> grid = Grid([[0, 1, 0]])
    >>> sight(grid, walk_map(grid)[0], (0.5, 0.5), (2.5, 0.5), 0)
    False
    """
    walk = _walk_entry or _load_walk()
    r = walk(*view, SIGHT, gaps, 0, False, a[0], a[1], b[0], b[1], math.inf, 0, 0, 0, 0, 0, 0.0,
             _NO_EVENTS_F, _NO_EVENTS_I)  # fmt: skip
    if r[0] == UNSAFE:
        return _farwalk.sight(check_map(grid), a, b, DIAGONAL_GAPS[gaps])
    return bool(r[0] == DONE)


def steps(
    origin: tuple[float, float], tile_size: tuple[float, float], a: tuple[float, float],
    b: tuple[float, float], policy: int,
) -> Iterator[Step]:  # fmt: skip
    """Yield the cells of the checked segment ``a -> b`` (``policy``: a corner policy index).

    Examples
    --------
    >>> [s.cell for s in steps((0.0, 0.0), (1.0, 1.0), (0.5, 0.5), (1.5, 1.5), 3)]
    [(0, 0), (1, 1)]
    """
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


# ------------------------------------------------ kernels that call the walk
#: The walk's address, once loaded: the last argument of the kernels that
#: call it through its address (cast_range, cast_single, the lanes).
walk_address = 0


def walk_caller(kernel_name: str, signature_name: str) -> Any:
    """Compile or load the walk and a kernel of :mod:`tilecast._kernels.walk` that calls it.

    Returns the kernel's entry point (no type dispatch: callers pass exactly
    the types of its signature) and sets :data:`walk_address`.

    Examples
    --------
    >>> from tilecast import _engine
    >>> kernel = _engine.walk_caller("cast_single", "CAST_SINGLE_SIGNATURE")
    >>> callable(kernel) and _engine.walk_address != 0
    True
    """
    global walk_address
    walk = kernels("walk")
    kernel, signature = getattr(walk, kernel_name), getattr(walk, signature_name)
    walk.compile_walk_with(kernel, signature, 0.6)
    walk_address = walk.walk_address()
    return kernel.overloads[signature].entry_point
