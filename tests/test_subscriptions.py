"""OPML import and export with a feed's own settings (smartreader/subscriptions.py),
between real SQLite stores."""

from __future__ import annotations

import pytest

from smartreader import subscriptions
from smartreader.core.models import ParsedEntry
from smartreader.errors import ParseError, UsageError
from smartreader.net import credentials, favicon
from smartreader.net.opml import NS, parse_opml
from smartreader.storage.store import FetchRecord, Store
from smartreader.subscriptions import (
    export_opml,
    feed_address,
    import_opml,
    resubscribe,
    undoable,
    unsubscribe,
)
from smartreader.updater import host_gaps_of, set_host_gap
from tests.keyrings import LockedKeyring, MemoryKeyring, installed


@pytest.fixture
def two(tmp_path):
    with Store(tmp_path / "old.sqlite3") as old, Store(tmp_path / "new.sqlite3") as new:
        yield old, new


def test_a_move_to_a_new_machine_keeps_each_feeds_settings(two):
    old, new = two
    a = old.add_feed("https://a.example/feed", folder="News / World", title="A feed")
    old.update_feed(a, weight=3.5, min_interval=45 * 60, keep_days=0, load_images=True,
                    user_title="My A", full_text=True, max_interval=6 * 3600)  # fmt: skip
    b = old.add_feed("https://b.example/feed", title="B feed")
    old.update_feed(b, keep_days=14)
    old.add_feed("https://c.example/feed", title="Plain")
    data, n = export_opml(old)
    assert n == 3
    plain = next(s for s in parse_opml(data).subscriptions if s.title == "Plain")
    assert plain.settings == ()  # defaults are not written
    report = import_opml(new, data)
    assert len(report.added) == 3 and report.problems == [] and report.already == 0
    by_url = {f.url: f for f in new.feeds()}
    fa, fb, fc = (by_url[f"https://{k}.example/feed"] for k in "abc")
    assert (fa.weight, fa.min_interval, fa.keep_days, fa.load_images) == (3.5, 2700, 0, True)
    assert fa.user_title == "My A" and fa.display_title == "My A" and fa.folder == "News / World"
    assert (fb.keep_days, fb.weight, fb.min_interval, fb.user_title) == (14, 1, None, None)
    assert fb.title == "B feed" and not fb.load_images
    assert fa.full_text and not fb.full_text and not fc.full_text
    assert (fa.max_interval, fb.max_interval, fc.max_interval) == (6 * 3600, None, None)
    assert (fc.keep_days, fc.weight, fc.user_title) == (None, 1, None)
    # Importing the same file again adds nothing and changes nothing.
    new.update_feed(fa.id, weight=2)
    again = import_opml(new, data)
    assert again.added == [] and again.already == 3 and new.feed(fa.id).weight == 2
    assert again.summary() == "imported 0 feeds, 3 already subscribed"


def test_a_sites_own_limit_goes_with_its_feeds_and_does_not_override_one_set(two):
    old, new = two
    for name in ("a", "b"):
        old.add_feed(f"https://www.reddit.example/r/{name}/.rss", title=name)
    old.add_feed("https://slow.example/feed", title="slow")
    old.add_feed("https://q.example/feed", title="q")
    set_host_gap(old, "www.reddit.example", 60.0)
    set_host_gap(old, "slow.example", 600.0)
    data, _n = export_opml(old)
    limits = {s.title: dict(s.settings).get("siteLimitSeconds")
              for s in parse_opml(data).subscriptions}  # fmt: skip
    assert limits == {"a": "60", "b": "60", "slow": "600", "q": None}
    set_host_gap(new, "slow.example", 30.0)  # the user's own stands
    report = import_opml(new, data)
    assert report.problems == [] and len(report.added) == 4
    assert host_gaps_of(new) == {"www.reddit.example": 60.0, "slow.example": 30.0}


def test_a_site_limit_out_of_range_is_a_named_problem(two):
    _old, new = two
    data = f"""<opml version="2.0" xmlns:sr="{NS}"><body>
      <outline text="Fast" xmlUrl="https://fast.example/f" sr:siteLimitSeconds="0.1"/>
    </body></opml>""".encode()
    report = import_opml(new, data)
    assert len(report.added) == 1 and host_gaps_of(new) == {}
    assert report.problems == [
        "Fast: setting siteLimitSeconds='0.1' ignored (not between 1 and 86400)"
    ]


