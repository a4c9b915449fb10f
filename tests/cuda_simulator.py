"""tilecast.cuda against the CPU calls, bit for bit, on Numba's CUDA simulator.

Not collected by the suite itself: ``tests/test_cuda.py`` runs this module
in a subprocess with ``NUMBA_ENABLE_CUDASIM=1``, which Numba reads when it is
first imported (so it cannot be switched on inside a process that has
already imported Numba). The simulator runs the device functions as Python,
one thread per ray, slowly: the cases are few and the maps small, aimed at
the walk's hard cases (lattice points, grid lines, rays along walls, the
far range, tile maps with flips, masks, edits). That the same code compiles
for a real GPU, without fused multiply-adds, is checked by
``tests/internal/test_cuda_device_code.py``.
"""

import math
import os

import numpy as np
import pytest

if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":  # pragma: no cover - run by test_cuda.py
    pytest.skip("runs on the CUDA simulator (tests/test_cuda.py)", allow_module_level=True)

from hypothesis import given, settings
from hypothesis import strategies as st
from numba import cuda

import tilecast
import tilecast.cuda as tc
from strategies import directions, grids, points
from tilecast import BeamModel, Grid, TileMap, TileSet

FIELDS = ("hit", "distance", "point", "normal", "cell", "inside")


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _device(array):
    return cuda.to_device(np.ascontiguousarray(array, dtype=np.float64))


def _check_rays(world, origins, directions, max_distance=math.inf, **options):
    limit = _device(max_distance) if isinstance(max_distance, np.ndarray) else max_distance
    gpu = tc.raycast_many(world, _device(origins), _device(directions), limit, **options)
    cpu = tilecast.raycast_many(world, origins, directions, max_distance, **options)
    for name in FIELDS:
        assert _same(getattr(gpu, name).copy_to_host(), getattr(cpu, name)), name
    if cpu.pixel is None:
        assert gpu.pixel is None
    else:
        assert _same(gpu.pixel.copy_to_host(), cpu.pixel)
    return cpu


