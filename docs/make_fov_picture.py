"""Draw docs/images/fov.png: one field of view on a small map, with Pillow.

Run from the repository root: ``python docs/make_fov_picture.py``. It also
prints, for the same map and origin, the cells where ``fov`` and a line of
sight between cell centres disagree (the latter computed here exactly, with
fractions, by the rule of ``line_of_sight``: no solid cell strictly between the
two cells meets the segment, and a corner between two solid cells blocks).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from tilecast import Grid, fov

MAP = [
    "##########################################",
    "#.................#......................#",
    "#.................#......................#",
    "#....#............#.......##.............#",
    "#.........#.......#.......##.............#",
    "#.......@.........,..........#...........#",
    "#.................#......................#",
    "#........#........#........#.....#.......#",
    "#.................#......................#",
    "#.................#######.#######........#",
    "#####.######......#......................#",
    "#.................#.........##...........#",
    "#.................#......................#",
    "#.................#......................#",
    "#....#....#.......#..........#...........#",
    "#.................#......................#",
    "##########################################",
]
CELL = 14  # pixels per cell
# A floor cell fov sees although the line between the two centres crosses the
# pillar (its centre lies exactly on the edge of the pillar's shadow).
EXAMPLES = [((12, 4), "fov sees it, the centre line is blocked")]

FLOOR, WALL = (236, 232, 222), (60, 60, 72)
SEEN_FLOOR, SEEN_WALL = (250, 214, 102), (150, 110, 40)
ORIGIN, LINE = (200, 30, 30), (30, 90, 200)


def parse(rows: list[str]) -> tuple[Grid, tuple[int, int]]:
    """Return the grid of an ASCII map ("#" wall) and the cell of its "@"."""
    solid = np.array([[ch == "#" for ch in row] for row in rows])  # "," is an open door
    (j,), (i,) = np.nonzero(np.array([[ch == "@" for ch in row] for row in rows]))
    return Grid(solid), (int(i), int(j))


def centre_line_clear(solid: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Exact line of sight from the centre of cell ``a`` to the centre of ``b``."""
    (ax, ay), (bx, by) = a, b
    x0, y0 = Fraction(2 * ax + 1, 2), Fraction(2 * ay + 1, 2)
    dx, dy = bx - ax, by - ay
    # Parameters where the segment crosses a grid line.
    ts = {Fraction(0), Fraction(1)}
    for k in range(min(ax, bx) + 1, max(ax, bx) + 1):
        ts.add((k - x0) / dx)
    for k in range(min(ay, by) + 1, max(ay, by) + 1):
        ts.add((k - y0) / dy)
    ts = sorted(ts)
    for t0, t1 in itertools.pairwise(ts):
        mid = (t0 + t1) / 2
        cell = (int(np.floor(x0 + mid * dx)), int(np.floor(y0 + mid * dy)))
        if cell not in (a, b) and solid[cell[1], cell[0]]:
            return False
        x, y = x0 + t1 * dx, y0 + t1 * dy
        if t1 < 1 and x.denominator == 1 and y.denominator == 1:
            # Through a lattice point: blocked when both shoulders are solid.
            sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
            ci, cj = cell
            if solid[cj, ci + sx] and solid[cj + sy, ci]:
                return False
    return True


def main() -> None:
    """Draw the picture and print where fov and the centre line disagree."""
    grid, origin = parse(MAP)
    mask = fov(grid, origin)
    solid = grid.solid
    rows, cols = grid.shape

    image = Image.new("RGB", (cols * CELL, rows * CELL), FLOOR)
    draw = ImageDraw.Draw(image)
    for j in range(rows):
        for i in range(cols):
            if solid[j, i]:
                colour = SEEN_WALL if mask[j, i] else WALL
            else:
                colour = SEEN_FLOOR if mask[j, i] else FLOOR
            box = (i * CELL, j * CELL, (i + 1) * CELL - 1, (j + 1) * CELL - 1)
            draw.rectangle(box, fill=colour)
    for j in range(rows + 1):
        draw.line((0, j * CELL, cols * CELL, j * CELL), fill=(205, 200, 190))
    for i in range(cols + 1):
        draw.line((i * CELL, 0, i * CELL, rows * CELL), fill=(205, 200, 190))

    def centre(cell: tuple[int, int]) -> tuple[float, float]:
        return ((cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL)

    for target, _ in EXAMPLES:
        draw.line((*centre(origin), *centre(target)), fill=LINE, width=2)
        cx, cy = centre(target)
        draw.rectangle((cx - 3, cy - 3, cx + 3, cy + 3), outline=LINE, width=2)
    ox, oy = centre(origin)
    draw.ellipse((ox - 5, oy - 5, ox + 5, oy + 5), fill=ORIGIN)

    out = Path(__file__).parent / "images" / "fov.png"
    out.parent.mkdir(exist_ok=True)
    image = image.quantize(colors=16)
    image.save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size} bytes); origin {origin}")

    for target, claim in EXAMPLES:
        seen = bool(mask[target[1], target[0]])
        clear = centre_line_clear(solid, origin, target)
        print(f"  {target}: fov {seen}, centre line clear {clear} ({claim})")
    floor = [(i, j) for j in range(rows) for i in range(cols) if not solid[j, i]]
    fov_only = [c for c in floor if mask[c[1], c[0]] and not centre_line_clear(solid, origin, c)]
    cells = [(i, j) for j in range(rows) for i in range(cols)]
    line_only = [c for c in cells if not mask[c[1], c[0]] and centre_line_clear(solid, origin, c)]
    print(f"  floor cells seen by fov only: {fov_only}")
    print(f"  cells (floor or wall) with a clear centre line only: {line_only}")


if __name__ == "__main__":
    main()
