"""Pictures of maps, rays, hits, fields of view and visibility polygons (Pillow).

A :class:`Picture` starts from a map drawn at ``scale`` pixels per tile and
collects layers (``fov``, ``polygon``, ``segments``, ``rays``, ``hits``,
``points``), each blended over the previous ones; ``picture.image`` is the
PIL image. :func:`render_map` does the common case in one call. Pillow is
imported only when a picture is made; without it you get an ``ImportError``
that says how to install it.

World points are placed by the map's own tile size and origin, so the same
``(x, y)`` you pass to :func:`~tilecast.raycast` lands on the right pixel.
For y-up maps (ROS) pass ``y_up=True`` and the picture is flipped so that
north is at the top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from tilecast._validate import as_choice, as_point, as_points_array

if TYPE_CHECKING:  # Pillow is imported only when a picture is made
    from PIL.Image import Image as PILImage
    from PIL.ImageDraw import ImageDraw as PILDraw

__all__ = ["COLORS", "Picture", "render_map"]

#: Default colours (RGBA) of each kind of thing drawn.
COLORS: dict[str, tuple[int, int, int, int]] = {
    "floor": (238, 234, 224, 255),
    "wall": (58, 60, 74, 255),
    "grid": (0, 0, 0, 28),
    "fov": (255, 206, 84, 120),
    "polygon": (255, 236, 140, 110),
    "outline": (214, 150, 20, 255),
    "segments": (40, 120, 210, 255),
    "rays": (220, 60, 40, 70),
    "hits": (200, 30, 30, 255),
    "viewer": (20, 130, 60, 255),
    "light": (255, 220, 120, 40),
}


def _pil() -> tuple[Any, Any]:
    try:
        from PIL import Image, ImageDraw
    except ImportError:  # pragma: no cover - exercised only without Pillow
        raise ImportError(
            "drawing pictures needs Pillow: pip install Pillow (or pip install 'tilecast[image]')"
        ) from None
    return Image, ImageDraw


def _solid_of(
    world: Any,
) -> tuple[NDArray[np.bool_], tuple[float, float], tuple[float, float]]:
    """Return the solidity array to draw, its cell size in world units and the origin."""
    from tilecast.grid import Grid

    if isinstance(world, Grid):
        return np.asarray(world.solid), world.tile_size, world.origin
    to_pixel_grid = getattr(world, "to_pixel_grid", None)
    if callable(to_pixel_grid):  # a TileMap: draw it pixel by pixel
        pixels = to_pixel_grid()
        return np.asarray(pixels.solid), pixels.tile_size, pixels.origin
    raise TypeError(f"grid must be a tilecast.Grid or TileMap, got {type(world).__name__}")


def _color(name: str, value: Any) -> tuple[int, int, int, int]:
    if isinstance(value, str):
        from PIL import ImageColor

        try:
            # an "RGBA" colour is always four channel values
            rgba = cast("tuple[int, int, int, int]", ImageColor.getcolor(value, "RGBA"))
        except ValueError:
            raise ValueError(f"{name} must be a colour, got {value!r}") from None
        r, g, b, a = (int(v) for v in rgba)
        return (r, g, b, a)
    try:
        values = [int(v) for v in value]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an (r, g, b[, a]) tuple or a colour name") from None
    if len(values) not in (3, 4) or not all(0 <= v <= 255 for v in values):
        raise ValueError(f"{name} must have 3 or 4 components in 0..255, got {value!r}")
    r, g, b, a = (*values, 255)[:4] if len(values) == 3 else values
    return (r, g, b, a)


class Picture:
    """A picture of a map that rays, hits, fields of view and polygons are drawn onto.

    Parameters
    ----------
    grid : Grid or TileMap
        The map; a ``TileMap`` is drawn at pixel resolution.
    scale : float, default 12
        Picture pixels per map cell (per tile for a ``Grid``, per tile pixel
        for a ``TileMap``).
    y_up : bool, default False
        Flip the picture so that larger y is higher up (ROS maps).
    grid_lines : bool, default False
        Draw faint lines between cells (only when ``scale >= 4``).
    colors : dict, optional
        Replacements for entries of :data:`COLORS`.

    Examples
    --------
    >>> from tilecast import Grid, raycast
    >>> from tilecast.render import Picture
    >>> grid = Grid([[1, 1, 1, 1], [1, 0, 0, 1], [1, 1, 1, 1]])
    >>> hit = raycast(grid, (1.5, 1.5), (1.0, 0.0))
    >>> picture = Picture(grid, scale=10).rays((1.5, 1.5), [hit.point]).hits([hit.point])
    >>> picture.image.size
    (40, 30)
    """

    def __init__(
        self,
        grid: Any,
        scale: float = 12,
        *,
        y_up: bool = False,
        grid_lines: bool = False,
        colors: dict[str, Any] | None = None,
    ) -> None:
        Image, ImageDraw = _pil()
        solid, cell_size, origin = _solid_of(grid)
        scale = float(scale)
        if not np.isfinite(scale) or scale <= 0:
            raise ValueError(f"scale must be a positive number, got {scale!r}")
        self.colors = dict(COLORS)
        for key, value in (colors or {}).items():
            as_choice("colors key", key, tuple(COLORS))
            self.colors[key] = _color(f"colors[{key!r}]", value)
        self._cells = solid.shape
        self._cell_size = cell_size
        self._origin = origin
        self._scale = scale
        self._y_up = bool(y_up)
        rows, cols = solid.shape
        width, height = max(1, round(cols * scale)), max(1, round(rows * scale))
        palette = np.array([self.colors["floor"], self.colors["wall"]], dtype=np.uint8)
        cells = palette[solid.astype(np.intp)]
        if self._y_up:
            cells = cells[::-1]
        self._image: PILImage = Image.fromarray(cells, "RGBA").resize(
            (width, height), Image.NEAREST
        )
        if grid_lines and scale >= 4:
            overlay = Image.new("RGBA", self._image.size, (0, 0, 0, 0))
            draw = ImageDraw.Draw(overlay)
            for c in range(1, cols):
                draw.line([(c * scale, 0), (c * scale, height)], fill=self.colors["grid"])
            for r in range(1, rows):
                draw.line([(0, r * scale), (width, r * scale)], fill=self.colors["grid"])
            self._image = Image.alpha_composite(self._image, overlay)

    # ------------------------------------------------------------ geometry
    @property
    def image(self) -> PILImage:
        """The picture so far, as an RGB ``PIL.Image.Image``."""
        return self._image.convert("RGB")

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the picture in pixels."""
        return self._image.size

    def to_pixels(self, points: Any) -> NDArray[np.float64]:
        """Map world points ``(N, 2)`` (or one point) to picture pixel coordinates.

        Examples
        --------
        >>> from tilecast import Grid
        >>> from tilecast.render import Picture
        >>> Picture(Grid([[0, 0], [0, 0]], tile_size=2.0), scale=10).to_pixels([(1.0, 3.0)])
        array([[ 5., 15.]])
        """
        array = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        (w, h), (ox, oy) = self._cell_size, self._origin
        px = (array[:, 0] - ox) / w * self._scale
        py = (array[:, 1] - oy) / h * self._scale
        if self._y_up:
            py = self._cells[0] * self._scale - py
        return np.column_stack([px, py])

    def _layer(self) -> tuple[PILImage, PILDraw]:
        Image, ImageDraw = _pil()
        overlay = Image.new("RGBA", self._image.size, (0, 0, 0, 0))
        return overlay, ImageDraw.Draw(overlay)

    def _blend(self, overlay: PILImage) -> Picture:
        Image, _ = _pil()
        self._image = Image.alpha_composite(self._image, overlay)
        return self

    def _pick(self, key: str, color: Any) -> tuple[int, int, int, int]:
        return self.colors[key] if color is None else _color("color", color)

    # -------------------------------------------------------------- layers
    def fov(self, mask: Any, color: Any = None) -> Picture:
        """Tint the cells where ``mask[row, col]`` is True (a field of view).

        Examples
        --------
        >>> from tilecast import Grid, fov
        >>> from tilecast.render import Picture
        >>> grid = Grid([[0, 1, 0]])
        >>> picture = Picture(grid, scale=10).fov(fov(grid, (0, 0)))
        >>> picture.image.getpixel((5, 5))  # floor, seen: tinted
        (246, 221, 158)
        >>> picture.image.getpixel((25, 5))  # behind the wall: plain floor
        (238, 234, 224)
        """
        Image, _ = _pil()
        mask = np.asarray(mask)
        if mask.shape != self._cells:
            raise ValueError(f"mask must have the map's shape {self._cells}, got {mask.shape}")
        rgba = np.zeros((*mask.shape, 4), dtype=np.uint8)
        rgba[mask.astype(bool)] = self._pick("fov", color)
        if self._y_up:
            rgba = rgba[::-1]
        overlay = Image.fromarray(rgba, "RGBA").resize(self._image.size, Image.NEAREST)
        return self._blend(overlay)

    def polygon(self, polygon: Any, color: Any = None, outline: Any = None) -> Picture:
        """Fill a polygon ``(K, 2)`` (e.g. a visibility polygon) and draw its outline.

        Examples
        --------
        >>> from tilecast import Grid
        >>> from tilecast.render import Picture
        >>> picture = Picture(Grid([[0, 0], [0, 0]]), scale=10)
        >>> picture = picture.polygon([(0, 0), (2, 0), (2, 2)])  # the upper-right half
        >>> picture.image.getpixel((15, 5)) != picture.image.getpixel((5, 15))
        True
        """
        points = self.to_pixels(polygon)
        if len(points) < 3:
            return self
        overlay, draw = self._layer()
        xy = [tuple(p) for p in points]
        draw.polygon(xy, fill=self._pick("polygon", color))
        draw.line([*xy, xy[0]], fill=self._pick("outline", outline), width=1)
        return self._blend(overlay)

    def lights(
        self, scene: Any, lights: Any, *, radius: float | None = None, color: Any = None
    ) -> Picture:
        """Light the picture: each light's visibility polygon among the scene's walls.

        ``scene`` is a :class:`~tilecast.VisibilityScene` (prepare it once, for
        every frame: its queries are the fast ones), ``lights`` an ``(N, 2)``
        array of positions, ``radius`` each light's reach (None: unlimited,
        the walls must then close the lights in). The polygons come from
        ``scene.polygons`` (every core); each is blended on its own, so light
        adds up where lights overlap. A light inside a circle of the scene
        lights nothing.

        Examples
        --------
        >>> from tilecast import Grid, VisibilityScene
        >>> from tilecast.render import Picture
        >>> room = Grid([[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], outside="solid")
        >>> picture = Picture(room, scale=10)
        >>> before = picture.image.getpixel((5, 5))
        >>> scene = VisibilityScene.from_grid(room)
        >>> lit = picture.lights(scene, [(0.5, 1.5)], radius=10.0)  # the wall cell (2, 1)
        >>> lit.image.getpixel((5, 5)) != before, lit.image.getpixel((35, 15)) == before
        (True, True)
        """
        from tilecast.scene import VisibilityScene

        if not isinstance(scene, VisibilityScene):
            raise TypeError(f"scene must be a VisibilityScene, got {type(scene).__name__}")
        points = as_points_array("lights", lights)
        fill = self._pick("light", color)
        for polygon in scene.polygons(points, radius=radius):
            self.polygon(polygon, color=fill, outline=(0, 0, 0, 0))
        return self

    def segments(self, segments: Any, color: Any = None, width: int = 2) -> Picture:
        """Draw segments ``(M, 2, 2)`` (e.g. :func:`~tilecast.wall_segments`).

        Examples
        --------
        >>> from tilecast import Grid
        >>> from tilecast.render import Picture
        >>> picture = Picture(Grid([[0, 1]]), scale=10)
        >>> face = [[(1.0, 0.0), (1.0, 1.0)]]  # between the floor and the wall
        >>> picture.segments(face).image.getpixel((10, 5))
        (40, 120, 210)
        """
        segs = np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2)
        overlay, draw = self._layer()
        fill = self._pick("segments", color)
        for a, b in zip(self.to_pixels(segs[:, 0]), self.to_pixels(segs[:, 1]), strict=True):
            draw.line([tuple(a), tuple(b)], fill=fill, width=width)
        return self._blend(overlay)

    def rays(self, origins: Any, ends: Any, color: Any = None, width: int = 1) -> Picture:
        """Draw rays from ``origins`` (one point or ``(N, 2)``) to ``ends`` ``(N, 2)``.

        Rays whose end is NaN (misses in :class:`~tilecast.Hits`) are skipped.

        Examples
        --------
        >>> from tilecast import Grid
        >>> from tilecast.render import Picture
        >>> picture = Picture(Grid([[0, 0, 0]]), scale=10)
        >>> floor = picture.image.getpixel((15, 5))
        >>> picture = picture.rays((0.5, 0.5), [(2.5, 0.5), (float("nan"), float("nan"))])
        >>> picture.image.getpixel((15, 5)) != floor  # the ray crosses the middle cell
        True
        """
        ends_px = self.to_pixels(ends)
        starts_px = self.to_pixels(origins)
        if len(starts_px) == 1:
            starts_px = np.repeat(starts_px, len(ends_px), axis=0)
        if len(starts_px) != len(ends_px):
            raise ValueError("origins must be one point or as many points as ends")
        overlay, draw = self._layer()
        fill = self._pick("rays", color)
        for a, b in zip(starts_px, ends_px, strict=True):
            if np.isfinite(a).all() and np.isfinite(b).all():
                draw.line([tuple(a), tuple(b)], fill=fill, width=width)
        return self._blend(overlay)

    def hits(self, points: Any, color: Any = None, radius: float = 2.0) -> Picture:
        """Mark hit points ``(N, 2)`` with small dots (NaN rows, i.e. misses, are skipped).

        Examples
        --------
        >>> from tilecast import Grid, raycast
        >>> from tilecast.render import Picture
        >>> grid = Grid([[0, 0, 1]])
        >>> hit = raycast(grid, (0.5, 0.5), (1.0, 0.0))
        >>> Picture(grid, scale=10).hits([hit.point]).image.getpixel((20, 5))
        (200, 30, 30)
        """
        return self.points(points, color=self._pick("hits", color), radius=radius)

    def points(self, points: Any, color: Any = None, radius: float = 4.0) -> Picture:
        """Mark points ``(N, 2)`` (e.g. the viewer) with dots of ``radius`` pixels.

        Examples
        --------
        >>> from tilecast import Grid
        >>> from tilecast.render import Picture
        >>> picture = Picture(Grid([[0, 0]]), scale=10).points([(0.5, 0.5)])
        >>> picture.image.getpixel((5, 5)), picture.image.getpixel((15, 5))
        ((20, 130, 60), (238, 234, 224))
        """
        overlay, draw = self._layer()
        fill = self._pick("viewer", color)
        for x, y in self.to_pixels(points):
            if np.isfinite(x) and np.isfinite(y):
                draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=fill)
        return self._blend(overlay)

    def save(self, path: Any) -> None:
        """Write the picture to ``path`` (format from the suffix, e.g. ``.png``).

        Examples
        --------
        >>> import os, tempfile
        >>> from PIL import Image
        >>> from tilecast import Grid
        >>> from tilecast.render import Picture
        >>> path = os.path.join(tempfile.mkdtemp(), "map.png")
        >>> Picture(Grid([[0, 1, 0]]), scale=8).save(path)
        >>> Image.open(path).size
        (24, 8)
        """
        self.image.save(path)


