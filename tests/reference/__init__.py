"""Independent oracles the product is checked against, written another way than it.

Plain Python over :class:`fractions.Fraction` or straight from the
definitions (the book's formulas, brute force), importing nothing from
tilecast but public types:

- ``oracle``: the grid walk from sorted grid-line crossings (traverse,
  raycast, raycast_all, line of sight);
- ``fov``, ``lines``, ``geometry``, ``visibility``, ``sensor``: one module
  per family.

White-box comparisons of product code with product code (the compiled walk
with the exact far-range walk) live in ``tests/internal``.
"""
