"""The interactive demo behind ``tilecast play`` (pygame; ``pip install 'tilecast[demo]'``).

Left: the map from above, with the rays, hits, field of view and lit area from
the viewer, which follows the mouse. Right: a first-person "Wolfenstein-style"
view made of one ray per screen column, fish-eye corrected (each column's
distance is multiplied by the cosine of its angle to the view direction).

Keys: ``1`` rays, ``2`` field of view, ``3`` lit area (visibility polygon),
``4`` first-person view on/off, left/right arrows (or A/D) turn, up/down (or
W/S) walk, ``Q`` or Escape quits. pygame is imported only when the demo runs;
``import tilecast`` never imports it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tilecast.grid import Grid

if TYPE_CHECKING:  # imported when the demo runs
    from tilecast.scene import VisibilityScene

__all__ = ["State", "first_person_columns", "load_world", "run"]

CELL = 16  # pixels per map cell in the top-down view
VIEW_W, VIEW_H = 480, 360
FOV_ANGLE = math.radians(66)


def _pygame() -> Any:
    import os

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on stdout
    try:
        import pygame
    except ImportError:
        raise ImportError(
            "the interactive demo needs pygame: pip install pygame (or 'tilecast[demo]')"
        ) from None
    return pygame


def load_world(path: str | os.PathLike[str] | None = None, **options: Any) -> Grid:
    """Load the map to play on (default: the bundled dungeon) as a Grid.

    ``options`` go to :func:`tilecast.io.load_map` (``root=``, ``layer=``,
    ``solid=``, ...; ``tilecast play`` takes them as ``--root``, ``--layer``
    and ``--solid``); a TileMap is played as its Grid.

    Examples
    --------
    >>> load_world().shape
    (32, 48)
    """
    if path is None:
        if options:
            raise ValueError(f"{', '.join(sorted(options))}: only for a map file (path=...)")
        from tilecast.data import example_map

        return example_map()
    from tilecast.io import load_map

    world = load_map(path, **options)
    return world if isinstance(world, Grid) else world.to_grid()


class State:
    """Where the viewer is and what is shown; changed by input, read by drawing.

    Parameters
    ----------
    grid : Grid
        The map; the viewer starts at the centre of a free cell near the middle
        of the list of free cells, looking along +x (``heading`` 0, radians).

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid
    >>> room = Grid(np.pad(np.zeros((3, 4), bool), 1, constant_values=True))  # 4 x 3 inside
    >>> state = State(room)
    >>> grid_cell = room.cell_at((state.x, state.y))
    >>> room.is_solid(grid_cell), state.heading, state.show["fov"]
    (False, 0.0, True)
    """

    #: The map's wall segments ``(M, 2, 2)`` for the lit area; set by :func:`run`.
    segments: NDArray[np.float64]
    #: Those walls prepared for the lit area (a VisibilityScene); set by :func:`run`.
    scene: VisibilityScene

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        free = np.argwhere(~np.asarray(grid.solid))
        row, col = free[len(free) // 2]
        w, h = grid.tile_size
        ox, oy = grid.origin
        self.x, self.y = ox + (col + 0.5) * w, oy + (row + 0.5) * h
        self.heading = 0.0
        self.show = {"rays": True, "fov": True, "lit": True, "first_person": True}

    def move_to(self, x: float, y: float) -> None:
        """Put the viewer at ``(x, y)`` unless that is inside a wall or off the map.

        Examples
        --------
        >>> import numpy as np
        >>> from tilecast import Grid
        >>> state = State(Grid(np.pad(np.zeros((3, 4), bool), 1, constant_values=True)))
        >>> state.move_to(1.5, 1.5)
        >>> state.x, state.y
        (1.5, 1.5)
        >>> state.move_to(0.5, 0.5)  # a wall: the viewer stays where it was
        >>> state.x, state.y
        (1.5, 1.5)
        """
        cell = self.grid.cell_at((x, y))
        if self.grid.in_bounds(cell) and not self.grid.is_solid(cell):
            self.x, self.y = x, y

    def walk(self, step: float) -> None:
        """Walk ``step`` world units along the heading (stopped by walls).

        Examples
        --------
        >>> import numpy as np
        >>> from tilecast import Grid
        >>> state = State(Grid(np.pad(np.zeros((3, 4), bool), 1, constant_values=True)))
        >>> state.move_to(1.5, 1.5)
        >>> state.walk(2.0)  # heading 0: along +x
        >>> state.x, state.y
        (3.5, 1.5)
        >>> state.walk(2.0)  # that would end inside the east wall: no move
        >>> state.x, state.y
        (3.5, 1.5)
        """
        self.move_to(self.x + step * math.cos(self.heading), self.y + step * math.sin(self.heading))


def _cast(
    grid: Grid, origin: tuple[float, float], angles: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Distances, hit points and normals of one ray per angle (one raycast_many call)."""
    from tilecast.batch import raycast_many

    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    hits = raycast_many(grid, np.asarray(origin, dtype=np.float64), directions)
    return np.asarray(hits.distance), np.asarray(hits.point), np.asarray(hits.normal)


