"""Map loaders: ASCII art, images, ROS occupancy maps, LDtk and Tiled.

Each loader lives in its own module and imports its optional dependency
(Pillow, PyYAML) only when called, so ``import tilecast.io`` is cheap. Every
loader raises :class:`MapLoadError` (a ``ValueError``) naming the file and
the problem; none returns a half-read map.

=====================  ==========================  ===========================
function               reads                       needs
=====================  ==========================  ===========================
:func:`load_ascii`     ``#``/``.`` text maps        nothing
:func:`load_image`     PNG, BMP, ... pictures       Pillow
:func:`load_ros_map`   ROS map YAML + PGM/PNG       PyYAML, Pillow
:func:`load_ldtk`      LDtk ``.ldtk`` projects      nothing (TileMap: tiles)
:func:`load_tiled`     Tiled ``.tmx`` / ``.tmj``    nothing (Pillow for images)
:func:`load_movingai`  MovingAI ``.map`` grids      nothing
:func:`load_map`       any of the above, by suffix  as above
=====================  ==========================  ===========================

Every loader takes ``root=`` (the files a map names must lie inside that
folder) and ``limits=`` (a :class:`Limits`: the largest map it accepts).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tilecast.io._common import MapLoadError
from tilecast.io.limits import Limits

if TYPE_CHECKING:  # the loaders are imported on first use (see __getattr__)
    from tilecast.io.ascii import load_ascii
    from tilecast.io.detect import load_map
    from tilecast.io.image import load_image
    from tilecast.io.ldtk import load_ldtk
    from tilecast.io.movingai import load_movingai
    from tilecast.io.ros import load_ros_map
    from tilecast.io.tiled import load_tiled

__all__ = [
    "Limits",
    "MapLoadError",
    "load_ascii",
    "load_image",
    "load_ldtk",
    "load_map",
    "load_movingai",
    "load_ros_map",
    "load_tiled",
]

_LAZY = {
    "load_ascii": "tilecast.io.ascii",
    "load_image": "tilecast.io.image",
    "load_ros_map": "tilecast.io.ros",
    "load_ldtk": "tilecast.io.ldtk",
    "load_tiled": "tilecast.io.tiled",
    "load_movingai": "tilecast.io.movingai",
    "load_map": "tilecast.io.detect",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tilecast.io' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
