"""Collision layers and query masks (DESIGN 20).

The contract: every map query with ``mask=m`` answers exactly what the same
query without a mask answers on the map whose blocking cells are those with
``layers & m != 0``. Each test below builds that filtered map independently
(from the layer array, with NumPy) and compares, on maps with several
layers, including after edits.
"""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tilecast
from strategies import GEOMETRIES, directions, points
from tilecast import (
    ALL_LAYERS,
    Grid,
    TileMap,
    TileSet,
    VisibilityScene,
    fov,
    fov_counts,
    fov_many,
    line_of_sight,
    raycast,
    raycast_all,
    raycast_many,
    scan,
    scan_likelihood,
    scan_many,
    wall_segments,
)
from tilecast.sensor import BeamModel

MASKS = [0, 1, 2, 3, 4, 6, 0x80000000, 0xFFFFFFFE, ALL_LAYERS]


def _filtered(grid: Grid, mask: int) -> Grid:
    """The map the contract says a query with ``mask`` sees, built from ``grid.layers``."""
    blocking = (grid.layers & np.uint32(mask)) != 0
    return Grid(blocking, tile_size=grid.tile_size, origin=grid.origin, outside=grid.outside)


@st.composite
def layered_grids(draw, max_side: int = 8):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    palette = np.array([0, 0, 1, 2, 3, 4, 0x80000000, 5], dtype=np.uint32)
    layers = palette[rng.integers(0, len(palette), (rows, cols))]
    tile_size, origin = draw(st.sampled_from(GEOMETRIES))
    outside = draw(st.sampled_from(["empty", "solid"]))
    return Grid(layers, tile_size=tile_size, origin=origin, outside=outside)


def _same_hit(a, b):
    assert (a is None) == (b is None)
    if a is not None:
        assert a == b


# ------------------------------------------------------------------ the maps
def test_grid_layers_from_bools_and_integers():
    grid = Grid([[True, False]])
    assert grid.layers.tolist() == [[1, 0]] and grid.layers.dtype == np.uint32
    layered = Grid(np.array([[0, 5], [2**31, 0]], dtype=np.uint64))
    assert layered.layers.tolist() == [[0, 5], [2**31, 0]]
    assert layered.solid.tolist() == [[False, True], [True, False]]
    with pytest.raises(ValueError):
        layered.layers[0, 0] = 3  # read-only


def test_set_layers_and_set_solid_keep_both_views():
    grid = Grid(np.zeros((2, 3), bool))
    grid.set_layers([(0, 0), (2, 1)], [6, 1])
    assert grid.layers.tolist() == [[6, 0, 0], [0, 0, 1]]
    assert grid.solid.tolist() == [[True, False, False], [False, False, True]]
    grid.set_solid((0, 0), False)
    grid.set_solid((1, 0), True)
    assert grid.layers.tolist() == [[0, 1, 0], [0, 0, 1]]
    version = grid.version
    grid.set_layers((2, 1), 0)
    assert grid.version == version + 1 and not grid.solid[1, 2]


@pytest.mark.parametrize(
    ("bits", "error"),
    [(-1, ValueError), (2**32, ValueError), (1.5, TypeError), ("1", TypeError)],
)
def test_set_layers_refuses_bad_bits_and_leaves_the_map(bits, error):
    grid = Grid([[0, 3]])
    with pytest.raises(error, match="bits"):
        grid.set_layers((0, 0), bits)
    assert grid.layers.tolist() == [[0, 3]] and grid.version == 0


def test_set_layers_checks_cells_and_counts():
    grid = Grid([[0, 0]])
    with pytest.raises(ValueError, match="cells"):
        grid.set_layers((5, 0), 1)
    with pytest.raises(ValueError, match="bits"):
        grid.set_layers([(0, 0), (1, 0)], [1, 2, 3])
    assert grid.version == 0


