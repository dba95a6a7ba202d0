"""Sorting the article list by title reads it in keyset pages, like by date, and
keeps the selected row across the sort even when its page is not in yet."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QTableView

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import COL_DATE, COL_TITLE, ArticleListModel, EntryIdRole
from smartreader.storage import FetchRecord, Store

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
WORDS = ["Zebra", "apple", "Straße", "strasse", "Éclair", "banana", "cats", "Dogs", "éclair"]


def pe(uid: str, published: float, title: str) -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, "<p>x</p>", "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    a = s.add_feed("https://a.example/feed")
    b = s.add_feed("https://b.example/feed")
    for fid, n in ((a, 200), (b, 100)):
        s.record_fetch(
            FetchRecord(
                fid,
                5000.0,
                "ok",
                entries=[
                    pe(f"{fid}-{i}", 1000.0 + i // 5, f"{WORDS[i * 7 % len(WORDS)]} {i % 4}")
                    for i in range(n)
                ],
            )
        )
    s.set_read(list(range(1, 300, 4)))
    yield s
    s.close()


def title_order(store: Store, order: Qt.SortOrder, **q) -> list[int]:
    ids = store.entry_ids(**q)
    rows = store.entry_rows(ids)
    out = sorted(ids, key=lambda i: (rows[i].title.casefold(), -rows[i].sort_time, i))
    return out[::-1] if order == DESC else out


@pytest.mark.parametrize("order", [ASC, DESC])
@pytest.mark.parametrize(
    "query", [{}, {"unread": True}, {"feed_ids": [2]}, {"search": "cats"}, {"starred": True}]
)
def test_sort_by_title_arrives_in_pages(qtbot, store, small_pages, order, query):
    store.set_starred(list(range(5, 300, 9)))
    m = ArticleListModel(store)
    m.set_query(**query)
    m.finish_loading()
    with qtbot.waitSignal(m.loaded, timeout=5000):
        m.sort(COL_TITLE, order)
        assert m.loading()
        assert m.rowCount() < len(store.entry_ids(**query))
    assert m.ids() == title_order(store, order, **query)
    # Back to date: paged again, the same list as the store's.
    with qtbot.waitSignal(m.loaded, timeout=5000):
        m.sort(COL_DATE, DESC)
    assert m.ids() == store.entry_ids(**query)


def test_a_new_query_while_sorted_by_title_is_paged(qtbot, store, small_pages):
    m = ArticleListModel(store)
    m.sort(COL_TITLE, DESC)
    with qtbot.waitSignal(m.loaded, timeout=5000):
        m.set_query(unread=True)
        assert m.loading()
    assert m.ids() == title_order(store, DESC, unread=True)


def _view(m: ArticleListModel) -> QTableView:
    view = QTableView()
    view.setModel(m)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setSortingEnabled(False)
    return view


def _select(view: QTableView, row: int) -> None:
    view.selectionModel().setCurrentIndex(
        view.model().index(row, COL_TITLE),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )


def _selected_id(view: QTableView) -> int | None:
    rows = view.selectionModel().selectedRows()
    return rows[0].data(EntryIdRole) if rows else None


@pytest.mark.parametrize("order", [ASC, DESC])
def test_sort_keeps_a_selection_whose_page_is_not_in_yet(qtbot, store, small_pages, order):
    m = ArticleListModel(store)
    m.set_query()
    m.finish_loading()
    want = title_order(store, order)
    # The entry that sorts last: far beyond the first page of the new order.
    target = want[-1]
    view = _view(m)
    qtbot.addWidget(view)
    _select(view, m.row_of(target))
    held = QPersistentModelIndex(m.index(m.row_of(target), COL_DATE))
    with qtbot.waitSignal(m.loaded, timeout=5000):
        view.sortByColumn(COL_TITLE, order)
        assert m.loading()
        # Parked after the rows read so far, still selected.
        assert _selected_id(view) == target and m.entry_id(held.row()) == target
        assert held.row() == m.rowCount() - 1
    assert m.ids() == want
    assert _selected_id(view) == target
    assert held.isValid() and m.entry_id(held.row()) == target == m.ids()[-1]


def test_parked_rows_move_to_their_places(qtbot, qtmodeltester, store, small_pages):
    m = ArticleListModel(store)
    m.set_query()
    m.finish_loading()
    want = title_order(store, ASC)
    by_date = m.ids()
    # Parked in their old (date) order; the one found first in title order is not
    # the first parked, so it moves past the other.
    a, b = want[len(want) // 2], want[-20]
    if by_date.index(a) < by_date.index(b):
        a = next(i for i in want[len(want) // 2 : -20] if by_date.index(i) > by_date.index(b))
    view = _view(m)
    qtbot.addWidget(view)
    _select(view, m.row_of(a))
    held = [QPersistentModelIndex(m.index(m.row_of(t), 1)) for t in (a, b)]
    moves: list[int] = []
    m.rowsMoved.connect(lambda *args: moves.append(1))
    view.sortByColumn(COL_TITLE, ASC)
    qtmodeltester.check(m)
    n = m.rowCount()
    assert m.loading() and n < len(want)
    assert [m.entry_id(r) for r in (n - 2, n - 1)] == [b, a]  # parked, in date order
    qtbot.waitUntil(lambda: not m.loading(), timeout=5000)
    qtmodeltester.check(m)
    assert moves and m.ids() == want
    assert [m.entry_id(h.row()) for h in held] == [a, b]
    assert _selected_id(view) == a


def test_a_selected_row_that_no_longer_matches_stays(qtbot, store, small_pages):
    """As after a re-query: the article read a moment ago does not vanish, and
    it takes its place in the new order (it was left at the end)."""
    m = ArticleListModel(store)
    m.set_query(unread=True)
    m.finish_loading()
    target = m.ids()[3]
    view = _view(m)
    qtbot.addWidget(view)
    _select(view, 3)
    store.set_read([target])
    with qtbot.waitSignal(m.loaded, timeout=5000):
        view.sortByColumn(COL_TITLE, DESC)
    shown = {*title_order(store, DESC, unread=True), target}
    assert m.ids() == [i for i in title_order(store, DESC) if i in shown]
    assert m.ids()[-1] != target
    assert _selected_id(view) == target


def test_sort_of_a_short_list_finishes_at_once(qtbot, store):
    m = ArticleListModel(store)
    m.set_query(feed_ids=[2])
    target = m.ids()[-1]
    held = QPersistentModelIndex(m.index(len(m.ids()) - 1, 0))
    with qtbot.waitSignal(m.loaded, timeout=1000):
        m.sort(COL_TITLE, ASC)
    assert not m.loading()
    assert m.ids() == title_order(store, ASC, feed_ids=[2])
    assert m.entry_id(held.row()) == target
