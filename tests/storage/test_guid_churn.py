"""Items whose id changes on every fetch (``Store.stable_uids``), on a real SQLite file.

Some feeds make up each item's guid/id when the document is requested (a
timestamp or a session token in it). Before, every fetch stored every item of
such a feed again as a new unread article, and the scheduler was told they
were all new. An entry the feed never delivered under its uid is now the stored
item when link, title and its date or its text say so; never when the stored
item is still in the document, and never for a new post that reuses a link and
title (a status page).
"""

from __future__ import annotations

from dataclasses import replace

from smartreader.core.models import ParsedEntry
from smartreader.storage import FetchRecord, Store

T0 = 1_780_000_000.0
HOUR = 3600.0


def post(
    uid: str,
    title: str = "Release notes",
    *,
    link: str | None = "https://example.org/notes",
    published: float | None = T0,
    content: str = "<p>What changed</p>",
) -> ParsedEntry:
    return ParsedEntry(uid, title, link, "", published, None, content, "")


def fetch(store: Store, fid: int, at: float, entries: list[ParsedEntry]) -> tuple[int, set[str]]:
    """What the updater does: new articles stored, and the uids new to the scheduler."""
    entries = list(store.stable_uids(fid, entries))
    known = store.known_uids(fid, [e.uid for e in entries])
    out = store.record_fetch(FetchRecord(fid, at, "ok", entries=entries))
    return len(out.new_entry_ids), {e.uid for e in entries} - known


def rows(store: Store, fid: int) -> list[tuple[str, str, bool, bool]]:
    """(uid, content, read, starred) of the feed's articles, oldest first."""
    return [
        (r[0], r[1], bool(r[2]), bool(r[3]))
        for r in store._q(
            "SELECT uid, content, read, starred FROM entries WHERE feed_id = ? ORDER BY id", (fid,)
        )
    ]


def test_an_item_under_a_new_id_is_the_stored_one_with_its_flags(store):
    fid = store.add_feed("https://example.org/feed")

    def document(n: int) -> list[ParsedEntry]:
        return [post(f"notes?t={n}"), post(f"x?t={n}", "Other", link="https://example.org/x")]

    assert fetch(store, fid, T0, document(1)) == (2, {"notes?t=1", "x?t=1"})
    (eid,) = [r[0] for r in store._q("SELECT id FROM entries WHERE uid = 'notes?t=1'")]
    store.set_read([eid], True)
    store.set_starred([eid], True)

    for n in (2, 3):
        # no new article, and nothing new to the scheduler
        assert fetch(store, fid, T0 + n * HOUR, document(n)) == (0, set())

    assert rows(store, fid)[0] == ("notes?t=1", "<p>What changed</p>", True, True)
    assert store.entry_count(fid) == 2
    assert store.fetch_log(fid)[0].new_items == 0


def test_an_edit_under_a_new_id_refreshes_the_text_like_any_edit(store):
    fid = store.add_feed("https://example.org/feed")
    fetch(store, fid, T0, [post("a-1")])
    store.set_read(store.entry_ids(feed_ids=[fid]), True)
    edited = post("a-2", content="<p>What changed, corrected</p>")  # the same date

    assert fetch(store, fid, T0 + HOUR, [edited]) == (0, set())

    assert rows(store, fid) == [("a-1", "<p>What changed, corrected</p>", True, False)]
    assert store.entry_ids(feed_ids=[fid], search="corrected") != []  # the index follows


def test_a_date_made_at_each_request_is_no_new_item_when_the_text_is_the_same(store):
    fid = store.add_feed("https://example.org/feed")
    fetch(store, fid, T0, [post("a-1", published=T0)])
    assert fetch(store, fid, T0 + HOUR, [post("a-2", published=T0 + HOUR)]) == (0, set())
    assert fetch(store, fid, T0 + 2 * HOUR, [post("a-3", published=None)]) == (0, set())
    assert store.entry_count(fid) == 1


def test_a_status_feed_reusing_its_link_and_title_posts_new_items(store):
    """Capacity 1: each post replaces the last under the same link and title. A
    new date and new words are a new post; so are new words with no dates at all
    (taking them for an edit would overwrite the earlier post)."""
    fid = store.add_feed("https://status.example/feed")
    good = post("s-1", "Status", content="<p>All good</p>")
    fetch(store, fid, T0, [good])
    # the same post, its id churned: recognised
    assert fetch(store, fid, T0 + HOUR, [replace(good, uid="s-1b")]) == (0, set())
    outage = post("s-2", "Status", published=T0 + 2 * HOUR, content="<p>Outage</p>")
    assert fetch(store, fid, T0 + 2 * HOUR, [outage]) == (1, {"s-2"})
    undated = [post("s-3", "Status", published=None, content="<p>Fixed</p>")]
    assert fetch(store, fid, T0 + 3 * HOUR, undated) == (1, {"s-3"})
    assert [r[1] for r in rows(store, fid)] == ["<p>All good</p>", "<p>Outage</p>", "<p>Fixed</p>"]