@pytest.mark.parametrize(
    ("mask", "error"),
    [(-1, ValueError), (2**32, ValueError), (1.0, TypeError), (True, TypeError),
     (None, TypeError), ("1", TypeError)],
)  # fmt: skip
def test_bad_masks_are_refused_naming_mask(mask, error):
    grid = Grid([[0, 1]])
    calls = [
        lambda: raycast(grid, (0.5, 0.5), (1, 0), mask=mask),
        lambda: raycast_all(grid, (0.5, 0.5), (1, 0), mask=mask),
        lambda: line_of_sight(grid, (0.5, 0.5), (1.5, 0.5), mask=mask),
        lambda: raycast_many(grid, [(0.5, 0.5)], [(1, 0)], mask=mask),
        lambda: scan(grid, (0.5, 0.5, 0.0), [0.0], 5.0, mask=mask),
        lambda: scan_many(grid, [(0.5, 0.5, 0.0)], [0.0], 5.0, mask=mask),
        lambda: fov(grid, (0, 0), mask=mask),
        lambda: fov_many(grid, [(0, 0)], mask=mask),
        lambda: fov_counts(grid, mask=mask),
        lambda: wall_segments(grid, mask=mask),
        lambda: VisibilityScene.from_grid(grid, mask=mask),
        lambda: grid.masked(mask),
    ]
    for call in calls:
        with pytest.raises(error, match="mask"):
            call()


def test_the_default_mask_is_the_map_itself():
    grid = Grid([[0, 2, 1]])
    assert grid.masked(ALL_LAYERS) is grid
    assert grid.masked(int(np.uint32(ALL_LAYERS))) is grid
    one_layer = Grid([[0, 1, 1]])
    assert one_layer.masked(1) is one_layer and one_layer.masked(3) is one_layer
    assert not one_layer.masked(2).solid.any()


def test_a_masked_view_cannot_be_edited_and_follows_its_map():
    grid = Grid([[1, 2, 0, 4]])
    glass = grid.masked(2)
    with pytest.raises(ValueError, match="masked view"):
        glass.set_solid((0, 0))
    with pytest.raises(ValueError, match="masked view"):
        glass.set_layers((0, 0), 2)
    assert glass.solid.tolist() == [[False, True, False, False]]
    grid.set_layers([(0, 0), (1, 0)], [3, 0])
    grid.set_solid((3, 0))
    assert grid.masked(2) is glass
    assert glass.solid.tolist() == [[True, False, False, False]]
    assert grid.masked(1).solid.tolist() == [[True, False, False, True]]
    # a copy of a view is a map of its own
    copy = pickle.loads(pickle.dumps(glass))
    copy.set_solid((2, 0))
    assert copy.solid.tolist() == [[True, False, True, False]]


def test_masked_views_are_few():
    grid = Grid(np.arange(40, dtype=np.uint32).reshape(4, 10))
    for mask in range(1, 30):
        view = grid.masked(mask)
        assert np.array_equal(view.solid, (grid.layers & mask) != 0)
    masked_keys = [k for k in grid._accel if isinstance(k, tuple) and k[0] == "masked"]
    assert 0 < len(masked_keys) <= 8


