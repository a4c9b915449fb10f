"""Mapping: ``OccupancyGrid.integrate`` against NumPy + ``skimage.draw.line``; the likelihood field.

The workload of ``../shared/benchmarks/README.md`` ("Mapping"): the basement
map (1200 x 1200, pixels as world units), 200 poses along a path through its
free space, 1080-beam scans from ``scan_many`` (max range 200 cells),
integrated into an occupancy grid of the same geometry. Systems, timed in
interleaved rounds (A B C A B C ...), median of the repeats:

- ``integrate``: tilecast, all threads; ``integrate (1 thread)``: the same
  with ``NUMBA_NUM_THREADS=1`` (the same map, bit for bit);
- ``NumPy + skimage.draw.line``: what a Python user writes today: the end
  points in NumPy, ``skimage.draw.line`` (Bresenham) from the pose's cell
  to the end point's cell per beam, ``+= l_miss`` on every cell of the line
  but the last, ``+= l_hit`` on the last for a return, clamped per scan.

Then how many cells the Bresenham way gets wrong against the exact carving
(per beam: cells it marks that the beam does not cross, cells the beam
crosses that it skips, returns marked in a cell that is not a wall; per
map: cells classed differently), and the error of both maps against the
true map. Second part: ``scan_likelihood`` with ``LikelihoodField`` against
the beam model (4000 x 60 and 1000 x 180, the particle-filter workload of
``scan_likelihood.py``), and the distance transform against SciPy's.

    python benchmarks/mapping.py            # full run
    python benchmarks/mapping.py --quick    # 3 repeats
    python benchmarks/mapping.py --json results.json   # also machine-readable
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import numpy as np

import tilecast

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _harness as bench  # noqa: E402
from scan_likelihood import load_map, particles  # noqa: E402

SKIMAGE = "NumPy + skimage.draw.line"

MAX_RANGE = 200.0
N_SCANS = 200
N_BEAMS = 1080
P_HIT, P_MISS, CLAMP = 0.7, 0.4, (0.12, 0.97)


def logit(p):
    return math.log(p / (1.0 - p))


def robot_path(occupied, n, seed=12345, step=2.0, clearance=4.0):
    """``n`` poses along a random drive through free space (each step ``step`` cells)."""
    rng = np.random.default_rng(seed)
    grid = tilecast.Grid(occupied, outside="solid")
    room = tilecast.mapping.distance_transform(occupied)
    rows, cols = np.nonzero(room >= 3 * clearance)
    k = rng.integers(len(rows))
    x, y, heading = cols[k] + 0.5, rows[k] + 0.5, rng.uniform(-np.pi, np.pi)
    poses = []
    while len(poses) < n:
        for _ in range(50):
            nx, ny = x + step * math.cos(heading), y + step * math.sin(heading)
            inside = 0 <= nx < occupied.shape[1] and 0 <= ny < occupied.shape[0]
            if (inside and room[int(ny), int(nx)] >= clearance
                    and tilecast.line_of_sight(grid, (x, y), (nx, ny))):  # fmt: skip
                break
            heading += rng.normal(0.0, 1.2)  # blocked: turn
        x, y = nx, ny
        heading += rng.normal(0.0, 0.15)
        poses.append((x, y, heading))
    return np.array(poses)


def numpy_skimage(shape, poses, ranges, angles, max_range):
    """The Python way: Bresenham per beam with skimage.draw.line, log odds in NumPy."""
    from skimage.draw import line

    height, width = shape
    log_odds = np.zeros(shape)
    l_hit, l_miss = logit(P_HIT), logit(P_MISS)
    l_min, l_max = logit(CLAMP[0]), logit(CLAMP[1])
    for (x, y, theta), scan in zip(poses, ranges, strict=True):
        d = np.minimum(scan, max_range)
        ex = np.floor(x + d * np.cos(theta + angles)).astype(int)
        ey = np.floor(y + d * np.sin(theta + angles)).astype(int)
        returned = scan < max_range
        c0, r0 = int(x), int(y)
        for b in range(len(angles)):
            rr, cc = line(r0, c0, int(ey[b]), int(ex[b]))
            ok = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
            log_odds[rr[:-1][ok[:-1]], cc[:-1][ok[:-1]]] += l_miss
            if returned[b] and ok[-1]:
                log_odds[rr[-1], cc[-1]] += l_hit
        np.clip(log_odds, l_min, l_max, out=log_odds)
    return log_odds


def exact(shape, poses, ranges, angles, max_range, threads=None):
    saved = os.environ.get("NUMBA_NUM_THREADS")
    if threads is not None:
        os.environ["NUMBA_NUM_THREADS"] = str(threads)
    try:
        grid = tilecast.OccupancyGrid(shape, 1.0, p_hit=P_HIT, p_miss=P_MISS, clamp=CLAMP)
        grid.integrate(poses, ranges, angles, max_range)
        return grid.log_odds
    finally:
        if threads is not None:
            if saved is None:
                del os.environ["NUMBA_NUM_THREADS"]
            else:
                os.environ["NUMBA_NUM_THREADS"] = saved


def per_beam_errors(shape, poses, ranges, angles, max_range, occupied, n_scans):
    """Per beam, Bresenham's cells against the exact carving (first ``n_scans`` scans)."""
    from skimage.draw import line

    height, width = shape
    extra = skipped = exact_cells = wrong_hits = exact_wrong_hits = returns = 0
    for p in range(n_scans):
        x, y, theta = poses[p]
        for b, angle in enumerate(angles):
            r = ranges[p, b]
            grid = tilecast.OccupancyGrid(shape, 1.0)
            grid.integrate(poses[p : p + 1], [[r]], [angle], max_range)
            rows, cols = np.nonzero(grid.log_odds < 0)
            ours = set(zip(cols.tolist(), rows.tolist(), strict=True))
            hit_rows, hit_cols = np.nonzero(grid.log_odds > 0)
            d = min(r, max_range)
            ex = math.floor(x + d * math.cos(theta + angle))
            ey = math.floor(y + d * math.sin(theta + angle))
            rr, cc = line(int(y), int(x), ey, ex)
            theirs = {(c, r_) for r_, c in zip(rr[:-1].tolist(), cc[:-1].tolist(), strict=True)
                      if 0 <= r_ < height and 0 <= c < width}  # fmt: skip
            extra += len(theirs - ours)
            skipped += len(ours - theirs)
            exact_cells += len(ours)
            if r < max_range:
                returns += 1
                if 0 <= ey < height and 0 <= ex < width and not occupied[ey, ex]:
                    wrong_hits += 1
                if len(hit_rows) and not occupied[hit_rows[0], hit_cols[0]]:
                    exact_wrong_hits += 1
    return extra, skipped, exact_cells, wrong_hits, exact_wrong_hits, returns


