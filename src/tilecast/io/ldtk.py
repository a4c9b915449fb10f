"""LDtk projects (``.ldtk`` JSON, with external ``.ldtkl`` levels), read with the standard library.

An IntGrid layer becomes a :class:`~tilecast.Grid` (a cell is solid when its
value is one of ``solid_values``; by default any non-zero value); a Tiles or
AutoLayer layer becomes a pixel-exact :class:`~tilecast.TileMap`, with LDtk's
flip bits (1 x, 2 y) as the TileMap's flips 1 and 2. Units are the level's
pixels, y down, origin at the level's top-left corner (``worldX``/``worldY``
and layer offsets are not applied).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tilecast._validate import as_choice, as_mask, as_path
from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, excerpt
from tilecast.io.limits import Limits, as_limits, inside_root, is_file, parse_json, read_limited

if TYPE_CHECKING:
    from tilecast.tiles import TileMap

__all__ = ["load_ldtk"]
logger = logging.getLogger("tilecast")


def _json(path: Path, limits: Limits, root: Any) -> Any:
    return parse_json(str(path), read_limited(path, limits, root), limits)


def _dict(where: str, value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MapLoadError(f"{where}: {what} is not a JSON object")
    return value


def _list(where: str, value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MapLoadError(f"{where}: '{what}' must be a list")
    return value


def _int(where: str, node: dict[str, Any], key: str) -> int:
    value = node.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MapLoadError(f"{where}: missing or non-integer '{key}'")
    return value


def _levels(path: Path, root: dict[str, Any]) -> list[dict[str, Any]]:
    """Every level of the project: its own, or those of its worlds (multi-world projects)."""
    levels = _list(str(path), root.get("levels"), "levels")
    for world in _list(str(path), root.get("worlds"), "worlds"):
        levels = levels + _list(
            str(path), _dict(str(path), world, "a world").get("levels"), "levels"
        )
    if not levels:
        raise MapLoadError(f"{path}: no 'levels' (is this an LDtk project?)")
    return [_dict(str(path), lv, "a level") for lv in levels]


def _pick_level(
    path: Path, root: dict[str, Any], level: int | str, limits: Limits, root_dir: Any
) -> tuple[dict[str, Any], Path]:
    levels = _levels(path, root)
    names = [lv.get("identifier") for lv in levels]
    if isinstance(level, str):
        if level not in names:
            listed = ", ".join(excerpt(n) for n in names[:30])
            raise MapLoadError(f"{path}: no level {level!r} (levels: {listed})")
        node = levels[names.index(level)]
    else:
        if not -len(levels) <= level < len(levels):
            raise MapLoadError(f"{path}: level index {level} out of range ({len(levels)} levels)")
        node = levels[level]
    rel = node.get("externalRelPath")
    if node.get("layerInstances") is None and rel:
        if not isinstance(rel, str):
            raise MapLoadError(f"{path}: 'externalRelPath' must be a file name")
        level_path = inside_root(
            str(path), path.parent / rel, root_dir, f"level file {excerpt(rel)}"
        )
        if not is_file(level_path):
            raise MapLoadError(f"{path}: external level file {level_path} not found")
        external = _json(level_path, limits, root_dir)
        if not isinstance(external, dict):
            raise MapLoadError(f"{level_path}: not an LDtk level")
        return external, level_path
    return node, path


def _tile_masks(
    path: Path,
    root: dict[str, Any],
    layer: dict[str, Any],
    where: str,
    solid_tiles: Collection[int] | None,
    solid_tag: str | None,
    alpha: float,
    limits: Limits,
    root_dir: Any,
) -> NDArray[np.bool_]:
    uid = layer.get("__tilesetDefUid")
    defs = _dict(str(path), root.get("defs", {}), "'defs'")
    tilesets = {
        t.get("uid"): t
        for t in _list(str(path), defs.get("tilesets"), "tilesets")
        if isinstance(t, dict) and type(t.get("uid")) is int
    }
    if type(uid) is not int or uid not in tilesets:
        raise MapLoadError(f"{where}: its tileset (uid {excerpt(uid)}) is not defined in {path}")
    ts = tilesets[uid]
    ts_where = f"{path} (tileset {excerpt(ts.get('identifier'))})"
    size = _int(ts_where, ts, "tileGridSize")
    cols, rows = _int(ts_where, ts, "__cWid"), _int(ts_where, ts, "__cHei")
    if size <= 0 or cols < 0 or rows < 0:
        raise MapLoadError(f"{ts_where}: bad tile grid ({cols} x {rows} tiles of {size} px)")
    count = cols * rows
    limits.check(ts_where, "max_tiles", count, "tiles")
    limits.check(ts_where, "max_pixels", count * size * size, "pixels in the tile masks")
    if solid_tag is not None:
        tags = {}
        for tag in _list(ts_where, ts.get("enumTags"), "enumTags"):
            tag = _dict(ts_where, tag, "an enum tag")
            if isinstance(tag.get("enumValueId"), str):
                tags[tag["enumValueId"]] = _list(ts_where, tag.get("tileIds"), "tileIds")
        if solid_tag not in tags:
            listed = ", ".join(excerpt(t) for t in list(tags)[:30])
            raise MapLoadError(f"{ts_where}: no enum tag {solid_tag!r} (tags: {listed})")
        solid_tiles = tags[solid_tag]
    masks = np.zeros((count, size, size), dtype=np.bool_)
    if solid_tiles is not None:
        for tile in solid_tiles:
            if type(tile) is int and 0 <= tile < count:
                masks[tile] = True
        return masks
    from tilecast.io.image import read_rgba

    rel = ts.get("relPath")
    if not rel or not isinstance(rel, str):
        raise MapLoadError(f"{ts_where}: no image; pass solid_tiles or solid_tag")
    image = inside_root(str(path), path.parent / rel, root_dir, f"tileset image {excerpt(rel)}")
    rgba = read_rgba(image, limits, ts_where)
    margin, spacing = ts.get("padding", 0), ts.get("spacing", 0)
    if type(margin) is not int or type(spacing) is not int or margin < 0 or spacing < 0:
        raise MapLoadError(f"{ts_where}: 'padding' and 'spacing' must be integers >= 0")
    solid = rgba[:, :, 3] > alpha
    for k in range(count):
        y = margin + (k // max(cols, 1)) * (size + spacing)
        x = margin + (k % max(cols, 1)) * (size + spacing)
        block = solid[y : y + size, x : x + size]
        if block.shape == (size, size):
            masks[k] = block
    return masks


def _int_grid(where: str, layer: dict[str, Any], rows: int, cols: int) -> NDArray[np.int64]:
    """IntGrid values per cell: ``intGridCsv`` (LDtk 1.0+) or the older sparse ``intGrid``."""
    values = layer.get("intGridCsv")
    if values is None and isinstance(layer.get("intGrid"), list):  # before LDtk 1.0
        array = np.zeros(rows * cols, dtype=np.int64)
        for entry in layer["intGrid"]:
            if not isinstance(entry, dict):
                raise MapLoadError(f"{where}: malformed 'intGrid' entry {excerpt(entry)}")
            coord, v = entry.get("coordId"), entry.get("v")
            if type(coord) is not int or type(v) is not int or not 0 <= coord < rows * cols:
                raise MapLoadError(f"{where}: malformed 'intGrid' entry {excerpt(entry)}")
            array[coord] = v + 1  # "v" is the 0-based index of the value
        return array.reshape(rows, cols)
    if not isinstance(values, list) or not all(type(v) is int for v in values):
        raise MapLoadError(f"{where}: missing or non-integer 'intGridCsv'")
    if len(values) != rows * cols:
        raise MapLoadError(
            f"{where}: intGridCsv holds {len(values)} values, expected {rows * cols}"
        )
    if values and (min(values) < -(2**62) or max(values) > 2**62):
        raise MapLoadError(f"{where}: intGridCsv values out of range")
    return np.array(values, dtype=np.int64).reshape(rows, cols)


def _ids(name: str, value: Any) -> frozenset[int] | None:
    """Check a user's set of integer values or tile ids (None stays None)."""
    if value is None:
        return None
    if isinstance(value, str | bytes) or not isinstance(value, Collection):
        raise TypeError(f"{name} must be a set of integers, got {type(value).__name__}")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise TypeError(f"{name} must hold integers only, got {excerpt(v)}")
    return frozenset(int(v) for v in value)


