"""Feed icons: candidates, sniffing, caching, and the updater fetching them."""

from __future__ import annotations

import os

from smartreader.net import favicon
from smartreader.storage import Store
from smartreader.updater import Updater
from tests.httpserver import Reply

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
RSS = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
    b"<link>/</link><item><guid>1</guid></item></channel></rss>"
)


def test_candidates_prefer_the_site_favicon_then_the_feed_image() -> None:
    assert favicon.icon_candidates(
        "https://feeds.example/x.xml", "https://blog.example/post", "https://cdn.example/logo.png"
    ) == [
        "https://blog.example/favicon.ico",
        "https://cdn.example/logo.png",
        "https://feeds.example/favicon.ico",
    ]
    assert favicon.icon_candidates("https://a.example/f", None, "javascript:alert(1)") == [
        "https://a.example/favicon.ico"
    ]


def test_sniffing_accepts_raster_images_only() -> None:
    assert favicon.sniff_image(PNG) == "png"
    assert favicon.sniff_image(b"\x00\x00\x01\x00rest") == "ico"
    assert favicon.sniff_image(b"GIF89a...") == "gif"
    assert favicon.sniff_image(b"<svg onload=alert(1)>") is None
    assert favicon.sniff_image(b"<html>not found</html>") is None


def test_cache_replaces_marks_missing_and_retries_weekly(tmp_path) -> None:
    folder = tmp_path / "icons"
    assert favicon.icon_due(folder, 3)
    p = favicon.save_icon(folder, 3, PNG)
    assert p == folder / "3.png" and favicon.icon_path(folder, 3) == p
    assert not favicon.icon_due(folder, 3)
    assert favicon.save_icon(folder, 3, b"x" * (favicon.MAX_ICON_BYTES + 1)) is None
    assert favicon.icon_path(folder, 3) is None and (folder / "3.none").exists()
    assert not favicon.icon_due(folder, 3)
    old = (folder / "3.none").stat().st_mtime - favicon.RETRY_AFTER - 1
    os.utime(folder / "3.none", (old, old))
    assert favicon.icon_due(folder, 3)
    favicon.save_icon(folder, 13, PNG)
    favicon.forget_icon(folder, 1)  # feed 1's files only, not 13's
    assert favicon.icon_path(folder, 13) is not None


def test_updater_fetches_the_icon_once(feed_server, tmp_path) -> None:
    feed_server.route("/feed.xml", Reply(body=RSS))
    feed_server.route("/favicon.ico", Reply(body=PNG, headers={"Content-Type": "image/png"}))
    with Store(tmp_path / "db.sqlite3") as store:
        up = Updater(store, fetch_icons=True)
        try:
            fid = up.subscribe(feed_server.url("/feed.xml"))
            up.update([fid])
        finally:
            up.close()
        cached = favicon.icon_path(favicon.icons_dir(store.path), fid)
    assert cached is not None and cached.read_bytes() == PNG
    assert len(feed_server.requests_for("/favicon.ico")) == 1  # not again on the next update


def test_no_icon_is_not_an_error_and_cli_never_fetches_icons(feed_server, tmp_path) -> None:
    feed_server.route("/feed.xml", Reply(body=RSS))
    with Store(tmp_path / "db.sqlite3") as store:
        up = Updater(store, fetch_icons=True)
        try:
            fid = up.subscribe(feed_server.url("/feed.xml"))  # /favicon.ico is a 404
        finally:
            up.close()
        assert store.feed(fid).last_error is None and store.feed(fid).status != "error"
        up2 = Updater(store)  # the CLI's default
        try:
            fid2 = up2.subscribe(feed_server.url("/feed.xml") + "?2")
        finally:
            up2.close()
        folder = favicon.icons_dir(store.path)
        assert (folder / f"{fid}.none").exists() and not list(folder.glob(f"{fid2}.*"))
