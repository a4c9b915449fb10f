import math

import numpy as np
import pytest

pytest.importorskip("PIL")
pytest.importorskip("yaml")
from PIL import Image

from tilecast import raycast
from tilecast.io import MapLoadError, load_map, load_ros_map

HEADER = "resolution: {res}\norigin: [{ox}, {oy}, {yaw}]\nnegate: {negate}\n"
THRESH = "occupied_thresh: 0.65\nfree_thresh: 0.196\n"


def write_map(
    folder,
    pixels,
    *,
    res=0.05,
    ox=-1.0,
    oy=-2.0,
    yaw=0.0,
    negate=0,
    extra=THRESH,
    image="map.pgm",
    mode=None,
):
    Image.fromarray(pixels).save(folder / image)
    text = f"image: {image}\n" + HEADER.format(res=res, ox=ox, oy=oy, yaw=yaw, negate=negate)
    text += extra + (f"mode: {mode}\n" if mode else "")
    path = folder / "map.yaml"
    path.write_text(text)
    return path


def classify(v, negate, occ=0.65, free=0.196):
    # map_server's trinary rule for one pixel, plain Python
    if negate:
        v = 255 - v
    p = (255 - v) / 255.0
    return 1 if p > occ else 0 if p < free else -1


@pytest.mark.parametrize("negate", [0, 1])
@pytest.mark.parametrize("unknown", ["solid", "free"])
def test_trinary_cells_and_frame(tmp_path, negate, unknown):
    rng = np.random.default_rng(negate)
    pixels = rng.choice(np.array([0, 50, 100, 205, 254, 255], dtype=np.uint8), size=(7, 11))
    grid = load_ros_map(write_map(tmp_path, pixels, negate=negate), unknown=unknown)
    assert grid.shape == (7, 11)
    assert grid.tile_size == (0.05, 0.05) and grid.origin == (-1.0, -2.0)
    assert grid.outside == "solid"
    for row in range(7):
        for col in range(11):
            kind = classify(int(pixels[row, col]), negate)
            expected = kind == 1 or (kind == -1 and unknown == "solid")
            # image row 0 is the top; grid row 0 is the bottom (y up)
            assert grid.is_solid((col, 6 - row)) == expected, (row, col)


def test_metric_ray_in_the_y_up_frame(tmp_path):
    pixels = np.full((10, 10), 254, dtype=np.uint8)
    pixels[0, :] = 0  # the top row of the picture: the northern wall
    grid = load_ros_map(write_map(tmp_path, pixels, res=0.1, ox=2.0, oy=3.0))
    hit = raycast(grid, (2.55, 3.05), (0.0, 1.0))  # straight north from the bottom row
    assert hit.cell == (5, 9)
    assert hit.point[1] == pytest.approx(3.9)
    assert hit.distance == pytest.approx(0.85)
    assert hit.normal == (0.0, -1.0)
    # the border stops rays (outside="solid")
    east = raycast(grid, (2.55, 3.05), (1.0, 0.0))
    assert east.cell == (10, 0) and east.point[0] == pytest.approx(3.0)


def test_rgb_png_channels_are_averaged_and_alpha_ignored(tmp_path):
    rgba = np.zeros((1, 3, 4), dtype=np.uint8)
    rgba[0, 0] = (0, 0, 30, 0)  # mean 10: occupied
    rgba[0, 1] = (255, 255, 240, 0)  # mean 250: free
    rgba[0, 2] = (205, 205, 205, 255)  # unknown
    grid = load_ros_map(write_map(tmp_path, rgba, image="map.png"), unknown="free")
    np.testing.assert_array_equal(grid.solid, [[1, 0, 0]])


def test_raw_mode(tmp_path):
    pixels = np.array([[0, 19, 50, 66, 100, 255]], dtype=np.uint8)
    grid = load_ros_map(write_map(tmp_path, pixels, mode="raw"), unknown="free")
    np.testing.assert_array_equal(grid.solid, [[0, 0, 0, 1, 1, 0]])
    grid = load_ros_map(write_map(tmp_path, pixels, mode="raw"), unknown="solid")
    np.testing.assert_array_equal(grid.solid, [[0, 0, 1, 1, 1, 1]])


