"""Start-up: compile (or load) every kernel family ahead of time, with progress.

tilecast's kernels are compiled by Numba the first time they are used after
installation and cached on disk (``cache=True``); later processes load them
in well under a second. :func:`warmup` does that first use for every family
at a moment of your choosing (an installer, a game's loading screen, a
container build), so that no query waits for a compile. ``tilecast warmup``
runs it from the command line.

When a compile does start during a query, the logger ``tilecast`` says so
once per kernel at INFO level (the ``tilecast`` command shows these lines).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import tilecast

__all__ = ["FAMILIES", "run_families", "warmup"]


def _single_rays() -> None:
    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    tilecast.raycast(grid, (5.5, 5.5), (1.0, 0.3))
    tilecast.raycast_all(grid, (5.5, 5.5), (1.0, 0.3))
    tilecast.line_of_sight(grid, (5.5, 5.5), (20.5, 9.5))
    list(tilecast.traverse(grid, (5.5, 5.5), (20.5, 9.5)))


def _tile_map() -> tilecast.TileMap:
    import numpy as np

    import tilecast

    y, x = np.mgrid[0:8, 0:8]
    return tilecast.TileMap([[-1, 0], [0, -1]], tilecast.TileSet([x <= y]), tile_size=1.0)


def _directions(n: int) -> object:
    import numpy as np

    angles = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def _batch_grid() -> None:
    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    tilecast.raycast_many(grid, (5.5, 5.5), _directions(2048))
    tilecast.raycast_many(grid, (5.5, 5.5), (1.0, 0.3))  # one ray: its own kernel


def _batch_tilemap() -> None:
    import tilecast

    tiles = _tile_map()
    tilecast.raycast(tiles, (0.5, 0.3), (1.0, 0.0))
    tilecast.raycast_many(tiles, (0.5, 0.3), _directions(64))


def _scans() -> None:
    import numpy as np

    import tilecast
    from tilecast.data import example_map

    angles = np.linspace(0.0, 2.0 * np.pi, 360, endpoint=False)
    tilecast.scan_many(example_map(), [(5.5, 5.5, 0.0)] * 8, angles, 30.0)


def _stacks() -> None:
    import numpy as np

    import tilecast

    stack = tilecast.GridStack(np.zeros((2, 8, 8), bool), outside="solid")
    poses = np.full((2, 1, 3), 4.5)
    angles = np.linspace(0.0, 2.0 * np.pi, 64, endpoint=False)
    tilecast.scan_many(stack, poses, angles, 30.0, circles=np.full((2, 1, 3), (6.0, 4.5, 0.5)),
                       boxes=np.full((2, 1, 5), (2.0, 4.5, 0.5, 0.5, 0.3)))  # fmt: skip


def _fov() -> None:
    import tilecast
    from tilecast.data import example_map

    tilecast.fov(example_map(), (5, 5), 8)


def _visibility() -> None:
    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    tilecast.visibility_polygon(tilecast.wall_segments(grid), (5.5, 5.5))


def _point_in_polygon() -> None:
    import tilecast

    tilecast.point_in_polygon([(1.0, 1.0)], [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0)])


def _fov_many() -> None:
    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    origins = [(5, 5), (6, 5)]
    tilecast.fov_many(grid, origins, 8, combine="count")
    tilecast.fov_many(grid, origins, 8, combine="none")
    tilecast.fov_counts(grid, 8, origins=origins)


def _scan_likelihood() -> None:
    import numpy as np

    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    angles = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    observed = np.full(8, 3.0)
    poses = [(5.5, 5.5, 0.0)]
    tilecast.scan_likelihood(grid, poses, angles, observed, max_range=10.0,
                             model=tilecast.BeamModel(0.8, 0.05, 0.05, 0.1, 0.2, 0.5))  # fmt: skip
    table = np.full((11, 11), 0.1)
    tilecast.scan_likelihood(grid, poses, angles, observed, max_range=10.0, table=table,
                             table_resolution=1.0)  # fmt: skip


def _visibility_scene() -> None:
    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    scene = tilecast.VisibilityScene.from_grid(grid)
    scene.polygon((5.5, 5.5))
    scene.polygons([(5.5, 5.5), (6.5, 5.5)])
    scene.visible((5.5, 5.5), [(6.0, 6.0)])


def _lines() -> None:
    import tilecast

    tilecast.line((0, 0), (5, 3))
    tilecast.lines([(0, 0)], [(5, 3)])


def _bodies() -> None:
    import numpy as np

    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    bodies = tilecast.SpatialHash(1.0)
    bodies.insert_many([1, 2], circles=[(5.0, 5.0, 0.5), (7.0, 5.0, 0.5)])
    bodies.insert(3, polygon=[(2.0, 2.0), (3.0, 2.0), (2.5, 3.0)])
    bodies.insert(4, segment=((1.0, 1.0), (1.0, 2.0)))
    bodies.insert(5, box=(8.0, 8.0, 9.0, 9.0))
    bodies.move_many([1, 2], [(0.5, 0.0), (-0.5, 0.0)])
    bodies.query_rect((0.0, 0.0, 9.0, 9.0))
    bodies.query_circle((5.0, 5.0), 2.0)
    list(bodies.query_ray((0.5, 5.0), (1.0, 0.0)))
    tilecast.raycast(grid, (5.5, 5.5), (1.0, 0.0), bodies=bodies, ignore=1)
    tilecast.line_of_sight(grid, (1.5, 1.5), (8.5, 8.5), bodies=bodies)
    tilecast.raycast_many(grid, (5.5, 5.5), np.array([(1.0, 0.0), (0.0, 1.0)]), bodies=bodies)


def _casts() -> None:
    import tilecast
    from tilecast.data import example_map

    grid = example_map()
    bodies = tilecast.SpatialHash(1.0)
    bodies.insert(1, circle=((7.5, 5.5), 0.4))
    bodies.insert(2, segment=((5.0, 7.0), (6.0, 8.0)))
    bodies.insert(3, polygon=[(3.0, 3.0), (4.0, 3.0), (3.5, 4.0)])
    for b in (None, bodies):
        tilecast.circle_cast(grid, (5.5, 5.5), 0.3, (1.0, 0.2), bodies=b)
        tilecast.box_cast(grid, (5.5, 5.5), (0.3, 0.2), (-1.0, -0.7), bodies=b)
        tilecast.move_and_slide(grid, (5.5, 5.5), (2.0, 2.5), radius=0.3, bodies=b)


#: The kernel families, in the order :func:`warmup` compiles them: a name
#: and a call that uses every kernel of the family once on a tiny input.
FAMILIES: tuple[tuple[str, Callable[[], None]], ...] = (
    ("single rays (raycast, raycast_all, line_of_sight, traverse)", _single_rays),
    ("raycast_many, scan on a Grid", _batch_grid),
    ("raycast_many on a TileMap", _batch_tilemap),
    ("scan_many", _scans),
    ("GridStack, scans among circles and boxes", _stacks),
    ("fov", _fov),
    ("visibility_polygon", _visibility),
    ("point_in_polygon", _point_in_polygon),
    ("lines", _lines),
    ("fov_many and fov_counts", _fov_many),
    ("scan_likelihood", _scan_likelihood),
    ("VisibilityScene", _visibility_scene),
    ("bodies (SpatialHash, bodies=)", _bodies),
    ("circle_cast, box_cast, move_and_slide", _casts),
)


#: Families that share kernels, hence warm up in the same process, with
#: about how many seconds their first compile takes on a 2-core machine.
_GROUPS: tuple[tuple[tuple[str, ...], float], ...] = (
    (("visibility_polygon", "VisibilityScene"), 20.0),
    (
        (
            "single rays (raycast, raycast_all, line_of_sight, traverse)",
            "raycast_many, scan on a Grid",
            "raycast_many on a TileMap",
            "scan_many",
            "scan_likelihood",
            "bodies (SpatialHash, bodies=)",
            "GridStack, scans among circles and boxes",
        ),
        15.0,
    ),
    (("fov", "fov_many and fov_counts"), 2.0),
    # the longest (the exact casts among bodies: several kernels, called by address);
    # shares only the SpatialHash's query kernels with the bodies family
    (("circle_cast, box_cast, move_and_slide",), 60.0),
    (("point_in_polygon",), 1.5),
    (("lines",), 0.5),
)


def run_families(names: list[str]) -> None:
    """Run the named families' calls (a warm-up worker's body; see :func:`warmup`).

    Examples
    --------
    >>> from tilecast.startup import run_families
    >>> run_families(["lines"])
    """
    calls = dict(FAMILIES)
    for name in names:
        calls[name]()


def _start_workers() -> list[tuple[subprocess.Popen[bytes], tuple[str, ...], float]]:
    """On a cold cache with cores to spare, warm some family groups in worker processes.

    The groups are shared out longest first (:func:`tilecast._kernels.jobs.share`);
    the largest stays here. Workers compile one kernel at a time
    (``TILECAST_COMPILE_JOBS=1``): the cores are busy with the groups.
    """
    from tilecast._load import kernels

    job_tools, walk = kernels("jobs"), kernels("walk")
    share, start = job_tools.share, job_tools.start
    patience, python_command = job_tools.patience, job_tools.python_command
    jobs = job_tools.job_count()
    if jobs < 2 or job_tools.loaded(walk.walk, walk.WALK_SIGNATURE.args):  # a warm cache: load
        return []
    env = dict(os.environ, TILECAST_COMPILE_JOBS="1")
    body = "from tilecast.startup import run_families; run_families(sys.argv[2:])"
    workers = []
    _, *elsewhere = share(list(_GROUPS), jobs, key=lambda group: group[1])
    for part in elsewhere:
        names = [name for group in part for name in group[0]]
        worker = start(python_command(body, *names), env=env)
        if worker is None:
            continue
        workers.append((worker, tuple(names), patience(sum(group[1] for group in part))))
    return workers


def warmup(*, progress: bool = True, stream: TextIO | None = None) -> dict[str, float]:
    """Compile (first run after install) or load (later runs) every kernel family.

    Parameters
    ----------
    progress : bool, default True
        Draw a progress bar with the family being prepared.
    stream : file-like, optional
        Where the progress bar goes (default: standard error).

    Returns
    -------
    dict
        Seconds this process spent on each family, by name
        (:data:`FAMILIES`).

    Notes
    -----
    The first run after installing tilecast compiles every kernel (about
    half a minute of CPU time on a 2-core machine, see the README); the
    machine code is cached next to the package (or in ``NUMBA_CACHE_DIR``),
    so later runs, in any process, only load it (about a second for
    everything). On a cold cache with more than one core
    (``TILECAST_COMPILE_JOBS``, default the cores up to 4), groups of
    families that share no kernels compile in worker processes at the same
    time; this process then loads their code from the cache (their seconds
    are the wait and the load).

    Examples
    --------
    >>> from tilecast import warmup
    >>> seconds = warmup(progress=False)
    >>> sorted(seconds) == sorted(name for name, _ in FAMILIES)
    True
    """
    out = sys.stderr if stream is None else stream
    seconds: dict[str, float] = {}
    width = 24
    logger = logging.getLogger("tilecast")
    level = logger.level
    if progress:  # the bar says what is compiling; no log line per kernel
        logger.setLevel(logging.WARNING)
    try:
        workers = _start_workers()
        elsewhere = {name for _, names, _ in workers for name in names}
        order = [f for f in FAMILIES if f[0] not in elsewhere]
        order += [f for f in FAMILIES if f[0] in elsewhere]
        _run_families(order, workers, progress, out, width, seconds)
    finally:
        logger.setLevel(level)
    if progress:
        total = sum(seconds.values())
        out.write(f"\r[{'#' * width}] {len(FAMILIES)}/{len(FAMILIES)} ready in {total:.1f} s")
        out.write(" " * 30 + "\n")
        out.flush()
    return seconds


def _run_families(
    order: list[tuple[str, Callable[[], None]]],
    workers: list[tuple[subprocess.Popen[bytes], tuple[str, ...], float]],
    progress: bool,
    out: TextIO,
    width: int,
    seconds: dict[str, float],
) -> None:
    waiting = {name: (worker, wait) for worker, names, wait in workers for name in names}
    for index, (name, call) in enumerate(order):
        if progress:
            done = width * index // len(order)
            bar = "#" * done + "." * (width - done)
            out.write(f"\r[{bar}] {index}/{len(order)} {name[:40]:<40}")
            out.flush()
        start = time.perf_counter()
        if name in waiting:  # compiled elsewhere: wait, then load (or compile if it failed)
            worker, wait = waiting[name]
            try:
                worker.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        call()
        seconds[name] = time.perf_counter() - start
