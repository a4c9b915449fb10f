"""Tiled maps: TMX (XML) and TMJ/JSON, read with the standard library.

Tile layers are decoded from every encoding Tiled writes (CSV, XML ``<tile>``
elements, base64 raw, base64 + zlib, base64 + gzip; zstd is refused with a
clear message). Each global tile id (GID) carries four flag bits, all masked
off the id: horizontal flip ``0x80000000``, vertical ``0x40000000``, diagonal
``0x20000000`` and the hexagonal 120-degree rotation ``0x10000000`` (ignored
on orthogonal maps). The first three become :class:`~tilecast.TileMap` flips
1, 2 and 4.

World units are Tiled's pixels: the :class:`~tilecast.Grid` has ``tile_size``
``(tilewidth, tileheight)``, the TileMap one world unit per pixel, both with
y down and the origin at the map's top-left corner, so object coordinates
from the same file can be used unchanged. Layer offsets and parallax are
ignored.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import os
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tilecast._validate import as_choice
from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, read_bytes
from tilecast.io._shapes import Shape, rasterise

if TYPE_CHECKING:
    from tilecast.tiles import TileMap

__all__ = ["FLAG_BITS", "decode_gids", "load_tiled"]

FLIP_H, FLIP_V, FLIP_D, ROTATE_HEX = 0x80000000, 0x40000000, 0x20000000, 0x10000000
#: All four flag bits of a Tiled GID.
FLAG_BITS = FLIP_H | FLIP_V | FLIP_D | ROTATE_HEX
SOLIDITY = ("auto", "property", "collision", "alpha", "any")
RESULTS = ("grid", "tilemap")


@dataclass
class _Tileset:
    firstgid: int
    tilecount: int
    tilewidth: int
    tileheight: int
    columns: int = 0
    margin: int = 0
    spacing: int = 0
    image: Path | None = None
    # tile id -> {property name (None when the file gives none): value}
    properties: dict[int, dict[str | None, Any]] = field(default_factory=dict)
    shapes: dict[int, list[Shape]] = field(default_factory=dict)
    where: str = ""


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


# ----------------------------------------------------------------- decoding
def _decode_data(
    where: str, text: str, encoding: str | None, compression: str | None, n: int
) -> NDArray[np.int64]:
    if encoding == "csv":
        parts = [p for p in text.replace("\n", ",").replace("\r", ",").split(",") if p.strip()]
        try:
            values = np.array([int(p) for p in parts], dtype=np.int64)
        except ValueError:
            raise MapLoadError(
                f"{where}: CSV tile data holds something that is not a number"
            ) from None
    elif encoding == "base64":
        try:
            data = base64.b64decode(text.strip(), validate=False)
        except (binascii.Error, ValueError) as exc:
            raise MapLoadError(f"{where}: bad base64 tile data ({exc})") from None
        if compression in ("zlib", "gzip"):
            try:
                data = zlib.decompress(data) if compression == "zlib" else gzip.decompress(data)
            except (zlib.error, OSError, EOFError) as exc:
                raise MapLoadError(f"{where}: corrupt {compression} tile data ({exc})") from None
        elif compression == "zstd":
            raise MapLoadError(
                f"{where}: zstd-compressed tile data is not supported; "
                "save the map with zlib or gzip compression, or CSV"
            )
        elif compression not in (None, ""):
            raise MapLoadError(f"{where}: unknown compression {compression!r}")
        if len(data) != 4 * n:
            raise MapLoadError(
                f"{where}: tile data holds {len(data)} bytes, expected {4 * n} ({n} tiles)"
            )
        values = np.frombuffer(data, dtype="<u4").astype(np.int64)
    else:
        raise MapLoadError(f"{where}: unknown tile data encoding {encoding!r}")
    if len(values) != n:
        raise MapLoadError(f"{where}: tile data holds {len(values)} tiles, expected {n}")
    if (values < 0).any() or (values > 0xFFFFFFFF).any():
        raise MapLoadError(f"{where}: tile ids must be 32-bit unsigned numbers")
    return values


def _int(where: str, value: Any, name: str, default: int | None = None) -> int:
    if value is None:
        if default is None:
            raise MapLoadError(f"{where}: missing '{name}'")
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise MapLoadError(f"{where}: '{name}' must be an integer, got {value!r}") from None
    return number


def _float(where: str, value: Any, name: str) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        raise MapLoadError(f"{where}: '{name}' must be a number, got {value!r}") from None


def _property_value(kind: str | None, value: Any) -> Any:
    if kind == "bool" and isinstance(value, str):
        return value.lower() == "true"
    if kind in ("int", "float") and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


# ------------------------------------------------------------ XML (TMX/TSX)
def _parse_xml(path: Path, data: bytes) -> ET.Element:
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise MapLoadError(f"{path}: malformed XML ({exc})") from None


def _xml_shapes(where: str, group: ET.Element) -> list[Shape]:
    shapes = []
    for obj in group.iter("object"):
        x, y = _float(where, obj.get("x"), "x"), _float(where, obj.get("y"), "y")
        w, h = _float(where, obj.get("width"), "width"), _float(where, obj.get("height"), "height")
        rotation = _float(where, obj.get("rotation"), "rotation")
        polygon = obj.find("polygon")
        if polygon is not None:
            try:
                points = tuple(
                    (float(a), float(b))
                    for a, b in (p.split(",") for p in (polygon.get("points") or "").split())
                )
            except ValueError:
                raise MapLoadError(f"{where}: bad polygon points") from None
            shapes.append(Shape("polygon", x, y, rotation=rotation, points=points))
        elif obj.find("ellipse") is not None:
            shapes.append(Shape("ellipse", x, y, w, h, rotation))
        elif obj.find("polyline") is None and obj.find("point") is None:
            shapes.append(Shape("rect", x, y, w, h, rotation))
    return shapes


def _xml_tileset(path: Path, node: ET.Element, firstgid: int) -> _Tileset:
    where = f"{path} (tileset {node.get('name', '?')!r})"
    tw, th = (
        _int(where, node.get("tilewidth"), "tilewidth"),
        _int(where, node.get("tileheight"), "tileheight"),
    )
    image = node.find("image")
    tileset = _Tileset(
        firstgid=firstgid,
        tilecount=_int(where, node.get("tilecount"), "tilecount", 0),
        tilewidth=tw,
        tileheight=th,
        columns=_int(where, node.get("columns"), "columns", 0),
        margin=_int(where, node.get("margin"), "margin", 0),
        spacing=_int(where, node.get("spacing"), "spacing", 0),
        image=(path.parent / image.get("source", "")) if image is not None else None,
        where=where,
    )
    for tile in node.findall("tile"):
        local = _int(where, tile.get("id"), "tile id")
        tileset.tilecount = max(tileset.tilecount, local + 1)
        props = tile.find("properties")
        if props is not None:
            tileset.properties[local] = {
                p.get("name"): _property_value(p.get("type"), p.get("value", p.text))
                for p in props.findall("property")
            }
        group = tile.find("objectgroup")
        if group is not None:
            tileset.shapes[local] = _xml_shapes(f"{where}, tile {local}", group)
    return tileset


def _xml_layers(
    path: Path, root: ET.Element, width: int, height: int
) -> dict[str, NDArray[np.int64]]:
    layers: dict[str, NDArray[np.int64]] = {}
    for layer in root.iter("layer"):
        name = layer.get("name", f"layer {len(layers)}")
        where = f"{path} (layer {name!r})"
        data = layer.find("data")
        if data is None:
            raise MapLoadError(f"{where}: no <data>")
        if data.find("chunk") is not None:
            raise MapLoadError(f"{where}: infinite maps (chunked layers) are not supported")
        n = width * height
        encoding = data.get("encoding")
        if encoding is None:
            tiles = data.findall("tile")
            values = np.array([_int(where, t.get("gid"), "gid", 0) for t in tiles], dtype=np.int64)
            if len(values) != n:
                raise MapLoadError(f"{where}: tile data holds {len(values)} tiles, expected {n}")
        else:
            values = _decode_data(where, data.text or "", encoding, data.get("compression"), n)
        layers[name] = values.reshape(height, width)
    return layers


def _load_tmx(
    path: Path, data: bytes
) -> tuple[dict[str, Any], list[_Tileset], dict[str, NDArray[np.int64]]]:
    root = _parse_xml(path, data)
    if root.tag != "map":
        raise MapLoadError(f"{path}: not a Tiled map (root element <{root.tag}>)")
    meta = {key: root.get(key) for key in ("orientation", "width", "height", "infinite")}
    meta["tilewidth"], meta["tileheight"] = root.get("tilewidth"), root.get("tileheight")
    tilesets = []
    for node in root.findall("tileset"):
        firstgid = _int(str(path), node.get("firstgid"), "firstgid")
        source = node.get("source")
        if source is not None:
            tilesets.append(_external_tileset(path, source, firstgid))
        else:
            tilesets.append(_xml_tileset(path, node, firstgid))
    width, height = (
        _int(str(path), meta["width"], "width"),
        _int(str(path), meta["height"], "height"),
    )
    _check_map(path, meta, width, height)
    return meta, tilesets, _xml_layers(path, root, width, height)


# ------------------------------------------------------------- JSON (TMJ/TSJ)
def _json_shapes(where: str, group: dict[str, Any]) -> list[Shape]:
    shapes = []
    for obj in group.get("objects", []):
        x, y = _float(where, obj.get("x"), "x"), _float(where, obj.get("y"), "y")
        w, h = _float(where, obj.get("width"), "width"), _float(where, obj.get("height"), "height")
        rotation = _float(where, obj.get("rotation"), "rotation")
        if "polygon" in obj:
            try:
                points = tuple((float(p["x"]), float(p["y"])) for p in obj["polygon"])
            except (KeyError, TypeError, ValueError):
                raise MapLoadError(f"{where}: bad polygon points") from None
            shapes.append(Shape("polygon", x, y, rotation=rotation, points=points))
        elif obj.get("ellipse"):
            shapes.append(Shape("ellipse", x, y, w, h, rotation))
        elif not obj.get("point") and "polyline" not in obj:
            shapes.append(Shape("rect", x, y, w, h, rotation))
    return shapes


def _json_tileset(path: Path, node: dict[str, Any], firstgid: int) -> _Tileset:
    where = f"{path} (tileset {node.get('name', '?')!r})"
    image = node.get("image")
    tileset = _Tileset(
        firstgid=firstgid,
        tilecount=_int(where, node.get("tilecount"), "tilecount", 0),
        tilewidth=_int(where, node.get("tilewidth"), "tilewidth"),
        tileheight=_int(where, node.get("tileheight"), "tileheight"),
        columns=_int(where, node.get("columns"), "columns", 0),
        margin=_int(where, node.get("margin"), "margin", 0),
        spacing=_int(where, node.get("spacing"), "spacing", 0),
        image=(path.parent / image) if image else None,
        where=where,
    )
    for tile in node.get("tiles", []):
        local = _int(where, tile.get("id"), "tile id")
        tileset.tilecount = max(tileset.tilecount, local + 1)
        if "properties" in tile:
            tileset.properties[local] = {
                p.get("name"): _property_value(p.get("type"), p.get("value"))
                for p in tile["properties"]
            }
        if "objectgroup" in tile:
            tileset.shapes[local] = _json_shapes(f"{where}, tile {local}", tile["objectgroup"])
    return tileset


def _json_layers(
    path: Path, layers: list[Any], width: int, height: int
) -> dict[str, NDArray[np.int64]]:
    found: dict[str, NDArray[np.int64]] = {}

    def walk(items: list[Any]) -> None:
        for layer in items:
            if not isinstance(layer, dict):
                raise MapLoadError(f"{path}: a layer is not a JSON object")
            if layer.get("type") == "group":
                walk(layer.get("layers", []))
                continue
            if layer.get("type") != "tilelayer":
                continue
            name = layer.get("name", f"layer {len(found)}")
            where = f"{path} (layer {name!r})"
            if "chunks" in layer:
                raise MapLoadError(f"{where}: infinite maps (chunked layers) are not supported")
            data = layer.get("data")
            n = width * height
            if isinstance(data, list):
                if not all(isinstance(v, int) and not isinstance(v, bool) for v in data):
                    raise MapLoadError(f"{where}: tile data must be integers")
                values = np.array(data, dtype=np.int64)
                if len(values) != n:
                    raise MapLoadError(
                        f"{where}: tile data holds {len(values)} tiles, expected {n}"
                    )
                if (values < 0).any() or (values > 0xFFFFFFFF).any():
                    raise MapLoadError(f"{where}: tile ids must be 32-bit unsigned numbers")
            elif isinstance(data, str):
                encoding = layer.get("encoding", "base64")
                values = _decode_data(where, data, encoding, layer.get("compression"), n)
            else:
                raise MapLoadError(f"{where}: missing tile 'data'")
            found[name] = values.reshape(height, width)

    walk(layers)
    return found


def _load_json(
    path: Path, data: bytes
) -> tuple[dict[str, Any], list[_Tileset], dict[str, NDArray[np.int64]]]:
    try:
        root = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MapLoadError(f"{path}: malformed JSON ({exc})") from None
    if not isinstance(root, dict) or root.get("type", "map") != "map" or "layers" not in root:
        raise MapLoadError(f"{path}: not a Tiled JSON map (no 'layers')")
    meta = {k: root.get(k) for k in ("orientation", "width", "height", "infinite")}
    meta["tilewidth"], meta["tileheight"] = root.get("tilewidth"), root.get("tileheight")
    tilesets = []
    for node in root.get("tilesets", []):
        firstgid = _int(str(path), node.get("firstgid"), "firstgid")
        if "source" in node:
            tilesets.append(_external_tileset(path, node["source"], firstgid))
        else:
            tilesets.append(_json_tileset(path, node, firstgid))
    width, height = (
        _int(str(path), meta["width"], "width"),
        _int(str(path), meta["height"], "height"),
    )
    _check_map(path, meta, width, height)
    return meta, tilesets, _json_layers(path, root["layers"], width, height)


def _external_tileset(path: Path, source: str, firstgid: int) -> _Tileset:
    tileset_path = path.parent / source
    if not tileset_path.is_file():
        raise MapLoadError(f"{path}: tileset {source!r} not found (looked for {tileset_path})")
    data = read_bytes(tileset_path)
    if tileset_path.suffix.lower() in (".tsj", ".json"):
        try:
            node = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise MapLoadError(f"{tileset_path}: malformed JSON ({exc})") from None
        if not isinstance(node, dict):
            raise MapLoadError(f"{tileset_path}: not a Tiled tileset")
        return _json_tileset(tileset_path, node, firstgid)
    root = _parse_xml(tileset_path, data)
    if root.tag != "tileset":
        raise MapLoadError(f"{tileset_path}: not a Tiled tileset (root element <{root.tag}>)")
    return _xml_tileset(tileset_path, root, firstgid)


def _check_map(path: Path, meta: dict[str, Any], width: int, height: int) -> None:
    if meta.get("orientation") not in (None, "orthogonal"):
        raise MapLoadError(
            f"{path}: only orthogonal maps are supported, not {meta['orientation']!r}"
        )
    if str(meta.get("infinite", "0")).lower() in ("1", "true"):
        raise MapLoadError(f"{path}: infinite maps (chunked layers) are not supported")
    if width <= 0 or height <= 0:
        raise MapLoadError(f"{path}: the map size must be positive, got {width} x {height}")
    for key in ("tilewidth", "tileheight"):
        if _int(str(path), meta.get(key), key) <= 0:
            raise MapLoadError(f"{path}: '{key}' must be positive")


# ------------------------------------------------------------------- solidity
def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


def _choose_solidity(
    tilesets: list[_Tileset], solid: str | Collection[int], solid_property: str
) -> str | Collection[int]:
    if solid != "auto":
        return solid
    if any(solid_property in props for ts in tilesets for props in ts.properties.values()):
        return "property"
    if any(ts.shapes for ts in tilesets):
        return "collision"
    return "any"


def _tile_masks(
    path: Path,
    tilesets: list[_Tileset],
    solidity: str | Collection[int],
    solid_property: str,
    alpha: float,
) -> tuple[NDArray[np.bool_], int, int]:
    """Masks for every GID 1..max (index gid - 1), and the tile size they share."""
    if not tilesets:
        raise MapLoadError(f"{path}: the map has no tilesets")
    sizes = {(ts.tilewidth, ts.tileheight) for ts in tilesets}
    if len(sizes) != 1:
        raise MapLoadError(f"{path}: tilesets of different tile sizes {sorted(sizes)}")
    (tw, th) = sizes.pop()
    total = max(ts.firstgid - 1 + ts.tilecount for ts in tilesets)
    masks = np.zeros((total, th, tw), dtype=np.bool_)
    solid_ids = None if isinstance(solidity, str) else {int(g) for g in solidity}
    for ts in tilesets:
        base = ts.firstgid - 1
        if solid_ids is not None:
            for local in range(ts.tilecount):
                masks[base + local] = (base + local + 1) in solid_ids
        elif solidity == "any":
            masks[base : base + ts.tilecount] = True
        elif solidity == "property":
            for local, props in ts.properties.items():
                masks[base + local] = _truthy(props.get(solid_property, False))
        elif solidity == "collision":
            for local, shapes in ts.shapes.items():
                masks[base + local] = rasterise(shapes, tw, th)
        else:  # alpha
            from tilecast.tiles import TileSet

            if ts.image is None:
                raise MapLoadError(f"{ts.where}: solid='alpha' needs a tileset image")
            if not ts.image.is_file():
                raise MapLoadError(f"{ts.where}: tileset image {ts.image} not found")
            try:
                tiles = TileSet.from_image(
                    ts.image, (tw, th), alpha, margin=ts.margin, spacing=ts.spacing
                )
            except (ValueError, OSError) as exc:
                raise MapLoadError(f"{ts.where}: cannot read the tileset image ({exc})") from None
            count = min(len(tiles), ts.tilecount or len(tiles))
            masks[base : base + count] = tiles.masks[:count]
    return masks, tw, th


# ------------------------------------------------------------------ loading
def load_tiled(
    path: Any,
    layer: str | list[str] | None = None,
    *,
    solid: str | Collection[int] = "auto",
    solid_property: str = "solid",
    result: str = "grid",
    alpha_threshold: float = 0,
    outside: str = "empty",
) -> Grid | TileMap:
    """Load a Tiled map (``.tmx`` XML or ``.tmj``/``.json``) as a Grid or a TileMap.

    Parameters
    ----------
    path : str or os.PathLike
        The map file; external tilesets (``.tsx``/``.tsj``) and tileset
        images are found relative to it.
    layer : str or list of str, optional
        The tile layer(s) to read, by name (layers inside groups count too).
        Default: the first tile layer. With several names (Grid only) a cell
        is solid when it is solid in any of them.
    solid : {"auto", "property", "collision", "alpha", "any"} or set of int
        Which tiles are solid: ``"property"``: tiles whose custom property
        ``solid_property`` is true (whole tile); ``"collision"``: the
        rectangles, polygons and ellipses drawn in Tiled's collision editor,
        rasterised by pixel centre; ``"alpha"``: the opaque pixels of the
        tileset image (needs Pillow); ``"any"``: every non-empty tile; a set
        of GIDs (as stored in the file, without flag bits): those tiles,
        whole. ``"auto"`` takes ``"property"`` if any tile has the property,
        else ``"collision"`` if any tile has shapes, else ``"any"``.
    solid_property : str, default "solid"
        The custom property for ``solid="property"``.
    result : {"grid", "tilemap"}, default "grid"
        A :class:`~tilecast.Grid` (a cell is solid when any pixel of its tile
        is) or a pixel-exact :class:`~tilecast.TileMap` with the file's flips.
    alpha_threshold : float, default 0
        For ``solid="alpha"``: a pixel is solid when its alpha is greater.
    outside : {"empty", "solid"}, default "empty"
        What lies beyond the map.

    Returns
    -------
    Grid or TileMap
        In Tiled's pixel units, y down, origin at the map's top-left corner.

    Raises
    ------
    MapLoadError
        Malformed XML/JSON, missing tilesets or layers, unknown encodings or
        compressions, data of the wrong size, GIDs beyond every tileset.

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
    """
    as_choice("result", result, RESULTS)
    as_choice("outside", outside, ("empty", "solid"))
    if isinstance(solid, str):
        as_choice("solid", solid, SOLIDITY)
    elif not isinstance(solid, Collection) or not all(
        isinstance(g, int | np.integer) and not isinstance(g, bool) for g in solid
    ):
        raise TypeError("solid must be one of " + ", ".join(SOLIDITY) + " or a set of tile GIDs")
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a path (str or os.PathLike), got {type(path).__name__}")
    path = Path(path)
    data = read_bytes(path)
    if path.suffix.lower() == ".tmx" or data.lstrip()[:1] == b"<":
        meta, tilesets, layers = _load_tmx(path, data)
    else:
        meta, tilesets, layers = _load_json(path, data)
    if not layers:
        raise MapLoadError(f"{path}: the map has no tile layers")
    names = [next(iter(layers))] if layer is None else [layer] if isinstance(layer, str) else layer
    if not isinstance(names, list | tuple) or not names:
        raise TypeError("layer must be a layer name or a list of names")
    for name in names:
        if name not in layers:
            raise MapLoadError(f"{path}: no tile layer {name!r} (layers: {list(layers)})")
    if result == "tilemap" and len(names) != 1:
        raise ValueError("result='tilemap' reads one layer; pass a single layer name")
    solidity = _choose_solidity(tilesets, solid, solid_property)
    masks, tw, th = _tile_masks(path, tilesets, solidity, solid_property, alpha_threshold)
    map_tw = _int(str(path), meta["tilewidth"], "tilewidth")
    map_th = _int(str(path), meta["tileheight"], "tileheight")
    # any() along axis 1 of a 2D array is an array (numpy types it array-or-scalar)
    tile_solid = cast("NDArray[np.bool_]", masks.reshape(len(masks), -1).any(axis=1))
    solid_cells = None
    for name in names:
        ids, flips = decode_gids(layers[name])
        if (ids > len(masks)).any():
            bad = int(ids[ids > len(masks)][0])
            raise MapLoadError(
                f"{path} (layer {name!r}): tile GID {bad} is not in any tileset "
                f"(the tilesets cover 1..{len(masks)})"
            )
        present = ids > 0
        cells = present & tile_solid[np.maximum(ids - 1, 0)]
        solid_cells = cells if solid_cells is None else solid_cells | cells
    if result == "grid":
        return Grid(solid_cells, tile_size=(map_tw, map_th), outside=outside)
    from tilecast.tiles import TileMap, TileSet

    if (tw, th) != (map_tw, map_th):
        raise MapLoadError(
            f"{path}: tileset tiles are {tw}x{th} pixels but the map's cells {map_tw}x{map_th}; "
            "a TileMap needs them equal"
        )
    try:
        return TileMap(
            np.where(present, ids - 1, -1),
            TileSet(masks),
            flips=np.where(present, flips, 0),
            outside=outside,
        )
    except ValueError as exc:
        raise MapLoadError(f"{path}: {exc}") from None