def test_defaults_for_thresholds_and_load_map(tmp_path):
    path = write_map(tmp_path, np.array([[0, 254]], dtype=np.uint8), extra="")
    np.testing.assert_array_equal(load_ros_map(path).solid, [[1, 0]])
    np.testing.assert_array_equal(load_map(path).solid, [[1, 0]])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("image: map.pgm\norigin: [0, 0, 0]\n", "missing 'resolution'"),
        ("image: map.pgm\nresolution: -1\norigin: [0, 0, 0]\n", "'resolution' must be positive"),
        ("image: map.pgm\nresolution: .1\norigin: [0, 0, 0]\nnegate: 2\n", "'negate'"),
        ("image: map.pgm\nresolution: .1\norigin: 3\n", "'origin' must be"),
        ("image: map.pgm\nresolution: .1\norigin: [0, nan, 0]\n", "'origin' must be a finite"),
        ("resolution: .1\norigin: [0, 0, 0]\n", "missing 'image'"),
        ("image: other.pgm\nresolution: .1\norigin: [0, 0, 0]\n", "other.pgm does not exist"),
        ("image: map.pgm\nresolution: .1\norigin: [0, 0, 0]\nmode: fuzzy\n", "'mode'"),
        (
            "image: map.pgm\nresolution: .1\norigin: [0, 0, 0]\n"
            "occupied_thresh: 0.1\nfree_thresh: 0.5\n",
            "free_thresh <= occupied_thresh",
        ),
        ("image: map.pgm\nresolution: [.1\n", "invalid YAML"),
        ("- just\n- a list\n", "expected a YAML mapping"),
    ],
)
def test_malformed_yaml(tmp_path, text, message):
    Image.fromarray(np.zeros((2, 2), dtype=np.uint8)).save(tmp_path / "map.pgm")
    path = tmp_path / "map.yaml"
    path.write_text(text)
    with pytest.raises(MapLoadError) as info:
        load_ros_map(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_broken_image_and_missing_yaml(tmp_path):
    (tmp_path / "map.pgm").write_bytes(b"P5\n10 10\n255\n\x00\x00")  # truncated
    path = tmp_path / "map.yaml"
    path.write_text("image: map.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n")
    with pytest.raises(MapLoadError, match=r"map\.pgm"):
        load_ros_map(path)
    with pytest.raises(MapLoadError, match="cannot read"):
        load_ros_map(tmp_path / "nope.yaml")


def test_bad_options(tmp_path):
    path = write_map(tmp_path, np.zeros((2, 2), dtype=np.uint8))
    with pytest.raises(ValueError, match="unknown"):
        load_ros_map(path, unknown="maybe")
    with pytest.raises(ValueError, match="outside"):
        load_ros_map(path, outside="wall")
    assert not math.isnan(load_ros_map(path, outside="empty").tile_size[0])


def test_yaw_is_ignored_for_the_grid_as_map_server_does(tmp_path, caplog):
    # issue 15: map_server and nav2 load a map whose origin has a yaw and lay the cells
    # out axis-aligned; so do we, and the yaw is logged rather than lost
    pixels = np.array([[0, 254, 254], [254, 254, 0]], dtype=np.uint8)
    flat = load_ros_map(write_map(tmp_path, pixels, yaw=0.0))
    with caplog.at_level("INFO", logger="tilecast"):
        turned = load_ros_map(write_map(tmp_path, pixels, yaw=0.5))
    np.testing.assert_array_equal(turned.solid, flat.solid)
    assert turned.origin == flat.origin == (-1.0, -2.0)
    assert "yaw 0.5" in caplog.text
    assert turned.source is not None and turned.source["yaw"] == 0.5
    assert turned.source["file"].endswith(".yaml") and turned.source["image"].endswith(".pgm")
    assert flat.source is not None and flat.source["yaw"] == 0.0


def test_alias_bomb_gives_a_short_message(tmp_path):
    Image.fromarray(np.zeros((2, 2), dtype=np.uint8)).save(tmp_path / "map.pgm")
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]" for k in range(1, 12)]
    path = tmp_path / "map.yaml"
    path.write_text("\n".join(lines) + "\nimage: map.pgm\nresolution: 0.1\norigin: *a11\n")
    with pytest.raises(MapLoadError, match="'origin' must be") as info:
        load_ros_map(path)
    assert len(str(info.value)) < len(str(path)) + 200


def test_root_keeps_the_image_inside(tmp_path):
    inner = tmp_path / "maps"
    inner.mkdir()
    Image.fromarray(np.zeros((2, 2), dtype=np.uint8)).save(tmp_path / "secret.pgm")
    path = inner / "map.yaml"
    path.write_text("image: ../secret.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n")
    assert load_ros_map(path).shape == (2, 2)  # without root: the user's own map
    with pytest.raises(MapLoadError, match="outside the root folder"):
        load_ros_map(path, root=inner)
    (inner / "link.pgm").symlink_to(tmp_path / "secret.pgm")
    path.write_text("image: link.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n")
    with pytest.raises(MapLoadError, match="outside the root folder"):
        load_ros_map(path, root=inner)
