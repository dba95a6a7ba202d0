"""Row 12: a public feed cannot redirect (or point discovery) into the local network."""

from __future__ import annotations

import httpx
import pytest

from smartreader.net.fetch import Fetcher, is_local_host
from smartreader.storage import Store
from smartreader.updater import Updater


@pytest.mark.parametrize(
    "host",
    ["localhost", "LOCALHOST.", "foo.localhost", "127.0.0.1", "127.5.6.7", "10.0.0.1",
     "192.168.1.1", "172.16.0.1", "169.254.169.254", "[::1]", "::ffff:127.0.0.1",
     "fe80::1", "0.0.0.0", "fd00::1", "100.64.0.1", "100.127.255.254"],
)  # fmt: skip
def test_local_hosts(host: str) -> None:
    assert is_local_host(host)


@pytest.mark.parametrize(
    "host", ["93.184.216.34", "2606:4700::1", "8.8.8.8", "100.128.0.1", "100.63.255.255", ""]
)
def test_public_hosts(host: str) -> None:
    assert not is_local_host(host, resolve=False)


def _public_site(location: str):
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.host == "93.184.216.34":
            return httpx.Response(302, headers={"Location": location})
        return httpx.Response(200, text="<rss version='2.0'><channel/></rss>")

    return handler, seen


@pytest.mark.parametrize(
    "location",
    ["http://127.0.0.1:8080/admin", "http://169.254.169.254/latest/meta-data/",
     "http://localhost/x", "http://[::1]/x", "http://192.168.0.1/"],
)  # fmt: skip
def test_public_feed_redirecting_to_a_local_address_is_refused(location: str) -> None:
    handler, seen = _public_site(location)
    with Fetcher(transport=httpx.MockTransport(handler)) as f:
        r = f.fetch("http://93.184.216.34/feed.xml")
    assert r.status == "error"
    assert "local or private address" in (r.error or "")
    assert seen == ["http://93.184.216.34/feed.xml"]  # the local target was never contacted


def test_local_feed_may_redirect_locally(feed_server) -> None:
    from tests.httpserver import Reply

    feed_server.route("/old.xml", Reply(301, headers={"Location": feed_server.url("/new.xml")}))
    feed_server.route("/new.xml", Reply(body=b"<rss version='2.0'><channel/></rss>"))
    with Fetcher() as f:
        r = f.fetch(feed_server.url("/old.xml"))
    assert r.status == "ok"


def test_discovery_on_a_public_page_skips_local_candidates(tmp_path) -> None:
    page = (
        b"<html><head><link rel=alternate type=application/rss+xml "
        b"href='http://127.0.0.1:9/feed.xml'></head></html>"
    )
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, content=page, headers={"Content-Type": "text/html"})

    with Store(tmp_path / "db.sqlite3") as store:
        up = Updater(store, fetcher=Fetcher(transport=httpx.MockTransport(handler)))
        try:
            with pytest.raises(Exception, match="no feed found"):
                up.subscribe("http://93.184.216.34/")
        finally:
            up.close()
    assert not any("127.0.0.1" in u for u in seen)


def test_icon_lookup_of_a_public_feed_skips_local_addresses(tmp_path) -> None:
    """The GUI fetches each feed's icon from its site link and ``<image>``, both
    written by the feed: a public feed naming the user's router must not make us
    request it (the feed itself and public icon candidates are still fetched)."""
    feed = (
        b"<?xml version='1.0'?><rss version='2.0'><channel><title>Innocent</title>"
        b"<link>http://192.168.1.1/</link><image><title>x</title><link>http://192.168.1.1/</link>"
        b"<url>http://192.168.1.1/cgi-bin/luci/admin/system/reboot?confirm=1</url></image>"
        b"<item><guid>1</guid><title>hello</title></item></channel></rss>"
    )
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.path == "/feed.xml":
            return httpx.Response(
                200, content=feed, headers={"Content-Type": "application/rss+xml"}
            )
        return httpx.Response(404)

    with Store(tmp_path / "db.sqlite3") as store:
        up = Updater(
            store, fetcher=Fetcher(transport=httpx.MockTransport(handler)), fetch_icons=True
        )
        try:
            fid = up.subscribe("http://93.184.216.34/feed.xml")
            assert store.feed(fid).status == "active"
        finally:
            up.close()
    assert "http://93.184.216.34/favicon.ico" in seen  # the icon lookup did run
    assert not any("192.168." in u for u in seen), seen
