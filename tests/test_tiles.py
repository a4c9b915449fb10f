import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.oracle import raycast_all_oracle
from tilecast import Grid, TileMap, TileSet, line_of_sight, raycast, raycast_all
from tilecast.tiles import flip_mask

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GAPS = ["block_if_both", "block_if_either", "open"]

# (world tile size or None, origin); None: one pixel per world unit
GEOMETRIES = [
    (None, (0.0, 0.0)),
    (None, (-3.0, 2.0)),
    ((1.0, 1.0), (0.0, 0.0)),
    ((2.0, 0.5), (-1.0, 0.25)),
    ((0.1, 0.3), (0.05, -0.2)),
    ((32.0, 16.0), (100.0, -64.0)),
]


# ------------------------------------------------------------- strategies
@st.composite
def tilemaps(draw, max_tiles: int = 5):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    square = draw(st.booleans())
    tw = draw(st.integers(1, 5))
    th = tw if square else draw(st.integers(1, 5))
    count = draw(st.integers(1, 4))
    masks = rng.random((count, th, tw)) < draw(st.sampled_from([0.3, 0.6]))
    for k in range(count):  # some empty and full tiles, the two-level shortcuts
        kind = rng.integers(0, 4)
        if kind == 0:
            masks[k] = False
        elif kind == 1:
            masks[k] = True
    rows = draw(st.integers(1, max_tiles))
    cols = draw(st.integers(1, max_tiles))
    ids = rng.integers(-1, count, size=(rows, cols))
    ids[rng.random((rows, cols)) < 0.3] = -1
    flips = rng.integers(0, 8 if square else 4, size=(rows, cols))
    tile_size, origin = draw(st.sampled_from(GEOMETRIES))
    outside = draw(st.sampled_from(["empty", "solid"]))
    return TileMap(ids, TileSet(masks), tile_size, origin, flips=flips, outside=outside)


def _coordinate(draw, pixel: float, origin: float, pixels_per_tile: int, tiles: int) -> float:
    kind = draw(st.sampled_from(["pixel_centre", "pixel_line", "tile_line", "random"]))
    span = pixels_per_tile * tiles
    if kind == "pixel_centre":
        return origin + (draw(st.integers(-2, span + 2)) + 0.5) * pixel
    if kind == "pixel_line":
        return origin + draw(st.integers(-2, span + 2)) * pixel
    if kind == "tile_line":
        return origin + draw(st.integers(-1, tiles + 1)) * pixels_per_tile * pixel
    return origin + draw(st.floats(-2.0, span + 2.0, allow_nan=False)) * pixel


@st.composite
def tile_points(draw, tmap: TileMap):
    (pw, ph), (ox, oy), (tw, th) = tmap.pixel_size, tmap.origin, tmap.tile_pixels
    return (
        _coordinate(draw, pw, ox, tw, tmap.cols),
        _coordinate(draw, ph, oy, th, tmap.rows),
    )


@st.composite
def tile_directions(draw, tmap: TileMap):
    (pw, ph), (tw, th) = tmap.pixel_size, tmap.tile_pixels
    kind = draw(st.sampled_from(["axis", "pixel_diagonal", "tile_diagonal", "lattice", "random"]))
    if kind == "axis":
        return draw(st.sampled_from([(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -2.5)]))
    sx, sy = draw(st.sampled_from([(1, 1), (1, -1), (-1, 1), (-1, -1)]))
    if kind == "pixel_diagonal":
        return (sx * pw, sy * ph)
    if kind == "tile_diagonal":
        return (sx * tw * pw, sy * th * ph)
    if kind == "lattice":
        a = draw(st.integers(-6, 6))
        b = draw(st.integers(-6, 6).filter(lambda v: v != 0 or a != 0))
        return (a * pw, b * ph)
    angle = draw(st.floats(0.0, 6.283185307179586))
    return (math.cos(angle), math.sin(angle))


@st.composite
def ray_cases(draw):
    tmap = draw(tilemaps())
    origin = draw(tile_points(tmap))
    direction = draw(tile_directions(tmap))
    max_distance = draw(st.sampled_from([math.inf, 0.0, 3.0]) | st.floats(0.0, 200.0))
    return tmap, origin, direction, max_distance, draw(st.sampled_from(GAPS)), draw(st.booleans())


