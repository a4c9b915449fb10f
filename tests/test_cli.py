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


def test_bad_maps_exit_2_without_traceback(tmp_path, capsys):
    # a map file that cannot be read is bad input, like a bad option value: exit 2, one line
    bad = tmp_path / "bad.txt"
    bad.write_text("#?#\n")
    assert main(["cast", str(bad), "--from", "0,0", "--angle", "0"]) == 2
    err = capsys.readouterr().err
    assert "line 1, column 2" in err and "Traceback" not in err
    assert main(["render", str(tmp_path / "missing.txt"), "--out", "x.png"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["cast", str(tmp_path / "m.weird"), "--from", "0,0", "--angle", "0"]) == 2
    assert "unknown map format" in capsys.readouterr().err


def _one_error_line(capsys, *names):
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert lines[-1].startswith("tilecast") and ": error: " in lines[-1], err
    for name in names:
        assert name in lines[-1], (name, err)
    return lines[-1]


def test_hostile_maps_exit_2_with_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.tmj"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    argv = ["--from", "1,1", "--angle", "0"]
    assert main(["cast", str(deep), *argv]) == 2
    assert "max_depth" in _one_error_line(capsys, "deep.tmj")
    odd = tmp_path / "odd.tmj"
    odd.write_text('{"type": "map", "width": 2, "height": 2, "tilewidth": 8, "tileheight": 8, '
                   '"tilesets": [1], "layers": []}')  # fmt: skip
    assert main(["cast", str(odd), *argv]) == 2
    _one_error_line(capsys, "odd.tmj")
    negative = tmp_path / "neg.tmx"
    negative.write_text(
        '<map orientation="orthogonal" width="2" height="2" tilewidth="-8" tileheight="8">'
        '<layer name="w"><data encoding="csv">0,0,0,0</data></layer></map>'
    )
    assert main(["cast", str(negative), *argv]) == 2
    assert "tilewidth" in _one_error_line(capsys, "neg.tmx")


def test_decompression_bomb_png_exits_2(tmp_path, capsys):
    pytest.importorskip("PIL")
    import struct
    import zlib

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    # a valid PNG header declaring 100000 x 100000 gray pixels, with almost no data
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    png += chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + chunk(b"IEND", b"")
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png)
    assert main(["render", str(bomb), "--out", str(tmp_path / "o.png")]) == 2
    line = _one_error_line(capsys, "bomb.png")
    assert "max_pixels" in line or "too large" in line


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["scan", "{map}", "--pose", "1.5,1.5,0", "--beams", "100000000000"], "--beams"),
        (["demo", "--rays", "100000000000"], "--rays"),
        (["cast", "{map}", "--from", "1.5,1.5", "--angle", "inf"], "--angle"),
        (["cast", "{map}", "--from", "1.5,1.5", "--angle", "nan"], "--angle"),
        (["render", "{map}", "--out", "{out}", "--scale", "1e308"], "--scale"),
        (["fov", "{map}", "--from", "1,1", "--out", "{out}", "--scale", "1e308"], "--scale"),
        (["cast", "{map}", "--from", "1.5,1.5", "--angle", "0", "--layer", "x"], "--layer"),
        (["cast", "{map}", "--from", "1.5,1.5", "--angle", "0", "--solid", "maybe"], "--solid"),
    ],
)
def test_bad_option_values_exit_2(room, tmp_path, capsys, argv, option):
    argv = [a.format(map=room, out=tmp_path / "o.png") for a in argv]
    if "--scale" in argv:
        pytest.importorskip("PIL")
    assert main(argv) == 2
    _one_error_line(capsys, option)


