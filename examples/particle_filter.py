"""Monte Carlo localisation (a particle filter) on a real ROS map.

A simulated robot drives through nav2's ``depot`` warehouse map
(``tests/data/navigation2/depot.yaml``, Apache-2.0, see
``tests/data/SOURCES.md``). At every step:

1. **motion**: the robot moves; each particle moves by the robot's noisy
   odometry, plus noise of its own;
2. **measurement**: the robot's lidar scan is simulated with
   :func:`tilecast.scan` (exact ranges, then sensor noise and a few dropped
   beams), and every particle is weighted by :func:`tilecast.scan_likelihood`
   with a :class:`tilecast.BeamModel` (one fused, compiled call for all
   particles), or with ``--model field`` nav2 AMCL's default sensor model,
   :class:`tilecast.LikelihoodField` (no ray casting: the distance from
   each beam's end point to the nearest wall);
3. **estimate**: the weighted mean pose, and its error against the true pose;
4. **resampling**: low-variance (systematic) resampling.

The map is metric and y-up (``load_map`` reads the YAML's resolution and
origin), so poses are ``(x, y, theta)`` in metres and radians, exactly as a
ROS robot reports them. The picture shows the map, the last scan (red rays
from the true pose), the particles (blue), the true path (green) and the
estimates (orange).

Run::

    python examples/particle_filter.py mcl.png            # 2000 particles, 16 steps
    python examples/particle_filter.py mcl.png --quick    # 300 particles, 6 steps
    python examples/particle_filter.py mcl.png --model field   # AMCL's likelihood field
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import tilecast
from tilecast.io import load_map
from tilecast.render import Picture

HERE = Path(__file__).resolve().parent
DEPOT = HERE.parent / "tests" / "data" / "navigation2" / "depot.yaml"

MAX_RANGE = 12.0  # metres: the lidar's range
BEAMS = np.linspace(-math.radians(135), math.radians(135), 61)  # 270 degrees, as a Hokuyo
MODEL = tilecast.BeamModel(
    z_hit=0.8, z_short=0.05, z_max=0.05, z_rand=0.1, sigma_hit=0.15, lambda_short=0.5
)
# Beams are not independent (neighbours see the same wall): temper the sum of
# their log-likelihoods, as AMCL and the MIT racecar filter do, or the weights
# collapse onto a single particle.
SQUASH = 8.0
# The robot's route through the depot's open hall (metres, map frame).
WAYPOINTS = [(-4.0, -2.0), (5.0, -2.0), (5.0, 2.0), (-4.0, 2.0)]
STEP = 0.7  # metres driven per filter update


def drive(start: tuple[float, float, float], steps: int) -> NDArray[np.float64]:
    """Poses ``(steps + 1, 3)`` of a robot driving ``STEP`` at a time along ``WAYPOINTS``.

    Parameters
    ----------
    start : (float, float, float)
        The first pose ``(x, y, theta)``.
    steps : int
        How many moves.

    Returns
    -------
    ndarray of float64, shape (steps + 1, 3)
        The true poses, the first one ``start``.
    """
    poses = [np.array(start, dtype=float)]
    target = 1
    for _ in range(steps):
        x, y, _ = poses[-1]
        tx, ty = WAYPOINTS[target % len(WAYPOINTS)]
        if math.hypot(tx - x, ty - y) < STEP:
            target += 1
            tx, ty = WAYPOINTS[target % len(WAYPOINTS)]
        heading = math.atan2(ty - y, tx - x)
        poses.append(
            np.array([x + STEP * math.cos(heading), y + STEP * math.sin(heading), heading])
        )
    return np.array(poses)


def odometry(before: NDArray[np.float64], after: NDArray[np.float64]) -> NDArray[np.float64]:
    """Return the move ``before`` -> ``after`` in the robot's frame: ``(forward, left, turn)``."""
    dx, dy = after[0] - before[0], after[1] - before[1]
    c, s = math.cos(before[2]), math.sin(before[2])
    turn = math.remainder(after[2] - before[2], math.tau)
    return np.array([c * dx + s * dy, -s * dx + c * dy, turn])


