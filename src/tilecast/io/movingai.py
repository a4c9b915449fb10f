"""MovingAI benchmark maps (``.map``): the grid maps of the path-planning literature.

The format (Sturtevant, "Benchmarks for Grid-Based Pathfinding", 2012) is a
header and the rows::

    type octile
    height 4
    width 6
    map
    @@@@@@
    @..G.@
    ...

Terrain: ``.`` and ``G`` passable ground, ``S`` swamp (passable), ``@`` and
``O`` out of bounds, ``T`` trees, ``W`` water; anything else is solid by
default too. Row 0 is the first map line (y down), one unit per cell.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from tilecast._validate import as_mask, as_path
from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, excerpt
from tilecast.io.limits import Limits, as_limits, read_limited

__all__ = ["load_movingai", "looks_like_movingai"]


def looks_like_movingai(data: bytes) -> bool:
    r"""Tell whether the text starts like a MovingAI map (``type ...``, then ``height``/``width``).

    Examples
    --------
    >>> looks_like_movingai(b"type octile\nheight 1\nwidth 1\nmap\n.\n")
    True
    >>> looks_like_movingai(b"#.#\n")
    False
    """
    head = data[:200].lstrip().lower()
    return head.startswith(b"type ") and b"height" in head and b"width" in head


def load_movingai(
    path: Any,
    *,
    passable: str = ".GS",
    terrain_bits: Mapping[str, int] | None = None,
    tile_size: float | tuple[float, float] = 1.0,
    origin: tuple[float, float] = (0.0, 0.0),
    outside: str = "solid",
    root: Any = None,
    limits: Limits | None = None,
) -> Grid:
    r"""Load a MovingAI benchmark map (``.map``) as a :class:`~tilecast.Grid`.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.map`` file.
    passable : str, default ".GS"
        The terrain characters that are free; every other character of the
        map (``@``, ``O``, ``T``, ``W``, ...) is solid.
    terrain_bits : mapping of str to int, optional
        Collision layers (DESIGN 20) per terrain character, e.g.
        ``{"T": 2, "W": 4}`` (trees on layer 2, water on layer 4); a
        character it names gets those bits (0 makes it free), the others
        are free when ``passable`` and on layer 1 otherwise. Queries then
        pick what blocks with ``mask`` (walking: every layer; a bullet
        flying over water: ``mask=1 | 2``).
    tile_size, origin : optional
        Passed to :class:`~tilecast.Grid` (default: unit cells from (0, 0)).
    outside : {"empty", "solid"}, default "solid"
        The benchmark maps are closed worlds: nothing leaves them.
    root : str or os.PathLike, optional
        When given, the file must lie inside this folder.
    limits : Limits, optional
        Size limits (cells, file bytes); see :class:`~tilecast.io.Limits`.

    Returns
    -------
    Grid
        ``solid[row, col]`` for map line ``row``, character ``col``.

    Raises
    ------
    MapLoadError
        A missing or malformed header, a size that does not match the rows.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from tilecast.io import load_movingai
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.map"
    >>> _ = path.write_text("type octile\nheight 3\nwidth 4\nmap\n@@@@\n@.T@\n@GS@\n")
    >>> load_movingai(path).solid.astype(int)
    array([[1, 1, 1, 1],
           [1, 0, 1, 1],
           [1, 0, 0, 1]])
    >>> int(load_movingai(path, passable=".GST").solid.sum())
    8
    >>> load_movingai(path, terrain_bits={"T": 2}).layers[1].tolist()  # the tree on layer 2
    [1, 0, 2, 1]
    """
    if not isinstance(passable, str) or not passable or "\n" in passable:
        raise TypeError("passable must be a string of terrain characters, e.g. '.GS'")
    bits_of = np.ones(256, dtype=np.uint32)
    bits_of[list(passable.encode("ascii", "replace"))] = 0
    if terrain_bits is not None:
        if not isinstance(terrain_bits, Mapping) or not all(
            isinstance(c, str) and len(c) == 1 and c.isascii() and c != "\n" for c in terrain_bits
        ):
            raise TypeError("terrain_bits must map terrain characters (one ASCII letter) to bits")
        for char, bits in terrain_bits.items():
            bits_of[ord(char)] = as_mask(bits, f"terrain_bits[{char!r}]")
    file = as_path("path", path)
    limits = as_limits(limits)
    name = os.fspath(path)  # as the caller wrote it (a Path would normalise it)
    data = read_limited(file, limits, root)
    try:
        lines = data.decode("ascii").splitlines()
    except UnicodeDecodeError as exc:
        raise MapLoadError(f"{name}: not an ASCII MovingAI map (byte {exc.start})") from None
    header: dict[str, str] = {}
    for k, line in enumerate(lines):
        words = line.split()
        if words == ["map"]:
            body = lines[k + 1 :]
            break
        if len(words) != 2:
            raise MapLoadError(
                f"{name}: line {k + 1}: expected 'type', 'height', 'width' or 'map', "
                f"got {excerpt(line)}"
            )
        header[words[0].lower()] = words[1]
    else:
        raise MapLoadError(f"{name}: no 'map' line (is this a MovingAI map?)")
    sizes = []
    for key in ("height", "width"):
        value = header.get(key)
        if value is None or not value.isdigit() or int(value) <= 0:
            raise MapLoadError(f"{name}: '{key}' must be a positive integer, got {excerpt(value)}")
        sizes.append(int(value))
    rows, cols = sizes
    limits.check(name, "max_cells", rows * cols, "cells")
    while body and body[-1].strip() == "":
        body.pop()
    if len(body) != rows:
        raise MapLoadError(f"{name}: the header says {rows} rows, the map has {len(body)}")
    cells = np.empty((rows, cols), dtype=np.uint32)
    for r, line in enumerate(body):
        if len(line) != cols:
            raise MapLoadError(
                f"{name}: map row {r + 1} has {len(line)} characters, the header says {cols}"
            )
        cells[r] = bits_of[np.frombuffer(line.encode("ascii"), dtype=np.uint8)]
    return Grid(cells, tile_size=tile_size, origin=origin, outside=outside)
