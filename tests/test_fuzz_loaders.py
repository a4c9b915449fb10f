"""Maps from strangers are hostile input: fuzz every loader with mutated files.

Small valid maps of each format are mutated at random with a fixed seed (byte
flips, truncation, deleted or duplicated lines, numbers replaced by huge,
negative or NaN values, JSON values of the wrong type, deep nesting, entity
and alias bombs). Each case may only end in a loaded ``Grid``/``TileMap`` or in
a ``MapLoadError`` (or ``ValueError``/``TypeError``) whose message names the
file and stays short; never ``KeyError``, ``IndexError``, ``MemoryError``,
``RecursionError`` and the like, and never slowly.

``TILECAST_FUZZ_CASES`` sets the number of cases per format (default 600).
Run this file as a script to print the outcomes per format and exception kind.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tilecast import Grid, TileMap
from tilecast.io import MapLoadError

CASES = int(os.environ.get("TILECAST_FUZZ_CASES", "600"))
SEED = 1516
#: A case taking longer than this is a failure (real cases take milliseconds).
SLOW_SECONDS = 5.0
#: An error message longer than this quotes too much of the file.
LONG_MESSAGE = 1000

NUMBERS = [
    b"0",
    b"-1",
    b"-99999",
    b"99999999999",
    b"4294967295",
    b"4294967296",
    b"2147483648",
    b"100000000",
    b"8000000",
    b"1e308",
    b"-1e308",
    b"nan",
    b"NaN",
    b"inf",
    b"-inf",
    b"1.5",
    b"65536",
    b"1" + b"0" * 40,
]
JSON_VALUES: list[Any] = [
    {},
    [],
    "x",
    "",
    0,
    -1,
    1.5,
    10**30,
    1e308,
    None,
    True,
    [1],
    {"a": 1},
    "../../../etc/passwd",
    8000000,
    100000000,
]
DEEP = 100_000


# ------------------------------------------------------------------ seeds
def _png(path: Path, pixels: np.ndarray, mode: str | None = None) -> None:
    from PIL import Image

    Image.fromarray(pixels, mode).save(path)


TSX = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<tileset version="1.10" name="blocks" tilewidth="4" tileheight="4" tilecount="4" '
    'columns="2" margin="0" spacing="0">\n'
    ' <image source="blocks.png" width="8" height="8"/>\n'
    ' <tile id="1"><properties><property name="solid" type="bool" value="true"/>'
    "</properties></tile>\n"
    ' <tile id="2"><objectgroup><object id="1" x="0" y="0" width="2" height="4"/>\n'
    '  <object id="2" x="1" y="1"><polygon points="0,0 2,0 2,2"/></object>\n'
    '  <object id="3" x="0" y="0" width="3" height="3"><ellipse/></object>\n'
    " </objectgroup></tile>\n"
    "</tileset>\n"
)
INLINE_TILESET = (
    ' <tileset firstgid="1" name="inline" tilewidth="4" tileheight="4" tilecount="3" '
    'columns="3">\n'
    '  <tile id="1"><properties><property name="solid" type="bool" value="true"/>'
    "</properties></tile>\n"
    '  <tile id="2"><objectgroup><object id="1" x="0" y="0" width="2" height="4"/>'
    "</objectgroup></tile>\n"
    " </tileset>\n"
)


def _tmx(tileset: str, data: str, encoding: str, compression: str = "") -> str:
    comp = f' compression="{compression}"' if compression else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<map version="1.10" orientation="orthogonal" renderorder="right-down" width="4" '
        'height="3" tilewidth="4" tileheight="4" infinite="0">\n'
        f"{tileset}"
        ' <layer id="1" name="ground" width="4" height="3">\n'
        f'  <data encoding="{encoding}"{comp}>\n{data}\n  </data>\n'
        " </layer>\n"
        ' <group id="3" name="g">\n'
        '  <layer id="2" name="walls" width="4" height="3">\n'
        '   <data encoding="csv">\n0,2,0,2,\n2,0,3,0,\n0,0,2,2147483651\n</data>\n'
        "  </layer>\n"
        " </group>\n"
        ' <objectgroup id="4" name="things"><object id="9" x="3" y="4" width="5" height="6"/>'
        "</objectgroup>\n"
        "</map>\n"
    )


def _tmj() -> dict[str, Any]:
    return {
        "type": "map",
        "orientation": "orthogonal",
        "width": 4,
        "height": 3,
        "tilewidth": 4,
        "tileheight": 4,
        "infinite": False,
        "tilesets": [
            {
                "firstgid": 1,
                "name": "inline",
                "tilewidth": 4,
                "tileheight": 4,
                "tilecount": 3,
                "columns": 3,
                "tiles": [
                    {"id": 1, "properties": [{"name": "solid", "type": "bool", "value": True}]},
                    {
                        "id": 2,
                        "objectgroup": {
                            "objects": [
                                {"x": 0, "y": 0, "width": 2, "height": 4},
                                {"x": 1, "y": 1, "polygon": [{"x": 0, "y": 0}, {"x": 2, "y": 0},
                                                             {"x": 2, "y": 2}]},
                            ]
                        },
                    },
                ],
            }
        ],
        "layers": [
            {"type": "tilelayer", "name": "ground", "width": 4, "height": 3,
             "data": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]},
            {
                "type": "group",
                "name": "g",
                "layers": [
                    {"type": "tilelayer", "name": "walls", "width": 4, "height": 3,
                     "data": [0, 2, 0, 3, 2, 0, 0, 0, 0, 3, 2, 2147483650]},
                ],
            },
            {"type": "objectgroup", "name": "things", "objects": [{"x": 1, "y": 2}]},
        ],
    }  # fmt: skip


def _ldtk() -> dict[str, Any]:
    intgrid = {
        "__identifier": "Collisions",
        "__type": "IntGrid",
        "__cWid": 4,
        "__cHei": 2,
        "__gridSize": 4,
        "intGridCsv": [1, 0, 0, 2, 0, 3, 0, 1],
    }
    tiles = {
        "__identifier": "Decor",
        "__type": "Tiles",
        "__cWid": 4,
        "__cHei": 2,
        "__gridSize": 4,
        "__tilesetDefUid": 7,
        "gridTiles": [
            {"px": [0, 0], "src": [0, 0], "f": 0, "t": 0},
            {"px": [4, 0], "src": [0, 0], "f": 1, "t": 1},
            {"px": [12, 4], "src": [4, 0], "f": 3, "t": 2},
        ],
    }
    tileset = {
        "uid": 7,
        "identifier": "Blocks",
        "relPath": "blocks.png",
        "tileGridSize": 4,
        "__cWid": 2,
        "__cHei": 2,
        "spacing": 0,
        "padding": 0,
        "enumTags": [{"enumValueId": "Solid", "tileIds": [1, 2]}],
    }
    level = {
        "identifier": "Level_0",
        "pxWid": 16,
        "pxHei": 8,
        "layerInstances": [tiles, intgrid],
    }
    return {"jsonVersion": "1.5.3", "defs": {"tilesets": [tileset]}, "levels": [level]}


class Hang(Exception):
    """A case ran past the alarm (see :func:`run_format`)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang(f"still running after {SLOW_SECONDS * 2:.0f} s")


