"""MovingAI ``.map`` files from Nathan Sturtevant's HOG2 (MIT), checked against a plain reading.

Where the files come from and their licence: ``tests/data/SOURCES.md``. The
expected grids are read here with a few lines of plain Python (header, then
one character per cell; ``.``, ``G``, ``S`` passable), and the terrain counts
were read off the files once and are kept as a fixed second check.
"""

from pathlib import Path

import pytest

from tilecast import raycast
from tilecast.io import MapLoadError, load_map, load_movingai

MOVINGAI = Path(__file__).parent / "data" / "movingai"

# file: (height, width, {character: count}) counted from the raw file
FACTS = {
    "random-32-32-10.map": (32, 32, {".": 922, "@": 102}),
    "maze-32-32-2.map": (32, 32, {".": 666, "@": 358}),
    "room-32-32-4.map": (32, 32, {".": 682, "@": 342}),
    "level1.map": (11, 11, {".": 10, "@": 107, "G": 1, "S": 2, "T": 1}),
}


def read_plain(path):
    """(height, width, rows) of a MovingAI map: the header's four lines, then the rows."""
    lines = path.read_text().split("\n")
    assert lines[0] == "type octile" and lines[3] == "map"
    height = int(lines[1].split()[1])
    width = int(lines[2].split()[1])
    rows = lines[4 : 4 + height]
    assert all(line == "" for line in lines[4 + height :])
    return height, width, rows


@pytest.mark.parametrize("name", sorted(FACTS))
def test_real_maps_match_a_plain_reading(name):
    height, width, counts = FACTS[name]
    h, w, rows = read_plain(MOVINGAI / name)
    assert (h, w) == (height, width)
    assert all(len(row) == width for row in rows)
    found = {}
    for row in rows:
        for ch in row:
            found[ch] = found.get(ch, 0) + 1
    assert found == counts
    expected = [[ch not in ".GS" for ch in row] for row in rows]
    grid = load_movingai(MOVINGAI / name)
    assert grid.shape == (height, width)
    assert grid.tile_size == (1.0, 1.0) and grid.origin == (0.0, 0.0)
    assert grid.outside == "solid"
    assert grid.solid.tolist() == expected
    assert load_map(MOVINGAI / name).solid.tolist() == expected  # detected by suffix and header


def test_terrain_classes_and_a_ray_on_level1():
    _, _, rows = read_plain(MOVINGAI / "level1.map")
    assert rows[6] == "@.T......SS" and rows[4] == "@G.@@@@@@@@"
    grid = load_movingai(MOVINGAI / "level1.map")
    assert not grid.is_solid((1, 4))  # G: passable ground
    assert not grid.is_solid((9, 6)) and not grid.is_solid((10, 6))  # S: swamp, passable
    assert grid.is_solid((2, 6))  # T: trees
    hit = raycast(grid, (1.5, 6.5), (1.0, 0.0))
    assert hit.cell == (2, 6) and hit.point == (2.0, 6.5)
    # trees passable: the ray runs along the corridor, through the swamp, to the border
    open_grid = load_movingai(MOVINGAI / "level1.map", passable=".GST")
    hit = raycast(open_grid, (1.5, 6.5), (1.0, 0.0))
    assert hit.cell == (11, 6) and hit.point == (11.0, 6.5)


def test_root_and_a_cut_file(tmp_path):
    assert load_movingai(MOVINGAI / "maze-32-32-2.map", root=MOVINGAI).shape == (32, 32)
    with pytest.raises(MapLoadError, match="outside the root folder"):
        load_movingai(MOVINGAI / "maze-32-32-2.map", root=tmp_path)
    lines = (MOVINGAI / "maze-32-32-2.map").read_text().splitlines()
    (tmp_path / "cut.map").write_text("\n".join(lines[:20]) + "\n")
    with pytest.raises(MapLoadError, match="header says 32 rows, the map has 16"):
        load_movingai(tmp_path / "cut.map")
