"""One roguelike turn after another: who sees whom, who can shoot, who stands in the light.

On the bundled dungeon (or any map ``tilecast.io.load_map`` reads), each turn:

- the player's field of view: :func:`tilecast.fov` (symmetric shadowcasting,
  radius in cells);
- every monster's view in one call: :func:`tilecast.fov_many` with
  ``combine="none"`` (one mask per monster); a monster sees the player when
  its mask holds the player's cell. Because the field of view is symmetric,
  that is exactly when the player sees the monster;
- a clear shot: :func:`tilecast.line_of_sight` between the two cell centres
  (a bullet follows that exact segment, a stricter rule than the field of
  view, see docs/fov.md);
- a torch on the floor lights the exact region it can see:
  :func:`tilecast.visibility_polygon` over :func:`tilecast.wall_segments`,
  with a radius; :func:`tilecast.point_in_polygon` says which monsters stand
  in its light;
- the monsters that see the player step one cell towards it (along
  :func:`tilecast.line`).

Cells are ``(col, row)``, masks are indexed ``[row, col]``. The picture shows
the player's view (blue), the torch light (yellow), the monsters (red: sees the
player, grey: does not) and their lines to the player (green: clear shot,
red: blocked).

Run::

    python examples/roguelike_turn.py turn.png              # 3 turns on the bundled dungeon
    python examples/roguelike_turn.py turn.png --turns 1 --map level.tmx
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import tilecast
from tilecast.data import example_map
from tilecast.io import load_map
from tilecast.render import Picture

SIGHT = 8  # cells: how far everyone sees
TORCH_RADIUS = 6.0  # world units


def centre(cell: tuple[int, int]) -> tuple[float, float]:
    """Return the world point at the centre of a unit cell ``(col, row)``."""
    return (cell[0] + 0.5, cell[1] + 0.5)


def place(
    grid: tilecast.Grid, player: tuple[int, int], count: int, rng: np.random.Generator
) -> list[tuple[int, int]]:
    """Pick ``count`` distinct free cells within 12 cells of the player (not the player's)."""
    rows, cols = np.nonzero(~grid.solid)
    near = (np.abs(cols - player[0]) <= 12) & (np.abs(rows - player[1]) <= 12)
    near &= (cols != player[0]) | (rows != player[1])
    picks = rng.choice(np.flatnonzero(near), size=count, replace=False)
    return [(int(cols[k]), int(rows[k])) for k in picks]


def step_towards(
    grid: tilecast.Grid,
    monster: tuple[int, int],
    player: tuple[int, int],
    taken: set[tuple[int, int]],
) -> tuple[int, int]:
    """Return the monster's next cell on the Bresenham line to the player (or stay)."""
    path = tilecast.line(monster, player)
    if len(path) < 3:  # already next to the player
        return monster
    nxt = (int(path[1][0]), int(path[1][1]))
    if grid.solid[nxt[1], nxt[0]] or nxt in taken:
        return monster
    return nxt


def play_turn(
    grid: tilecast.Grid,
    walls: NDArray[np.float64],
    player: tuple[int, int],
    monsters: list[tuple[int, int]],
    torch: tuple[float, float],
) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """Compute and print one turn's views; return what the picture needs.

    Returns
    -------
    player_view, light, sees_player, clear_shot
        The player's mask ``(rows, cols)``, the torch's polygon ``(K, 2)``, and
        per monster whether it sees the player and whether it has a clear shot.
    """
    player_view = tilecast.fov(grid, player, radius=SIGHT)
    views = tilecast.fov_many(grid, monsters, radius=SIGHT, combine="none")  # (N, rows, cols)
    sees_player = views[:, player[1], player[0]]
    light = tilecast.visibility_polygon(walls, torch, radius=TORCH_RADIUS)
    lit = tilecast.point_in_polygon([centre(m) for m in monsters], light)
    clear_shot = np.zeros(len(monsters), dtype=bool)
    print(f"player at {player} sees {int(player_view.sum())} cells")
    for k, monster in enumerate(monsters):
        seen = bool(player_view[monster[1], monster[0]])
        if sees_player[k]:
            clear_shot[k] = tilecast.line_of_sight(grid, centre(monster), centre(player))
        print(
            f"  monster {k} at {monster}: sees player {'yes' if sees_player[k] else 'no'}, "
            f"seen by player {'yes' if seen else 'no'}, "
            f"clear shot {'yes' if clear_shot[k] else 'no'}, lit {'yes' if lit[k] else 'no'}"
        )
    print(
        f"  {int(sees_player.sum())} of {len(monsters)} monsters see the player; "
        f"{int(clear_shot.sum())} can shoot; {int(lit.sum())} stand in the torch light"
    )
    return player_view, light, sees_player, clear_shot


def main() -> None:
    """Parse the command line, play the turns, save the picture of the last one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the picture (.png)")
    parser.add_argument("--map", type=Path, default=None, help="a map file (default: bundled)")
    parser.add_argument("--player", type=int, nargs=2, default=(21, 14), metavar=("COL", "ROW"))
    parser.add_argument("--monsters", type=int, default=8)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--scale", type=float, default=16.0, help="picture pixels per cell")
    args = parser.parse_args()

    world = example_map() if args.map is None else load_map(args.map)
    grid = world if isinstance(world, tilecast.Grid) else world.to_grid()
    player = (args.player[0], args.player[1])
    if grid.solid[player[1], player[0]]:
        parser.error(f"the player's cell {player} is a wall")
    rng = np.random.default_rng(args.seed)
    monsters = place(grid, player, args.monsters, rng)
    walls = tilecast.wall_segments(grid)  # once: the map does not change
    torch = (player[0] - 1.5, player[1] - 0.5)  # a torch left on the floor near the player

    for turn in range(1, args.turns + 1):
        print(f"turn {turn}")
        player_view, light, sees_player, clear_shot = play_turn(
            grid, walls, player, monsters, torch
        )
        if turn < args.turns:  # the monsters that see the player close in
            taken = {player, *monsters}
            for k in np.flatnonzero(sees_player):
                taken.discard(monsters[k])
                monsters[k] = step_towards(grid, monsters[k], player, taken)
                taken.add(monsters[k])

    picture = Picture(grid, scale=args.scale)
    picture.fov(player_view, color=(90, 150, 255, 90)).polygon(light)
    for k, monster in enumerate(monsters):
        if sees_player[k]:
            color = (40, 160, 60, 255) if clear_shot[k] else (220, 40, 40, 255)
            picture.rays(centre(player), [centre(monster)], color=color, width=2)
    for k, monster in enumerate(monsters):
        color = (200, 30, 30) if sees_player[k] else (120, 120, 120)
        picture.points([centre(monster)], color=color, radius=args.scale / 3)
    picture.points([torch], color=(250, 150, 0), radius=args.scale / 4)
    picture.points([centre(player)], color=(30, 90, 220), radius=args.scale / 3)
    picture.save(args.output)
    print(f"picture: {args.output} ({picture.size[0]} x {picture.size[1]})")


if __name__ == "__main__":
    main()
