"""Plain pictures as maps: one pixel per cell, solid by darkness (or lightness, or alpha).

The gray value of a pixel is ``0.229 r + 0.587 g + 0.114 b`` (the rule of
range_libc, used by the project's benchmark map, so that loaded maps match its
published figures); a gray-scale image uses its value directly. Note that
these weights sum to 0.93, not 1 (range_libc's 0.229 where the usual
luminance weight is 0.299): the RGB pixel (128, 128, 128) has gray value
119.04 while the gray-scale pixel 128 has 128 (1-bit and gray + alpha images
are gray-scale; palette images count as RGB). Pillow is imported only when a
file (or a PIL image) is loaded; a NumPy array needs no Pillow at all.

Pictures are read through :class:`PixelRows`, a block of rows at a time, so
that a large map costs the decoder's own bytes plus one byte per cell.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast._validate import as_choice, as_finite_float
from tilecast.grid import Grid
from tilecast.io._common import MapLoadError, describe, excerpt
from tilecast.io.limits import Limits, as_limits, inside_root

__all__ = [
    "GRAY_WEIGHTS",
    "PixelRows",
    "gray_of",
    "load_image",
    "open_image",
    "read_pixels",
    "read_rgb_alpha",
    "read_rgba",
]

#: Pixels converted and thresholded at a time: a float64 work array is 2 MB.
CHUNK_PIXELS = 1 << 18

#: Weights of r, g, b in the gray value (range_libc's rule).
GRAY_WEIGHTS = (0.229, 0.587, 0.114)
MODES = ("dark", "light", "alpha")


def _pil_image() -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(
            "reading image files needs Pillow: pip install Pillow (or 'tilecast[image]'); "
            "a NumPy array needs none"
        ) from None
    return Image


def open_image(path: Any, limits: Limits | None = None, where: str | None = None) -> Any:
    """Open an image file and decode it, after checking its size in the header.

    Pillow's own decompression-bomb warning is replaced by ``limits.max_pixels``
    (checked before decoding); its error becomes :class:`MapLoadError`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from PIL import Image
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.png"
    >>> Image.new("L", (4, 3)).save(path)
    >>> open_image(path).size
    (4, 3)
    >>> open_image(path, Limits(max_pixels=10))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tilecast.io._common.MapLoadError: ...a.png: 12 pixels, more than max_pixels=10 (raise it with limits=Limits(max_pixels=...))
    """  # noqa: E501
    limits = as_limits(limits)
    name = where or os.fspath(path)
    image_module = _pil_image()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", image_module.DecompressionBombWarning)
            opened = image_module.open(path)
            try:
                width, height = opened.size
                limits.check(name, "max_pixels", width * height, "pixels")
                opened.load()  # closes a single-frame file: no copy needed
            except BaseException:
                opened.close()
                raise
            if getattr(opened, "fp", None) is not None:  # animations keep their file open
                image = opened.copy()
                opened.close()
                return image
            return opened
    except FileNotFoundError:
        raise MapLoadError(f"{name}: no such file") from None
    except image_module.UnidentifiedImageError:
        raise MapLoadError(f"{name}: not an image file Pillow can read") from None
    except image_module.DecompressionBombError as exc:
        raise MapLoadError(
            f"{name}: the image is too large to decode ({exc}); raise limits=Limits("
            "max_pixels=...) and Pillow's PIL.Image.MAX_IMAGE_PIXELS for such images"
        ) from None
    except MemoryError:
        raise MapLoadError(f"{name}: not enough memory to decode the image") from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError) as exc:
        if isinstance(exc, MapLoadError):
            raise
        raise MapLoadError(f"{name}: cannot read the image ({exc})") from None


class PixelRows:
    """A decoded picture (or an array), read and converted a block of rows at a time.

    Made by :func:`read_pixels`. ``channels`` says what a block holds: 1 (gray,
    blocks ``(h, W)``), 2 (gray and alpha), 3 (RGB) or 4 (RGBA), blocks
    ``(h, W, channels)``; ``dtype`` is the blocks' dtype (``uint8`` for 8-bit
    images, ``uint16`` for 16-bit gray). Converting by blocks keeps a large map
    at the decoder's own bytes per pixel plus one output byte.

    Examples
    --------
    >>> import numpy as np
    >>> rows = read_pixels(np.arange(6, dtype=np.uint8).reshape(2, 3))
    >>> rows.shape, rows.channels, rows.dtype
    ((2, 3), 1, dtype('uint8'))
    >>> rows.map(lambda block: block > 2).astype(int)
    array([[0, 0, 0],
           [1, 1, 1]])
    >>> rows.map(lambda block: block > 2, flip=True).astype(int)  # last row first
    array([[1, 1, 1],
           [0, 0, 0]])
    """

    __slots__ = ("_read", "channels", "dtype", "name", "shape")

    def __init__(
        self,
        name: str,
        shape: tuple[int, int],
        channels: int,
        read: Callable[[int, int], NDArray[Any]],
    ) -> None:
        self.name = name
        self.shape = shape
        self.channels = channels
        self._read = read
        self.dtype = self.block(0, 1).dtype

    def block(self, start: int, stop: int) -> NDArray[Any]:
        """Rows ``start`` to ``stop`` (exclusive) as an array."""
        return self._read(start, stop)

    def map(
        self,
        rule: Callable[[NDArray[Any]], NDArray[Any]],
        dtype: Any = np.bool_,
        *,
        flip: bool = False,
    ) -> NDArray[Any]:
        """Apply a per-pixel ``rule`` block by block; ``flip`` stores the rows bottom-up."""
        rows, cols = self.shape
        out = np.empty((rows, cols), dtype=dtype)
        step = max(1, CHUNK_PIXELS // cols)
        for start in range(0, rows, step):
            stop = min(rows, start + step)
            value = rule(self.block(start, stop))
            if flip:
                out[rows - stop : rows - start] = value[::-1]
            else:
                out[start:stop] = value
        return out


def _pillow_target(image: Any) -> str | None:
    """Return the mode a Pillow image's blocks are converted to (None: read as they are)."""
    mode = image.mode
    if "transparency" in image.info and mode in ("1", "L", "RGB", "P"):
        return "LA" if mode in ("1", "L") else "RGBA"  # a colour key is alpha too
    if mode in ("PA", "RGBa"):
        return "RGBA"
    if mode == "La":
        return "LA"
    if mode == "1":
        return "L"  # bilevel gray: 0 and 255
    if mode in ("P", "CMYK", "YCbCr", "HSV", "LAB", "RGBX"):
        return "RGB"
    return None


