"""ROS occupancy-grid maps (``map_server`` / ``nav2_map_server`` YAML + PGM/PNG).

The YAML names the ``image`` (relative to the YAML file), its ``resolution``
(metres per pixel), the ``origin`` ``[x, y, yaw]`` of the *lower-left* pixel,
``negate``, ``occupied_thresh`` and ``free_thresh`` and an optional ``mode``
(``trinary``, ``scale`` or ``raw``). Each pixel becomes the value nav2's
``map_io.cpp`` publishes in its ``OccupancyGrid`` (:func:`ros_occupancy`):

- ``shade`` is the mean of the pixel's red, green and blue (a gray pixel is
  its own value) over the largest value (255, or 65535 for 16-bit gray);
  in ``trinary`` mode an image with alpha (RGBA, gray+alpha, a PNG colour
  key) averages its alpha in as a fourth channel (opaque = 255);
- ``trinary``: ``occ = 1 - shade`` (``shade`` when ``negate``);
  ``occ > occupied_thresh`` is 100, ``occ < free_thresh`` 0, else -1;
- ``scale``: alpha is not averaged in; a pixel that is not fully opaque is
  -1; else 100 / 0 as above, and in between ``rint(100 (occ - free_thresh) /
  (occupied_thresh - free_thresh))``;
- ``raw``: ``round(255 shade)`` if it is at most 100, else -1 (``negate`` is
  not applied, as in nav2).

The :class:`~tilecast.Grid` then reads those values as ``nav2_amcl`` (whose
beam model ray-casts on them) does: 0 is free, 100 occupied, everything else
(-1 and 1..99) unknown, which ``unknown=`` makes solid (default) or free.
docs/loaders.md lists where ROS 1's ``map_server`` differs.

**Frame.** ROS maps are metric and y-up, while image row 0 is the top. The
loader flips the rows: grid row 0 is the *bottom* image row, ``tile_size`` is
``(resolution, resolution)`` and ``origin`` is ``(x, y)`` from the YAML, so
cell ``(i, j)`` covers ``[x + i*res, x + (i+1)*res) x [y + j*res, y + (j+1)*res)``
in map metres, y up. Queries take poses in the map frame unchanged. A
non-zero ``yaw`` is ignored for the grid, as ``map_server`` and nav2 do (they
publish the origin's yaw but lay the cells out axis-aligned); the loader logs
it (logger ``tilecast``) so that it is not lost.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast._validate import as_choice, as_finite_float, as_path
from tilecast.grid import Grid, adopt_cells
from tilecast.io._common import MapLoadError, excerpt
from tilecast.io.image import PixelRows, read_pixels
from tilecast.io.limits import Limits, as_limits, check_depth, inside_root, is_file, read_limited

__all__ = ["load_ros_map", "ros_occupancy"]

UNKNOWN_POLICIES = ("solid", "free")
#: Layer bits of a loaded ROS map (DESIGN 20): occupied cells, unknown cells.
#: ``mask=1`` reads unknown space as free, ``mask=3`` (or the default) as a wall.
OCCUPIED_LAYER = 1
UNKNOWN_LAYER = 2
ROS_MODES = ("trinary", "scale", "raw")
logger = logging.getLogger("tilecast")


def _yaml() -> Any:
    try:
        import yaml
    except ImportError:
        raise ImportError(
            "loading ROS maps needs PyYAML: pip install PyYAML (or 'tilecast[yaml]')"
        ) from None
    return yaml


def _number(meta: dict[str, Any], key: str, path: Path, default: float | None = None) -> float:
    value = meta.get(key, default)
    if value is None:
        raise MapLoadError(f"{path}: missing '{key}'")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise MapLoadError(f"{path}: '{key}' must be a finite number, got {excerpt(value)}")
    return float(value)


def ros_occupancy(
    pixels: NDArray[np.number[Any]],
    *,
    negate: bool = False,
    occupied_thresh: float = 0.65,
    free_thresh: float = 0.196,
    mode: str = "trinary",
) -> NDArray[np.int8]:
    """Return the occupancy values nav2's map server publishes for these pixels.

    Parameters
    ----------
    pixels : ndarray
        ``(H, W)`` gray, ``(H, W, 2)`` gray and alpha, ``(H, W, 3)`` RGB or
        ``(H, W, 4)`` RGBA; ``uint8`` (or ``uint16`` for 16-bit gray).
    negate : bool, default False
        Dark pixels free and light ones occupied (not applied in ``raw`` mode).
    occupied_thresh, free_thresh : float
        The YAML's thresholds, ``0 <= free_thresh <= occupied_thresh <= 1``.
    mode : {"trinary", "scale", "raw"}, default "trinary"
        The YAML's ``mode``; see the module's description for each rule.

    Returns
    -------
    ndarray of int8, shape (H, W)
        -1 unknown, 0 free, 100 occupied (``scale``, ``raw``: also 1..99),
        in the image's own row order (row 0 the top; the ROS message starts
        at the bottom row).

    Examples
    --------
    >>> import numpy as np
    >>> ros_occupancy(np.array([[0, 205, 254]], dtype=np.uint8))
    array([[100,  -1,   0]], dtype=int8)
    >>> rgba = np.array([[[205, 205, 205, 255], [255, 255, 255, 0]]], dtype=np.uint8)
    >>> ros_occupancy(rgba)  # trinary: alpha averaged in, (615 + 255) / 4 and 765 / 4
    array([[ 0, -1]], dtype=int8)
    >>> ros_occupancy(rgba, mode="scale")  # scale: not fully opaque is unknown
    array([[ 0, -1]], dtype=int8)
    >>> ros_occupancy(np.array([[0, 100, 101]], dtype=np.uint8), mode="raw")
    array([[  0, 100,  -1]], dtype=int8)
    """
    mode = as_choice("mode", mode, ROS_MODES)
    occupied = as_finite_float("occupied_thresh", occupied_thresh)
    free = as_finite_float("free_thresh", free_thresh)
    if not 0.0 <= free <= occupied <= 1.0:
        raise ValueError(
            f"need 0 <= free_thresh <= occupied_thresh <= 1, got {free} and {occupied}"
        )
    if not isinstance(pixels, np.ndarray):
        raise TypeError(f"pixels must be a NumPy array, got {type(pixels).__name__}")
    rows = read_pixels(pixels)
    return rows.map(_rule(rows, bool(negate), occupied, free, mode), np.int8)


def _rule(
    rows: PixelRows, negate: bool, occupied: float, free: float, mode: str
) -> Callable[[NDArray[Any]], NDArray[np.int8]]:
    """nav2's per-pixel rule for the blocks of ``rows``, as a function of one block."""
    if rows.dtype == np.uint8:
        full = 255.0
    elif rows.dtype == np.uint16 and rows.channels == 1:
        full = 65535.0
    else:
        raise MapLoadError(
            f"{rows.name}: expected an 8-bit image or 16-bit gray, got {rows.dtype} "
            f"with {rows.channels} channel(s)"
        )
    if mode == "scale" and free == occupied:
        raise MapLoadError(f"{rows.name}: mode 'scale' needs free_thresh < occupied_thresh")
    channels = rows.channels  # not rows itself: the rule must not keep the picture alive
    has_alpha = channels in (2, 4)
    average_alpha = has_alpha and mode == "trinary"

    def rule(block: NDArray[Any]) -> NDArray[np.int8]:
        if channels == 1:  # gray: red = green = blue, and 3 v / 3 is v exactly
            shade = block / full
        else:
            if channels == 2:
                colour_sum = 3 * block[:, :, 0].astype(np.int64)
            else:
                colour_sum = block[:, :, :3].sum(axis=2, dtype=np.int64)
            if average_alpha:
                shade = (colour_sum + block[:, :, -1]) / 4.0 / full
            else:
                shade = colour_sum / 3.0 / full
        out = np.full(shade.shape, -1, dtype=np.int8)
        if mode == "raw":
            percent = np.floor(shade * 255.0 + 0.5)  # std::round of a non-negative value
            known = percent <= 100.0
            out[known] = percent[known]
            return out
        occ = shade if negate else 1.0 - shade
        if mode == "scale":
            between = (occ >= free) & (occ <= occupied)
            out[between] = np.rint((occ[between] - free) / (occupied - free) * 100.0)
        out[occ > occupied] = 100
        out[occ < free] = 0
        if mode == "scale" and has_alpha:
            out[block[:, :, -1] != full] = -1
        return out

    return rule


