"""Rays among moving bodies: tilecast ``raycast(..., bodies=)`` against pymunk, per call.

On the maps of ``single_ray.py`` (``_maps.MAPS``, with ``outside="solid"``):

1. ``raycast(grid, a, b - a, |b - a|, bodies=hash)`` with 500 circles
   (radius 0.25 to 0.5, on random free cells) against pymunk's
   ``Space.segment_query_first(a, b, 0, filter)`` on the same scene: the
   map's solid cells as static ``pymunk.Poly`` boxes (one per cell) and the
   500 circles on kinematic bodies. Medium rays (8 to 64 tiles) between free
   cells, one call at a time. "same answer": both miss, or both hit within
   1e-9 of each other.
2. One frame of motion: ``SpatialHash.move_many`` of the 500 circles by
   small offsets (compiled, buckets rebuilt) against pymunk setting the 500
   bodies' positions and ``space.reindex_shapes_for_body`` for each.

Ratios are tilecast / pymunk (below 1: tilecast is faster); target both <= 1.

    python benchmarks/bodies.py            # full run
    python benchmarks/bodies.py --quick    # fewer queries and repeats
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

import _harness as bench
import tilecast
from _maps import MAPS, Walls, free_cells
from single_ray import Queries, make_queries, same_answer

pymunk = bench.optional("pymunk", "pip install pymunk")

N_BODIES = 500


def place_circles(rng: np.random.Generator, free: NDArray[np.int64], n: int) -> NDArray[np.float64]:
    """``(n, 3)`` circles ``(x, y, r)`` centred in random free cells."""
    cells = free[rng.choice(len(free), n, replace=False)]
    centres = cells + 0.5 + rng.uniform(-0.2, 0.2, (n, 2))
    return np.column_stack([centres, rng.uniform(0.25, 0.5, n)])


def build_space(walls: Walls, circles: NDArray[np.float64]) -> tuple[Any, list[Any]]:
    """A pymunk space: a static box per solid cell, a kinematic body per circle."""
    space = pymunk.Space()
    static = space.static_body
    rows, cols = np.nonzero(walls)
    boxes = [
        pymunk.Poly(static, [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)], radius=0)
        for j, i in zip(rows.tolist(), cols.tolist(), strict=True)
    ]
    space.add(*boxes)
    bodies = []
    for x, y, r in circles.tolist():
        body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        body.position = (x, y)
        space.add(body, pymunk.Circle(body, r))
        bodies.append(body)
    return space, bodies


def tilecast_cast(
    grid: tilecast.Grid, hash_: tilecast.SpatialHash, q: Queries
) -> Callable[[], list[float]]:
    raycast = tilecast.raycast
    rays = list(zip(q.starts, q.directions, q.lengths, strict=True))

    def run() -> list[float]:
        out = []
        for origin, direction, length in rays:
            hit = raycast(grid, origin, direction, length, bodies=hash_)
            out.append(math.inf if hit is None else hit.distance)
        return out

    return run


def pymunk_cast(space: Any, q: Queries) -> Callable[[], list[float]]:
    query = space.segment_query_first
    everything = pymunk.ShapeFilter()
    rays = list(zip(q.starts, q.ends, q.lengths, strict=True))

    def run() -> list[float]:
        out = []
        for a, b, length in rays:
            info = query(a, b, 0, everything)
            out.append(math.inf if info is None else info.alpha * length)
        return out

    return run


def tilecast_move(hash_: tilecast.SpatialHash, steps: NDArray[np.float64]) -> Callable[[], None]:
    ids = np.arange(N_BODIES)
    sign = [1.0]

    def run() -> None:
        hash_.move_many(ids, sign[0] * steps)  # back and forth: the scene stays put
        sign[0] = -sign[0]

    return run


def pymunk_move(space: Any, bodies: list[Any], steps: NDArray[np.float64]) -> Callable[[], None]:
    moves = steps.tolist()
    sign = [1.0]
    reindex = space.reindex_shapes_for_body

    def run() -> None:
        s = sign[0]
        for body, (dx, dy) in zip(bodies, moves, strict=True):
            x, y = body.position
            body.position = (x + s * dx, y + s * dy)
            reindex(body)
        sign[0] = -s

    return run


def bench_map(report: bench.Report, name: str, walls: Walls, quick: bool, seed: int) -> None:
    n = 300 if quick else 2000
    repeats = 3 if quick else 9
    rng = np.random.default_rng(seed)
    grid = tilecast.Grid(walls, outside="solid")
    free = free_cells(walls)
    circles = place_circles(rng, free, N_BODIES)
    hash_ = tilecast.SpatialHash(2.0)
    hash_.insert_many(np.arange(N_BODIES), circles=circles)
    space_s, built = bench.time_once(lambda: build_space(walls, circles) if pymunk else None)
    queries = make_queries(rng, walls, free, n, 8.0, 64.0)
    steps = rng.uniform(-0.05, 0.05, (N_BODIES, 2))
    systems: dict[tuple[str, str], Callable[[], Any]] = {
        ("cast", "tilecast"): tilecast_cast(grid, hash_, queries),
        ("move", "tilecast"): tilecast_move(hash_, steps),
    }
    if built is not None:
        space, bodies = built
        systems["cast", "pymunk"] = pymunk_cast(space, queries)
        systems["move", "pymunk"] = pymunk_move(space, bodies, steps)
    ours = systems["cast", "tilecast"]()
    theirs = systems["cast", "pymunk"]() if built is not None else None
    same = None if theirs is None else same_answer(ours, theirs)
    body_share = sum(d < math.inf for d in ours) / len(ours)
    times = bench.interleave(systems, repeats, alternate=True, gc_off=True, label=name,
                             min_sample_s=0.05)  # fmt: skip
    print(f"### {name}\n")
    note = f"pymunk space built in {space_s:.1f} s" if built is not None else "no pymunk"
    print(f"{100 * walls.mean():.1f} % walls ({int(walls.sum()):,} static boxes, {note}); "
          f"{N_BODIES} circles; {n} medium rays, {100 * body_share:.0f} % hit; "
          f"{repeats} repeats.\n")  # fmt: skip
    table = report.table(
        name,
        ["workload", bench.col("tilecast µs", ".2f"), bench.col("pymunk µs", ".2f"),
         bench.col("ratio", ".2f"), "target", bench.col("same answer", ".1f", " %")],
    )  # fmt: skip

    def us(key: tuple[str, str], calls: int) -> float | None:
        timing = times.get(key)
        return None if timing is None else 1e6 * timing.median / calls

    for work, label, calls in (("cast", "raycast(bodies=), per call", n),
                               ("move", f"move_many of {N_BODIES} + reindex", 1)):  # fmt: skip
        mine, peer = us((work, "tilecast"), calls), us((work, "pymunk"), calls)
        ratio = None if mine is None or peer is None else mine / peer
        table.add(label, mine, peer, ratio, "ratio ≤ 1",
                  None if work != "cast" or same is None else 100 * same)  # fmt: skip
    table.print()
    print()


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="fewer queries and repeats")
    parser.add_argument("--seed", type=int, default=21, help="seed of the scene and queries")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    print(f"tilecast {tilecast.__version__}, pymunk {pymunk.version if pymunk else '-'}, "
          f"numpy {np.__version__}; ratio = tilecast / pymunk.\n")  # fmt: skip
    for k, (name, make) in enumerate(MAPS.items()):
        bench_map(report, name, make(), args.quick, args.seed + k)
    report.save()


if __name__ == "__main__":
    main()
