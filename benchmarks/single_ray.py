"""Single queries, one call at a time: tilecast against tcod and pymunk on game-like maps.

What is measured, per call (median over repeats; every system runs the same
queries, timed interleaved A B A B in the same run, each call warmed up once
first so that Numba's compile or cache load is not timed):

1. ``line_of_sight`` on short queries (up to 8 tiles) against the tcod idiom:
   ``tcod.los.bresenham(a, b)`` plus a NumPy test that no cell strictly
   between the ends is a wall (walls array prepared once).
2. ``raycast`` against pymunk's ``Space.segment_query_first`` (radius 0) on
   a static space holding one ``pymunk.Segment`` per row of
   ``wall_segments(grid)``; tilecast's ``max_distance`` is the segment
   length. Three groups: short (< 8 tiles), medium (8-64), long (> 64).
   The "same answer" column is a sanity check, not a test: hit/miss agree
   and, on a hit, the distances differ by at most 1e-9.
3. ``raycast_many(grid, origin, [direction])`` of one ray against one
   ``raycast(grid, origin, direction)`` (target: at most 5 µs and 3x).
4. A roguelike turn: 202 FOVs of radius 8 from random free cells, 200
   line-of-sight checks between free cell centres at most 10 tiles apart,
   and one light (``visibility_polygon`` of the map's precomputed wall
   segments, radius 8); tcod does the same with ``compute_fov`` (symmetric
   shadowcasting, radius 8, transparency array built once), 200 Bresenham
   checks, and one more ``compute_fov`` for the light. The indented rows
   split the turn into its parts (timed inside the same turns).

Maps come from ``benchmarks/_maps.py`` (fixed seeds): rooms and corridors,
caves (256 x 256) and an open field with obstacles (1024 x 1024), each as
``Grid(walls, outside="solid")``. Query ends are free cells; points are cell
centres plus random offsets (up to 0.45 cells) except in the roguelike turn,
which works on cell centres. Ratio = tilecast / peer: below 1, tilecast is
faster. The machine may be shared and noisy: read the ratios. A peer that is
not installed (tcod, pymunk) is not timed: its columns print ``-``.

    python benchmarks/single_ray.py            # full run (a few minutes)
    python benchmarks/single_ray.py --quick    # fewer queries and repeats (under a minute)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

import _harness as bench
import tilecast
from _maps import MAPS, Walls, free_cells

tcod = bench.optional("tcod", "pip install tcod", also=["tcod.constants", "tcod.los", "tcod.map"])
pymunk = bench.optional("pymunk", "pip install pymunk")

Point = tuple[float, float]
Cell = tuple[int, int]

FOV_RADIUS = 8
TURN_FOVS = 202
TURN_SIGHTS = 200
TURN_SIGHT_RANGE = 10.0


@dataclass
class Queries:
    """Segments between free cells: float ends (world = tile units) and their cells."""

    starts: list[Point]
    ends: list[Point]
    start_cells: list[Cell]
    end_cells: list[Cell]

    @property
    def directions(self) -> list[Point]:
        return [(b[0] - a[0], b[1] - a[1]) for a, b in zip(self.starts, self.ends, strict=True)]

    @property
    def lengths(self) -> list[float]:
        return [math.hypot(dx, dy) for dx, dy in self.directions]


def make_queries(
    rng: np.random.Generator,
    walls: Walls,
    free: NDArray[np.int64],
    n: int,
    lo: float,
    hi: float,
    *,
    offset: float = 0.45,
) -> Queries:
    """N segments from a free cell to a free cell, of length in [lo, hi) (rejection sampling)."""
    rows, cols = walls.shape
    starts: list[NDArray[np.float64]] = []
    ends: list[NDArray[np.float64]] = []
    found = 0
    while found < n:
        m = 4 * (n - found) + 64
        cells = free[rng.integers(0, len(free), m)]
        a = cells + 0.5 + rng.uniform(-offset, offset, (m, 2))
        angle = rng.uniform(0.0, 2.0 * np.pi, m)
        length = rng.uniform(lo, hi, m)
        b = a + length[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
        if offset == 0.0:  # cell centres at both ends
            b = np.floor(b) + 0.5
            length = np.hypot(*(b - a).T)
        cb = np.floor(b).astype(np.int64)
        inside = (cb[:, 0] >= 0) & (cb[:, 0] < cols) & (cb[:, 1] >= 0) & (cb[:, 1] < rows)
        ok = inside.copy()
        ok[inside] = ~walls[cb[inside, 1], cb[inside, 0]]
        ok &= (length >= lo) & (length < hi) & (length > 0.0)
        starts.append(a[ok])
        ends.append(b[ok])
        found += int(ok.sum())
    a_all = np.concatenate(starts)[:n]
    b_all = np.concatenate(ends)[:n]
    return Queries(
        [(x, y) for x, y in a_all.tolist()],
        [(x, y) for x, y in b_all.tolist()],
        [(i, j) for i, j in np.floor(a_all).astype(np.int64).tolist()],
        [(i, j) for i, j in np.floor(b_all).astype(np.int64).tolist()],
    )


# ------------------------------------------------------------------ runners
def tilecast_sight(grid: tilecast.Grid, q: Queries) -> Callable[[], list[bool]]:
    line_of_sight = tilecast.line_of_sight
    pairs = list(zip(q.starts, q.ends, strict=True))
    return lambda: [line_of_sight(grid, a, b) for a, b in pairs]


def tcod_sight(walls: Walls, q: Queries) -> Callable[[], list[bool]]:
    bresenham = tcod.los.bresenham
    pairs = list(zip(q.start_cells, q.end_cells, strict=True))

    def run() -> list[bool]:
        out = []
        for a, b in pairs:
            inner = bresenham(a, b)[1:-1]
            out.append(not walls[inner[:, 1], inner[:, 0]].any())
        return out

    return run


def tilecast_cast(grid: tilecast.Grid, q: Queries) -> Callable[[], list[float]]:
    raycast = tilecast.raycast
    rays = list(zip(q.starts, q.directions, q.lengths, strict=True))

    def run() -> list[float]:
        out = []
        for origin, direction, length in rays:
            hit = raycast(grid, origin, direction, length)
            out.append(math.inf if hit is None else hit.distance)
        return out

    return run


def pymunk_cast(space: Any, q: Queries) -> Callable[[], list[float]]:
    query = space.segment_query_first
    everything = pymunk.ShapeFilter()
    rays = list(zip(q.starts, q.ends, q.lengths, strict=True))

    def run() -> list[float]:
        out = []
        for a, b, length in rays:
            info = query(a, b, 0, everything)
            out.append(math.inf if info is None else info.alpha * length)
        return out

    return run


def cast_one_by_one(grid: tilecast.Grid, q: Queries) -> Callable[[], list[float]]:
    raycast = tilecast.raycast
    rays = list(zip(q.starts, q.directions, strict=True))

    def run() -> list[float]:
        out = []
        for origin, direction in rays:
            hit = raycast(grid, origin, direction)
            out.append(math.inf if hit is None else hit.distance)
        return out

    return run


def cast_batches_of_one(grid: tilecast.Grid, q: Queries) -> Callable[[], list[float]]:
    raycast_many = tilecast.raycast_many
    rays = list(zip(q.starts, q.directions, strict=True))
    return lambda: [float(raycast_many(grid, o, [d]).distance[0]) for o, d in rays]


@dataclass
class Turns:
    """The queries of several roguelike turns (cell centres)."""

    fov_cells: list[list[Cell]] = field(default_factory=list)
    sights: list[Queries] = field(default_factory=list)
    lights: list[Point] = field(default_factory=list)


def make_turns(rng: np.random.Generator, walls: Walls, free: NDArray[np.int64], n: int) -> Turns:
    turns = Turns()
    for _ in range(n):
        cells = free[rng.integers(0, len(free), TURN_FOVS)]
        turns.fov_cells.append([(i, j) for i, j in cells.tolist()])
        turns.sights.append(
            make_queries(rng, walls, free, TURN_SIGHTS, 1.0, TURN_SIGHT_RANGE + 0.01, offset=0.0)
        )
        i, j = free[rng.integers(0, len(free))].tolist()
        turns.lights.append((i + 0.5, j + 0.5))
    return turns


def play_turns(
    turns: Turns,
    fov_step: Callable[[list[Cell]], object],
    sight_step: Callable[[Queries], object],
    light_step: Callable[[Point], object],
) -> Callable[[], bench.Parts]:
    """The turns, timed by part: the FOVs, the line-of-sight checks, the light."""

    def run() -> bench.Parts:
        total = bench.Parts(fov=0.0, sight=0.0, light=0.0)
        for cells, sights, light in zip(turns.fov_cells, turns.sights, turns.lights, strict=True):
            steps = {"fov": partial(fov_step, cells), "sight": partial(sight_step, sights),
                     "light": partial(light_step, light)}  # fmt: skip
            for part, seconds in bench.time_parts(steps).items():
                total[part] += seconds
        return total

    return run


def tilecast_turns(
    grid: tilecast.Grid, segments: NDArray[np.float64], turns: Turns
) -> Callable[[], bench.Parts]:
    """The turns as tilecast plays them: fov, line_of_sight, visibility_polygon."""
    fov, line_of_sight = tilecast.fov, tilecast.line_of_sight
    visibility_polygon = tilecast.visibility_polygon

    def fovs(cells: list[Cell]) -> None:
        for cell in cells:
            fov(grid, cell, FOV_RADIUS)

    def sight(q: Queries) -> None:
        for a, b in zip(q.starts, q.ends, strict=True):
            line_of_sight(grid, a, b)

    def light(at: Point) -> None:
        visibility_polygon(segments, at, radius=FOV_RADIUS)

    return play_turns(turns, fovs, sight, light)


def tcod_turns(walls: Walls, turns: Turns) -> Callable[[], bench.Parts]:
    """The same turns with tcod: compute_fov (symmetric shadowcasting) and Bresenham checks."""
    transparency = ~walls
    compute_fov, bresenham = tcod.map.compute_fov, tcod.los.bresenham
    symmetric = tcod.constants.FOV_SYMMETRIC_SHADOWCAST

    def fovs(cells: list[Cell]) -> None:
        for i, j in cells:
            compute_fov(transparency, (j, i), radius=FOV_RADIUS, algorithm=symmetric)

    def sight(q: Queries) -> None:
        for a, b in zip(q.start_cells, q.end_cells, strict=True):
            inner = bresenham(a, b)[1:-1]
            _ = not walls[inner[:, 1], inner[:, 0]].any()

    def light(at: Point) -> None:
        i, j = int(at[0]), int(at[1])
        compute_fov(transparency, (j, i), radius=FOV_RADIUS, algorithm=symmetric)

    return play_turns(turns, fovs, sight, light)


# -------------------------------------------------------------------- report
def same_answer(a: list[float], b: list[float], tol: float = 1e-9) -> float:
    """Fraction of queries where both miss, or both hit at distances within tol."""
    agree = sum(
        (x == math.inf and y == math.inf) or abs(x - y) <= tol for x, y in zip(a, b, strict=True)
    )
    return agree / len(a)


def build_space(segments: NDArray[np.float64]) -> Any:
    space = pymunk.Space()
    body = space.static_body
    space.add(*(pymunk.Segment(body, (x0, y0), (x1, y1), 0) for (x0, y0), (x1, y1) in segments))
    return space


def bench_map(report: bench.Report, name: str, walls: Walls, quick: bool, seed: int) -> None:
    n = 300 if quick else 2000
    repeats = 3 if quick else 9
    n_turns = 1 if quick else 3
    rng = np.random.default_rng(seed)
    grid = tilecast.Grid(walls, outside="solid")
    free = free_cells(walls)
    segments = tilecast.wall_segments(grid)
    space_s, space = bench.time_once(lambda: build_space(segments) if pymunk else None)
    rows, cols = walls.shape
    far = 0.9 * math.hypot(rows, cols)
    sight = make_queries(rng, walls, free, n, 0.5, 8.0)
    groups = {
        "short (< 8 tiles)": make_queries(rng, walls, free, n, 1.0, 8.0),
        "medium (8-64 tiles)": make_queries(rng, walls, free, n, 8.0, 64.0),
        "long (> 64 tiles)": make_queries(rng, walls, free, n, 64.0, far),
    }
    turns = make_turns(rng, walls, free, n_turns)

    # the systems by workload; a peer that is not installed has no entry
    medium = groups["medium (8-64 tiles)"]
    workloads: dict[str, dict[str, Callable[[], Any]]] = {
        "los": {"tilecast": tilecast_sight(grid, sight)},
        **{g: {"tilecast": tilecast_cast(grid, q)} for g, q in groups.items()},
        "single": {"tilecast": cast_batches_of_one(grid, medium),
                   "peer": cast_one_by_one(grid, medium)},
        "turn": {"tilecast": tilecast_turns(grid, segments, turns)},
    }  # fmt: skip
    if tcod is not None:
        workloads["los"]["peer"] = tcod_sight(walls, sight)
        workloads["turn"]["peer"] = tcod_turns(walls, turns)
    if pymunk is not None:
        for g, q in groups.items():
            workloads[g]["peer"] = pymunk_cast(space, q)
    # answers, once (untimed): the sanity columns
    answers = {w: {s: run() for s, run in by.items()} for w, by in workloads.items() if w != "turn"}
    agree: dict[str, float | None] = {w: None for w in answers}
    hit_share = {}
    for w, got in answers.items():
        if "peer" in got:
            tol = 0.0 if w in ("los", "single") else 1e-9
            agree[w] = same_answer([float(v) for v in got["tilecast"]],
                                   [float(v) for v in got["peer"]], tol)  # fmt: skip
    for g in groups:
        ours = answers[g]["tilecast"]
        hit_share[g] = sum(d < math.inf for d in ours) / len(ours)

    flat = {(w, s): run for w, by in workloads.items() for s, run in by.items()}
    times = bench.interleave(flat, repeats, alternate=True, gc_off=True, label=name)

    hits = sum(len(v) for v in turns.fov_cells)
    print(f"### {name}\n")
    pymunk_note = f"pymunk space built in {1e3 * space_s:.0f} ms" if pymunk else "no pymunk"
    print(
        f"{100 * walls.mean():.1f} % walls, {len(segments):,} wall segments "
        f"({pymunk_note}); {n} queries per group, "
        f"{repeats} repeats, {n_turns} turn(s) per repeat.\n"
    )
    table = report.table(
        name,
        ["workload", bench.col("tilecast µs/call", ".2f"), "peer",
         bench.col("peer µs/call", ".2f"), bench.col("ratio", ".2f"), "target",
         bench.col("same answer", ".1f", " %")],
    )  # fmt: skip

    def row(
        label: str, ours: float | None, peer_name: str, theirs: float | None, target: str,
        same: float | None,
    ) -> None:  # fmt: skip
        def us(seconds: float | None) -> float | None:
            return None if seconds is None else 1e6 * seconds

        ratio = None if ours is None or theirs is None else ours / theirs
        table.add(label, us(ours), peer_name, us(theirs), ratio, target,
                  None if same is None else 100 * same)  # fmt: skip

    def per_call(workload: str, system: str, calls: int, part: str = "") -> float | None:
        """Median seconds per call (of a part of the run); None for a peer not installed."""
        timing = times.get((workload, system))
        if timing is None:
            return None
        return (timing.part(part) if part else timing.median) / calls

    row("line_of_sight, short (≤ 8 tiles)", per_call("los", "tilecast", n),
        "tcod bresenham + NumPy", per_call("los", "peer", n), "ratio ≤ 1",
        agree["los"])  # fmt: skip
    for g in groups:
        row(f"raycast, {g}, {100 * hit_share[g]:.0f} % hit", per_call(g, "tilecast", n),
            "pymunk segment_query_first", per_call(g, "peer", n), "ratio ≤ 1",
            agree[g])  # fmt: skip
    row("raycast_many of 1 ray (medium)", per_call("single", "tilecast", n),
        "tilecast raycast (same ray)", per_call("single", "peer", n), "≤ 5 µs and ratio ≤ 3",
        agree["single"])  # fmt: skip
    turn = {s: sum(t.part(p) for p in t.parts) / n_turns for (w, s), t in times.items()
            if w == "turn"}  # fmt: skip
    row("roguelike turn (µs per turn)", turn["tilecast"], "tcod (203 compute_fov + 200 LOS)",
        turn.get("peer"), "ratio ≤ 1", None)  # fmt: skip
    counts = {"fov": hits // n_turns, "sight": TURN_SIGHTS, "light": 1}
    labels = {
        "fov": ("· fov radius 8 (per call)", "tcod compute_fov r=8"),
        "sight": ("· line_of_sight ≤ 10 tiles, centres", "tcod bresenham + NumPy"),
        "light": ("· light: visibility_polygon r=8", "tcod compute_fov r=8"),
    }
    for part, (ours, theirs) in labels.items():
        calls = n_turns * counts[part]
        row(ours, per_call("turn", "tilecast", calls, part), theirs,
            per_call("turn", "peer", calls, part), "", None)  # fmt: skip
    table.print()
    print()


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="fewer queries and repeats")
    parser.add_argument("--seed", type=int, default=14, help="seed of the queries")
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)
    print(
        f"tilecast {tilecast.__version__}, tcod {tcod.__version__ if tcod else '-'}, "
        f"pymunk {pymunk.version if pymunk else '-'}, "
        f"numpy {np.__version__}; ratio = tilecast / peer (below 1: tilecast is faster). "
        "'same answer': line_of_sight vs Bresenham (they may differ: Bresenham is not exact), "
        "raycast vs pymunk (hit/miss and distance within 1e-9), raycast_many vs raycast "
        "(bit for bit).\n"
    )
    for k, (name, make) in enumerate(MAPS.items()):
        bench_map(report, name, make(), args.quick, args.seed + k)
    report.save()


if __name__ == "__main__":
    main()
