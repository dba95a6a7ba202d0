"""The names a user gives feeds and folders: `add --title`, the names an OPML list
from another reader carries, and control characters in names (real SQLite files,
real HTTP on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.net.opml import parse_opml
from smartreader.storage.store import FetchRecord, Store
from smartreader.subscriptions import export_opml, import_opml
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import Clock, item, rss, store_and_updater
from tests.storage.test_store import entry

AS_RSS = {"Content-Type": "application/rss+xml"}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as app:
        yield app


def _serve(server: FeedServer, path: str, title: str) -> str:
    body = rss(item("a", "A"), channel=f"<title>{title}</title>")
    server.route(path, Reply(body=body, headers=AS_RSS))
    return server.url(path)


def test_add_with_a_title_keeps_it_after_the_first_fetch(app, feed_server):
    """`smartreader add URL --title NAME` printed the feed's own title and kept
    none of NAME: it was stored as the feed's title, which the fetch replaced."""
    store, up = app
    fid = up.subscribe(_serve(feed_server, "/a.xml", "Upstream"), title="My name")
    feed = store.feed(fid)
    assert (feed.title, feed.user_title, feed.display_title) == ("Upstream", "My name", "My name")
    up.update([fid])
    assert store.feed(fid).display_title == "My name"
    # a name that is only the feed's own title follows the feed from then on
    same = up.subscribe(_serve(feed_server, "/b.xml", "Same"), title="Same")
    assert store.feed(same).user_title is None


def _other_readers_list() -> bytes:
    return b"""<?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
      <outline text="News"><outline type="rss" text="My renamed feed" xmlUrl="https://a.example/f"/>
      <outline type="rss" text="Own title" xmlUrl="https://b.example/f"/>
      <outline type="rss" text="https://c.example/f" xmlUrl="https://c.example/f"/></outline>
    </body></opml>"""


def test_names_from_another_readers_list_survive_the_first_fetch(tmp_path):
    """An import showed "My renamed feed" until the first fetch replaced it by
    the feed's own title: the names chosen in the old reader were lost."""
    with Store(tmp_path / "db.sqlite3") as store:
        report = import_opml(store, _other_readers_list())
        a, b, c = sorted(report.added)
        assert [store.feed(f).display_title for f in (a, b, c)] == [
            "My renamed feed", "Own title", "https://c.example/f"
        ]  # fmt: skip
        for fid, own in ((a, "Upstream A"), (b, "Own title"), (c, "Upstream C")):
            store.record_fetch(FetchRecord(fid, 10.0, "ok", feed_title=own))
        assert [store.feed(f).display_title for f in (a, b, c)] == [
            "My renamed feed", "Own title", "Upstream C"
        ]  # fmt: skip
        assert store.feed(b).user_title is None  # its own title: it follows the feed
        # (with an item: a document with none does not rename a feed that worked)
        post = [entry("p1")]
        store.record_fetch(FetchRecord(b, 20.0, "ok", feed_title="Renamed upstream", entries=post))
        store.record_fetch(FetchRecord(a, 20.0, "ok", feed_title="Upstream A2", entries=post))
        assert store.feed(b).display_title == "Renamed upstream"
        assert store.feed(a).display_title == "My renamed feed"


def test_our_own_list_names_only_what_its_user_renamed(tmp_path):
    with Store(tmp_path / "old.sqlite3") as old, Store(tmp_path / "new.sqlite3") as new:
        a = old.add_feed("https://a.example/f", title="Feed A")
        old.update_feed(a, user_title="Mine")
        old.add_feed("https://b.example/f", title="Feed B")
        data, _n = export_opml(old)
        import_opml(new, data)
        names = {f.url: (f.title, f.user_title) for f in new.feeds()}
        assert names == {
            "https://a.example/f": ("Mine", "Mine"),  # the file's text is the shown name
            "https://b.example/f": ("Feed B", None),
        }


def test_control_characters_never_reach_a_name_or_an_opml_file(tmp_path):
    """`add --folder $'Fold\\x02er'` stored the character, and the exported list
    was refused by our own import ("not well-formed")."""
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed("https://a.example/f", folder="Fold\x02er", user_title="A\x00b\tc")
        feed = store.feed(fid)
        assert (feed.folder, feed.user_title) == ("Folder", "Ab c")
        store.update_feed(fid, user_title="\x07\x1b")
        assert store.feed(fid).user_title is None  # nothing left: no name of its own
        folder = store.folder_id("Other")
        assert folder is not None
        store.rename_folder(folder, "Line\nbreak\x7f")
        assert "Line break" in [f.name for f in store.folders()]
        # a database written before names were cleaned
        with store._tx() as db:
            db.execute("UPDATE folders SET name = 'Old\x01name' WHERE id = ?", (folder,))
            db.execute("UPDATE feeds SET title = 'T\x02' WHERE id = ?", (fid,))
        data, _n = export_opml(store)
        parsed = parse_opml(data)
        assert "Oldname" in parsed.folders and parsed.subscriptions[0].folder == "Folder"
