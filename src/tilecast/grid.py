"""The tile grid: a set of collision layers per cell (see :mod:`tilecast.world` for the geometry).

A cell holds an unsigned 32-bit field of collision layers (DESIGN 20); a
cell with any bit set is solid. A map built from bools has one layer, bit 1
(True). Every map query takes ``mask``: a cell blocks when
``layers & mask != 0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilecast._validate import (
    LAYER_LIMIT,
    as_cell_array,
    as_choice,
    as_layer_bits,
    as_point,
    as_tile_size,
)
from tilecast.world import ALL_LAYERS, OUTSIDE_POLICIES, World, readonly_view

__all__ = ["OUTSIDE_POLICIES", "Grid"]


def _as_cells(cells: Any, copy: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Return the map's solid cells (bool) and layer bits (None for a bool map).

    The bits are kept in the smallest unsigned type that holds them (uint8,
    uint16 or uint32): a ROS map's bits 1 and 2 take one byte per cell.
    ``copy=False`` keeps an array already of that type (the loaders' own).
    """
    try:
        array = np.asarray(cells)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"solid must be a 2D array of booleans or layer bits: {exc}") from None
    if array.dtype != np.bool_ and not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            f"solid must be an array of bool or of integer layer bits, got dtype {array.dtype}"
        )
    if array.ndim != 2:
        raise ValueError(f"solid must be 2D (rows, cols), got {array.ndim} dimensions")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"solid must not be empty, got shape {array.shape}")
    if array.dtype == np.bool_:
        return np.array(array, dtype=np.bool_, order="C", copy=True), None
    low, high = int(array.min()), int(array.max())
    if low < 0 or high >= LAYER_LIMIT:
        raise ValueError(
            f"solid must hold layer bits 0 to 0xFFFFFFFF, got {low if low < 0 else high}"
        )
    if high <= 1:
        return array != 0, None  # one layer: kept as bools alone
    dtype = _bits_type(high)
    layers = np.array(array, dtype=dtype, order="C", copy=copy or array.dtype != dtype)
    return layers != 0, layers


def _bits_type(high: int) -> type[np.unsignedinteger[Any]]:
    """Return the smallest unsigned integer type that holds bits up to ``high``."""
    if high < 2**8:
        return np.uint8
    return np.uint16 if high < 2**16 else np.uint32


