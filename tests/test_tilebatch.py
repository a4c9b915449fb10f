"""raycast_many, scan and scan_many on a TileMap: the compiled two-level kernel.

Every ray must equal ``raycast`` on the same TileMap (which test_tiles.py
checks against the exact oracle on the pixel grid, and tests/internal against
the far-range walk), and hence ``raycast_many`` on ``to_pixel_grid()``.
"""

import math
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tilecast.batch as batch_module
from tilecast import Grid, Hits, TileMap, TileSet, raycast, raycast_many, scan, scan_many
from tilecast.batch import CLEARANCE_CAP, beam_directions, tile_info_map

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


def random_tilemap(rng, rows, cols, tw, th, geometry, outside, empty_share=0.4, room=True):
    """Random asymmetric tiles (some empty, some full), random flips, an empty room."""
    count = 6
    masks = rng.random((count, th, tw)) < rng.uniform(0.2, 0.7, (count, 1, 1))
    masks[0] = False  # a transparent tile: empty, but not "no tile"
    masks[1] = True
    masks[2, :, : max(tw // 2, 1)] = True  # a half block
    masks[2, :, max(tw // 2, 1) :] = False
    masks[3] = False  # mostly clear: rays jump through clear squares of pixels
    masks[3, th - 1, tw - 1] = True
    ids = rng.integers(0, count, (rows, cols))
    ids[rng.random((rows, cols)) < empty_share] = -1
    if room:
        ids[rows // 4 : rows // 2 + 1, cols // 4 : (3 * cols) // 4] = -1
    square = tw == th
    flips = rng.integers(0, 8 if square else 4, (rows, cols))
    tile_size, origin = geometry
    return TileMap(ids, TileSet(masks), tile_size, origin, flips=flips, outside=outside)


def hard_rays(rng, tmap, n):
    """Origins on pixel centres, pixel lines, tile lines and at random; mixed directions."""
    (pw, ph), (ox, oy), (tw, th) = tmap.pixel_size, tmap.origin, tmap.tile_pixels
    pcols, prows = tmap.cols * tw, tmap.rows * th
    u = rng.uniform(-3, pcols + 3, n)
    v = rng.uniform(-3, prows + 3, n)
    kind = rng.integers(0, 5, n)
    u[kind == 0] = np.floor(u[kind == 0]) + 0.5  # pixel centres
    v[kind == 0] = np.floor(v[kind == 0]) + 0.5
    u[kind == 1] = np.floor(u[kind == 1])  # pixel lines (lattice points)
    v[kind == 1] = np.floor(v[kind == 1])
    u[kind == 2] = np.floor(u[kind == 2] / tw) * tw  # tile lines
    v[kind == 3] = np.floor(v[kind == 3] / th) * th
    origins = np.column_stack([ox + u * pw, oy + v * ph])
    angles = rng.uniform(0, 2 * np.pi, n)
    dirs = np.column_stack([np.cos(angles), np.sin(angles)])
    lattice = rng.integers(-4, 5, (n, 2))
    lattice[(lattice == 0).all(axis=1)] = (1, -1)
    use_lattice = rng.random(n) < 0.5
    dirs[use_lattice] = lattice[use_lattice] * (pw, ph)  # exact pixel-corner passes
    axis = rng.random(n) < 0.1
    dirs[axis] = np.array([(1.0, 0.0), (0.0, -1.0), (-2.0, 0.0), (0.0, 3.0)])[
        rng.integers(0, 4, int(axis.sum()))
    ]
    tile_diagonal = rng.random(n) < 0.1
    signs = rng.choice([-1.0, 1.0], (n, 2))
    dirs[tile_diagonal] = signs[tile_diagonal] * (tw * pw, th * ph)
    return origins, dirs


@pytest.fixture
def fallbacks(monkeypatch):
    """Count the rays the kernel hands to the pure-Python reference."""
    calls = []
    reference = batch_module._far_path

    def counting(*args):
        calls.append(args)
        return reference(*args)

    monkeypatch.setattr(batch_module, "_far_path", counting)
    return calls


def first_cell(u, du):
    """The cell a ray occupies just after its start, along one axis (half-open cells)."""
    return math.ceil(u) - 1 if du < 0 else math.floor(u)


def starts_on_map(tmap, origin, direction):
    """Whether the pixel a ray occupies just after its start lies on the map."""
    (pw, ph), (ox, oy), (tw, th) = tmap.pixel_size, tmap.origin, tmap.tile_pixels
    p = first_cell((origin[0] - ox) / pw, direction[0] / pw)
    q = first_cell((origin[1] - oy) / ph, direction[1] / ph)
    return 0 <= p < tmap.cols * tw and 0 <= q < tmap.rows * th


def assert_same_as_raycast(tmap, origins, dirs, max_distance, **kwargs):
    hits = raycast_many(tmap, origins, dirs, max_distance, **kwargs)
    n = len(hits)
    origins = np.broadcast_to(np.asarray(origins, float).reshape(-1, 2), (n, 2))
    dirs = np.broadcast_to(np.asarray(dirs, float).reshape(-1, 2), (n, 2))
    limits = np.broadcast_to(np.asarray(max_distance, float), (n,))
    assert hits.pixel is not None and hits.pixel.shape == (n, 2)
    for k in range(n):
        expected = raycast(tmap, tuple(origins[k]), tuple(dirs[k]), float(limits[k]), **kwargs)
        got = hits[k]
        assert got == expected, (k, tuple(origins[k]), tuple(dirs[k]), limits[k], kwargs)
        if expected is None:
            assert math.isinf(hits.distance[k]) and np.isnan(hits.point[k]).all()
            assert hits.cell[k].tolist() == [-1, -1] and hits.pixel[k].tolist() == [-1, -1]
            assert hits.normal[k].tolist() == [0.0, 0.0] and not hits.inside[k]
    return hits


# ------------------------------------------------------------ equivalence
@pytest.mark.parametrize("outside", ["empty", "solid"])
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize(("tw", "th"), [(4, 4), (5, 3)])
def test_raycast_many_equals_raycast_on_random_rays(outside, geometry, tw, th, fallbacks):
    rng = np.random.default_rng(zlib.crc32(repr((outside, geometry, tw, th)).encode()))
    tmap = random_tilemap(rng, 14, 18, tw, th, geometry, outside)
    n = 500
    origins, dirs = hard_rays(rng, tmap, n)
    pw = tmap.pixel_size[0]
    limits = np.where(rng.random(n) < 0.5, np.inf, rng.uniform(0, 60 * pw, n))
    gaps = GAPS[rng.integers(0, 3)]
    assert_same_as_raycast(tmap, origins, dirs, limits, diagonal_gaps=gaps)
    half = slice(0, n // 2)
    other = GAPS[(GAPS.index(gaps) + 1) % 3]
    assert_same_as_raycast(
        tmap, origins[half], dirs[half], limits[half], diagonal_gaps=other, ignore_start=True
    )
    # The kernel answers every ray itself, rays that start beyond a solid
    # outside with ignore_start included: none leaves the proven range.
    assert len(fallbacks) == 0


@st.composite
def batch_cases(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    square = draw(st.booleans())
    tw = draw(st.integers(1, 6))
    th = tw if square else draw(st.integers(1, 6))
    tmap = random_tilemap(
        rng,
        draw(st.integers(1, 9)),
        draw(st.integers(1, 9)),
        tw,
        th,
        draw(st.sampled_from(GEOMETRIES)),
        draw(st.sampled_from(["empty", "solid"])),
        empty_share=draw(st.sampled_from([0.0, 0.4, 0.9])),
        room=draw(st.booleans()),
    )
    n = draw(st.integers(1, 16))
    origins, dirs = hard_rays(rng, tmap, n)
    limit = draw(st.sampled_from([math.inf, 0.0, 3.0]) | st.floats(0.0, 300.0))
    return tmap, origins, dirs, limit, draw(st.sampled_from(GAPS)), draw(st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_cases())
def test_raycast_many_equals_raycast_on_generated_maps(case):
    tmap, origins, dirs, limit, gaps, ignore_start = case
    assert_same_as_raycast(
        tmap, origins, dirs, limit, diagonal_gaps=gaps, ignore_start=ignore_start
    )


@pytest.mark.parametrize("outside", ["empty", "solid"])
def test_raycast_many_equals_raycast_many_on_the_pixel_grid(outside):
    rng = np.random.default_rng(21)
    tmap = random_tilemap(rng, 20, 16, 6, 4, ((3.0, 1.0), (-7.5, 2.25)), outside)
    pixels = tmap.to_pixel_grid()
    origins, dirs = hard_rays(rng, tmap, 4000)
    for gaps in GAPS:
        a = raycast_many(tmap, origins, dirs, diagonal_gaps=gaps)
        b = raycast_many(pixels, origins, dirs, diagonal_gaps=gaps)
        assert b.pixel is None
        assert np.array_equal(a.hit, b.hit) and np.array_equal(a.inside, b.inside)
        assert np.array_equal(a.distance, b.distance)
        assert np.array_equal(a.point, b.point, equal_nan=True)
        assert np.array_equal(a.normal, b.normal)
        hit = b.hit
        assert np.array_equal(a.cell[hit], b.cell[hit] // (6, 4))
        assert np.array_equal(a.pixel[hit], b.cell[hit] % (6, 4))
        assert (a.cell[~hit] == -1).all() and (a.pixel[~hit] == -1).all()
        assert 0.2 < hit.mean() <= 1.0  # the workload does hit things


def test_full_mixed_and_empty_tiles_by_hand():
    mixed = np.zeros((4, 4), bool)
    mixed[3, 0] = True  # bottom-left pixel only
    tiles = TileSet([np.zeros((4, 4), bool), np.ones((4, 4), bool), mixed])
    tmap = TileMap([[0, -1, 2, 1], [-1, -1, -1, -1]], tiles, flips=[[0, 0, 1, 0], [0] * 4])
    # flipped horizontally, the mixed tile's solid pixel is (3, 3): x in [11, 12)
    hits = raycast_many(
        tmap, [(0.5, 0.5), (0.5, 3.5), (0.5, 7.5), (20.0, 0.5)], [(1, 0), (1, 0), (1, -1), (-1, 0)]
    )
    assert hits.cell.tolist() == [[3, 0], [2, 0], [-1, -1], [3, 0]]
    assert hits.pixel.tolist() == [[0, 0], [3, 3], [-1, -1], [3, 0]]
    assert hits.distance.tolist() == [11.5, 10.5, math.inf, 4.0]
    assert hits.normal.tolist()[:2] == [[-1.0, 0.0], [-1.0, 0.0]]


def test_pixel_corner_between_tiles_uses_pixel_shoulders():
    # two mixed tiles whose only solid pixels touch at the corner (4, 4)
    a = np.zeros((4, 4), bool)
    a[3, 3] = True
    b = np.zeros((4, 4), bool)
    b[0, 0] = True
    tiles = TileSet([a, b])
    tmap = TileMap([[-1, -1, -1], [0, -1, -1], [-1, 1, -1]], tiles)
    # a ray through (4, 8) from the upper right: shoulders (3, 7) in tile (0, 1) and (4, 8)
    origin, direction = (6.5, 5.5), (-1.0, 1.0)
    both = raycast_many(tmap, origin, [direction] * 3, diagonal_gaps="block_if_both")
    assert both.hit.tolist() == [True] * 3 and both.cell[0].tolist() == [0, 1]
    assert both.pixel[0].tolist() == [3, 3] and both.point[0].tolist() == [4.0, 8.0]
    assert both.normal[0].tolist() == pytest.approx([1 / math.sqrt(2), -1 / math.sqrt(2)])
    open_ = raycast_many(tmap, origin, direction, diagonal_gaps="open")
    assert open_[0] == raycast(tmap, origin, direction, diagonal_gaps="open")


def test_rays_from_far_away_tiny_and_beyond_a_solid_outside(fallbacks):
    rng = np.random.default_rng(4)
    tmap = random_tilemap(rng, 6, 6, 3, 3, (None, (0.0, 0.0)), "empty", room=False)
    origins = [(-1e300, 4.5), (4.5, 1e-310), (4.25, 4.5), (-(2.0**60), 4.5), (-30.0, -29.0)]
    dirs = [(1.0, 0.0), (1.0, 0.0), (1e-320, 0.0), (1.0, 0.0), (1.0, 1.0)]
    assert_same_as_raycast(tmap, origins, dirs, np.inf)
    assert len(fallbacks) == 3  # the far and tiny origins leave the kernel's safe range
    solid_out = random_tilemap(rng, 6, 6, 3, 3, (None, (0.0, 0.0)), "solid", room=False)
    off = [(-2.5, 4.5), (30.0, 30.0), (4.5, -0.5)]
    hits = assert_same_as_raycast(solid_out, off, (1.0, 0.5), np.inf, ignore_start=True)
    inside = assert_same_as_raycast(solid_out, off, (1.0, 0.5), np.inf)
    assert inside.inside.all() and inside.cell[0].tolist() == [-1, 1]
    assert inside.pixel[0].tolist() == [0, 1]
    assert hits.hit.all() and len(fallbacks) == 3  # the kernel walks on beyond a solid outside


def test_broadcasting_and_empty_batches_on_a_tilemap():
    tmap = TileMap([[0, -1, 0]], TileSet([[[0, 1], [0, 1]]]))
    hits = raycast_many(tmap, (2.5, 0.5), [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0)])
    assert hits.cell.tolist() == [[2, 0], [0, 0], [-1, -1]]
    assert hits.pixel.tolist() == [[1, 0], [1, 0], [-1, -1]]
    one_direction = raycast_many(tmap, [(2.5, 0.5), (2.5, 1.5)], (1.0, 0.0), [2.5, 2.4])
    assert one_direction.hit.tolist() == [True, False]
    empty = raycast_many(tmap, np.empty((0, 2)), np.empty((0, 2)))
    assert isinstance(empty, Hits) and len(empty) == 0
    assert empty.pixel is not None and empty.pixel.shape == (0, 2)


# ---------------------------------------------------------------- scans
def test_scan_and_scan_many_on_a_tilemap():
    rng = np.random.default_rng(8)
    tmap = random_tilemap(rng, 10, 12, 4, 4, ((2.0, 2.0), (1.0, -1.0)), "solid")
    free = np.argwhere(~tmap.to_pixel_grid().solid)[:40]
    (pw, ph), (ox, oy) = tmap.pixel_size, tmap.origin
    poses = np.column_stack(
        [ox + (free[:, 1] + 0.5) * pw, oy + (free[:, 0] + 0.5) * ph, rng.uniform(-3, 3, 40)]
    )
    angles = np.linspace(-np.pi, np.pi, 17)
    ranges = scan_many(tmap, poses, angles, 1000.0)
    assert ranges.shape == (40, 17)
    for p in range(0, 40, 7):
        one = scan(tmap, poses[p], angles, 1000.0)
        assert np.array_equal(one, ranges[p])
        # scans cast along beam_directions (tilecast's own sine and cosine)
        for d, r in zip(beam_directions(poses[p : p + 1], angles), one, strict=True):
            hit = raycast(tmap, tuple(poses[p, :2]), tuple(d))
            assert r == hit.distance
    short = scan(tmap, poses[0], angles, 0.3)
    for d, r in zip(beam_directions(poses[:1], angles), short, strict=True):
        hit = raycast(tmap, tuple(poses[0, :2]), tuple(d), 0.3)
        assert r == (0.3 if hit is None else hit.distance)
    assert scan_many(tmap, np.empty((0, 3)), angles, 5.0).shape == (0, 17)


# --------------------------------------------------- acceleration data
def brute_force_tile_info(kinds, outside_solid):
    rows, cols = kinds.shape
    out = np.full((4, rows + 2, cols + 2), -1 if outside_solid else -2)
    for q, (sx, sy) in enumerate([(1, 1), (-1, 1), (1, -1), (-1, -1)]):
        for j in range(rows):
            for i in range(cols):
                if kinds[j, i] != 0:
                    out[q, j + 1, i + 1] = -1 if kinds[j, i] == 1 else -3
                    continue
                r = 0
                while r < CLEARANCE_CAP:
                    i1, j1 = i + sx * (r + 1), j + sy * (r + 1)
                    if not (0 <= i1 < cols and 0 <= j1 < rows):
                        break
                    block = kinds[min(j, j1) : max(j, j1) + 1, min(i, i1) : max(i, i1) + 1]
                    if block.any():
                        break
                    r += 1
                out[q, j + 1, i + 1] = r
    return out


def test_tile_info_map_and_set_tile_keep_it_current():
    rng = np.random.default_rng(17)
    tmap = random_tilemap(rng, 30, 25, 3, 3, (None, (0.0, 0.0)), "solid", empty_share=0.9)
    assert np.array_equal(tile_info_map(tmap), brute_force_tile_info(tmap.cell_kinds, True))
    origins, dirs = hard_rays(rng, tmap, 300)
    assert_same_as_raycast(tmap, origins, dirs, np.inf)
    for _ in range(4):
        cells = rng.integers(0, 25, (rng.integers(1, 20), 2))
        tmap.set_tile(cells, int(rng.integers(-1, 6)), flips=int(rng.integers(0, 8)))
        assert np.array_equal(tile_info_map(tmap), brute_force_tile_info(tmap.cell_kinds, True))
        assert_same_as_raycast(tmap, origins, dirs, np.inf)
    big = random_tilemap(rng, 4, 130, 1, 1, (None, (0.0, 0.0)), "empty", empty_share=1.0)
    info = tile_info_map(big)
    assert info.max() == 3 and np.array_equal(info, brute_force_tile_info(big.cell_kinds, False))


def test_pixel_clearance_is_the_largest_clear_square_in_the_tile():
    from tilecast._kernels.maps import build_pixel_clearance

    rng = np.random.default_rng(2)
    for tw, th in [(7, 5), (1, 4), (8, 8)]:
        masks = rng.random((5, th, tw)) < 0.15
        out = np.empty((4, 5, th, tw), dtype=np.int8)
        build_pixel_clearance(masks, 3, out)
        for q, (sx, sy) in enumerate([(1, 1), (-1, 1), (1, -1), (-1, -1)]):
            for v in range(5):
                for py in range(th):
                    for px in range(tw):
                        r = -1
                        while not masks[v, py, px] and r < 3:
                            x1, y1 = px + sx * (r + 1), py + sy * (r + 1)
                            if not (0 <= x1 < tw and 0 <= y1 < th):
                                break
                            square = masks[
                                v, min(py, y1) : max(py, y1) + 1, min(px, x1) : max(px, x1) + 1
                            ]
                            if square.any():
                                break
                            r += 1
                        assert out[q, v, py, px] == r, (tw, th, q, v, px, py)


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda g: raycast_many(g, (0, 0), [(1, 0), (0, 0)]), ValueError, "directions"),
        (lambda g: raycast_many(g, (0, np.inf), (1, 0)), ValueError, "origins"),
        (lambda g: raycast_many(g, [(0, 0)] * 3, [(1, 0)] * 2), ValueError, "rows"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), -1.0), ValueError, "max_distance"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), diagonal_gaps="x"), ValueError, "gaps"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), ignore_start=1), TypeError, "ignore"),
        (lambda g: raycast_many(g.tileset, (0, 0), (1, 0)), TypeError, "grid"),
        (lambda g: scan(g, (0, 0, 0), [np.nan], 1.0), ValueError, "angles"),
        (lambda g: scan(g.tileset, (0, 0, 0), [0.0], 1.0), TypeError, "grid"),
        (lambda g: scan_many(g, [(0, 0, 0)], [0.0], -1.0), ValueError, "max_range"),
        (lambda g: scan_many(g, [(0, 0, 0, 0)], [0.0], 1.0), ValueError, "poses"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call(TileMap([[0, -1]], TileSet([[[1, 0]]])))


def test_a_grid_still_has_no_pixel():
    hits = raycast_many(Grid([[0, 1]]), (0.5, 0.5), (1.0, 0.0))
    assert hits.pixel is None and hits[0].pixel is None and hits.cell.tolist() == [[1, 0]]
