"""GridStack: many maps in one call, each map's answers bit for bit the single-map call's."""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import GEOMETRIES, directions, points
from tilecast import BeamModel, Grid, GridStack, raycast_many, scan_likelihood, scan_many

FIELDS = ("hit", "distance", "point", "normal", "cell", "inside")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def stacks(draw, max_maps: int = 4, max_side: int = 9):
    """A stack of 1..max_maps maps of one shape and geometry, layer bits 0..7."""
    count = draw(st.integers(1, max_maps))
    rows, cols = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.9]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    bits = rng.integers(1, 8, (count, rows, cols)) * (rng.random((count, rows, cols)) < density)
    tile_size, origin = draw(st.sampled_from(GEOMETRIES))
    outside = draw(st.sampled_from(["empty", "solid"]))
    return GridStack(bits.astype(np.uint32), tile_size, origin, outside)


def assert_hits_equal(hits, b, single):
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(hits, field)[b], getattr(single, field),
                                      err_msg=field)  # fmt: skip


@FAST
@given(st.data())
def test_scan_many_on_a_stack_is_each_maps_scan(data):
    stack = data.draw(stacks())
    count = len(stack)
    n_poses = data.draw(st.integers(1, 4))
    grid0 = stack[0]
    poses = [[(*data.draw(points(grid0)), data.draw(st.floats(-7, 7))) for _ in range(n_poses)]
             for _ in range(count)]  # fmt: skip
    angles = np.linspace(-np.pi, np.pi, data.draw(st.sampled_from([1, 4, 90])), endpoint=False)
    max_range = data.draw(st.sampled_from([0.5, 3.0, 40.0, np.inf]))
    mask = data.draw(st.sampled_from([0xFFFFFFFF, 1, 6, 0]))
    ranges = scan_many(stack, poses, angles, max_range, mask=mask)
    assert ranges.shape == (count, n_poses, len(angles))
    for b in range(count):
        single = scan_many(stack[b], poses[b], angles, max_range, mask=mask)
        np.testing.assert_array_equal(ranges[b], single)


@FAST
@given(st.data())
def test_raycast_many_on_a_stack_is_each_maps_raycast(data):
    stack = data.draw(stacks())
    count, grid0 = len(stack), stack[0]
    n = data.draw(st.integers(1, 40))
    origins = np.array([[data.draw(points(grid0)) for _ in range(n)] for _ in range(count)])
    dirs = np.array([[data.draw(directions(grid0)) for _ in range(n)] for _ in range(count)])
    limit = data.draw(st.sampled_from([2.0, 100.0, np.inf]))
    gaps = data.draw(st.sampled_from(["block_if_both", "block_if_either", "open"]))
    ignore = data.draw(st.booleans())
    mask = data.draw(st.sampled_from([0xFFFFFFFF, 2, 5]))
    hits = raycast_many(stack, origins, dirs, limit, diagonal_gaps=gaps, ignore_start=ignore,
                        mask=mask)  # fmt: skip
    for b in range(count):
        single = raycast_many(stack[b], origins[b], dirs[b], limit, diagonal_gaps=gaps,
                              ignore_start=ignore, mask=mask)  # fmt: skip
        assert_hits_equal(hits, b, single)


def test_raycast_many_broadcasts_one_origin_or_direction_per_map():
    stack = GridStack(np.random.default_rng(1).random((3, 12, 12)) < 0.3)
    origins = np.full((3, 1, 2), 6.5)
    dirs = np.random.default_rng(2).normal(size=(3, 50, 2))
    limits = np.random.default_rng(3).random((3, 50)) * 8
    hits = raycast_many(stack, origins, dirs, limits)
    for b in range(3):
        assert_hits_equal(hits, b, raycast_many(stack[b], origins[b], dirs[b], limits[b]))
    hits = raycast_many(stack, np.full((3, 50, 2), 6.5), dirs[:, :1])
    for b in range(3):
        assert_hits_equal(hits, b, raycast_many(stack[b], np.full((50, 2), 6.5), dirs[b, :1]))


