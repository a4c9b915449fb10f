"""Light a dungeon with 50 moving lights, every frame, and draw the last frame.

The walls are prepared once (:class:`tilecast.VisibilityScene`); each frame
asks for every light's visibility polygon (radius-limited) in one batch. The
picture shows the map with each light's polygon blended over it.

    python examples/many_lights.py lights.png [--size 96] [--lights 50] [--frames 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import tilecast as tc
from tilecast.render import Picture

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _maps import free_cells, rooms_and_corridors


def main(argv: list[str] | None = None) -> None:
    """Run the frames, print the time per frame, write the picture."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="where to write the picture (PNG)")
    parser.add_argument("--size", type=int, default=96, help="map side in cells")
    parser.add_argument("--lights", type=int, default=50)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--radius", type=float, default=10.0, help="light radius in cells")
    args = parser.parse_args(argv)

    walls = rooms_and_corridors(size=args.size, rooms=max(4, args.size // 5))
    grid = tc.Grid(walls, outside="solid")
    scene = tc.VisibilityScene.from_grid(grid)
    rng = np.random.default_rng(7)
    free = free_cells(np.asarray(grid.solid))
    lights = free[rng.integers(len(free), size=args.lights)] + 0.5
    steps = rng.normal(0.0, 0.05, (args.lights, 2))

    scene.polygons(lights[:2], radius=args.radius)  # compile (or load) the kernels first
    times = []
    polygons: list[np.ndarray] = []
    for _ in range(args.frames):
        moved = lights + steps
        # a light stays in free space: it moves only onto floor
        cells = np.floor(moved).astype(int)
        ok = ~np.asarray(grid.solid)[cells[:, 1], cells[:, 0]]
        lights[ok] = moved[ok]
        steps[~ok] *= -1
        start = time.perf_counter()
        polygons = scene.polygons(lights, radius=args.radius)
        times.append(time.perf_counter() - start)

    picture = Picture(grid, scale=8)
    for polygon in polygons:
        picture.polygon(polygon, color=(255, 220, 120, 40), outline=(0, 0, 0, 0))
    picture.points(lights, radius=2.0)
    picture.save(args.output)
    print(
        f"{args.lights} lights on a {args.size} x {args.size} map ({len(scene.segments)} walls): "
        f"{1e3 * float(np.median(times)):.2f} ms per frame (median of {args.frames}); "
        f"wrote {args.output}"
    )


if __name__ == "__main__":
    main()
