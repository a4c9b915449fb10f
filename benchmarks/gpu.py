"""tilecast.cuda on a GPU against tilecast on this machine's CPU cores, in one run.

The range_libc workload of ``raycast.py`` (``../shared/benchmarks/README.md``:
the basement map, 1200 x 1200, everything beyond it solid, max range 500;
the ``free``, ``uniform`` and ``lidar`` sets): rays per second of
``tilecast.cuda.raycast_many`` on rays already on the device (Numba device
arrays; the answers stay there), and of ``tilecast.raycast_many`` on the
CPU's cores, timed interleaved (GPU CPU GPU CPU ...). Then the particle
filter's update, ``scan_likelihood`` with a range_libc-style table, for
4000 poses x 60 beams, 1000 x 180 and 100,000 x 60, on both. Every GPU
answer is compared with the CPU's, bit for bit, and the table says so.

The map goes to the device once (the first call; not timed), and each
kernel compiles on its first call (not timed: it takes seconds).

    python benchmarks/gpu.py             # 1,000,000 rays per set, 5 repeats
    python benchmarks/gpu.py --quick     # 200,000 rays, 3 repeats
    # the script itself, on the CUDA simulator (no GPU; slow, the figures mean nothing):
    NUMBA_ENABLE_CUDASIM=1 python benchmarks/gpu.py --rays 300 --repeats 1 --sets free \
        --poses-scale 0.001
"""

from __future__ import annotations

import numpy as np

import _harness as bench
import raycast as workload
import tilecast

MAX_RANGE = workload.MAX_RANGE
FILTERS = ((4000, 60), (1000, 180), (100_000, 60))


def sensor_table(max_range: float, resolution: float = 1.0) -> np.ndarray:
    """A range_libc-style table ``p[observed, expected]``: a Gaussian hit part, a short part
    and a random floor, in steps of ``resolution`` (what a filter would load)."""
    steps = int(max_range / resolution) + 1
    z = np.arange(steps) * resolution
    observed, expected = z[:, None], z[None, :]
    hit = np.exp(-0.5 * ((observed - expected) / 4.0) ** 2)
    short = np.where(observed < expected, 0.01 * np.exp(-0.01 * observed), 0.0)
    table = 0.75 * hit + short + 0.05 / max_range
    return table / table.sum(axis=0, keepdims=True)


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="200k rays, 3 repeats")
    parser.add_argument("--rays", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--sets", default="free,uniform,lidar")
    parser.add_argument("--poses-scale", type=float, default=1.0,
                        help="scale the particle counts (a smoke test)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        from numba import config, cuda
    except ImportError:
        print("numba-cuda is not installed (pip install 'tilecast[cuda]'): nothing timed")
        return
    if not (cuda.is_available() or config.ENABLE_CUDASIM):
        # `tilecast bench` runs every script: on a machine without a GPU this one has nothing
        print("no CUDA GPU here (numba.cuda.is_available() is False): nothing timed")
        return
    import tilecast.cuda as tc

    report = bench.start(__file__, args)
    device = "CUDA simulator" if config.ENABLE_CUDASIM else cuda.get_current_device().name
    device = device.decode() if isinstance(device, bytes) else device
    report.note("gpu", device)
    print(f"GPU: {device}; CPU threads: {bench.thread_count()}")
    n = args.rays or (200_000 if args.quick else 1_000_000)
    repeats = args.repeats or (3 if args.quick else 5)
    _, gray, occupied = workload.load_map()
    sets = workload.query_sets(gray, occupied, n)
    grid = tilecast.Grid(occupied, outside="solid")

    table = report.table(
        "gpu raycast",
        ["set", "system", bench.col("M rays/s", ".2f"),
         bench.ratio("vs CPU", of="M rays/s", baseline=CPU, by="system", within="set"),
         "bit for bit"],
    )  # fmt: skip
    for set_name in args.sets.split(","):
        q = sets[set_name]
        origins = np.ascontiguousarray(q[:, :2])
        directions = np.column_stack([np.cos(q[:, 2]), np.sin(q[:, 2])])
        d_origins, d_directions = cuda.to_device(origins), cuda.to_device(directions)

        def on_gpu(d_origins=d_origins, d_directions=d_directions):
            hits = tc.raycast_many(grid, d_origins, d_directions, MAX_RANGE)
            cuda.synchronize()
            return hits

        def on_cpu(origins=origins, directions=directions):
            return tilecast.raycast_many(grid, origins, directions, MAX_RANGE)

        times = bench.interleave({GPU: on_gpu, CPU: on_cpu}, repeats, label=set_name)
        same = _same_hits(times[GPU].result, times[CPU].result)
        for name in (GPU, CPU):
            table.add(set_name, name, len(q) / times[name].median / 1e6,
                      same if name == GPU else "")  # fmt: skip

    filters = report.table(
        "gpu particle filter",
        ["poses x beams", "system", bench.col("ms per update", ".2f"),
         bench.col("M beams/s", ".1f"),
         bench.ratio("vs CPU", of="M beams/s", baseline=CPU, by="system",
                     within="poses x beams"), "bit for bit"],
    )  # fmt: skip
    free = sets["free"]
    sensor = sensor_table(MAX_RANGE)
    rng = np.random.default_rng(7)
    for n_poses, n_beams in FILTERS:
        n_poses = max(1, int(n_poses * args.poses_scale))
        poses = free[rng.integers(0, len(free), n_poses)]
        angles = np.linspace(-np.pi, np.pi, n_beams, endpoint=False)
        observed = tilecast.scan_many(grid, poses[:1], angles, MAX_RANGE)[0]
        options = {"max_range": MAX_RANGE, "table": sensor, "table_resolution": 1.0}
        d_poses = cuda.to_device(poses)

        def update_gpu(d_poses=d_poses, angles=angles, observed=observed, options=options):
            weights = tc.scan_likelihood(grid, d_poses, angles, observed, **options)
            cuda.synchronize()
            return weights

        def update_cpu(poses=poses, angles=angles, observed=observed, options=options):
            return tilecast.scan_likelihood(grid, poses, angles, observed, **options)

        label = f"{n_poses} x {n_beams}"
        times = bench.interleave({GPU: update_gpu, CPU: update_cpu}, repeats, label=label)
        same = np.array_equal(times[GPU].result.copy_to_host(), times[CPU].result)
        for name in (GPU, CPU):
            seconds = times[name].median
            filters.add(label, name, 1e3 * seconds, n_poses * n_beams / seconds / 1e6,
                        ("yes" if same else "NO") if name == GPU else "")  # fmt: skip
    table.print()
    filters.print()
    report.save()


def _same_hits(gpu: tilecast.Hits, cpu: tilecast.Hits) -> str:
    """``yes``, or how many rays differ in any field (NaN equal to NaN)."""
    differ = np.zeros(len(cpu), dtype=bool)
    for name in ("hit", "distance", "point", "normal", "cell", "inside"):
        a, b = getattr(gpu, name).copy_to_host(), getattr(cpu, name)
        equal = (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b
        differ |= ~equal.reshape(len(cpu), -1).all(axis=1)
    return "yes" if not differ.any() else f"NO: {int(differ.sum())} rays differ"


GPU = "tilecast.cuda (GPU)"
CPU = "tilecast (CPU cores)"

if __name__ == "__main__":
    main()
