"""Rules (schema v13): what happens to a new article that matches words.

A rule marks matching new articles read (mutes a topic) or stars them, in the
fetch's own transaction, so nothing it muted is announced. It matches as the
search box does (folded: "strasse" finds "Straße"; unspaced scripts; "C++"),
but whole words only: a rule "sale" must not mute "Salesforce". Articles already
stored are left alone (the GUI offers to apply it to them, by ``rule_matches``).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.errors import UsageError
from smartreader.storage.store import FetchRecord, Store

T0 = 1_790_000_000.0
GOLDEN = Path(__file__).parent / "golden"


def _entry(uid: str, title: str, text: str = "") -> ParsedEntry:
    return ParsedEntry(uid, title, f"https://e.example/{uid}", "", T0, None, f"<p>{text}</p>", "")


def _fetch(store: Store, fid: int, *entries: ParsedEntry, t: float = T0):
    return store.record_fetch(FetchRecord(fid, t, "ok", entries=tuple(entries)))


def _flags(store: Store, fid: int) -> dict[str, tuple[bool, bool]]:
    rows = store._q("SELECT uid, read, starred FROM entries WHERE feed_id = ?", (fid,))
    return {r[0]: (bool(r[1]), bool(r[2])) for r in rows}


@pytest.fixture
def feeds(store):
    return (
        store.add_feed("https://a.example/feed", title="A", now=T0),
        store.add_feed("https://b.example/feed", title="B", now=T0),
    )


def test_a_rule_mutes_matching_new_articles_and_counts_them(store, feeds):
    a, b = feeds
    rid = store.add_rule("sponsored", now=T0)
    out = _fetch(
        store,
        a,
        _entry("1", "Sponsored: a great VPN"),
        _entry("2", "Release 2.0", "this post is sponsored by nobody"),
        _entry("3", "Release 2.1"),
    )
    assert len(out.new_entry_ids) == 3 and out.ruled_read == 2 and out.ruled_starred == 0
    assert _flags(store, a) == {"1": (True, False), "2": (True, False), "3": (False, False)}
    _fetch(store, b, _entry("x", "SPONSORED"))  # every feed's rule
    assert _flags(store, b) == {"x": (True, False)}
    assert [r.hits for r in store.rules()] == [3] and store.rules()[0].id == rid
    assert store.unread_counts()[a] == 1


def test_whole_words_only(store, feeds):
    a, _ = feeds
    store.add_rule("sale", now=T0)
    _fetch(store, a, _entry("1", "Salesforce buys Slack"), _entry("2", "Big sale today"))
    assert _flags(store, a) == {"1": (False, False), "2": (True, False)}


def test_every_word_is_required_in_any_order(store, feeds):
    a, _ = feeds
    store.add_rule("football  results", now=T0)
    _fetch(
        store,
        a,
        _entry("1", "Results of the football cup"),
        _entry("2", "Football news"),
        _entry("3", "Election results"),
    )
    assert _flags(store, a) == {"1": (True, False), "2": (False, False), "3": (False, False)}
    assert store.rules()[0].query == "football results"  # spaces tidied


def test_it_matches_as_search_does(store, feeds):
    a, _ = feeds
    store.add_rule("strasse", now=T0)
    store.add_rule("天気", now=T0)
    store.add_rule("C++", now=T0)
    _fetch(
        store,
        a,
        _entry("1", "Straße gesperrt"),
        _entry("2", "東京の天気は晴れ"),
        _entry("3", "C++26 is out", "news about C++ and more"),
        _entry("4", "C is fine", "about the C language"),
    )
    assert _flags(store, a) == {
        "1": (True, False),
        "2": (True, False),
        "3": (True, False),
        "4": (False, False),
    }


def test_title_only(store, feeds):
    a, _ = feeds
    store.add_rule("podcast", title_only=True, now=T0)
    _fetch(store, a, _entry("1", "Podcast 12"), _entry("2", "Notes", "as said in the podcast"))
    assert _flags(store, a) == {"1": (True, False), "2": (False, False)}


def test_a_feeds_rule_leaves_other_feeds_alone_and_star_keeps(store, feeds):
    a, b = feeds
    store.add_rule("release", feed_id=a, action="star", now=T0)
    store.add_rule("beta", feed_id=a, now=T0)
    out = _fetch(store, a, _entry("1", "Release 3.0"), _entry("2", "Release 3.1 beta"))
    assert (out.ruled_read, out.ruled_starred) == (1, 2)
    assert _flags(store, a) == {"1": (False, True), "2": (True, True)}
    _fetch(store, b, _entry("1", "Release 3.0 beta"))
    assert _flags(store, b) == {"1": (False, False)}
    assert [r.id for r in store.rules(feed_id=b)] == []
    assert len(store.rules(feed_id=a)) == 2


def test_stored_and_refetched_articles_are_left_alone(store, feeds):
    a, _ = feeds
    _fetch(store, a, _entry("1", "Crypto news"))
    store.add_rule("crypto", now=T0)
    # the same item again, edited upstream: not new, not ruled
    out = _fetch(store, a, _entry("1", "Crypto news (updated)"), t=T0 + 60)
    assert out.new_entry_ids == () and out.ruled_read == 0
    assert _flags(store, a) == {"1": (False, False)}
    assert store.rules()[0].hits == 0
    # what applying it now would change
    ids = store.rule_matches("crypto", unread_only=True)
    assert len(ids) == 1 and store.rule_matches("crypto", feed_id=feeds[1]) == []
    store.set_read(ids)
    assert store.rule_matches("crypto", unread_only=True) == []
    assert len(store.rule_matches("crypto")) == 1


@pytest.mark.parametrize(
    ("query", "kw", "message"),
    [
        ("", {}, "needs a word"),
        ("   ", {}, "needs a word"),
        ("🎉 !!", {}, "signs and emoji are not words"),
        ("ok", {"action": "delete"}, "marks articles read or stars them"),
        ("ok", {"feed_id": 999}, "no feed with id 999"),
    ],
)
def test_a_rule_that_cannot_work_is_refused_and_nothing_is_stored(store, feeds, query, kw, message):
    with pytest.raises(UsageError, match=message):
        store.add_rule(query, now=T0, **kw)
    assert store.rules() == []


def test_update_keeps_hits_unless_what_it_matches_changed(store, feeds):
    a, _ = feeds
    rid = store.add_rule("launch", now=T0)
    _fetch(store, a, _entry("1", "Launch day"))
    store.update_rule(rid, "launch", action="star")
    assert store.rules()[0].hits == 1 and store.rules()[0].action == "star"
    store.update_rule(rid, "launch", feed_id=a, action="star")
    assert store.rules()[0].hits == 0 and store.rules()[0].feed_id == a
    with pytest.raises(UsageError, match="no rule"):
        store.update_rule(rid + 1, "x")
    with pytest.raises(UsageError, match="needs a word"):
        store.update_rule(rid, "")
    assert store.rules()[0].query == "launch"
    store.delete_rule(rid)
    assert store.rules() == []
    with pytest.raises(UsageError, match="no rule"):
        store.delete_rule(rid)


def test_a_feeds_rules_go_with_it(store, feeds):
    a, _b = feeds
    store.add_rule("x", feed_id=a, now=T0)
    store.add_rule("y", now=T0)
    store.delete_feed(a)
    assert [r.query for r in store.rules()] == ["y"]


def test_a_rule_damaged_by_hand_matches_nothing_and_fetches_go_on(store, feeds):
    a, _ = feeds
    with store._tx() as db:  # a hand edit: no word left to look for
        db.execute("INSERT INTO rules (query, action, created) VALUES ('🎉', 'read', ?)", (T0,))
    store.add_rule("news", now=T0)
    out = _fetch(store, a, _entry("1", "🎉 news"), _entry("2", "🎉 party"))
    assert out.ruled_read == 1
    assert _flags(store, a) == {"1": (True, False), "2": (False, False)}


def test_the_schema_refuses_what_the_code_would(store, feeds):
    for sql in (
        "INSERT INTO rules (query, action, created) VALUES ('  ', 'read', 0)",
        "INSERT INTO rules (query, action, created) VALUES ('x', 'delete', 0)",
        "INSERT INTO rules (query, action, title_only, created) VALUES ('x', 'read', 2, 0)",
    ):
        with pytest.raises(sqlite3.IntegrityError), store._tx() as db:
            db.execute(sql)


def test_an_upgraded_database_has_no_rules_and_takes_them(tmp_path):
    path = tmp_path / "db.sqlite3"
    shutil.copyfile(GOLDEN / "v12.sqlite3", path)
    with Store(path) as store:
        assert store.rules() == []
        fid = store.feeds()[0].id
        store.add_rule("zebra", now=T0)
        out = _fetch(store, fid, _entry("new-1", "A zebra at the zoo"))
        assert out.ruled_read == 1


def test_an_older_read_only_database_has_no_rules(tmp_path):
    path = tmp_path / "db.sqlite3"
    shutil.copyfile(GOLDEN / "v12.sqlite3", path)
    with Store(path, readonly=True) as store:
        assert store.rules() == []
        with pytest.raises(UsageError, match="older version"):
            store.add_rule("zebra", now=T0)


def test_preview_and_twin_lookup(store, feeds):
    a, _ = feeds
    _fetch(store, a, _entry("1", "Crypto one"), _entry("2", "Crypto two"), _entry("3", "Other"))
    ids = {r[1]: r[0] for r in store._q("SELECT id, uid FROM entries")}
    store.set_read([ids["1"]])
    store.set_starred([ids["2"]])
    assert store.rule_preview("crypto", action="read") == (2, [ids["2"]])
    assert store.rule_preview("crypto", action="star") == (2, [ids["1"]])
    assert store.rule_preview("crypto", feed_id=feeds[1], action="read") == (0, [])
    rid = store.add_rule("crypto", feed_id=a, action="star", now=T0)
    assert store.find_rule("  crypto ", feed_id=a, action="star") == rid
    assert store.find_rule("crypto", feed_id=a, action="read") is None
    assert store.find_rule("crypto", feed_id=a, title_only=True, action="star") is None
