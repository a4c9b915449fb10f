"""Batch ray casting on the range_libc workload: tilecast against its peers, in one run.

Map, query sets and peers are those of ``../shared/benchmarks/README.md``:
the basement map (1200 x 1200), the ``free``, ``uniform`` and ``lidar`` sets of
1,000,000 rays, max range 500 cells, everything beyond the map solid. Systems
are timed interleaved (A B C A B C ...) and the median of the repeats is
reported, as rays per second and as a ratio to tilecast. Agreement is
measured against tilecast's exact answer, which is itself checked against the
pure-Python reference on a sample first.

    python benchmarks/raycast.py            # full run
    python benchmarks/raycast.py --quick    # 200,000 rays, 3 repeats
"""

from __future__ import annotations

import math
import os
import sys
from functools import partial
from pathlib import Path

import numpy as np
from numba import njit, prange

import _harness as bench
import tilecast
from tilecast.batch import clearance_map

MAX_RANGE = 500.0
HERE = Path(__file__).resolve().parent
MAP_CANDIDATES = [
    HERE.parent.parent / "shared" / "benchmarks" / "maps" / "basement_hallways_5cm.png",
    HERE / "maps" / "basement_hallways_5cm.png",
]


# ------------------------------------------------------------------ workload
def load_map():
    """Return (path, gray, occupied).

    Occupied: 0.229 r + 0.587 g + 0.114 b < 128 (range_libc's rule). The map
    is a grayscale PNG (values 0, 205, 254, 255), so "gray" for the free set
    is the pixel value itself: the weights above sum to 0.93 and would cap
    white at 237, leaving no cell with gray >= 254.
    """
    from PIL import Image

    for path in MAP_CANDIDATES:
        if path.exists():
            image = Image.open(path)
            rgb = np.asarray(image.convert("RGB"), dtype=np.float64)
            weighted = 0.229 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]
            gray = np.asarray(image.convert("L"), dtype=np.float64)
            return path, gray, weighted < 128
    sys.exit("basement_hallways_5cm.png not found (expected ../shared/benchmarks/maps/)")


