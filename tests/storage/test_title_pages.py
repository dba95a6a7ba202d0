"""Article lists sorted by title, in keyset pages (``entry_title_keys``, schema v4)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

import smartreader.storage.store as store_module
from smartreader.core.models import ParsedEntry
from smartreader.storage import FetchRecord, Store
from smartreader.storage.schema import MIGRATIONS

TITLES = [
    "banana",
    "Éclair",
    "apple",
    "Apple",
    "éclair",
    "Straße",
    "strasse",
    "STRASSE",
    "zebra",
    "B",
    "",
    "ǅemal",
    "džemal",
    "ΣΊΣΥΦΟΣ",
    "σίσυφος",
    "ﬁne",
    "fine",
]


def pe(uid: str, published: float, title: str, body: str = "x") -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, f"<p>{body}</p>", "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    a = s.add_feed("https://a.example/feed")
    b = s.add_feed("https://b.example/feed")
    # Ties on title and time on purpose: those are ordered by id.
    s.record_fetch(
        FetchRecord(
            a,
            1000.0,
            "ok",
            entries=[
                pe(f"a{i}", 100.0 + i % 3, TITLES[i % len(TITLES)], "zebra" if i % 5 else "y")
                for i in range(60)
            ],
        )
    )
    s.record_fetch(
        FetchRecord(
            b, 1001.0, "ok", entries=[pe(f"b{i}", 100.0 + i % 2, TITLES[i % 4]) for i in range(25)]
        )
    )
    s.set_read(list(range(1, 80, 3)))
    s.set_starred([3, 7, 44, 61, 62])
    yield s
    s.close()


def expected(store: Store, descending: bool = False, **q: Any) -> list[int]:
    """Case-folded title, newest first, then id; descending is the exact reverse."""
    ids = store.entry_ids(**q)
    rows = store.entry_rows(ids)
    out = sorted(ids, key=lambda i: (rows[i].title.casefold(), -rows[i].sort_time, i))
    return out[::-1] if descending else out


def pages(store: Store, n: int, **q: Any) -> list[int]:
    out: list[int] = []
    after = None
    while True:
        keys = store.entry_title_keys(after=after, limit=n, **q)
        out += [k[0] for k in keys]
        if len(keys) < n:
            return out
        after = keys[-1]


QUERIES = [
    {},
    {"unread": True},
    {"starred": True},
    {"feed_ids": [1]},
    {"feed_ids": [2]},
    {"feed_ids": [1, 2], "unread": True},
    {"search": "zebra"},
    {"search": "zebra", "unread": True, "feed_ids": [1]},
]


@pytest.mark.parametrize("small_list", [2_000, 1])  # feed lists from either index
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("q", QUERIES)
@pytest.mark.parametrize("n", [1, 4, 7, 100])
def test_pages_concatenate_to_the_whole_title_order(
    store, monkeypatch, small_list, descending, q, n
):
    monkeypatch.setattr(store_module, "SMALL_LIST", small_list)
    want = expected(store, descending, **q)
    assert want  # every query finds something
    assert pages(store, n, descending=descending, **q) == want
    assert [k[0] for k in store.entry_title_keys(descending=descending, **q)] == want


def test_keys_are_the_casefolded_titles(store):
    keys = store.entry_title_keys()
    rows = store.entry_rows([k[0] for k in keys])
    assert all(k[1] == rows[k[0]].title.casefold() and k[2] == rows[k[0]].sort_time for k in keys)
    shown = [rows[k[0]].title for k in keys]
    # Full Unicode folding: "Straße" sits with "strasse", which NOCASE would not do.
    near = {shown[i] for i in range(len(shown)) if keys[i][1] == "strasse"}
    assert near == {"Straße", "strasse", "STRASSE"}
    assert store.entry_title_keys(feed_ids=[]) == []
    assert store.entry_title_keys(search="!!!") == []


def _plan(store: Store, call: Any) -> str:
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    try:
        call()
    finally:
        store._db.set_trace_callback(None)
    sql = next(s for s in seen if "ORDER BY" in s)
    return " | ".join(str(r[3]) for r in store._q("EXPLAIN QUERY PLAN " + sql))


@pytest.mark.parametrize("q", [{}, {"unread": True}])
@pytest.mark.parametrize("descending", [False, True])
def test_a_page_is_a_range_scan_of_the_title_index(store, q, descending):
    first = store.entry_title_keys(descending=descending, limit=5, **q)
    for after in (None, first[-1]):
        plan = _plan(
            store,
            lambda after=after: store.entry_title_keys(
                descending=descending, after=after, limit=5, **q
            ),
        )
        assert "COVERING INDEX entries_title" in plan, plan
        assert "TEMP B-TREE" not in plan, plan
        if after is not None:
            assert "title_key" in plan.split("entries_title", 1)[1], plan  # a seek


def test_a_retitled_entry_gets_a_new_key(store):
    fid = store.feeds()[0].id
    eid = next(k[0] for k in store.entry_title_keys(feed_ids=[fid]) if k[1] == "zebra")
    uid = store.entry(eid).uid
    store.record_fetch(FetchRecord(fid, 2000.0, "ok", entries=[pe(uid, 100.0, "Ärger im Zoo")]))
    assert store.entry(eid).title == "Ärger im Zoo"
    keys = {k[0]: k[1] for k in store.entry_title_keys()}
    assert keys[eid] == "ärger im zoo"
    assert expected(store) == [k[0] for k in store.entry_title_keys()]
    assert pages(store, 3, descending=True) == expected(store, True)


def _v3_database(path) -> None:
    db = sqlite3.connect(path)
    db.executescript("".join(MIGRATIONS[:3]) + "PRAGMA user_version = 3;")
    db.execute("INSERT INTO feeds (url, added_at) VALUES ('https://x.example/', 1)")
    db.executemany(
        "INSERT INTO entries (feed_id, uid, title, first_seen, sort_time, read) "
        "VALUES (1, ?, ?, 1, ?, ?)",
        [
            ("u1", "Zoo", 5.0, 0),
            ("u2", "Straße", 6.0, 1),
            ("u3", "apple", 7.0, 0),
            ("u4", "strasse", 6.0, 0),
            ("u5", "", 1.0, 0),
        ],
    )
    db.commit()
    db.close()


def test_migration_to_v4_backfills_the_title_keys(tmp_path):
    path = tmp_path / "old.sqlite3"
    _v3_database(path)
    with Store(path, readonly=True) as ro:
        # A read-only store leaves an older database as it is: titles folded in SQL.
        assert [k[0] for k in ro.entry_title_keys()] == [5, 3, 2, 4, 1]
        assert [k[0] for k in ro.entry_title_keys(unread=True, descending=True)] == [1, 4, 3, 5]
    with Store(path) as s:
        assert int(s._q("PRAGMA user_version")[0][0]) == len(MIGRATIONS) >= 4
        keys = s._q("SELECT id, title_key FROM entries ORDER BY id")
        assert [tuple(r) for r in keys] == [
            (1, "zoo"),
            (2, "strasse"),
            (3, "apple"),
            (4, "strasse"),
            (5, ""),
        ]
        assert [k[0] for k in s.entry_title_keys()] == [5, 3, 2, 4, 1]
        assert pages(s, 2, descending=True) == [1, 4, 2, 3, 5]
        names = {r[0] for r in s._q("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"entries_title", "entries_list"} <= names
        assert s.integrity_check() == "ok"
    assert list((tmp_path / "backups").glob("pre-migration-v3-*.sqlite3"))
    # The file stays usable without smartreader's casefold() function.
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO entries (feed_id, uid, title, first_seen, sort_time) "
        "VALUES (1, 'u6', 'x', 1, 1)"
    )
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
