"""circle_cast, box_cast and move_and_slide against the brute-force exact oracle.

The oracle (``tests/reference/casts.py``) tests every obstacle of the map in
exact arithmetic; it is checked itself against the exact overlap predicate
(the shape at the contact overlaps nothing, just beyond it overlaps the
obstacle). The product must give the same first obstacle (any one of an
exact tie), the same ``inside``, a distance never beyond the exact one and
within a few units in the last place of it, and ``move_and_slide`` must end
where the shape overlaps nothing, exactly.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from reference import casts as ref
from strategies import directions, grids, points
from tilecast import Grid, SpatialHash, TileMap, TileSet, box_cast, circle_cast, move_and_slide

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIZES = st.sampled_from([0.25, 0.5, 1.0, 0.3, 1.5]) | st.floats(0.01, 2.0)


def _walk_cell(world, hit):
    """The oracle's cell of a hit: the pixel of the expanded grid on a tile map."""
    if isinstance(world, TileMap):
        tw, th = world.tileset.tile_size
        return (hit.cell[0] * tw + hit.pixel[0], hit.cell[1] * th + hit.pixel[1])
    return hit.cell


def _scale(world, center, direction, shape):
    (w, h), (ox, oy) = world.tile_size, world.origin
    rows, cols = world.shape
    big = max(abs(center[0]), abs(center[1]), abs(ox) + cols * w, abs(oy) + rows * h, shape)
    return big


def check_cast(world, center, direction, *, radius=None, half=None, max_distance=math.inf):
    """Compare one cast with the oracle; return the hit."""
    if radius is not None:
        hit = circle_cast(world, center, radius, direction, max_distance)
    else:
        hit = box_cast(world, center, half, direction, max_distance)
    expected = ref.cast(world, center, direction, radius=radius, half=half,
                        max_distance=max_distance)  # fmt: skip
    if not expected:
        assert hit is None, (hit, expected)
        return None
    assert hit is not None, expected
    first = expected[0]
    assert hit.inside == first.inside
    cells = {e.cell for e in expected}
    if first.inside:
        assert hit.distance == 0.0 and hit.normal == (0.0, 0.0)
        assert hit.point == (float(center[0]), float(center[1]))
        rows, cols = world.shape
        if first.cell == (-1, -1):  # reaching beyond a solid outside: a cell beyond the map
            assert not (0 <= hit.cell[0] < cols and 0 <= hit.cell[1] < rows)
        else:
            assert _walk_cell(world, hit) in cells
        return hit
    true = ref.distance(first.time, direction)
    got = Decimal(hit.distance)
    assert got <= true, (got, true)
    size = radius if radius is not None else max(half)
    slack = Decimal(8 * 2.0**-52) * (true + Decimal(_scale(world, center, direction, size)))
    assert true - got <= slack, (got, true)
    cell = _walk_cell(world, hit)
    if cell not in cells:
        # only a circle's contact with a corner may tie with the first one within one double
        assert radius is not None
        own = [e for e in _all_contacts(world, center, direction, radius) if e.cell == cell]
        assert own and abs(own[0].time.decimal() - first.time.decimal()) <= Decimal(2.0**-51) * abs(
            first.time.decimal()
        )
        return hit
    mine = next(e for e in expected if e.cell == cell)
    if mine.kind == "face":
        assert hit.normal == tuple(float(v) for v in mine.normal)
    if mine.kind == "corner" and radius is None:
        s = math.sqrt(0.5)
        assert hit.normal == (mine.normal[0] * s, mine.normal[1] * s)
    assert math.isclose(math.hypot(*hit.normal), 1.0, rel_tol=1e-12)
    return hit


def _all_contacts(world, center, direction, radius):
    c = (Fraction(center[0]), Fraction(center[1]))
    d = (Fraction(direction[0]), Fraction(direction[1]))
    out = []
    for cell, box in ref.obstacles(world):
        contact = ref.circle_contact(cell, box, c, d, Fraction(radius), None)
        if contact is not None:
            out.append(contact)
    return out


# ----------------------------------------------------------------- examples
def test_circle_face_and_corner():
    grid = Grid([[0, 0, 0, 1]])
    hit = check_cast(grid, (0.5, 0.5), (1.0, 0.0), radius=0.25)
    assert (hit.distance, hit.point, hit.normal) == (2.25, (3.0, 0.5), (-1.0, 0.0))
    assert hit.cell == (3, 0)
    hit = check_cast(grid, (0.5, 0.5), (1.0, 0.3), radius=0.25)
    assert hit.point == (3.0, 1.0)  # the wall's corner


def test_box_on_floor_of_cells_hits_with_the_face_normal():
    grid = Grid([[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]])
    for x in (1.0, 1.5, 2.0, 1.25):  # box edges on seams, or not
        hit = check_cast(grid, (x, 0.5), (0.0, 1.0), half=(0.5, 0.5))
        assert hit.distance == 1.0 and hit.normal == (0.0, -1.0)


