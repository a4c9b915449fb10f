"""The harness every benchmark script shares: interleaved rounds, medians, one table printer.

Scripts import it as a sibling module (``import _harness as bench``; Python puts
a script's folder on ``sys.path``). A script's life::

    parser = bench.arguments(__doc__, quick="200k rays")   # argparse: --json PATH, --quick
    args = parser.parse_args(argv)
    report = bench.start(__file__, args)        # prints the machine and load line
    times = bench.interleave({"a": run_a, "b": run_b}, rounds=5)   # A B A B ...
    table = report.table("speed", ["system", bench.col("ms", ".2f"),
                                   bench.ratio("vs a", of="ms", baseline="a", by="system")])
    table.add("a", 1e3 * times["a"].median)
    table.print()                               # a markdown table
    report.save()                               # --json PATH: rows, timings, machine

The machines these run on are shared and noisy: every figure is a median
over rounds in which all systems take turns (A B C A B C ...), and the ratios
measured in one run are what to compare. ``--json`` writes the tables' rows,
every ``interleave`` call's medians, minima and spreads, and the machine line
(with the load at the start and at the end).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

Key = TypeVar("Key", bound=Hashable)
Item = TypeVar("Item")
Result = TypeVar("Result")

_CURRENT: Report | None = None
_MISSING: list[str] = []  # peers that are not installed, one line each


# ------------------------------------------------------------------ timing
class Parts(dict[str, float]):
    """Seconds by part: what a system returns when it times pieces of its own run.

    ``interleave`` records each part beside the total (``Timing.part``).
    """


@dataclass
class Timing:
    """One system's samples from ``interleave``: seconds per call, one sample per round."""

    samples: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    parts: dict[str, list[float]] = field(default_factory=dict)
    calls: int = 1
    result: Any = None

    @property
    def median(self) -> float:
        """Median wall seconds per call over the rounds."""
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        """Fastest round's wall seconds per call."""
        return min(self.samples)

    @property
    def spread(self) -> float:
        """(slowest - fastest) / median over the rounds: how noisy the figure is."""
        median = self.median
        return (max(self.samples) - min(self.samples)) / median if median > 0 else 0.0

    @property
    def cpu_median(self) -> float:
        """Median CPU seconds of the process (all threads) per call."""
        return statistics.median(self.cpu)

    def part(self, name: str) -> float:
        """Median over the rounds of one part a system reported (see ``Parts``)."""
        return statistics.median(self.parts[name])

    def summary(self) -> dict[str, float | int]:
        """The figures ``--json`` records."""
        out: dict[str, float | int] = {
            "median_s": self.median, "min_s": self.min, "spread": self.spread,
            "cpu_median_s": self.cpu_median, "rounds": len(self.samples),
            "calls_per_sample": self.calls,
        }  # fmt: skip
        for name in self.parts:
            out[f"{name}_median_s"] = self.part(name)
        return out


def interleave(
    systems: Mapping[Key, Callable[[], object]],
    rounds: int,
    *,
    warmup: int = 1,
    min_sample_s: float = 0.0,
    alternate: bool = False,
    gc_off: bool = False,
    label: str = "",
) -> dict[Key, Timing]:
    """Time every system once per round, the systems taking turns: A B C A B C ...

    Parameters
    ----------
    systems
        Calls without arguments, by name (any hashable key: a tuple keeps
        several workloads in one set of rounds). Timed in this order.
    rounds
        Samples per system.
    warmup
        Untimed calls of each system first (compiling, cache loads, caches).
    min_sample_s
        When above zero, each sample repeats a call enough times (1 to 1000,
        found from one more untimed call) to last about this long; samples
        are still seconds per call.
    alternate
        Every other round runs the systems in reverse order.
    gc_off
        Collect garbage before each sample and keep the collector off during it.
    label
        The name ``--json`` records these timings under.

    Returns
    -------
    dict
        A ``Timing`` by key; ``result`` is what the last call returned, and a
        system returning ``Parts`` has them recorded too.
    """
    for _ in range(warmup):
        for call in systems.values():
            call()
    calls = dict.fromkeys(systems, 1)
    if min_sample_s > 0:
        for key, call in systems.items():
            once, _ = time_once(call)
            calls[key] = max(1, min(1000, int(min_sample_s / max(once, 1e-7))))
    timings = {key: Timing(calls=calls[key]) for key in systems}
    order = list(systems.items())
    gc_was_on = gc.isenabled()
    try:
        for r in range(rounds):
            for key, call in order[::-1] if alternate and r % 2 else order:
                timing, count = timings[key], calls[key]
                if gc_off:
                    gc.collect()
                    gc.disable()
                wall, cpu = time.perf_counter(), time.process_time()
                for _ in range(count):
                    timing.result = call()
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                if gc_off and gc_was_on:
                    gc.enable()
                timing.samples.append(wall / count)
                timing.cpu.append(cpu / count)
                if isinstance(timing.result, Parts):
                    for part, seconds in timing.result.items():
                        timing.parts.setdefault(part, []).append(seconds)
    finally:
        if gc_was_on:
            gc.enable()
    if _CURRENT is not None:
        _CURRENT.record(label, timings)
    return timings


