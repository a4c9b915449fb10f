"""The records queries return: ``Hit``, ``Hits``, ``Step``, ``RayContact``, ``Slide``.

One ray gives small immutable records with named fields (like pymunk's query
infos); many rays give :class:`Hits`, a record of NumPy arrays, one row per
ray, so no object is built per ray.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["Hit", "Hits", "RayContact", "Slide", "Step"]


class Hit(NamedTuple):
    """Where a ray meets a solid cell.

    Attributes
    ----------
    point : (float, float)
        World point of the hit (the origin for a ray starting inside a wall).
    normal : (float, float)
        Unit normal of the face entered, pointing back against the ray; the
        normalised diagonal at a corner; ``(0, 0)`` when ``inside``.
    distance : float
        Euclidean distance from the origin in world units.
    cell : (int, int)
        The solid cell ``(col, row)`` (possibly beyond the map when the map's
        ``outside`` is ``"solid"``).
    inside : bool
        True when the ray started inside this solid cell.
    pixel : (int, int) or None
        On a ``TileMap``: the solid pixel ``(px, py)`` inside the tile, as
        displayed; None on a plain ``Grid`` (and for a body).
    body : int or None
        The id of the body hit (a query with ``bodies=``); None for a cell.
        A body's hit has ``cell == (-1, -1)``.

    Examples
    --------
    >>> from tilecast import Grid, raycast
    >>> hit = raycast(Grid([[0, 0, 1]]), (0.5, 0.5), (1.0, 0.0))
    >>> hit.point, hit.normal, hit.distance, hit.cell, hit.inside
    ((2.0, 0.5), (-1.0, 0.0), 1.5, (2, 0), False)
    """

    point: tuple[float, float]
    normal: tuple[float, float]
    distance: float
    cell: tuple[int, int]
    inside: bool
    pixel: tuple[int, int] | None = None
    body: int | None = None


class Step(NamedTuple):
    """One cell of a traversal.

    Attributes
    ----------
    cell : (int, int)
        The cell ``(i, j) = (col, row)``.
    t : float
        Segment parameter in [0, 1] where the segment enters the cell (0 for
        the first cell).
    normal : (float, float)
        Outward normal of the face entered (``(0, 0)`` for the first cell,
        the normalised diagonal for the steps of a corner crossing).
    corner : bool
        True for every step emitted by a crossing through a lattice point.

    Examples
    --------
    >>> from tilecast import Step
    >>> Step(cell=(1, 0), t=0.5, normal=(-1.0, 0.0), corner=False).cell
    (1, 0)
    """

    cell: tuple[int, int]
    t: float
    normal: tuple[float, float]
    corner: bool


class RayContact(NamedTuple):
    """One object met by :meth:`SpatialHash.query_ray <tilecast.SpatialHash.query_ray>`.

    Attributes
    ----------
    id : int
        The object's id.
    distance : float
        Euclidean distance from the ray's origin to the first contact (0 when
        the origin lies in or on the object).
    point : (float, float)
        The first contact point.

    Examples
    --------
    >>> from tilecast import SpatialHash
    >>> world = SpatialHash(1.0)
    >>> world.insert(7, box=(3.0, -1.0, 4.0, 1.0))
    >>> contact = next(world.query_ray((0.0, 0.0), (1.0, 0.0)))  # the nearest first
    >>> contact.id, contact.distance, contact.point
    (7, 3.0, (3.0, 0.0))
    """

    id: int
    distance: float
    point: tuple[float, float]


class Slide(NamedTuple):
    """Where :func:`~tilecast.move_and_slide` took a shape.

    Attributes
    ----------
    position : (float, float)
        The shape's centre at the end: touching what stopped it, never
        overlapping it.
    remainder : (float, float)
        The motion not done: what was left after the last slide (the parts
        pushed into walls are dropped); ``(0.0, 0.0)`` when the move ended
        freely.
    contacts : list of Hit
        The contacts met, in order (``Hit.distance``: how far the centre went
        in that slide).

    Examples
    --------
    >>> from tilecast import Grid, move_and_slide
    >>> floor = Grid([[0, 0, 0], [1, 1, 1]])
    >>> slide = move_and_slide(floor, (0.5, 0.25), (2.0, 1.0), half_extents=(0.25, 0.25))
    >>> slide.position, slide.remainder, [h.normal for h in slide.contacts]
    ((2.5, 0.75), (0.0, 0.0), [(0.0, -1.0)])
    """

    position: tuple[float, float]
    remainder: tuple[float, float]
    contacts: list[Hit]


@dataclass(slots=True)
class Hits:
    """Results of :func:`~tilecast.raycast_many`, one row per ray.

    Attributes
    ----------
    hit : ndarray of bool, shape (N,)
    distance : ndarray of float64, shape (N,)
        ``+inf`` on a miss.
    point : ndarray of float64, shape (N, 2)
        NaN on a miss.
    normal : ndarray of float64, shape (N, 2)
        ``(0, 0)`` on a miss or an inside hit.
    cell : ndarray of int64, shape (N, 2)
        ``(col, row)``; ``-1`` on a miss.
    inside : ndarray of bool, shape (N,)
    pixel : ndarray of int64, shape (N, 2), or None
        On a ``TileMap``: the solid pixel in the tile; None on a ``Grid``.
    body : ndarray of int64, shape (N,)
        The id of the body hit (``bodies=``), ``-1`` for a cell or a miss;
        all ``-1`` when not given (read-only then).

    Examples
    --------
    >>> from tilecast import Grid, raycast_many
    >>> hits = raycast_many(Grid([[0, 0, 1]]), (0.5, 0.5), [(1.0, 0.0), (-1.0, 0.0)])
    >>> len(hits), hits.hit.tolist(), hits.distance.tolist()
    (2, [True, False], [1.5, inf])
    >>> hits[0].cell, hits[1] is None
    ((2, 0), True)
    """

    hit: NDArray[np.bool_]
    distance: NDArray[np.float64]
    point: NDArray[np.float64]
    normal: NDArray[np.float64]
    cell: NDArray[np.int64]
    inside: NDArray[np.bool_]
    pixel: NDArray[np.int64] | None = None
    body: NDArray[np.int64] = None  # type: ignore[assignment]  # filled in __post_init__

    def __post_init__(self) -> None:
        if self.body is None:
            self.body = no_bodies(int(self.hit.shape[0]))

    def __len__(self) -> int:
        return int(self.hit.shape[0])

    def __getitem__(self, k: int) -> Hit | None:
        """Return ray ``k``'s result as a :class:`Hit`, or None on a miss."""
        if not self.hit[k]:
            return None
        return Hit(
            (float(self.point[k, 0]), float(self.point[k, 1])),
            (float(self.normal[k, 0]), float(self.normal[k, 1])),
            float(self.distance[k]),
            (int(self.cell[k, 0]), int(self.cell[k, 1])),
            bool(self.inside[k]),
            None if self.pixel is None else (int(self.pixel[k, 0]), int(self.pixel[k, 1])),
            None if self.body[k] < 0 else int(self.body[k]),
        )


_NO_BODIES: dict[int, NDArray[np.int64]] = {}


def no_bodies(n: int) -> NDArray[np.int64]:
    """Return a read-only ``(n,)`` int64 array of ``-1`` (no body hit), shared for small ``n``.

    Examples
    --------
    >>> no_bodies(3).tolist()
    [-1, -1, -1]
    """
    array = _NO_BODIES.get(n)
    if array is None:
        array = np.full(n, -1, dtype=np.int64)
        array.flags.writeable = False
        if n <= 64:
            _NO_BODIES[n] = array
    return array
