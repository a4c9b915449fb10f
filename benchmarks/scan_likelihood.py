"""Particle-filter update: ``scan_likelihood`` against casting then a NumPy lookup, and range_libc.

The workload of ``../shared/benchmarks/README.md`` ("Particle-filter update"):
the basement map (1200 x 1200, pixels as world units), 4000 particles x 60
beams and 1000 x 180 over 270 degrees, max range 500 px, the sensor table of
the classic MIT particle filter (``table[observed, expected]`` for integer
pixel ranges: z_hit 0.75 Gaussian with sigma 8 px, z_short 0.01 linear,
z_max 0.07 at the last index, z_rand 0.12 uniform, each column normalised).

Systems, timed in rounds (A A B B C C ...), median of the repeats, in wall
time and in CPU time of the process (all threads; less disturbed by other
work on the machine than wall time). Each system runs twice in a row per
round: the second call is timed (a filter calls the same method step after
step); the first, right after the other systems ran (range_libc's GLT
sweeps a 300 MB table through the caches), is shown as "cold ms":

- ``scan_likelihood``: tilecast's fused call with that table (exact ranges);
- ``scan_many + NumPy``: tilecast's ranges (into a reused ``out=`` buffer),
  then the lookup a user writes: indices by ``np.rint``, ``np.log`` of the
  looked-up entries, a sum per particle;
- ``scan_likelihood (BeamModel)``: the book's model instead of the table;
- range_libc (when installed): RM and GLT casting the expanded rays with
  ``calc_range_many``, then the same NumPy lookup; and, where its own fused
  ``calc_range_repeat_angles_eval_sensor_model`` works (a build with its
  ROS frame conversion on), that call too. The registry build
  (``pip install pyrangelibc-danieldugas``) compiles the sensor-model
  helpers out, so they return nothing; this script detects which build it
  has by a probe ray.

The map is looked for in ``../shared/benchmarks/maps/``, ``benchmarks/maps/``
or at ``--map``; without it a generated rooms-and-corridors map of the same
size stands in (say so when quoting figures). The machine is shared and has
two cores: figures are noisy, compare the ratios measured in one run.

    python benchmarks/scan_likelihood.py            # full run
    python benchmarks/scan_likelihood.py --quick    # 3 repeats
"""

from __future__ import annotations

import math
import sys
from functools import partial
from pathlib import Path

import numpy as np

import _harness as bench
import tilecast

MAX_RANGE = 500.0
HERE = Path(__file__).resolve().parent
MAP_NAME = "basement_hallways_5cm.png"
MAP_CANDIDATES = [HERE.parent.parent / "shared" / "benchmarks" / "maps" / MAP_NAME,
                  HERE / "maps" / MAP_NAME]  # fmt: skip
WORKLOADS = [(4000, 60), (1000, 180)]


# ------------------------------------------------------------------ workload
def load_map(path):
    """Return (name, occupied, free-for-poses) for the basement map or a stand-in."""
    candidates = [Path(path)] if path else MAP_CANDIDATES
    for candidate in candidates:
        if candidate.exists():
            from PIL import Image

            image = Image.open(candidate)
            rgb = np.asarray(image.convert("RGB"), dtype=np.float64)
            occupied = 0.229 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2] < 128
            gray = np.asarray(image.convert("L"), dtype=np.float64)
            return str(candidate), occupied, (gray >= 254) & ~occupied
    sys.path.insert(0, str(HERE))
    from _maps import rooms_and_corridors

    occupied = rooms_and_corridors(1200, seed=5, rooms=400)
    name = "generated rooms and corridors, 1200 x 1200 (basement map not found)"
    return name, occupied, ~occupied


def mit_table(max_range_px=int(MAX_RANGE), z_hit=0.75, z_short=0.01, z_max=0.07, z_rand=0.12,
              sigma=8.0):  # fmt: skip
    """table[observed, expected] for integer pixel ranges 0 .. max_range_px, columns normalised."""
    r = np.arange(max_range_px + 1, dtype=np.float64)[:, None]  # observed
    d = np.arange(max_range_px + 1, dtype=np.float64)[None, :]  # expected
    table = z_hit * np.exp(-0.5 * ((r - d) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))
    with np.errstate(divide="ignore", invalid="ignore"):
        table = table + np.where(r < d, 2.0 * z_short * (d - r) / d, 0.0)
    table = table + np.where(r == max_range_px, z_max, 0.0)
    table = table + np.where(r < max_range_px, z_rand / max_range_px, 0.0)
    return table / table.sum(axis=0, keepdims=True)