def time_once(call: Callable[[], Result]) -> tuple[float, Result]:
    """Wall seconds of one call and what it returned (set-up times, one-off runs)."""
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def time_parts(steps: Mapping[str, Callable[[], object]]) -> Parts:
    """Wall seconds of each step, run in order: a system's ``Parts``."""
    return Parts((name, time_once(step)[0]) for name, step in steps.items())


def per_call(call: Callable[[Item], object], items: Iterable[Item]) -> list[float]:
    """Wall seconds of each call ``call(item)``, in order (medians over single queries)."""
    seconds = []
    for item in items:
        start = time.perf_counter()
        call(item)
        seconds.append(time.perf_counter() - start)
    return seconds


# ----------------------------------------------------------------- machine
def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module: str) -> str:
    try:
        return str(__import__(module).__version__)
    except ImportError:
        return "-"


def thread_count() -> int:
    """Threads tilecast's batches use (``NUMBA_NUM_THREADS``, else the usable CPUs)."""
    try:
        from tilecast._threads import thread_count as count
    except ImportError:
        return os.cpu_count() or 1
    return count()


def machine() -> dict[str, Any]:
    """What the figures were measured on: CPU, cores, load, threads, versions, date."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu": _cpu_model(), "cores": os.cpu_count(), "usable_cores": usable,
        "load": [round(v, 2) for v in os.getloadavg()], "threads": thread_count(),
        "python": platform.python_version(), "numpy": _version("numpy"),
        "numba": _version("numba"), "tilecast": _version("tilecast"),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }  # fmt: skip


def machine_line(info: Mapping[str, Any]) -> str:
    """One line for the top of a report, e.g. ``machine: <cpu>, 2 cores, load 1.2 ...``."""
    cores = f"{info['cores']} cores"
    if info["usable_cores"] not in (None, info["cores"]):
        cores += f" ({info['usable_cores']} usable)"
    load = " ".join(f"{v:.2f}" for v in info["load"])
    return (
        f"machine: {info['cpu']}, {cores}, load {load}, {info['threads']} threads; "
        f"Python {info['python']}, numpy {info['numpy']}, numba {info['numba']}, "
        f"tilecast {info['tilecast']}; {info['date']}"
    )


def optional(module: str, hint: str = "", also: Sequence[str] = ()) -> Any:
    """Import a peer's module (and the submodules ``also``), or say it is missing and return None.

    The line is printed under the machine line (at once if ``start`` ran).
    """
    try:
        for name in also:
            __import__(name)
        return __import__(module, fromlist=["_"])
    except ImportError:
        _MISSING.append(f"{module} not installed{f' ({hint})' if hint else ''}: not timed")
        if _CURRENT is not None:
            print(_MISSING[-1])
        return None


# ------------------------------------------------------------------- tables
@dataclass
class Column:
    """A table column: its title, the row key it prints, a format for numbers, a suffix."""

    title: str
    key: str = ""
    fmt: str = ""
    suffix: str = ""

    def __post_init__(self) -> None:
        self.key = self.key or slug(self.title)

    def text(self, value: object) -> str:
        """The cell as printed: ``-`` for None and NaN."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        if self.fmt and isinstance(value, (int, float)):
            return f"{value:{self.fmt}}{self.suffix}"
        return f"{value}{self.suffix}"


@dataclass
class Ratio(Column):
    """A column of ``row[of] / baseline[of]``; the baseline is the row whose ``by`` is ``baseline``.

    With ``within`` (column keys), the baseline is looked for among the rows
    that have the same values in those columns (a group); ``invert`` gives
    ``baseline[of] / row[of]`` (a speed-up from times). No baseline row: ``-``.
    """

    of: str = ""
    baseline: str = ""
    by: str = ""
    within: tuple[str, ...] = ()
    invert: bool = False

    def base(self, row: Mapping[str, Any], rows: Iterable[Mapping[str, Any]]) -> Any:
        """The baseline row's value for ``row``, or None."""
        for other in rows:
            if other.get(self.by) == self.baseline and all(
                other.get(k) == row.get(k) for k in self.within
            ):
                return other.get(self.of)
        return None


def col(title: str, fmt: str = "", suffix: str = "", key: str = "") -> Column:
    """A column whose numbers print with ``fmt`` (``".2f"``, ``",.0f"``) and ``suffix``."""
    return Column(title, key, fmt, suffix)


def ratio(
    title: str, *, of: str, baseline: str, by: str, within: str | Sequence[str] = (),
    invert: bool = False, fmt: str = ".2f", suffix: str = "x", key: str = "",
) -> Ratio:  # fmt: skip
    """A ratio column against a named baseline row (see ``Ratio``); columns named by title."""
    groups = (within,) if isinstance(within, str) else tuple(within)
    return Ratio(title, key, fmt, suffix, slug(of), baseline, slug(by),
                 tuple(slug(g) for g in groups), invert)  # fmt: skip


