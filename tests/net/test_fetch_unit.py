"""Fetcher details with httpx.MockTransport, and the pure policy helpers."""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from smartreader.net.fetch import (
    ERROR_BACKOFF_BASE,
    ERROR_BACKOFF_CAP,
    Fetcher,
    FetchLimits,
    error_backoff,
)

FEED = b"<rss/>"


class Chunks(httpx.SyncByteStream):
    """A body that arrives in pieces, like from a socket (not pre-read by httpx)."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks


def streamed(status: int, body: bytes = b"", headers: Any = None) -> httpx.Response:
    return httpx.Response(status, headers=headers, stream=Chunks(body[:3], body[3:]))


def mock_fetcher(
    handler: Callable[[httpx.Request], httpx.Response],
) -> tuple[Fetcher, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    return Fetcher(transport=httpx.MockTransport(record), now=lambda: 1000.0), seen


# -- error_backoff ---------------------------------------------------------------


def test_error_backoff_doubles_from_15_minutes_to_a_day() -> None:
    class Middle(random.Random):
        def uniform(self, a: float, b: float) -> float:
            return (a + b) / 2

    rng = Middle()
    assert error_backoff(0, rng) == 0.0
    assert error_backoff(-3, rng) == 0.0
    assert error_backoff(1, rng) == pytest.approx(ERROR_BACKOFF_BASE)
    assert error_backoff(2, rng) == pytest.approx(2 * ERROR_BACKOFF_BASE)
    assert error_backoff(3, rng) == pytest.approx(4 * ERROR_BACKOFF_BASE)
    assert error_backoff(7, rng) == pytest.approx(16 * 3600)  # 15 min × 64
    assert error_backoff(8, rng) == pytest.approx(ERROR_BACKOFF_CAP)  # 15 min × 128 > 24 h
    assert error_backoff(10_000, rng) == pytest.approx(ERROR_BACKOFF_CAP)


def test_error_backoff_jitter_is_within_20_percent_and_varies() -> None:
    rng = random.Random(42)
    for n in range(1, 12):
        base = min(ERROR_BACKOFF_CAP, ERROR_BACKOFF_BASE * 2 ** (n - 1))
        values = {error_backoff(n, rng) for _ in range(50)}
        assert all(0.8 * base <= v <= 1.2 * base for v in values)
        assert len(values) > 1
    # Same seed, same schedule (reproducible simulations).
    assert error_backoff(4, random.Random(1)) == error_backoff(4, random.Random(1))


# -- header details ----------------------------------------------------------------


def test_non_ascii_validators_round_trip_byte_for_byte() -> None:
    raw_etag = b'"caf\xe9"'  # latin-1 byte in an ETag: opaque, keep as sent

    def handler(request: httpx.Request) -> httpx.Response:
        if "if-none-match" in request.headers:
            return httpx.Response(304)
        return streamed(200, FEED, headers=[(b"ETag", raw_etag)])

    f, seen = mock_fetcher(handler)
    with f:
        first = f.fetch("http://example.com/feed")
        second = f.fetch("http://example.com/feed", etag=first.etag)
    assert second.status == "not_modified"
    assert seen[1].headers.raw[-1] == (b"If-None-Match", raw_etag)


def test_validators_with_line_breaks_are_not_sent() -> None:
    f, seen = mock_fetcher(lambda r: httpx.Response(200, content=FEED))
    with f:
        r = f.fetch("http://example.com/feed", etag='"a"\r\nX-Evil: 1', last_modified="ok")
    assert r.status == "ok"
    assert "if-none-match" not in seen[0].headers
    assert "x-evil" not in seen[0].headers
    assert seen[0].headers["if-modified-since"] == "ok"


def test_injected_client_gets_a_cookie_jar_that_stores_nothing() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return streamed(200, FEED, headers={"Set-Cookie": "a=1; Path=/"})

    seen: list[httpx.Request] = []
    client = httpx.Client(
        transport=httpx.MockTransport(lambda r: (seen.append(r), handler(r))[1]),
        cookies={"preset": "1"},
    )
    with client, Fetcher(client) as f:
        f.fetch("http://example.com/feed")
        f.fetch("http://example.com/feed")
    assert all("cookie" not in r.headers for r in seen)
    assert len(client.cookies) == 0


def test_auth_survives_same_host_https_upgrade_but_not_other_ports() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if url == "http://example.com/feed":
            return httpx.Response(301, headers={"Location": "https://example.com/feed"})
        if url == "https://example.com/feed":
            return httpx.Response(302, headers={"Location": "https://example.com:8443/feed"})
        return httpx.Response(200, content=FEED)

    f, seen = mock_fetcher(handler)
    with f:
        r = f.fetch("http://example.com/feed", auth=("u", "p"))
    assert r.status == "ok"
    assert [("authorization" in q.headers) for q in seen] == [True, True, False]
    assert r.permanent_redirect is None  # 301 then 302
    assert r.redirects[0].status == 301


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip, gzip"])
def test_undecodable_content_encoding_is_an_error(coding: str) -> None:
    f, _ = mock_fetcher(lambda r: streamed(200, b"??", headers={"Content-Encoding": coding}))
    with f:
        r = f.fetch("http://example.com/feed")
    assert r.status == "error" and r.error is not None and "encoding" in r.error


@pytest.mark.parametrize("coding", ["identity", "utf-8", "", "text/xml"])
def test_bogus_content_encoding_is_ignored(coding: str) -> None:
    f, _ = mock_fetcher(lambda r: streamed(200, FEED, headers={"Content-Encoding": coding}))
    with f:
        r = f.fetch("http://example.com/feed")
    assert r.status == "ok" and r.body == FEED


def test_gzip_members_are_concatenated_and_trailing_garbage_ignored() -> None:
    body = gzip.compress(b"<rss>") + gzip.compress(b"</rss>") + b"\n\0junk"
    f, _ = mock_fetcher(lambda r: streamed(200, body, headers={"Content-Encoding": "gzip"}))
    with f:
        r = f.fetch("http://example.com/feed")
    assert r.status == "ok" and r.body == b"<rss></rss>"


@pytest.mark.parametrize("url", ["http://[::1", "not a url", "", "mailto:a@b.c", "http:///feed"])
def test_malformed_urls_are_error_results(url: str) -> None:
    f, seen = mock_fetcher(lambda r: httpx.Response(200, content=FEED))
    with f:
        r = f.fetch(url)
    assert r.status == "error" and r.error
    assert seen == []


def test_corrupt_gzip_is_an_error() -> None:
    f, _ = mock_fetcher(lambda r: streamed(200, b"notgzip", headers={"Content-Encoding": "gzip"}))
    with f:
        r = f.fetch("http://example.com/feed")
    assert r.status == "error" and r.error is not None and "gzip" in r.error


def test_transport_exceptions_become_error_results_without_secrets() -> None:
    def boom(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("name resolution failed", request=request)

    f, _ = mock_fetcher(boom)
    with f:
        r = f.fetch("https://user:hunter2@example.com/feed?token=abc")
    assert r.status == "error"
    assert r.error is not None and "could not connect" in r.error
    assert "hunter2" not in repr(r)
    assert r.url == "https://example.com/feed?token=abc"


def test_rate_limit_memory_is_per_host_and_port() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "busy.example":
            return httpx.Response(429, headers={"Retry-After": "60"})
        return httpx.Response(200, content=FEED)

    f, seen = mock_fetcher(handler)
    with f:
        assert f.fetch("https://busy.example/a").status == "rate_limited"
        assert f.fetch("https://BUSY.example:443/b").http_status is None  # same host key
        assert f.fetch("https://busy.example:8443/c").http_status == 429  # other port
        assert f.fetch("https://calm.example/a").status == "ok"
    assert [str(r.url) for r in seen] == [
        "https://busy.example/a",
        "https://busy.example:8443/c",
        "https://calm.example/a",
    ]


def test_redirect_into_a_rate_limited_host_sends_nothing_there() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "busy.example":
            return httpx.Response(429, headers={"Retry-After": "60"})
        return httpx.Response(302, headers={"Location": "https://busy.example/feed"})

    f, seen = mock_fetcher(handler)
    with f:
        f.fetch("https://busy.example/x")
        r = f.fetch("https://front.example/feed")
    assert r.status == "rate_limited"
    assert r.http_status is None  # nothing was sent to busy.example this time
    assert r.final_url == "https://busy.example/feed"
    assert len(seen) == 2


def test_pre_read_bodies_from_a_transport_are_capped_too() -> None:
    f, _ = mock_fetcher(lambda r: httpx.Response(200, content=b"x" * 100))
    with f:
        assert f.fetch("http://example.com/feed").body == b"x" * 100
    f = Fetcher(
        transport=httpx.MockTransport(lambda r: httpx.Response(200, content=b"x" * 100)),
        limits=FetchLimits(max_body_bytes=50),
    )
    with f:
        r = f.fetch("http://example.com/feed")
    assert r.status == "error" and r.error is not None and "too large" in r.error


def test_streamed_gzip_body_over_the_cap_stops_inflating() -> None:
    bomb = gzip.compress(bytes(10 * 1024 * 1024))
    f = Fetcher(
        transport=httpx.MockTransport(
            lambda r: streamed(200, bomb, headers={"Content-Encoding": "gzip"})
        ),
        limits=FetchLimits(max_body_bytes=1000),
    )
    with f:
        r = f.fetch("http://example.com/feed")
    assert r.status == "error" and r.error is not None and "too large" in r.error