class Format:
    """One fuzzed format: the file that is mutated, how it is mutated, how it is loaded."""

    def __init__(self, name: str, target: str, kind: str, load: Callable[[Path, int], Any]) -> None:
        self.name, self.target, self.kind, self.load = name, target, kind, load


def make_seeds(folder: Path) -> list[Format]:
    """Write the valid seed maps into ``folder``; return the formats to fuzz."""
    from tilecast.io import load_ascii, load_image, load_ldtk, load_ros_map, load_tiled

    blocks = np.zeros((8, 8, 4), dtype=np.uint8)
    blocks[:, :2, 3] = 255
    blocks[4:, :, 3] = 255
    _png(folder / "blocks.png", blocks, "RGBA")
    (folder / "room.txt").write_text("######\n#....#\n#.##.#\n######\n")
    (folder / "room.map").write_text(
        "type octile\nheight 4\nwidth 6\nmap\n@@@@@@\n@..G.@\n@.TT.@\n@@@@@@\n"
    )
    gray = np.full((5, 7), 254, dtype=np.uint8)
    gray[0, :] = 0
    gray[2, 3] = 205
    _png(folder / "picture.png", gray)
    from PIL import Image

    Image.fromarray(gray).save(folder / "ros.pgm")
    (folder / "ros.yaml").write_text(
        "image: ros.pgm\nresolution: 0.05\norigin: [-1.0, -2.5, 0.0]\nnegate: 0\n"
        "occupied_thresh: 0.65\nfree_thresh: 0.196\nmode: trinary\n"
    )
    (folder / "blocks.tsx").write_text(TSX)
    csv = "1,1,1,1,\n1,2,2,1,\n1,1,1,3"
    (folder / "csv.tmx").write_text(_tmx(INLINE_TILESET, csv, "csv"))
    import base64
    import struct
    import zlib

    raw = struct.pack("<12I", 1, 2, 0, 3, 0x80000002, 0, 3, 1, 0, 4, 2, 0x20000003)
    b64 = base64.b64encode(zlib.compress(raw)).decode()
    external = ' <tileset firstgid="1" source="blocks.tsx"/>\n'
    (folder / "zlib.tmx").write_text(_tmx(external, b64, "base64", "zlib"))
    (folder / "map.tmj").write_text(json.dumps(_tmj(), indent=1))
    (folder / "game.ldtk").write_text(json.dumps(_ldtk(), indent=1))

    def tiled(path: Path, k: int) -> Any:
        if k % 3 == 0:
            return load_tiled(path, result="tilemap", layer="walls")
        if k % 3 == 1:
            return load_tiled(path)
        return load_tiled(path, layer=["ground", "walls"], solid="collision")

    def tiled_alpha(path: Path, k: int) -> Any:
        return load_tiled(folder / "zlib.tmx", solid="alpha" if k % 2 else "auto", result="tilemap")

    def ldtk(path: Path, k: int) -> Any:
        if k % 3 == 0:
            return load_ldtk(path)
        if k % 3 == 1:
            return load_ldtk(path, layer="Decor", solid_tag="Solid")
        return load_ldtk(path, 0, "Decor")

    formats = [
        Format("ascii", "room.txt", "text", lambda p, k: load_ascii(p)),
        Format("png", "picture.png", "binary", lambda p, k: load_image(p)),
        Format("ros_yaml", "ros.yaml", "yaml", lambda p, k: load_ros_map(p)),
        Format("ros_pgm", "ros.pgm", "binary", lambda p, k: load_ros_map(folder / "ros.yaml")),
        Format("tmx_csv", "csv.tmx", "xml", tiled),
        Format("tmx_zlib", "zlib.tmx", "xml", tiled),
        Format("tsx", "blocks.tsx", "xml", tiled_alpha),
        Format("tileset_png", "blocks.png", "binary", tiled_alpha),
        Format("tmj", "map.tmj", "json", tiled),
        Format("ldtk", "game.ldtk", "json", ldtk),
    ]
    try:
        from tilecast.io import load_movingai
    except ImportError:  # pragma: no cover - before the loader existed
        pass
    else:
        formats.insert(1, Format("movingai", "room.map", "text", lambda p, k: load_movingai(p)))
    return formats