def _pillow_rows(image: Any) -> Callable[[int, int], NDArray[Any]]:
    target = _pillow_target(image)
    width = image.size[0]

    def read(start: int, stop: int) -> NDArray[Any]:
        part = image.crop((0, start, width, stop))
        if target is not None:
            part = part.convert(target)
        array = np.asarray(part)
        if array.dtype.byteorder not in ("=", "|"):  # I;16B and friends
            array = array.astype(array.dtype.newbyteorder("="))
        return array

    return read


def read_pixels(source: Any, *, root: Any = None, limits: Limits | None = None) -> PixelRows:
    """Open an image (path, PIL image or array) to be read a block of rows at a time.

    Palette images become RGB (RGBA with transparency), bilevel images gray
    (0 and 255); a colour key (PNG ``tRNS``) becomes an alpha channel; 8-bit
    images stay 8-bit and 16-bit gray 16-bit. Problems raise
    :class:`MapLoadError` naming the file.

    Examples
    --------
    >>> import numpy as np
    >>> read_pixels(np.zeros((2, 3, 4), dtype=np.uint8)).channels
    4
    """
    name = describe(source)
    read: Callable[[int, int], NDArray[Any]]
    if isinstance(source, np.ndarray):
        array = source
        if array.ndim == 3 and array.shape[2] == 1:
            array = array[:, :, 0]
        channels = 1 if array.ndim == 2 else array.shape[-1]
        if array.ndim not in (2, 3) or channels not in (1, 2, 3, 4):
            raise MapLoadError(
                f"{name}: expected a gray, gray+alpha, RGB or RGBA image, got shape {array.shape}"
            )
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.number):
            raise MapLoadError(f"{name}: pixels must be numbers, got dtype {array.dtype}")
        shape = array.shape[:2]

        def read_array(start: int, stop: int) -> NDArray[Any]:
            return array[start:stop]

        read = read_array
    elif isinstance(source, str | os.PathLike) or hasattr(source, "getpixel"):
        if isinstance(source, str | os.PathLike):
            inside_root(name, Path(source), root, "the image")
            image = open_image(source, limits)
        else:
            image = source
        shape = (image.size[1], image.size[0])
        bands = _pillow_target(image) or image.mode
        channels = {"LA": 2, "RGB": 3, "RGBA": 4}.get(bands, 1)
        read = _pillow_rows(image)
    else:
        raise TypeError(
            f"source must be a path, a PIL image or a NumPy array, got {type(source).__name__}"
        )
    if shape[0] == 0 or shape[1] == 0:
        raise MapLoadError(f"{name}: the image is empty")
    try:
        rows = PixelRows(name, (int(shape[0]), int(shape[1])), channels, read)
        first = rows.block(0, 1)
    except (OSError, ValueError, SyntaxError) as exc:
        raise MapLoadError(f"{name}: cannot read the image ({exc})") from None
    if first.shape[1:] != ((shape[1],) if channels == 1 else (shape[1], channels)) or not (
        np.issubdtype(first.dtype, np.number) and first.dtype != np.bool_
    ):
        raise MapLoadError(f"{name}: unsupported kind of image ({first.dtype}, {first.shape[1:]})")
    return rows


