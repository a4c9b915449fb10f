"""Many maps at once: one ``scan_many`` on a ``GridStack``, moving circles, and an RL step rate.

Three workloads, one run:

1. **Stack vs single calls.** 64 generated rooms-and-corridors maps of
   256 x 256 cells, 16 poses on each, 1080 beams over 360 degrees, max range
   100 cells: one ``scan_many`` on a ``GridStack`` of the 64 maps against the
   same rays as 64 ``scan_many`` calls, one per map (the answers are equal,
   bit for bit; checked here). Target: the stack call no slower.
2. **Moving circles vs IR-SIM.** The basement map (1200 x 1200 px of 5 cm,
   ``../shared/benchmarks/maps/``), a robot at a free pose and 20 circular
   obstacles (radius 0.25 m) at free places, 1080 beams, range 30 m: one
   ``scan(..., circles=...)`` against IR-SIM's C++ lidar
   (``irsim-x``, ``cpp.lidar_raycast``, AVX2) given the same scene the way
   IR-SIM's lidar gives it: the map as its merged occupied rectangles
   (``irsim.world.sensors._lidar_cpp.map_to_c_dicts``) plus the 20 circle
   dicts, per call (as IR-SIM's ``c_step`` does). Also how far its ranges
   are from tilecast's exact ones. Target: tilecast at least 10x faster.
3. **RL step rate.** ``examples/vector_env.py`` (N differential-drive robots
   on N maps, each seeing 4 others as circles, 1080 beams): environment steps
   per second for N = 256.

    python benchmarks/stack.py            # full run
    python benchmarks/stack.py --quick    # fewer rounds, 16 maps in part 1
"""

from __future__ import annotations

import math
import sys
import types
from pathlib import Path

import numpy as np

import _harness as bench
import tilecast
from _maps import rooms_and_corridors

HERE = Path(__file__).resolve().parent
MAP_CANDIDATES = [
    HERE.parent.parent / "shared" / "benchmarks" / "maps" / "basement_hallways_5cm.png",
    HERE / "maps" / "basement_hallways_5cm.png",
]
BEAMS = 1080
ANGLES = np.linspace(-math.pi, math.pi, BEAMS, endpoint=False)


# ------------------------------------------------------------ 1. the stack
def stack_vs_singles(report: bench.Report, n_maps: int, rounds: int) -> None:
    maps = np.stack([rooms_and_corridors(256, seed=s) for s in range(1, n_maps + 1)])
    stack = tilecast.GridStack(maps, outside="solid")
    grids = [stack[b] for b in range(n_maps)]
    rng = np.random.default_rng(7)
    poses = np.empty((n_maps, 16, 3))
    for b in range(n_maps):
        free = np.argwhere(~maps[b])
        cells = free[rng.choice(len(free), 16)]
        poses[b, :, 0] = cells[:, 1] + rng.random(16)
        poses[b, :, 1] = cells[:, 0] + rng.random(16)
        poses[b, :, 2] = rng.uniform(-math.pi, math.pi, 16)
    out = np.empty((n_maps, 16, BEAMS), np.float32)
    singles = np.empty_like(out)

    def one_call() -> None:
        tilecast.scan_many(stack, poses, ANGLES, 100.0, out=out)

    def per_map() -> None:
        for b in range(n_maps):
            tilecast.scan_many(grids[b], poses[b], ANGLES, 100.0, out=singles[b])

    times = bench.interleave({"stack": one_call, "per map": per_map}, rounds, alternate=True,
                             label="stack vs single calls")  # fmt: skip
    assert np.array_equal(out, singles), "the stack's ranges differ from the single calls'"
    rays = n_maps * 16 * BEAMS
    table = report.table(
        f"{n_maps} maps x 16 poses x {BEAMS} beams",
        ["system", bench.col("ms", ".1f"), bench.col("M rays/s", ".2f"),
         bench.ratio("x per map", of="ms", baseline="per map", by="system", invert=True)],
    )  # fmt: skip
    for name, label in (("stack", "one scan_many on a GridStack"),
                        ("per map", f"{n_maps} scan_many calls")):  # fmt: skip
        table.add(label if name == "stack" else "per map", 1e3 * times[name].median,
                  rays / times[name].median / 1e6)  # fmt: skip
    table.print()


