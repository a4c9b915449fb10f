"""The engine: the one layer between the public functions and the compiled kernels.

Public modules check their arguments, then call what is here; they do not
import :mod:`tilecast._kernels` themselves. The engine

- loads kernel families on first use (:func:`kernels`), so that ``import
  tilecast`` loads neither Numba nor any compiled code;
- runs the grid walk for a single ray or segment (:func:`first_hit`,
  :func:`all_hits`, :func:`sight`, :func:`steps`: one compiled kernel per
  mode) from the compiled entry points, with no type dispatch per call,
  passing the map and the query as records and reading the answers'
  fields by name;
- decides, in one place, when a ray takes the exact far-range walk
  (:mod:`tilecast._farwalk`): whenever a compiled walk answers
  :data:`~tilecast._walkspec.UNSAFE` (its tile-space numbers are beyond the
  proven range), for a single ray and for the rare rows of a batch
  (:func:`far_first_hit`);
- wraps the walk's raw answers in the public records.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from tilecast import _farwalk
from tilecast._load import kernels
from tilecast._validate import tile_coordinates
from tilecast._walkmap import walk_map
from tilecast._walkspec import (
    ALL,
    ALL_LAYERS,
    CELLS,
    CORNER_POLICIES,
    CORNERS_BOTH,
    DIAGONAL_GAPS,
    DONE,
    FOUND,
    MORE,
    START,
    UNSAFE,
    WalkMap,
)
from tilecast.grid import check_map
from tilecast.results import Hit, Step

__all__ = [
    "all_hits",
    "far_all_hits",
    "far_first_hit",
    "first_hit",
    "kernels",
    "shape_cast",
    "sight",
    "steps",
    "walk_address",
    "walk_caller",
]

# ------------------------------------------------------------ the walk
_NO_INFO = np.zeros((4, 1, 1), dtype=np.int8)
_NO_VARIANTS = np.zeros((1, 1), dtype=np.int32)
_NO_PIXELS = np.zeros((4, 1, 1, 1), dtype=np.int8)
_CHUNK = 64  # steps or hits per compiled call of traverse and raycast_all, at most
_FIRST_CHUNK = 16  # ... in the first call (then 4 times the last)

# The compiled walk's entry points, loaded on first use. Every argument is of
# the one signature each is compiled for, so the dispatcher's type checks
# would find nothing: the engine builds them so. A record argument's entry
# unboxes any tuple of its fields in order, so a query's ray goes in as a
# plain tuple laid out as :class:`~tilecast._walkspec.Ray` (no class call per
# query); the map goes in as the one WalkMap record of its state.
_first: Any = None  # first_fields, with the first-hit walk's address
_first_at = 0
_sight: Any = None  # walk_sight
_events: Any = None  # events_fields
_all_at = 0  # walk_all's address
_cells_at = 0  # walk_cells's address


def _load_first() -> Any:
    """Load the first-hit walk and its face (:func:`tilecast._kernels.walk.first_fields`)."""
    global _first, _first_at
    walk = kernels("walk")
    walk.compile_walk_with(walk.first_fields, walk.FIRST_FIELDS_SIGNATURE, 0.5)
    _first_at = walk.walk_address()
    _first = walk.first_fields.overloads[walk.FIRST_FIELDS_SIGNATURE].entry_point
    return _first


def _load_sight() -> Any:
    global _sight
    walk = kernels("walk")
    walk.walk_sight.compile(walk.SIGHT_SIGNATURE.args)
    _sight = walk.walk_sight.overloads[walk.SIGHT_SIGNATURE.args].entry_point
    return _sight


def _load_events() -> Any:
    """Load the walks that record events (ALL, CELLS) and their face."""
    global _events, _all_at, _cells_at
    walk = kernels("walk")
    signature = walk.EVENTS_SIGNATURE
    kernels("jobs").compile_together(
        [(walk.walk_all, signature.args, 3.0), (walk.walk_cells, signature.args, 2.0),
         (walk.events_fields, walk.EVENTS_FIELDS_SIGNATURE, 0.5)]
    )  # fmt: skip
    _all_at = walk.kernel_address(walk.walk_all, signature)
    _cells_at = walk.kernel_address(walk.walk_cells, signature)
    _events = walk.events_fields.overloads[walk.EVENTS_FIELDS_SIGNATURE].entry_point
    return _events


def first_hit(
    grid: Any, view: WalkMap, is_tilemap: bool, x0: float, y0: float, dx: float, dy: float,
    limit: float, gaps: int, ignore: bool, origin_name: str = "origin",
) -> Hit | None:  # fmt: skip
    """First hit of one checked ray: one call of the compiled walk (the far-range walk beyond it).

    The arguments are already checked (``view, is_tilemap = walk_map(grid)``,
    finite floats, a non-zero direction, ``limit >= 0``, ``gaps`` an index of
    :data:`DIAGONAL_GAPS`); ``origin_name`` is what an error names.

    Examples
    --------
    >>> from tilecast import Grid
    >>> grid = Grid([[0, 1]])
    >>> view, is_tilemap = walk_map(grid)
    >>> first_hit(grid, view, is_tilemap, 0.5, 0.5, 1.0, 0.0, math.inf, 0, False).cell
    (1, 0)
    """
    walk = _first or _load_first()
    # the fields of a WalkHit, in order
    status, distance, x, y, normal_x, normal_y, col, row, inside, px, py = walk(
        view, (x0, y0, dx, dy, limit, gaps, CORNERS_BOTH, ignore, ALL_LAYERS), _first_at
    )
    if status == FOUND:
        return tuple.__new__(
            Hit,
            ((x, y), (normal_x, normal_y), distance, (col, row), inside != 0,
             (px, py) if is_tilemap else None, None),
        )  # fmt: skip
    if status == DONE:
        return None
    return far_first_hit(grid, (x0, y0), (dx, dy), limit, gaps, ignore, origin_name)


def far_first_hit(
    grid: Any, start: tuple[float, float], direction: tuple[float, float], limit: float,
    gaps: int, ignore: bool, origin_name: str,
) -> Hit | None:  # fmt: skip
    """First hit of a ray on the exact far-range walk (the compiled walk said UNSAFE).

    Examples
    --------
    >>> from tilecast import Grid
    >>> far_first_hit(Grid([[0, 1]]), (0.5, 0.5), (1.0, 1e-300), math.inf, 0, False, "o").cell
    (1, 0)
    """
    hits = _farwalk.cast(check_map(grid), start, direction, limit, DIAGONAL_GAPS[gaps], ignore,
                         origin_name)  # fmt: skip
    return next(hits, None)


def far_all_hits(
    grid: Any, start: tuple[float, float], direction: tuple[float, float], limit: float,
    gaps: int, ignore: bool, origin_name: str,
) -> Iterator[Hit]:  # fmt: skip
    """Every hit of a ray on the exact far-range walk (a compiled walk said UNSAFE).

    Examples
    --------
    >>> from tilecast import Grid
    >>> hits = far_all_hits(Grid([[0, 1, 1]]), (0.5, 0.5), (1.0, 1e-300), math.inf, 0, False, "o")
    >>> [h.cell for h in hits]
    [(1, 0), (2, 0)]
    """
    return _farwalk.cast(check_map(grid), start, direction, limit, DIAGONAL_GAPS[gaps], ignore,
                         origin_name)  # fmt: skip


def all_hits(
    grid: Any, origin: tuple[float, float], direction: tuple[float, float], limit: float,
    gaps: int, ignore: bool,
) -> Iterator[Hit]:  # fmt: skip
    """Yield every solid cell (or pixel) the ray enters, in order, from compiled chunks.

    Examples
    --------
    >>> from tilecast import Grid
    >>> [h.cell for h in all_hits(Grid([[0, 1, 1]]), (0.5, 0.5), (1.0, 0.0), math.inf, 0, False)]
    [(1, 0), (2, 0)]
    """
    view, is_tilemap = walk_map(grid)
    ray = (*origin, *direction, limit, gaps, CORNERS_BOTH, ignore, ALL_LAYERS)
    for chunk in _chunks(view, ALL, ray):
        if chunk is None:
            yield from _farwalk.cast(check_map(grid), origin, direction, limit,
                                     DIAGONAL_GAPS[gaps], ignore)  # fmt: skip
            return
        for (distance, x, y, normal_x, normal_y), (col, row, inside, px, py) in zip(
            *chunk, strict=True
        ):
            yield Hit((x, y), (normal_x, normal_y), distance, (col, row), inside != 0,
                      (px, py) if is_tilemap else None)  # fmt: skip


def _chunks(
    view: tuple[Any, ...], mode: int, ray: tuple[Any, ...]
) -> Iterator[tuple[list[list[float]], list[list[int]]] | None]:
    """Run a walk that records events (``mode`` ALL or CELLS) in chunks, resuming where it stopped.

    ``ray``: the fields of a :class:`~tilecast._walkspec.Ray`. Yields each
    chunk's events as lists ``(floats, ints)`` of rows (see the walk's
    ``out_f``, ``out_i``), or None, once and first, when the ray's numbers
    are beyond the compiled range (the caller takes the far-range walk).
    """
    walk = _events or _load_events()
    walk_at = _all_at if mode == ALL else _cells_at
    # short chunks first (a caller that stops after a few events does not pay
    # for converting many), then long ones
    size = _FIRST_CHUNK
    state: tuple[Any, ...] = START
    while True:
        events_f = np.empty((size, 5))
        events_i = np.empty((size, 5), dtype=np.int64)
        # the WalkChunk's status, count and state fields
        status, count, i, j, nx, ny, t_prev = walk(view, ray, state, events_f, events_i, walk_at)
        if status == UNSAFE:
            yield None
            return
        yield events_f[:count].tolist(), events_i[:count].tolist()
        if status != MORE:
            return
        state = (True, i, j, nx, ny, t_prev)
        size = min(4 * size, _CHUNK)


def sight(
    grid: Any, view: WalkMap, a: tuple[float, float], b: tuple[float, float], gaps: int
) -> bool:
    """Line of sight between two checked world points (the far-range walk beyond the range).

    Examples
    --------
    >>> from tilecast import Grid
    >>> grid = Grid([[0, 1, 0]])
    >>> sight(grid, walk_map(grid)[0], (0.5, 0.5), (2.5, 0.5), 0)
    False
    """
    walk = _sight or _load_sight()
    status = walk(view, (*a, *b, math.inf, gaps, CORNERS_BOTH, False, ALL_LAYERS))
    if status == UNSAFE:
        return _farwalk.sight(check_map(grid), a, b, DIAGONAL_GAPS[gaps])
    return bool(status == DONE)


def steps(
    origin: tuple[float, float], tile_size: tuple[float, float], a: tuple[float, float],
    b: tuple[float, float], policy: int,
) -> Iterator[Step]:  # fmt: skip
    """Yield the cells of the checked segment ``a -> b`` (``policy``: a corner policy index).

    Examples
    --------
    >>> [s.cell for s in steps((0.0, 0.0), (1.0, 1.0), (0.5, 0.5), (1.5, 1.5), 3)]
    [(0, 0), (1, 1)]
    """
    # CELLS reads no map: the walk cells are the tiles
    view = WalkMap(_NO_INFO, _NO_VARIANTS, _NO_PIXELS, False, 0, *origin, *tile_size)
    ray = (*a, *b, math.inf, 0, policy, False, ALL_LAYERS)
    for chunk in _chunks(view, CELLS, ray):
        if chunk is None:
            u0, v0 = tile_coordinates("start", a, origin, tile_size)
            u1, v1 = tile_coordinates("end", b, origin, tile_size)
            yield from _farwalk.cells(u0, v0, u1, v1, CORNER_POLICIES[policy])
            return
        for (t, _, _, normal_x, normal_y), (col, row, corner, _, _) in zip(*chunk, strict=True):
            yield Step((col, row), t, (normal_x, normal_y), corner != 0)


# ------------------------------------------------ kernels that call the walk
#: The walk's address, once loaded: the last argument of the kernels that
#: call it through its address (cast_range, cast_single, the lanes).
walk_address = 0


def walk_caller(kernel_name: str, signature_name: str) -> Any:
    """Compile or load the walk and a kernel of :mod:`tilecast._kernels.walk` that calls it.

    Returns the kernel's entry point (no type dispatch: callers pass exactly
    the types of its signature) and sets :data:`walk_address`.

    Examples
    --------
    >>> from tilecast import _engine
    >>> kernel = _engine.walk_caller("cast_single", "CAST_SINGLE_SIGNATURE")
    >>> callable(kernel) and _engine.walk_address != 0
    True
    """
    global walk_address
    walk = kernels("walk")
    kernel, signature = getattr(walk, kernel_name), getattr(walk, signature_name)
    walk.compile_walk_with(kernel, signature, 0.6)
    walk_address = walk.walk_address()
    return kernel.overloads[signature].entry_point


# ------------------------------------------------------------ bodies (DESIGN 21)
def _direction_scale(dx: float, dy: float) -> int:
    """Return the power of two that brings the larger direction component into [1, 2) (exact)."""
    return 1 - math.frexp(max(abs(dx), abs(dy)))[1]


_first_contact: Any = None  # the bodies' first-contact kernel's entry point (no dispatch)


def _load_first_contact(bodies: Any) -> Any:
    """Load :func:`tilecast._kernels.bodies.first_contact` for the one signature it is called with.

    Every argument is of fixed type (the hash's C-contiguous arrays, floats,
    a uint32 mask), so the entry point of the one compiled signature serves
    every call without the dispatcher's type checks.
    """
    global _first_contact
    kernel = kernels("bodies").first_contact
    state = bodies.consistent(lambda state: state)
    ray = (0.0, 0.0, 1.0, 0.0)
    kernel(state, ray, (0.0, 0.0, 0.0, 0.0), 0.0, np.uint32(1), np.zeros(0, dtype=np.int64))
    (signature,) = kernel.signatures
    _first_contact = kernel.overloads[signature].entry_point
    return _first_contact


def first_with_bodies(
    bodies: Any, view: WalkMap, hit: Hit | None, ray: tuple[float, float, float, float],
    limit: float, mask: int, ignore: Any,
) -> Hit | None:  # fmt: skip
    """Return the first of a ray's cell hit ``hit`` (or None) and the bodies (a cell wins ties).

    ``ray`` is ``(x0, y0, dx, dy)`` as checked; ``limit`` the inclusive
    ``max_distance``.

    Examples
    --------
    >>> from tilecast import Grid, SpatialHash, raycast
    >>> bodies = SpatialHash(1.0)
    >>> bodies.insert(4, circle=((2.0, 0.5), 0.5))
    >>> hit = raycast(Grid([[0, 0, 0, 1]]), (0.5, 0.5), (1.0, 0.0), bodies=bodies)
    >>> hit.body, hit.distance, hit.point, hit.normal, hit.cell
    (4, 1.0, (1.5, 0.5), (-1.0, 0.0), (-1, -1))
    """
    x0, y0, dx, dy = ray
    shift = _direction_scale(dx, dy)
    sdx, sdy = math.ldexp(dx, shift), math.ldexp(dy, shift)
    wall = _wall_line(view, x0, y0, sdx, sdy, hit)
    norm = math.sqrt(sdx * sdx + sdy * sdy)  # as the walk computes it
    bodies.ignored_slots(ignore)  # checked before any compiled code runs
    kernel = _first_contact or _load_first_contact(bodies)
    scaled = (x0, y0, sdx, sdy)
    limit_t = limit / norm
    bits = np.uint32(mask)

    def run(state: Any) -> tuple[int, float, float, float, int]:
        skip = bodies.ignored_slots(ignore)  # read with the state: an edit reruns both
        slot, t, nx, ny = kernel(state, scaled, wall, limit_t, bits, skip)
        return slot, t, nx, ny, (int(state.ids[slot]) if slot >= 0 else -1)

    slot, t, nx, ny, body = bodies.consistent(run)
    if slot < 0:
        return hit
    inside = nx == 0.0 and ny == 0.0  # only a start in or on a body has no normal
    return Hit((x0 + t * sdx, y0 + t * sdy), (nx, ny), t * norm, (-1, -1), inside, None, body)


def _wall_line(
    view: WalkMap, x0: float, y0: float, sdx: float, sdy: float, hit: Hit | None
) -> tuple[float, float, float, float]:
    """Return a cell hit's contact for the bodies kernel: ``(kind, lo, p, d)``.

    Kind 0: no cell hit; 1: the ray starts in the cell (t = 0); 2: the
    cell's face on the grid line ``lo`` of the walk's tile space (pixels on a
    tile map), the ray being ``p + t * d`` there with ``d`` the scaled
    direction over the cell size: ``t = (lo - p) / d`` exactly, the crossing
    the walk decided on (at a corner, the column line: both meet there).
    """
    if hit is None:
        return (0.0, 0.0, 0.0, 0.0)
    if hit.inside:
        return (1.0, 0.0, 0.0, 0.0)
    col, row = hit.cell
    if hit.pixel is not None:
        tile_h, tile_w = view.pixels.shape[2], view.pixels.shape[3]
        col, row = col * tile_w + hit.pixel[0], row * tile_h + hit.pixel[1]
    nx, ny = hit.normal
    if nx != 0.0:
        lo = float(col if nx < 0.0 else col + 1)
        return (2.0, lo, (x0 - view.origin_x) / view.cell_width, sdx / view.cell_width)
    lo = float(row if ny < 0.0 else row + 1)
    return (2.0, lo, (y0 - view.origin_y) / view.cell_height, sdy / view.cell_height)


def blocked_by_bodies(
    bodies: Any, a: tuple[float, float], b: tuple[float, float], mask: int, ignore: Any
) -> bool:
    """Whether a body meets the closed segment between ``a`` and ``b`` (symmetric in them).

    The segment is taken from the smaller end point (by ``(x, y)``) to the
    other, so ``blocked_by_bodies(a, b) == blocked_by_bodies(b, a)``; it is
    the ray from that end along the float64 difference of the two, up to its
    parameter 1 (exactly the segment when the difference is exact). Closed
    at both ends: a body touching it anywhere, an end included, blocks.

    Examples
    --------
    >>> from tilecast import SpatialHash
    >>> bodies = SpatialHash(1.0)
    >>> bodies.insert(1, box=(2.0, -1.0, 3.0, 1.0))
    >>> blocked_by_bodies(bodies, (0.0, 0.0), (2.0, 0.0), 1, None)  # touches at b
    True
    >>> blocked_by_bodies(bodies, (3.0, 0.0), (5.0, 0.0), 1, None)  # touches at a
    True
    >>> blocked_by_bodies(bodies, (0.0, 0.0), (1.9, 0.0), 1, None)
    False
    """
    if (b[0], b[1]) < (a[0], a[1]):
        a, b = b, a
    dx, dy = b[0] - a[0], b[1] - a[1]
    if dx == 0.0 and dy == 0.0:  # a point: any ray from it, ending at its start
        sdx, sdy, end, wall = 1.0, 0.0, 0.0, (1.0, 0.0, 0.0, 0.0)
    else:
        shift = _direction_scale(dx, dy)
        sdx, sdy = math.ldexp(dx, shift), math.ldexp(dy, shift)
        end = math.ldexp(1.0, -shift)  # the parameter of b on the scaled ray
        # parameter 1 of the given ray as an exact contact (1 - 0) / 2**shift
        wall = (2.0, 1.0, 0.0, math.ldexp(1.0, shift))
    bodies.ignored_slots(ignore)  # checked before any compiled code runs
    kernel = kernels("bodies").contact_until
    bits = np.uint32(mask)
    limit = end * (1.0 + 2.0**-40)  # beyond the end: the kernel decides the end exactly
    slot: int = bodies.consistent(
        lambda state: kernel(state, (a[0], a[1], sdx, sdy), wall, limit, bits,
                             bodies.ignored_slots(ignore))
    )  # fmt: skip
    return slot >= 0


def bodies_many(
    bodies: Any, view: WalkMap, rays: tuple[Any, ...], hits: tuple[Any, ...], mask: int,
    ignore: Any,
) -> Any:  # fmt: skip
    """Let the bodies come first in a batch's cell hits; return the body ids (-1: a cell or miss).

    ``rays``: ``(origins, origin_stride, directions, max_distances)`` as
    :func:`tilecast.raycast_many` checked them (one direction or distance
    broadcasts); ``hits``: its arrays ``(distance, point, normal, cell,
    inside, pixel)`` (``pixel`` None on a grid), changed in place where a
    body comes strictly first (a cell wins a tie). Rows compiled, in
    parallel (:func:`tilecast._kernels.bodies.first_contacts_many`).

    Examples
    --------
    >>> from tilecast import Grid, SpatialHash, raycast_many
    >>> bodies = SpatialHash(1.0)
    >>> bodies.insert(3, box=(1.5, 0.0, 2.0, 1.0))
    >>> hits = raycast_many(Grid([[0, 0, 0, 1]]), (0.5, 0.5), [(1.0, 0.0), (-1.0, 0.0)],
    ...                     bodies=bodies)
    >>> hits.body.tolist(), hits.distance.tolist()
    ([3, -1], [1.0, inf])
    """
    from tilecast._threads import run_tasks

    origins, stride, directions, max_distances = rays
    distance, point, normal, cell, inside, pixel = hits
    n = len(distance)
    o = origins[np.arange(n) // stride] if len(origins) != n else origins
    d = np.broadcast_to(directions, (n, 2))
    exponents = np.frexp(np.maximum(np.abs(d[:, 0]), np.abs(d[:, 1])))[1]
    sd = np.ldexp(d, (1 - exponents)[:, None])
    norm = np.sqrt(sd[:, 0] * sd[:, 0] + sd[:, 1] * sd[:, 1])
    limits = np.broadcast_to(max_distances, (n,)) / norm
    walls = _walls_many(view, o, sd, hits)
    batch = kernels("bodies").BodyRays(
        np.ascontiguousarray(np.column_stack([o, sd])), walls, np.ascontiguousarray(limits),
        np.uint32(mask), bodies.ignored_slots(ignore),
    )  # fmt: skip
    kernel = kernels("bodies").first_contacts_many
    slot = np.empty(n, dtype=np.int64)
    t = np.zeros(n)
    body_normal = np.zeros((n, 2))

    def run(state: Any) -> Any:
        rows = batch._replace(ignore=bodies.ignored_slots(ignore))
        run_tasks(lambda lo, hi: kernel(state, lo, hi, rows, slot, t, body_normal), n)
        return np.where(slot >= 0, state.ids[np.maximum(slot, 0)], -1)

    body = bodies.consistent(run)
    won = np.flatnonzero(slot >= 0)
    if len(won):
        tw = t[won]
        distance[won] = tw * norm[won]
        point[won] = o[won] + tw[:, None] * sd[won]
        normal[won] = body_normal[won]
        cell[won] = -1
        inside[won] = (body_normal[won] == 0.0).all(axis=1)  # no normal: a start in or on it
        if pixel is not None:
            pixel[won] = -1
    return body


def _walls_many(view: WalkMap, o: Any, sd: Any, hits: tuple[Any, ...]) -> Any:
    """Return the cell hits of a batch as :func:`_wall_line` gives one, ``(N, 4)``."""
    distance, _, normal, cell, inside, pixel = hits
    hit = distance < math.inf
    col, row = cell[:, 0], cell[:, 1]
    if pixel is not None:
        tile_h, tile_w = view.pixels.shape[2], view.pixels.shape[3]
        col, row = col * tile_w + pixel[:, 0], row * tile_h + pixel[:, 1]
    nx, ny = normal[:, 0], normal[:, 1]
    by_x = nx != 0.0
    walls = np.zeros((len(distance), 4))
    walls[:, 0] = np.where(hit, np.where(inside, 1.0, 2.0), 0.0)
    walls[:, 1] = np.where(by_x, np.where(nx < 0.0, col, col + 1),
                           np.where(ny < 0.0, row, row + 1))  # fmt: skip
    walls[:, 2] = np.where(by_x, (o[:, 0] - view.origin_x) / view.cell_width,
                           (o[:, 1] - view.origin_y) / view.cell_height)  # fmt: skip
    walls[:, 3] = np.where(by_x, sd[:, 0] / view.cell_width, sd[:, 1] / view.cell_height)
    return walls


# ------------------------------------------------------------ shape casts
_cast_entry: Any = None  # the compiled shape_cast's entry point (no type dispatch)
_cast_at = 0  # the address of the table of the kernels it calls (a query's at)


def _load_cast_entry() -> Any:
    """Compile or load :func:`tilecast._kernels.casts.shape_cast` and the kernels it calls.

    Its one signature; the kernels it calls by address compile side by side
    where there are cores.
    """
    global _cast_entry, _cast_at
    casts = kernels("casts")
    casts.compile_kernels()
    _cast_at = casts.table_address()
    _cast_entry = casts.entry_point()
    return _cast_entry


def shape_cast(
    view: WalkMap, is_tilemap: bool, center: tuple[float, float], direction: tuple[float, float],
    shape: tuple[float, float, float], t_max: float, place: bool, bodies: Any = None,
    max_distance: float | None = None, body_mask: int = ALL_LAYERS,
) -> tuple[Any, ...]:  # fmt: skip
    """Sweep a circle or box over the map's blocking cells: one call of the compiled cast.

    ``shape`` is ``(radius, 0, 0)`` for a circle, ``(0, hx, hy)`` for a box;
    the centre moves along ``direction`` for ``t`` in ``[0, t_max]``; all
    checked. With ``max_distance`` (not None), ``t_max`` is ignored and the
    centre goes that far (rounded up by a few ulps: a contact exactly there
    counts), computed after the direction's scaling (no overflow for a tiny
    direction). The kernel works with the major axis (the one along which the
    direction crosses more cells) as its x axis; this swaps in and out.
    Returns ``(hit, t, distance, point, normal, cell, inside, pixel, end,
    t_end, body)`` in world axes: ``hit`` False on a miss, ``cell`` the tile,
    ``pixel`` the pixel in it on a tile map (else None); with ``place``,
    ``end`` is the float64 centre at ``t_end`` (the contact, or ``t_max`` on
    a miss), overlapping nothing exactly (NaN when ``t_max`` is infinite and
    nothing is met; without ``place``, NaN on a miss and the centre at the
    contact taken as it rounds);
    ``body`` the id of the body met (None for a cell). ``bodies``: a
    ``SpatialHash`` or None: its objects near the swept shape are candidates
    (``query_rect`` over the swept box, ``shape`` for each).

    Examples
    --------
    >>> from tilecast import Grid
    >>> grid = Grid([[0, 0, 1]])
    >>> view, _ = walk_map(grid)
    >>> answer = shape_cast(view, False, (0.5, 0.5), (1.0, 0.0), (0.25, 0.0, 0.0), math.inf, True)
    >>> answer[0], answer[1], answer[4], answer[5]
    (True, 1.25, (-1.0, -0.0), (2, 0))
    """
    run = _cast_entry or _load_cast_entry()
    x, y = center
    dx, dy = direction
    size = max(abs(dx), abs(dy))
    shift = 0
    if not 2.0**-500 < size < 2.0**500:
        # scale the direction by a power of two (exact) to a size near 1: tiny
        # or huge directions then square without underflow or overflow
        shift = 1 - math.frexp(size)[1]
        dx, dy = math.ldexp(dx, shift), math.ldexp(dy, shift)
        t_max = math.ldexp(t_max, -shift)
    if max_distance is not None:
        t_max = math.inf if max_distance == math.inf else max_distance / math.hypot(dx, dy) * _UP
    radius, hx, hy = shape
    frames = _frames  # one read: another thread may replace it
    if frames[0] is not view:
        frames = _frames_of(view)
    _, frame, swapped, tw, th = frames
    swap = dx == 0.0 or abs(dy) / view.cell_height > abs(dx) / view.cell_width
    ids, found = _NO_IDS, _NO_BODIES
    if bodies is not None and len(bodies):
        ids, found = _candidate_bodies(bodies, (x, y), (dx, dy), shape, t_max, swap, body_mask)
    # the fields of a CastQuery, in order
    if swap:
        query = (y, x, dy, dx, radius, hy, hx, t_max, place, _cast_at)
        hit = run(view, query, swapped, found)
        status, t, distance, py, px, ny, nx, row, col, inside, _, ey, ex, t_end, k = hit
    else:
        query = (x, y, dx, dy, radius, hx, hy, t_max, place, _cast_at)
        hit = run(view, query, frame, found)
        status, t, distance, px, py, nx, ny, col, row, inside, _, ex, ey, t_end, k = hit
    if is_tilemap:
        cell = (col // tw, row // th)
        pixel: tuple[int, int] | None = (col - cell[0] * tw, row - cell[1] * th)
    else:
        cell, pixel = (col, row), None
    if shift:
        t, t_end = _unscale(t, shift), _unscale(t_end, shift)
    body = None if k < 0 else int(ids[k])
    if body is not None:
        cell, pixel = (-1, -1), None
    return (status == 1, t, distance, (px, py), (nx, ny), cell, inside, pixel, (ex, ey),
            t_end, body)  # fmt: skip


_UP = 1.0 + 2.0**-50  # a limit rounded up: a contact exactly at max_distance is met
# the last map's frames: (view, Frame, swapped Frame, tile width, height in walk cells)
_frames: tuple[Any, ...] = (None,)


def _frames_of(view: WalkMap) -> tuple[Any, ...]:
    """Return the fields of a map's two Frames (x major, y major), kept for the next call."""
    global _frames
    th, tw = view.pixels.shape[2], view.pixels.shape[3]
    rows, cols = (view.info.shape[1] - 2) * th, (view.info.shape[2] - 2) * tw
    cw, ch, ox, oy = view.cell_width, view.cell_height, view.origin_x, view.origin_y
    _frames = (view, (ox, cw, cols, oy, ch, rows, False), (oy, ch, rows, ox, cw, cols, True),
               tw, th)  # fmt: skip
    return _frames