class Grid(World):
    """A rectangular map of tiles, each empty or solid on a set of collision layers.

    Parameters
    ----------
    solid : array_like of bool or of int, shape (rows, cols)
        ``solid[row, col]`` is True where the tile is a wall (layer bit 1).
        Integers are layer bit fields: non-negative, below ``2**32``, each
        set bit a collision layer the tile is on (0 is empty); the queries'
        ``mask`` picks the layers that block. The array is copied.
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

    Layers: glass (bit 2) stops what is on layer 2, not sight on layer 1.

    >>> from tilecast import line_of_sight
    >>> glass = Grid([[0, 2, 0]])
    >>> glass.layers.tolist(), glass.solid.tolist()
    ([[0, 2, 0]], [[False, True, False]])
    >>> line_of_sight(glass, (0.5, 0.5), (2.5, 0.5), mask=1)
    True
    >>> line_of_sight(glass, (0.5, 0.5), (2.5, 0.5), mask=2)
    False
    """

    __slots__ = ("_layers", "_layers_view", "_solid", "_view")

    def __init__(
        self,
        solid: Any,
        tile_size: float | tuple[float, float] = 1.0,
        origin: tuple[float, float] = (0.0, 0.0),
        outside: str = "empty",
    ) -> None:
        self._solid, self._layers = _as_cells(solid)
        self._init_world(
            as_tile_size(tile_size),
            as_point("origin", origin),
            as_choice("outside", outside, OUTSIDE_POLICIES),
        )
        self._set_views()

    def _set_views(self) -> None:
        self._view = readonly_view(self._solid)
        self._layers_view = None if self._layers is None else readonly_view(self._layers)

    # ------------------------------------------------------------------ basics
    @property
    def solid(self) -> np.ndarray:
        """Read-only view of the solidity array, indexed ``[row, col]``: ``layers != 0``."""
        return self._view

    @property
    def layers(self) -> np.ndarray:
        """Read-only uint32 layer bits per cell, indexed ``[row, col]`` (0 where empty).

        A new array per call where the map keeps its bits in less room: bools
        on a map of one layer, bytes when every bit is below 256.
        """
        if self._layers_view is None:
            return readonly_view(self._solid.astype(np.uint32))
        if self._layers_view.dtype != np.uint32:
            return readonly_view(self._layers_view.astype(np.uint32))
        return self._layers_view

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        for view in ("_view", "_layers_view"):  # views: rebuilt, not pickled as second copies
            del state[view]
            if view in state["_readonly_arrays"]:
                state["_readonly_arrays"].remove(view)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._set_views()

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
        query sees the change. Cells must lie on the map. A solid cell is on
        layer bit 1 only, an empty one on none (:meth:`set_layers` sets
        other bits).

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
        self._check_editable()
        self._check_on_map(cell_array)
        self._write(cell_array, values.astype(np.uint32))

    def set_layers(self, cells: Any, bits: Any) -> None:
        """Replace the layer bits of one cell ``(i, j)`` or of an ``(N, 2)`` array of cells.

        As :meth:`set_solid`, acceleration data (also that of each mask in
        use) is kept current. A cell is solid where its bits are not 0.

        Parameters
        ----------
        cells : (int, int) or array_like of int, shape (N, 2)
            Cells as ``(col, row)``.
        bits : int or array_like of int, shape (N,)
            New layer bits (``0 <= bits < 2**32``; a bool is bit 1), one for
            all cells or one per cell.

        Examples
        --------
        >>> from tilecast import Grid
        >>> grid = Grid([[0, 0, 0]])
        >>> grid.set_layers([[0, 0], [2, 0]], [1, 6])
        >>> grid.layers.tolist(), grid.solid.tolist()
        ([[1, 0, 6]], [[True, False, True]])
        """
        cell_array = as_cell_array("cells", cells)
        values = as_layer_bits("bits", bits, (len(cell_array),))
        self._check_editable()
        self._check_on_map(cell_array)
        self._write(cell_array, values)

    def _write(self, cells: np.ndarray, bits: np.ndarray) -> None:
        """Set checked cells to checked uint32 bits, as one edit."""
        if len(cells) == 0:
            return
        with self._editing():
            rows, cols = cells[:, 1], cells[:, 0]
            high = int(bits.max())
            if self._layers is None and high > 1:
                self._layers = self._solid.astype(_bits_type(high))
                self._set_views()
            elif self._layers is not None and high > np.iinfo(self._layers.dtype).max:
                self._layers = self._layers.astype(_bits_type(high))  # a new, wider array
                self._set_views()
            if self._layers is not None:
                self._layers[rows, cols] = bits
            self._solid[rows, cols] = bits != 0
            self._edited(cells)

    # ---------------------------------------------------------- masked views
    def _unfiltered_by(self, mask: int) -> bool:
        return self._layers is None and bool(mask & 1)

    def _filtered(self, mask: int) -> Grid:
        blocking = self._solid if self._layers is None else (self._layers & np.uint32(mask)) != 0
        if self._layers is None and not mask & 1:
            blocking = np.zeros_like(self._solid)
        return Grid(blocking, self._tile_size, self._origin, self._outside)

    def _refilter(self, view: World, mask: int, cells: np.ndarray) -> None:
        assert isinstance(view, Grid)
        rows, cols = cells[:, 1], cells[:, 0]
        bits = self._solid[rows, cols] if self._layers is None else self._layers[rows, cols]
        view._write(cells, ((bits & np.uint32(mask)) != 0).astype(np.uint32))


def adopt_cells(
    cells: np.ndarray, tile_size: Any, origin: Any, outside: str
) -> Grid:  # fmt: skip
    """Build a ``Grid`` that keeps ``cells`` itself, not a copy (for loaders that made it).

    ``cells``: a C-contiguous 2D bool or unsigned integer array no one else
    holds; as ``Grid(cells, tile_size, origin, outside)`` otherwise, with
    one copy fewer at the peak of a large load.
    """
    grid = Grid.__new__(Grid)
    grid._solid, grid._layers = _as_cells(cells, copy=False)
    grid._init_world(as_tile_size(tile_size), as_point("origin", origin),
                     as_choice("outside", outside, OUTSIDE_POLICIES))  # fmt: skip
    grid._set_views()
    return grid


def check_map(grid: Any, mask: Any = ALL_LAYERS) -> World:
    """Return ``grid`` if it is a ``Grid`` or ``TileMap``; wrap a 2D bool array in a ``Grid``.

    The check every map argument goes through (here, beside ``Grid``, so
    that :mod:`tilecast._validate` needs no map class). With a ``mask``
    (checked here, naming ``mask``), the map as that mask sees it
    (:meth:`World.masked`); the default costs one identity test.

    Raises ``TypeError`` naming ``grid`` for anything else.
    """
    if mask is not ALL_LAYERS:
        return check_map(grid).masked(mask)
    if isinstance(grid, World):
        return grid
    if isinstance(grid, np.ndarray) and grid.ndim == 2 and grid.dtype == np.bool_:
        if grid.size == 0:
            raise ValueError(f"grid must not be empty, got a bool array of shape {grid.shape}")
        return Grid(grid)
    raise TypeError(
        f"grid must be a tilecast.Grid, a TileMap or a 2D bool array, got {type(grid).__name__}"
    )
