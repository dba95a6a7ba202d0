"""Putting back a feed after an unsubscribe (Store.snapshot_feed / restore_feed),
on a real SQLite file: every row it had comes back, nothing is counted twice."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.errors import UsageError
from smartreader.storage.store import FEED_TABLES, FetchRecord, Store

DAY = 86400.0


def _entry(uid: str, title: str, t: float) -> ParsedEntry:
    return ParsedEntry(uid=uid, title=title, link=f"https://e.example/{uid}", author="ann",
                       published=t, updated=None, content=f"<p>{title} body</p>",
                       summary="")  # fmt: skip


def _rows(store: Store, table: str, feed_id: int) -> list[tuple[Any, ...]]:
    """A table's rows of one feed, without their own id and feed id (which a
    restore may renumber), in a stable order."""
    cur = store._db.execute(f"SELECT * FROM {table} WHERE feed_id = ?", (feed_id,))
    names = [d[0] for d in cur.description]
    keep = [i for i, n in enumerate(names) if n not in ("id", "feed_id")]
    return sorted((tuple(r[i] for i in keep) for r in cur), key=repr)


def _busy_feed(store: Store, t0: float) -> int:
    """A feed with read, starred and unread articles, fetch log, an alert, a
    purged identity, a folder, settings, learned state and rules (with hits)."""
    fid = store.add_feed("https://p.example/feed", folder="News", title="P", now=t0)
    store.update_feed(fid, weight=2.5, min_interval=1800, keep_days=30, user_title="Mine")
    store.add_feed("https://other.example/feed", now=t0)
    store.add_rule("walrus 5", feed_id=fid, action="star", now=t0)
    store.add_rule("walrus 9", feed_id=fid, title_only=True, now=t0)
    for k in range(3):
        entries = [_entry(f"u{j}", f"walrus {j}", t0 + j) for j in range(4 * k, 4 * k + 4)]
        store.record_fetch(
            FetchRecord(fid, t0 + k * 3600, "ok", entries=entries, missed_estimate=3.0 * (k == 2),
                        missed_from=t0 + 7000, missed_to=t0 + 7100)
        )  # fmt: skip
    ids = store.entry_ids(feed_ids=[fid])
    store.set_read(ids[:5])
    store.set_starred(ids[2:4], True)
    store.save_scheduler_state({fid: {"learned": [1, 2, 3]}})
    store.purge_old(t0 + 400 * DAY, read_days=365)  # the read, unstarred ones go
    return fid


def test_an_unsubscribed_feed_comes_back_whole(tmp_path: Path) -> None:
    t0 = 1.7e9
    with Store(tmp_path / "db.sqlite3") as store:
        fid = _busy_feed(store, t0)
        before = {t: _rows(store, t, fid) for t in FEED_TABLES}
        assert all(before.values()), before  # every table has rows to lose
        feed_before, ids_before = store.feed(fid), store.entry_ids(feed_ids=[fid])
        budget_before = store.budget_request_times(t0 - DAY)
        snap = store.snapshot_feed(fid)
        assert snap is not None and len(snap.tables["entries"][1]) == len(ids_before)

        spent = store.delete_feed(fid)
        assert len(spent) == len(before["fetch_log"]) >= 1  # the last day's requests
        assert store.entry_ids(feed_ids=[fid]) == []
        assert store.search_ids("walrus") == set()
        assert store.budget_request_times(t0 - DAY) == budget_before  # still counted

        assert store.restore_feed(snap, spent=spent) == fid
        assert store.feed(fid) == feed_before
        assert store.feed(fid).folder == "News" and store.feed(fid).scheduler_state
        assert {t: _rows(store, t, fid) for t in FEED_TABLES} == before
        assert store.entry_ids(feed_ids=[fid]) == ids_before  # undo steps name them by id
        assert store.search_ids("walrus") == set(ids_before)  # the search index too
        assert store.budget_request_times(t0 - DAY) == budget_before  # not twice
        assert store.integrity_check() == "ok"


def test_ids_are_not_handed_out_again_so_a_restore_keeps_them(tmp_path: Path) -> None:
    """SQLite gives a new row the largest id + 1: a feed added after the newest was
    unsubscribed took its id, its first articles the articles' ids, and undo
    steps naming them (move, rename, star) then acted on the newcomer."""
    with Store(tmp_path / "db.sqlite3") as store:
        store.add_feed("https://a.example/f")
        fid = store.add_feed("https://p.example/f", folder="Gone")
        two = [_entry("x", "x", 1.0), _entry("y", "y", 2.0)]
        store.record_fetch(FetchRecord(fid, 10.0, "ok", entries=two))
        old_ids = store.entry_ids(feed_ids=[fid])
        snap = store.snapshot_feed(fid)
        assert snap is not None
        store.delete_feed(fid)
        store.delete_folder(store.folder_id("Gone") or 0)
        newcomer = store.add_feed("https://n.example/f")
        assert newcomer > fid
        store.record_fetch(FetchRecord(newcomer, 20.0, "ok", entries=[_entry("z", "z", 3.0)]))
        (z,) = store.entry_ids(feed_ids=[newcomer])
        assert z > max(old_ids)

        back = store.restore_feed(snap)
        assert back == fid and store.feed(back).url == "https://p.example/f"
        assert store.feed(back).folder == "Gone"  # made again
        assert sorted(store.entry_ids(feed_ids=[back])) == sorted(old_ids)
        assert {e.title for e in store.entries([z])} == {"z"}  # the newcomer's untouched
        # and after a restart (the high mark is in the file)
    with Store(tmp_path / "db.sqlite3") as store:
        store.delete_feed(newcomer)
        assert store.add_feed("https://m.example/f") > newcomer
        assert store.integrity_check() == "ok"


def test_ids_taken_before_they_stopped_being_reused_are_replaced(tmp_path: Path) -> None:
    """A database from before schema v10 may already have given the feed's ids to
    others: the feed and its articles come back under new ones."""
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed("https://p.example/f", folder="Gone")
        store.record_fetch(FetchRecord(fid, 10.0, "ok", entries=[_entry("x", "x", 1.0)]))
        (old,) = store.entry_ids(feed_ids=[fid])
        snap = store.snapshot_feed(fid)
        assert snap is not None
        store.delete_feed(fid)
        with store._tx() as db:  # as SQLite's own numbering did
            db.execute(
                "INSERT INTO feeds (id, url, added_at) VALUES (?, 'https://n.example/f', 0)",
                (fid,),
            )
            db.execute(
                "INSERT INTO entries (id, feed_id, uid, first_seen, sort_time) "
                "VALUES (?, ?, 'z', 0, 0)",
                (old, fid),
            )
        back = store.restore_feed(snap)
        assert back != fid and store.feed(fid).url == "https://n.example/f"
        (moved,) = store.entry_ids(feed_ids=[back])
        assert moved != old and store.entries([moved])[0].title == "x"
        assert store.integrity_check() == "ok"


def test_an_address_taken_meanwhile_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed("https://p.example/f", folder="Old")
        store.record_fetch(FetchRecord(fid, 10.0, "ok", entries=[_entry("x", "x", 1.0)]))
        snap = store.snapshot_feed(fid)
        assert snap is not None
        store.delete_feed(fid)
        store.delete_folder(store.folder_id("Old") or 0)
        again = store.add_feed("https://p.example/f")  # subscribed again by hand
        with pytest.raises(UsageError, match="another feed now has the address"):
            store.restore_feed(snap)
        assert [f.id for f in store.feeds()] == [again] and store.entry_count() == 0
        assert store.folders() == []  # not even its folder


def test_a_snapshot_over_the_limit_is_refused(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed("https://p.example/f")
        store.record_fetch(FetchRecord(fid, 10.0, "ok", entries=[_entry("x", "ä" * 10, 1.0)]))
        size = store.feed_text_bytes(fid)
        assert size == len("<p>" + "ä" * 10 + " body</p>") + 10 + 20  # UTF-8 bytes
        assert store.snapshot_feed(fid, max_bytes=size - 1) is None
        assert store.snapshot_feed(fid, max_bytes=size) is not None


def test_every_table_that_belongs_to_a_feed_is_in_the_snapshot(tmp_path: Path) -> None:
    """A table added later with a feed_id column must be added to FEED_TABLES, or
    an undone unsubscribe silently loses its rows."""
    Store(tmp_path / "db.sqlite3").close()  # the schema as migrated
    db = sqlite3.connect(tmp_path / "db.sqlite3")
    try:
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'entries_fts%'"
        )]  # fmt: skip
        with_feed = {
            t for t in tables if "feed_id" in {r[1] for r in db.execute(f"PRAGMA table_info({t})")}
        }
    finally:
        db.close()
    assert with_feed == set(FEED_TABLES)
