import math

import numpy as np
import pytest

pytest.importorskip("PIL")
pytest.importorskip("yaml")
from PIL import Image

from tilecast import raycast
from tilecast.io import MapLoadError, load_map, load_ros_map
from tilecast.io.ros import ros_occupancy

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
    if pixels is not None:  # None: the image is saved already
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


def nav2_value(channels, alpha, negate=0, occ_th=0.65, free_th=0.196, mode="trinary"):
    """One pixel as nav2's map_io.cpp publishes it, step by step in plain Python.

    ``channels`` is (r, g, b) (a gray pixel is (v, v, v)), ``alpha`` the pixel's
    alpha or None for an image without one; 8-bit values.
    """
    values = list(channels)
    if mode == "trinary" and alpha is not None:
        values.append(alpha)  # MaxRGB - opacity: 255 is opaque
    shade = sum(values) / len(values) / 255
    occ = shade if negate else 1.0 - shade
    if mode == "raw":
        percent = math.floor(shade * 255 + 0.5)
        return percent if 0 <= percent <= 100 else -1
    if mode == "scale" and alpha is not None and alpha != 255:
        return -1
    if occ_th < occ:
        return 100
    if occ < free_th:
        return 0
    if mode == "trinary":
        return -1
    return round_half_even((occ - free_th) / (occ_th - free_th) * 100.0)


def round_half_even(x):
    return round(x)  # Python's round() of a float is std::rint's default rounding


def amcl_solid(value, unknown):
    # nav2_amcl: 0 free, 100 occupied, anything else unknown
    return value == 100 or (value != 0 and unknown == "solid")


def test_rgba_trinary_averages_alpha_in_like_nav2(tmp_path):
    # issue 15: nav2 (and ROS 1 map_server) average alpha in as a fourth channel in
    # trinary mode; hand computation with the default thresholds 0.65 / 0.196:
    rgba = np.array(
        [
            [
                (205, 205, 205, 255),  # (615 + 255) / 4 = 217.5, occ 0.147: free
                (60, 60, 60, 255),  # (180 + 255) / 4 = 108.75, occ 0.574: unknown
                (30, 30, 30, 255),  # (90 + 255) / 4 = 86.25, occ 0.662: occupied
                (0, 0, 0, 0),  # 0, occ 1: occupied
                (255, 255, 255, 0),  # 765 / 4 = 191.25, occ 0.25: unknown
                (255, 255, 255, 255),  # occ 0: free
            ]
        ],
        dtype=np.uint8,
    )
    expected = [0, -1, 100, 100, -1, 0]
    Image.fromarray(rgba, "RGBA").save(tmp_path / "map.png")
    path = write_map(tmp_path, None, image="map.png")
    assert load_ros_map(path).solid.tolist() == [[v != 0 for v in expected]]
    assert load_ros_map(path, unknown="free").solid.tolist() == [[v == 100 for v in expected]]
    assert ros_occupancy(rgba).tolist() == [expected]
    # the same colours without alpha: 205 and 255 unknown/free, 60 and 30 occupied
    assert ros_occupancy(rgba[:, :, :3]).tolist() == [[-1, 100, 100, 100, 0, 0]]
    # negate: occ = shade: 0.853 occupied, 0.426 and 0.338 unknown, 0 free,
    # 0.75 and 1 occupied
    negated = load_ros_map(write_map(tmp_path, None, image="map.png", negate=1), unknown="free")
    assert negated.solid.tolist() == [[1, 0, 0, 0, 1, 1]]


def test_gray_alpha_and_colour_key_count_as_alpha(tmp_path):
    gray = np.array([[0, 60, 205, 255]], dtype=np.uint8)
    alpha = np.array([[255, 255, 255, 0]], dtype=np.uint8)
    # gray + alpha: red = green = blue = gray, then alpha: (3 * 60 + 255) / 4 = 108.75
    Image.fromarray(np.dstack([gray, alpha]), "LA").save(tmp_path / "la.png")
    path = write_map(tmp_path, None, image="la.png")
    expected = [nav2_value((int(v),) * 3, int(a)) for v, a in zip(gray[0], alpha[0], strict=True)]
    assert expected == [100, -1, 0, -1]
    assert load_ros_map(path, unknown="free").solid.tolist() == [[1, 0, 0, 0]]
    assert load_ros_map(path, unknown="solid").solid.tolist() == [[1, 1, 0, 1]]
    # a PNG colour key (tRNS) is alpha too: 255 becomes transparent
    Image.fromarray(gray, "L").save(tmp_path / "key.png", transparency=255)
    keyed = load_ros_map(write_map(tmp_path, None, image="key.png"), unknown="solid")
    assert keyed.solid.tolist() == [[1, 1, 0, 1]]
    Image.fromarray(gray, "L").save(tmp_path / "plain.png")
    plain = load_ros_map(write_map(tmp_path, None, image="plain.png"), unknown="solid")
    assert plain.solid.tolist() == [[1, 1, 1, 0]]  # 60 occupied, 205 unknown, 255 free


