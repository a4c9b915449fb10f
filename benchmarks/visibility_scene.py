"""Prepared visibility (VisibilityScene) vs visibility_polygon on the walls of game-like maps.

Maps from benchmarks/_maps.py with about 400, 3,700, 7,300 and 28,000 wall
segments (``wall_segments`` with ``outside="solid"``); observers uniform over
the free space (``default_rng(12345)``). For each map: preparation time; the
median time of one ``scene.polygon`` call right after preparing (first pass:
the triangulation still comes from memory) and in a game's steady state
(rounds of every observer's query, interleaved with rounds of
``visibility_polygon`` calls; medians over observers, median over rounds)
and back to back (the batch's observers one at a time, after the batch: "in
a row"), and of one ``visibility_polygon`` call; their ratio; and ``scene.polygons``
over 10,000 observers against the same calls one at a time (the batch runs
on every core). Then lights: queries with a radius of 10 and 30 cells on
the rooms and open 1024 maps. Then the standard workload of benchmarks/visibility.py (a
room with boxes) against pyvispoly (CGAL's triangular expansion, prepared
once) when it is installed. The machines here are shared: figures are noisy.

    python benchmarks/visibility_scene.py [--quick]
"""

from __future__ import annotations

import statistics
from functools import partial

import numpy as np

import _harness as bench
import tilecast as tc
from _maps import caves, free_cells, open_field, rooms_and_corridors

ROUNDS = 3
MAPS = {
    "rooms 160": lambda: rooms_and_corridors(size=160, rooms=40),
    "caves 160": lambda: caves(size=160),
    "open 512": lambda: open_field(size=512),
    "open 1024": lambda: open_field(size=1024),
}


