"""Compiling a family's kernels side by side (tilecast._kernels.jobs).

Each test runs a fresh Python with an empty Numba cache and two small
kernels of its own (a module written to a temporary folder), so that it
sees first compiles; the figures of the real families are in
benchmarks/first_call.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERNELS = """
from numba import njit, types

SIGNATURE = (types.float64[::1],)

@njit(cache=True)
def total(values):
    s = 0.0
    for v in values:
        s += v
    return s

@njit(cache=True)
def largest(values):
    best = -1e300
    for v in values:
        best = max(best, v)
    return best
"""

PROBE = """
import json, sys
import numpy as np
import tilecast._kernels.jobs as jobs
import family_kernels as k
if len(sys.argv) > 1:  # a worker that fails without compiling anything
    jobs._worker_command = lambda: [sys.executable, "-c", "raise SystemExit(3)"]
jobs.compile_together([(k.total, k.SIGNATURE, 2.0), (k.largest, k.SIGNATURE, 2.0)])
values = np.array([1.0, 5.0, 2.0])
print(json.dumps({
    "results": [k.total(values), k.largest(values)],
    "hits": {f.__name__: sum(f.stats.cache_hits.values()) for f in (k.total, k.largest)},
    "misses": {f.__name__: sum(f.stats.cache_misses.values()) for f in (k.total, k.largest)},
}))
"""


def _probe(tmp_path: Path, jobs: str, *extra: str) -> dict:
    (tmp_path / "family_kernels.py").write_text(textwrap.dedent(KERNELS))
    env = dict(os.environ)
    env.update(
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        TILECAST_COMPILE_JOBS=jobs,
        PYTHONPATH=os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]),
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["results"] == [8.0, 5.0]
    return result


def test_a_worker_compiles_one_kernel_into_the_cache_and_this_process_loads_it(tmp_path):
    result = _probe(tmp_path, "2")
    # one kernel compiled here (a miss), the other compiled by the worker and
    # loaded from the cache (a hit, no miss)
    assert sorted(result["misses"].values()) == [0, 1]
    assert sorted(result["hits"].values()) == [0, 1]
    assert {k for k, v in result["hits"].items() if v} == {
        k for k, v in result["misses"].items() if not v
    }


def test_one_job_compiles_everything_here(tmp_path):
    result = _probe(tmp_path, "1")
    assert result["misses"] == {"total": 1, "largest": 1}
    assert result["hits"] == {"total": 0, "largest": 0}


def test_a_failed_worker_costs_time_not_correctness(tmp_path):
    result = _probe(tmp_path, "2", "fail")
    assert result["misses"] == {"total": 1, "largest": 1}


def test_a_warm_cache_starts_no_worker(tmp_path):
    _probe(tmp_path, "2")
    result = _probe(tmp_path, "2", "fail")  # a worker would not matter: both load
    assert result["misses"] == {"total": 0, "largest": 0}
    assert result["hits"] == {"total": 1, "largest": 1}


@pytest.mark.parametrize(("given", "expected"), [("3", 3), ("1", 1), ("0", 1), ("many", 1)])
def test_the_job_count_comes_from_the_environment(monkeypatch, given, expected):
    from tilecast._kernels.jobs import job_count

    monkeypatch.setenv("TILECAST_COMPILE_JOBS", given)
    assert job_count() == expected


def test_the_default_job_count_is_the_cores_up_to_four(monkeypatch):
    from tilecast._kernels import jobs

    monkeypatch.delenv("TILECAST_COMPILE_JOBS", raising=False)
    monkeypatch.setattr(jobs.os, "cpu_count", lambda: 16)
    assert jobs.job_count() == 4
    monkeypatch.setattr(jobs.os, "cpu_count", lambda: 1)
    assert jobs.job_count() == 1
    monkeypatch.setattr(jobs.os, "cpu_count", lambda: 6)
    monkeypatch.setattr(jobs.sys, "frozen", True, raising=False)
    assert jobs.job_count() == 1


def test_work_is_shared_longest_first_and_a_worker_only_when_it_pays():
    from tilecast._kernels.jobs import share

    def unit(name: str, seconds: float) -> tuple:
        return (name, (), seconds)

    def _share(units: list, jobs: int) -> list:
        return share(units, jobs, key=lambda u: u[2])

    here, *workers = _share([unit("a", 0.5), unit("b", 5.0), unit("c", 4.5)], 2)
    assert [u[0] for u in here] == ["b", "a"]
    assert [[u[0] for u in w] for w in workers] == [["c"]]
    # two short kernels: starting a worker would cost more than it saves
    here, *workers = _share([unit("a", 0.3), unit("b", 0.4)], 4)
    assert [u[0] for u in here] == ["b", "a"] and workers == []


@pytest.mark.parametrize(
    ("executable", "frozen", "expected"),
    [
        ("/usr/bin/python3.11", False, True),
        (r"C:\Python311\python.exe", False, True),
        ("/opt/pypy3/bin/pypy3", False, True),
        ("/usr/bin/uwsgi", False, False),  # embedded: a worker would start a server
        ("/Applications/Blender.app/Contents/MacOS/Blender", False, False),
        ("", False, False),
        ("/usr/bin/python3", True, False),  # a frozen application
    ],
)
def test_workers_only_from_a_python_interpreter(monkeypatch, executable, frozen, expected):
    from tilecast._kernels import jobs

    monkeypatch.setattr(jobs.sys, "executable", executable)
    monkeypatch.setattr(jobs.sys, "frozen", frozen, raising=False)
    monkeypatch.setenv("TILECAST_COMPILE_JOBS", "4")
    assert jobs.python_executable() is expected
    assert jobs.job_count() == (4 if expected else 1)


def test_the_scene_family_is_typed_as_a_scene_calls_it():
    """The stand-in types the scene's kernels compile for side by side are the ones a
    real scene's preparation and queries use (else a kernel would compile twice)."""
    import numpy as np

    from tilecast import VisibilityScene
    from tilecast._kernels.scene import family_units

    walls = np.array([[0.0, 0.0, 4.0, 0.0], [4.0, 0.0, 4.0, 3.0], [0.0, 3.0, 4.0, 3.0],
                      [0.0, 0.0, 0.0, 3.0], [1.0, 1.0, 2.0, 2.0]]).reshape(-1, 2, 2)  # fmt: skip
    scene = VisibilityScene(walls)  # the first scene compiles (or loads) the family units
    scene.polygon((0.5, 2.5))
    scene.polygon((0.5, 2.5), cone=((1, 0), 0.5))
    scene.polygon((0.5, 2.5), radius=2.0)
    for dispatcher, types, _ in family_units():
        # the real calls found the stand-ins' overload: no second one compiled
        assert list(dispatcher.overloads) == [tuple(types)], dispatcher.py_func.__name__


