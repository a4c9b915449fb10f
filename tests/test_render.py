import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("PIL")

from tilecast import Grid, fov, raycast
from tilecast.render import COLORS, Picture, render_map

SOLID = np.array(
    [
        [1, 1, 1, 1, 1],
        [1, 0, 0, 0, 1],
        [1, 0, 1, 0, 1],
        [1, 1, 1, 1, 1],
    ],
    dtype=bool,
)


def pixels(image):
    return np.asarray(image.convert("RGB"))


def test_map_colours_per_cell():
    scale = 6
    image = Picture(Grid(SOLID), scale).image
    assert image.size == (5 * scale, 4 * scale)
    array = pixels(image)
    wall, floor = np.array(COLORS["wall"][:3]), np.array(COLORS["floor"][:3])
    for row in range(4):
        for col in range(5):
            block = array[row * scale : (row + 1) * scale, col * scale : (col + 1) * scale]
            expected = wall if SOLID[row, col] else floor
            assert (block == expected).all(), (row, col)


def test_y_up_flips_rows():
    down = pixels(Picture(Grid(SOLID), 3).image)
    up = pixels(Picture(Grid(SOLID), 3, y_up=True).image)
    np.testing.assert_array_equal(up, down[::-1])


def test_to_pixels_uses_tile_size_and_origin():
    grid = Grid(SOLID, tile_size=(2.0, 0.5), origin=(-4.0, 10.0))
    picture = Picture(grid, scale=10)
    np.testing.assert_allclose(
        picture.to_pixels([(-4.0, 10.0), (-3.0, 10.25), (6.0, 12.0)]),
        [(0, 0), (5, 5), (50, 40)],
    )
    flipped = Picture(grid, scale=10, y_up=True)
    np.testing.assert_allclose(flipped.to_pixels([(-4.0, 10.0)]), [(0, 40)])


def test_fov_tints_exactly_the_visible_cells():
    grid = Grid(SOLID)
    mask = fov(grid, (1, 1))
    scale = 4
    plain = pixels(Picture(grid, scale).image)
    tinted = pixels(Picture(grid, scale).fov(mask).image)
    changed = (plain != tinted).any(axis=2)
    cell_changed = changed.reshape(4, scale, 5, scale).all(axis=(1, 3))
    np.testing.assert_array_equal(cell_changed, mask)
    assert not changed[np.repeat(np.repeat(~mask, scale, 0), scale, 1)].any()


def test_rays_hits_polygon_and_segments_change_the_right_pixels():
    grid = Grid(SOLID)
    hit = raycast(grid, (1.5, 1.5), (1.0, 0.0))
    assert hit.point == (4.0, 1.5)
    scale = 10
    base = pixels(Picture(grid, scale).image)
    drawn = pixels(Picture(grid, scale).rays((1.5, 1.5), [hit.point]).hits([hit.point]).image)
    assert (drawn[15, 20] != base[15, 20]).any()  # on the ray
    assert (drawn[15, 40] == np.array(COLORS["hits"][:3])).all()  # the hit dot
    assert (drawn[35, 5] == base[35, 5]).all()  # far from both
    poly = pixels(Picture(grid, scale).polygon([(1, 1), (4, 1), (4, 2), (1, 2)]).image)
    assert (poly[15, 25] != base[15, 25]).any() and (poly[25, 15] == base[25, 15]).all()
    segs = pixels(Picture(grid, scale).segments([[(1, 3), (4, 3)]]).image)
    assert (segs[30, 25] != base[30, 25]).any() and (segs[5, 25] == base[5, 25]).all()


def test_misses_are_skipped():
    grid = Grid(SOLID)
    base = pixels(Picture(grid, 4).image)
    drawn = pixels(Picture(grid, 4).hits([(np.nan, np.nan)]).rays((1, 1), [(np.nan, 1)]).image)
    np.testing.assert_array_equal(drawn, base)


def test_render_map_and_save(tmp_path):
    grid = Grid(SOLID)
    image = render_map(
        grid,
        scale=5,
        fov=fov(grid, (1, 1)),
        viewer=(1.5, 1.5),
        hits=[(4.0, 1.5)],
        segments=[[(1, 1), (4, 1)]],
        polygon=[(1, 1), (2, 1), (2, 2)],
    )
    assert image.size == (25, 20) and image.mode == "RGB"
    path = tmp_path / "map.png"
    Picture(grid, 5).save(path)
    from PIL import Image

    with Image.open(path) as saved:
        assert saved.size == (25, 20)


