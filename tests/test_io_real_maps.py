"""Loaders on real map files from public projects (issue 15).

The files live in ``tests/data/<source>/``; where each comes from, its commit
and licence are in ``tests/data/SOURCES.md``. Every expected value here is
worked out without tilecast: the PGM images are parsed by a few lines of
NumPy below, the YAML by PyYAML, the LDtk JSON by :mod:`json`, and the ROS
rule is nav2's ``map_io.cpp`` (``occ = 1 - v / 255``; occupied when
``occupied_thresh < occ``, free when ``occ < free_thresh``, else unknown).
The literal counts were read off the raw files once and are kept as a second,
fixed check.
"""

import base64
import gzip
import importlib.util
import json
import math
import re
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest

yaml = pytest.importorskip("yaml")
pytest.importorskip("PIL")

from tilecast import raycast  # noqa: E402
from tilecast.io import MapLoadError, load_ldtk, load_map, load_ros_map, load_tiled  # noqa: E402

DATA = Path(__file__).parent / "data"
NAV2 = DATA / "navigation2"
LDTK = DATA / "ldtk"


# --- independent readers -------------------------------------------------


def read_pgm(path):
    """A binary 8-bit PGM (P5) as a (rows, cols) uint8 array; no Pillow."""
    raw = path.read_bytes()
    fields = []
    pos = 0
    while len(fields) < 4:
        match = re.compile(rb"\s*(#[^\n]*\n\s*)*([^\s#]+)").match(raw, pos)
        fields.append(match.group(2))
        pos = match.end()
    magic, width, height, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    assert magic == b"P5" and maxval == 255
    pos += 1  # the single whitespace byte after maxval
    pixels = np.frombuffer(raw, dtype=np.uint8, count=width * height, offset=pos)
    return pixels.reshape(height, width)


def nav2_classes(pixels, meta):
    """+1 occupied, 0 free, -1 unknown per pixel, nav2's trinary rule, image row order."""
    shade = pixels.astype(np.float64) / 255.0
    occ = shade if meta["negate"] else 1.0 - shade
    out = np.full(pixels.shape, -1, dtype=np.int8)
    out[occ < meta["free_thresh"]] = 0
    out[meta["occupied_thresh"] < occ] = 1
    return out


def ros_case(name):
    meta = yaml.safe_load((NAV2 / f"{name}.yaml").read_text())
    pixels = read_pgm(NAV2 / meta["image"])
    return meta, pixels


# --- ROS / nav2 maps -----------------------------------------------------

# name: (image rows, cols, resolution, origin, occupied, unknown, free) counted from the raw PGM
ROS_FACTS = {
    "tb3_sandbox": (384, 384, 0.05, (-10.0, -10.0), 870, 138683, 7903),
    # free_thresh 0.25: the 205 "unknown" grey (occ 0.196) is free in this map
    "depot": (307, 604, 0.05, (-7.14, -7.83), 5947, 0, 179481),
    # values 0, 26, 51 occupied; 179 (occ 0.298) unknown; 255 free
    "TenByTen": (10, 10, 1.0, (0.0, 0.0), 20, 2, 78),
}


@pytest.mark.parametrize("name", sorted(ROS_FACTS))
def test_ros_map_matches_raw_pixels(name):
    rows, cols, res, origin, n_occ, n_unknown, n_free = ROS_FACTS[name]
    meta, pixels = ros_case(name)
    assert pixels.shape == (rows, cols)
    assert meta["resolution"] == res and tuple(meta["origin"][:2]) == origin
    classes = nav2_classes(pixels, meta)
    assert (classes == 1).sum() == n_occ
    assert (classes == -1).sum() == n_unknown
    assert (classes == 0).sum() == n_free

    grid = load_ros_map(NAV2 / f"{name}.yaml")
    assert grid.shape == (rows, cols)
    assert grid.tile_size == (res, res)
    assert grid.origin == pytest.approx(origin)
    # grid row 0 is the bottom image row (y up)
    np.testing.assert_array_equal(grid.solid, np.flipud(classes != 0))
    assert int(grid.solid.sum()) == n_occ + n_unknown

    free_unknown = load_ros_map(NAV2 / f"{name}.yaml", unknown="free")
    np.testing.assert_array_equal(free_unknown.solid, np.flipud(classes == 1))
    assert int(free_unknown.solid.sum()) == n_occ


