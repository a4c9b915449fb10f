"""The tile grid: solidity per cell, tile geometry and the world <-> tile mapping.

Every query maps a world point ``(x, y)`` to *tile space* with exactly two
float64 operations per coordinate, ``u = (x - ox) / w`` and ``v = (y - oy) / h``;
cell ``(i, j)`` is then the half-open unit box ``[i, i+1) x [j, j+1)`` and every
decision about cells is made exactly on those doubles.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilecast._validate import as_cell, as_cell_array, as_choice, as_point, as_positive_float

__all__ = ["OUTSIDE_POLICIES", "Grid"]

OUTSIDE_POLICIES = ("empty", "solid")


def _as_solid_array(solid: Any) -> np.ndarray:
    try:
        array = np.asarray(solid)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"solid must be a 2D array of booleans: {exc}") from None
    if array.dtype != np.bool_:
        if np.issubdtype(array.dtype, np.integer):
            array = array != 0
        else:
            raise TypeError(
                f"solid must be an array of bool (or integers, nonzero = solid), "
                f"got dtype {array.dtype}"
            )
    if array.ndim != 2:
        raise ValueError(f"solid must be 2D (rows, cols), got {array.ndim} dimensions")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"solid must not be empty, got shape {array.shape}")
    return np.array(array, dtype=np.bool_, order="C", copy=True)


def _as_tile_size(tile_size: Any) -> tuple[float, float]:
    if isinstance(tile_size, tuple | list | np.ndarray):
        width, height = as_point("tile_size", tile_size)
        return (as_positive_float("tile_size[0]", width), as_positive_float("tile_size[1]", height))
    size = as_positive_float("tile_size", tile_size)
    return (size, size)


class Grid:
    """A rectangular map of solid and empty tiles.

    Parameters
    ----------
    solid : array_like of bool, shape (rows, cols)
        ``solid[row, col]`` is True where the tile is a wall. Integer arrays are
        accepted (nonzero is solid). The array is copied.
    tile_size : float or (float, float), default 1.0
        Tile width and height in world units; tiles need not be square.
    origin : (float, float), default (0.0, 0.0)
        World position of the corner of tile (0, 0) (top-left when y points down).
    outside : {"empty", "solid"}, default "empty"
        What lies beyond the map: rays leave and miss, or the border stops them.

    Notes
    -----
    Cells are ``(i, j) = (col, row)`` tuples everywhere in the public API.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid
    >>> grid = Grid([[0, 1], [0, 0]], tile_size=(2.0, 1.0), origin=(-1.0, 0.0))
    >>> grid.shape
    (2, 2)
    >>> grid.cell_at((1.5, 0.25))
    (1, 0)
    >>> grid.is_solid((1, 0))
    True
    >>> grid.cell_bounds((1, 0))
    (1.0, 0.0, 3.0, 1.0)
    """

    __slots__ = ("_accel", "_origin", "_outside", "_solid", "_tile_size", "_version", "_view")

    def __init__(
        self,
        solid: Any,
        tile_size: float | tuple[float, float] = 1.0,
        origin: tuple[float, float] = (0.0, 0.0),
        outside: str = "empty",
    ) -> None:
        self._solid = _as_solid_array(solid)
        self._tile_size = _as_tile_size(tile_size)
        self._origin = as_point("origin", origin)
        self._outside = as_choice("outside", outside, OUTSIDE_POLICIES)
        self._view: np.ndarray = self._solid.view()
        self._view.flags.writeable = False
        self._version = 0
        # Acceleration data derived from the solidity array (e.g. clearance
        # maps), keyed by name. Each value may define ``update(grid, cells)``
        # to follow a change in place; values without it are dropped.
        self._accel: dict[str, Any] = {}

    # ------------------------------------------------------------------ basics
    @property
    def solid(self) -> np.ndarray:
        """Read-only view of the solidity array, indexed ``[row, col]``."""
        return self._view

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the map."""
        rows, cols = self._solid.shape
        return (rows, cols)

    @property
    def rows(self) -> int:
        """Number of rows (cells along y)."""
        return int(self._solid.shape[0])

    @property
    def cols(self) -> int:
        """Number of columns (cells along x)."""
        return int(self._solid.shape[1])

    @property
    def tile_size(self) -> tuple[float, float]:
        """Tile ``(width, height)`` in world units."""
        return self._tile_size

    @property
    def origin(self) -> tuple[float, float]:
        """World position of the corner of tile (0, 0)."""
        return self._origin

    @property
    def outside(self) -> str:
        """``"empty"`` or ``"solid"``: what lies beyond the map."""
        return self._outside

    @property
    def version(self) -> int:
        """Counter bumped by every :meth:`set_solid`; cached data compares it."""
        return self._version

    def __repr__(self) -> str:
        rows, cols = self.shape
        return (
            f"Grid({rows}x{cols}, tile_size={self._tile_size}, origin={self._origin}, "
            f"outside={self._outside!r}, solid cells={int(self._solid.sum())})"
        )

    # --------------------------------------------------------------- geometry
    def to_tile_space(self, point: Any) -> tuple[float, float]:
        """Map a world point to tile space: ``((x - ox) / w, (y - oy) / h)``.

        Examples
        --------
        >>> from tilecast import Grid
        >>> Grid([[0]], tile_size=(2.0, 4.0), origin=(1.0, 1.0)).to_tile_space((5.0, -3.0))
        (2.0, -1.0)
        """
        x, y = as_point("point", point)
        return (
            (x - self._origin[0]) / self._tile_size[0],
            (y - self._origin[1]) / self._tile_size[1],
        )

    def cell_at(self, point: Any) -> tuple[int, int]:
        """Return the cell ``(i, j)`` containing a world point (floor in tile space).

        Exact for negative coordinates: the point on a grid line belongs to the
        cell on its positive side.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[0]])
        >>> grid.cell_at((-0.5, 2.0))
        (-1, 2)
        >>> Grid([[0]], tile_size=0.1).cell_at((0.3, 0.0))  # 0.3 / 0.1 < 3 in doubles
        (2, 0)
        """
        u, v = self.to_tile_space(point)
        return (math.floor(u), math.floor(v))

    def cell_bounds(self, cell: Any) -> tuple[float, float, float, float]:
        """World box ``(x0, y0, x1, y1)`` of a cell, ``ox + i*w`` etc. in float64.

        Examples
        --------
        >>> from tilecast import Grid
        >>> Grid([[0]], tile_size=(2.0, 3.0), origin=(10.0, 0.0)).cell_bounds((-1, 2))
        (8.0, 6.0, 10.0, 9.0)
        """
        i, j = as_cell("cell", cell)
        ox, oy = self._origin
        w, h = self._tile_size
        return (ox + i * w, oy + j * h, ox + (i + 1) * w, oy + (j + 1) * h)

    def in_bounds(self, cell: Any) -> bool:
        """Return True when the cell lies on the map.

        Examples
        --------
        >>> from tilecast import Grid
        >>> Grid([[0, 0]]).in_bounds((1, 0)), Grid([[0, 0]]).in_bounds((2, 0))
        (True, False)
        """
        i, j = as_cell("cell", cell)
        return 0 <= i < self.cols and 0 <= j < self.rows

    def is_solid(self, cell: Any) -> bool:
        """Solidity of a cell; cells beyond the map follow ``outside``.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[1, 0]], outside="solid")
        >>> grid.is_solid((0, 0)), grid.is_solid((1, 0)), grid.is_solid((5, -3))
        (True, False, True)
        """
        i, j = as_cell("cell", cell)
        if 0 <= i < self.cols and 0 <= j < self.rows:
            return bool(self._solid[j, i])
        return self._outside == "solid"

    # ----------------------------------------------------------------- edits
    def set_solid(self, cells: Any, value: Any = True) -> None:
        """Set the solidity of one cell ``(i, j)`` or of an ``(N, 2)`` array of cells.

        Acceleration data built for this grid is updated too, so the next
        query sees the change. Cells must lie on the map.

        Parameters
        ----------
        cells : (int, int) or array_like of int, shape (N, 2)
            Cells as ``(col, row)``.
        value : bool or array_like of bool, shape (N,)
            New solidity, one value for all or one per cell.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[0, 0, 0]])
        >>> grid.set_solid((1, 0))
        >>> grid.set_solid([[0, 0], [2, 0]], [True, False])
        >>> grid.solid.tolist()
        [[True, True, False]]
        """
        cell_array = as_cell_array("cells", cells)
        values = np.asarray(value)
        if values.dtype != np.bool_ and not np.issubdtype(values.dtype, np.integer):
            raise TypeError(f"value must be bool, got dtype {values.dtype}")
        values = values.astype(np.bool_)
        if values.ndim == 0:
            values = np.full(len(cell_array), bool(values))
        elif values.shape != (len(cell_array),):
            raise ValueError(
                f"value must be one bool or one per cell ({len(cell_array)}), "
                f"got shape {values.shape}"
            )
        cols, rows = cell_array[:, 0], cell_array[:, 1]
        off_map = (cols < 0) | (cols >= self.cols) | (rows < 0) | (rows >= self.rows)
        if off_map.any():
            bad = cell_array[np.argmax(off_map)]
            raise ValueError(
                f"cells must lie on the {self.rows}x{self.cols} map, got cell {tuple(bad)}"
            )
        if len(cell_array) == 0:
            return
        self._solid[rows, cols] = values
        self._version += 1
        for key, data in list(self._accel.items()):
            update = getattr(data, "update", None)
            if update is None:
                del self._accel[key]
            else:
                update(self, cell_array)
