"""scan_likelihood: the fused cast + sensor model, against the book, NumPy and range_libc."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import sensor as oracle
from strategies import grids, points
from tilecast import BeamModel, Grid, TileMap, TileSet, scan_likelihood, scan_many
from tilecast.batch import beam_directions

MODEL = BeamModel(0.75, 0.01, 0.07, 0.12, sigma_hit=0.4, lambda_short=0.3)


def close(a, b):
    """Equal log-likelihoods up to rounding (a few ulps per beam), -inf included."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def numpy_table(ranges, observed, table, resolution):
    """scan_many's ranges + a NumPy lookup, summed in beam order (cumsum is sequential)."""
    rows, cols = table.shape
    o = np.rint(np.minimum(np.asarray(observed) / resolution, rows - 1)).astype(np.intp)
    e = np.rint(np.minimum(ranges / resolution, cols - 1)).astype(np.intp)
    with np.errstate(divide="ignore"):
        logs = np.log(table)[o[None, :], e]
    return np.cumsum(logs, axis=1)[:, -1] if ranges.shape[1] else np.zeros(len(ranges))


def numpy_beam(ranges, observed, model, max_range):
    """The beam model vectorised over scan_many's ranges (the user's NumPy step)."""
    w = np.array([model.z_hit, model.z_short, model.z_max, model.z_rand])
    w = w / w.sum()
    z = np.minimum(np.asarray(observed, float), max_range)[None, :]
    s, lam = model.sigma_hit, model.lambda_short
    mass = 0.5 * (
        _erf((max_range - ranges) / (s * math.sqrt(2))) - _erf(-ranges / (s * math.sqrt(2)))
    )
    p = w[0] * np.exp(-0.5 * ((z - ranges) / s) ** 2) / (s * math.sqrt(2 * math.pi)) / mass
    short = (z <= ranges) & (ranges > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = p + np.where(short, w[1] * lam * np.exp(-lam * z) / -np.expm1(-lam * ranges), 0.0)
    p = p + np.where(z == max_range, w[2], w[3] / max_range)
    with np.errstate(divide="ignore"):
        return np.log(p).sum(axis=1)


_erf = np.vectorize(math.erf)


@st.composite
def likelihood_cases(draw):
    grid = draw(grids(max_side=12))
    n_poses = draw(st.integers(1, 4))
    poses = [(*draw(points(grid)), draw(st.floats(-7, 7))) for _ in range(n_poses)]
    n_beams = draw(st.integers(0, 6))
    angles = draw(
        st.lists(st.sampled_from([0.0, math.pi / 4, math.pi / 2, -math.pi, 1.0, -2.5]),
                 min_size=n_beams, max_size=n_beams)
    )  # fmt: skip
    w, h = grid.tile_size
    max_range = draw(st.sampled_from([0.5, 3.0, 20.0])) * max(w, h)
    # readings near, at and beyond the expected ones, at and beyond max_range
    observed = [
        draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0])) * max_range
        if draw(st.booleans())
        else draw(st.floats(0, 2 * max_range))
        for _ in range(n_beams)
    ]
    return grid, poses, angles, observed, max_range


@given(likelihood_cases(), st.sampled_from([0.25, 0.5, 1.0, 0.3]), st.integers(1, 12))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_table_matches_the_oracle(case, step, size):
    grid, poses, angles, observed, max_range = case
    rng = np.random.default_rng(size)
    table = rng.random((size, size + 3))
    table[rng.random(table.shape) < 0.1] = 0.0  # some readings ruled out: -inf
    resolution = step * max(grid.tile_size)
    got = scan_likelihood(grid, poses, angles, observed, max_range=max_range, table=table,
                          table_resolution=resolution)  # fmt: skip
    for pose, value in zip(poses, got, strict=True):
        expected = oracle.expected_ranges(grid, pose, beam_directions([pose], angles), max_range)
        want = oracle.table_log_likelihood(observed, expected, table.tolist(), resolution)
        assert close(value, want), (pose, value, want)


@given(likelihood_cases(), st.sampled_from([0.05, 0.4, 3.0]), st.sampled_from([0.01, 0.5, 4.0]))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_beam_model_matches_the_oracle(case, sigma, rate):
    grid, poses, angles, observed, max_range = case
    model = BeamModel(0.7, 0.1, 0.05, 0.15, sigma_hit=sigma * max_range, lambda_short=rate)
    got = scan_likelihood(grid, poses, angles, observed, max_range=max_range, model=model)
    for pose, value in zip(poses, got, strict=True):
        expected = oracle.expected_ranges(grid, pose, beam_directions([pose], angles), max_range)
        want = oracle.beam_log_likelihood(observed, expected, model, max_range)
        assert close(value, want), (pose, value, want)


