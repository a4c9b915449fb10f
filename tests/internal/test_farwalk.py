"""The exact far-range walk (tilecast._farwalk) on its own: how it walks, not what it answers.

What it answers is compared with the compiled walk in ``test_walk.py``.
"""

import importlib

import numpy as np

from farwalk import raycast_far
from tilecast import TileMap, TileSet
from tilecast._farwalk import TileWalker

farwalk_module = importlib.import_module("tilecast._farwalk")


class _CountingWalker(TileWalker):
    __slots__ = ()
    steps = 0

    def step_x(self):
        type(self).steps += 1
        super().step_x()

    def step_y(self):
        type(self).steps += 1
        super().step_y()


def test_the_far_walk_jumps_empty_tiles(monkeypatch):
    # 400 tiles of 64 x 64 empty pixels, then one tile with a single solid pixel
    mask = np.zeros((2, 64, 64), dtype=bool)
    mask[1, 40, 63] = True
    ids = np.zeros((1, 401), dtype=np.int64)
    ids[0, 400] = 1
    tmap = TileMap(ids, TileSet(mask), flips=np.where(ids == 1, 1, 0))  # mirrored: px = 0
    monkeypatch.setattr(farwalk_module, "TileWalker", _CountingWalker)
    _CountingWalker.steps = 0
    hit = raycast_far(tmap, (0.5, 40.5), (1.0, 0.0))
    assert hit.cell == (400, 0) and hit.pixel == (0, 40) and hit.point == (400 * 64.0, 40.5)
    assert _CountingWalker.steps <= 2 * 401  # one or two steps per tile, not 25600 pixels
    _CountingWalker.steps = 0
    # slanted: crosses 64 tiles (4096 pixel columns, 63 pixel rows), leaves through the bottom
    assert raycast_far(tmap, (0.5, 0.5), (64.0, 1.0)) is None
    assert _CountingWalker.steps <= 2 * 64