def classes(log_odds):
    """-1 free, 0 unknown, 1 occupied (nav2's thresholds on the probability)."""
    p = 1.0 / (1.0 + np.exp(-log_odds))
    return np.where(p > 0.65, 1, np.where(p < 0.196, -1, 0))


def mapping_part(report, occupied, repeats):
    shape = occupied.shape
    world = tilecast.Grid(occupied, outside="solid")
    poses = robot_path(occupied, N_SCANS)
    angles = np.linspace(-np.pi, np.pi, N_BEAMS, endpoint=False)
    ranges = tilecast.scan_many(world, poses, angles, MAX_RANGE)
    print(f"\nmapping: {N_SCANS} scans x {N_BEAMS} beams, max range {MAX_RANGE:g} cells "
          f"({(ranges < MAX_RANGE).mean():.0%} returns)")  # fmt: skip
    ours = exact(shape, poses, ranges, angles, MAX_RANGE)
    assert np.array_equal(ours, exact(shape, poses, ranges, angles, MAX_RANGE, threads=1))
    theirs = numpy_skimage(shape, poses, ranges, angles, MAX_RANGE)
    systems = {
        "integrate": lambda: exact(shape, poses, ranges, angles, MAX_RANGE),
        "integrate (1 thread)": lambda: exact(shape, poses, ranges, angles, MAX_RANGE, 1),
        SKIMAGE: lambda: numpy_skimage(shape, poses, ranges, angles, MAX_RANGE),
    }
    times = bench.interleave(systems, repeats, label="integrate")
    table = report.table("integrate", [
        "system", bench.col(f"ms for {N_SCANS} scans", ".1f"), bench.col("scans/s", ",.0f"),
        bench.ratio("speed-up vs skimage", of=f"ms for {N_SCANS} scans", baseline=SKIMAGE,
                    by="system", invert=True),
    ])  # fmt: skip
    for label, timing in times.items():
        table.add(label, 1e3 * timing.median, N_SCANS / timing.median)
    table.print()

    n_check = 10
    extra, skipped, cells, wrong, exact_wrong, returns = per_beam_errors(
        shape, poses, ranges, angles, MAX_RANGE, occupied, n_check
    )
    print(f"\nper beam, first {n_check} scans ({n_check * N_BEAMS} beams, {cells:,} exactly "
          f"crossed cells):")  # fmt: skip
    print("| what the Bresenham way gets wrong | cells | share |")
    print("|---|---:|---:|")
    print(f"| marked free, not crossed by the beam | {extra:,} | {extra / cells:.1%} |")
    print(f"| crossed by the beam, skipped | {skipped:,} | {skipped / cells:.1%} |")
    print(f"| return marked in a cell that is not a wall | {wrong:,} of {returns:,} returns "
          f"| {wrong / returns:.1%} |")  # fmt: skip
    print(f"| (exact carving: returns in a non-wall cell) | {exact_wrong:,} | "
          f"{exact_wrong / returns:.1%} |")  # fmt: skip
    ours_c, theirs_c = classes(ours), classes(theirs)
    differ = ours_c != theirs_c
    print(f"\nwhole map after {N_SCANS} scans: {int(differ.sum()):,} cells classed differently "
          f"(of {int((ours_c != 0).sum()):,} known cells in the exact map)")  # fmt: skip
    print("| map | occupied cells that are free in the true map | free cells that are walls "
          "| walls seen as occupied |")  # fmt: skip
    print("|---|---:|---:|---:|")
    for label, c in (("exact integrate", ours_c), ("NumPy + skimage.draw.line", theirs_c)):
        false_wall = int(((c == 1) & ~occupied).sum())
        false_free = int(((c == -1) & occupied).sum())
        seen = int(((c == 1) & occupied).sum())
        print(f"| {label} | {false_wall:,} | {false_free:,} | {seen:,} |")
    return poses, ours


