"""tilecast: exact, fast 2D ray casting in tile-based and polygon worlds.

The public API is re-exported here; see the README and ``DESIGN.md`` for the
contract. Heavy optional dependencies (Pillow, pygame, map loaders) are only
imported by the functions that need them.
"""

from tilecast.grid import Grid
from tilecast.lines import line, lines
from tilecast.regions import circle_intersects_rect, tiles_in_circle, tiles_in_rect
from tilecast.spatial_hash import RayContact, SpatialHash

__version__ = "0.1.0"

__all__ = [
    "Grid",
    "RayContact",
    "SpatialHash",
    "__version__",
    "circle_intersects_rect",
    "line",
    "lines",
    "tiles_in_circle",
    "tiles_in_rect",
]
