"""Visibility polygons: tilecast sweep vs pyvispoly (CGAL) vs the rays fan.

Standard workload: a 1000 x 1000 room with N // 4 non-touching axis-aligned
boxes (N obstacle segments), observer at a free point; timings interleaved
(A B C A B C ...), medians. Run: python benchmarks/visibility.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import tilecast as tc


def scene(n_segments: int, seed: int = 12345):
    rng = np.random.default_rng(seed)
    n_boxes = n_segments // 4
    side = int(np.ceil(np.sqrt(n_boxes * 2)))
    cell = 1000.0 / side
    slots = rng.permutation(side * side)[:n_boxes]
    boxes = []
    for s in slots:
        i, j = divmod(int(s), side)
        w, h = rng.uniform(0.2, 0.7, 2) * cell
        x0 = i * cell + rng.uniform(0.05, 0.95 - w / cell) * cell
        y0 = j * cell + rng.uniform(0.05, 0.95 - h / cell) * cell
        boxes.append([(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)])
    free = [k for k in range(side * side) if k not in set(slots.tolist())]
    i, j = divmod(free[len(free) // 2], side)
    observer = ((i + 0.5) * cell, (j + 0.5) * cell)
    walls = [[(0, 0), (1000, 0)], [(1000, 0), (1000, 1000)]]
    walls += [[(1000, 1000), (0, 1000)], [(0, 1000), (0, 0)]]
    for b in boxes:
        walls += [[b[k], b[(k + 1) % 4]] for k in range(4)]
    return np.array(walls, dtype=float), boxes, observer


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = [100, 1000] if args.quick else [100, 1000, 10000]
    repeats = 3 if args.quick else 7
    try:
        import pyvispoly as pv
    except ImportError:
        pv = None
    print("| N | tilecast sweep (ms) | CGAL query (ms) | CGAL setup (ms) | rays fan (ms) "
          "| sweep / CGAL | area rel. diff vs CGAL |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        walls, boxes, p = scene(n)
        tc.visibility_polygon(walls[:8], p)  # compile outside the timing
        sweep_t, cgal_t, setup_t, rays_t = [], [], [], []
        calc = None
        for _ in range(repeats):
            sweep_t += timed(lambda walls=walls, p=p: tc.visibility_polygon(walls, p), 1)
            if pv is not None:
                t = time.perf_counter()
                outer = pv.Polygon(
                    [pv.Point(*v) for v in [(0, 0), (1000, 0), (1000, 1000), (0, 1000)]]
                )
                holes = [pv.Polygon([pv.Point(*v) for v in b[::-1]]) for b in boxes]
                calc = pv.VisibilityPolygonCalculator(pv.PolygonWithHoles(outer, holes))
                setup_t.append(time.perf_counter() - t)
                cgal_t += timed(
                    lambda calc=calc, p=p: calc.compute_visibility_polygon(pv.Point(*p)), 1
                )
            if n <= 1000 or not args.quick:
                rays_t += timed(
                    lambda walls=walls, p=p: tc.visibility_polygon(walls, p, method="rays"), 1
                )
        poly = tc.visibility_polygon(walls, p)
        x, y = poly.T
        area = float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2
        med = lambda v: statistics.median(v) * 1e3 if v else float("nan")  # noqa: E731
        if calc is not None:
            cgal_area = float(calc.compute_visibility_polygon(pv.Point(*p)).area())
            diff = abs(area - cgal_area) / cgal_area
        else:
            diff = float("nan")
        print(f"| {n} | {med(sweep_t):.2f} | {med(cgal_t):.2f} | {med(setup_t):.1f} | "
              f"{med(rays_t):.1f} | {med(sweep_t) / med(cgal_t):.2f} | {diff:.1e} |")  # fmt: skip


if __name__ == "__main__":
    main()