# ---------------------------------------------------------- 2. vs IR-SIM
def load_basement() -> tuple[str, np.ndarray, np.ndarray]:
    from PIL import Image

    for path in MAP_CANDIDATES:
        if path.exists():
            image = Image.open(path)
            rgb = np.asarray(image.convert("RGB"), dtype=np.float64)
            occupied = 0.229 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2] < 128
            gray = np.asarray(image.convert("L"), dtype=np.float64)
            return str(path), occupied, (gray >= 254) & ~occupied
    occupied = rooms_and_corridors(1200, seed=5, rooms=400)
    return "generated rooms and corridors 1200 x 1200 (basement map not found)", occupied, ~occupied


def circles_vs_irsim(report: bench.Report, rounds: int) -> None:
    cpp = bench.optional("cpp", "pip install irsim-x (IR-SIM with its C++ lidar)")
    name, occupied, free = load_basement()
    print(f"map: {name}")
    cell = 0.05
    # y up in metres for both: row 0 of the image is the top (largest y). Beyond
    # the image is empty for both (IR-SIM's lidar knows no outside).
    walls = occupied[::-1]
    grid = tilecast.Grid(walls, tile_size=cell)
    rng = np.random.default_rng(3)
    spots = np.argwhere(free[::-1])
    chosen = spots[rng.choice(len(spots), 21, replace=False)]
    xy = (chosen[:, ::-1] + 0.5) * cell
    pose = (float(xy[0, 0]), float(xy[0, 1]), 0.3)
    circles = np.column_stack([xy[1:], np.full(20, 0.25)])
    max_range = 30.0
    systems = {"tilecast": lambda: tilecast.scan(grid, pose, ANGLES, max_range, circles=circles)}
    ours = systems["tilecast"]()
    walls_only = tilecast.scan(grid, pose, ANGLES, max_range)
    print(f"beams ending on a circle: {int((ours < walls_only).sum())} of {BEAMS}")
    if cpp is not None:
        from irsim.world.sensors._lidar_cpp import map_to_c_dicts

        obj = types.SimpleNamespace(
            grid_map=(walls.T * 100).astype(np.int64),  # [x index, y index], > 50 occupied
            grid_reso=np.array([[cell], [cell]]),
            world_offset=[0.0, 0.0],
        )
        start = bench.time_once(lambda: map_to_c_dicts(obj))
        rects = start[1]
        print(f"IR-SIM's map: {len(rects)} merged rectangles ({start[0]:.1f} s to merge, once)")
        obstacles = rects + [
            {"type": "circle", "x": float(x), "y": float(y), "radius": float(r), "vx": 0.0,
             "vy": 0.0} for x, y, r in circles
        ]  # fmt: skip
        angles32 = ANGLES.astype(np.float32)

        def irsim() -> np.ndarray:
            return cpp.lidar_raycast(pose[0], pose[1], pose[2], angles32, max_range, obstacles)

        systems["IR-SIM (C++ lidar)"] = irsim
    times = bench.interleave(systems, rounds, min_sample_s=0.05, label="scan among 20 circles")
    table = report.table(
        f"one {BEAMS}-beam scan among 20 moving circles, basement map",
        ["system", bench.col("ms", ".3f"),
         bench.ratio("x tilecast", of="ms", baseline="tilecast", by="system")],
    )  # fmt: skip
    for key, timing in times.items():
        table.add(key, 1e3 * timing.median)
    table.print()
    if cpp is not None:
        theirs = np.asarray(times["IR-SIM (C++ lidar)"].result, dtype=np.float64)
        diff = np.abs(theirs - ours)
        report.note("irsim median abs difference m", float(np.median(diff)))
        print(
            f"IR-SIM vs tilecast ranges: median |difference| {np.median(diff):.2e} m, "
            f"95th percentile {np.percentile(diff, 95):.2e} m, max {diff.max():.3f} m; "
            f"within 1 mm: {np.mean(diff < 1e-3):.1%}, within 1 cm: {np.mean(diff < 1e-2):.1%}"
        )


# --------------------------------------------------------- 3. the RL env
def vector_env_rate(report: bench.Report, steps: int) -> None:
    bench.optional("gymnasium", "pip install gymnasium (examples/vector_env.py)")
    sys.path.insert(0, str(HERE.parent / "examples"))
    try:
        import vector_env
    except ImportError:
        return
    table = report.table("examples/vector_env.py", ["N", bench.col("env steps/s", ",.0f")])
    for n in (256,):
        table.add(n, vector_env.step_rate(n, steps))
    table.print()


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="fewer rounds, 16 maps in part 1")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    stack_vs_singles(report, 16 if args.quick else 64, 3 if args.quick else 7)
    circles_vs_irsim(report, 3 if args.quick else 7)
    vector_env_rate(report, 5 if args.quick else 20)
    report.save()


if __name__ == "__main__":
    main()
