import numpy as np
import pytest

from tilecast import Grid
from tilecast.data import example_map, example_path
from tilecast.io import MapLoadError, load_ascii, load_map


def test_text_path_and_lines_agree(tmp_path):
    text = "#####\n#..##\n#...#\n#####\n"
    path = tmp_path / "room.txt"
    path.write_text(text)
    from_text = load_ascii(text)
    from_path = load_ascii(path)
    from_str_path = load_ascii(str(path))
    from_lines = load_ascii(text.splitlines())
    expected = np.array([[c == "#" for c in row] for row in text.split()])
    for grid in (from_text, from_path, from_str_path, from_lines):
        assert isinstance(grid, Grid)
        np.testing.assert_array_equal(grid.solid, expected)
    assert from_path.is_solid((3, 1)) and not from_path.is_solid((3, 2))


def test_options_pass_through():
    grid = load_ascii("#.\n..\n", tile_size=(2.0, 0.5), origin=(1, -1), outside="solid")
    assert grid.tile_size == (2.0, 0.5)
    assert grid.origin == (1.0, -1.0)
    assert grid.outside == "solid"


def test_custom_and_multiple_characters():
    grid = load_ascii(["XX+", "o@ ", "   "], wall="X+", floor="o@ ")
    np.testing.assert_array_equal(grid.solid, [[1, 1, 1], [0, 0, 0], [0, 0, 0]])


def test_crlf_and_trailing_blank_lines(tmp_path):
    path = tmp_path / "crlf.map"
    path.write_bytes(b"#.#\r\n...\r\n\r\n\r\n")
    grid = load_ascii(path)
    assert grid.shape == (2, 3)
    np.testing.assert_array_equal(grid.solid, [[1, 0, 1], [0, 0, 0]])


def test_unknown_character_names_file_line_column(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("###\n#.#\n#.x\n")
    with pytest.raises(MapLoadError) as info:
        load_ascii(path)
    message = str(info.value)
    assert str(path) in message
    assert "line 3, column 3" in message
    assert "'x'" in message


def test_ragged_lines_are_an_error(tmp_path):
    path = tmp_path / "ragged.txt"
    path.write_text("###\n#.\n###\n")
    with pytest.raises(MapLoadError, match=r"ragged.txt: line 2 has 2 characters, expected 3"):
        load_ascii(path)


def test_empty_and_missing_files(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    with pytest.raises(MapLoadError, match="empty"):
        load_ascii(empty)
    with pytest.raises(MapLoadError, match=r"nothing\.txt: cannot read"):
        load_ascii(tmp_path / "nothing.txt")
    with pytest.raises(MapLoadError, match="not UTF-8"):
        (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00#")
        load_ascii(tmp_path / "bin.txt")


def test_map_load_error_is_a_value_error():
    assert issubclass(MapLoadError, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"wall": ""}, ValueError),
        ({"floor": 3}, TypeError),
        ({"wall": "#.", "floor": "."}, ValueError),
        ({"wall": "#\n"}, ValueError),
        ({"outside": "maybe"}, ValueError),
        ({"tile_size": 0}, ValueError),
    ],
)
def test_bad_options(kwargs, error):
    with pytest.raises(error):
        load_ascii("#.\n..\n", **kwargs)


def test_bad_source_type():
    with pytest.raises(TypeError, match="source"):
        load_ascii(42)
    with pytest.raises(TypeError, match="source"):
        load_ascii([b"#."])


def test_bundled_map():
    grid = example_map()
    assert grid.shape == (32, 48)
    assert grid.solid[0].all() and grid.solid[-1].all()
    assert grid.solid[:, 0].all() and grid.solid[:, -1].all()
    # diagonal walls: two solid blocks touching only at a corner, both shoulders free
    s = grid.solid
    diagonal = s[:-1, :-1] & s[1:, 1:] & ~s[:-1, 1:] & ~s[1:, :-1]
    assert diagonal.sum() >= 10
    assert load_map(example_path()).shape == (32, 48)


def test_load_map_rejects_unknown_suffix(tmp_path):
    with pytest.raises(MapLoadError, match=r"unknown map format '\.xyz'"):
        load_map(tmp_path / "level.xyz")
