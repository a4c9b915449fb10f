"""Bullets, a player, enemies and glass in pygame: a small game on tilecast's queries.

A player (a circle) walks the bundled dungeon with :func:`tilecast.move_and_slide`,
sliding along walls and never entering one at any speed; a turret on the
player sweeps around and fires; click to fire at the mouse, arrows or WASD
move, Q or Escape quits. Enemies (circles in a :class:`tilecast.SpatialHash`)
wander the map, each moved with ``move_and_slide`` and all updated in the
hash at once with ``move_many``. Two windows of glass, on their own
collision layer, stop bullets and people but not light. Every frame:

- each bullet asks :func:`tilecast.raycast` for the first wall, glass pane
  or enemy within the distance it travels this frame (``mask=WALL | GLASS``,
  ``bodies=enemies``). On a hit it stops there exactly (no tunnelling through
  thin walls, however fast); on a wall a bouncing bullet reflects off the
  normal, ``d - 2 (d . n) n``, and goes on with the rest of its step; an
  enemy (``Hit.body``) is hit and the bullet stops;
- the player's light is :func:`tilecast.visibility_polygon` over the walls
  that block sight, ``wall_segments(grid, mask=WALL)`` (computed once): it
  shines through the glass.

The simulation advances a fixed 1/60 s per frame, so a run is the same on
any machine; without input (a headless run) the player walks a fixed path.
Headless (tests, screenshots)::

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
WALK = 6.0  # the player's speed, cells per second
LIGHT_RADIUS = 10.0
FIRE_EVERY = 4  # frames between two automatic shots
PLAYER_RADIUS = 0.3
ENEMY_RADIUS = 0.4
ENEMY_SPEED = 3.0

# collision layers: a cell or a body blocks a query when its layers share a bit with the mask
WALL, GLASS = 1, 2
SOLID_FOR_BULLETS = WALL | GLASS
SOLID_FOR_LIGHT = WALL
GLASS_CELLS = [(c, r) for r in (12, 17) for c in range(20, 25)]  # two windows, N and S
ENEMY_STARTS = [(3.5, 3.5), (40.5, 4.5), (10.5, 25.5), (44.5, 25.5), (17.5, 14.5), (27.5, 15.5)]

FLOOR, WALL_COLOUR, GLASS_COLOUR = (238, 234, 224), (58, 60, 74), (120, 190, 230)
LIGHT = (255, 220, 120, 90)
BULLET, MARK, PLAYER, ENEMY = (200, 30, 30), (150, 40, 40), (30, 90, 220), (60, 150, 60)


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
    on_glass: int = 0
    enemy_hits: int = 0
    inside_walls: int = 0
    player_slides: int = 0
    overlaps: int = 0


def make_world() -> tilecast.Grid:
    """Return the bundled dungeon, its walls on layer WALL and two glass windows on GLASS."""
    dungeon = example_map()
    grid = tilecast.Grid(dungeon.layers * WALL, dungeon.tile_size, dungeon.origin, dungeon.outside)
    grid.set_layers(GLASS_CELLS, GLASS)
    return grid


def advance(
    grid: tilecast.Grid,
    enemies: tilecast.SpatialHash,
    bullet: Bullet,
    distance: float,
    stats: Stats,
) -> bool:
    """Move a bullet ``distance`` along its path, bouncing off walls; False when it stops."""
    for _ in range(8):  # at most a few bounces in one frame
        hit = tilecast.raycast(grid, (bullet.x, bullet.y), (bullet.dx, bullet.dy), distance,
                               mask=SOLID_FOR_BULLETS, bodies=enemies)  # fmt: skip
        if hit is None:  # free flight (or it left the map: outside="empty")
            bullet.x += bullet.dx * distance
            bullet.y += bullet.dy * distance
            return grid.in_bounds(grid.cell_at((bullet.x, bullet.y)))
        if hit.inside:  # started inside a wall: cannot happen after a clean bounce
            stats.inside_walls += hit.body is None
            return False
        bullet.x, bullet.y = hit.point
        distance -= hit.distance
        if hit.body is not None:
            stats.enemy_hits += 1
            return False
        if grid.layers[hit.cell[1], hit.cell[0]] & GLASS:
            stats.on_glass += 1
            return False
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
    """Whether the cell the bullet occupies, just ahead of its point, blocks bullets."""
    cell = grid.cell_at((bullet.x + 1e-9 * bullet.dx, bullet.y + 1e-9 * bullet.dy))
    return grid.in_bounds(cell) and bool(grid.layers[cell[1], cell[0]] & SOLID_FOR_BULLETS)


def overlaps(grid: tilecast.Grid, centre: tuple[float, float], radius: float) -> bool:
    """Whether a circle at ``centre`` overlaps a wall or glass (a cast of length 0 says so)."""
    hit = tilecast.circle_cast(grid, centre, radius, (1.0, 0.0), 0.0, mask=SOLID_FOR_BULLETS)
    return hit is not None and hit.inside


class Enemies:
    """Circles wandering the map, bouncing off what they slide into; kept in a SpatialHash."""

    def __init__(self, grid: tilecast.Grid) -> None:
        self.grid = grid
        self.ids = np.arange(len(ENEMY_STARTS))
        self.centres = np.array(ENEMY_STARTS, dtype=np.float64)
        angles = np.linspace(0.3, 2 * math.pi + 0.3, len(ENEMY_STARTS), endpoint=False)
        self.velocity = ENEMY_SPEED * np.column_stack([np.cos(angles), np.sin(angles)])
        self.hash = tilecast.SpatialHash(4.0)
        radii = np.full((len(self.ids), 1), ENEMY_RADIUS)
        self.hash.insert_many(self.ids, circles=np.hstack([self.centres, radii]))

    def step(self, stats: Stats) -> None:
        """Move every enemy a frame (``move_and_slide``), then the hash at once (``move_many``)."""
        offsets = np.empty_like(self.centres)
        for k, (centre, velocity) in enumerate(zip(self.centres, self.velocity, strict=True)):
            motion = (float(velocity[0] * DT), float(velocity[1] * DT))
            slide = tilecast.move_and_slide(
                self.grid, (float(centre[0]), float(centre[1])), motion,
                radius=ENEMY_RADIUS, mask=SOLID_FOR_BULLETS,
            )  # fmt: skip
            for contact in slide.contacts:  # bounce off what stopped it
                nx, ny = contact.normal
                dot = velocity[0] * nx + velocity[1] * ny
                if dot < 0:
                    velocity -= 2 * dot * np.array([nx, ny])
            offsets[k] = np.subtract(slide.position, centre)
            stats.overlaps += overlaps(self.grid, slide.position, ENEMY_RADIUS)
        self.centres += offsets
        self.hash.move_many(self.ids, offsets)


def run(output: Path, frames: int | None) -> Stats:
    """Open the window, play until quit (or ``frames`` frames), save the last frame."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    grid = make_world()
    walls = tilecast.wall_segments(grid, mask=SOLID_FOR_LIGHT)  # once: what stops light
    rows, cols = grid.shape
    pygame.init()
    screen = pygame.display.set_mode((cols * CELL, rows * CELL))
    pygame.display.set_caption("tilecast bullets: click to fire, arrows/WASD move, Q quits")
    background = pygame.Surface(screen.get_size())
    background.fill(FLOOR)
    for r, c in np.argwhere(grid.layers & WALL):
        background.fill(WALL_COLOUR, (c * CELL, r * CELL, CELL, CELL))
    for r, c in np.argwhere(grid.layers & GLASS):
        background.fill(GLASS_COLOUR, (c * CELL, r * CELL, CELL, CELL))
    marks = pygame.Surface(screen.get_size(), pygame.SRCALPHA)  # where bullets stopped
    light = pygame.Surface(screen.get_size(), pygame.SRCALPHA)
    clock = pygame.time.Clock()

    player = (21.5, 14.5)
    enemies = Enemies(grid)
    bullets: list[Bullet] = []
    stats = Stats()
    frame = 0

    def fire(angle: float) -> None:
        bounces = 3 if stats.fired % 2 == 0 else 0  # every other bullet stops at the first wall
        x, y = player
        bullets.append(Bullet(x, y, math.cos(angle), math.sin(angle), bounces))
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
                fire(math.atan2(my - player[1], mx - player[0]))
        keys = pygame.key.get_pressed()
        move_x = (keys[pygame.K_RIGHT] or keys[pygame.K_d]) - (
            keys[pygame.K_LEFT] or keys[pygame.K_a]
        )
        move_y = (keys[pygame.K_DOWN] or keys[pygame.K_s]) - (keys[pygame.K_UP] or keys[pygame.K_w])
        if not (move_x or move_y) and frames is not None:  # headless: walk a fixed path
            heading = 0.9 * frame * DT
            move_x, move_y = math.cos(heading), math.sin(2.0 * heading)
        if move_x or move_y:  # walk, sliding along walls and glass
            norm = math.hypot(move_x, move_y)
            motion = (move_x / norm * WALK * DT, move_y / norm * WALK * DT)
            slide = tilecast.move_and_slide(grid, player, motion, radius=PLAYER_RADIUS,
                                            mask=SOLID_FOR_BULLETS)  # fmt: skip
            player = slide.position
            stats.player_slides += bool(slide.contacts)
            stats.overlaps += overlaps(grid, player, PLAYER_RADIUS)
        enemies.step(stats)
        if frame % FIRE_EVERY == 0:
            fire(0.37 * frame * FIRE_EVERY * DT * 6.0)  # the sweeping turret

        alive = []
        for bullet in bullets:
            if advance(grid, enemies.hash, bullet, SPEED * DT, stats):
                alive.append(bullet)
            elif grid.in_bounds(grid.cell_at((bullet.x, bullet.y))):
                center = (bullet.x * CELL, bullet.y * CELL)
                pygame.draw.circle(marks, (*MARK, 200), center, 3)
        bullets = alive
        stats.inside_walls += sum(in_wall(grid, b) for b in bullets)

        lit = tilecast.visibility_polygon(walls, player, radius=LIGHT_RADIUS)
        light.fill((0, 0, 0, 0))
        pygame.draw.polygon(light, LIGHT, [(x * CELL, y * CELL) for x, y in lit])
        screen.blit(background, (0, 0))
        screen.blit(light, (0, 0))
        screen.blit(marks, (0, 0))
        for x, y in enemies.centres:
            pygame.draw.circle(screen, ENEMY, (x * CELL, y * CELL), ENEMY_RADIUS * CELL)
        for bullet in bullets:
            tail = (bullet.x - bullet.dx * 0.6, bullet.y - bullet.dy * 0.6)
            pygame.draw.line(
                screen,
                BULLET,
                (tail[0] * CELL, tail[1] * CELL),
                (bullet.x * CELL, bullet.y * CELL),
                2,
            )
        pygame.draw.circle(screen, PLAYER, (player[0] * CELL, player[1] * CELL),
                           PLAYER_RADIUS * CELL)  # fmt: skip
        pygame.display.flip()
        if frames is None:
            clock.tick(60)
        frame += 1

    pygame.image.save(screen, str(output))
    pygame.quit()
    print(f"frames: {frame}")
    print(f"bullets fired: {stats.fired}, in flight: {len(bullets)}")
    print(f"bounces: {stats.bounces}, stopped on a wall: {stats.stopped}")
    print(f"stopped on glass: {stats.on_glass}, enemies hit: {stats.enemy_hits}")
    print(f"bullets found inside a wall: {stats.inside_walls}")
    print(f"frames the player slid along something: {stats.player_slides}")
    print(f"shapes found overlapping a wall: {stats.overlaps}")
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
