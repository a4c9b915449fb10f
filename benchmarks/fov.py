"""Field of view: tilecast.fov against tcod.map.compute_fov, side by side.

Run ``python benchmarks/fov.py`` (``--quick`` for a short run). Without ``tcod``
its columns print ``-`` and the mirror-symmetry part is skipped.

Workloads (shared benchmark README): 500 x 500 and 2000 x 2000 maps, open and
30 % random walls (``default_rng(12345).random((n, n)) >= 0.3`` is floor),
origin at the centre, radius unlimited and 20. Both sides start from their
map as the user keeps it (tcod: the numpy transparency array; tilecast: a
``Grid`` built once) and end with a numpy bool mask of the map; tilecast's
"with Grid()" column also builds the Grid from the numpy array in every call.
Systems are interleaved (A B A B ...) and each figure is the median over
repeats of a batch of calls; the machine is shared and noisy, so read the
ratios, not the absolute times.

The second part counts, over every floor origin of a 64 x 64 map with 30 %
walls, where tcod's FOV_SYMMETRIC_SHADOWCAST differs from tilecast (Ford's
published algorithm), how often tcod's mask changes when the map is mirrored,
and how many floor pairs it sees one way only.

The third part is many origins at once, on the game-like maps of
``benchmarks/_maps.py``: how many origins see each cell (an exposure map),
for a sample of floor cells (``default_rng(12345)``) and then for every floor
cell. ``fov_many(..., combine="count")`` and ``fov_counts`` against one
``fov`` per origin from Python (summing the masks), ``fov_many(...,
combine="none")`` in chunks of 16 MB of masks summed with NumPy (the other way
to count), and tcod's ``compute_fov(FOV_SYMMETRIC_SHADOWCAST)`` per origin
(summing its masks) as the peer. Radius ``r`` is tcod's ``radius=r``
(``dx*dx + dy*dy < r*r``); tilecast gets ``math.nextafter(r, 0)``, the same
cells (its radius is inclusive). The parallel kernels use Numba's threads
(``NUMBA_NUM_THREADS``); on a shared machine their figures are the noisiest.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numba
import numpy as np

import _harness as bench
from _maps import MAPS, free_cells
from tilecast import Grid, fov, fov_counts, fov_many

tcod = bench.optional("tcod", "pip install tcod", also=["tcod.constants", "tcod.map"])
if tcod is not None:
    SYMMETRIC = tcod.constants.FOV_SYMMETRIC_SHADOWCAST
    TCOD_OTHERS = {
        "BASIC": tcod.constants.FOV_BASIC,
        "DIAMOND": tcod.constants.FOV_DIAMOND,
        "SHADOW": tcod.constants.FOV_SHADOW,
        "PERMISSIVE_8": tcod.constants.FOV_PERMISSIVE_8,
        "RESTRICTIVE": tcod.constants.FOV_RESTRICTIVE,
    }


def interleaved(systems: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds per call of each system, timed A B C A B C ... in batches of about 4 ms."""
    times = bench.interleave(systems, repeats, min_sample_s=0.004)
    return {name: timing.median for name, timing in times.items()}


def workloads(sizes: list[int]):
    for n in sizes:
        for kind in ("open", "30% walls"):
            if kind == "open":
                floor = np.ones((n, n), dtype=bool)
            else:
                floor = np.random.default_rng(12345).random((n, n)) >= 0.3
            for radius in (None, 20):
                yield n, kind, radius, floor


def _systems(
    floor: np.ndarray, grid: Grid, centre: int, radius: int | None, others: bool
) -> dict[str, Callable[[], object]]:
    walls = ~floor
    tcod_radius = 0 if radius is None else radius
    pov = (centre, centre)

    def tcod_fov(algorithm: int) -> Callable[[], object]:
        return lambda: tcod.map.compute_fov(floor, pov, tcod_radius, True, algorithm)

    systems = {
        "tilecast": lambda: fov(grid, pov, radius),
        "grid": lambda: fov(Grid(walls), pov, radius),
    }
    if tcod is not None:
        systems["tcod"] = tcod_fov(SYMMETRIC)
        if others:
            for name, algorithm in TCOD_OTHERS.items():
                systems[name] = tcod_fov(algorithm)
    return systems