def particles(free, n, seed=12345):
    rows, cols = np.nonzero(free)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(rows), n)
    return np.column_stack([cols[pick] + rng.random(n), rows[pick] + rng.random(n),
                            rng.uniform(0, 2 * np.pi, n)])  # fmt: skip


def numpy_lookup(ranges, observed_index, log_table):
    """The user's NumPy step: indices by rint, log-probabilities looked up, summed per particle."""
    expected_index = np.rint(np.minimum(ranges, log_table.shape[1] - 1)).astype(np.intp)
    return log_table[observed_index[None, :], expected_index].sum(axis=1)


def numpy_beam_model(ranges, observed, model, max_range, erf):
    """The beam model a user writes in NumPy on the (N, B) ranges (``erf``: SciPy's)."""
    w = np.array([model.z_hit, model.z_short, model.z_max, model.z_rand])
    w = w / w.sum()
    sigma, rate = model.sigma_hit, model.lambda_short
    z = np.minimum(observed, max_range)[None, :]
    root = sigma * math.sqrt(2.0)
    mass = 0.5 * (erf((max_range - ranges) / root) + erf(ranges / root))
    p = w[0] * np.exp(-0.5 * ((z - ranges) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi)) / mass
    with np.errstate(divide="ignore", invalid="ignore"):
        short = w[1] * rate * np.exp(-rate * z) / -np.expm1(-rate * ranges)
    p += np.where((z <= ranges) & (ranges > 0), short, 0.0)
    p += np.where(z == max_range, w[2], w[3] / max_range)
    return np.log(p).sum(axis=1)


# ----------------------------------------------------------------- range_libc
def range_libc_frame(range_libc, occupied, free):
    """Return (frame name, query converter, map) for range_libc; (None, None, map) if none fits.

    Probe rays from free cells: the frame is right when most of range_libc's
    ranges (approximate: RM stops within a pixel or so) are within 2 px of
    the exact ones (the frame that matches best).
    """
    omap = range_libc.PyOMap(np.ascontiguousarray(occupied))
    rm = range_libc.PyRayMarching(omap, int(MAX_RANGE))
    probe = particles(free, 50, seed=7)
    exact = tilecast.scan_many(tilecast.Grid(occupied, outside="solid"), probe, [0.0],
                               MAX_RANGE).ravel()  # fmt: skip
    frames = {
        "x, y, theta (registry build)": lambda q: q,
        "row, col, pi/2 - theta (ROS build)": lambda q: np.column_stack(
            [q[:, 1], q[:, 0], np.pi / 2 - q[:, 2]]
        ),
    }
    shares = {}
    for name, convert in frames.items():
        out = np.empty(len(probe), np.float32)
        rm.calc_range_many(np.ascontiguousarray(convert(probe), dtype=np.float32), out)
        shares[name] = (np.abs(out - exact) < 2.0).mean()
    name = max(shares, key=shares.__getitem__)
    if shares[name] < 0.8:
        return None, None, omap
    return name, frames[name], omap


def setup_range_libc(occupied, free, table):
    """Return (frame name, query converter, {method: caster}) or None without range_libc."""
    range_libc = bench.optional("range_libc", "pip install pyrangelibc-danieldugas")
    if range_libc is None:
        return None
    frame, convert, omap = range_libc_frame(range_libc, occupied, free)
    if frame is None:
        print("range_libc: no known frame agrees with the exact casts; not timed")
        return None
    print(f"range_libc frame: {frame}")
    casters = {}
    for name, make in (
        ("RM", lambda: range_libc.PyRayMarching(omap, int(MAX_RANGE))),
        ("GLT", lambda: range_libc.PyGiantLUTCast(omap, int(MAX_RANGE), 108)),
    ):
        seconds, casters[name] = bench.time_once(make)
        print(f"range_libc {name}: set-up {seconds:.1f} s")
        casters[name].set_sensor_model(np.ascontiguousarray(table))  # once: it appends rows
    return frame, convert, casters


