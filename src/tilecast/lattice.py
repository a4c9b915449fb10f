"""Lines on the integer lattice: Bresenham-thin (8-connected) and 4-connected.

Cells are ``(i, j) = (col, row)`` integer pairs. Both kinds of line are
*symmetric*: the cells from ``a`` to ``b`` are the cells from ``b`` to ``a`` in
reverse order. Plain Bresenham is not, because it breaks ties (the true line
passing exactly half-way between two cells) by the direction of travel; here
every tie is broken by a rule on absolute coordinates instead:

- ``connectivity=8``: one cell per step along the major axis (the axis of the
  larger of ``|dx|``, ``|dy|``; x when equal), the minor coordinate being the
  true line's rounded to the nearest integer, **ties rounded up** (towards
  ``+inf``). Every cell lies within 1/2 of the true line, measured along the
  minor axis. ``max(|dx|, |dy|) + 1`` cells.
- ``connectivity=4``: the cells whose unit box (centred on the cell) the
  segment between the two cell centres passes through, with one step at a
  time; where it passes exactly through a box corner it goes through the
  shoulder cell with the **larger row** ``j``. Every cell's box meets the
  segment (distance at most 1/2 in the max norm). ``|dx| + |dy| + 1`` cells;
  it contains the 8-connected line.

``line`` is plain Python (the reference); ``lines`` draws many at once in a
compiled kernel and returns them CSR style.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilecast._validate import as_cell, as_cell_array

__all__ = ["line", "lines"]

# Coordinates beyond this could overflow the kernels' int64 error terms.
_COORD_LIMIT = 2**60


def _check_connectivity(connectivity: Any) -> int:
    if isinstance(connectivity, bool) or not isinstance(connectivity, int | np.integer):
        raise TypeError(f"connectivity must be 4 or 8, got {connectivity!r}")
    if connectivity not in (4, 8):
        raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")
    return int(connectivity)


def _checked_cell(name: str, cell: Any) -> tuple[int, int]:
    i, j = as_cell(name, cell)
    if abs(i) > _COORD_LIMIT or abs(j) > _COORD_LIMIT:
        raise ValueError(f"{name} coordinates must lie within +-2**60, got {(i, j)}")
    return i, j


def line(a: Any, b: Any, *, connectivity: int = 8) -> np.ndarray:
    """Cells of the lattice line from cell ``a`` to cell ``b``, both included.

    Parameters
    ----------
    a, b : (int, int)
        End cells ``(i, j)``.
    connectivity : {8, 4}, default 8
        ``8``: Bresenham-thin, ``max(|dx|, |dy|) + 1`` cells, ties in the minor
        coordinate rounded up. ``4``: a 4-connected path of ``|dx| + |dy| + 1``
        cells, through the shoulder with the larger row at exact corners.

    Returns
    -------
    ndarray of int64, shape (K, 2)
        ``(col, row)`` per cell, from ``a`` to ``b``. ``line(b, a)`` is the
        same cells in reverse order.

    Examples
    --------
    >>> from tilecast import line
    >>> line((0, 0), (4, 1)).tolist()
    [[0, 0], [1, 0], [2, 1], [3, 1], [4, 1]]
    >>> line((4, 1), (0, 0)).tolist()
    [[4, 1], [3, 1], [2, 1], [1, 0], [0, 0]]
    >>> line((0, 0), (2, 1), connectivity=4).tolist()
    [[0, 0], [1, 0], [1, 1], [2, 1]]
    """
    start = _checked_cell("a", a)
    end = _checked_cell("b", b)
    conn = _check_connectivity(connectivity)
    from tilecast._kernels.lines import fill_line4, fill_line8

    (x0, y0), (x1, y1) = start, end
    if conn == 8:
        count = max(abs(x1 - x0), abs(y1 - y0)) + 1
        out = np.empty((count, 2), dtype=np.int64)
        fill_line8(x0, y0, x1, y1, out, 0)
    else:
        count = abs(x1 - x0) + abs(y1 - y0) + 1
        out = np.empty((count, 2), dtype=np.int64)
        fill_line4(x0, y0, x1, y1, out, 0)
    return out


def lines(starts: Any, ends: Any, *, connectivity: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Many lattice lines at once (compiled, parallel), returned CSR style.

    Parameters
    ----------
    starts, ends : array_like of int, shape (N, 2)
        End cells of each line; one cell ``(2,)`` or ``(1, 2)`` broadcasts
        against the other argument.
    connectivity : {8, 4}, default 8
        As in :func:`line`.

    Returns
    -------
    cells : ndarray of int64, shape (K, 2)
        All lines' cells, concatenated.
    offsets : ndarray of int64, shape (N + 1,)
        Line ``k`` is ``cells[offsets[k]:offsets[k + 1]]``, equal to
        ``line(starts[k], ends[k])``.

    Examples
    --------
    >>> from tilecast import lines
    >>> cells, offsets = lines([[0, 0], [5, 5]], [[2, 1], [5, 3]])
    >>> offsets.tolist()
    [0, 3, 6]
    >>> cells[offsets[1]:offsets[2]].tolist()
    [[5, 5], [5, 4], [5, 3]]
    """
    start_array = as_cell_array("starts", starts)
    end_array = as_cell_array("ends", ends)
    conn = _check_connectivity(connectivity)
    if len(start_array) != len(end_array):
        if len(start_array) == 1:
            start_array = np.repeat(start_array, len(end_array), axis=0)
        elif len(end_array) == 1:
            end_array = np.repeat(end_array, len(start_array), axis=0)
        else:
            raise ValueError(
                f"starts and ends must have the same length (or one of them 1), "
                f"got {len(start_array)} and {len(end_array)}"
            )
    for name, array in (("starts", start_array), ("ends", end_array)):
        if array.size and np.abs(array).max() > _COORD_LIMIT:
            raise ValueError(f"{name} coordinates must lie within +-2**60")
    delta = np.abs(end_array - start_array)
    if conn == 8:
        lengths = delta.max(axis=1, initial=0) + 1
    else:
        lengths = delta.sum(axis=1) + 1
    offsets = np.zeros(len(start_array) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    cells = np.empty((int(offsets[-1]), 2), dtype=np.int64)
    if len(start_array):
        from tilecast._kernels.lines import fill_lines

        fill_lines(start_array, end_array, offsets, conn, cells)
    return cells, offsets
