"""First-call cost: how long the first call of each kernel family takes in a fresh process.

Numba compiles a kernel the first time it is called and caches the machine
code on disk (``cache=True``). This script starts one child process with an
empty cache directory (cold: every family compiles) and one with the cache
it filled (warm: every family loads), and times ``import tilecast`` and the
first call of each family in the child, in the order below: the eight
families of the first-start targets (at most 20 s together, none above 6 s,
1.5 s warm), then the families added later (marked "(later)").

    python benchmarks/first_call.py             # cold and warm
    python benchmarks/first_call.py --warm-only # only the warm run (your own cache)
    python benchmarks/first_call.py --serial --alone
        # also: cold with no compile workers (TILECAST_COMPILE_JOBS=1), and each
        # family first in a process of its own (the order a user may call them)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import _harness as bench

# The child times its own first calls: it imports nothing before ``import
# tilecast`` (not even the harness, whose imports would shorten that figure).
CHILD = r"""
import json, os, sys, time
t0 = time.perf_counter()
import tilecast
import numpy as np
times = {"import tilecast": time.perf_counter() - t0}
from tilecast.data import example_map

grid = example_map()
y, x = np.mgrid[0:8, 0:8]
tiles = tilecast.TileMap(np.where(grid.solid, 0, -1), tilecast.TileSet([x <= y]), tile_size=1.0)
angles = np.linspace(0, 2 * np.pi, 360, endpoint=False)
directions = np.stack([np.cos(angles), np.sin(angles)], axis=1)
start = (5.5, 5.5)
segments = tilecast.wall_segments(grid)


def single_rays():
    tilecast.raycast(grid, start, (1.0, 0.3))
    tilecast.raycast_all(grid, start, (1.0, 0.3))
    tilecast.line_of_sight(grid, start, (20.5, 9.5))
    list(tilecast.traverse(grid, start, (20.5, 9.5)))
    tilecast.raycast(tiles, start, (1.0, 0.3))


families = [
    ("single rays (raycast, raycast_all, line_of_sight, traverse)", single_rays),
    ("raycast_many on a Grid", lambda: tilecast.raycast_many(grid, start, directions)),
    ("raycast_many on a TileMap", lambda: tilecast.raycast_many(tiles, start, directions)),
    ("scan_many", lambda: tilecast.scan_many(grid, [(5.5, 5.5, 0.0)] * 4, angles, 30.0)),
    ("fov", lambda: tilecast.fov(grid, (5, 5), 8)),
    ("visibility_polygon", lambda: tilecast.visibility_polygon(segments, start)),
    ("point_in_polygon", lambda: tilecast.point_in_polygon([(1.0, 1.0)], [(0, 0), (2, 0), (2, 2)])),
    ("lines", lambda: tilecast.lines([(0, 0)], [(5, 3)])),
]
from tilecast.startup import _fov_many, _scan_likelihood, _visibility_scene

# families added after the first-start targets were set, timed after them
later = [
    ("(later) fov_many and fov_counts", _fov_many),
    ("(later) scan_likelihood", _scan_likelihood),
    ("(later) VisibilityScene", _visibility_scene),
]
only = os.environ.get("FIRST_CALL_ONLY")
for name, call in families + later:
    if only is not None and name != only:
        continue
    t0 = time.perf_counter()
    call()
    times[name] = time.perf_counter() - t0
print(json.dumps(times))
"""


def run_child(cache_dir: str, **env_vars: str) -> dict[str, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, **env_vars)
    out = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(
        __doc__, quick="the default run (cold and warm: the shortest there is), for tilecast bench"
    )
    parser.add_argument("--warm-only", action="store_true")
    parser.add_argument(
        "--alone",
        action="store_true",
        help="also time each family first in a process of its own, with an empty cache",
    )
    parser.add_argument(
        "--serial",
        action="store_true",
        help="also a cold run with TILECAST_COMPILE_JOBS=1 (no compile workers)",
    )
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    columns: dict[str, dict[str, float]] = {}
    totals: dict[str, float] = {}

    def run(column: str, cache_dir: str, **env_vars: str) -> None:
        totals[column], columns[column] = bench.time_once(lambda: run_child(cache_dir, **env_vars))

    with tempfile.TemporaryDirectory() as cache_dir:
        if args.warm_only:
            run_child(cache_dir)
        else:
            run("cold cache (compiles)", cache_dir)
        run("warm cache (loads)", cache_dir)
    names = [k for k in columns["warm cache (loads)"] if k != "import tilecast"]
    if args.serial:
        with tempfile.TemporaryDirectory() as cache_dir:
            run("cold, no workers", cache_dir, TILECAST_COMPILE_JOBS="1")
    if args.alone:
        alone: dict[str, float] = {}
        for name in names:
            with tempfile.TemporaryDirectory() as cache_dir:
                alone[name] = run_child(cache_dir, FIRST_CALL_ONLY=name)[name]
        columns["cold, this family first"] = alone
    heads = list(columns)
    table = report.table(
        "first calls",
        ["first call in a fresh process", *(bench.col(h, ".2f", " s") for h in heads)],
    )
    for name in ["import tilecast", *names]:
        table.add(name, *(columns[h].get(name) for h in heads))

    def first_eight(times: dict[str, float]) -> float:
        return sum(v for k, v in times.items() if not k.startswith("(later)"))

    table.add(
        "import and the first eight families",
        *(first_eight(columns[h]) if h in totals else None for h in heads),
    )
    table.add("whole process (start, import, every family)", *(totals.get(h) for h in heads))
    table.print()
    report.save()


if __name__ == "__main__":
    main()
