"""tilecast.dask: the batch calls over Dask arrays equal the local ones bit for bit.

Run on Dask's threaded scheduler and on a two-process LocalCluster (loopback
only, started once for the module); the graph holds the map once (threads)
or not at all (scattered to the workers).
"""

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import tilecast  # noqa: E402
from tilecast import dask as tcd  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"
MODEL = tilecast.BeamModel(0.75, 0.05, 0.07, 0.13, sigma_hit=0.4, lambda_short=0.3)


def same(a, b):
    """Bit for bit: same dtype, shape and bytes (NaN payloads included)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def same_hits(a, b):
    fields = ("hit", "distance", "point", "normal", "cell", "inside")
    assert all(same(getattr(a, f), getattr(b, f)) for f in fields), fields
    assert (a.pixel is None) == (b.pixel is None)
    assert a.pixel is None or same(a.pixel, b.pixel)


def random_map(rows, cols, seed, outside="solid"):
    rng = np.random.default_rng(seed)
    solid = rng.random((rows, cols)) < 0.25
    return tilecast.Grid(solid, outside=outside)


@pytest.fixture(scope="module")
def grid():
    return random_map(24, 31, seed=1)


@pytest.fixture(scope="module")
def tilemap():
    masks = np.zeros((3, 4, 4), bool)
    masks[0] = True
    masks[1] = np.tril(np.ones((4, 4), bool))
    masks[2, 1:3, 1:3] = True
    ids = np.random.default_rng(2).integers(-1, 3, size=(9, 12))
    return tilecast.TileMap(ids, tilecast.TileSet(masks), tile_size=1.0)


def poses_on(world, n, seed):
    """Poses at random points of free cells (and a few inside walls)."""
    rng = np.random.default_rng(seed)
    rows, cols = world.shape
    xy = rng.uniform((0.0, 0.0), (cols, rows), size=(n, 2))
    return np.column_stack([xy, rng.uniform(-4.0, 4.0, n)])


ANGLES = np.linspace(-np.pi, np.pi, 23, endpoint=False)


@pytest.fixture
def threads():
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture(scope="module")
def client():
    # Dask's active memory manager drops replicas it finds unneeded every two
    # seconds, so on a slow machine a worker could lose its copy of the map
    # between two checks of test_the_map_is_on_each_worker_once; with it off,
    # what that test sees is what tilecast does (one copy per worker).
    with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            env={"NUMBA_NUM_THREADS": "1"},  # two cores, two workers: one thread each
        )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def map_copies_in_graph(collection, world):
    """How many times the map's cells appear in the pickled graph, per pickled map."""
    graph = dict(collection.__dask_graph__())
    cells = np.ascontiguousarray(world.solid).tobytes()
    per_map = pickle.dumps(world).count(cells)
    assert per_map >= 1
    return pickle.dumps(graph).count(cells) / per_map


