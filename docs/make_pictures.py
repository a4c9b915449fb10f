"""Draw the pictures of docs/cli.md and docs/rendering.md with tilecast.render.

Run from the repository root: ``python docs/make_pictures.py``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tilecast import fov, raycast, visibility_polygon, wall_segments
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


if __name__ == "__main__":
    IMAGES.mkdir(exist_ok=True)
    demo()
    layers()
