"""The sort keys a re-query reads: entries stored since an id, and a few rows'."""

from __future__ import annotations

from smartreader.core.models import ParsedEntry
from smartreader.storage import FetchRecord, Store


def pe(uid: str, published: float, title: str) -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, "<p>x</p>", "")


def test_entry_sort_rows_since_and_of(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    a = s.add_feed("https://a.example/feed")
    b = s.add_feed("https://b.example/feed")
    # documents list their newest item first: ids 1-5 are a4..a0, 6-10 b4..b0
    s.record_fetch(
        FetchRecord(
            a, 1000.0, "ok", entries=[pe(f"a{k}", 100.0 + k, f"A{k}") for k in range(4, -1, -1)]
        )
    )
    s.record_fetch(
        FetchRecord(
            b, 1000.0, "ok", entries=[pe(f"b{k}", 200.0 + k, f"B{k}") for k in range(4, -1, -1)]
        )
    )
    s.set_read([7])
    rows = sorted(s.entry_sort_rows_since(4))
    assert [r[0] for r in rows] == [5, 6, 7, 8, 9, 10]
    assert rows[0] == (5, a, "A0", 100.0)
    assert [r[0] for r in sorted(s.entry_sort_rows_since(4, feed_ids=[b], unread=True))] == [
        6,
        8,
        9,
        10,
    ]
    assert s.entry_sort_rows_since(4, feed_ids=[]) == []
    assert sorted(s.entry_sort_rows_of([2, 9, 999])) == [(2, a, "A3", 103.0), (9, b, "B1", 201.0)]
    assert s.entry_sort_rows_of([]) == []
    s.close()
