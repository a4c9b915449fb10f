"""DESIGN section 17: queries from many threads, and edits while other threads query.

Each query sees the map before or after an edit, never a mix: an editor flips
the map between two states A and B, and every batch cast meanwhile must equal
the batch cast on A or the one on B, ray for ray.
"""

from __future__ import annotations

import pickle
import threading

import numpy as np

from tilecast import Grid, GridStack, TileMap, TileSet, raycast, raycast_many, scan_many

RNG = np.random.default_rng(17)
N_RAYS = 20_000  # large enough to run on the thread pool, with the GIL released


def _rays(width: float, height: float) -> tuple[np.ndarray, np.ndarray]:
    origins = RNG.random((N_RAYS, 2)) * (width, height)
    directions = RNG.normal(size=(N_RAYS, 2))
    return origins, directions


def _same(a, b) -> bool:
    return bool(np.array_equal(a.distance, b.distance) and np.array_equal(a.cell, b.cell))


def _flip_while_casting(world, set_a, set_b, cast, rounds: int = 12) -> list[str]:
    """Return, per cast made while another thread flips the map, "A", "B" or "mixed"."""
    set_a()
    answer_a = cast()
    set_b()
    answer_b = cast()
    assert not _same(answer_a, answer_b), "the two states must give different answers"
    stop = threading.Event()

    def editor() -> None:
        # an edit every half millisecond or so: many per batch, as a busy game
        # would make, while leaving the lock free between edits (a thread
        # editing in a tight loop would hold it nearly all the time)
        while not stop.is_set():
            set_a()
            stop.wait(0.0005)
            set_b()
            stop.wait(0.0005)

    thread = threading.Thread(target=editor)
    thread.start()
    seen = []
    try:
        for _ in range(rounds):
            answer = cast()
            seen.append(
                "A" if _same(answer, answer_a) else "B" if _same(answer, answer_b) else "mixed"
            )
    finally:
        stop.set()
        thread.join()
    return seen


def test_grid_edits_while_batches_run_are_seen_whole():
    solid = RNG.random((96, 96)) < 0.1
    grid = Grid(solid, outside="solid")
    wall = np.array([(i, 48) for i in range(10, 86)])  # one edit of 76 cells
    origins, directions = _rays(96, 96)
    seen = _flip_while_casting(
        grid,
        lambda: grid.set_solid(wall, False),
        lambda: grid.set_solid(wall, True),
        lambda: raycast_many(grid, origins, directions),
    )
    assert "mixed" not in seen, seen


