import json

import numpy as np
import pytest

from tilecast import Grid, TileMap, raycast
from tilecast.io import MapLoadError, load_ldtk, load_map

INTGRID = {
    "__identifier": "Collisions",
    "__type": "IntGrid",
    "__cWid": 4,
    "__cHei": 2,
    "__gridSize": 8,
    "intGridCsv": [1, 0, 0, 2, 0, 3, 0, 1],
}
TILES = {
    "__identifier": "Decor",
    "__type": "Tiles",
    "__cWid": 4,
    "__cHei": 2,
    "__gridSize": 4,
    "__tilesetDefUid": 7,
    "gridTiles": [
        {"px": [0, 0], "src": [0, 0], "f": 0, "t": 0},
        {"px": [4, 0], "src": [0, 0], "f": 1, "t": 0},
        {"px": [8, 4], "src": [4, 0], "f": 0, "t": 1},
        {"px": [12, 4], "src": [0, 0], "f": 3, "t": 0},
    ],
}
TILESET = {
    "uid": 7,
    "identifier": "Blocks",
    "relPath": "blocks.png",
    "tileGridSize": 4,
    "__cWid": 2,
    "__cHei": 1,
    "spacing": 0,
    "padding": 0,
    "enumTags": [{"enumValueId": "Solid", "tileIds": [1]}],
}


def project(tmp_path, layers=None, levels=None):
    doc = {
        "defs": {"tilesets": [TILESET]},
        "levels": levels
        or [{"identifier": "Level_0", "layerInstances": layers or [TILES, INTGRID]}],
    }
    path = tmp_path / "game.ldtk"
    path.write_text(json.dumps(doc))
    return path


def test_intgrid_default_and_chosen_values(tmp_path):
    path = project(tmp_path)
    grid = load_ldtk(path)  # the first IntGrid layer, though a tile layer comes first
    assert isinstance(grid, Grid) and grid.tile_size == (8.0, 8.0)
    np.testing.assert_array_equal(grid.solid, [[1, 0, 0, 1], [0, 1, 0, 1]])
    only = load_ldtk(path, "Level_0", "Collisions", solid_values={1})
    np.testing.assert_array_equal(only.solid, [[1, 0, 0, 0], [0, 0, 0, 1]])
    assert load_map(path).shape == (2, 4)
    assert raycast(grid, (12.0, 4.0), (1.0, 0.0)).point == (24.0, 4.0)


def test_tile_layer_with_image_alpha_and_flips(tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image

    rgba = np.zeros((4, 8, 4), dtype=np.uint8)
    rgba[:, 0, 3] = 255  # tile 0: left column opaque
    rgba[:, 4:8, 3] = 255  # tile 1: all opaque
    Image.fromarray(rgba, "RGBA").save(tmp_path / "blocks.png")
    tmap = load_ldtk(project(tmp_path), layer="Decor")
    assert isinstance(tmap, TileMap)
    np.testing.assert_array_equal(tmap.tile_ids, [[0, 0, -1, -1], [-1, -1, 1, 0]])
    np.testing.assert_array_equal(tmap.flips, [[0, 1, 0, 0], [0, 0, 0, 3]])
    pixels = tmap.to_pixel_grid().solid
    assert pixels[0:4, 0].all() and not pixels[0:4, 1:4].any()  # tile 0 as drawn
    assert pixels[0:4, 7].all() and not pixels[0:4, 4:7].any()  # mirrored in x
    assert pixels[4:8, 15].all() and not pixels[4:8, 12:15].any()  # mirrored in x and y
    hit = raycast(tmap, (1.5, 1.5), (1.0, 0.0))
    assert hit.point == (7.0, 1.5) and hit.cell == (1, 0)


def test_tile_layer_by_tag_or_ids(tmp_path):
    path = project(tmp_path)
    by_tag = load_ldtk(path, layer="Decor", solid_tag="Solid")
    np.testing.assert_array_equal(by_tag.to_grid().solid, [[0, 0, 0, 0], [0, 0, 1, 0]])
    by_ids = load_ldtk(path, layer="Decor", solid_tiles={0})
    np.testing.assert_array_equal(by_ids.to_grid().solid, [[1, 1, 0, 0], [0, 0, 0, 1]])
    with pytest.raises(MapLoadError, match="no enum tag 'Lava'"):
        load_ldtk(path, layer="Decor", solid_tag="Lava")
    with pytest.raises(MapLoadError, match=r"blocks\.png not found"):
        load_ldtk(path, layer="Decor")


def test_external_levels(tmp_path):
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "Level_1.ldtkl").write_text(
        json.dumps({"identifier": "Level_1", "layerInstances": [INTGRID]})
    )
    levels = [
        {"identifier": "Level_0", "layerInstances": [TILES]},
        {"identifier": "Level_1", "layerInstances": None, "externalRelPath": "game/Level_1.ldtkl"},
    ]
    path = project(tmp_path, levels=levels)
    assert load_ldtk(path, "Level_1").solid.sum() == 4
    assert load_ldtk(path, 1).solid.sum() == 4
    (tmp_path / "game" / "Level_1.ldtkl").unlink()
    with pytest.raises(MapLoadError, match="external level file"):
        load_ldtk(path, 1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"intGridCsv": [1, 0]}, "holds 2 values, expected 8"),
        ({"intGridCsv": "1,0"}, "intGridCsv"),
        ({"__cWid": None}, "'__cWid'"),
        ({"__cWid": 0}, "empty layer"),
        ({"__type": "Entities"}, "holds no tiles"),
    ],
)
def test_malformed_layers(tmp_path, change, message):
    path = project(tmp_path, layers=[{**INTGRID, **change}])
    with pytest.raises(MapLoadError) as info:
        load_ldtk(path, layer="Collisions")
    assert str(path) in str(info.value) and message in str(info.value)


