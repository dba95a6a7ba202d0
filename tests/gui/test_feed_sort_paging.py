"""Sorting by feed loads in pages (a feed group at a time) and gives exactly the
order of sorting the whole list in Python: case-folded feed title, newest first
within it, equal keys in id order (as by date); descending is the exact reverse."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import COL_FEED, ArticleListModel
from smartreader.storage import FetchRecord, Store

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder


def pe(uid: str, published: float, title: str) -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, "<p>x</p>", "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    # two feeds share a folded title (their entries interleave by date)
    feeds = [("Mango", 60), ("apricot", 45), ("Zucchini", 20), ("mango", 35), ("Empty", 0)]
    for k, (title, n) in enumerate(feeds):
        fid = s.add_feed(f"https://f{k}.example/feed", title=title)
        entries = [
            pe(f"{k}-{i}", 1000.0 + (i * 7 + k * 3) % 40, "cats" if i % 3 else "dogs")
            for i in range(n)
        ]
        s.record_fetch(FetchRecord(fid, 5000.0, "ok", entries=entries))
    s.set_read(list(range(1, 160, 3)))
    yield s
    s.close()


def expected(store: Store, order: Qt.SortOrder, **q) -> list[int]:
    """The old whole-list sort, written out independently of the model."""
    ids = sorted(store.entry_ids(**q))
    rows = store.entry_rows(ids)
    titles = {f.id: f.display_title.casefold() for f in store.feeds()}
    return sorted(
        ids,
        key=lambda i: (titles[rows[i].feed_id], -rows[i].sort_time, i),
        reverse=order == DESC,
    )


@pytest.mark.parametrize("order", [ASC, DESC])
@pytest.mark.parametrize(
    "query",
    [{}, {"unread": True}, {"search": "dogs"}, {"feed_ids": [1, 4]}, {"feed_ids": [5]}],
    ids=["all", "unread", "search", "two-feeds", "empty-feed"],
)
def test_feed_sort_is_paged_and_exact(qtbot, store, small_pages, order, query):
    m = ArticleListModel(store)
    m.sort(COL_FEED, order)
    m.set_query(**query)
    want = expected(store, order, **query)
    if len(want) > 20 and "search" not in query:
        assert m.loading() and m.rowCount() < len(want)  # not read in one call
    m.finish_loading()
    assert m.ids() == want
