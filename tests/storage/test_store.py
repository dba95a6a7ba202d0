"""Storage against a real SQLite file."""

from __future__ import annotations

import sqlite3

import pytest

from smartreader.core.models import Enclosure, ParsedEntry, ServerHints
from smartreader.errors import DatabaseCorruptError, DatabaseTooNewError, UsageError
from smartreader.storage import FetchRecord, Store
from smartreader.storage.schema import SCHEMA_VERSION
from smartreader.storage.store import (
    REDIRECT_CONFIRMATIONS,
    REDIRECT_MIN_AGE,
    fts_query,
    is_https_upgrade,
)


def entry(
    uid: str, title: str = "", content: str = "", published: float | None = None
) -> ParsedEntry:
    return ParsedEntry(
        uid=uid,
        title=title or f"title {uid}",
        link=f"https://example.org/{uid}",
        author="",
        published=published,
        updated=None,
        content=content or f"<p>body of {uid}</p>",
        summary="",
        enclosures=(Enclosure("https://example.org/a.mp3", "audio/mpeg", 10),),
    )


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def test_pragmas_and_version(store, tmp_path):
    db = sqlite3.connect(tmp_path / "db.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store.integrity_check() == "ok"


def test_durable_by_default_and_switchable_for_throwaway_data(store):
    sync = lambda: store._db.execute("PRAGMA synchronous").fetchone()[0]  # noqa: E731
    assert sync() == 2  # FULL: a commit survives power loss
    store.set_durable(False)
    assert sync() == 0
    fid = store.add_feed("https://a.example/feed")
    store.record_fetch(FetchRecord(fid, 100.0, "ok", entries=[entry("x")]))
    assert store.entry_count() == 1
    store.set_durable(True)
    assert sync() == 2


def test_refuses_newer_database(tmp_path):
    p = tmp_path / "db.sqlite3"
    Store(p).close()
    db = sqlite3.connect(p)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    before = p.read_bytes()
    with pytest.raises(DatabaseTooNewError, match="newer smartreader"):
        Store(p)
    assert p.read_bytes() == before


def test_corrupt_file_is_reported_and_left_alone(tmp_path):
    p = tmp_path / "db.sqlite3"
    p.write_bytes(b"this is not a database" * 100)
    before = p.read_bytes()
    with pytest.raises(DatabaseCorruptError, match="damaged"):
        Store(p)
    assert p.read_bytes() == before


def test_fetch_inserts_and_dedups_keeping_flags(store):
    fid = store.add_feed("https://example.org/feed", folder="News", now=1000.0)
    out = store.record_fetch(
        FetchRecord(
            fid,
            2000.0,
            "ok",
            200,
            entries=[entry("a", published=1500.0), entry("b")],
            feed_title="Example",
            etag='W/"x"',
            last_modified="Mon",
            update_validators=True,
        )
    )
    assert len(out.new_entry_ids) == 2
    store.set_read([out.new_entry_ids[0]])
    store.set_starred([out.new_entry_ids[0]])
    out2 = store.record_fetch(
        FetchRecord(fid, 3000.0, "ok", 200, entries=[entry("a", title="edited"), entry("c")])
    )
    assert len(out2.new_entry_ids) == 1
    e = store.entry(out.new_entry_ids[0])
    assert e.read and e.starred and e.title == "edited"
    assert e.sort_time == 1500.0
    f = store.feed(fid)
    assert (f.title, f.folder, f.etag, f.last_modified) == ("Example", "News", 'W/"x"', "Mon")
    assert f.capacity == 2
    assert store.unread_counts() == {fid: 2}
    assert [r.new_items for r in store.fetch_log(fid)] == [1, 2]


def test_validators_stored_as_a_set(store):
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(
        FetchRecord(fid, 1.0, "ok", etag='"1"', last_modified="LM", update_validators=True)
    )
    store.record_fetch(
        FetchRecord(fid, 2.0, "ok", etag='"2"', last_modified=None, update_validators=True)
    )
    f = store.feed(fid)
    assert (f.etag, f.last_modified) == ('"2"', None)
    # An error does not touch them.
    store.record_fetch(FetchRecord(fid, 3.0, "error", error="boom"))
    f = store.feed(fid)
    assert (f.etag, f.error_count, f.last_error) == ('"2"', 1, "boom")


def test_gone_stops_feed_and_keeps_entries(store):
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(FetchRecord(fid, 1.0, "ok", entries=[entry("a")]))
    store.record_fetch(FetchRecord(fid, 2.0, "gone", 410))
    f = store.feed(fid)
    assert f.status == "gone" and "410" in (f.last_error or "")
    assert store.entry_count() == 1


def test_permanent_redirect_needs_consistent_sightings_over_a_week(store):
    old, new, day = "http://old.example/feed", "https://new.example/f", 86400.0
    fid = store.add_feed(old)
    for i in range(REDIRECT_CONFIRMATIONS - 1):
        store.record_fetch(FetchRecord(fid, float(i), "ok", redirect_url=new))
        assert store.feed(fid).url == old
    # An interruption resets the count and the clock.
    store.record_fetch(FetchRecord(fid, 10.0, "ok"))
    store.record_fetch(FetchRecord(fid, 11.0, "ok", redirect_url=new))
    assert store.feed(fid).url == old
    # Seen often enough, but for less than a week: stays.
    for i in range(1, 2 * REDIRECT_CONFIRMATIONS):
        store.record_fetch(FetchRecord(fid, 11.0 + i * day, "ok", redirect_url=new))
    assert (store.feed(fid).url, store.feed(fid).redirect_seen) == (old, 2 * REDIRECT_CONFIRMATIONS)
    # A different target starts over.
    store.record_fetch(FetchRecord(fid, 11.0 + REDIRECT_MIN_AGE, "ok", redirect_url=new + "2"))
    assert store.feed(fid).url == old
    store.record_fetch(FetchRecord(fid, 12.0 + REDIRECT_MIN_AGE, "ok", redirect_url=new))
    assert store.feed(fid).url == old
    t = 12.0 + REDIRECT_MIN_AGE
    for i in range(REDIRECT_CONFIRMATIONS - 2):
        store.record_fetch(FetchRecord(fid, t + (i + 1) * day, "ok", redirect_url=new))
    assert store.feed(fid).url == old  # enough sightings, a week not yet over
    store.record_fetch(FetchRecord(fid, t + REDIRECT_MIN_AGE, "ok", redirect_url=new))
    f = store.feed(fid)
    assert f.url == new and f.previous_urls == (old,)  # the old address is kept
    assert (f.redirect_url, f.redirect_seen) == (None, 0)


def test_an_https_upgrade_of_the_same_address_is_taken_at_once(store):
    fid = store.add_feed("http://site.example/feed?x=1")
    # not an upgrade: another path, another host, a downgrade
    for other in ("https://site.example/other", "https://www.site.example/feed?x=1"):
        store.record_fetch(FetchRecord(fid, 1.0, "ok", redirect_url=other))
        assert store.feed(fid).url == "http://site.example/feed?x=1"
    out = store.record_fetch(
        FetchRecord(fid, 2.0, "ok", redirect_url="https://site.example/feed?x=1")
    )
    assert out.moved_from == "http://site.example/feed?x=1"  # the caller learns of the move
    f = store.feed(fid)
    assert f.url == "https://site.example/feed?x=1"
    assert f.previous_urls == ("http://site.example/feed?x=1",)
    out = store.record_fetch(
        FetchRecord(fid, 3.0, "ok", redirect_url="http://site.example/feed?x=1")
    )
    assert out.moved_from is None
    assert store.feed(fid).url == "https://site.example/feed?x=1"  # never back down
    # moved back by hand and up again: each address is listed once
    store.update_feed(fid, url="http://site.example/feed?x=1")
    store.record_fetch(FetchRecord(fid, 4.0, "ok", redirect_url="https://site.example/feed?x=1"))
    assert store.feed(fid).previous_urls == ("http://site.example/feed?x=1",)
    assert is_https_upgrade("http://a.example:80/f", "https://a.example/f")
    assert not is_https_upgrade("http://a.example:8080/f", "https://a.example/f")


def test_search_is_safe_and_prefix(store):
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(
        FetchRecord(
            fid,
            1.0,
            "ok",
            entries=[
                entry("a", title="Rust release notes", content="<p>borrow checker</p>"),
                entry("b", title="Python packaging", content="<p>wheels and sdists</p>"),
            ],
        )
    )
    assert len(store.entry_ids(search="pack")) == 1
    assert len(store.entry_ids(search="borrow")) == 1
    for hostile in ['"', "AND OR NOT", "a* NEAR(", "title:x", ")(", ""]:
        store.entry_ids(search=hostile)  # never an FTS5 syntax error
    assert fts_query("  ") is None


def _found(store, text: str) -> set[str]:
    """The uids a search finds, the same by every path: the list's query, the
    whole-table id search and one slice covering every id."""
    listed = {store.entry(i).uid for i in store.entry_ids(search=text)}
    top = max(store.entry_ids())
    assert listed == {store.entry(i).uid for i in store.search_ids(text)}
    assert listed == {store.entry(i).uid for i in store.search_ids(text, (0, top))}
    return listed


def test_a_word_inside_an_unspaced_script_is_found(store):
    """Chinese, Japanese, Korean and Thai write no spaces between words: the
    tokenizer took "東京の天気は晴れ" for one word, and "天気" found nothing."""
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(
        FetchRecord(
            fid,
            1.0,
            "ok",
            entries=[
                entry("a", title="東京の天気は晴れ", content="<p>Köln too</p>"),
                entry("b", title="Weather", content="<p>今日は天気がいい</p>"),
                entry("c", title="서울 날씨가 좋아요", content="<p>x</p>"),
                entry("d", title="Köln", content="<p>nothing else</p>"),
            ],
        )
    )

    def found(text: str) -> set[str]:
        return _found(store, text)

    assert found("天気") == {"a", "b"}
    assert found("東京 晴れ") == {"a"}
    assert found("날씨") == {"c"}
    assert found("天気 Köl") == {"a"}  # a spaced word alongside, still as a prefix
    assert found("Köln") == {"a", "d"}
    assert found("天気 nowhere") == set()


def test_alerts_roundtrip(store):
    fid = store.add_feed("https://example.org/feed")
    out = store.record_fetch(
        FetchRecord(
            fid,
            5.0,
            "ok",
            entries=[entry("a")],
            missed_estimate=3.5,
            missed_from=1.0,
            missed_to=4.0,
        )
    )
    assert out.alert_id
    [a] = store.alerts()
    assert (a.feed_id, a.missed_estimate, a.window_from, a.window_to) == (fid, 3.5, 1.0, 4.0)
    store.dismiss_alerts([a.id])
    assert store.alerts() == []
    assert len(store.alerts(include_dismissed=True)) == 1


DAY = 86400.0


def test_budget_request_times_outlive_a_deleted_feed_and_count_extra_requests(store):
    """The 24 h cap's record across restarts: budgeted requests only, a deleted
    feed's last day kept, a move's extra request counted, old rows pruned."""
    t0 = 10 * DAY
    gone = store.add_feed("https://example.org/gone")
    kept = store.add_feed("https://example.org/kept")
    for t in (t0 - 2 * DAY, t0 - 3600.0, t0 - 60.0):
        store.record_fetch(FetchRecord(gone, t, "ok"))
    store.record_fetch(FetchRecord(gone, t0 - 30.0, "ok", manual=True))  # outside the budget
    store.record_fetch(FetchRecord(kept, t0, "not_modified"))
    assert store.budget_request_times(t0 - DAY) == [t0 - 3600.0, t0 - 60.0, t0]

    store.delete_feed(gone)

    assert store.fetch_log(gone) == []
    assert store.budget_request_times(t0 - DAY) == [t0 - 3600.0, t0 - 60.0, t0]
    assert store.budget_request_times(t0 - 120.0) == [t0 - 60.0, t0]
    store.record_request(t0 + 5.0)
    assert store.budget_request_times(t0 - 120.0) == [t0 - 60.0, t0, t0 + 5.0]
    # what no 24 h window can reach any more is not kept for ever
    store.record_request(t0 + 3 * DAY)
    assert store.budget_request_times(0.0) == [t0, t0 + 3 * DAY]


def test_hints_and_state_roundtrip(store):
    fid = store.add_feed("https://example.org/feed")
    h = ServerHints(retry_after=5.0, ttl_seconds=3600, skip_hours=frozenset({1, 2}))
    store.record_fetch(FetchRecord(fid, 1.0, "ok", hints=h, scheduler_state={"k": [1, 2]}))
    f = store.feed(fid)
    assert f.hints == h and f.scheduler_state == {"k": [1, 2]}


def test_duplicate_subscription_and_bad_settings(store):
    fid = store.add_feed("https://example.org/feed")
    with pytest.raises(UsageError, match="already subscribed"):
        store.add_feed("https://example.org/feed")
    with pytest.raises(UsageError):
        store.update_feed(fid, weight=-1)
    with pytest.raises(UsageError):
        store.update_feed(fid, evil="x")
    store.update_feed(fid, user_title="Mine", folder="Tech", weight=2.0, load_images=True)
    f = store.feed(fid)
    assert (f.display_title, f.folder, f.weight, f.load_images) == ("Mine", "Tech", 2.0, True)


def test_mark_all_read_respects_cutoff(store):
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(FetchRecord(fid, 10.0, "ok", entries=[entry("a")]))
    store.record_fetch(FetchRecord(fid, 20.0, "ok", entries=[entry("b")]))
    marked = store.mark_all_read([fid], before=15.0)
    assert len(marked) == 1 and store.entry(marked[0]).uid == "a"
    assert store.unread_counts() == {fid: 1}
    assert store.mark_all_read([fid], before=15.0) == []  # nothing left to undo


def test_mark_read_returns_only_what_was_unread(store):
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(FetchRecord(fid, 10.0, "ok", entries=[entry(u) for u in "abc"]))
    ids = {store.entry(i).uid: i for i in store.mark_all_read([fid])}
    store.set_read([ids["b"]], False)
    assert store.mark_read([ids["c"], ids["b"], ids["a"], 999_999]) == [ids["b"]]
    assert store.unread_counts() == {}


def test_backup_is_consistent_copy(store, tmp_path):
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(FetchRecord(fid, 1.0, "ok", entries=[entry(str(i)) for i in range(50)]))
    dest = store.backup(tmp_path / "backups" / "b.sqlite3")
    copy = Store(dest, readonly=True)
    assert copy.entry_count() == 50
    assert copy.integrity_check() == "ok"
    assert not list((tmp_path / "backups").glob("*.partial"))


def test_delete_folder_keeps_feeds(store):
    fid = store.add_feed("https://example.org/feed", folder="X")
    folder = store.feed(fid).folder_id
    assert folder is not None
    store.delete_folder(folder)
    assert store.feed(fid).folder is None


def test_folder_names_differing_only_in_case_are_one_folder(store):
    """Renaming "Blogs" to "news" beside "News" gave the tree both; the error for
    "News" itself read "a folder named 'News' already exists" (Python quotes)."""
    news = store.folder_id("News")
    blogs = store.folder_id("Blogs")
    assert store.folder_id("news") == news and store.folder_id("NEWS", create=False) == news
    for name in ("news", "News", " NEWS "):
        with pytest.raises(UsageError, match="a folder called “News” already exists"):
            store.rename_folder(blogs, name)
    store.rename_folder(blogs, "blogs")  # its own name in other case: fine
    assert {f.name for f in store.folders()} == {"News", "blogs"}
    fid = store.add_feed("https://a.example/feed", folder="NEWS")
    assert store.feed(fid).folder_id == news


def test_folder_names_equal_but_for_case_or_cleaning_find_one_folder(store):
    # "ſ" and the Kelvin sign casefold to ASCII: the quick NOCASE lookup alone
    # would miss them; bidi controls are dropped from a new name
    news = store.folder_id("News")
    assert store.folder_id("NEWS", create=False) == news
    kelvin = store.folder_id("\u212aelvin")
    assert store.folder_id("kelvin", create=False) == kelvin
    assert store.folder_id("Typed \u202eevil") == store.folder_id("typed evil", create=False)
    made = store.add_folders(["news", "Kelvin", "Typed evil", "New\u2066 one", "new one", ""])
    assert made == ["New one"]
    assert len(store.folders()) == 4


def test_a_bogus_document_does_not_rename_a_feed_that_has_worked(store):
    """A 200 with no items titled "Please log in" (a portal, a parked domain)
    became the feed's name; an Atom <feed/> with no title emptied it."""
    fid = store.add_feed("https://a.example/feed")
    store.record_fetch(FetchRecord(fid, 1.0, "ok", feed_title="Early"))  # first: no items
    assert store.feed(fid).title == "Early"
    store.record_fetch(FetchRecord(fid, 2.0, "ok", feed_title="Wire", entries=[entry("1")]))
    assert store.feed(fid).title == "Wire"
    store.record_fetch(FetchRecord(fid, 3.0, "ok", feed_title="Please log in"))
    store.record_fetch(FetchRecord(fid, 4.0, "ok", feed_title="", entries=[entry("2")]))
    assert store.feed(fid).title == "Wire"
    store.record_fetch(FetchRecord(fid, 5.0, "ok", feed_title="Wire Daily", entries=[entry("3")]))
    assert store.feed(fid).title == "Wire Daily"  # a real rename still comes through


def test_starred_count_reads_only_the_starred_rows(store):
    fid = store.add_feed("https://a.example/feed")
    store.record_fetch(FetchRecord(fid, 100.0, "ok", entries=[entry(f"s{i}") for i in range(30)]))
    ids = store.entry_ids()
    assert store.starred_count() == 0
    store.set_starred(ids[:4], True)
    store.set_starred(ids[1:2], False)
    assert store.starred_count() == 3
    # counted from the partial index of starred rows, not by scanning every entry
    # (it runs on every tree refresh, 100,000 entries or not)
    sent: list[str] = []
    store._db.set_trace_callback(sent.append)
    store.starred_count()
    store._db.set_trace_callback(None)
    plan = [tuple(r) for q in sent for r in store._db.execute("EXPLAIN QUERY PLAN " + q)]
    assert plan and all("USING INDEX entries_starred" in str(r[-1]) for r in plan)
    reader = store.reader()
    try:
        assert reader.starred_count() == 3  # the GUI's read-only connection too
    finally:
        reader.close()


def test_words_a_sign_completes_are_searched_with_it(store):
    """The tokenizer drops "+" and "#": "C++" searched for every word starting
    with "c" (and "C#" too). A word a trailing sign completes is matched whole,
    sign included, in any case; a plain "c" is still a prefix."""
    fid = store.add_feed("https://example.org/feed")
    store.record_fetch(
        FetchRecord(
            fid,
            1.0,
            "ok",
            entries=[
                entry("cpp", title="C++26 is final", content="<p>modules, at last</p>"),
                entry("cs", title="What's new", content="<p>c# 13 and .NET 9</p>"),
                entry("c", title="Clang and cats", content="<p>a C compiler</p>"),
                entry("frag", title="Docs", content='<a href="doc#top">the c docs</a>'),
                entry("gpp", title="g++ 15 released", content="<p>GCC</p>"),
            ],
        )
    )

    def found(text: str) -> set[str]:
        return _found(store, text)

    assert found("C++") == {"cpp"}
    assert found("c++ modules") == {"cpp"}
    assert found("C#") == {"cs"}  # not "doc#top", whose "c" is no word of its own
    assert found("C# .net") == {"cs"}
    assert found("g++") == {"gpp"}
    assert found("c") == {"cpp", "cs", "c", "frag"}  # a prefix as before
    assert found("C++ nowhere") == set()
