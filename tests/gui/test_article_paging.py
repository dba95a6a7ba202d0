"""The article list reads long lists a page at a time without losing anything."""

from __future__ import annotations

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import ArticleListModel
from smartreader.storage import FetchRecord, Store


def pe(uid: str, published: float, title: str = "") -> ParsedEntry:
    return ParsedEntry(uid, title or f"post {uid}", None, "", published, None, "<p>x</p>", "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    fid = s.add_feed("https://a.example/feed")
    s.record_fetch(
        FetchRecord(
            fid,
            5000.0,
            "ok",
            entries=[pe(f"e{i}", 1000.0 + i // 4, "cats" if i % 3 else "dogs") for i in range(300)],
        )
    )
    s.set_read(list(range(1, 300, 4)))
    yield s
    s.close()


@pytest.mark.parametrize(
    "query", [{}, {"unread": True}, {"search": "dogs"}, {"search": "dogs", "unread": True}]
)
def test_pages_arrive_and_match_the_whole_query(qtbot, store, small_pages, query):
    m = ArticleListModel(store)
    with qtbot.waitSignal(m.loaded, timeout=5000):
        m.set_query(**query)
        assert m.loading()
        assert m.rowCount() < len(store.entry_ids(**query))
    assert not m.loading()
    assert m.ids() == store.entry_ids(**query)


def test_row_of_and_ids_wait_for_the_rest(qtbot, store, small_pages):
    m = ArticleListModel(store)
    m.set_query()
    last = store.entry_ids()[-1]
    assert m.row_of(last, load=False) == -1
    assert m.row_of(last) == 299 and not m.loading()


def test_next_unread_row_reads_the_rest_only_when_it_must(qtbot, store, small_pages):
    ids = store.entry_ids()
    m = ArticleListModel(store)
    m.set_query()
    rows = store.entry_rows(ids)
    first = next(r for r, i in enumerate(ids) if not rows[i].read)
    assert m.next_unread_row(-1) == first
    assert m.loading()  # found in the first page: the rest is not read for it
    # Read everything but one row near the end: the search goes on into the rest.
    store.set_read(ids[:-3] + ids[-2:])
    m.invalidate()
    assert m.next_unread_row(first) == len(ids) - 3 and not m.loading()
    assert m.next_unread_row(len(ids) - 3) == -1
    assert m.next_unread_row(-1) == len(ids) - 3


def test_requery_adds_only_new_entries_at_the_top(qtbot, store, small_pages):
    m = ArticleListModel(store)
    m.set_query(unread=True)
    m.finish_loading()
    before = m.ids()
    fid = store.feeds()[0].id
    out = store.record_fetch(FetchRecord(fid, 6000.0, "ok", entries=[pe("new1", 9000.0)]))
    assert m.requery() == list(out.new_entry_ids)
    assert m.ids() == list(out.new_entry_ids) + before
    assert m.requery() == []


def test_qtmodeltester_while_loading(qtbot, qtmodeltester, store, small_pages):
    m = ArticleListModel(store)
    m.set_query()
    qtmodeltester.check(m)
    qtbot.waitUntil(lambda: not m.loading(), timeout=5000)
    qtmodeltester.check(m)
