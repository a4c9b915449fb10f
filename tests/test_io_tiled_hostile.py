"""Tiled maps as users bring them (issue 15) and as strangers send them (issue 16)."""

import base64
import json
import struct
import zlib

import numpy as np
import pytest

from tilecast import Grid, TileMap
from tilecast.io import Limits, MapLoadError, load_tiled


def tmx(body, *, tileset=None, attrs='width="4" height="2"'):
    tileset = (
        '<tileset firstgid="1" name="t" tilewidth="2" tileheight="2"/>'
        if tileset is None
        else tileset
    )
    return (
        f'<?xml version="1.0"?><map orientation="orthogonal" {attrs} tilewidth="2" '
        f'tileheight="2">{tileset}{body}</map>'
    )


def layer(name, csv, extra=""):
    return f'<layer name="{name}"{extra}><data encoding="csv">{csv}</data></layer>'


def write(tmp_path, text, name="m.tmx"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_tileset_without_tilecount_loads(tmp_path):
    # older Tiled files have no tilecount: GIDs belong to the tileset with the largest
    # firstgid not above them, as in Tiled
    path = write(tmp_path, tmx(layer("walls", "1,0,5,0,0,0,0,9")))
    np.testing.assert_array_equal(load_tiled(path).solid, [[1, 0, 1, 0], [0, 0, 0, 1]])
    sized = '<tileset firstgid="1" name="t" tilewidth="2" tileheight="2"><image source="x.png" width="4" height="2"/></tileset>'  # noqa: E501
    path = write(tmp_path, tmx(layer("walls", "1,0,3,0,0,0,0,2"), tileset=sized))
    with pytest.raises(MapLoadError, match="GID 3 is not in any tileset"):
        load_tiled(path)  # the image holds 2 tiles


def test_default_layer_choice(tmp_path, caplog):
    ground, walls = layer("Ground", "1,1,1,1,1,1,1,1"), layer("Walls", "0,1,0,0,0,0,1,0")
    path = write(tmp_path, tmx(ground + walls))
    with caplog.at_level("INFO", logger="tilecast"):
        grid = load_tiled(path)
    np.testing.assert_array_equal(grid.solid, [[0, 1, 0, 0], [0, 0, 1, 0]])
    assert "'Walls'" in caplog.text and "named like a collision layer" in caplog.text
    marked = layer(
        "Deco",
        "0,0,0,1,0,0,0,0",
        '><properties><property name="collides" value="true"/></properties',
    )
    path = write(tmp_path, tmx(ground + marked.replace('"><', '"><', 1)))
    # two unmarked layers and no name: a clear error that lists them
    path = write(tmp_path, tmx(ground + layer("Deco", "0,0,0,1,0,0,0,0")))
    with pytest.raises(MapLoadError, match=r"cannot tell which layer.*'Ground', 'Deco'"):
        load_tiled(path)
    assert load_tiled(path, layer="Deco").solid.sum() == 1


def test_layer_property_marks_the_walls(tmp_path):
    props = '<properties><property name="collides" type="bool" value="true"/></properties>'
    body = layer("Ground", "1,1,1,1,1,1,1,1") + (
        f'<layer name="Deco">{props}<data encoding="csv">0,0,0,1,0,0,0,0</data></layer>'
    )
    grid = load_tiled(write(tmp_path, tmx(body)))
    np.testing.assert_array_equal(grid.solid, [[0, 0, 0, 1], [0, 0, 0, 0]])


def test_collision_object_layer(tmp_path):
    objects = (
        '<objectgroup name="Collision"><object x="2" y="0" width="4" height="2"/>'
        '<object x="0" y="2"><polygon points="0,0 2,0 0,2"/></object></objectgroup>'
    )
    grid = load_tiled(write(tmp_path, tmx(layer("Ground", "1,1,1,1,1,1,1,1") + objects)))
    np.testing.assert_array_equal(grid.solid, [[0, 1, 1, 0], [1, 0, 0, 0]])


def test_duplicate_layer_names(tmp_path):
    twice = layer("walls", "1,0,0,0,0,0,0,0") + layer("walls", "0,1,0,0,0,0,0,0")
    body = twice + '<group name="g">' + layer("rocks", "0,0,1,0,0,0,0,0") + "</group>"
    path = write(tmp_path, tmx(body))
    with pytest.raises(MapLoadError, match="2 layers are named 'walls'"):
        load_tiled(path, layer="walls", result="tilemap")
    assert load_tiled(path, layer="g/rocks").solid[0, 2]
    assert load_tiled(path, layer="rocks").solid[0, 2]


def test_infinite_map_chunks(tmp_path):
    raw = struct.pack("<4I", 1, 0, 0, 1)
    data = base64.b64encode(zlib.compress(raw)).decode()
    body = (
        '<layer name="walls"><data encoding="base64" compression="zlib">'
        f'<chunk x="-2" y="0" width="2" height="2">{data}</chunk>'
        '<chunk x="0" y="-1" width="2" height="1">'
        + base64.b64encode(zlib.compress(struct.pack("<2I", 0, 1))).decode()
        + "</chunk>"
        "</data></layer>"
    )
    path = write(tmp_path, tmx(body, attrs='width="4" height="2" infinite="1"'))
    grid = load_tiled(path)
    assert grid.origin == (-4.0, -2.0) and grid.shape == (3, 4)
    np.testing.assert_array_equal(grid.solid, [[0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]])


def test_zstd_needs_the_optional_package(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "zstandard", None)
    body = '<layer name="w"><data encoding="base64" compression="zstd">KLUv/SAgAQAA</data></layer>'
    with pytest.raises(MapLoadError, match="pip install zstandard"):
        load_tiled(write(tmp_path, tmx(body)))


def test_colour_key_and_image_collection(tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image

    rgb = np.full((2, 4, 3), (255, 0, 255), dtype=np.uint8)
    rgb[0, 0] = (10, 20, 30)  # tile 0: one opaque pixel; tile 1: all key colour
    Image.fromarray(rgb).save(tmp_path / "keyed.png")
    tileset = (
        '<tileset firstgid="1" name="k" tilewidth="2" tileheight="2" tilecount="2">'
        '<image source="keyed.png" trans="ff00ff" width="4" height="2"/></tileset>'
    )
    path = write(tmp_path, tmx(layer("walls", "1,2,0,0,0,0,2,1"), tileset=tileset))
    np.testing.assert_array_equal(
        load_tiled(path, solid="alpha").solid, [[1, 0, 0, 0], [0, 0, 0, 1]]
    )
    tmap = load_tiled(path, solid="alpha", result="tilemap")
    assert isinstance(tmap, TileMap) and tmap.tileset.masks[0].sum() == 1
    rgba = np.zeros((4, 4, 4), dtype=np.uint8)
    rgba[0, 0, 3] = 255
    Image.fromarray(rgba, "RGBA").save(tmp_path / "big.png")
    Image.fromarray(np.zeros((2, 2, 4), dtype=np.uint8), "RGBA").save(tmp_path / "clear.png")
    collection = (
        '<tileset firstgid="1" name="c" tilewidth="4" tileheight="4" tilecount="2">'
        '<tile id="0"><image source="big.png" width="4" height="4"/></tile>'
        '<tile id="3"><image source="clear.png" width="2" height="2"/></tile></tileset>'
    )
    path = write(tmp_path, tmx(layer("walls", "1,4,0,0,0,0,0,1"), tileset=collection))
    grid = load_tiled(path, solid="alpha")  # tiles of mixed sizes: fine for a Grid
    np.testing.assert_array_equal(grid.solid, [[1, 0, 0, 0], [0, 0, 0, 1]])
    with pytest.raises(MapLoadError, match="a TileMap needs them equal"):
        load_tiled(path, solid="alpha", result="tilemap")


def test_root_refuses_references_outside(tmp_path):
    inner = tmp_path / "maps"
    inner.mkdir()
    (tmp_path / "secret.tsx").write_text('<tileset name="s" tilewidth="2" tileheight="2"/>')
    text = tmx(
        layer("walls", "1,0,0,0,0,0,0,0"), tileset='<tileset firstgid="1" source="../secret.tsx"/>'
    )
    path = write(inner, text)
    assert load_tiled(path).solid.sum() == 1
    with pytest.raises(MapLoadError, match=r"tileset '\.\./secret\.tsx' lies outside the root"):
        load_tiled(path, root=inner)
    with pytest.raises(MapLoadError, match="outside the root"):
        load_tiled(path, root=tmp_path / "other")  # the map itself


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        (tmx(layer("w", "0"), attrs='width="100000" height="100000"'), "max_cells"),
        (
            tmx(
                layer("w", "1,0,0,0,0,0,0,0"),
                tileset='<tileset firstgid="1" name="t" tilewidth="2" tileheight="2" '
                'tilecount="8000000"/>',
            ),
            "max_tiles",
        ),
        (tmx(layer("w", "100000000,0,0,0,0,0,0,0")), "max_tile_id"),
        ("<map>" * 200 + "</map>" * 200, "max_depth"),
    ],
)
def test_limits_name_themselves(tmp_path, text, limit):
    path = write(tmp_path, text)
    with pytest.raises(MapLoadError, match=f"{limit}=.*limits=Limits") as info:
        load_tiled(path)
    assert str(path) in str(info.value)


