"""The ``tilecast`` command: demos, single casts, lidar scans, fields of view, pictures.

Run ``tilecast --help`` or ``tilecast COMMAND --help``. Exit status: 0 on
success, 2 for bad input (bad arguments, or a map file that cannot be read or
breaks a limit), 1 when the command fails otherwise (a viewer inside a wall,
a failed benchmark); errors print one line ``tilecast CMD: error: ...``,
never a traceback. Option values may be negative numbers
(``--pose -0.375,1,0``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from tilecast.grid import Grid
    from tilecast.render import Picture
    from tilecast.tiles import TileMap

__all__ = ["main"]

#: Where ``tilecast demo`` puts its viewer on the bundled map (a central hall).
DEMO_VIEWER = (21.5, 14.5)
#: The most rays or beams one command casts (a bigger count is a typo, not a scan).
MAX_RAYS = 10_000_000
#: The most pixels a picture may have.
MAX_PICTURE_PIXELS = 1 << 28
#: An argument that is a negative number (or starts like one), not an option.
NEGATIVE = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)


class UserError(Exception):
    """A problem the user can fix; printed as one line, exit status 1."""


class BadInput(UserError):
    """An option value or a map file that cannot be used; printed as one line, exit status 2."""


# ----------------------------------------------------------------- parsing
def _numbers(text: str, count: int, what: str) -> tuple[float, ...]:
    parts = text.replace(" ", "").split(",")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return values


def _point(text: str) -> tuple[float, float]:
    x, y = _numbers(text, 2, "X,Y (two numbers)")
    return (x, y)


def _pose(text: str) -> tuple[float, float, float]:
    x, y, theta = _numbers(text, 3, "X,Y,THETA (three numbers, THETA in radians)")
    return (x, y, theta)


def _cell(text: str) -> tuple[int, int]:
    i, j = _numbers(text, 2, "I,J (two integers: column, row)")
    if i != int(i) or j != int(j):
        raise argparse.ArgumentTypeError(f"expected I,J (two integers: column, row), got {text!r}")
    return (int(i), int(j))


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _ray_count(text: str) -> int:
    value = _positive_int(text)
    if value > MAX_RAYS:
        raise argparse.ArgumentTypeError(f"at most {MAX_RAYS:,} rays, got {text!r}")
    return value


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _mask(text: str) -> int:
    try:
        mask = int(text, 0)
    except ValueError:
        mask = -1
    if not 0 <= mask < 2**32:
        raise argparse.ArgumentTypeError(
            f"expected a layer mask from 0 to 0xFFFFFFFF (decimal or 0x hex), got {text!r}"
        )
    return mask


def _solid_rule(text: str) -> str | frozenset[int]:
    choices = ("auto", "property", "collision", "alpha", "any")
    if text in choices:
        return text
    try:
        gids = frozenset(int(p) for p in text.split(",") if p.strip())
    except ValueError:
        gids = frozenset()
    if not gids or min(gids) <= 0:
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(choices)} or tile GIDs like 1,2,7, got {text!r}"
        )
    return gids


def _nonnegative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def _positive(text: str) -> float:
    value = _nonnegative(text)
    if value == 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


# ------------------------------------------------------------------ helpers
def _load(path: str, outside: str | None, args: argparse.Namespace | None = None) -> Grid | TileMap:
    """Load the map of a command with its ``--root``, ``--layer`` and ``--solid``."""
    from tilecast.io import MapLoadError, load_map
    from tilecast.io.detect import SUFFIXES

    options: dict[str, Any] = {}
    suffix = Path(path).suffix.lower()
    loader = SUFFIXES.get(suffix, ("", ""))[1]
    if args is not None:
        if getattr(args, "root", None) is not None:
            options["root"] = args.root
        if getattr(args, "layer", None):
            if loader not in ("load_tiled", "load_ldtk"):
                raise BadInput(f"--layer: only Tiled and LDtk maps have layers, not {path}")
            layers = args.layer
            options["layer"] = layers[0] if len(layers) == 1 or loader == "load_ldtk" else layers
        if getattr(args, "solid", None) is not None:
            if loader != "load_tiled":
                raise BadInput(f"--solid: only for Tiled maps (.tmx/.tmj/.json), not {path}")
            options["solid"] = args.solid
    try:
        world = load_map(path, **options)
    except MapLoadError as exc:
        raise BadInput(str(exc)) from None
    except ImportError as exc:
        raise UserError(str(exc)) from None
    if outside is not None and outside != getattr(world, "outside", outside):
        from tilecast.grid import Grid

        if isinstance(world, Grid):
            world = Grid(world.layers, world.tile_size, world.origin, outside=outside)
    mask = getattr(args, "mask", None) if args is not None else None
    if mask is not None:
        world = world.masked(mask)  # type: ignore[assignment]
    return world


def _as_grid(world: Grid | TileMap) -> Grid:
    from tilecast.grid import Grid

    if isinstance(world, Grid):
        return world
    return world.to_grid()


def _picture(world: Grid | TileMap, scale: float | None, y_up: bool = False) -> Picture:
    from tilecast.render import Picture

    shape = world.to_pixel_grid().shape if hasattr(world, "to_pixel_grid") else world.shape
    if scale is None:  # aim for a picture about 800 pixels across, 1..16 per cell
        scale = min(16.0, max(1.0, 800.0 / max(shape)))
    pixels = (shape[0] * scale) * (shape[1] * scale)
    if pixels > MAX_PICTURE_PIXELS:
        raise BadInput(
            f"--scale {scale:g}: the picture would have {pixels:.3g} pixels "
            f"(at most {MAX_PICTURE_PIXELS:,}); use a smaller scale"
        )
    return Picture(world, scale, y_up=y_up)


def _y_up(path: str) -> bool:
    """ROS maps are y-up: draw them with north at the top."""
    return Path(path).suffix.lower() in (".yaml", ".yml")


def _have_pillow() -> bool:
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


def cast_fan(
    world: Any, origin: tuple[float, float], angles: NDArray[np.float64], max_distance: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Cast one ray per angle from ``origin``; return ``(distance, point)`` arrays.

    One :func:`tilecast.raycast_many` call. Misses have distance ``inf`` and
    point NaN.
    """
    from tilecast.batch import raycast_many

    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    hits = raycast_many(world, np.asarray(origin, dtype=np.float64), directions, max_distance)
    return np.asarray(hits.distance), np.asarray(hits.point)


