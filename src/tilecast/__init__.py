"""tilecast: exact, fast 2D ray casting in tile-based and polygon worlds.

The public API is re-exported here; see the README and ``DESIGN.md`` for the
contract. Heavy optional dependencies (Pillow, pygame, map loaders) are only
imported by the functions that need them.
"""

from tilecast.grid import Grid
from tilecast.raycast import Hit, line_of_sight, raycast, raycast_all
from tilecast.traverse import Step, traverse

__version__ = "0.1.0"

__all__ = [
    "Grid",
    "Hit",
    "Step",
    "__version__",
    "line_of_sight",
    "raycast",
    "raycast_all",
    "traverse",
]