def test_negative_numbers_as_option_values(room, capsys):
    # issue 15: '--pose -0.375,1,0' was taken for an option
    assert main(["scan", str(room), "--pose", "-0.375,1.5,0", "--beams", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split(",")[1] == "0.375"  # beam along +x from x = -0.375 to the wall at x = 0
    assert main(["cast", str(room), "--from", "-2.5,1.5", "--angle", "-0"]) == 0
    assert capsys.readouterr().out.startswith("hit at (0, 1.5), distance 2.5")
    assert main(["cast", str(room), "--from", "1.5,-1.5", "--angle", "-270"]) == 0
    assert "distance 1.5" in capsys.readouterr().out  # straight down onto row 0 at y = 0
    assert main(["cast", str(room), "--from=-2.5,1.5", "--angle=-0"]) == 0
    capsys.readouterr()
    assert main(["scan", str(room), "--po", "-0.375,1.5,0", "--beams", "1"]) == 0


def test_root_layer_and_solid_options(tmp_path, capsys):
    tmx = (
        '<map orientation="orthogonal" width="3" height="1" tilewidth="1" tileheight="1">'
        '<tileset firstgid="1" name="t" tilewidth="1" tileheight="1" tilecount="2"/>'
        '<layer name="ground"><data encoding="csv">1,1,1</data></layer>'
        '<layer name="walls"><data encoding="csv">0,0,2</data></layer></map>'
    )
    path = tmp_path / "level.tmx"
    path.write_text(tmx)
    argv = ["cast", str(path), "--from", "0.5,0.5", "--angle", "0", "--format", "json"]
    assert main(argv) == 0  # the layer named "walls" by default
    assert json.loads(capsys.readouterr().out)["cell"] == [2, 0]
    assert main([*argv, "--layer", "ground"]) == 0
    assert json.loads(capsys.readouterr().out)["inside"] is True
    assert main([*argv, "--layer", "walls", "--solid", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["hit"] is False
    assert main([*argv, "--root", str(tmp_path / "elsewhere")]) == 2
    _one_error_line(capsys, "root")


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


def test_bench_json_passes_through(monkeypatch, tmp_path, capsys):
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "alpha.py").write_text("import sys\nprint('| a |', sys.argv[1:])\n")
    (folder / "_helper.py").write_text("raise SystemExit(3)\n")  # not a benchmark: skipped
    monkeypatch.setenv("TILECAST_BENCHMARKS", str(folder))
    out = tmp_path / "results" / "run1"
    assert main(["bench", "--quick", "--json", str(out)]) == 0
    assert f"| a | ['--quick', '--json', '{out / 'alpha.json'}']" in capsys.readouterr().out
    assert out.is_dir()
    (tmp_path / "file").write_text("")
    assert main(["bench", "--json", str(tmp_path / "file" / "sub")]) == 1
    _one_error_line(capsys, "--json")


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


def test_play_reads_maps_with_the_same_options_as_render(capsys):
    # issue 15: --root, --layer and --solid for play, the same options as render's
    import argparse

    from tilecast.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))

    def options(name):
        return {
            o: (a.dest, a.metavar, a.help)
            for a in commands.choices[name]._actions
            for o in a.option_strings
            if o in ("--root", "--layer", "--solid")
        }

    assert set(options("play")) == {"--root", "--layer", "--solid"}
    assert options("play") == options("render")
    assert main(["play", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--layer NAME" in out and "--solid RULE" in out and "--root DIR" in out


def test_mask_picks_the_layers_that_block(tmp_path, capsys):
    path = tmp_path / "level1.map"
    # a MovingAI map: the tree (T) on its own layer when loaded with terrain_bits; the
    # command line loads it with the defaults (every non-passable letter on layer 1)
    path.write_text("type octile\nheight 3\nwidth 6\nmap\n@@@@@@\n@.T..@\n@@@@@@\n")
    assert main(["cast", str(path), "--from", "1.5,1.5", "--angle", "0"]) == 0
    assert "cell (2, 1)" in capsys.readouterr().out
    assert main(["cast", str(path), "--from", "1.5,1.5", "--angle", "0", "--mask", "0x2"]) == 0
    # the map's cells are all on layer 1: the ray passes them and stops beyond the map
    # (a MovingAI map's outside is solid, for every mask)
    assert "cell (6, 1)" in capsys.readouterr().out
    for mask, expected in (("1", "0.5"), ("2", "4.5")):
        assert main(["scan", str(path), "--pose", "1.5,1.5,0", "--beams", "1", "--mask", mask]) == 0
        assert capsys.readouterr().out.strip().splitlines()[-1].endswith(expected)
    for bad in ("-1", "0x100000000", "walls"):
        assert main(["cast", str(path), "--from", "1.5,1.5", "--angle", "0", "--mask", bad]) == 2
        assert "layer mask" in capsys.readouterr().err
