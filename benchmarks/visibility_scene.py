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

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np

import tilecast as tc
from _maps import caves, free_cells, open_field, rooms_and_corridors
from tilecast._threads import thread_count

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


def boxes_vs_cgal(n_segments: int, queries: int) -> None:
    """The standard workload (a room with boxes, benchmarks/visibility.py) against pyvispoly."""
    from visibility import scene as boxes_scene

    walls, boxes, _ = boxes_scene(n_segments)
    rng = np.random.default_rng(12346)
    pts = rng.uniform(1, 999, (4 * queries, 2))
    inside = np.zeros(len(pts), dtype=bool)
    for b in boxes:
        (x0, y0), (x1, y1) = b[0], b[2]
        inside |= (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
    pts = pts[~inside][:queries]
    start = time.perf_counter()
    prepared = tc.VisibilityScene(walls.reshape(-1, 2, 2))
    prep = time.perf_counter() - start
    ours = [_timed(lambda p=p: prepared.polygon(p)) for p in pts]
    line = f"| boxes {n_segments} | {1e3 * prep:.1f} | {1e6 * statistics.median(ours):.0f}"
    try:
        import pyvispoly as pv
    except ImportError:
        print(line + " | (pyvispoly not installed) | |")
        return
    start = time.perf_counter()
    outer = pv.Polygon([pv.Point(*v) for v in [(0, 0), (1000, 0), (1000, 1000), (0, 1000)]])
    holes = [pv.Polygon([pv.Point(*v) for v in b[::-1]]) for b in boxes]
    calc = pv.VisibilityPolygonCalculator(pv.PolygonWithHoles(outer, holes))
    cgal_prep = time.perf_counter() - start
    cgal = [_timed(lambda p=p: calc.compute_visibility_polygon(pv.Point(*p))) for p in pts]
    print(f"{line} | {1e3 * cgal_prep:.1f} | {1e6 * statistics.median(cgal):.0f} |")


def lights(rng: np.random.Generator, n: int, n_full: int) -> None:
    """Queries with a radius (a light), the scene's against visibility_polygon's."""
    print("| map | radius (cells) | scene median us | visibility_polygon median us | speed-up |")
    print("|---|---:|---:|---:|---:|")
    for name in ("rooms 160", "open 1024"):
        walls = MAPS[name]()
        segments = tc.wall_segments(tc.Grid(walls, outside="solid"))
        scene = tc.VisibilityScene(segments)
        pts = observers(walls, n, rng)
        for radius in (10.0, 30.0):
            light = partial(scene.polygon, radius=radius)
            light(pts[0])
            s = statistics.median(_per_call(light, pts))
            full = partial(tc.visibility_polygon, segments, radius=radius)
            f = statistics.median(_per_call(full, pts[:n_full]))
            print(f"| {name} | {radius:g} | {1e6 * s:.1f} | {1e6 * f:.0f} | {f / s:.1f}x |")


def _per_call(fn: Callable[[np.ndarray], object], points: np.ndarray) -> list[float]:
    """The time of each call ``fn(p)`` over the points, in seconds."""
    times = []
    for p in points:
        start = time.perf_counter()
        fn(p)
        times.append(time.perf_counter() - start)
    return times


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer queries")
    args = parser.parse_args(argv)
    n_single = 200 if args.quick else 2000
    n_full = 10 if args.quick else 40
    n_batch = 2000 if args.quick else 10000
    rng = np.random.default_rng(12345)
    print(f"threads: {thread_count()}")
    print(
        "| map | segments | prepare ms | first pass median us | scene median us "
        "| in a row median us | visibility_polygon median us | speed-up | polygons(10k) s "
        "| loop(10k) s | batch speed-up |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, make in MAPS.items():
        walls = make()
        segments = tc.wall_segments(tc.Grid(walls, outside="solid"))
        preps = []
        for _ in range(3):
            start = time.perf_counter()
            scene = tc.VisibilityScene(segments)
            preps.append(time.perf_counter() - start)
        pts = observers(walls, n_single, rng)
        scene.polygon(pts[0])  # compiled before timing
        # The first queries after preparing read the triangulation from memory:
        # timed apart (first pass, other observers). Then rounds, interleaved:
        # every observer's scene query, then visibility_polygon on the first
        # few (a call of it sweeps through megabytes, so single calls
        # interleaved would leave the next scene queries cold again); the
        # medians over the observers, median over the rounds.
        first_pass = _per_call(scene.polygon, observers(walls, n_single, rng))
        scene_medians, full_medians = [], []
        for _ in range(ROUNDS):
            scene_medians.append(statistics.median(_per_call(scene.polygon, pts)))
            full = partial(tc.visibility_polygon, segments)
            full_medians.append(statistics.median(_per_call(full, pts[:n_full])))
        batch_pts = observers(walls, n_batch, rng)
        scene.polygons(batch_pts[:10])
        start = time.perf_counter()
        scene.polygons(batch_pts)
        batch = time.perf_counter() - start
        # the same observers one at a time, back to back (a game's frame of lights)
        in_a_row = _per_call(scene.polygon, batch_pts)
        loop = sum(in_a_row)
        s, f = statistics.median(scene_medians), statistics.median(full_medians)
        print(
            f"| {name} | {len(segments):,} | {1e3 * min(preps):.1f} "
            f"| {1e6 * statistics.median(first_pass):.1f} | {1e6 * s:.1f} "
            f"| {1e6 * statistics.median(in_a_row):.1f} "
            f"| {1e6 * f:.0f} | {f / s:.0f}x | {batch:.2f} | {loop:.2f} | {loop / batch:.2f}x |"
        )
    print()
    lights(rng, 300 if args.quick else 1000, n_full)
    print()
    print("| scene | prepare ms | scene median us | pyvispoly prepare ms | pyvispoly median us |")
    print("|---|---:|---:|---:|---:|")
    for n in (100, 1000, 10000):
        boxes_vs_cgal(n, 50 if args.quick else 300)


if __name__ == "__main__":
    main()
