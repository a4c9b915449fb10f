"""Point in polygon: tilecast.point_in_polygon vs shapely.contains_xy.

Standard workload: 1,000,000 uniform points in [0, 1000)^2 against a
1000-vertex star polygon (sorted random angles, radius uniform in [200, 500],
centred at (500, 500); spiky: long edges), default_rng(12345); interleaved
runs, medians. Run: python benchmarks/point_in_polygon.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import tilecast as tc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import shapely

    rng = np.random.default_rng(12345)
    n_points = 100_000 if args.quick else 1_000_000
    repeats = 3 if args.quick else 7
    print("| vertices | points | tilecast (ms) | shapely.contains_xy (ms) | speed-up | agree |")
    print("|---|---|---|---|---|---|")
    for n in (100, 1000, 10000):
        ang = np.sort(rng.uniform(0, 2 * np.pi, n))
        r = rng.uniform(200, 500, n)
        poly = np.c_[500 + r * np.cos(ang), 500 + r * np.sin(ang)]
        pts = rng.uniform(0, 1000, (n_points, 2))
        tc.point_in_polygon(pts[:10], poly)
        ours, theirs = [], []
        for _ in range(repeats):
            t = time.perf_counter()
            a = tc.point_in_polygon(pts, poly)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            shape = shapely.Polygon(poly)
            shapely.prepare(shape)
            b = shapely.contains_xy(shape, pts[:, 0], pts[:, 1])
            theirs.append(time.perf_counter() - t)
        o, s = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
        print(f"| {n} | {n_points} | {o:.0f} | {s:.0f} | {s / o:.1f}x | {bool((a == b).all())} |")


if __name__ == "__main__":
    main()
