"""Two versions of tilecast side by side: the same probe in alternating fresh processes.

For a change's before and after. ``--base`` and ``--head`` are source folders
(a checkout's ``src``; for the commit before a change, ``git worktree add``
one). Each round starts one child process per tree, in alternating order
(base head, head base, ...), with that tree first on ``sys.path``. A child
warms every call up first (compile or cache load; not timed), then times:

- single calls on a 256 x 256 map with a quarter of its cells walls
  (``default_rng(3)``, walls all round), 2000 queries from free cells in
  random directions: ``raycast`` (max distance 8), ``line_of_sight`` (ends 6
  apart) and ``raycast_many`` of one ray, in µs per call, best of 5 passes;
- batches on the range_libc basement map (``../shared/benchmarks``, as in
  ``raycast.py``): ``raycast_many`` of 400,000 rays of the ``free`` set and
  ``scan_many`` of 400 poses x 1000 beams (max range 500), in M rays/s, best
  of 7, with Numba's default threads.

The table gives each figure's median over the rounds and head / base (for
µs, below 1 is faster; for M rays/s, above 1 is faster). It lives apart from
the peer benchmarks (``tilecast bench`` does not run it: it needs a base).

    git worktree add ../before HEAD~5
    python benchmarks/tools/trees.py --base ../before/src --head src --rounds 3
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # benchmarks/
sys.path.insert(0, str(HERE))

import _harness as bench  # noqa: E402

# The child imports nothing from tilecast before its tree is first on sys.path.
CHILD = r"""
import json, math, sys
tree, here = sys.argv[1], sys.argv[2]
sys.path[:0] = [tree, here]
import numpy as np
import tilecast as tc
import _harness as bench
from raycast import load_map, query_sets


def fastest(systems, rounds):
    # each system's fastest round, in seconds (after one untimed warm-up call each)
    return {name: timing.min for name, timing in bench.interleave(systems, rounds).items()}


rng = np.random.default_rng(3)
walls = rng.random((256, 256)) < 0.25
walls[0, :] = walls[-1, :] = walls[:, 0] = walls[:, -1] = True
grid = tc.Grid(walls, outside="solid")
free = np.argwhere(~walls)
pick = free[rng.integers(0, len(free), 2000)]
origins = [(float(c) + rng.random(), float(r) + rng.random()) for r, c in pick]
angles = rng.uniform(0, 2 * math.pi, 2000)
directions = [(math.cos(a), math.sin(a)) for a in angles]
rays = [(grid, o, d, 8.0) for o, d in zip(origins, directions)]
sights = [(grid, o, (o[0] + 6 * d[0], o[1] + 6 * d[1])) for o, d in zip(origins, directions)]
ones = [(grid, np.array(o), np.array([d])) for o, d in zip(origins, directions)]
single = {
    "raycast (us)": (tc.raycast, rays),
    "line_of_sight (us)": (tc.line_of_sight, sights),
    "raycast_many of one ray (us)": (tc.raycast_many, ones),
}
seconds = fastest(
    {name: (lambda call=call, items=items: [call(*item) for item in items])
     for name, (call, items) in single.items()},
    rounds=5,
)
out = {name: 1e6 * seconds[name] / len(items) for name, (_, items) in single.items()}
_, gray, occupied = load_map()
basement = tc.Grid(occupied, outside="solid")
free_q = query_sets(gray, occupied, 400_000)["free"]
starts = np.ascontiguousarray(free_q[:, :2])
heads = np.column_stack([np.cos(free_q[:, 2]), np.sin(free_q[:, 2])])
poses = free_q[:400].copy()
beams = np.linspace(-np.pi, np.pi, 1000)
batch = {
    "raycast_many, free set (M rays/s)": (
        lambda: tc.raycast_many(basement, starts, heads, 500.0), len(starts)),
    "scan_many, 400 x 1000 (M rays/s)": (
        lambda: tc.scan_many(basement, poses, beams, 500.0), poses.shape[0] * beams.size),
}
seconds = fastest({name: call for name, (call, _) in batch.items()}, rounds=7)
out.update({name: rays / seconds[name] / 1e6 for name, (_, rays) in batch.items()})
print(json.dumps(out))
"""


def probe(tree: Path) -> dict[str, float]:
    """One child process's figures for the tilecast in ``tree``."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(HERE)],
        env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = bench.arguments(__doc__, quick="one round")
    parser.add_argument("--base", type=Path, required=True, help="the 'before' source folder")
    parser.add_argument("--head", type=Path, default=HERE.parent / "src", help="default: ./src")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    for name in ("base", "head"):
        if not (getattr(args, name) / "tilecast" / "__init__.py").is_file():
            parser.error(f"--{name}: no tilecast package in {getattr(args, name)}")
    report = bench.start(__file__, args)
    trees = {"base": args.base.resolve(), "head": args.head.resolve()}
    samples: dict[str, list[dict[str, float]]] = {"base": [], "head": []}
    for k in range(1 if args.quick else args.rounds):
        for name in ("base", "head") if k % 2 == 0 else ("head", "base"):
            samples[name].append(probe(trees[name]))
    table = report.table(
        "two trees",
        ["figure", bench.col("base", ".3f"), bench.col("head", ".3f"),
         bench.col("head / base", ".3f")],
    )  # fmt: skip
    for figure in samples["base"][0]:
        base = statistics.median(s[figure] for s in samples["base"])
        head = statistics.median(s[figure] for s in samples["head"])
        table.add(figure, base, head, head / base)
    table.print()
    report.save()


if __name__ == "__main__":
    main()