@pytest.mark.parametrize("name", sorted(ROS_FACTS))
def test_ros_map_source(name):
    grid = load_map(NAV2 / f"{name}.yaml")
    assert Path(grid.source["file"]).name == f"{name}.yaml"
    assert Path(grid.source["image"]).name == f"{name}.pgm"
    assert Path(grid.source["image"]).resolve() == (NAV2 / f"{name}.pgm").resolve()
    assert grid.source["yaw"] == 0.0


def test_ten_by_ten_cells():
    grid = load_ros_map(NAV2 / "TenByTen.yaml")
    solid = grid.solid
    # image row r is grid row 9 - r; cells are [col, row] = solid[row, col]
    assert solid[0, 7:10].all() and not solid[0, :7].any()  # image row 9: 0 0 0 at cols 7-9
    assert solid[2, 3:6].all()  # image row 7: 26 at cols 3-5
    assert solid[4, 0] and solid[4, 1]  # image row 5: 179 -> unknown -> solid by default
    assert solid[6, 4] and solid[5, 4]  # image rows 3-4: 51 at col 4
    assert not solid[9].any() and not solid[8].any()  # image rows 0-1 all 255
    unknown_free = load_ros_map(NAV2 / "TenByTen.yaml", unknown="free")
    assert not unknown_free.solid[4, 0] and not unknown_free.solid[4, 1]


def test_ten_by_ten_raycast_in_metres():
    grid = load_ros_map(NAV2 / "TenByTen.yaml")
    # from the centre of the bottom-left cell eastwards: the wall at image row 9, cols 7-9
    hit = raycast(grid, (0.5, 0.5), (1.0, 0.0))
    assert hit.cell == (7, 0)
    assert hit.point[0] == pytest.approx(7.0)
    assert hit.distance == pytest.approx(6.5)
    # northwards from (0.5, 0.5): the unknown pixels (179) of image row 5 are grid row 4
    north = raycast(grid, (0.5, 0.5), (0.0, 1.0))
    assert north.cell == (0, 4) and north.point[1] == pytest.approx(4.0)
    # with unknown free the ray leaves the map through the top border (outside="solid")
    open_grid = load_ros_map(NAV2 / "TenByTen.yaml", unknown="free")
    assert raycast(open_grid, (0.5, 0.5), (0.0, 1.0)).cell == (0, 10)


def test_tb3_sandbox_cells_in_metres():
    meta, pixels = ros_case("tb3_sandbox")
    grid = load_ros_map(NAV2 / "tb3_sandbox.yaml")
    res = meta["resolution"]
    ox, oy = meta["origin"][:2]
    # a few occupied pixels, looked up by their metric centre
    rows, cols = np.nonzero(pixels == 0)
    for r, c in list(zip(rows, cols, strict=True))[::97]:
        x = ox + (c + 0.5) * res
        y = oy + (pixels.shape[0] - 1 - r + 0.5) * res
        i = math.floor((x - grid.origin[0]) / grid.tile_size[0])
        j = math.floor((y - grid.origin[1]) / grid.tile_size[1])
        assert (i, j) == (c, pixels.shape[0] - 1 - r)
        assert grid.solid[j, i]


def test_ros_root_allows_own_folder():
    grid = load_ros_map(NAV2 / "depot.yaml", root=NAV2)
    assert grid.shape == (307, 604)
    with pytest.raises(MapLoadError):
        load_ros_map(NAV2 / "depot.yaml", root=LDTK)


def test_empty_room_names_a_missing_image():
    # nav2_system_tests/maps/empty_room.yaml names "empty.pgm", which the repository does not ship
    meta = yaml.safe_load((NAV2 / "empty_room.yaml").read_text())
    assert meta["image"] == "empty.pgm" and not (NAV2 / "empty.pgm").exists()
    with pytest.raises(MapLoadError, match=r"empty_room\.yaml.*empty\.pgm.*does not exist"):
        load_ros_map(NAV2 / "empty_room.yaml")


