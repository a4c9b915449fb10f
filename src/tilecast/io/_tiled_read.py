"""Reading Tiled files (TMX/TSX XML, TMJ/TSJ JSON) into plain records; no solidity here.

The readers follow Tiled's documentation of both formats: tile data in CSV,
XML ``<tile>`` elements, base64 raw, zlib, gzip or zstd; infinite maps as
chunks; tilesets inline or external, with an image (``trans`` colour key
included) or as a collection of images; per-tile properties and collision
shapes; layers nested in groups; object layers. Every size a file declares
is checked against :class:`~tilecast.io.limits.Limits` before anything is
allocated, and every file a map names against ``root``.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast.io._common import MapLoadError, excerpt
from tilecast.io._shapes import Shape
from tilecast.io.limits import Limits, inside_root, is_file, parse_json, parse_xml, read_limited

__all__ = ["ObjectLayer", "TileInfo", "TileLayer", "TiledMap", "Tileset", "read_map"]


@dataclass
class TileInfo:
    """What a tileset says about one tile."""

    properties: dict[str, Any] = field(default_factory=dict)
    kind: str | None = None  # the tile's class (Tiled 1.9+) or type (before)
    shapes: list[Shape] | None = None
    image: Path | None = None  # image-collection tilesets
    size: tuple[int, int] | None = None  # its image's (width, height), when given


@dataclass
class Tileset:
    """One tileset, inline or external."""

    firstgid: int
    tilewidth: int
    tileheight: int
    where: str
    tilecount: int | None = None
    columns: int = 0
    margin: int = 0
    spacing: int = 0
    image: Path | None = None
    image_size: tuple[int, int] | None = None
    trans: tuple[int, int, int] | None = None
    tiles: dict[int, TileInfo] = field(default_factory=dict)

    @property
    def collection(self) -> bool:
        """An image-collection tileset: one image per tile, no shared image."""
        return self.image is None and any(t.image is not None for t in self.tiles.values())


@dataclass
class TileLayer:
    """A tile layer: raw GIDs (flag bits kept) over the map's cells."""

    name: str  # the path through groups: "group/layer"
    gids: NDArray[np.int64]
    visible: bool
    properties: dict[str, Any]


@dataclass
class ObjectLayer:
    """An object layer: its shapes in map pixels."""

    name: str
    shapes: list[Shape]
    visible: bool
    properties: dict[str, Any]


@dataclass
class TiledMap:
    """A Tiled map as read: sizes in cells and pixels, tilesets, layers in file order."""

    path: Path
    cols: int
    rows: int
    tilewidth: int
    tileheight: int
    origin_cell: tuple[int, int] = (0, 0)  # infinite maps: the cell of grid cell (0, 0)
    tilesets: list[Tileset] = field(default_factory=list)
    tile_layers: list[TileLayer] = field(default_factory=list)
    object_layers: list[ObjectLayer] = field(default_factory=list)


# --------------------------------------------------------------- numbers
def _int(where: str, value: Any, name: str, default: int | None = None) -> int:
    if value is None:
        if default is None:
            raise MapLoadError(f"{where}: missing '{name}'")
        return default
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise MapLoadError(f"{where}: '{name}' must be an integer, got {excerpt(value)}")
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise MapLoadError(f"{where}: '{name}' must be an integer, got {excerpt(value)}") from None
    if abs(number) > 2**62:
        raise MapLoadError(f"{where}: '{name}' is out of range ({excerpt(value)})")
    return number


def _count(where: str, value: Any, name: str, default: int | None = None) -> int:
    number = _int(where, value, name, default)
    if number < 0:
        raise MapLoadError(f"{where}: '{name}' must not be negative, got {number}")
    return number