# ------------------------------------------------------------- the queries
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_rays_with_a_mask_are_the_rays_on_the_filtered_map(data):
    grid = data.draw(layered_grids())
    mask = data.draw(st.sampled_from(MASKS))
    plain = _filtered(grid, mask)
    origin = data.draw(points(grid))
    direction = data.draw(directions(grid))
    gaps = data.draw(st.sampled_from(["block_if_both", "block_if_either", "open"]))
    _same_hit(
        raycast(grid, origin, direction, mask=mask, diagonal_gaps=gaps),
        raycast(plain, origin, direction, diagonal_gaps=gaps),
    )
    assert raycast_all(grid, origin, direction, 50.0, mask=mask, diagonal_gaps=gaps) == (
        raycast_all(plain, origin, direction, 50.0, diagonal_gaps=gaps)
    )
    end = data.draw(points(grid))
    assert line_of_sight(grid, origin, end, mask=mask, diagonal_gaps=gaps) == line_of_sight(
        plain, origin, end, diagonal_gaps=gaps
    )
    many = raycast_many(grid, [origin, end], [direction, direction], mask=mask)
    alone = raycast_many(plain, [origin, end], [direction, direction])
    for field in ("hit", "distance", "point", "normal", "cell", "inside"):
        assert np.array_equal(getattr(many, field), getattr(alone, field), equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(grid=layered_grids(), mask=st.sampled_from(MASKS), seed=st.integers(0, 2**31 - 1))
def test_scans_and_views_with_a_mask_are_those_of_the_filtered_map(grid, mask, seed):
    plain = _filtered(grid, mask)
    rng = np.random.default_rng(seed)
    rows, cols = grid.shape
    (w, h), (ox, oy) = grid.tile_size, grid.origin
    poses = np.column_stack(
        [ox + rng.uniform(-1, cols + 1, 5) * w, oy + rng.uniform(-1, rows + 1, 5) * h,
         rng.uniform(-4, 4, 5)]
    )  # fmt: skip
    angles = np.linspace(-np.pi, np.pi, 17)
    assert np.array_equal(
        scan_many(grid, poses, angles, 30.0, mask=mask), scan_many(plain, poses, angles, 30.0)
    )
    assert np.array_equal(
        scan(grid, poses[0], angles, 30.0, mask=mask), scan(plain, poses[0], angles, 30.0)
    )
    observed = np.full(len(angles), 2.0)
    model = BeamModel(0.7, 0.1, 0.1, 0.1, sigma_hit=0.5, lambda_short=0.5)
    assert np.array_equal(
        scan_likelihood(grid, poses, angles, observed, max_range=30.0, model=model, mask=mask),
        scan_likelihood(plain, poses, angles, observed, max_range=30.0, model=model),
    )
    cell = (int(rng.integers(0, cols)), int(rng.integers(0, rows)))
    assert np.array_equal(fov(grid, cell, mask=mask), fov(plain, cell))
    assert np.array_equal(fov(grid, cell, 3, light_walls=False, mask=mask),
                          fov(plain, cell, 3, light_walls=False))  # fmt: skip
    cells = [cell, (0, 0)]
    for combine in ("any", "count", "none"):
        assert np.array_equal(fov_many(grid, cells, combine=combine, mask=mask),
                              fov_many(plain, cells, combine=combine))  # fmt: skip
    assert np.array_equal(fov_counts(grid, mask=mask), fov_counts(plain))
    assert np.array_equal(wall_segments(grid, mask=mask), wall_segments(plain))
    scene = VisibilityScene.from_grid(grid, mask=mask)
    assert np.array_equal(scene.segments, VisibilityScene.from_grid(plain).segments)


def test_glass_blocks_bullets_not_sight():
    wall, glass = 1, 2
    grid = Grid([[0, glass, 0, wall]])
    sight, bullets = wall, wall | glass
    assert line_of_sight(grid, (0.5, 0.5), (2.5, 0.5), mask=sight)
    assert not line_of_sight(grid, (0.5, 0.5), (2.5, 0.5), mask=bullets)
    assert raycast(grid, (0.5, 0.5), (1, 0), mask=bullets).cell == (1, 0)
    assert raycast(grid, (0.5, 0.5), (1, 0), mask=sight).cell == (3, 0)
    assert raycast(grid, (0.5, 0.5), (1, 0), mask=4) is None
    assert fov(grid, (0, 0), mask=sight).tolist() == [[True, True, True, True]]
    assert fov(grid, (0, 0), mask=bullets).tolist() == [[True, True, False, False]]


def test_outside_solid_blocks_for_every_mask():
    grid = Grid([[0, 2]], outside="solid")
    hit = raycast(grid, (0.5, 0.5), (1, 0), mask=1)
    assert hit.cell == (2, 0)
    assert raycast(grid, (0.5, 0.5), (-1, 0), mask=0).cell == (-1, 0)


def test_queries_follow_edits_of_the_layers():
    grid = Grid(np.zeros((1, 6), bool))
    assert raycast(grid, (0.5, 0.5), (1, 0), mask=2) is None
    grid.set_layers((3, 0), 2)
    assert raycast(grid, (0.5, 0.5), (1, 0), mask=2).cell == (3, 0)
    assert raycast(grid, (0.5, 0.5), (1, 0), mask=1) is None
    grid.set_layers((3, 0), 1)
    assert raycast(grid, (0.5, 0.5), (1, 0), mask=2) is None
    assert scan_many(grid, [(0.5, 0.5, 0.0)], [0.0], 9.0, mask=1).tolist() == [[2.5]]
    grid.set_solid((3, 0), False)
    assert scan_many(grid, [(0.5, 0.5, 0.0)], [0.0], 9.0, mask=1).tolist() == [[9.0]]


def test_masked_queries_while_another_thread_edits():
    grid = Grid(np.zeros((4, 64), np.uint32), outside="solid")
    stop = threading.Event()

    def edit():
        k = 0
        while not stop.is_set():
            grid.set_layers((10 + k % 40, 1), 2 if k % 2 else 0)
            k += 1

    worker = threading.Thread(target=edit)
    worker.start()
    try:
        for _ in range(200):
            ranges = scan_many(grid, [(0.5, 1.5, 0.0)], [0.0], 100.0, mask=2)[0, 0]
            # a wall on layer 2 somewhere on row 1, or the border at 64
            assert ranges == 63.5 or 9.5 <= ranges <= 49.5
            assert raycast(grid, (0.5, 1.5), (1, 0), mask=1).cell == (64, 1)
    finally:
        stop.set()
        worker.join()


# ------------------------------------------------------------------ tile maps
def _tile_world():
    slope = np.tril(np.ones((4, 4), dtype=bool))
    tiles = TileSet([np.ones((4, 4), bool), slope, np.ones((4, 4), bool)], layers=[1, 2, 6])
    ids = [[-1, 1, 0, -1], [2, -1, 1, 0]]
    return TileMap(ids, tiles, flips=[[0, 1, 0, 0], [0, 0, 2, 0]], outside="empty")


def _tile_filtered(tmap: TileMap, mask: int) -> TileMap:
    ids = tmap.tile_ids.copy()
    present = ids != tmap.empty
    keep = present.copy()
    keep[present] = (tmap.tileset.layers[ids[present]] & mask) != 0
    ids[~keep] = tmap.empty
    flips = np.where(keep, tmap.flips, 0)
    return TileMap(ids, tmap.tileset, tmap.tile_size, tmap.origin, flips, tmap.empty,
                   tmap.outside)  # fmt: skip


def test_tileset_layers_are_checked():
    masks = np.ones((2, 2, 2), bool)
    assert TileSet(masks).layers.tolist() == [1, 1]
    assert TileSet(masks, layers=4).layers.tolist() == [4, 4]
    for bad, error in ((0, ValueError), ([1, -2], ValueError), ([1, 2, 3], ValueError),
                       (0.5, TypeError)):  # fmt: skip
        with pytest.raises(error, match="layers"):
            TileSet(masks, layers=bad)


@pytest.mark.parametrize("mask", [1, 2, 4, 6, 0, ALL_LAYERS])
def test_tile_map_queries_with_a_mask(mask):
    tmap = _tile_world()
    plain = _tile_filtered(tmap, mask)
    assert tmap.layers.tolist() == [[0, 2, 1, 0], [6, 0, 2, 1]]
    rng = np.random.default_rng(mask)
    origins = rng.uniform(-2, 18, (64, 2)) * [1, 0.5]
    angles = rng.uniform(-np.pi, np.pi, 64)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    many, alone = (raycast_many(m, origins, directions, **kw)
                   for m, kw in ((tmap, {"mask": mask}), (plain, {})))  # fmt: skip
    for field in ("hit", "distance", "cell", "pixel", "inside"):
        assert np.array_equal(getattr(many, field), getattr(alone, field))
    for k in range(0, 64, 7):
        _same_hit(raycast(tmap, origins[k], directions[k], mask=mask),
                  raycast(plain, origins[k], directions[k]))  # fmt: skip
    assert np.array_equal(fov(tmap, (0, 0), mask=mask), fov(plain, (0, 0)))
    assert np.array_equal(wall_segments(tmap, mask=mask), wall_segments(plain))
    tmap.set_tile((3, 0), 2)
    plain = _tile_filtered(tmap, mask)
    again = raycast_many(tmap, origins, directions, mask=mask)
    assert np.array_equal(again.distance, raycast_many(plain, origins, directions).distance)


def test_likelihood_field_with_a_mask():
    from tilecast import LikelihoodField

    grid = Grid(np.pad(np.zeros((6, 6), np.uint32), 1, constant_values=1))
    grid.set_layers((3, 3), 2)  # a pillar on layer 2 only
    field = LikelihoodField(grid, sigma_hit=0.5, z_hit=0.9, z_rand=0.1, max_distance=2.0)
    poses = [(2.5, 2.5, 0.0), (4.5, 3.5, 1.0)]
    angles, observed = [0.0, np.pi / 2], [1.0, 2.0]
    results = set()
    for mask in (1, ALL_LAYERS, 1):
        plain = _filtered(grid, mask)
        reference = LikelihoodField(plain, 0.5, 0.9, 0.1, 2.0)
        got = scan_likelihood(grid, poses, angles, observed, max_range=9.0, model=field,
                              mask=mask)  # fmt: skip
        want = scan_likelihood(plain, poses, angles, observed, max_range=9.0, model=reference)
        assert np.array_equal(got, want)
        results.add(tuple(got))
    assert len(results) == 2  # the pillar matters


def test_all_layers_is_exported():
    assert tilecast.ALL_LAYERS == 0xFFFFFFFF


# ------------------------------------------------------------------- loaders
DATA = __import__("pathlib").Path(__file__).parent / "data"

_TMX = """<map orientation="orthogonal" width="4" height="2" tilewidth="2" tileheight="2">
 <tileset firstgid="1" name="t" tilewidth="2" tileheight="2" tilecount="3">
  <tile id="1" class="Water"/>
  <tile id="2"><properties><property name="glass" type="bool" value="true"/></properties></tile>
 </tileset>
 <layer name="Walls" width="4" height="2"><data encoding="csv">1,0,3,0,0,2,0,0</data></layer>
 <layer name="Fences" width="4" height="2"><data encoding="csv">0,0,0,1,0,0,0,1</data></layer>
 <layer name="Decor" width="4" height="2"><data encoding="csv">1,1,1,1,1,1,1,1</data></layer>
</map>"""


def test_tiled_layer_bits_by_layer_class_and_property(tmp_path):
    from tilecast.io import MapLoadError, load_tiled

    path = tmp_path / "level.tmx"
    path.write_text(_TMX)
    bits = {"Walls": 1, "Fences": 8, "Water": 4, "glass": 2}
    grid = load_tiled(path, solid="any", layer_bits=bits)
    # Walls: tile 0 wall (1), tile 2 glass (2), tile 1 water (4); Fences: 8; Decor not read
    assert grid.layers.tolist() == [[1, 0, 2, 8], [0, 4, 0, 8]]
    assert grid.source["layers"] == ["Walls", "Fences"]
    assert line_of_sight(grid, (1, 1), (7, 1), mask=1 | 8)  # sight through glass
    assert not line_of_sight(grid, (1, 1), (7, 1), mask=2)
    tmap = load_tiled(path, layer="Walls", solid="any", result="tilemap",
                      layer_bits={"Water": 4, "glass": 2})  # fmt: skip
    assert tmap.tileset.layers.tolist() == [1, 4, 2]
    assert tmap.layers.tolist() == [[1, 0, 2, 0], [0, 4, 0, 0]]
    with pytest.raises(MapLoadError, match="Lava"):
        load_tiled(path, solid="any", layer_bits={"Lava": 16})
    bad_bits = [({"Walls": 0}, ValueError), ({"Walls": -1}, ValueError),
                ({"Walls": 2.0}, TypeError), ({1: 1}, TypeError), ([1], TypeError)]  # fmt: skip
    for bad, error in bad_bits:
        with pytest.raises(error, match="layer_bits"):
            load_tiled(path, layer_bits=bad)


def test_tiled_layer_bits_on_a_real_map():
    from tilecast.io import load_tiled

    path = DATA / "rs-tiled" / "tiled_group_layers.tmx"
    grid = load_tiled(path, solid="any", layer_bits={"tile-1": 1, "tile-2": 2})
    one = load_tiled(path, "tile-1", solid="any").solid
    two = load_tiled(path, "tile-2", solid="any").solid
    assert np.array_equal(grid.layers, one * 1 + two * 2)
    assert np.array_equal(grid.masked(2).solid, two)


def test_ldtk_value_bits_on_a_real_project():
    from tilecast.io import load_ldtk

    path = DATA / "ldtk" / "AutoLayers_1_basic.ldtk"
    plain = load_ldtk(path)
    layered = load_ldtk(path, value_bits={1: 4})
    assert plain.solid.any()
    assert np.array_equal(layered.layers, plain.solid * 4)
    assert not load_ldtk(path, value_bits={2: 1}).solid.any()  # no value 2 on this level
    with pytest.raises(ValueError, match="not both"):
        load_ldtk(path, solid_values={1}, value_bits={1: 1})
    with pytest.raises(ValueError, match="value_bits"):
        load_ldtk(path, value_bits={1: 0})
    with pytest.raises(TypeError, match="value_bits"):
        load_ldtk(path, value_bits={"walls": 1})


def test_movingai_terrain_bits_on_a_real_map():
    from tilecast.io import load_movingai

    path = DATA / "movingai" / "level1.map"
    plain = load_movingai(path)
    layered = load_movingai(path, terrain_bits={"T": 2, "S": 8})
    assert np.array_equal(layered.solid, plain.solid | (layered.layers == 8))
    assert (layered.layers == 2).sum() == 1 and (layered.layers == 8).sum() == 2
    assert np.array_equal(layered.masked(1).solid, load_movingai(path, passable=".GST").solid)
    with pytest.raises(TypeError, match="terrain_bits"):
        load_movingai(path, terrain_bits={"TT": 2})
    with pytest.raises(ValueError, match="terrain_bits"):
        load_movingai(path, terrain_bits={"T": 2**32})


def test_ros_maps_put_unknown_space_on_layer_two():
    pytest.importorskip("yaml")
    pytest.importorskip("PIL")
    from tilecast.io import load_ros_map

    unknown_cells = 0
    for name in ("tb3_sandbox.yaml", "depot.yaml", "testmap.yaml"):
        path = DATA / "navigation2" / name
        layered = load_ros_map(path)
        free_unknown = load_ros_map(path, unknown="free")
        assert set(np.unique(layered.layers).tolist()) <= {0, 1, 2}
        assert np.array_equal(layered.masked(1).solid, free_unknown.solid)
        assert np.array_equal(layered.solid, free_unknown.solid | (layered.layers == 2))
        unknown_cells += int((layered.layers == 2).sum())
    assert unknown_cells > 0  # the maps do have unknown space


def test_layer_bits_are_kept_small_and_widened_by_edits():
    grid = Grid(np.array([[0, 2, 1]], dtype=np.int64))
    assert grid.layers.dtype == np.uint32 and grid.layers.tolist() == [[0, 2, 1]]
    grid.set_layers((0, 0), 2**20)  # beyond a byte: the bits widen, nothing is lost
    assert grid.layers.tolist() == [[2**20, 2, 1]]
    assert grid.masked(2**20).solid.tolist() == [[True, False, False]]
    grid.set_layers((2, 0), 2**31)
    assert grid.layers.tolist() == [[2**20, 2, 2**31]]
    assert grid.masked(2**31 | 2).solid.tolist() == [[False, True, True]]