def field_part(report, occupied, free, repeats):
    grid = tilecast.Grid(occupied, outside="solid")
    ours, field = bench.time_once(
        lambda: tilecast.LikelihoodField(grid, sigma_hit=8.0, z_hit=0.88, z_rand=0.12,
                                         max_distance=40.0)
    )  # fmt: skip
    amcl = tilecast.LikelihoodField(grid, 8.0, 0.88, 0.12, 40.0, weighting="amcl")
    try:
        from scipy.ndimage import distance_transform_edt

        theirs, reference = bench.time_once(lambda: distance_transform_edt(~occupied))
        assert np.array_equal(field.distance, reference)
        print(f"\ndistance transform of the map: {1e3 * ours:.1f} ms (first call, "
              f"compiled kernels loaded) vs SciPy {1e3 * theirs:.1f} ms; equal")  # fmt: skip
    except ImportError:
        print(f"\ndistance transform of the map: {1e3 * ours:.1f} ms")
    for n_particles, n_beams in [(4000, 60), (1000, 180)]:
        angles = np.linspace(-0.75 * np.pi, 0.75 * np.pi, n_beams)
        poses = particles(free, n_particles)
        observed = tilecast.scan(grid, poses[0], angles, 500.0)
        beam = tilecast.BeamModel(0.75, 0.01, 0.07, 0.12, sigma_hit=8.0, lambda_short=0.01)
        models = {"LikelihoodField": field, "LikelihoodField (amcl weighting)": amcl,
                  "BeamModel": beam}  # fmt: skip
        systems = {
            label: lambda p=poses, a=angles, o=observed, m=m: tilecast.scan_likelihood(
                grid, p, a, o, max_range=500.0, model=m
            )
            for label, m in models.items()
        }
        times = bench.interleave(systems, repeats, label=f"{n_particles} x {n_beams}")
        print(f"\nscan_likelihood, {n_particles} particles x {n_beams} beams")
        table = report.table(f"scan_likelihood {n_particles} x {n_beams}", [
            "model", bench.col("ms", ".2f"),
            bench.ratio("BeamModel / this", of="ms", baseline="BeamModel", by="model",
                        invert=True),
        ])  # fmt: skip
        for label, timing in times.items():
            table.add(label, 1e3 * timing.median)
        table.print()


def main(argv=None):
    parser = bench.arguments(__doc__, quick="3 repeats")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--map", default=None)
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    repeats = 3 if args.quick else args.repeats
    name, occupied, free = load_map(args.map)
    print(f"map: {name}")
    mapping_part(report, occupied, repeats)
    field_part(report, occupied, free, repeats)
    report.save()


if __name__ == "__main__":
    main()
