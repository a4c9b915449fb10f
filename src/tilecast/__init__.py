"""tilecast: exact, fast 2D ray casting in tile-based and polygon worlds.

The public API is re-exported here; see the README and ``DESIGN.md`` for the
contract. Heavy optional dependencies (Pillow, pygame, map loaders) are only
imported by the functions that need them.
"""

from tilecast.geometry import (
    circle_tangents,
    orientation,
    point_in_polygon,
    ray_circle,
    ray_segment,
    segment_segment,
)
from tilecast.grid import Grid
from tilecast.visibility import visibility_polygon, wall_segments

__version__ = "0.1.0"

__all__ = [
    "Grid",
    "__version__",
    "circle_tangents",
    "orientation",
    "point_in_polygon",
    "ray_circle",
    "ray_segment",
    "segment_segment",
    "visibility_polygon",
    "wall_segments",
]