@pytest.mark.parametrize(
    ("tile", "message"),
    [
        ({"px": [16, 0], "t": 0}, "off the 4-px grid"),
        ({"px": [0, -4], "t": 0}, "off the 4-px grid"),
        ({"px": [0, 0], "t": 5}, "bad tile id 5"),
        ({"px": [0, 0], "t": 0, "f": 4}, "flip bits 4"),
        ({"t": 0}, "malformed tile entry"),
    ],
)
def test_malformed_tiles(tmp_path, tile, message):
    path = project(tmp_path, layers=[{**TILES, "gridTiles": [tile]}])
    with pytest.raises(MapLoadError, match=message):
        load_ldtk(path, layer="Decor", solid_tiles={0})


def test_missing_things(tmp_path):
    path = project(tmp_path)
    with pytest.raises(MapLoadError, match="no level 'Boss'"):
        load_ldtk(path, "Boss")
    with pytest.raises(MapLoadError, match="out of range"):
        load_ldtk(path, 3)
    with pytest.raises(MapLoadError, match="no layer 'Sky'"):
        load_ldtk(path, layer="Sky")
    no_grid = project(tmp_path, layers=[TILES])
    with pytest.raises(MapLoadError, match="no IntGrid layer"):
        load_ldtk(no_grid)
    bad_uid = project(tmp_path, layers=[{**TILES, "__tilesetDefUid": 99}])
    with pytest.raises(MapLoadError, match="uid 99"):
        load_ldtk(bad_uid, layer="Decor")
    (tmp_path / "broken.ldtk").write_text('{"levels": [')
    with pytest.raises(MapLoadError, match="malformed JSON"):
        load_ldtk(tmp_path / "broken.ldtk")
    (tmp_path / "other.ldtk").write_text('{"defs": {}}')
    with pytest.raises(MapLoadError, match="no 'levels'"):
        load_ldtk(tmp_path / "other.ldtk")
    with pytest.raises(ValueError, match="not both"):
        load_ldtk(path, layer="Decor", solid_tiles={0}, solid_tag="Solid")
    with pytest.raises(TypeError, match="level"):
        load_ldtk(path, 1.5)


def test_free_placed_tiles_become_a_pixel_grid(tmp_path):
    # issue 15: tiles placed off the cell grid are read (drawn at their pixel), not refused
    tiles = [{"px": [2, 0], "t": 0, "f": 0}, {"px": [8, 5], "t": 0, "f": 1}]
    path = project(tmp_path, layers=[{**TILES, "gridTiles": tiles}])
    grid = load_ldtk(path, layer="Decor", solid_tiles={0})
    assert isinstance(grid, Grid) and grid.shape == (8, 16) and grid.tile_size == (1.0, 1.0)
    expected = np.zeros((8, 16), bool)
    expected[0:4, 2:6] = True
    expected[5:8, 8:12] = True  # the second tile is cut by the level's bottom edge
    np.testing.assert_array_equal(grid.solid, expected)