def test_touching_is_not_inside_and_moving_along_passes():
    grid = Grid([[0, 0, 0], [1, 1, 1]])
    # resting exactly on the floor: along it and away from it, nothing
    assert box_cast(grid, (1.5, 0.5), (0.5, 0.5), (1.0, 0.0)) is None
    assert box_cast(grid, (1.5, 0.5), (0.5, 0.5), (0.0, -1.0)) is None
    assert circle_cast(grid, (0.5, 0.5), 0.5, (1.0, 0.0)) is None
    # into it: distance 0, not inside
    hit = check_cast(grid, (1.5, 0.5), (0.0, 1.0), half=(0.5, 0.5))
    assert hit.distance == 0.0 and not hit.inside and hit.normal == (0.0, -1.0)
    hit = check_cast(grid, (0.5, 0.5), (0.3, 1.0), radius=0.5)
    assert hit.distance == 0.0 and not hit.inside


def test_grazing_a_corner_passes():
    grid = Grid([[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    assert box_cast(grid, (0.5, 0.5), (0.5, 0.5), (1.0, 0.0)) is None
    # along the pillar's face at exactly r
    assert check_cast(grid, (-3.0, 0.5), (1.0, 0.0), radius=0.5) is None
    # up and right, passing the pillar's corner (1, 1) at exactly r (closest at t = 0.4)
    assert check_cast(grid, (-1.0, 2.0), (3.0, -4.0), radius=1.0) is None
    hit = check_cast(grid, (-1.0, 2.0), (3.0, -4.0), radius=math.nextafter(1.0, 2.0))
    assert hit.cell == (1, 1) and hit.point == (1.0, 1.0)


def test_corridor_exactly_the_box_width_passes():
    # a corridor one cell high between two walls
    grid = Grid([[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
    assert check_cast(grid, (-2.0, 1.5), (1.0, 0.0), half=(0.5, 0.5)) is None
    wider = math.nextafter(0.5, 1.0)
    hit = check_cast(grid, (-2.0, 1.5), (1.0, 0.0), half=(0.5, wider))
    assert hit is not None and hit.distance == 1.5 and hit.cell in ((0, 0), (0, 2))
    # a circle of diameter exactly 1 passes too; a hair more does not
    assert check_cast(grid, (-2.0, 1.5), (1.0, 0.0), radius=0.5) is None
    assert check_cast(grid, (-2.0, 1.5), (1.0, 0.0), radius=wider) is not None
    # inside the corridor, the wider box already overlaps
    assert box_cast(grid, (2.5, 1.5), (0.5, wider), (1.0, 0.0)).inside


def test_long_cast_across_an_open_map():
    grid = Grid(np.zeros((2000, 2000), bool), outside="solid")
    hit = check_cast(grid, (1.5, 1000.25), (1.0, 0.0), radius=0.5)
    assert hit.distance == 1998.0 and hit.cell == (2000, 1000)
    hit = box_cast(grid, (1.5, 1.5), (0.5, 0.25), (1.0, 0.7))
    assert hit is not None and not hit.inside


def test_outside_solid_start_sticking_out_is_inside():
    grid = Grid([[0, 0], [0, 0]], outside="solid")
    hit = circle_cast(grid, (0.25, 1.0), 0.5, (1.0, 0.0))
    assert hit.inside and hit.cell[0] == -1
    hit = check_cast(grid, (0.5, 1.0), (1.0, 0.0), radius=0.5)
    assert hit.distance == 1.0 and hit.cell == (2, 0) and not hit.inside  # a tie: smaller row


def test_non_square_tiles_circle_stays_a_circle():
    grid = Grid([[0, 0, 0, 1]], tile_size=(2.0, 0.5))
    hit = check_cast(grid, (1.0, 0.25), (1.0, 0.0), radius=1.0)
    assert hit.distance == 4.0  # the wall's face is at x = 6


def test_tile_map_pixels():
    masks = np.zeros((2, 4, 4), bool)
    masks[0, 2:, :] = True  # lower half solid
    masks[1, 1, 1] = True
    tiles = TileSet(masks)
    tmap = TileMap([[-1, -1, 0], [1, -1, -1]], tiles, tile_size=(4.0, 4.0))
    hit = check_cast(tmap, (1.0, 2.0), (1.0, 0.0), radius=0.5)
    assert hit.cell == (2, 0) and hit.pixel == (0, 2)
    hit = check_cast(tmap, (3.0, 3.0), (-1.0, 1.0), half=(0.25, 0.25))
    assert hit.cell == (0, 1) and hit.pixel == (1, 1)


def test_mask_selects_the_layers_that_block_never_the_outside():
    grid = Grid([[0, 2, 1, 0]], outside="solid")  # glass (layer 2), then a wall (layer 1)
    assert circle_cast(grid, (0.5, 0.5), 0.25, (1.0, 0.0)).cell == (1, 0)
    assert circle_cast(grid, (0.5, 0.5), 0.25, (1.0, 0.0), mask=1).cell == (2, 0)
    assert box_cast(grid, (0.5, 0.5), (0.25, 0.25), (1.0, 0.0), mask=0b11).cell == (1, 0)
    assert circle_cast(grid, (0.5, 0.5), 0.25, (1.0, 0.0), mask=4).cell == (4, 0)
    slide = move_and_slide(grid, (0.5, 0.5), (10.0, 0.0), radius=0.25, mask=1)
    assert slide.position == (1.75, 0.5)
    # the same as the cast on the map the mask sees
    for mask in (1, 2, 3):
        expected = check_cast(grid.masked(mask), (0.5, 0.5), (1.0, 0.2), radius=0.4)
        assert circle_cast(grid, (0.5, 0.5), 0.4, (1.0, 0.2), mask=mask) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: circle_cast(g, (0, 0), 0.0, (1, 0)), "radius"),
        (lambda g: circle_cast(g, (0, 0), -1.0, (1, 0)), "radius"),
        (lambda g: circle_cast(g, (0, 0), math.inf, (1, 0)), "radius"),
        (lambda g: circle_cast(g, (0, 0), math.nan, (1, 0)), "radius"),
        (lambda g: circle_cast(g, (math.nan, 0), 1.0, (1, 0)), "center"),
        (lambda g: circle_cast(g, (0, 0), 1.0, (0, 0)), "direction"),
        (lambda g: circle_cast(g, (0, 0), 1.0, (1, math.nan)), "direction"),
        (lambda g: circle_cast(g, (0, 0), 1.0, (1, 0), -1.0), "max_distance"),
        (lambda g: circle_cast(g, (0, 0), 1.0, (1, 0), mask=-1), "mask"),
        (lambda g: circle_cast(g, (0, 0), 1.0, (1, 0), mask=2**32), "mask"),
        (lambda g: circle_cast(g, (0, 0), 1.0, (1, 0), mask=True), "mask"),
        (lambda g: circle_cast(g, (0, 0), 1.0, (1, 0), bodies=3), "bodies"),
        (lambda g: box_cast(g, (0, 0), (1.0, 0.0), (1, 0)), "half_extents"),
        (lambda g: box_cast(g, (0, 0), (1.0, math.nan), (1, 0)), "half_extents"),
        (lambda g: box_cast(g, (0, 0), 1.0, (1, 0)), "half_extents"),
        (lambda g: move_and_slide(g, (0, 0), (1, 0)), "radius"),
        (lambda g: move_and_slide(g, (0, 0), (1, 0), radius=1.0, half_extents=(1, 1)), "radius"),
        (lambda g: move_and_slide(g, (0, 0), (math.inf, 0), radius=1.0), "motion"),
        (lambda g: move_and_slide(g, (0, 0), (1, 0), radius=1.0, max_slides=0), "max_slides"),
        (lambda g: move_and_slide(g, (0, 0), (1, 0), radius=1.0, max_slides=1.5), "max_slides"),
        (lambda g: circle_cast("map", (0, 0), 1.0, (1, 0)), "grid"),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call(Grid([[0, 1]]))


# ----------------------------------------------------------------- hypothesis
@st.composite
def cast_cases(draw, outside=None):
    grid = draw(grids(max_side=6, outside=outside))
    center = draw(points(grid))
    direction = draw(directions(grid))
    (w, h) = grid.tile_size
    shape = draw(st.sampled_from(["circle", "box"]))
    if shape == "circle":
        size = draw(SIZES) * min(w, h) * draw(st.sampled_from([1.0, 0.5, 2.0]))
        return grid, center, direction, {"radius": size}
    half = (draw(SIZES) * w, draw(SIZES) * h)
    if draw(st.booleans()):
        half = (w / 2, h / 2)  # exactly a cell: edges on grid lines
    return grid, center, direction, {"half": half}


@SETTINGS
@given(cast_cases())
def test_cast_matches_the_oracle(case):
    grid, center, direction, shape = case
    check_cast(grid, center, direction, **shape)


@SETTINGS
@given(cast_cases(), st.floats(0.0, 20.0))
def test_cast_with_max_distance_matches_the_oracle(case, max_distance):
    grid, center, direction, shape = case
    expected = ref.cast(grid, center, direction, max_distance=math.inf, **shape)
    if expected and not expected[0].inside:
        true = ref.distance(expected[0].time, direction)
        assume(abs(true - Decimal(max_distance)) > Decimal("1e-9") * (true + 1))
    check_cast(grid, center, direction, max_distance=max_distance, **shape)


@st.composite
def tile_maps(draw):
    tw, th = draw(st.sampled_from([(2, 2), (3, 2), (4, 4)]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    masks = rng.random((3, th, tw)) < draw(st.sampled_from([0.3, 0.6]))
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    ids = rng.integers(-1, 3, size=(rows, cols))
    flips = rng.integers(0, 8 if tw == th else 4, size=(rows, cols))
    size = draw(st.sampled_from([None, (4.0, 4.0), (3.0, 1.5)]))
    outside = draw(st.sampled_from(["empty", "solid"]))
    origin = draw(st.sampled_from([(0.0, 0.0), (-2.5, 1.0)]))
    return TileMap(ids, TileSet(masks), tile_size=size, origin=origin, flips=flips,
                   outside=outside)  # fmt: skip


@SETTINGS
@given(tile_maps(), st.data())
def test_tile_map_cast_matches_the_oracle(tmap, data):
    pixels = tmap.to_pixel_grid()
    center = data.draw(points(pixels))
    direction = data.draw(directions(pixels))
    pw, ph = pixels.tile_size
    if data.draw(st.booleans()):
        check_cast(tmap, center, direction, radius=data.draw(SIZES) * min(pw, ph) * 2)
    else:
        check_cast(tmap, center, direction, half=(data.draw(SIZES) * pw, data.draw(SIZES) * ph))


@settings(SETTINGS, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cast_cases(outside="solid"))
def test_oracle_contact_agrees_with_the_exact_overlap_predicate(case):
    grid, center, direction, shape = case
    expected = ref.cast(grid, center, direction, **shape)
    assume(expected and not expected[0].inside)
    first = expected[0]
    c = (Fraction(center[0]), Fraction(center[1]))
    d = (Fraction(direction[0]), Fraction(direction[1]))
    # the motion starts at t = 0: a contact at 0 has no "before" (the shape may
    # touch, at its start, a wall it moves away from, and overlap it for t < 0)
    below, above = max(first.time.below(), Fraction(0)), first.time.above()

    def at(t):
        return (c[0] + t * d[0], c[1] + t * d[1])

    assert not ref.overlaps(grid, at(below), **shape)
    assert not ref.overlaps(grid, at(below / 2), **shape)
    # just beyond the contact the shape overlaps the obstacle met
    eps = Fraction(1, 10**40)
    box = dict(ref.obstacles(grid))[first.cell]
    assert _overlaps_box(box, at(above + eps), **shape)


def _overlaps_box(box, p, radius=None, half=None):
    x0, x1, y0, y1 = box
    if radius is not None:
        gx = max(x0 - p[0], Fraction(0), p[0] - x1)
        gy = max(y0 - p[1], Fraction(0), p[1] - y1)
        return gx * gx + gy * gy < Fraction(radius) ** 2
    hx, hy = map(Fraction, half)
    return p[0] + hx > x0 and p[0] - hx < x1 and p[1] + hy > y0 and p[1] - hy < y1


# ----------------------------------------------------------------- move_and_slide
def _shape_kw(shape):
    return {"radius": shape["radius"]} if "radius" in shape else {"half_extents": shape["half"]}


@SETTINGS
@given(cast_cases(), st.sampled_from([1.0, 3.0, 1e6]))
def test_move_and_slide_never_ends_overlapping(case, scale):
    grid, center, direction, shape = case
    assume(not ref.overlaps(grid, center, **shape))
    motion = (direction[0] * scale, direction[1] * scale)
    assume(all(math.isfinite(m) for m in motion))
    slide = move_and_slide(grid, center, motion, **_shape_kw(shape))
    assert not ref.overlaps(grid, slide.position, **shape)
    assert len(slide.contacts) <= 4
    if not slide.contacts:
        assert slide.remainder == (0.0, 0.0)
        # a free move goes (about) all the way
        assert math.isclose(slide.position[0], center[0] + motion[0], rel_tol=1e-12, abs_tol=1e-9)


def test_box_slides_along_a_floor_of_many_cells():
    grid = Grid(np.vstack([np.zeros((2, 50), bool), np.ones((1, 50), bool)]))
    for start_x in (1.0, 1.3):
        slide = move_and_slide(grid, (start_x, 1.5), (40.0, 0.0), half_extents=(0.5, 0.5))
        assert slide.position == (start_x + 40.0, 1.5) and slide.contacts == []
        # pressed into the floor while moving: one contact, then along it
        slide = move_and_slide(grid, (start_x, 1.0), (40.0, 3.0), half_extents=(0.5, 0.5))
        assert slide.position[1] <= 1.5 and 1.5 - slide.position[1] < 1e-12
        assert math.isclose(slide.position[0], start_x + 40.0, rel_tol=1e-12)
        assert [h.normal for h in slide.contacts] == [(0.0, -1.0)]
        assert not ref.overlaps(grid, slide.position, half=(0.5, 0.5))


def test_circle_slides_along_a_floor_of_many_cells():
    grid = Grid(np.vstack([np.zeros((2, 50), bool), np.ones((1, 50), bool)]))
    slide = move_and_slide(grid, (1.0, 1.5), (40.0, 0.0), radius=0.5)
    assert slide.position == (41.0, 1.5) and slide.contacts == []
    slide = move_and_slide(grid, (1.0, 1.0), (40.0, 2.0), radius=0.5)
    assert math.isclose(slide.position[0], 41.0, rel_tol=1e-12) and slide.position[1] <= 1.5
    assert 1.5 - slide.position[1] < 1e-12
    assert not ref.overlaps(grid, slide.position, radius=0.5)


@pytest.mark.parametrize("kw", [{"radius": 0.5}, {"half_extents": (0.5, 0.5)}])
def test_into_a_concave_corner_stops_touching_both_walls(kw):
    grid = Grid([[0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 1]])
    slide = move_and_slide(grid, (0.7, 0.6), (5.0, 4.0), **kw)
    x, y = slide.position
    assert x <= 2.5 and y <= 1.5 and 2.5 - x < 1e-12 and 1.5 - y < 1e-12
    shape = {"radius": kw["radius"]} if "radius" in kw else {"half": kw["half_extents"]}
    assert not ref.overlaps(grid, slide.position, **shape)
    assert {h.normal for h in slide.contacts} >= {(-1.0, 0.0), (0.0, -1.0)}


@pytest.mark.parametrize("kw", [{"radius": 0.25}, {"half_extents": (0.25, 0.1)}])
def test_high_speed_does_not_tunnel_through_a_thin_wall(kw):
    grid = Grid([[0, 0, 0, 1, 0, 0, 0]])
    slide = move_and_slide(grid, (0.5, 0.5), (1e6, 0.0), **kw)
    half = kw.get("radius") or kw["half_extents"][0]
    x, y = slide.position
    assert x <= 3.0 - half and 3.0 - half - x < 1e-9 and y == 0.5
    slide = move_and_slide(grid, (0.5, 0.5), (1e6, 1e-3), **kw)
    assert slide.position[0] <= 3.0 - half


def test_move_starting_inside_does_not_move():
    grid = Grid([[0, 1]])
    slide = move_and_slide(grid, (1.0, 0.5), (3.0, 0.0), radius=0.5)
    assert slide.position == (1.0, 0.5) and slide.remainder == (3.0, 0.0)
    assert len(slide.contacts) == 1 and slide.contacts[0].inside


# ----------------------------------------------------------------- bodies
def _empty_like(grid):
    return Grid(np.zeros(grid.shape, bool), tile_size=grid.tile_size, origin=grid.origin)


@SETTINGS
@given(cast_cases(outside="empty"))
# a corner contact: the box body rounded its root down exactly, the cell did not
@example((Grid(np.ones((1, 1), bool), outside="empty"), (-1.5, -1.0197871233492315), (5.0, 4.0),
          {"radius": 0.5}))  # fmt: skip
def test_box_bodies_stand_for_cells_exactly(case):
    """Each solid cell as a box body (its cell_bounds) on an empty map: the same cast."""
    grid, center, direction, shape = case
    assume(grid.solid.sum() <= 12)
    bodies = SpatialHash(max(grid.tile_size))
    for n, (j, i) in enumerate(zip(*grid.solid.nonzero(), strict=True)):
        x0, y0, x1, y1 = grid.cell_bounds((int(i), int(j)))
        bodies.insert(n, box=(x0, y0, x1, y1))
    empty = _empty_like(grid)
    if "radius" in shape:
        on_map = circle_cast(grid, center, shape["radius"], direction)
        on_bodies = circle_cast(empty, center, shape["radius"], direction, bodies=bodies)
    else:
        on_map = box_cast(grid, center, shape["half"], direction)
        on_bodies = box_cast(empty, center, shape["half"], direction, bodies=bodies)
    assert (on_map is None) == (on_bodies is None)
    if on_map is not None:
        assert on_bodies.inside == on_map.inside
        assert on_bodies.distance == on_map.distance
        assert on_bodies.cell == (-1, -1)


@SETTINGS
@given(
    st.tuples(st.integers(-4, 4), st.integers(-4, 4)).map(lambda p: (p[0] / 2, p[1] / 2)),
    st.sampled_from([0.25, 0.5, 1.0, 0.3]),
    st.sampled_from([0.25, 0.5, 0.7]),
    st.sampled_from(["circle", "box"]),
    # any angle: components of about 1e-300 beside one near 1 included (exact over
    # the whole double range)
    st.floats(0.0, 6.283185307179586) | st.sampled_from([1e-300, 5e-324, 1e-160]),
)
# touching at the start and moving in: an exact root time of 0 (the oracle once printed
# it 1e-81 below 0)
@example((1.5, 1.5), 1.0, 0.25, "box", 6.104121674219648)
def test_circle_body_against_the_exact_oracle(center, size, rb, shape, angle):
    body = (0.5, 0.25)
    bodies = SpatialHash(1.0)
    bodies.insert(9, circle=(body, rb))
    empty = Grid(np.zeros((1, 1), bool))
    direction = (math.cos(angle), math.sin(angle))
    c = tuple(map(Fraction, center))
    d = tuple(map(Fraction, direction))
    k = tuple(map(Fraction, body))
    if shape == "circle":
        hit = circle_cast(empty, center, size, direction, bodies=bodies)
        reach = Fraction(size) + Fraction(rb)
        inside = (c[0] - k[0]) ** 2 + (c[1] - k[1]) ** 2 < reach**2
        entry = None if inside else ref._disc_entry(k, c, d, reach)
    else:
        hit = box_cast(empty, center, (size, size), direction, bodies=bodies)
        box = (k[0] - Fraction(size), k[0] + Fraction(size), k[1] - Fraction(size),
               k[1] + Fraction(size))  # fmt: skip
        contact = ref.circle_contact((0, 0), box, c, d, Fraction(rb), None)
        inside = contact is not None and contact.inside
        entry = None if contact is None or inside else contact.time
    if inside:
        assert hit is not None and hit.inside
        return
    if entry is None:
        assert hit is None
        return
    true = ref.distance(entry, direction)
    assert hit is not None and not hit.inside
    got = Decimal(hit.distance)
    assert got <= true and true - got <= Decimal("1e-14") * (true + 4)


def test_segment_bodies():
    empty = Grid(np.zeros((1, 1), bool))
    bodies = SpatialHash(1.0)
    bodies.insert(3, segment=((8.0, -5.0), (8.0, 5.0)))  # a vertical wall at x = 8
    hit = box_cast(empty, (6.5, 2.0), (0.5, 0.5), (1.0, 0.1), bodies=bodies)
    assert hit.normal == (-1.0, 0.0) and hit.point[0] == 8.0
    assert 1.0 - 1e-12 < hit.distance / math.hypot(1.0, 0.1) <= 1.0
    hit = circle_cast(empty, (6.5, 2.0), 0.5, (1.0, 0.0), bodies=bodies)
    assert hit.normal == (-1.0, 0.0) and hit.point == (8.0, 2.0)
    assert 1.0 - 1e-12 < hit.distance <= 1.0
    # past its end: the end disc
    hit = circle_cast(empty, (6.0, 5.25), 0.5, (1.0, 0.0), bodies=bodies)
    assert hit.point == (8.0, 5.0)
    assert circle_cast(empty, (6.0, 5.5), 0.5, (1.0, 0.0), bodies=bodies) is None  # grazes
    # a diagonal segment: the box meets it with a corner
    bodies.insert(4, segment=((10.0, 0.0), (12.0, 2.0)))
    hit = box_cast(empty, (9.0, 2.0), (0.5, 0.5), (1.0, 0.0), bodies=bodies)
    s = math.sqrt(0.5)
    assert 2.0 - 1e-12 < hit.distance <= 2.0  # its lower right corner reaches (11.5, 1.5)
    assert hit.point == (pytest.approx(11.5), pytest.approx(1.5)) and hit.normal == (
        pytest.approx(-s),
        pytest.approx(s),
    )


@SETTINGS
@given(cast_cases(outside="solid"), st.sampled_from([1.0, 5.0, 1e6]))
def test_move_and_slide_among_bodies_never_ends_overlapping(case, scale):
    grid, center, direction, shape = case
    assume(not ref.overlaps(grid, center, **shape))
    (w, h), (ox, oy) = grid.tile_size, grid.origin
    rows, cols = grid.shape
    bodies = SpatialHash(max(w, h))
    rng = np.random.default_rng(int(abs(center[0] * 1000 + center[1] * 7)) % 2**31)
    for n in range(4):
        x = ox + rng.uniform(0, cols) * w
        y = oy + rng.uniform(0, rows) * h
        if n % 2:
            bodies.insert(n, box=(x, y, x + w * rng.uniform(0.1, 1), y + h * rng.uniform(0.1, 1)))
        else:
            bodies.insert(n, circle=((x, y), min(w, h) * rng.uniform(0.1, 0.6)))
    assume(not _overlaps_bodies(bodies, center, **shape))
    motion = (direction[0] * scale, direction[1] * scale)
    slide = move_and_slide(grid, center, motion, bodies=bodies, **_shape_kw(shape))
    assert not ref.overlaps(grid, slide.position, **shape)
    assert not _overlaps_bodies(bodies, slide.position, **shape)


def _overlaps_bodies(bodies, p, radius=None, half=None):
    """Exactly: does the shape at ``p`` overlap a box or circle body?"""
    p = (Fraction(p[0]), Fraction(p[1]))
    for body in bodies.query_rect((-1e300, -1e300, 1e300, 1e300)).tolist():
        kind, g = bodies.shape(body)
        if kind == "box":
            box = tuple(map(Fraction, (g[0], g[2], g[1], g[3])))
            if _overlaps_box(box, p, radius, half):
                return True
        elif kind == "circle":
            k, rb = tuple(map(Fraction, g[0])), Fraction(g[1])
            if radius is not None:
                if (p[0] - k[0]) ** 2 + (p[1] - k[1]) ** 2 < (Fraction(radius) + rb) ** 2:
                    return True
            else:
                hx, hy = map(Fraction, half)
                box = (p[0] - hx, p[0] + hx, p[1] - hy, p[1] + hy)
                if _overlaps_box(box, k, rb):
                    return True
    return False


@pytest.mark.parametrize("eps", [1e-14, 3e-15, 2e-15, -1e-14, -2e-15])
def test_circle_corner_contacts_a_few_ulps_apart_are_ordered_exactly(eps):
    """Two corners met within ~1e-14 of each other (a float tie): the exact first wins.

    (The tie rule would pick the lower row: with ``eps < 0`` the exact first is
    the upper one.) Times closer than one double apart are ties, not tested here.
    """
    h = 1.2 + eps
    grid = Grid([[0] * 5 + [1], [0] * 6, [0] * 5 + [1]], tile_size=(1.0, h), origin=(0.0, -0.6 - h))
    expected = ref.cast(grid, (0.5, 0.0), (1.0, 0.0), radius=1.0)
    times = _all_contacts(grid, (0.5, 0.0), (1.0, 0.0), 1.0)
    assert len(times) == 2 and ref.compare(times[0].time, times[1].time) != 0
    hit = circle_cast(grid, (0.5, 0.0), 1.0, (1.0, 0.0))
    assert len(expected) == 1 and hit.cell == expected[0].cell


def test_circle_corner_contacts_between_the_same_two_doubles_are_ordered_exactly():
    """Two corner times that round to the same double: the exact first (row 2) wins, where
    the tie rule (the smaller row) would pick row 0."""
    grid = Grid([[0] * 5 + [1], [0] * 6, [0] * 5 + [1]], tile_size=(1.0, 1.2000000000000004),
                origin=(0.0, -1.8000000000000007))  # fmt: skip
    times = {c.cell: c.time for c in _all_contacts(grid, (0.5, 0.0), (1.0, 0.0), 1.0)}
    first, other = times[(5, 2)], times[(5, 0)]
    assert float(first.decimal()) == float(other.decimal()) and ref.compare(first, other) < 0
    assert circle_cast(grid, (0.5, 0.0), 1.0, (1.0, 0.0)).cell == (5, 2)


def test_move_and_slide_remainder_and_max_slides():
    grid = Grid([[0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 1]])
    # one slide: stops at the floor, the rest of the motion (less its part into it) remains
    slide = move_and_slide(grid, (0.5, 0.5), (2.0, 2.0), half_extents=(0.5, 0.5), max_slides=1)
    assert slide.position == (1.5, 1.5) and slide.remainder == (1.0, 0.0)
    assert [h.normal for h in slide.contacts] == [(0.0, -1.0)]
    slide = move_and_slide(grid, (0.5, 0.5), (2.0, 2.0), half_extents=(0.5, 0.5))
    assert slide.position == (2.5, 1.5) and slide.remainder == (0.0, 0.0)
    assert move_and_slide(grid, (0.5, 0.5), (0.0, 0.0), radius=0.5).position == (0.5, 0.5)


@SETTINGS
@given(tile_maps(), st.data())
def test_move_and_slide_on_a_tile_map_never_ends_overlapping(tmap, data):
    pixels = tmap.to_pixel_grid()
    center = data.draw(points(pixels))
    direction = data.draw(directions(pixels))
    pw, ph = pixels.tile_size
    scale = data.draw(st.sampled_from([1.0, 7.0, 1e5]))
    if data.draw(st.booleans()):
        shape = {"radius": data.draw(SIZES) * min(pw, ph) * 2}
    else:
        shape = {"half": (data.draw(SIZES) * pw, data.draw(SIZES) * ph)}
    assume(not ref.overlaps(tmap, center, **shape))
    if tmap.outside == "solid":  # the oracle's ring of outside cells needs a start on the map
        first = ref.cast(tmap, center, direction, **shape)
        assume(not (first and first[0].inside))
    motion = (direction[0] * scale, direction[1] * scale)
    slide = move_and_slide(tmap, center, motion, **_shape_kw(shape))
    assert not ref.overlaps(tmap, slide.position, **shape)


def test_tiny_direction_keeps_its_max_distance():
    grid = Grid([[1]])
    # |d| is subnormal: max_distance / |d| overflows unless the direction is scaled first
    assert circle_cast(grid, (-0.75, 2.25), 0.25, (3e-310, -2e-310), 1.0) is None
    hit = check_cast(grid, (-0.75, 2.25), (3e-310, -2e-310), radius=0.25, max_distance=2.0)
    assert hit is not None and hit.distance < 2.0


def test_oracle_orders_equal_algebraic_times_exactly():
    """A face and a corner met at the same time: equal, whatever the scale of t."""
    grid = Grid(np.zeros((2, 1), bool), outside="solid")
    first = ref.cast(grid, (0.5, 1.0), (1e-300, 0.0), radius=0.25)
    assert first[0].kind == "face"
    assert len({c.cell for c in first}) == 2  # both ring cells beside the seam


def test_casts_name_the_body_and_follow_its_layers():
    from tilecast import SpatialHash

    room = Grid(np.zeros((3, 8), bool), outside="solid")
    bodies = SpatialHash(1.0)
    bodies.insert(7, circle=((4.0, 1.5), 0.5), layers=2)
    bodies.insert(9, box=(6.0, 1.0, 6.5, 2.0), layers=1)
    hit = circle_cast(room, (0.5, 1.5), 0.25, (1.0, 0.0), bodies=bodies)
    assert hit.body == 7 and hit.cell == (-1, -1) and hit.distance == pytest.approx(2.75)
    hit = circle_cast(room, (0.5, 1.5), 0.25, (1.0, 0.0), bodies=bodies, mask=1)
    assert hit.body == 9 and hit.distance == pytest.approx(5.25)
    hit = circle_cast(room, (0.5, 1.5), 0.25, (1.0, 0.0), bodies=bodies, mask=4)
    assert hit.body is None and hit.cell == (8, 1)  # the solid outside blocks every mask
    assert circle_cast(room, (0.5, 1.5), 0.25, (1.0, 0.0)).body is None
    slide = move_and_slide(room, (0.5, 1.5), (9.0, 0.0), radius=0.25, bodies=bodies, mask=1)
    assert [c.body for c in slide.contacts][:1] == [9]
    bodies.insert(11, polygon=[(2.0, 0.0), (3.0, 0.0), (2.0, 1.0)])
    hit = circle_cast(room, (0.5, 0.5), 0.25, (1.0, 0.0), bodies=bodies)
    assert hit.body == 11 and hit.normal == (-1.0, 0.0) and hit.distance == 1.25


def test_a_direction_with_a_subnormal_component_meets_a_circle_body():
    # Found by hypothesis: along (1, 5e-324) the path grazes the disc of radius
    # r + rb = 0.75 around the body and the subnormal component takes it in, at
    # about t = 0.5 (products of it underflow in plain expansions).
    bodies = SpatialHash(1.0)
    bodies.insert(9, circle=((0.5, 0.25), 0.5))
    empty = Grid(np.zeros((1, 1), bool))
    hit = circle_cast(empty, (0.0, -0.5), 0.25, (1.0, 5e-324), bodies=bodies)
    assert hit is not None and not hit.inside and hit.body == 9
    expected = ref.cast_with_bodies(empty, bodies, (0.0, -0.5), (1.0, 5e-324), radius=0.25)
    true = ref.distance(expected[0], (1.0, 5e-324))
    assert Decimal(hit.distance) <= true < Decimal(hit.distance) + Decimal(2.0**-51)
    # without the subnormal component: a graze, no contact
    assert circle_cast(empty, (0.0, -0.5), 0.25, (1.0, 0.0), bodies=bodies) is None


# ----------------------------------------------------------------- every body kind
QUARTERS = st.integers(-12, 20).map(lambda k: k / 4)  # coordinates on a lattice: ties


@st.composite
def body_scenes(draw):
    """A small map (negative origin), 1-3 bodies of every kind on a quarter lattice, a cast."""
    cells = draw(st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=3,
                          max_size=3))  # fmt: skip
    grid = Grid(np.array(cells), origin=(-1.0, -0.5))
    bodies = SpatialHash(1.0)
    for n in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["circle", "segment", "polygon", "box"]))
        p = (draw(QUARTERS), draw(QUARTERS))
        if kind == "circle":
            bodies.insert(n, circle=(p, draw(st.sampled_from([0.25, 0.5, 0.3]))))
        elif kind == "box":
            w, h = draw(st.sampled_from([0.25, 0.5, 1.0])), draw(st.sampled_from([0.25, 1.0]))
            bodies.insert(n, box=(p[0], p[1], p[0] + w, p[1] + h))
        else:
            q = (draw(QUARTERS), draw(QUARTERS))
            assume(p != q)
            if kind == "segment":
                bodies.insert(n, segment=(p, q))
            else:
                v = (draw(QUARTERS), draw(QUARTERS))
                area = (q[0] - p[0]) * (v[1] - p[1]) - (q[1] - p[1]) * (v[0] - p[0])
                assume(area != 0)
                bodies.insert(n, polygon=[p, q, v])
    center = (draw(QUARTERS | st.floats(-3, 5)), draw(QUARTERS | st.floats(-3, 5)))
    direction = draw(
        st.sampled_from([(1.0, 0.0), (0.0, -1.0), (-1.0, -1.0), (1.0, 1.0), (2.0, -1.0),
                         (1.0, 1e-300)])
        | st.tuples(st.floats(-1, 1), st.floats(-1, 1)).filter(lambda d: d != (0.0, 0.0))
    )  # fmt: skip
    if draw(st.booleans()):
        shape = {"radius": draw(st.sampled_from([0.25, 0.5, 0.3]))}
    else:
        shape = {"half": draw(st.sampled_from([(0.25, 0.25), (0.5, 0.25), (0.3, 0.5)]))}
    return grid, bodies, center, direction, shape


def _subnormal_contact_scene():
    """A box a subnormal below a body's edge: the distance, about 3e-309, a subnormal too
    (its check by squares once underflowed and passed a distance one step too long)."""
    bodies = SpatialHash(1.0)
    bodies.insert(0, segment=((-0.5, 0.25), (0.5, 0.25)))
    grid = Grid(np.zeros((3, 4), bool), origin=(-1.0, -0.5))
    return grid, bodies, (0.0, -2.225073858507203e-309), (1.0, 1.0), {"half": (0.25, 0.25)}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body_scenes())
@example(_subnormal_contact_scene())
def test_casts_among_every_body_kind_match_the_exact_oracle(scene):
    """The first obstacle exactly (a tie between a cell and a body: the cell), the distance
    never beyond the exact one and within a few ulps of it."""
    grid, bodies, center, direction, shape = scene
    if "radius" in shape:
        hit = circle_cast(grid, center, shape["radius"], direction, bodies=bodies)
    else:
        hit = box_cast(grid, center, shape["half"], direction, bodies=bodies)
    expected = ref.cast_with_bodies(grid, bodies, center, direction, **shape)
    if expected is None:
        assert hit is None
        return
    time, inside, first = expected
    assert hit is not None and hit.inside == inside, (hit, expected)
    got = ("cell", hit.cell) if hit.body is None else ("body", hit.body)
    assert got in first, (hit, expected)
    if inside:
        assert hit.distance == 0.0
        return
    true = ref.distance(time, direction)
    assert Decimal(hit.distance) <= true
    assert true - Decimal(hit.distance) <= Decimal(2.0**-49) * (true + 8), (hit, true)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body_scenes(), st.sampled_from([1.0, 9.0]))
def test_move_and_slide_among_polygons_and_segments_never_ends_overlapping(scene, scale):
    grid, bodies, center, direction, shape = scene
    assume(not ref.overlaps(grid, center, **shape))
    assume(not ref.overlaps_bodies(bodies, center, **shape))
    motion = (direction[0] * scale, direction[1] * scale)
    slide = move_and_slide(grid, center, motion, bodies=bodies, **_shape_kw(shape))
    assert not ref.overlaps(grid, slide.position, **shape)
    assert not ref.overlaps_bodies(bodies, slide.position, **shape)
