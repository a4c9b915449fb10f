"""The compiled walk (every single-ray query) against the exact far-range walk.

``raycast``, ``raycast_all``, ``line_of_sight`` and ``traverse`` all run
:func:`tilecast._kernels.walk.walk`; the rays beyond its proven range take
``tilecast._farwalk``, the same walk in Python integers and Fractions. Both
must give the same answers, so here each query is compared, field for field
and bit for bit, with the far-range walk run on every ray (``farwalk.py``),
on hypothesis cases aimed at the hard spots (corners, grid lines, axis and
45-degree rays, negative coordinates, inexact tile sizes, both outside
policies) and on random tile maps with flipped tiles. The independent
sorted-crossing oracles of ``tests/reference/oracle.py`` check the public
queries elsewhere (``tests/test_raycast.py``, ``tests/test_traverse.py``).
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from farwalk import line_of_sight_far, raycast_all_far, raycast_far, traverse_far
from strategies import directions, grids, points
from tilecast import Grid, TileMap, TileSet, line_of_sight, raycast, raycast_all, traverse

GAPS = ["block_if_both", "block_if_either", "open"]
CORNERS = ["both", "x_first", "y_first", "none"]


@st.composite
def ray_cases(draw):
    grid = draw(grids())
    return (
        grid,
        draw(points(grid)),
        draw(directions(grid)),
        draw(st.sampled_from([math.inf, 0.0, 1.0, 2.5, 7.0])),
        draw(st.sampled_from(GAPS)),
        draw(st.booleans()),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ray_cases())
def test_raycast_and_raycast_all_equal_the_far_walk(case):
    grid, origin, direction, limit, gaps, ignore = case
    kwargs = {"diagonal_gaps": gaps, "ignore_start": ignore}
    assert raycast(grid, origin, direction, limit, **kwargs) == raycast_far(
        grid, origin, direction, limit, **kwargs
    )
    assert raycast_all(grid, origin, direction, limit, **kwargs) == raycast_all_far(
        grid, origin, direction, limit, **kwargs
    )


@st.composite
def segment_cases(draw):
    grid = draw(grids())
    return grid, draw(points(grid)), draw(points(grid)), draw(st.sampled_from(GAPS))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segment_cases(), st.sampled_from(CORNERS))
def test_line_of_sight_and_traverse_equal_the_far_walk(case, corners):
    grid, a, b, gaps = case
    assert line_of_sight(grid, a, b, diagonal_gaps=gaps) == line_of_sight_far(
        grid, a, b, diagonal_gaps=gaps
    )
    assert list(traverse(grid, a, b, corners=corners)) == traverse_far(grid, a, b, corners=corners)


def random_tilemap(rng, rows, cols, tw, th, outside):
    masks = [np.zeros((th, tw), bool), np.ones((th, tw), bool)]
    masks += [rng.random((th, tw)) < p for p in (0.1, 0.4, 0.7)]
    ids = rng.choice([-1, -1, -1, 0, 1, 2, 3, 4], (rows, cols))
    flips = rng.integers(0, 8 if tw == th else 4, (rows, cols))
    tile_size = [None, 1.0, (2.0, 0.5)][rng.integers(3)]
    origin = [(0.0, 0.0), (-1.5, 2.0)][rng.integers(2)]
    return TileMap(ids, TileSet(masks), tile_size, origin, flips=flips, outside=outside)


def random_point(rng, grid, span_x, span_y):
    ox, oy = grid.origin
    kind = rng.integers(3)
    if kind == 0:  # on the lattice of walk cells
        cw, ch = grid.pixel_size if isinstance(grid, TileMap) else grid.tile_size
        return (ox + rng.integers(-3, 4 + span_x / cw) * cw,
                oy + rng.integers(-3, 4 + span_y / ch) * ch)  # fmt: skip
    return (ox + rng.uniform(-2, span_x + 2), oy + rng.uniform(-2, span_y + 2))


def random_direction(rng):
    kind = rng.integers(4)
    if kind == 0:
        return [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)][rng.integers(4)]
    if kind == 1:
        return (float(rng.choice([-1, 1])), float(rng.choice([-1, 1])))
    if kind == 2:
        return (float(rng.integers(1, 4)) * rng.choice([-1, 1]), float(rng.integers(-3, 4)))
    return (rng.uniform(-1, 1), rng.uniform(-1, 1))


@pytest.mark.parametrize("seed", range(6))
def test_every_query_on_tile_maps_equals_the_far_walk(seed):
    rng = np.random.default_rng(seed)
    for _ in range(12):
        tw, th = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        outside = ["empty", "solid"][rng.integers(2)]
        tmap = random_tilemap(rng, int(rng.integers(1, 9)), int(rng.integers(1, 9)), tw, th,
                              outside)  # fmt: skip
        span_x, span_y = tmap.cols * tmap.tile_size[0], tmap.rows * tmap.tile_size[1]
        for _ in range(25):
            origin = random_point(rng, tmap, span_x, span_y)
            direction = random_direction(rng)
            limit = [math.inf, float(rng.uniform(0, 10)), float(rng.integers(0, 8))][
                rng.integers(3)
            ]
            kwargs = {
                "diagonal_gaps": GAPS[rng.integers(3)],
                "ignore_start": bool(rng.random() < 0.3),
            }
            args = (tmap, origin, direction, limit)
            assert raycast(*args, **kwargs) == raycast_far(*args, **kwargs), (args, kwargs)
            assert raycast_all(*args, **kwargs) == raycast_all_far(*args, **kwargs)
            end = random_point(rng, tmap, span_x, span_y)
            gaps = kwargs["diagonal_gaps"]
            assert line_of_sight(tmap, origin, end, diagonal_gaps=gaps) == (
                line_of_sight_far(tmap, origin, end, diagonal_gaps=gaps)
            ), (origin, end, gaps)


def test_raycast_all_stops_at_the_first_cell_beyond_a_solid_outside_corner():
    # leaving the map exactly through its corner: both shoulders are beyond
    # the border; the first one (the x-step shoulder) is the last hit
    grid = Grid(np.zeros((5, 5), bool), outside="solid")
    hits = raycast_all(grid, (2.5, 2.5), (1.0, 1.0))
    assert [h.cell for h in hits] == [(5, 4)]
    assert raycast(grid, (2.5, 2.5), (1.0, 1.0)).cell == (5, 4)
    pixels = TileMap([[0] * 5] * 5, TileSet(np.zeros((1, 2, 2), bool)), tile_size=1.0,
                     outside="solid")  # fmt: skip
    assert [h.cell for h in raycast_all(pixels, (2.5, 2.5), (1.0, 1.0))] == [(5, 4)]
    # through a solid cell on the map, then out by the map's corner
    walls = Grid([[0, 0], [0, 1]], outside="solid")
    hits = raycast_all(walls, (0.5, 0.5), (1.0, 1.0), diagonal_gaps="block_if_either")
    assert [h.cell for h in hits] == [(1, 1), (2, 1)]


def test_points_and_directions_may_be_any_pair_of_numbers():
    grid = Grid([[0, 0, 1]])
    want = raycast(grid, (0.5, 0.5), (1.0, 0.0))
    for origin in ([0.5, 0.5], np.array([0.5, 0.5]), (np.float32(0.5), np.float64(0.5))):
        for direction in ([1, 0], np.array([1.0, 0.0]), (np.int64(1), 0)):
            assert raycast(grid, origin, direction) == want
    pygame = pytest.importorskip("pygame")
    assert raycast(grid, pygame.Vector2(0.5, 0.5), pygame.Vector2(1, 0)) == want
    assert line_of_sight(grid, pygame.Vector2(0.5, 0.5), (1.5, 0.5))


def test_a_raw_bool_array_is_a_grid():
    solid = np.array([[0, 1, 1], [0, 0, 0]], dtype=bool)
    grid = Grid(solid)
    assert raycast(solid, (0.5, 0.5), (1, 0)) == raycast(grid, (0.5, 0.5), (1, 0))
    assert not line_of_sight(solid, (0.5, 0.5), (2.5, 0.5))
    assert list(traverse(solid, (0.5, 0.5), (2.5, 1.5))) == list(
        traverse(grid, (0.5, 0.5), (2.5, 1.5))
    )
    with pytest.raises(TypeError, match="grid"):
        raycast(solid.astype(float), (0.5, 0.5), (1, 0))


def test_traverse_on_a_tilemap_walks_its_tiles():
    tmap = TileMap([[0, 0, 0]], TileSet(np.zeros((1, 4, 4), bool)), tile_size=2.0)
    cells = [s.cell for s in traverse(tmap, (0.5, 0.5), (5.5, 1.5))]
    assert cells == [(0, 0), (1, 0), (2, 0)]
