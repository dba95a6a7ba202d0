"""The article list shows items that share a time (dated by day only, or undated)
in the order they were published: newest first is the feed's document order, a
later fetch's new items above an earlier fetch's; oldest first the exact reverse;
by title or feed, newest first within it. The same when new items arrive while
the list is shown, or while it still loads in pages."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import COL_DATE, COL_FEED, COL_TITLE, ArticleListModel
from smartreader.storage import FetchRecord, Store

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
DAY = 1_714_521_600.0  # 2024-05-01 00:00 UTC: a date with no time of day
HOUR = 3600.0


def pe(uid: str, published: float | None, title: str = "") -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, "<p>x</p>", "")


def fetch(store: Store, fid: int, at: float, names: list[str], published: float | None) -> None:
    """A document listing ``names`` (newest first), all of one date (or none)."""
    store.record_fetch(FetchRecord(fid, at, "ok", entries=[pe(u, published) for u in names]))


def names(n: int, start: int = 0) -> list[str]:
    """``n`` items published in turn, as a feed lists them: newest first."""
    return [f"i{k:02}" for k in range(start + n - 1, start - 1, -1)]


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    s.add_feed("https://day.example/feed", title="Days")  # 1: dates without a time
    s.add_feed("https://bare.example/feed", title="Bare")  # 2: no dates
    yield s
    s.close()


def shown(store: Store, m: ArticleListModel) -> list[str]:
    return [store.entry(i).uid for i in m.ids()]


def model(store: Store, col: int, order: Qt.SortOrder, **q) -> ArticleListModel:
    m = ArticleListModel(store)
    m.sort(col, order)
    m.set_query(**q)
    return m


@pytest.mark.parametrize("fid,published", [(1, DAY), (2, None)])
@pytest.mark.parametrize("col", [COL_DATE, COL_TITLE, COL_FEED])
def test_ties_show_newest_first_and_exactly_reversed(
    qtbot, store, small_pages, fid, published, col
):
    # The first fetch brings 30 items; two later ones 3 and 2 newer ones each (the
    # day's date, or none: then each fetch is one time).
    fetch(store, fid, DAY + 9 * HOUR, names(30), published)
    fetch(store, fid, DAY + 12 * HOUR, names(33), published)
    fetch(store, fid, DAY + 15 * HOUR, names(35), published)
    want = names(35)
    for order, expect in ((DESC, want), (ASC, want[::-1])):
        if col != COL_DATE:  # by title or feed: ascending is newest first within it
            expect = expect[::-1]
        m = model(store, col, order)
        assert m.loading()  # in pages: the ties straddle them
        with qtbot.waitSignal(m.loaded, timeout=5000):
            pass
        assert shown(store, m) == expect


@pytest.mark.parametrize("order", [DESC, ASC])
def test_a_later_fetch_of_the_same_day_goes_to_its_place(qtbot, store, order):
    fetch(store, 1, DAY + 9 * HOUR, names(3), DAY)
    m = model(store, COL_DATE, order)
    assert shown(store, m) == (names(3) if order == DESC else names(3)[::-1])

    fetch(store, 1, DAY + 15 * HOUR, names(5), DAY)  # i04, i03 are new, newer
    added = m.requery()

    assert [store.entry(i).uid for i in added] == (
        ["i04", "i03"] if order == DESC else ["i03", "i04"]
    )
    want = names(5) if order == DESC else names(5)[::-1]
    assert shown(store, m) == want
    assert shown(store, model(store, COL_DATE, order)) == want  # as read afresh


@pytest.mark.parametrize(
    "col,order",
    [(COL_DATE, ASC), (COL_TITLE, ASC), (COL_TITLE, DESC), (COL_FEED, ASC), (COL_FEED, DESC)],
)
def test_new_ties_while_the_list_loads(qtbot, store, small_pages, col, order):
    """A day's items in pages; a fetch adds newer items of that day after the first
    page: those before the pager's position are inserted, the rest its pages read,
    each once and at its place."""
    fetch(store, 1, DAY + 9 * HOUR, names(40), DAY)
    m = model(store, col, order)
    while m.rowCount() < 12:
        m._load_more()
    assert m.loading()

    fetch(store, 1, DAY + 15 * HOUR, names(44), DAY)
    added = m.requery()
    with qtbot.waitSignal(m.loaded, timeout=5000):
        pass

    newest_first = (col == COL_DATE) == (order == DESC)
    want = names(44) if newest_first else names(44)[::-1]
    assert shown(store, m) == want
    assert sorted(store.entry(i).uid for i in added) == ["i40", "i41", "i42", "i43"]
    assert m.requery() == []