def speed(report: bench.Report, sizes: list[int], repeats: int, others: bool) -> None:
    workload = ["map", "walls", "radius"]
    table = report.table(
        "speed",
        [*workload, bench.col("tilecast ms", ".3f"), bench.col("with Grid() ms", ".3f"),
         bench.col("tcod SYMMETRIC ms", ".3f"), bench.col("tcod / tilecast", ".1f", "x"),
         "visible (tilecast / tcod)"],
    )  # fmt: skip
    others = others and tcod is not None
    other_table = report.table(
        "other tcod algorithms", [*workload, *(bench.col(name, ".3f") for name in TCOD_OTHERS)]
    ) if others else None  # fmt: skip
    for n, kind, radius, floor in workloads(sizes):
        grid = Grid(~floor)
        centre = n // 2
        systems = _systems(floor, grid, centre, radius, others)
        ms = {name: 1e3 * t for name, t in interleaved(systems, repeats).items()}
        ours = int(fov(grid, (centre, centre), radius).sum())
        cells = [f"{n}x{n}", kind, "none" if radius is None else str(radius)]
        if tcod is None:
            table.add(*cells, ms["tilecast"], ms["grid"], None, None, f"{ours} / -")
        else:
            tcod_radius = 0 if radius is None else radius
            theirs = int(tcod.map.compute_fov(floor, (centre, centre), tcod_radius, True,
                                              SYMMETRIC).sum())  # fmt: skip
            table.add(*cells, ms["tilecast"], ms["grid"], ms["tcod"],
                      ms["tcod"] / ms["tilecast"], f"{ours} / {theirs}")  # fmt: skip
        table.print()
        if other_table is not None:
            other_table.add(*cells, *(ms[name] for name in TCOD_OTHERS))
    if other_table is not None:
        print()
        print("Other tcod algorithms (ms, same runs; each has its own rules and radius):")
        print()
        other_table.print()


def symmetry(report: bench.Report, n: int = 64) -> None:
    floor = np.random.default_rng(12345).random((n, n)) >= 0.3
    mirrored = np.ascontiguousarray(floor[:, ::-1])
    grid, grid_mirrored = Grid(~floor), Grid(~mirrored)
    origins = [(i, j) for j in range(n) for i in range(n) if floor[j, i]]
    index = {cell: k for k, cell in enumerate(origins)}
    cols_of = np.array([i for i, _ in origins])
    rows_of = np.array([j for _, j in origins])
    tcod_sees = np.zeros((len(origins), len(origins)), dtype=bool)
    ours_sees = np.zeros_like(tcod_sees)
    differ = tcod_mirror = ours_mirror = differ_cells = 0
    algorithm = SYMMETRIC
    for i, j in origins:
        ours = fov(grid, (i, j))
        theirs = tcod.map.compute_fov(floor, (j, i), 0, True, algorithm)
        differ += bool((ours != theirs).any())
        differ_cells += int((ours != theirs).sum())
        theirs_m = tcod.map.compute_fov(mirrored, (j, n - 1 - i), 0, True, algorithm)[:, ::-1]
        tcod_mirror += bool((theirs_m != theirs).any())
        ours_mirror += bool((fov(grid_mirrored, (n - 1 - i, j))[:, ::-1] != ours).any())
        tcod_sees[index[(i, j)]] = theirs[rows_of, cols_of]
        ours_sees[index[(i, j)]] = ours[rows_of, cols_of]
    pairs = len(origins) * (len(origins) - 1) // 2
    print(f"Mirror symmetry, every floor origin of a {n}x{n} map with 30% walls:")
    print()
    table = report.table("mirror symmetry", ["check", "tcod SYMMETRIC_SHADOWCAST", "tilecast"])
    table.add("origins", len(origins), len(origins))
    table.add("origins where tcod's mask differs from tilecast's", differ, None)
    table.add("cells that differ, all origins together", differ_cells, None)
    table.add("origins whose mask changes when the map is mirrored left-right", tcod_mirror,
              ours_mirror)  # fmt: skip
    table.add(f"floor pairs seen one way only (of {pairs})",
              int(np.triu(tcod_sees != tcod_sees.T).sum()),
              int(np.triu(ours_sees != ours_sees.T).sum()))  # fmt: skip
    table.print()


