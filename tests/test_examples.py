"""The scripts in ``examples/`` run, write the picture they promise and print true numbers.

Each example runs in a subprocess, as a user would run it, writing into
``tmp_path``. The checks read the PNG back (format and size) and parse what
the script printed, recomputing the claims it makes with tilecast where that
is cheap (symmetry of the field of view, clear shots, exposure counts).
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilecast
from tilecast.data import example_map
from tilecast.io import load_map

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def run_example(name: str, *args: str, env: dict[str, str] | None = None) -> str:
    """Run ``examples/<name>`` with ``args``; return its stdout (fail with its stderr)."""
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
    assert result.returncode == 0, f"{name} failed ({result.returncode}):\n{result.stderr}"
    return result.stdout


def png_size(path: Path) -> tuple[int, int]:
    """The size of the PNG at ``path`` (fails if it is missing or not a PNG)."""
    assert path.is_file(), f"{path} was not written"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as image:
        assert image.format == "PNG"
        image.load()  # decodes the whole file: a truncated PNG fails here
        return image.size


def load_module(name: str):
    """Import an example as a module (to read its constants)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_particle_filter_converges(tmp_path):
    out = tmp_path / "mcl.png"
    text = run_example("particle_filter.py", str(out), "--quick")
    depot = load_map(ROOT / "tests/data/navigation2/depot.yaml")
    rows, cols = depot.shape
    assert png_size(out) == (cols * 2, rows * 2)
    assert "300 particles, 61 beams, 6 steps" in text
    prior = float(re.search(r"^prior\s+([\d.]+)$", text, re.M).group(1))
    steps = [
        (int(s), float(e), float(h), float(n))
        for s, e, h, n in re.findall(r"^\s*(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", text, re.M)
    ]
    assert [s for s, *_ in steps] == list(range(7))
    # The prior cloud is centred on a guess 0.72 m off; the scans pull it in.
    assert 0.5 < prior < 1.0
    for _, error, heading, effective in steps:
        assert math.isfinite(error) and error < 0.3
        assert heading < 5.0
        assert 1 <= effective <= 300
    final = float(re.search(r"final position error: ([\d.]+) m", text).group(1))
    assert final == pytest.approx(steps[-1][1], abs=1e-3)
    assert final < 0.15 < prior


def test_roguelike_turn_reports_the_truth(tmp_path):
    out = tmp_path / "turn.png"
    text = run_example("roguelike_turn.py", str(out), "--turns", "2")
    example = load_module("roguelike_turn")
    grid = example_map()
    rows, cols = grid.shape
    assert png_size(out) == (cols * 16, rows * 16)
    player = (21, 14)
    view = tilecast.fov(grid, player, radius=example.SIGHT)
    assert f"player at {player} sees {int(view.sum())} cells" in text
    line = re.compile(
        r"monster (\d+) at \((\d+), (\d+)\): sees player (yes|no), seen by player (yes|no), "
        r"clear shot (yes|no), lit (yes|no)"
    )
    turns = text.split("turn ")[1:]
    assert len(turns) == 2
    for turn in turns:
        found = line.findall(turn)
        assert len(found) == 8
        sees_count = 0
        for _, col, row, sees, seen, shot, _lit in found:
            monster = (int(col), int(row))
            assert not grid.solid[monster[1], monster[0]]
            mask = tilecast.fov(grid, monster, radius=example.SIGHT)
            assert (sees == "yes") == bool(mask[player[1], player[0]])
            assert sees == seen  # symmetric shadowcasting between floor cells
            clear = tilecast.line_of_sight(grid, example.centre(monster), example.centre(player))
            assert (shot == "yes") == (sees == "yes" and clear)
            sees_count += sees == "yes"
        assert f"{sees_count} of 8 monsters see the player" in turn
    # The default scene shows both cases: some monsters see the player, some do not.
    first = line.findall(turns[0])
    assert 0 < sum(s == "yes" for _, _, _, s, *_ in first) < 8


