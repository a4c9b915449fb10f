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

This module validates input and dispatches to the compiled kernel in
``tilecast._kernels.fov``; the readable pure-Python version
(``fractions.Fraction`` slopes) that the kernel is tested against lives with
the tests (``tests/reference/fov.py``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import ModuleType
from typing import Any

import numpy as np

from tilecast._validate import (
    as_cell,
    as_cell_array,
    as_choice,
    as_nonnegative_float,
    check_map,
)
from tilecast.grid import Grid
from tilecast.tiles import TileMap
from tilecast.world import World

__all__ = ["FOV_METRICS", "fov", "fov_many"]

FOV_METRICS = ("euclidean", "chebyshev", "manhattan")

_METRIC_NAMES = {
    "euclidean": "METRIC_EUCLIDEAN",
    "chebyshev": "METRIC_CHEBYSHEV",
    "manhattan": "METRIC_MANHATTAN",
}


def _kernel() -> ModuleType:
    """Return the compiled kernel module, importing it (and Numba) on first use.

    Importing it lazily keeps ``import tilecast`` free of Numba.
    """
    from tilecast._kernels import fov as kernel

    return kernel


def fov(
    grid: Grid | TileMap | np.ndarray,
    origin_cell: tuple[int, int],
    radius: float | None = None,
    *,
    metric: str = "euclidean",
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

    Returns
    -------
    numpy.ndarray of bool, shape (rows, cols)
        ``mask[row, col]`` is True where the cell is visible (indexed like
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
    >>> mask = fov(grid, (0, 1))
    >>> print("\n".join("".join("*" if v else "." for v in row) for row in mask))
    *****.
    ***...
    *****.
    >>> int(fov(grid, (0, 1), radius=2).sum())  # the 7 cells within distance 2
    7
    """
    world = check_map(grid)
    ox, oy = _check_origin(world, "origin_cell", as_cell("origin_cell", origin_cell))
    code, bound = _range_limit(world, radius, metric)
    rows, cols = world.shape
    # np.zeros is lazily zeroed by the OS: pages the scan never writes cost nothing.
    out = np.zeros(rows * cols, dtype=np.bool_)
    _kernel().fov_into(world.solid.reshape(-1), out, rows, cols, ox, oy, code, bound)
    return out.reshape(rows, cols)


def fov_many(
    grid: Grid | TileMap | np.ndarray,
    origin_cells: Any,
    radius: float | None = None,
    *,
    metric: str = "euclidean",
) -> np.ndarray:
    """Return the cells visible from any of several cells (the union of their views).

    What a party, a set of cameras or all of one side's units see together.
    Each origin is scanned exactly as :func:`fov` does, into one shared mask.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map. On a :class:`~tilecast.TileMap` a cell blocks sight when its
        tile has a solid pixel (:attr:`~tilecast.TileMap.solid`).
    origin_cells : array_like of int, shape (N, 2), or (int, int)
        The viewers' cells ``(col, row)``; every one must lie on the map. An
        empty array gives an all-False mask.
    radius : float, optional
        Range of every viewer, as in :func:`fov`.
    metric : {"euclidean", "chebyshev", "manhattan"}, default "euclidean"
        Distance measure, as in :func:`fov`.

    Returns
    -------
    numpy.ndarray of bool, shape (rows, cols)
        ``mask[row, col]`` is True where some origin sees the cell.

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
    """
    world = check_map(grid)
    origins = as_cell_array("origin_cells", origin_cells)
    off_map = (
        (origins[:, 0] < 0)
        | (origins[:, 0] >= world.cols)
        | (origins[:, 1] < 0)
        | (origins[:, 1] >= world.rows)
    )
    if off_map.any():
        bad = origins[int(np.argmax(off_map))]
        _check_origin(world, "origin_cells", (int(bad[0]), int(bad[1])))
    code, bound = _range_limit(world, radius, metric)
    rows, cols = world.shape
    out = np.zeros(rows * cols, dtype=np.bool_)
    if len(origins):
        _kernel().fov_many_into(world.solid.reshape(-1), out, rows, cols, origins, code, bound)
    return out.reshape(rows, cols)


# ------------------------------------------------------------------ validation


def _check_origin(grid: World, name: str, cell: tuple[int, int]) -> tuple[int, int]:
    i, j = cell
    if not (0 <= i < grid.cols and 0 <= j < grid.rows):
        raise ValueError(
            f"{name} must lie on the {grid.rows}x{grid.cols} map "
            f"(0 <= col < {grid.cols}, 0 <= row < {grid.rows}), got cell {(i, j)}"
        )
    return i, j


def _range_limit(grid: World, radius: Any, metric: Any) -> tuple[int, int]:
    """Turn ``radius`` and ``metric`` into the kernel's (metric code, integer bound).

    The bound is exact: an integer offset ``(dx, dy)`` is in range when
    ``dx*dx + dy*dy <= bound`` (euclidean, ``bound = floor(radius**2)`` taken
    on the exact value of the float) or ``max``/sum of ``|dx|, |dy|`` ``<= bound``
    (``bound = floor(radius)``).
    """
    metric = as_choice("metric", metric, FOV_METRICS)
    if radius is None:
        return _kernel().METRIC_NONE, 0
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
        return _kernel().METRIC_NONE, 0
    exact = Fraction(value)  # exact: value < rows + cols, a float holds it as given
    if metric == "euclidean":
        return getattr(_kernel(), _METRIC_NAMES[metric]), math.floor(exact * exact)
    return getattr(_kernel(), _METRIC_NAMES[metric]), math.floor(exact)