def _count_systems(
    walls: np.ndarray, origins: np.ndarray, radius: int | None, everyone: bool
) -> dict[str, Callable[[], np.ndarray]]:
    grid, floor = Grid(walls), ~walls
    ours = None if radius is None else math.nextafter(radius, 0)  # tcod's radius, inclusive
    tcod_radius = 0 if radius is None else radius
    cells = [(int(i), int(j)) for i, j in origins]

    def fov_loop() -> np.ndarray:
        total = np.zeros(walls.shape, dtype=np.int32)
        for cell in cells:
            total += fov(grid, cell, ours)
        return total

    step = max(1, 2**24 // walls.size)  # masks of 16 MB at a time

    def none_summed() -> np.ndarray:
        total = np.zeros(walls.shape, dtype=np.int32)
        for start in range(0, len(origins), step):
            chunk = origins[start : start + step]
            total += fov_many(grid, chunk, ours, combine="none").sum(axis=0, dtype=np.int32)
        return total

    def tcod_loop() -> np.ndarray:
        total = np.zeros(walls.shape, dtype=np.int32)
        for i, j in cells:
            total += tcod.map.compute_fov(floor, (j, i), tcod_radius, True, SYMMETRIC)
        return total

    systems = {
        "count": lambda: fov_many(grid, origins, ours, combine="count"),
        "fov_counts": (
            (lambda: fov_counts(grid, ours))
            if everyone
            else (lambda: fov_counts(grid, ours, origins=origins))
        ),
        "none": none_summed,
        "loop": fov_loop,
    }
    if tcod is not None:
        systems["tcod"] = tcod_loop
    return systems


def many_origins(
    report: bench.Report, sample: int, repeats: int, every: bool, maps: list[str]
) -> None:
    print(
        f"Many origins: how many see each cell (Numba threads: {numba.get_num_threads()}; "
        f"times in ms, medians of {repeats} interleaved repeats)"
    )
    print()
    table = report.table(
        "many origins",
        ["map", "radius", "origins", bench.col("fov_many count", ".1f"),
         bench.col("fov_counts", ".1f"), bench.col("none, chunks summed", ".1f"),
         bench.col("fov loop", ".1f"), bench.col("tcod loop", ".1f"),
         bench.col("loop / count", ".1f", "x"), bench.col("loop / fov_counts", ".1f", "x"),
         bench.col("tcod / count", ".1f", "x"), "cells seen (tilecast / tcod)"],
    )  # fmt: skip
    for name in maps:
        walls = MAPS[name]()
        floor_cells = free_cells(walls)
        picks = np.random.default_rng(12345).permutation(len(floor_cells))[:sample]
        cases = [(f"{len(picks)}", np.ascontiguousarray(floor_cells[np.sort(picks)]), False)]
        if every:
            cases.append((f"all {len(floor_cells)}", floor_cells, True))
        for radius in (None, 8):
            for label, origins, everyone in cases:
                systems = _count_systems(walls, origins, radius, everyone)
                results = {key: call() for key, call in systems.items()}
                for key in ("fov_counts", "none", "loop"):
                    assert (results[key] == results["count"]).all(), key
                ms = {key: 1e3 * t for key, t in interleaved(systems, repeats).items()}
                theirs = ms.get("tcod")
                seen = int(results["count"].sum())
                seen_tcod = int(results["tcod"].sum()) if "tcod" in results else "-"
                table.add(
                    name, "none" if radius is None else radius, label, ms["count"],
                    ms["fov_counts"], ms["none"], ms["loop"], theirs, ms["loop"] / ms["count"],
                    ms["loop"] / ms["fov_counts"], theirs and theirs / ms["count"],
                    f"{seen} / {seen_tcod}",
                )  # fmt: skip
                table.print()


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="500x500 only, few repeats")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--no-others", action="store_true", help="skip the other tcod algorithms")
    parser.add_argument(
        "--only-many", action="store_true", help="only the many-origins part (exposure maps)"
    )
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    sizes = [500] if args.quick else [500, 2000]
    repeats = args.repeats or (3 if args.quick else 9)
    print(f"tcod {tcod.__version__ if tcod else '-'}; medians of {repeats} interleaved repeats\n")
    if not args.only_many:
        speed(report, sizes, repeats, others=not args.no_others)
        print()
        if tcod is not None:  # tcod's masks against tilecast's
            symmetry(report, 32 if args.quick else 64)
            print()
    names = list(MAPS)
    many_origins(
        report,
        sample=300 if args.quick else 2000,
        repeats=repeats,
        every=not args.quick,
        maps=names[:1] if args.quick else names[:2],
    )
    if not args.quick:  # the 1024 x 1024 map: a sample only (887,179 floor cells)
        many_origins(report, sample=2000, repeats=repeats, every=False, maps=names[2:])
    report.save()


if __name__ == "__main__":
    main()