def scan_ranges(
    world: Any, pose: tuple[float, float, float], angles: NDArray[np.float64], max_range: float
) -> NDArray[np.float64]:
    """Lidar ranges for one pose: :func:`tilecast.scan`."""
    from tilecast.batch import scan

    return np.asarray(scan(world, pose, angles, max_range), dtype=np.float64)


# ----------------------------------------------------------------- commands
def cmd_demo(args: argparse.Namespace) -> int:
    """Cast a fan of rays on the bundled map, print a summary and draw a picture."""
    from tilecast import fov, visibility_polygon, wall_segments
    from tilecast.data import example_map

    grid = example_map()
    viewer = DEMO_VIEWER if args.viewer is None else args.viewer
    if grid.is_solid(grid.cell_at(viewer)) or not grid.in_bounds(grid.cell_at(viewer)):
        raise UserError(f"--from {viewer[0]},{viewer[1]} is not on a floor cell of the demo map")
    angles = np.linspace(0.0, 2.0 * math.pi, args.rays, endpoint=False)
    start = time.perf_counter()
    cast_fan(grid, viewer, angles, math.inf)  # the first call compiles (or loads) the kernels
    first = time.perf_counter() - start
    elapsed = math.inf
    for _ in range(5):  # the fastest of five: the machine's noise only ever adds time
        start = time.perf_counter()
        distance, point = cast_fan(grid, viewer, angles, math.inf)
        elapsed = min(elapsed, time.perf_counter() - start)
    hit = np.isfinite(distance)
    seen = fov(grid, grid.cell_at(viewer), args.radius)
    rows, cols = grid.shape
    lit = visibility_polygon(
        wall_segments(grid), viewer, radius=args.radius, bounds=(0.0, 0.0, cols, rows)
    )
    x, y = lit[:, 0], lit[:, 1]
    area = 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    print(f"map: bundled dungeon.txt, {cols} x {rows} cells, viewer at {viewer[0]}, {viewer[1]}")
    print(f"rays cast: {len(angles)}, hits: {int(hit.sum())}")
    if hit.any():
        print(
            f"distance: mean {distance[hit].mean():.3f}, min {distance[hit].min():.3f}, "
            f"max {distance[hit].max():.3f} cells"
        )
    print(
        f"time: {elapsed * 1e3:.2f} ms, best of 5 ({len(angles) / max(elapsed, 1e-9):,.0f} "
        f"rays/s; the first call took {first:.2f} s: compiling or loading the kernels)"
    )
    print(f"field of view: {int(seen.sum())} cells visible")
    print(f"lit area: {len(lit)}-vertex polygon, {area:.1f} square cells")
    if not _have_pillow():
        print("picture: skipped (needs Pillow: pip install Pillow, or 'tilecast[image]')")
        return 0
    picture = _picture(grid, args.scale).fov(seen).polygon(lit)
    picture.rays(viewer, point[hit]).hits(point[hit]).points([viewer])
    picture.save(args.out)
    print(f"picture: {args.out}")
    return 0