def test_multi_world_projects_and_pre_1_0_int_grids(tmp_path):
    old = {k: v for k, v in INTGRID.items() if k != "intGridCsv"}
    old["intGrid"] = [{"coordId": 0, "v": 0}, {"coordId": 5, "v": 1}, {"coordId": 7, "v": 2}]
    doc = {
        "defs": {"tilesets": [TILESET]},
        "levels": [],
        "worlds": [
            {"identifier": "W1", "levels": [{"identifier": "A", "layerInstances": [INTGRID]}]},
            {"identifier": "W2", "levels": [{"identifier": "B", "layerInstances": [old]}]},
        ],
    }
    path = tmp_path / "worlds.ldtk"
    path.write_text(json.dumps(doc))
    np.testing.assert_array_equal(load_ldtk(path).solid, [[1, 0, 0, 1], [0, 1, 0, 1]])
    grid = load_ldtk(path, "B")
    np.testing.assert_array_equal(grid.solid, [[1, 0, 0, 0], [0, 1, 0, 1]])
    np.testing.assert_array_equal(
        load_ldtk(path, 1, solid_values={3}).solid, [[0, 0, 0, 0], [0, 0, 0, 1]]
    )


def test_options_for_the_other_kind_of_layer_are_refused(tmp_path):
    # issue 15: solid_tiles/solid_tag on an IntGrid layer used to be ignored silently
    intgrid_def = {
        "uid": 3,
        "identifier": "Collisions",
        "__type": "IntGrid",
        "intGridValues": [{"value": 1, "identifier": "wall"}, {"value": 2, "identifier": None}],
    }
    doc = {
        "defs": {"tilesets": [TILESET], "layers": [intgrid_def]},
        "levels": [{"identifier": "L", "layerInstances": [{**INTGRID, "layerDefUid": 3}]}],
    }
    path = tmp_path / "game.ldtk"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="solid_tiles= applies to Tiles and AutoLayer") as info:
        load_ldtk(path, solid_tiles={1})
    message = str(info.value)
    assert "layer 'Collisions'" in message and "solid_values=" in message
    assert "1 'wall', 2 None" in message and str(path) in message
    with pytest.raises(ValueError, match="solid_tag= applies to Tiles and AutoLayer"):
        load_ldtk(path, layer="Collisions", solid_tag="Solid")
    # and the other way round: solid_values on a tile layer
    tiles = project(tmp_path)
    with pytest.raises(ValueError, match="solid_values= applies to IntGrid layers") as info:
        load_ldtk(tiles, layer="Decor", solid_values={1})
    assert "solid_tiles=" in str(info.value) and "solid_tag=" in str(info.value)
    # what does apply still works on the same files
    np.testing.assert_array_equal(
        load_ldtk(path, solid_values={2}).solid, np.array(INTGRID["intGridCsv"]).reshape(2, 4) == 2
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"solid_values": 1}, TypeError, "solid_values"),
        ({"solid_values": "12"}, TypeError, "solid_values"),
        ({"solid_values": {1.5}}, TypeError, "solid_values"),
        ({"solid_values": {True}}, TypeError, "solid_values"),
        ({"solid_tiles": {"0"}, "layer": "Decor"}, TypeError, "solid_tiles"),
        ({"solid_tag": 3, "layer": "Decor"}, TypeError, "solid_tag"),
    ],
)
def test_bad_solid_options_name_the_argument(tmp_path, kwargs, error, name):
    with pytest.raises(error, match=name):
        load_ldtk(project(tmp_path), **kwargs)


def test_real_sample_names_its_intgrid_values():
    from pathlib import Path

    path = Path(__file__).parent / "data" / "ldtk" / "AutoLayers_1_basic.ldtk"
    definitions = json.loads(path.read_text())["defs"]["layers"]
    values = [v for d in definitions for v in d.get("intGridValues", [])]
    assert [(v["value"], v["identifier"]) for v in values] == [(1, "walls")]
    with pytest.raises(ValueError, match="1 'walls'"):
        load_ldtk(path, solid_tiles={0})