def range_libc_methods(setup, table, angles, observed, log_table, observed_index):
    """{label: (run(poses) -> log-likelihoods, ranges(poses) or None[, check])} for range_libc.

    ``check(poses)``: for a fused call, its rule applied in NumPy to its casts.
    """
    if setup is None:
        return {}
    _, convert, casters = setup
    methods = {}
    n_beams = len(angles)

    def expanded(poses):
        rays = np.column_stack([np.repeat(poses[:, :2], n_beams, axis=0),
                                (poses[:, 2:3] + angles[None, :]).reshape(-1)])  # fmt: skip
        return np.ascontiguousarray(convert(rays), dtype=np.float32)

    for name, caster in casters.items():

        def run(poses, caster=caster):
            out = np.empty(len(poses) * n_beams, np.float32)
            caster.calc_range_many(expanded(poses), out)
            return numpy_lookup(out.reshape(len(poses), n_beams), observed_index, log_table)

        def ranges(poses, caster=caster):
            out = np.empty(len(poses) * n_beams, np.float32)
            caster.calc_range_many(expanded(poses), out)
            return out.reshape(len(poses), n_beams).astype(np.float64)

        methods[f"range_libc {name} + NumPy"] = (run, ranges)
    # range_libc's own fused call, where this build has it: pose (y, x, pi/2 - theta)
    # in the ROS frame, from which it subtracts each beam angle (so they are negated)
    probe = np.ascontiguousarray(convert(np.array([[600.5, 600.5, 0.0]])), dtype=np.float32)
    weights = np.full(1, np.nan)  # the registry build writes nothing
    their_angles = np.ascontiguousarray(-angles, dtype=np.float32)
    obs32 = np.ascontiguousarray(observed, dtype=np.float32)
    casters["RM"].calc_range_repeat_angles_eval_sensor_model(probe, their_angles, obs32, weights)
    if np.isnan(weights[0]):
        print("range_libc: this build's fused sensor-model call returns nothing (not timed)")
        return methods
    for name, caster in casters.items():

        def run_fused(poses, caster=caster):
            ins = np.ascontiguousarray(convert(poses), dtype=np.float32)
            weights = np.empty(len(poses))
            caster.calc_range_repeat_angles_eval_sensor_model(ins, their_angles, obs32, weights)
            with np.errstate(divide="ignore"):  # its product underflows for many beams
                return np.log(weights)

        def truncated(poses, caster=caster):  # its rule on its calc_range_many ranges
            out = np.empty(len(poses) * n_beams, np.float32)
            caster.calc_range_many(expanded(poses), out)
            d = np.clip(out.reshape(len(poses), n_beams), 0, len(table) - 1).astype(np.intp)
            return log_table[observed.astype(np.intp)[None, :], d].sum(axis=1)

        methods[f"range_libc {name} fused"] = (run_fused, None, truncated)
    return methods