def test_pygame_bullets_headless(tmp_path):
    pytest.importorskip("pygame")
    out = tmp_path / "shot.png"
    env = {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    text = run_example("pygame_bullets.py", str(out), "--frames", "90", env=env)
    grid = example_map()
    rows, cols = grid.shape
    assert png_size(out) == (cols * 16, rows * 16)
    assert "frames: 90" in text
    fired, flying = map(int, re.search(r"bullets fired: (\d+), in flight: (\d+)", text).groups())
    bounces, stopped = map(
        int, re.search(r"bounces: (\d+), stopped on a wall: (\d+)", text).groups()
    )
    assert fired == math.ceil(90 / 4)  # one automatic shot every 4 frames
    assert 0 < flying < fired
    assert bounces > 0 and stopped > 0
    glass, enemies = map(
        int, re.search(r"stopped on glass: (\d+), enemies hit: (\d+)", text).groups()
    )
    assert glass > 0  # the windows stop bullets (while the light passes them)
    assert enemies > 0  # bullets stop on the enemies (bodies= in raycast)
    assert "bullets found inside a wall: 0" in text
    slid = int(re.search(r"frames the player slid along something: (\d+)", text).group(1))
    assert slid > 0  # the scripted walk runs into walls and slides
    assert "shapes found overlapping a wall: 0" in text  # move_and_slide never ends inside
    # The light and the bullets are drawn over the plain map: more than its 2 colours.
    with Image.open(out) as image:
        colours = {tuple(c) for c in np.asarray(image.convert("RGB")).reshape(-1, 3)}
    assert len(colours) > 3


def test_exposure_map_counts_and_colours(tmp_path):
    out = tmp_path / "exposure.png"
    text = run_example("exposure_map.py", str(out))
    example = load_module("exposure_map")
    grid = load_map(ROOT / "tests/data/movingai/room-32-32-4.map")
    rows, cols = grid.shape
    floor = ~np.asarray(grid.solid)
    assert png_size(out) == (cols * 16 + example.BAR_WIDTH, rows * 16)
    low, mean, high = re.search(
        r"exposure over floor cells: min (\d+), mean ([\d.]+), max (\d+)", text
    ).groups()
    assert 1 <= int(low) <= float(mean) <= int(high) <= int(floor.sum())
    cells = {}
    for name, col, row, seen_by, sees in re.findall(
        r"(most \w+) cell \((\d+), (\d+)\): seen by (\d+) floor cells, sees (\d+)", text
    ):
        cell = (int(col), int(row))
        assert floor[cell[1], cell[0]]
        assert seen_by == sees  # symmetry
        assert int(sees) == int((tilecast.fov(grid, cell, light_walls=False) & floor).sum())
        cells[name] = (cell, int(sees))
    assert cells["most exposed"][1] == int(high) and cells["most sheltered"][1] == int(low)
    # The most exposed cell has the top colour of the scale, the most sheltered the bottom.
    with Image.open(out) as image:
        rgb = image.convert("RGB")
        for name, anchor in (("most exposed", -1), ("most sheltered", 0)):
            (col, row), _ = cells[name]
            pixel = rgb.getpixel((col * 16 + 8, row * 16 + 8))
            assert pixel == tuple(int(v) for v in example.SCALE[anchor])


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_examples_are_ruff_clean(command):
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    result = subprocess.run(
        [ruff, *command, "examples"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mapping_builds_the_true_map(tmp_path):
    out = tmp_path / "mapping.png"
    text = run_example("mapping.py", str(out), "--quick")
    depot = load_map(ROOT / "tests/data/navigation2/depot.yaml")
    rows, cols = depot.shape
    assert png_size(out) == (4 * cols + 3 * 6, rows)
    assert "30 scans of 360 beams" in text
    lines = re.findall(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", text, re.M)
    assert len(lines) == 4
    known = [int(k) for _, k, _, _ in lines]
    assert known == sorted(known) and known[-1] > 50_000
    # exact carving of exact ranges: no cell of the built map contradicts the true one
    assert all(int(w) == 0 and int(f) == 0 for _, _, w, f in lines)
    built = load_map(tmp_path / "mapping.yaml", unknown="free")
    assert built.shape == depot.shape and built.origin == depot.origin
    truth = load_map(ROOT / "tests/data/navigation2/depot.yaml", unknown="free")
    assert not (built.solid & ~truth.solid).any()


def test_particle_filter_with_the_likelihood_field(tmp_path):
    out = tmp_path / "mcl.png"
    text = run_example("particle_filter.py", str(out), "--quick", "--model", "field")
    final = float(re.search(r"final position error: ([\d.]+) m", text).group(1))
    assert final < 0.2


def test_vector_env_steps_all_robots_with_one_scan():
    pytest.importorskip("gymnasium")
    example = load_module("vector_env")
    env = example.LidarRobots(3, others=2, max_steps=4)
    obs, _ = env.reset(seed=5)
    assert obs.shape == (3, example.BEAMS) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    again, _ = example.LidarRobots(3, others=2, max_steps=4).reset(seed=5)
    np.testing.assert_array_equal(obs, again)  # seeded: the same start
    rng = np.random.default_rng(1)
    for _ in range(6):
        obs, rewards, terminated, truncated, _ = env.step(rng.uniform(-1, 1, (3, 2)))
        assert rewards.shape == terminated.shape == truncated.shape == (3,)
        # each environment's lidar is its map's scan with the other robots as circles
        for b in range(3):
            circles = [(x, y, example.RADIUS) for x, y, _ in env.robots[b, 1:]]
            single = tilecast.scan(env.stack[b], env.robots[b, 0], env.angles, example.MAX_RANGE,
                                   circles=circles, dtype=np.float32)  # fmt: skip
            np.testing.assert_array_equal(obs[b], single)
        assert (terminated == (obs.min(axis=1) < example.RADIUS)).all() or truncated.any()
    assert (env.steps <= 4).all()  # truncated episodes were reset (next-step autoreset)


def test_vector_env_prints_a_step_rate_table():
    pytest.importorskip("gymnasium")
    text = run_example("vector_env.py", "--sizes", "1", "4", "--steps", "3")
    rows = re.findall(r"^\| (\d+) \| ([\d,]+) \| ([\d,.]+) \|$", text, re.M)
    assert [int(n) for n, *_ in rows] == [1, 4]
    for n, per_env, per_vector in rows:
        rate, vector_rate = float(per_env.replace(",", "")), float(per_vector.replace(",", ""))
        assert rate > 0 and rate == pytest.approx(int(n) * vector_rate, rel=0.01, abs=1)
