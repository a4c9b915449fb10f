"""LDtk projects (``.ldtk`` JSON, with external ``.ldtkl`` levels), read with the standard library.

An IntGrid layer becomes a :class:`~tilecast.Grid` (a cell is solid when its
value is one of ``solid_values``; by default any non-zero value); a Tiles or
AutoLayer layer becomes a pixel-exact :class:`~tilecast.TileMap`, with LDtk's
flip bits (1 x, 2 y) as the TileMap's flips 1 and 2. Units are the level's
pixels, y down, origin at the level's top-left corner (``worldX``/``worldY``
and layer offsets are not applied).
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tilecast._validate import as_choice
from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, read_bytes

if TYPE_CHECKING:
    from tilecast.tiles import TileMap

__all__ = ["load_ldtk"]


def _json(path: Path) -> Any:
    try:
        return json.loads(read_bytes(path))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MapLoadError(f"{path}: malformed JSON ({exc})") from None


def _int(where: str, node: dict[str, Any], key: str) -> int:
    value = node.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MapLoadError(f"{where}: missing or non-integer '{key}'")
    return value


def _pick_level(path: Path, root: dict[str, Any], level: int | str) -> tuple[dict[str, Any], Path]:
    levels = root.get("levels")
    if not isinstance(levels, list) or not levels:
        raise MapLoadError(f"{path}: no 'levels' (is this an LDtk project?)")
    names = [lv.get("identifier") for lv in levels if isinstance(lv, dict)]
    if isinstance(level, str):
        if level not in names:
            raise MapLoadError(f"{path}: no level {level!r} (levels: {names})")
        node = levels[names.index(level)]
    else:
        if not -len(levels) <= level < len(levels):
            raise MapLoadError(f"{path}: level index {level} out of range ({len(levels)} levels)")
        node = levels[level]
    if node.get("layerInstances") is None and node.get("externalRelPath"):
        level_path = path.parent / node["externalRelPath"]
        if not level_path.is_file():
            raise MapLoadError(f"{path}: external level file {level_path} not found")
        node = _json(level_path)
        if not isinstance(node, dict):
            raise MapLoadError(f"{level_path}: not an LDtk level")
        return node, level_path
    return node, path


def _tile_masks(
    path: Path,
    root: dict[str, Any],
    layer: dict[str, Any],
    where: str,
    solid_tiles: Collection[int] | None,
    solid_tag: str | None,
    alpha: float,
) -> NDArray[np.bool_]:
    uid = layer.get("__tilesetDefUid")
    tilesets = {t.get("uid"): t for t in root.get("defs", {}).get("tilesets", [])}
    if uid not in tilesets:
        raise MapLoadError(f"{where}: its tileset (uid {uid}) is not defined in {path}")
    ts = tilesets[uid]
    ts_where = f"{path} (tileset {ts.get('identifier')!r})"
    size = _int(ts_where, ts, "tileGridSize")
    count = _int(ts_where, ts, "__cWid") * _int(ts_where, ts, "__cHei")
    if solid_tag is not None:
        tags = {t.get("enumValueId"): t.get("tileIds", []) for t in ts.get("enumTags", [])}
        if solid_tag not in tags:
            raise MapLoadError(f"{ts_where}: no enum tag {solid_tag!r} (tags: {list(tags)})")
        solid_tiles = tags[solid_tag]
    masks = np.zeros((count, size, size), dtype=np.bool_)
    if solid_tiles is not None:
        for tile in solid_tiles:
            if 0 <= int(tile) < count:
                masks[int(tile)] = True
        return masks
    from tilecast.tiles import TileSet

    rel = ts.get("relPath")
    if not rel:
        raise MapLoadError(f"{ts_where}: no image; pass solid_tiles or solid_tag")
    image = path.parent / rel
    if not image.is_file():
        raise MapLoadError(f"{ts_where}: tileset image {image} not found")
    try:
        tiles = TileSet.from_image(
            image, size, alpha, margin=ts.get("padding", 0), spacing=ts.get("spacing", 0)
        )
    except (ValueError, OSError) as exc:
        raise MapLoadError(f"{ts_where}: cannot read the tileset image ({exc})") from None
    n = min(count, len(tiles))
    masks[:n] = tiles.masks[:n]
    return masks


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
        IntGrid values that are solid (default: every non-zero value).
    solid_tiles : set of int, optional
        For a tile layer: tileset tile ids that are solid (whole tiles).
    solid_tag : str, optional
        For a tile layer: the tileset enum tag that marks solid tiles.
    alpha_threshold : float, default 0
        For a tile layer without ``solid_tiles``/``solid_tag``: pixels of the
        tileset image with alpha above this are solid (needs Pillow).
    outside : {"empty", "solid"}, default "empty"

    Returns
    -------
    Grid or TileMap
        A Grid (tile size ``__gridSize``) for an IntGrid layer, a TileMap
        (one unit per pixel) for a Tiles or AutoLayer layer. Where tiles are
        stacked in one cell, the last one listed (drawn on top) is kept.

    Raises
    ------
    MapLoadError
        Malformed JSON, missing level, layer or tileset, data of the wrong size.

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
    """
    as_choice("outside", outside, ("empty", "solid"))
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a path (str or os.PathLike), got {type(path).__name__}")
    if isinstance(level, bool) or not isinstance(level, int | str):
        raise TypeError(f"level must be an index or a level name, got {type(level).__name__}")
    if solid_tiles is not None and solid_tag is not None:
        raise ValueError("pass solid_tiles or solid_tag, not both")
    path = Path(path)
    root = _json(path)
    if not isinstance(root, dict):
        raise MapLoadError(f"{path}: not an LDtk project")
    node, level_path = _pick_level(path, root, level)
    layers = node.get("layerInstances")
    if not isinstance(layers, list):
        raise MapLoadError(f"{level_path}: level has no 'layerInstances'")
    names = [lay.get("__identifier") for lay in layers]
    if layer is None:
        grids = [lay for lay in layers if lay.get("__type") == "IntGrid"]
        if not grids:
            raise MapLoadError(f"{level_path}: no IntGrid layer (layers: {names})")
        chosen = grids[0]
    elif layer in names:
        chosen = layers[names.index(layer)]
    else:
        raise MapLoadError(f"{level_path}: no layer {layer!r} (layers: {names})")
    where = f"{level_path} (layer {chosen.get('__identifier')!r})"
    cols, rows = _int(where, chosen, "__cWid"), _int(where, chosen, "__cHei")
    size = _int(where, chosen, "__gridSize")
    if cols <= 0 or rows <= 0 or size <= 0:
        raise MapLoadError(f"{where}: empty layer ({cols} x {rows} cells of {size} px)")
    kind = chosen.get("__type")
    if kind == "IntGrid":
        values = chosen.get("intGridCsv")
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise MapLoadError(f"{where}: missing or non-integer 'intGridCsv'")
        if len(values) != rows * cols:
            raise MapLoadError(
                f"{where}: intGridCsv holds {len(values)} values, expected {rows * cols}"
            )
        array = np.array(values, dtype=np.int64).reshape(rows, cols)
        solid = array != 0 if solid_values is None else np.isin(array, list(solid_values))
        return Grid(solid, tile_size=size, outside=outside)
    if kind not in ("Tiles", "AutoLayer"):
        raise MapLoadError(f"{where}: a {kind} layer holds no tiles or cells")
    from tilecast.tiles import TileMap, TileSet

    masks = _tile_masks(path, root, chosen, where, solid_tiles, solid_tag, alpha_threshold)
    if masks.shape[1:] != (size, size):
        raise MapLoadError(f"{where}: tileset tiles are not {size} px like the layer's cells")
    ids = np.full((rows, cols), -1, dtype=np.int64)
    flips = np.zeros((rows, cols), dtype=np.int64)
    for tile in chosen.get("gridTiles", []) + chosen.get("autoLayerTiles", []):
        try:
            (x, y), t, f = tile["px"], int(tile["t"]), int(tile.get("f", 0))
        except (KeyError, TypeError, ValueError):
            raise MapLoadError(f"{where}: malformed tile entry {tile!r}") from None
        if x % size or y % size or not (0 <= x // size < cols and 0 <= y // size < rows):
            raise MapLoadError(f"{where}: tile at pixel ({x}, {y}) is off the {size}-px grid")
        if not 0 <= t < len(masks) or f not in (0, 1, 2, 3):
            raise MapLoadError(f"{where}: bad tile id {t} or flip bits {f}")
        ids[y // size, x // size], flips[y // size, x // size] = t, f
    return TileMap(ids, TileSet(masks), flips=np.where(ids >= 0, flips, 0), outside=outside)
