"""Row 59: a database written by each earlier release opens with today's code and
loses nothing. The golden files were written by the release itself (see
``golden/make.py``); each test works on a copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.storage.schema import SCHEMA_VERSION
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater
from tests.storage.golden import make as golden

GOLDEN = Path(__file__).parent / "golden"
VERSIONS = sorted((p.stem for p in GOLDEN.glob("v*.sqlite3")), key=lambda v: int(v[1:]))


def test_every_older_schema_has_a_golden_database():
    assert [f"v{v}" for v in range(1, SCHEMA_VERSION)] == VERSIONS


@pytest.fixture(params=VERSIONS)
def upgraded(request, tmp_path):
    path = tmp_path / "smartreader.sqlite3"
    shutil.copyfile(GOLDEN / f"{request.param}.sqlite3", path)
    with Store(path) as store:
        yield store, int(request.param[1:])


def test_schema_is_current_and_consistent(upgraded, tmp_path):
    store, old = upgraded
    assert int(store._q("PRAGMA user_version")[0][0]) == SCHEMA_VERSION
    assert store.integrity_check() == "ok"
    assert store._q("PRAGMA foreign_key_check") == []
    # the file as it was, before the first migration touched it
    assert list((tmp_path / "backups").glob(f"pre-migration-v{old}-*.sqlite3"))


def test_feeds_folders_and_their_settings_survive(upgraded):
    store, _ = upgraded
    feeds = sorted(store.feeds(), key=lambda f: f.id)
    got = [(f.url, f.folder, f.user_title, f.weight, f.auth_username) for f in feeds]
    assert got == golden.FEEDS
    assert [f.title for f in feeds] == ["Feed 0", "Feed 1", "Feed 2"]
    assert feeds[0].etag == '"e0"'
    assert feeds[2].last_error == golden.ERROR
    for key, value in golden.SETTINGS.items():
        assert store.get_setting(key) == value


def test_entries_keep_their_flags_titles_and_search(upgraded):
    store, _ = upgraded
    for i, f in enumerate(sorted(store.feeds(), key=lambda f: f.id)):
        ids = store.entry_ids(feed_ids=[f.id])  # newest first: k = 0, 1, ...
        assert len(ids) == golden.N_ENTRIES[i]
        rows = store.entry_rows(ids)
        for k, eid in enumerate(ids):
            r = rows[eid]
            assert (r.title, r.read, r.starred) == (
                golden.title(i, k),
                golden.is_read(i, k),
                golden.is_starred(i, k),
            )
    assert len(store.search_ids("Straße")) == 3 + 2  # feed 0: k 0, 7, 14; feed 1: k 0, 7
    # title order uses the v4 keys (casefold: "ß" sorts as "ss", "Ä" after "a")
    keys = store.entry_title_keys()
    titles = [store.entry_rows([k[0]])[k[0]].title for k in keys]
    assert titles == sorted(titles, key=str.casefold)


def test_the_index_holds_the_text_a_reader_sees_and_deletes_stay_exact(upgraded):
    """Schema v11 re-indexed every article from its text: the "p" of "<p>body</p>"
    was a word of every article. A delete then removes exactly what was indexed
    (FTS5 takes the delete's text on trust: a mismatch corrupts the index)."""
    store, _ = upgraded
    titled_p = {
        eid
        for eid, r in store.entry_rows(store.entry_ids()).items()
        if any(w.casefold().startswith("p") for w in r.title.split())
    }
    assert set(store.entry_ids(search="p")) == titled_p  # "apple pie" only
    assert len(store.entry_ids(search="body")) == sum(golden.N_ENTRIES)
    first = min(f.id for f in store.feeds())
    store.delete_feed(first)
    assert len(store.entry_ids(search="body")) == sum(golden.N_ENTRIES[1:])
    store._db.execute("INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')")


def test_alerts_fetch_log_and_learned_state_survive(upgraded):
    store, _ = upgraded
    feeds = sorted(store.feeds(), key=lambda f: f.id)
    (alert,) = store.alerts()
    assert alert.feed_id == feeds[1].id and alert.missed_estimate == 2.0
    statuses = [r.status for r in store.fetch_log(limit=100)]
    assert sorted(statuses) == sorted(["ok", "ok", "ok", "not_modified", "ok", "error"])
    assert all(r.warnings == () for r in store.fetch_log(limit=100))  # v9: none recorded
    up = Updater(store)  # the scheduler state each feed had is read back
    try:
        assert up.budget() == golden.SETTINGS["budget_per_day"]
        assert up.explain(feeds[0].id).feed_id == feeds[0].id
    finally:
        up.close()


def test_the_budgets_record_of_requests_survives_and_outlives_a_deleted_feed(upgraded):
    """v6 keeps a deleted feed's requests for the 24 h cap; an upgraded file
    counts the fetch log it had, and from then on keeps them when a feed goes."""
    store, _ = upgraded
    t = golden.T0
    spent = [t, t, t, t + 600, t + 900, t + 1200]  # the golden fetch log, none manual
    assert store.budget_request_times(t - 86400.0) == spent
    store.delete_feed(sorted(store.feeds(), key=lambda f: f.id)[1].id)
    assert store.budget_request_times(t - 86400.0) == spent


def test_an_upgraded_database_never_hands_out_an_id_it_had(upgraded):
    """v10: ids of deleted feeds and articles are not reused (an undo step may
    still name them); the high marks start from what the file holds."""
    store, _ = upgraded
    feeds = [f.id for f in store.feeds()]
    entries = [e for f in feeds for e in store.entry_ids(feed_ids=[f])]
    for fid in feeds:
        store.delete_feed(fid)
    fid = store.add_feed("https://new.example/feed")
    assert fid > max(feeds)
    store.record_fetch(
        FetchRecord(fid, golden.T0 + 2000, "ok",
                    entries=[ParsedEntry("n", "n", None, "", None, None, "", "")])
    )  # fmt: skip
    assert min(store.entry_ids(feed_ids=[fid])) > max(entries)


def test_an_upgraded_database_keeps_every_article_until_its_user_sets_a_limit(upgraded):
    """v7 deletes old articles (90 days for read ones by default): a database that
    already held articles keeps all of them, as before the upgrade, a year on."""
    store, old = upgraded
    if old >= 7:
        pytest.skip("written by v7 or later: its limits were chosen under v7")
    before = store.entry_count()
    up = Updater(store, now=lambda: golden.T0 + 365 * 86400.0)
    try:
        assert up.keep_days() == (0.0, 0.0)
        res = up.cleanup(force=True)
    finally:
        up.close()
    assert res is not None and (res.read, res.unread) == (0, 0)
    assert store.entry_count() == before == sum(golden.N_ENTRIES)


def test_an_upgraded_feed_follows_the_settings_and_can_keep_its_own(upgraded):
    """v8 gives a feed its own limit; an upgraded feed has none (as in Settings)."""
    store, _ = upgraded
    feeds = sorted(store.feeds(), key=lambda f: f.id)
    assert [f.keep_days for f in feeds] == [None, None, None]
    store.update_feed(feeds[0].id, keep_days=0)
    assert store.feed(feeds[0].id).keep_days == 0.0
    res = store.purge_old(golden.T0 + 365 * 86400.0, read_days=30, unread_days=30)
    left = {f.id: 0 for f in feeds} | {
        int(r[0]): int(r[1]) for r in store._q("SELECT feed_id, count(*) FROM entries GROUP BY 1")
    }
    assert left[feeds[0].id] == golden.N_ENTRIES[0]  # kept, read, unread and starred
    starred = sum(golden.is_starred(1, k) for k in range(golden.N_ENTRIES[1]))
    assert left[feeds[1].id] == starred and res.read + res.unread == golden.N_ENTRIES[1] - starred
