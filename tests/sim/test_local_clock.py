"""Synthetic feeds on a local wall clock (the clock-change diagnostic's world)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from smartreader.core.estimator import HOUR, MONDAY0, WEEK
from smartreader.sim.replay import replay, trace_span
from smartreader.sim.synthetic import eu_summer_time, local_clock_trace

SPRING = datetime(2026, 3, 29, 1, tzinfo=UTC).timestamp()
AUTUMN = datetime(2026, 10, 25, 1, tzinfo=UTC).timestamp()


def test_eu_summer_time_matches_the_time_zone_database() -> None:
    try:
        berlin = ZoneInfo("Europe/Berlin")
    except Exception:  # no tz database on this machine
        pytest.skip("no time-zone database")
    rng = np.random.default_rng(7)
    t = rng.uniform(datetime(1996, 1, 1, tzinfo=UTC).timestamp(), 2.5e9, 20_000)
    edges = [c + d for c in (SPRING, AUTUMN) for d in (-1.0, 0.0, 1.0)]
    t = np.concatenate((t, edges))
    want = [datetime.fromtimestamp(x, berlin).utcoffset().total_seconds() == 2 * HOUR for x in t]
    assert eu_summer_time(t).tolist() == want
    assert eu_summer_time(np.array(edges)).tolist() == [False, True, True, True, False, False]


def test_the_eu_clock_matches_its_controls_until_a_change_and_is_an_hour_off_after() -> None:
    start = MONDAY0 + np.floor((SPRING - 3 * WEEK - MONDAY0) / WEEK) * WEEK
    eu, caps = local_clock_trace(5, 6, seed=2, start=start, clock="eu")
    std, caps2 = local_clock_trace(5, 6, seed=2, start=start, clock="standard")
    assert caps == caps2 and eu.keys() == std.keys()
    for fid in eu:
        before_e, before_s = eu[fid][eu[fid] < SPRING - HOUR], std[fid][std[fid] < SPRING - HOUR]
        np.testing.assert_array_equal(before_e, before_s)
        after_e, after_s = eu[fid][eu[fid] > SPRING + HOUR], std[fid][std[fid] > SPRING + 2 * HOUR]
        np.testing.assert_allclose(after_s[-after_e.size :] - after_e, HOUR)
    # in autumn the control is the summer clock
    start = MONDAY0 + np.floor((AUTUMN - 3 * WEEK - MONDAY0) / WEEK) * WEEK
    eu, _ = local_clock_trace(5, 6, seed=2, start=start, clock="eu")
    summer, _ = local_clock_trace(5, 6, seed=2, start=start, clock="summer")
    for fid in eu:
        np.testing.assert_array_equal(eu[fid][eu[fid] < AUTUMN], summer[fid][summer[fid] < AUTUMN])
    with pytest.raises(ValueError, match="clock"):
        local_clock_trace(1, 1, clock="Europe/Berlin")


def test_replay_hands_back_every_items_outcome() -> None:
    trace, caps = local_clock_trace(4, 3, seed=1)
    out: list = []
    r = replay(trace, caps, "fixed", 4 * 24 / 6, warmup_days=7, outcomes=out)
    ((arr, delay, missed),) = out
    assert arr.size == sum(v.size for v in trace.values())
    start, end = trace_span(trace)
    measured = (arr >= start + 7 * 86400) & (arr <= end) & np.isfinite(delay)
    assert np.isclose(delay[measured].mean() / 60, r.mean_delay_min)
    assert int(missed.sum()) >= r.missed


def test_the_clock_change_benchmark_prints_equal_weeks_before_each_change(tmp_path) -> None:
    """``benchmarks/dst.py`` at its smallest: a row per budget and change, and the
    weeks before a change identical to the control's (same world until then)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "dst.py"
    spec = importlib.util.spec_from_file_location("dst_benchmark", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "dst.md"
    argv = ["--seeds", "1", "--feeds", "4", "--hours", "24", "--jobs", "1", "--out", str(out)]
    assert mod.main(argv) == 0
    rows = [r for r in out.read_text(encoding="utf-8").splitlines() if r.startswith("| 24 h")]
    assert len(rows) == 2  # spring and autumn
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == "1.000"  # week -2: the worlds are still identical
        assert len(cells) == 1 + len(mod.SHOWN) + 1
