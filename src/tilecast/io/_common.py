"""What every loader shares: the error type and how a source is named in messages."""

from __future__ import annotations

import os
import reprlib
from typing import Any

from tilecast._validate import as_path

__all__ = ["EXCERPT", "MapLoadError", "describe", "excerpt", "read_bytes", "read_text"]

#: The most characters of file content an error message quotes.
EXCERPT = 80


class _ShortRepr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:  # repr() of a huge integer is slow or refused
            return f"<a {x.bit_length()}-bit integer>"
        return super().repr_int(x, level)


_REPR = _ShortRepr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict = 3, 6, 6, 4
_REPR.maxstring, _REPR.maxother, _REPR.maxlong = EXCERPT, EXCERPT, 40


class MapLoadError(ValueError):
    r"""A map file could not be read; the message names the file and the problem.

    It is a ``ValueError``, so code that already catches bad input catches it too.

    Examples
    --------
    >>> from tilecast.io import MapLoadError, load_ascii
    >>> try:
    ...     load_ascii("#.#\n#x#\n")
    ... except MapLoadError as exc:
    ...     print(exc)
    <text>: line 2, column 2: unknown character 'x' (walls: '#', floor: '.')
    """


def excerpt(value: Any) -> str:
    """Return a short ``repr`` of a value read from a file: at most :data:`EXCERPT` characters.

    Bounded in time too: nested or aliased data (a YAML alias bomb) is cut
    off level by level, never expanded in full.

    Examples
    --------
    >>> len(excerpt("x" * 500)), "..." in excerpt("x" * 500)
    (80, True)
    >>> excerpt([[1, 2], {"a": 3}])
    "[[1, 2], {'a': 3}]"
    """
    text = _REPR.repr(value) if not isinstance(value, str) else repr(value[: 2 * EXCERPT])
    if len(text) > EXCERPT:
        half = (EXCERPT - 3) // 2
        text = text[:half] + "..." + text[len(text) - (EXCERPT - 3 - half) :]
    return text


def describe(source: Any) -> str:
    """Return how ``source`` (a path or an in-memory object) is named in messages."""
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return f"<{type(source).__name__}>"


def read_bytes(source: Any, name: str = "path") -> bytes:
    """Read a whole file, turning a missing or unreadable file into :class:`MapLoadError`."""
    path = as_path(name, source)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise MapLoadError(f"{path}: cannot read the file ({exc.strerror or exc})") from None


def read_text(source: Any, name: str = "path") -> str:
    """Read a UTF-8 text file (see :func:`read_bytes`); bad UTF-8 is a :class:`MapLoadError`."""
    data = read_bytes(source, name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MapLoadError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
