"""Full articles (schema v14): an article's loaded page is kept next to it, goes
with it (purge, unsubscribe) and comes back with an undone unsubscribe; a feed's
"load full articles" flag is stored. Real SQLite files."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.storage.store import FetchRecord, Store

DAY = 86400.0
T0 = 1.7e9
GOLDEN_V13 = Path(__file__).parent / "golden" / "v13.sqlite3"


def _feed_with(store: Store, n: int, url: str = "https://p.example/feed") -> tuple[int, list[int]]:
    fid = store.add_feed(url, title="P", now=T0)
    entries = [
        ParsedEntry(uid=f"u{k}", title=f"t{k}", link=f"https://p.example/{k}", author="",
                    published=T0 - k, updated=None, content="<p>summary</p>", summary="")
        for k in range(n)
    ]  # fmt: skip
    store.record_fetch(FetchRecord(fid, T0, "ok", entries=entries))
    return fid, store.entry_ids(feed_ids=[fid])


def test_a_loaded_page_is_kept_replaced_and_forgotten(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        _fid, (a, b) = _feed_with(store, 2)
        assert store.full_article(a) is None
        assert store.save_full_article(a, "https://p.example/0", "<p>whole</p>", T0 + 5)
        got = store.full_article(a)
        assert got is not None and (got.entry_id, got.url, got.html, got.fetched) == (
            a, "https://p.example/0", "<p>whole</p>", T0 + 5,
        )  # fmt: skip
        assert store.full_article(b) is None  # one article's page is not another's
        assert store.save_full_article(a, "https://p.example/moved", "<p>again</p>", T0 + 9)
        got = store.full_article(a)
        assert got is not None and (got.url, got.html) == (
            "https://p.example/moved",
            "<p>again</p>",
        )
        assert store.entry(a).content == "<p>summary</p>"  # the feed's own text stays
        store.delete_full_article(a)
        assert store.full_article(a) is None
        assert store.entry(a).content == "<p>summary</p>"


def test_a_page_for_an_article_deleted_meanwhile_is_not_kept(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        fid, (a, _b) = _feed_with(store, 2)
        store.delete_feed(fid)  # unsubscribed while the page loaded
        assert store.save_full_article(a, "https://p.example/0", "<p>x</p>", T0) is False
        assert store._q("SELECT COUNT(*) FROM full_texts")[0][0] == 0
        assert store.integrity_check() == "ok"


def test_a_purged_article_takes_its_page_along(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        _fid, (a, b) = _feed_with(store, 2)
        store.save_full_article(a, "https://p.example/0", "<p>a</p>", T0)
        store.save_full_article(b, "https://p.example/1", "<p>b</p>", T0)
        store.set_read([a])
        store.purge_old(T0 + 400 * DAY, read_days=30)  # a (read) goes, b (unread) stays
        assert store.full_article(a) is None
        assert store.full_article(b) is not None
        assert [r[0] for r in store._q("SELECT entry_id FROM full_texts")] == [b]


def test_an_undone_unsubscribe_brings_the_pages_back(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        fid, ids = _feed_with(store, 3)
        store.save_full_article(ids[1], "https://p.example/1", "<p>" + "w" * 500 + "</p>", T0)
        small = _feed_with(store, 0, "https://q.example/feed")[0]
        assert store.feed_text_bytes(small) == 0
        # the page counts toward the size an undo may hold
        with_page = store.feed_text_bytes(fid)
        store.delete_full_article(ids[1])
        assert store.feed_text_bytes(fid) == with_page - len("<p>" + "w" * 500 + "</p>")
        store.save_full_article(ids[1], "https://p.example/1", "<p>" + "w" * 500 + "</p>", T0)

        snap = store.snapshot_feed(fid)
        assert snap is not None and len(snap.full_texts) == 1
        spent = store.delete_feed(fid)
        assert store._q("SELECT COUNT(*) FROM full_texts")[0][0] == 0
        assert store.restore_feed(snap, spent=spent) == fid
        got = store.full_article(ids[1])
        assert got is not None and got.html == "<p>" + "w" * 500 + "</p>"
        assert store.full_article(ids[0]) is None and store.full_article(ids[2]) is None


def test_an_undo_after_the_article_ids_were_taken_attaches_pages_by_uid(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        fid, ids = _feed_with(store, 2)
        store.save_full_article(ids[0], "https://p.example/0", "<p>mine</p>", T0)
        snap = store.snapshot_feed(fid)
        assert snap is not None
        store.delete_feed(fid)
        # another feed's articles take the freed ids
        store._db.execute(
            "INSERT INTO feeds (url, title, added_at) VALUES ('https://o.example/', 'O', 0)"
        )
        other = int(
            store._db.execute("SELECT id FROM feeds WHERE url = 'https://o.example/'").fetchone()[0]
        )
        for i in ids:
            store._db.execute(
                "INSERT INTO entries (id, feed_id, uid, title, first_seen, sort_time) "
                "VALUES (?, ?, ?, 'x', 0, 0)",
                (i, other, f"o{i}"),
            )
        fid2 = store.restore_feed(snap)
        new_ids = store.entry_ids(feed_ids=[fid2])
        assert set(new_ids).isdisjoint(ids)
        assert all(store.full_article(i) is None for i in ids)  # not on the other's
        pages = [store.full_article(i) for i in new_ids]
        assert [p.html for p in pages if p is not None] == ["<p>mine</p>"]
        uid = store.entry(next(i for i, p in zip(new_ids, pages, strict=True) if p)).uid
        assert uid == "u0"


def test_the_feed_flag_is_stored_and_read_back(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        fid, _ids = _feed_with(store, 1)
        assert store.feed(fid).full_text is False
        store.update_feed(fid, full_text=True)
        assert store.feed(fid).full_text is True
        assert [f.full_text for f in store.feeds()] == [True]
        store.update_feed(fid, full_text=False)
        assert store.feed(fid).full_text is False
        with pytest.raises(sqlite3.IntegrityError):  # the schema allows 0 and 1 only
            store._db.execute("UPDATE feeds SET full_text = 2")


def test_an_upgraded_v13_database_has_no_pages_and_the_flag_off(tmp_path: Path) -> None:
    db = tmp_path / "v13.sqlite3"
    shutil.copy(GOLDEN_V13, db)
    with Store(db) as store:
        feeds = store.feeds()
        assert feeds and not any(f.full_text for f in feeds)
        eid = store.entry_ids()[0]
        assert store.full_article(eid) is None
        assert store.save_full_article(eid, "https://news.example/a", "<p>a</p>", T0)


def test_an_older_database_opened_read_only_reads_as_without_pages(tmp_path: Path) -> None:
    db = tmp_path / "v13.sqlite3"
    shutil.copy(GOLDEN_V13, db)
    with Store(db, readonly=True) as store:
        feeds = store.feeds()
        assert feeds and not any(f.full_text for f in feeds)
        assert not store.feed(feeds[0].id).full_text
        assert store.full_article(store.entry_ids()[0]) is None


def test_search_finds_the_words_of_a_loaded_page_until_it_is_forgotten(tmp_path: Path) -> None:
    with Store(tmp_path / "db.sqlite3") as store:
        fid, (a, b) = _feed_with(store, 2)
        page = "<p>The walrus colony grew. 海象の群れ. Straße</p>"
        assert store.search_ids("walrus") == set()
        store.save_full_article(a, "https://p.example/0", page, T0)
        assert store.search_ids("walrus") == {a}  # by the index
        assert store.search_ids("海象") == {a}  # by substring (unspaced script)
        assert store.search_ids("strasse") == {a}  # folded as the rest
        assert store.search_ids("summary") == {a, b}  # the feed's text still counts
        # a fetch that edits the article keeps its page's words in the index
        edited = ParsedEntry(uid="u0", title="t0 edited", link="https://p.example/0",
                             author="", published=T0, updated=T0 + 9,
                             content="<p>new text</p>", summary="")  # fmt: skip
        store.record_fetch(FetchRecord(fid, T0 + 10, "ok", entries=[edited]))
        assert store.entry(a).content == "<p>new text</p>"
        assert store.search_ids("walrus") == {a} and store.search_ids("new") == {a}
        store.delete_full_article(a)
        assert store.search_ids("walrus") == set() and store.search_ids("海象") == set()
        assert store.search_ids("new") == {a}
        assert store.integrity_check() == "ok"
        assert store._q("INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')") == []