def first_person_columns(
    grid: Grid, origin: tuple[float, float], heading: float, columns: int, fov: float = FOV_ANGLE
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Perpendicular wall distance and face normal for each screen column.

    Column ``c`` looks along ``heading + atan((c + 0.5 - columns / 2) / focal)``
    with ``focal = (columns / 2) / tan(fov / 2)``; the Euclidean distance to
    the wall is multiplied by the cosine of that offset, so a flat wall
    facing the viewer is drawn flat (no fish-eye).

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid
    >>> grid = Grid(np.pad(np.zeros((5, 3), bool), 1, constant_values=True))  # a 3 x 5 room
    >>> perp, _ = first_person_columns(grid, (1.5, 3.5), 0.0, 4)
    >>> [round(float(p), 9) for p in perp]  # the wall at x = 4 is 2.5 ahead in every column
    [2.5, 2.5, 2.5, 2.5]
    """
    focal = (columns / 2) / math.tan(fov / 2)
    offsets = np.arctan((np.arange(columns) + 0.5 - columns / 2) / focal)
    distance, _, normal = _cast(grid, origin, heading + offsets)
    return distance * np.cos(offsets), normal


def _draw(pygame: Any, screen: Any, state: State, background: Any) -> None:
    from tilecast import fov

    grid = state.grid
    (w, h), (ox, oy) = grid.tile_size, grid.origin
    rows, cols = grid.shape

    def px(
        points: Iterable[tuple[float, float]] | NDArray[np.float64],
    ) -> list[tuple[float, float]]:
        return [((x - ox) / w * CELL, (y - oy) / h * CELL) for x, y in points]

    screen.blit(background, (0, 0))
    overlay = pygame.Surface((cols * CELL, rows * CELL), pygame.SRCALPHA)
    viewer = (state.x, state.y)
    if state.show["fov"]:
        seen = fov(grid, grid.cell_at(viewer))
        for r, c in np.argwhere(seen):
            overlay.fill((255, 206, 84, 90), (c * CELL, r * CELL, CELL, CELL))
    if state.show["lit"]:
        try:  # a closed map: the plain query, the scene's fastest (triangular expansion)
            lit = state.scene.polygon(viewer)
        except ValueError:  # the viewer sees out of the map: the map's box closes it
            lit = state.scene.polygon(viewer, bounds=(ox, oy, ox + cols * w, oy + rows * h))
        pygame.draw.polygon(overlay, (255, 240, 150, 110), px(lit))
    screen.blit(overlay, (0, 0))
    if state.show["rays"]:
        angles = np.linspace(0, 2 * math.pi, 120, endpoint=False)
        _, points, _ = _cast(grid, viewer, angles)
        start = px([viewer])[0]
        for end in px(points[np.isfinite(points[:, 0])]):
            pygame.draw.line(screen, (220, 60, 40), start, end)
            pygame.draw.circle(screen, (160, 20, 20), end, 2)
    start = px([viewer])[0]
    tip = (start[0] + 12 * math.cos(state.heading), start[1] + 12 * math.sin(state.heading))
    pygame.draw.line(screen, (20, 130, 60), start, tip, 3)
    pygame.draw.circle(screen, (20, 130, 60), start, 5)
    if state.show["first_person"]:
        left = cols * CELL
        screen.fill((40, 40, 60), (left, 0, VIEW_W, VIEW_H // 2))
        screen.fill((90, 80, 70), (left, VIEW_H // 2, VIEW_W, VIEW_H // 2))
        perp, normal = first_person_columns(grid, viewer, state.heading, VIEW_W // 2)
        for c, (d, n) in enumerate(zip(perp, normal, strict=True)):
            if not np.isfinite(d):
                continue
            height = min(VIEW_H, VIEW_H / max(d / min(w, h), 1e-6))
            shade = 200 if abs(n[0]) >= abs(n[1]) else 140  # x faces lighter than y faces
            shade = int(shade / (1 + 0.04 * d / min(w, h)))
            top = (VIEW_H - height) / 2
            screen.fill((shade, shade, int(shade * 0.8)), (left + 2 * c, top, 2, height))


def run(
    grid: Grid,
    *,
    frames: int | None = None,
    screenshot: str | os.PathLike[str] | None = None,
    script: Sequence[Mapping[str, Any]] | None = None,
) -> int:
    """Open the demo window and run it until the user quits (or ``frames`` have been drawn).

    Parameters
    ----------
    grid : Grid
        The map.
    frames : int, optional
        Stop after this many frames (for tests and screenshots).
    screenshot : path, optional
        Save the last frame there.
    script : list of dict, optional
        Scripted input, one entry per frame: ``{"mouse": (x, y)}`` (world
        units) and/or ``{"key": "2"}`` (a key name as pygame spells it).

    Returns
    -------
    int
        0 (the exit status for the ``tilecast`` command).

    Examples
    --------
    Two frames drawn off-screen (SDL's dummy video driver), the second after a
    scripted mouse move and a press of ``2`` (field of view off):

    >>> import os
    >>> from unittest import mock
    >>> import numpy as np
    >>> from tilecast import Grid
    >>> room = Grid(np.pad(np.zeros((4, 6), bool), 1, constant_values=True))
    >>> script = [{}, {"mouse": (2.5, 3.5), "key": "2"}]
    >>> with mock.patch.dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy"):
    ...     status = run(room, frames=2, script=script)
    >>> status
    0
    """
    pygame = _pygame()
    from tilecast import VisibilityScene, wall_segments

    pygame.init()
    try:
        rows, cols = grid.shape
        screen = pygame.display.set_mode((cols * CELL + VIEW_W, max(rows * CELL, VIEW_H)))
        pygame.display.set_caption("tilecast play: 1 rays, 2 fov, 3 lit area, 4 first person")
        background = pygame.Surface((cols * CELL, rows * CELL))
        background.fill((238, 234, 224))
        for r, c in np.argwhere(np.asarray(grid.solid)):
            background.fill((58, 60, 74), (c * CELL, r * CELL, CELL, CELL))
        state = State(grid)
        state.segments = wall_segments(grid)
        state.scene = VisibilityScene(state.segments)
        (w, h), (ox, oy) = grid.tile_size, grid.origin
        toggles = {"1": "rays", "2": "fov", "3": "lit", "4": "first_person"}
        clock = pygame.time.Clock()
        frame = 0
        running = True
        while running:
            if script is not None and frame < len(script):
                step = script[frame]
                if "mouse" in step:
                    mx, my = step["mouse"]
                    pos = ((mx - ox) / w * CELL, (my - oy) / h * CELL)
                    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0)))
                if "key" in step:
                    key = pygame.key.key_code(step["key"])
                    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0))
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    running = False
                elif event.type == pygame.MOUSEMOTION and event.pos[0] < cols * CELL:
                    state.move_to(ox + event.pos[0] / CELL * w, oy + event.pos[1] / CELL * h)
                elif event.type == pygame.KEYDOWN:
                    name = pygame.key.name(event.key)
                    if name in ("escape", "q"):
                        running = False
                    elif name in toggles:
                        state.show[toggles[name]] = not state.show[toggles[name]]
            keys = pygame.key.get_pressed()
            turn = (keys[pygame.K_RIGHT] or keys[pygame.K_d]) - (
                keys[pygame.K_LEFT] or keys[pygame.K_a]
            )
            walk = (keys[pygame.K_UP] or keys[pygame.K_w]) - (
                keys[pygame.K_DOWN] or keys[pygame.K_s]
            )
            state.heading += 0.06 * turn
            if walk:
                state.walk(0.1 * walk * min(w, h))
            _draw(pygame, screen, state, background)
            pygame.display.flip()
            frame += 1
            if frames is not None and frame >= frames:
                running = False
            clock.tick(60)
        if screenshot is not None:
            pygame.image.save(screen, str(screenshot))
    finally:
        pygame.quit()
    return 0