def test_palette_images_use_their_colours(tmp_path):
    # nav2 reads a palette image's colours (ROS 1's SDL loader read the index)
    image = Image.new("P", (3, 1))
    image.putpalette([0, 0, 30, 255, 255, 240, 205, 205, 205])
    image.putdata([0, 1, 2])
    image.save(tmp_path / "p.png")
    # means 10, 250 and 205: occupied, free, unknown
    grid = load_ros_map(write_map(tmp_path, None, image="p.png"), unknown="solid")
    assert grid.solid.tolist() == [[1, 0, 1]]
    image.save(tmp_path / "pt.png", transparency=1)  # palette entry 1 transparent
    # (30 + 255) / 4 = 71.25 occupied; (750 + 0) / 4 = 187.5, occ 0.265 unknown;
    # (615 + 255) / 4 = 217.5 free
    grid = load_ros_map(write_map(tmp_path, None, image="pt.png"), unknown="solid")
    assert grid.solid.tolist() == [[1, 1, 0]]


@pytest.mark.parametrize("mode", ["trinary", "scale", "raw"])
@pytest.mark.parametrize("negate", [0, 1])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_random_pixels_match_nav2_rule(tmp_path, mode, negate, channels):
    rng = np.random.default_rng([channels, negate, len(mode)])
    shape = (6, 9) if channels == 1 else (6, 9, channels)
    pixels = rng.integers(0, 256, size=shape, dtype=np.uint8)
    if channels in (2, 4):  # plenty of opaque pixels, for scale mode
        pixels[..., -1][rng.random((6, 9)) < 0.5] = 255
    if mode == "raw":
        pixels[..., : min(channels, 3)] //= 2  # values 0..127: most of them 0..100
    occ_th, free_th = (0.65, 0.196) if negate else (0.7, 0.3)
    expected = np.empty((6, 9), dtype=int)
    for row in range(6):
        for col in range(9):
            px = [int(v) for v in np.atleast_1d(pixels[row, col])]
            colour = tuple(px[:3]) if channels >= 3 else (px[0],) * 3
            alpha = px[-1] if channels in (2, 4) else None
            expected[row, col] = nav2_value(colour, alpha, negate, occ_th, free_th, mode)
    got = ros_occupancy(
        pixels, negate=bool(negate), occupied_thresh=occ_th, free_thresh=free_th, mode=mode
    )
    np.testing.assert_array_equal(got, expected)
    pil_mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[channels]
    Image.fromarray(pixels, pil_mode).save(tmp_path / "map.png")
    extra = f"occupied_thresh: {occ_th}\nfree_thresh: {free_th}\n"
    path = write_map(tmp_path, None, image="map.png", negate=negate, mode=mode, extra=extra)
    for unknown in ("solid", "free"):
        grid = load_ros_map(path, unknown=unknown)
        want = np.vectorize(lambda v, u=unknown: amcl_solid(v, u))(expected)
        np.testing.assert_array_equal(grid.solid, want[::-1])  # row 0 is the bottom


