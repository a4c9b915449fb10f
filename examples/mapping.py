"""Build a map from a robot's scans: OccupancyGrid on a real ROS map.

A simulated robot drives a loop through nav2's ``depot`` warehouse map
(``tests/data/navigation2/depot.yaml``, Apache-2.0, see
``tests/data/SOURCES.md``). Its lidar scans are simulated with
:func:`tilecast.scan_many` on the true map (exact ranges, a 360-degree
scan), and carved into an empty :class:`tilecast.OccupancyGrid` of the same
geometry with ``integrate``: misses along each beam, a hit in the wall cell
where it ends. After every few scans the example prints how much of the
true map is known and how many cells the built map gets wrong (occupied
where the true map is free, free where it is a wall); the picture shows
the map being built, left to right (white free, black occupied, grey
unknown, the path in red). The final map is saved as a ROS map (YAML +
PGM) next to the picture, readable by nav2's map_server.

Run::

    python examples/mapping.py mapping.png            # 120 scans of 720 beams
    python examples/mapping.py mapping.png --quick    # 30 scans of 360 beams
"""

from __future__ import annotations

import argparse
import itertools
import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import tilecast
from tilecast.io import load_map

HERE = Path(__file__).resolve().parent
DEPOT = HERE.parent / "tests" / "data" / "navigation2" / "depot.yaml"

MAX_RANGE = 8.0  # metres
# A loop through the depot's halls (metres, map frame).
WAYPOINTS = [(-4.0, -2.0), (5.0, -2.0), (5.0, 2.0), (-4.0, 2.0)]
SNAPSHOTS = 4  # pictures of the map being built


def drive(n: int, step: float) -> NDArray[np.float64]:
    """Poses ``(n, 3)`` of a robot driving ``step`` metres at a time around ``WAYPOINTS``."""
    x, y = WAYPOINTS[0]
    poses = []
    target = 1
    while len(poses) < n:
        tx, ty = WAYPOINTS[target % len(WAYPOINTS)]
        if math.hypot(tx - x, ty - y) < step:
            target += 1
            continue
        heading = math.atan2(ty - y, tx - x)
        x, y = x + step * math.cos(heading), y + step * math.sin(heading)
        poses.append((x, y, heading))
    return np.array(poses)


def errors(built: tilecast.OccupancyGrid, truth: tilecast.Grid) -> tuple[int, int, int]:
    """(known cells, occupied but free in truth, free but a wall in truth)."""
    p = built.probability
    occupied, free = p > 0.65, p < 0.196
    walls = truth.solid
    return int((occupied | free).sum()), int((occupied & ~walls).sum()), int((free & walls).sum())


def picture(frames: list[NDArray[np.float64]], path_cells: list[NDArray[np.int64]]) -> object:
    """Return the snapshots side by side: white free, black occupied, grey unknown, the path red."""
    from PIL import Image

    tiles = []
    for p, cells in zip(frames, path_cells, strict=True):
        gray = np.round(255.0 * (1.0 - p)).astype(np.uint8)
        rgb = np.repeat(gray[:, :, None], 3, axis=2)
        rgb[cells[:, 1], cells[:, 0]] = (220, 30, 30)
        tiles.append(rgb[::-1])  # y up: the map's last row at the top
    gap = np.full((tiles[0].shape[0], 6, 3), 255, np.uint8)
    strip = np.concatenate([part for tile in tiles for part in (tile, gap)][:-1], axis=1)
    return Image.fromarray(strip)


def main() -> None:
    """Parse the command line, drive, map, report and save the picture and the ROS map."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the picture (.png)")
    parser.add_argument("--quick", action="store_true", help="30 scans of 360 beams")
    parser.add_argument("--map", type=Path, default=DEPOT, help="a ROS map YAML (default: depot)")
    args = parser.parse_args()
    n_scans, n_beams = (30, 360) if args.quick else (120, 720)
    truth = load_map(args.map, unknown="free")  # walls as the robot's lidar sees them
    rows, cols = truth.shape
    resolution = truth.tile_size[0]
    poses = drive(n_scans, 28.0 / n_scans)
    angles = np.linspace(-np.pi, np.pi, n_beams, endpoint=False)
    ranges = tilecast.scan_many(truth, poses, angles, MAX_RANGE)
    ranges[ranges >= MAX_RANGE] = np.inf  # no return, as a ROS LaserScan says it

    built = tilecast.OccupancyGrid((rows, cols), resolution, truth.origin)
    print(f"map {args.map.name}: {cols} x {rows} cells of {resolution} m, "
          f"{int(truth.solid.sum())} wall cells")  # fmt: skip
    print(f"{n_scans} scans of {n_beams} beams, max range {MAX_RANGE} m")
    print("scans  known cells  occupied but free  free but wall")
    frames, path_cells = [], []
    bounds = np.linspace(0, n_scans, SNAPSHOTS + 1).astype(int)
    for first, end in itertools.pairwise(bounds.tolist()):
        built.integrate(poses[first:end], ranges[first:end], angles, MAX_RANGE)
        known, false_wall, false_free = errors(built, truth)
        print(f"{end:5d}  {known:11d}  {false_wall:17d}  {false_free:13d}")
        frames.append(built.probability)
        path_cells.append(np.array([truth.cell_at(p[:2]) for p in poses[:end]]))
    image = picture(frames, path_cells)
    image.save(args.output)
    yaml_path = built.save_ros(args.output.with_suffix(".yaml"))
    print(f"picture: {args.output} ({image.size[0]} x {image.size[1]})")
    print(f"ROS map: {yaml_path}")


if __name__ == "__main__":
    main()
