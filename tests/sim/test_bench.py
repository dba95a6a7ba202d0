"""The benchmark's spread over cold starts: same measured span, one row per budget."""

from __future__ import annotations

import numpy as np

from smartreader.sim import bench
from smartreader.sim.synthetic import generate


def test_cold_starts_measure_the_same_span_and_report_each_budget() -> None:
    trace, caps = generate(4, 4, seed=3)
    bench._TRACE.clear()
    bench._CAPS.clear()
    bench._init(trace, caps)
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