def test_a_large_stack_scan_is_each_maps_scan():
    """Many maps and many rays: the threads share rays of every map; real lidar sizes."""
    rng = np.random.default_rng(7)
    stack = GridStack(rng.random((12, 60, 70)) < 0.15, tile_size=0.05, origin=(-1.0, 2.0),
                      outside="solid")  # fmt: skip
    poses = np.column_stack([rng.random(12 * 5) * 3.5 - 1.0, rng.random(12 * 5) * 3.0 + 2.0,
                             rng.random(12 * 5) * 7]).reshape(12, 5, 3)  # fmt: skip
    angles = np.linspace(-np.pi, np.pi, 1080, endpoint=False)
    ranges = scan_many(stack, poses, angles, 4.0, dtype=np.float32)
    for b in range(12):
        single = scan_many(stack[b], poses[b], angles, 4.0, dtype=np.float32)
        np.testing.assert_array_equal(ranges[b], single)


@FAST
@given(st.data())
def test_set_layers_keeps_every_map_current(data):
    stack = data.draw(stacks(max_maps=3))
    count, (rows, cols) = len(stack), stack.shape[1:]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31 - 1)))
    angles = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    poses = np.column_stack([rng.random(count * 3) * cols, rng.random(count * 3) * rows,
                             np.zeros(count * 3)]).reshape(count, 3, 3)  # fmt: skip
    (w, h), (ox, oy) = stack.tile_size, stack.origin
    poses[..., 0] = ox + poses[..., 0] * w
    poses[..., 1] = oy + poses[..., 1] * h
    scan_many(stack, poses, angles, 50.0)  # builds the clearance maps, then edits follow them
    scan_many(stack, poses, angles, 50.0, mask=2)
    for _ in range(3):
        b = int(rng.integers(count))
        many = data.draw(st.booleans())
        n = int(rows * cols) if many else int(rng.integers(1, 4))  # rebuild or update
        cells = np.column_stack([rng.integers(0, cols, n), rng.integers(0, rows, n)])
        bits = rng.integers(0, 4, n)
        stack.set_layers(b, cells, bits)
        for mask in (0xFFFFFFFF, 2):
            ranges = scan_many(stack, poses, angles, 50.0, mask=mask)
            for m in range(count):
                grid = Grid((stack.layers[m] & mask) != 0, stack.tile_size,
                            stack.origin, stack.outside)  # fmt: skip
                np.testing.assert_array_equal(ranges[m], scan_many(grid, poses[m], angles, 50.0))


def test_mask_selects_the_layers_that_block():
    cells = np.zeros((2, 1, 6), np.uint32)
    cells[0, 0, 2] = 1  # glass
    cells[0, 0, 4] = 2  # wall
    cells[1, 0, 3] = 3  # both
    stack = GridStack(cells, outside="solid")
    poses = np.zeros((2, 1, 3))
    poses[..., :2] = (0.5, 0.5)
    assert scan_many(stack, poses, [0.0], 20.0).tolist() == [[[1.5]], [[2.5]]]
    assert scan_many(stack, poses, [0.0], 20.0, mask=2).tolist() == [[[3.5]], [[2.5]]]
    assert scan_many(stack, poses, [0.0], 20.0, mask=4).tolist() == [[[5.5]], [[5.5]]]
    hits = raycast_many(stack, np.full((2, 1, 2), 0.5), np.ones((2, 1, 2)) * (1, 0), mask=2)
    assert hits.cell.tolist() == [[[4, 0]], [[3, 0]]]