def _as_tile_hit(hit, tmap):
    """A pixel-grid hit restated as the tile map reports it."""
    tw, th = tmap.tile_pixels
    (p, q) = hit.cell
    return (hit.point, hit.normal, hit.distance, (p // tw, q // th), hit.inside, (p % tw, q % th))


def _fields(hit):
    return (hit.point, hit.normal, hit.distance, hit.cell, hit.inside, hit.pixel)


# ------------------------------------------------------ equivalence tests
@SETTINGS
@given(ray_cases())
def test_raycast_all_equals_the_pixel_grid(case):
    tmap, origin, direction, max_distance, gaps, ignore_start = case
    kwargs = {"diagonal_gaps": gaps, "ignore_start": ignore_start, "max_results": 40}
    pixels = tmap.to_pixel_grid()
    got = raycast_all(tmap, origin, direction, max_distance, **kwargs)
    expected = raycast_all(pixels, origin, direction, max_distance, **kwargs)
    assert [_fields(h) for h in got] == [_as_tile_hit(h, tmap) for h in expected]
    first = raycast(tmap, origin, direction, max_distance, diagonal_gaps=gaps)
    if not ignore_start:
        assert first == (got[0] if got else None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ray_cases())
def test_tilemap_raycast_all_matches_exact_oracle_on_pixels(case):
    # the exact sorted-crossings oracle on the expanded pixels, independent of the DDA
    tmap, origin, direction, max_distance, gaps, ignore_start = case
    pixels = tmap.to_pixel_grid()
    got = raycast_all(tmap, origin, direction, max_distance, diagonal_gaps=gaps,
                      ignore_start=ignore_start)  # fmt: skip
    expected = raycast_all_oracle(pixels, origin, direction, max_distance, gaps, ignore_start)
    tw, th = tmap.tile_pixels
    assert [(h.cell, h.pixel) for h in got] == [
        ((p // tw, q // th), (p % tw, q % th)) for (p, q), *_ in expected
    ]
    assert [h.distance for h in got] == [e[2] for e in expected]


@SETTINGS
@given(st.data())
def test_line_of_sight_equals_the_pixel_grid_and_is_symmetric(data):
    tmap = data.draw(tilemaps())
    a, b = data.draw(tile_points(tmap)), data.draw(tile_points(tmap))
    gaps = data.draw(st.sampled_from(GAPS))
    pixels = tmap.to_pixel_grid()
    seen = line_of_sight(tmap, a, b, diagonal_gaps=gaps)
    assert seen == line_of_sight(pixels, a, b, diagonal_gaps=gaps)
    assert seen == line_of_sight(tmap, b, a, diagonal_gaps=gaps)


@SETTINGS
@given(st.data())
def test_is_point_solid_and_to_grid_agree_with_the_pixels(data):
    tmap = data.draw(tilemaps())
    point = data.draw(tile_points(tmap))
    pixels = tmap.to_pixel_grid()
    assert tmap.is_point_solid(point) == pixels.is_solid(pixels.cell_at(point))
    tw, th = tmap.tile_pixels
    blocks = pixels.solid.reshape(tmap.rows, th, tmap.cols, tw).any(axis=(1, 3))
    coarse = tmap.to_grid()
    assert np.array_equal(coarse.solid, blocks)
    assert coarse.tile_size == tmap.tile_size and coarse.origin == tmap.origin
    assert pixels.outside == coarse.outside == tmap.outside


# ---------------------------------------------------- two-level walking
def test_full_tiles_are_hit_at_the_face():
    full = TileSet(np.ones((1, 8, 8), dtype=bool))
    tmap = TileMap([[-1, -1, 0]], full, tile_size=1.0)
    hit = raycast(tmap, (0.5, 0.3), (1.0, 0.0))
    assert hit.cell == (2, 0) and hit.pixel == (0, 2) and hit.point == (2.0, 0.3)
    assert hit.normal == (-1.0, 0.0) and hit.distance == 1.5


def test_corner_between_tiles_uses_pixel_shoulders():
    # four tiles meet at the lattice point (2, 2); two of them have one solid
    # pixel each touching it: a diagonal ray must not leak between them
    a = np.zeros((2, 2), dtype=bool)
    a[1, 1] = True  # bottom-right pixel
    tmap = TileMap([[-1, 0], [0, -1]], TileSet([a]), flips=[[0, 1], [2, 0]])
    pixels = tmap.to_pixel_grid().solid.astype(int).tolist()
    assert pixels == [[0, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]]
    for gaps in ("block_if_both", "block_if_either"):
        hit = raycast(tmap, (0.5, 0.5), (1.0, 1.0), diagonal_gaps=gaps)
        assert hit.cell == (1, 0) and hit.pixel == (0, 1) and hit.point == (2.0, 2.0)
        assert hit.normal == pytest.approx((-1 / math.sqrt(2), -1 / math.sqrt(2)))
    hits = raycast_all(tmap, (0.5, 0.5), (1.0, 1.0))
    assert [(h.cell, h.pixel) for h in hits] == [((1, 0), (0, 1)), ((0, 1), (1, 0))]
    assert raycast(tmap, (0.5, 0.5), (1.0, 1.0), diagonal_gaps="open") is None
    assert not line_of_sight(tmap, (0.5, 0.5), (3.5, 3.5))
    assert line_of_sight(tmap, (0.5, 0.5), (3.5, 3.5), diagonal_gaps="open")


def test_line_of_sight_across_many_empty_tiles():
    tiles = TileSet(np.zeros((1, 16, 16), dtype=bool))
    tmap = TileMap(np.zeros((50, 50), dtype=int), tiles, outside="solid")
    assert line_of_sight(tmap, (0.5, 0.5), (799.5, 799.5))
    tmap.set_tile((25, 25), -1)
    assert line_of_sight(tmap, (0.5, 0.5), (799.5, 799.5))
    solid = TileSet(np.ones((1, 16, 16), dtype=bool))
    walled = TileMap(np.where(np.eye(50, dtype=bool)[::-1], 0, -1), solid)
    assert not line_of_sight(walled, (0.5, 0.5), (799.5, 799.5))
    assert line_of_sight(walled, (0.5, 0.5), (300.5, 0.5))


def test_rays_from_far_away_and_an_empty_id_that_is_a_tile_id():
    tiles = TileSet([np.zeros((3, 3), bool), np.eye(3, dtype=bool)])
    tmap = TileMap([[0, 1], [1, 0]], tiles, empty=0, tile_size=(0.3, 0.7), origin=(-5.0, 2.0))
    assert tmap.cell_kinds.tolist() == [[0, 2], [2, 0]]
    pixels = tmap.to_pixel_grid()
    for origin, direction in [
        ((-1e9, 2.0 + 0.7 * 1.5), (1.0, 0.0)),
        ((1e12, 2.05), (-1.0, 0.0)),
        ((-5.0 - 1e6, 2.0 - 1e6), (1.0, 1.0)),
        ((-4.7, -1e8), (0.0, 1.0)),
    ]:
        got = raycast_all(tmap, origin, direction)
        expected = raycast_all(pixels, origin, direction)
        assert len(got) > 0
        assert [_fields(h) for h in got] == [_as_tile_hit(h, tmap) for h in expected]


def test_outside_solid_hit_names_the_outside_tile():
    tmap = TileMap([[-1]], TileSet(np.zeros((1, 4, 3), dtype=bool)), outside="solid")
    hit = raycast(tmap, (1.5, 2.5), (-1.0, 0.0))
    assert hit.cell == (-1, 0) and hit.pixel == (2, 2) and hit.point == (0.0, 2.5)


# ------------------------------------------------------------------ flips
M = np.array([[1, 1, 1], [1, 0, 0], [0, 0, 0]], dtype=bool)  # no symmetry at all


def test_flip_order_is_diagonal_then_horizontal_then_vertical():
    for flags in range(8):
        expected = M.T if flags & 4 else M
        if flags & 1:
            expected = expected[:, ::-1]
        if flags & 2:
            expected = expected[::-1, :]
        assert np.array_equal(flip_mask(M, flags), expected)
    # Tiled's rotations: 90 clockwise = diagonal + horizontal, counter-clockwise =
    # diagonal + vertical, 180 = horizontal + vertical
    assert np.array_equal(flip_mask(M, 4 | 1), np.rot90(M, k=-1))
    assert np.array_equal(flip_mask(M, 4 | 2), np.rot90(M, k=1))
    assert np.array_equal(flip_mask(M, 1 | 2), np.rot90(M, k=2))
    assert len({flip_mask(M, f).tobytes() for f in range(8)}) == 8


def test_hand_made_flips_in_the_map_and_in_hits():
    tmap = TileMap([[0, 0, 0, 0]], TileSet([M]), flips=[[0, 1, 4, 5]])
    rows = tmap.to_pixel_grid().solid.astype(int)
    assert rows[:, 0:3].tolist() == [[1, 1, 1], [1, 0, 0], [0, 0, 0]]  # as stored
    assert rows[:, 3:6].tolist() == [[1, 1, 1], [0, 0, 1], [0, 0, 0]]  # horizontal
    assert rows[:, 6:9].tolist() == [[1, 1, 0], [1, 0, 0], [1, 0, 0]]  # diagonal
    assert rows[:, 9:12].tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 1]]  # 90 deg clockwise
    # down the column x = 4.5: the mirrored tile's pixel (1, 0) at once
    hit = raycast(tmap, (4.5, -1.0), (0.0, 1.0))
    assert hit.cell == (1, 0) and hit.pixel == (1, 0) and hit.point == (4.5, 0.0)
    # leftwards along row 2 from inside the transposed tile: its pixel (0, 2)
    hit = raycast(tmap, (8.5, 2.5), (-1.0, 0.0))
    assert hit.cell == (2, 0) and hit.pixel == (0, 2) and hit.point == (7.0, 2.5)
    assert hit.normal == (1.0, 0.0) and hit.distance == 1.5
    # leftwards along row 1 from beyond the map: the rotated tile's pixel (2, 1)
    hit = raycast(tmap, (20.0, 1.5), (-1.0, 0.0))
    assert hit.cell == (3, 0) and hit.pixel == (2, 1) and hit.point == (12.0, 1.5)


def test_diagonal_flip_needs_square_tiles():
    tiles = TileSet(np.zeros((1, 2, 3), dtype=bool))
    with pytest.raises(ValueError, match=r"flips.*square"):
        TileMap([[0]], tiles, flips=[[4]])
    TileMap([[-1]], tiles, flips=[[4]])  # no tile there: nothing to flip
    tmap = TileMap([[0]], tiles, flips=[[3]])
    with pytest.raises(ValueError, match=r"flips.*square"):
        tmap.set_tile((0, 0), 0, flips=5)


def test_set_tile_updates_queries():
    tiles = TileSet([np.zeros((2, 2), bool), np.eye(2, dtype=bool)])
    tmap = TileMap([[0, 0, 0]], tiles)
    assert raycast(tmap, (0.5, 0.5), (1.0, 0.0)) is None
    tmap.set_tile([[2, 0]], 1, flips=1)  # anti-diagonal: pixel (1, 0) solid
    hit = raycast(tmap, (0.5, 0.5), (1.0, 0.0))
    assert hit.cell == (2, 0) and hit.pixel == (1, 0) and hit.point == (5.0, 0.5)
    assert tmap.version == 1 and tmap.tile_ids.tolist() == [[0, 0, 1]]
    assert tmap.flips.tolist() == [[0, 0, 1]]
    tmap.set_tile((2, 0), -1)
    assert raycast(tmap, (0.5, 0.5), (1.0, 0.0)) is None and tmap.flips[0, 2] == 0


def test_flat_arrays_for_kernels():
    tiles = TileSet([np.zeros((2, 2), bool), np.ones((2, 2), bool), np.eye(2, dtype=bool)])
    tmap = TileMap([[2, -1], [2, 1]], tiles, flips=[[0, 7], [1, 0]])
    assert tmap.tile_ids.dtype == np.int32 and tmap.flips.dtype == np.uint8
    assert tmap.flips.tolist() == [[0, 0], [1, 0]]  # flags of empty cells are dropped
    assert tmap.cell_variant.dtype == np.int32 and tmap.cell_variant[0, 1] == -1
    assert tmap.cell_kinds.tolist() == [[2, 0], [2, 1]]
    for j in range(2):
        for i in range(2):
            v = tmap.cell_variant[j, i]
            if v >= 0:
                key = int(tmap.tile_ids[j, i]) * 8 + int(tmap.flips[j, i])
                assert tmap.variant_keys[v] == key
                assert np.array_equal(
                    tmap.variant_masks[v], flip_mask(tiles.masks[key // 8], key % 8)
                )
    assert not tmap.variant_masks.flags.writeable


# ------------------------------------------------------------ from_image
def _rgba(rng, height, width):
    image = rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8)
    image[..., 3] = rng.choice([0, 0, 10, 128, 255], size=(height, width))
    return image


def test_from_image_array_reading_order_and_threshold():
    rng = np.random.default_rng(7)
    image = _rgba(rng, 6, 8)  # 2 rows x 4 cols of 2x3... tiles of 2 wide, 3 high
    tiles = TileSet.from_image(image, (2, 3))
    assert len(tiles) == 8 and tiles.tile_size == (2, 3)
    for k in range(8):
        row, col = divmod(k, 4)
        block = image[row * 3 : row * 3 + 3, col * 2 : col * 2 + 2, 3]
        assert np.array_equal(tiles.masks[k], block > 0)
        assert np.array_equal(TileSet.from_image(image, (2, 3), 128).masks[k], block > 128)


def test_from_image_margin_and_spacing_like_tiled():
    rng = np.random.default_rng(8)
    image = _rgba(rng, 2 * 1 + 3 * 4 + 2 * 2, 2 * 1 + 2 * 4 + 1 * 2 + 1)  # one leftover column
    tiles = TileSet.from_image(image, 4, margin=1, spacing=2)
    assert len(tiles) == 2 * 3
    for k in range(len(tiles)):
        row, col = divmod(k, 2)
        y, x = 1 + row * 6, 1 + col * 6
        assert np.array_equal(tiles.masks[k], image[y : y + 4, x : x + 4, 3] > 0)


def test_from_image_pil_and_png_file(tmp_path):
    image_module = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(9)
    rgba = _rgba(rng, 8, 12)
    expected = TileSet.from_image(rgba, 4).masks
    pil = image_module.fromarray(rgba, mode="RGBA")
    assert np.array_equal(TileSet.from_image(pil, 4).masks, expected)
    path = tmp_path / "tiles.png"
    pil.save(path)
    assert np.array_equal(TileSet.from_image(path, 4).masks, expected)
    assert np.array_equal(TileSet.from_image(str(path), (4, 4)).masks, expected)
    # an RGB image needs a colour key
    rgb_path = tmp_path / "rgb.png"
    image_module.fromarray(rgba[..., :3], mode="RGB").save(rgb_path)
    with pytest.raises(ValueError, match="alpha"):
        TileSet.from_image(rgb_path, 4)
    key = tuple(int(c) for c in rgba[0, 0, :3])
    keyed = TileSet.from_image(rgb_path, 4, color_key=key)
    assert not keyed.masks[0, 0, 0]
    assert np.array_equal(keyed.masks[0], np.any(rgba[:4, :4, :3] != key, axis=2))


def test_from_image_color_key_on_arrays():
    rgb = np.zeros((2, 2, 3), dtype=np.uint8)
    rgb[0, 1] = (255, 0, 255)
    rgb[1, 0] = (255, 0, 254)
    tiles = TileSet.from_image(rgb, 2, color_key=(255, 0, 255))
    assert tiles.masks[0].tolist() == [[True, False], [True, True]]
    with pytest.raises(ValueError, match="alpha"):
        TileSet.from_image(rgb, 2)


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: TileSet(np.zeros((2, 2), bool)), ValueError, "masks"),
        (lambda: TileSet(np.zeros((0, 2, 2), bool)), ValueError, "masks"),
        (lambda: TileSet(np.zeros((1, 2, 2), float)), TypeError, "masks"),
        (lambda: TileSet([[[1, 0]], [[1]]]), ValueError, "masks"),
        (lambda: TileSet.from_image(np.zeros((4, 4, 4)), 0), ValueError, "tile_size"),
        (lambda: TileSet.from_image(np.zeros((4, 4, 4)), 2.5), TypeError, "tile_size"),
        (lambda: TileSet.from_image(np.zeros((4, 4, 4)), 8), ValueError, "image"),
        (lambda: TileSet.from_image(np.zeros((4, 4)), 2), ValueError, "image"),
        (lambda: TileSet.from_image(np.zeros((4, 4, 4)), 2, margin=-1), ValueError, "margin"),
        (lambda: TileSet.from_image(np.zeros((4, 4, 4)), 2, spacing=1.0), TypeError, "spacing"),
        (lambda: TileSet.from_image(np.zeros((4, 4, 4)), 2, math.nan), ValueError, "alpha"),
        (lambda: TileSet.from_image(np.zeros((4, 4, 4)), 2, color_key=(1, 2)), ValueError, "key"),
        (lambda: TileSet.from_image(42, 2), TypeError, "image"),
        (lambda: TileSet.from_image("/no/such/tiles.png", 2), ValueError, "tiles.png"),
        (lambda: TileMap([[0]], "tiles"), TypeError, "tileset"),
        (lambda: TileMap([[0, 3]], TILES), ValueError, "tile_ids.*3"),
        (lambda: TileMap([[0, -2]], TILES), ValueError, "tile_ids"),
        (lambda: TileMap([[0.0]], TILES), TypeError, "tile_ids"),
        (lambda: TileMap([0, 1], TILES), ValueError, "tile_ids"),
        (lambda: TileMap(np.zeros((0, 3), int), TILES), ValueError, "tile_ids"),
        (lambda: TileMap([[0, 1]], TILES, flips=[[0]]), ValueError, "flips"),
        (lambda: TileMap([[0, 1]], TILES, flips=[[0, 8]]), ValueError, "flips"),
        (lambda: TileMap([[0, 1]], TILES, flips=[[0, -1]]), ValueError, "flips"),
        (lambda: TileMap([[0, 1]], TILES, flips=[[0, 1.0]]), TypeError, "flips"),
        (lambda: TileMap([[0]], TILES, tile_size=0.0), ValueError, "tile_size"),
        (lambda: TileMap([[0]], TILES, tile_size=(1.0, math.inf)), ValueError, "tile_size"),
        (lambda: TileMap([[0]], TILES, origin=(0.0,)), ValueError, "origin"),
        (lambda: TileMap([[0]], TILES, empty=None), TypeError, "empty"),
        (lambda: TileMap([[0]], TILES, outside="wall"), ValueError, "outside"),
        (lambda: TileMap([[0]], TILES).set_tile((0, 0), 5), ValueError, "tile_id"),
        (lambda: TileMap([[0]], TILES).set_tile((1, 0), 0), ValueError, "cells"),
        (lambda: TileMap([[0]], TILES).set_tile((0, 0), 0, flips=9), ValueError, "flips"),
        (lambda: TileMap([[0]], TILES).is_point_solid((math.nan, 0.0)), ValueError, "point"),
        # fuzz maps 25923 (issue 36): pixel coordinates overflowing a float were an OverflowError
        (
            lambda: TileMap([[0]], TILES, tile_size=1e-300).is_point_solid((4, -(2**63))),
            ValueError,
            "^point .* overflow a float",
        ),
        (lambda: TILES.mask(2), ValueError, "tile_id"),
        (lambda: flip_mask(np.zeros((2, 2)), 8), ValueError, "flips"),
        (lambda: raycast(TileMap([[0]], TILES), (0.0, 0.0), (0.0, 0.0)), ValueError, "direction"),
        (lambda: line_of_sight(TileMap([[0]], TILES), (0.0, 0.0), (1.0,)), ValueError, "b"),
        (lambda: raycast(TILES, (0.0, 0.0), (1.0, 0.0)), TypeError, "grid"),
    ],
)
def test_bad_input_names_the_argument(make, error, match):
    with pytest.raises(error, match=match):
        make()