def _basement_like(seed=3, size=160):
    """Rooms and corridors: walls every 20 cells with doors, a few pillars."""
    rng = np.random.default_rng(seed)
    walls = np.zeros((size, size), bool)
    walls[::20, :] = walls[:, ::20] = True
    for k in range(0, size, 20):
        for d in rng.integers(2, size - 4, 6):
            walls[k, d : d + 3] = walls[d : d + 3, k] = False
    walls[rng.random((size, size)) < 0.002] = True
    return Grid(walls, outside="solid")


def _free_poses(grid, n, seed):
    rng = np.random.default_rng(seed)
    rows, cols = np.nonzero(~grid.solid)
    pick = rng.integers(0, len(rows), n)
    return np.column_stack([cols[pick] + rng.random(n), rows[pick] + rng.random(n),
                            rng.uniform(-np.pi, np.pi, n)])  # fmt: skip


@pytest.mark.parametrize(("n_poses", "n_beams"), [(700, 60), (90, 181), (1, 3000), (5, 1)])
def test_table_equals_scan_many_and_numpy_bit_for_bit(n_poses, n_beams):
    grid = _basement_like()
    poses = _free_poses(grid, n_poses, n_beams)
    angles = np.linspace(-0.75 * np.pi, 0.75 * np.pi, n_beams)
    observed = scan_many(grid, poses[:1], angles, 60.0)[0] * 1.01
    table = np.random.default_rng(0).random((121, 121)) + 0.01
    ranges = scan_many(grid, poses, angles, 60.0)
    got = scan_likelihood(grid, poses, angles, observed, max_range=60.0, table=table,
                          table_resolution=0.5)  # fmt: skip
    assert np.array_equal(got, numpy_table(ranges, observed, table, 0.5))


def test_beam_model_equals_scan_many_and_numpy():
    grid = _basement_like()
    poses = _free_poses(grid, 400, 1)
    angles = np.linspace(-np.pi, np.pi, 37)
    observed = scan_many(grid, poses[:1], angles, 40.0)[0]
    observed[::5] = 40.0  # max readings
    observed[1::7] *= 0.5  # short readings
    ranges = scan_many(grid, poses, angles, 40.0)
    got = scan_likelihood(grid, poses, angles, observed, max_range=40.0, model=MODEL)
    want = numpy_beam(ranges, observed, MODEL, 40.0)
    assert np.allclose(got, want, rtol=1e-12, atol=0)
    assert got[0] == got.max()  # the pose the scan was taken from


def test_results_do_not_depend_on_the_thread_count(monkeypatch):
    grid = _basement_like()
    poses = _free_poses(grid, 1500, 2)
    angles = np.linspace(-2, 2, 23)
    observed = np.linspace(0.0, 30.0, 23)
    table = np.random.default_rng(1).random((50, 80))
    kwargs = {"max_range": 30.0, "table": table, "table_resolution": 0.7}
    many = scan_likelihood(grid, poses, angles, observed, **kwargs)
    model = scan_likelihood(grid, poses, angles, observed, max_range=30.0, model=MODEL)
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    assert np.array_equal(scan_likelihood(grid, poses, angles, observed, **kwargs), many)
    alone = scan_likelihood(grid, poses, angles, observed, max_range=30.0, model=MODEL)
    assert np.array_equal(alone, model)


def test_out_is_filled_and_returned():
    grid = _basement_like()
    poses = _free_poses(grid, 50, 3)
    out = np.full(50, np.nan)
    table = np.ones((10, 10))
    got = scan_likelihood(grid, poses, [0.0, 1.0], [1.0, 2.0], max_range=5.0, table=table,
                          table_resolution=1.0, out=out)  # fmt: skip
    assert got is out and np.array_equal(out, np.zeros(50))


def test_empty_cases():
    grid = Grid(np.zeros((3, 3), bool))
    table = np.ones((4, 4))
    kwargs = {"max_range": 2.0, "table": table, "table_resolution": 1.0}
    assert scan_likelihood(grid, np.empty((0, 3)), [0.0], [1.0], **kwargs).shape == (0,)
    assert scan_likelihood(grid, [(1, 1, 0), (2, 2, 0)], [], [], **kwargs).tolist() == [0.0, 0.0]