def gray_of(pixels: NDArray[np.number[Any]]) -> NDArray[Any]:
    """Gray value per pixel: the value itself, or ``0.229 r + 0.587 g + 0.114 b``.

    ``pixels`` is a block from :class:`PixelRows`: ``(h, W)`` gray, or
    ``(h, W, C)`` with gray and alpha (C = 2) or colour first (C = 3, 4).

    Examples
    --------
    >>> import numpy as np
    >>> gray_of(np.array([[[100, 200, 50]]])).round(3)
    array([[146.]])
    >>> gray_of(np.array([[[100, 0]]]))  # gray and alpha: the gray value
    array([[100]])
    """
    if pixels.ndim == 2:
        return pixels
    if pixels.shape[2] == 2:
        return pixels[:, :, 0]
    rgb = pixels[:, :, :3].astype(np.float64)
    r, g, b = GRAY_WEIGHTS
    return r * rgb[:, :, 0] + g * rgb[:, :, 1] + b * rgb[:, :, 2]


def load_image(
    source: Any,
    threshold: float = 128,
    mode: str = "dark",
    *,
    tile_size: float | tuple[float, float] = 1.0,
    origin: tuple[float, float] = (0.0, 0.0),
    outside: str = "empty",
    root: Any = None,
    limits: Limits | None = None,
) -> Grid:
    """Load a picture as a :class:`~tilecast.Grid`, one cell per pixel.

    Parameters
    ----------
    source : str, os.PathLike, PIL image or ndarray
        The picture. Pixel ``(x, y)`` (column ``x`` from the left, row ``y``
        from the top) becomes cell ``(x, y)``: row 0 is the top row.
    threshold : float, default 128
        Where solid begins, in the image's own units (0..255 for 8-bit).
    mode : {"dark", "light", "alpha"}, default "dark"
        ``"dark"``: a pixel is solid when its gray value is below ``threshold``
        (black walls on white, as in most occupancy pictures); ``"light"``:
        when it is at least ``threshold``; ``"alpha"``: when its alpha is
        greater than ``threshold`` (opaque pixels are walls; an image without
        alpha is then fully solid). The colour's own alpha is ignored by the
        other modes.
    tile_size, origin, outside
        Passed to :class:`~tilecast.Grid`.
    root : str or os.PathLike, optional
        When given, the image file must lie inside this folder.
    limits : Limits, optional
        Size limits (pixels, checked from the header before decoding); see
        :class:`~tilecast.io.Limits`.

    Returns
    -------
    Grid
        Decoded lean: the picture is converted and thresholded a block of
        rows at a time, so an 8-bit gray 10976 x 10976 map peaks at about two
        bytes per pixel (0.25 GB): the decoded picture and the solid cells.

    Raises
    ------
    MapLoadError
        The file is missing, not an image, truncated, of an unusable shape,
        larger than ``limits.max_pixels``, or outside ``root``.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast.io import load_image
    >>> pixels = np.array([[0, 255, 130], [127, 128, 255]], dtype=np.uint8)
    >>> load_image(pixels).solid.astype(int)
    array([[1, 0, 0],
           [1, 0, 0]])
    >>> load_image(pixels, mode="light", threshold=200).solid.astype(int)
    array([[0, 1, 0],
           [0, 0, 1]])
    """
    mode = as_choice("mode", mode, MODES)
    threshold = as_finite_float("threshold", threshold)
    pixels = read_pixels(source, root=root, limits=limits)
    if mode == "alpha":
        if pixels.channels in (2, 4):
            solid = pixels.map(lambda block: block[:, :, -1] > threshold)
        else:
            solid = np.ones(pixels.shape, dtype=np.bool_)
    elif mode == "dark":
        solid = pixels.map(lambda block: gray_of(block) < threshold)
    else:
        solid = pixels.map(lambda block: gray_of(block) >= threshold)
    del pixels  # the decoded picture: only the solid bytes go on into the Grid
    return Grid(solid, tile_size=tile_size, origin=origin, outside=outside)