# ---------------------------------------------------------------------- main
def main(argv=None):
    parser = bench.arguments(__doc__, quick="3 repeats")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--map", default=None, help=f"path of {MAP_NAME}")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    repeats = 3 if args.quick else args.repeats
    name, occupied, free = load_map(args.map)
    print(f"map: {name}")
    grid = tilecast.Grid(occupied, outside="solid")
    table = mit_table()
    log_table = np.log(table)
    setup = setup_range_libc(occupied, free, table)
    special = bench.optional("scipy.special", "no NumPy beam model to compare with")
    for n_particles, n_beams in WORKLOADS:
        angles = np.linspace(-0.75 * np.pi, 0.75 * np.pi, n_beams)
        poses = particles(free, n_particles)
        observed = tilecast.scan(grid, poses[0], angles, MAX_RANGE)  # the first particle's scan
        observed_index = np.rint(np.minimum(observed, len(table) - 1)).astype(np.intp)
        buffer = np.empty((n_particles, n_beams))
        model = tilecast.BeamModel(0.75, 0.01, 0.07, 0.12, sigma_hit=8.0, lambda_short=0.01)
        systems = {
            "scan_likelihood (table)": lambda p, a=angles, o=observed: tilecast.scan_likelihood(
                grid, p, a, o, max_range=MAX_RANGE, table=table, table_resolution=1.0
            ),
            "scan_many + NumPy": lambda p, a=angles, b=buffer, i=observed_index: numpy_lookup(
                tilecast.scan_many(grid, p, a, MAX_RANGE, out=b), i, log_table
            ),
            "scan_likelihood (BeamModel)": lambda p, a=angles, o=observed, m=model: (
                tilecast.scan_likelihood(grid, p, a, o, max_range=MAX_RANGE, model=m)
            ),
        }
        if special is not None:
            systems["scan_many + NumPy (BeamModel)"] = lambda p, a=angles, o=observed, m=model: (
                numpy_beam_model(
                    tilecast.scan_many(grid, p, a, MAX_RANGE), o, m, MAX_RANGE, special.erf
                )
            )
        peers = range_libc_methods(setup, table, angles, observed, log_table, observed_index)
        exact = tilecast.scan_many(grid, poses, angles, MAX_RANGE)
        reference = np.cumsum(log_table[observed_index[None, :], np.rint(exact).astype(int)],
                              axis=1)[:, -1]  # fmt: skip
        fused = systems["scan_likelihood (table)"](poses)
        assert np.array_equal(fused, reference), "scan_likelihood differs from scan_many + lookup"
        if "scan_many + NumPy (BeamModel)" in systems:
            split = systems["scan_many + NumPy (BeamModel)"](poses)
            fused = systems["scan_likelihood (BeamModel)"](poses)
            assert np.allclose(fused, split, rtol=1e-9), "the beam models differ"
        print(f"\n{n_particles} particles x {n_beams} beams ({n_particles * n_beams} rays)")
        for peer, (run, ranges, *check) in peers.items():
            if check:
                with np.errstate(divide="ignore"):
                    fused_ll, rule = run(poses), check[0](poses)
                finite = np.isfinite(fused_ll)
                gap = np.abs(fused_ll - rule)[finite].max()
                print(f"  {peer}: log-weights within {gap:.1e} of its casts + (int) lookup; "
                      f"{(~finite).sum()} of {len(poses)} weights underflow to 0")  # fmt: skip
            if ranges is not None:
                off = np.abs(ranges(poses) - exact) > 2.0
                print(f"  {peer}: {100 * off.mean():.2f} % of rays more than 2 px off the exact")
        runs = {**systems, **{peer: methods[0] for peer, methods in peers.items()}}
        # each system twice in a row per round: the first call follows the other
        # systems' (GLT's 300 MB table evicts the caches), the second is a filter's loop
        calls = {}
        for label, run in runs.items():
            calls[label, "cold"] = calls[label, "warm"] = partial(run, poses)
        times = bench.interleave(calls, repeats, label=f"{n_particles} x {n_beams}")
        speeds = report.table(
            f"{n_particles} particles x {n_beams} beams",
            ["system", bench.col("wall ms", ".2f"),
             bench.ratio("/ fused", of="wall ms", baseline=FUSED, by="system", key="wall_ratio"),
             bench.col("CPU ms", ".2f"),
             bench.ratio("/ fused", of="CPU ms", baseline=FUSED, by="system", key="cpu_ratio"),
             bench.col("cold ms", ".2f")],
        )  # fmt: skip
        for label in runs:
            warm, cold = times[label, "warm"], times[label, "cold"]
            speeds.add(label, 1e3 * warm.median, 1e3 * warm.cpu_median, 1e3 * cold.median)
        print()
        speeds.print()
        print()
        wall = {row["system"]: row["wall_ms"] for row in speeds.rows}
        work = {row["system"]: row["cpu_ms"] for row in speeds.rows}
        for name in ("table", "BeamModel"):
            fused = f"scan_likelihood ({name})"
            split = "scan_many + NumPy" + ("" if name == "table" else " (BeamModel)")
            if split in wall:
                by_wall, by_cpu = wall[fused] / wall[split], work[fused] / work[split]
                report.note(f"{n_particles} x {n_beams}, {name}: fused / split, wall", by_wall)
                report.note(f"{n_particles} x {n_beams}, {name}: fused / split, CPU", by_cpu)
                print(f"  {name}: scan_likelihood / (scan_many + NumPy) = {by_wall:.2f} wall, "
                      f"{by_cpu:.2f} CPU")  # fmt: skip
    report.save()


FUSED = "scan_likelihood (table)"


if __name__ == "__main__":
    main()