def test_max_range_inf_with_a_table_uses_the_last_column():
    grid = Grid(np.zeros((5, 5), bool))  # outside empty: a beam leaving the map hits nothing
    table = np.array([[0.5, 0.25, 0.125], [0.5, 0.25, 0.0625]])
    poses = [(2.5, 2.5, 0.0)]
    assert scan_many(grid, poses, [0.0], np.inf).tolist() == [[np.inf]]
    got = scan_likelihood(grid, poses, [0.0], [0.0], max_range=np.inf, table=table,
                          table_resolution=1.0)  # fmt: skip
    assert got.tolist() == [math.log(0.125)]
    got = scan_likelihood(grid, poses, [0.0], [7.0], max_range=np.inf, table=table,
                          table_resolution=1.0)  # fmt: skip
    assert got.tolist() == [math.log(0.0625)]


def test_table_index_rounds_half_to_even():
    grid = Grid(np.ones((1, 1), bool), outside="solid")  # every beam has range 0
    table = np.arange(1.0, 7.0)[:, None] * np.ones((1, 2))  # row i holds i + 1
    obs = [0.5, 1.5, 2.5, 2.4999999999999996, 3.5000000000000004, 1e308]
    got = scan_likelihood(grid, [(0.5, 0.5, 0.0)] * 1, [0.0] * 6, obs, max_range=1.0,
                          table=table, table_resolution=1.0)  # fmt: skip
    rows = [0, 2, 2, 2, 4, 5]
    assert got[0] == sum(math.log(r + 1.0) for r in rows)


def test_beam_model_details():
    grid = Grid(np.zeros((1, 10), bool), outside="solid")  # a corridor 10 long
    pose = [(0.5, 0.5, 0.0)]  # expects 9.5 ahead
    only_hit = BeamModel(1, 0, 0, 0, sigma_hit=1.0, lambda_short=1.0)
    got = scan_likelihood(grid, pose, [0.0], [9.5], max_range=20.0, model=only_hit)[0]
    mass = 0.5 * (math.erf(10.5 / math.sqrt(2)) + math.erf(9.5 / math.sqrt(2)))
    assert math.isclose(got, math.log(1 / math.sqrt(2 * math.pi) / mass), rel_tol=1e-14)
    # 95 sigmas from the wall without a random part: probability 0
    narrow = BeamModel(1, 0, 0, 0, sigma_hit=0.1, lambda_short=1.0)
    assert scan_likelihood(grid, pose, [0.0], [0.0], max_range=20.0, model=narrow)[0] == -np.inf
    # readings at or beyond max_range are the max reading; scale of the weights does not matter
    only_max = BeamModel(0, 0, 2.0, 0, sigma_hit=1e-3, lambda_short=1.0)
    for reading in (5.0, 7.0):
        assert scan_likelihood(grid, pose, [0.0], [reading], max_range=5.0, model=only_max) == 0.0
    # short readings: exponential on [0, expected], nothing beyond
    only_short = BeamModel(0, 1, 0, 0, sigma_hit=1.0, lambda_short=0.5)
    got = scan_likelihood(grid, pose, [0.0], [2.0], max_range=20.0, model=only_short)
    want = math.log(0.5 * math.exp(-1.0) / (1 - math.exp(-0.5 * 9.5)))
    assert math.isclose(got[0], want, rel_tol=1e-14)
    beyond = scan_likelihood(grid, pose, [0.0, 0.0], [2.0, 9.6], max_range=20.0, model=only_short)
    assert beyond[0] == -np.inf


def test_far_rays_and_their_errors_name_the_pose():
    grid = Grid(np.zeros((3, 3), bool))
    poses = np.tile([(1.5, 1.5, 0.5)], (3000, 1))
    poses[2500] = (-1e300, 0.5, 0.0)  # beyond the compiled walk's range: the exact far walk
    angles = [0.0, 0.1]
    table = np.random.default_rng(2).random((8, 8))
    kwargs = {"max_range": 6.0, "table": table, "table_resolution": 1.0}
    got = scan_likelihood(grid, poses, angles, [1.0, 2.0], **kwargs)
    assert np.array_equal(got, numpy_table(scan_many(grid, poses, angles, 6.0), [1, 2], table, 1))
    tiny = Grid(np.zeros((3, 3), bool), tile_size=1e-300)
    poses[:] = (1e-300, 1e-300, 0.5)
    poses[2700] = (1e10, 0.0, 0.5)  # its cell coordinates overflow
    with pytest.raises(ValueError, match=r"poses\[2700\]"):
        scan_likelihood(tiny, poses, angles, [1.0, 2.0], **kwargs)


