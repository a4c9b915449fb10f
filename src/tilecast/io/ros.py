"""ROS occupancy-grid maps (``map_server`` / ``nav2_map_server`` YAML + PGM/PNG).

The YAML names the ``image`` (relative to the YAML file), its ``resolution``
(metres per pixel), the ``origin`` ``[x, y, yaw]`` of the *lower-left* pixel,
``negate``, ``occupied_thresh`` and ``free_thresh`` and an optional ``mode``
(``trinary``, ``scale`` or ``raw``), read as ``map_server`` reads them:

- the pixel's value ``v`` is the mean of its colour channels (alpha ignored);
- ``trinary``/``scale``: occupancy ``p = (255 - v) / 255`` (``v / 255`` when
  ``negate`` is 1); ``p > occupied_thresh`` is occupied, ``p < free_thresh``
  free, anything else unknown;
- ``raw``: ``v`` (after ``negate``) is the occupancy in percent, anything
  above 100 (255) unknown; ``v / 100`` is compared with the thresholds.

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
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast._validate import as_choice
from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, excerpt
from tilecast.io.image import by_rows, read_pixels
from tilecast.io.limits import Limits, as_limits, check_depth, inside_root, is_file, read_limited

__all__ = ["load_ros_map", "ros_occupancy"]

UNKNOWN_POLICIES = ("solid", "free")
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
    """Classify map pixels as map_server does: +1 occupied, 0 free, -1 unknown.

    ``pixels`` is ``(H, W)`` or ``(H, W, C)`` with 8-bit values; the result is
    an int8 array ``(H, W)`` in the image's own row order.

    Examples
    --------
    >>> import numpy as np
    >>> ros_occupancy(np.array([[0, 205, 254]], dtype=np.uint8))
    array([[ 1, -1,  0]], dtype=int8)
    """
    mode = as_choice("mode", mode, ROS_MODES)
    occupied = by_rows(
        pixels, lambda block: _classify(block, negate, occupied_thresh, free_thresh, mode) > 0
    )
    free = by_rows(
        pixels, lambda block: _classify(block, negate, occupied_thresh, free_thresh, mode) == 0
    )
    result = np.full(pixels.shape[:2], -1, dtype=np.int8)
    result[occupied] = 1
    result[free] = 0
    return result


def _classify(
    pixels: NDArray[np.number[Any]], negate: bool, occupied: float, free: float, mode: str
) -> NDArray[np.int8]:
    """map_server's rule on a block of rows: +1 occupied, 0 free, -1 unknown."""
    values = pixels.astype(np.float64)
    if values.ndim == 3:  # mean of the colour channels, alpha left out
        channels = values.shape[2] - 1 if values.shape[2] in (2, 4) else values.shape[2]
        values = values[:, :, :channels].mean(axis=2)
    if negate:
        values = 255.0 - values
    if mode == "raw":
        occupancy = values / 100.0
        unknown = values > 100
    else:
        occupancy = (255.0 - values) / 255.0
        unknown = np.zeros(values.shape, dtype=np.bool_)
    result = np.full(values.shape, -1, dtype=np.int8)
    result[(occupancy > occupied) & ~unknown] = 1
    result[(occupancy < free) & ~unknown] = 0
    return result


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
        What unknown cells (neither occupied nor free) become. ``"solid"``
        keeps simulated beams from passing through unexplored space.
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
    """
    unknown = as_choice("unknown", unknown, UNKNOWN_POLICIES)
    as_choice("outside", outside, ("empty", "solid"))
    yaml = _yaml()
    if not isinstance(path, str | Path) and not hasattr(path, "__fspath__"):
        raise TypeError(f"path must be a path (str or os.PathLike), got {type(path).__name__}")
    path = Path(path)
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
    if not isinstance(mode, str) or mode not in ROS_MODES:
        raise MapLoadError(f"{path}: 'mode' must be one of {list(ROS_MODES)}, got {excerpt(mode)}")
    image_path = inside_root(str(path), path.parent / image, root, f"image {excerpt(image)}")
    if not is_file(image_path):
        shown = str(image_path) if len(image) <= 200 else excerpt(image)
        raise MapLoadError(f"{path}: its image {shown} does not exist")
    pixels = read_pixels(image_path, limits=limits)
    if pixels.dtype != np.uint8:
        raise MapLoadError(f"{image_path}: expected an 8-bit image, got {pixels.dtype}")
    cells = ros_occupancy(
        pixels, negate=bool(negate), occupied_thresh=occupied, free_thresh=free, mode=mode
    )
    del pixels
    solid = (cells == 1) | ((cells == -1) & (unknown == "solid"))
    del cells
    grid = Grid(solid[::-1], tile_size=resolution, origin=(ox, oy), outside=outside)
    grid.source = {"file": str(path), "image": str(image_path), "yaw": yaw}
    return grid
