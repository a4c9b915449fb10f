import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")
from PIL import Image

from tilecast import Grid, raycast
from tilecast.io import MapLoadError, load_image, load_map


def gray_oracle(r, g, b):
    # the shared benchmark README's rule, computed per pixel in plain Python
    return 0.229 * r + 0.587 * g + 0.114 * b


def test_rgb_png_matches_per_pixel_rule(tmp_path):
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, size=(9, 13, 3), dtype=np.uint8)
    path = tmp_path / "map.png"
    Image.fromarray(rgb, "RGB").save(path)
    for threshold in (1, 100, 128, 200):
        grid = load_image(path, threshold=threshold)
        assert isinstance(grid, Grid) and grid.shape == (9, 13)
        for y in range(9):
            for x in range(13):
                r, g, b = (int(v) for v in rgb[y, x])
                assert grid.is_solid((x, y)) == (gray_oracle(r, g, b) < threshold)
        light = load_image(path, threshold=threshold, mode="light")
        np.testing.assert_array_equal(light.solid, ~grid.solid)


def test_gray_palette_and_alpha(tmp_path):
    gray = np.array([[0, 127, 128, 255]], dtype=np.uint8)
    Image.fromarray(gray, "L").save(tmp_path / "g.png")
    np.testing.assert_array_equal(load_image(tmp_path / "g.png").solid, [[1, 1, 0, 0]])
    # palette images go through RGB, where the weights sum to 0.93: 128 -> 119.04
    Image.fromarray(gray, "L").convert("P").save(tmp_path / "p.png")
    np.testing.assert_array_equal(load_image(tmp_path / "p.png").solid, [[1, 1, 1, 0]])
    np.testing.assert_array_equal(load_image(tmp_path / "p.png", 119).solid, [[1, 1, 0, 0]])
    rgba = np.zeros((1, 4, 4), dtype=np.uint8)
    rgba[0, :, 3] = [0, 1, 128, 255]
    Image.fromarray(rgba, "RGBA").save(tmp_path / "a.png")
    np.testing.assert_array_equal(load_image(tmp_path / "a.png", 0, "alpha").solid, [[0, 1, 1, 1]])
    np.testing.assert_array_equal(
        load_image(tmp_path / "a.png", mode="alpha").solid, [[0, 0, 0, 1]]
    )
    # no alpha channel: everything is opaque
    assert load_image(tmp_path / "g.png", mode="alpha").solid.all()
    # a PIL image and an array work without a file
    np.testing.assert_array_equal(load_image(Image.fromarray(gray)).solid, [[1, 1, 0, 0]])
    np.testing.assert_array_equal(load_image(gray).solid, [[1, 1, 0, 0]])


def test_sixteen_bit_gray_keeps_its_units(tmp_path):
    values = np.array([[0, 1000, 40000]], dtype=np.uint16)
    Image.fromarray(values).save(tmp_path / "deep.png")
    grid = load_image(tmp_path / "deep.png", threshold=30000)
    np.testing.assert_array_equal(grid.solid, [[1, 1, 0]])


def test_frame_and_options(tmp_path):
    pixels = np.full((3, 5), 255, dtype=np.uint8)
    pixels[1, 4] = 0
    grid = load_image(pixels, tile_size=0.5, origin=(10, 20), outside="solid")
    hit = raycast(grid, (10.25, 20.75), (1, 0))
    assert hit.cell == (4, 1) and hit.point == (12.0, 20.75)
    assert load_map(_save(tmp_path / "m.png", pixels)).is_solid((4, 1))


def _save(path, pixels):
    Image.fromarray(pixels).save(path)
    return path


def test_broken_files(tmp_path):
    with pytest.raises(MapLoadError, match="no such file"):
        load_image(tmp_path / "missing.png")
    (tmp_path / "text.png").write_text("this is not a picture")
    with pytest.raises(MapLoadError, match=r"text\.png: not an image"):
        load_image(tmp_path / "text.png")
    good = _save(tmp_path / "good.png", np.zeros((64, 64, 3), dtype=np.uint8) + 7)
    data = good.read_bytes()
    (tmp_path / "cut.png").write_bytes(data[: len(data) // 2])
    with pytest.raises(MapLoadError, match=r"cut\.png"):
        load_image(tmp_path / "cut.png")


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"mode": "bright"}, ValueError),
        ({"threshold": float("nan")}, ValueError),
        ({"threshold": "128"}, TypeError),
        ({"tile_size": -1}, ValueError),
    ],
)
def test_bad_options(kwargs, error):
    with pytest.raises(error):
        load_image(np.zeros((2, 2), dtype=np.uint8), **kwargs)


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((0, 3), dtype=np.uint8),
        np.zeros((2, 2, 2, 2), dtype=np.uint8),
        np.zeros((2, 2, 5), dtype=np.uint8),
        np.array([["a", "b"]]),
        np.zeros(5, dtype=np.uint8),
    ],
)
def test_bad_arrays(array):
    with pytest.raises(MapLoadError, match="<ndarray>"):
        load_image(array)


