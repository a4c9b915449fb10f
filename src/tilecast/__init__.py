"""tilecast: exact, fast 2D ray casting in tile-based and polygon worlds.

The public API is re-exported here; the README and the docs (``docs/``) give
the contract. Heavy optional dependencies (Pillow, pygame, map loaders) are only
imported by the functions that need them.
"""

from tilecast.batch import raycast_many, scan, scan_many
from tilecast.casts import box_cast, circle_cast, move_and_slide
from tilecast.field_of_view import fov, fov_counts, fov_many
from tilecast.geometry import (
    circle_tangents,
    orientation,
    point_in_polygon,
    ray_circle,
    ray_segment,
    segment_segment,
)
from tilecast.grid import Grid
from tilecast.lattice import line, lines
from tilecast.mapping import LikelihoodField, OccupancyGrid
from tilecast.rays import line_of_sight, raycast, raycast_all, traverse
from tilecast.regions import circle_intersects_rect, tiles_in_circle, tiles_in_rect
from tilecast.results import Hit, Hits, RayContact, Slide, Step
from tilecast.scene import VisibilityScene
from tilecast.sensor import BeamModel, scan_likelihood
from tilecast.spatial_hash import SpatialHash
from tilecast.stack import GridStack
from tilecast.startup import warmup
from tilecast.tiles import TileMap, TileSet
from tilecast.visibility import visibility_polygon, wall_segments
from tilecast.world import ALL_LAYERS, World

__version__ = "0.1.0"

__all__ = [
    "ALL_LAYERS",
    "BeamModel",
    "Grid",
    "GridStack",
    "Hit",
    "Hits",
    "LikelihoodField",
    "OccupancyGrid",
    "RayContact",
    "Slide",
    "SpatialHash",
    "Step",
    "TileMap",
    "TileSet",
    "VisibilityScene",
    "World",
    "__version__",
    "box_cast",
    "circle_cast",
    "circle_intersects_rect",
    "circle_tangents",
    "fov",
    "fov_counts",
    "fov_many",
    "line",
    "line_of_sight",
    "lines",
    "move_and_slide",
    "orientation",
    "point_in_polygon",
    "ray_circle",
    "ray_segment",
    "raycast",
    "raycast_all",
    "raycast_many",
    "scan",
    "scan_likelihood",
    "scan_many",
    "segment_segment",
    "tiles_in_circle",
    "tiles_in_rect",
    "traverse",
    "visibility_polygon",
    "wall_segments",
    "warmup",
]
