"""One base for Grid and TileMap: every map query takes either, and a raw 2D bool array."""

from __future__ import annotations

import numpy as np
import pytest

from tilecast import (
    Grid,
    TileMap,
    TileSet,
    World,
    fov,
    fov_many,
    raycast,
    tiles_in_circle,
    tiles_in_rect,
    traverse,
    visibility_polygon,
    wall_segments,
)

# Tile 0: solid left column of a 4x4 tile; tile 1: fully solid; tile 2: no solid pixel.
_LEFT = np.zeros((4, 4), dtype=bool)
_LEFT[:, 0] = True
TILES = TileSet([_LEFT, np.ones((4, 4), dtype=bool), np.zeros((4, 4), dtype=bool)])
IDS = np.array(
    [
        [-1, -1, -1, -1, -1],
        [-1, 0, -1, 2, -1],
        [-1, -1, 1, -1, -1],
        [-1, 2, -1, -1, 0],
    ]
)


def _tilemap(**kwargs: object) -> TileMap:
    return TileMap(IDS, TILES, tile_size=(2.0, 3.0), origin=(-1.0, 0.5), **kwargs)  # type: ignore[arg-type]


def test_grid_and_tilemap_share_the_base_and_its_geometry():
    tmap = _tilemap()
    grid = Grid(tmap.solid, tile_size=(2.0, 3.0), origin=(-1.0, 0.5))
    for world in (tmap, grid):
        assert isinstance(world, World)
        assert world.shape == (4, 5) and world.rows == 4 and world.cols == 5
        assert world.cell_at((2.9, 3.4)) == (1, 0)
        assert world.cell_bounds((1, 0)) == (1.0, 0.5, 3.0, 3.5)
        assert world.in_bounds((4, 3)) and not world.in_bounds((5, 0))
        assert world.to_tile_space((3.0, 6.5)) == (2.0, 2.0)


def test_tilemap_cell_solidity_is_any_solid_pixel():
    tmap = _tilemap(outside="solid")
    expected = np.isin(IDS, [0, 1])  # tile 2 has no solid pixel
    assert tmap.solid.tolist() == expected.tolist()
    assert tmap.solid.flags.writeable is False
    assert tmap.is_solid((1, 1)) and tmap.is_solid((2, 2))
    assert not tmap.is_solid((3, 1)) and not tmap.is_solid((0, 0))
    assert tmap.is_solid((-1, 0)) and tmap.is_solid((0, 99))  # outside="solid"
    assert tmap.to_grid().solid.tolist() == expected.tolist()


def test_tilemap_solid_follows_set_tile():
    tmap = _tilemap()
    version = tmap.version
    tmap.set_tile((0, 0), 1)
    tmap.set_tile((1, 1), 2)
    assert tmap.version == version + 2
    assert tmap.solid[0, 0] and not tmap.solid[1, 1]
    assert fov(tmap, (0, 0))[0, 0]


def test_fov_on_a_tilemap_is_fov_on_its_cell_solidity():
    tmap = _tilemap()
    grid = Grid(tmap.solid)
    for origin in [(0, 0), (3, 1), (0, 3), (4, 0)]:
        for radius in (None, 1.5, 3):
            np.testing.assert_array_equal(fov(tmap, origin, radius), fov(grid, origin, radius))
    np.testing.assert_array_equal(
        fov_many(tmap, [(0, 0), (4, 0)]), fov_many(grid, [(0, 0), (4, 0)])
    )


def test_raw_bool_arrays_are_unit_grids_everywhere():
    solid = IDS == 1
    grid = Grid(solid)
    np.testing.assert_array_equal(fov(solid, (0, 0)), fov(grid, (0, 0)))
    np.testing.assert_array_equal(
        tiles_in_rect(solid, (0, 0, 2, 2)), tiles_in_rect(grid, (0, 0, 2, 2))
    )
    np.testing.assert_array_equal(
        tiles_in_circle(solid, (1, 1), 1.2), tiles_in_circle(grid, (1, 1), 1.2)
    )
    np.testing.assert_array_equal(wall_segments(solid), wall_segments(grid))
    assert raycast(solid, (0.5, 2.5), (1, 0)) == raycast(grid, (0.5, 2.5), (1, 0))
    assert list(traverse(solid, (0.5, 0.5), (3.5, 2.5))) == list(
        traverse(grid, (0.5, 0.5), (3.5, 2.5))
    )


def test_regions_on_a_tilemap_use_its_cells():
    tmap = _tilemap()
    layout = Grid(np.zeros(tmap.shape, bool), tile_size=tmap.tile_size, origin=tmap.origin)
    for rect in [(-1, 0.5, 9, 12.5), (0.0, 1.0, 3.0, 4.0), (-50, -50, -40, -40)]:
        np.testing.assert_array_equal(tiles_in_rect(tmap, rect), tiles_in_rect(layout, rect))
    for center, radius in [((2.0, 4.0), 2.5), ((-1.0, 0.5), 0.0), ((5.0, 9.0), 10.0)]:
        np.testing.assert_array_equal(
            tiles_in_circle(tmap, center, radius), tiles_in_circle(layout, center, radius)
        )


def test_wall_segments_of_a_tilemap_outline_its_solid_pixels():
    tmap = _tilemap(outside="solid")
    np.testing.assert_array_equal(wall_segments(tmap), wall_segments(tmap.to_pixel_grid()))
    # The light sees up to the pixel outline the rays stop at.
    light = (4.0, 2.0)  # in the empty cell (2, 0)
    polygon = visibility_polygon(wall_segments(tmap), light)
    for angle in np.linspace(0.0, 2 * np.pi, 64, endpoint=False):
        direction = (float(np.cos(angle)), float(np.sin(angle)))
        hit = raycast(tmap, light, direction)
        assert hit is not None
        # The hit point lies on the polygon's boundary (within rounding).
        assert _distance_to_boundary(polygon, hit.point) < 1e-9


def _distance_to_boundary(polygon: np.ndarray, point: tuple[float, float]) -> float:
    p = np.asarray(point)
    a = polygon
    b = np.roll(polygon, -1, axis=0)
    ab = b - a
    t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.einsum("ij,ij->i", ab, ab), 0.0, 1.0)
    nearest = a + t[:, None] * ab
    return float(np.min(np.hypot(*(nearest - p).T)))


def test_other_inputs_are_refused_naming_grid():
    for bad in ([[False, True]], np.zeros((2, 2)), np.zeros(3, bool), None, TILES):
        for call in (
            lambda g: fov(g, (0, 0)),
            lambda g: tiles_in_rect(g, (0, 0, 1, 1)),
            lambda g: tiles_in_circle(g, (0, 0), 1.0),
            lambda g: wall_segments(g),
        ):
            with pytest.raises(TypeError, match="grid"):
                call(bad)


def test_empty_arrays_and_ragged_cells_are_refused_naming_the_argument():
    empty = np.zeros((0, 4), dtype=bool)
    for call in (
        lambda: fov(empty, (0, 0)),
        lambda: raycast(empty, (0.0, 0.0), (1.0, 0.0)),
        lambda: tiles_in_rect(empty, (0, 0, 1, 1)),
        lambda: wall_segments(empty),
    ):
        with pytest.raises(ValueError, match="grid"):
            call()
    grid = Grid(np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="origin_cells"):
        fov_many(grid, [[0, 0], [1]])
    with pytest.raises(ValueError, match="cells"):
        grid.set_solid([[0, 0], [1]])
    with pytest.raises(ValueError, match="cells"):
        _tilemap().set_tile([[0, 0], [1]], 0)
