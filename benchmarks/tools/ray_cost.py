"""Where a batch ray's time goes: setting up, the lane's first step and answer, the later steps.

One thread (``NUMBA_NUM_THREADS=1``, set here before tilecast loads), the
range_libc workload of ``benchmarks/raycast.py`` (basement map, max range
500, the ``free`` and ``lidar`` sets), nanoseconds per ray, medians of
interleaved rounds:

- ``whole``: ``scan_many`` of every ray, as the benchmark times it;
- ``fixed``: the same rays with a max range of 1e-6, so that every ray
  stops at its first step: reading the input, setting the ray up, handing
  it to a lane, one step and writing its answer;
- ``setup``: the batch kernel's input and set-up loops alone
  (``lanes._gather`` and ``lanes._stage``, sine and cosine included), in a
  loop over every ray;
- and the differences: ``fixed - setup`` is the lane's share of a ray
  (handing over, the first step, the answer), ``whole - fixed`` the later
  steps.

With range_libc installed, GLT's ns per ray on one thread beside them (its
table takes about 20-40 s to build). Figures move with the machine: compare
those of one run.

    python benchmarks/tools/ray_cost.py [--rays N] [--rounds R] [--no-glt]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["NUMBA_NUM_THREADS"] = "1"
HERE = Path(__file__).resolve().parent.parent  # benchmarks/
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

import _harness as bench  # noqa: E402
import raycast as workload  # noqa: E402
import tilecast  # noqa: E402
from tilecast._kernels import lanes  # noqa: E402
from tilecast._walkspec import Beams, MapStack  # noqa: E402
from tilecast.batch import _NO_RAYS, walk_map  # noqa: E402


@njit(cache=True)
def setup_only(poses, angles, max_range, view, maps, no_rays):  # pragma: no cover (benchmark)
    """Run the lane kernel's input and set-up loops over every ray (SCAN kind)."""
    sf = np.empty(lanes.N_FLOAT * lanes.STAGE_STRIDE)
    si = np.empty(lanes.N_INT * lanes.STAGE_STRIDE, dtype=np.int64)
    sw = np.empty(lanes.N_WORD * lanes.STAGE_STRIDE, dtype=np.int32)
    staged = lanes.Staged(
        np.empty(lanes.STAGE), np.empty(lanes.STAGE), np.empty(lanes.STAGE),
        np.empty(lanes.STAGE), np.empty(lanes.STAGE),
    )  # fmt: skip
    beams = Beams(poses, angles, max_range)
    n = poses.shape[0] * angles.shape[0]
    total = 0.0
    for first in range(0, n, lanes.STAGE):
        count = min(lanes.STAGE, n - first)
        lanes._gather(lanes.SCAN, first, count, no_rays, beams, staged)
        lanes._stage(count, first, view, maps, staged, sf, si, sw)
        total += sf[0]  # keeps the loops' work alive
    return total


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__)
    parser.add_argument("--rays", type=int, default=400_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-glt", action="store_true", help="leave out range_libc's GLT")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    map_path, gray, occupied = workload.load_map()
    sets = workload.query_sets(gray, occupied, args.rays)
    grid = tilecast.Grid(occupied, outside="solid")
    view, _ = walk_map(grid)
    glt = None
    range_libc = None if args.no_glt else bench.optional("range_libc", "see benchmarks/README")
    if range_libc is not None:
        omap = range_libc.PyOMap(str(map_path).encode(), 1)
        glt = range_libc.PyGiantLUTCast(omap, int(workload.MAX_RANGE), 108)
    angles = np.zeros(1)
    table = report.table(
        "ns per ray, one thread",
        ["set", bench.col("whole", ".1f"), bench.col("fixed", ".1f"), bench.col("setup", ".1f"),
         bench.col("lane share", ".1f"), bench.col("later steps", ".1f"),
         bench.col("GLT", ".1f")],
    )  # fmt: skip
    for name in ("free", "lidar"):
        q = np.ascontiguousarray(sets[name])
        n = len(q)
        maps = MapStack(view.info[None], n)

        def run_glt(q: np.ndarray = q) -> None:
            q32 = np.ascontiguousarray(q, dtype=np.float32)
            glt.calc_range_many(q32, np.empty(len(q), np.float32))  # type: ignore[union-attr]

        calls = {
            "whole": lambda q=q: tilecast.scan_many(grid, q, angles, workload.MAX_RANGE),
            "fixed": lambda q=q: tilecast.scan_many(grid, q, angles, 1e-6),
            "setup": lambda q=q, maps=maps: setup_only(
                q, angles, workload.MAX_RANGE, view, maps, _NO_RAYS
            ),
        }
        if glt is not None:
            calls["GLT"] = run_glt
        for call in calls.values():
            call()  # compile or load, warm the caches
        times = bench.interleave(calls, args.rounds, warmup=0, label=name)
        ns = {key: 1e9 * t.median / n for key, t in times.items()}
        table.add(name, ns["whole"], ns["fixed"], ns["setup"], ns["fixed"] - ns["setup"],
                  ns["whole"] - ns["fixed"], ns.get("GLT", float("nan")))  # fmt: skip
    table.print()
    report.save()


if __name__ == "__main__":
    main()