def _value_bits(value_bits: Any) -> dict[int, int]:
    """Check ``value_bits``: IntGrid values to collision bits in ``[1, 2**32)``."""
    if value_bits is None:
        return {}
    if not isinstance(value_bits, Mapping) or not all(
        isinstance(v, int | np.integer) and not isinstance(v, bool) for v in value_bits
    ):
        raise TypeError("value_bits must map IntGrid values (integers) to layer bits")
    checked = {}
    for value, bits in value_bits.items():
        layer_bits = as_mask(bits, f"value_bits[{value}]")
        if layer_bits == 0:
            raise ValueError(f"value_bits[{value}] must be at least 1 (a collision layer bit)")
        checked[int(value)] = layer_bits
    return checked


def _value_names(project: dict[str, Any], layer: dict[str, Any]) -> str:
    """List the values an IntGrid layer's definition names, for messages: "1 'walls', ..."."""
    defs = project.get("defs")
    layer_defs = defs.get("layers") if isinstance(defs, dict) else None
    for definition in layer_defs if isinstance(layer_defs, list) else []:
        if isinstance(definition, dict) and definition.get("uid") == layer.get("layerDefUid"):
            values = definition.get("intGridValues")
            named = [
                f"{v['value']} {excerpt(v.get('identifier'))}"
                for v in (values if isinstance(values, list) else [])[:20]
                if isinstance(v, dict) and type(v.get("value")) is int
            ]
            return ", ".join(named) or "none defined"
    return "not defined"


