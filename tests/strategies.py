"""Hypothesis strategies that aim at the hard cases of grid walks on purpose."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from tilecast import Grid

# Tile geometries: unit tiles, non-square tiles, inexact decimal tiles, offsets.
GEOMETRIES = [
    ((1.0, 1.0), (0.0, 0.0)),
    ((1.0, 1.0), (-3.0, 2.0)),
    ((2.0, 0.5), (0.0, 0.0)),
    ((1.5, 0.75), (-2.25, 1.5)),
    ((0.1, 0.3), (0.05, -0.2)),
    ((32.0, 16.0), (100.0, -64.0)),
]


@st.composite
def grids(draw, max_side: int = 9, outside=None):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.9]))
    seed = draw(st.integers(0, 2**31 - 1))
    solid = np.random.default_rng(seed).random((rows, cols)) < density
    tile_size, origin = draw(st.sampled_from(GEOMETRIES))
    policy = outside if outside is not None else draw(st.sampled_from(["empty", "solid"]))
    return Grid(solid, tile_size=tile_size, origin=origin, outside=policy)


def _tile_coordinate(draw, size: float, offset: float, span: int, kind: str) -> float:
    k = draw(st.integers(-2, span + 2))
    if kind == "centre":
        return offset + (k + 0.5) * size
    if kind == "line":
        return offset + k * size
    if kind == "quarter":
        return offset + (k + draw(st.sampled_from([0.25, 0.75]))) * size
    return offset + draw(st.floats(-2.0, span + 2.0, allow_nan=False)) * size


@st.composite
def points(draw, grid: Grid):
    """World points: tile centres, grid lines, lattice corners, quarters, random."""
    (w, h), (ox, oy) = grid.tile_size, grid.origin
    rows, cols = grid.shape
    kinds = st.sampled_from(["centre", "line", "quarter", "random"])
    return (
        _tile_coordinate(draw, w, ox, cols, draw(kinds)),
        _tile_coordinate(draw, h, oy, rows, draw(kinds)),
    )


@st.composite
def directions(draw, grid: Grid):
    """Directions: axis-aligned, 45 degrees (in tile space), lattice-to-lattice, random."""
    (w, h) = grid.tile_size
    kind = draw(st.sampled_from(["axis", "diagonal", "lattice", "random", "tiny"]))
    if kind == "axis":
        return draw(st.sampled_from([(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -2.5)]))
    if kind == "diagonal":
        sx, sy = draw(st.sampled_from([(1, 1), (1, -1), (-1, 1), (-1, -1)]))
        return (sx * w, sy * h)
    if kind == "lattice":
        a = draw(st.integers(-5, 5))
        b = draw(st.integers(-5, 5).filter(lambda v: v != 0 or a != 0))
        return (a * w, b * h)
    if kind == "tiny":
        return draw(st.sampled_from([(1e-300, 0.0), (3e-310, -2e-310), (1.0, 1e-300)]))
    angle = draw(st.floats(0.0, 6.283185307179586))
    return (float(np.cos(angle)), float(np.sin(angle)))
