"""What the compiled walk reads of a map, built once and kept current.

Every ray query hands the walk's kernels (:mod:`tilecast._kernels.walk`) one
record, a :class:`~tilecast._walkspec.WalkMap`: the padded per-quadrant tile
info map (on a ``Grid`` its clearance map), the variant of each tile and the
per-variant pixel clearance (on a ``Grid``: one-pixel tiles, never read),
with the outside, the jump threshold, the origin and the walk cell's size.
The arrays are built on first use, stored on the map, and kept current by
``Grid.set_solid`` / ``TileMap.set_tile``; the record is built once per map
state (:func:`walk_map`), so every call passes one of the same Numba type.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast._load import kernels
from tilecast._walkspec import MIXED_TILE, OFF_EMPTY, SOLID, WalkMap
from tilecast.grid import Grid, check_map
from tilecast.tiles import TileMap

__all__ = [
    "CLEARANCE_CAP",
    "StackClearance",
    "WalkMap",
    "clearance_map",
    "stack_walk_map",
    "tile_info_map",
    "walk_map",
]

#: Largest clearance stored per cell (a ray jumps at most this far at once).
#: A higher cap helps wide open maps but makes ``Grid.set_solid`` touch a
#: larger window around each changed cell.
CLEARANCE_CAP = 100
# On a grid, jump only from cells whose clearance is at least this: a jump
# costs a few exact comparisons, a plain step one. On a tile map any tile
# without solid pixels is worth jumping (it spans several pixels).
_GRID_JUMP_MIN = 2
_TILE_JUMP_MIN = 0
# Above this many changed cells, rebuild the clearance map from scratch.
_REBUILD_FRACTION = 0.02
# The variant and pixel tables of a grid (one-pixel tiles): never read.
_GRID_VARIANTS = np.zeros((1, 1), dtype=np.int32)
_GRID_PIXELS = np.zeros((4, 1, 1, 1), dtype=np.int8)


def fill_clearance(solid: NDArray[np.bool_], cap: int, outside_solid: bool,
                   accel: NDArray[np.int8]) -> None:  # fmt: skip
    """Fill the padded quadrant clearance map ``accel`` (4, rows + 2, cols + 2) of ``solid``.

    The padding ring is NumPy; each quadrant is one compiled pass
    (:func:`tilecast._kernels.maps.clearance_window`), called from here rather
    than from a compiled driver: one kernel fewer to compile on first use.
    """
    clearance_window = kernels("maps").clearance_window

    value = SOLID if outside_solid else OFF_EMPTY
    accel[:, [0, -1], :] = value
    accel[:, :, [0, -1]] = value
    rows, cols = solid.shape
    for q in range(4):
        clearance_window(solid, cap, q, 0, rows, 0, cols, accel)


class _Clearance:
    """The grid's quadrant clearance map, kept current by ``Grid.set_solid``."""

    __slots__ = ("cap", "values")

    def __init__(self, grid: Grid, cap: int) -> None:
        self.cap = cap
        rows, cols = grid.shape
        self.values = np.empty((4, rows + 2, cols + 2), dtype=np.int8)
        fill_clearance(grid.solid, cap, grid.outside == "solid", self.values)

    def update(self, grid: Grid, cells: NDArray[np.int64]) -> None:
        update_clearance = kernels("maps").update_clearance

        rows, cols = grid.shape
        if len(cells) > _REBUILD_FRACTION * rows * cols:
            fill_clearance(grid.solid, self.cap, grid.outside == "solid", self.values)
        else:
            update_clearance(grid.solid, self.cap, cells, self.values)