def test_bad_settings_are_named_and_the_feed_still_comes_in(two):
    _old, new = two
    data = f"""<opml version="2.0" xmlns:sr="{NS}"><body>
      <outline text="Odd" xmlUrl="https://odd.example/f" sr:priority="-2"
        sr:minIntervalMinutes="nan" sr:keepDays="12" sr:loadImages="maybe" sr:title="  "
        sr:fullText="1" sr:maxIntervalMinutes="30" sr:fromTheFuture="1"/>
    </body></opml>""".encode()
    report = import_opml(new, data)
    assert len(report.added) == 1
    feed = new.feed(report.added[0])
    settings = (feed.weight, feed.min_interval, feed.keep_days, feed.load_images)
    assert settings == (1, None, 12, False)
    assert feed.user_title is None and feed.title == "Odd" and not feed.full_text
    assert feed.max_interval is None  # 30 minutes: below an hour
    text = "\n".join(report.problems)
    assert len(report.problems) == 6, text
    for name in ("priority", "minIntervalMinutes", "loadImages", "title", "fullText",
                 "maxIntervalMinutes"):  # fmt: skip
        assert f"Odd: setting {name}=" in text
    assert "fromTheFuture" not in text  # a later version's setting is not an error
    assert report.summary() == "imported 1 feed, 6 problems"


def test_credentials_in_a_url_go_to_the_keyring_never_the_database(two, tmp_path):
    _old, new = two
    data = b"""<opml version="2.0"><body>
      <outline text="Private" xmlUrl="https://ann:s3cr3t-pw@p.example/feed"/>
    </body></opml>"""
    with installed(MemoryKeyring()):
        report = import_opml(new, data)
        assert report.problems == []
        feed = new.feed(report.added[0])
        assert (feed.url, feed.auth_username) == ("https://p.example/feed", "ann")
        assert credentials.get_password(feed.url, "ann") == "s3cr3t-pw"
    new.close()
    assert b"s3cr3t-pw" not in (tmp_path / "new.sqlite3").read_bytes()


def test_no_keyring_skips_that_feed_with_a_clear_problem(two):
    _old, new = two
    data = b"""<opml version="2.0"><body>
      <outline text="Private" xmlUrl="https://ann:s3cr3t-pw@p.example/feed"/>
      <outline text="Public" xmlUrl="https://q.example/feed"/>
    </body></opml>"""
    report = import_opml(new, data)  # the tests' keyring is the "fail" backend
    assert [new.feed(i).url for i in report.added] == ["https://q.example/feed"]
    assert len(report.problems) == 1 and "keyring" in report.problems[0]
    assert "s3cr3t-pw" not in report.problems[0]


def test_an_unreadable_file_changes_nothing(two):
    _old, new = two
    with pytest.raises(ParseError):
        import_opml(new, b"<html/>")
    assert new.feeds() == []


def _with_articles(store: Store, url: str, n: int, *, user: str | None = None) -> int:
    fid = store.add_feed(url, title=url.split("/")[2], auth_username=user)
    entries = [
        ParsedEntry(
            uid=f"{url}#{k}",
            title=f"item {k}",
            link=None,
            author="",
            published=1000.0 + k,
            updated=None,
            content="",
            summary="",
        )
        for k in range(n)
    ]
    store.record_fetch(FetchRecord(fid, 2000.0, "ok", entries=entries))
    return fid


def test_unsubscribe_deletes_the_feed_and_forgets_its_password(two):
    store, _ = two
    keep = _with_articles(store, "https://keep.example/f", 2, user="bob")
    fid = _with_articles(store, "https://p.example/f", 5, user="ann")
    store.set_starred(store.entry_ids(feed_ids=[fid])[:2], True)
    with installed(MemoryKeyring()) as kr:
        credentials.store_password("https://p.example/f", "ann", "pw1")
        credentials.store_password("https://keep.example/f", "bob", "pw2")
        done = unsubscribe(store, fid)
        assert (done.title, done.articles, done.starred, done.password_problem) == (
            "p.example",
            5,
            2,
            None,
        )
        assert (
            done.summary() == "unsubscribed from “p.example”: 5 articles deleted, 2 of them starred"
        )
        assert credentials.get_password("https://p.example/f", "ann") is None
        assert len(kr.data) == 1  # the other feed's password stays
    assert [f.id for f in store.feeds()] == [keep] and store.entry_count() == 2
    assert store.entry_count(keep) == 2 and store.starred_count() == 0


