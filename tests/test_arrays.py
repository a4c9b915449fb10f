"""Arrays from anywhere (DESIGN 22): DLPack and array-interface producers in, and as ``out=``.

The real producer besides NumPy is JAX (CPU, in the test extra): its arrays
are read-only and expose ``__dlpack__``. PyTorch's CPU wheel is not on PyPI
(the PyPI wheel brings CUDA, gigabytes), so writable ``out=`` arrays are
exercised with two small producers written here: one that exposes only
``__dlpack__`` / ``__dlpack_device__`` and one that exposes only
``__array_interface__``, both over memory the test owns.
"""

import jax
import numpy as np
import pytest

from tilecast import (
    BeamModel,
    Grid,
    GridStack,
    raycast_many,
    scan,
    scan_likelihood,
    scan_many,
)
from tilecast._validate import as_host_array, as_points_array

jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


class DLPackOnly:
    """An array that NumPy can reach only through DLPack (as a PyTorch CPU tensor)."""

    def __init__(self, array, device=(1, 0)):
        self._array = array
        self._device = device

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._device


class InterfaceOnly:
    """An array that NumPy can reach only through ``__array_interface__``."""

    def __init__(self, array):
        self._array = array

    @property
    def __array_interface__(self):
        return self._array.__array_interface__


GRID = Grid(np.random.default_rng(3).random((20, 30)) < 0.2, outside="solid")
STACK = GridStack(np.random.default_rng(4).random((3, 20, 30)) < 0.2, outside="solid")
RNG = np.random.default_rng(5)
POSES = np.column_stack([RNG.random(8) * 30, RNG.random(8) * 20, RNG.random(8) * 6])
ANGLES = np.linspace(0, 2 * np.pi, 90, endpoint=False)
ORIGINS = np.column_stack([RNG.random(50) * 30, RNG.random(50) * 20])
DIRECTIONS = RNG.normal(size=(50, 2))
PRODUCERS = [jnp.asarray, DLPackOnly, InterfaceOnly]


@pytest.mark.parametrize("wrap", PRODUCERS)
def test_inputs_from_any_producer_give_the_numpy_answer(wrap):
    expected = scan_many(GRID, POSES, ANGLES, 25.0)
    np.testing.assert_array_equal(scan_many(GRID, wrap(POSES), wrap(ANGLES), 25.0), expected)
    np.testing.assert_array_equal(scan(GRID, wrap(POSES[0]), wrap(ANGLES), 25.0), expected[0])
    hits = raycast_many(GRID, wrap(ORIGINS), wrap(DIRECTIONS), wrap(np.full(50, 9.0)))
    reference = raycast_many(GRID, ORIGINS, DIRECTIONS, np.full(50, 9.0))
    np.testing.assert_array_equal(hits.distance, reference.distance)
    np.testing.assert_array_equal(hits.cell, reference.cell)
    model = BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.3, lambda_short=0.4)
    observed = expected[0]
    np.testing.assert_array_equal(
        scan_likelihood(GRID, wrap(POSES), wrap(ANGLES), wrap(observed), max_range=25.0,
                        model=model),
        scan_likelihood(GRID, POSES, ANGLES, observed, max_range=25.0, model=model),
    )  # fmt: skip
    poses = np.stack([POSES] * 3)
    np.testing.assert_array_equal(
        scan_many(STACK, wrap(poses), wrap(ANGLES), 25.0), scan_many(STACK, poses, ANGLES, 25.0)
    )
    cells = np.random.default_rng(6).integers(0, 4, (2, 5, 6)).astype(np.int64)
    assert GridStack(wrap(cells)).layers.tolist() == cells.tolist()
    assert Grid(wrap(cells[0] != 0)).solid.tolist() == (cells[0] != 0).tolist()