class StackClearance:
    """A ``GridStack``'s clearance maps for one mask, kept current by ``set_layers``.

    ``solid`` (B, rows, cols) bool: ``layers & mask != 0``; ``values``
    (B, 4, rows + 2, cols + 2) int8: map b's is ``clearance_map`` of a grid of
    ``solid[b]``, computed by the same kernels. ``maps`` is the
    :class:`~tilecast._walkspec.MapStack` the batch kernels read (``per_map``
    set per call), ``template`` the :class:`WalkMap` of map 0 (the geometry).
    """

    __slots__ = ("solid", "values")

    def __init__(self, layers: NDArray[Any], mask: int, outside_solid: bool) -> None:
        count, rows, cols = layers.shape
        self.solid = (layers & np.uint32(mask)) != 0
        self.values = np.empty((count, 4, rows + 2, cols + 2), dtype=np.int8)
        for b in range(count):
            fill_clearance(self._solid_of(b), CLEARANCE_CAP, outside_solid, self.values[b])

    def _solid_of(self, b: int) -> NDArray[np.bool_]:
        view: NDArray[np.bool_] = self.solid[b]
        view.flags.writeable = False  # as a grid's solid: one compiled signature
        return view

    def update(self, layers: NDArray[Any], mask: int, b: int, cells: NDArray[np.int64]) -> None:
        """Follow an edit of ``cells`` of map ``b`` (with the stack's edit lock held)."""
        update_clearance = kernels("maps").update_clearance

        i, j = cells[:, 0], cells[:, 1]
        self.solid[b, j, i] = (layers[b, j, i] & np.uint32(mask)) != 0
        _, rows, cols = self.solid.shape
        if len(cells) > _REBUILD_FRACTION * rows * cols:
            outside_solid = bool(self.values[b, 0, 0, 0] == SOLID)
            fill_clearance(self._solid_of(b), CLEARANCE_CAP, outside_solid, self.values[b])
        else:
            update_clearance(self._solid_of(b), CLEARANCE_CAP, cells, self.values[b])


class _TileInfo:
    """A tile map's tile info and pixel clearance maps, kept current by ``TileMap.set_tile``."""

    __slots__ = ("pixels", "values")

    def __init__(self, tilemap: TileMap) -> None:
        rows, cols = tilemap.shape
        self.values = np.empty((4, rows + 2, cols + 2), dtype=np.int8)
        self.pixels = np.empty((4, 0, 1, 1), dtype=np.int8)
        self.update(tilemap, np.empty((0, 2), dtype=np.int64))

    def update(self, tilemap: TileMap, cells: NDArray[np.int64]) -> None:
        # set_tile already redoes O(map) work (and may renumber the variants);
        # a compiled pass per quadrant is small beside it, so rebuild.
        build_pixel_clearance = kernels("maps").build_pixel_clearance

        values = np.empty_like(self.values)
        kinds = tilemap.cell_kinds  # 0 no solid pixel, 1 all solid, 2 mixed
        blocked = kinds != 0
        blocked.flags.writeable = False  # as a grid's solid: one compiled signature
        # the grid's clearance map of "tiles with any solid pixel", the mixed
        # tiles then marked MIXED_TILE (any negative value blocks squares alike)
        fill_clearance(blocked, CLEARANCE_CAP, tilemap.outside == "solid", values)
        values[:, 1:-1, 1:-1][:, kinds == 2] = MIXED_TILE
        masks = tilemap.variant_masks
        pixels = np.empty((4, *masks.shape), dtype=np.int8)
        build_pixel_clearance(masks, CLEARANCE_CAP, pixels)
        # swap in whole new arrays: a query running meanwhile keeps the old ones
        self.values = values
        self.pixels = pixels


def clearance_map(grid: Grid) -> NDArray[np.int8]:
    """Return the grid's quadrant clearance map (built on first use, then kept current).

    Shape ``(4, rows + 2, cols + 2)``, int8, padded with one ring of cells for
    what lies beyond the map (``-1`` when ``outside="solid"``, ``-2`` when
    empty). Entry ``[q, j + 1, i + 1]`` of an empty cell is the largest ``r``
    (at most :data:`CLEARANCE_CAP`) such that the square of cells
    ``[i, i + sx*r] x [j, j + sy*r]`` is empty and on the map, for the
    quadrant ``q = (sx < 0) + 2 * (sy < 0)``; ``-1`` for a solid cell.
    Building it costs one pass over the map per quadrant; after
    ``grid.set_solid`` only the cells whose squares hold a changed cell are
    redone.

    Examples
    --------
    >>> from tilecast import Grid
    >>> from tilecast.batch import clearance_map
    >>> clearance_map(Grid([[0, 0, 0, 1]], outside="solid"))[1, 1, 1:5].tolist()  # towards -x
    [0, 0, 0, -1]
    >>> clearance_map(Grid([[0, 0], [0, 0]]))[0, 1:3, 1:3].tolist()  # towards +x +y
    [[1, 0], [0, 0]]
    """
    data = grid.accelerator(("clearance", CLEARANCE_CAP), _new_clearance)
    values: NDArray[np.int8] = data.values
    return values


