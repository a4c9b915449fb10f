"""benchmarks/_harness.py: the order of the rounds, the figures, the table and its JSON."""

import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import _harness as bench  # noqa: E402


def _recorder(calls, name, value=None):
    def run():
        calls.append(name)
        return value

    return run


def test_rounds_interleave_after_the_warm_up():
    calls = []
    systems = {k: _recorder(calls, k) for k in "abc"}
    times = bench.interleave(systems, 2, warmup=1)
    assert calls == list("abc" * 3)
    assert [len(times[k].samples) for k in "abc"] == [2, 2, 2]
    assert all(t.calls == 1 and t.median >= 0 and t.min <= t.median for t in times.values())
    calls.clear()
    bench.interleave(systems, 3, warmup=0, alternate=True)
    assert "".join(calls) == "abccbaabc"


def test_batches_parts_and_the_last_result():
    calls = []
    times = bench.interleave(
        {"fast": _recorder(calls, "fast", bench.Parts(x=2.0)), "one": lambda: 7},
        3,
        min_sample_s=1e-3,
    )
    assert times["fast"].calls > 1 and len(times["fast"].samples) == 3
    assert times["fast"].part("x") == 2.0 and times["one"].result == 7
    assert calls.count("fast") == 1 + 1 + 3 * times["fast"].calls  # warm-up, sizing, rounds
    summary = times["fast"].summary()
    assert summary["rounds"] == 3 and summary["x_median_s"] == 2.0
    assert bench.Timing(samples=[1.0, 2.0, 4.0]).spread == pytest.approx(1.5)


def test_gc_is_back_on_after_the_rounds():
    import gc

    assert gc.isenabled()
    bench.interleave({"a": lambda: None}, 2, gc_off=True)
    assert gc.isenabled()


def test_table_ratios_within_groups(capsys):
    table = bench.Table(
        "t",
        ["n", "system", bench.col("ms", ".1f"),
         bench.ratio("speed-up", of="ms", baseline="base", by="system", within="n", invert=True),
         bench.col("share", ".0f", " %")],
    )  # fmt: skip
    table.add(1, "base", 4.0, 50)
    table.add(1, "fast", 2.0, None)
    table.add(2, "fast", 1.0, math.nan)
    table.print()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| n | system | ms | speed-up | share |"
    assert out[1] == "|---|---|---:|---:|---:|"
    assert out[2:] == [
        "| 1 | base | 4.0 | 1.00x | 50 % |",
        "| 1 | fast | 2.0 | 2.00x | - |",
        "| 2 | fast | 1.0 | - | - |",  # no baseline in its group
    ]
    table.add(2, "base", 3.0, 1)
    table.print()  # only the new row, and the ratios of the group now known
    assert capsys.readouterr().out == "| 2 | base | 3.0 | 1.00x | 1 % |\n"
    assert table.to_json()["rows"][2] == {"n": 2, "system": "fast", "ms": 1.0,
                                          "speed_up": 3.0, "share": None}  # fmt: skip
    with pytest.raises(ValueError, match="columns"):
        table.add(1, "base")


def test_report_writes_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench, "_MISSING", ["nopeer not installed: not timed"])
    monkeypatch.setattr(bench, "_CURRENT", None)  # start() sets it; put back afterwards
    path = tmp_path / "out" / "demo.json"
    parser = bench.arguments(__doc__)
    args = parser.parse_args(["--json", str(path)])
    report = bench.start("benchmarks/demo.py", args)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("machine: ") and "load " in out[0] and "numpy " in out[0]
    assert out[1] == "nopeer not installed: not timed"
    bench.interleave({("w", "a"): lambda: None}, 2, label="work")
    report.table("speed", ["system", bench.col("ms", ".2f")]).add("a", 1.5)
    report.note("share", 0.5)
    report.save()
    data = json.loads(path.read_text())
    assert data["script"] == "demo" and data["machine"]["cores"] >= 1
    assert len(data["machine"]["load"]) == 3 and len(data["load_end"]) == 3
    assert data["tables"][0]["rows"] == [{"system": "a", "ms": 1.5}]
    assert data["timings"][0]["label"] == "work"
    assert data["timings"][0]["systems"]["w / a"]["rounds"] == 2
    assert data["notes"]["share"] == 0.5
    assert data["notes"]["not installed"] == ["nopeer not installed: not timed"]


def test_optional_reports_a_missing_module(monkeypatch):
    monkeypatch.setattr(bench, "_MISSING", [])
    monkeypatch.setattr(bench, "_CURRENT", None)
    assert bench.optional("json") is json
    assert bench.optional("no_such_module_here", "pip install it") is None
    assert bench._MISSING == ["no_such_module_here not installed (pip install it): not timed"]