def query_sets(gray, occupied, n):
    free = (gray >= 254) & ~occupied
    rows, cols = np.nonzero(free)
    rng = np.random.default_rng(12345)
    pick = rng.integers(0, len(rows), n)
    free_q = np.column_stack(
        [cols[pick] + rng.random(n), rows[pick] + rng.random(n), rng.uniform(0, 2 * np.pi, n)]
    )
    uniform_q = np.column_stack(
        [rng.uniform(1, 1199, n), rng.uniform(1, 1199, n), rng.uniform(0, 2 * np.pi, n)]
    )
    rng_l = np.random.default_rng(12346)
    n_poses = max(n // 1000, 1)
    pick = rng_l.integers(0, len(rows), n_poses)
    yaw = rng_l.uniform(0, 2 * np.pi, n_poses)
    beams = np.linspace(-np.pi, np.pi, 1000)
    lidar_q = np.column_stack(
        [
            np.repeat(cols[pick] + 0.5, 1000),
            np.repeat(rows[pick] + 0.5, 1000),
            (yaw[:, None] + beams[None, :]).ravel(),
        ]
    )
    return {"free": free_q, "uniform": uniform_q, "lidar": lidar_q}


# ----------------------------------------------------------- the baselines
@njit(parallel=True, cache=True)
def naive_dda(occupied, queries, max_range, out):
    """What a user writes in an afternoon: Amanatides-Woo with accumulated tMax."""
    rows, cols = occupied.shape
    for k in prange(queries.shape[0]):
        x, y, theta = queries[k, 0], queries[k, 1], queries[k, 2]
        dx, dy = math.cos(theta), math.sin(theta)
        i, j = int(math.floor(x)), int(math.floor(y))  # noqa: RUF046 (floats in Numba)
        sx = 1 if dx > 0 else -1
        sy = 1 if dy > 0 else -1
        tdx = abs(1.0 / dx) if dx != 0 else math.inf
        tdy = abs(1.0 / dy) if dy != 0 else math.inf
        tx = ((i + 1 - x) if dx > 0 else (x - i)) * tdx
        ty = ((j + 1 - y) if dy > 0 else (y - j)) * tdy
        t = 0.0
        while True:
            if tx < ty:
                t = tx
                tx += tdx
                i += sx
            else:
                t = ty
                ty += tdy
                j += sy
            if t > max_range:
                t = max_range
                break
            if i < 0 or j < 0 or i >= cols or j >= rows or occupied[j, i]:
                break
        out[k] = t


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def build_methods(map_path, occupied, include_slow_setup=True):
    """Return {name: (setup_seconds, memory_mb, run(queries) -> ranges)}."""
    methods = {}

    # tilecast: a fresh grid, timing the clearance map it builds on first use
    # (after loading the compiled kernels once on a tiny grid)
    clearance_map(tilecast.Grid(np.zeros((4, 4), bool)))
    setup, grid = bench.time_once(lambda: tilecast.Grid(occupied, outside="solid"))
    setup += bench.time_once(lambda: clearance_map(grid))[0]
    memory = (grid.solid.nbytes + clearance_map(grid).nbytes) / 2**20

    def run_tilecast(q):
        return tilecast.scan_many(grid, q, [0.0], MAX_RANGE).ravel()

    methods[TILECAST] = (setup, memory, run_tilecast)

    occupied_u8 = np.ascontiguousarray(occupied)

    def run_dda(q):
        out = np.empty(len(q))
        naive_dda(occupied_u8, q, MAX_RANGE, out)
        return out

    methods["naive Numba DDA"] = (0.0, occupied.nbytes / 2**20, run_dda)

    range_libc = bench.optional("range_libc", "pip install pyrangelibc-danieldugas, see README")
    if range_libc is None:
        return methods
    omap = range_libc.PyOMap(str(map_path).encode(), 1)
    peers = [
        ("range_libc BL", lambda: range_libc.PyBresenhamsLine(omap, int(MAX_RANGE))),
        ("range_libc RM", lambda: range_libc.PyRayMarching(omap, int(MAX_RANGE))),
        ("range_libc CDDT", lambda: range_libc.PyCDDTCast(omap, int(MAX_RANGE), 108)),
        ("range_libc PCDDT", lambda: _pruned(range_libc.PyCDDTCast(omap, int(MAX_RANGE), 108))),
    ]
    if include_slow_setup:
        peers.append(
            ("range_libc GLT", lambda: range_libc.PyGiantLUTCast(omap, int(MAX_RANGE), 108))
        )
    for name, make in peers:
        before = rss_mb()
        setup, caster = bench.time_once(make)
        memory = rss_mb() - before

        def run(q, caster=caster):
            q32 = np.ascontiguousarray(q, dtype=np.float32)
            out = np.empty(len(q), dtype=np.float32)
            caster.calc_range_many(q32, out)
            return out.astype(np.float64)

        methods[name] = (setup, memory, run)
    return methods


def _pruned(cddt):
    cddt.prune()
    return cddt


def raycast2d_method(occupied):
    raycast2d = bench.optional("raycast2D", "pip install raycast2D")
    if raycast2d is None:
        return None
    # raycast2D: integer poses, Bresenham towards rounded end points; values
    # <= obstacle_threshold are occupied, so pass 0 for walls and 1 for free.
    image = np.where(occupied, 0, 1).astype(np.uint8)
    lidar = raycast2d.Lidar2D(
        num_rays=1000, FOV=360, ray_length=int(MAX_RANGE), occupancy_grid=image
    )

    def run(q):
        out = np.empty(len(q))
        for p in range(0, len(q), 1000):
            x, y = int(q[p, 0]), int(q[p, 1])
            yaw = float(q[p + 500, 2])  # beam 500 of linspace(-pi, pi) is the pose's yaw
            ends = lidar.scan((x, y, yaw), only_true_collisions=False).astype(np.float64)
            out[p : p + 1000] = np.hypot(ends[:, 0] - q[p, 0], ends[:, 1] - q[p, 1])
        return np.minimum(out, MAX_RANGE)

    return run


# ------------------------------------------------------------------- report
def check_exactness(grid, queries, sample=3000):
    rng = np.random.default_rng(1)
    idx = rng.choice(len(queries), sample, replace=False)
    fast = tilecast.raycast_many(
        grid,
        queries[idx, :2],
        np.column_stack([np.cos(queries[idx, 2]), np.sin(queries[idx, 2])]),
        MAX_RANGE,
    )
    for n, k in enumerate(idx):
        d = (math.cos(queries[k, 2]), math.sin(queries[k, 2]))
        ref = tilecast.raycast(grid, tuple(queries[k, :2]), d, MAX_RANGE)
        assert fast[n] == ref, f"raycast_many differs from raycast on query {k}"
    return sample


def comparable_rays(grid, queries):
    """Rays that start in a free cell and end on the map (hit or max range)."""
    directions = tilecast.batch.beam_directions(queries, [0.0])
    hits = tilecast.raycast_many(grid, queries[:, :2], directions, MAX_RANGE)
    rows, cols = grid.shape
    on_map = (hits.cell[:, 0] >= 0) & (hits.cell[:, 0] < cols)
    on_map &= (hits.cell[:, 1] >= 0) & (hits.cell[:, 1] < rows)
    return ~hits.inside & (on_map | ~hits.hit)


def main(argv=None):
    parser = bench.arguments(__doc__, quick="200k rays, 3 repeats")
    parser.add_argument("--rays", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--sets", default="free,uniform,lidar")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    n = args.rays or (200_000 if args.quick else 1_000_000)
    repeats = args.repeats or (3 if args.quick else 5)
    map_path, gray, occupied = load_map()
    sets = query_sets(gray, occupied, n)
    print(f"map {map_path.name} {occupied.shape}, {n} rays per set, {repeats} interleaved repeats")
    methods = build_methods(map_path, occupied, include_slow_setup=not args.quick)
    rc2d = raycast2d_method(occupied)
    grid = tilecast.Grid(occupied, outside="solid")
    checked = check_exactness(grid, sets["free"])
    print(f"raycast_many == raycast (bit for bit) on {checked} sampled free-set rays")
    table = report.table(
        "raycast",
        ["set", "method", bench.col("M rays/s", ".2f"),
         bench.ratio("vs tilecast", of="M rays/s", baseline=TILECAST, by="method", within="set"),
         bench.col("setup s", ".2f"), bench.col("memory MB", ".1f"),
         bench.col("within 1e-9", ".1f", "%"), bench.col("within 2 cells", ".1f", "%"),
         bench.col("off > 10 cells", ".2f", "%")],
    )  # fmt: skip
    shares = []
    for set_name in args.sets.split(","):
        q = sets[set_name]
        runners = dict(methods)
        if set_name == "lidar" and rc2d is not None:
            runners["raycast2D (int poses)"] = (0.0, float("nan"), rc2d)
        for _, _, run in runners.values():  # warm up (compilation, caches)
            run(q[:2000])
        calls = {name: partial(run, q) for name, (_, _, run) in runners.items()}
        times = bench.interleave(calls, repeats, warmup=0, label=set_name)
        exact = times[TILECAST].result
        # Agreement is judged on the rays every method models the same way:
        # starting in a free cell and stopping on the map (range_libc reports
        # max range for rays that leave the map, and handles starts inside
        # walls its own way).
        fair = comparable_rays(grid, q)
        shares.append((set_name, 100 * fair.mean()))
        for name, (setup, memory, _) in runners.items():
            diff = np.abs(times[name].result - exact)[fair]
            table.add(set_name, name, len(q) / times[name].median / 1e6, setup, memory,
                      100 * np.mean(diff <= 1e-9), 100 * np.mean(diff <= 2),
                      100 * np.mean(diff > 10))  # fmt: skip
    print()
    for set_name, share in shares:
        report.note(f"comparable share, {set_name}", share)
        print(f"agreement on {set_name}: the {share:.1f}% of rays starting free, ending on the map")
    table.print()
    report.save()


TILECAST = "tilecast (exact)"


if __name__ == "__main__":
    main()
