"""Shape casts and a character mover: ``circle_cast``, ``box_cast``, ``move_and_slide``.

A shape (a circle, or an axis-aligned box) moves from its centre along a
direction; the cast answers its first contact with the map's blocking cells
(on a ``TileMap``, its solid pixels). ``move_and_slide`` moves a shape by a
motion, sliding along what it meets, as Godot's ``move_and_slide`` and
Box2D's cast mover do.

Obstacles and the contact rule
------------------------------
Each blocking cell is the closed world box ``[ox + i*w, ox + (i+1)*w] x
[oy + j*h, oy + (j+1)*h]`` with the corners computed in float64 exactly so
(what :meth:`~tilecast.World.cell_bounds` returns); on a ``TileMap`` each
solid pixel is such a box with the pixel's size (``tilemap.pixel_size``)
and its index in the expanded pixel grid. With ``outside="solid"`` the cells
beyond the map are obstacles too. The shape is closed as well (a circle of
radius ``r``; a box ``[x - hx, x + hx] x [y - hy, y + hy]``).

A shape **overlaps** an obstacle when their interiors meet (the
intersection has positive area); merely touching is not overlapping. The
cast stops where the shape would *start* to overlap an obstacle: a shape
that touches a face and moves along it or away from it goes on, and one that
grazes a corner passes. A shape that overlaps an obstacle where it starts is
``inside`` it (distance 0); one that touches an obstacle and moves into it
stops at distance 0 with ``inside=False`` and the contact normal.

Every decision is exact on the doubles given: which obstacle is met first
(contact times with square roots, such as a circle meeting a corner,
included: two different times never tie), whether a shape overlaps, touches
or grazes. Only equal times tie, and ties follow one rule: a contact with a
face before a contact with a corner, then the obstacle with the smaller
``(row, col)``, and a cell before a body. The reported distance is
never beyond the true one (the shape placed at the answer overlaps nothing,
checked exactly) and within a few units in the last place of it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilecast._engine import shape_cast
from tilecast._validate import (
    as_direction,
    as_mask,
    as_max_distance,
    as_point,
    as_positive_float,
)
from tilecast._walkmap import walk_map
from tilecast._walkspec import ALL_LAYERS
from tilecast.grid import Grid, check_map
from tilecast.results import Hit, Slide
from tilecast.spatial_hash import SpatialHash
from tilecast.tiles import TileMap

__all__ = ["ALL_LAYERS", "box_cast", "circle_cast", "move_and_slide"]


def _as_bodies(bodies: Any) -> SpatialHash | None:
    if bodies is None:
        return None
    if bodies is not None and not isinstance(bodies, SpatialHash):
        raise TypeError(f"bodies must be a SpatialHash or None, got {type(bodies).__name__}")
    return bodies


def _as_half_extents(value: Any) -> tuple[float, float]:
    if type(value) is tuple and len(value) == 2:
        hx, hy = value
        # two positive finite floats, fast (x - x == 0 is False for inf and NaN)
        if type(hx) is float and type(hy) is float and hx > 0.0 and hy > 0.0:
            if hx - hx == 0.0 and hy - hy == 0.0:
                return value
    try:
        hx, hy = value
    except (TypeError, ValueError):
        raise TypeError("half_extents must be a pair of numbers (hx, hy)") from None
    return as_positive_float("half_extents", hx), as_positive_float("half_extents", hy)


def _cast(
    world: Any, center: Any, shape: tuple[float, float, float], direction: Any,
    max_distance: Any, bodies: Any, mask: Any,
) -> Hit | None:  # fmt: skip
    view, is_tilemap = walk_map(world if mask is ALL_LAYERS else check_map(world, mask))
    start = as_point("center", center)
    heading = as_direction("direction", direction)
    limit = as_max_distance(max_distance)
    found = _as_bodies(bodies)
    body_mask = ALL_LAYERS if found is None or mask is ALL_LAYERS else as_mask(mask)
    hit, _, distance, point, normal, cell, inside, pixel, _, _, body = shape_cast(
        view, is_tilemap, start, heading, shape, math.inf, False, found, limit, body_mask
    )
    if not hit:
        return None
    return _hit(point, normal, distance, cell, inside, pixel, body)


def _hit(point: Any, normal: Any, distance: float, cell: Any, inside: bool, pixel: Any,
         body: int | None) -> Hit:  # fmt: skip
    """Return a Hit of checked fields (a body's has ``cell == (-1, -1)``, as the rays' do)."""
    return tuple.__new__(Hit, (point, normal, distance, cell, inside, pixel, body))


def circle_cast(
    world: Grid | TileMap | np.ndarray,
    center: Any,
    radius: float,
    direction: Any,
    max_distance: float = math.inf,
    *,
    bodies: SpatialHash | None = None,
    mask: int = ALL_LAYERS,
) -> Hit | None:
    """Sweep a circle along a ray and return its first contact with a blocking cell, or None.

    Parameters
    ----------
    world : Grid, TileMap or 2D bool array
        The map; on a ``TileMap`` the obstacles are its solid pixels. See the
        module docstring for the exact obstacle boxes.
    center : (float, float)
        The circle's centre at the start, in world units.
    radius : float
        Positive and finite, in world units (a circle in the world, whatever
        the tiles' shape).
    direction : (float, float)
        Direction of motion; need not be unit length, must not be zero.
    max_distance : float, default inf
        Longest distance the centre travels; a contact exactly there counts.
    bodies : SpatialHash, optional
        Bodies that block too (its boxes, segments, circles and convex
        polygons near the swept shape, those whose ``layers & mask != 0``).
        A body met is reported with ``Hit.body`` its id and ``cell == (-1,
        -1)``; a body and a cell met at exactly the same time: the cell.
        Bodies are decided exactly, as cells are (the Minkowski sum of the
        body and the shape), the answer rounded down until the shape
        overlaps no body, exactly.
    mask : int, default ALL_LAYERS
        The collision layers that block: a cell (or pixel) blocks when
        ``layers & mask != 0`` (:meth:`~tilecast.World.masked`); the outside
        of a map whose ``outside`` is ``"solid"`` blocks for every mask.

    Returns
    -------
    Hit or None
        ``distance``: how far the centre travels to the contact (never beyond
        the true distance); ``point``: the contact point (on a face, the
        point of the face level with the centre, clamped to the face; at a
        corner, the corner; the centre when ``inside``); ``normal``: the unit
        contact normal from the obstacle towards the circle (``(0, 0)`` when
        ``inside``); ``cell`` the obstacle's cell, ``pixel`` its pixel on a
        tile map; ``inside``: the circle started overlapping it.

    Notes
    -----
    Touching is not overlapping: a circle resting on a floor moves along it
    freely, and grazing a corner passes. See the module docstring for the
    rules and the exactness.

    Examples
    --------
    >>> from tilecast import Grid, circle_cast
    >>> grid = Grid([[0, 0, 0, 1]])
    >>> hit = circle_cast(grid, (0.5, 0.5), 0.25, (1.0, 0.0))
    >>> hit.distance, hit.point, hit.normal, hit.cell
    (2.25, (3.0, 0.5), (-1.0, 0.0), (3, 0))
    >>> circle_cast(grid, (0.5, 0.5), 0.25, (1.0, 0.0), max_distance=2.0) is None
    True
    >>> circle_cast(grid, (2.5, 0.5), 0.75, (-1.0, 0.0)).inside  # overlaps the wall already
    True
    """
    # a float radius, fast (x - x == 0 is False for inf and NaN)
    fine = type(radius) is float and radius > 0.0 and radius - radius == 0.0
    r = radius if fine else as_positive_float("radius", radius)
    return _cast(world, center, (r, 0.0, 0.0), direction, max_distance, bodies, mask)


def box_cast(
    world: Grid | TileMap | np.ndarray,
    center: Any,
    half_extents: Any,
    direction: Any,
    max_distance: float = math.inf,
    *,
    bodies: SpatialHash | None = None,
    mask: int = ALL_LAYERS,
) -> Hit | None:
    """Sweep an axis-aligned box along a ray and return its first contact, or None.

    Parameters
    ----------
    world, center, direction, max_distance, bodies, mask
        As for :func:`circle_cast`.
    half_extents : (float, float)
        ``(hx, hy)``, each positive and finite: the box is ``[x - hx, x + hx]
        x [y - hy, y + hy]`` around its centre.

    Returns
    -------
    Hit or None
        As for :func:`circle_cast`; the contact point on a face is the point
        of the touching part nearest the centre's line, at a corner the
        corner. When a box corner meets a cell corner exactly, ``normal`` is
        the diagonal against the motion.

    Examples
    --------
    >>> from tilecast import Grid, box_cast
    >>> grid = Grid([[0, 0, 0], [0, 0, 0], [1, 1, 1]])
    >>> hit = box_cast(grid, (1.5, 0.5), (0.5, 0.5), (0.0, 1.0))
    >>> hit.distance, hit.normal, hit.cell
    (1.0, (0.0, -1.0), (1, 2))
    >>> box_cast(grid, (1.5, 1.5), (0.5, 0.5), (1.0, 0.0)) is None  # along the floor: no contact
    True
    """
    hx, hy = _as_half_extents(half_extents)
    return _cast(world, center, (0.0, hx, hy), direction, max_distance, bodies, mask)


def move_and_slide(
    world: Grid | TileMap | np.ndarray,
    position: Any,
    motion: Any,
    *,
    radius: float | None = None,
    half_extents: Any = None,
    bodies: SpatialHash | None = None,
    mask: int = ALL_LAYERS,
    max_slides: int = 4,
) -> Slide:
    """Move a circle or a box by ``motion``, sliding along what it touches.

    Each slide casts the shape along the motion left; at a contact the shape
    stops touching the obstacle (never overlapping it, checked exactly on the
    float64 position returned), and the motion not done loses its component
    into the contact normal; the next slide goes on with the rest. A face the
    shape touches does not stop it while it moves along or away from it, so
    it slides across the seams between wall cells. No safety margin is kept.

    Parameters
    ----------
    world : Grid, TileMap or 2D bool array
        As for :func:`circle_cast`.
    position : (float, float)
        The shape's centre.
    motion : (float, float)
        The displacement wanted (may be zero, any length: the shape never
        passes through a wall).
    radius : float, optional
        A circle of this radius ...
    half_extents : (float, float), optional
        ... or a box of these half extents: exactly one of the two.
    bodies, mask
        As for :func:`circle_cast`.
    max_slides : int, default 4
        At most this many casts (contacts).

    Returns
    -------
    Slide
        ``position``, ``remainder`` (the motion not done), ``contacts`` (the
        hits met, in order).

    Notes
    -----
    A shape that starts overlapping a wall does not move: its one contact is
    the ``inside`` hit and the whole motion is the remainder.

    Examples
    --------
    >>> from tilecast import Grid, move_and_slide
    >>> grid = Grid([[0, 0, 0, 0], [1, 1, 1, 1]])  # a floor of four cells
    >>> slide = move_and_slide(grid, (0.5, 0.5), (3.0, 0.5), radius=0.25)
    >>> slide.position, slide.remainder, len(slide.contacts)
    ((3.5, 0.75), (0.0, 0.0), 1)
    """
    view, is_tilemap = walk_map(world if mask is ALL_LAYERS else check_map(world, mask))
    x, y = as_point("position", position)
    mx, my = as_point("motion", motion)
    if (radius is None) == (half_extents is None):
        raise TypeError("move_and_slide takes exactly one of radius and half_extents")
    if radius is not None:
        shape = (as_positive_float("radius", radius), 0.0, 0.0)
    else:
        shape = (0.0, *_as_half_extents(half_extents))
    found = _as_bodies(bodies)
    body_mask = ALL_LAYERS if found is None or mask is ALL_LAYERS else as_mask(mask)
    if isinstance(max_slides, bool) or not isinstance(max_slides, int | np.integer):
        raise TypeError(f"max_slides must be an int, got {type(max_slides).__name__}")
    if max_slides < 1:
        raise ValueError(f"max_slides must be at least 1, got {max_slides}")
    contacts: list[Hit] = []
    for _ in range(int(max_slides)):
        if mx == 0.0 and my == 0.0:
            break
        hit, t, distance, point, normal, cell, inside, pixel, end, _, body = shape_cast(
            view, is_tilemap, (x, y), (mx, my), shape, 1.0, True, found, None, body_mask
        )
        if not hit:
            x, y = end
            mx = my = 0.0
            break
        contacts.append(_hit(point, normal, distance, cell, inside, pixel, body))
        if inside:
            break
        x, y = end
        # the motion not done, less its part into the wall
        rx, ry = mx * (1.0 - t), my * (1.0 - t)
        nx, ny = normal
        into = rx * nx + ry * ny
        if into < 0.0:
            rx, ry = rx - into * nx, ry - into * ny
            if nx == 0.0:
                ry = 0.0
            if ny == 0.0:
                rx = 0.0
        mx, my = rx, ry
    return Slide((x, y), (mx, my), contacts)