# -------------------------------------------------------------- mutations
def _lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    action = rng.randrange(3)
    if action == 0:
        del lines[k]
    elif action == 1:
        lines.insert(k, lines[k] * rng.choice([1, 2, 50]))
    else:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    return b"\n".join(lines)


def _number(data: bytes, rng: random.Random) -> bytes:
    spans = [m.span() for m in re.finditer(rb"-?\d+(?:\.\d+)?", data)]
    if not spans:
        return data
    a, b = rng.choice(spans)
    return data[:a] + rng.choice(NUMBERS) + data[b:]


def _bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice([1, 1, 2, 4, 16])):
        k = rng.randrange(len(out))
        out[k] ^= 1 << rng.randrange(8)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))]


def _insert(data: bytes, rng: random.Random) -> bytes:
    k = rng.randrange(len(data) + 1)
    junk = rng.choice([b"\x00", b"\xff\xfe", b"<", b'"', b"{", b"[", b"]", b",", b"\n", b"&x;"])
    return data[:k] + junk * rng.choice([1, 3]) + data[k:]


def _deep(data: bytes, rng: random.Random, kind: str) -> bytes:
    k = rng.randrange(len(data) + 1)
    if kind == "xml":
        nest = b"<a>" * DEEP + b"</a>" * DEEP
    elif kind == "json":
        nest = b"[" * DEEP + b"]" * DEEP
    else:
        nest = b"[" * (DEEP // 10) + b"]" * (DEEP // 10)
    return data[:k] + nest + data[k:]


def _bomb(data: bytes, rng: random.Random, kind: str) -> bytes:
    if kind == "xml":
        entities = b'<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">'
        previous = b"a"
        for k in range(1, 10):
            name = b"a" + str(k).encode()
            entities += b"<!ENTITY " + name + b' "' + (b"&" + previous + b";") * 10 + b'">'
            previous = name
        body = data.split(b"?>", 1)[-1]
        root = b"map" if b"<map" in body else b"tileset"
        doctype = b"<!DOCTYPE " + root + b" [" + entities + b"]>"
        return doctype + body.replace(b'name="', b'name="&' + previous + b";", 1)
    if kind == "yaml":
        lines = [b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for k in range(1, 12):
            refs = b", ".join([b"*a" + str(k - 1).encode()] * 10)
            lines.append(b"a" + str(k).encode() + b": &a" + str(k).encode() + b" [" + refs + b"]")
        target = rng.choice([b"origin", b"image", b"resolution", b"negate", b"mode"])
        text = re.sub(rb"(?m)^" + target + rb":.*$", target + b": *a11", data)
        return b"\n".join(lines) + b"\n" + text
    return _deep(data, rng, kind)


def _json_paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            paths += _json_paths(value, (*path, key))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            paths += _json_paths(value, (*path, k))
    return paths


def _json_structure(data: bytes, rng: random.Random) -> bytes:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return _number(data, rng)
    paths = _json_paths(doc)[1:]
    path = rng.choice(paths)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    old = parent[path[-1]]
    action = rng.randrange(5)
    if action == 0:
        new: Any = rng.choice(JSON_VALUES)
    elif action == 1:  # list <-> dict <-> string <-> number
        if isinstance(old, list):
            new = {str(k): v for k, v in enumerate(old)}
        elif isinstance(old, dict):
            new = list(old.values()) if rng.random() < 0.5 else json.dumps(old)
        elif isinstance(old, str):
            new = rng.choice([[old], {old: old}, len(old)])
        else:
            new = rng.choice([str(old), [old], {"v": old}])
    elif action == 2:
        new = [old] if rng.random() < 0.5 else {"x": old}
    elif action == 3 and isinstance(parent, dict):
        del parent[path[-1]]
        return json.dumps(doc).encode()
    else:
        new = old
        if isinstance(parent, list):
            parent.insert(path[-1], old)
            return json.dumps(doc).encode()
    parent[path[-1]] = new
    return json.dumps(doc).encode()


def mutate(data: bytes, kind: str, rng: random.Random) -> bytes:
    """Return one random mutation of ``data`` (a file of the given ``kind``)."""
    if not data:
        return data
    choices: list[Callable[[], bytes]] = [
        lambda: _bytes(data, rng),
        lambda: _truncate(data, rng),
    ]
    if kind != "binary":
        choices += [
            lambda: _lines(data, rng),
            lambda: _number(data, rng),
            lambda: _number(data, rng),
            lambda: _insert(data, rng),
        ]
    if kind in ("json", "xml", "yaml"):
        choices += [lambda: _deep(data, rng, kind)]
        if rng.random() < 0.3:
            choices += [lambda: _bomb(data, rng, kind)]
    if kind == "json":
        choices += [lambda: _json_structure(data, rng)] * 6
    result = rng.choice(choices)()
    if rng.random() < 0.15:  # two mutations at once
        result = mutate(result, kind, rng) if result else result
    return result


# -------------------------------------------------------------- the runs
def run_format(
    fmt: Format, folder: Path, cases: int, seed: int = SEED
) -> tuple[Counter[str], list[str]]:
    """Fuzz one format; return the outcomes by kind and the descriptions of failures."""
    target = folder / fmt.target
    original = target.read_bytes()
    names = {p.name for p in folder.iterdir()}
    rng = random.Random(f"{seed}-{fmt.name}")
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    import signal

    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for case in range(cases):
            data = mutate(original, fmt.kind, rng)
            target.write_bytes(data)
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, SLOW_SECONDS * 2)
            try:
                result = fmt.load(target, case)
            except (MapLoadError, ValueError, TypeError) as exc:
                kind = type(exc).__name__
                message = str(exc)
                if not any(name in message for name in names):
                    failures.append(f"{fmt.name} case {case}: {kind} not naming the file: {exc}")
                    kind += " (no file named)"
                elif len(message) > LONG_MESSAGE:
                    failures.append(f"{fmt.name} case {case}: {len(message)}-character message")
                    kind += " (long message)"
            except (Exception, RecursionError, MemoryError) as exc:
                kind = type(exc).__name__
                failures.append(f"{fmt.name} case {case}: {kind}: {str(exc)[:200]}")
            else:
                kind = "loaded"
                if not isinstance(result, Grid | TileMap):
                    kind = f"returned {type(result).__name__}"
                    failures.append(f"{fmt.name} case {case}: returned {result!r:.100}")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            took = time.perf_counter() - start
            if took > SLOW_SECONDS:
                failures.append(f"{fmt.name} case {case}: took {took:.1f} s")
                kind += " (slow)"
            outcomes[kind] += 1
    finally:
        signal.signal(signal.SIGALRM, previous)
        target.write_bytes(original)
    return outcomes, failures


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Format]]:
    pytest.importorskip("PIL")
    pytest.importorskip("yaml")
    folder = tmp_path_factory.mktemp("fuzz")
    return folder, {fmt.name: fmt for fmt in make_seeds(folder)}


