import base64
import gzip
import json
import struct
import zlib

import numpy as np
import pytest

from tilecast import Grid, TileMap, raycast
from tilecast.io import MapLoadError, load_map, load_tiled
from tilecast.io.tiled import decode_gids

H, V, D, X = 0x80000000, 0x40000000, 0x20000000, 0x10000000
# 4 x 3 map, tileset of 3 tiles of 4x4 pixels: tile 1 (gid 2) is solid by property,
# tile 2 (gid 3) has a collision rectangle covering its left half.
GIDS = [
    [1, 2, 0, 3 | H],
    [2 | V, 0, 3 | D | X, 1],
    [0, 1 | H | V | D, 2, 3],
]
TILESET_XML = (
    '<tileset firstgid="1" name="blocks" tilewidth="4" tileheight="4" tilecount="3">'
    '<tile id="1"><properties><property name="solid" type="bool" value="true"/></properties>'
    "</tile>"
    '<tile id="2"><objectgroup><object id="1" x="0" y="0" width="2" height="4"/>'
    "</objectgroup></tile></tileset>"
)


def flat():
    return [g for row in GIDS for g in row]


def encode(encoding, compression=None):
    if encoding == "csv":
        return ",\n".join(str(g) for g in flat())
    raw = struct.pack("<12I", *flat())
    if compression == "zlib":
        raw = zlib.compress(raw)
    elif compression == "gzip":
        raw = gzip.compress(raw)
    elif compression == "zstd":
        zstandard = pytest.importorskip("zstandard")
        raw = zstandard.ZstdCompressor().compress(raw)
    return base64.b64encode(raw).decode()


def tmx(data_xml, tileset=TILESET_XML, extra_layers=""):
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<map version="1.10" orientation="orthogonal" width="4" height="3" '
        f'tilewidth="4" tileheight="4" infinite="0">{tileset}'
        f'<layer id="1" name="walls" width="4" height="3">{data_xml}</layer>'
        f"{extra_layers}</map>"
    )


def write(tmp_path, text, name="map.tmx"):
    path = tmp_path / name
    path.write_text(text)
    return path


EXPECTED_IDS = np.array([[0, 1, -1, 2], [1, -1, 2, 0], [-1, 0, 1, 2]])
EXPECTED_FLIPS = np.array([[0, 0, 0, 1], [2, 0, 4, 0], [0, 7, 0, 0]])


@pytest.mark.parametrize(
    ("encoding", "compression"),
    [
        ("csv", None),
        ("base64", None),
        ("base64", "zlib"),
        ("base64", "gzip"),
        ("base64", "zstd"),
        ("xml", None),
    ],
)
def test_every_encoding_gives_the_same_tilemap(tmp_path, encoding, compression):
    if encoding == "xml":
        data = "<data>" + "".join(f'<tile gid="{g}"/>' for g in flat()) + "</data>"
    else:
        attrs = f' encoding="{encoding}"' + (f' compression="{compression}"' if compression else "")
        data = f"<data{attrs}>{encode(encoding, compression)}</data>"
    path = write(tmp_path, tmx(data))
    tmap = load_tiled(path, result="tilemap")
    assert isinstance(tmap, TileMap)
    np.testing.assert_array_equal(tmap.tile_ids, EXPECTED_IDS)
    np.testing.assert_array_equal(tmap.flips, EXPECTED_FLIPS)
    assert tmap.tile_size == (4.0, 4.0)
    assert tmap.source == {
        "file": str(path),
        "layers": ["walls"],
        "rule": tmap.source["rule"],
        "solid": tmap.source["solid"],
    }
    grid = load_tiled(path)
    assert grid.source is not None and grid.source["layers"] == ["walls"]
    assert isinstance(grid.source["rule"], str) and grid.source["rule"]


def test_all_four_flag_bits_are_masked_off():
    raw = np.array([5 | H | V | D | X, 7 | X, 9 | D, 0], dtype=np.uint32)
    ids, flips = decode_gids(raw)
    assert ids.tolist() == [5, 7, 9, 0]
    assert flips.tolist() == [7, 0, 4, 0]


