"""Point in polygon: tilecast.point_in_polygon vs shapely.contains_xy.

Standard workload: 1,000,000 uniform points in [0, 1000)^2 against a
1000-vertex star polygon (sorted random angles, radius uniform in [200, 500],
centred at (500, 500); spiky: long edges), default_rng(12345); interleaved
runs, medians. Run: python benchmarks/point_in_polygon.py [--quick]
"""

from __future__ import annotations

import numpy as np

import _harness as bench
import tilecast as tc

shapely = bench.optional("shapely", "pip install shapely")


def main(argv: list[str] | None = None) -> None:
    args = bench.arguments(__doc__, quick="100,000 points, 3 repeats").parse_args(argv)
    report = bench.start(__file__, args)
    rng = np.random.default_rng(12345)
    n_points = 100_000 if args.quick else 1_000_000
    repeats = 3 if args.quick else 7
    table = report.table(
        "point in polygon",
        ["vertices", "points", bench.col("tilecast (ms)", ".0f"),
         bench.col("shapely.contains_xy (ms)", ".0f"), bench.col("speed-up", ".1f", "x"),
         "agree"],
    )  # fmt: skip
    for n in (100, 1000, 10000):
        ang = np.sort(rng.uniform(0, 2 * np.pi, n))
        r = rng.uniform(200, 500, n)
        poly = np.c_[500 + r * np.cos(ang), 500 + r * np.sin(ang)]
        pts = rng.uniform(0, 1000, (n_points, 2))
        tc.point_in_polygon(pts[:10], poly)

        def with_shapely(poly=poly, pts=pts):  # the shape is built and prepared in every call
            shape = shapely.Polygon(poly)
            shapely.prepare(shape)
            return shapely.contains_xy(shape, pts[:, 0], pts[:, 1])

        systems = {"tilecast": lambda poly=poly, pts=pts: tc.point_in_polygon(pts, poly)}
        if shapely is not None:
            systems["shapely"] = with_shapely
        times = bench.interleave(systems, repeats, warmup=0, label=f"{n} vertices")
        o = 1e3 * times["tilecast"].median
        if shapely is None:
            table.add(n, n_points, o, None, None, None)
        else:
            s = 1e3 * times["shapely"].median
            agree = bool((times["tilecast"].result == times["shapely"].result).all())
            table.add(n, n_points, o, s, s / o, agree)
        table.print()
    report.save()


if __name__ == "__main__":
    main()