@pytest.mark.parametrize("kind", ["model", "table"])
def test_scan_likelihood_on_a_stack_is_each_maps(kind, monkeypatch):
    import tilecast.batch

    rng = np.random.default_rng(11)
    stack = GridStack(rng.random((5, 20, 25)) < 0.2, outside="solid")
    poses = np.column_stack([rng.random(5 * 9) * 25, rng.random(5 * 9) * 20,
                             rng.random(5 * 9) * 7]).reshape(5, 9, 3)  # fmt: skip
    angles = np.linspace(0, 2 * np.pi, 60, endpoint=False)
    observed = rng.random((5, 60)) * 12
    if kind == "model":
        options = {"model": BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.3, lambda_short=0.4)}
    else:
        options = {"table": rng.random((40, 40)), "table_resolution": 0.5}
    expected = [scan_likelihood(stack[b], poses[b], angles, observed[b], max_range=15.0,
                                **options) for b in range(5)]  # fmt: skip
    # whole maps per chunk, one map per chunk, and a map's poses split over chunks
    for chunk in (1 << 18, 9 * 60, 4 * 60):
        monkeypatch.setattr(tilecast.batch, "CHUNK_RAYS", chunk)
        result = scan_likelihood(stack, poses, angles, observed, max_range=15.0, **options)
        assert result.shape == (5, 9)
        for b in range(5):
            np.testing.assert_array_equal(result[b], expected[b])


def test_out_and_float32():
    stack = GridStack(np.zeros((2, 4, 4), bool), outside="solid")
    poses = np.array([[[1.5, 1.5, 0.0]], [[0.5, 0.5, np.pi]]])
    out = np.empty((2, 1, 3), np.float32)
    assert scan_many(stack, poses, [0.0, 0.1, 0.2], 10.0, out=out) is out
    np.testing.assert_array_equal(out, scan_many(stack, poses, [0.0, 0.1, 0.2], 10.0)
                                  .astype(np.float32))  # fmt: skip


def test_stack_basics():
    cells = np.arange(2 * 2 * 3, dtype=np.int64).reshape(2, 2, 3)
    stack = GridStack(cells, tile_size=(2.0, 1.0), origin=(1.0, -1.0), outside="solid")
    assert len(stack) == 2 and stack.shape == (2, 2, 3)
    assert stack.layers.dtype == np.uint32 and not stack.layers.flags.writeable
    np.testing.assert_array_equal(stack.solid, cells != 0)
    grid = stack[1]
    assert isinstance(grid, Grid) and grid.tile_size == (2.0, 1.0) and grid.outside == "solid"
    np.testing.assert_array_equal(stack[-2].solid, cells[0] != 0)
    assert pickle.loads(pickle.dumps(stack)).layers.tolist() == stack.layers.tolist()
    assert GridStack([np.zeros((2, 2), int), np.ones((2, 2), bool)]).layers.tolist() == [
        [[0, 0], [0, 0]], [[1, 1], [1, 1]]]  # fmt: skip
    big = GridStack(np.full((1, 1, 1), 2**32 - 1, np.uint64))
    assert int(big.layers[0, 0, 0]) == 2**32 - 1


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: GridStack([np.zeros((2, 2), int), np.zeros((2, 3), int)]),
            ValueError,
            "cells.*one shape",
        ),
        (lambda: GridStack(np.zeros((2, 2), bool)), ValueError, "cells must have 3 dimensions"),
        (lambda: GridStack(np.zeros((0, 2, 2), bool)), ValueError, "cells must not be empty"),
        (lambda: GridStack(np.full((1, 2, 2), -1)), ValueError, "cells must hold layer bits 0 to"),
        (lambda: GridStack(np.full((1, 2, 2), 2**32)), ValueError, "cells must hold layer bits 0"),
        (lambda: GridStack(np.zeros((1, 2, 2), float)), TypeError, "cells must hold bool"),
        (lambda: STACK.set_layers(2, (0, 0), 1), ValueError, "b must be a map index"),
        (lambda: STACK[2], IndexError, "b must be a map index"),
        (lambda: STACK.set_layers(0, (5, 0), 1), ValueError, "cells must lie on"),
        (lambda: STACK.set_layers(0, (0, 0), -1), ValueError, "bits must hold layer bits"),
        (lambda: STACK.set_layers(0, (0, 0), 1.5), TypeError, "bits must hold bool"),
        (
            lambda: STACK.set_layers(0, [(0, 0), (1, 1)], [1, 2, 3]),
            ValueError,
            "bits must be one value or of shape",
        ),
        (
            lambda: scan_many(STACK, np.zeros((3, 1, 3)), [0.0], 5.0),
            ValueError,
            "poses must have one row per map: leading dimension 2",
        ),
        (
            lambda: scan_many(STACK, np.zeros((2, 3)), [0.0], 5.0),
            ValueError,
            r"poses must have shape \(B, K, 3\)",
        ),
        (
            lambda: raycast_many(STACK, np.zeros((1, 1, 2)), np.ones((2, 1, 2))),
            ValueError,
            "origins must have one row per map",
        ),
        (
            lambda: raycast_many(STACK, np.zeros((2, 1, 2)), np.zeros((2, 1, 2))),
            ValueError,
            "directions must not contain the zero vector",
        ),
        (
            lambda: raycast_many(STACK, np.zeros((2, 3, 2)), np.ones((2, 2, 2))),
            ValueError,
            "origins .* and directions",
        ),
        (
            lambda: raycast_many(STACK, np.zeros((2, 3, 2)), np.ones((2, 3, 2)), np.ones(3)),
            ValueError,
            r"max_distance must be a scalar or have shape \(2, 3\)",
        ),
        (lambda: scan_many(STACK, np.zeros((2, 1, 3)), [0.0], 5.0, mask=-1), ValueError, "mask"),
        (
            lambda: scan_many(STACK, np.zeros((2, 1, 3)), [0.0], 5.0, out=np.empty((2, 1))),
            ValueError,
            "out must have shape",
        ),
        (
            lambda: scan_likelihood(
                STACK,
                np.zeros((2, 1, 3)),
                [0.0],
                [1.0],
                max_range=5.0,
                table=np.ones((3, 3)),
                table_resolution=1.0,
            ),
            ValueError,
            r"observed must have shape \(2, 1\)",
        ),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


