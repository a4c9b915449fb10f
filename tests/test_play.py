import math

import numpy as np
import pytest

from tilecast import Grid, raycast

pygame = pytest.importorskip("pygame")

from tilecast import play  # noqa: E402
from tilecast.cli import main  # noqa: E402


@pytest.fixture(autouse=True)
def headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


def test_scripted_frames_and_screenshot(tmp_path):
    shot = tmp_path / "play.png"
    script = [{"mouse": (10.5, 5.5)}, {"key": "2"}, {"key": "1"}, {"mouse": (21.5, 14.5)}]
    assert play.run(play.load_world(), frames=4, screenshot=shot, script=script) == 0
    image = pygame.image.load(str(shot))
    assert image.get_size() == (48 * play.CELL + play.VIEW_W, 32 * play.CELL)
    pixels = pygame.surfarray.array3d(image)
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10  # not blank
    view = pixels[48 * play.CELL :, : play.VIEW_H]
    assert len(np.unique(view.reshape(-1, 3), axis=0)) > 5  # walls drawn in the 3D view


def test_play_command(tmp_path):
    shot = tmp_path / "cli.png"
    assert main(["play", "--frames", "2", "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 0


def test_first_person_columns_are_fisheye_corrected():
    grid = Grid(np.pad(np.zeros((9, 9), bool), 1, constant_values=True))
    origin, heading, columns = (5.0, 5.5), 0.3, 16
    perp, normal = play.first_person_columns(grid, origin, heading, columns)
    focal = (columns / 2) / math.tan(play.FOV_ANGLE / 2)
    for c in range(columns):
        offset = math.atan((c + 0.5 - columns / 2) / focal)
        angle = heading + offset
        hit = raycast(grid, origin, (math.cos(angle), math.sin(angle)))
        assert perp[c] == pytest.approx(hit.distance * math.cos(offset))
        assert tuple(normal[c]) == hit.normal


def test_state_stays_out_of_walls():
    grid = Grid([[0, 1], [0, 0]])
    state = play.State(grid)
    state.move_to(0.5, 0.5)
    state.move_to(1.5, 0.5)  # a wall: refused
    assert (state.x, state.y) == (0.5, 0.5)
    state.move_to(5.0, 5.0)  # off the map: refused
    assert (state.x, state.y) == (0.5, 0.5)
