"""Field of view on a grid: symmetric shadowcasting, exact.

``fov`` answers "which cells can a unit standing in this cell see" the way
roguelikes and tactics games ask it, with Albert Ford's *Symmetric
Shadowcasting* (2020) exactly as published: the map is split into four
quadrants around the origin, each scanned row by row outwards; a row carries
the sector of slopes not yet blocked, with slopes as exact fractions. A floor
cell is visible when its centre lies inside the unblocked sector (the
``is_symmetric`` test), a wall when the sector touches it at all; the
columns a row covers are rounded with ``round_ties_up`` / ``round_ties_down``.
The result is symmetric: floor cell A sees floor cell B exactly when B sees A.
``fov_many`` scans many origins in one compiled call and combines their views
(union, count per cell, or one mask each); ``fov_counts`` is the count with
every floor cell as an origin, an exposure map.

This module validates input and dispatches to the compiled kernel in
``tilecast._kernels.fov``; the readable pure-Python version
(``fractions.Fraction`` slopes) that the kernel is tested against lives with
the tests (``tests/reference/fov.py``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from tilecast._engine import kernels
from tilecast._threads import run_each, thread_count
from tilecast._validate import (
    as_cell,
    as_cell_array,
    as_choice,
    as_flag,
    as_nonnegative_float,
)
from tilecast.grid import Grid, check_map
from tilecast.tiles import TileMap
from tilecast.world import ALL_LAYERS, World

__all__ = ["FOV_COMBINE", "FOV_METRICS", "fov", "fov_counts", "fov_many"]

FOV_METRICS = ("euclidean", "chebyshev", "manhattan")
FOV_COMBINE = ("any", "count", "none")
#: Most origins one call may count: origin k tags the cells it counted with k + 1 (int32).
MAX_COUNTED = 2**31 - 2
#: Fewest cells a parallel call should have in range in all (origins x cells in range
#: of one), about a millisecond of scanning: below it one thread is about as fast, and
#: on a busy machine waiting for a descheduled worker thread (milliseconds) is slower.
_PARALLEL_WORK = 1_000_000
# the kernel arguments a mode does not use (never written)
_NO_COUNTS = np.empty(0, dtype=np.int32)
_NO_MASKS = np.empty((1, 0), dtype=np.bool_)

_METRIC_NAMES = {
    "euclidean": "METRIC_EUCLIDEAN",
    "chebyshev": "METRIC_CHEBYSHEV",
    "manhattan": "METRIC_MANHATTAN",
}


def fov(
    grid: Grid | TileMap | np.ndarray,
    origin_cell: tuple[int, int],
    radius: float | None = None,
    *,
    metric: str = "euclidean",
    light_walls: bool = True,
    mask: int = ALL_LAYERS,
) -> np.ndarray:
    r"""Return the cells visible from one cell, by symmetric shadowcasting.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map. On a :class:`~tilecast.TileMap` a cell blocks sight when its
        tile has a solid pixel (:attr:`~tilecast.TileMap.solid`).
        Solid cells are walls (opaque), the others floor.
    origin_cell : (int, int)
        The viewer's cell ``(i, j) = (col, row)``; it must lie on the map. It
        is always visible, and it does not block even if it is solid.
    radius : float, optional
        How far the view reaches, in cells, measured between cell centres and
        inclusive (a cell at distance exactly ``radius`` is in range). ``None``
        (or ``inf``) is unlimited. The limit only removes cells: a cell in range
        is visible exactly when it is visible with no limit.
    metric : {"euclidean", "chebyshev", "manhattan"}, default "euclidean"
        How the distance from the origin ``(dx, dy)`` (in cells) is measured:
        ``"euclidean"`` is a disc, ``dx**2 + dy**2 <= radius**2`` (decided in
        exact arithmetic); ``"chebyshev"`` a square, ``max(|dx|, |dy|) <=
        radius``; ``"manhattan"`` a diamond, ``|dx| + |dy| <= radius``.
    light_walls : bool, default True
        Whether the walls in view are visible. With False no solid cell is
        visible except the origin itself; the walls still block sight exactly
        as before, so this only removes walls from the view.
    mask : int, default ALL_LAYERS
        The collision layers that block sight: a cell is a wall when
        ``layers & mask != 0`` (glass on a layer left out of ``mask`` is
        seen through, and is floor to ``light_walls``).

    Returns
    -------
    numpy.ndarray of bool, shape (rows, cols)
        ``visible[row, col]`` is True where the cell is visible (indexed like
        ``grid.solid``).

    Notes
    -----
    A floor cell is visible when its centre lies in the sector left unblocked
    by the walls nearer to the origin; a wall is visible when that sector
    touches it. Floor cell A sees floor cell B exactly when B sees A, and the
    mask turns with the map under its 8 symmetries (rotations and mirrors).
    This is its own rule, not :func:`line_of_sight` between cell centres.
    The scan stops at the map's edge: what lies beyond (``grid.outside``)
    does not change what is visible on the map. With a radius, only the
    cells in range are read and written.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid, fov
    >>> rows = ["......",
    ...         "..#...",
    ...         "......"]
    >>> grid = Grid([[c == "#" for c in row] for row in rows])
    >>> visible = fov(grid, (0, 1))
    >>> print("\n".join("".join("*" if v else "." for v in row) for row in visible))
    *****.
    ***...
    *****.
    >>> int(fov(grid, (0, 1), radius=2).sum())  # the 7 cells within distance 2
    7
    >>> bool(fov(grid, (0, 1), light_walls=False)[1, 2])  # the wall is not lit
    False
    """
    world = check_map(grid, mask)
    ox, oy = _check_origin(world, "origin_cell", as_cell("origin_cell", origin_cell))
    code, bound = range_limit(world, radius, metric)
    lit = as_flag("light_walls", light_walls)
    rows, cols = world.shape
    # np.zeros is lazily zeroed by the OS: pages the scan never writes cost nothing.
    out = np.zeros(rows * cols, dtype=np.bool_)
    kernels("fov").fov_into(world.solid.reshape(-1), out, rows, cols, ox, oy, code, bound, lit)
    return out.reshape(rows, cols)


def fov_many(
    grid: Grid | TileMap | np.ndarray,
    origin_cells: Any,
    radius: float | None = None,
    *,
    metric: str = "euclidean",
    light_walls: bool = True,
    combine: str = "any",
    mask: int = ALL_LAYERS,
) -> np.ndarray:
    """Return the views of several cells: their union, a count per cell, or one mask each.

    What a party, a set of cameras or all of one side's units see together
    (``"any"``), how many of them see each cell (``"count"``: an exposure
    map), or each one's own view (``"none"``). Each origin is scanned exactly
    as :func:`fov` does, by compiled code; ``"count"`` and ``"none"`` spread
    the origins over Numba's threads.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map. On a :class:`~tilecast.TileMap` a cell blocks sight when its
        tile has a solid pixel (:attr:`~tilecast.TileMap.solid`).
    origin_cells : array_like of int, shape (N, 2), or (int, int)
        The viewers' cells ``(col, row)``; every one must lie on the map. A
        cell may appear more than once (it then counts more than once).
    radius : float, optional
        Range of every viewer, as in :func:`fov`.
    metric : {"euclidean", "chebyshev", "manhattan"}, default "euclidean"
        Distance measure, as in :func:`fov`.
    light_walls : bool, default True
        Whether walls in view are visible, as in :func:`fov` (each origin is
        visible to itself even when it is solid).
    combine : {"any", "count", "none"}, default "any"
        How the views are combined: ``"any"`` their union, ``"count"`` how
        many origins see each cell, ``"none"`` not at all (one view per
        origin).
    mask : int, default ALL_LAYERS
        The collision layers that block sight: a cell is a wall when
        ``layers & mask != 0`` (glass on a layer left out of ``mask`` is
        seen through, and is floor to ``light_walls``).

    Returns
    -------
    numpy.ndarray
        ``"any"``: bool ``(rows, cols)``, True where some origin sees the
        cell. ``"count"``: int32 ``(rows, cols)``, the number of origins that
        see the cell (the sum of their :func:`fov` masks). ``"none"``: bool
        ``(N, rows, cols)``, ``[k]`` the :func:`fov` mask of origin ``k``.
        With no origins: all False, all 0, or shape ``(0, rows, cols)``.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid, fov, fov_many
    >>> walls = np.zeros((5, 9), dtype=bool)
    >>> walls[:, 4] = True  # a wall splits the map in two
    >>> grid = Grid(walls)
    >>> both = fov_many(grid, [(1, 2), (7, 2)])
    >>> bool(both.all())
    True
    >>> bool((both == (fov(grid, (1, 2)) | fov(grid, (7, 2)))).all())
    True
    >>> counts = fov_many(grid, [(1, 2), (2, 2), (7, 2)], combine="count")
    >>> counts[2].tolist()  # along the middle row: two viewers left, one right
    [2, 2, 2, 2, 3, 1, 1, 1, 1]
    >>> fov_many(grid, [(1, 2), (7, 2)], combine="none").shape
    (2, 5, 9)
    """
    world = check_map(grid, mask)
    origins = check_origins(world, "origin_cells", origin_cells)
    code, bound = range_limit(world, radius, metric)
    lit = as_flag("light_walls", light_walls)
    how = as_choice("combine", combine, FOV_COMBINE)
    if how == "count":
        return _counts(world, origins, code, bound, lit)
    rows, cols = world.shape
    if how == "none":
        return _each(world, origins, code, bound, lit)
    out = np.zeros((1, rows * cols), dtype=np.bool_)  # one row: the union
    if len(origins):
        solid = world.solid.reshape(-1)
        kernels("fov").views_into(solid, out, _NO_COUNTS, _NO_COUNTS, rows, cols, origins, 0, 1,
                                  code, bound, lit)  # fmt: skip
    return out.reshape(rows, cols)


def fov_counts(
    grid: Grid | TileMap | np.ndarray,
    radius: float | None = None,
    *,
    origins: Any = None,
    metric: str = "euclidean",
    light_walls: bool = True,
    mask: int = ALL_LAYERS,
) -> np.ndarray:
    """Return, for each cell, how many origin cells see it (every floor cell by default).

    An exposure map for level design and tactical AI: where a unit can be seen
    from many places, and which places are sheltered. By the symmetry of
    :func:`fov` (floor cell A sees floor cell B exactly when B sees A), with
    the default origins the count at a floor cell is also the number of floor
    cells it sees, itself included. Compiled and spread over Numba's threads.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map. On a :class:`~tilecast.TileMap` a cell blocks sight when its
        tile has a solid pixel (:attr:`~tilecast.TileMap.solid`).
    radius : float, optional
        Range of every viewer, as in :func:`fov`.
    origins : array_like of int, shape (N, 2), optional
        The viewers' cells ``(col, row)``, each on the map. ``None`` (the
        default) is every floor (non-solid) cell of the map.
    metric : {"euclidean", "chebyshev", "manhattan"}, default "euclidean"
        Distance measure, as in :func:`fov`.
    light_walls : bool, default True
        Whether walls in view count as seen, as in :func:`fov`.
    mask : int, default ALL_LAYERS
        The collision layers that block sight: a cell is a wall when
        ``layers & mask != 0`` (as in :func:`fov`; the default
        origins are the cells that do not block).

    Returns
    -------
    numpy.ndarray of int32, shape (rows, cols)
        ``counts[row, col]``: how many origins see the cell; the same as
        ``fov_many(grid, origins, radius, combine="count")``.

    Examples
    --------
    >>> from tilecast import Grid, fov, fov_counts
    >>> rows = ["#######",
    ...         "#...#.#",
    ...         "#.....#",
    ...         "#######"]
    >>> grid = Grid([[c == "#" for c in row] for row in rows])
    >>> counts = fov_counts(grid, light_walls=False)
    >>> counts[1:3].tolist()  # the walls (light_walls=False) count 0
    [[0, 8, 8, 8, 0, 4, 0], [0, 8, 8, 9, 9, 9, 0]]
    >>> int(fov(grid, (5, 1), light_walls=False).sum())  # the nook sees 4 floor cells
    4
    """
    world = check_map(grid, mask)
    if origins is None:
        rows_of, cols_of = np.nonzero(~world.solid)
        cells = np.ascontiguousarray(np.column_stack([cols_of, rows_of]), dtype=np.int64)
    else:
        cells = check_origins(world, "origins", origins)
    code, bound = range_limit(world, radius, metric)
    lit = as_flag("light_walls", light_walls)
    return _counts(world, cells, code, bound, lit)


# ------------------------------------------------------------------ dispatch


def _chunks(grid: World, n: int, code: int, bound: int, scratch: int) -> int:
    """Return how many threads to spread ``n`` origins over (1: this thread alone).

    The work is estimated as ``n`` times the cells in range of one origin
    (walls make it less). A parallel call also costs ``scratch`` map-sized
    passes (per-thread counts to zero and add up) and a start-up
    (``_PARALLEL_WORK``); below either, one thread is used.
    """
    cells = grid.rows * grid.cols
    reach = cells
    if code != kernels("fov").METRIC_NONE:
        side = (
            2 * math.isqrt(bound) + 1 if code == kernels("fov").METRIC_EUCLIDEAN else 2 * bound + 1
        )
        reach = min(cells, side * side)
    if n * reach < max(_PARALLEL_WORK, scratch * cells):
        return 1
    return max(1, min(n, thread_count()))


def _counts(grid: World, origins: np.ndarray, code: int, bound: int, lit: bool) -> np.ndarray:
    """Count, per cell, the origins (already checked) that see it."""
    rows, cols = grid.shape
    cells = rows * cols
    counts = np.zeros(cells, dtype=np.int32)
    n = len(origins)
    if n:
        kernel, solid = kernels("fov"), grid.solid.reshape(-1)
        chunks = _chunks(grid, n, code, bound, scratch=4)
        stamp = np.zeros((chunks, cells), dtype=np.int32)
        if chunks == 1:
            kernel.views_into(
                solid, _NO_MASKS, counts, stamp[0], rows, cols, origins, 0, 1, code, bound, lit
            )
        else:  # thread t counts every chunks-th origin from t on, into its own array
            parts = np.zeros((chunks, cells), dtype=np.int32)

            def count_stride(t: int) -> None:
                kernel.views_into(
                    solid, _NO_MASKS, parts[t], stamp[t], rows, cols, origins, t, chunks, code,
                    bound, lit,
                )  # fmt: skip

            def count_all() -> np.ndarray:
                parts[:] = 0  # a second pass (after an edit) starts afresh
                stamp[:] = 0
                run_each(count_stride, chunks)
                total: np.ndarray = parts.sum(axis=0, dtype=np.int32)
                return total

            counts = grid.consistent(count_all)  # GIL-free: one state of the map
    return counts.reshape(rows, cols)


def _each(grid: World, origins: np.ndarray, code: int, bound: int, lit: bool) -> np.ndarray:
    """Return one mask per origin (already checked), ``(N, rows, cols)``."""
    rows, cols = grid.shape
    n = len(origins)
    out = np.zeros((n, rows * cols), dtype=np.bool_)
    if n:
        kernel, solid = kernels("fov"), grid.solid.reshape(-1)
        chunks = _chunks(grid, n, code, bound, scratch=0)
        if chunks == 1:
            kernel.views_into(solid, out, _NO_COUNTS, _NO_COUNTS, rows, cols, origins, 0, 1, code,
                              bound, lit)  # fmt: skip
        else:  # thread t takes every chunks-th origin from t on

            def mark_stride(t: int) -> None:
                kernel.views_into(solid, out, _NO_COUNTS, _NO_COUNTS, rows, cols, origins, t,
                                  chunks, code, bound, lit)  # fmt: skip

            def mark_all() -> np.ndarray:
                out[:] = False  # a second pass (after an edit) starts afresh
                run_each(mark_stride, chunks)
                return out

            out = grid.consistent(mark_all)  # GIL-free: one state of the map
    return out.reshape(n, rows, cols)


# ------------------------------------------------------------------ validation


def check_origins(grid: World, name: str, cells: Any) -> np.ndarray:
    """Return ``cells`` as ``(N, 2)`` int64 cells on the map, or raise naming ``name``."""
    origins = as_cell_array(name, cells)
    off_map = (
        (origins[:, 0] < 0)
        | (origins[:, 0] >= grid.cols)
        | (origins[:, 1] < 0)
        | (origins[:, 1] >= grid.rows)
    )
    if off_map.any():
        k = int(np.argmax(off_map))
        _check_origin(grid, f"{name}[{k}]", (int(origins[k, 0]), int(origins[k, 1])))
    if len(origins) > MAX_COUNTED:
        raise ValueError(f"{name} may hold at most {MAX_COUNTED} cells, got {len(origins)}")
    return origins


def _check_origin(grid: World, name: str, cell: tuple[int, int]) -> tuple[int, int]:
    i, j = cell
    if not (0 <= i < grid.cols and 0 <= j < grid.rows):
        raise ValueError(
            f"{name} must lie on the {grid.rows}x{grid.cols} map "
            f"(0 <= col < {grid.cols}, 0 <= row < {grid.rows}), got cell {(i, j)}"
        )
    return i, j


def range_limit(grid: World, radius: Any, metric: Any) -> tuple[int, int]:
    """Turn ``radius`` and ``metric`` into the kernel's (metric code, integer bound).

    The bound is exact: an integer offset ``(dx, dy)`` is in range when
    ``dx*dx + dy*dy <= bound`` (euclidean, ``bound = floor(radius**2)`` taken
    on the exact value of the float) or ``max``/sum of ``|dx|, |dy|`` ``<= bound``
    (``bound = floor(radius)``).
    """
    metric = as_choice("metric", metric, FOV_METRICS)
    if radius is None:
        return kernels("fov").METRIC_NONE, 0
    if isinstance(radius, int | np.integer) and not isinstance(radius, bool | np.bool_):
        # Python ints may be too big for a float; decide on the int itself.
        if radius < 0:
            raise ValueError(f"radius must be non-negative, got {radius!r}")
        radius = min(int(radius), grid.rows + grid.cols)
    value = as_nonnegative_float("radius", radius, allow_inf=True)
    # Every cell of the map lies within rows + cols of any other, in all three
    # metrics: a larger radius is no limit (and keeps the kernel's integers small).
    reach = grid.rows + grid.cols
    if value >= reach:
        return kernels("fov").METRIC_NONE, 0
    exact = Fraction(value)  # exact: value < rows + cols, a float holds it as given
    if metric == "euclidean":
        return getattr(kernels("fov"), _METRIC_NAMES[metric]), math.floor(exact * exact)
    return getattr(kernels("fov"), _METRIC_NAMES[metric]), math.floor(exact)
