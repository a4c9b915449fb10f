"""Pick a loader by file suffix: the ``MAP`` argument of the ``tilecast`` command."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tilecast._validate import as_path
from tilecast.io._common import MapLoadError

if TYPE_CHECKING:
    from tilecast.grid import Grid
    from tilecast.tiles import TileMap

__all__ = ["SUFFIXES", "load_map"]

#: File suffix -> loader module and function, in :func:`load_map`'s order.
SUFFIXES: dict[str, tuple[str, str]] = {
    ".txt": ("tilecast.io.ascii", "load_ascii"),
    ".map": ("tilecast.io.ascii", "load_ascii"),
    ".asc": ("tilecast.io.ascii", "load_ascii"),
    ".png": ("tilecast.io.image", "load_image"),
    ".bmp": ("tilecast.io.image", "load_image"),
    ".gif": ("tilecast.io.image", "load_image"),
    ".pgm": ("tilecast.io.image", "load_image"),
    ".jpg": ("tilecast.io.image", "load_image"),
    ".jpeg": ("tilecast.io.image", "load_image"),
    ".yaml": ("tilecast.io.ros", "load_ros_map"),
    ".yml": ("tilecast.io.ros", "load_ros_map"),
    ".ldtk": ("tilecast.io.ldtk", "load_ldtk"),
    ".tmx": ("tilecast.io.tiled", "load_tiled"),
    ".tmj": ("tilecast.io.tiled", "load_tiled"),
    ".json": ("tilecast.io.tiled", "load_tiled"),
}


def load_map(path: Any, **options: Any) -> Grid | TileMap:
    """Load a map file with the loader its suffix names; options go to that loader.

    ``.txt``/``.asc`` ASCII, ``.map`` MovingAI (a file starting ``type ...``)
    or else ASCII, ``.png``/``.bmp``/``.gif``/``.pgm``/``.jpg`` images,
    ``.yaml``/``.yml`` ROS maps, ``.ldtk`` LDtk, ``.tmx``/``.tmj``/``.json``
    Tiled. Every loader takes ``root=`` and ``limits=``.

    Examples
    --------
    >>> from tilecast.data import example_path
    >>> from tilecast.io import load_map
    >>> load_map(example_path()).shape
    (32, 48)
    """
    import importlib

    suffix = as_path("path", path).suffix.lower()
    if suffix not in SUFFIXES:
        known = ", ".join(sorted(SUFFIXES))
        raise MapLoadError(f"{os.fspath(path)}: unknown map format {suffix!r} (known: {known})")
    module, name = SUFFIXES[suffix]
    if suffix == ".map":
        from tilecast.io.movingai import looks_like_movingai

        try:
            with open(path, "rb") as file:
                head = file.read(200)
        except OSError:
            head = b""
        if looks_like_movingai(head):
            module, name = "tilecast.io.movingai", "load_movingai"
    loader: Callable[..., Grid | TileMap] = getattr(importlib.import_module(module), name)
    return loader(path, **options)
