"""Visibility polygons: tilecast sweep vs pyvispoly (CGAL) vs the rays fan.

Standard workload: a 1000 x 1000 room with N // 4 non-touching axis-aligned
boxes (N obstacle segments), observer at a free point; timings interleaved
(A B C A B C ...), medians. Run: python benchmarks/visibility.py [--quick]
"""

from __future__ import annotations

import numpy as np

import _harness as bench
import tilecast as tc

pv = bench.optional("pyvispoly")


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


def cgal_systems(pv, boxes, p):
    """CGAL's set-up (the polygon with holes, the calculator) and one query on the latest one."""
    built = {}

    def setup():
        outer = pv.Polygon([pv.Point(*v) for v in [(0, 0), (1000, 0), (1000, 1000), (0, 1000)]])
        holes = [pv.Polygon([pv.Point(*v) for v in b[::-1]]) for b in boxes]
        built["calc"] = pv.VisibilityPolygonCalculator(pv.PolygonWithHoles(outer, holes))

    def query():
        return built["calc"].compute_visibility_polygon(pv.Point(*p))

    return {"cgal setup": setup, "cgal": query}


def main(argv: list[str] | None = None) -> None:
    args = bench.arguments(__doc__, quick="N = 100 and 1000, 3 repeats").parse_args(argv)
    report = bench.start(__file__, args)
    sizes = [100, 1000] if args.quick else [100, 1000, 10000]
    repeats = 3 if args.quick else 7
    table = report.table(
        "visibility",
        ["N", bench.col("tilecast sweep (ms)", ".2f"), bench.col("CGAL query (ms)", ".2f"),
         bench.col("CGAL setup (ms)", ".1f"), bench.col("rays fan (ms)", ".1f"),
         bench.col("sweep / CGAL", ".2f"), bench.col("area rel. diff vs CGAL", ".1e")],
    )  # fmt: skip
    for n in sizes:
        walls, boxes, p = scene(n)
        tc.visibility_polygon(walls[:8], p)  # compile outside the timing
        systems = {"sweep": lambda walls=walls, p=p: tc.visibility_polygon(walls, p)}
        if pv is not None:
            systems.update(cgal_systems(pv, boxes, p))
        if n <= 1000 or not args.quick:
            systems["rays"] = lambda walls=walls, p=p: tc.visibility_polygon(
                walls, p, method="rays"
            )
        times = bench.interleave(systems, repeats, warmup=0, label=f"N = {n}")
        ms = {name: 1e3 * t.median for name, t in times.items()}
        poly = tc.visibility_polygon(walls, p)
        x, y = poly.T
        area = float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2
        diff = None
        if pv is not None:
            cgal_area = float(times["cgal"].result.area())
            diff = abs(area - cgal_area) / cgal_area
        table.add(n, ms["sweep"], ms.get("cgal"), ms.get("cgal setup"), ms.get("rays"),
                  ms["sweep"] / ms["cgal"] if "cgal" in ms else None, diff)  # fmt: skip
        table.print()
    report.save()


if __name__ == "__main__":
    main()
