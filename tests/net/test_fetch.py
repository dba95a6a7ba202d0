"""Fetcher against a real HTTP server on 127.0.0.1 (tests/httpserver.py)."""

from __future__ import annotations

import base64
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from email.utils import formatdate
from typing import Any

import pytest

from smartreader import USER_AGENT
from smartreader.net.fetch import ACCEPT, Fetcher, FetchLimits, FetchResult
from tests.httpserver import FeedServer, RecordedRequest, Reply

FEED = b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>'
T0 = 1_800_000_000.0


class Clock:
    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def fetcher(clock: Clock) -> Iterator[Fetcher]:
    with Fetcher(now=clock, trust_env=False) as f:
        yield f


@pytest.fixture
def other_server() -> Iterator[FeedServer]:
    with FeedServer() as server:
        yield server


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


# -- plain success and clean requests ----------------------------------------


def test_ok_fetch_reports_body_validators_and_clean_headers(
    feed_server: FeedServer, fetcher: Fetcher, clock: Clock
) -> None:
    feed_server.route(
        "/feed",
        Reply(
            body=FEED,
            headers={
                "Content-Type": "application/rss+xml; charset=utf-8",
                "ETag": '"abc"',
                "Last-Modified": "Tue, 03 Nov 2026 10:00:00 GMT",
                "Cache-Control": "max-age=3600",
            },
        ),
    )
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "ok"
    assert r.http_status == 200
    assert r.body == FEED
    assert r.bytes_read == len(FEED)
    assert r.content_type == "application/rss+xml; charset=utf-8"
    assert (r.etag, r.last_modified) == ('"abc"', "Tue, 03 Nov 2026 10:00:00 GMT")
    assert r.url == r.final_url == feed_server.url("/feed")
    assert r.permanent_redirect is None and r.redirects == ()
    assert r.error is None
    assert r.fetched_at == T0
    assert r.hints.cache_until == T0 + 3600
    assert r.duration >= 0
    assert ("content-type", "application/rss+xml; charset=utf-8") in r.headers

    (req,) = feed_server.requests
    assert req.method == "GET"
    assert req.path == "/feed"  # no cache-busting query
    assert req.header("User-Agent") == USER_AGENT
    assert req.header("Accept") == ACCEPT
    assert req.header("Accept-Encoding") == "gzip, deflate"
    for absent in ("Cookie", "Referer", "If-None-Match", "If-Modified-Since", "Authorization"):
        assert not req.has_header(absent), absent


