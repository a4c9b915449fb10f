"""A Gymnasium vector environment: N differential-drive robots with lidar, one call per step.

Each of the N environments is a real map (the MovingAI 32 x 32 benchmark maps
shipped in ``tests/data/movingai``, in their 8 orientations), one robot the
agent drives and a few scripted robots wandering about. Every robot is a
disc; the agent's robot sees the others as circles in a 1080-beam lidar. All
N lidars are one ``scan_many`` on a ``GridStack`` of the N maps, written into
the observation buffer in place (``out=``): no Python runs per environment
or per beam.

- observation: the 1080 ranges, float32, in cells (``max_range`` where
  nothing is within range);
- action: ``(forward speed, turn rate)`` in ``[-1, 1]``, scaled to at most
  ``MAX_SPEED`` cells and ``MAX_TURN`` radians per step;
- reward: the distance moved forward, ``-COLLISION_PENALTY`` on a collision
  (a beam shorter than the robot's radius), which ends the episode;
  episodes are truncated after ``max_steps``;
- autoreset: Gymnasium's next-step mode; a reset keeps the maps on the stack
  (only the robots move), see docs/rl.md.

Run as a script it prints a step-rate table for N = 1, 16 and 256:

    python examples/vector_env.py
    python examples/vector_env.py --sizes 1 4 --steps 20   # quicker
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from tilecast import GridStack, scan_many
from tilecast.io import load_movingai

MAPS = Path(__file__).resolve().parents[1] / "tests" / "data" / "movingai"
MAP_NAMES = ("maze-32-32-2.map", "random-32-32-10.map", "room-32-32-4.map")
BEAMS = 1080
MAX_RANGE = 12.0
RADIUS = 0.3  # every robot's radius, in cells
MAX_SPEED = 0.25  # cells per step
MAX_TURN = 0.3  # radians per step
COLLISION_PENALTY = 10.0


def real_maps() -> list[np.ndarray]:
    """Return the shipped 32 x 32 MovingAI maps in their 8 orientations (24 maps, True = wall)."""
    maps = []
    for name in MAP_NAMES:
        solid = np.asarray(load_movingai(MAPS / name).solid)
        for k in range(4):
            rotated = np.rot90(solid, k)
            maps += [rotated, rotated[:, ::-1]]
    return [np.ascontiguousarray(m) for m in maps]


class LidarRobots(VectorEnv):  # type: ignore[misc]
    """N robots on N maps, each seeing the others of its map as circles (see the module doc)."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, *, others: int = 4, max_steps: int = 500) -> None:
        catalogue = real_maps()
        self.num_envs = num_envs
        self.others = others
        self.max_steps = max_steps
        cells = np.stack([catalogue[b % len(catalogue)] for b in range(num_envs)])
        self.stack = GridStack(cells, outside="solid")  # built once, kept for every episode
        self.angles = np.linspace(-np.pi, np.pi, BEAMS, endpoint=False)
        self.single_observation_space = gym.spaces.Box(0.0, MAX_RANGE, (BEAMS,), np.float32)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        # robot 0 of each map is the agent's, the others are scripted
        self.robots = np.zeros((num_envs, 1 + others, 3))  # (x, y, heading)
        self.wheels = np.zeros((num_envs, others, 2))  # the scripted robots' commands
        self.steps = np.zeros(num_envs, dtype=np.int64)
        self.ended = np.zeros(num_envs, dtype=bool)
        self.observations = np.zeros((num_envs, BEAMS), np.float32)  # scan_many writes here
        self.free = [np.argwhere(~self.stack.layers[b].astype(bool)) for b in range(num_envs)]
        self.rng = np.random.default_rng()

    # ------------------------------------------------------------ episodes
    def _place(self, envs: np.ndarray) -> None:
        """Put every robot of ``envs`` at the centre of a random free cell, heading anywhere."""
        for b in envs.tolist():
            cells = self.free[b][self.rng.choice(len(self.free[b]), 1 + self.others, replace=False)]
            self.robots[b, :, 0] = cells[:, 1] + 0.5  # (row, col) -> x = col
            self.robots[b, :, 1] = cells[:, 0] + 0.5
            self.robots[b, :, 2] = self.rng.uniform(-np.pi, np.pi, 1 + self.others)
        self.wheels[envs] = self.rng.uniform(-1.0, 1.0, (len(envs), self.others, 2))
        self.steps[envs] = 0

    def _observe(self) -> np.ndarray:
        """All N lidars in one call: the agent's robot sees the other robots as circles."""
        poses = self.robots[:, :1]  # (N, 1, 3)
        circles = np.empty((self.num_envs, self.others, 3))
        circles[..., :2] = self.robots[:, 1:, :2]
        circles[..., 2] = RADIUS
        scan_many(self.stack, poses, self.angles, MAX_RANGE, circles=circles,
                  out=self.observations[:, None, :])  # fmt: skip
        return self.observations

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every environment afresh (the maps stay on the stack)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed if isinstance(seed, int) else seed[0])
        self._place(np.arange(self.num_envs))
        self.ended[:] = False
        return self._observe().copy(), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Move every robot, then scan once for all environments."""
        actions = np.clip(np.asarray(actions, dtype=np.float64), -1.0, 1.0)
        restart = np.flatnonzero(self.ended)
        if len(restart):  # next-step autoreset: the step after an episode's end resets it
            self._place(restart)
        speed = actions[:, 0] * MAX_SPEED
        self.robots[:, 0, 2] += actions[:, 1] * MAX_TURN
        heading = self.robots[:, 0, 2]
        self.robots[:, 0, 0] += speed * np.cos(heading)
        self.robots[:, 0, 1] += speed * np.sin(heading)
        self._wander()
        self.steps += 1
        ranges = self._observe()
        collided = ranges.min(axis=1) < RADIUS
        rewards = np.where(collided, -COLLISION_PENALTY, speed)
        rewards[restart] = 0.0
        terminations = collided.copy()
        truncations = self.steps >= self.max_steps
        terminations[restart] = truncations[restart] = False
        self.ended = terminations | truncations
        return ranges.copy(), rewards, terminations, truncations, {}

    def _wander(self) -> None:
        """Drive the scripted robots' wheels; a robot about to enter a wall turns back."""
        left, right = self.wheels[..., 0], self.wheels[..., 1]
        others = self.robots[:, 1:]
        others[..., 2] += (right - left) * MAX_TURN
        step = 0.5 * (left + right) * MAX_SPEED
        nx = others[..., 0] + step * np.cos(others[..., 2])
        ny = others[..., 1] + step * np.sin(others[..., 2])
        rows, cols = self.stack.shape[1:]
        i = np.clip(np.floor(nx).astype(np.int64), 0, cols - 1)
        j = np.clip(np.floor(ny).astype(np.int64), 0, rows - 1)
        env = np.arange(self.num_envs)[:, None]
        blocked = self.stack.layers[env, j, i] != 0
        others[..., 0] = np.where(blocked, others[..., 0], nx)
        others[..., 1] = np.where(blocked, others[..., 1], ny)
        others[..., 2] += np.where(blocked, np.pi, 0.0)
        self.wheels += self.rng.normal(0.0, 0.1, self.wheels.shape)
        np.clip(self.wheels, -1.0, 1.0, out=self.wheels)


def step_rate(num_envs: int, steps: int, seed: int = 0) -> float:
    """Environment steps per second (all N environments) over ``steps`` vector steps."""
    env = LidarRobots(num_envs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = rng.uniform(-1.0, 1.0, (steps, num_envs, 2))
    env.step(actions[0])  # first call: kernels loaded
    start = time.perf_counter()
    for k in range(steps):
        env.step(actions[k])
    return num_envs * steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    """Print the step-rate table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 256])
    parser.add_argument("--steps", type=int, default=50, help="vector steps timed per size")
    args = parser.parse_args(argv)
    print(f"{BEAMS}-beam lidar, {LidarRobots(1).others} other robots per map as circles")
    print("| N | env steps/s | vector steps/s |")
    print("|---:|---:|---:|")
    for n in args.sizes:
        rate = step_rate(n, args.steps)
        print(f"| {n} | {rate:,.0f} | {rate / n:,.1f} |")


if __name__ == "__main__":
    main()
