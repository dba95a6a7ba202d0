"""Dismissing a feed's missed-item alerts together (the banner's one Dismiss), on a
real SQLite file: only that feed's, only up to the newest one the user saw, and
every row is kept."""

from __future__ import annotations

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.storage import FetchRecord, Store


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def overflow(store: Store, feed_id: int, t: float) -> int:
    entries = [ParsedEntry(f"{feed_id}-{t}-{i}", "x", None, "", t, None, "", "") for i in range(3)]
    out = store.record_fetch(FetchRecord(feed_id, t, "ok", entries=entries, missed_estimate=2.0))
    assert out.alert_id
    return out.alert_id


def test_dismiss_feed_alerts_through_an_id_keeps_later_and_other_feeds_alerts(store):
    a = store.add_feed("https://a.example/feed", now=0.0)
    b = store.add_feed("https://b.example/feed", now=0.0)
    old = overflow(store, a, 100.0)
    mid = overflow(store, a, 200.0)
    other = overflow(store, b, 250.0)
    store.dismiss_alerts([old])  # dismissed before: not counted again
    seen = overflow(store, a, 300.0)
    later = overflow(store, a, 400.0)  # raised after the user looked

    assert store.dismiss_feed_alerts(seen) == 2  # mid and seen
    assert sorted(x.id for x in store.alerts()) == sorted([other, later])
    everything = store.alerts(include_dismissed=True)
    assert {x.id for x in everything} == {old, mid, other, seen, later}
    assert {x.id for x in everything if x.dismissed} == {old, mid, seen}
    assert store.dismiss_feed_alerts(seen) == 0  # idempotent
    assert store.dismiss_feed_alerts(10_000) == 0  # unknown id: nothing