def test_response_with_only_one_validator_stores_the_other_as_none(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    feed_server.route("/feed", Reply(body=FEED, headers={"ETag": '"only"'}))
    r = fetcher.fetch(feed_server.url("/feed"), etag='"old"', last_modified="Mon, 01 Jan 2001")
    assert r.status == "ok"
    assert (r.etag, r.last_modified) == ('"only"', None)


def test_gzip_body_is_decoded(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.route("/feed", Reply(body=FEED * 100, gzip=True))
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "ok"
    assert r.body == FEED * 100
    assert r.bytes_read < len(FEED) * 100  # counted as sent (compressed)


def test_deflate_body_is_decoded_zlib_and_raw(feed_server: FeedServer, fetcher: Fetcher) -> None:
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    raw_deflate = raw.compress(FEED) + raw.flush()
    feed_server.route(
        "/z", Reply(raw_body=zlib.compress(FEED), headers={"Content-Encoding": "deflate"})
    )
    feed_server.route("/raw", Reply(raw_body=raw_deflate, headers={"Content-Encoding": "deflate"}))
    assert fetcher.fetch(feed_server.url("/z")).body == FEED
    assert fetcher.fetch(feed_server.url("/raw")).body == FEED


def _deflated(data: bytes, wbits: int) -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return comp.compress(data) + comp.flush()


@pytest.mark.parametrize(
    ("coding", "wbits"),
    [("gzip", 16 + zlib.MAX_WBITS), ("deflate", zlib.MAX_WBITS), ("deflate", -zlib.MAX_WBITS)],
    ids=["gzip", "deflate", "raw deflate"],
)
def test_a_truncated_compressed_body_is_an_error_not_a_shorter_feed(
    feed_server: FeedServer, fetcher: Fetcher, coding: str, wbits: int
) -> None:
    """Row 9: a half-written .gz served with a matching Content-Length inflated to
    a prefix of the feed and came back ok (the parser then read it leniently)."""
    items = b"".join(b"<item><guid>%d</guid><title>%s</title></item>" % (i, b"x" * 200)
                     for i in range(50))  # fmt: skip
    doc = b"<rss version='2.0'><channel><title>c</title>" + items + b"</channel></rss>"
    whole = _deflated(doc, wbits)
    feed_server.route("/whole", Reply(raw_body=whole, headers={"Content-Encoding": coding}))
    feed_server.route(
        "/cut", Reply(raw_body=whole[: len(whole) // 2], headers={"Content-Encoding": coding})
    )
    assert fetcher.fetch(feed_server.url("/whole")).body == doc
    r = fetcher.fetch(feed_server.url("/cut"))
    assert r.status == "error" and r.body is None
    assert r.error is not None and "truncated" in r.error
    assert r.http_status == 200


def test_an_empty_body_marked_gzip_is_an_empty_response(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    """Not "truncated": there is nothing to cut; the parser says the response is empty."""
    feed_server.route("/feed", Reply(raw_body=b"", headers={"Content-Encoding": "gzip"}))
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "ok" and r.body == b""


def test_no_cookie_is_ever_sent_back(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.route(
        "/feed",
        Reply(body=FEED, headers=[("Set-Cookie", "session=abc; Path=/"), ("Set-Cookie", "x=1")]),
    )
    feed_server.route(
        "/hop", Reply(status=302, headers={"Location": "/feed", "Set-Cookie": "hop=1; Path=/"})
    )
    first = fetcher.fetch(feed_server.url("/feed"))
    fetcher.fetch(feed_server.url("/feed"))
    fetcher.fetch(feed_server.url("/hop"))
    assert all(not req.has_header("Cookie") for req in feed_server.requests)
    assert len(feed_server.requests) == 4
    assert all(name != "set-cookie" for name, _ in first.headers)


# -- conditional GET -----------------------------------------------------------


@pytest.mark.parametrize(
    ("etag", "last_modified"),
    [
        ('"abc"', "Tue, 03 Nov 2026 10:00:00 GMT"),
        ('W/"abc"', "Tuesday, 03-Nov-26 10:00:00 GMT"),  # weak ETag, RFC 850 date
        ("no-quotes-etag", "2026-11-03T10:00:00Z"),  # non-standard, still echoed verbatim
        ('"a, b"', "Tue,  3 Nov 2026 10:00:00 +0000"),  # comma and double space kept
    ],
)
def test_conditional_headers_are_echoed_verbatim(
    feed_server: FeedServer, fetcher: Fetcher, etag: str, last_modified: str
) -> None:
    feed_server.route("/feed", Reply(status=304))
    r = fetcher.fetch(feed_server.url("/feed"), etag=etag, last_modified=last_modified)
    (req,) = feed_server.requests
    assert req.header_all("If-None-Match") == [etag]
    assert req.header_all("If-Modified-Since") == [last_modified]
    assert r.status == "not_modified"
    assert r.body is None
    assert (r.etag, r.last_modified) == (etag, last_modified)


def test_only_the_validators_we_have_are_sent(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.route("/feed", Reply(status=304))
    fetcher.fetch(feed_server.url("/feed"), etag='"e"')
    fetcher.fetch(feed_server.url("/feed"), last_modified="Tue, 03 Nov 2026 10:00:00 GMT")
    a, b = feed_server.requests
    assert a.header("If-None-Match") == '"e"' and not a.has_header("If-Modified-Since")
    assert b.header("If-Modified-Since") and not b.has_header("If-None-Match")


def test_validators_round_trip_through_200_then_304(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    lm = "Tue, 03 Nov 2026 10:00:00 GMT"
    feed_server.route(
        "/feed",
        [Reply(body=FEED, headers={"ETag": 'W/"v1"', "Last-Modified": lm}), Reply(status=304)],
    )
    first = fetcher.fetch(feed_server.url("/feed"))
    second = fetcher.fetch(
        feed_server.url("/feed"), etag=first.etag, last_modified=first.last_modified
    )
    assert second.status == "not_modified"
    req = feed_server.requests[1]
    assert req.header("If-None-Match") == 'W/"v1"'
    assert req.header("If-Modified-Since") == lm
    assert (second.etag, second.last_modified) == ('W/"v1"', lm)


def test_304_with_new_validators_stores_the_new_set(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    feed_server.route(
        "/both",
        Reply(
            status=304,
            headers={"ETag": '"v2"', "Last-Modified": "Wed, 04 Nov 2026 10:00:00 GMT"},
        ),
    )
    feed_server.route("/etag-only", Reply(status=304, headers={"ETag": '"v3"'}))
    old = {"etag": '"v1"', "last_modified": "Tue, 03 Nov 2026 10:00:00 GMT"}
    r = fetcher.fetch(feed_server.url("/both"), **old)
    assert (r.etag, r.last_modified) == ('"v2"', "Wed, 04 Nov 2026 10:00:00 GMT")
    # A 304 freshens only what it carries (RFC 9111 §4.3.4).
    r = fetcher.fetch(feed_server.url("/etag-only"), **old)
    assert (r.etag, r.last_modified) == ('"v3"', "Tue, 03 Nov 2026 10:00:00 GMT")


# -- status handling -----------------------------------------------------------


def test_410_is_gone(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.route("/feed", Reply(status=410, body=b"bye"))
    r = fetcher.fetch(feed_server.url("/feed"), etag='"keep"')
    assert r.status == "gone"
    assert r.http_status == 410
    assert r.body is None
    assert r.error is not None and "gone" in r.error
    assert r.etag == '"keep"'


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (404, "not found"),
        (500, "server error"),
        (502, "server error"),
        (401, "authentication required"),
        (403, "forbidden"),
    ],
)
def test_http_errors(feed_server: FeedServer, fetcher: Fetcher, status: int, words: str) -> None:
    feed_server.route("/feed", Reply(status=status, body=b"nope"))
    r = fetcher.fetch(feed_server.url("/feed"), etag='"keep"', last_modified="x")
    assert r.status == "error"
    assert r.http_status == status
    assert r.body is None
    assert r.error is not None and words in r.error and str(status) in r.error
    assert (r.etag, r.last_modified) == ('"keep"', "x")  # an error never loses validators


def test_401_with_credentials_says_they_failed(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.route("/feed", Reply(status=401, headers={"WWW-Authenticate": 'Basic realm="x"'}))
    r = fetcher.fetch(feed_server.url("/feed"), auth=("alice", "s3cret"))
    assert r.status == "error"
    assert r.error is not None and "authentication failed" in r.error
    assert "s3cret" not in r.error


def test_connection_refused_is_an_error_result(fetcher: Fetcher) -> None:
    server = FeedServer()
    url = server.url("/feed")
    server.stop()  # the port is now closed
    r = fetcher.fetch(url)
    assert r.status == "error"
    assert r.http_status is None
    assert r.error
    assert r.unreachable  # no server there: the scheduler holds the host back


def test_an_answer_is_not_unreachable(feed_server: FeedServer, fetcher: Fetcher) -> None:
    """A 404 or a 500 is a server that answered: the feed's error, not its host's
    or the network's."""
    feed_server.route("/gone", Reply(status=404))
    feed_server.route("/broken", Reply(status=500))
    for path in ("/gone", "/broken"):
        r = fetcher.fetch(feed_server.url(path))
        assert r.status == "error" and not r.unreachable


def test_a_redirect_to_a_closed_port_is_unreachable_there(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    """The host that could not be reached is the redirect's target (final_url);
    the feed's own server did answer."""
    closed = FeedServer()
    target = closed.url("/feed")
    closed.stop()
    feed_server.route("/feed", Reply(status=302, headers={"Location": target}))
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "error" and r.unreachable
    assert r.final_url == target and r.http_status == 302


def test_a_name_that_does_not_resolve_is_unreachable(
    fetcher: Fetcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if str(host).endswith(".example"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    r = fetcher.fetch("http://nosuch.example/feed")
    assert r.status == "error" and r.unreachable
    assert r.error is not None and "no server called nosuch.example" in r.error


def test_non_http_url_is_refused_without_network(fetcher: Fetcher) -> None:
    r = fetcher.fetch("file:///etc/passwd")
    assert r.status == "error"
    assert r.error is not None and "http" in r.error


# -- rate limiting ----------------------------------------------------------------


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_seconds_blocks_only_that_host(
    feed_server: FeedServer,
    other_server: FeedServer,
    fetcher: Fetcher,
    clock: Clock,
    status: int,
) -> None:
    feed_server.route("/feed", Reply(status=status, headers={"Retry-After": "120"}))
    feed_server.route("/other", Reply(body=FEED))
    other_server.route("/feed", Reply(body=FEED))

    r = fetcher.fetch(feed_server.url("/feed"), etag='"e"', last_modified="lm")
    assert r.status == "rate_limited"
    assert r.http_status == status
    assert r.hints.retry_after == T0 + 120
    assert (r.etag, r.last_modified) == ('"e"', "lm")  # FRB016
    assert len(feed_server.requests) == 1

    clock.t = T0 + 119
    for path in ("/feed", "/other"):  # any URL on that host
        r = fetcher.fetch(feed_server.url(path))
        assert r.status == "rate_limited"
        assert r.http_status is None
        assert r.hints.retry_after == T0 + 120
    assert len(feed_server.requests) == 1  # nothing was sent

    assert fetcher.fetch(other_server.url("/feed")).status == "ok"  # another host:port

    clock.t = T0 + 121
    assert fetcher.fetch(feed_server.url("/other")).status == "ok"
    assert len(feed_server.requests) == 2


def test_retry_after_http_date(feed_server: FeedServer, fetcher: Fetcher, clock: Clock) -> None:
    until = T0 + 3600
    feed_server.route(
        "/feed", Reply(status=429, headers={"Retry-After": formatdate(until, usegmt=True)})
    )
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "rate_limited"
    assert r.hints.retry_after == until
    assert r.error is not None and "429" in r.error
    clock.t = until - 1
    assert fetcher.fetch(feed_server.url("/feed")).http_status is None
    assert fetcher.host_not_before(feed_server.url("/x")) == until
    clock.t = until + 1
    assert fetcher.host_not_before(feed_server.url("/x")) is None
    assert fetcher.fetch(feed_server.url("/feed")).http_status == 429
    assert len(feed_server.requests) == 2


def test_429_without_retry_after_uses_default_cooldown(
    feed_server: FeedServer, clock: Clock
) -> None:
    feed_server.route("/feed", Reply(status=429))
    with Fetcher(now=clock, trust_env=False, limits=FetchLimits(default_retry_after=600)) as f:
        r = f.fetch(feed_server.url("/feed"))
    assert r.hints.retry_after == T0 + 600


def test_huge_retry_after_is_capped(feed_server: FeedServer, clock: Clock) -> None:
    feed_server.route("/feed", Reply(status=503, headers={"Retry-After": "999999999"}))
    with Fetcher(now=clock, trust_env=False, limits=FetchLimits(max_retry_after=86400)) as f:
        r = f.fetch(feed_server.url("/feed"))
    assert r.hints.retry_after == T0 + 86400


# -- redirects ---------------------------------------------------------------------


def test_temporary_then_permanent_chain(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.routes(
        {
            "/start": Reply(status=302, headers={"Location": "/mid"}),
            "/mid": Reply(status=301, headers={"Location": feed_server.url("/final")}),
            "/final": Reply(body=FEED, headers={"ETag": '"f"'}),
        }
    )
    r = fetcher.fetch(feed_server.url("/start"))
    assert r.status == "ok"
    assert r.body == FEED
    assert r.url == feed_server.url("/start")
    assert r.final_url == feed_server.url("/final")
    assert r.permanent_redirect is None  # one hop was temporary
    assert [(h.status, h.location) for h in r.redirects] == [
        (302, feed_server.url("/mid")),
        (301, feed_server.url("/final")),
    ]
    assert r.etag == '"f"'
    assert [q.path for q in feed_server.requests] == ["/start", "/mid", "/final"]


def test_permanent_chain_reports_target(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.routes(
        {
            "/old": Reply(status=301, headers={"Location": "/older"}),
            "/older": Reply(status=308, headers={"Location": "/new"}),
            "/new": Reply(status=304),
        }
    )
    r = fetcher.fetch(feed_server.url("/old"), etag='"e"')
    assert r.status == "not_modified"
    assert r.permanent_redirect == feed_server.url("/new")
    assert r.final_url == feed_server.url("/new")
    # Validators go to every hop: they belong to the feed, wherever it lives.
    assert all(q.header("If-None-Match") == '"e"' for q in feed_server.requests)


def test_permanent_redirect_to_an_error_is_not_reported(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    feed_server.route("/old", Reply(status=301, headers={"Location": "/missing"}))
    r = fetcher.fetch(feed_server.url("/old"))
    assert r.status == "error" and r.http_status == 404
    assert r.permanent_redirect is None
    assert r.final_url == feed_server.url("/missing")


def test_redirect_loop_is_an_error(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.route("/a", Reply(status=302, headers={"Location": "/b"}))
    feed_server.route("/b", Reply(status=301, headers={"Location": "/a"}))
    r = fetcher.fetch(feed_server.url("/a"))
    assert r.status == "error"
    assert r.error is not None and "loop" in r.error
    assert len(feed_server.requests) == 2


def _chain(server: FeedServer, hops: int) -> None:
    for i in range(hops):
        server.route(f"/r{i}", Reply(status=307, headers={"Location": f"/r{i + 1}"}))
    server.route(f"/r{hops}", Reply(body=FEED))


def test_five_redirects_are_followed(feed_server: FeedServer, fetcher: Fetcher) -> None:
    _chain(feed_server, 5)
    r = fetcher.fetch(feed_server.url("/r0"))
    assert r.status == "ok"
    assert len(r.redirects) == 5


def test_six_redirects_are_too_many(feed_server: FeedServer, fetcher: Fetcher) -> None:
    _chain(feed_server, 6)
    r = fetcher.fetch(feed_server.url("/r0"))
    assert r.status == "error"
    assert r.error is not None and "too many redirects" in r.error
    assert len(feed_server.requests) == 6  # the 7th URL was never requested


@pytest.mark.parametrize("location", ["ftp://example.com/feed", "file:///etc/passwd"])
def test_redirect_to_other_scheme_is_refused(
    feed_server: FeedServer, fetcher: Fetcher, location: str
) -> None:
    feed_server.route("/feed", Reply(status=301, headers={"Location": location}))
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "error"
    assert r.error is not None and "scheme" in r.error


@pytest.mark.parametrize("location", ["javascript:alert(1)", "mailto:a@b.example"])
def test_redirect_to_no_web_address_says_so_in_words(
    feed_server: FeedServer, fetcher: Fetcher, location: str
) -> None:
    """It ended in httpx's own words: "For absolute URLs, path must be empty or
    begin with '/'"."""
    feed_server.route("/feed", Reply(status=301, headers={"Location": location}))
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "error" and r.error is not None
    assert "only http and https redirects are followed" in r.error
    assert "path must" not in r.error and "absolute" not in r.error


def test_redirect_without_location_is_an_error(feed_server: FeedServer, fetcher: Fetcher) -> None:
    feed_server.route("/feed", Reply(status=302))
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "error" and r.error is not None and "Location" in r.error


# -- credentials ----------------------------------------------------------------------


def test_authorization_goes_only_to_the_feed_origin(
    feed_server: FeedServer, other_server: FeedServer, fetcher: Fetcher
) -> None:
    feed_server.route("/feed", Reply(status=302, headers={"Location": "/moved"}))
    feed_server.route("/moved", Reply(status=302, headers={"Location": other_server.url("/x")}))
    other_server.route("/x", Reply(body=FEED))
    r = fetcher.fetch(feed_server.url("/feed"), auth=("alice", "s3cret"))
    assert r.status == "ok"
    first, second = feed_server.requests
    assert first.header("Authorization") == basic("alice", "s3cret")
    assert second.header("Authorization") == basic("alice", "s3cret")  # same origin
    (third,) = other_server.requests
    assert not third.has_header("Authorization")  # another port = another origin


def test_userinfo_in_url_becomes_auth_and_never_leaks(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    feed_server.route("/feed", Reply(status=500))
    url = feed_server.url("/feed").replace("http://", "http://bob:pa%40ss@")
    r = fetcher.fetch(url)
    assert r.status == "error"
    assert (feed_server.requests[0]).header("Authorization") == basic("bob", "pa@ss")
    assert r.url == feed_server.url("/feed")
    assert "pa%40ss" not in repr(r) and "pa@ss" not in repr(r)


def test_userinfo_in_location_is_not_used(
    feed_server: FeedServer, other_server: FeedServer, fetcher: Fetcher
) -> None:
    target = other_server.url("/x").replace("http://", "http://mallory:pw@")
    feed_server.route("/feed", Reply(status=302, headers={"Location": target}))
    other_server.route("/x", Reply(body=FEED))
    r = fetcher.fetch(feed_server.url("/feed"))
    assert r.status == "ok"
    assert not other_server.requests[0].has_header("Authorization")
    assert r.final_url == other_server.url("/x")


# -- limits -------------------------------------------------------------------------------


def _timed_fetch(url: str, limits: FetchLimits, clock: Clock) -> tuple[FetchResult, float]:
    """The result of one fetch under ``limits``, and how long it took (s)."""
    with Fetcher(now=clock, trust_env=False, limits=limits) as f:
        t = time.monotonic()
        r = f.fetch(url)
        return r, time.monotonic() - t


def test_slow_drip_hits_the_total_deadline(feed_server: FeedServer, clock: Clock) -> None:
    feed_server.route("/feed", Reply(body=b"x" * 10_000, drip=0.05))
    limits = FetchLimits(total_timeout=1.5, read_timeout=1.0)
    r, elapsed = _timed_fetch(feed_server.url("/feed"), limits, clock)
    assert r.status == "error"
    assert r.error is not None and "timed out" in r.error
    assert 1.4 <= elapsed < 2.5
    assert 0 < r.bytes_read < 10_000


def test_a_drip_just_inside_the_read_timeout_ends_at_the_total_deadline(
    feed_server: FeedServer, clock: Clock
) -> None:
    """Row 3: a byte every 2.9 s never trips a 3 s read timeout. The deadline was
    checked only when a byte arrived, so a 3 s fetch took ~5.8 s; now every read
    gets at most the time left."""
    feed_server.route("/feed", Reply(body=b"x" * 100, drip=2.9))
    limits = FetchLimits(total_timeout=3.0, read_timeout=3.0)
    r, elapsed = _timed_fetch(feed_server.url("/feed"), limits, clock)
    assert r.status == "error" and r.body is None
    assert r.error == "timed out: the fetch took longer than 3 s in total"
    assert 2.9 <= elapsed < 3.0 + 1.5  # was ~5.8 s
    assert 0 < r.bytes_read < 100


def test_silent_server_hits_the_total_deadline(feed_server: FeedServer, clock: Clock) -> None:
    feed_server.route("/feed", Reply(body=FEED, delay=10))
    limits = FetchLimits(total_timeout=1.0, read_timeout=30.0)
    r, elapsed = _timed_fetch(feed_server.url("/feed"), limits, clock)
    assert r.status == "error"
    assert r.error is not None and "timed out" in r.error
    assert elapsed < 2.0
    assert not r.unreachable  # it took the connection: a slow server, not a missing one


def _slow_dns(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """``*.example`` names answer 127.0.0.1 after ``seconds`` (a slow or hostile
    name server; a resolver cannot be real here)."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if str(host).endswith(".example"):
            time.sleep(seconds)
            host = "127.0.0.1"
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize(
    ("limits", "error"),
    [
        (FetchLimits(total_timeout=1.0, connect_timeout=10.0),
         "timed out: the fetch took longer than 1 s in total"),
        (FetchLimits(total_timeout=30.0, connect_timeout=1.0),
         "timed out looking up slow.example: no answer from the name server within 1 s"),
    ],
    ids=["total-deadline", "connect-timeout"],
)  # fmt: skip
def test_a_slow_name_lookup_is_bounded(
    feed_server: FeedServer,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    limits: FetchLimits,
    error: str,
) -> None:
    """getaddrinfo takes no timeout: a name server answering after 4 s held a
    1 s fetch for 4 s. The lookup now gets the time left, like every socket call."""
    _slow_dns(monkeypatch, 4.0)
    feed_server.route("/feed", Reply(body=FEED))
    url = f"http://slow.example:{feed_server.port}/feed"
    r, elapsed = _timed_fetch(url, limits, clock)
    assert r.status == "error" and r.error == error
    assert elapsed < 2.5  # was 4 s and more
    # a name server that never answers in time: no server could be reached
    assert r.unreachable == error.startswith("timed out looking up")
    assert feed_server.requests == []
    _slow_dns(monkeypatch, 0.0)
    assert _timed_fetch(url, limits, clock)[0].status == "ok"


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """50 MB of zeros, gzipped to about 50 kB."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1024 * 1024)
    parts = [comp.compress(block) for _ in range(50)]
    parts.append(comp.flush())
    return b"".join(parts)


def test_gzip_bomb_is_cut_at_the_cap(
    feed_server: FeedServer, clock: Clock, gzip_bomb: bytes
) -> None:
    assert len(gzip_bomb) < 100_000
    feed_server.route(
        "/feed",
        Reply(raw_body=gzip_bomb, headers={"Content-Encoding": "gzip"}),
    )
    limits = FetchLimits(max_body_bytes=1024 * 1024)
    with Fetcher(now=clock, trust_env=False, limits=limits) as f:
        r = f.fetch(feed_server.url("/feed"))
    assert r.status == "error"
    assert r.error is not None and "too large" in r.error
    assert r.body is None
    assert r.http_status == 200
    assert r.bytes_read <= len(gzip_bomb)


def test_plain_body_over_the_cap(feed_server: FeedServer, clock: Clock) -> None:
    feed_server.route("/cl", Reply(body=b"x" * 5000))
    feed_server.route("/nocl", Reply(body=b"x" * 5000, content_length=False))
    with Fetcher(now=clock, trust_env=False, limits=FetchLimits(max_body_bytes=4096)) as f:
        for path in ("/cl", "/nocl"):
            r = f.fetch(feed_server.url(path))
            assert r.status == "error" and r.error is not None and "too large" in r.error
            assert r.bytes_read <= 5000
        feed_server.route("/ok", Reply(body=b"x" * 4096, content_length=False))
        assert f.fetch(feed_server.url("/ok")).body == b"x" * 4096


def test_per_host_concurrency_limit(
    feed_server: FeedServer, other_server: FeedServer, clock: Clock
) -> None:
    feed_server.route("/feed", Reply(body=FEED, delay=0.25))
    other_server.route("/feed", Reply(body=FEED, delay=0.25))
    results: list[FetchResult] = []
    lock = threading.Lock()
    with Fetcher(now=clock, trust_env=False, limits=FetchLimits(per_host_concurrency=2)) as f:

        def work(url: str) -> None:
            r = f.fetch(url)
            with lock:
                results.append(r)

        urls = [feed_server.url("/feed")] * 6 + [other_server.url("/feed")] * 2
        threads = [threading.Thread(target=work, args=(u,)) for u in urls]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)
    assert len(results) == 8 and all(r.status == "ok" for r in results)
    assert feed_server.max_in_flight == 2
    assert other_server.max_in_flight == 2  # the other host was not starved


def test_server_records_requests_for_reuse(feed_server: FeedServer) -> None:
    """The helper itself: sequences, handler functions, 404 default."""
    seen: list[RecordedRequest] = []

    def handler(req: RecordedRequest) -> Reply:
        seen.append(req)
        return Reply(body=(req.header("X-Test") or "").encode())

    feed_server.route("/seq", [Reply(body=b"1"), Reply(body=b"2")])
    feed_server.route("/fn", handler)
    with Fetcher(trust_env=False) as f:
        bodies = [f.fetch(feed_server.url("/seq")).body for _ in range(3)]
        assert bodies == [b"1", b"2", b"2"]
        assert f.fetch(feed_server.url("/fn?q=1")).status == "ok"
        assert f.fetch(feed_server.url("/nothing")).http_status == 404
    assert seen[0].query == "q=1"
    assert [r.route_path for r in feed_server.requests_for("/seq")] == ["/seq"] * 3
