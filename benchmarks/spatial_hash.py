"""SpatialHash queries per second vs brute force (NumPy, vectorised) and rtree.

Workload: N axis-aligned boxes (N = 10,000 and 100,000), corners uniform in a
1000 x 1000 world, sides uniform in [0.5, 5) (numpy default_rng(12345));
hash cell size 8. Queries: 10 x 10 rectangles and circles of radius 5 at
uniform positions, and rays (first contact only) from uniform origins in
uniform directions. Systems interleaved per repeat; medians reported.

    python benchmarks/spatial_hash.py            # full run
    python benchmarks/spatial_hash.py --quick    # fewer queries
"""

from __future__ import annotations

import math

import numpy as np

import _harness as bench
from tilecast import SpatialHash, circle_intersects_rect

rtree_index = bench.optional("rtree.index", "pip install rtree")


def make_boxes(n: int) -> np.ndarray:
    rng = np.random.default_rng(12345)
    lo = rng.uniform(0, 1000, size=(n, 2))
    size = rng.uniform(0.5, 5, size=(n, 2))
    return np.hstack([lo, lo + size])


def make_queries(q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(777)
    centers = rng.uniform(0, 1000, size=(q, 2))
    rects = np.hstack([centers - 5, centers + 5])
    angles = rng.uniform(0, 2 * math.pi, size=q)
    dirs = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return centers, rects, dirs


def main(argv: list[str] | None = None) -> None:
    args = bench.arguments(__doc__, quick="fewer queries").parse_args(argv)
    report = bench.start(__file__, args)
    q = 300 if args.quick else 2000
    repeats = 3 if args.quick else 5
    print(f"{q} queries per kind, median of {repeats} interleaved repeats\n")
    table = report.table(
        "spatial hash",
        [bench.col("objects", ","), "query", "system", bench.col("queries / s", ",.0f"),
         bench.ratio("vs brute force", of="queries / s", baseline="brute force", by="system",
                     within=("objects", "query"), fmt=".1f")],
    )  # fmt: skip
    for n in (10_000, 100_000):
        run(table, n, q, repeats)
    report.save()


def run(table: bench.Table, n: int, q: int, repeats: int) -> None:
    boxes = make_boxes(n)
    world = SpatialHash(8.0)
    for k, b in enumerate(boxes.tolist()):
        world.insert(k, box=b)
    tree = None
    if rtree_index is not None:
        tree = rtree_index.Index((k, tuple(b), None) for k, b in enumerate(boxes.tolist()))
    centers, rects, dirs = make_queries(q)
    rl, cl, dl = rects.tolist(), centers.tolist(), dirs.tolist()
    x0, y0, x1, y1 = boxes.T

    def hash_rect():
        return [world.query_rect(r) for r in rl]

    def brute_rect():
        return [
            np.flatnonzero((x0 <= r[2]) & (x1 >= r[0]) & (y0 <= r[3]) & (y1 >= r[1])) for r in rl
        ]

    def rtree_rect():
        return [sorted(tree.intersection(r)) for r in rl]

    def hash_circle():
        return [world.query_circle(c, 5.0) for c in cl]

    def brute_circle():
        return [np.flatnonzero(circle_intersects_rect(c, 5.0, boxes)) for c in cl]

    def rtree_circle():
        out = []
        for c in cl:
            cand = np.fromiter(tree.intersection((c[0] - 5, c[1] - 5, c[0] + 5, c[1] + 5)), int)
            cand.sort()
            out.append(cand[circle_intersects_rect(c, 5.0, boxes[cand])])
        return out

    def hash_ray():
        return [next(iter(world.query_ray(c, d)), None) for c, d in zip(cl, dl, strict=True)]

    def brute_ray():
        out = []
        with np.errstate(divide="ignore", invalid="ignore"):
            for (px, py), (dx, dy) in zip(cl, dl, strict=True):
                ta, tb = (x0 - px) / dx, (x1 - px) / dx
                tc, td = (y0 - py) / dy, (y1 - py) / dy
                t_in = np.maximum(np.maximum(np.minimum(ta, tb), np.minimum(tc, td)), 0)
                t_out = np.minimum(np.maximum(ta, tb), np.maximum(tc, td))
                t = np.where(t_in <= t_out, t_in, np.inf)
                k = int(np.argmin(t))
                out.append(k if np.isfinite(t[k]) else None)
        return out

    # agreement before timing
    assert all(np.array_equal(a, b) for a, b in zip(hash_rect(), brute_rect(), strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(hash_circle(), brute_circle(), strict=True))
    got = [c.id if c else None for c in hash_ray()]
    assert sum(g == b for g, b in zip(got, brute_ray(), strict=True)) >= 0.99 * q
    kinds = {
        "rect": {"SpatialHash": hash_rect, "brute force": brute_rect},
        "circle": {"SpatialHash": hash_circle, "brute force": brute_circle},
        "ray (first hit)": {"SpatialHash": hash_ray, "brute force": brute_ray},
    }
    if tree is not None:
        assert all(np.array_equal(a, b) for a, b in zip(hash_rect(), rtree_rect(), strict=True))
        kinds["rect"]["rtree"] = rtree_rect
        kinds["circle"]["rtree + exact filter"] = rtree_circle
    for kind, systems in kinds.items():
        times = bench.interleave(systems, repeats, warmup=0, label=f"{n:,} objects, {kind}")
        for name, timing in times.items():
            table.add(n, kind, name, q / timing.median)
        table.print()


if __name__ == "__main__":
    main()
