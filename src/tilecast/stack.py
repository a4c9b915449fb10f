"""Many maps at once: ``GridStack``, B grids of one shape and geometry (DESIGN 22).

Reinforcement-learning and simulation users run hundreds of environments,
each with its own map. A ``GridStack`` holds their cells as one
``(B, rows, cols)`` array of collision-layer bits, and ``scan_many``,
``raycast_many`` and ``scan_likelihood`` take it where they take a ``Grid``:
one compiled call for every map, parallel across maps and rays, each map's
answers bit for bit the single-map call's on ``stack[b]``.

This module holds the maps and their edits; the batch calls live in
:mod:`tilecast.batch` and :mod:`tilecast.sensor`, the stacked clearance maps
in :mod:`tilecast._walkmap`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from tilecast._validate import (
    as_cell_array,
    as_choice,
    as_int,
    as_layer_bits,
    as_mask,
    as_point,
    as_tile_size,
)
from tilecast._walkspec import ALL_LAYERS
from tilecast.grid import Grid
from tilecast.world import OUTSIDE_POLICIES, Placed, readonly_view

__all__ = ["GridStack"]

_T = TypeVar("_T")


class GridStack(Placed):
    """B maps of one shape and geometry, queried together.

    Parameters
    ----------
    cells : array_like, shape (B, rows, cols)
        Each map's cells, ``cells[b, row, col]``: bool (True is layer bit 1)
        or non-negative integers below ``2**32`` (collision-layer bits; a
        cell blocks a query when ``bits & mask != 0``). A sequence of B 2D
        arrays of one shape is accepted too. Copied.
    tile_size : float or (float, float), default 1.0
        Tile width and height in world units, shared by every map.
    origin : (float, float), default (0.0, 0.0)
        World position of the corner of tile (0, 0) of every map.
    outside : {"empty", "solid"}, default "empty"
        What lies beyond every map (see :class:`~tilecast.Grid`).

    Notes
    -----
    ``stack[b]`` is a new :class:`~tilecast.Grid` holding a copy of map
    ``b``: edit the stack with :meth:`set_layers`, which keeps the stacked
    clearance maps current (only the changed map's are redone). The
    clearance maps are built on the first query, one per ``mask`` used.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import GridStack, scan_many
    >>> cells = np.zeros((2, 4, 4), bool)
    >>> cells[1, :, 3] = True  # a wall in the second map
    >>> stack = GridStack(cells, outside="solid")
    >>> len(stack), stack.shape
    (2, (2, 4, 4))
    >>> scan_many(stack, [[(0.5, 0.5, 0.0)], [(0.5, 0.5, 0.0)]], [0.0], 10.0).tolist()
    [[[3.5]], [[2.5]]]
    >>> stack.set_layers(1, (3, 0), 0)  # open the wall at row 0
    >>> scan_many(stack, [[(0.5, 0.5, 0.0)], [(0.5, 0.5, 0.0)]], [0.0], 10.0).tolist()
    [[[3.5]], [[3.5]]]
    """

    __slots__ = (
        "_accel",
        "_edit_lock",
        "_edit_seq",
        "_layers",
        "_layers_view",
        "_origin",
        "_outside",
        "_snapshots",
        "_tile_size",
        "_version",
    )

    def __init__(
        self,
        cells: Any,
        tile_size: float | tuple[float, float] = 1.0,
        origin: tuple[float, float] = (0.0, 0.0),
        outside: str = "empty",
    ) -> None:
        layers = as_layer_bits("cells", _stacked(cells))
        if layers.ndim != 3:
            raise ValueError(f"cells must have 3 dimensions (B, rows, cols), got shape "
                             f"{layers.shape}")  # fmt: skip
        if layers.size == 0:
            raise ValueError(f"cells must not be empty, got shape {layers.shape}")
        self._layers = layers  # a copy (as_layer_bits)
        self._layers_view = readonly_view(self._layers)
        self._tile_size = as_tile_size(tile_size)
        self._origin = as_point("origin", origin)
        self._outside = as_choice("outside", outside, OUTSIDE_POLICIES)
        self._version = 0
        self._accel: dict[int, Any] = {}  # per mask: (solid, clearance), built on first use
        self._snapshots: dict[Any, tuple[int, Any]] = {}  # key: (version, value)
        self._edit_lock = threading.RLock()
        self._edit_seq = 0

    # ------------------------------------------------------------------ basics
    def __len__(self) -> int:
        return int(self._layers.shape[0])

    def __getitem__(self, b: Any) -> Grid:
        """Map ``b`` as a new :class:`~tilecast.Grid` (a copy: edits go through the stack)."""
        index = self._map_index("b", b, IndexError)  # IndexError ends iteration
        return Grid(self._layers[index], self._tile_size, self._origin, self._outside)

    def __repr__(self) -> str:
        count, rows, cols = self.shape
        return (
            f"GridStack({count} maps of {rows}x{cols}, tile_size={self._tile_size}, "
            f"origin={self._origin}, outside={self._outside!r})"
        )

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(B, rows, cols)``: the number of maps and each map's shape."""
        count, rows, cols = self._layers.shape
        return (count, rows, cols)

    @property
    def layers(self) -> NDArray[np.uint32]:
        """Read-only uint32 ``(B, rows, cols)``: each cell's collision-layer bits."""
        return self._layers_view

    @property
    def solid(self) -> NDArray[np.bool_]:
        """Bool ``(B, rows, cols)``: ``layers != 0`` (a new array)."""
        solid: NDArray[np.bool_] = self._layers != 0
        return solid

    def _map_index(self, name: str, b: Any, error: type[Exception] = ValueError) -> int:
        index = as_int(name, b, -len(self))
        if index >= len(self):
            raise error(f"{name} must be a map index below {len(self)}, got {index}")
        return index % len(self)

    # ----------------------------------------------------------------- edits
    def set_layers(self, b: Any, cells: Any, bits: Any) -> None:
        """Set the layer bits of one cell ``(i, j)`` or of ``(N, 2)`` cells of map ``b``.

        The bits replace the cells' bits. Acceleration data built for the
        stack is updated too (only map ``b``'s), so the next query sees the
        change. Cells must lie on the map.

        Parameters
        ----------
        b : int
            The map (negative counts from the end).
        cells : (int, int) or array_like of int, shape (N, 2)
            Cells as ``(col, row)``.
        bits : bool or int, or array_like of them, shape (N,)
            New bits (True is bit 1, False 0), one value for all or one per cell.

        Examples
        --------
        >>> from tilecast import GridStack
        >>> stack = GridStack([[[0, 0, 0]], [[0, 0, 0]]])
        >>> stack.set_layers(1, [[0, 0], [2, 0]], [1, 6])
        >>> stack.layers.tolist()
        [[[0, 0, 0]], [[1, 0, 6]]]
        """
        index = self._map_index("b", b)
        cell_array = as_cell_array("cells", cells)
        values = as_layer_bits("bits", bits, (len(cell_array),))
        _, rows, cols = self.shape
        i, j = cell_array[:, 0], cell_array[:, 1]
        off_map = (i < 0) | (i >= cols) | (j < 0) | (j >= rows)
        if off_map.any():
            bad = cell_array[np.argmax(off_map)]
            raise ValueError(f"cells must lie on the {rows}x{cols} map, got cell {tuple(bad)}")
        if len(cell_array) == 0:
            return
        with self._editing():
            self._layers[index, j, i] = values
            self._version += 1
            for mask, data in self._accel.items():
                data.update(self._layers, mask, index, cell_array)

    # ---------------------------------------------------- what queries read
    def walk_maps(self, mask: int = ALL_LAYERS) -> Any:
        """Return the stacked clearance maps for ``mask`` (built on first use, kept current).

        An internal of the batch calls: a ``_walkmap.StackClearance``.

        Examples
        --------
        >>> from tilecast import GridStack
        >>> GridStack([[[0, 2]]]).walk_maps(mask=1).solid.tolist()
        [[[False, False]]]
        """
        mask = as_mask(mask)
        data = self._accel.get(mask)
        if data is None:
            from tilecast._walkmap import StackClearance

            with self._edit_lock:
                data = self._accel.get(mask)
                if data is None:
                    data = StackClearance(self._layers, mask, self._outside == "solid")
                    self._accel[mask] = data
        return data

    def snapshot(self, key: Any, build: Callable[[GridStack], _T]) -> _T:
        """Return data made from one state of the stack, rebuilt on first use after each edit.

        As :meth:`World.snapshot <tilecast.World.snapshot>`: ``build(self)``
        runs with no edit in progress and its value is kept until
        :attr:`version` moves (the GPU calls keep their device copies so).

        Examples
        --------
        >>> from tilecast import GridStack
        >>> stack = GridStack([[[0, 0]]])
        >>> stack.snapshot("cells seen", lambda s: int(s.solid.sum()))
        0
        >>> stack.set_layers(0, (1, 0), 1)
        >>> stack.snapshot("cells seen", lambda s: int(s.solid.sum()))
        1
        """
        cached = self._snapshots.get(key)
        if cached is not None and cached[0] == self._version and not self._edit_seq & 1:
            return cached[1]  # type: ignore[no-any-return]
        with self._edit_lock:
            value = build(self)
            self._snapshots[key] = (self._version, value)
            return value

    def map_for(self, b: int, mask: int) -> Grid:
        """Return map ``b`` as a new ``Grid`` of the cells that block ``mask``.

        Examples
        --------
        >>> from tilecast import GridStack
        >>> GridStack([[[1, 2, 3]]]).map_for(0, 2).solid.tolist()
        [[False, True, True]]
        """
        return Grid((self._layers[b] & np.uint32(mask)) != 0, self._tile_size, self._origin,
                    self._outside)  # fmt: skip

    def __getstate__(self) -> dict[str, Any]:
        return {
            "layers": self._layers,
            "tile_size": self._tile_size,
            "origin": self._origin,
            "outside": self._outside,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        GridStack.__init__(
            self, state["layers"], state["tile_size"], state["origin"], state["outside"]
        )


def _stacked(cells: Any) -> Any:
    """``cells`` as one array; a sequence of 2D maps of mixed shapes is an error naming them."""
    if isinstance(cells, list | tuple) and cells:
        shapes = [np.shape(c) for c in cells]
        for b, shape in enumerate(shapes):
            if len(shape) != 2:
                raise ValueError(f"cells[{b}] must be a 2D map (rows, cols), got shape {shape}")
            if shape != shapes[0]:
                raise ValueError(
                    f"cells: the maps of a stack must have one shape, got {shapes[0]} for "
                    f"cells[0] and {shape} for cells[{b}]"
                )
    return cells
