"""The article list loads in keyset pages over several event-loop turns; what a
fetch stores meanwhile must not break it. An entry whose title an upstream edit
changes while a title-sorted list loads is listed once, at its new place (the
pager would read it twice, or never); the date and feed orders cannot move an
entry (its date and feed never change); a feed renamed while a feed-sorted list
loads makes the re-query read the whole list and end the load."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import COL_DATE, COL_FEED, COL_TITLE, ArticleListModel
from smartreader.storage import FetchRecord, Store
from tests.gui.test_requery_sorted import full_order, select, view_for

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
FETCHED = 5000.0


def pe(uid: str, published: float, title: str, content: str = "<p>x</p>") -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, content, "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    feeds = [
        s.add_feed("https://a.example/feed", title="Mango"),
        s.add_feed("https://b.example/feed", title="apricot"),
        s.add_feed("https://c.example/feed", title="Zucchini"),
    ]
    for n, fid in enumerate(feeds):
        s.record_fetch(
            FetchRecord(
                fid,
                FETCHED,
                "ok",
                # equal titles in either case, equal times: ties ordered by id
                entries=[
                    pe(
                        f"{fid}-{i}",
                        1000.0 + (i * 7 + n) % 30,
                        f"{'Item' if i % 2 else 'item'} {i % 20:02d}",
                    )
                    for i in range(40)
                ],
            )
        )
    yield s
    s.close()


def retitle(store: Store, entry_id: int, title: str, at: float) -> None:
    """An upstream edit, stored as a fetch stores it: the same uid, a new title."""
    e = store.entry(entry_id)
    store.record_fetch(
        FetchRecord(e.feed_id, at, "ok", entries=[pe(e.uid, e.published or 0.0, title)])
    )


def title_order(store: Store, order: Qt.SortOrder, **q) -> list[int]:
    rows = store.entry_sort_rows(**q)
    keyed = sorted(rows, key=lambda r: (r[2].casefold() if r[2] else "", -r[3], r[0]))
    out = [r[0] for r in keyed]
    return out[::-1] if order == DESC else out


def selected_ids(view: QTableView, m: ArticleListModel) -> list[int]:
    return [m.entry_id(i.row()) for i in view.selectionModel().selectedRows()]


def half_loaded(m: ArticleListModel) -> None:
    """A few pages in, the rest not (the loading timer's events are not run)."""
    while m.rowCount() < 40:
        m._load_more()
    assert m.loading()


@pytest.mark.parametrize("order", [ASC, DESC])
@pytest.mark.parametrize("query", [{}, {"feed_ids": [1, 3]}, {"search": "item"}])
@pytest.mark.parametrize("at", [FETCHED, FETCHED + 60.0], ids=["same time", "later"])
@pytest.mark.parametrize("end", ["finish_loading", "timer", "requery"])
def test_titles_changed_while_a_title_sorted_list_loads(
    qtbot, qtmodeltester, store, small_pages, order, query, at, end
):
    m = ArticleListModel(store)
    qtmodeltester.check(m)
    view = view_for(qtbot, m)
    m.sort(COL_TITLE, order)
    m.set_query(**query)
    half_loaded(m)
    read = list(m._ids)
    unread = [i for i in title_order(store, order, **query) if i not in set(read)]
    first, last = ("!", "~") if order == ASC else ("~", "!")
    # Not read yet, its title now before the pager: no page reads it.
    back = unread[-1]
    retitle(store, back, f"{first} item moved back", at)
    # Read, its title now after the pager: a later page reads it again.
    forward = read[0]
    select(view, 0)
    retitle(store, forward, f"{last} item moved forward", at)
    # Read, and moved among the rows read: no page reads it again.
    within = read[3]
    retitle(store, within, store.entry(read[30]).title, at)

    if end == "timer":
        with qtbot.waitSignal(m.loaded, timeout=5000):
            pass
    elif end == "requery":
        assert m.requery() == []  # nothing is new
    m.finish_loading()

    ids = m.ids()
    assert len(ids) == len(set(ids)), "an entry listed twice"
    assert back in ids and ids.count(forward) == 1
    assert ids == title_order(store, order, **query)
    assert selected_ids(view, m) == [forward]  # the selection went with it


@pytest.mark.parametrize("order", [ASC, DESC])
def test_a_parked_row_whose_title_moves_before_the_pager(qtbot, store, small_pages, order):
    """A selected row kept across a sort waits for its page at the end; its title
    changed to one the pager has passed, that page never comes."""
    m = ArticleListModel(store)
    view = view_for(qtbot, m)
    m.set_query()
    m.finish_loading()
    target = title_order(store, order)[-5]
    select(view, m.row_of(target))
    m.sort(COL_TITLE, order)
    assert m.loading() and m.entry_id(m.rowCount() - 1) == target  # parked
    m._load_more()
    retitle(store, target, "! first" if order == ASC else "~ first", FETCHED + 60.0)
    m.finish_loading()
    ids = m.ids()
    assert ids == title_order(store, order)
    assert ids[0] == target
    assert selected_ids(view, m) == [target]


def test_a_fetch_that_changes_no_title_moves_nothing(qtbot, store, small_pages):
    """A feed fetched while the list loads, its titles as they were: its rows are
    checked against their neighbours, and nothing moves (no layout change)."""
    m = ArticleListModel(store)
    m.sort(COL_TITLE, ASC)
    m.set_query()
    half_loaded(m)
    e = store.entry(m.entry_id(0))
    store.record_fetch(
        FetchRecord(
            e.feed_id, FETCHED + 60.0, "ok", entries=[pe(e.uid, e.published, e.title, "new")]
        )
    )
    layouts: list[int] = []
    m.layoutChanged.connect(lambda: layouts.append(1))
    m.finish_loading()
    assert m.ids() == title_order(store, ASC)
    assert layouts == []


@pytest.mark.parametrize(
    "col,order", [(COL_DATE, ASC), (COL_DATE, DESC), (COL_FEED, ASC), (COL_FEED, DESC)]
)
def test_date_and_feed_orders_do_not_move_on_a_title_change(qtbot, store, small_pages, col, order):
    """A title edit keeps an entry's date and feed: those lists stay exact."""
    before = full_order(store, col, order)
    m = ArticleListModel(store)
    m.sort(col, order)
    m.set_query()
    half_loaded(m)
    retitle(store, m.entry_id(0), "~ moved", FETCHED + 60.0)
    retitle(store, before[-1], "! moved", FETCHED + 60.0)
    m.finish_loading()
    assert m.ids() == before == full_order(store, col, order)


@pytest.mark.parametrize("order", [ASC, DESC])
def test_a_feed_renamed_while_a_feed_sorted_list_loads(qtbot, store, small_pages, order):
    m = ArticleListModel(store)
    m.sort(COL_FEED, order)
    m.set_query()
    half_loaded(m)
    store.update_feed(3, user_title="Aardvark")  # from last to first, or back
    m.reload_feed_titles()
    with qtbot.waitSignal(m.loaded, timeout=1000):
        m.requery()  # the whole list, read again: the load is over
    assert not m.loading()
    ids = m.ids()
    assert len(ids) == len(set(ids))
    assert ids == full_order(store, COL_FEED, order)


@pytest.mark.parametrize("order", [ASC, DESC])
def test_an_entry_a_requery_put_in_then_retitled_past_the_pager(qtbot, store, small_pages, order):
    """A re-query inserts new entries among the rows read so far; one of them,
    retitled after the pager, is read by a later page: it is not added again."""
    m = ArticleListModel(store)
    m.sort(COL_TITLE, order)
    m.set_query()
    half_loaded(m)
    first = "!" if order == ASC else "~"
    res = store.record_fetch(
        FetchRecord(1, FETCHED + 60.0, "ok", entries=[pe("new-1", 1010.0, f"{first} new")])
    )
    (new,) = res.new_entry_ids
    assert m.requery() == [new] and m.entry_id(0) == new  # inserted, on top
    retitle(store, new, "~ moved" if order == ASC else "! moved", FETCHED + 120.0)
    m.finish_loading()
    ids = m.ids()
    assert ids.count(new) == 1
    assert ids == title_order(store, order)