TILES = TileSet(np.ones((2, 2, 2), dtype=bool))


def test_pillow_missing_gives_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("no PIL here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match="Pillow"):
        TileSet.from_image("tiles.png", 2)
    # arrays need no Pillow
    assert len(TileSet.from_image(np.zeros((2, 2, 4), dtype=np.uint8), 1)) == 4


def test_equivalence_holds_on_a_grid_with_the_same_pixels():
    # sanity of the comparison itself: a TileMap of 1x1 tiles is its own pixel grid
    rng = np.random.default_rng(3)
    solid = rng.random((6, 7)) < 0.3
    tmap = TileMap(solid.astype(int), TileSet([[[0]], [[1]]]), tile_size=(1.5, 0.5))
    grid = Grid(solid, tile_size=(1.5, 0.5))
    for angle in np.linspace(0, 2 * np.pi, 37):
        d = (math.cos(angle), math.sin(angle))
        a, b = raycast(tmap, (4.0, 1.4), d), raycast(grid, (4.0, 1.4), d)
        assert (a is None) == (b is None)
        if a is not None:
            assert (a.point, a.cell, a.pixel) == (b.point, b.cell, (0, 0))


@pytest.mark.parametrize("bad", [(0.5, 0), "ab", (1,), None, (True, 0)])
def test_pixel_solid_rejects_anything_but_a_pair_of_integers(bad):
    tmap = TileMap([[0, 0]], TileSet([[[1, 0]]]))
    with pytest.raises(TypeError, match="pixel"):
        tmap.pixel_solid(bad)