def test_no_copy_where_dtype_and_layout_allow():
    points = np.ascontiguousarray(ORIGINS)
    assert np.shares_memory(as_points_array("origins", DLPackOnly(points)), points)
    assert np.shares_memory(as_points_array("origins", InterfaceOnly(points)), points)
    # a JAX float64 array is viewed, not copied: the view is JAX's read-only buffer
    view = as_host_array("origins", jnp.asarray(points))
    assert not view.flags.writeable and view.dtype == np.float64
    np.testing.assert_array_equal(view, points)


@pytest.mark.parametrize("wrap", [DLPackOnly, InterfaceOnly])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_out_is_filled_in_place(wrap, dtype):
    memory = np.full((8, 90), -1.0, dtype)
    out = wrap(memory)
    assert scan_many(GRID, POSES, ANGLES, 25.0, out=out) is out
    np.testing.assert_array_equal(memory, scan_many(GRID, POSES, ANGLES, 25.0, dtype=dtype))
    memory_one = np.full(90, -1.0, dtype)
    assert scan(GRID, POSES[0], ANGLES, 25.0, out=wrap(memory_one)) is not None
    np.testing.assert_array_equal(memory_one, memory[0])
    stacked = np.full((3, 8, 90), -1.0, dtype)
    scan_many(STACK, np.stack([POSES] * 3), ANGLES, 25.0, out=wrap(stacked))
    np.testing.assert_array_equal(
        stacked, scan_many(STACK, np.stack([POSES] * 3), ANGLES, 25.0, dtype=dtype)
    )
    likelihood = np.full(8, 7.0)
    model = BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.3, lambda_short=0.4)
    scan_likelihood(GRID, POSES, ANGLES, memory[0].astype(float), max_range=25.0, model=model,
                    out=wrap(likelihood))  # fmt: skip
    np.testing.assert_array_equal(
        likelihood,
        scan_likelihood(GRID, POSES, ANGLES, memory[0].astype(float), max_range=25.0, model=model),
    )


def test_a_read_only_or_misshapen_out_is_refused():
    with pytest.raises(ValueError, match="out must be writable"):
        scan_many(GRID, POSES, ANGLES, 25.0, out=jnp.zeros((8, 90)))
    readonly = np.zeros((8, 90))
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="out must be writable"):
        scan_many(GRID, POSES, ANGLES, 25.0, out=InterfaceOnly(readonly))
    with pytest.raises(ValueError, match=r"out must have shape \(8, 90\)"):
        scan_many(GRID, POSES, ANGLES, 25.0, out=DLPackOnly(np.zeros((90, 8))))
    with pytest.raises(TypeError, match="out must be a NumPy array or a CPU array"):
        scan_many(GRID, POSES, ANGLES, 25.0, out=[[0.0] * 90] * 8)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda gpu: scan_many(GRID, gpu(POSES), ANGLES, 25.0), "poses"),
        (lambda gpu: scan_many(GRID, POSES, gpu(ANGLES), 25.0), "angles"),
        (lambda gpu: raycast_many(GRID, gpu(ORIGINS), DIRECTIONS), "origins"),
        (lambda gpu: raycast_many(GRID, ORIGINS, gpu(DIRECTIONS)), "directions"),
        (lambda gpu: scan_many(GRID, POSES, ANGLES, 25.0, out=gpu(np.zeros((8, 90)))), "out"),
        (lambda gpu: GridStack(gpu(np.zeros((2, 3, 3), bool))), "cells"),
        (lambda gpu: Grid(gpu(np.zeros((3, 3), bool))), "solid"),
        (lambda gpu: scan(GRID, gpu(POSES[0]), ANGLES, 25.0), "pose"),
    ],
)
def test_an_array_on_a_gpu_is_a_clear_error(call, name):
    def gpu(array):
        return DLPackOnly(array, device=(2, 0))  # kDLCUDA, device 0

    with pytest.raises(ValueError, match=rf"^{name} lives on a device \(CUDA device 0\)"):
        call(gpu)