def test_grid_solidity_by_property_and_collision(tmp_path):
    path = write(tmp_path, tmx(f'<data encoding="csv">{encode("csv")}</data>'))
    # "auto" picks the property: only gid 2 (tile 1) is solid
    grid = load_tiled(path)
    assert isinstance(grid, Grid) and grid.tile_size == (4.0, 4.0)
    np.testing.assert_array_equal(grid.solid, EXPECTED_IDS == 1)
    collision = load_tiled(path, solid="collision")
    np.testing.assert_array_equal(collision.solid, EXPECTED_IDS == 2)
    np.testing.assert_array_equal(load_tiled(path, solid="any").solid, EXPECTED_IDS >= 0)
    np.testing.assert_array_equal(
        load_tiled(path, solid={1, 3}).solid, np.isin(EXPECTED_IDS, [0, 2])
    )


def test_collision_masks_follow_flips_in_the_tilemap(tmp_path):
    path = write(tmp_path, tmx(f'<data encoding="csv">{encode("csv")}</data>'))
    tmap = load_tiled(path, solid="collision", result="tilemap")
    left_half = np.zeros((4, 4), bool)
    left_half[:, :2] = True
    np.testing.assert_array_equal(tmap.tileset.masks[2], left_half)
    pixels = tmap.to_pixel_grid().solid
    # cell (3, 0): tile 2 flipped horizontally -> right half solid
    np.testing.assert_array_equal(pixels[0:4, 12:16], left_half[:, ::-1])
    # cell (2, 1): flipped diagonally (transpose) -> top half solid
    np.testing.assert_array_equal(pixels[4:8, 8:12], left_half.T)
    # a ray along row y = 1.5 from the left enters cell (3, 0) and hits its right half at x = 14
    hit = raycast(tmap, (8.5, 1.5), (1.0, 0.0))
    assert hit.point == (14.0, 1.5) and hit.cell == (3, 0) and hit.pixel == (2, 1)