# nav2_map_server/test/test_constants.cpp, g_valid_image_content: what nav2's own unit
# test (test_map_io.cpp) expects map_io to publish for testmap.{png,bmp,pgm}, in the
# message's order (row 0 is the bottom image row, which is tilecast's grid row 0)
NAV2_TESTMAP_CONTENT = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [100, 100, 100, 100, 0, 0, 100, 100, 100, 0],
    [100, 100, 100, 100, 0, 0, 100, 100, 100, 0],
    [100, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [100, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [100, 0, 0, 0, 0, 0, 100, 100, 0, 0],
    [100, 0, 0, 0, 0, 0, 100, 100, 0, 0],
    [100, 0, 0, 0, 0, 0, 100, 100, 0, 0],
    [100, 0, 0, 0, 0, 0, 100, 100, 0, 0],
    [100, 0, 0, 0, 0, 0, 0, 0, 0, 0],
]


@pytest.mark.parametrize("suffix", ["png", "bmp", "pgm"])
def test_nav2_testmap_matches_nav2s_own_expected_values(tmp_path, suffix):
    expected = np.array(NAV2_TESTMAP_CONTENT)
    # the literal agrees with the raw PGM, read without Pillow
    classes = nav2_classes(
        read_pgm(NAV2 / "testmap.pgm"), {"negate": 0, "free_thresh": 0.196, "occupied_thresh": 0.65}
    )
    np.testing.assert_array_equal(np.flipud(classes) * 100, expected)
    meta = yaml.safe_load((NAV2 / "testmap.yaml").read_text())
    assert meta["image"] == "testmap.png" and meta["mode"] == "trinary"
    meta["image"] = str((NAV2 / f"testmap.{suffix}").resolve())
    path = tmp_path / "testmap.yaml"
    path.write_text(yaml.safe_dump(meta))
    for unknown in ("solid", "free"):
        grid = load_ros_map(path, unknown=unknown)
        np.testing.assert_array_equal(grid.solid, expected == 100)
        assert grid.tile_size == (0.1, 0.1) and grid.origin == (2.0, 3.0)
    assert load_ros_map(NAV2 / "testmap.yaml").solid.tolist() == (expected == 100).tolist()


# --- LDtk samples --------------------------------------------------------


def ldtk_level(path, index):
    project = json.loads(path.read_text())
    level = project["levels"][index]
    if level.get("externalRelPath"):
        level = json.loads((path.parent / level["externalRelPath"]).read_text())
    return project, level


def intgrid_layer(level):
    return next(li for li in level["layerInstances"] if li["__type"] == "IntGrid")


# file, level: (layer, cols, rows, grid size, non-zero cells) counted from the JSON
LDTK_FACTS = {
    ("AutoLayers_1_basic.ldtk", 0): ("IntGrid_layer", 37, 26, 8, 484),
    ("AutoLayers_2_stamps.ldtk", 0): ("IntGrid", 17, 16, 16, 82),
    ("SeparateLevelFiles.ldtk", 0): ("IntGrid", 15, 15, 16, 18),
    ("SeparateLevelFiles.ldtk", 1): ("IntGrid", 15, 15, 16, 20),
    ("SeparateLevelFiles.ldtk", 2): ("IntGrid", 15, 15, 16, 13),
}


@pytest.mark.parametrize(("name", "index"), sorted(LDTK_FACTS))
def test_ldtk_intgrid_matches_json(name, index):
    layer_id, cols, rows, size, n_solid = LDTK_FACTS[name, index]
    _, level = ldtk_level(LDTK / name, index)
    layer = intgrid_layer(level)
    assert (layer["__identifier"], layer["__cWid"], layer["__cHei"]) == (layer_id, cols, rows)
    assert layer["__gridSize"] == size
    values = np.array(layer["intGridCsv"]).reshape(rows, cols)
    assert int((values != 0).sum()) == n_solid

    by_index = load_ldtk(LDTK / name, level=index)
    by_name = load_map(LDTK / name, level=level["identifier"], layer=layer_id)
    for grid in (by_index, by_name):
        assert grid.shape == (rows, cols)
        assert grid.tile_size == (size, size)
        assert grid.origin == (0, 0)
        np.testing.assert_array_equal(grid.solid, values != 0)  # row 0 = top row (y down)


def test_ldtk_solid_values():
    project, _ = ldtk_level(LDTK / "AutoLayers_2_stamps.ldtk", 0)
    defined = [v["value"] for v in project["defs"]["layers"][0]["intGridValues"]]
    assert defined == [1]  # the only value, "walls"
    assert not load_ldtk(LDTK / "AutoLayers_2_stamps.ldtk", solid_values={2}).solid.any()
    walls = load_ldtk(LDTK / "AutoLayers_2_stamps.ldtk", solid_values={1})
    assert int(walls.solid.sum()) == 82


def test_ldtk_external_levels_need_their_files(tmp_path):
    # the project alone, without SeparateLevelFiles/*.ldtkl next to it
    lone = tmp_path / "SeparateLevelFiles.ldtk"
    lone.write_bytes((LDTK / "SeparateLevelFiles.ldtk").read_bytes())
    with pytest.raises(MapLoadError, match=r"SeparateLevelFiles"):
        load_ldtk(lone)
    assert load_ldtk(LDTK / "SeparateLevelFiles.ldtk", level=1, root=LDTK).shape == (15, 15)


def test_ldtk_unknown_layer_and_level():
    with pytest.raises(MapLoadError, match=r"no layer 'Nope'"):
        load_ldtk(LDTK / "AutoLayers_2_stamps.ldtk", layer="Nope")
    with pytest.raises(MapLoadError, match=r"out of range"):
        load_ldtk(LDTK / "AutoLayers_2_stamps.ldtk", level=5)


def test_data_budget():
    files = [f for d in (NAV2, LDTK, TILED) for f in d.rglob("*") if f.is_file()]
    assert all(p.stat().st_size < 200_000 for p in files)
    assert sum(p.stat().st_size for p in files) < 1_000_000
    sources = (DATA / "SOURCES.md").read_text()
    for f in files:
        assert f.name in sources, f


# --- Tiled maps (rs-tiled test assets) -------------------------------------

TILED = DATA / "rs-tiled"
FLAGS = 0xF0000000


def decode_data(data, count, encoding=None, compression=None):
    """The raw GIDs (flag bits kept) of one <data> or <chunk>, read with the standard library."""
    encoding = data.get("encoding", encoding)
    compression = data.get("compression", compression)
    if encoding == "csv":
        gids = [int(v) for v in data.text.replace("\n", "").split(",") if v.strip()]
    elif encoding == "base64":
        raw = base64.b64decode(data.text.strip())
        if compression == "zlib":
            raw = zlib.decompress(raw)
        elif compression == "gzip":
            raw = gzip.decompress(raw)
        elif compression == "zstd":
            raw = pytest.importorskip("zstandard").ZstdDecompressor().decompress(raw, count * 4)
        else:
            assert compression is None
        gids = np.frombuffer(raw, dtype="<u4").tolist()
    else:
        gids = [int(t.get("gid", 0)) for t in data.findall("tile")]
    assert len(gids) == count
    return np.array(gids, dtype=np.uint64)


def tiled_layer(name, layer_name=None):
    root = ET.parse(TILED / name).getroot()
    layers = root.iter("layer")
    layer = next(lay for lay in layers if layer_name in (None, lay.get("name")))
    width, height = int(layer.get("width")), int(layer.get("height"))
    return root, decode_data(layer.find("data"), width * height).reshape(height, width)


# 100 x 100 maps in every encoding: (file, encoding, compression, non-empty cells);
# all but tiled_xml.tmx hold the same layer
ENCODINGS = [
    ("tiled_csv.tmx", "csv", None, 161),
    ("tiled_xml.tmx", None, None, 70),
    ("tiled_base64.tmx", "base64", None, 161),
    ("tiled_base64_zlib.tmx", "base64", "zlib", 161),
    ("tiled_base64_gzip.tmx", "base64", "gzip", 161),
    ("tiled_base64_zstandard.tmx", "base64", "zstd", 161),
    ("tiled_base64_external.tmx", "base64", None, 161),
]


@pytest.mark.parametrize(("name", "encoding", "compression", "count"), ENCODINGS)
def test_tiled_encodings_match_stdlib_decoding(name, encoding, compression, count):
    root, gids = tiled_layer(name)
    data = root.find("layer/data")
    assert (data.get("encoding"), data.get("compression")) == (encoding, compression)
    assert (root.get("width"), root.get("height"), root.get("tilewidth")) == ("100", "100", "32")
    assert gids.shape == (100, 100)
    assert int((gids != 0).sum()) == count
    if compression == "zstd":
        pytest.importorskip("zstandard")
    grid = load_tiled(TILED / name)
    assert grid.shape == (100, 100) and grid.tile_size == (32, 32) and grid.origin == (0, 0)
    np.testing.assert_array_equal(grid.solid, gids != 0)
    assert grid.source["layers"] == ["Tile Layer 1"]
    assert grid.source["rule"] == "the only visible tile layer"
    assert grid.source["solid"] == "any"
    assert Path(grid.source["file"]).name == name


def test_tiled_encodings_agree():
    _, reference = tiled_layer("tiled_csv.tmx")
    for name, _, compression, count in ENCODINGS:
        if count != 161 or (compression == "zstd" and not importlib.util.find_spec("zstandard")):
            continue
        np.testing.assert_array_equal(tiled_layer(name)[1], reference, err_msg=name)


def test_tiled_flip_bits():
    _, gids = tiled_layer("tiled_flipped.tmx")
    assert gids.tolist() == [[0xE0000003, 0x40000003], [0x80000003, 0x20000003]]
    tilemap = load_tiled(TILED / "tiled_flipped.tmx", result="tilemap")
    # local tile id 2 (GID 3, firstgid 1) everywhere; flips: 1 horizontal, 2 vertical, 4 diagonal
    assert tilemap.tile_ids.tolist() == [[2, 2], [2, 2]]
    assert tilemap.flips.tolist() == [[7, 2], [1, 4]]
    assert (gids & ~np.uint64(FLAGS)).tolist() == [[3, 3], [3, 3]]


def test_tiled_group_layers():
    for name, path in [
        ("tile-1", "tile-1"),
        ("tile-2", "group-1/tile-2"),
        ("tile-3", "group-2/group-3/tile-3"),
    ]:
        _, gids = tiled_layer("tiled_group_layers.tmx", name)
        for layer in (path, name):
            grid = load_tiled(TILED / "tiled_group_layers.tmx", layer=layer, solid="any")
            np.testing.assert_array_equal(grid.solid, gids != 0)
            assert grid.source["layers"] == [path]
            assert grid.source["rule"] == "chosen by the caller"
    # no layer is marked or named like walls and there are three: the loader will not guess
    with pytest.raises(MapLoadError, match=r"cannot tell which layer.*'group-1/tile-2'"):
        load_tiled(TILED / "tiled_group_layers.tmx")


def test_tiled_infinite_chunks():
    root = ET.parse(TILED / "tiled_base64_zlib_infinite.tmx").getroot()
    assert root.get("infinite") == "1"
    cells = {}
    corners = set()
    for layer in root.iter("layer"):
        data = layer.find("data")
        for chunk in data.iter("chunk"):
            x, y = int(chunk.get("x")), int(chunk.get("y"))
            w, h = int(chunk.get("width")), int(chunk.get("height"))
            gids = decode_data(chunk, w * h, data.get("encoding"), data.get("compression"))
            gids = gids.reshape(h, w)
            corners.add((x, y))
            for r, c in zip(*np.nonzero(gids), strict=True):
                cells.setdefault(layer.get("name"), set()).add((x + int(c), y + int(r)))
    every = set().union(*cells.values())
    # the Grid starts at the top-left chunk (the leftmost tile is at x = -16)
    x0 = min(x for x, _ in corners)
    y0 = min(y for _, y in corners)
    assert (x0, y0) == (-32, 0)
    assert min(x for x, _ in every) == -16
    names = ["Background", "Ground", "Overlay"]
    grid = load_tiled(TILED / "tiled_base64_zlib_infinite.tmx", layer=names, solid="any")
    assert grid.shape == (64, 64)
    assert grid.origin == (-32 * 32, 0)
    got = {(int(c) + x0, int(r) + y0) for r, c in zip(*np.nonzero(grid.solid), strict=True)}
    assert got == every
    ground = load_tiled(TILED / "tiled_base64_zlib_infinite.tmx", layer="Ground", solid="any")
    i0 = round(ground.origin[0] / 32)
    j0 = round(ground.origin[1] / 32)
    got = {(int(c) + i0, int(r) + j0) for r, c in zip(*np.nonzero(ground.solid), strict=True)}
    assert got == cells["Ground"]


def test_tiled_refusals():
    with pytest.raises(MapLoadError, match=r"tiled_oblique\.tmx.*only orthogonal.*'oblique'"):
        load_tiled(TILED / "tiled_oblique.tmx")
    # the tileset image is not shipped (not needed for solid="any"); alpha needs it
    with pytest.raises(MapLoadError, match=r"tiled_csv\.tmx.*tilesheet\.png not found"):
        load_tiled(TILED / "tiled_csv.tmx", solid="alpha")
    with pytest.raises(MapLoadError, match=r"cannot tell which layer"):
        load_tiled(TILED / "tiled_base64_zlib_infinite.tmx")
