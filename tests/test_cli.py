import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tilecast import fov, raycast
from tilecast.cli import DEMO_VIEWER, main
from tilecast.data import example_map, example_path

SRC = str(Path(__file__).resolve().parents[1] / "src")
ROOM = "#######\n#.....#\n#..#..#\n#.....#\n#######\n"


@pytest.fixture
def room(tmp_path):
    path = tmp_path / "room.txt"
    path.write_text(ROOM)
    return path


def test_demo_in_a_subprocess(tmp_path):
    pytest.importorskip("PIL")
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = tmp_path / "demo.png"
    result = subprocess.run(
        [sys.executable, "-m", "tilecast.cli", "demo", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "rays cast: 360, hits: 360" in result.stdout
    grid = example_map()
    visible = int(fov(grid, grid.cell_at(DEMO_VIEWER)).sum())
    assert f"field of view: {visible} cells visible" in result.stdout
    from PIL import Image

    with Image.open(out) as image:
        assert image.size == (48 * 16, 32 * 16)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
        assert colours is not None and len(colours) > 5  # map, rays, fov, lit area, hits


def test_demo_summary_matches_raycast(tmp_path, capsys):
    pytest.importorskip("PIL")
    assert main(["demo", "--rays", "8", "--out", str(tmp_path / "d.png"), "--scale", "2"]) == 0
    text = capsys.readouterr().out
    grid = example_map()
    distances = [
        raycast(grid, DEMO_VIEWER, (math.cos(a), math.sin(a))).distance
        for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
    ]
    assert f"distance: mean {np.mean(distances):.3f}" in text
    assert (tmp_path / "d.png").stat().st_size > 0


def test_demo_without_pillow(tmp_path, monkeypatch, capsys):
    import tilecast.cli as cli

    monkeypatch.setattr(cli, "_have_pillow", lambda: False)
    assert main(["demo", "--out", str(tmp_path / "no.png")]) == 0
    text = capsys.readouterr().out
    assert "pip install Pillow" in text
    assert not (tmp_path / "no.png").exists()


def test_demo_viewer_in_a_wall(capsys):
    assert main(["demo", "--from", "0.5,0.5"]) == 1
    assert "not on a floor cell" in capsys.readouterr().err


def test_cast_text_and_json(room, capsys):
    assert main(["cast", str(room), "--from", "1.5,1.5", "--angle", "0"]) == 0
    assert (
        capsys.readouterr().out.strip()
        == "hit at (6, 1.5), distance 4.5, cell (6, 1), normal (-1.0, 0.0)"
    )
    assert main(["cast", str(room), "--from", "1.5,2.5", "--angle", "0", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record == {
        "hit": True,
        "point": [3.0, 2.5],
        "distance": 1.5,
        "cell": [3, 2],
        "normal": [-1.0, 0.0],
        "inside": False,
    }
    assert (
        main(["cast", str(room), "--from", "1.5,1.5", "--angle", "0", "--max-distance", "1"]) == 0
    )
    assert capsys.readouterr().out.strip() == "miss"


def test_scan_csv_and_json(room, capsys):
    assert main(["scan", str(room), "--pose", "1.5,1.5,0", "--beams", "4"]) == 0
    lines = capsys.readouterr().out.split()
    assert lines[0] == "angle,range"
    ranges = [float(line.split(",")[1]) for line in lines[1:]]
    assert ranges == pytest.approx([0.5, 0.5, 4.5, 2.5])  # -pi, -pi/2, 0, pi/2
    assert (
        main(
            [
                "scan",
                str(room),
                "--pose",
                "1.5,1.5,1.5707963267948966",
                "--beams",
                "1",
                "--format",
                "json",
                "--max-range",
                "3",
            ]
        )
        == 0
    )
    record = json.loads(capsys.readouterr().out)
    assert record["ranges"] == pytest.approx([2.5])  # the wall below, within 3
    assert (
        main(
            [
                "scan",
                str(room),
                "--pose",
                "1.5,1.5,0",
                "--beams",
                "1",
                "--format",
                "json",
                "--max-range",
                "1",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["ranges"] == [1.0]  # nothing within 1


def test_fov_command(room, tmp_path, capsys):
    assert main(["fov", str(room), "--from", "1,1", "--print"]) == 0
    out = capsys.readouterr().out.splitlines()
    from tilecast.io import load_ascii

    expected = int(fov(load_ascii(room), (1, 1)).sum())
    assert out[0] == f"{expected} of 35 cells visible from (1, 1)"
    assert out[2][1] == "@"
    pytest.importorskip("PIL")
    assert (
        main(["fov", str(room), "--from", "1,1", "--radius", "2", "--out", str(tmp_path / "f.png")])
        == 0
    )
    assert (tmp_path / "f.png").exists()
    assert main(["fov", str(room), "--from", "9,1"]) == 1
    assert "outside the map" in capsys.readouterr().err


def test_render_command(room, tmp_path, capsys):
    pytest.importorskip("PIL")
    out = tmp_path / "r.png"
    assert main(["render", str(room), "--out", str(out), "--walls", "--scale", "3"]) == 0
    from PIL import Image

    with Image.open(out) as image:
        assert image.size == (21, 15)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["cast", "x.txt", "--from", "1,2,3", "--angle", "0"],
        ["cast", "x.txt", "--from", "nan,2", "--angle", "0"],
        ["cast", "x.txt", "--angle", "0"],
        ["scan", "x.txt", "--pose", "1,2", "--beams", "3"],
        ["scan", "x.txt", "--pose", "1,2,0", "--beams", "0"],
        ["fov", "x.txt", "--from", "1.5,2"],
        ["fov", "x.txt", "--from", "1,2", "--radius", "-1"],
        ["demo", "--rays", "many"],
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "usage: tilecast" in captured.err + captured.out


def test_failures_exit_1_without_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("#?#\n")
    assert main(["cast", str(bad), "--from", "0,0", "--angle", "0"]) == 1
    err = capsys.readouterr().err
    assert "line 1, column 2" in err and "Traceback" not in err
    assert main(["render", str(tmp_path / "missing.txt"), "--out", "x.png"]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert main(["cast", str(tmp_path / "m.weird"), "--from", "0,0", "--angle", "0"]) == 1
    assert "unknown map format" in capsys.readouterr().err


def test_help_and_version(capsys):
    assert main(["--help"]) == 0
    assert "demo" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert "tilecast" in capsys.readouterr().out


def test_bench_without_benchmarks(monkeypatch, tmp_path, capsys):
    import tilecast.cli as cli

    monkeypatch.setattr(cli, "_benchmarks_dir", lambda: None)
    assert main(["bench", "--quick"]) == 1
    assert "source checkout" in capsys.readouterr().err


def test_bench_runs_scripts(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "alpha.py").write_text("import sys\nprint('| a | b |', sys.argv[1:])\n")
    (folder / "beta.py").write_text("raise SystemExit(3)\n")
    monkeypatch.setenv("TILECAST_BENCHMARKS", str(folder))
    assert main(["bench", "--quick", "--only", "alpha"]) == 0
    captured = capsys.readouterr()
    assert "| a | b | ['--quick']" in captured.out
    assert "[1/1] alpha.py done" in captured.err
    assert main(["bench"]) == 1
    assert "beta.py FAILED (exit 3)" in capsys.readouterr().err
    assert main(["bench", "--only", "gamma"]) == 1


def test_example_path_is_packaged():
    assert example_path().is_file()


def test_ros_map_commands_use_the_metric_y_up_frame(tmp_path, capsys):
    pytest.importorskip("yaml")
    pytest.importorskip("PIL")
    from PIL import Image

    pixels = np.full((20, 30), 254, dtype=np.uint8)
    pixels[5:8, 10:12] = 0  # a block 12..15 rows above the bottom
    Image.fromarray(pixels).save(tmp_path / "m.pgm")
    (tmp_path / "m.yaml").write_text(
        "image: m.pgm\nresolution: 0.1\norigin: [-1, -1, 0]\nnegate: 0\n"
        "occupied_thresh: 0.65\nfree_thresh: 0.196\n"
    )
    argv = ["cast", str(tmp_path / "m.yaml"), "--from", "0.05,0", "--angle", "90"]
    assert main([*argv, "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["cell"] == [10, 12] and record["point"][1] == pytest.approx(0.2)
    out = tmp_path / "m.png"
    assert main(["render", str(tmp_path / "m.yaml"), "--out", str(out), "--scale", "1"]) == 0
    with Image.open(out) as image:
        drawn = np.asarray(image.convert("L"))
    # drawn with north up: the block is where it is in the source picture
    assert drawn[5:8, 10:12].max() < drawn[0, 0]