def observers(walls: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    free = free_cells(walls)
    return free[rng.integers(len(free), size=n)] + rng.random((n, 2))


def boxes_vs_cgal(table: bench.Table, n_segments: int, queries: int) -> None:
    """The standard workload (a room with boxes, benchmarks/visibility.py) against pyvispoly."""
    from visibility import pv
    from visibility import scene as boxes_scene

    walls, boxes, _ = boxes_scene(n_segments)
    rng = np.random.default_rng(12346)
    pts = rng.uniform(1, 999, (4 * queries, 2))
    inside = np.zeros(len(pts), dtype=bool)
    for b in boxes:
        (x0, y0), (x1, y1) = b[0], b[2]
        inside |= (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
    pts = pts[~inside][:queries]
    prep, prepared = bench.time_once(lambda: tc.VisibilityScene(walls.reshape(-1, 2, 2)))
    ours = statistics.median(bench.per_call(prepared.polygon, pts))
    cgal_prep = cgal = float("nan")  # printed "-" without pyvispoly
    if pv is not None:

        def setup():
            outer = pv.Polygon([pv.Point(*v) for v in [(0, 0), (1000, 0), (1000, 1000), (0, 1000)]])
            holes = [pv.Polygon([pv.Point(*v) for v in b[::-1]]) for b in boxes]
            return pv.VisibilityPolygonCalculator(pv.PolygonWithHoles(outer, holes))

        cgal_prep, calc = bench.time_once(setup)
        query = calc.compute_visibility_polygon
        cgal = statistics.median(bench.per_call(lambda p: query(pv.Point(*p)), pts))
    table.add(f"boxes {n_segments}", 1e3 * prep, 1e6 * ours, 1e3 * cgal_prep, 1e6 * cgal)
    table.print()


def lights(report: bench.Report, rng: np.random.Generator, n: int, n_full: int) -> None:
    """Queries with a radius (a light), the scene's against visibility_polygon's."""
    table = report.table(
        "lights",
        ["map", bench.col("radius (cells)", "g"), bench.col("scene median us", ".1f"),
         bench.col("visibility_polygon median us", ".0f"), bench.col("speed-up", ".1f", "x")],
    )  # fmt: skip
    for name in ("rooms 160", "open 1024"):
        walls = MAPS[name]()
        segments = tc.wall_segments(tc.Grid(walls, outside="solid"))
        scene = tc.VisibilityScene(segments)
        pts = observers(walls, n, rng)
        for radius in (10.0, 30.0):
            light = partial(scene.polygon, radius=radius)
            light(pts[0])
            s = statistics.median(bench.per_call(light, pts))
            full = partial(tc.visibility_polygon, segments, radius=radius)
            f = statistics.median(bench.per_call(full, pts[:n_full]))
            table.add(name, radius, 1e6 * s, 1e6 * f, f / s)
            table.print()


def main(argv: list[str] | None = None) -> None:
    args = bench.arguments(__doc__, quick="fewer queries").parse_args(argv)
    report = bench.start(__file__, args)
    n_single = 200 if args.quick else 2000
    n_full = 10 if args.quick else 40
    n_batch = 2000 if args.quick else 10000
    rng = np.random.default_rng(12345)
    table = report.table(
        "maps",
        ["map", bench.col("segments", ","), bench.col("prepare ms", ".1f"),
         bench.col("first pass median us", ".1f"), bench.col("scene median us", ".1f"),
         bench.col("in a row median us", ".1f"), bench.col("visibility_polygon median us", ".0f"),
         bench.col("speed-up", ".0f", "x"), bench.col("polygons(10k) s", ".2f"),
         bench.col("loop(10k) s", ".2f"), bench.col("batch speed-up", ".2f", "x")],
    )  # fmt: skip
    for name, make in MAPS.items():
        walls = make()
        segments = tc.wall_segments(tc.Grid(walls, outside="solid"))
        preps = []
        for _ in range(3):
            seconds, scene = bench.time_once(partial(tc.VisibilityScene, segments))
            preps.append(seconds)
        pts = observers(walls, n_single, rng)
        scene.polygon(pts[0])  # compiled before timing
        # The first queries after preparing read the triangulation from memory:
        # timed apart (first pass, other observers). Then rounds, interleaved:
        # every observer's scene query, then visibility_polygon on the first
        # few (a call of it sweeps through megabytes, so single calls
        # interleaved would leave the next scene queries cold again); the
        # medians over the observers, median over the rounds.
        first_pass = bench.per_call(scene.polygon, observers(walls, n_single, rng))
        full = partial(tc.visibility_polygon, segments)
        rounds = {
            "scene": lambda scene=scene, pts=pts: bench.Parts(
                median=statistics.median(bench.per_call(scene.polygon, pts))
            ),
            "visibility_polygon": lambda full=full, pts=pts: bench.Parts(
                median=statistics.median(bench.per_call(full, pts[:n_full]))
            ),
        }
        times = bench.interleave(rounds, ROUNDS, warmup=0, label=name)
        batch_pts = observers(walls, n_batch, rng)
        scene.polygons(batch_pts[:10])
        batch, _ = bench.time_once(lambda scene=scene, pts=batch_pts: scene.polygons(pts))
        # the same observers one at a time, back to back (a game's frame of lights)
        in_a_row = bench.per_call(scene.polygon, batch_pts)
        loop = sum(in_a_row)
        s, f = times["scene"].part("median"), times["visibility_polygon"].part("median")
        table.add(name, len(segments), 1e3 * min(preps), 1e6 * statistics.median(first_pass),
                  1e6 * s, 1e6 * statistics.median(in_a_row), 1e6 * f, f / s, batch, loop,
                  loop / batch)  # fmt: skip
        table.print()
    print()
    lights(report, rng, 300 if args.quick else 1000, n_full)
    print()
    boxes = report.table(
        "boxes vs pyvispoly",
        ["scene", bench.col("prepare ms", ".1f"), bench.col("scene median us", ".0f"),
         bench.col("pyvispoly prepare ms", ".1f"), bench.col("pyvispoly median us", ".0f")],
    )  # fmt: skip
    for n in (100, 1000, 10000):
        boxes_vs_cgal(boxes, n, 50 if args.quick else 300)
    report.save()


if __name__ == "__main__":
    main()