def test_the_scene_passes_the_types_its_kernels_entry_points_declare():
    """The scene calls its query kernels' entry points, which check no types: its records,
    options and workspace must be of the declared types (``*_TYPES``)."""
    import numba
    import numpy as np

    from tilecast import VisibilityScene
    from tilecast._kernels import scene as ks
    from tilecast.visibility import extra_walls

    walls = np.array([[0.0, 0.0, 4.0, 0.0], [4.0, 0.0, 4.0, 3.0], [0.0, 3.0, 4.0, 3.0],
                      [0.0, 0.0, 0.0, 3.0], [1.0, 1.0, 2.0, 2.0]]).reshape(-1, 2, 2)  # fmt: skip
    scene = VisibilityScene(walls)
    p = (0.5, 2.5)
    assert numba.typeof(scene._arrays) == ks.SCENE_TYPE
    workspace = (scene._work, scene._cover, scene._stack)
    assert tuple(numba.typeof(a) for a in workspace) == ks.POLYGON_TYPES[4:7]
    _, (arrays, rows), (stack, picked, *_) = scene._plain
    assert tuple(numba.typeof(a) for a in (arrays, rows, *p, stack, picked)) == ks.PLAIN_TYPES[:6]
    for radius, cone, bounds in [(None, None, None), (2, None, None), (None, ((1, 0), 0.5), None),
                                 (None, None, (-1, -1, 5, 4))]:  # fmt: skip
        r, cone_spec, box = scene._options(radius, cone, bounds, "observer", p)
        head, tail, _ = scene._query_args(r, cone_spec, box)
        query = ks.SceneQuery(extra_walls(p, box, None), *head, *tail)
        assert numba.typeof(query) == ks.QUERY_TYPE, (radius, cone, bounds)
