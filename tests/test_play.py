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


LEVEL = (
    '<map orientation="orthogonal" width="6" height="3" tilewidth="1" tileheight="1">'
    '<tileset firstgid="1" name="t" tilewidth="1" tileheight="1" tilecount="2"/>'
    '<layer name="ground"><data encoding="csv">1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1</data></layer>'
    '<layer name="walls"><data encoding="csv">2,2,2,2,2,2,2,0,0,0,0,1,2,2,2,2,2,2</data></layer>'
    "</map>"
)
WALLS = [[1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 1], [1, 1, 1, 1, 1, 1]]


@pytest.fixture
def level(tmp_path):
    path = tmp_path / "maps" / "level.tmx"
    path.parent.mkdir()
    path.write_text(LEVEL)
    return path


def test_play_takes_layer_solid_and_root(level, tmp_path, monkeypatch, capsys):
    # issue 15: play reads a map like render does (--layer, --solid, --root)
    played = []
    monkeypatch.setattr(play, "run", lambda world, **kw: played.append(world) or 0)
    assert main(["play", str(level)]) == 0  # the layer named "walls" by default
    assert main(["play", str(level), "--layer", "ground"]) == 0
    assert main(["play", str(level), "--layer", "walls", "--solid", "2"]) == 0
    assert main(["play", str(level), "--root", str(level.parent)]) == 0
    assert [w.solid.astype(int).tolist() for w in played] == [
        WALLS,
        [[1] * 6] * 3,
        [[1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]],  # GID 1 is not solid
        WALLS,
    ]
    capsys.readouterr()
    for argv, name in [
        (["play", str(level), "--root", str(tmp_path / "elsewhere")], "root"),
        (["play", str(level), "--layer", "sky"], "sky"),
        (["play", "--layer", "walls"], "--layer"),
        (["play", str(tmp_path / "missing.png")], "missing.png"),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("tilecast play: error: ") and name in err[-1], err
    assert len(played) == 4


def test_play_runs_on_a_chosen_layer(level, tmp_path):
    shot = tmp_path / "layer.png"
    argv = ["play", str(level), "--layer", "walls", "--frames", "2", "--screenshot", str(shot)]
    assert main(argv) == 0
    image = pygame.image.load(str(shot))
    assert image.get_width() == 6 * play.CELL + play.VIEW_W


def test_load_world_passes_loader_options(level):
    assert play.load_world(level).solid.astype(int).tolist() == WALLS
    assert play.load_world(level, layer="ground").solid.all()
    with pytest.raises(ValueError, match="layer"):
        play.load_world(layer="walls")
