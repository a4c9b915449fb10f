"""Pixel-perfect tiles: two-level casting on a TileMap vs the expanded pixel grid vs Bresenham.

Workload: a 64 x 64 map of 16 x 16-pixel tiles (1024 x 1024 pixels) built from a
tileset of typical shapes (empty, full block, two slopes, a rounded rock, a
fence, a half block, a thin platform), 55 % of cells without a tile, the rest
drawn at random with random flips (numpy default_rng(12345)). Rays start at
random free pixels with random directions and stop after 400 pixels.

Systems, all single-ray pure-Python paths, interleaved (A B C A B C ...),
median of the repeats:

- ``raycast(tilemap)``: the two-level walk (empty tiles jumped, pixels walked
  only inside tiles that have some solid pixel);
- ``raycast(pixel_grid)``: the same exact walk on ``tilemap.to_pixel_grid()``,
  one pixel at a time (identical answers);
- Bresenham: ``tilecast.line`` from the origin pixel to the pixel 400 units
  away, then the first solid pixel along it (NumPy lookup of the whole line),
  the classic approach; it is not exact (it can step through diagonal gaps and
  reports pixel centres), so its agreement with the exact hit is printed too.

Batch section (compiled, parallel over rays), interleaved the same way:

- ``raycast_many(tilemap)``: the two-level kernel (squares of empty tiles
  jumped via a per-tile clearance map, full tiles hit at once, pixels walked
  only inside mixed tiles);
- ``raycast_many(pixel_grid)``: the grid kernel on ``to_pixel_grid()`` (with its
  per-pixel clearance map); identical answers (checked).

    python benchmarks/tiles.py            # 3,000 single rays, 200,000 batch rays, 5 repeats
    python benchmarks/tiles.py --quick    # 300 single rays, 20,000 batch rays, 3 repeats
"""

from __future__ import annotations

import math
import statistics

import numpy as np

import _harness as bench
from tilecast import TileMap, TileSet, line, raycast, raycast_many
from tilecast.batch import clearance_map, tile_info_map

TILE = 16
MAX_PIXELS = 400.0


def tileset(size: int = TILE) -> TileSet:
    y, x = np.mgrid[0:size, 0:size]
    shapes = [
        np.zeros((size, size), bool),  # empty (transparent decoration)
        np.ones((size, size), bool),  # full block
        x <= y,  # slope up to the left
        x + y >= size - 1,  # slope up to the right
        (x - size / 2 + 0.5) ** 2 + (y - size / 2 + 0.5) ** 2 <= (size / 2 - 1) ** 2,  # rock
        ((x % 6) < 2) | ((y > 3) & (y < 6)),  # fence: posts and a rail
        y >= size // 2,  # half block
        y < 3,  # thin platform
    ]
    return TileSet(np.stack(shapes))


def tilemap(empty: float, n: int = 64, seed: int = 12345) -> TileMap:
    rng = np.random.default_rng(seed)
    tiles = tileset()
    ids = rng.integers(0, len(tiles), size=(n, n))
    ids[rng.random((n, n)) < empty] = -1
    flips = rng.integers(0, 8, size=(n, n))
    return TileMap(ids, tiles, flips=flips)


def rays(tmap: TileMap, count: int, seed: int = 12345) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    free = np.argwhere(~tmap.to_pixel_grid().solid)  # (row, col)
    picks = free[rng.integers(0, len(free), size=count)]
    origins = picks[:, ::-1] + rng.random((count, 2))
    angles = rng.uniform(0.0, 2.0 * math.pi, size=count)
    return origins, np.column_stack([np.cos(angles), np.sin(angles)])


def run_raycast(world, origins, directions):
    return [
        raycast(world, o, d, MAX_PIXELS)
        for o, d in zip(origins.tolist(), directions.tolist(), strict=True)
    ]


def run_bresenham(solid, origins, directions):
    rows, cols = solid.shape
    out = []
    for (x, y), (dx, dy) in zip(origins.tolist(), directions.tolist(), strict=True):
        a = (math.floor(x), math.floor(y))
        b = (math.floor(x + dx * MAX_PIXELS), math.floor(y + dy * MAX_PIXELS))
        cells = line(a, b)
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < cols) & (cells[:, 1] >= 0)
        inside &= cells[:, 1] < rows
        cells = cells[: np.argmin(inside) if not inside.all() else len(cells)]
        hits = solid[cells[:, 1], cells[:, 0]]
        k = int(np.argmax(hits))
        out.append(tuple(cells[k].tolist()) if hits[k] else None)
    return out


def speed_table(
    report: bench.Report,
    heading: str,
    times: dict[str, bench.Timing],
    count: int,
    baseline: str,
    memory: dict[str, int],
    memory_title: str,
) -> None:
    """Print one section: its heading, then rays/s, the ratio to the pixel grid, memory in KiB."""
    name = heading.split("**")[1]
    print(f"\n{heading}\n")
    table = report.table(
        name,
        ["system", bench.col("rays/s", ",.0f"),
         bench.ratio("vs pixel grid", of="rays/s", baseline=baseline, by="system"),
         bench.col(memory_title, ",.0f", " KiB")],
    )  # fmt: skip
    for system, timing in times.items():
        table.add(system, count / timing.median, memory[system] / 1024)
    table.print()


