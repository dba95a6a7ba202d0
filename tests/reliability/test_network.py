"""Network faults and politeness (§7 rows 1–25, issue items 2 and 6).

Each fault is served by a real server on 127.0.0.1 to a real ``Updater`` with
feeds that already hold entries: the faulty feed shows a clear error, its
stored entries (and read flags) are unchanged, and a healthy feed on another
host is updated in the same run.
"""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.net.fetch import ACCEPT_ENCODING, Fetcher, FetchLimits, MiB
from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import assert_ok, item, rss, run_bounded

GOOD = rss(item("a", "A") + item("b", "B"))


@pytest.fixture
def other_server() -> Iterator[FeedServer]:
    with FeedServer() as server:
        yield server


def _snapshot(store: Store, feed_id: int) -> list[tuple[str, str, bool]]:
    entries = store.entries(store.entry_ids(feed_ids=[feed_id]))
    return sorted((e.uid, e.content, e.read) for e in entries)


def _gzip_of_zeros(mib: int) -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1024 * 1024)
    return b"".join([*(comp.compress(block) for _ in range(mib)), comp.flush()])


def _half_a_gzip() -> bytes:
    doc = rss(item("a", "A") + item("b", "B")
              + "".join(item(f"new{i}", f"New {i} " + "x" * 200) for i in range(40)))  # fmt: skip
    whole = gzip.compress(doc)
    return whole[: len(whole) // 2]


FAULTS = {
    # row 8: gzip header on a plain body
    "fake gzip": Reply(raw_body=GOOD, headers={"Content-Encoding": "gzip"}),
    "corrupt gzip": Reply(raw_body=b"\x1f\x8b\x08\x00garbage" * 50,
                          headers={"Content-Encoding": "gzip"}),
    # row 7: brotli sent although never asked for
    "unrequested br": Reply(raw_body=b"\x1b\x00\x00", headers={"Content-Encoding": "br"}),
    # row 9: Content-Length 10 000, 5 000 sent, then close
    "truncated": Reply(body=GOOD[:60] + b"x" * 4940, headers={"Content-Length": "10000"},
                       content_length=False),
    # row 9: half a gzip file, with a Content-Length that matches what is sent (the
    # half holds new items: none may be stored)
    "truncated gzip": Reply(raw_body=_half_a_gzip(), headers={"Content-Encoding": "gzip"}),
    # row 4: declared 200 MiB
    "huge length": Reply(body=b"x" * 1000, headers={"Content-Length": str(200 * 1024 * 1024)},
                         content_length=False),
    # row 22: empty 200
    "empty 200": Reply(body=b""),
    # row 21: a web page
    "html page": Reply(body=b"<html><body>hello</body></html>",
                       headers={"Content-Type": "text/html"}),
    # rows 14/15
    "404": Reply(status=404), "500": Reply(status=500),
    # row 26: XXE
    "xxe": Reply(body=b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM '
                      b'"file:///etc/hostname">]><rss version="2.0"><channel><title>&x;'
                      b"</title><item><guid>x</guid><title>&x;</title></item></channel></rss>"),
}  # fmt: skip
EXPECTED_WORDS = {
    "fake gzip": "corrupt", "corrupt gzip": "corrupt", "unrequested br": "encoding",
    "truncated": "protocol", "truncated gzip": "truncated", "huge length": "too large",
    "empty 200": "empty", "html page": "web page", "404": "not found", "500": "server error",
    "xxe": "entities",
}  # fmt: skip


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_faulty_feed_shows_an_error_and_loses_nothing(
    fault: str, feed_server: FeedServer, other_server: FeedServer, tmp_path: Path
) -> None:
    feed_server.route("/feed", [Reply(body=GOOD), FAULTS[fault]])
    other_server.route("/feed", [Reply(body=GOOD), Reply(body=rss(item("c", "C")))])
    store = Store(tmp_path / "db.sqlite3")
    bad = store.add_feed(feed_server.url("/feed"))
    good = store.add_feed(other_server.url("/feed"))
    limits = FetchLimits(total_timeout=5.0, read_timeout=3.0, max_body_bytes=1024 * 1024)
    up = Updater(store, fetcher=Fetcher(limits=limits, trust_env=False), max_workers=2)
    try:
        up.update()
        store.set_read(store.entry_ids(feed_ids=[bad])[:1])
        before = _snapshot(store, bad)
        url_before = store.feed(bad).url
        results = {r.feed_id: r for r in up.update()}
    finally:
        up.close()
    r = results[bad]
    assert r.status == "error" and r.error, r
    assert EXPECTED_WORDS[fault] in r.error.lower(), r.error
    assert _snapshot(store, bad) == before  # nothing stored is lost or altered
    feed = store.feed(bad)
    assert feed.url == url_before and feed.error_count == 1 and feed.last_error
    assert results[good].status == "ok" and results[good].new_entries == 1
    if fault == "huge length":
        assert r.new_entries == 0
    hostname = Path("/etc/hostname").read_bytes().strip()
    if hostname:
        assert hostname not in (tmp_path / "db.sqlite3").read_bytes()
    store.close()


def test_connection_refused_and_repeated_errors_keep_the_feed(tmp_path: Path) -> None:
    """Rows 1 and 15: unreachable three times: error count grows, feed and entries stay."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once we leave the block
    store = Store(tmp_path / "db.sqlite3")
    fid = store.add_feed(f"http://127.0.0.1:{port}/feed")
    up = Updater(store, fetcher=Fetcher(trust_env=False))
    try:
        for n in (1, 2, 3):
            (r,) = up.update()
            assert r.status == "error" and "could not connect" in (r.error or "")
            assert store.feed(fid).error_count == n
    finally:
        up.close()
    assert store.feed(fid).status == "active"  # never deleted nor disabled silently
    store.close()


def test_stall_before_headers_hits_the_read_timeout(feed_server: FeedServer) -> None:
    """Row 2 (the total deadline variant is tests/net/test_fetch.py)."""
    feed_server.route("/feed", Reply(body=GOOD, delay=10))
    limits = FetchLimits(read_timeout=0.5, total_timeout=30.0)
    with Fetcher(trust_env=False, limits=limits) as f:
        t = time.monotonic()
        r = f.fetch(feed_server.url("/feed"))
    assert r.status == "error" and "timed out" in (r.error or "")
    assert time.monotonic() - t < 5.0


@pytest.mark.parametrize("coding", ["", "gzip", "deflate"])
def test_huge_content_length_is_refused_before_reading(
    feed_server: FeedServer, coding: str
) -> None:
    """Row 4: nothing of the body is read when the declared length is over the cap,
    whatever the Content-Encoding (with one, it used to be read up to the cap first)."""
    body = os.urandom(2 * MiB)  # incompressible: the wire bytes are ~2 MiB
    if coding:
        comp = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS if coding == "gzip" else 15)
        body = comp.compress(body) + comp.flush()
    headers = {"Content-Length": str(200 * MiB)}
    if coding:
        headers["Content-Encoding"] = coding
    feed_server.route("/feed", Reply(raw_body=body, headers=headers, content_length=False))
    with Fetcher(trust_env=False, limits=FetchLimits(max_body_bytes=MiB)) as f:
        r = f.fetch(feed_server.url("/feed"))
    assert r.status == "error"
    assert r.error == "response too large (200 MiB; the limit is 1 MiB)"  # not 209715200 bytes
    assert r.bytes_read == 0


def test_we_never_ask_for_brotli() -> None:
    """Row 7: a 317-byte brotli bomb inflates in one chunk; we only ask for what we bound."""
    assert "br" not in ACCEPT_ENCODING.replace(" ", "").split(",")


@pytest.mark.parametrize("location", ["javascript:alert(1)", "data:text/xml,<rss/>", "file:/x"])
def test_redirect_to_a_non_http_scheme_is_refused(feed_server: FeedServer, location: str) -> None:
    """Row 11 (ftp: and file:/// are in tests/net/test_fetch.py)."""
    feed_server.route("/feed", Reply(status=302, headers={"Location": location}))
    with Fetcher(trust_env=False) as f:
        r = f.fetch(feed_server.url("/feed"))
    assert r.status == "error" and "only http and https" in (r.error or "")
    assert len(feed_server.requests) == 1


def test_cookies_from_feed_a_never_reach_a_or_b(
    feed_server: FeedServer, other_server: FeedServer
) -> None:
    """Row 23, across feeds and hosts."""
    cookies = [("Set-Cookie", "sid=A1; Path=/"), ("Set-Cookie", "t=2; Domain=127.0.0.1")]
    feed_server.route("/a", Reply(body=GOOD, headers=cookies))
    other_server.route("/b", Reply(body=GOOD))
    with Fetcher(trust_env=False) as f:
        for _ in range(2):
            f.fetch(feed_server.url("/a"))
            f.fetch(other_server.url("/b"))
    for req in feed_server.requests + other_server.requests:
        assert not req.has_header("Cookie")
        assert not req.has_header("Referer")


@pytest.mark.slow
def test_gzip_bomb_stays_within_a_memory_bound() -> None:
    """Row 6: 200 MiB of zeros gzipped (~200 KB) served for real; peak RSS rise < 64 MB
    under an address-space limit."""
    res = run_bounded(
        """
        import zlib
        from tests.httpserver import FeedServer, Reply
        from smartreader.net.fetch import Fetcher
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = bytes(1 << 20)
        bomb = b"".join([*(comp.compress(block) for _ in range(200)), comp.flush()])
        with FeedServer() as server:
            server.route("/f", Reply(raw_body=bomb, headers={"Content-Encoding": "gzip"}))
            with Fetcher(trust_env=False) as f:
                base = _peak_mb()
                r = f.fetch(server.url("/f"))
        report(status=r.status, error=r.error, size=len(bomb), rise=_peak_mb() - base)
        """,
        mem_mb=1024,
        timeout=120,
    )
    rep = assert_ok(res)
    assert rep["status"] == "error" and "too large" in rep["error"]
    assert rep["size"] < 300_000
    assert rep["rise"] < 64, rep


def _openssl_cert(tmp: Path, cn: str) -> tuple[Path, Path] | None:
    key, cert = tmp / "key.pem", tmp / "cert.pem"
    try:
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-subj", f"/CN={cn}", "-keyout", str(key), "-out", str(cert)],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return key, cert


def test_self_signed_certificate_is_a_clear_tls_error(tmp_path: Path) -> None:
    """Row 20: no silent bypass; the error says it is about the certificate."""
    import ssl
    from http.server import BaseHTTPRequestHandler, HTTPServer

    pair = _openssl_cert(tmp_path, "example.org")
    if pair is None:
        pytest.skip("openssl is not available to make a test certificate")
    key, cert = pair

    class H(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()

        def log_message(self, *a: object) -> None:
            pass

    httpd = HTTPServer(("127.0.0.1", 0), H)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        with Fetcher(trust_env=False, limits=FetchLimits(total_timeout=10)) as f:
            r = f.fetch(f"https://127.0.0.1:{httpd.server_address[1]}/feed")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert r.status == "error" and r.body is None
    assert "certificate" in (r.error or "").lower(), r.error
    # in words, not OpenSSL's "[SSL: CERTIFICATE_VERIFY_FAILED] ... (_ssl.c:1000)"
    assert "self-signed" in (r.error or "") and "_ssl.c" not in (r.error or ""), r.error


def test_https_to_a_plain_http_server_suggests_http(feed_server: FeedServer) -> None:
    """It said "could not connect: [SSL: WRONG_VERSION_NUMBER] wrong version number
    (_ssl.c:1000)"."""
    feed_server.route("/feed", Reply(body=GOOD))
    url = feed_server.url("/feed").replace("http://", "https://")
    with Fetcher(trust_env=False, limits=FetchLimits(total_timeout=10)) as f:
        r = f.fetch(url)
    assert r.status == "error" and "http:// rather than https://" in (r.error or ""), r.error


# -- politeness (issue item 6) ----------------------------------------------------------------


def test_a_429_storm_on_one_host_does_not_slow_the_others(
    feed_server: FeedServer, other_server: FeedServer, tmp_path: Path
) -> None:
    """Host A answers every request with a slow 429; host B's feeds are fetched at full
    speed in the same run, and A is asked at most once per concurrency slot."""
    feed_server.route("/", Reply(status=429, delay=1.5, headers={"Retry-After": "120"}))
    for n in range(8):
        feed_server.route(f"/a{n}", Reply(status=429, delay=1.5, headers={"Retry-After": "120"}))
        other_server.route(f"/b{n}", Reply(body=rss(item(f"b{n}", "B")), delay=0.05))
    store = Store(tmp_path / "db.sqlite3")
    a_ids = [store.add_feed(feed_server.url(f"/a{n}")) for n in range(8)]
    b_ids = [store.add_feed(other_server.url(f"/b{n}")) for n in range(8)]
    up = Updater(store, fetcher=Fetcher(trust_env=False), max_workers=8)
    done_at: dict[int, float] = {}
    t0 = time.monotonic()
    try:
        results = up.update(
            progress=lambda d, t, r: done_at.setdefault(r.feed_id, time.monotonic())
        )
        # Before Retry-After has passed, a second run sends nothing to host A.
        before = len(feed_server.requests)
        again = {r.feed_id: r for r in up.update(a_ids)}
    finally:
        up.close()
    by_id = {r.feed_id: r for r in results}
    assert all(by_id[i].status == "ok" for i in b_ids)
    assert all(by_id[i].status == "rate_limited" for i in a_ids)
    assert len(feed_server.requests) <= 2  # per-host limit; the rest waited, then sent nothing
    assert len(feed_server.requests) == before
    assert all(again[i].status == "rate_limited" for i in a_ids)
    # B finished while A's first slow 429 was still being answered.
    assert max(done_at[i] for i in b_ids) - t0 < 1.4
    for i in a_ids:  # validators and entries are untouched by a 429
        assert store.feed(i).error_count == 0
    store.close()


def test_a_hosts_retry_after_holds_after_a_restart(feed_server: FeedServer, tmp_path: Path) -> None:
    """A 429 with Retry-After: an hour. The app restarts ten minutes later and the
    user refreshes another feed on that host: nothing is sent before the hour is up,
    and the feed says why; at the hour it is fetched."""
    clock = [time.time()]
    feed_server.route("/a.xml", Reply(status=429, headers={"Retry-After": "3600"}))
    feed_server.route("/b.xml", Reply(body=rss(item("b", "B"))))
    store = Store(tmp_path / "db.sqlite3")
    a, b = store.add_feed(feed_server.url("/a.xml")), store.add_feed(feed_server.url("/b.xml"))
    up = Updater(
        store, fetcher=Fetcher(trust_env=False, now=lambda: clock[0]), now=lambda: clock[0]
    )
    try:
        assert up.update([a])[0].status == "rate_limited"
    finally:
        up.close()
    sent = len(feed_server.requests)

    clock[0] += 600
    up = Updater(
        store, fetcher=Fetcher(trust_env=False, now=lambda: clock[0]), now=lambda: clock[0]
    )
    try:
        r = up.update([b])[0]
        assert r.status == "rate_limited" and "asked us to wait" in (r.error or "")
        assert len(feed_server.requests) == sent
        assert store.feed(b).error_count == 0
        clock[0] += 3000 + 1
        assert up.update([b])[0].status == "ok"
        assert len(feed_server.requests) == sent + 1
    finally:
        up.close()
        store.close()