def move(
    particles: NDArray[np.float64], motion: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Apply an odometry reading ``(forward, left, turn)`` to every particle, with noise.

    The noise grows with the distance and the turn (a simple version of the
    odometry motion model of Probabilistic Robotics 5.4).
    """
    n = len(particles)
    distance = math.hypot(motion[0], motion[1])
    forward = motion[0] + rng.normal(0.0, 0.05 + 0.1 * distance, n)
    left = motion[1] + rng.normal(0.0, 0.05 + 0.1 * distance, n)
    turn = motion[2] + rng.normal(0.0, 0.03 + 0.1 * abs(motion[2]), n)
    theta = particles[:, 2]
    c, s = np.cos(theta), np.sin(theta)
    return np.column_stack(
        [
            particles[:, 0] + c * forward - s * left,
            particles[:, 1] + s * forward + c * left,
            theta + turn,
        ]
    )


def measure(
    grid: tilecast.Grid, pose: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Simulate the robot's lidar: exact ranges, Gaussian noise, 3 % of beams dropped.

    A dropped beam reports ``MAX_RANGE`` (no return), which the beam model's
    ``z_max`` part accounts for.
    """
    exact = tilecast.scan(grid, tuple(pose), BEAMS, MAX_RANGE)
    noisy = exact + rng.normal(0.0, 0.05, exact.shape)
    noisy[rng.random(exact.shape) < 0.03] = MAX_RANGE
    return np.clip(noisy, 0.0, MAX_RANGE)


def resample(
    particles: NDArray[np.float64], weights: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float64]:
    """Low-variance (systematic) resampling: one random offset, ``N`` evenly spaced picks."""
    n = len(particles)
    picks = (rng.random() + np.arange(n)) / n
    cumulative = np.cumsum(weights)
    cumulative[-1] = 1.0  # guard against rounding in the sum
    return particles[np.searchsorted(cumulative, picks)]


def mean_pose(particles: NDArray[np.float64], weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """Weighted mean pose; the heading is the circular mean."""
    x, y = weights @ particles[:, 0], weights @ particles[:, 1]
    theta = math.atan2(weights @ np.sin(particles[:, 2]), weights @ np.cos(particles[:, 2]))
    return np.array([x, y, theta])


def run(
    map_path: Path, n_particles: int, steps: int, seed: int, model_name: str = "beam"
) -> tuple[
    tilecast.Grid,
    NDArray[np.float64],
    list[NDArray[np.float64]],
    NDArray[np.float64],
    NDArray[np.float64],
]:
    """Run the filter, printing one line per step.

    Returns
    -------
    grid, true_poses, estimates, particles
        The map, the true poses ``(steps + 1, 3)``, the estimate after each
        update and the final particles ``(n_particles, 3)``.
    """
    grid = load_map(map_path)  # outside="solid", unknown cells solid: what a robot wants
    model: tilecast.BeamModel | tilecast.LikelihoodField = MODEL
    if model_name == "field":  # nav2 AMCL's defaults (laser_sigma_hit, z_hit, z_rand, max dist)
        model = tilecast.LikelihoodField(grid, sigma_hit=0.2, z_hit=0.5, z_rand=0.5,
                                         max_distance=2.0)  # fmt: skip
    rng = np.random.default_rng(seed)
    truth = drive((WAYPOINTS[0][0], WAYPOINTS[0][1], 0.0), steps)
    # The robot roughly knows where it starts: a cloud around a wrong guess.
    guess = truth[0] + np.array([0.6, -0.4, 0.25])
    particles = guess + rng.normal(0.0, [0.5, 0.5, 0.2], (n_particles, 3))
    start_cloud = particles.copy()
    estimates = []
    print(f"map {map_path.name}: {grid.shape[1]} x {grid.shape[0]} cells of {grid.tile_size[0]} m")
    print(f"{n_particles} particles, {len(BEAMS)} beams, {steps} steps")
    print("step  position error (m)  heading error (deg)  effective particles")
    prior = particles.mean(axis=0)
    print(f"prior {math.hypot(*(prior[:2] - truth[0, :2])):17.3f}")
    for step in range(steps + 1):
        if step > 0:
            particles = move(particles, odometry(truth[step - 1], truth[step]), rng)
        observed = measure(grid, truth[step], rng)
        log_weights = tilecast.scan_likelihood(
            grid, particles, BEAMS, observed, max_range=MAX_RANGE, model=model
        )
        weights = np.exp((log_weights - log_weights.max()) / SQUASH)
        weights /= weights.sum()
        estimate = mean_pose(particles, weights)
        estimates.append(estimate)
        error = math.hypot(*(estimate[:2] - truth[step, :2]))
        heading = abs(math.degrees(math.remainder(estimate[2] - truth[step, 2], math.tau)))
        effective = 1.0 / float(weights @ weights)
        print(f"{step:4d}  {error:18.3f}  {heading:19.2f}  {effective:19.0f}")
        particles = resample(particles, weights, rng)
    return grid, truth, estimates, start_cloud, particles


def draw(
    grid: tilecast.Grid,
    truth: NDArray[np.float64],
    estimates: list[NDArray[np.float64]],
    start_cloud: NDArray[np.float64],
    particles: NDArray[np.float64],
    path: Path,
    scale: float,
) -> tuple[int, int]:
    """Save the picture (map, last scan, particles, true path, estimates); return its size.

    The particles before the first update are drawn faint, the final ones
    strong.
    """
    last = tuple(truth[-1])
    hits = tilecast.raycast_many(
        grid,
        last[:2],
        np.column_stack([np.cos(last[2] + BEAMS), np.sin(last[2] + BEAMS)]),
        MAX_RANGE,
    )
    picture = Picture(grid, scale=scale, y_up=True)  # ROS maps are y-up: north at the top
    picture.rays(last[:2], hits.point).hits(hits.point, radius=1.5)
    picture.points(start_cloud[:, :2], color=(40, 90, 220, 50), radius=1.5)
    picture.points(particles[:, :2], color=(40, 90, 220, 160), radius=1.5)
    picture.points(truth[:, :2], color=(20, 150, 60), radius=3)
    picture.points(np.array(estimates)[:, :2], color=(240, 140, 20), radius=2)
    picture.save(path)
    return picture.size


def main() -> None:
    """Parse the command line, run the filter, save the picture."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the picture (.png)")
    parser.add_argument("--quick", action="store_true", help="300 particles, 6 steps")
    parser.add_argument("--map", type=Path, default=DEPOT, help="a ROS map YAML (default: depot)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--model", choices=["beam", "field"], default="beam",
        help="sensor model: the beam model, or AMCL's likelihood field",
    )  # fmt: skip
    parser.add_argument("--scale", type=float, default=2.0, help="picture pixels per map cell")
    args = parser.parse_args()
    n_particles, steps = (300, 6) if args.quick else (2000, 16)
    grid, truth, estimates, start_cloud, particles = run(
        args.map, n_particles, steps, args.seed, args.model
    )
    size = draw(grid, truth, estimates, start_cloud, particles, args.output, args.scale)
    final = math.hypot(*(estimates[-1][:2] - truth[-1, :2]))
    print(f"final position error: {final:.3f} m")
    print(f"picture: {args.output} ({size[0]} x {size[1]})")


if __name__ == "__main__":
    main()
