"""Lattice lines: tilecast.lines (batched) and tilecast.line vs tcod and scikit-image.

Standard workload (shared benchmarks README): 100,000 random segments with endpoints
in [0, 500)^2 and in [0, 20)^2 (numpy default_rng(12345)). Systems are interleaved
(A B A B ...) and the median of the repeats is reported, per line.

    python benchmarks/lines.py            # full run
    python benchmarks/lines.py --quick    # 10,000 segments, 3 repeats
"""

from __future__ import annotations

from functools import partial

import numpy as np

import _harness as bench
from tilecast import line, lines

tcod = bench.optional("tcod.los", "pip install tcod")
skimage = bench.optional("skimage.draw", "pip install scikit-image")
TCOD = "tcod.los.bresenham (per call)"


def workload(n: int, extent: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(12345)
    pts = rng.integers(0, extent, size=(n, 4))
    return np.ascontiguousarray(pts[:, :2]), np.ascontiguousarray(pts[:, 2:])


def run_batched(starts, ends):
    return lines(starts, ends)


def run_line(starts, ends):
    s, e = starts.tolist(), ends.tolist()
    return [line(a, b) for a, b in zip(s, e, strict=True)]


def run_tcod(starts, ends):
    s, e = starts.tolist(), ends.tolist()
    return [tcod.bresenham(a, b) for a, b in zip(s, e, strict=True)]


def run_skimage(starts, ends):
    s, e = starts.tolist(), ends.tolist()
    return [skimage.line(a[1], a[0], b[1], b[0]) for a, b in zip(s, e, strict=True)]


def main(argv: list[str] | None = None) -> None:
    args = bench.arguments(__doc__, quick="10,000 segments, 3 repeats").parse_args(argv)
    report = bench.start(__file__, args)
    n = 10_000 if args.quick else 100_000
    repeats = 3 if args.quick else 5
    systems = {"tilecast.lines (batched)": run_batched, "tilecast.line (per call)": run_line}
    if tcod is not None:
        systems[TCOD] = run_tcod
    if skimage is not None:
        systems["skimage.draw.line (per call)"] = run_skimage
    lines(np.zeros((1, 2), dtype=np.int64), np.ones((1, 2), dtype=np.int64))  # compile
    line((0, 0), (1, 1))
    print(f"{n:,} segments per workload, median of {repeats} interleaved repeats\n")
    table = report.table(
        "lines",
        ["workload", "system", bench.col("ns / line", ",.0f"),
         bench.ratio("vs tcod", of="ns / line", baseline=TCOD, by="system", within="workload",
                     invert=True, fmt=".1f")],
    )  # fmt: skip
    for extent in (500, 20):
        starts, ends = workload(n, extent)
        # sanity: tcod and tilecast draw lines of the same length (Bresenham-thin)
        if tcod is not None:
            ref = run_tcod(starts[:200], ends[:200])
            _, offsets = lines(starts[:200], ends[:200])
            assert [len(r) for r in ref] == np.diff(offsets).tolist()
        calls = {name: partial(fn, starts, ends) for name, fn in systems.items()}
        times = bench.interleave(calls, repeats, warmup=0, label=f"[0, {extent})^2")
        for name, timing in times.items():
            table.add(f"[0, {extent})^2", name, timing.median / n * 1e9)
        table.print()
    report.save()


if __name__ == "__main__":
    main()