def _new_clearance(grid: Any) -> _Clearance:
    return _Clearance(grid, CLEARANCE_CAP)


def _tile_info(tilemap: TileMap) -> _TileInfo:
    return tilemap.accelerator("tile_info", _new_tile_info)


def _new_tile_info(tilemap: Any) -> _TileInfo:
    return _TileInfo(tilemap)


def tile_info_map(tilemap: TileMap) -> NDArray[np.int8]:
    """Return a tile map's per-quadrant tile info map (built on first use, then kept current).

    Shape ``(4, rows + 2, cols + 2)``, int8, padded with one ring of tiles for
    what lies beyond the map (``-1`` when ``outside="solid"``, ``-2`` when
    empty). Entry ``[q, j + 1, i + 1]`` is ``-1`` for a tile whose pixels are
    all solid, ``-3`` for a tile with solid and clear pixels, and for a tile
    without solid pixels the largest ``r`` (at most :data:`CLEARANCE_CAP`) such
    that the square of tiles ``[i, i + sx*r] x [j, j + sy*r]`` has no solid
    pixel and lies on the map, for the quadrant ``q = (sx < 0) + 2 * (sy < 0)``.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import TileMap, TileSet
    >>> from tilecast.batch import tile_info_map
    >>> tiles = TileSet([np.ones((2, 2), bool), [[1, 0], [0, 0]]])
    >>> tmap = TileMap([[-1, -1, 0, 1]], tiles)
    >>> tile_info_map(tmap)[0, 1].tolist()  # towards +x +y: one row, so no square beyond 0
    [-2, 0, 0, -1, -3, -2]
    >>> tmap.set_tile((2, 0), -1)
    >>> tile_info_map(tmap)[0, 1, 1:5].tolist()
    [0, 0, 0, -3]
    """
    return _tile_info(tilemap).values


def walk_map(grid: Any) -> tuple[WalkMap, bool]:
    """Return the walk's view of ``grid`` and whether it is a tile map.

    ``grid`` is a Grid, a TileMap or a 2D bool array.
    Cached on the map and rebuilt after each edit (the edit counter
    ``version`` tells). A raw array is wrapped in a ``Grid`` on every call,
    which costs a pass over it: keep a ``Grid`` for repeated queries.
    """
    kind = type(grid)
    if kind is not Grid and kind is not TileMap:
        grid = check_map(grid)
    # Built while no edit runs: every array of the view is of one state of the map.
    return grid.snapshot("walk_map", _build_walk_map)  # type: ignore[no-any-return]


def _build_walk_map(grid: Any) -> tuple[WalkMap, bool]:
    ox, oy = grid.origin
    view: WalkMap
    if isinstance(grid, TileMap):
        info = _tile_info(grid)
        pw, ph = grid.pixel_size
        # a writable copy: the walk is compiled for writable arrays only
        variants = np.array(grid.cell_variant, dtype=np.int32, order="C")
        view = WalkMap(info.values, variants, info.pixels, grid.outside == "solid",
                       _TILE_JUMP_MIN, ox, oy, pw, ph)  # fmt: skip
    else:
        w, h = grid.tile_size
        view = WalkMap(clearance_map(grid), _GRID_VARIANTS, _GRID_PIXELS,
                       grid.outside == "solid", _GRID_JUMP_MIN, ox, oy, w, h)  # fmt: skip
    return view, isinstance(grid, TileMap)


def stack_walk_map(stack: Any, data: StackClearance) -> WalkMap:
    """Return the :class:`WalkMap` of a stack's map 0.

    Its geometry; the lanes take each map's clearance from ``data.values``.
    """
    ox, oy = stack.origin
    w, h = stack.tile_size
    return WalkMap(data.values[0], _GRID_VARIANTS, _GRID_PIXELS, stack.outside == "solid",
                   _GRID_JUMP_MIN, ox, oy, w, h)  # fmt: skip
