"""Feed parsing in worker processes (the GUI's updater): same result as in-thread,
errors reach the caller, a dead worker costs nothing, close leaves no process."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from smartreader.errors import ParseError
from smartreader.net.parse import parse_feed
from smartreader.net.parsepool import ParsePool
from tests.shared import CORPUS

RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title>One &amp; two</title><link>https://example.org/1</link><guid>1</guid>
<description>&lt;p onclick="x()"&gt;hi&lt;script&gt;bad()&lt;/script&gt;&lt;/p&gt;</description>
<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>"""


@pytest.fixture
def pool():
    p = ParsePool(workers=2)
    yield p
    p.close()


def _samples(n: int = 12) -> list[Path]:
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in {".xml", ".rss", ".atom"})
    assert len(files) >= n, f"the feeds corpus is missing at {CORPUS}"
    return files[:: max(1, len(files) // n)][:n]


def test_same_result_as_parsing_in_thread(pool):
    docs = [RSS] + [p.read_bytes() for p in _samples()]
    for body in docs:
        try:
            want = parse_feed(body, url="https://example.org/feed", now=1.8e9)
        except ParseError as e:
            with pytest.raises(ParseError, match=str(e)[:30]):
                pool.parse(body, url="https://example.org/feed", now=1.8e9)
            continue
        got = pool.parse(body, url="https://example.org/feed", now=1.8e9)
        assert got == want
    assert pool.fallbacks == 0
    assert pool.in_workers == len(docs)
    assert "script" not in pool.parse(RSS, url="https://example.org/f").entries[0].content


def test_not_a_feed_raises_parse_error_from_the_worker(pool):
    with pytest.raises(ParseError, match="empty"):
        pool.parse(b"   ", url="https://example.org/feed")
    assert pool.fallbacks == 0


def test_a_killed_worker_falls_back_then_recovers(pool):
    assert pool.parse(RSS, url="https://example.org/f").entries
    workers = list(pool._pool._processes.values())  # type: ignore[union-attr]
    assert workers and all(w.pid != os.getpid() for w in workers)
    for w in workers:
        os.kill(w.pid, signal.SIGKILL)
        w.join(5)
    # the broken pool is noticed on the next parse: parsed in-thread, nothing lost
    doc = pool.parse(RSS, url="https://example.org/f")
    assert doc.entries[0].title == "One & two"
    assert pool.fallbacks == 1
    # and a new pool serves the one after
    assert pool.parse(RSS, url="https://example.org/f").entries
    assert pool.fallbacks == 1


def test_close_stops_the_workers_and_later_parses_run_in_thread(pool):
    pool.parse(RSS, url="https://example.org/f")
    workers = list(pool._pool._processes.values())  # type: ignore[union-attr]
    pool.close()
    assert all(not w.is_alive() for w in workers)
    assert pool.parse(RSS, url="https://example.org/f").entries
    assert pool._pool is None


def test_a_parse_that_takes_too_long_is_refused_and_its_worker_stopped():
    """One hostile document must not hold a worker (and every update behind it)."""
    pool = ParsePool(workers=1, timeout=0.3)
    try:
        assert pool.parse(RSS, url="https://example.org/f").entries  # the worker is up
        workers = list(pool._pool._processes.values())  # type: ignore[union-attr]
        items = "".join(
            f"<item><guid>{i}</guid><title>t {i}</title><description>"
            f"{'&lt;p&gt;word &lt;b&gt;bold&lt;/b&gt; ' * 40}</description></item>"
            for i in range(3000)
        )
        big = f'<rss version="2.0"><channel><title>t</title>{items}</channel></rss>'.encode()
        with pytest.raises(ParseError, match=r"longer than 0\.3 s"):
            pool.parse(big, url="https://example.org/big")
        for w in workers:
            w.join(5)
        assert all(not w.is_alive() for w in workers)
        assert pool.fallbacks == 0  # refused, not parsed again in-thread
        # The next document gets a fresh worker.
        assert pool.parse(RSS, url="https://example.org/f").entries[0].title == "One & two"
        assert pool.fallbacks == 0
    finally:
        pool.close()


# -- the article of a web page (Load full article) -----------------------------------

PAGE = (
    "<html><head><title>Ferry news</title></head><body><nav>Home MENU</nav><article>"
    + "<p>The harbour authority met on Tuesday about the ferry timetable, at length. </p>" * 6
    + "</article><footer>FOOTER</footer></body></html>"
).encode()


def test_an_article_is_extracted_in_a_worker_as_in_thread(pool):
    from smartreader.net.fulltext import extract_article

    want = extract_article(PAGE, "https://example.org/a")
    got = pool.extract(PAGE, "https://example.org/a")
    assert got == want and "MENU" not in got.html and got.text_chars > 200
    assert pool.in_workers == 1 and pool.fallbacks == 0
    workers = list(pool._pool._processes.values())  # type: ignore[union-attr]
    assert workers and all(w.pid != os.getpid() for w in workers)


def test_a_page_with_no_article_raises_its_own_error_from_the_worker(pool):
    from smartreader.net.fulltext import FullTextError

    with pytest.raises(FullTextError, match="No article"):
        pool.extract(b"<html><body><nav>Home</nav></body></html>", "https://example.org/a")
    assert pool.fallbacks == 0 and pool.in_workers == 1


def test_a_page_that_takes_too_long_is_refused_and_its_worker_stopped():
    from smartreader.net.fulltext import FullTextError

    pool = ParsePool(workers=1, timeout=0.3)
    try:
        assert pool.extract(PAGE, "https://example.org/a").text_chars  # the worker is up
        workers = list(pool._pool._processes.values())  # type: ignore[union-attr]
        big = (
            "<html><body>"
            + "".join(f"<div class='c{i}'><p>{'word, ' * 60}</p></div>" for i in range(20_000))
            + "</body></html>"
        ).encode()
        with pytest.raises(FullTextError, match=r"longer than 0\.3 s"):
            pool.extract(big, "https://example.org/big")
        for w in workers:
            w.join(5)
        assert all(not w.is_alive() for w in workers)
        assert pool.fallbacks == 0
        assert pool.extract(PAGE, "https://example.org/a").text_chars  # a fresh worker
    finally:
        pool.close()