@pytest.mark.parametrize("chunk_rays", [7, 50, 1 << 18])
def test_poses_in_many_chunks_match_scan_many(monkeypatch, chunk_rays):
    """Large batches are cast and evaluated a chunk of poses at a time
    (``batch.CHUNK_RAYS``); here chunks of one pose, of a few, and one chunk:
    the same numbers, and errors naming the caller's row in a later chunk."""
    import tilecast.batch

    monkeypatch.setattr(tilecast.batch, "CHUNK_RAYS", chunk_rays)
    grid = _basement_like()
    poses = _free_poses(grid, 700, 8)
    angles = np.linspace(-2, 2, 9)
    observed = np.linspace(0.5, 20.0, 9)
    table = np.random.default_rng(3).random((40, 60))
    ranges = scan_many(grid, poses, angles, 25.0)
    got = scan_likelihood(grid, poses, angles, observed, max_range=25.0, table=table,
                          table_resolution=0.5)  # fmt: skip
    assert np.array_equal(got, numpy_table(ranges, observed, table, 0.5))
    got = scan_likelihood(grid, poses, angles, observed, max_range=25.0, model=MODEL)
    assert np.allclose(got, numpy_beam(ranges, observed, MODEL, 25.0), rtol=1e-12, atol=0)
    tiny = Grid(np.zeros((3, 3), bool), tile_size=1e-300)
    far = np.tile([(1e-300, 1e-300, 0.5)], (700, 1))
    far[613] = (1e10, 0.0, 0.5)  # its cell coordinates overflow
    with pytest.raises(ValueError, match=r"poses\[613\]"):
        scan_likelihood(tiny, far, angles, observed, max_range=25.0, model=MODEL)


def test_tile_maps_cast_to_the_pixel():
    slope = np.tril(np.ones((4, 4), dtype=bool))
    tmap = TileMap([[-1, 0, -1, 0], [-1, -1, -1, -1]], TileSet([slope]), outside="solid")
    rng = np.random.default_rng(5)
    n = 3000  # several chunks
    poses = np.column_stack([rng.uniform(0, 4, n), rng.uniform(1, 2, n), rng.uniform(-3, 3, n)])
    angles = np.linspace(-1, 1, 11)
    observed = np.linspace(0, 3, 11)
    table = rng.random((9, 12))
    got = scan_likelihood(tmap, poses, angles, observed, max_range=4.0, table=table,
                          table_resolution=0.5)  # fmt: skip
    ranges = scan_many(tmap, poses, angles, 4.0)
    assert np.array_equal(got, numpy_table(ranges, observed, table, 0.5))
    got = scan_likelihood(tmap, poses, angles, observed, max_range=4.0, model=MODEL)
    assert np.allclose(got, numpy_beam(ranges, observed, MODEL, 4.0), rtol=1e-12, atol=0)
    tiny = TileMap([[-1, 0]], TileSet([slope]), tile_size=1e-300)
    poses = np.tile([(1e-300, 1e-300, 0.5)], (3000, 1))
    poses[2222] = (1e10, 0.0, 0.5)
    with pytest.raises(ValueError, match=r"poses\[2222\]"):
        scan_likelihood(tiny, poses, [0.0], [1.0], max_range=1.0, table=table,
                        table_resolution=1.0)  # fmt: skip


_GRID = Grid(np.zeros((3, 3), bool))
_OK = {"max_range": 2.0, "table": np.ones((3, 3)), "table_resolution": 1.0}