def cmd_cast(args: argparse.Namespace) -> int:
    """Cast one ray and print its first hit."""
    import tilecast

    world = _load(args.map, args.outside, args)
    theta = math.radians(args.angle)
    direction = (math.cos(theta), math.sin(theta))
    hit = tilecast.raycast(world, args.origin, direction, args.max_distance)
    if hit is None:
        record: dict[str, Any] = {"hit": False}
    else:
        record = {
            "hit": True,
            "point": list(hit.point),
            "distance": hit.distance,
            "cell": list(hit.cell),
            "normal": list(hit.normal),
            "inside": hit.inside,
        }
        if hit.pixel is not None:
            record["pixel"] = list(hit.pixel)
    if args.format == "json":
        print(json.dumps(record))
    elif hit is None:  # record["hit"] is False
        print("miss")
    else:
        px, py = hit.point
        print(
            f"hit at ({px:.6g}, {py:.6g}), distance {hit.distance:.6g}, cell {hit.cell}, "
            f"normal {hit.normal}" + (" (started inside a wall)" if hit.inside else "")
        )
    return 0


def cmd_scan(args: argparse.Namespace) -> int:
    """Print the ranges of a lidar scan."""
    world = _load(args.map, args.outside, args)
    fov_rad = math.radians(args.fov)
    if args.beams == 1:
        angles = np.zeros(1)
    elif math.isclose(args.fov, 360.0):
        angles = np.linspace(-math.pi, math.pi, args.beams, endpoint=False)
    else:
        angles = np.linspace(-fov_rad / 2, fov_rad / 2, args.beams)
    ranges = scan_ranges(world, args.pose, angles, args.max_range)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "pose": list(args.pose),
                    "angles": angles.tolist(),
                    "ranges": ranges.tolist(),
                    "max_range": args.max_range,
                }
            )
        )
    else:
        print("angle,range")
        for a, r in zip(angles, ranges, strict=True):
            print(f"{a:.9g},{r:.9g}")
    return 0


