"""Draw docs/images/visibility.png: a tile map lit by visibility_polygon.

Run: PYTHONPATH=src python docs/make_visibility_picture.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

import tilecast as tc

SCALE = 16


def main() -> None:
    """Render the picture."""
    rng = np.random.default_rng(4)
    solid = rng.random((24, 40)) < 0.18
    solid[10:14, 18:22] = False
    grid = tc.Grid(solid, outside="solid")
    observer = (20.0, 12.0)
    walls = tc.wall_segments(grid)
    lit = tc.visibility_polygon(walls, observer)
    torch = tc.visibility_polygon(walls, observer, radius=9.0, cone=((1.0, -0.4), 0.5))
    image = Image.new("RGB", (40 * SCALE, 24 * SCALE), (40, 40, 48))
    draw = ImageDraw.Draw(image)
    draw.polygon([tuple(v) for v in lit * SCALE], fill=(120, 120, 90))
    draw.polygon([tuple(v) for v in torch * SCALE], fill=(250, 230, 140))
    for row, col in np.argwhere(solid):
        box = [col * SCALE, row * SCALE, (col + 1) * SCALE - 1, (row + 1) * SCALE - 1]
        draw.rectangle(box, fill=(90, 60, 50))
    for (x0, y0), (x1, y1) in walls * SCALE:
        draw.line([(x0, y0), (x1, y1)], fill=(230, 90, 60), width=2)
    ox, oy = observer[0] * SCALE, observer[1] * SCALE
    draw.ellipse([ox - 4, oy - 4, ox + 4, oy + 4], fill=(255, 255, 255))
    out = Path(__file__).parent / "images" / "visibility.png"
    image.convert("P", palette=Image.Palette.ADAPTIVE, colors=16).save(out, optimize=True)
    print(out, out.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