def _float(where: str, value: Any, name: str) -> float:
    if value is None or value == "":
        return 0.0
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise MapLoadError(f"{where}: '{name}' must be a number, got {excerpt(value)}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise MapLoadError(f"{where}: '{name}' must be a number, got {excerpt(value)}") from None
    if not math.isfinite(number):
        raise MapLoadError(f"{where}: '{name}' must be finite, got {excerpt(value)}")
    return number


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return value is True or (isinstance(value, int | float) and value == 1)


def _colour(where: str, value: Any) -> tuple[int, int, int] | None:
    if value is None or value == "":
        return None
    text = str(value).lstrip("#")
    if len(text) == 8:  # #AARRGGBB
        text = text[2:]
    try:
        if len(text) != 6:
            raise ValueError
        return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))
    except ValueError:
        raise MapLoadError(f"{where}: bad colour {excerpt(value)} (expected RRGGBB)") from None


def _size(where: str, get: Callable[[str], Any], width: str, height: str) -> tuple[int, int] | None:
    """Read an image's ``(width, height)`` with ``get``; None when one is missing."""
    if get(width) is None or get(height) is None:
        return None
    return _count(where, get(width), width), _count(where, get(height), height)


def _offset(where: str, get: Callable[[str], Any]) -> tuple[float, float]:
    """Read an object layer's ``(offsetx, offsety)`` with ``get`` (0 when not given)."""
    return _float(where, get("offsetx"), "offsetx"), _float(where, get("offsety"), "offsety")


def _placement(
    where: str, get: Callable[[str], Any], dx: float, dy: float
) -> tuple[float, float, float, float, float]:
    """Read an object's ``x + dx, y + dy, width, height, rotation`` with ``get``."""
    x = _float(where, get("x"), "x") + dx
    y = _float(where, get("y"), "y") + dy
    w, h = _float(where, get("width"), "width"), _float(where, get("height"), "height")
    return x, y, w, h, _float(where, get("rotation"), "rotation")


def _polygon(
    where: str, x: float, y: float, rotation: float, points: tuple[tuple[float, float], ...]
) -> Shape:
    """Return a polygon object's shape from its points (each must be finite)."""
    if not all(math.isfinite(a) and math.isfinite(b) for a, b in points):
        raise MapLoadError(f"{where}: bad polygon points")
    return Shape("polygon", x, y, rotation=rotation, points=points)


# ------------------------------------------------------------ tile data
def _decompress(where: str, data: bytes, compression: str, size: int) -> bytes:
    """Decompress at most ``size + 1`` bytes: more than ``size`` is an error, never a bomb."""
    if compression == "zstd":
        try:
            import zstandard  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise MapLoadError(
                f"{where}: zstd-compressed tile data needs the optional package 'zstandard' "
                "(pip install zstandard), or save the map with zlib, gzip or CSV"
            ) from None
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data))
            out: bytes = reader.read(size + 1)
        except zstandard.ZstdError as exc:
            raise MapLoadError(f"{where}: corrupt zstd tile data ({exc})") from None
    else:
        wbits = 15 if compression == "zlib" else 16 + 15
        try:
            out = zlib.decompressobj(wbits).decompress(data, size + 1)
        except zlib.error as exc:
            raise MapLoadError(f"{where}: corrupt {compression} tile data ({exc})") from None
    if len(out) > size:
        raise MapLoadError(
            f"{where}: the {compression} tile data holds more than the {size} bytes expected"
        )
    return out