def _hard_rays(rng, cols, rows, n):
    """Origins on lattice points, grid lines and cell interiors; axis, 45-degree and
    random directions; a few beyond the compiled walk's range."""
    origins = rng.uniform(-2.0, max(cols, rows) + 2.0, (n, 2))
    origins[: n // 4] = np.round(origins[: n // 4])  # lattice points
    origins[n // 4 : n // 2, 0] = np.round(origins[n // 4 : n // 2, 0])  # on column lines
    angles = rng.uniform(0.0, 2.0 * np.pi, n)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    diagonal = rng.choice([-1.0, 1.0], (n // 3, 2))
    directions[: n // 3] = diagonal  # 45 degrees: through lattice points
    axes = np.array([(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0)])
    directions[n // 3 : n // 2] = axes[np.arange(n // 2 - n // 3) % 4]
    directions[n // 2 : n // 2 + 8] = [(0.0, 1.0), (-1.0, 0.0)] * 4  # along grid lines
    origins[-3] = (1e17, 0.5)  # far range: the exact walk in rationals, on the CPU
    directions[-2] = (1e-300, 1.0)  # a direction component below the proven range
    origins[-1] = (-3e15, 2.0)
    directions[-1] = (1.0, 1e-17)
    return origins, directions


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(20261127)


@pytest.fixture(scope="module")
def walls():
    cells = np.zeros((7, 9), dtype=bool)
    cells[2, 2:6] = True  # a wall to run along
    cells[4, 4] = cells[5, 5] = True  # two cells touching at a corner
    cells[0, 8] = True
    return cells


@pytest.mark.parametrize("outside", ["empty", "solid"])
def test_grid_rays(rng, walls, outside):
    grid = Grid(walls, outside=outside)
    origins, directions = _hard_rays(rng, 9, 7, 96)
    cpu = _check_rays(grid, origins, directions)
    assert cpu.hit.any() and (outside == "solid") == cpu.hit.all()
    assert cpu.inside.any()  # some rays start inside a wall


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_grid_rays_hypothesis(data):
    """The CPU tests' strategies: corners, grid lines, odd tile sizes, tiny directions."""
    grid = data.draw(grids())
    origins = np.array([data.draw(points(grid)) for _ in range(12)])
    rays = np.array([data.draw(directions(grid)) for _ in range(12)])
    gaps = data.draw(st.sampled_from(["block_if_both", "block_if_either", "open"]))
    _check_rays(grid, origins, rays, data.draw(st.sampled_from([math.inf, 2.0, 7.5])),
                diagonal_gaps=gaps)  # fmt: skip


def test_grid_rays_options(rng, walls):
    grid = Grid(walls, tile_size=(0.5, 0.25), origin=(-1.0, 0.5))
    origins, directions = _hard_rays(rng, 5, 3, 48)
    limits = rng.uniform(0.0, 4.0, 48)
    limits[:6] = [0.0, 0.5, 1.0, 1.5, 2.0, math.inf]  # faces at exactly the range
    for gaps in ("block_if_either", "open"):
        _check_rays(grid, origins, directions, limits, diagonal_gaps=gaps, ignore_start=True)


def test_one_origin_broadcasts(walls):
    angles = np.linspace(0.0, 2.0 * np.pi, 40, endpoint=False)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    _check_rays(Grid(walls), np.array([[4.0, 3.0]]), directions, 6.0)  # a lattice point


def test_tile_map_rays(rng):
    slope = np.tril(np.ones((4, 4), dtype=bool))
    dot = np.zeros((4, 4), dtype=bool)
    dot[1, 2] = True
    tiles = TileSet([slope, dot, np.ones((4, 4), dtype=bool)])
    ids = rng.integers(-1, 3, (5, 6))
    flips = rng.integers(0, 8, (5, 6))
    tmap = TileMap(ids, tiles, tile_size=(1.0, 1.0), flips=flips)
    origins, directions = _hard_rays(rng, 6, 5, 64)
    cpu = _check_rays(tmap, origins, directions)
    assert (cpu.pixel[cpu.hit] >= 0).all()


def test_mask_and_edits(rng):
    layers = rng.choice(np.array([0, 1, 2, 3], dtype=np.uint32), (6, 6), p=[0.6, 0.2, 0.1, 0.1])
    grid = Grid(layers)
    origins, directions = _hard_rays(rng, 6, 6, 40)
    cpu_before = _check_rays(grid, origins, directions, mask=2)
    _check_rays(grid, origins, directions)
    grid.set_solid(np.argwhere(~grid.solid)[:, ::-1][:10], True)  # the device copy must follow
    cpu_after = _check_rays(grid, origins, directions)
    assert not _same(cpu_before.distance, cpu_after.distance)


def test_scan_many(rng, walls):
    grid = Grid(walls, outside="solid")
    poses = np.column_stack([rng.uniform(0, 9, 12), rng.uniform(0, 7, 12), rng.uniform(-4, 4, 12)])
    poses[0] = (4.0, 3.0, np.pi / 4)  # a lattice point, 45 degrees
    poses[1] = (1.0, 1.0, 5e5)  # beyond the polynomial sine's range: libm, on the CPU
    angles = np.linspace(-np.pi, np.pi, 9)
    cpu = tilecast.scan_many(grid, poses, angles, 5.0)
    assert _same(tc.scan_many(grid, _device(poses), angles, 5.0).copy_to_host(), cpu)
    out = cuda.device_array(cpu.shape, np.float32)
    assert tc.scan_many(grid, _device(poses), _device(angles), 5.0, out=out) is out
    assert _same(out.copy_to_host(), tilecast.scan_many(grid, poses, angles, 5.0, dtype=np.float32))
    free = Grid(walls)
    assert _same(tc.scan_many(free, _device(poses), angles, math.inf).copy_to_host(),
                 tilecast.scan_many(free, poses, angles, math.inf))  # fmt: skip


def test_scan_many_on_a_stack(rng, walls):
    layers = np.stack([walls.astype(np.uint32), np.roll(walls, 2, axis=1) * np.uint32(2)])
    stack = tilecast.GridStack(layers, outside="solid")
    poses = np.stack([np.column_stack([rng.uniform(0, 9, 4), rng.uniform(0, 7, 4),
                                       rng.uniform(-4, 4, 4)]) for _ in range(2)])  # fmt: skip
    poses[0, 0] = (4.0, 3.0, np.pi / 4)  # a lattice point, 45 degrees
    angles = np.linspace(-np.pi, np.pi, 7)
    for mask in (tilecast.ALL_LAYERS, 2):
        cpu = tilecast.scan_many(stack, poses, angles, 5.0, mask=mask)
        gpu = tc.scan_many(stack, _device(poses), angles, 5.0, mask=mask).copy_to_host()
        assert _same(gpu, cpu)
    stack.set_layers(1, (0, 0), 2)  # an edit: the device copy follows
    cpu = tilecast.scan_many(stack, poses, angles, 5.0)
    assert _same(tc.scan_many(stack, _device(poses), angles, 5.0).copy_to_host(), cpu)
    with pytest.raises(ValueError, match="poses"):
        tc.scan_many(stack, _device(poses[:1]), angles, 5.0)
    observed = np.stack([np.full(len(angles), 2.0), np.linspace(0.5, 4.0, len(angles))])
    table = rng.uniform(0.01, 1.0, (41, 41))
    model = BeamModel(0.7, 0.1, 0.1, 0.1, sigma_hit=0.5, lambda_short=0.5)
    for options in ({"table": table, "table_resolution": 0.125}, {"model": model}):
        cpu = tilecast.scan_likelihood(stack, poses, angles, observed, max_range=5.0, mask=2,
                                       **options)  # fmt: skip
        gpu = tc.scan_likelihood(stack, _device(poses), angles, observed, max_range=5.0, mask=2,
                                 **options)  # fmt: skip
        assert _same(gpu.copy_to_host(), cpu)
    origins = poses[:, :, :2].copy()
    origins[1, 0] = (3.0, 2.0)  # a lattice point
    heading = np.stack([np.cos(poses[:, :, 2]), np.sin(poses[:, :, 2])], axis=-1)
    heading[0, 1] = (1.0, 1.0)  # 45 degrees
    for limit in (math.inf, rng.uniform(0.5, 6.0, (2, 4))):
        cpu = tilecast.raycast_many(stack, origins, heading, limit, mask=2)
        gpu = tc.raycast_many(
            stack,
            _device(origins),
            _device(heading),
            _device(limit) if isinstance(limit, np.ndarray) else limit,
            mask=2,
        )
        for field in FIELDS:
            assert _same(getattr(gpu, field).copy_to_host(), getattr(cpu, field)), field
    with pytest.raises(ValueError, match="origins"):
        tc.raycast_many(stack, _device(origins[:1]), _device(heading[:1]))


def test_scan_on_a_tile_map(rng):
    tiles = TileSet([np.eye(3, dtype=bool), np.ones((3, 3), dtype=bool)])
    tmap = TileMap(rng.integers(-1, 2, (4, 4)), tiles, tile_size=0.5, outside="solid")
    poses = np.column_stack([rng.uniform(0, 2, 8), rng.uniform(0, 2, 8), rng.uniform(-4, 4, 8)])
    angles = np.linspace(0.0, 2.0 * np.pi, 7)
    assert _same(tc.scan_many(tmap, _device(poses), angles, 3.0).copy_to_host(),
                 tilecast.scan_many(tmap, poses, angles, 3.0))  # fmt: skip


def test_scan_likelihood(rng, walls):
    grid = Grid(walls, outside="solid")
    poses = np.column_stack([rng.uniform(0, 9, 10), rng.uniform(0, 7, 10), rng.uniform(-4, 4, 10)])
    angles = np.linspace(-np.pi, np.pi, 6)
    observed = rng.uniform(0.0, 6.0, 6)
    table = rng.uniform(0.0, 1.0, (30, 25))
    table[:, 3] = 0.0  # log 0 = -inf
    options = {"max_range": 5.0, "table": table, "table_resolution": 0.25}
    cpu = tilecast.scan_likelihood(grid, poses, angles, observed, **options)
    assert _same(tc.scan_likelihood(grid, _device(poses), angles, observed, **options)
                 .copy_to_host(), cpu)  # fmt: skip
    model = BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.2, lambda_short=0.5)
    cpu = tilecast.scan_likelihood(grid, poses, angles, observed, max_range=5.0, model=model)
    out = cuda.device_array(10)
    tc.scan_likelihood(grid, _device(poses), angles, observed, max_range=5.0, model=model, out=out)
    assert _same(out.copy_to_host(), cpu)


def test_rint_is_numpy_rint():
    """The table index's rounding on the device (the device has no rint ufunc)."""
    from tilecast._kernels.gpu import rint

    values = np.array([0.0, 0.5, 1.5, 2.5, 2.4999999999999996, 3.5000000000000004, 7.0, 1e15 + 0.5])
    got = cuda.device_array(len(values))

    @cuda.jit
    def kernel(x, out):
        k = cuda.grid(1)
        if k < x.shape[0]:
            out[k] = rint(x[k])

    kernel[1, len(values)](_device(values), got)
    assert _same(got.copy_to_host(), np.rint(values))


def test_bad_input(walls):
    grid = Grid(walls)
    rays = _device([[0.5, 0.5], [1.5, 0.5]])
    with pytest.raises(TypeError, match="directions is on the host"):
        tc.raycast_many(grid, rays, np.array([[1.0, 0.0]] * 2))
    with pytest.raises(TypeError, match="poses is on the host"):
        tc.scan_many(grid, [(0.5, 0.5, 0.0)], [0.0], 5.0)
    with pytest.raises(TypeError, match="float64"):
        tc.raycast_many(grid, cuda.to_device(np.zeros((2, 2), np.float32)), rays)
    with pytest.raises(ValueError, match=r"ray 1 of 2: .*finite"):
        tc.raycast_many(grid, rays, _device([[1.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match=r"ray 0 of 2: .*zero"):
        tc.raycast_many(grid, rays, _device([[0.0, 0.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="max_distance"):
        tc.raycast_many(grid, rays, rays, -1.0)


def test_arrays_on_two_devices():
    class On:
        def __init__(self, device):
            self.device = device

        def __dlpack_device__(self):
            return (2, self.device)

    with pytest.raises(ValueError, match="origins on device 0, directions on device 1"):
        tc._one_device({"origins": On(0), "directions": On(1)})