def test_a_failing_keyring_does_not_undo_the_unsubscribe(two):
    store, _ = two
    fid = _with_articles(store, "https://p.example/f", 1, user="ann")
    with installed(LockedKeyring()):
        done = unsubscribe(store, fid)
    assert store.feeds() == [] and done.articles == 1
    assert done.password_problem and "keyring is locked" in done.password_problem
    assert done.summary() == "unsubscribed from “p.example”: 1 article deleted"


def test_with_no_keyring_at_all_there_is_no_password_problem(two, caplog):
    """The tests' keyring is the "fail" backend: nothing can have been saved in
    it, so "its password stays in the keyring" was wrong (and logged besides)."""
    store, _ = two
    fid = _with_articles(store, "https://p.example/f", 1, user="ann")
    done = unsubscribe(store, fid)
    assert store.feeds() == [] and done.password_problem is None
    assert "keyring" not in caplog.text


def test_unsubscribing_an_unknown_feed_is_a_clear_error(two):
    store, _ = two
    fid = _with_articles(store, "https://p.example/f", 1)
    with pytest.raises(UsageError, match="no feed with id 99"):
        unsubscribe(store, 99)
    assert [f.id for f in store.feeds()] == [fid]


def test_an_old_opml_file_does_not_bring_back_a_feed_that_moved(tmp_path):
    """A feed that has moved (its old address kept in ``previous_urls``) is the
    same subscription: re-importing an OPML file written before the move, or by
    another reader, must not add a second copy under the old address."""
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed("http://moved.example/rss", title="Moved")
        store.add_feed("https://other.example/feed")
        before, _ = export_opml(store)
        # the old address went away, the feed took its new one (§3.2)
        store.record_fetch(
            FetchRecord(fid, 1.0e9, "ok", redirect_url="https://new.example/feed",
                        redirect_adopt=True)
        )  # fmt: skip
        moved = store.feed(fid)
        assert moved.url == "https://new.example/feed"
        assert moved.previous_urls == ("http://moved.example/rss",)
        report = import_opml(store, before)
        assert report.added == [] and report.already == 2
        assert store.feed_id_by_address("http://moved.example/rss") == fid
        assert store.feed_id_by_url("http://moved.example/rss") is None
        assert store.feed_id_by_address("http://never.example/rss") is None
        assert len(store.feeds()) == 2


def test_a_damaged_address_history_does_not_stop_an_import(tmp_path):
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed("https://a.example/feed")
        with store._tx() as cur:  # a hand edit, or a newer version's format
            cur.execute("UPDATE feeds SET previous_urls = '{not json' WHERE id = ?", (fid,))
        data = b"<opml version='2.0'><body><outline xmlUrl='https://b.example/feed'/></body></opml>"
        report = import_opml(store, data)
        assert len(report.added) == 1 and report.problems == []


def test_an_undone_unsubscribe_brings_back_the_feed_and_its_password(two):
    store, _ = two
    fid = _with_articles(store, "https://p.example/f", 3, user="ann")
    store.set_starred(store.entry_ids(feed_ids=[fid])[:1], True)
    with installed(MemoryKeyring()) as kr:
        credentials.store_password("https://p.example/f", "ann", "pw1")
        done = unsubscribe(store, fid, keep_for_undo=True)
        assert done.undo is not None and kr.data == {}
        assert done.undo.password == "pw1"
        back, problem = resubscribe(store, done.undo)
        assert (back, problem) == (fid, None)
        assert credentials.get_password("https://p.example/f", "ann") == "pw1"
        assert not credentials.kept_for_session("https://p.example/f", "ann")
    assert store.entry_count(fid) == 3 and store.starred_count(fid) == 1