_NO_IDS = np.zeros(0, dtype=np.int64)
_NO_BODIES = (np.zeros(0, dtype=np.int64), np.zeros((0, 4)), np.zeros((0, 2)))
_BODY_KINDS = {"box": 0, "segment": 1, "circle": 2, "polygon": 3}
_FAR = 1e300  # the swept box of an unbounded cast reaches this far


def _candidate_bodies(
    bodies: Any, center: tuple[float, float], direction: tuple[float, float],
    shape: tuple[float, float, float], t_max: float, swap: bool, mask: int = ALL_LAYERS,
) -> tuple[Any, tuple[Any, Any, Any]]:  # fmt: skip
    """Return the ids and local-frame records of the bodies near the swept shape (its box).

    Through the public ``SpatialHash`` API: ``query_rect`` over the box the
    shape sweeps (to ``t_max``, or far when unbounded), ``shape(id)`` for
    each candidate's geometry; only bodies whose ``layers & mask != 0``.
    A polygon's vertices go to one (M, 2) array, counter-clockwise in the
    local frame (its orientation taken exactly).
    """
    x, y = center
    dx, dy = direction
    radius, hx, hy = shape
    ex, ey = (radius, radius) if radius > 0.0 else (hx, hy)
    if math.isinf(t_max):
        x1 = x + math.copysign(_FAR, dx) if dx else x
        y1 = y + math.copysign(_FAR, dy) if dy else y
    else:
        x1, y1 = x + t_max * dx, y + t_max * dy
    pad = 1e-9 * (abs(x) + abs(y) + abs(x1) + abs(y1) + ex + ey) + 1e-300
    rect = (max(min(x, x1) - ex - pad, -_FAR), max(min(y, y1) - ey - pad, -_FAR),
            min(max(x, x1) + ex + pad, _FAR), min(max(y, y1) + ey + pad, _FAR))  # fmt: skip
    ids = bodies.query_rect(rect)
    if mask != ALL_LAYERS:
        ids = np.array([i for i in ids.tolist() if bodies.layers(i) & mask], dtype=np.int64)
    kinds = np.empty(len(ids), dtype=np.int64)
    geoms = np.zeros((len(ids), 4))
    polygons: list[Any] = []
    start = 0
    for n, body in enumerate(ids.tolist()):
        kind, g = bodies.shape(body)
        kinds[n] = _BODY_KINDS[kind]
        if kind == "box":
            geoms[n] = g
        elif kind == "segment":
            geoms[n] = (*g[0], *g[1])
        elif kind == "circle":
            geoms[n, :3] = (*g[0], g[1])
        else:
            v = np.array(g, dtype=np.float64)
            if swap:
                v = v[:, ::-1]
            if _clockwise(v):
                v = v[::-1]
            polygons.append(v)
            geoms[n, :2] = (start, len(v))
            start += len(v)
    if swap:
        geoms[:, [0, 1, 2, 3]] = geoms[:, [1, 0, 3, 2]]
        circles = kinds == 2
        geoms[circles, 2] = geoms[circles, 3]  # (cy, cx, 0, r) -> (cy, cx, r, .)
        geoms[circles, 3] = 0.0
        polys = kinds == 3
        geoms[polys, :2] = geoms[polys][:, [1, 0]]  # (start, count) stay as they were
        geoms[polys, 2:] = 0.0
    verts = np.ascontiguousarray(np.concatenate(polygons)) if polygons else _NO_BODIES[2]
    return ids, (kinds, geoms, verts)


def _clockwise(v: Any) -> bool:
    """Return whether the convex polygon ``v`` (N, 2) is clockwise (its signed area, exactly)."""
    from fractions import Fraction

    xs = [Fraction(x) for x in v[:, 0].tolist()]
    ys = [Fraction(y) for y in v[:, 1].tolist()]
    n = len(xs)
    area = sum(xs[k] * ys[(k + 1) % n] - xs[(k + 1) % n] * ys[k] for k in range(n))
    return area < 0


def _unscale(t: float, shift: int) -> float:
    """``t * 2**shift``, inf beyond the float range (a direction of about 1e-310)."""
    try:
        return math.ldexp(t, shift)
    except OverflowError:
        return math.inf