def cmd_fov(args: argparse.Namespace) -> int:
    """Print (and optionally draw) the field of view from a cell."""
    from tilecast import fov

    world = _load(args.map, None, args)
    grid = _as_grid(world)
    if not grid.in_bounds(args.origin):
        raise UserError(f"--from {args.origin[0]},{args.origin[1]} is outside the map {grid.shape}")
    seen = fov(grid, args.origin, args.radius)
    print(f"{int(seen.sum())} of {seen.size} cells visible from {args.origin}")
    if args.out is not None:
        (i, j), (w, h), (ox, oy) = args.origin, grid.tile_size, grid.origin
        centre = (ox + (i + 0.5) * w, oy + (j + 0.5) * h)
        _picture(grid, args.scale, _y_up(args.map)).fov(seen).points([centre]).save(args.out)
        print(f"picture: {args.out}")
    elif args.print:
        for r in range(grid.rows):
            print(
                "".join(
                    "@"
                    if (c, r) == args.origin
                    else ("#" if grid.solid[r, c] else ".")
                    if seen[r, c]
                    else " "
                    for c in range(grid.cols)
                )
            )
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    """Draw a map (optionally with its wall segments) to a picture."""
    from tilecast import wall_segments

    world = _load(args.map, None, args)
    picture = _picture(world, args.scale, _y_up(args.map))
    if args.walls:
        picture.segments(wall_segments(_as_grid(world)))
    picture.save(args.out)
    rows, cols = _as_grid(world).shape
    print(f"{args.map}: {cols} x {rows} cells -> {args.out} ({picture.size[0]}x{picture.size[1]})")
    return 0


def _benchmarks_dir() -> Path | None:
    env = os.environ.get("TILECAST_BENCHMARKS")
    candidates = [Path(env)] if env else []
    candidates += [Path(__file__).resolve().parents[2] / "benchmarks", Path.cwd() / "benchmarks"]
    for candidate in candidates:
        if candidate.is_dir() and any(candidate.glob("*.py")):
            return candidate
    return None


def cmd_warmup(args: argparse.Namespace) -> int:
    """Compile (first run after install) or load every kernel family, with a progress bar."""
    from tilecast.startup import warmup

    seconds = warmup(progress=not args.quiet)
    if args.times:
        for name, value in seconds.items():
            print(f"{value:7.2f} s  {name}")
    return 0


