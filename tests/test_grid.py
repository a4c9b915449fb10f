import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilecast import Grid


@settings(max_examples=300, deadline=None)
@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from([(1.0, 1.0), (0.1, 0.3), (2.0, 0.5), (32.0, 16.0)]),
    st.sampled_from([(0.0, 0.0), (-3.25, 2.5), (0.05, -0.2)]),
)
def test_cell_at_is_floor_of_the_tile_space_doubles(x, y, tile_size, origin):
    grid = Grid([[0]], tile_size=tile_size, origin=origin)
    u = (x - origin[0]) / tile_size[0]  # exactly two float64 operations
    v = (y - origin[1]) / tile_size[1]
    i, j = grid.cell_at((x, y))
    # exact floor of those doubles, checked with rationals
    assert Fraction(i) <= Fraction(u) < Fraction(i + 1)
    assert Fraction(j) <= Fraction(v) < Fraction(j + 1)
    assert grid.to_tile_space((x, y)) == (u, v)


def test_cell_at_on_grid_lines_and_negative_coordinates():
    grid = Grid([[0]])
    assert grid.cell_at((0.0, 0.0)) == (0, 0)
    assert grid.cell_at((-0.0, -1.0)) == (0, -1)
    assert grid.cell_at((-1e-300, 3.0)) == (-1, 3)
    assert Grid([[0]], tile_size=0.1).cell_at((0.3, 0.0)) == (2, 0)  # 0.3 / 0.1 < 3


def test_cell_bounds_match_the_documented_formula():
    grid = Grid([[0]], tile_size=(0.1, 0.3), origin=(0.05, -0.2))
    x0, y0, x1, y1 = grid.cell_bounds((-4, 7))
    assert (x0, y0, x1, y1) == (0.05 + -4 * 0.1, -0.2 + 7 * 0.3, 0.05 + -3 * 0.1, -0.2 + 8 * 0.3)


def test_solid_is_a_read_only_view_that_never_goes_stale():
    source = np.zeros((3, 4), dtype=bool)
    grid = Grid(source)
    view = grid.solid
    assert view.shape == (3, 4) and grid.shape == (3, 4) and (grid.rows, grid.cols) == (3, 4)
    with pytest.raises(ValueError):
        view[0, 0] = True
    source[1, 1] = True  # the grid copied its input
    assert not grid.solid[1, 1]
    version = grid.version
    grid.set_solid([[1, 2], [3, 0]], True)
    assert view[2, 1] and view[0, 3] and grid.version == version + 1
    grid.set_solid((1, 2), False)
    assert not view[2, 1]
    grid.set_solid(np.empty((0, 2), dtype=int), True)  # nothing to do
    assert grid.is_solid((3, 0)) and not grid.is_solid((9, 9))
    assert Grid([[0]], outside="solid").is_solid((9, 9))


def test_integer_arrays_are_layer_bits_nonzero_is_solid():
    # DESIGN 20: integers are layer bit fields; negative ones are no bit field
    grid = Grid(np.array([[0, 2], [2**32 - 1, 0]], dtype=np.int64))
    assert grid.solid.tolist() == [[False, True], [True, False]]
    assert grid.layers.dtype == np.uint32
    assert grid.layers.tolist() == [[0, 2], [2**32 - 1, 0]]
    for bad in (-1, 2**32):
        with pytest.raises(ValueError, match="solid"):
            Grid(np.array([[0, bad]], dtype=np.int64))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"solid": [0, 1]}, ValueError, "solid"),
        ({"solid": np.zeros((0, 3), bool)}, ValueError, "solid"),
        ({"solid": np.zeros((2, 2, 2), bool)}, ValueError, "solid"),
        ({"solid": [[0.5, 1.0]]}, TypeError, "solid"),
        ({"solid": [["a"]]}, TypeError, "solid"),
        ({"tile_size": 0.0}, ValueError, "tile_size"),
        ({"tile_size": -1.0}, ValueError, "tile_size"),
        ({"tile_size": math.nan}, ValueError, "tile_size"),
        ({"tile_size": (1.0, math.inf)}, ValueError, "tile_size"),
        ({"tile_size": "1"}, TypeError, "tile_size"),
        ({"origin": (0.0,)}, ValueError, "origin"),
        ({"origin": (0.0, math.nan)}, ValueError, "origin"),
        ({"outside": "wall"}, ValueError, "outside"),
        ({"outside": None}, TypeError, "outside"),
    ],
)
def test_bad_grid_input_names_the_argument(kwargs, error, match):
    args = {"solid": [[0, 1]], **kwargs}
    with pytest.raises(error, match=match):
        Grid(**args)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda g: g.set_solid((5, 0)), ValueError, "cells"),
        (lambda g: g.set_solid((-1, 0)), ValueError, "cells"),
        (lambda g: g.set_solid([[0, 0, 0]]), ValueError, "cells"),
        (lambda g: g.set_solid([[0.5, 0]]), TypeError, "cells"),
        (lambda g: g.set_solid([[0, 0], [1, 0]], [True]), ValueError, "value"),
        (lambda g: g.set_solid((0, 0), "yes"), TypeError, "value"),
        (lambda g: g.cell_at((math.nan, 0.0)), ValueError, "point"),
        (lambda g: g.cell_bounds((0.5, 1)), TypeError, "cell"),
    ],
)
def test_bad_edits_and_queries_name_the_argument(call, error, match):
    grid = Grid([[0, 0]])
    with pytest.raises(error, match=match):
        call(grid)
    assert grid.solid.tolist() == [[False, False]]  # never half-applied
