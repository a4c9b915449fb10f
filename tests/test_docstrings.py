"""Every public function and class has a numpy-style docstring with a runnable example.

pytest collects the examples as doctests (``--doctest-modules`` on ``src/``); this
test makes sure none is missing: each public name (``tilecast.__all__``, the public
names of ``tilecast.io``, ``tilecast.render`` and ``tilecast.play``, and
``tilecast.cli.main``), and each public method of a public class, has an
``Examples`` section with at least one ``>>>`` line that the doctest finder of its
defining module picks up.
"""

import doctest
import importlib
import inspect
import re

import pytest

import tilecast

MODULES = ("tilecast", "tilecast.io", "tilecast.render", "tilecast.play")
EXAMPLES = re.compile(r"^\s*Examples\n\s*-{8,}\n", re.MULTILINE)


def _public_objects():
    seen = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                seen.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    main = importlib.import_module("tilecast.cli").main
    seen.setdefault(f"{main.__module__}.{main.__qualname__}", main)
    for qualified, obj in list(seen.items()):
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if inspect.isfunction(member):
                    seen.setdefault(f"{qualified}.{attr}", member)
    return seen


PUBLIC = _public_objects()


def test_the_walk_finds_the_api():
    for name in ("raycast", "raycast_many", "fov", "visibility_polygon", "Grid", "TileMap"):
        assert f"{getattr(tilecast, name).__module__}.{name}" in PUBLIC
    assert "tilecast.cli.main" in PUBLIC
    assert "tilecast.world.World.cell_at" in PUBLIC  # methods are walked too
    assert "tilecast.grid.Grid.set_solid" in PUBLIC
    assert any(k.endswith(".load_map") for k in PUBLIC)  # tilecast.io is walked


@pytest.mark.parametrize("qualified", sorted(PUBLIC))
def test_docstring_has_a_runnable_example(qualified):
    obj = PUBLIC[qualified]
    doc = inspect.getdoc(obj) or ""
    assert doc, f"{qualified} has no docstring"
    assert EXAMPLES.search(doc), f"{qualified}: no numpy-style 'Examples' section"
    assert ">>>" in doc.split("Examples", 1)[1], f"{qualified}: its Examples section has no >>>"
    module = importlib.import_module(obj.__module__)
    found = {
        test.name: test
        for test in doctest.DocTestFinder().find(module, module.__name__)
        if test.examples
    }
    assert qualified in found, f"{qualified}: the doctest finder does not collect its example"