def decode_data(
    where: str, data: Any, encoding: str | None, compression: str | None, n: int
) -> NDArray[np.int64]:
    """Decode ``n`` raw GIDs (flags kept) from any encoding Tiled writes."""
    if isinstance(data, list):  # JSON array
        if not all(type(v) is int for v in data):
            raise MapLoadError(f"{where}: tile data must be integers")
        if len(data) != n:
            raise MapLoadError(f"{where}: tile data holds {len(data)} tiles, expected {n}")
        if any(v < 0 or v > 0xFFFFFFFF for v in data):
            raise MapLoadError(f"{where}: tile ids must be 32-bit unsigned numbers")
        return np.array(data, dtype=np.int64).reshape(-1)
    if not isinstance(data, str):
        raise MapLoadError(f"{where}: missing tile data")
    if encoding == "csv":
        parts = [p for p in data.replace("\n", ",").replace("\r", ",").split(",") if p.strip()]
        try:
            values = np.array([int(p) for p in parts[: n + 1]], dtype=np.int64)
        except (ValueError, OverflowError):
            raise MapLoadError(
                f"{where}: CSV tile data holds something that is not a number"
            ) from None
        if len(parts) != n:
            raise MapLoadError(f"{where}: tile data holds {len(parts)} tiles, expected {n}")
        if n and (values.min() < 0 or values.max() > 0xFFFFFFFF):
            raise MapLoadError(f"{where}: tile ids must be 32-bit unsigned numbers")
        return values
    if encoding != "base64":
        raise MapLoadError(f"{where}: unknown tile data encoding {excerpt(encoding)}")
    try:
        raw = base64.b64decode(data.strip(), validate=False)
    except (binascii.Error, ValueError) as exc:
        raise MapLoadError(f"{where}: bad base64 tile data ({exc})") from None
    if compression in ("zlib", "gzip", "zstd"):
        raw = _decompress(where, raw, compression, 4 * n)
    elif compression not in (None, ""):
        raise MapLoadError(f"{where}: unknown compression {excerpt(compression)}")
    if len(raw) != 4 * n:
        raise MapLoadError(
            f"{where}: tile data holds {len(raw)} bytes, expected {4 * n} ({n} tiles)"
        )
    return np.frombuffer(raw, dtype="<u4").astype(np.int64)


@dataclass
class _Chunk:
    x: int
    y: int
    width: int
    height: int
    values: NDArray[np.int64]


def _check_area(where: str, width: int, height: int, limits: Limits) -> int:
    if width < 0 or height < 0:
        raise MapLoadError(f"{where}: negative size {width} x {height}")
    limits.check(where, "max_cells", width * height, "cells")
    return width * height


def _place(
    where: str, chunks: list[_Chunk], x0: int, y0: int, cols: int, rows: int
) -> NDArray[np.int64]:
    grid = np.zeros((rows, cols), dtype=np.int64)
    for c in chunks:
        block = c.values.reshape(c.height, c.width)
        grid[c.y - y0 : c.y - y0 + c.height, c.x - x0 : c.x - x0 + c.width] = block
    return grid