def load_ldtk(
    path: Any,
    level: int | str = 0,
    layer: str | None = None,
    *,
    solid_values: Collection[int] | None = None,
    solid_tiles: Collection[int] | None = None,
    solid_tag: str | None = None,
    alpha_threshold: float = 0,
    outside: str = "empty",
    root: Any = None,
    limits: Limits | None = None,
    value_bits: Mapping[int, int] | None = None,
) -> Grid | TileMap:
    """Load one layer of one level of an LDtk project.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.ldtk`` file (external levels and tileset images are found
        relative to it).
    level : int or str, default 0
        The level, by index or ``identifier``.
    layer : str, optional
        The layer's ``identifier``; default: the first IntGrid layer.
    solid_values : set of int, optional
        For an IntGrid layer: the values that are solid (default: every
        non-zero value).
    solid_tiles : set of int, optional
        For a Tiles or AutoLayer layer: tileset tile ids that are solid
        (whole tiles).
    solid_tag : str, optional
        For a Tiles or AutoLayer layer: the tileset enum tag that marks
        solid tiles.
    alpha_threshold : float, default 0
        For a tile layer without ``solid_tiles``/``solid_tag``: pixels of the
        tileset image with alpha above this are solid (needs Pillow).
    outside : {"empty", "solid"}, default "empty"
    root : str or os.PathLike, optional
        When given, the project and every file it names (external levels,
        tileset images) must lie inside this folder.
    limits : Limits, optional
        Size limits; see :class:`~tilecast.io.Limits`.
    value_bits : mapping of int to int, optional
        For an IntGrid layer: collision layers (DESIGN 20) per value,
        ``{1: 1, 2: 2}`` (walls on layer 1, glass on layer 2); values it
        does not name are empty. Bits are integers in ``[1, 2**32)``.
        Instead of ``solid_values``.

    Returns
    -------
    Grid or TileMap
        A Grid (tile size ``__gridSize``) for an IntGrid layer (``intGridCsv``,
        or the sparse ``intGrid`` of files before LDtk 1.0), a TileMap (one
        unit per pixel) for a Tiles or AutoLayer layer. Where tiles are
        stacked in one cell, the last one listed (drawn on top) is kept. A
        tile layer with tiles placed off the cell grid becomes a Grid of
        one cell per pixel (pixel-exact). Levels of every world of a
        multi-world project count, in order.

    Raises
    ------
    MapLoadError
        Malformed JSON, missing level, layer or tileset, data of the wrong size.
    ValueError
        An option for the other kind of layer: ``solid_tiles``/``solid_tag``
        for an IntGrid layer (its cells are read by value), ``solid_values``
        for a tile layer. The message names the option to use instead.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from tilecast.io import load_ldtk
    >>> layer = {"__identifier": "Walls", "__type": "IntGrid", "__cWid": 3, "__cHei": 2,
    ...          "__gridSize": 16, "intGridCsv": [1, 0, 2, 0, 0, 1]}
    >>> project = {"defs": {"tilesets": []},
    ...            "levels": [{"identifier": "Start", "layerInstances": [layer]}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "game.ldtk"
    >>> _ = path.write_text(json.dumps(project))
    >>> grid = load_ldtk(path)
    >>> grid.solid.astype(int), grid.tile_size
    (array([[1, 0, 1],
           [0, 0, 1]]), (16.0, 16.0))
    >>> load_ldtk(path, "Start", "Walls", solid_values={2}).solid.astype(int)
    array([[0, 0, 1],
           [0, 0, 0]])
    >>> load_ldtk(path, value_bits={1: 1, 2: 2}).layers.tolist()  # value 2 is glass
    [[1, 0, 2], [0, 0, 1]]
    """
    as_choice("outside", outside, ("empty", "solid"))
    path = as_path("path", path)
    if isinstance(level, bool) or not isinstance(level, int | str):
        raise TypeError(f"level must be an index or a level name, got {type(level).__name__}")
    solid_values, solid_tiles = _ids("solid_values", solid_values), _ids("solid_tiles", solid_tiles)
    bits_of = _value_bits(value_bits)
    if solid_tag is not None and not isinstance(solid_tag, str):
        raise TypeError(f"solid_tag must be a string, got {type(solid_tag).__name__}")
    if solid_tiles is not None and solid_tag is not None:
        raise ValueError("pass solid_tiles or solid_tag, not both")
    limits = as_limits(limits)
    project = _json(path, limits, root)
    if not isinstance(project, dict):
        raise MapLoadError(f"{path}: not an LDtk project")
    node, level_path = _pick_level(path, project, level, limits, root)
    layers = node.get("layerInstances")
    if not isinstance(layers, list) or not all(isinstance(lay, dict) for lay in layers):
        raise MapLoadError(f"{level_path}: level has no 'layerInstances'")
    names = [lay.get("__identifier") for lay in layers]
    listed = ", ".join(excerpt(n) for n in names[:30])
    if layer is None:
        grids = [lay for lay in layers if lay.get("__type") == "IntGrid"]
        if not grids:
            raise MapLoadError(
                f"{level_path}: no IntGrid layer (layers: {listed}); pass layer='name' "
                "for a tile layer"
            )
        chosen = grids[0]
    elif names.count(layer) > 1:
        raise MapLoadError(f"{level_path}: {names.count(layer)} layers are named {layer!r}")
    elif layer in names:
        chosen = layers[names.index(layer)]
    else:
        raise MapLoadError(f"{level_path}: no layer {layer!r} (layers: {listed})")
    where = f"{level_path} (layer {excerpt(chosen.get('__identifier'))})"
    cols, rows = _int(where, chosen, "__cWid"), _int(where, chosen, "__cHei")
    size = _int(where, chosen, "__gridSize")
    if cols <= 0 or rows <= 0 or size <= 0:
        raise MapLoadError(f"{where}: empty layer ({cols} x {rows} cells of {size} px)")
    limits.check(where, "max_cells", rows * cols, "cells")
    kind = chosen.get("__type")
    if kind == "IntGrid":
        if solid_tiles is not None or solid_tag is not None:
            given = "solid_tiles" if solid_tiles is not None else "solid_tag"
            raise ValueError(
                f"{where}: {given}= applies to Tiles and AutoLayer layers; this IntGrid "
                f"layer is read by its values: pass solid_values={{...}} instead (its values: "
                f"{_value_names(project, chosen)}; default: every non-zero value)"
            )
        array = _int_grid(where, chosen, rows, cols)
        if bits_of:
            if solid_values is not None:
                raise ValueError("give solid_values= or value_bits=, not both")
            cells = np.zeros(array.shape, dtype=np.uint32)
            for value, bits in bits_of.items():
                cells[array == value] = bits
            logger.info("%s: layers from IntGrid layer %r", level_path, chosen.get("__identifier"))
            return Grid(cells, tile_size=size, outside=outside)
        if solid_values is None:
            solid = array != 0
        else:
            solid = np.isin(array, np.fromiter(solid_values, dtype=np.int64))
        logger.info("%s: walls from IntGrid layer %r", level_path, chosen.get("__identifier"))
        return Grid(solid, tile_size=size, outside=outside)
    if kind not in ("Tiles", "AutoLayer"):
        raise MapLoadError(f"{where}: a {excerpt(kind)} layer holds no tiles or cells")
    if bits_of:
        raise ValueError(
            f"{where}: value_bits= applies to IntGrid layers; a {kind} layer's tiles are read "
            "by solid_tiles= or solid_tag="
        )
    if solid_values is not None:
        raise ValueError(
            f"{where}: solid_values= applies to IntGrid layers; for this {kind} layer pass "
            "solid_tiles={...} (tile ids) or solid_tag='...' (a tileset enum tag), or "
            "neither (the tileset image's alpha)"
        )
    masks = _tile_masks(
        path, project, chosen, where, solid_tiles, solid_tag, alpha_threshold, limits, root
    )
    if masks.shape[1:] != (size, size):
        raise MapLoadError(f"{where}: tileset tiles are not {size} px like the layer's cells")
    entries = _list(where, chosen.get("gridTiles"), "gridTiles") + _list(
        where, chosen.get("autoLayerTiles"), "autoLayerTiles"
    )
    placed = []
    for tile in entries:
        try:
            (x, y), t, f = tile["px"], tile["t"], tile.get("f", 0)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise MapLoadError(f"{where}: malformed tile entry {excerpt(tile)}") from None
        if not all(type(v) is int for v in (x, y, t, f)):
            raise MapLoadError(f"{where}: malformed tile entry {excerpt(tile)}")
        if not 0 <= t < len(masks) or f not in (0, 1, 2, 3):
            raise MapLoadError(f"{where}: bad tile id {t} or flip bits {f}")
        if not (-size < x < cols * size and -size < y < rows * size):
            raise MapLoadError(
                f"{where}: tile at pixel ({x}, {y}) is off the {size}-px grid of "
                f"{cols} x {rows} cells"
            )
        placed.append((x, y, t, f))
    return _placed_tiles(where, placed, masks, rows, cols, size, outside, limits)