def _call(**changes):
    kwargs = {**_OK, **changes}
    observed = kwargs.pop("observed", [1.0])
    return lambda: scan_likelihood(_GRID, [(1.0, 1.0, 0.0)], [0.0], observed, **kwargs)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (_call(table=np.ones(3)), ValueError, "table must be a non-empty 2D"),
        (_call(table=np.ones((0, 3))), ValueError, "table must be a non-empty 2D"),
        (_call(table=[[1.0, np.nan]]), ValueError, "table must be finite"),
        (_call(table=[[1.0, np.inf]]), ValueError, "table must be finite"),
        (_call(table=[[1.0, -0.1]]), ValueError, "table must be non-negative"),
        (_call(table=[["a"]]), TypeError, "table"),
        (_call(table=np.ones((2, 2), bool)), TypeError, "table"),
        (_call(table_resolution=0.0), ValueError, "table_resolution must be positive"),
        (_call(table_resolution=-1.0), ValueError, "table_resolution"),
        (_call(table_resolution=np.inf), ValueError, "table_resolution"),
        (_call(table_resolution=None), ValueError, "table_resolution is required"),
        (_call(observed=[1.0, 2.0]), ValueError, r"observed must have shape \(1,\)"),
        (_call(observed=[[1.0]]), ValueError, "observed must have shape"),
        (_call(observed=[np.nan]), ValueError, "observed must be finite"),
        (_call(observed=[np.inf]), ValueError, "observed must be finite"),
        (_call(observed=[-1.0]), ValueError, "observed must be non-negative"),
        (_call(table=None), ValueError, "exactly one of model"),
        (_call(model=MODEL), ValueError, "exactly one of model"),
        (_call(table=None, model="beam"), TypeError, "model must be a tilecast.BeamModel"),
        (_call(table=None, model=MODEL), ValueError, "table_resolution goes with table"),
        (
            _call(table=None, table_resolution=None, model=MODEL, max_range=np.inf),
            ValueError,
            "max_range must be finite with a BeamModel",
        ),
        (_call(max_range=0.0), ValueError, "max_range must be positive"),
        (_call(max_range=-1.0), ValueError, "max_range"),
        (_call(max_range=np.nan), ValueError, "max_range"),
        (_call(out=np.empty(2)), ValueError, r"out must have shape \(1,\)"),
        (_call(out=np.empty(1, np.float32)), TypeError, "out must have dtype float64"),
        (_call(out=np.empty(1, ">f8")), TypeError, "out must have dtype"),
        (_call(out=[0.0]), TypeError, "out must be a NumPy array"),
        (_call(out=np.empty(1)), None, None),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    if error is None:
        call()
        return
    with pytest.raises(error, match=match):
        call()


def test_out_not_writable_or_aliasing_is_refused():
    out = np.empty(1)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out must be writable"):
        _call(out=out)()
    with pytest.raises(ValueError, match="out must be C-contiguous"):
        scan_likelihood(_GRID, [(1, 1, 0)] * 2, [0.0], [1.0], out=np.empty(4)[::2], **_OK)
    poses = np.array([[1.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="share memory"):
        scan_likelihood(_GRID, poses, [0.0], [1.0], out=poses[:, 0], **_OK)
    poses = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"C-contiguous|share memory"):
        scan_likelihood(_GRID, poses, [0.0], [1.0], out=poses[0], **_OK)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((-0.1, 0, 0, 1, 1, 1), "z_hit must be non-negative"),
        ((1, -1e-9, 0, 1, 1, 1), "z_short must be non-negative"),
        ((1, 0, np.nan, 1, 1, 1), "z_max must be finite"),
        ((1, 0, 0, np.inf, 1, 1), "z_rand must be finite"),
        ((0, 0, 0, 0, 1, 1), "must be positive, got 0.0"),
        ((1, 0, 0, 0, 0, 1), "sigma_hit must be positive"),
        ((1, 0, 0, 0, -1, 1), "sigma_hit must be positive"),
        ((1, 0, 0, 0, 1, 0), "lambda_short must be positive"),
        ((1, 0, 0, 0, 1, np.inf), "lambda_short must be finite"),
    ],
)
def test_bad_beam_models(args, match):
    with pytest.raises(ValueError, match=match):
        BeamModel(*args)
    with pytest.raises(TypeError, match="z_hit"):
        BeamModel("1", 0, 0, 0, 1, 1)


# --------------------------------------------------------------- range_libc
def _range_libc_frame(rm, grid, poses):
    """The query converter under which range_libc's casts best match ours (its builds differ)."""
    exact = scan_many(grid, poses, [0.0], 100.0).ravel()
    best, best_share = None, 0.0
    for convert in (
        lambda q: q,  # the registry build: (x, y, theta)
        lambda q: np.column_stack([q[:, 1], q[:, 0], np.pi / 2 - q[:, 2]]),  # ROS conversion on
    ):
        out = np.empty(len(poses), np.float32)
        rm.calc_range_many(np.ascontiguousarray(convert(poses), dtype=np.float32), out)
        share = (np.abs(out - exact) < 0.01).mean()
        if share > best_share:
            best, best_share = convert, share
    assert best_share > 0.8, "range_libc's casts match no known frame"
    return best


