"""Shape casts, one call at a time: tilecast's circle_cast against pymunk's fat segment query.

What is measured, per call (median over interleaved repeats, each system
warmed up once first so that Numba's compile or cache load is not timed):
``tilecast.circle_cast(grid, a, r, b - a, |b - a|)`` against pymunk's
``space.segment_query_first(a, b, r, ShapeFilter())`` (the segment ``a ->
b`` swept by a circle of radius ``r``) on a static space holding one
``pymunk.Poly`` box per solid cell (``outside="solid"``: the map's border
cells are walls of the maps already). The maps and the queries are those of
``benchmarks/single_ray.py`` (its ``make_queries``: from a free cell to a
free cell; here the start lies within 0.15 of the cell centre, so the
circle of radius 0.3 starts clear of the walls), in three groups: short
(< 8 tiles), medium (8-64), long (> 64). "same answer" is a sanity check,
not a test: both hit or both miss, and hit distances within 1e-6.
Ratio = tilecast / pymunk: below 1, tilecast is faster. A ``box_cast`` row
(half extents 0.3) and a ``move_and_slide`` row (the same motions, circle)
show tilecast's other two calls on the same queries (no peer).

    python benchmarks/casts.py            # full run (a few minutes, mostly building pymunk spaces)
    python benchmarks/casts.py --quick    # fewer queries and repeats
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import _harness as bench
import tilecast
from _maps import MAPS, Walls, free_cells
from single_ray import Queries, make_queries, same_answer

pymunk = bench.optional("pymunk", "pip install pymunk")

RADIUS = 0.3
OFFSET = 0.15  # start within this of a free cell's centre: the circle starts clear


def box_space(walls: Walls) -> Any:
    """A static pymunk space with one unit box (a Poly) per solid cell."""
    space = pymunk.Space()
    body = space.static_body
    rows, cols = np.nonzero(walls)
    space.add(*(pymunk.Poly(body, [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)])
                for j, i in zip(rows.tolist(), cols.tolist(), strict=True)))  # fmt: skip
    return space


def tilecast_circles(grid: tilecast.Grid, q: Queries) -> Callable[[], list[float]]:
    circle_cast = tilecast.circle_cast
    casts = list(zip(q.starts, q.directions, q.lengths, strict=True))

    def run() -> list[float]:
        out = []
        for a, d, length in casts:
            hit = circle_cast(grid, a, RADIUS, d, length)
            out.append(math.inf if hit is None else hit.distance)
        return out

    return run


def tilecast_boxes(grid: tilecast.Grid, q: Queries) -> Callable[[], list[float]]:
    box_cast = tilecast.box_cast
    half = (RADIUS, RADIUS)
    casts = list(zip(q.starts, q.directions, q.lengths, strict=True))

    def run() -> list[float]:
        out = []
        for a, d, length in casts:
            hit = box_cast(grid, a, half, d, length)
            out.append(math.inf if hit is None else hit.distance)
        return out

    return run


def tilecast_moves(grid: tilecast.Grid, q: Queries) -> Callable[[], list[tuple[float, float]]]:
    move_and_slide = tilecast.move_and_slide
    moves = list(zip(q.starts, q.directions, strict=True))
    return lambda: [move_and_slide(grid, a, d, radius=RADIUS).position for a, d in moves]


def pymunk_circles(space: Any, q: Queries) -> Callable[[], list[float]]:
    query = space.segment_query_first
    everything = pymunk.ShapeFilter()
    casts = list(zip(q.starts, q.ends, q.lengths, strict=True))

    def run() -> list[float]:
        out = []
        for a, b, length in casts:
            info = query(a, b, RADIUS, everything)
            out.append(math.inf if info is None else info.alpha * length)
        return out

    return run


def bench_map(report: bench.Report, name: str, walls: Walls, quick: bool, seed: int) -> None:
    n = 300 if quick else 2000
    repeats = 3 if quick else 7
    rng = np.random.default_rng(seed)
    grid = tilecast.Grid(walls, outside="solid")
    free = free_cells(walls)
    space_s, space = bench.time_once(lambda: box_space(walls) if pymunk else None)
    rows, cols = walls.shape
    far = 0.9 * math.hypot(rows, cols)
    groups = {
        "short (< 8 tiles)": make_queries(rng, walls, free, n, 1.0, 8.0, offset=OFFSET),
        "medium (8-64 tiles)": make_queries(rng, walls, free, n, 8.0, 64.0, offset=OFFSET),
        "long (> 64 tiles)": make_queries(rng, walls, free, n, 64.0, far, offset=OFFSET),
    }
    medium = groups["medium (8-64 tiles)"]
    workloads: dict[str, dict[str, Callable[[], Any]]] = {
        g: {"tilecast": tilecast_circles(grid, q)} for g, q in groups.items()
    }
    if pymunk is not None:
        for g, q in groups.items():
            workloads[g]["pymunk"] = pymunk_circles(space, q)
    workloads["box"] = {"tilecast": tilecast_boxes(grid, medium)}
    workloads["move"] = {"tilecast": tilecast_moves(grid, medium)}
    answers = {g: {s: run() for s, run in workloads[g].items()} for g in groups}
    flat = {(w, s): run for w, by in workloads.items() for s, run in by.items()}
    times = bench.interleave(flat, repeats, alternate=True, gc_off=True, label=name)

    print(f"### {name}\n")
    note = f"pymunk space of {int(walls.sum()):,} boxes built in {space_s:.1f} s" if pymunk else ""
    print(f"{100 * walls.mean():.1f} % walls ({note}); {n} queries per group, radius "
          f"{RADIUS}, {repeats} repeats.\n")  # fmt: skip
    table = report.table(
        name,
        ["workload", bench.col("tilecast µs/call", ".2f"), bench.col("pymunk µs/call", ".2f"),
         bench.col("ratio", ".2f"), "target", bench.col("same answer", ".1f", " %")],
    )  # fmt: skip

    def us(workload: str, system: str) -> float | None:
        timing = times.get((workload, system))
        return None if timing is None else 1e6 * timing.median / n

    for g in groups:
        ours, theirs = us(g, "tilecast"), us(g, "pymunk")
        got = answers[g]
        hits = sum(d < math.inf for d in got["tilecast"]) / n
        same = same_answer(got["tilecast"], got["pymunk"], 1e-6) if "pymunk" in got else None
        table.add(f"circle_cast r={RADIUS}, {g}, {100 * hits:.0f} % hit", ours, theirs,
                  None if theirs is None or ours is None else ours / theirs, "ratio ≤ 1",
                  None if same is None else 100 * same)  # fmt: skip
    table.add("box_cast 0.3 x 0.3, medium", us("box", "tilecast"), None, None, "", None)
    table.add("move_and_slide r=0.3, medium", us("move", "tilecast"), None, None, "", None)
    table.print()
    print()


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="fewer queries and repeats")
    parser.add_argument("--seed", type=int, default=21, help="seed of the queries")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    print(
        f"tilecast {tilecast.__version__}, pymunk {pymunk.version if pymunk else '-'}, "
        f"numpy {np.__version__}; ratio = tilecast / pymunk (below 1: tilecast is faster).\n"
    )
    for k, (name, make) in enumerate(MAPS.items()):
        bench_map(report, name, make(), args.quick, args.seed + k)
    report.save()


if __name__ == "__main__":
    main()
