"""Bullets and a light in pygame: one ``raycast`` per bullet per frame, one visibility polygon.

A turret in the middle of the bundled dungeon sweeps around and fires; click
to fire at the mouse, arrows or WASD move it, Q or Escape quits. Every frame:

- each bullet asks :func:`tilecast.raycast` for the first wall within the
  distance it travels this frame. On a hit it stops there exactly (no
  tunnelling through thin walls, however fast), and a bouncing bullet
  reflects off the wall's normal, ``d - 2 (d . n) n``, and goes on with the
  rest of its step; after its last bounce it stops and leaves a mark;
- the turret's light is :func:`tilecast.visibility_polygon` over the map's
  :func:`tilecast.wall_segments` (computed once), clipped to a radius.

The simulation advances a fixed 1/60 s per frame, so a run is the same on
any machine. Headless (tests, screenshots)::

    SDL_VIDEODRIVER=dummy python examples/pygame_bullets.py shot.png --frames 120

Interactive::

    python examples/pygame_bullets.py shot.png     # the screenshot is saved on exit

pygame is an optional extra: ``pip install pygame`` (or ``tilecast[demo]``).
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import tilecast
from tilecast.data import example_map

CELL = 16  # screen pixels per map cell (the map has unit tiles)
DT = 1.0 / 60.0  # seconds per frame
SPEED = 40.0  # cells per second: fast enough to cross a wall in one frame without raycasts
LIGHT_RADIUS = 10.0
FIRE_EVERY = 4  # frames between two automatic shots

FLOOR, WALL = (238, 234, 224), (58, 60, 74)
LIGHT = (255, 220, 120, 90)
BULLET, MARK, TURRET = (200, 30, 30), (150, 40, 40), (30, 90, 220)


@dataclass
class Bullet:
    """A bullet: where it is, where it goes (unit vector), how many bounces it has left."""

    x: float
    y: float
    dx: float
    dy: float
    bounces: int


@dataclass
class Stats:
    """What happened so far (printed at the end)."""

    fired: int = 0
    bounces: int = 0
    stopped: int = 0
    inside_walls: int = 0


def advance(grid: tilecast.Grid, bullet: Bullet, distance: float, stats: Stats) -> bool:
    """Move a bullet ``distance`` along its path, bouncing off walls; False when it stops."""
    for _ in range(8):  # at most a few bounces in one frame
        hit = tilecast.raycast(grid, (bullet.x, bullet.y), (bullet.dx, bullet.dy), distance)
        if hit is None:  # free flight (or it left the map: outside="empty")
            bullet.x += bullet.dx * distance
            bullet.y += bullet.dy * distance
            return grid.in_bounds(grid.cell_at((bullet.x, bullet.y)))
        if hit.inside:  # started inside a wall: cannot happen after a clean bounce
            stats.inside_walls += 1
            return False
        bullet.x, bullet.y = hit.point
        distance -= hit.distance
        if bullet.bounces == 0:
            stats.stopped += 1
            return False
        nx, ny = hit.normal  # unit, against the ray (diagonal at a corner)
        dot = bullet.dx * nx + bullet.dy * ny
        bullet.dx, bullet.dy = bullet.dx - 2 * dot * nx, bullet.dy - 2 * dot * ny
        bullet.bounces -= 1
        stats.bounces += 1
        if distance <= 0.0:
            return True
    return True


def in_wall(grid: tilecast.Grid, bullet: Bullet) -> bool:
    """Whether the cell the bullet occupies, just ahead of its point, is solid."""
    cell = grid.cell_at((bullet.x + 1e-9 * bullet.dx, bullet.y + 1e-9 * bullet.dy))
    return grid.in_bounds(cell) and grid.is_solid(cell)


def run(output: Path, frames: int | None) -> Stats:
    """Open the window, play until quit (or ``frames`` frames), save the last frame."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    grid = example_map()
    walls = tilecast.wall_segments(grid)  # once: the light's occluders
    rows, cols = grid.shape
    pygame.init()
    screen = pygame.display.set_mode((cols * CELL, rows * CELL))
    pygame.display.set_caption("tilecast bullets: click to fire, arrows/WASD move, Q quits")
    background = pygame.Surface(screen.get_size())
    background.fill(FLOOR)
    for r, c in np.argwhere(grid.solid):
        background.fill(WALL, (c * CELL, r * CELL, CELL, CELL))
    marks = pygame.Surface(screen.get_size(), pygame.SRCALPHA)  # where bullets stopped
    light = pygame.Surface(screen.get_size(), pygame.SRCALPHA)
    clock = pygame.time.Clock()

    turret = [21.5, 14.5]
    bullets: list[Bullet] = []
    stats = Stats()
    frame = 0

    def fire(angle: float) -> None:
        bounces = 3 if stats.fired % 2 == 0 else 0  # every other bullet stops at the first wall
        bullets.append(Bullet(turret[0], turret[1], math.cos(angle), math.sin(angle), bounces))
        stats.fired += 1

    running = True
    while running and (frames is None or frame < frames):
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                running = False
            elif event.type == pygame.KEYDOWN and pygame.key.name(event.key) in ("q", "escape"):
                running = False
            elif event.type == pygame.MOUSEBUTTONDOWN:
                mx, my = event.pos[0] / CELL, event.pos[1] / CELL
                fire(math.atan2(my - turret[1], mx - turret[0]))
        keys = pygame.key.get_pressed()
        step = 6.0 * DT
        move_x = (keys[pygame.K_RIGHT] or keys[pygame.K_d]) - (
            keys[pygame.K_LEFT] or keys[pygame.K_a]
        )
        move_y = (keys[pygame.K_DOWN] or keys[pygame.K_s]) - (keys[pygame.K_UP] or keys[pygame.K_w])
        if move_x or move_y:  # walk unless a wall is in the way (a raycast, too)
            direction = (float(move_x), float(move_y))
            if tilecast.raycast(grid, turret, direction, step + 0.2) is None:
                norm = math.hypot(*direction)
                turret[0] += direction[0] / norm * step
                turret[1] += direction[1] / norm * step
        if frame % FIRE_EVERY == 0:
            fire(0.37 * frame * FIRE_EVERY * DT * 6.0)  # the sweeping turret

        alive = []
        for bullet in bullets:
            if advance(grid, bullet, SPEED * DT, stats):
                alive.append(bullet)
            elif grid.in_bounds(grid.cell_at((bullet.x, bullet.y))):
                center = (bullet.x * CELL, bullet.y * CELL)
                pygame.draw.circle(marks, (*MARK, 200), center, 3)
        bullets = alive
        stats.inside_walls += sum(in_wall(grid, b) for b in bullets)

        lit = tilecast.visibility_polygon(walls, tuple(turret), radius=LIGHT_RADIUS)
        light.fill((0, 0, 0, 0))
        pygame.draw.polygon(light, LIGHT, [(x * CELL, y * CELL) for x, y in lit])
        screen.blit(background, (0, 0))
        screen.blit(light, (0, 0))
        screen.blit(marks, (0, 0))
        for bullet in bullets:
            tail = (bullet.x - bullet.dx * 0.6, bullet.y - bullet.dy * 0.6)
            pygame.draw.line(
                screen,
                BULLET,
                (tail[0] * CELL, tail[1] * CELL),
                (bullet.x * CELL, bullet.y * CELL),
                2,
            )
        pygame.draw.circle(screen, TURRET, (turret[0] * CELL, turret[1] * CELL), CELL // 3)
        pygame.display.flip()
        if frames is None:
            clock.tick(60)
        frame += 1

    pygame.image.save(screen, str(output))
    pygame.quit()
    print(f"frames: {frame}")
    print(f"bullets fired: {stats.fired}, in flight: {len(bullets)}")
    print(f"bounces: {stats.bounces}, stopped on a wall: {stats.stopped}")
    print(f"bullets found inside a wall: {stats.inside_walls}")
    print(f"screenshot: {output} ({cols * CELL} x {rows * CELL})")
    return stats


def main(argv: Any = None) -> None:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to save the last frame (.png)")
    parser.add_argument("--frames", type=int, default=None, help="stop after this many frames")
    args = parser.parse_args(argv)
    run(args.output, args.frames)


if __name__ == "__main__":
    main()
