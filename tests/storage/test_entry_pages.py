"""Keyset pages of an article list (``entry_keys``), sliced search, last fetches."""

from __future__ import annotations

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.storage import FetchRecord, Store


def pe(uid: str, published: float, title: str = "") -> ParsedEntry:
    return ParsedEntry(
        uid=uid,
        title=title or f"title {uid}",
        link=None,
        author="",
        published=published,
        updated=None,
        content=f"<p>body {uid}</p>",
        summary="",
    )


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    a = s.add_feed("https://a.example/feed")
    b = s.add_feed("https://b.example/feed")
    # Ties on sort_time on purpose: paging must order them by id, like entry_ids.
    s.record_fetch(
        FetchRecord(a, 1000.0, "ok", entries=[pe(f"a{i}", 100.0 + i // 3) for i in range(40)])
    )
    s.record_fetch(
        FetchRecord(
            b, 1001.0, "ok", entries=[pe(f"b{i}", 100.0 + i // 2, "zebra") for i in range(25)]
        )
    )
    s.set_read(list(range(1, 60, 2)))
    s.set_starred([3, 7, 44])
    yield s
    s.close()


def pages(store: Store, n: int, **q) -> list[int]:
    out: list[int] = []
    after = None
    while True:
        keys = store.entry_keys(after=after, limit=n, **q)
        out += [k[0] for k in keys]
        if len(keys) < n:
            return out
        after = keys[-1]


@pytest.mark.parametrize(
    "q",
    [
        {},
        {"unread": True},
        {"starred": True},
        {"feed_ids": [2]},
        {"feed_ids": [1], "unread": True},
        {"oldest_first": True},
        {"oldest_first": True, "unread": True},
    ],
)
@pytest.mark.parametrize("n", [1, 4, 7, 100])
def test_pages_concatenate_to_the_whole_list(store, q, n):
    assert pages(store, n, **q) == store.entry_ids(**q)


def test_min_id_and_empty_feed_list(store):
    assert [k[0] for k in store.entry_keys(min_id=60)] == [i for i in store.entry_ids() if i > 60]
    assert store.entry_keys(feed_ids=[]) == []


def test_search_ids_in_slices_add_up(store):
    whole = store.search_ids("zebra")
    assert whole == set(store.entry_ids(search="zebra"))
    parts: set[int] = set()
    for lo in range(0, store.max_entry_id(), 10):
        parts |= store.search_ids("zebra", (lo, lo + 10))
    assert parts == whole
    assert store.search_ids("!!!") == set()


def test_last_fetches_one_per_feed(store):
    a, b = (f.id for f in store.feeds())
    store.record_fetch(FetchRecord(a, 2000.0, "error", error="boom"))
    last = store.last_fetches()
    assert set(last) == {a, b}
    assert last[a].time == 2000.0 and last[a].status == "error"
    assert last[b].time == 1001.0


def test_feeds_without_state_skip_the_json(store):
    fid = store.feeds()[0].id
    store.save_scheduler_state({fid: {"learned": [1, 2, 3]}})
    full = {f.id: f for f in store.feeds()}
    light = {f.id: f for f in store.feeds(with_state=False)}
    assert full[fid].scheduler_state == {"learned": [1, 2, 3]}
    assert light[fid].scheduler_state is None
    assert [f.display_title for f in light.values()] == [f.display_title for f in full.values()]


def test_unread_list_uses_the_partial_index(store):
    plan = store._q(
        "EXPLAIN QUERY PLAN SELECT id FROM entries WHERE read = 0 ORDER BY sort_time DESC, id"
    )
    assert "entries_unread_time" in " ".join(str(r[3]) for r in plan)


def test_list_index_serves_new_entries_and_rows(store):
    """v3: an id range (entries stored since a list was read) and a page of rows
    come from the narrow ``entries_list`` index, never the wide rows."""
    for sql in (
        "SELECT id, sort_time FROM entries INDEXED BY entries_list WHERE read = 0 AND id > 50",
        "SELECT id, feed_id, title, sort_time, read, starred "
        "FROM entries INDEXED BY entries_list WHERE id IN (1, 2, 3)",
    ):
        plan = " ".join(str(r[3]) for r in store._q("EXPLAIN QUERY PLAN " + sql))
        assert "COVERING INDEX entries_list" in plan
    assert [k[0] for k in store.entry_keys(min_id=30, unread=True)] == [
        i for i in store.entry_ids(unread=True) if i > 30
    ]
    rows = store.entry_rows([1, 2, 44])
    assert rows[44].starred and rows[1].read and not rows[2].read


@pytest.mark.parametrize(
    "query",
    [{}, {"unread": True}, {"starred": True}, {"feed_ids": [2]}, {"search": "zebra"}],
)
def test_entry_sort_rows_is_the_whole_list(store, query):
    rows = store.entry_sort_rows(**query)
    assert sorted(r[0] for r in rows) == sorted(store.entry_ids(**query))
    full = store.entry_rows([r[0] for r in rows])
    assert all((r[1], r[2], r[3]) == (full[r[0]].feed_id, full[r[0]].title,
                                      full[r[0]].sort_time) for r in rows)  # fmt: skip
    assert store.entry_sort_rows(feed_ids=[]) == []


def test_migration_to_v3_keeps_a_v2_database(tmp_path):
    import sqlite3

    from smartreader.storage.schema import MIGRATIONS

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0] + MIGRATIONS[1] + "PRAGMA user_version = 2;")
    db.execute("INSERT INTO feeds (url, added_at) VALUES ('https://x.example/', 1)")
    db.execute(
        "INSERT INTO entries (feed_id, uid, title, first_seen, sort_time) "
        "VALUES (1, 'u', 'Old', 1, 1)"
    )
    db.commit()
    db.close()
    with Store(path) as s:
        assert s.entry_rows([1])[1].title == "Old"
        assert s.entry_keys(min_id=0) == [(1, 1.0)]
        names = {r[0] for r in s._q("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "entries_list" in names
