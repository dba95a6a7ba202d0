"""The GUI reads through its own read-only connection: a list re-query and the tree
refresh never wait for a write in progress on the updater's connection."""

from __future__ import annotations

import threading
import time

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import ArticleListModel, FeedTreeModel
from smartreader.storage import FetchRecord, Store
from smartreader.storage.store import StorageError


def pe(uid: str, published: float) -> ParsedEntry:
    return ParsedEntry(uid, f"title {uid}", None, "", published, None, "<p>x</p>", "")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    fid = s.add_feed("https://a.example/feed", title="a")
    s.record_fetch(
        FetchRecord(fid, 5000.0, "ok", entries=[pe(f"e{i}", 1000.0 + i) for i in range(5)])
    )
    yield s
    s.close()


def test_reads_do_not_wait_for_a_write_in_progress(qtbot, store):
    reader = store.reader()
    try:
        lst, tree = ArticleListModel(reader), FeedTreeModel(reader)
        lst.set_query()
        assert lst.rowCount() == 5
        fid = store.feeds()[0].id
        holding, release = threading.Event(), threading.Event()

        def long_write() -> None:
            # the updater mid-transaction: the writer's lock held, a row written,
            # nothing committed yet
            with store._lock:
                store._db.execute("BEGIN IMMEDIATE")
                store._db.execute(
                    "UPDATE entries SET read = 1 WHERE id = (SELECT min(id) FROM entries)"
                )
                holding.set()
                release.wait(10)
                store._db.execute("COMMIT")

        t = threading.Thread(target=long_write)
        t.start()
        assert holding.wait(5)
        t0 = time.monotonic()
        lst.requery()
        tree.reload()
        unread = tree.total_unread()
        took = time.monotonic() - t0
        release.set()
        t.join()
        # the writer held its lock for as long as the reads took: on the same
        # connection they would have waited for it (10 s)
        assert took < 5.0
        assert unread == 5  # the last commit, not the write in progress
        tree.reload()
        assert tree.total_unread() == 4  # committed now: the next read sees it
        store.record_fetch(FetchRecord(fid, 6000.0, "ok", entries=[pe("new", 5500.0)]))
        assert lst.requery() and lst.rowCount() == 6
    finally:
        reader.close()


def test_the_reader_cannot_write(store):
    reader = store.reader()
    try:
        with pytest.raises(StorageError):
            reader.set_read(store.entry_ids()[:1])
        assert store.unread_counts() == reader.unread_counts()
    finally:
        reader.close()
