"""What a fetch does to articles already stored (an audit of dates, ordering and
identity): a feed that reuses one guid for each new post, an upstream fix to an
item's link, author or enclosure, and a date ahead of the fetch. Real SQLite
file; documents through the real parser, stored as the updater does
(``stable_uids``, then ``record_fetch``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from smartreader.core.models import Enclosure
from smartreader.net.parse import parse_feed
from smartreader.storage.store import FetchRecord, Store
from tests.storage.test_store import entry

T0 = 1_800_000_000.0


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "db.sqlite3") as s:
        yield s


def _item(n: int) -> str:
    return (
        f'<item><guid isPermaLink="false">same-for-all</guid><title>Post {n}</title>'
        f"<link>https://d.example/{n}</link><description>text {n}</description></item>"
    )


def _fetch(store: Store, fid: int, t: float, *posts: int) -> list[int]:
    body = (
        f'<rss version="2.0"><channel><title>D</title>{"".join(map(_item, posts))}</channel></rss>'
    )
    doc = parse_feed(body.encode(), url="https://d.example/feed", now=t)
    entries = store.stable_uids(fid, doc.entries)
    return list(store.record_fetch(FetchRecord(fid, t, "ok", entries=list(entries))).new_entry_ids)


def _rows(store: Store) -> dict[str, tuple[str, str, bool]]:
    out = {}
    for i in store.entry_ids():
        e = store.entry(i)
        out[e.title] = (e.link, e.content, e.read)
    return out


def test_a_feed_reusing_one_guid_for_each_post_neither_overwrites_nor_loses_them(store):
    """One item at a time under one guid: each new post took the first one's row
    (its title and text overwritten, the read flag on the new post) and was never
    new."""
    fid = store.add_feed("https://d.example/feed")
    [first] = _fetch(store, fid, T0, 1)
    store.set_read([first])
    assert len(_fetch(store, fid, T0 + 3600, 2)) == 1  # a new article
    assert _fetch(store, fid, T0 + 7200, 2) == []  # and only once
    assert len(_fetch(store, fid, T0 + 9000, 3)) == 1
    # both in one document (told apart by the parser): nothing new either
    assert _fetch(store, fid, T0 + 10000, 3, 1) == []
    rows = _rows(store)
    assert rows["Post 1"] == ("https://d.example/1", "text 1", True)
    assert rows["Post 2"][:2] == ("https://d.example/2", "text 2") and not rows["Post 2"][2]
    assert rows["Post 3"][:2] == ("https://d.example/3", "text 3")
    assert len(rows) == 3 == store.entry_count()


def test_a_link_author_or_enclosure_fixed_upstream_is_stored_and_flags_kept(store):
    fid = store.add_feed("https://example.org/feed")
    e = replace(entry("a", title="Episode 12"), link="https://example.org/?p=123")
    [eid] = store.record_fetch(FetchRecord(fid, T0, "ok", entries=[e])).new_entry_ids
    store.set_read([eid])
    store.set_starred([eid])
    fixed = replace(
        e,
        link="https://example.org/episode-12",
        author="Ann",
        enclosures=(Enclosure("https://example.org/ep12.mp3", "audio/mpeg", 4096),),
    )
    out = store.record_fetch(FetchRecord(fid, T0 + 60, "ok", entries=[fixed]))
    assert list(out.new_entry_ids) == []
    got = store.entry(eid)
    assert (got.link, got.author) == ("https://example.org/episode-12", "Ann")
    assert [x.url for x in got.enclosures] == ["https://example.org/ep12.mp3"]
    assert got.read and got.starred


def test_an_edit_that_fixes_the_link_is_the_same_item(store):
    """Only a link and a title both new make another item of a reused guid."""
    fid = store.add_feed("https://example.org/feed")
    e = entry("g", title="Same title")
    store.record_fetch(FetchRecord(fid, T0, "ok", entries=[e]))
    moved = replace(e, link="https://example.org/new-home")
    assert store.stable_uids(fid, [moved])[0].uid == "g"
    retitled = replace(e, title="Better title")
    assert store.stable_uids(fid, [retitled])[0].uid == "g"
    other = replace(e, link="https://example.org/other", title="Other post")
    assert store.stable_uids(fid, [other])[0].uid != "g"


def test_a_date_ahead_of_its_fetch_does_not_hold_the_item_on_top(store):
    """A site writing local time (UTC+8) without a zone, read as UTC: its item is
    8 h ahead, and sat above every item that came after it until then."""
    fid = store.add_feed("https://example.org/feed")
    ahead = entry("ahead", published=T0 + 8 * 3600)
    [a] = store.record_fetch(FetchRecord(fid, T0, "ok", entries=[ahead])).new_entry_ids
    later = entry("later", published=T0 + 3600)
    [b] = store.record_fetch(FetchRecord(fid, T0 + 3600, "ok", entries=[later])).new_entry_ids
    assert store.entry_ids() == [b, a]  # newest first: the one that came later
    assert store.entry(a).published == T0 + 8 * 3600  # shown as the feed dates it
