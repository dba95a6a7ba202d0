"""The benchmark's spread over cold starts: same measured span, one row per budget."""

from __future__ import annotations

import numpy as np

from smartreader.sim import bench
from smartreader.sim.synthetic import generate


def test_cold_starts_measure_the_same_span_and_report_each_budget() -> None:
    trace, caps = generate(4, 4, seed=3)
    bench._use(trace, caps)
    budget = 4 * 24.0 / 12.0
    a = bench._job(("fixed", budget, 0.0))
    b = bench._job(("fixed", budget, 9 * 3600.0))
    # the earlier start only lengthens the warm-up: the items measured are the same
    assert a.items == b.items > 0
    assert a.fetches_per_day == b.fetches_per_day == budget
    rows = bench.cold_starts(trace, [12.0, 24.0], 2, 1)
    assert len(rows) == 4  # header, rule, one row per interval
    cells = [c.strip() for c in rows[2].strip("|").split("|")]
    assert cells[0] == "12 h" and len(cells) == 11
    smart, fixed = (float(c.split("±")[0]) for c in cells[1:3])
    assert np.isclose(float(cells[4]), smart / fixed, atol=1e-3)
    assert cells[8].endswith("of 2")


def test_derived_worlds_partition_the_feeds_and_report_every_ratio() -> None:
    trace, caps = generate(6, 4, seed=5)
    caps[sorted(trace)[0]] = 30
    worlds = bench.variants(trace, caps)
    (moved_name, moved, moved_caps), (_, even, even_caps), (_, full, halved), stop = worlds
    assert sorted([*moved, *even]) == sorted(trace) and not set(moved) & set(even)
    shift = 3 * bench.DAY + 5 * 3600 + 17 * 60
    for f, arr in moved.items():
        assert np.array_equal(arr, trace[f] + shift)
    assert "3 d 5 h 17 min" in moved_name
    assert moved_caps == {f: caps[f] for f in moved} and even_caps == {f: caps[f] for f in even}
    assert full.keys() == trace.keys()
    assert halved[sorted(trace)[0]] == 15 and all(c >= 5 for c in halved.values())
    # every third feed (in id order) ends 4 weeks in; the others are whole
    name, quiet, quiet_caps = stop
    assert "silent after 4 weeks" in name and quiet_caps == caps and quiet.keys() == trace.keys()
    t0 = bench.trace_span(trace)[0]
    for i, f in enumerate(sorted(trace)):
        cut = trace[f][trace[f] < t0 + 28 * bench.DAY]
        assert np.array_equal(quiet[f], cut if i % 3 == 0 else trace[f])

    rows = bench.held_out(trace, caps, [12.0], 1)
    assert len(rows) == 2 + len(worlds)  # header, rule, one row per world
    for row, (name, tr, _) in zip(rows[2:], worlds, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[:3] == [name, str(len(tr)), "12 h"] and len(cells) == 10
        assert float(cells[3]) > 0 and all(float(c) > 0 for c in cells[4:8])
        smart_missed, fixed_missed, oracle_missed = (int(x) for x in cells[8].split("/"))
        assert min(smart_missed, fixed_missed, oracle_missed) >= 0
