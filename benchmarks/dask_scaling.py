"""tilecast.dask on 1, 2, ... all cores as Dask workers, against the single-process call.

Two workloads on the generated open field (1024 x 1024, ``_maps.open_field``):

- ``fov_counts``: every free cell (887,179 of them) as an origin, radius 16
  (an exposure map); the default chunk (about four tasks per worker thread,
  at least 4096 origins), partial maps summed in a tree;
- ``scan_many``: 10^6 poses at random points of free cells, 60 beams,
  max range 30; 2^20 beams per task (17,476 poses). Each pose's ranges are
  summed on the workers (``.sum(axis=1)``), in both the Dask and the local
  run, so what comes back is 8 MB, not the 480 MB of ranges.

Systems:

- ``local, all threads``: the plain ``tilecast`` call in this process
  (tilecast's own threads, one per core): what a user has without Dask;
- ``local, 1 thread``: the same call in a child process with
  ``NUMBA_NUM_THREADS=1``, the unit the workers are compared with;
- ``LocalCluster, k workers``: ``distributed.LocalCluster(n_workers=k,
  threads_per_worker=1, processes=True)``, each worker process with
  ``NUMBA_NUM_THREADS=1``, k = 1, 2 and every core (deduplicated). The
  cluster is started and each worker has loaded the kernels before the
  clock starts; the map is scattered by the timed call.

The overhead per task is timed on its own: ``scan_many`` of 2,000 poses with
one beam, one pose per task (2,000 tasks doing nothing measurable), on the
threaded scheduler and on the 2-worker cluster.

The machine the figures in the report come from has 2 cores shared with other
work: the timings are noisy, and "all cores" is 2. Run it where you have more.

    python benchmarks/dask_scaling.py           # the workloads above (minutes)
    python benchmarks/dask_scaling.py --quick   # radius 8 and 10^5 poses
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as bench
from _maps import free_cells, open_field

ANGLES = np.linspace(-np.pi, np.pi, 60, endpoint=False)
MAX_RANGE = 30.0


def workload(quick: bool) -> dict[str, Any]:
    walls = open_field()
    cells = free_cells(walls)
    rng = np.random.default_rng(4)
    n_poses = 10**5 if quick else 10**6
    at = cells[rng.integers(0, len(cells), n_poses)]
    poses = np.column_stack(
        [at + rng.uniform(0.05, 0.95, (n_poses, 2)), rng.uniform(-np.pi, np.pi, n_poses)]
    )
    return {"walls": walls, "radius": 8 if quick else 16, "poses": poses}


def run_local(work: dict[str, Any]) -> dict[str, Any]:
    import tilecast

    grid = tilecast.Grid(work["walls"], outside="solid")
    tilecast.fov_counts(grid, 2, origins=[(5, 5)])  # load the kernels
    tilecast.scan_many(grid, work["poses"][:10], ANGLES, MAX_RANGE)
    fov_s, counts = bench.time_once(lambda: tilecast.fov_counts(grid, work["radius"]))
    scan_s, sums = bench.time_once(
        lambda: tilecast.scan_many(grid, work["poses"], ANGLES, MAX_RANGE).sum(axis=1)
    )
    return {"fov_s": fov_s, "scan_s": scan_s, "counts": counts, "sums": sums}


def run_cluster(work: dict[str, Any], n_workers: int) -> dict[str, Any]:
    import dask.array as da
    import distributed

    import tilecast
    from tilecast import dask as tcd

    grid = tilecast.Grid(work["walls"], outside="solid")
    start = time.perf_counter()
    with (
        distributed.LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"},
        ) as cluster,
        distributed.Client(cluster) as client,
    ):  # fmt: skip
        client.wait_for_workers(n_workers)
        started_s = time.perf_counter() - start
        small = tilecast.Grid(work["walls"][:64, :64], outside="solid")
        warm_s, _ = bench.time_once(lambda: tcd.fov_counts(small, 2, chunk=100).compute())
        tcd.scan_many(small, work["poses"][:40] % 60, ANGLES, MAX_RANGE, chunk=10).compute()
        fov_s, counts = bench.time_once(lambda: tcd.fov_counts(grid, work["radius"]).compute())
        poses = da.from_array(work["poses"], chunks=(2**20 // len(ANGLES), 3))
        scan_s, sums = bench.time_once(
            lambda: tcd.scan_many(grid, poses, ANGLES, MAX_RANGE).sum(axis=1).compute()
        )
        overhead = task_overhead(grid) if n_workers == 2 else None
    return {"fov_s": fov_s, "scan_s": scan_s, "counts": counts, "sums": sums,
            "start_s": started_s, "warm_s": warm_s, "overhead_s": overhead}  # fmt: skip


def task_overhead(grid: Any, n_tasks: int = 2000) -> float:
    """Seconds per task of a graph whose tasks do (almost) nothing: one pose, one beam."""
    from tilecast import dask as tcd

    poses = np.tile([[600.5, 600.5, 0.0]], (n_tasks, 1))
    tcd.scan_many(grid, poses[:10], [0.0], 1.0, chunk=1).compute()
    seconds, _ = bench.time_once(lambda: tcd.scan_many(grid, poses, [0.0], 1.0, chunk=1).compute())
    return seconds / n_tasks


def threaded_overhead(walls: np.ndarray) -> float:
    import dask

    import tilecast

    with dask.config.set(scheduler="threads"):
        return task_overhead(tilecast.Grid(walls, outside="solid"))


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="radius 8 and 10^5 poses")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    work = workload(args.quick)
    if args.child:  # the local call on one thread, figures on stdout
        result = run_local(work)
        print(json.dumps({"fov_s": result["fov_s"], "scan_s": result["scan_s"]}))
        return
    report = bench.start(__file__, args)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    n_free = int((~work["walls"]).sum())
    print(f"open field 1024x1024: {n_free:,} free cells as origins, radius {work['radius']}; "
          f"scan_many {len(work['poses']):,} poses x {len(ANGLES)} beams; "
          f"{cores} cores")  # fmt: skip
    rows = []
    local = run_local(work)
    rows.append(("local, all threads", local["fov_s"], local["scan_s"], ""))
    child = subprocess.run(
        [sys.executable, __file__, "--child", *(["--quick"] if args.quick else [])],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, NUMBA_NUM_THREADS="1"),
    )  # fmt: skip
    one = json.loads(child.stdout.strip().splitlines()[-1])
    rows.append((ONE, one["fov_s"], one["scan_s"], ""))
    overhead = None
    for n_workers in sorted({1, 2, cores or 1}):
        result = run_cluster(work, n_workers)
        assert np.array_equal(result["counts"], local["counts"]), "fov_counts differ"
        assert np.array_equal(result["sums"], local["sums"]), "scan_many differs"
        overhead = result["overhead_s"] if result["overhead_s"] is not None else overhead
        note = f"cluster up {result['start_s']:.1f} s, kernels loaded {result['warm_s']:.1f} s"
        rows.append((f"LocalCluster, {n_workers} worker(s)", result["fov_s"], result["scan_s"],
                     note))  # fmt: skip
    table = report.table(
        "scaling",
        ["system", bench.col("fov_counts s", ".2f"),
         bench.ratio("speed-up vs 1 thread", of="fov_counts s", baseline=ONE, by="system",
                     invert=True, suffix=""),
         bench.col("scan_many s", ".2f"),
         bench.ratio("speed-up", of="scan_many s", baseline=ONE, by="system", invert=True,
                     suffix=""),
         "notes"],
    )  # fmt: skip
    for name, fov_s, scan_s, note in rows:
        table.add(name, fov_s, scan_s, note)
    print()
    table.print()
    threads = threaded_overhead(work["walls"])
    cluster_ms = 1e3 * (overhead or 0.0)
    report.note("overhead per task, threaded scheduler, ms", 1e3 * threads)
    report.note("overhead per task, 2-worker LocalCluster, ms", cluster_ms)
    print(f"\noverhead per task (one pose, one beam; 2,000 tasks): threaded scheduler "
          f"{1e3 * threads:.2f} ms, 2-worker LocalCluster {cluster_ms:.2f} ms")  # fmt: skip
    print("results equal the local call exactly (np.array_equal) in every Dask run")
    report.save()


ONE = "local, 1 thread"


if __name__ == "__main__":
    main()