STACK = GridStack(np.zeros((2, 3, 3), bool))


def test_bodies_and_shape_arrays_are_one_way_or_the_other():
    from tilecast import GridStack, SpatialHash

    grid = Grid(np.zeros((4, 4), bool), outside="solid")
    hash_ = SpatialHash(1.0)
    hash_.insert(1, circle=((3.0, 1.5), 0.25))
    ranges = scan_many(grid, [(0.5, 1.5, 0.0)], [0.0], 9.0, bodies=hash_)
    assert ranges.tolist() == [[2.25]]
    with pytest.raises(ValueError, match="bodies"):
        scan_many(grid, [(0.5, 1.5, 0.0)], [0.0], 9.0, bodies=hash_, circles=[(3.0, 1.5, 0.25)])
    stack = GridStack(np.zeros((2, 4, 4), bool))
    with pytest.raises(TypeError, match="bodies"):
        scan_many(stack, np.zeros((2, 1, 3)) + 0.5, [0.0], 9.0, bodies=hash_)


def test_directions_per_ray_or_per_map_take_one_compiled_kernel():
    """A stack's directions reach the lane kernel writeable whether each ray has its own or
    each map shares one (np.broadcast_to's read-only view would compile it again)."""
    from tilecast._load import kernels

    lanes = kernels("lanes")
    stack = GridStack(np.random.default_rng(8).random((2, 12, 12)) < 0.2, outside="solid")
    origins = np.full((2, 40, 2), 6.5)
    angles = np.linspace(0.0, 2.0 * np.pi, 40, endpoint=False)
    each = np.stack([np.column_stack([np.cos(angles), np.sin(angles)])] * 2)
    first = raycast_many(stack, origins, each)
    compiled = len(lanes.cast_lanes_at.signatures)
    shared = raycast_many(stack, origins, each[:, :1])
    assert len(lanes.cast_lanes_at.signatures) == compiled
    np.testing.assert_array_equal(shared.distance, np.broadcast_to(first.distance[:, :1], (2, 40)))
