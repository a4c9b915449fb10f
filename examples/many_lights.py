"""Light a real map with 50 moving lights, every frame, and draw the last frame.

The default map is nav2's depot, a ROS occupancy map of a warehouse (307 x
604 cells of 5 cm; ``tests/data/navigation2``, Apache-2.0, see
``tests/data/SOURCES.md``); any map :func:`tilecast.io.load_map` reads works
(``--map``), or a generated dungeon (``--map generated``). The walls are
prepared once (:class:`tilecast.VisibilityScene`); each frame moves the
lights and asks for every light's visibility polygon, limited to its radius,
in one batch (``scene.polygons``, on every core). The picture shows the map
with each light's polygon blended over it (``Picture.lights``).

    python examples/many_lights.py lights.png [--lights 50] [--frames 20] [--radius 40]
    python examples/many_lights.py lights.png --map generated --size 96
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import tilecast as tc
from tilecast.io import load_map
from tilecast.render import Picture

HERE = Path(__file__).resolve().parent
DEPOT = HERE.parent / "tests" / "data" / "navigation2" / "depot.yaml"
sys.path.insert(0, str(HERE.parent / "benchmarks"))
from _maps import rooms_and_corridors  # noqa: E402


def load(name: str, size: int) -> tc.Grid:
    """Return the map to light: a map file, or a generated dungeon of ``size`` cells."""
    if name == "generated":
        return tc.Grid(rooms_and_corridors(size=size, rooms=max(4, size // 5)), outside="solid")
    world = load_map(name)  # a Grid or a TileMap: its solid cells, closed by solid outside
    return tc.Grid(np.asarray(world.solid), tile_size=world.tile_size, origin=world.origin,
                   outside="solid")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    """Run the frames, print the time per frame, write the picture."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="where to write the picture (PNG)")
    parser.add_argument("--map", default=str(DEPOT), help="a map file, or 'generated'")
    parser.add_argument("--size", type=int, default=96, help="side of a generated map, in cells")
    parser.add_argument("--lights", type=int, default=50)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--radius", type=float, default=40.0, help="light radius in cells")
    args = parser.parse_args(argv)

    grid = load(args.map, args.size)
    scene = tc.VisibilityScene.from_grid(grid)
    (w, h), (ox, oy) = grid.tile_size, grid.origin
    solid = np.asarray(grid.solid)
    rng = np.random.default_rng(7)
    rows, cols = np.nonzero(~solid)
    pick = rng.integers(len(rows), size=args.lights)
    # lights at floor cell centres, in world units; each drifts a little per frame
    cells = np.column_stack([cols[pick], rows[pick]]) + 0.5
    steps = rng.normal(0.0, 0.3, (args.lights, 2))
    radius = args.radius * w

    def world(cells: np.ndarray) -> np.ndarray:
        return np.column_stack([ox + cells[:, 0] * w, oy + cells[:, 1] * h])

    scene.polygons(world(cells[:2]), radius=radius)  # compile (or load) the kernels first
    times = []
    for _ in range(args.frames):
        moved = cells + steps
        # a light stays in free space: it moves only onto floor
        at = np.clip(np.floor(moved).astype(int), 0, [solid.shape[1] - 1, solid.shape[0] - 1])
        ok = ~solid[at[:, 1], at[:, 0]]
        cells[ok] = moved[ok]
        steps[~ok] *= -1
        lights = world(cells)
        start = time.perf_counter()
        scene.polygons(lights, radius=radius)  # what a game draws each frame
        times.append(time.perf_counter() - start)

    picture = Picture(grid, scale=max(1.0, min(8.0, 900 / max(solid.shape))))
    picture.lights(scene, world(cells), radius=radius)  # the last frame's lights, drawn
    picture.points(world(cells), radius=2.0)
    picture.save(args.output)
    print(
        f"{args.lights} lights of radius {args.radius:g} cells on {Path(args.map).name} "
        f"({solid.shape[1]} x {solid.shape[0]} cells, {len(scene.segments)} walls): "
        f"{1e3 * float(np.median(times)):.2f} ms per frame (median of {args.frames}); "
        f"wrote {args.output}"
    )


if __name__ == "__main__":
    main()