def _show_compile_notices() -> None:
    """Print the library's INFO lines (a kernel starts compiling) as one line each on stderr."""
    import logging

    logger = logging.getLogger("tilecast")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("tilecast: %(message)s"))
        logger.addHandler(handler)
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark scripts of a source checkout and print their tables.

    The scripts share ``benchmarks/_harness.py``; with ``--json DIR`` each one
    also writes ``DIR/<name>.json`` (its tables' rows, timings and the machine line).
    """
    folder = _benchmarks_dir()
    if folder is None:
        raise UserError(
            "benchmarks/ not found: the benchmark scripts ship with the source checkout, "
            "not with the installed package; run this from a clone of the repository "
            "(or set TILECAST_BENCHMARKS to the folder)"
        )
    scripts = sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    if args.only:
        scripts = [p for p in scripts if p.stem in args.only]
        missing = set(args.only) - {p.stem for p in scripts}
        if missing:
            raise UserError(f"no benchmark named {', '.join(sorted(missing))} in {folder}")
    if args.json is not None:
        try:
            args.json.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"--json {args.json}: {exc.strerror or exc}") from None
    failed = 0
    for k, script in enumerate(scripts, 1):
        command = [sys.executable, str(script)] + (["--quick"] if args.quick else [])
        if args.json is not None:
            command += ["--json", str(args.json / f"{script.stem}.json")]
        print(f"[{k}/{len(scripts)}] {script.name} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        took = time.perf_counter() - start
        status = "done" if result.returncode == 0 else f"FAILED (exit {result.returncode})"
        print(
            f"[{k}/{len(scripts)}] {script.name} {status} in {took:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        print(f"## {script.stem}\n")
        print(result.stdout.rstrip() + "\n")
        if result.returncode != 0:
            failed += 1
            print(result.stderr.rstrip()[-2000:] + "\n")
    return 1 if failed else 0


def cmd_play(args: argparse.Namespace) -> int:
    """Open the interactive pygame demo."""
    try:
        from tilecast import play
    except ImportError as exc:
        raise UserError(f"{exc}") from None
    if args.map is not None:
        world = _as_grid(_load(args.map, None, args))
    elif args.layer or args.solid is not None:
        raise BadInput("--layer and --solid need a MAP (the bundled map has no layers)")
    else:
        world = play.load_world()
    return play.run(world, frames=args.frames, screenshot=args.screenshot)


# ------------------------------------------------------------------- parser
MAP_HELP = "map file: .txt/.map ASCII, .png image, .yaml ROS map, .ldtk LDtk, .tmx/.tmj/.json Tiled"


def build_parser() -> argparse.ArgumentParser:
    """Return the ``tilecast`` argument parser (all subcommands)."""
    parser = argparse.ArgumentParser(
        prog="tilecast",
        description="Exact, fast 2D ray casting in tile and polygon worlds.",
        epilog="Run 'tilecast COMMAND --help' for the options of one command.",
    )
    from tilecast import __version__

    parser.add_argument("--version", action="version", version=f"tilecast {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(
        name: str, func: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    def map_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--root",
            default=None,
            metavar="DIR",
            help="refuse a map that refers to files outside DIR (for maps you did not make)",
        )
        p.add_argument(
            "--layer",
            action="append",
            default=None,
            metavar="NAME",
            help="Tiled/LDtk layer that holds the walls (repeat for several Tiled layers; "
            "default: the loader's choice, logged)",
        )
        p.add_argument(
            "--solid",
            type=_solid_rule,
            default=None,
            metavar="RULE",
            help="Tiled: which tiles are solid: auto, property, collision, alpha, any, "
            "or GIDs like 1,2,7",
        )
        p.add_argument(
            "--mask",
            type=_mask,
            default=None,
            metavar="BITS",
            help="collision layers that block (e.g. 1, or 0x3; default: every layer); "
            "a ROS map has occupied cells on 1 and unknown ones on 2",
        )

    def query_options(p: argparse.ArgumentParser, formats: list[str]) -> None:
        """Add --outside, --format (the first of ``formats`` by default) and the map options."""
        p.add_argument(
            "--outside",
            choices=["empty", "solid"],
            default=None,
            help="what lies beyond the map (default: the loader's choice)",
        )
        p.add_argument("--format", choices=formats, default=formats[0])
        map_options(p)

    def origin_option(
        p: argparse.ArgumentParser, parse: Callable[[str], Any], metavar: str, help_text: str
    ) -> None:
        """Add the required ``--from`` (``args.origin``): where the ray or the view starts."""
        p.add_argument(
            "--from", dest="origin", type=parse, required=True, metavar=metavar, help=help_text
        )

    p = add("demo", cmd_demo, "cast a fan of rays on the bundled map and draw the result")
    p.add_argument("--out", default="demo.png", help="picture to write (default: demo.png)")
    p.add_argument("--rays", type=_ray_count, default=360, help="number of rays (360)")
    p.add_argument(
        "--from",
        dest="viewer",
        type=_point,
        default=None,
        metavar="X,Y",
        help=f"viewer position (default {DEMO_VIEWER[0]},{DEMO_VIEWER[1]})",
    )
    p.add_argument(
        "--radius",
        type=_positive,
        default=None,
        help="limit the field of view and the lit area to this radius (cells)",
    )
    p.add_argument("--scale", type=_positive, default=None, help="picture pixels per cell")

    p = add("cast", cmd_cast, "cast one ray and print where it first hits a wall")
    p.add_argument("map", help=MAP_HELP)
    origin_option(p, _point, "X,Y", "ray origin in world units")
    p.add_argument(
        "--angle",
        type=_finite,
        required=True,
        metavar="DEG",
        help="direction in degrees (0 = +x, 90 = +y)",
    )
    p.add_argument("--max-distance", type=_nonnegative, default=math.inf, metavar="D")
    query_options(p, ["text", "json"])

    p = add("scan", cmd_scan, "simulate a lidar scan and print the ranges")
    p.add_argument("map", help=MAP_HELP)
    p.add_argument(
        "--pose",
        type=_pose,
        required=True,
        metavar="X,Y,THETA",
        help="sensor position (world units) and heading (radians)",
    )
    p.add_argument("--beams", type=_ray_count, default=360, help="number of beams (360)")
    p.add_argument(
        "--fov",
        type=_positive,
        default=360.0,
        metavar="DEG",
        help="angular field of the scan in degrees (360 = full turn)",
    )
    p.add_argument(
        "--max-range",
        type=_positive,
        default=100.0,
        metavar="R",
        help="range reported when nothing is hit (100)",
    )
    query_options(p, ["csv", "json"])

    p = add("fov", cmd_fov, "field of view (symmetric shadowcasting) from one cell")
    p.add_argument("map", help=MAP_HELP)
    origin_option(p, _cell, "I,J", "viewer cell: column, row")
    p.add_argument("--radius", type=_nonnegative, default=None, help="radius in cells")
    p.add_argument("--out", default=None, metavar="PNG", help="draw the result to this picture")
    p.add_argument("--print", action="store_true", help="print the visible cells as text")
    p.add_argument("--scale", type=_positive, default=None, help="picture pixels per cell")
    map_options(p)

    p = add("render", cmd_render, "draw a map to a picture")
    p.add_argument("map", help=MAP_HELP)
    p.add_argument("--out", required=True, metavar="PNG", help="picture to write")
    p.add_argument("--walls", action="store_true", help="also draw the wall segments")
    p.add_argument("--scale", type=_positive, default=None, help="picture pixels per cell")
    map_options(p)

    p = add("bench", cmd_bench, "run the benchmark scripts (source checkout only)")
    p.add_argument("--quick", action="store_true", help="short runs")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these (e.g. fov lines)")
    p.add_argument(
        "--json", type=Path, metavar="DIR", help="also write DIR/<name>.json for each script"
    )

    p = add("warmup", cmd_warmup, "compile every kernel now (first run after install) or load it")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--times", action="store_true", help="print the seconds per family")

    p = add("play", cmd_play, "interactive pygame demo (needs 'tilecast[demo]')")
    p.add_argument("map", nargs="?", default=None, help=MAP_HELP + " (default: bundled map)")
    p.add_argument("--frames", type=_positive_int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--screenshot", default=None, help=argparse.SUPPRESS)
    map_options(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``tilecast`` command with ``argv`` (default: ``sys.argv[1:]``).

    Returns the exit status: 0 success, 1 failure, 2 usage error.

    Examples
    --------
    >>> from tilecast.cli import main
    >>> main(["cast", "--help"])  # doctest: +ELLIPSIS
    usage: tilecast cast [-h] --from X,Y --angle DEG ...
    0
    """
    parser = build_parser()
    argv = _negative_values(parser, list(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a usage error
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return 2
    _show_compile_notices()
    try:
        return int(args.func(args))
    except BadInput as exc:
        print(f"tilecast {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (UserError, ValueError, TypeError, OSError, ImportError) as exc:
        print(f"tilecast {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except (MemoryError, OverflowError, RecursionError) as exc:
        what = type(exc).__name__
        print(f"tilecast {args.command}: error: the input is too large ({what})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _negative_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """Join ``--opt -1,2`` into ``--opt=-1,2``: argparse takes ``-1,2`` for an option.

    Only after an option that takes a value (any subcommand's), so a flag
    followed by a negative number is left to argparse.
    """
    takes_value = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                for option in sub._actions:
                    if option.option_strings and option.nargs != 0:
                        takes_value.update(option.option_strings)
    out: list[str] = []
    for arg in argv:
        previous = out[-1] if out else ""
        if (
            NEGATIVE.match(arg)
            and previous.startswith("-")
            and "=" not in previous
            and (
                previous in takes_value
                or (previous.startswith("--") and any(v.startswith(previous) for v in takes_value))
            )
        ):
            out[-1] = f"{previous}={arg}"
        else:
            out.append(arg)
    return out


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