def test_raised_limits_and_bombs(tmp_path):
    path = write(tmp_path, tmx(layer("walls", "1,0,0,0,0,0,0,0")))
    with pytest.raises(MapLoadError, match="max_cells=4"):
        load_tiled(path, limits=Limits(max_cells=4))
    assert load_tiled(path, limits=Limits(max_cells=8)).shape == (2, 4)
    bomb = base64.b64encode(zlib.compress(b"\0" * 10_000_000)).decode()
    body = f'<layer name="w"><data encoding="base64" compression="zlib">{bomb}</data></layer>'
    with pytest.raises(MapLoadError, match="more than the 32 bytes expected"):
        load_tiled(write(tmp_path, tmx(body)))
    laughs = '<?xml version="1.0"?><!DOCTYPE map [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><map/>'
    with pytest.raises(MapLoadError, match="entity"):
        load_tiled(write(tmp_path, laughs))
    deep = write(tmp_path, "[" * 50_000 + "]" * 50_000, "deep.tmj")
    with pytest.raises(MapLoadError, match="max_depth"):
        load_tiled(deep)
    odd = {"type": "map", "width": 2, "height": 2, "tilewidth": 2, "tileheight": 2,
           "tilesets": [1], "layers": []}  # fmt: skip
    with pytest.raises(MapLoadError, match="a tileset is not a JSON object"):
        load_tiled(write(tmp_path, json.dumps(odd), "odd.tmj"))


def test_grid_of_a_map_with_no_tilesets_and_empty_layers(tmp_path):
    grid = load_tiled(write(tmp_path, tmx(layer("walls", "0,0,0,0,0,0,0,0"), tileset="")))
    assert isinstance(grid, Grid) and grid.solid.sum() == 0