def _placed_tiles(
    where: str,
    placed: list[tuple[int, int, int, int]],
    masks: NDArray[np.bool_],
    rows: int,
    cols: int,
    size: int,
    outside: str,
    limits: Limits,
) -> Grid | TileMap:
    """Return a tile layer's tiles ``(x, y, tile, flips)`` as a map.

    Tiles on the cell grid make a TileMap; tiles placed off it are drawn
    into a pixel-resolution Grid (one unit per pixel).
    """
    if all(x % size == 0 and y % size == 0 for x, y, _, _ in placed):
        from tilecast.tiles import TileMap, TileSet

        ids = np.full((rows, cols), -1, dtype=np.int64)
        flips = np.zeros((rows, cols), dtype=np.int64)
        for x, y, t, f in placed:
            if not (0 <= x // size < cols and 0 <= y // size < rows):
                continue  # a cell beyond the level (x or y negative)
            ids[y // size, x // size], flips[y // size, x // size] = t, f
        return TileMap(ids, TileSet(masks), flips=np.where(ids >= 0, flips, 0), outside=outside)
    height, width = rows * size, cols * size
    limits.check(where, "max_cells", height * width, "pixels in a layer of free-placed tiles")
    solid = np.zeros((height, width), dtype=np.bool_)
    for x, y, t, f in placed:
        mask = masks[t][:, ::-1] if f & 1 else masks[t]
        mask = mask[::-1] if f & 2 else mask
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + size, width), min(y + size, height)
        if x1 > x0 and y1 > y0:
            solid[y0:y1, x0:x1] |= mask[y0 - y : y1 - y, x0 - x : x1 - x]
    logger.info("%s: tiles placed off the grid: read as a Grid of one cell per pixel", where)
    return Grid(solid, tile_size=1.0, outside=outside)
