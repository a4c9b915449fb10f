"""The single-ray (pure-Python, exact) path: traverse and raycast, per call and per cell.

``tcod.los.bresenham`` (C, one call per line) is the reference point users
know. The rays are random segments of a given length on an open 500 x 500
map (raycast goes the same length with max_distance); systems are timed
interleaved and the median of the repeats is reported.

    python benchmarks/single_ray.py            # full run
    python benchmarks/single_ray.py --quick    # fewer rays
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

import tilecast


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    n_rays = 200 if args.quick else 1000
    repeats = 3 if args.quick else 5
    grid = tilecast.Grid(np.zeros((500, 500), bool))
    try:
        import tcod.los
    except ImportError:
        tcod = None
        print("tcod not installed (pip install tcod): no reference column")
    rng = np.random.default_rng(4)
    print("| cells per ray | traverse µs/call | traverse ns/cell | raycast µs/call "
          "| raycast ns/cell | tcod bresenham µs/call | traverse / tcod |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for length in (10, 100, 400):
        starts = rng.uniform(50, 450, (n_rays, 2))
        angles = rng.uniform(0, 2 * np.pi, n_rays)
        dirs = np.column_stack([np.cos(angles), np.sin(angles)])
        ends = np.clip(starts + length * dirs / np.abs(dirs).max(axis=1)[:, None], 0, 499.9)
        cells = sum(
            sum(1 for _ in tilecast.traverse(grid, tuple(a), tuple(b)))
            for a, b in zip(starts, ends, strict=True)
        )

        def run_traverse(starts=starts, ends=ends):
            for a, b in zip(starts, ends, strict=True):
                for _ in tilecast.traverse(grid, (a[0], a[1]), (b[0], b[1])):
                    pass

        def run_raycast(starts=starts, ends=ends):
            for a, b in zip(starts, ends, strict=True):
                d = (b[0] - a[0], b[1] - a[1])
                tilecast.raycast(grid, (a[0], a[1]), d, math.hypot(*d))

        ia, ib = starts.astype(int), ends.astype(int)

        def run_tcod(ia=ia, ib=ib):
            for a, b in zip(ia, ib, strict=True):
                tcod.los.bresenham((int(a[0]), int(a[1])), (int(b[0]), int(b[1])))

        runners = {"traverse": run_traverse, "raycast": run_raycast}
        if tcod is not None:
            runners["tcod"] = run_tcod
        times = {k: [] for k in runners}
        for _ in range(repeats):
            for k, f in runners.items():
                start = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - start)
        med = {k: statistics.median(v) for k, v in times.items()}
        per_call = {k: 1e6 * v / n_rays for k, v in med.items()}
        tcod_call = f"{per_call['tcod']:.2f}" if "tcod" in per_call else "n/a"
        ratio = f"{per_call['traverse'] / per_call['tcod']:.0f}x" if "tcod" in per_call else "n/a"
        print(
            f"| {cells / n_rays:.0f} | {per_call['traverse']:.1f} "
            f"| {1e9 * med['traverse'] / cells:.0f} | {per_call['raycast']:.1f} "
            f"| {1e9 * med['raycast'] / cells:.0f} | {tcod_call} | {ratio} |"
        )


if __name__ == "__main__":
    main()
