"""Row 12: a public feed cannot redirect (or point discovery) into the local network."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from smartreader.errors import ParseError
from smartreader.net.fetch import Fetcher, is_local_host
from smartreader.storage import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply


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


# -- DNS rebinding: the check must hold for the address actually connected to --------------

PUBLIC = "93.184.216.34"


class RebindingDNS:
    """Stands in for an attacker's DNS server (a name resolver cannot be real here).

    Each ``*.example`` name answers a public address to a lookup of the name alone
    (what a check on the name asks) and 127.0.0.1, where the test server listens,
    to a lookup made to connect (which carries the port): the two answers a TTL-0
    name gives to two questions a moment apart. Other names resolve as usual.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = socket.getaddrinfo
        self.connects: list[str] = []

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            name = host.decode() if isinstance(host, bytes) else str(host)
            if not name.endswith(".example"):
                return real(host, port, *args, **kwargs)
            if port is None:
                return real(PUBLIC, port, *args, **kwargs)
            self.connects.append(name)
            return real("127.0.0.1", port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
ROUTER = b"<rss version='2.0'><channel><title>router admin</title></channel></rss>"


def test_a_redirect_target_that_rebinds_to_a_local_address_is_never_contacted(
    feed_server: FeedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A public feed redirects to a name whose check answers a public address; the
    connection then resolved it again and reached the local network (audit:
    /tmp/audit/rebind.py). Now the connection goes only to the addresses checked."""
    dns = RebindingDNS(monkeypatch)
    port = feed_server.port
    feed_server.route(
        "/feed", Reply(status=302, headers={"Location": f"http://rebind.example:{port}/admin"})
    )
    feed_server.route("/admin", Reply(body=ROUTER))
    with Fetcher(trust_env=False) as f:
        assert f.guarded
        r = f.fetch(f"http://feed.example:{port}/feed")
    assert r.status == "error" and r.body is None
    assert r.error == (
        "redirected from a public site to a local or private address "
        "(rebind.example resolves to 127.0.0.1); refused"
    )
    assert [q.path for q in feed_server.requests] == ["/feed"]  # /admin never asked
    assert r.final_url == f"http://rebind.example:{port}/admin"
    assert dns.connects == ["feed.example", "rebind.example"]


def test_a_kept_alive_local_connection_does_not_carry_a_public_feeds_redirect(
    feed_server: FeedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's own feed on nas.example (local when connected) leaves a kept-alive
    connection in the pool; a public feed's redirect to that name, which now checks
    as public, must not be sent down it."""
    RebindingDNS(monkeypatch)
    port = feed_server.port
    feed_server.route("/mine", Reply(body=ROUTER))
    feed_server.route(
        "/feed", Reply(status=302, headers={"Location": f"http://nas.example:{port}/admin"})
    )
    feed_server.route("/admin", Reply(body=ROUTER))
    with Fetcher(trust_env=False) as f:
        assert f.fetch(f"http://nas.example:{port}/mine").status == "ok"  # the user's choice
        r = f.fetch(f"http://feed.example:{port}/feed")
    assert r.status == "error" and "local or private address" in (r.error or "")
    assert [q.path for q in feed_server.requests] == ["/mine", "/feed"]


def test_a_local_feed_may_still_redirect_to_a_local_name(
    feed_server: FeedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unchanged: a feed the user subscribed to on a local address follows its
    redirects into the local network."""
    feed_server.route(
        "/old.xml",
        Reply(301, headers={"Location": f"http://nas.example:{feed_server.port}/new.xml"}),
    )
    feed_server.route("/new.xml", Reply(body=ROUTER))
    RebindingDNS(monkeypatch)
    with Fetcher(trust_env=False) as f:
        r = f.fetch(feed_server.url("/old.xml"))
    assert r.status == "ok" and r.body == ROUTER


def test_every_pool_of_the_default_client_is_guarded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard reaches into httpx's pools (no public setting in httpx 0.28): an
    httpx upgrade that moves them must fail here, not silently drop the guard."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    with Fetcher(trust_env=True) as f:
        assert f.guarded
    with Fetcher(trust_env=False) as f:
        assert f.guarded
    with Fetcher(transport=httpx.MockTransport(lambda r: httpx.Response(200))) as f:
        assert not f.guarded  # nothing to guard: no sockets


def test_a_discovered_feed_that_rebinds_to_a_local_address_is_never_contacted(
    feed_server: FeedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Adding a public site: the feed its page links to is named by the page, not
    the user, so its connection must not reach a local address either, even when
    its name checks as public (before: only the name was checked, and the request
    to /admin went out)."""
    dns = RebindingDNS(monkeypatch)
    port = feed_server.port
    page = (
        b"<html><head><link rel=alternate type=application/rss+xml "
        b"href='http://rebind.example:%d/admin'></head></html>" % port
    )
    feed_server.route("/", Reply(body=page, headers={"Content-Type": "text/html"}))
    feed_server.route("/admin", Reply(body=ROUTER))
    with Store(tmp_path / "db.sqlite3") as store:
        up = Updater(store, fetcher=Fetcher(trust_env=False))
        try:
            with pytest.raises(ParseError, match="no feed found"):
                up.subscribe(f"http://site.example:{port}/")
        finally:
            up.close()
        assert store.feeds() == []
    assert "/admin" not in [q.path for q in feed_server.requests]
    # the refused link, then the usual feed paths on the site itself
    assert dns.connects[:2] == ["site.example", "rebind.example"]
    assert set(dns.connects[2:]) <= {"site.example"}


def test_an_icon_that_rebinds_to_a_local_address_is_never_contacted(
    feed_server: FeedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The feed's ``<image>`` names an icon on a name that checks as public and
    connects to the local network: the icon lookup must not reach it."""
    RebindingDNS(monkeypatch)
    port = feed_server.port
    feed = (
        b"<?xml version='1.0'?><rss version='2.0'><channel><title>Innocent</title>"
        b"<image><title>x</title><link>http://icon.example:%d/</link>"
        b"<url>http://icon.example:%d/reboot.png</url></image>"
        b"<item><guid>1</guid><title>hello</title></item></channel></rss>" % (port, port)
    )
    feed_server.route("/feed.xml", Reply(body=feed))
    feed_server.route("/reboot.png", Reply(body=PNG))
    with Store(tmp_path / "db.sqlite3") as store:
        up = Updater(store, fetcher=Fetcher(trust_env=False), fetch_icons=True)
        try:
            fid = up.subscribe(f"http://feed.example:{port}/feed.xml")
            assert store.feed(fid).status == "active"  # the feed itself: the user's choice
        finally:
            up.close()
    assert [q.path for q in feed_server.requests] == ["/feed.xml"]


def test_public_only_refuses_the_first_connection_and_says_why(
    feed_server: FeedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    RebindingDNS(monkeypatch)
    feed_server.route("/admin", Reply(body=ROUTER))
    url = f"http://rebind.example:{feed_server.port}/admin"
    with Fetcher(trust_env=False) as f:
        r = f.fetch(url, public_only=True)
        assert r.status == "error" and r.body is None
        assert r.error == (
            "a public page pointed to a local or private address "
            "(rebind.example resolves to 127.0.0.1); refused"
        )
        assert feed_server.requests == []
        assert f.fetch(url).status == "ok"  # the user's own choice of the same address
