"""The replay world of shared/traces/README.md: windows, first sightings, ground truth."""

from __future__ import annotations

import numpy as np

from smartreader.sim.world import World, load_capacities, load_trace


def test_fetch_returns_the_latest_capacity_items_and_flags_new_ones():
    w = World({"f": np.arange(1.0, 11.0)}, {"f": 4})
    obs, truth = w.fetch("f", 5.5)
    assert [i.published for i in obs.items] == [5.0, 4.0, 3.0, 2.0]
    assert all(i.is_new for i in obs.items)
    assert truth.missed_truth == 0  # nothing before the first fetch counts
    obs, truth = w.fetch("f", 7.0)
    assert [(i.published, i.is_new) for i in obs.items] == [
        (7.0, True),
        (6.0, True),
        (5.0, False),
        (4.0, False),
    ]
    assert truth.new_items == 2 and truth.missed_truth == 0


def test_items_that_scroll_out_unseen_are_missed():
    w = World({"f": np.arange(1.0, 21.0)}, {"f": 3})
    w.fetch("f", 2.0)  # sees 1, 2
    obs, truth = w.fetch("f", 10.0)  # window 8, 9, 10; 3..7 scrolled out
    assert truth.missed_truth == 5
    assert all(i.is_new for i in obs.items)
    _arr, delay, missed = w.item_outcomes(10.0)
    assert missed.sum() == 5
    assert np.nanmax(delay) == 2.0  # item 8 seen at 10
    assert delay[0] == 1.0 and delay[1] == 0.0


def test_loaders_read_the_shared_formats(tmp_path):
    tr = tmp_path / "t.csv"
    tr.write_text("feed_id,published\na,30\nb,10\na,20\n", encoding="utf-8")
    fe = tmp_path / "f.csv"
    fe.write_text("feed_id,capacity\na,15\n", encoding="utf-8")
    trace = load_trace(tr)
    assert list(trace["a"]) == [20.0, 30.0]
    assert load_capacities(fe) == {"a": 15}
    assert load_capacities(None) == {}
