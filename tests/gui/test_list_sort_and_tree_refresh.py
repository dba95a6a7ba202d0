"""Sorting the article list by title/feed, and the feed tree's in-place refresh."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import (
    COL_DATE,
    COL_FEED,
    COL_TITLE,
    ArticleListModel,
    FeedTreeModel,
    KeyRole,
    UnreadRole,
)
from smartreader.storage import FetchRecord, Store


def pe(uid: str, published: float, title: str) -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, "<p>x</p>", "")


TITLES = ["banana", "Éclair", "apple", "Apple", "éclair", "Straße", "strasse", "zebra", "B"]


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    a = s.add_feed("https://a.example/feed", title="beta")
    b = s.add_feed("https://b.example/feed", title="Alpha")
    entries = [pe(f"e{i}", 1000.0 + i % 4, t) for i, t in enumerate(TITLES)]
    s.record_fetch(FetchRecord(a, 5000.0, "ok", entries=entries))
    s.record_fetch(FetchRecord(b, 5001.0, "ok", entries=[pe("x", 999.0, "apple"),
                                                          pe("y", 2000.0, "Zoo")]))  # fmt: skip
    yield s
    s.close()


def expected(store, col, order):
    """Case-folded text, newest first, then id; descending the exact reverse."""
    ids = store.entry_ids()
    rows = store.entry_rows(ids)
    titles = {f.id: f.display_title for f in store.feeds()}

    def key(i):
        r = rows[i]
        text = r.title if col == COL_TITLE else titles[r.feed_id]
        return (text.casefold(), -r.sort_time, i)

    return sorted(ids, key=key, reverse=order == Qt.SortOrder.DescendingOrder)


@pytest.mark.parametrize("col", [COL_TITLE, COL_FEED])
@pytest.mark.parametrize("order", [Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder])
def test_sort_by_title_or_feed_is_casefolded(qtbot, store, col, order):
    m = ArticleListModel(store)
    m.set_query()
    m.sort(col, order)
    assert m.ids() == expected(store, col, order)
    if col == COL_TITLE and order == Qt.SortOrder.AscendingOrder:
        shown = [m.entry_row(r).title for r in range(m.rowCount())]
        # Unicode case folding, not ASCII-only NOCASE: "Straße" sits with "strasse".
        assert shown.index("Straße") in (shown.index("strasse") - 1, shown.index("strasse") + 1)
    m.sort(COL_DATE, Qt.SortOrder.DescendingOrder)
    assert m.ids() == store.entry_ids()


def test_sort_keeps_the_selected_row(qtbot, store):
    from PySide6.QtCore import QPersistentModelIndex

    m = ArticleListModel(store)
    m.set_query()
    target = store.entry_ids()[2]
    p = QPersistentModelIndex(m.index(2, 0))
    m.sort(COL_TITLE, Qt.SortOrder.AscendingOrder)
    assert m.entry_id(p.row()) == target


def _by_key(model):
    from PySide6.QtCore import QModelIndex

    out = {}

    def walk(parent):
        for r in range(model.rowCount(parent)):
            idx = model.index(r, 0, parent)
            out[idx.data(KeyRole)] = idx
            walk(idx)

    walk(QModelIndex())
    return out


def test_tree_counts_update_in_place(qtbot, store):
    m = FeedTreeModel(store)
    resets, changed = [], []
    m.modelReset.connect(lambda: resets.append(1))
    m.dataChanged.connect(lambda a, b, roles=(): changed.append((a.row(), b.row())))
    fid = next(f.id for f in store.feeds() if f.title == "beta")  # 9 unread
    idx = _by_key(m)[f"feed:{fid}"]
    before = idx.data(UnreadRole)
    store.set_read(store.entry_ids(feed_ids=[fid])[:3])
    m.reload()
    assert not resets and changed
    assert idx.data(UnreadRole) == before - 3
    assert _by_key(m)["smart:unread"].data(UnreadRole) == m.total_unread()
    assert m.total_unread() == sum(store.unread_counts().values())


def test_tree_rename_moves_rows_without_a_reset(qtbot, store):
    from PySide6.QtCore import QPersistentModelIndex

    m = FeedTreeModel(store)
    resets, layouts = [], []
    m.modelReset.connect(lambda: resets.append(1))
    m.layoutChanged.connect(lambda *a: layouts.append(1))
    a = next(f.id for f in store.feeds() if f.title == "beta")
    keys = m.feed_keys_in_order()
    assert keys.index(f"feed:{a}") > keys.index(next(k for k in keys if k.startswith("feed:")))
    held = QPersistentModelIndex(_by_key(m)[f"feed:{a}"])
    store.update_feed(a, user_title="AAA first")  # now sorts before "Alpha"
    m.reload()
    assert not resets and layouts
    assert held.isValid() and held.data(KeyRole) == f"feed:{a}"
    assert held.data(Qt.ItemDataRole.DisplayRole) == "AAA first"
    feeds = [k for k in m.feed_keys_in_order() if k.startswith("feed:")]
    assert feeds[0] == f"feed:{a}"