def test_scale_mode_values(tmp_path):
    pixels = np.array([[0, 89, 90, 128, 204, 205, 255]], dtype=np.uint8)
    # occ = 1 - v/255: 1, 0.651 (> 0.65), 0.647, 0.498, 0.2, 0.19608, 0
    # between the thresholds: rint(100 (occ - 0.196) / 0.454):
    #   90 -> 99.35 -> 99, 128 -> 66.5.. -> 67, 204 -> 0.88 -> 1, 205 -> 0.017 -> 0
    assert ros_occupancy(pixels, mode="scale").tolist() == [[100, 100, 99, 67, 1, 0, 0]]
    assert ros_occupancy(pixels).tolist() == [[100, 100, -1, -1, -1, -1, 0]]
    path = write_map(tmp_path, pixels, mode="scale")
    assert load_ros_map(path, unknown="free").solid.tolist() == [[1, 1, 0, 0, 0, 0, 0]]
    assert load_ros_map(path, unknown="solid").solid.tolist() == [[1, 1, 1, 1, 1, 0, 0]]
    # scale: a pixel that is not fully opaque is unknown, whatever its colour
    rgba = np.array([[(0, 0, 0, 254), (0, 0, 0, 255), (255, 255, 255, 0)]], dtype=np.uint8)
    assert ros_occupancy(rgba, mode="scale").tolist() == [[-1, 100, -1]]
    Image.fromarray(rgba, "RGBA").save(tmp_path / "map.png")
    path = write_map(tmp_path, None, image="map.png", mode="scale")
    assert load_ros_map(path, unknown="free").solid.tolist() == [[0, 1, 0]]
    bad = write_map(
        tmp_path, pixels, mode="scale", extra="occupied_thresh: 0.5\nfree_thresh: 0.5\n"
    )
    with pytest.raises(MapLoadError, match=r"scale.*free_thresh < occupied_thresh"):
        load_ros_map(bad)


def test_raw_mode(tmp_path, caplog):
    # nav2: round(mean of r, g, b) published as it is when 0..100, else -1;
    # negate is not applied, alpha not averaged in
    pixels = np.array([[0, 19, 50, 66, 100, 101, 255]], dtype=np.uint8)
    assert ros_occupancy(pixels, mode="raw").tolist() == [[0, 19, 50, 66, 100, -1, -1]]
    assert ros_occupancy(pixels, mode="raw", negate=True).tolist() == [[0, 19, 50, 66, 100, -1, -1]]
    grid = load_ros_map(write_map(tmp_path, pixels, mode="raw"), unknown="free")
    np.testing.assert_array_equal(grid.solid, [[0, 0, 0, 0, 1, 0, 0]])
    grid = load_ros_map(write_map(tmp_path, pixels, mode="raw"), unknown="solid")
    np.testing.assert_array_equal(grid.solid, [[0, 1, 1, 1, 1, 1, 1]])
    with caplog.at_level("INFO", logger="tilecast"):
        negated = load_ros_map(write_map(tmp_path, pixels, mode="raw", negate=1))
    np.testing.assert_array_equal(negated.solid, grid.solid)
    assert "'negate' is not applied in mode raw" in caplog.text
    rgba = np.array([[(10, 20, 31, 0), (100, 100, 101, 255)]], dtype=np.uint8)
    assert ros_occupancy(rgba, mode="raw").tolist() == [[20, 100]]  # 20.33, 100.33


def test_mode_is_case_insensitive_as_in_nav2(tmp_path):
    pixels = np.array([[0, 205, 254]], dtype=np.uint8)
    grid = load_ros_map(write_map(tmp_path, pixels, mode="Trinary"), unknown="free")
    assert grid.solid.tolist() == [[1, 0, 0]]


def test_sixteen_bit_gray_is_scaled_to_its_own_range(tmp_path):
    # nav2's shade is value / MaxRGB: 30000 / 65535 = 0.458, occ 0.542 unknown;
    # 20000 -> occ 0.695 occupied; 60000 -> occ 0.084 free
    pixels = np.array([[0, 20000, 30000, 60000, 65535]], dtype=np.uint16)
    assert ros_occupancy(pixels).tolist() == [[100, 100, -1, 0, 0]]
    grid = load_ros_map(write_map(tmp_path, pixels, image="deep.png"), unknown="free")
    assert grid.solid.tolist() == [[1, 1, 0, 0, 0]]


def test_ros_occupancy_checks_its_arguments():
    pixels = np.zeros((2, 2), dtype=np.uint8)
    with pytest.raises(ValueError, match="mode"):
        ros_occupancy(pixels, mode="bright")
    with pytest.raises(ValueError, match="free_thresh <= occupied_thresh"):
        ros_occupancy(pixels, occupied_thresh=0.1, free_thresh=0.5)
    with pytest.raises(TypeError, match="occupied_thresh"):
        ros_occupancy(pixels, occupied_thresh="high")
    with pytest.raises(TypeError, match="pixels"):
        ros_occupancy([[0, 1]])
    with pytest.raises(ValueError, match="8-bit"):
        ros_occupancy(np.zeros((2, 2), dtype=np.float32))


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