def render_map(
    grid: Any,
    *,
    scale: float = 12,
    fov: Any = None,
    polygon: Any = None,
    segments: Any = None,
    viewer: Any = None,
    hits: Any = None,
    y_up: bool = False,
    grid_lines: bool = False,
) -> PILImage:
    """Draw a map with optional layers in one call and return the PIL image.

    Parameters
    ----------
    grid : Grid or TileMap
        The map.
    scale : float, default 12
        Picture pixels per cell.
    fov : array of bool, optional
        A field-of-view mask ``(rows, cols)`` to tint.
    polygon : array, optional
        A polygon ``(K, 2)`` to fill (e.g. the lit area).
    segments : array, optional
        Segments ``(M, 2, 2)`` to draw.
    viewer : (float, float), optional
        Where the viewer stands; with ``hits`` the rays are drawn from here.
    hits : array, optional
        Hit points ``(N, 2)``; NaN rows (misses) are skipped.
    y_up, grid_lines
        As for :class:`Picture`.

    Returns
    -------
    PIL.Image.Image

    Examples
    --------
    >>> from tilecast import Grid, fov
    >>> from tilecast.render import render_map
    >>> grid = Grid([[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    >>> image = render_map(grid, scale=4, fov=fov(grid, (0, 0)), viewer=(0.5, 0.5))
    >>> image.size, image.mode
    ((12, 12), 'RGB')
    """
    picture = Picture(grid, scale, y_up=y_up, grid_lines=grid_lines)
    if fov is not None:
        picture.fov(fov)
    if polygon is not None:
        picture.polygon(polygon)
    if segments is not None:
        picture.segments(segments)
    if hits is not None:
        if viewer is not None:
            picture.rays(as_point("viewer", viewer), hits)
        picture.hits(hits)
    if viewer is not None:
        picture.points([as_point("viewer", viewer)])
    return picture.image