def test_a_session_only_password_comes_back_for_the_session_only(two):
    store, _ = two
    fid = _with_articles(store, "https://p.example/f", 1, user="ann")
    credentials.keep_for_session("https://p.example/f", "ann", "pw1")  # no keyring here
    done = unsubscribe(store, fid, keep_for_undo=True)
    assert done.undo is not None and done.password_problem is None
    assert not credentials.kept_for_session("https://p.example/f", "ann")
    assert resubscribe(store, done.undo) == (fid, None)
    assert credentials.kept_for_session("https://p.example/f", "ann")
    assert credentials.get_password("https://p.example/f", "ann") == "pw1"


def test_a_keyring_that_fails_on_undo_keeps_the_password_for_the_session(two):
    store, _ = two
    fid = _with_articles(store, "https://p.example/f", 1, user="ann")
    with installed(MemoryKeyring()):
        credentials.store_password("https://p.example/f", "ann", "pw1")
        done = unsubscribe(store, fid, keep_for_undo=True)
    assert done.undo is not None
    back, problem = resubscribe(store, done.undo)  # the tests' keyring fails
    assert back == fid and problem and problem.startswith("the keyring refused its password")
    assert credentials.get_password("https://p.example/f", "ann") == "pw1"


def test_a_feed_too_big_to_hold_is_not_kept_for_undo(two, monkeypatch):
    store, _ = two
    fid = _with_articles(store, "https://p.example/f", 3)
    assert undoable(store, fid)
    monkeypatch.setattr(subscriptions, "UNDO_MAX_BYTES", store.feed_text_bytes(fid) - 1)
    assert not undoable(store, fid)
    done = unsubscribe(store, fid, keep_for_undo=True)
    assert done.undo is None and store.feeds() == []
    assert unsubscribe(store, _with_articles(store, "https://q.example/f", 1)).undo is None


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64  # what favicon.sniff_image takes for a PNG


def test_unsubscribing_forgets_the_icon_and_an_undo_brings_it_back(two):
    """The CLI's ``remove`` and the window both unsubscribe here: the feed's cached
    icon goes with it (before schema v10 the next feed got the same id, and showed
    it), and an undo puts it back instead of fetching it again."""
    store, _ = two
    folder = favicon.icons_dir(store.path)
    keep = _with_articles(store, "https://keep.example/f", 1)
    fid = _with_articles(store, "https://p.example/f", 2)
    favicon.save_icon(folder, keep, PNG + b"keep")
    favicon.save_icon(folder, fid, PNG)

    done = unsubscribe(store, fid, keep_for_undo=True)
    assert favicon.icon_path(folder, fid) is None
    assert favicon.icon_path(folder, keep) is not None  # the other feed's stays
    assert done.undo is not None and done.undo.icon == PNG
    back, _problem = resubscribe(store, done.undo)
    path = favicon.icon_path(folder, back)
    assert path is not None and path.read_bytes() == PNG

    unsubscribe(store, back)  # not kept for an undo: gone all the same
    assert favicon.icon_path(folder, back) is None
    assert not list(folder.glob(f"{back}.*"))  # no "none" marker left either
    assert store.add_feed("https://new.example/f") > back  # ids are not handed out again


def test_a_feed_without_an_icon_is_undone_without_one(two):
    store, _ = two
    folder = favicon.icons_dir(store.path)
    fid = _with_articles(store, "https://p.example/f", 1)
    favicon.save_icon(folder, fid, None)  # looked for, none found
    done = unsubscribe(store, fid, keep_for_undo=True)
    assert done.undo is not None and done.undo.icon is None
    assert not list(folder.glob(f"{fid}.*"))
    back, _problem = resubscribe(store, done.undo)
    assert favicon.icon_path(folder, back) is None


@pytest.mark.parametrize(
    ("typed", "address"),
    [
        ("example.org/feed", "https://example.org/feed"),
        ("localhost:8080/feed", "https://localhost:8080/feed"),
        ("  http://a.example/x  ", "http://a.example/x"),
        # what browsers and sites hand to a feed reader (it was refused)
        ("feed://a.example/rss", "http://a.example/rss"),
        ("FEED:https://a.example/rss", "https://a.example/rss"),
    ],
)
def test_feed_address_adds_https_when_no_scheme_is_named(typed, address):
    assert feed_address(typed) == address