def test_stack_edits_while_batches_run_are_seen_whole():
    stack = GridStack(RNG.random((3, 64, 64)) < 0.1, outside="solid")
    wall = np.array([(i, 32) for i in range(5, 60)])
    origins, directions = _rays(64, 64)
    origins = np.stack([origins[: N_RAYS // 2]] * 3)
    directions = np.stack([directions[: N_RAYS // 2]] * 3)
    seen = _flip_while_casting(
        stack,
        lambda: stack.set_layers(1, wall, 0),
        lambda: stack.set_layers(1, wall, 1),
        lambda: raycast_many(stack, origins, directions),
    )
    assert "mixed" not in seen, seen


def test_tilemap_edits_while_batches_run_are_seen_whole():
    masks = RNG.random((5, 8, 8)) < 0.5
    masks[4] = True
    ids = RNG.integers(-1, 4, (48, 48))
    tmap = TileMap(ids, TileSet(masks), outside="solid")
    cells = np.array([(i, 24) for i in range(4, 44)])
    origins, directions = _rays(48 * 8, 48 * 8)
    seen = _flip_while_casting(
        tmap,
        lambda: tmap.set_tile(cells, -1),
        lambda: tmap.set_tile(cells, 4, flips=3),
        lambda: raycast_many(tmap, origins, directions),
    )
    assert "mixed" not in seen, seen


def test_tilemap_edits_while_scans_run_are_seen_whole():
    masks = RNG.random((3, 4, 4)) < 0.5
    masks[2] = True
    tmap = TileMap(RNG.integers(-1, 2, (40, 40)), TileSet(masks), outside="solid")
    cells = np.array([(i, 20) for i in range(40)])
    poses = np.column_stack([RNG.random((400, 2)) * 160, RNG.random(400) * 6.28])
    angles = np.linspace(-np.pi, np.pi, 60, endpoint=False)

    class Ranges:  # the shape _same reads
        def __init__(self, ranges: np.ndarray) -> None:
            self.distance = ranges
            self.cell = ranges

    seen = _flip_while_casting(
        tmap,
        lambda: tmap.set_tile(cells, -1),
        lambda: tmap.set_tile(cells, 2),
        lambda: Ranges(scan_many(tmap, poses, angles, 500.0)),
    )
    assert "mixed" not in seen, seen


def test_batches_from_many_threads_agree_with_one_thread():
    grid = Grid(RNG.random((128, 128)) < 0.2, outside="solid")
    origins, directions = _rays(128, 128)
    expected = raycast_many(grid, origins, directions)
    results: list = [None] * 4
    errors: list = []

    def worker(k: int) -> None:
        try:
            results[k] = raycast_many(grid, origins, directions)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for result in results:
        assert _same(result, expected)


def test_maps_pickle_without_their_lock_or_caches():
    grid = Grid([[0, 1], [0, 0]], tile_size=(2.0, 1.0), origin=(1.0, -1.0), outside="solid")
    grid.source = {"file": "made in a test"}
    raycast_many(grid, (0.5, 0.5), (1.0, 0.0))  # fills the caches
    copy = pickle.loads(pickle.dumps(grid))
    assert copy.source == {"file": "made in a test"}
    assert copy.solid.tolist() == grid.solid.tolist()
    assert (copy.tile_size, copy.origin, copy.outside) == (grid.tile_size, grid.origin, "solid")
    copy.set_solid((0, 0))  # a working lock of its own
    assert not grid.solid[0, 0]
    # the copy's solid is still a read-only view of its cells: the edit shows,
    # and rays see it (it was a stale second copy once)
    assert copy.solid[0, 0] and copy.is_solid((0, 0))
    assert not copy.solid.flags.writeable
    assert raycast(copy, (1.5, -0.5), (-1.0, 0.0)) is not None  # starts in the new wall
    assert raycast(copy, (2.5, -0.5), (-1.0, 0.0)).cell == (0, 0)
    tmap = TileMap([[0, -1]], TileSet([[[1, 0], [0, 0]]]), flips=[[1, 0]])
    tcopy = pickle.loads(pickle.dumps(tmap))
    assert not tcopy.variant_masks.flags.writeable  # read-only arrays stay read-only
    assert tcopy.tile_ids.tolist() == tmap.tile_ids.tolist()
    assert tcopy.flips.tolist() == tmap.flips.tolist()
    hits = raycast_many(tcopy, [(0.5, 0.5)], [(1.0, 0.0)])
    assert _same(hits, raycast_many(tmap, [(0.5, 0.5)], [(1.0, 0.0)]))


def test_numba_parallel_kernels_from_many_threads_under_workqueue():
    """Numba's workqueue layer aborts the process on concurrent parallel calls; tilecast
    serialises them. Run in a child process: a failure would otherwise kill the test run."""
    import os
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import threading, numpy as np, tilecast as tc
        rng = np.random.default_rng(0)
        a, b = rng.integers(0, 50, (5000, 2)), rng.integers(0, 50, (5000, 2))
        polygon, points = rng.random((30, 2)) * 10, rng.random((50000, 2)) * 10
        walls = rng.random((40, 2, 2)) * 10
        grid = tc.Grid(rng.random((20, 20)) < 0.2, outside="solid")
        def work():
            for _ in range(15):
                tc.lines(a, b)
                tc.point_in_polygon(points, polygon)
                tc.visibility_polygon(walls, (5.0, 5.0), radius=3.0, method="rays")
                tc.scan_many(grid, [(1.5, 1.5, 0.0)] * 50, np.linspace(0, 6, 90), 30.0)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        import numba
        print(numba.threading_layer())
        """
    )
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "workqueue"
