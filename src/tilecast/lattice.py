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

from tilecast._engine import kernels
from tilecast._threads import run_tasks
from tilecast._validate import as_cell, as_cell_array, as_int, as_regular_array

__all__ = ["MAX_CELLS", "line", "lines"]

#: Default of the ``max_cells=`` keyword of :func:`line` and :func:`lines`: the
#: most cells one call returns (16 bytes each, so 160 MB). A longer answer is a
#: ``ValueError`` raised before anything is allocated; pass a larger
#: ``max_cells`` to allow it.
MAX_CELLS = 10_000_000
# Endpoints beyond this would overflow the int64 differences of two endpoints.
_COORD_LIMIT = 2**60
# max_cells beyond this would overflow the int64 offsets of lines().
_MAX_CELLS_LIMIT = 2**62


def _check_connectivity(connectivity: Any) -> int:
    if isinstance(connectivity, bool) or not isinstance(connectivity, int | np.integer):
        raise TypeError(f"connectivity must be 4 or 8, got {connectivity!r}")
    if connectivity not in (4, 8):
        raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")
    return int(connectivity)


def _check_max_cells(max_cells: Any) -> int:
    limit = as_int("max_cells", max_cells, 1)
    if limit > _MAX_CELLS_LIMIT:
        raise ValueError(f"max_cells must be at most 2**62, got {limit}")
    return limit


def _too_many(count: int, max_cells: int, what: str) -> ValueError:
    return ValueError(
        f"max_cells: {what} {count} cells, more than max_cells={max_cells}; "
        f"pass a larger max_cells= to allow it"
    )


def _checked_cell(name: str, cell: Any) -> tuple[int, int]:
    i, j = as_cell(name, cell)
    if abs(i) > _COORD_LIMIT or abs(j) > _COORD_LIMIT:
        raise ValueError(f"{name} coordinates must lie within +-2**60, got {(i, j)}")
    return i, j


def line(a: Any, b: Any, *, connectivity: int = 8, max_cells: int = MAX_CELLS) -> np.ndarray:
    """Cells of the lattice line from cell ``a`` to cell ``b``, both included.

    Parameters
    ----------
    a, b : (int, int)
        End cells ``(i, j)``.
    connectivity : {8, 4}, default 8
        ``8``: Bresenham-thin, ``max(|dx|, |dy|) + 1`` cells, ties in the minor
        coordinate rounded up. ``4``: a 4-connected path of ``|dx| + |dy| + 1``
        cells, through the shoulder with the larger row at exact corners.
    max_cells : int, default MAX_CELLS (10**7)
        The most cells to return: a longer line is a ``ValueError`` (checked
        before anything is allocated), never a memory blow-up.

    Returns
    -------
    ndarray of int64, shape (K, 2)
        ``(col, row)`` per cell, from ``a`` to ``b``. ``line(b, a)`` is the
        same cells in reverse order.

    Raises
    ------
    ValueError
        An endpoint coordinate beyond ``+-2**60``, or more than ``max_cells``
        cells.

    Examples
    --------
    >>> from tilecast import line
    >>> line((0, 0), (4, 1)).tolist()
    [[0, 0], [1, 0], [2, 1], [3, 1], [4, 1]]
    >>> line((4, 1), (0, 0)).tolist()
    [[4, 1], [3, 1], [2, 1], [1, 0], [0, 0]]
    >>> line((0, 0), (2, 1), connectivity=4).tolist()
    [[0, 0], [1, 0], [1, 1], [2, 1]]
    >>> line((0, 0), (300_000_000, 7))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: max_cells: the line has 300000001 cells, more than max_cells=10000000; ...
    """
    start = _checked_cell("a", a)
    end = _checked_cell("b", b)
    conn = _check_connectivity(connectivity)
    limit = _check_max_cells(max_cells)
    (x0, y0), (x1, y1) = start, end
    if conn == 8:
        count = max(abs(x1 - x0), abs(y1 - y0)) + 1
    else:
        count = abs(x1 - x0) + abs(y1 - y0) + 1
    if count > limit:
        raise _too_many(count, limit, "the line has")
    fill_line4, fill_line8 = kernels("lines").fill_line4, kernels("lines").fill_line8
    out = np.empty((count, 2), dtype=np.int64)
    if conn == 8:
        fill_line8(x0, y0, x1, y1, out, 0)
    else:
        fill_line4(x0, y0, x1, y1, out, 0)
    return out


def lines(
    starts: Any, ends: Any, *, connectivity: int = 8, max_cells: int = MAX_CELLS
) -> tuple[np.ndarray, np.ndarray]:
    """Many lattice lines at once (compiled, parallel), returned CSR style.

    Parameters
    ----------
    starts, ends : array_like of int, shape (N, 2)
        End cells of each line; one cell ``(2,)`` or ``(1, 2)`` broadcasts
        against the other argument.
    connectivity : {8, 4}, default 8
        As in :func:`line`.
    max_cells : int, default MAX_CELLS (10**7)
        The most cells to return, all lines together: more is a
        ``ValueError``, checked before anything is allocated.

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
    start_array = as_cell_array("starts", as_regular_array("starts", starts))
    end_array = as_cell_array("ends", as_regular_array("ends", ends))
    conn = _check_connectivity(connectivity)
    limit = _check_max_cells(max_cells)
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
        # not np.abs: the absolute value of -2**63 is -2**63 in int64
        if ((array > _COORD_LIMIT) | (array < -_COORD_LIMIT)).any():
            raise ValueError(f"{name} coordinates must lie within +-2**60")
    delta = np.abs(end_array - start_array)  # at most 2**61: no overflow
    if conn == 8:
        lengths = delta.max(axis=1, initial=0) + 1
    else:
        lengths = delta.sum(axis=1) + 1
    total = float(lengths.sum(dtype=np.float64))  # cannot overflow
    if total > limit:
        raise _too_many(int(lengths.astype(object).sum()), limit, "the lines have")
    offsets = np.zeros(len(start_array) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    cells = np.empty((int(offsets[-1]), 2), dtype=np.int64)
    if len(start_array):
        fill_lines = kernels("lines").fill_lines
        run_tasks(
            lambda lo, hi: fill_lines(lo, hi, start_array, end_array, offsets, conn, cells),
            len(start_array),
        )
    return cells, offsets