@pytest.mark.parametrize(
    "typed",
    ["not a url", "javascript:alert(1)", "mailto:a@b.example", "ftp://x/y", "file:///etc/passwd",
     "http://a.example:port/", "https://", "http://u:p@a.example/"],
)  # fmt: skip
def test_feed_address_refuses_what_is_not_a_web_feed(typed):
    with pytest.raises(UsageError):
        feed_address(typed)


NESTED_UNDER_A_FEED = b"""<?xml version="1.0"?>
<opml version="1.0"><body>
  <outline text="News">
    <outline text="Parent" xmlUrl="https://p.example/feed">
      <outline type="rss" text="Child" xmlUrl="https://c.example/feed"/>
    </outline>
    <outline text="Later"/>
  </outline>
  <outline text="Empty Folder"/>
  <outline text="No URL" type="rss"/>
</body></opml>"""


def test_nothing_in_the_file_is_dropped_without_a_word(two):
    """Audit s32 B5: a feed nested under a feed, and an empty folder."""
    old, new = two
    old.folder_id("News / Later")  # one there before is not counted as made
    report = import_opml(old, NESTED_UNDER_A_FEED)
    folders = {f.url: f.folder for f in old.feeds()}
    assert folders == {
        "https://p.example/feed": "News",
        "https://c.example/feed": "News / Parent",
    }
    made = {"News", "News / Parent", "News / Later", "Empty Folder"}
    assert {f.name for f in old.folders()} == made
    assert report.empty_folders == ["Empty Folder"]
    assert report.notes and "News / Parent" in report.notes[0]
    assert report.details() == [*report.problems, report.notes[0]]  # what the GUI lists
    assert len(report.problems) == 1 and "'No URL' has no feed URL" in report.problems[0]
    assert report.summary() == "imported 2 feeds, 1 empty folder, 1 problem, 1 note"
    # The empty folders travel with an export to the next machine.
    data, n = export_opml(old)
    assert n == 2 and b'<outline text="Empty Folder" title="Empty Folder"/>' in data
    again = import_opml(new, data)
    assert {f.name for f in new.folders()} == {f.name for f in old.folders()}
    assert again.problems == [] and len(again.added) == 2


def test_a_leniently_read_file_says_so_in_the_report(tmp_path):
    data = b'<opml><body><outline text="R&D" xmlUrl="https://a.example/?a=1&b=2"/></body></opml>'
    with Store(tmp_path / "db.sqlite3") as store:
        report = import_opml(store, data)
        assert [(f.title, f.url) for f in store.feeds()] == [("R&D", "https://a.example/?a=1&b=2")]
    assert report.summary() == "imported 1 feed, 1 note"
    assert report.problems == [] and report.details() == report.notes
    assert "2 bare '&'" in report.notes[0]


def _sqlite_steps_to_import(path, n: int) -> int:
    """How much work SQLite does to import ``n`` new feeds into an empty store, in
    thousands of virtual machine steps: a count, not a time, so the same on any
    machine and under any load."""
    data = (
        "<opml version='2.0'><body>"
        + "".join(f"<outline text='F{i}' xmlUrl='https://e{i}.example/feed'/>" for i in range(n))
        + "</body></opml>"
    ).encode()
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    with Store(path) as store:
        store.set_durable(False)
        store._db.set_progress_handler(count, 1000)
        try:
            assert len(import_opml(store, data).added) == n
        finally:
            store._db.set_progress_handler(None, 0)
    return steps


def test_an_import_does_work_in_proportion_to_the_list(tmp_path):
    """Audit s32 R7: 1,000 feeds took 0.7 s, 20,000 took 42 s. Each feed's
    check for a subscription under an old address scanned every feed, so four
    times the feeds was sixteen times the work; now it is about four."""
    small = _sqlite_steps_to_import(tmp_path / "small.sqlite3", 200)
    large = _sqlite_steps_to_import(tmp_path / "large.sqlite3", 800)
    assert large < 6 * small, (small, large)
