"""Items that share a time (dated by day only, or undated: the time they were
fetched) list in the order they were published, both ways: newest first is a
feed's document order (newest item first) with a later fetch's new items above
an earlier fetch's; oldest first is the exact reverse. Ids (document order)
break ties newest first; within its second an item that arrived later sorts
later (``_sort_time``)."""

from __future__ import annotations

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.storage import FetchRecord, Store
from tests.storage.test_entry_pages import pages

DAY = 1_714_521_600.0  # 2024-05-01 00:00 UTC: a date with no time of day
HOUR = 3600.0


def pe(uid: str, published: float | None, title: str | None = None) -> ParsedEntry:
    return ParsedEntry(uid, uid if title is None else title, None, "", published, None, "", "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    day = s.add_feed("https://day.example/feed")  # 1: dates without a time
    bare = s.add_feed("https://bare.example/feed")  # 2: no dates at all
    # Documents list their newest item first; each fetch adds newer ones on top.
    s.record_fetch(FetchRecord(day, DAY + 9 * HOUR, "ok", entries=[pe(u, DAY) for u in "CBA"]))
    s.record_fetch(FetchRecord(bare, DAY + 10 * HOUR, "ok", entries=[pe(u, None) for u in "zyx"]))
    s.record_fetch(FetchRecord(day, DAY + 12 * HOUR, "ok", entries=[pe(u, DAY) for u in "DCBA"]))
    s.record_fetch(FetchRecord(day, DAY + 15 * HOUR, "ok", entries=[pe(u, DAY) for u in "FEDCBA"]))
    s.record_fetch(
        FetchRecord(bare, DAY + 16 * HOUR, "ok", entries=[pe(u, None) for u in "wvuzyx"])
    )
    yield s
    s.close()


def uids(store: Store, ids: list[int]) -> str:
    return "".join(store.entry(i).uid for i in ids)


NEWEST = {1: "FEDCBA", 2: "wvuzyx"}


@pytest.mark.parametrize("fid", [1, 2])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 100])  # ties straddle the page ends
def test_ties_list_newest_first_and_exactly_reversed(store, fid, n):
    want = NEWEST[fid]
    assert uids(store, store.entry_ids(feed_ids=[fid])) == want
    assert uids(store, store.entry_ids(feed_ids=[fid], oldest_first=True)) == want[::-1]
    assert uids(store, pages(store, n, feed_ids=[fid])) == want
    assert uids(store, pages(store, n, feed_ids=[fid], oldest_first=True)) == want[::-1]


@pytest.mark.parametrize("q", [{}, {"unread": True}, {"starred": True}, {"feed_ids": [1, 2]}])
@pytest.mark.parametrize("n", [1, 2, 5, 100])
def test_every_list_pages_the_same_order(store, q, n):
    store.set_starred(store.entry_ids())
    # All items: the undated ones are the times they were fetched (10:00, 16:00),
    # the day's items midnight, below them.
    want = "wvu" + "zyx" + "FEDCBA"
    assert uids(store, store.entry_ids(**q)) == want
    assert uids(store, pages(store, n, **q)) == want
    assert uids(store, pages(store, n, oldest_first=True, **q)) == want[::-1]
    assert [k[0] for k in store.entry_keys(**q)] == store.entry_ids(**q)


def test_a_document_listed_oldest_first_keeps_its_order(tmp_path):
    """A document whose first item is older than its last lists oldest first: its
    items that share a day are newest last."""
    with Store(tmp_path / "db.sqlite3") as s:
        fid = s.add_feed("https://old.example/feed")
        entries = [pe("a", DAY - 86400.0), pe("b", DAY), pe("c", DAY), pe("d", DAY)]
        out = s.record_fetch(FetchRecord(fid, DAY + HOUR, "ok", entries=entries))
        assert uids(s, list(out.new_entry_ids)) == "abcd"  # in document order
        assert uids(s, s.entry_ids()) == "dcba"
        assert uids(s, s.entry_ids(oldest_first=True)) == "abcd"


def test_new_entry_ids_are_in_document_order(store):
    fid = store.add_feed("https://more.example/feed")
    out = store.record_fetch(FetchRecord(fid, DAY, "ok", entries=[pe(u, None) for u in "pqr"]))
    assert uids(store, list(out.new_entry_ids)) == "pqr"
    assert list(out.new_entry_ids) == sorted(out.new_entry_ids)


@pytest.mark.parametrize("n", [1, 2, 3, 100])
def test_title_ties_are_newest_first_too(store, n):
    """Untitled, undated items sort together by title: newest first within it,
    descending the exact reverse, page by page."""
    fid = store.add_feed("https://untitled.example/feed")
    store.record_fetch(
        FetchRecord(fid, DAY, "ok", entries=[pe(u, None, "") for u in ("t3", "t2", "t1")])
    )
    store.record_fetch(
        FetchRecord(fid, DAY + HOUR, "ok", entries=[pe(u, None, "") for u in ("t5", "t4", "t3")])
    )
    for descending, want in ((False, "t5t4t3t2t1"), (True, "t1t2t3t4t5")):
        out: list[int] = []
        after = None
        while True:
            keys = store.entry_title_keys(
                feed_ids=[fid], descending=descending, after=after, limit=n
            )
            out += [k[0] for k in keys]
            if len(keys) < n:
                break
            after = keys[-1]
        assert uids(store, out) == want
    # In the whole list the empty title sorts first (last descending).
    assert uids(store, [k[0] for k in store.entry_title_keys()]).startswith("t5t4t3t2t1")
    assert uids(store, [k[0] for k in store.entry_title_keys(descending=True)]).endswith(
        "t1t2t3t4t5"
    )


def test_mark_all_read_up_to_a_shown_id_leaves_a_later_fetch_unread(store):
    """A list read up to an id, then a fetch adds a newer item of the same day: it
    lists on top, and marking the list read leaves it unread."""
    shown = store.max_entry_id()
    store.record_fetch(
        FetchRecord(1, DAY + 20 * HOUR, "ok", entries=[pe(u, DAY) for u in "GFEDCBA"])
    )
    assert uids(store, store.entry_ids(feed_ids=[1])) == "GFEDCBA"
    marked = store.mark_all_read([1], upto_id=shown)
    assert sorted(uids(store, list(marked))) == sorted("FEDCBA")
    assert uids(store, store.entry_ids(feed_ids=[1], unread=True)) == "G"
