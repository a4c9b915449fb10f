"""Small example maps bundled with tilecast (used by ``tilecast demo`` and the docs).

``dungeon.txt`` is a 48 x 32 ASCII map (``#`` wall, ``.`` floor) of rooms and
corridors with pillars, diagonal walls whose blocks touch only at corners, and
a diagonal corridor: the cases where ray casters disagree.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from tilecast.grid import Grid

__all__ = ["example_map", "example_path"]

EXAMPLES = ("dungeon.txt",)


def example_path(name: str = "dungeon.txt") -> Path:
    """Return the path of a bundled example map.

    Examples
    --------
    >>> from tilecast.data import example_path
    >>> example_path().name
    'dungeon.txt'
    """
    if name not in EXAMPLES:
        raise ValueError(f"name must be one of {list(EXAMPLES)}, got {name!r}")
    return Path(str(resources.files("tilecast.data").joinpath(name)))


def example_map(name: str = "dungeon.txt", **options: object) -> Grid:
    """Load a bundled example map as a :class:`~tilecast.Grid` (options go to the loader).

    Examples
    --------
    >>> from tilecast.data import example_map
    >>> example_map().shape
    (32, 48)
    """
    from tilecast.io.ascii import load_ascii

    return load_ascii(example_path(name), **options)  # type: ignore[arg-type]
