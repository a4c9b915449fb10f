"""Draw the pictures of docs/cli.md, docs/rendering.md and docs/rays.md with tilecast.render.

Run from the repository root: ``python docs/make_pictures.py``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tilecast import Grid, fov, raycast, traverse, visibility_polygon, wall_segments
from tilecast.cli import main
from tilecast.data import example_map
from tilecast.render import Picture

IMAGES = Path(__file__).parent / "images"


def demo() -> None:
    """Draw the picture of ``tilecast demo``."""
    main(["demo", "--out", str(IMAGES / "demo.png"), "--scale", "12"])


def layers() -> None:
    """Draw every layer a Picture can draw, around one viewer."""
    grid = example_map()
    viewer = (6.5, 26.5)
    rows, cols = grid.shape
    seen = fov(grid, grid.cell_at(viewer), radius=12)
    lit = visibility_polygon(wall_segments(grid), viewer, radius=12.0)
    angles = np.linspace(0, 2 * math.pi, 90, endpoint=False)
    hits = [raycast(grid, viewer, (math.cos(a), math.sin(a)), 12.0) for a in angles]
    points = np.array([h.point for h in hits if h is not None])
    picture = Picture(grid, 12, grid_lines=True).fov(seen).polygon(lit)
    picture.segments(wall_segments(grid), width=2).rays(viewer, points).hits(points)
    picture.points([viewer]).save(IMAGES / "render_layers.png")
    print(f"{cols} x {rows} map, {len(points)} hits within 12 cells")


def rays() -> None:
    """Draw the cells a segment crosses and two rays at a corner between walls."""
    solid = np.zeros((8, 12), bool)
    solid[2, 8] = solid[3, 7] = True  # two walls touching only at the corner (8, 3)
    solid[6, 2:5] = True
    grid = Grid(solid)
    start, end = (0.5, 0.5), (11.5, 7.2)
    crossed = np.zeros_like(solid)
    for step in traverse(grid, start, end):
        i, j = step.cell
        crossed[j, i] = True
    picture = Picture(grid, 40, grid_lines=True).fov(crossed).rays(start, [end], width=2)
    origin = (5.5, 0.5)  # along y = x - 5: through the corner (8, 3) between the two walls
    hit = raycast(grid, origin, (1.0, 1.0))  # "block_if_both": stops at the corner
    assert raycast(grid, origin, (1.0, 1.0), diagonal_gaps="open") is None  # leaks, leaves
    picture.rays(origin, [(12.0, 7.0)], color=(120, 120, 120, 160))  # the "open" ray
    picture.rays(origin, [hit.point], width=3).hits([hit.point], radius=5)
    picture.points([start, origin])
    picture.save(IMAGES / "rays.png")
    print(f"segment crosses {int(crossed.sum())} cells; corner ray stops at {hit.point}")


if __name__ == "__main__":
    IMAGES.mkdir(exist_ok=True)
    demo()
    layers()
    rays()