def slug(title: str) -> str:
    """A column title as a JSON key: ``"M rays/s"`` -> ``"m_rays_s"``."""
    return re.sub(r"[^0-9a-z]+", "_", title.lower()).strip("_") or "value"


class Table:
    """A markdown table whose rows ``--json`` also writes (values, not printed text)."""

    def __init__(self, name: str, columns: Sequence[str | Column]) -> None:
        self.name = name
        self.columns = [c if isinstance(c, Column) else Column(c) for c in columns]
        self.rows: list[dict[str, Any]] = []
        self._printed = -1  # rows printed so far; -1: not even the header

    def add(self, *values: object) -> dict[str, Any]:
        """Add a row, one value per column that is not a ratio, in order."""
        plain = [c for c in self.columns if not isinstance(c, Ratio)]
        if len(values) != len(plain):
            raise ValueError(f"{self.name}: {len(values)} values for {len(plain)} columns")
        row = {c.key: v for c, v in zip(plain, values, strict=True)}
        self.rows.append(row)
        return row

    def _ratios(self) -> None:
        for column in self.columns:
            if not isinstance(column, Ratio):
                continue
            for row in self.rows:
                value, ref = row.get(column.of), column.base(row, self.rows)
                if value is None or ref is None:
                    row[column.key] = None
                    continue
                num, den = (ref, value) if column.invert else (value, ref)
                row[column.key] = num / den if den else math.nan

    def print(self) -> None:
        """Print the header (once) and the rows added since the last call."""
        self._ratios()
        if self._printed < 0:
            print("| " + " | ".join(c.title for c in self.columns) + " |")
            print("|" + "".join("---:|" if c.fmt else "---|" for c in self.columns))
            self._printed = 0
        for row in self.rows[self._printed :]:
            print("| " + " | ".join(c.text(row.get(c.key)) for c in self.columns) + " |")
        self._printed = len(self.rows)
        sys.stdout.flush()

    def to_json(self) -> dict[str, Any]:
        """Columns (title and key) and rows, NaN written as null."""
        self._ratios()
        return {
            "columns": [{"title": c.title, "key": c.key} for c in self.columns],
            "rows": [{k: _plain(v) for k, v in row.items()} for row in self.rows],
        }


def _plain(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):  # NumPy scalars
        return _plain(value.item())
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


# ------------------------------------------------------------------- report
class Report:
    """A script's run: the machine line, its tables, its timings, notes; ``save`` writes JSON."""

    def __init__(self, script: str, json_path: str | None = None) -> None:
        self.script = script
        self.path = Path(json_path) if json_path else None
        self.machine = machine()
        self.tables: list[Table] = []
        self.timings: list[dict[str, Any]] = []
        self.notes: dict[str, Any] = {}

    def table(self, name: str, columns: Sequence[str | Column]) -> Table:
        """A new table, written by ``save``; names need not be unique."""
        table = Table(name, columns)
        self.tables.append(table)
        return table

    def note(self, key: str, value: object) -> None:
        """A figure that is not a table row (an agreement share, a set-up time...)."""
        self.notes[key] = value if isinstance(value, list) else _plain(value)

    def record(self, label: str, timings: Mapping[Any, Timing]) -> None:
        """Keep one ``interleave`` call's figures (called by ``interleave``)."""
        systems = {
            " / ".join(map(str, key)) if isinstance(key, tuple) else str(key): t.summary()
            for key, t in timings.items()
        }
        self.timings.append({"label": label, "systems": systems})

    def save(self) -> None:
        """Write the JSON file when ``--json`` was given."""
        if self.path is None:
            return
        data = {
            "script": self.script,
            "argv": sys.argv[1:],
            "machine": self.machine,
            "load_end": [round(v, 2) for v in os.getloadavg()],
            "tables": [{"name": t.name, **t.to_json()} for t in self.tables],
            "timings": self.timings,
            "notes": self.notes,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(data, indent=1) + "\n")


def arguments(doc: str | None, quick: str = "", **kwargs: Any) -> argparse.ArgumentParser:
    """An argument parser (description: the docstring's first line) with ``--json PATH``.

    ``quick``: the help of a ``--quick`` option (short runs), added when given.
    """
    description = (doc or "").strip().splitlines()[0] if doc else None
    parser = argparse.ArgumentParser(description=description, **kwargs)
    parser.add_argument(
        "--json", metavar="PATH", help="also write the results (tables, timings, machine) here"
    )
    if quick:
        parser.add_argument("--quick", action="store_true", help=quick)
    return parser


def start(script: str, args: argparse.Namespace | None = None) -> Report:
    """Begin a report: print the machine and load line; later ``interleave`` calls record to it."""
    global _CURRENT
    _CURRENT = Report(Path(script).stem, getattr(args, "json", None))
    print(machine_line(_CURRENT.machine))
    for line in _MISSING:
        print(line)
    _CURRENT.note("not installed", list(_MISSING))
    sys.stdout.flush()
    return _CURRENT
