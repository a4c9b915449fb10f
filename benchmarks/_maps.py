"""Game-like maps for the benchmarks, generated from a fixed seed (True = wall).

Three kinds, each with a one-cell border of walls:

- ``rooms_and_corridors``: rectangular rooms joined by straight and L-shaped
  corridors 1 to 3 cells wide (a classic dungeon, 256 x 256 by default);
- ``caves``: a cellular automaton (random fill, then the 4-5 rule), with the
  pockets not connected to the largest cave filled in (256 x 256);
- ``open_field``: a large open area with scattered rectangles and round blobs
  covering about 15 % of it (1024 x 1024).

Other benchmarks import this module (``from _maps import MAPS``); run on its
own it prints what the maps look like in numbers (size, walls, wall
segments, generation time):

    python benchmarks/_maps.py
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

Walls = NDArray[np.bool_]


def _border(walls: Walls) -> Walls:
    walls[0, :] = walls[-1, :] = True
    walls[:, 0] = walls[:, -1] = True
    return walls


def _keep_largest_region(walls: Walls) -> Walls:
    """Fill every free region (4-connected) but the largest with wall."""
    rows, cols = walls.shape
    free = ~walls.reshape(-1)
    label = np.full(rows * cols, -1, dtype=np.int64)
    sizes: list[int] = []
    for seed in np.flatnonzero(free).tolist():
        if label[seed] >= 0:
            continue
        region = len(sizes)
        label[seed] = region
        queue = deque([seed])
        size = 0
        while queue:
            k = queue.popleft()
            size += 1
            r, c = divmod(k, cols)
            for n, ok in ((k - 1, c > 0), (k + 1, c < cols - 1), (k - cols, r > 0),
                          (k + cols, r < rows - 1)):  # fmt: skip
                if ok and free[n] and label[n] < 0:
                    label[n] = region
                    queue.append(n)
        sizes.append(size)
    if not sizes:
        return walls
    largest = int(np.argmax(sizes))
    return (label != largest).reshape(rows, cols)


def rooms_and_corridors(size: int = 256, seed: int = 1, rooms: int = 90) -> Walls:
    """Rectangular rooms (4-18 cells a side) joined by corridors 1-3 cells wide."""
    rng = np.random.default_rng(seed)
    walls = np.ones((size, size), dtype=bool)
    placed: list[tuple[int, int, int, int]] = []  # (row0, col0, row1, col1), exclusive ends
    for _ in range(rooms * 20):
        if len(placed) == rooms:
            break
        h, w = (int(v) for v in rng.integers(4, 19, 2))
        r0 = int(rng.integers(2, size - h - 2))
        c0 = int(rng.integers(2, size - w - 2))
        # keep at least two wall cells between rooms
        if any(
            r0 < b1 + 2 and b0 < r0 + h + 2 and c0 < d1 + 2 and d0 < c0 + w + 2
            for b0, d0, b1, d1 in placed
        ):
            continue
        placed.append((r0, c0, r0 + h, c0 + w))
        walls[r0 : r0 + h, c0 : c0 + w] = False
    centres = [((b0 + b1) // 2, (d0 + d1) // 2) for b0, d0, b1, d1 in placed]

    def corridor(a: tuple[int, int], b: tuple[int, int]) -> None:
        width = int(rng.integers(1, 4))
        (ra, ca), (rb, cb) = a, b
        lo = -(width // 2)
        hi = lo + width
        if rng.random() < 0.5:  # horizontal first, then vertical
            walls[max(ra + lo, 1) : ra + hi, min(ca, cb) : max(ca, cb) + 1] = False
            walls[min(ra, rb) : max(ra, rb) + 1, max(cb + lo, 1) : cb + hi] = False
        else:
            walls[min(ra, rb) : max(ra, rb) + 1, max(ca + lo, 1) : ca + hi] = False
            walls[max(rb + lo, 1) : rb + hi, min(ca, cb) : max(ca, cb) + 1] = False

    # A spanning tree (each room to its nearest earlier room), then a few loops.
    for k in range(1, len(centres)):
        r, c = centres[k]
        nearest = min(range(k), key=lambda m: abs(centres[m][0] - r) + abs(centres[m][1] - c))
        corridor(centres[nearest], centres[k])
    for _ in range(len(centres) // 6):
        a, b = (int(v) for v in rng.choice(len(centres), 2, replace=False))
        corridor(centres[a], centres[b])
    return _border(walls)


def caves(size: int = 256, seed: int = 2, fill: float = 0.45, steps: int = 5) -> Walls:
    """Cellular-automaton caves: a cell is wall if 5 or more of its 9-cell block are."""
    rng = np.random.default_rng(seed)
    walls = _border(rng.random((size, size)) < fill)
    for _ in range(steps):
        padded = np.pad(walls, 1, constant_values=True).astype(np.int8)
        block = sum(
            padded[1 + dr : 1 + dr + size, 1 + dc : 1 + dc + size]
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
        )
        walls = _border(block >= 5)
    return _border(_keep_largest_region(walls))


def open_field(size: int = 1024, seed: int = 3, cover: float = 0.15) -> Walls:
    """A large open area with scattered rectangles and round blobs covering ``cover`` of it."""
    rng = np.random.default_rng(seed)
    walls = np.zeros((size, size), dtype=bool)
    target = cover * size * size
    covered = 0
    while covered < target:
        if rng.random() < 0.5:  # a rectangle, 1-14 cells a side (walls, crates, houses)
            h, w = (int(v) for v in rng.integers(1, 15, 2))
            r0, c0 = (int(v) for v in rng.integers(1, size - 16, 2))
            before = int(walls[r0 : r0 + h, c0 : c0 + w].sum())
            walls[r0 : r0 + h, c0 : c0 + w] = True
            covered += h * w - before
        else:  # a round blob (rocks, trees, ponds), radius 1-8
            radius = float(rng.uniform(1.0, 8.0))
            span = int(radius) + 1
            r, c = (int(v) for v in rng.integers(span + 1, size - span - 1, 2))
            y, x = np.ogrid[-span : span + 1, -span : span + 1]
            stamp = x * x + y * y <= radius * radius
            window = walls[r - span : r + span + 1, c - span : c + span + 1]
            covered += int((stamp & ~window).sum())
            window |= stamp
    return _border(walls)


MAPS: dict[str, Callable[[], Walls]] = {
    "rooms and corridors 256x256": rooms_and_corridors,
    "caves 256x256": caves,
    "open field 1024x1024": open_field,
}


def free_cells(walls: Walls) -> NDArray[np.int64]:
    """Return the free cells as an (N, 2) array of ``(i, j) = (col, row)``."""
    rows, cols = np.nonzero(~walls)
    return np.column_stack([cols, rows]).astype(np.int64)


def main(argv: list[str] | None = None) -> None:
    import _harness as bench  # here: the tests import this module for its maps alone
    import tilecast

    parser = bench.arguments(__doc__, quick="accepted for tilecast bench")
    parser.add_argument("--show", metavar="NAME", help="print a map (a name from the table)")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    table = report.table(
        "maps",
        ["map", bench.col("walls %", ".1f"), bench.col("free cells", ","),
         bench.col("wall segments", ","), bench.col("generated in ms", ".0f")],
    )  # fmt: skip
    for name, make in MAPS.items():
        took, walls = bench.time_once(make)
        segments = tilecast.wall_segments(tilecast.Grid(walls, outside="solid"))
        table.add(name, 100 * walls.mean(), int((~walls).sum()), len(segments), 1e3 * took)
        table.print()
        if args.show and args.show in name:
            print("\n".join("".join("#" if v else "." for v in row) for row in walls))
    report.save()


if __name__ == "__main__":
    main()
