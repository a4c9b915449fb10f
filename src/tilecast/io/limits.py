"""How far a loader trusts a file: size limits, and where the files a map names may lie.

Maps come from strangers: a 2 KB file can declare a billion cells, a 50 KB
PNG can decode to gigabytes, a JSON file can nest a hundred thousand levels.
Every loader checks these :class:`Limits` **before** it allocates (from the
declared sizes, the image header, while decompressing) and raises
:class:`~tilecast.io.MapLoadError` naming the limit and how to raise it.
With ``root=``, every file a map refers to must lie inside that folder.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, cast

import numpy as np

from tilecast._validate import as_path
from tilecast.io._common import MapLoadError, excerpt, read_bytes

__all__ = [
    "DEFAULT_LIMITS",
    "Limits",
    "as_limits",
    "check_depth",
    "inside_root",
    "is_file",
    "parse_json",
    "parse_xml",
    "read_limited",
]


@dataclass(frozen=True)
class Limits:
    r"""The largest map a loader accepts; the defaults are far beyond any real map.

    Parameters
    ----------
    max_cells : int, default 2**28
        Cells in one map or layer (rows times columns).
    max_pixels : int, default 2**27
        Pixels in one image (read from the header, before decoding), and
        pixels of all tile masks of a tileset together. The largest
        public occupancy map we know (range_libc's 10976 x 10976) fits.
    max_bytes : int, default 2**30
        Bytes of a map file, and bytes of tile data after decompression
        (checked while decompressing).
    max_depth : int, default 100
        Nesting depth of JSON arrays and objects, XML elements and YAML
        collections.
    max_tile_id : int, default 2**24
        The largest tile id (a Tiled GID without its flag bits, a
        ``firstgid``, an LDtk tile id).
    max_tiles : int, default 2**20
        Tiles in one tileset (Tiled's ``tilecount``, LDtk's columns times rows).

    Examples
    --------
    >>> from tilecast.io import Limits, MapLoadError, load_ascii
    >>> try:
    ...     load_ascii("####\n#..#\n####\n", limits=Limits(max_cells=10))
    ... except MapLoadError as exc:
    ...     print(exc)
    <text>: 12 cells, more than max_cells=10 (raise it with limits=Limits(max_cells=...))
    >>> load_ascii("####\n#..#\n####\n", limits=Limits(max_cells=12)).shape
    (3, 4)
    """

    max_cells: int = 2**28
    max_pixels: int = 2**27
    max_bytes: int = 2**30
    max_depth: int = 100
    max_tile_id: int = 2**24
    max_tiles: int = 2**20

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value <= 0:
                raise ValueError(f"Limits.{item.name} must be a positive integer, got {value!r}")

    def check(self, where: str, name: str, value: int, what: str) -> None:
        """Raise :class:`MapLoadError` when ``value`` exceeds the limit ``name``.

        Examples
        --------
        >>> Limits().check("m.txt", "max_cells", 12, "cells")
        >>> Limits(max_cells=10).check("m.txt", "max_cells", 12, "cells")
        Traceback (most recent call last):
        ...
        tilecast.io._common.MapLoadError: m.txt: 12 cells, more than max_cells=10 (raise it with limits=Limits(max_cells=...))
        """  # noqa: E501
        limit = getattr(self, name)
        if value > limit:
            raise MapLoadError(
                f"{where}: {value} {what}, more than {name}={limit} "
                f"(raise it with limits=Limits({name}=...))"
            )


#: The limits a loader applies when it is given none.
DEFAULT_LIMITS = Limits()


def as_limits(limits: Any) -> Limits:
    """Return ``limits`` (a :class:`Limits`, or None for the defaults), checked.

    Examples
    --------
    >>> as_limits(None).max_depth
    100
    """
    if limits is None:
        return DEFAULT_LIMITS
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a tilecast.io.Limits, got {type(limits).__name__}")
    return limits


def inside_root(where: str, path: Path, root: Any, what: str) -> Path:
    """Return ``path``; with a ``root``, first check it resolves (symlinks too) inside it.

    ``where`` names the map in the message, ``what`` the reference (for
    example ``"tileset 'walls.tsx'"``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> inside_root("m.tmx", folder / "a.tsx", folder, "tileset 'a.tsx'") == folder / "a.tsx"
    True
    >>> inside_root("m.tmx", folder / ".." / "a.tsx", folder, "tileset '../a.tsx'")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tilecast.io._common.MapLoadError: m.tmx: tileset '../a.tsx' lies outside the root folder ...
    """
    if "\x00" in os.fspath(path) or len(os.fspath(path)) > 4096:
        raise MapLoadError(f"{where}: {what}: not a usable file name")
    if root is None:
        return path
    real_root = os.path.realpath(as_path("root", root))
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        raise MapLoadError(
            f"{where}: {what} lies outside the root folder {os.fspath(root)} "
            f"(it resolves to {real})"
        )
    return path


def is_file(path: Path) -> bool:
    """Tell whether ``path`` is a file; a name the system refuses (too long) is not one.

    Examples
    --------
    >>> is_file(Path("x" * 300))
    False
    """
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPEN = np.zeros(256, dtype=np.int64)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


def check_depth(where: str, data: bytes, limits: Limits) -> None:
    """Refuse JSON (or flow-style YAML) text that nests deeper than ``limits.max_depth``.

    Counts brackets outside strings in one vectorised pass, so that a
    hostile file is refused before a recursive parser sees it.

    Examples
    --------
    >>> check_depth("a.json", b'{"a": [[1], "[[[["]}', Limits(max_depth=3))
    >>> check_depth("a.json", b"[[[[]]]]", Limits(max_depth=3))
    Traceback (most recent call last):
    ...
    tilecast.io._common.MapLoadError: a.json: 4 levels of nesting, more than max_depth=3 (raise it with limits=Limits(max_depth=...))
    """  # noqa: E501
    if data.count(b"[") + data.count(b"{") <= limits.max_depth:
        return
    bare = _JSON_STRING.sub(b'""', data)
    steps = _OPEN[np.frombuffer(bare, dtype=np.uint8)]
    depth = int(np.cumsum(steps).max(initial=0))
    limits.check(where, "max_depth", depth, "levels of nesting")


def read_limited(path: Path, limits: Limits, root: Any = None, what: str = "the map") -> bytes:
    """Read a whole file of at most ``limits.max_bytes`` (inside ``root`` when given).

    Examples
    --------
    >>> from tilecast.data import example_path
    >>> len(read_limited(example_path(), Limits())) > 0
    True
    """
    inside_root(os.fspath(path), path, root, what)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise MapLoadError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    limits.check(os.fspath(path), "max_bytes", size, "bytes in the file")
    return read_bytes(path)


def parse_json(where: str, data: bytes, limits: Limits) -> Any:
    """Parse JSON text after checking its nesting depth; errors are :class:`MapLoadError`.

    Examples
    --------
    >>> parse_json("a.json", b'{"a": [1, 2]}', Limits())
    {'a': [1, 2]}
    """
    check_depth(where, data, limits)
    try:
        return json.loads(data)
    except RecursionError:
        raise MapLoadError(f"{where}: JSON nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, huge integers
        raise MapLoadError(f"{where}: malformed JSON ({excerpt(str(exc))})") from None


_DTD = re.compile(rb"<!ENTITY|<!DOCTYPE[^>\[]*\[", re.IGNORECASE)


def parse_xml(where: str, data: bytes, limits: Limits) -> ET.Element:
    """Parse XML safely: no DTD entities (billion laughs), at most ``max_depth`` levels.

    A plain ``<!DOCTYPE map SYSTEM "...">`` line (old Tiled files) is fine;
    external DTDs are never fetched.

    Examples
    --------
    >>> parse_xml("m.tmx", b"<map><layer/></map>", Limits())[0].tag
    'layer'
    >>> parse_xml("m.tmx", b'<!DOCTYPE m [<!ENTITY a "b">]><map/>', Limits())
    Traceback (most recent call last):
    ...
    tilecast.io._common.MapLoadError: m.tmx: XML entity declarations are not allowed in a map
    """
    if _DTD.search(data):
        raise MapLoadError(f"{where}: XML entity declarations are not allowed in a map")
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    depth = 0
    root: ET.Element | None = None
    try:
        for start in range(0, len(data), 1 << 16):
            parser.feed(data[start : start + (1 << 16)])
            for item in parser.read_events():
                event, element = cast("tuple[str, ET.Element]", item)
                if event == "start":
                    depth += 1
                    limits.check(where, "max_depth", depth, "levels of nesting")
                    if root is None:
                        root = element
                else:
                    depth -= 1
        parser.close()
    except MapLoadError:
        raise
    except (ET.ParseError, LookupError, ValueError) as exc:  # LookupError: unknown encoding
        raise MapLoadError(f"{where}: malformed XML ({excerpt(str(exc))})") from None
    if root is None:
        raise MapLoadError(f"{where}: empty XML document")
    return root