# ------------------------------------------------------------------ imports
def test_import_tilecast_does_not_import_dask():
    code = (
        "import json, sys, tilecast, tilecast.dask\n"
        "print(json.dumps(sorted(m for m in ('dask', 'distributed') if m in sys.modules)))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


# ------------------------------------------------------- threaded scheduler
def test_scan_many_threads(threads, grid):
    poses = poses_on(grid, 97, seed=3)
    result = tcd.scan_many(grid, da.from_array(poses, chunks=(20, 3)), ANGLES, 9.0)
    assert result.chunks == ((20, 20, 20, 20, 17), (len(ANGLES),))
    assert same(result.compute(), tilecast.scan_many(grid, poses, ANGLES, 9.0))


def test_scan_many_numpy_poses_float32_and_inf(threads, grid):
    poses = poses_on(grid, 50, seed=4)
    result = tcd.scan_many(grid, poses, ANGLES, np.inf, dtype=np.float32, chunk=16)
    assert result.chunks[0] == (16, 16, 16, 2) and result.dtype == np.float32
    local = tilecast.scan_many(grid, poses, ANGLES, np.inf, dtype=np.float32)
    assert same(result.compute(), local)


def test_scan_many_tilemap_threads(threads, tilemap):
    poses = poses_on(tilemap, 40, seed=5)
    result = tcd.scan_many(tilemap, da.from_array(poses, chunks=(15, 3)), ANGLES, 30.0)
    assert same(result.compute(), tilecast.scan_many(tilemap, poses, ANGLES, 30.0))


def test_scan_likelihood_threads(threads, grid):
    poses = poses_on(grid, 77, seed=6)
    observed = tilecast.scan_many(grid, poses[:1], ANGLES, 9.0)[0]
    table = np.random.default_rng(7).uniform(0.0, 1.0, size=(40, 37))
    cases = [
        {"model": MODEL},
        {"table": table, "table_resolution": 0.25},
    ]
    for options in cases:
        result = tcd.scan_likelihood(
            grid, da.from_array(poses, chunks=(25, 3)), ANGLES, observed, max_range=9.0, **options
        )
        assert result.chunks == ((25, 25, 25, 2),) and result.dtype == np.float64
        local = tilecast.scan_likelihood(grid, poses, ANGLES, observed, max_range=9.0, **options)
        assert same(result.compute(), local)


def test_raycast_many_threads(threads, grid, tilemap):
    rng = np.random.default_rng(8)
    for world in (grid, tilemap):
        rows, cols = world.shape
        origins = rng.uniform((0.0, 0.0), (cols, rows), size=(90, 2))
        directions = rng.normal(size=(90, 2))
        limits = rng.uniform(0.0, 20.0, 90)
        local = tilecast.raycast_many(world, origins, directions, limits, ignore_start=True)
        hits = tcd.raycast_many(
            world, da.from_array(origins, chunks=(40, 2)), directions,
            da.from_array(limits, chunks=30), ignore_start=True,
        )  # fmt: skip
        assert hits.distance.chunks == ((40, 40, 10),) and hits.point.chunks[1] == (2,)
        assert len(hits) == 90
        same_hits(hits.compute(), local)
        assert local.hit.any() and not local.hit.all()  # both kinds of answer are compared


def test_raycast_many_broadcasts_one_origin_or_direction(threads, grid):
    directions = np.random.default_rng(9).normal(size=(33, 2))
    origin = (12.5, 10.25)
    hits = tcd.raycast_many(grid, origin, da.from_array(directions, chunks=10), 7.5,
                            diagonal_gaps="open")  # fmt: skip
    same_hits(hits.compute(), tilecast.raycast_many(grid, origin, directions, 7.5,
                                                    diagonal_gaps="open"))  # fmt: skip
    origins = np.random.default_rng(10).uniform(1.0, 20.0, size=(21, 2))
    hits = tcd.raycast_many(grid, origins, [(0.0, 1.0)], chunk=8)
    assert hits.hit.chunks == ((8, 8, 5),)
    same_hits(hits.compute(), tilecast.raycast_many(grid, origins, [(0.0, 1.0)]))
    one = tcd.raycast_many(grid, origin, (1.0, 0.5))
    same_hits(one.compute(), tilecast.raycast_many(grid, origin, (1.0, 0.5)))


def test_hits_fields_computed_together_cast_each_chunk_once(threads, grid, monkeypatch):
    calls = []
    local = tilecast.batch.raycast_many

    def counted(*args, **kwargs):
        calls.append(len(args[2]))
        return local(*args, **kwargs)

    monkeypatch.setattr(tilecast.batch, "raycast_many", counted)
    directions = np.random.default_rng(20).normal(size=(50, 2))
    hits = tcd.raycast_many(grid, (3.5, 4.5), da.from_array(directions, chunks=20))
    result = hits.compute()
    assert sorted(calls) == [10, 20, 20]  # three chunks, each cast once for the six fields
    same_hits(result, local(grid, (3.5, 4.5), directions))


def test_fov_counts_threads(threads, grid):
    for radius, options in [(None, {}), (5.5, {"light_walls": False}),
                            (4, {"metric": "chebyshev"})]:  # fmt: skip
        result = tcd.fov_counts(grid, radius, chunk=50, **options)
        assert result.shape == grid.shape and result.dtype == np.int32
        local = tilecast.fov_counts(grid, radius, **options)
        assert same(result.compute(), local)
        assert local.max() > 1
    origins = np.argwhere(~grid.solid)[::3, ::-1]  # (col, row)
    local = tilecast.fov_counts(grid, 6.0, origins=origins)
    assert same(tcd.fov_counts(grid, 6.0, origins=origins, chunk=17).compute(), local)
    lazy = da.from_array(origins, chunks=(40, 2))
    assert same(tcd.fov_counts(grid, 6.0, origins=lazy).compute(), local)


def test_fov_counts_no_origins(threads, grid):
    walls = tilecast.Grid(np.ones((3, 4), bool))
    assert same(tcd.fov_counts(walls).compute(), tilecast.fov_counts(walls))
    empty = np.empty((0, 2), np.int64)
    assert same(tcd.fov_counts(grid, origins=empty).compute(), np.zeros(grid.shape, np.int32))


def test_the_graph_holds_the_map_once(threads):
    world = random_map(60, 70, seed=11)  # random cells: their bytes occur nowhere else
    poses = da.from_array(poses_on(world, 200, seed=12), chunks=(20, 3))
    collections = [
        tcd.scan_many(world, poses, ANGLES, 9.0),
        tcd.scan_likelihood(world, poses, ANGLES, np.ones(len(ANGLES)), max_range=9, model=MODEL),
        tcd.raycast_many(world, poses[:, :2], (1.0, 0.0)).distance,
        tcd.fov_counts(world, 3.0, chunk=100),
    ]
    for collection in collections:
        assert len(dict(collection.__dask_graph__())) >= 10  # ten tasks or more read the map
        assert map_copies_in_graph(collection, world) == 1


# -------------------------------------------------------------- bad input
def test_bad_input_names_the_argument(threads, grid):
    poses = poses_on(grid, 10, seed=13)
    with pytest.raises(ValueError, match=r"poses must be chunked along its rows.*rechunk"):
        tcd.scan_many(grid, da.from_array(poses, chunks=(5, 2)), ANGLES, 9.0)
    with pytest.raises(ValueError, match=r"poses must have shape \(N, 3\)"):
        tcd.scan_many(grid, da.from_array(poses[:, :2]), ANGLES, 9.0)
    with pytest.raises(ValueError, match="poses"):
        tcd.scan_many(grid, poses[:, :2], ANGLES, 9.0)
    with pytest.raises(TypeError, match="poses must hold real numbers"):
        tcd.scan_many(grid, da.from_array(poses > 1), ANGLES, 9.0)
    with pytest.raises(TypeError, match="poses must be a Dask array or array_like, got a Delayed"):
        tcd.scan_many(grid, dask.delayed(poses), ANGLES, 9.0)
    with pytest.raises(ValueError, match="angles must be finite"):
        tcd.scan_many(grid, poses, [0.0, np.nan], 9.0)
    with pytest.raises(ValueError, match="max_range"):
        tcd.scan_many(grid, poses, ANGLES, -1.0)
    with pytest.raises(ValueError, match="chunk must be a positive integer"):
        tcd.scan_many(grid, poses, ANGLES, 9.0, chunk=0)
    with pytest.raises(TypeError, match="grid must be"):
        tcd.scan_many([[0, 1]], poses, ANGLES, 9.0)
    with pytest.raises(ValueError, match="observed must have shape"):
        tcd.scan_likelihood(grid, poses, ANGLES, [1.0], max_range=9.0, model=MODEL)
    with pytest.raises(ValueError, match="give exactly one of model"):
        tcd.scan_likelihood(grid, poses, ANGLES, np.ones(len(ANGLES)), max_range=9.0)
    with pytest.raises(ValueError, match=r"origins \(10\) and directions \(4\)"):
        tcd.raycast_many(grid, da.from_array(poses[:, :2]), np.ones((4, 2)))
    with pytest.raises(ValueError, match="directions must not contain the zero vector"):
        tcd.raycast_many(grid, da.from_array(poses[:, :2]), (0.0, 0.0))
    with pytest.raises(ValueError, match=r"max_distance must be a scalar or have shape \(10,\)"):
        tcd.raycast_many(grid, da.from_array(poses[:, :2]), (1.0, 0.0), da.ones(3))
    with pytest.raises(ValueError, match="diagonal_gaps"):
        tcd.raycast_many(grid, poses[:, :2], (1.0, 0.0), diagonal_gaps="sometimes")
    with pytest.raises(TypeError, match="origins must hold integers"):
        tcd.fov_counts(grid, origins=da.from_array(poses[:, :2]))
    with pytest.raises(ValueError, match="origins"):
        tcd.fov_counts(grid, origins=[(500, 0)])
    with pytest.raises(ValueError, match="metric"):
        tcd.fov_counts(grid, 3.0, metric="taxicab")


def test_bad_values_in_a_chunk_name_the_argument_and_rows(threads, grid):
    poses = poses_on(grid, 30, seed=14)
    poses[23, 1] = np.nan
    result = tcd.scan_many(grid, da.from_array(poses, chunks=(10, 3)), ANGLES, 9.0)
    with pytest.raises(ValueError, match=r"poses must be finite \(in the chunk of rows 20 to 29\)"):
        result.compute()


# -------------------------------------------------- a distributed cluster
def test_scan_many_and_likelihood_on_a_cluster(client, grid):
    poses = poses_on(grid, 120, seed=15)
    lazy = da.from_array(poses, chunks=(25, 3))
    ranges = tcd.scan_many(grid, lazy, ANGLES, 9.0)
    assert map_copies_in_graph(ranges, grid) == 0  # scattered, not in the graph
    assert same(ranges.compute(), tilecast.scan_many(grid, poses, ANGLES, 9.0))
    observed = tilecast.scan_many(grid, poses[7:8], ANGLES, 9.0)[0]
    table = np.random.default_rng(16).uniform(0.0, 1.0, size=(40, 37))
    options = {"max_range": 9.0, "table": table, "table_resolution": 0.25}
    likelihood = tcd.scan_likelihood(grid, lazy, ANGLES, observed, **options)
    assert same(likelihood.compute(), tilecast.scan_likelihood(grid, poses, ANGLES, observed,
                                                                **options))  # fmt: skip


def test_raycast_many_and_fov_counts_on_a_cluster(client, tilemap):
    rng = np.random.default_rng(17)
    origins = rng.uniform((0.0, 0.0), (12.0, 9.0), size=(70, 2))
    directions = rng.normal(size=(70, 2))
    hits = tcd.raycast_many(tilemap, da.from_array(origins, chunks=20), directions)
    same_hits(hits.compute(), tilecast.raycast_many(tilemap, origins, directions))
    counts = tcd.fov_counts(tilemap, chunk=20)
    assert map_copies_in_graph(counts, tilemap) == 0
    assert same(counts.compute(), tilecast.fov_counts(tilemap))


def test_the_map_is_on_each_worker_once(client):
    world = random_map(50, 40, seed=18)
    poses = poses_on(world, 300, seed=19)
    cells = world.solid.tobytes()

    def maps_held(dask_worker):
        return sum(
            isinstance(value, tilecast.World) and value.solid.tobytes() == cells
            for value in dask_worker.data.values()
        )

    assert set(client.run(maps_held).values()) == {0}
    ranges = tcd.scan_many(world, da.from_array(poses, chunks=(10, 3)), ANGLES, 9.0)
    held = client.run(maps_held)  # broadcast when the call is made
    assert len(held) == 2 and set(held.values()) == {1}, held
    assert same(ranges.compute(), tilecast.scan_many(world, poses, ANGLES, 9.0))
    assert set(client.run(maps_held).values()) == {1}  # 30 tasks later: still one each
