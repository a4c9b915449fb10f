"""ASCII maps: one character per cell, ``#`` a wall and ``.`` floor by default.

The characters are configurable (several wall or floor characters are fine,
for example ``floor=".@"`` for a map with a marked start); any other
character is an error that names the file, the line and the column. Row 0 is
the first line, so with the default ``origin=(0, 0)`` and unit tiles the map
reads the way it is printed, y pointing down.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, excerpt
from tilecast.io.limits import Limits, as_limits, read_limited

__all__ = ["load_ascii", "parse_ascii"]


def _char_set(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string of characters, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must name at least one character")
    if "\n" in value or "\r" in value:
        raise ValueError(f"{name} must not contain line breaks")
    return value


def parse_ascii(
    lines: Sequence[str],
    *,
    wall: str = "#",
    floor: str = ".",
    source: str = "<text>",
    limits: Limits | None = None,
) -> NDArray[np.bool_]:
    """Turn lines of map text into a ``(rows, cols)`` bool array (True = wall).

    Trailing empty lines are ignored; every other line must have the same
    length. ``source`` names the map in error messages.

    Examples
    --------
    >>> parse_ascii(["#.", ".#"]).astype(int)
    array([[1, 0],
           [0, 1]])
    """
    wall = _char_set("wall", wall)
    floor = _char_set("floor", floor)
    both = set(wall) & set(floor)
    if both:
        raise ValueError(f"wall and floor share the characters {''.join(sorted(both))!r}")
    rows = [line.rstrip("\r\n") for line in lines]
    while rows and rows[-1] == "":
        rows.pop()
    if not rows:
        raise MapLoadError(f"{source}: the map is empty")
    width = len(rows[0])
    if width == 0:
        raise MapLoadError(f"{source}: line 1 is empty")
    as_limits(limits).check(source, "max_cells", len(rows) * width, "cells")
    solid = np.zeros((len(rows), width), dtype=np.bool_)
    walls, floors = set(wall), set(floor)
    for r, row in enumerate(rows):
        if len(row) != width:
            raise MapLoadError(
                f"{source}: line {r + 1} has {len(row)} characters, expected {width} "
                "(every line of the map must have the same length)"
            )
        unknown = set(row) - walls - floors
        if unknown:
            c = min(row.index(char) for char in unknown)
            raise MapLoadError(
                f"{source}: line {r + 1}, column {c + 1}: unknown character {row[c]!r} "
                f"(walls: {excerpt(wall)}, floor: {excerpt(floor)})"
            )
        solid[r] = [char in walls for char in row]
    return solid


def load_ascii(
    source: Any,
    *,
    wall: str = "#",
    floor: str = ".",
    tile_size: float | tuple[float, float] = 1.0,
    origin: tuple[float, float] = (0.0, 0.0),
    outside: str = "empty",
    root: Any = None,
    limits: Limits | None = None,
) -> Grid:
    r"""Load an ASCII map as a :class:`~tilecast.Grid`.

    Parameters
    ----------
    source : str, os.PathLike or sequence of str
        A path to a text file; or the map itself, as a string that contains
        a line break or as a list of lines. (A string without a line break is
        always taken as a path.)
    wall, floor : str, default "#" and "."
        The characters that mean a solid cell and an empty one; each may list
        several characters. Any other character is an error.
    tile_size, origin, outside
        Passed to :class:`~tilecast.Grid`.
    root : str or os.PathLike, optional
        When given, a map file must lie inside this folder.
    limits : Limits, optional
        Size limits (cells, file bytes); see :class:`~tilecast.io.Limits`.

    Returns
    -------
    Grid
        ``solid[row, col]`` is True where line ``row + 1`` has a wall
        character in column ``col + 1``.

    Raises
    ------
    MapLoadError
        The file cannot be read, is empty, is ragged, or holds an unknown
        character (the message gives the file, line and column).

    Examples
    --------
    >>> from tilecast.io import load_ascii
    >>> grid = load_ascii("####\n#..#\n####\n")
    >>> grid.shape
    (3, 4)
    >>> grid.is_solid((1, 1)), grid.is_solid((0, 1))
    (False, True)
    >>> load_ascii(["XoX", "ooo"], wall="X", floor="o").solid.astype(int)
    array([[1, 0, 1],
           [0, 0, 0]])
    """
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        lines, name = source.splitlines(), "<text>"
    elif isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        data = read_limited(Path(source), as_limits(limits), root)
        try:
            lines = data.decode("utf-8-sig").splitlines()
        except UnicodeDecodeError as exc:
            raise MapLoadError(
                f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
    elif isinstance(source, Sequence) and all(isinstance(line, str) for line in source):
        lines, name = list(source), "<lines>"
    else:
        raise TypeError(
            f"source must be a path, map text or a list of lines, got {type(source).__name__}"
        )
    solid = parse_ascii(lines, wall=wall, floor=floor, source=name, limits=limits)
    return Grid(solid, tile_size=tile_size, origin=origin, outside=outside)
