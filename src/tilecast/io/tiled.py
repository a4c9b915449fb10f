"""Tiled maps: TMX (XML) and TMJ/JSON, read with the standard library.

Tile layers are decoded from every encoding Tiled writes (CSV, XML ``<tile>``
elements, base64 raw, zlib, gzip, and zstd with the optional package
``zstandard``), finite or infinite (chunks). Each global tile id (GID)
carries four flag bits, all masked off the id: horizontal flip
``0x80000000``, vertical ``0x40000000``, diagonal ``0x20000000`` and the
hexagonal 120-degree rotation ``0x10000000`` (ignored on orthogonal maps).
The first three become :class:`~tilecast.TileMap` flips 1, 2 and 4. A GID
belongs to the tileset with the largest ``firstgid`` not above it, as in
Tiled; tilesets without ``tilecount`` (older files) are bounded by their
image size when it is known.

World units are Tiled's pixels: the :class:`~tilecast.Grid` has ``tile_size``
``(tilewidth, tileheight)``, the TileMap one world unit per pixel, both with
y down and the origin at the map's top-left corner (an infinite map's
origin is its top-left chunk's corner), so object coordinates from the same
file can be used unchanged. Layer offsets and parallax are ignored.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tilecast._validate import as_choice, as_mask, as_path
from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, excerpt
from tilecast.io._shapes import Shape, outline, rasterise
from tilecast.io._tiled_read import TiledMap, TileLayer, Tileset, read_map
from tilecast.io.limits import Limits, as_limits

if TYPE_CHECKING:
    from tilecast.tiles import TileMap

__all__ = ["FLAG_BITS", "SOLID_PROPERTIES", "decode_gids", "load_tiled"]

FLIP_H, FLIP_V, FLIP_D, ROTATE_HEX = 0x80000000, 0x40000000, 0x20000000, 0x10000000
#: All four flag bits of a Tiled GID.
FLAG_BITS = FLIP_H | FLIP_V | FLIP_D | ROTATE_HEX
SOLIDITY = ("auto", "property", "collision", "alpha", "any")
RESULTS = ("grid", "tilemap")
#: Custom properties that mark a tile or a layer as solid (any of them, when true).
SOLID_PROPERTIES = ("solid", "collides", "collision", "collidable", "blocked", "wall")
#: Layer names that mean "this is the collision layer" (whole words, any case).
COLLISION_NAMES = re.compile(
    r"(?:^|[^a-z])(walls?|collisions?|collides?|collidable|colliders?|solids?|block(?:ed|ing|s)?"
    r"|obstacles?|obstructions?|physics)(?:[^a-z]|$)"
)
logger = logging.getLogger("tilecast")


def decode_gids(gids: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.uint8]]:
    """Split raw GIDs into ids (all four flag bits masked off) and TileMap flips.

    Examples
    --------
    >>> import numpy as np
    >>> ids, flips = decode_gids(np.array([0x80000005, 0x60000001, 0x10000002, 3], np.uint32))
    >>> ids.tolist(), flips.tolist()
    ([5, 1, 2, 3], [1, 6, 0, 0])
    """
    raw = np.asarray(gids, dtype=np.uint32)
    ids = (raw & np.uint32(~FLAG_BITS & 0xFFFFFFFF)).astype(np.int64)
    flips = (
        ((raw & FLIP_H) != 0) * 1 + ((raw & FLIP_V) != 0) * 2 + ((raw & FLIP_D) != 0) * 4
    ).astype(np.uint8)
    return ids, flips


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return value is True or (isinstance(value, int | float) and value == 1)


def _marked(props: dict[str, Any], names: Sequence[str]) -> bool | None:
    """True/False when a property among ``names`` says so, None when none is set."""
    found = [props[n] for n in names if n in props]
    if not found:
        return None
    return any(_truthy(v) for v in found)


# ------------------------------------------------------------- tilesets
def _tile_range(ts: Tileset) -> int | None:
    """How many local ids the tileset covers, or None when the file does not say."""
    if ts.collection:
        return None
    if ts.tilecount:
        return ts.tilecount
    if ts.image_size is not None:
        width, height = ts.image_size
        cols = (width - 2 * ts.margin + ts.spacing) // (ts.tilewidth + ts.spacing)
        rows = (height - 2 * ts.margin + ts.spacing) // (ts.tileheight + ts.spacing)
        return max(cols, 0) * max(rows, 0)
    if ts.tiles:  # the largest tile the file describes, at least
        return None
    return None


class _Tiles:
    """Finds the tileset and local id of every GID, and each tile's solid pixels."""

    def __init__(
        self,
        tmap: TiledMap,
        solidity: str | Collection[int],
        names: Sequence[str],
        alpha: float,
        limits: Limits,
    ) -> None:
        self.tmap, self.solidity, self.names, self.alpha, self.limits = (
            tmap,
            solidity,
            names,
            alpha,
            limits,
        )
        self.tilesets = sorted(tmap.tilesets, key=lambda ts: ts.firstgid)
        self.firstgids = np.array([ts.firstgid for ts in self.tilesets], dtype=np.int64)
        self._atlas: dict[int, NDArray[np.bool_]] = {}

    def locate(
        self, where: str, ids: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Tileset index and local id of each GID (ids > 0), checked against the tilesets."""
        self.limits.check(where, "max_tile_id", int(ids.max(initial=0)), "as the largest GID")
        if not self.tilesets:
            raise MapLoadError(f"{where}: tile GID {int(ids.max())} but the map has no tilesets")
        which = np.searchsorted(self.firstgids, ids, side="right") - 1
        if (which < 0).any():
            bad = int(ids[which < 0][0])
            raise MapLoadError(f"{where}: tile GID {bad} is not in any tileset")
        local = ids - self.firstgids[which]
        for k, ts in enumerate(self.tilesets):
            mine = local[which == k]
            if not len(mine):
                continue
            count = _tile_range(ts)
            if ts.collection:
                unknown = set(np.unique(mine).tolist()) - set(ts.tiles)
                if unknown:
                    bad = min(unknown) + ts.firstgid
                    raise MapLoadError(f"{where}: tile GID {bad} is not in any tileset")
            elif count is not None and int(mine.max()) >= count:
                bad = int(mine.max()) + ts.firstgid
                raise MapLoadError(
                    f"{where}: tile GID {bad} is not in any tileset ({ts.where} covers "
                    f"{ts.firstgid}..{ts.firstgid + count - 1})"
                )
        return which, local

    def mask(self, k: int, local: int) -> NDArray[np.bool_]:
        """Return the solid pixels of one tile, ``(tileheight, tilewidth)`` of its tileset."""
        ts = self.tilesets[k]
        info = ts.tiles.get(local)
        shape = (ts.tileheight, ts.tilewidth)
        if ts.collection and info is not None and info.size is not None:
            shape = (info.size[1], info.size[0])
        solidity = self.solidity
        if not isinstance(solidity, str):
            return np.full(shape, (ts.firstgid + local) in solidity, dtype=np.bool_)
        if solidity == "any":
            return np.ones(shape, dtype=np.bool_)
        if solidity == "property":
            marked = _marked(info.properties, self.names) if info is not None else None
            return np.full(shape, bool(marked), dtype=np.bool_)
        if solidity == "collision":
            if info is None or not info.shapes:
                return np.zeros(shape, dtype=np.bool_)
            return rasterise(info.shapes, shape[1], shape[0])
        return self._alpha_mask(k, ts, local)

    def bits(self, k: int, local: int, layer: int, tile_keys: Mapping[str, int],
             *, whole: bool) -> int:  # fmt: skip
        """Return one tile's collision bits: its keys' bits, else ``layer`` where it is solid."""
        info = self.tilesets[k].tiles.get(local)
        keyed = _tile_bits(info, tile_keys) if info is not None and tile_keys else 0
        if keyed and whole:
            return keyed
        if not self.mask(k, local).any():
            return 0
        return keyed or layer

    def _alpha_mask(self, k: int, ts: Tileset, local: int) -> NDArray[np.bool_]:
        from tilecast.io.image import read_rgba

        if ts.collection:
            info = ts.tiles[local]
            assert info.image is not None
            rgba = read_rgba(info.image, self.limits, f"{ts.where}: tile {local}")
            return _opaque(rgba, self.alpha, ts.trans, f"{ts.where}: tile {local}")
        masks = self.atlas(k)
        if local >= len(masks):
            return np.zeros((ts.tileheight, ts.tilewidth), dtype=np.bool_)
        mask: NDArray[np.bool_] = masks[local]
        return mask

    def atlas(self, k: int) -> NDArray[np.bool_]:
        """Return the solid pixels of every tile of an image tileset, cut from its image."""
        from tilecast.io.image import read_rgba

        ts = self.tilesets[k]
        if k not in self._atlas:
            if ts.image is None:
                raise MapLoadError(f"{ts.where}: solid='alpha' needs a tileset image")
            rgba = read_rgba(ts.image, self.limits, ts.where)
            solid = _opaque(rgba, self.alpha, ts.trans, ts.where)
            th, tw, m, s = ts.tileheight, ts.tilewidth, ts.margin, ts.spacing
            cols = (solid.shape[1] - 2 * m + s) // (tw + s)
            rows = (solid.shape[0] - 2 * m + s) // (th + s)
            if cols <= 0 or rows <= 0:
                raise MapLoadError(f"{ts.where}: no whole {tw}x{th} tile fits in its image")
            ys = m + np.arange(rows) * (th + s)
            xs = m + np.arange(cols) * (tw + s)
            cut = solid[
                ys[:, None, None, None] + np.arange(th)[None, None, :, None],
                xs[None, :, None, None] + np.arange(tw)[None, None, None, :],
            ]
            masks = cut.reshape(rows * cols, th, tw)
            self._atlas[k] = masks
        return self._atlas[k]


def _opaque(
    rgba: NDArray[np.uint8], alpha: float, trans: tuple[int, int, int] | None, where: str
) -> NDArray[np.bool_]:
    solid: NDArray[np.bool_] = rgba[:, :, 3] > alpha
    if trans is not None:
        solid &= ~np.all(rgba[:, :, :3] == np.array(trans, dtype=np.uint8), axis=2)
    elif bool((rgba[:, :, 3] == 255).all()):
        raise MapLoadError(
            f"{where}: the image has no alpha channel and no transparent colour ('trans'), "
            "so every pixel would be solid; use solid='any' or give the tileset a colour key"
        )
    return solid


def _auto_solidity(tmap: TiledMap, names: Sequence[str]) -> str:
    infos = [info for ts in tmap.tilesets for info in ts.tiles.values()]
    if any(_marked(info.properties, names) is not None for info in infos):
        return "property"
    if any(info.shapes for info in infos):
        return "collision"
    return "any"


# ----------------------------------------------------------------- layers
def _objects_to_cells(tmap: TiledMap, shapes: list[Shape], limits: Limits) -> NDArray[np.bool_]:
    """Cells whose pixels' centres lie in any shape (shapes in map pixels)."""
    tw, th = tmap.tilewidth, tmap.tileheight
    ox, oy = tmap.origin_cell[0] * tw, tmap.origin_cell[1] * th
    solid = np.zeros((tmap.rows, tmap.cols), dtype=np.bool_)
    for shape in shapes:
        ring = outline(shape)
        if ring is None:
            continue
        x0 = max(int(np.floor(ring[:, 0].min())) - ox, 0)
        y0 = max(int(np.floor(ring[:, 1].min())) - oy, 0)
        x1 = min(int(np.ceil(ring[:, 0].max())) - ox, tmap.cols * tw)
        y1 = min(int(np.ceil(ring[:, 1].max())) - oy, tmap.rows * th)
        if x1 <= x0 or y1 <= y0:
            continue
        limits.check(str(tmap.path), "max_pixels", (x1 - x0) * (y1 - y0), "pixels in one object")
        moved = Shape(
            shape.kind,
            shape.x - ox - x0,
            shape.y - oy - y0,
            shape.width,
            shape.height,
            shape.rotation,
            shape.points,
        )
        covered = rasterise([moved], x1 - x0, y1 - y0)
        py, px = np.nonzero(covered)
        solid[(py + y0) // th, (px + x0) // tw] = True
    return solid


def _find(tmap: TiledMap, name: str) -> tuple[str, TileLayer | Any]:
    """Return the one layer (tile or object) called ``name`` or ``group/name``."""
    layers: list[Any] = [*tmap.tile_layers, *tmap.object_layers]
    exact = [lay for lay in layers if lay.name == name]
    found = exact or [lay for lay in layers if lay.name.rsplit("/", 1)[-1] == name]
    if not found:
        listed = ", ".join(excerpt(lay.name) for lay in layers[:30])
        raise MapLoadError(f"{tmap.path}: no tile layer {name!r} (layers: {listed})")
    if len(found) > 1:
        raise MapLoadError(
            f"{tmap.path}: {len(found)} layers are named {name!r}; rename one in Tiled, "
            "or name it with its group as 'group/layer'"
        )
    return ("tile" if isinstance(found[0], TileLayer) else "object"), found[0]


def _as_layer_bits(layer_bits: Any) -> dict[str, int]:
    """Check ``layer_bits``: names to collision bits in ``[1, 2**32)``."""
    if layer_bits is None:
        return {}
    if not isinstance(layer_bits, Mapping) or not all(isinstance(k, str) for k in layer_bits):
        raise TypeError("layer_bits must map layer, tile class or property names to bits")
    checked = {}
    for key, bits in layer_bits.items():
        value = as_mask(bits, f"layer_bits[{key!r}]")
        if value == 0:
            raise ValueError(f"layer_bits[{key!r}] must be at least 1 (a collision layer bit)")
        checked[key] = value
    return checked


def _has_layer(tmap: TiledMap, name: str) -> bool:
    layers: list[Any] = [*tmap.tile_layers, *tmap.object_layers]
    return any(lay.name == name or lay.name.rsplit("/", 1)[-1] == name for lay in layers)


def _tile_bits(info: Any, tile_keys: Mapping[str, int]) -> int:
    """Return the bits of the ``layer_bits`` keys a tile's class or true properties name."""
    bits = 0
    for key, value in tile_keys.items():
        if info.kind == key or _truthy(info.properties.get(key)):
            bits |= value
    return bits


def _check_tile_keys(tmap: TiledMap, tile_keys: Mapping[str, int]) -> None:
    """Raise naming a ``layer_bits`` key that names no layer and no tile."""
    infos = [info for ts in tmap.tilesets for info in ts.tiles.values()]
    for key in tile_keys:
        if not any(_tile_bits(info, {key: 1}) for info in infos):
            layers: list[Any] = [*tmap.tile_layers, *tmap.object_layers]
            listed = ", ".join(excerpt(lay.name) for lay in layers[:30])
            raise MapLoadError(
                f"{tmap.path}: layer_bits key {key!r} names no layer (layers: {listed}) and "
                "no tile class or true tile property"
            )


def _default_layers(
    tmap: TiledMap, names: Sequence[str], solidity: str | Collection[int]
) -> tuple[list[Any], str]:
    """Return the layers that hold the walls when the caller names none, and why."""
    tiles: list[Any] = [lay for lay in tmap.tile_layers if lay.visible]
    objects: list[Any] = [lay for lay in tmap.object_layers if lay.shapes]
    by_property = [lay for lay in [*tiles, *objects] if _marked(lay.properties, names)]
    if by_property:
        return by_property, "layer property " + "/".join(names[:3])
    by_name = [
        lay
        for lay in [*tiles, *objects]
        if COLLISION_NAMES.search(lay.name.rsplit("/", 1)[-1].lower().replace("_", " "))
    ]
    if by_name:
        return by_name, "named like a collision layer"
    if isinstance(solidity, str) and solidity in ("property", "collision") and tiles:
        return tiles, f"every visible tile layer, tiles marked solid ({solidity})"
    if len(tiles) == 1:
        return tiles, "the only visible tile layer"
    if not tiles and not tmap.tile_layers:
        listed = ", ".join(repr(lay.name) for lay in tmap.object_layers[:30])
        raise MapLoadError(
            f"{tmap.path}: the map has no tile layers, and no object layer is marked or named "
            f"as collision (object layers: {listed or 'none'}); pass layer='name' to read "
            "an object layer's shapes as walls"
        )
    listed = ", ".join(repr(lay.name) for lay in tmap.tile_layers[:30])
    raise MapLoadError(
        f"{tmap.path}: cannot tell which layer holds the walls: no layer or tile is marked "
        f"solid and no layer is named like 'walls' or 'collision' (tile layers: {listed}); "
        "pass layer='name' (or a list of names) and solid='any', or mark the walls in Tiled "
        "with a custom property 'solid'"
    )


# ------------------------------------------------------------------ loading
def load_tiled(
    path: Any,
    layer: str | list[str] | None = None,
    *,
    solid: str | Collection[int] = "auto",
    solid_property: str | Sequence[str] = SOLID_PROPERTIES,
    result: str = "grid",
    alpha_threshold: float = 0,
    outside: str = "empty",
    root: Any = None,
    limits: Limits | None = None,
    layer_bits: Mapping[str, int] | None = None,
) -> Grid | TileMap:
    """Load a Tiled map (``.tmx`` XML or ``.tmj``/``.json``) as a Grid or a TileMap.

    Parameters
    ----------
    path : str or os.PathLike
        The map file; external tilesets (``.tsx``/``.tsj``) and tileset
        images are found relative to it.
    layer : str or list of str, optional
        The layer(s) that hold the walls, by name (``"group/name"`` tells
        apart layers of the same name in different groups; two layers of
        the same name are an error). Object layers count too (Grid only): a
        cell is solid when a shape covers a pixel centre in it. With several
        names (Grid only) a cell is solid when it is solid in any of them.
        Default: the layers marked solid by a layer property
        (``solid_property``), else those named like ``walls``,
        ``collision``, ``solid``, ``blocked`` or ``obstacles``, else every
        visible tile layer when tiles are marked solid (by property or
        collision shapes), else the only visible tile layer; otherwise an
        error lists the layers. The choice is logged (logger ``tilecast``).
    solid : {"auto", "property", "collision", "alpha", "any"} or set of int
        Which tiles are solid: ``"property"``: tiles with a true custom
        property named in ``solid_property`` (whole tile); ``"collision"``:
        the rectangles, polygons and ellipses drawn in Tiled's collision
        editor, rasterised by pixel centre; ``"alpha"``: the opaque pixels
        of the tileset image (its ``trans`` colour is transparent; needs
        Pillow); ``"any"``: every non-empty tile; a set of GIDs (as stored
        in the file, without flag bits): those tiles, whole. ``"auto"``
        takes ``"property"`` if any tile has such a property, else
        ``"collision"`` if any tile has shapes, else ``"any"``.
    solid_property : str or sequence of str
        The custom property names that mark solid tiles and layers
        (default: ``solid``, ``collides``, ``collision``, ``collidable``,
        ``blocked``, ``wall``).
    result : {"grid", "tilemap"}, default "grid"
        A :class:`~tilecast.Grid` (a cell is solid when any pixel of its tile
        is; tiles of any size) or a pixel-exact :class:`~tilecast.TileMap`
        with the file's flips (one tile layer, tiles the size of the cells).
    alpha_threshold : float, default 0
        For ``solid="alpha"``: a pixel is solid when its alpha is greater.
    outside : {"empty", "solid"}, default "empty"
        What lies beyond the map.
    root : str or os.PathLike, optional
        When given, the map and every file it names must lie inside this
        folder (after resolving symlinks): use it for maps you did not make.
    limits : Limits, optional
        Size limits (cells, pixels, bytes, nesting, tile ids); see
        :class:`~tilecast.io.Limits`.
    layer_bits : mapping of str to int, optional
        Collision layers (DESIGN 20): ``{"Walls": 1, "Glass": 2}``. A key
        that names a layer (as ``layer`` does) adds that layer to those
        read, and its solid cells get the bits; any other key names a tile
        class (Tiled's ``class``, or ``type`` before 1.9) or a custom tile
        property that is true: wherever such a tile lies in the layers read,
        its cell gets the key's bits instead (whole tile with
        ``result="grid"``; on a ``TileMap`` its solid pixels). A solid tile
        that no key names is on the bits of its layer's key, else layer 1.
        Bits are integers in ``[1, 2**32)``. A key that names neither a layer
        nor any tile is an error.

    Returns
    -------
    Grid or TileMap
        In Tiled's pixel units, y down, origin at the map's top-left corner.

    Raises
    ------
    MapLoadError
        Malformed XML/JSON, missing tilesets or layers, unknown encodings or
        compressions, data of the wrong size, GIDs beyond every tileset,
        non-orthogonal maps, a limit exceeded, a file outside ``root``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from tilecast.io import load_tiled
    >>> tmx = '''<map orientation="orthogonal" width="3" height="2" tilewidth="8"
    ...  tileheight="8"><tileset firstgid="1" name="t" tilewidth="8" tileheight="8"
    ...  tilecount="2"><tile id="1"><properties><property name="solid" type="bool"
    ...  value="true"/></properties></tile></tileset><layer name="walls" width="3"
    ...  height="2"><data encoding="csv">1,2,0,2147483650,1,1</data></layer></map>'''
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "level.tmx"
    >>> _ = path.write_text(tmx)
    >>> grid = load_tiled(path)
    >>> grid.solid.astype(int), grid.tile_size
    (array([[0, 1, 0],
           [1, 0, 0]]), (8.0, 8.0))
    >>> tmap = load_tiled(path, result="tilemap")
    >>> tmap.tile_ids.tolist(), tmap.flips.tolist()
    ([[0, 1, -1], [1, 0, 0]], [[0, 0, 0], [1, 0, 0]])

    Collision layers: every tile of "walls" on layer 4, those marked
    ``solid`` on layer 1 (and 4 where no key names the tile):

    >>> load_tiled(path, solid="any", layer_bits={"walls": 4, "solid": 1}).layers.tolist()
    [[4, 1, 0], [1, 4, 4]]
    """
    as_choice("result", result, RESULTS)
    as_choice("outside", outside, ("empty", "solid"))
    if isinstance(solid, str):
        as_choice("solid", solid, SOLIDITY)
    elif not isinstance(solid, Collection) or not all(
        isinstance(g, int | np.integer) and not isinstance(g, bool) for g in solid
    ):
        raise TypeError("solid must be one of " + ", ".join(SOLIDITY) + " or a set of tile GIDs")
    names = (solid_property,) if isinstance(solid_property, str) else tuple(solid_property)
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError("solid_property must be a property name or a sequence of names")
    if layer is not None and not (
        isinstance(layer, str)
        or (isinstance(layer, list | tuple) and layer and all(isinstance(n, str) for n in layer))
    ):
        raise TypeError("layer must be a layer name or a list of names")
    bits_of = _as_layer_bits(layer_bits)
    path = as_path("path", path)
    limits = as_limits(limits)
    tmap = read_map(path, root, limits)
    solidity: str | Collection[int] = _auto_solidity(tmap, names) if solid == "auto" else solid
    layer_keys = {key: _find(tmap, key)[1] for key in bits_of if _has_layer(tmap, key)}
    if layer is None and layer_keys:
        chosen, why = list(layer_keys.values()), "named in layer_bits"
    elif layer is None:
        chosen, why = _default_layers(tmap, names, solidity)
    else:
        wanted = [layer] if isinstance(layer, str) else list(layer)
        chosen, why = [_find(tmap, name)[1] for name in wanted], "chosen by the caller"
        chosen += [lay for lay in layer_keys.values() if all(lay is not c for c in chosen)]
    tile_keys = {key: bits for key, bits in bits_of.items() if key not in layer_keys}
    if bits_of:
        _check_tile_keys(tmap, tile_keys)
    if result == "tilemap":
        if len(chosen) != 1:
            raise ValueError("result='tilemap' reads one layer; pass a single layer name")
        if not isinstance(chosen[0], TileLayer):
            raise MapLoadError(
                f"{path}: layer {excerpt(chosen[0].name)} is an object layer; "
                "result='tilemap' reads one tile layer"
            )
        lay_bits = next((b for k, b in bits_of.items() if layer_keys.get(k) is chosen[0]), 1)
        result_map = _tilemap(tmap, chosen[0], solidity, names, alpha_threshold, outside, limits,
                              (lay_bits, tile_keys))  # fmt: skip
        result_map.source = {
            "file": str(path),
            "layers": [chosen[0].name],
            "rule": why,
            "solid": solidity if isinstance(solidity, str) else "listed GIDs",
        }
        return result_map
    tiles = _Tiles(tmap, solidity, names, alpha_threshold, limits)
    cell_bits = np.zeros((tmap.rows, tmap.cols), dtype=np.uint32)
    for lay in chosen:
        where = f"{path} (layer {excerpt(lay.name)})"
        lay_bits = next((b for k, b in bits_of.items() if layer_keys.get(k) is lay), 1)
        if not isinstance(lay, TileLayer):
            cell_bits[_objects_to_cells(tmap, lay.shapes, limits)] |= np.uint32(lay_bits)
            continue
        ids, _ = decode_gids(lay.gids)
        present = ids > 0
        if not present.any():
            continue
        used, inverse = np.unique(ids[present], return_inverse=True)
        which, local = tiles.locate(where, used)
        tile_bits = np.array(
            [tiles.bits(int(k), int(t), lay_bits, tile_keys, whole=True)
             for k, t in zip(which, local, strict=True)],
            dtype=np.uint32,
        )  # fmt: skip
        cell_bits[present] |= tile_bits[inverse.reshape(-1)]
    solid_cells = cell_bits != 0
    rule = solidity if isinstance(solidity, str) else "listed GIDs"
    logger.info(
        "%s: walls from layer(s) %s (%s), solid tiles: %s, %d solid cells",
        path,
        ", ".join(repr(lay.name) for lay in chosen) or "none",
        why,
        rule,
        int(solid_cells.sum()),
    )
    if layer is None and solid_cells.all():
        # Tiled's own desert.tmx: its one layer is the ground, every cell filled
        logger.warning(
            "%s: every cell is solid: layer(s) %s look like floor, not walls; pass "
            "layer='name' and solid=... to choose",
            path,
            ", ".join(repr(lay.name) for lay in chosen),
        )
    origin = (tmap.origin_cell[0] * tmap.tilewidth, tmap.origin_cell[1] * tmap.tileheight)
    grid = Grid(
        cell_bits,
        tile_size=(tmap.tilewidth, tmap.tileheight),
        origin=(float(origin[0]), float(origin[1])),
        outside=outside,
    )
    grid.source = {
        "file": str(path),
        "layers": [lay.name for lay in chosen],
        "rule": why,
        "solid": rule,
    }
    return grid


def _tilemap(
    tmap: TiledMap,
    lay: TileLayer,
    solidity: str | Collection[int],
    names: Sequence[str],
    alpha: float,
    outside: str,
    limits: Limits,
    bits: tuple[int, Mapping[str, int]] = (1, {}),
) -> TileMap:
    """One tile layer as a TileMap: tile id ``gid - 1``, masks for every GID up to the last.

    ``bits``: the layer's collision bits and the tile keys of ``layer_bits``.
    """
    from tilecast.tiles import TileMap, TileSet

    path, tw, th = tmap.path, tmap.tilewidth, tmap.tileheight
    where = f"{path} (layer {excerpt(lay.name)})"
    ids, flips = decode_gids(lay.gids)
    present = ids > 0
    tiles = _Tiles(tmap, solidity, names, alpha, limits)
    last = int(ids.max(initial=0))
    for ts in tmap.tilesets:
        count = _tile_range(ts)
        if count is not None:
            last = max(last, ts.firstgid - 1 + count)
    if last == 0:
        last = 1
    limits.check(where, "max_tile_id", last, "as the largest GID")
    limits.check(where, "max_pixels", last * tw * th, "pixels in the tile masks")
    masks = np.zeros((last, th, tw), dtype=np.bool_)
    layers = np.full(last, bits[0], dtype=np.uint32)
    used_sets: set[int] = set()
    if present.any():
        which, _ = tiles.locate(where, np.unique(ids[present]))
        used_sets = {int(k) for k in which}
    for k, ts in enumerate(tiles.tilesets):
        base = ts.firstgid - 1
        count = _tile_range(ts)
        if count is None:
            count = max([*ts.tiles, *(ids[present] - ts.firstgid)], default=-1) + 1
        end = min(base + count, last)
        if end <= base:
            continue
        if k in used_sets and not ts.collection and (ts.tilewidth, ts.tileheight) != (tw, th):
            raise MapLoadError(
                f"{ts.where}: tiles are {ts.tilewidth}x{ts.tileheight} pixels but the map's "
                f"cells {tw}x{th}; a TileMap needs them equal (result='grid' reads any size)"
            )
        if (ts.tilewidth, ts.tileheight) != (tw, th) and not ts.collection:
            continue  # not used by this layer: its masks stay empty
        for local, info in ts.tiles.items():
            if base + local < end:
                layers[base + local] = _tile_bits(info, bits[1]) or bits[0]
        if not isinstance(solidity, str):
            chosen = np.isin(np.arange(base + 1, end + 1), np.fromiter(solidity, np.int64))
            masks[base:end][chosen] = True
        elif solidity == "any" and not ts.collection:
            masks[base:end] = True
        elif solidity == "alpha" and not ts.collection:
            atlas = tiles.atlas(k)
            n = min(len(atlas), end - base)
            masks[base : base + n] = atlas[:n]
        else:
            for local in ts.tiles:
                if base + local >= end:
                    continue
                mask = tiles.mask(k, local)
                if mask.shape != (th, tw):
                    if k not in used_sets:
                        continue
                    raise MapLoadError(
                        f"{ts.where}: tile {local} is {mask.shape[1]}x{mask.shape[0]} pixels "
                        f"but the map's cells {tw}x{th}; a TileMap needs them equal "
                        "(result='grid' reads any size)"
                    )
                masks[base + local] = mask
    try:
        return TileMap(
            np.where(present, ids - 1, -1),
            TileSet(masks, layers=layers),
            flips=np.where(present, flips, 0),
            origin=(float(tmap.origin_cell[0] * tw), float(tmap.origin_cell[1] * th)),
            outside=outside,
        )
    except ValueError as exc:
        raise MapLoadError(f"{path}: {exc}") from None
