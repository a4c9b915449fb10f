"""Pixel-perfect tiles: solidity masks from tileset images, flips, tile maps.

A :class:`TileSet` holds one boolean mask per tile (``masks[k][py, px]``,
True where the pixel is solid), usually read from the alpha channel of a
tileset image. A :class:`TileMap` places tiles on a grid of cells, each
possibly flipped as Tiled flips them. The ray functions of
:mod:`tilecast.rays` accept a ``TileMap`` wherever they accept a ``Grid``
and stop on the first solid *pixel*; the answer is by construction the one the
fully expanded pixel grid (:meth:`TileMap.to_pixel_grid`) gives.

Flat representation (what a compiled kernel consumes)
-----------------------------------------------------
Everything a ray walk needs is held in a few C-contiguous arrays on the
``TileMap`` (all read-only views):

``tile_ids`` : int32 (rows, cols)
    The tile id per cell, ``empty`` where there is no tile.
``flips`` : uint8 (rows, cols)
    Flip flags per cell (1 horizontal, 2 vertical, 4 diagonal), 0 on empty cells.
``cell_variant`` : int32 (rows, cols)
    Index into the variant tables below, -1 where the cell has no tile.
``variant_masks`` : bool (V, th, tw)
    The mask *as displayed* (flips applied) of every (tile id, flips) pair the
    map uses; ``variant_masks[v][py, px]``. Flips are therefore resolved once
    per pair, never per cell or per ray.
``variant_kinds`` : uint8 (V,)
    0 when the variant has no solid pixel, 1 when every pixel is solid, 2 when
    mixed (:data:`EMPTY`, :data:`FULL`, :data:`MIXED`).
``cell_kinds`` : uint8 (rows, cols)
    ``variant_kinds[cell_variant]``, 0 on cells without a tile: the tile-level
    map a two-level walk reads first.

The pixel grid is ``cols * tw`` by ``rows * th`` pixels of world size
``pixel_size = (w / tw, h / th)`` (float64 divisions); pixel ``(P, Q)`` lies in
cell ``(P // tw, Q // th)`` at ``(P % tw, Q % th)`` inside the tile.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilecast._validate import (
    as_cell,
    as_cell_array,
    as_choice,
    as_finite_float,
    as_int,
    as_int_array,
    as_layer_bits,
    as_pixel_size,
    as_point,
    as_tile_size,
    tile_coordinates,
)
from tilecast.grid import Grid
from tilecast.world import OUTSIDE_POLICIES, World, readonly_view

__all__ = [
    "EMPTY",
    "FLIP_DIAGONAL",
    "FLIP_HORIZONTAL",
    "FLIP_VERTICAL",
    "FULL",
    "MIXED",
    "TileMap",
    "TileSet",
    "flip_mask",
]

FLIP_HORIZONTAL = 1
FLIP_VERTICAL = 2
FLIP_DIAGONAL = 4

EMPTY = 0
FULL = 1
MIXED = 2


# ------------------------------------------------------------------- helpers
def flip_mask(mask: Any, flips: int) -> np.ndarray:
    """Return a tile mask as displayed with Tiled's flip flags.

    The diagonal flip (a transpose: swap x and y) is applied first, then the
    horizontal flip (mirror left-right), then the vertical one (mirror
    top-bottom), as Tiled does. Diagonal + horizontal is a 90 degree clockwise
    rotation (with y pointing down).

    Parameters
    ----------
    mask : array_like of bool, shape (th, tw)
        ``mask[py, px]``.
    flips : int
        Bit flags: 1 horizontal, 2 vertical, 4 diagonal.

    Returns
    -------
    numpy.ndarray
        A new array; shape ``(tw, th)`` when the diagonal flag is set.

    Examples
    --------
    >>> from tilecast.tiles import flip_mask
    >>> m = [[1, 0, 0],
    ...      [1, 1, 0]]
    >>> flip_mask(m, 1).astype(int).tolist()  # horizontal
    [[0, 0, 1], [0, 1, 1]]
    >>> flip_mask(m, 2).astype(int).tolist()  # vertical
    [[1, 1, 0], [1, 0, 0]]
    >>> flip_mask(m, 4).astype(int).tolist()  # diagonal (transpose)
    [[1, 1], [0, 1], [0, 0]]
    >>> flip_mask(m, 5).astype(int).tolist()  # diagonal then horizontal: 90 degrees clockwise
    [[1, 1], [1, 0], [0, 0]]
    """
    if isinstance(flips, bool) or not isinstance(flips, int | np.integer) or not 0 <= flips < 8:
        raise ValueError(f"flips must be an integer in 0..7, got {flips!r}")
    out = np.asarray(mask)
    if out.ndim != 2:
        raise ValueError(f"mask must be 2D (th, tw), got {out.ndim} dimensions")
    if flips & FLIP_DIAGONAL:
        out = out.T
    if flips & FLIP_HORIZONTAL:
        out = out[:, ::-1]
    if flips & FLIP_VERTICAL:
        out = out[::-1, :]
    return np.array(out, copy=True)


def _kinds_of(masks: np.ndarray) -> np.ndarray:
    """Per-mask kind: EMPTY, FULL or MIXED."""
    flat = masks.reshape(len(masks), -1)
    kinds = np.full(len(masks), MIXED, dtype=np.uint8)
    kinds[~flat.any(axis=1)] = EMPTY
    kinds[flat.all(axis=1)] = FULL
    return kinds


# ------------------------------------------------------------------- TileSet
class TileSet:
    """Solidity masks of a set of equally sized tiles.

    Parameters
    ----------
    masks : array_like of bool, shape (K, th, tw)
        ``masks[k][py, px]`` is True where pixel ``(px, py)`` of tile ``k`` is
        solid. Integer arrays are accepted (nonzero is solid). Copied.
    layers : int or array_like of int, shape (K,), optional
        The collision layers (DESIGN 20) each tile's solid pixels are on: a
        bit field in ``[1, 2**32)`` per tile, or one for all; default 1. A
        query with ``mask`` stops on a tile's pixels when
        ``layers[k] & mask != 0``.

    Attributes
    ----------
    masks : numpy.ndarray
        Read-only bool array ``(K, th, tw)``.
    layers : numpy.ndarray
        Read-only uint32 ``(K,)``.
    tile_size : (int, int)
        ``(tw, th)``: tile width and height in pixels (need not be square).
    kinds : numpy.ndarray
        uint8 ``(K,)``: 0 no solid pixel, 1 all pixels solid, 2 mixed.

    See Also
    --------
    TileSet.from_image : masks from the alpha channel of a tileset image.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import TileSet
    >>> slope = np.tril(np.ones((4, 4), dtype=bool))  # solid below the diagonal
    >>> tiles = TileSet([np.zeros((4, 4), bool), np.ones((4, 4), bool), slope])
    >>> len(tiles), tiles.tile_size, tiles.kinds.tolist()
    (3, (4, 4), [0, 1, 2])
    >>> tiles.masks[2].astype(int).tolist()[1]
    [1, 1, 0, 0]
    >>> TileSet(np.ones((2, 4, 4), bool), layers=[1, 2]).layers.tolist()  # wall, glass
    [1, 2]
    """

    __slots__ = ("_kinds", "_layers", "_masks", "_one_layer")

    def __init__(self, masks: Any, layers: Any = 1) -> None:
        try:
            array = np.asarray(masks)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"masks must be an array of shape (K, th, tw): {exc}") from None
        if array.dtype != np.bool_:
            if not np.issubdtype(array.dtype, np.integer):
                raise TypeError(
                    f"masks must hold bool (or integers, nonzero = solid), got dtype {array.dtype}"
                )
            array = array != 0
        if array.ndim != 3:
            raise ValueError(
                f"masks must have shape (K, th, tw) (one 2D mask per tile), got {array.shape}"
            )
        if 0 in array.shape:
            raise ValueError(f"masks must not be empty, got shape {array.shape}")
        self._masks = readonly_view(np.array(array, dtype=np.bool_, order="C", copy=True))
        self._kinds = readonly_view(_kinds_of(self._masks))
        bits = as_layer_bits("layers", layers, (len(array),))
        if (bits == 0).any():
            raise ValueError(
                f"layers must be at least 1 for every tile (a tile that never blocks has an "
                f"all-clear mask), got 0 for tile {int(np.argmax(bits == 0))}"
            )
        self._layers = readonly_view(bits)
        self._one_layer = bool((bits == 1).all())

    @property
    def masks(self) -> np.ndarray:
        """Read-only bool masks ``(K, th, tw)``, ``masks[k][py, px]``."""
        return self._masks

    @property
    def tile_size(self) -> tuple[int, int]:
        """``(tw, th)``: tile width and height in pixels."""
        return (int(self._masks.shape[2]), int(self._masks.shape[1]))

    @property
    def kinds(self) -> np.ndarray:
        """uint8 ``(K,)``: 0 no solid pixel, 1 all solid, 2 mixed."""
        return self._kinds

    @property
    def layers(self) -> np.ndarray:
        """uint32 ``(K,)``: the collision layers of each tile's solid pixels."""
        return self._layers

    def __len__(self) -> int:
        return int(self._masks.shape[0])

    def __repr__(self) -> str:
        tw, th = self.tile_size
        return f"TileSet({len(self)} tiles of {tw}x{th} pixels)"

    def mask(self, tile_id: int, flips: int = 0) -> np.ndarray:
        """Return the mask of one tile as displayed with ``flips`` (see :func:`flip_mask`).

        Examples
        --------
        >>> from tilecast import TileSet
        >>> tiles = TileSet([[[1, 0, 0]]])
        >>> tiles.mask(0, flips=1).astype(int).tolist()
        [[0, 0, 1]]
        """
        k = as_int("tile_id", tile_id, 0)
        if k >= len(self):
            raise ValueError(f"tile_id must be below the tile count {len(self)}, got {k}")
        tw, th = self.tile_size
        if isinstance(flips, int | np.integer) and flips & FLIP_DIAGONAL and tw != th:
            raise ValueError(f"flips: the diagonal flip needs square tiles, these are {tw}x{th}")
        return flip_mask(self._masks[k], flips)

    @classmethod
    def from_image(
        cls,
        image: Any,
        tile_size: Any,
        alpha_threshold: float = 0,
        *,
        margin: int = 0,
        spacing: int = 0,
        color_key: tuple[int, int, int] | None = None,
        layers: Any = 1,
    ) -> TileSet:
        """Cut a tileset image into tiles and read each pixel's solidity.

        A pixel is solid when its alpha is greater than ``alpha_threshold``
        (and, with ``color_key``, its colour is not the key colour). Tiles are
        numbered from 0 in reading order: left to right, then top to bottom.
        Leftover pixels at the right and bottom (an image size that is not a
        whole number of tiles) are ignored, as Tiled does.

        Parameters
        ----------
        image : str, os.PathLike, PIL.Image.Image or numpy.ndarray
            A path to an image file, a Pillow image, or an ``(H, W, 4)`` RGBA
            array (``(H, W, 3)`` RGB with ``color_key``). Reading a file or a
            Pillow image needs Pillow (``pip install tilecast[image]``); an
            array does not.
        tile_size : int or (int, int)
            Tile width and height in pixels.
        alpha_threshold : float, default 0
            Solid when ``alpha > alpha_threshold`` (in the image's units, 0-255
            for 8-bit images).
        margin : int, default 0
            Pixels around the tiles at the image border (Tiled's ``margin``).
        spacing : int, default 0
            Pixels between tiles (Tiled's ``spacing``).
        color_key : (int, int, int), optional
            A colour treated as transparent (Tiled's ``trans``): needed for
            images without alpha, where every other pixel is solid.
        layers : int or array_like of int, default 1
            The tiles' collision layers, as for :class:`TileSet`.

        Returns
        -------
        TileSet

        Raises
        ------
        ValueError
            When the image has no alpha channel and no ``color_key`` is given,
            or no whole tile fits in it.
        ImportError
            When Pillow is needed and missing.

        Examples
        --------
        >>> import numpy as np
        >>> from tilecast import TileSet
        >>> rgba = np.zeros((2, 4, 4), dtype=np.uint8)  # two 2x2 tiles side by side
        >>> rgba[1, :, 3] = 255  # bottom row opaque
        >>> rgba[0, 3, 3] = 128
        >>> tiles = TileSet.from_image(rgba, 2)
        >>> tiles.masks.astype(int).tolist()
        [[[0, 0], [1, 1]], [[0, 1], [1, 1]]]
        >>> TileSet.from_image(rgba, 2, alpha_threshold=128).kinds.tolist()
        [2, 2]
        """
        tw, th = as_pixel_size("tile_size", tile_size)
        threshold = as_finite_float("alpha_threshold", alpha_threshold)
        margin = as_int("margin", margin, 0)
        spacing = as_int("spacing", spacing, 0)
        key = None
        if color_key is not None:
            key = np.asarray(color_key)
            if key.shape != (3,) or not np.issubdtype(key.dtype, np.integer):
                raise ValueError(f"color_key must be three integers (r, g, b), got {color_key!r}")
        from tilecast.io.image import read_rgb_alpha

        rgb, alpha = read_rgb_alpha(image, need_alpha=key is None)
        solid = np.ones(rgb.shape[:2], dtype=bool) if alpha is None else alpha > threshold
        if key is not None:
            solid &= ~np.all(rgb == key, axis=2)
        height, width = solid.shape
        cols = (width - 2 * margin + spacing) // (tw + spacing)
        rows = (height - 2 * margin + spacing) // (th + spacing)
        if cols <= 0 or rows <= 0:
            raise ValueError(
                f"image: no whole {tw}x{th} tile fits in {width}x{height} pixels "
                f"(margin={margin}, spacing={spacing})"
            )
        masks = np.empty((rows * cols, th, tw), dtype=bool)
        for row in range(rows):
            y = margin + row * (th + spacing)
            for col in range(cols):
                x = margin + col * (tw + spacing)
                masks[row * cols + col] = solid[y : y + th, x : x + tw]
        return cls(masks, layers)


