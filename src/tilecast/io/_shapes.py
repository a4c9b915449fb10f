"""Rasterise per-tile collision shapes (rectangles, polygons, ellipses) to pixel masks.

A pixel ``(px, py)`` of a tile is solid when its centre ``(px + 0.5, py + 0.5)``
lies inside a shape (the usual pixel-centre rule). Coordinates are tile
pixels, y down, as in Tiled's collision editor; a shape's ``rotation`` is in
degrees, clockwise on screen, about the shape's ``(x, y)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from tilecast.geometry import point_in_polygon

__all__ = ["Shape", "rasterise"]


@dataclass(frozen=True)
class Shape:
    """One collision shape: ``kind`` is "rect", "polygon" or "ellipse"."""

    kind: str
    x: float
    y: float
    width: float = 0.0
    height: float = 0.0
    rotation: float = 0.0
    points: tuple[tuple[float, float], ...] = field(default_factory=tuple)


def _rotate(
    points: NDArray[np.float64], angle_deg: float, cx: float, cy: float
) -> NDArray[np.float64]:
    if angle_deg == 0.0:
        return points
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    dx, dy = points[:, 0] - cx, points[:, 1] - cy
    return np.column_stack([cx + c * dx - s * dy, cy + s * dx + c * dy])


def outline(shape: Shape) -> NDArray[np.float64] | None:
    """Return corner points that bound ``shape`` (rotated), or None for an empty shape.

    Examples
    --------
    >>> outline(Shape("rect", 1, 2, 3, 4)).tolist()
    [[1.0, 2.0], [4.0, 2.0], [4.0, 6.0], [1.0, 6.0]]
    """
    if shape.kind == "polygon":
        if len(shape.points) < 3:
            return None
        ring = np.array(shape.points, dtype=np.float64) + np.array([shape.x, shape.y])
    else:
        if not (shape.width > 0 and shape.height > 0):
            return None
        x0, y0, x1, y1 = shape.x, shape.y, shape.x + shape.width, shape.y + shape.height
        ring = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], dtype=np.float64)
    ring = _rotate(ring, shape.rotation, shape.x, shape.y)
    return ring if np.isfinite(ring).all() else None


def rasterise(shapes: list[Shape], tile_width: int, tile_height: int) -> NDArray[np.bool_]:
    """Return the ``(tile_height, tile_width)`` bool mask covered by ``shapes``.

    Each shape is tested only on the pixels of its bounding box.

    Examples
    --------
    >>> rasterise([Shape("rect", 1, 0, 2, 1)], 4, 2).astype(int)
    array([[0, 1, 1, 0],
           [0, 0, 0, 0]])
    """
    mask = np.zeros((tile_height, tile_width), dtype=np.bool_)
    for shape in shapes:
        ring = outline(shape)
        if ring is None:
            continue
        x0 = max(int(np.floor(ring[:, 0].min())), 0)
        y0 = max(int(np.floor(ring[:, 1].min())), 0)
        x1 = min(int(np.ceil(ring[:, 0].max())), tile_width)
        y1 = min(int(np.ceil(ring[:, 1].max())), tile_height)
        if x1 <= x0 or y1 <= y0:
            continue
        py, px = np.mgrid[y0:y1, x0:x1]
        centres = np.column_stack([px.ravel() + 0.5, py.ravel() + 0.5]).astype(np.float64)
        if shape.kind == "ellipse":
            local = _rotate(centres, -shape.rotation, shape.x, shape.y)
            ax, ay = shape.width / 2, shape.height / 2
            ux = (local[:, 0] - shape.x - ax) / ax
            uy = (local[:, 1] - shape.y - ay) / ay
            inside = np.asarray(ux * ux + uy * uy < 1.0, dtype=np.bool_)
        else:
            inside = np.asarray(point_in_polygon(centres, ring), dtype=np.bool_)
        mask[y0:y1, x0:x1] |= inside.reshape(y1 - y0, x1 - x0)
    return mask