def test_an_item_still_in_the_document_is_not_taken_for_a_new_one(store):
    """Two distinct items sharing link and title (a repost under a new guid, the
    same date and text) in one document stay two; the same fetch still knows an
    item whose id churned."""
    fid = store.add_feed("https://example.org/feed")
    other = post("o-1", "Other", link="https://example.org/other")
    fetch(store, fid, T0, [post("a"), other])

    got = fetch(store, fid, T0 + HOUR, [post("a"), post("a-repost"), replace(other, uid="o-2")])

    assert got == (1, {"a-repost"})
    assert [r[0] for r in rows(store, fid)] == ["a", "o-1", "a-repost"]


def test_several_items_sharing_link_and_title_each_keep_their_own_row(store):
    fid = store.add_feed("https://example.org/feed")
    first = [post(f"p{k}-1", content=f"<p>part {k}</p>") for k in range(3)]
    fetch(store, fid, T0, first)
    store.set_read([store.entry_ids(feed_ids=[fid], oldest_first=True)[1]], True)

    for n in (2, 3):
        again = [replace(e, uid=e.uid.replace("-1", f"-{n}")) for e in reversed(first)]
        assert fetch(store, fid, T0 + n * HOUR, again) == (0, set())

    assert rows(store, fid) == [
        (f"p{k}-1", f"<p>part {k}</p>", k == 1, False) for k in range(3)
    ]  # each matched to its own row: flags and texts where they were


def test_one_stored_item_answers_one_entry(store):
    """The same item listed twice (a "featured" copy), both ids churning: each copy
    takes one stored row; a third copy is a third article."""
    fid = store.add_feed("https://example.org/feed")
    fetch(store, fid, T0, [post("x-1"), post("y-1")])
    got = store.stable_uids(fid, [post("x-2"), post("y-2"), post("z-2")])
    assert [e.uid for e in got] == ["x-1", "y-1", "z-2"]


def test_items_with_no_link_or_no_title_are_left_alone(store):
    fid = store.add_feed("https://example.org/feed")
    bare = [post("n-1", link=None), post("t-1", "", link="https://example.org/t")]
    fetch(store, fid, T0, bare)
    churned = [replace(bare[0], uid="n-2"), replace(bare[1], uid="t-2")]
    assert fetch(store, fid, T0 + HOUR, churned) == (2, {"n-2", "t-2"})


def test_another_feeds_item_is_not_this_feeds(store):
    a = store.add_feed("https://a.example/feed")
    b = store.add_feed("https://b.example/feed")
    fetch(store, a, T0, [post("a-1")])
    assert fetch(store, b, T0 + HOUR, [post("b-1")]) == (1, {"b-1"})
    assert fetch(store, a, T0 + HOUR, [post("a-2")]) == (0, set())


def test_a_long_document_is_looked_up_in_chunks(store):
    """Over 400 new entries: several queries (SQLite's limit on parameters)."""
    fid = store.add_feed("https://example.org/feed")
    many = [post(f"e{k}-1", f"Item {k}", link=f"https://example.org/{k}") for k in range(950)]
    assert fetch(store, fid, T0, many)[0] == 950
    again = [replace(e, uid=e.uid.replace("-1", "-2")) for e in many]
    assert fetch(store, fid, T0 + HOUR, again) == (0, set())
    assert store.entry_count(fid) == 950


def test_the_lookup_is_one_indexed_query_and_none_when_nothing_is_new(store):
    fid = store.add_feed("https://example.org/feed")
    fetch(store, fid, T0, [post("a-1")])
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    try:
        store.stable_uids(fid, [post("a-1")])
        assert not any("title_key" in s for s in seen)  # every uid known: no lookup
        seen.clear()
        store.stable_uids(fid, [post("a-2"), post("b-1", "New", link="https://example.org/b")])
    finally:
        store._db.set_trace_callback(None)
    (lookup,) = [s for s in seen if "title_key" in s]
    plan = " ".join(r[3] for r in store._q("EXPLAIN QUERY PLAN " + lookup))
    assert "USING INDEX entries_title (title_key=?)" in plan
