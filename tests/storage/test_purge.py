"""Old articles are deleted as the user chose, and never come back as new."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from smartreader.errors import UsageError
from smartreader.storage import FetchRecord, Store
from smartreader.storage.store import LOG_KEEP_DAYS, PURGED_KEEP_DAYS, StorageError
from tests.storage.test_store import entry

DAY = 86400.0
T0 = 1_780_000_000.0


def _fetch(store: Store, fid: int, at: float, uids: list[str]):
    return store.record_fetch(
        FetchRecord(fid, at, "ok", entries=[entry(u, title=f"word{u}") for u in uids])
    )


def _uids(store: Store) -> set[str]:
    return {r[0] for r in store._q("SELECT uid FROM entries")}


def _fts_ok(store: Store) -> None:
    # raises if the full-text index disagrees with the entries it indexes
    with store._tx() as db:
        db.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")


def test_old_read_articles_go_starred_and_recent_ones_stay(store):
    fid = store.add_feed("https://example.org/feed")
    _fetch(store, fid, T0, ["old-read", "old-unread", "old-starred"])
    _fetch(store, fid, T0 + 80 * DAY, ["old-read", "new-read"])  # still in the window
    ids = {r[1]: r[0] for r in store._q("SELECT id, uid FROM entries")}
    store.set_read([ids["old-read"], ids["old-starred"], ids["new-read"]], True)
    store.set_starred([ids["old-starred"]], True)

    res = store.purge_old(T0 + 100 * DAY, read_days=90, unread_days=None)

    # its age is how long it has been stored, not when the window last carried it
    assert (res.read, res.unread, res.finished) == (1, 0, True)
    assert _uids(store) == {"old-unread", "old-starred", "new-read"}
    assert store.entry_ids(search="wordold-read") == []
    assert len(store.entry_ids(search="wordold-starred")) == 1
    _fts_ok(store)


def test_unread_articles_go_only_when_asked(store):
    fid = store.add_feed("https://example.org/feed")
    _fetch(store, fid, T0, ["a", "b"])
    assert store.purge_old(T0 + 400 * DAY, read_days=0, unread_days=0).unread == 0
    res = store.purge_old(T0 + 400 * DAY, read_days=0, unread_days=365)
    assert (res.read, res.unread) == (0, 2)
    assert store.entry_count() == 0


def test_a_deleted_article_still_in_the_feed_does_not_come_back_as_new(store):
    fid = store.add_feed("https://example.org/feed")
    _fetch(store, fid, T0, ["slow-1", "slow-2"])
    store.set_read(store.entry_ids(feed_ids=[fid]), True)
    store.purge_old(T0 + 91 * DAY, read_days=90)
    assert store.entry_count() == 0

    # a slow blog's window carries them for months yet, beside a new post
    out = _fetch(store, fid, T0 + 92 * DAY, ["slow-1", "slow-2", "fresh"])

    assert len(out.new_entry_ids) == 1
    assert _uids(store) == {"fresh"}
    assert store.unread_counts() == {fid: 1}
    # the scheduler counts them as seen before (else: a false missed-items alert)
    assert store.known_uids(fid, ["slow-1", "slow-2", "fresh", "never"]) == {
        "slow-1",
        "slow-2",
        "fresh",
    }


def test_the_same_uid_in_another_feed_is_not_affected(store):
    a = store.add_feed("https://a.example/feed")
    b = store.add_feed("https://b.example/feed")
    _fetch(store, a, T0, ["shared"])
    store.set_read(store.entry_ids(feed_ids=[a]), True)
    store.purge_old(T0 + 91 * DAY, read_days=90)
    assert len(_fetch(store, b, T0 + 92 * DAY, ["shared"]).new_entry_ids) == 1


def test_unsubscribing_forgets_the_deleted_articles_too(store):
    fid = store.add_feed("https://example.org/feed")
    _fetch(store, fid, T0, ["x"])
    store.set_read(store.entry_ids(feed_ids=[fid]), True)
    store.purge_old(T0 + 91 * DAY, read_days=90)
    assert store._q("SELECT count(*) FROM purged_entries")[0][0] == 1
    store.delete_feed(fid)
    assert store._q("SELECT count(*) FROM purged_entries")[0][0] == 0
    # subscribed again: the article is new to the user again
    fid = store.add_feed("https://example.org/feed")
    assert len(_fetch(store, fid, T0 + 92 * DAY, ["x"]).new_entry_ids) == 1


def test_purging_works_in_batches_and_stops_when_cancelled(store):
    fid = store.add_feed("https://example.org/feed")
    _fetch(store, fid, T0, [f"e{i}" for i in range(10)])
    store.set_read(store.entry_ids(feed_ids=[fid]), True)

    class StopAfter:
        """Cancelled once the purge has asked this many times."""

        def __init__(self, n: int) -> None:
            self.n = n

        def is_set(self) -> bool:
            self.n -= 1
            return self.n < 0

    res = store.purge_old(T0 + 91 * DAY, read_days=90, batch=3, cancel=StopAfter(1))
    assert (res.read, res.finished) == (3, False)
    assert store.entry_count() == 7
    res = store.purge_old(T0 + 91 * DAY, read_days=90, batch=3, cancel=threading.Event())
    assert (res.read, res.finished) == (7, True)
    assert store.entry_count() == 0
    _fts_ok(store)


def test_old_fetch_log_rows_and_dismissed_alerts_go_but_each_feeds_last_fetch_stays(store):
    busy = store.add_feed("https://busy.example/feed")
    quiet = store.add_feed("https://quiet.example/feed")
    old = T0 - (LOG_KEEP_DAYS + 10) * DAY
    store.record_fetch(FetchRecord(quiet, old, "error", error="boom"))
    for k in range(3):
        store.record_fetch(FetchRecord(busy, old + k, "ok", missed_estimate=1.0))
    store.record_fetch(FetchRecord(busy, T0, "not_modified", missed_estimate=2.0))
    store.dismiss_alerts([a.id for a in store.alerts() if a.missed_estimate == 1.0][:2])

    res = store.purge_old(T0, read_days=None)

    assert [r.time for r in store.fetch_log(busy)] == [T0]
    assert [r.error for r in store.fetch_log(quiet)] == ["boom"]  # its only, last fetch
    assert set(store.last_fetches()) == {busy, quiet}
    # 3 old fetch-log rows of the busy feed, and the 2 dismissed old alerts
    assert res.log_rows == 5
    assert sorted(a.missed_estimate for a in store.alerts(include_dismissed=True)) == [1.0, 2.0]


def test_the_daily_check_uses_the_age_index(store):
    plan = store._q(
        "EXPLAIN QUERY PLAN SELECT id FROM entries WHERE read = 1 AND starred = 0 "
        "AND first_seen < 5 LIMIT 500"
    )
    assert "entries_age" in plan[0][3]


def test_the_updater_purges_once_a_day_by_the_users_setting(store):
    from smartreader.updater import DEFAULT_KEEP_READ_DAYS, KEEP_READ_DAYS, Updater

    clock = [T0]
    fid = store.add_feed("https://example.org/feed")
    _fetch(store, fid, T0 - 100 * DAY, ["a", "b"])
    _fetch(store, fid, T0 - 50 * DAY, ["c"])
    store.set_read(store.entry_ids(feed_ids=[fid]), True)
    up = Updater(store, now=lambda: clock[0])
    try:
        assert up.keep_days() == (DEFAULT_KEEP_READ_DAYS, 0.0)  # a new database
        assert up.cleanup().read == 2
        store.set_setting(KEEP_READ_DAYS, 30)
        clock[0] += DAY - 60
        assert up.cleanup() is None  # not due for a day
        assert up.cleanup(force=True).read == 1  # the user just changed the setting
        _fetch(store, fid, T0 - 40 * DAY, ["d"])
        store.set_read(store.entry_ids(feed_ids=[fid]), True)
        clock[0] += DAY
        assert up.cleanup().read == 1
        _fetch(store, fid, T0 - 35 * DAY, ["e"])
        store.set_read(store.entry_ids(feed_ids=[fid]), True)
        # the clock went back (it was wrong by a year, say): no year-long pause
        clock[0] -= 3600
        assert up.cleanup().read == 1
        store.set_setting(KEEP_READ_DAYS, "junk")  # a damaged row: the default holds
        assert up.keep_days()[0] == DEFAULT_KEEP_READ_DAYS
    finally:
        up.close()


def test_what_the_data_takes_shrinks_when_articles_go(store):
    fid = store.add_feed("https://example.org/feed")
    big = "<p>" + "lorem ipsum " * 2000 + "</p>"
    store.record_fetch(
        FetchRecord(fid, T0, "ok", entries=[entry(f"e{i}", content=big) for i in range(80)])
    )
    store.set_read(store.entry_ids(feed_ids=[fid]), True)
    before = store.used_bytes()
    # (what stays is the empty schema's pages, some 80 of them)
    assert before > 80 * len(big) / 4  # text compresses in FTS, not in the rows
    store.purge_old(T0 + 91 * DAY, read_days=90)
    assert store.used_bytes() < before / 4


def _big_feed(store: Store, n: int) -> int:
    fid = store.add_feed("https://example.org/big")
    body = "<p>" + "a paragraph of an article body. " * 60 + "</p>"
    for start in range(0, n, 500):
        store.record_fetch(
            FetchRecord(
                fid,
                T0 + start,
                "ok",
                entries=[entry(f"e{i}", content=body) for i in range(start, min(n, start + 500))],
            )
        )
    return fid


def test_compact_gives_the_deleted_articles_space_back_to_the_disk(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    try:
        _big_feed(store, 3000)
        store.mark_all_read()
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        full = store.file_bytes()
        assert full > 3_000_000
        store.purge_old(T0 + 200 * DAY, read_days=90)
        assert store.entry_count() == 0
        # Deleting frees pages inside the file; the file itself keeps its size.
        assert store.file_bytes() >= full
        _fetch(store, store.feeds()[0].id, T0 + 201 * DAY, ["kept"])
        before, after = store.compact()
        assert before >= full and after < full / 4
        on_disk = (tmp_path / "db.sqlite3").stat().st_size
        wal = tmp_path / "db.sqlite3-wal"
        assert after == on_disk + (wal.stat().st_size if wal.exists() else 0)
        assert _uids(store) == {"kept"} and store.integrity_check() == "ok"
        assert store.used_bytes() <= after
        _fts_ok(store)
    finally:
        store.close()
    with Store(tmp_path / "db.sqlite3") as again:
        assert _uids(again) == {"kept"}


def test_compact_that_cannot_get_the_lock_says_so_and_loses_nothing(tmp_path):
    store = Store(tmp_path / "db.sqlite3", busy_timeout=0.2)
    other = None
    try:
        _big_feed(store, 50)
        other = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program is writing
        with pytest.raises(StorageError, match="busy"):
            store.compact()
        other.execute("ROLLBACK")
        assert store.entry_count() == 50 and store.integrity_check() == "ok"
        store.compact()  # and works once the other program is done
        assert store.entry_count() == 50
    finally:
        if other is not None:
            other.close()
        store.close()


def test_compact_stopped_midway_changes_nothing(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    try:
        _big_feed(store, 600)
        store.mark_all_read()
        store.purge_old(T0 + 200 * DAY, read_days=90)
        _fetch(store, store.feeds()[0].id, T0 + 201 * DAY, ["kept"])
        size = store.file_bytes()
        calls = []

        def stop_once_started() -> int:
            calls.append(1)
            if len(calls) == 20:
                store.stop_compact()  # what quitting does, from another thread
            return 0

        store._db.set_progress_handler(stop_once_started, 100)
        with pytest.raises(StorageError, match="compacting was stopped"):
            store.compact()
        store._db.set_progress_handler(None, 0)
        assert _uids(store) == {"kept"} and store.integrity_check() == "ok"
        assert store.file_bytes() >= size
    finally:
        store.close()


def test_stopping_a_compaction_interrupts_nothing_else(tmp_path):
    """``stop_compact`` aborts only a running VACUUM: called while another statement
    runs on the same connection (the Stop button pressed just as compacting ended
    and a fetch's write began), it leaves that statement alone."""
    store = Store(tmp_path / "db.sqlite3")
    try:
        assert store.stop_compact() is False  # nothing running
        answers: list[bool] = []

        def stop_during_a_write() -> int:
            if not answers:
                answers.append(store.stop_compact())
            return 0

        store._db.set_progress_handler(stop_during_a_write, 10)
        _big_feed(store, 50)  # a write, not a compaction: it completes
        store._db.set_progress_handler(None, 0)
        assert answers == [False] and store.entry_count() == 50
        assert store.integrity_check() == "ok"
    finally:
        store.close()


def test_a_feed_can_keep_its_articles_longer_or_shorter_than_settings(store):
    keep, short, plain = (store.add_feed(f"https://{n}.example/feed") for n in "abc")
    for fid in (keep, short, plain):
        _fetch(store, fid, T0, [f"{fid}-old-read", f"{fid}-old-unread"])
        _fetch(store, fid, T0 + 20 * DAY, [f"{fid}-new-read"])
    store.set_read([i for i in store.entry_ids() if "read" in store.entry(i).uid and
                    "unread" not in store.entry(i).uid], True)  # fmt: skip
    store.update_feed(keep, keep_days=0)  # everything, unread too
    store.update_feed(short, keep_days=7)  # read ones after a week
    assert store.feed(short).keep_days == 7.0 and store.feed(plain).keep_days is None
    now = T0 + 40 * DAY
    limits = {"read_days": 30.0, "unread_days": 35.0}

    assert store.count_purgeable(now, **limits) == 5
    res = store.purge_old(now, **limits)

    assert (res.read, res.unread) == (3, 2)
    assert _uids(store) == {
        f"{keep}-old-read",
        f"{keep}-old-unread",
        f"{keep}-new-read",
        f"{plain}-new-read",  # 20 days: Settings keep read ones 30; its neighbour, 7
    }
    # the feed's own limit is for read articles: its unread ones follow Settings
    store.update_feed(short, keep_days=None)
    assert store.feed(short).keep_days is None
    with pytest.raises(UsageError):
        store.update_feed(short, keep_days=-1)


def test_what_a_feeds_own_limit_would_delete_is_counted_before_it_is_set(store):
    fid = store.add_feed("https://a.example/feed")
    other = store.add_feed("https://b.example/feed")
    for f in (fid, other):
        _fetch(store, f, T0, [f"{f}-r1", f"{f}-r2", f"{f}-u"])
    store.set_read([i for i in store.entry_ids() if "-r" in store.entry(i).uid], True)
    now, limits = T0 + 10 * DAY, {"read_days": 90.0, "unread_days": 5.0}
    count = store.count_feed_purgeable
    assert count(fid, now, keep_days=None, **limits) == 1  # Settings: the unread one
    assert count(fid, now, keep_days=7, **limits) == 3
    assert count(fid, now, keep_days=0, **limits) == 0
    store.update_feed(fid, keep_days=7)
    res = store.purge_old(now, **limits)
    assert res.read + res.unread == 3 + 1  # this feed's three and the other's unread one


def _purged(store: Store, fid: int) -> set[str]:
    return {r[0] for r in store._q("SELECT uid FROM purged_entries WHERE feed_id = ?", (fid,))}


def test_a_purged_identity_goes_once_its_feed_no_longer_carries_it(store):
    """Each deleted article left a row behind for good: a year of a busy reader's
    purges grew the file by millions of rows. A row is needed only while the
    feed may deliver the article again, so it goes once a document no longer
    carries it, PURGED_KEEP_DAYS after the purge (never on a failed or
    unchanged fetch, which shows nothing of the window)."""
    fid = store.add_feed("https://example.org/feed")
    other = store.add_feed("https://example.org/other")
    _fetch(store, fid, T0, ["a", "b", "c"])
    _fetch(store, other, T0, ["x"])
    store.set_read(store.entry_ids(), True)
    purged_at = T0 + 91 * DAY
    store.purge_old(purged_at, read_days=90)
    assert _purged(store, fid) == {"a", "b", "c"} and _purged(store, other) == {"x"}

    # too soon: kept though the window has moved on
    _fetch(store, fid, purged_at + (PURGED_KEEP_DAYS - 1) * DAY, ["b", "d"])
    assert _purged(store, fid) == {"a", "b", "c"}
    later = purged_at + (PURGED_KEEP_DAYS + 1) * DAY
    for status in ("not_modified", "error"):
        store.record_fetch(FetchRecord(fid, later, status))
    assert _purged(store, fid) == {"a", "b", "c"}

    out = _fetch(store, fid, later, ["b", "e"])
    # b is still in the window: remembered, and still not new
    assert _purged(store, fid) == {"b"} and _purged(store, other) == {"x"}
    assert len(out.new_entry_ids) == 1
    assert store.known_uids(fid, ["a", "b", "c", "e"]) == {"b", "e"}