def test_custom_colours():
    array = pixels(Picture(Grid(SOLID), 2, colors={"wall": "red", "floor": (0, 0, 255)}).image)
    assert tuple(array[0, 0]) == (255, 0, 0) and tuple(array[3, 3]) == (0, 0, 255)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda g: Picture(g, 0), ValueError),
        (lambda g: Picture(g, float("nan")), ValueError),
        (lambda g: Picture([[0, 1]]), TypeError),
        (lambda g: Picture(g, colors={"sky": "red"}), ValueError),
        (lambda g: Picture(g, colors={"wall": (1, 2)}), ValueError),
        (lambda g: Picture(g, colors={"wall": "no-such-colour"}), ValueError),
        (lambda g: Picture(g).fov(np.ones((2, 2), bool)), ValueError),
        (lambda g: Picture(g).rays([(0, 0), (1, 1)], [(1, 1), (2, 2), (3, 3)]), ValueError),
        (lambda g: render_map(g, viewer=(np.nan, 1)), ValueError),
    ],
)
def test_bad_input(call, error):
    with pytest.raises(error):
        call(Grid(SOLID))


def test_import_tilecast_is_light():
    # (PyYAML is not checked: numba itself imports it when present)
    code = (
        "import sys, tilecast, tilecast.io, tilecast.render, tilecast.cli; "
        "heavy = [m for m in ('PIL', 'pygame') if m in sys.modules]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


GOLDEN = __import__("pathlib").Path(__file__).parent / "data" / "golden_scene.png"


def golden_scene():
    """A fixed scene with every layer: the bundled map, FOV, lit area, rays, hits."""
    import math

    from tilecast import visibility_polygon, wall_segments
    from tilecast.data import example_map

    grid = example_map()
    viewer = (21.5, 14.5)
    seen = fov(grid, grid.cell_at(viewer), radius=10)
    lit = visibility_polygon(wall_segments(grid), viewer, radius=10.0)
    hits = [raycast(grid, viewer, (math.cos(a), math.sin(a)), 10.0) for a in range(0, 360, 15)]
    points = [h.point for h in hits if h is not None]
    picture = Picture(grid, 6, grid_lines=True).fov(seen).polygon(lit)
    picture = picture.segments(wall_segments(grid)).rays(viewer, points).hits(points)
    return picture.points([viewer]).image


def test_golden_image_with_tolerance():
    """The whole scene matches the stored picture up to anti-aliasing noise.

    Regenerate with TILECAST_UPDATE_GOLDEN=1 after an intended change, and look
    at the new picture before committing it.
    """
    import os

    from PIL import Image

    image = golden_scene().convert("RGB")
    if os.environ.get("TILECAST_UPDATE_GOLDEN"):
        image.save(GOLDEN)
    with Image.open(GOLDEN) as stored:
        expected = np.asarray(stored.convert("RGB"), dtype=np.int16)
    got = np.asarray(image, dtype=np.int16)
    assert got.shape == expected.shape
    diff = np.abs(got - expected).max(axis=2)
    # Pillow versions may rasterise line ends and circles a little differently:
    # allow small colour noise and a few changed pixels, nothing more.
    assert diff.mean() < 1.0
    assert (diff > 40).mean() < 0.005


def test_lights_blend_each_light_s_polygon_from_the_scene():
    """Picture.lights draws scene.polygons' answers, one blend per light (light adds up)."""
    from tilecast import VisibilityScene

    grid = Grid(SOLID, outside="solid")
    scene = VisibilityScene.from_grid(grid)
    lights = np.array([(1.5, 1.5), (3.5, 1.5)])
    got = pixels(Picture(grid, scale=8).lights(scene, lights, radius=5.0).image)
    want = Picture(grid, scale=8)
    for polygon in scene.polygons(lights, radius=5.0):
        want.polygon(polygon, color=COLORS["light"], outline=(0, 0, 0, 0))
    assert np.array_equal(got, pixels(want.image))
    plain = pixels(Picture(grid, scale=8).image)
    one = pixels(Picture(grid, scale=8).lights(scene, lights[:1], radius=5.0).image)
    # a point both lights see is tinted twice; one the pillar hides from the second
    # light, once (as by the first light alone)
    assert not np.array_equal(got[12, 20], one[12, 20])  # (2.5, 1.5): both
    assert not np.array_equal(one[12, 20], plain[12, 20])
    assert np.array_equal(got[22, 9], one[22, 9])  # (1.2, 2.8): the first light only
    assert not np.array_equal(one[22, 9], plain[22, 9])
    assert np.array_equal(got[20, 20], plain[20, 20])  # the pillar cell (2, 2)
    with pytest.raises(ValueError, match="lights"):
        Picture(grid).lights(scene, [(1.5, 1.5, 0.0)])
    with pytest.raises(TypeError, match="scene"):
        Picture(grid).lights(grid, lights)
    with pytest.raises((TypeError, ValueError), match="color"):
        Picture(grid).lights(scene, np.empty((0, 2)), color="no such colour")