def test_json_map_with_external_tilesets(tmp_path):
    (tmp_path / "blocks.tsx").write_text(TILESET_XML.replace(' firstgid="1"', ""))
    tsj = {
        "name": "more",
        "tilewidth": 4,
        "tileheight": 4,
        "tilecount": 2,
        "tiles": [{"id": 0, "properties": [{"name": "solid", "type": "bool", "value": True}]}],
    }
    (tmp_path / "more.tsj").write_text(json.dumps(tsj))
    ground = [0] * 12
    ground[5] = 4  # gid 4: tile 0 of "more", solid
    doc = {
        "type": "map",
        "orientation": "orthogonal",
        "width": 4,
        "height": 3,
        "tilewidth": 4,
        "tileheight": 4,
        "infinite": False,
        "tilesets": [
            {"firstgid": 1, "source": "blocks.tsx"},
            {"firstgid": 4, "source": "more.tsj"},
        ],
        "layers": [
            {"type": "objectgroup", "name": "things", "objects": []},
            {
                "type": "group",
                "name": "g",
                "layers": [
                    {"type": "tilelayer", "name": "walls", "width": 4, "height": 3, "data": flat()},
                ],
            },
            {
                "type": "tilelayer",
                "name": "ground",
                "width": 4,
                "height": 3,
                "encoding": "base64",
                "compression": "zlib",
                "data": base64.b64encode(zlib.compress(struct.pack("<12I", *ground))).decode(),
            },
        ],
    }
    path = write(tmp_path, json.dumps(doc), "map.tmj")
    walls = load_tiled(path)
    np.testing.assert_array_equal(walls.solid, EXPECTED_IDS == 1)
    ground_grid = load_tiled(path, layer="ground")
    assert ground_grid.solid.sum() == 1 and ground_grid.solid[1, 1]
    both = load_tiled(path, layer=["walls", "ground"])
    np.testing.assert_array_equal(both.solid, walls.solid | ground_grid.solid)
    assert load_map(path).shape == (3, 4)
    assert load_tiled(path, layer="ground", result="tilemap").tile_ids[1, 1] == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (tmx('<data encoding="csv">1,2,3'), "malformed XML"),
        (tmx('<data encoding="hex">00</data>'), "unknown tile data encoding 'hex'"),
        (tmx('<data encoding="base64" compression="zstd">AAAA</data>'), "zstd"),
        (tmx('<data encoding="base64" compression="lz4">AAAA</data>'), "unknown compression"),
        (tmx('<data encoding="base64" compression="zlib">AAAA</data>'), "corrupt zlib"),
        (tmx('<data encoding="base64">AAAA</data>'), "holds 3 bytes, expected 48"),
        (tmx('<data encoding="csv">1,2,3</data>'), "holds 3 tiles, expected 12"),
        (tmx('<data encoding="csv">1,x,3</data>'), "not a number"),
        (tmx('<data encoding="csv">' + ",".join(["9"] * 12) + "</data>"), "GID 9"),
        (tmx(f'<data encoding="csv">{encode("csv")}</data>', tileset=""), "no tilesets"),
        (
            tmx("<data/>", tileset='<tileset firstgid="1" source="gone.tsx"/>'),
            "tileset 'gone.tsx' not found",
        ),
        (tmx("").replace('orientation="orthogonal"', 'orientation="isometric"'), "orthogonal"),
        (tmx("").replace('infinite="0"', 'infinite="1"'), "infinite"),
        ("<tileset/>", "not a Tiled map"),
        ('{"type": "map"}', "not a Tiled JSON map"),
        ('{"layers": [], "width": 2', "malformed JSON"),
    ],
)
def test_malformed_maps_name_the_file_and_problem(tmp_path, text, message):
    name = "map.tmj" if text.lstrip().startswith("{") else "map.tmx"
    path = write(tmp_path, text, name)
    with pytest.raises(MapLoadError) as info:
        load_tiled(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_layer_selection_errors(tmp_path):
    path = write(tmp_path, tmx(f'<data encoding="csv">{encode("csv")}</data>'))
    with pytest.raises(MapLoadError, match="no tile layer 'roof'"):
        load_tiled(path, layer="roof")
    with pytest.raises(ValueError, match="one layer"):
        load_tiled(path, layer=["walls", "walls"], result="tilemap")
    with pytest.raises(ValueError, match="result"):
        load_tiled(path, result="picture")
    with pytest.raises(ValueError, match="solid"):
        load_tiled(path, solid="sometimes")
    with pytest.raises(TypeError, match="solid"):
        load_tiled(path, solid=[1.5])
    with pytest.raises(MapLoadError, match="cannot read"):
        load_tiled(tmp_path / "missing.tmx")


def test_alpha_solidity_from_the_tileset_image(tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image

    rgba = np.zeros((4, 12, 4), dtype=np.uint8)
    rgba[0, 0:4, 3] = 255  # tile 0: top row opaque
    rgba[:, 8:12, 3] = 255  # tile 2: all opaque
    Image.fromarray(rgba, "RGBA").save(tmp_path / "tiles.png")
    tileset = (
        '<tileset firstgid="1" name="img" tilewidth="4" tileheight="4" tilecount="3" columns="3">'
        '<image source="tiles.png" width="12" height="4"/></tileset>'
    )
    path = write(tmp_path, tmx(f'<data encoding="csv">{encode("csv")}</data>', tileset=tileset))
    tmap = load_tiled(path, solid="alpha", result="tilemap")
    assert tmap.tileset.masks[0][0].all() and not tmap.tileset.masks[0][1:].any()
    assert not tmap.tileset.masks[1].any() and tmap.tileset.masks[2].all()
    np.testing.assert_array_equal(
        load_tiled(path, solid="alpha").solid, np.isin(EXPECTED_IDS, [0, 2])
    )
    (tmp_path / "tiles.png").unlink()
    with pytest.raises(MapLoadError, match=r"tiles\.png not found"):
        load_tiled(path, solid="alpha")


def test_a_default_layer_that_fills_every_cell_is_warned_about(tmp_path, caplog):
    # issue 15: Tiled's examples/desert.tmx has one layer, the ground: read by the
    # "only visible tile layer" rule, every cell is a wall; the loader says so
    tmx = (
        '<map orientation="orthogonal" width="3" height="2" tilewidth="8" tileheight="8">'
        '<tileset firstgid="1" name="t" tilewidth="8" tileheight="8" tilecount="4"/>'
        '<layer name="Ground" width="3" height="2"><data encoding="csv">1,2,1,3,1,4</data>'
        "</layer></map>"
    )
    path = tmp_path / "desert.tmx"
    path.write_text(tmx)
    with caplog.at_level("WARNING", logger="tilecast"):
        grid = load_tiled(path)
    assert grid.solid.all()
    warned = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "every cell is solid" in warned[0].getMessage()
    assert "'Ground'" in warned[0].getMessage() and "layer='name'" in warned[0].getMessage()
    caplog.clear()
    with caplog.at_level("WARNING", logger="tilecast"):
        chosen = load_tiled(path, layer="Ground")  # the caller's own choice: no warning
    assert chosen.solid.all() and not caplog.records
    path.write_text(tmx.replace("1,2,1,3,1,4", "1,2,1,3,0,4"))
    with caplog.at_level("WARNING", logger="tilecast"):
        assert not load_tiled(path).solid.all()
    assert not caplog.records
