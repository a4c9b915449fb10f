"""The tile grid: one solidity bit per cell (see :mod:`tilecast.world` for the shared geometry)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tilecast._validate import as_cell_array, as_choice, as_host_array, as_point, as_tile_size
from tilecast.world import OUTSIDE_POLICIES, World, readonly_view

__all__ = ["OUTSIDE_POLICIES", "Grid"]


def _as_solid_array(solid: Any) -> np.ndarray:
    try:
        array = as_host_array("solid", solid)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith("solid"):
            raise
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


class Grid(World):
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

    __slots__ = ("_solid", "_view")

    def __init__(
        self,
        solid: Any,
        tile_size: float | tuple[float, float] = 1.0,
        origin: tuple[float, float] = (0.0, 0.0),
        outside: str = "empty",
    ) -> None:
        self._solid = _as_solid_array(solid)
        self._init_world(
            as_tile_size(tile_size),
            as_point("origin", origin),
            as_choice("outside", outside, OUTSIDE_POLICIES),
        )
        self._view = readonly_view(self._solid)

    # ------------------------------------------------------------------ basics
    @property
    def solid(self) -> np.ndarray:
        """Read-only view of the solidity array, indexed ``[row, col]``."""
        return self._view

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        del state["_view"]  # a view of _solid: rebuilt, not pickled as a second copy
        state["_readonly_arrays"].remove("_view")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._view = readonly_view(self._solid)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the map."""
        rows, cols = self._solid.shape
        return (rows, cols)

    def __repr__(self) -> str:
        rows, cols = self.shape
        return (
            f"Grid({rows}x{cols}, tile_size={self._tile_size}, origin={self._origin}, "
            f"outside={self._outside!r}, solid cells={int(self._solid.sum())})"
        )

    def _cell_solid(self, i: int, j: int) -> bool:
        return bool(self._solid[j, i])

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
        self._check_on_map(cell_array)
        if len(cell_array) == 0:
            return
        with self._editing():
            self._solid[cell_array[:, 1], cell_array[:, 0]] = values
            self._edited(cell_array)


def check_map(grid: Any) -> World:
    """Return ``grid`` if it is a ``Grid`` or ``TileMap``; wrap a 2D bool array in a ``Grid``.

    The check every map argument goes through (here, beside ``Grid``, so
    that :mod:`tilecast._validate` needs no map class).

    Raises ``TypeError`` naming ``grid`` for anything else.
    """
    if isinstance(grid, World):
        return grid
    if isinstance(grid, np.ndarray) and grid.ndim == 2 and grid.dtype == np.bool_:
        if grid.size == 0:
            raise ValueError(f"grid must not be empty, got a bool array of shape {grid.shape}")
        return Grid(grid)
    raise TypeError(
        f"grid must be a tilecast.Grid, a TileMap or a 2D bool array, got {type(grid).__name__}"
    )