FORMATS = [
    "ascii",
    "movingai",
    "png",
    "ros_yaml",
    "ros_pgm",
    "tmx_csv",
    "tmx_zlib",
    "tsx",
    "tileset_png",
    "tmj",
    "ldtk",
]


def test_seeds_load(seeds: tuple[Path, dict[str, Format]]) -> None:
    folder, formats = seeds
    for fmt in formats.values():
        for case in range(3):
            assert isinstance(fmt.load(folder / fmt.target, case), Grid | TileMap), fmt.name


@pytest.mark.parametrize("name", FORMATS)
def test_fuzz_loader(seeds: tuple[Path, dict[str, Format]], name: str) -> None:
    folder, formats = seeds
    if name not in formats:
        pytest.skip(f"no loader for {name}")
    outcomes, failures = run_format(formats[name], folder, CASES)
    assert not failures, "\n".join(failures[:20])
    assert sum(outcomes.values()) == CASES


def main() -> None:  # pragma: no cover - a report for humans
    import sys
    import tempfile

    cases = int(sys.argv[1]) if len(sys.argv) > 1 else CASES
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for fmt in make_seeds(folder):
            start = time.perf_counter()
            outcomes, failures = run_format(fmt, folder, cases)
            took = time.perf_counter() - start
            summary = ", ".join(f"{k}: {v}" for k, v in outcomes.most_common())
            print(f"{fmt.name:12s} {cases} cases in {took:5.1f} s: {summary}", flush=True)
            for line in failures[:3]:
                print("    " + line[:300], flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
