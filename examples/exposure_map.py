"""An exposure map: for every floor cell, how many floor cells can see it.

:func:`tilecast.fov_counts` runs a field of view from every floor cell of a
map (in compiled code, in parallel) and counts, for each cell, how many of
them see it. Field of view is symmetric, so at a floor cell that count is
also how many floor cells it sees: high where a unit stands exposed, low in
sheltered nooks. Level designers read it to find sniper spots and safe
corridors; a tactical AI reads it to pick cover.

The default map is MovingAI's ``room-32-32-4`` benchmark map
(``tests/data/movingai``, MIT, see ``tests/data/SOURCES.md``); any map
:func:`tilecast.io.load_map` reads works (``--map``). The picture colours
each floor cell by its count on a colour scale (a bar with its values on the
right), walls dark, and rings the most exposed and the most sheltered cell.

Run::

    python examples/exposure_map.py exposure.png
    python examples/exposure_map.py exposure.png --radius 8 --map level.tmx
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

import tilecast
from tilecast.io import load_map

HERE = Path(__file__).resolve().parent
ROOMS = HERE.parent / "tests" / "data" / "movingai" / "room-32-32-4.map"

WALL = (40, 42, 54)
BAR_WIDTH = 90  # pixels to the right of the map: the colour bar and its labels
# A perceptually ordered scale (dark blue -> teal -> yellow), as anchor colours.
SCALE = np.array(
    [(48, 18, 100), (40, 80, 160), (30, 150, 150), (100, 200, 90), (250, 230, 40)], dtype=float
)


def colour_scale(values: NDArray[np.float64]) -> NDArray[np.uint8]:
    """Map values in [0, 1] to RGB colours by linear interpolation between ``SCALE``'s anchors."""
    position = np.clip(values, 0.0, 1.0) * (len(SCALE) - 1)
    low = np.minimum(position.astype(int), len(SCALE) - 2)
    t = (position - low)[..., None]
    rgb = SCALE[low] * (1.0 - t) + SCALE[low + 1] * t
    return np.rint(rgb).astype(np.uint8)


def draw(
    solid: NDArray[np.bool_],
    counts: NDArray[np.int32],
    marks: list[tuple[int, int]],
    scale: int,
    path: Path,
) -> tuple[int, int]:
    """Save the exposure picture with its colour bar; return its size ``(width, height)``.

    Parameters
    ----------
    solid : ndarray of bool, shape (rows, cols)
        The walls.
    counts : ndarray of int32, shape (rows, cols)
        ``fov_counts``'s result.
    marks : list of (col, row)
        Cells to ring (the most exposed and the most sheltered).
    scale : int
        Pixels per cell.
    path : Path
        Where to write the PNG.
    """
    floor = ~solid
    low, high = int(counts[floor].min()), int(counts[floor].max())
    span = max(high - low, 1)
    cells = colour_scale((counts - low) / span)
    cells[solid] = WALL
    rows, cols = solid.shape
    picture = Image.new("RGB", (cols * scale + BAR_WIDTH, rows * scale), (255, 255, 255))
    picture.paste(Image.fromarray(cells, "RGB").resize((cols * scale, rows * scale), Image.NEAREST))
    pen = ImageDraw.Draw(picture)
    for col, row in marks:
        box = [col * scale - 2, row * scale - 2, (col + 1) * scale + 1, (row + 1) * scale + 1]
        pen.ellipse(box, outline=(230, 30, 30), width=3)
    # The colour bar: high at the top, with the counts it stands for.
    left, top, bottom = cols * scale + 12, 10, rows * scale - 10
    ramp = colour_scale(np.linspace(1.0, 0.0, bottom - top))
    bar = np.repeat(ramp[:, None, :], 20, axis=1)
    picture.paste(Image.fromarray(bar, "RGB"), (left, top))
    for fraction in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = bottom - fraction * (bottom - top - 1) - 1
        pen.line([(left + 20, y), (left + 25, y)], fill=(0, 0, 0))
        pen.text((left + 28, y - 6), f"{low + fraction * span:.0f}", fill=(0, 0, 0))
    picture.save(path)
    return picture.size


def main() -> None:
    """Parse the command line, count, print a summary and save the picture."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the picture (.png)")
    parser.add_argument(
        "--map", type=Path, default=ROOMS, help="a map file (default: room-32-32-4)"
    )
    parser.add_argument("--radius", type=float, default=None, help="sight radius in cells")
    parser.add_argument("--scale", type=int, default=16, help="picture pixels per cell")
    args = parser.parse_args()

    world = load_map(args.map)
    grid = world if isinstance(world, tilecast.Grid) else world.to_grid()
    solid = np.asarray(grid.solid)
    counts = tilecast.fov_counts(grid, args.radius, light_walls=False)  # walls count 0
    floor = ~solid
    rows, cols = np.nonzero(floor)
    floor_counts = counts[floor]
    exposed = (int(cols[floor_counts.argmax()]), int(rows[floor_counts.argmax()]))
    sheltered = (int(cols[floor_counts.argmin()]), int(rows[floor_counts.argmin()]))
    radius = "unlimited" if args.radius is None else f"{args.radius:g} cells"
    print(f"map {args.map.name}: {grid.shape[1]} x {grid.shape[0]}, {int(floor.sum())} floor cells")
    print(f"sight radius: {radius}")
    print(
        f"exposure over floor cells: min {int(floor_counts.min())}, "
        f"mean {floor_counts.mean():.1f}, max {int(floor_counts.max())}"
    )
    for name, cell in (("most exposed", exposed), ("most sheltered", sheltered)):
        # symmetry: seen by as many floor cells as it sees
        sees = tilecast.fov(grid, cell, args.radius, light_walls=False) & floor
        print(
            f"{name} cell {cell}: seen by {int(counts[cell[1], cell[0]])} floor cells, "
            f"sees {int(sees.sum())}"
        )
    size = draw(solid, counts, [exposed, sheltered], args.scale, args.output)
    print(f"picture: {args.output} ({size[0]} x {size[1]})")


if __name__ == "__main__":
    main()