def load_ros_map(
    path: Any,
    *,
    unknown: str = "solid",
    outside: str = "solid",
    root: Any = None,
    limits: Limits | None = None,
) -> Grid:
    r"""Load a ROS map (its YAML file) as a metric, y-up :class:`~tilecast.Grid`.

    Parameters
    ----------
    path : str or os.PathLike
        The map's YAML file; its ``image`` is found relative to it.
    unknown : {"solid", "free"}, default "solid"
        What unknown cells become: those nav2 publishes as neither 0 (free)
        nor 100 (occupied), i.e. -1 and, in ``scale`` and ``raw`` mode, 1..99
        (``nav2_amcl`` reads them so too). ``"solid"`` keeps simulated beams
        from passing through unexplored space: unknown cells are on layer 2
        and occupied ones on layer 1, so a query with ``mask=1`` reads
        unknown space as free and the default mask (or ``mask=3``) as a
        wall. ``"free"``: unknown cells are on no layer.
    outside : {"empty", "solid"}, default "solid"
        Passed to :class:`~tilecast.Grid`; robotics maps want ``"solid"``.
    root : str or os.PathLike, optional
        When given, the YAML file and its image must lie inside this folder.
    limits : Limits, optional
        Size limits (image pixels, file bytes, YAML nesting); see
        :class:`~tilecast.io.Limits`.

    Returns
    -------
    Grid
        Rows flipped so that row 0 is the bottom of the image; ``tile_size``
        ``(resolution, resolution)``; ``origin`` the YAML's ``(x, y)``.

    Raises
    ------
    MapLoadError
        Unreadable or malformed YAML, a missing key, a missing or unreadable
        image, thresholds out of order, a limit exceeded, a file outside ``root``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from PIL import Image
    >>> from tilecast.io import load_ros_map
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> Image.frombytes("L", (3, 2), bytes([0, 254, 254, 254, 254, 205])).save(folder / "m.pgm")
    >>> _ = (folder / "m.yaml").write_text(
    ...     "image: m.pgm\nresolution: 0.5\norigin: [-1.0, 2.0, 0.0]\n"
    ...     "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n")
    >>> grid = load_ros_map(folder / "m.yaml", unknown="free")
    >>> grid.solid.astype(int)  # row 0 is the bottom image row
    array([[0, 0, 0],
           [1, 0, 0]])
    >>> grid.tile_size, grid.origin
    ((0.5, 0.5), (-1.0, 2.0))
    >>> grid.cell_at((-0.75, 2.75))  # the black pixel: top-left in the image
    (0, 1)
    >>> load_ros_map(folder / "m.yaml").layers  # occupied 1, unknown (205) 2
    array([[0, 0, 2],
           [1, 0, 0]], dtype=uint32)
    """
    unknown = as_choice("unknown", unknown, UNKNOWN_POLICIES)
    as_choice("outside", outside, ("empty", "solid"))
    yaml = _yaml()
    path = as_path("path", path)
    limits = as_limits(limits)
    data = read_limited(path, limits, root)
    check_depth(str(path), data, limits)
    try:
        text = data.decode("utf-8-sig")
        meta = yaml.safe_load(text)
    except UnicodeDecodeError as exc:
        raise MapLoadError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise MapLoadError(f"{path}: YAML nested too deeply") from None
    except yaml.YAMLError as exc:
        raise MapLoadError(f"{path}: invalid YAML ({excerpt(str(exc))})") from None
    if not isinstance(meta, dict):
        raise MapLoadError(f"{path}: expected a YAML mapping with 'image', 'resolution', ...")
    image = meta.get("image")
    if not isinstance(image, str) or not image:
        raise MapLoadError(f"{path}: missing 'image' (the map picture's file name)")
    resolution = _number(meta, "resolution", path)
    if resolution <= 0:
        raise MapLoadError(f"{path}: 'resolution' must be positive, got {resolution!r}")
    origin = meta.get("origin")
    if not isinstance(origin, list | tuple) or len(origin) not in (2, 3):
        raise MapLoadError(f"{path}: 'origin' must be [x, y, yaw], got {excerpt(origin)}")
    ox, oy, *rest = (_number({"origin": v}, "origin", path) for v in origin)
    yaw = rest[0] if rest else 0.0
    if yaw != 0.0:
        logger.info(
            "%s: origin yaw %r ignored for the grid (as map_server does): cells are axis-aligned",
            path,
            yaw,
        )
    occupied = _number(meta, "occupied_thresh", path, 0.65)
    free = _number(meta, "free_thresh", path, 0.196)
    if not 0.0 <= free <= occupied <= 1.0:
        raise MapLoadError(
            f"{path}: need 0 <= free_thresh <= occupied_thresh <= 1, got {free} and {occupied}"
        )
    negate = meta.get("negate", 0)
    if not isinstance(negate, int | float) or negate not in (0, 1):
        raise MapLoadError(f"{path}: 'negate' must be 0 or 1, got {excerpt(negate)}")
    mode = meta.get("mode", "trinary")
    if not isinstance(mode, str) or mode.lower() not in ROS_MODES:
        raise MapLoadError(f"{path}: 'mode' must be one of {list(ROS_MODES)}, got {excerpt(mode)}")
    mode = mode.lower()  # nav2 lower-cases it
    if negate and mode == "raw":
        logger.info("%s: 'negate' is not applied in mode raw (as nav2 does)", path)
    image_path = inside_root(str(path), path.parent / image, root, f"image {excerpt(image)}")
    if not is_file(image_path):
        shown = str(image_path) if len(image) <= 200 else excerpt(image)
        raise MapLoadError(f"{path}: its image {shown} does not exist")
    pixels = read_pixels(image_path, limits=limits)
    rule = _rule(pixels, bool(negate), occupied, free, mode)
    # nav2_amcl's reading: 0 free, 100 occupied, anything else unknown
    unknown_bit = np.uint8(UNKNOWN_LAYER if unknown == "solid" else 0)

    def layer_bits(block: NDArray[Any]) -> NDArray[np.uint8]:
        occupancy = rule(block)
        bits: NDArray[np.uint8] = np.where(occupancy == 100, np.uint8(OCCUPIED_LAYER), unknown_bit)
        bits[occupancy == 0] = 0
        return bits

    cells = pixels.map(layer_bits, np.uint8, flip=True)
    del pixels  # the decoded picture: only the layer bytes go on into the Grid
    grid = adopt_cells(cells, resolution, (ox, oy), outside)
    grid.source = {"file": str(path), "image": str(image_path), "yaw": yaw}
    return grid