def test_agrees_with_range_libc_on_its_own_table():
    """range_libc (pip install pyrangelibc-danieldugas) evaluating the same table.

    range_libc casts the expanded rays with ``calc_range_many``; its
    ``eval_sensor_model`` (the product of ``table[(int) observed][(int)
    expected]``, pixels = world units here) evaluates them. The registry
    build compiles that helper out (it writes nothing); there its rule is
    applied to its ranges in NumPy instead. Its ranges are approximate and
    its index truncates where ours rounds, so on poses whose every range lies
    within half a pixel of the exact one each beam's column differs by at
    most one: the log-likelihoods differ by at most the largest step between
    neighbouring columns of the beam's row. Readings are k + 0.25, the same
    row either way.
    """
    range_libc = pytest.importorskip("range_libc")
    grid = _basement_like(size=200)
    rm = range_libc.PyRayMarching(range_libc.PyOMap(np.array(grid.solid)), 100)
    poses = _free_poses(grid, 400, 9)
    convert = _range_libc_frame(rm, grid, poses)
    angles = np.linspace(-2.0, 2.0, 20)
    ours = scan_many(grid, poses, angles, 100.0)
    rays = np.column_stack([np.repeat(poses[:, :2], len(angles), axis=0),
                            (poses[:, 2:3] + angles[None, :]).reshape(-1)])  # fmt: skip
    theirs = np.empty(len(rays), np.float32)
    rm.calc_range_many(np.ascontiguousarray(convert(rays), dtype=np.float32), theirs)
    agree = (np.abs(theirs.reshape(ours.shape) - ours) < 0.5).all(axis=1)
    assert agree.mean() > 0.5  # the same map, frame and rays (range_libc: off the map is max)
    x = np.arange(101.0)
    table = np.exp(-0.5 * ((x[:, None] - x[None, :]) / 6.0) ** 2) + 0.05
    table /= table.sum(axis=0)  # each column a distribution over readings, as the MIT filter's
    rm.set_sensor_model(table)
    observed = np.floor(ours[0]) + 0.25
    weights = np.full(len(poses), np.nan)
    rm.eval_sensor_model(observed.astype(np.float32), theirs, weights, len(angles), len(poses))
    if np.isnan(weights).all():  # the helper is compiled out: its rule, in NumPy
        d = np.clip(theirs.reshape(ours.shape), 0, 100).astype(int)
        weights = np.prod(table[observed.astype(int)[None, :], d], axis=1)
    got = scan_likelihood(grid, poses, angles, observed, max_range=100.0, table=table,
                          table_resolution=1.0)  # fmt: skip
    steps = np.abs(np.diff(np.log(table), axis=1)).max(axis=1)
    bound = steps[observed.astype(int)].sum()
    difference = np.abs(got - np.log(weights))[agree]
    assert difference.max() <= bound * (1 + 1e-9)
    assert difference.max() > 0  # rounding and truncation differ somewhere


# ------------------------------------------------------------- concurrency
class _AsRanges:  # the shape test_concurrency's comparison reads
    def __init__(self, values):
        self.distance = values
        self.cell = values


def test_edits_while_likelihoods_run_are_seen_whole():
    from test_concurrency import _flip_while_casting

    rng = np.random.default_rng(8)
    grid = Grid(rng.random((96, 96)) < 0.05, outside="solid")
    wall = np.array([(i, 48) for i in range(8, 88)])
    poses = np.column_stack([rng.random((600, 2)) * 96, rng.uniform(-3, 3, 600)])
    angles = np.linspace(-np.pi, np.pi, 40, endpoint=False)
    observed = np.full(40, 10.0)
    table = rng.random((60, 60)) + 0.01
    seen = _flip_while_casting(
        grid,
        lambda: grid.set_solid(wall, False),
        lambda: grid.set_solid(wall, True),
        lambda: _AsRanges(scan_likelihood(grid, poses, angles, observed, max_range=50.0,
                                          table=table, table_resolution=1.0)),
    )  # fmt: skip
    assert "mixed" not in seen, seen
