"""Lattice lines in plain Python: the oracle of ``tilecast.line`` and ``tilecast.lines``."""

from __future__ import annotations


def line_reference(a: tuple[int, int], b: tuple[int, int], connectivity: int = 8) -> list:
    """Pure-Python reference for :func:`line` (no validation), a list of ``(i, j)``.

    Examples
    --------
    >>> line_reference((0, 0), (2, 1))
    [(0, 0), (1, 1), (2, 1)]
    >>> line_reference((0, 0), (1, 1), 4)
    [(0, 0), (0, 1), (1, 1)]
    """
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    if connectivity == 8:
        n = max(abs(dx), abs(dy))
        if n == 0:
            return [(x0, y0)]
        cells = []
        for k in range(n + 1):
            if abs(dx) >= abs(dy):
                x = x0 + (k if dx >= 0 else -k)
                # y0 + dy*k/n rounded half up, exactly: floor((2*dy*k + n) / (2n))
                y = y0 + (2 * dy * k + n) // (2 * n)
            else:
                y = y0 + (k if dy >= 0 else -k)
                x = x0 + (2 * dx * k + n) // (2 * n)
            cells.append((x, y))
        return cells
    # 4-connected: walk the centre-to-centre segment edge crossing by edge
    # crossing. The k-th vertical edge is crossed at t = (k + 1/2) / |dx|, the
    # m-th horizontal one at t = (m + 1/2) / |dy|; compare them with integers.
    sx = 1 if dx >= 0 else -1
    sy = 1 if dy >= 0 else -1
    x, y = x0, y0
    kx = ky = 0
    cells = [(x, y)]
    while kx < abs(dx) or ky < abs(dy):
        x_time = (2 * kx + 1) * abs(dy) if kx < abs(dx) else None
        y_time = (2 * ky + 1) * abs(dx) if ky < abs(dy) else None
        if y_time is None:
            step_x = True
        elif x_time is None:
            step_x = False
        elif x_time != y_time:
            step_x = x_time < y_time
        else:
            # Exactly through a corner: go by the shoulder with the larger row.
            step_x = sy < 0
        if step_x:
            x += sx
            kx += 1
        else:
            y += sy
            ky += 1
        cells.append((x, y))
    return cells