# ------------------------------------------------------------------- TileMap
class TileMap(World):
    """A grid of cells, each holding a (possibly flipped) tile of a :class:`TileSet`.

    Parameters
    ----------
    tile_ids : array_like of int, shape (rows, cols)
        Tile id per cell, ``tile_ids[row, col]``; ids index the tileset from 0.
    tileset : TileSet
        The tiles' solidity masks.
    tile_size : float or (float, float), optional
        World size ``(w, h)`` of one tile. None (default): one pixel is one
        world unit, so a tile is ``tileset.tile_size`` units.
    origin : (float, float), default (0, 0)
        World position of the corner of cell (0, 0).
    flips : array_like of int, shape (rows, cols), optional
        Bit flags per cell: 1 horizontal, 2 vertical, 4 diagonal (transpose),
        applied diagonal first, then horizontal, then vertical, as Tiled does.
        The diagonal flip needs square tiles.
    empty : int, default -1
        The id that marks a cell without a tile.
    outside : {"empty", "solid"}, default "empty"
        What lies beyond the map, as for :class:`~tilecast.Grid`.

    Notes
    -----
    A ray on a tile map stops on the first solid *pixel* and gives the same
    answer as on :meth:`to_pixel_grid`; see the module docstring for the flat
    arrays a compiled kernel reads.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import TileMap, TileSet, raycast
    >>> slope = np.tril(np.ones((4, 4), dtype=bool))  # solid at and below the diagonal
    >>> tmap = TileMap([[-1, 0, 0]], TileSet([slope]), flips=[[0, 0, 1]])
    >>> tmap.shape, tmap.tile_size, tmap.pixel_size
    ((1, 3), (4.0, 4.0), (1.0, 1.0))
    >>> tmap.is_point_solid((4.5, 3.5)), tmap.is_point_solid((6.5, 0.5))
    (True, False)
    >>> hit = raycast(tmap, (0.5, 2.5), (1.0, 0.0))
    >>> hit.point, hit.cell, hit.pixel
    ((4.0, 2.5), (1, 0), (0, 2))
    >>> tmap.to_grid().solid.tolist()
    [[False, True, True]]
    """

    __slots__ = (
        "_cell_kinds",
        "_cell_variant",
        "_empty",
        "_flips",
        "_solid_cells",
        "_tile_ids",
        "_tileset",
        "_variant_keys",
        "_variant_kinds",
        "_variant_masks",
    )

    def __init__(
        self,
        tile_ids: Any,
        tileset: TileSet,
        tile_size: float | tuple[float, float] | None = None,
        origin: tuple[float, float] = (0, 0),
        flips: Any = None,
        empty: int = -1,
        outside: str = "empty",
    ) -> None:
        if not isinstance(tileset, TileSet):
            raise TypeError(f"tileset must be a tilecast.TileSet, got {type(tileset).__name__}")
        self._tileset = tileset
        if isinstance(empty, bool | np.bool_) or not isinstance(empty, int | np.integer):
            raise TypeError(f"empty must be an integer, got {type(empty).__name__}")
        self._empty = int(empty)
        ids = as_int_array("tile_ids", tile_ids)
        present = ids != self._empty
        bad = present & ((ids < 0) | (ids >= len(tileset)))
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise ValueError(
                f"tile_ids: unknown tile id {ids[row, col]} at (col, row) = ({col}, {row}); "
                f"the tileset has {len(tileset)} tiles (0..{len(tileset) - 1}) "
                f"and empty is {self._empty}"
            )
        if self._empty not in range(-(2**31), 2**31):
            raise ValueError(f"empty must fit in int32, got {self._empty}")
        self._tile_ids = np.array(np.where(present, ids, self._empty), dtype=np.int32, order="C")
        self._flips = np.zeros(ids.shape, dtype=np.uint8)
        if flips is not None:
            flip_array = as_int_array("flips", flips, ids.shape)
            self._flips[...] = self._checked_flips(flip_array, present)
        self._init_world(
            self._world_tile_size(tile_size),
            as_point("origin", origin),
            as_choice("outside", outside, OUTSIDE_POLICIES),
        )
        self._rebuild_variants()

    def _checked_flips(self, flips: np.ndarray, present: np.ndarray) -> np.ndarray:
        bad = (flips < 0) | (flips > 7)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise ValueError(
                f"flips must hold bit flags 0..7 (1 horizontal, 2 vertical, 4 diagonal), "
                f"got {flips[row, col]} at (col, row) = ({col}, {row})"
            )
        tw, th = self._tileset.tile_size
        diagonal = (flips & FLIP_DIAGONAL).astype(bool) & present
        if tw != th and diagonal.any():
            row, col = np.argwhere(diagonal)[0]
            raise ValueError(
                f"flips: the diagonal flip (4) needs square tiles, these are {tw}x{th} "
                f"(at (col, row) = ({col}, {row}))"
            )
        return np.where(present, flips, 0)

    def _world_tile_size(self, tile_size: Any) -> tuple[float, float]:
        if tile_size is None:
            tw, th = self._tileset.tile_size
            return (float(tw), float(th))
        return as_tile_size(tile_size)

    def _rebuild_variants(self) -> None:
        """Derive the flat variant tables from ``tile_ids`` and ``flips``."""
        present = self._tile_ids != self._empty
        keys = self._tile_ids.astype(np.int64) * 8 + self._flips
        used = np.unique(keys[present])
        masks = self._tileset.masks
        tw, th = self._tileset.tile_size
        variant_masks = np.empty((len(used), th, tw), dtype=bool)
        for v, key in enumerate(used.tolist()):
            variant_masks[v] = flip_mask(masks[key // 8], key % 8)
        variant_kinds = _kinds_of(variant_masks) if len(used) else np.zeros(0, np.uint8)
        cell_variant = np.full(self._tile_ids.shape, -1, dtype=np.int32)
        cell_variant[present] = np.searchsorted(used, keys[present])
        cell_kinds = np.zeros(self._tile_ids.shape, dtype=np.uint8)
        cell_kinds[present] = variant_kinds[cell_variant[present]]
        self._variant_keys = readonly_view(used)
        self._variant_masks = readonly_view(variant_masks)
        self._variant_kinds = readonly_view(variant_kinds)
        self._cell_variant = readonly_view(cell_variant)
        self._cell_kinds = readonly_view(cell_kinds)
        self._solid_cells = readonly_view(cell_kinds != EMPTY)

    # ------------------------------------------------------------------ basics
    @property
    def tileset(self) -> TileSet:
        """The :class:`TileSet` the ids refer to."""
        return self._tileset

    @property
    def tile_ids(self) -> np.ndarray:
        """Read-only int32 tile ids ``[row, col]`` (``empty`` where no tile)."""
        return readonly_view(self._tile_ids)

    @property
    def flips(self) -> np.ndarray:
        """Read-only uint8 flip flags ``[row, col]`` (0 on empty cells)."""
        return readonly_view(self._flips)

    @property
    def empty(self) -> int:
        """The id that marks a cell without a tile."""
        return self._empty

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the map, in tiles."""
        rows, cols = self._tile_ids.shape
        return (rows, cols)

    @property
    def solid(self) -> np.ndarray:
        """Read-only bool ``(rows, cols)``: True where the cell's tile has a solid pixel.

        What cell queries (``fov``, :meth:`is_solid`) read; rays read the pixels.

        Examples
        --------
        >>> from tilecast import TileMap, TileSet
        >>> TileMap([[0, 1, -1]], TileSet([[[0, 0]], [[0, 1]]])).solid.tolist()
        [[False, True, False]]
        """
        return self._solid_cells

    @property
    def layers(self) -> np.ndarray:
        """uint32 ``(rows, cols)``: the layers of each cell's tile (0 where no tile); a new array.

        Examples
        --------
        >>> from tilecast import TileMap, TileSet
        >>> TileMap([[0, 1, -1]], TileSet([[[1]], [[1]]], layers=[1, 2])).layers.tolist()
        [[1, 2, 0]]
        """
        present = self._tile_ids != self._empty
        bits = np.zeros(self._tile_ids.shape, dtype=np.uint32)
        bits[present] = self._tileset.layers[self._tile_ids[present]]
        return readonly_view(bits)

    @property
    def tile_pixels(self) -> tuple[int, int]:
        """``(tw, th)``: pixels per tile (the tileset's tile size)."""
        return self._tileset.tile_size

    @property
    def pixel_size(self) -> tuple[float, float]:
        """World size of one pixel, ``(w / tw, h / th)`` in float64."""
        tw, th = self._tileset.tile_size
        return (self._tile_size[0] / tw, self._tile_size[1] / th)

    @property
    def cell_variant(self) -> np.ndarray:
        """int32 ``(rows, cols)``: index into :attr:`variant_masks`, -1 without a tile."""
        return self._cell_variant

    @property
    def cell_kinds(self) -> np.ndarray:
        """uint8 ``(rows, cols)``: 0 no solid pixel (or no tile), 1 all solid, 2 mixed."""
        return self._cell_kinds

    @property
    def variant_masks(self) -> np.ndarray:
        """Displayed bool mask ``(V, th, tw)`` of each (tile id, flips) pair in use."""
        return self._variant_masks

    @property
    def variant_kinds(self) -> np.ndarray:
        """uint8 ``(V,)``: kind (0 empty, 1 full, 2 mixed) of each variant."""
        return self._variant_kinds

    @property
    def variant_keys(self) -> np.ndarray:
        """int64 ``(V,)``: ``tile_id * 8 + flips`` of each variant, ascending."""
        return self._variant_keys

    def __repr__(self) -> str:
        rows, cols = self.shape
        tw, th = self.tile_pixels
        return (
            f"TileMap({rows}x{cols} tiles of {tw}x{th} pixels, tile_size={self._tile_size}, "
            f"origin={self._origin}, outside={self._outside!r})"
        )

    # -------------------------------------------------------------- queries
    def to_pixel_grid(self) -> Grid:
        """Return the fully expanded pixel-resolution :class:`~tilecast.Grid`.

        One cell per pixel, ``rows * th`` by ``cols * tw``, with tile size
        :attr:`pixel_size`, the same origin and the same ``outside``.

        Examples
        --------
        >>> from tilecast import TileMap, TileSet
        >>> tmap = TileMap([[0, -1, 0]], TileSet([[[1, 0], [0, 0]]]), flips=[[0, 0, 3]])
        >>> tmap.to_pixel_grid().solid.astype(int).tolist()
        [[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]]
        """
        rows, cols = self.shape
        tw, th = self.tile_pixels
        padded = np.concatenate([self._variant_masks, np.zeros((1, th, tw), dtype=bool)])
        blocks = padded[self._cell_variant]  # -1 picks the all-empty block
        pixels = blocks.transpose(0, 2, 1, 3).reshape(rows * th, cols * tw)
        return Grid(pixels, tile_size=self.pixel_size, origin=self._origin, outside=self._outside)

    def to_grid(self) -> Grid:
        """Return the tile-resolution :class:`~tilecast.Grid`: a tile is solid when any pixel is.

        Examples
        --------
        >>> from tilecast import TileMap, TileSet
        >>> TileMap([[0, 1, -1]], TileSet([[[0, 0]], [[0, 1]]])).to_grid().solid.tolist()
        [[False, True, False]]
        """
        return Grid(
            self.solid,
            tile_size=self._tile_size,
            origin=self._origin,
            outside=self._outside,
        )

    def pixel_solid(self, pixel: tuple[int, int]) -> bool:
        """Solidity of pixel ``(P, Q)`` of the expanded pixel grid (beyond the map: ``outside``).

        Examples
        --------
        >>> from tilecast import TileMap, TileSet
        >>> tmap = TileMap([[0, 0]], TileSet([[[1, 0]]]), flips=[[0, 1]])
        >>> [tmap.pixel_solid((p, 0)) for p in range(-1, 5)]
        [False, True, False, False, True, False]
        """
        big_p, big_q = as_cell("pixel", pixel)
        tw, th = self._tileset.tile_size
        i, px = divmod(big_p, tw)
        j, py = divmod(big_q, th)
        if not (0 <= i < self._tile_ids.shape[1] and 0 <= j < self._tile_ids.shape[0]):
            return self._outside == "solid"
        kind = self._cell_kinds[j, i]
        if kind != MIXED:
            return bool(kind == FULL)
        return bool(self._variant_masks[self._cell_variant[j, i], py, px])

    def is_point_solid(self, point: Any) -> bool:
        """Return True when the world point lies in a solid pixel (beyond the map: ``outside``).

        The point is mapped to pixel space as the pixel grid maps it,
        ``((x - ox) / pw, (y - oy) / ph)``, and floored.

        Examples
        --------
        >>> from tilecast import TileMap, TileSet
        >>> tmap = TileMap([[0]], TileSet([[[1, 0]]]), tile_size=(2.0, 1.0))
        >>> tmap.is_point_solid((0.5, 0.5)), tmap.is_point_solid((1.5, 0.5))
        (True, False)
        """
        # the same conversion (and overflow check) as Grid.to_tile_space, on pixels
        u, v = tile_coordinates("point", as_point("point", point), self._origin, self.pixel_size)
        return self.pixel_solid((math.floor(u), math.floor(v)))

    # ----------------------------------------------------------------- edits
    def set_tile(self, cells: Any, tile_id: int, flips: int = 0) -> None:
        """Put one tile (or ``empty``) into one cell ``(i, j)`` or an ``(N, 2)`` array of cells.

        Examples
        --------
        >>> from tilecast import TileMap, TileSet
        >>> tmap = TileMap([[-1, -1]], TileSet([[[1, 0]]]))
        >>> tmap.set_tile((1, 0), 0, flips=1)
        >>> tmap.to_pixel_grid().solid.astype(int).tolist()
        [[0, 0, 0, 1]]
        """
        cell_array = as_cell_array("cells", cells)
        tile = as_int("tile_id", tile_id, -(2**31))
        flip = as_int("flips", flips, 0)
        if tile != self._empty and not 0 <= tile < len(self._tileset):
            raise ValueError(
                f"tile_id must be a tile of the tileset (0..{len(self._tileset) - 1}) "
                f"or empty ({self._empty}), got {tile}"
            )
        if flip > 7:
            raise ValueError(f"flips must be bit flags 0..7, got {flip}")
        tw, th = self._tileset.tile_size
        if flip & FLIP_DIAGONAL and tw != th and tile != self._empty:
            raise ValueError(f"flips: the diagonal flip needs square tiles, these are {tw}x{th}")
        self._check_editable()
        self._check_on_map(cell_array)
        self._write(cell_array, tile, 0 if tile == self._empty else flip)

    def _write(self, cells: np.ndarray, tiles: Any, flips: Any) -> None:
        """Put checked tile ids and flips (scalars or one per cell) into checked cells."""
        if len(cells) == 0:
            return
        cols, rows = cells[:, 0], cells[:, 1]
        with self._editing():
            # new arrays, never changed in place: a query running meanwhile
            # (a batch releases the GIL) keeps reading the map before the edit
            tile_ids = self._tile_ids.copy()
            flip_array = self._flips.copy()
            tile_ids[rows, cols] = tiles
            flip_array[rows, cols] = flips
            self._tile_ids, self._flips = tile_ids, flip_array
            self._rebuild_variants()
            self._edited(cells)

    # ---------------------------------------------------------- masked views
    def _kept_tiles(self, tile_ids: np.ndarray, mask: int) -> np.ndarray:
        """``tile_ids`` with every tile whose layers miss ``mask`` made empty."""
        present = tile_ids != self._empty
        keep = present.copy()
        keep[present] = (self._tileset.layers[tile_ids[present]] & mask) != 0
        return np.where(keep, tile_ids, self._empty)

    def _unfiltered_by(self, mask: int) -> bool:
        return bool(mask & 1) and self._tileset._one_layer

    def _filtered(self, mask: int) -> TileMap:
        ids = self._kept_tiles(self._tile_ids, mask)
        flips = np.where(ids != self._empty, self._flips, 0)
        return TileMap(ids, self._tileset, self._tile_size, self._origin, flips,
                       self._empty, self._outside)  # fmt: skip

    def _refilter(self, view: World, mask: int, cells: np.ndarray) -> None:
        assert isinstance(view, TileMap)
        cols, rows = cells[:, 0], cells[:, 1]
        ids = self._kept_tiles(self._tile_ids[rows, cols], mask)
        view._write(cells, ids, np.where(ids != self._empty, self._flips[rows, cols], 0))
