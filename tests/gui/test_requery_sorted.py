"""A re-query after an update inserts only the new entries, each at its place in
the current sort order (date, title, feed; either direction), with row inserts, or
one layout change when they land in many places (no model reset), keeping the
selection; while the list is still loading, the
entries after the rows read so far are left to the pager (once each, no gaps)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QTableView

import smartreader.gui.models as models
from smartreader.core.models import ParsedEntry
from smartreader.gui.models import COL_DATE, COL_FEED, COL_TITLE, ArticleListModel
from smartreader.storage import FetchRecord, Store

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
WORDS = ["Zebra", "apple", "Straße", "strasse", "Éclair", "banana", "cats", "Dogs", "éclair"]
MODES = [
    (COL_DATE, ASC),
    (COL_DATE, DESC),
    (COL_TITLE, ASC),
    (COL_TITLE, DESC),
    (COL_FEED, ASC),
    (COL_FEED, DESC),
]


def pe(uid: str, published: float, title: str) -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, "<p>x</p>", "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    a = s.add_feed("https://a.example/feed", title="Mango")
    b = s.add_feed("https://b.example/feed", title="apricot")
    c = s.add_feed("https://c.example/feed", title="Zucchini")
    for fid, n in ((a, 150), (b, 100), (c, 50)):
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


def full_order(store: Store, col: int, order: Qt.SortOrder, **q) -> list[int]:
    """The list as a fresh model reads it, whole."""
    m = ArticleListModel(store)
    m.sort(col, order)
    m.set_query(**q)
    return m.ids()


def add(store: Store, tag: str, *, newest: bool, base: float = 9000.0) -> list[int]:
    """New entries in every feed: titles among and around the existing ones (equal
    titles and times too: the ties are ordered by id), and either all newer than
    anything stored or spread over the existing times."""
    ids: list[int] = []
    for n, f in enumerate(store.feeds()):
        entries = [
            pe(
                f"{tag}-{f.id}-{i}",
                (base + i) if newest else 1000.0 + (i * 13 + n * 7) % 62,
                ["Apple 1", "aardvark", "cats 2", "Éclair 0", "Ωmega", "zzz", "cats 0"][i],
            )
            for i in range(7)
        ]
        # fetched after they were published (a date ahead of its fetch sorts as fetched)
        at = max(6000.0, base + 100.0)
        ids += store.record_fetch(FetchRecord(f.id, at, "ok", entries=entries)).new_entry_ids
    return ids


@pytest.fixture(params=["row inserts", "merged"])
def merged(request, monkeypatch) -> bool:
    """Both ways new rows go in: a row insert per place, or (past
    ``INSERT_RUNS_MAX`` places) one merge under a layout change."""
    if request.param == "merged":
        monkeypatch.setattr(models, "INSERT_RUNS_MAX", 0)
    return request.param == "merged"


def view_for(qtbot, m: ArticleListModel) -> QTableView:
    view = QTableView()
    qtbot.addWidget(view)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setModel(m)
    return view


def select(view: QTableView, row: int) -> None:
    idx = view.model().index(row, 0)
    flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
    view.selectionModel().setCurrentIndex(idx, flags | QItemSelectionModel.SelectionFlag.Rows)


def selected_ids(view: QTableView, m: ArticleListModel) -> list[int]:
    return [m.entry_id(i.row()) for i in view.selectionModel().selectedRows()]


class Signals:
    def __init__(self, m: ArticleListModel) -> None:
        self.inserted: list[tuple[int, int]] = []
        self.resets = 0
        self.layouts = 0
        m.rowsInserted.connect(lambda _p, a, b: self.inserted.append((a, b)))
        m.modelReset.connect(self._reset)
        m.layoutChanged.connect(self._layout)

    def _reset(self) -> None:
        self.resets += 1

    def _layout(self) -> None:
        self.layouts += 1


@pytest.mark.parametrize("col,order", MODES)
@pytest.mark.parametrize("query", [{}, {"unread": True}, {"search": "cats"}, {"feed_ids": [2]}])
def test_requery_inserts_new_entries_in_sort_order(qtbot, store, col, order, query, merged):
    m = ArticleListModel(store)
    view = view_for(qtbot, m)
    m.sort(col, order)
    m.set_query(**query)
    m.finish_loading()
    assert m.ids() == full_order(store, col, order, **query)
    select(view, 5)
    chosen = m.entry_id(5)
    stays = m.entry_id(7)
    store.set_read([stays])  # no longer "unread": it stays all the same
    # Newest-first puts what is new on top: new entries newer than all, there.
    new = add(store, "n", newest=col == COL_DATE and order == DESC)
    sig = Signals(m)

    added = m.requery()

    expect = full_order(store, col, order, **query)
    assert sorted(added) == sorted(set(new) & set(expect))
    assert added  # every query above finds some of them
    if query.get("unread"):
        assert stays in m.ids() and stays not in expect
        assert [i for i in m.ids() if i != stays] == expect
    else:
        assert m.ids() == expect
    assert sig.resets == 0
    if merged and not (col == COL_DATE and order == DESC):  # newest-first: one run on top
        assert sig.layouts == 1 and not sig.inserted
    else:
        assert sig.inserted and sig.layouts == 0
        assert sum(b - a + 1 for a, b in sig.inserted) == len(added)
    assert selected_ids(view, m) == [chosen]
    assert m.entry_id(view.currentIndex().row()) == chosen
    # Nothing new: nothing happens.
    runs = len(sig.inserted)
    assert m.requery() == []
    assert len(sig.inserted) == runs


@pytest.mark.parametrize("col,order", MODES)
def test_requery_into_an_empty_list_and_twice(qtbot, store, col, order):
    m = ArticleListModel(store)
    m.sort(col, order)
    m.set_query(search="aardvark")
    m.finish_loading()
    assert m.ids() == []
    add(store, "a", newest=True)
    first = full_order(store, col, order, search="aardvark")
    assert len(first) == 3
    assert sorted(m.requery()) == sorted(first)
    assert m.ids() == first
    add(store, "b", newest=True, base=9500.0)  # newest-first: on top, still in order
    both = full_order(store, col, order, search="aardvark")
    assert sorted(m.requery()) == sorted(set(both) - set(first))
    assert m.ids() == both


@pytest.mark.parametrize("col,order", [(COL_DATE, ASC), (COL_TITLE, ASC), (COL_TITLE, DESC)])
@pytest.mark.parametrize("query", [{}, {"unread": True}, {"search": "cats"}])
def test_requery_while_paging_leaves_the_rest_to_the_pager(
    qtbot, store, small_pages, col, order, query
):
    m = ArticleListModel(store)
    view = view_for(qtbot, m)
    m.sort(col, order)
    m.set_query(**query)
    # Read a few pages, not all (the events the loading timer needs are not run).
    while m.rowCount() < 12:
        m._load_more()
    assert m.loading()
    select(view, 3)
    chosen = m.entry_id(3)
    loaded = m.rowCount()
    # Keys inside the rows read so far and after them.
    new = add(store, "p", newest=False)
    sig = Signals(m)

    added = m.requery()

    assert m.loading()
    now_in = [i for i in added if i in set(m._ids)]
    if "search" not in query:
        assert now_in, "some new entries fall inside the rows read so far"
        assert len(now_in) < len(added), "and some after them"
    assert m.rowCount() == loaded + len(now_in)
    assert sig.resets == 0
    assert selected_ids(view, m) == [chosen]
    with qtbot.waitSignal(m.loaded, timeout=5000):
        pass
    ids = m.ids()
    assert len(ids) == len(set(ids))
    assert ids == full_order(store, col, order, **query)
    assert set(added) == set(new) & set(ids)
    assert m.requery() == []
    assert selected_ids(view, m) == [chosen]


@pytest.mark.parametrize("col,order", [(COL_DATE, ASC), (COL_TITLE, ASC), (COL_TITLE, DESC)])
def test_requery_after_the_last_page_before_the_pager_ends(qtbot, store, small_pages, col, order):
    """The last (short) page is in but the pager has not stopped yet: what is new
    after it must be inserted, not left to a pager that reads no more."""
    m = ArticleListModel(store)
    m.sort(col, order)
    m.set_query()
    while m.rowCount() < len(store.entry_ids()):
        m._load_more()
    assert m.loading()
    add(store, "q", newest=True)
    m.requery()
    m.finish_loading()
    assert m.ids() == full_order(store, col, order)


@pytest.mark.parametrize("query", [{}, {"search": "cats"}])
def test_requery_while_a_search_collects_its_matches(qtbot, store, small_pages, query):
    m = ArticleListModel(store)
    m.sort(COL_TITLE, ASC)
    m.set_query(search="cats")
    assert m.loading() and m.rowCount() == 0
    add(store, "s", newest=False)
    m.requery()
    m.finish_loading()
    ids = m.ids()
    assert ids == full_order(store, COL_TITLE, ASC, search="cats")
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("col,order", [(COL_DATE, ASC), (COL_TITLE, DESC)])
def test_entries_a_page_read_are_not_added_again(qtbot, store, small_pages, col, order):
    """Entries stored while the list was loading, read by one of its pages: a
    re-query finds them stored since the list was read but must not add them."""
    m = ArticleListModel(store)
    m.sort(col, order)
    m.set_query()
    assert m.loading()
    new = add(store, "r", newest=True)  # most after the first page
    m.finish_loading()
    read = set(new) & set(m.ids())
    assert len(read) > len(new) // 2
    added = m.requery()
    assert sorted(added) == sorted(set(new) - read)
    ids = m.ids()
    assert len(ids) == len(set(ids))
    assert ids == full_order(store, col, order)


def test_feed_renamed_while_sorted_by_feed(qtbot, store):
    m = ArticleListModel(store)
    m.sort(COL_FEED, ASC)
    m.set_query()
    store.update_feed(1, user_title="Aardvark")
    add(store, "f", newest=False)
    m.reload_feed_titles()
    m.requery()
    assert m.ids() == full_order(store, COL_FEED, ASC)
    # Then new entries go in by the new titles.
    add(store, "g", newest=False)
    sig = Signals(m)
    m.requery()
    assert sig.resets == 0 and sig.inserted
    assert m.ids() == full_order(store, COL_FEED, ASC)


def test_a_new_feed_sorts_by_its_title(qtbot, store):
    m = ArticleListModel(store)
    m.sort(COL_FEED, DESC)
    m.set_query()
    fid = store.add_feed("https://d.example/feed", title="Papaya")
    store.record_fetch(FetchRecord(fid, 6000.0, "ok", entries=[pe("d1", 1500.0, "x")]))
    m.reload_feed_titles()
    sig = Signals(m)
    m.requery()
    assert sig.resets == 0 and sig.inserted
    assert m.ids() == full_order(store, COL_FEED, DESC)


def test_qtmodeltester_after_sorted_requery(qtbot, qtmodeltester, store, small_pages, merged):
    m = ArticleListModel(store)
    m.sort(COL_TITLE, ASC)
    m.set_query()
    qtmodeltester.check(m)
    add(store, "t", newest=False)
    m.requery()
    qtmodeltester.check(m)
    m.finish_loading()
    qtmodeltester.check(m)


@pytest.mark.parametrize("order", [ASC, DESC])
def test_requery_while_a_selected_row_is_parked(qtbot, store, small_pages, order, merged):
    """Sorting keeps the selected row at the end of the rows read so far until its
    page comes; new entries go before it, and it still moves to its place."""
    m = ArticleListModel(store)
    view = view_for(qtbot, m)
    m.set_query()
    m.finish_loading()
    target = full_order(store, COL_TITLE, order)[200]
    select(view, m.row_of(target))
    m.sort(COL_TITLE, order)
    assert m.loading() and m.entry_id(m.rowCount() - 1) == target  # parked
    add(store, "k", newest=False)
    sig = Signals(m)
    m.requery()
    assert sig.resets == 0
    assert m.entry_id(m.rowCount() - 1) == target
    assert selected_ids(view, m) == [target]
    with qtbot.waitSignal(m.loaded, timeout=5000):
        pass
    ids = m.ids()
    assert ids == full_order(store, COL_TITLE, order)
    assert selected_ids(view, m) == [target]