def test_bad_source_type():
    with pytest.raises(TypeError, match="source"):
        load_image(3.5)


def test_bilevel_and_gray_alpha_images_use_their_gray_value(tmp_path):
    gray = np.array([[0, 255, 255, 0]], dtype=np.uint8)
    Image.fromarray(gray, "L").convert("1").save(tmp_path / "bits.png")
    # a 1-bit image is gray-scale: white is 255, not the RGB rule's 237.15
    np.testing.assert_array_equal(load_image(tmp_path / "bits.png", 240).solid, [[1, 0, 0, 1]])
    la = np.dstack([np.array([[10, 200, 250, 128]], dtype=np.uint8), [[255, 0, 9, 10]]])
    Image.fromarray(la.astype(np.uint8), "LA").save(tmp_path / "la.png")
    # gray + alpha: the gray value itself (250 stays 250, not 0.93 * 250 = 232.5)
    np.testing.assert_array_equal(load_image(tmp_path / "la.png", 240).solid, [[1, 1, 0, 1]])
    np.testing.assert_array_equal(
        load_image(tmp_path / "la.png", 9, mode="alpha").solid, [[1, 0, 0, 1]]
    )


def test_colour_key_is_alpha(tmp_path):
    gray = np.array([[0, 7, 255]], dtype=np.uint8)
    Image.fromarray(gray, "L").save(tmp_path / "key.png", transparency=7)
    # the PNG's tRNS colour (7) is transparent; the other pixels are opaque
    np.testing.assert_array_equal(load_image(tmp_path / "key.png", mode="alpha").solid, [[1, 0, 1]])
    np.testing.assert_array_equal(load_image(tmp_path / "key.png").solid, [[1, 1, 0]])


def test_many_blocks_keep_rows_in_order(monkeypatch):
    import tilecast.io.image as image_module

    monkeypatch.setattr(image_module, "CHUNK_PIXELS", 7)  # 2 rows of 3 pixels per block
    pixels = np.random.default_rng(5).integers(0, 256, size=(11, 3, 3), dtype=np.uint8)
    grid = load_image(pixels)
    for y in range(11):
        for x in range(3):
            assert grid.is_solid((x, y)) == (gray_oracle(*(int(v) for v in pixels[y, x])) < 128)


MEMORY_PROBE = """
import sys
import numpy, PIL.Image, yaml
import tilecast.grid, tilecast.io.image, tilecast.io.ros
from tilecast.io import load_image, load_ros_map


def status(key):  # VmRSS: resident now; VmHWM: this process's peak (ru_maxrss can
    with open("/proc/self/status") as lines:  # include the parent's size at fork)
        for line in lines:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024


before = status("VmRSS")  # all imports done
kind, path = sys.argv[1], sys.argv[2]
grid = load_image(path) if kind == "image" else load_ros_map(path)
print(status("VmHWM") - before, int(grid.solid.sum()))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("kind", ["image", "ros"])
def test_decoding_a_large_map_needs_about_two_bytes_per_pixel(tmp_path, kind):
    # issue 15: the decoded picture (1 byte per pixel for 8-bit gray) plus the
    # solid array is the floor; whole-image conversions and copies cost 3 to 10
    pytest.importorskip("yaml")
    side = 6000
    pixels = np.full((side, side), 254, dtype=np.uint8)
    pixels[::97, :] = 0
    pixels[:, ::89] = 0
    pixels[3000:3500, 2000:4100] = 205
    Image.fromarray(pixels).save(tmp_path / "big.png")
    (tmp_path / "big.yaml").write_text("image: big.png\nresolution: 0.05\norigin: [0, 0, 0]\n")
    target = tmp_path / ("big.png" if kind == "image" else "big.yaml")
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, kind, str(target)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    extra, solid = (int(v) for v in result.stdout.split())
    walls = pixels < 128 if kind == "image" else pixels != 254  # ROS: 205 is unknown
    assert solid == int(walls.sum())
    assert extra < 2.6 * side * side, f"{extra / side**2:.2f} bytes per pixel"