# ---------------------------------------------------------------- reading
class _Reader:
    """State shared while one map is read: its path, root, limits and infinite flag."""

    def __init__(self, path: Path, root: Any, limits: Limits) -> None:
        self.path, self.root, self.limits = path, root, limits
        self.where = str(path)

    def ref(self, base: Path, source: Any, what: str) -> Path:
        if not isinstance(source, str) or not source:
            raise MapLoadError(f"{base}: {what} has no file name")
        return inside_root(str(base), base.parent / source, self.root, f"{what} {excerpt(source)}")

    def external_tileset(self, source: Any, firstgid: int) -> Tileset:
        path = self.ref(self.path, source, "tileset")
        if not is_file(path):
            raise MapLoadError(
                f"{self.path}: tileset {excerpt(source)} not found "
                f"(looked for {excerpt(str(path))})"
            )
        data = read_limited(path, self.limits, self.root, "the tileset")
        if path.suffix.lower() in (".tsj", ".json") or data.lstrip()[:1] == b"{":
            node = parse_json(str(path), data, self.limits)
            if not isinstance(node, dict):
                raise MapLoadError(f"{path}: not a Tiled tileset")
            return self.json_tileset(path, node, firstgid)
        element = parse_xml(str(path), data, self.limits)
        if element.tag != "tileset":
            raise MapLoadError(f"{path}: not a Tiled tileset (root element <{element.tag}>)")
        return self.xml_tileset(path, element, firstgid)

    def new_tileset(
        self, path: Path, where: str, firstgid: int, get: Callable[[str], Any]
    ) -> Tileset:
        limits = self.limits
        limits.check(where, "max_tile_id", firstgid, "as firstgid")
        if firstgid < 1:
            raise MapLoadError(f"{where}: 'firstgid' must be at least 1, got {firstgid}")
        tw, th = (
            _count(where, get("tilewidth"), "tilewidth"),
            _count(where, get("tileheight"), "tileheight"),
        )
        if tw == 0 or th == 0:
            raise MapLoadError(f"{where}: the tile size must be positive, got {tw} x {th}")
        limits.check(where, "max_pixels", tw * th, "pixels per tile")
        tilecount = get("tilecount")
        count = None if tilecount is None else _count(where, tilecount, "tilecount")
        if count is not None:
            limits.check(where, "max_tiles", count, "tiles (tilecount)")
        return Tileset(
            firstgid=firstgid,
            tilewidth=tw,
            tileheight=th,
            where=where,
            tilecount=count,
            columns=_count(where, get("columns"), "columns", 0),
            margin=_count(where, get("margin"), "margin", 0),
            spacing=_count(where, get("spacing"), "spacing", 0),
        )

    def add_tile(self, ts: Tileset, local: int, info: TileInfo) -> None:
        if local < 0:
            raise MapLoadError(f"{ts.where}: negative tile id {local}")
        self.limits.check(ts.where, "max_tile_id", ts.firstgid + local, "as a tile's GID")
        if len(ts.tiles) >= self.limits.max_tiles:
            self.limits.check(ts.where, "max_tiles", len(ts.tiles) + 1, "tiles")
        ts.tiles[local] = info

    # -------------------------------------------------------------- XML
    def xml_properties(self, where: str, node: ET.Element) -> dict[str, Any]:
        props: dict[str, Any] = {}
        group = node.find("properties")
        if group is not None:
            for prop in group.findall("property"):
                name = prop.get("name")
                if name is not None:
                    props[name] = prop.get("value", prop.text)
        return props

    def xml_shapes(
        self, where: str, group: ET.Element, dx: float = 0, dy: float = 0
    ) -> list[Shape]:
        shapes = []
        for obj in group.findall("object"):
            x, y, w, h, rotation = _placement(where, obj.get, dx, dy)
            polygon = obj.find("polygon")
            if polygon is not None:
                try:
                    points = tuple(
                        (float(a), float(b))
                        for a, b in (p.split(",") for p in (polygon.get("points") or "").split())
                    )
                except ValueError:
                    raise MapLoadError(f"{where}: bad polygon points") from None
                shapes.append(_polygon(where, x, y, rotation, points))
            elif obj.find("ellipse") is not None:
                shapes.append(Shape("ellipse", x, y, w, h, rotation))
            elif (
                obj.find("polyline") is None
                and obj.find("point") is None
                and obj.find("text") is None
            ):
                if obj.get("gid") is None:  # a tile object is a picture, not a shape
                    shapes.append(Shape("rect", x, y, w, h, rotation))
        return shapes

    def xml_tileset(self, path: Path, node: ET.Element, firstgid: int) -> Tileset:
        where = f"{path} (tileset {excerpt(node.get('name', '?'))})"
        ts = self.new_tileset(path, where, firstgid, node.get)
        image = node.find("image")
        if image is not None:
            ts.image = self.ref(path, image.get("source"), "tileset image")
            ts.trans = _colour(where, image.get("trans"))
            ts.image_size = _size(where, image.get, "width", "height")
        for tile in node.findall("tile"):
            local = _count(where, tile.get("id"), "tile id")
            info = TileInfo(properties=self.xml_properties(where, tile),
                             kind=tile.get("class") or tile.get("type"))  # fmt: skip
            tile_image = tile.find("image")
            if tile_image is not None:
                info.image = self.ref(path, tile_image.get("source"), f"image of tile {local}")
                info.size = _size(where, tile_image.get, "width", "height")
            group = tile.find("objectgroup")
            if group is not None:
                info.shapes = self.xml_shapes(f"{where}, tile {local}", group)
            self.add_tile(ts, local, info)
        return ts

    def xml_chunks(self, where: str, data: ET.Element, cols: int, rows: int) -> list[_Chunk]:
        encoding, compression = data.get("encoding"), data.get("compression")
        chunks = data.findall("chunk")
        if not chunks:
            raise MapLoadError(f"{where}: an infinite map's layer without <chunk>s")
        out = []
        for chunk in chunks:
            x, y = _int(where, chunk.get("x"), "x"), _int(where, chunk.get("y"), "y")
            w, h = (
                _count(where, chunk.get("width"), "width"),
                _count(where, chunk.get("height"), "height"),
            )
            n = _check_area(where, w, h, self.limits)
            out.append(_Chunk(x, y, w, h, self.xml_values(where, chunk, encoding, compression, n)))
        return out

    def xml_values(
        self, where: str, node: ET.Element, encoding: str | None, compression: str | None, n: int
    ) -> NDArray[np.int64]:
        if encoding is None:
            tiles = node.findall("tile")
            if len(tiles) != n:
                raise MapLoadError(f"{where}: tile data holds {len(tiles)} tiles, expected {n}")
            values = [_count(where, t.get("gid"), "gid", 0) for t in tiles]
            return decode_data(where, values, None, None, n)
        return decode_data(where, node.text or "", encoding, compression, n)

    def read_tmx(self, data: bytes) -> TiledMap:
        root = parse_xml(self.where, data, self.limits)
        if root.tag != "map":
            raise MapLoadError(f"{self.path}: not a Tiled map (root element <{root.tag}>)")
        tmap = self.new_map(root.get)
        tilesets = []
        for node in root.findall("tileset"):
            firstgid = _int(self.where, node.get("firstgid"), "firstgid")
            source = node.get("source")
            if source is not None:
                tilesets.append(self.external_tileset(source, firstgid))
            else:
                tilesets.append(self.xml_tileset(self.path, node, firstgid))
        tmap.tilesets = tilesets
        infinite = _bool(root.get("infinite", "0"))
        raw: list[tuple[str, list[_Chunk], bool, dict[str, Any]]] = []

        def walk(parent: ET.Element, prefix: str, visible: bool) -> None:
            for node in parent:
                name = prefix + (node.get("name") or "")
                shown = visible and node.get("visible", "1") != "0"
                where = f"{self.path} (layer {excerpt(name)})"
                if node.tag == "group":
                    walk(node, name + "/", shown)
                elif node.tag == "layer":
                    props = self.xml_properties(where, node)
                    data = node.find("data")
                    if data is None:
                        what = "an infinite map's layer" if infinite else "a layer"
                        raise MapLoadError(f"{where}: {what} without <data>")
                    if infinite:
                        raw.append(
                            (name, self.xml_chunks(where, data, tmap.cols, tmap.rows), shown, props)
                        )
                    else:
                        n = tmap.cols * tmap.rows
                        values = self.xml_values(
                            where, data, data.get("encoding"), data.get("compression"), n
                        )
                        raw.append(
                            (name, [_Chunk(0, 0, tmap.cols, tmap.rows, values)], shown, props)
                        )
                elif node.tag == "objectgroup":
                    shapes = self.xml_shapes(where, node, *_offset(where, node.get))
                    props = self.xml_properties(where, node)
                    tmap.object_layers.append(ObjectLayer(name, shapes, shown, props))

        walk(root, "", True)
        return self.finish(tmap, raw, infinite)

    # ------------------------------------------------------------- JSON
    def json_properties(self, where: str, node: dict[str, Any]) -> dict[str, Any]:
        props = node.get("properties")
        out: dict[str, Any] = {}
        if isinstance(props, list):  # Tiled 1.2+: a list of {name, type, value}
            for prop in props:
                if isinstance(prop, dict) and isinstance(prop.get("name"), str):
                    out[prop["name"]] = prop.get("value")
        elif isinstance(props, dict):  # before 1.2: a plain object
            out.update({str(k): v for k, v in props.items()})
        return out

    def json_shapes(self, where: str, group: Any, dx: float = 0, dy: float = 0) -> list[Shape]:
        objects = group.get("objects", []) if isinstance(group, dict) else None
        if not isinstance(objects, list):
            raise MapLoadError(f"{where}: 'objects' must be a list")
        shapes = []
        for obj in objects:
            if not isinstance(obj, dict):
                raise MapLoadError(f"{where}: an object is not a JSON object")
            x, y, w, h, rotation = _placement(where, obj.get, dx, dy)
            if "polygon" in obj:
                try:
                    points = tuple((float(p["x"]), float(p["y"])) for p in obj["polygon"])
                except (KeyError, TypeError, ValueError, OverflowError):
                    raise MapLoadError(f"{where}: bad polygon points") from None
                shapes.append(_polygon(where, x, y, rotation, points))
            elif obj.get("ellipse") is True:
                shapes.append(Shape("ellipse", x, y, w, h, rotation))
            elif not any(obj.get(k) for k in ("point", "polyline", "text", "gid")):
                shapes.append(Shape("rect", x, y, w, h, rotation))
        return shapes

    def json_tileset(self, path: Path, node: dict[str, Any], firstgid: int) -> Tileset:
        where = f"{path} (tileset {excerpt(node.get('name', '?'))})"
        ts = self.new_tileset(path, where, firstgid, node.get)
        if node.get("image"):
            ts.image = self.ref(path, node.get("image"), "tileset image")
            ts.trans = _colour(where, node.get("transparentcolor"))
            ts.image_size = _size(where, node.get, "imagewidth", "imageheight")
        tiles = node.get("tiles", [])
        if isinstance(tiles, dict):  # before Tiled 1.2: {"id": {...}}
            tiles = [dict(v, id=k) if isinstance(v, dict) else v for k, v in tiles.items()]
        if not isinstance(tiles, list):
            raise MapLoadError(f"{where}: 'tiles' must be a list")
        for tile in tiles:
            if not isinstance(tile, dict):
                raise MapLoadError(f"{where}: a tile is not a JSON object")
            local = _count(where, tile.get("id"), "tile id")
            kind = tile.get("class") or tile.get("type")
            info = TileInfo(properties=self.json_properties(where, tile),
                            kind=kind if isinstance(kind, str) else None)  # fmt: skip
            if tile.get("image"):
                info.image = self.ref(path, tile.get("image"), f"image of tile {local}")
                info.size = _size(where, tile.get, "imagewidth", "imageheight")
            if "objectgroup" in tile:
                info.shapes = self.json_shapes(f"{where}, tile {local}", tile["objectgroup"])
            self.add_tile(ts, local, info)
        return ts

    def read_json(self, data: bytes) -> TiledMap:
        doc = parse_json(self.where, data, self.limits)
        if not isinstance(doc, dict) or doc.get("type", "map") != "map" or "layers" not in doc:
            raise MapLoadError(f"{self.path}: not a Tiled JSON map (no 'layers')")
        tmap = self.new_map(doc.get)
        tilesets = doc.get("tilesets", [])
        if not isinstance(tilesets, list):
            raise MapLoadError(f"{self.path}: 'tilesets' must be a list")
        for node in tilesets:
            if not isinstance(node, dict):
                raise MapLoadError(f"{self.path}: a tileset is not a JSON object")
            firstgid = _int(self.where, node.get("firstgid"), "firstgid")
            if "source" in node:
                tmap.tilesets.append(self.external_tileset(node["source"], firstgid))
            else:
                tmap.tilesets.append(self.json_tileset(self.path, node, firstgid))
        infinite = _bool(doc.get("infinite", False))
        raw: list[tuple[str, list[_Chunk], bool, dict[str, Any]]] = []

        def walk(items: Any, prefix: str, visible: bool) -> None:
            if not isinstance(items, list):
                raise MapLoadError(f"{self.path}: 'layers' must be a list")
            for layer in items:
                if not isinstance(layer, dict):
                    raise MapLoadError(f"{self.path}: a layer is not a JSON object")
                name = prefix + str(layer.get("name", ""))
                shown = visible and layer.get("visible", True) is not False
                where = f"{self.path} (layer {excerpt(name)})"
                kind = layer.get("type")
                if kind == "group":
                    walk(layer.get("layers", []), name + "/", shown)
                elif kind == "tilelayer":
                    raw.append(
                        (
                            name,
                            self.json_chunks(where, layer, tmap, infinite),
                            shown,
                            self.json_properties(where, layer),
                        )
                    )
                elif kind == "objectgroup":
                    shapes = self.json_shapes(where, layer, *_offset(where, layer.get))
                    props = self.json_properties(where, layer)
                    tmap.object_layers.append(ObjectLayer(name, shapes, shown, props))

        walk(doc["layers"], "", True)
        return self.finish(tmap, raw, infinite)

    def json_chunks(
        self, where: str, layer: dict[str, Any], tmap: TiledMap, infinite: bool
    ) -> list[_Chunk]:
        encoding = layer.get("encoding", "csv")
        compression = layer.get("compression")
        if infinite or "chunks" in layer:
            chunks = layer.get("chunks")
            if not isinstance(chunks, list) or not chunks:
                raise MapLoadError(f"{where}: an infinite map's layer without 'chunks'")
            out = []
            for chunk in chunks:
                if not isinstance(chunk, dict):
                    raise MapLoadError(f"{where}: a chunk is not a JSON object")
                x, y = _int(where, chunk.get("x"), "x"), _int(where, chunk.get("y"), "y")
                w, h = (
                    _count(where, chunk.get("width"), "width"),
                    _count(where, chunk.get("height"), "height"),
                )
                n = _check_area(where, w, h, self.limits)
                values = decode_data(where, chunk.get("data"), encoding, compression, n)
                out.append(_Chunk(x, y, w, h, values))
            return out
        n = tmap.cols * tmap.rows
        values = decode_data(where, layer.get("data"), encoding, compression, n)
        return [_Chunk(0, 0, tmap.cols, tmap.rows, values)]

    # ----------------------------------------------------------- shared
    def new_map(self, get: Callable[[str], Any]) -> TiledMap:
        where = self.where
        orientation = get("orientation")
        if orientation not in (None, "orthogonal"):
            raise MapLoadError(
                f"{where}: only orthogonal maps are supported, not {excerpt(orientation)} "
                "(isometric, staggered and hexagonal cells are not squares on a grid)"
            )
        tw, th = (
            _count(where, get("tilewidth"), "tilewidth"),
            _count(where, get("tileheight"), "tileheight"),
        )
        if tw == 0 or th == 0:
            raise MapLoadError(f"{where}: 'tilewidth' and 'tileheight' must be positive")
        cols, rows = (
            _count(where, get("width"), "width", 0),
            _count(where, get("height"), "height", 0),
        )
        infinite = _bool(get("infinite") or False)
        if not infinite and (cols == 0 or rows == 0):
            raise MapLoadError(f"{where}: the map size must be positive, got {cols} x {rows}")
        if not infinite:
            _check_area(where, cols, rows, self.limits)
        return TiledMap(self.path, cols, rows, tw, th)

    def finish(
        self,
        tmap: TiledMap,
        raw: list[tuple[str, list[_Chunk], bool, dict[str, Any]]],
        infinite: bool,
    ) -> TiledMap:
        if infinite:
            chunks = [c for _, layer_chunks, _, _ in raw for c in layer_chunks]
            if not chunks:
                raise MapLoadError(f"{self.path}: an infinite map without tile layers")
            x0, y0 = min(c.x for c in chunks), min(c.y for c in chunks)
            x1 = max(c.x + c.width for c in chunks)
            y1 = max(c.y + c.height for c in chunks)
            tmap.cols, tmap.rows, tmap.origin_cell = x1 - x0, y1 - y0, (x0, y0)
            if tmap.cols <= 0 or tmap.rows <= 0:
                raise MapLoadError(f"{self.path}: an infinite map whose chunks are empty")
            _check_area(self.where, tmap.cols, tmap.rows, self.limits)
            self.limits.check(
                self.where, "max_cells", tmap.cols * tmap.rows * len(raw), "cells in all layers"
            )
        x0, y0 = tmap.origin_cell
        for name, layer_chunks, shown, props in raw:
            gids = _place(
                f"{self.path} (layer {excerpt(name)})", layer_chunks, x0, y0, tmap.cols, tmap.rows
            )
            tmap.tile_layers.append(TileLayer(name, gids, shown, props))
        return tmap


def read_map(path: Path, root: Any, limits: Limits) -> TiledMap:
    """Read a Tiled map file (TMX or TMJ/JSON, told apart by suffix and first byte)."""
    data = read_limited(path, limits, root)
    reader = _Reader(path, root, limits)
    if path.suffix.lower() == ".tmx" or data.lstrip()[:1] == b"<":
        return reader.read_tmx(data)
    return reader.read_json(data)