def single(report: bench.Report, empty: float, count: int, repeats: int) -> None:
    tmap = tilemap(empty)
    pixels = tmap.to_pixel_grid()
    origins, directions = rays(tmap, count)

    # the two exact paths agree hit for hit (tile + pixel vs pixel)
    two_level = run_raycast(tmap, origins, directions)
    flat = run_raycast(pixels, origins, directions)
    for a, b in zip(two_level, flat, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            p, q = b.cell
            assert (a.point, a.distance) == (b.point, b.distance)
            assert (a.cell, a.pixel) == ((p // TILE, q // TILE), (p % TILE, q % TILE))
    bres = run_bresenham(pixels.solid, origins, directions)
    exact_pixels = [
        None if h is None else (h.cell[0] * TILE + h.pixel[0], h.cell[1] * TILE + h.pixel[1])
        for h in two_level
    ]
    agree = sum(a == b for a, b in zip(bres, exact_pixels, strict=True)) / count
    mean_distance = statistics.fmean(MAX_PIXELS if h is None else h.distance for h in two_level)

    systems = {
        "raycast(TileMap), two-level": lambda: run_raycast(tmap, origins, directions),
        "raycast(to_pixel_grid())": lambda: run_raycast(pixels, origins, directions),
        "Bresenham line + pixel test": lambda: run_bresenham(pixels.solid, origins, directions),
    }
    times = bench.interleave(systems, repeats, warmup=0, label=f"single, {empty:.0%} empty")
    tile_arrays = _tile_arrays(tmap)
    memory = {
        "raycast(TileMap), two-level": sum(a.nbytes for a in tile_arrays),
        "raycast(to_pixel_grid())": pixels.solid.nbytes,
        "Bresenham line + pixel test": pixels.solid.nbytes,
    }
    heading = (
        f"**{empty:.0%} of cells without a tile** ({tmap.rows} x {tmap.cols} tiles of "
        f"{TILE} x {TILE} px, {count:,} rays of at most {MAX_PIXELS:.0f} px, mean length "
        f"{mean_distance:.0f} px; median of {repeats} interleaved repeats)"
    )
    speed_table(report, heading, times, count, "raycast(to_pixel_grid())", memory, "map memory")
    report.note(f"Bresenham agreement, {empty:.0%} empty", agree)
    print(f"\nBresenham's first solid pixel is the exact hit pixel on {agree:.1%} of rays.")


def _tile_arrays(tmap: TileMap) -> tuple[np.ndarray, ...]:
    return (
        tmap.tile_ids,
        tmap.flips,
        tmap.cell_variant,
        tmap.cell_kinds,
        tmap.variant_masks,
        tmap.variant_kinds,
        tmap.variant_keys,
    )


def batch(report: bench.Report, empty: float, count: int, repeats: int) -> None:
    tmap = tilemap(empty)
    pixels = tmap.to_pixel_grid()
    origins, directions = rays(tmap, count, seed=777)
    # build the acceleration maps and compile/load the kernels outside the timing
    two_level = raycast_many(tmap, origins, directions, MAX_PIXELS)
    flat = raycast_many(pixels, origins, directions, MAX_PIXELS)
    assert np.array_equal(two_level.hit, flat.hit)
    assert np.array_equal(two_level.distance, flat.distance)
    assert np.array_equal(two_level.point, flat.point, equal_nan=True)
    assert np.array_equal(two_level.normal, flat.normal)
    tw, th = tmap.tile_pixels
    hit = flat.hit
    assert np.array_equal(two_level.cell[hit] * (tw, th) + two_level.pixel[hit], flat.cell[hit])
    mean_distance = float(np.where(two_level.hit, two_level.distance, MAX_PIXELS).mean())

    systems = {
        "raycast_many(TileMap), two-level": lambda: raycast_many(
            tmap, origins, directions, MAX_PIXELS
        ),
        "raycast_many(to_pixel_grid())": lambda: raycast_many(
            pixels, origins, directions, MAX_PIXELS
        ),
    }
    times = bench.interleave(systems, repeats, warmup=0, label=f"batch, {empty:.0%} empty")
    memory = {
        # tile arrays, the tile info map, and the pixel clearance (int8 per
        # quadrant and pixel of each variant in use)
        "raycast_many(TileMap), two-level": sum(a.nbytes for a in _tile_arrays(tmap))
        + tile_info_map(tmap).nbytes
        + 4 * tmap.variant_masks.size,
        "raycast_many(to_pixel_grid())": pixels.solid.nbytes + clearance_map(pixels).nbytes,
    }
    heading = (
        f"**Batch, {empty:.0%} of cells without a tile** ({count:,} rays of at most "
        f"{MAX_PIXELS:.0f} px, mean length {mean_distance:.0f} px; {bench.thread_count()} "
        f"threads; median of {repeats} interleaved repeats)"
    )
    speed_table(report, heading, times, count, "raycast_many(to_pixel_grid())", memory,
                "map + acceleration memory")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    args = bench.arguments(__doc__, quick="fewer rays and repeats").parse_args(argv)
    report = bench.start(__file__, args)
    count = 300 if args.quick else 3_000
    batch_count = 20_000 if args.quick else 200_000
    repeats = 3 if args.quick else 5
    for empty in (0.55, 0.9):
        single(report, empty, count, repeats)
    for empty in (0.55, 0.9):
        batch(report, empty, batch_count, repeats)
    report.save()


if __name__ == "__main__":
    main()