def read_rgba(path: Path, limits: Limits, where: str) -> NDArray[np.uint8]:
    """Read a tileset image as 8-bit RGBA (alpha 255 where the file has none).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from PIL import Image
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.png"
    >>> Image.new("RGB", (2, 1), (9, 8, 7)).save(path)
    >>> read_rgba(path, Limits(), "t").tolist()
    [[[9, 8, 7, 255], [9, 8, 7, 255]]]
    """
    inside_root(where, path, None, "the image")
    try:
        found = path.is_file()
    except OSError:
        found = False
    if not found:
        shown = str(path) if len(str(path)) <= 300 else excerpt(str(path))
        raise MapLoadError(f"{where}: tileset image {shown} not found")
    image = open_image(path, limits, f"{where}: image {path}")
    try:
        return np.asarray(image.convert("RGBA"), dtype=np.uint8)
    except (OSError, ValueError) as exc:
        raise MapLoadError(f"{where}: cannot convert the image {path} ({exc})") from None


def read_rgb_alpha(image: Any, need_alpha: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Split a tileset image (path, Pillow image or array) into colour and alpha.

    Returns ``(rgb, alpha)``: ``rgb`` of shape ``(H, W, 3)`` and ``alpha`` of
    shape ``(H, W)``, or ``None`` for an image without alpha when
    ``need_alpha`` is false (a colour key then says what is transparent).

    Examples
    --------
    >>> import numpy as np
    >>> rgb, alpha = read_rgb_alpha(np.zeros((2, 3, 4), dtype=np.uint8), need_alpha=True)
    >>> rgb.shape, alpha.shape
    ((2, 3, 3), (2, 3))
    """
    if isinstance(image, np.ndarray):
        return _split_array(image, need_alpha)
    if isinstance(image, str | os.PathLike):
        pil = _pil_image()
        try:
            with pil.open(image) as opened:
                opened.load()
                return _split_pillow(opened, need_alpha, f"image {os.fspath(image)!r}")
        except OSError as exc:
            raise ValueError(f"image: cannot read {os.fspath(image)!r}: {exc}") from None
    if hasattr(image, "getbands") and hasattr(image, "convert"):
        return _split_pillow(image, need_alpha, "image")
    raise TypeError(
        f"image must be a path, a PIL image or an (H, W, 4) numpy array, got {type(image).__name__}"
    )


def _split_pillow(image: Any, need_alpha: bool, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    has_alpha = "A" in image.getbands() or "transparency" in image.info
    if has_alpha:
        rgba = np.asarray(image.convert("RGBA"))
        return rgba[..., :3], rgba[..., 3]
    if need_alpha:
        raise ValueError(
            f"{what} has no alpha channel (mode {image.mode!r}): use an RGBA image "
            "or pass color_key=(r, g, b) for the transparent colour"
        )
    return np.asarray(image.convert("RGB")), None


def _split_array(array: np.ndarray, need_alpha: bool) -> tuple[np.ndarray, np.ndarray | None]:
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"image array must hold numbers, got dtype {array.dtype}")
    if array.ndim != 3 or array.shape[2] not in (3, 4):
        raise ValueError(f"image array must have shape (H, W, 4) (RGBA), got {array.shape}")
    if array.shape[2] == 3:
        if need_alpha:
            raise ValueError(
                "image array has no alpha channel (shape (H, W, 3)): use (H, W, 4) RGBA "
                "or pass color_key=(r, g, b) for the transparent colour"
            )
        return array, None
    return array[..., :3], array[..., 3]
