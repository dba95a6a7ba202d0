"""Full-article extraction (net/fulltext.py): the page's article, sanitised, and
clear errors for everything else. Fetching goes to a real HTTP server on
127.0.0.1 (tests/httpserver.py); pages are in tests/net/fulltext_pages.py."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smartreader.net.fetch import Fetcher
from smartreader.net.fulltext import (
    MIN_TEXT_CHARS,
    FullArticle,
    FullTextError,
    extract_article,
    fetch_full_article,
    without_title,
)
from smartreader.net.sanitize import MAX_DEPTH, nesting_depth
from tests.httpserver import FeedServer, Reply
from tests.net import fulltext_pages as pages
from tests.net.inert import assert_inert
from tests.net.test_ssrf import RebindingDNS

URL = "https://news.example/2026/03/library.html"
PUBLIC_FEED = "https://news.example/feed.xml"
HTML = {"Content-Type": "text/html; charset=utf-8"}

BOILERPLATE = ("NAV-ITEM", "SIDEBAR-ITEM", "COMMENT-TEXT", "FOOTER-TEXT")


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(trust_env=False) as f:
        yield f


def _served(server: FeedServer, path: str, reply: Reply) -> str:
    server.route(path, reply)
    return server.url(path)


# -- extraction: the article and nothing around it ---------------------------


def test_the_article_is_kept_and_the_boilerplate_around_it_dropped() -> None:
    a = extract_article(pages.ARTICLE, URL)
    for p in pages.ARTICLE_PARAGRAPHS:
        assert p in a.html
    for marker in BOILERPLATE:
        assert marker not in a.html, marker
    assert a.text_chars > MIN_TEXT_CHARS
    assert a.text_chars >= sum(len(p) for p in pages.ARTICLE_PARAGRAPHS)
    assert a.url == URL
    # " | The Town Paper" is the site's name, not the article's
    assert a.title == "Library to open on Sundays"


def test_bytes_and_text_give_the_same_article() -> None:
    as_text = extract_article(pages.ARTICLE, URL)
    as_bytes = extract_article(pages.ARTICLE.encode("utf-8"), URL)
    assert as_bytes == as_text


def test_a_page_without_a_title_has_none() -> None:
    page = pages.ARTICLE.replace("<title>Library to open on Sundays | The Town Paper</title>", "")
    assert "<title>" not in page
    assert extract_article(page, URL).title is None


def test_the_title_is_plain_text() -> None:
    page = pages.article_page(title="Sundays &amp;\n holidays: the library\u202e opens")
    assert extract_article(page, URL).title == "Sundays & holidays: the library opens"


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("Library to open on Sundays | The Town Paper", "Library to open on Sundays"),
        ("The Town Paper - Library to open on Sundays", "Library to open on Sundays"),
        ("Library opens | The Town Paper", "Library opens | The Town Paper"),
        ("Python 3.14: what is new", "Python 3.14: what is new"),  # no cut at a colon
        ("«Le Monde»: un café à Paris", "«Le Monde»: un café à Paris"),  # kept as written
    ],
)
def test_the_sites_name_is_cut_from_the_title(title: str, shown: str) -> None:
    assert extract_article(pages.article_page(title=title), URL).title == shown


# -- hostile markup goes through sanitize_html -------------------------------


def test_hostile_markup_is_sanitised() -> None:
    a = extract_article(pages.HOSTILE, URL)
    assert "HOSTILE-PARA" in a.html  # the paragraph itself is kept...
    assert "a fine link" in a.html and 'href="https://ok.example/page"' in a.html
    low = a.html.lower()
    for bad in ("<script", "script-text", "script_in_head", "onclick", "onmouseover",
                "onerror", "javascript:", "<iframe", "iframe-fallback", "style=",
                "<style", "<form", "<input", "form-value"):  # fmt: skip
        assert bad not in low, bad
    assert 'rel="noopener noreferrer nofollow"' in a.html  # sanitize_html's mark on links
    assert_inert(a.html)


def test_relative_links_and_images_are_resolved_against_the_page() -> None:
    a = extract_article(pages.RELATIVE, URL)
    assert 'href="https://news.example/2026/archive/2026.html"' in a.html
    assert 'href="https://news.example/contact"' in a.html
    assert 'src="https://news.example/2026/03/images/library.jpg"' in a.html
    assert 'href="https://news.example/2026/03/library.html#ARTICLE-ONE"' in a.html
    assert 'href="../' not in a.html and 'src="images/' not in a.html


# -- charsets ----------------------------------------------------------------


@pytest.mark.parametrize(
    "meta",
    [
        '<meta charset="windows-1252">',
        '<meta charset="iso-8859-1">',
        '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">',
    ],
)
def test_a_legacy_page_declared_by_its_meta_tag_decodes(meta: str) -> None:
    a = extract_article(pages.legacy_page(meta), URL)
    assert "café" in a.html and "Straße" in a.html
    # iso-8859-1 is read as windows-1252, as browsers do: curly quotes and the
    # euro sign, not C1 control characters
    assert "“Kaffee”" in a.html and "5 €" in a.html
    assert "\ufffd" not in a.html
    assert a.title == "Café, Straße"


def test_the_content_type_charset_beats_the_meta_tag() -> None:
    # The page says iso-8859-2 (which decodes these bytes, wrongly: “ is a control
    # character there); the server's header says windows-1252, and is right.
    page = pages.legacy_page('<meta charset="iso-8859-2">')
    wrong = extract_article(page, URL)
    assert "“Kaffee”" not in wrong.html
    right = extract_article(page, URL, charset="windows-1252")
    assert "café" in right.html and "Straße" in right.html and "“Kaffee”" in right.html


def test_an_unknown_charset_falls_back_to_detection() -> None:
    a = extract_article(pages.legacy_page('<meta charset="windows-1252">'), URL, charset="x-nope")
    assert "café" in a.html and "“Kaffee”" in a.html


def test_a_declaration_that_does_not_decode_the_page_is_passed_over() -> None:
    # says UTF-8, is windows-1252 (a template's meta tag, an editor's bytes)
    a = extract_article(pages.legacy_page('<meta charset="utf-8">'), URL)
    assert "café" in a.html and "Straße" in a.html
    assert "\ufffd" not in a.html


def test_an_undeclared_legacy_page_is_detected() -> None:
    a = extract_article(pages.legacy_page(""), URL)
    assert "café" in a.html and "Straße" in a.html and "“Kaffee”" in a.html


def test_an_xml_declaration_names_the_encoding() -> None:
    page = b'<?xml version="1.0" encoding="iso-8859-15"?>\n' + pages.ARTICLE.replace(
        '<meta charset="utf-8">', ""
    ).replace("ARTICLE-ONE", "ARTICLE-ONE 5 \u20ac").encode("iso-8859-15")
    assert b"\xa4" in page  # the euro sign, where latin-1 and windows-1252 have others
    assert "ARTICLE-ONE 5 €" in extract_article(page, URL).html


def test_a_byte_order_mark_beats_every_declaration() -> None:
    page = "\ufeff" + pages.ARTICLE.replace("ARTICLE-ONE", "ARTICLE-ONE Zoë’s café")
    a = extract_article(page.encode("utf-8"), URL, charset="iso-8859-1")
    assert "Zoë’s café" in a.html


# -- extraction errors: clear, and nothing of lxml's or readability's leaks ---


@pytest.mark.parametrize(
    ("page", "words"),
    [
        (b"", "empty"),
        ("   \n\t ", "empty"),
        (pages.NAV_ONLY, "No article"),
        (pages.JS_SHELL, "No article"),
        ("<html><body><p>Too short.</p></body></html>", "No article"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40, "not text"),
        ("\x00" * 500, "not text"),
        ("<<<>>>" * 1000, "No article"),
        ("<!-- only a comment -->", "No article"),
        ("<?xml version='1.0'?><rss><channel><title>x</title></channel></rss>", "No article"),
    ],
    ids=[
        "empty",
        "blank",
        "nav-only",
        "js-shell",
        "short",
        "png",
        "nul",
        "brackets",
        "comment",
        "a-feed",
    ],
)
def test_a_page_with_no_article_is_a_clear_error(page: bytes | str, words: str) -> None:
    with pytest.raises(FullTextError) as info:
        extract_article(page, URL)
    assert words in str(info.value)
    assert str(info.value).endswith(".")


def test_random_bytes_are_an_error_not_a_crash() -> None:
    rng = random.Random(1234)
    for _ in range(30):
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20_000)))
        with pytest.raises(FullTextError):
            extract_article(junk, URL)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=st.one_of(st.binary(max_size=3000), st.text(max_size=3000)))
def test_no_input_raises_anything_but_full_text_error(page: bytes | str) -> None:
    try:
        a = extract_article(page, URL)
    except FullTextError:
        return
    assert isinstance(a, FullArticle) and a.text_chars >= MIN_TEXT_CHARS


@pytest.mark.parametrize("depth", [100, 300, 5_000, 100_000])
def test_deeply_nested_markup_neither_crashes_nor_hangs(depth: int) -> None:
    started = time.monotonic()
    try:
        a = extract_article(pages.nested_page(depth), URL)
    except FullTextError:
        # lxml (libxml2) keeps 255 levels and drops what is deeper: nothing left
        assert depth > 255
    else:
        assert "ARTICLE-ONE" in a.html
        assert nesting_depth(a.html) <= MAX_DEPTH
    assert time.monotonic() - started < 10


HOSTILE_PAGES = {
    # pathological markup; readability's own encoding patterns took 4 s on "metas"
    # and did not finish "meta-charsets" in 10 minutes
    "metas": b"<meta" * 13_000,
    "meta-charsets": b"<meta charset=" * 5_000 + b"<p>" + b"word " * 100,
    "titles": "<title" * 40_000,
    "open-titles": "<title>" * 40_000,
    "long-attribute": "<p><a title='" + " x" * 200_000 + "'>x</a>" + "word " * 100 + "</p>",
    "spaces": "<p>" + " " * 500_000 + "word " * 100 + "</p>",
    "tiny-paragraphs": "<p>a</p>" * 50_000,
}


@pytest.mark.parametrize("page", HOSTILE_PAGES.values(), ids=HOSTILE_PAGES.keys())
def test_hostile_pages_are_read_in_bounded_time(page: bytes | str) -> None:
    started = time.monotonic()
    with contextlib.suppress(FullTextError):
        extract_article(page, URL)
    assert time.monotonic() - started < 5


def test_a_big_page_is_extracted_in_reasonable_time() -> None:
    page = pages.big_page(1_000_000).encode("utf-8")
    assert len(page) > 1_000_000
    started = time.monotonic()
    a = extract_article(page, URL)
    took = time.monotonic() - started
    assert "COMMENT-TEXT" not in a.html and "NAV-ITEM" not in a.html
    assert a.text_chars > 500_000
    assert took < 10, took  # ~0.35 s on a laptop; generous for slow CI


# -- fetching: a real server ------------------------------------------------


def test_a_local_feed_may_load_a_local_article(feed_server: FeedServer, fetcher: Fetcher) -> None:
    link = _served(
        feed_server, "/2026/03/library.html", Reply(body=pages.ARTICLE.encode(), headers=HTML)
    )
    a = fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert a.url == link
    assert "ARTICLE-THREE" in a.html and "NAV-ITEM" not in a.html
    assert a.title == "Library to open on Sundays"
    assert [r.route_path for r in feed_server.requests] == ["/2026/03/library.html"]


@pytest.mark.parametrize("status", [301, 302])
def test_relative_addresses_resolve_against_the_redirect_target(
    feed_server: FeedServer, fetcher: Fetcher, status: int
) -> None:
    feed_server.route("/p/42", Reply(status=status, headers={"Location": "/2026/03/library.html"}))
    _served(feed_server, "/2026/03/library.html", Reply(body=pages.RELATIVE.encode(), headers=HTML))
    a = fetch_full_article(fetcher, feed_server.url("/p/42"), source=feed_server.url("/feed.xml"))
    base = feed_server.base_url
    assert a.url == base + "/2026/03/library.html"
    assert f'href="{base}/2026/archive/2026.html"' in a.html
    assert f'src="{base}/2026/03/images/library.jpg"' in a.html
    assert f'href="{base}/contact"' in a.html
    assert "/p/images/" not in a.html  # not against the address asked for


def test_the_content_type_charset_is_used(feed_server: FeedServer, fetcher: Fetcher) -> None:
    page = pages.legacy_page('<meta charset="iso-8859-2">')
    link = _served(
        feed_server,
        "/legacy",
        Reply(body=page, headers={"Content-Type": 'text/html; charset="windows-1252"'}),
    )
    a = fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert "café" in a.html and "Straße" in a.html and "“Kaffee”" in a.html


def test_a_legacy_page_declared_only_by_its_meta_tag(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    page = pages.legacy_page('<meta charset="windows-1252">')
    link = _served(feed_server, "/legacy", Reply(body=page, headers={"Content-Type": "text/html"}))
    a = fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert "café" in a.html and "Straße" in a.html and "5 €" in a.html


@pytest.mark.parametrize("content_type", ["application/xhtml+xml", "TEXT/HTML;charset=utf-8", None])
def test_html_content_types_are_accepted(
    feed_server: FeedServer, fetcher: Fetcher, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    link = _served(feed_server, "/a", Reply(body=pages.ARTICLE.encode(), headers=headers))
    a = fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert "ARTICLE-ONE" in a.html


NOT_LOADED = "The page could not be loaded: "
NOT_A_PAGE = "The link is not a web page "
FETCH_FAILURES = {
    "404": (Reply(404, b"<html>nope</html>", HTML), NOT_LOADED + "HTTP 404 (not found)."),
    "500": (Reply(500, b"oops", HTML), NOT_LOADED + "HTTP 500 (internal server error)."),
    "410": (Reply(410, headers=HTML), NOT_LOADED + "HTTP 410 (gone)."),
    "403": (Reply(403, headers=HTML), NOT_LOADED + "HTTP 403 (forbidden)."),
    "304": (Reply(304), NOT_LOADED + "the server sent no page (HTTP 304)."),
    "empty": (Reply(body=b"", headers=HTML), NOT_LOADED + "the server sent an empty page."),
    "pdf": (
        Reply(body=b"%PDF-1.7 <p>" + b"x " * 500, headers={"Content-Type": "application/pdf"}),
        NOT_A_PAGE + "(application/pdf).",
    ),
    "png": (
        Reply(body=b"\x89PNG\r\n\x1a\n", headers={"Content-Type": "image/png"}),
        NOT_A_PAGE + "(image/png).",
    ),
    "text": (
        Reply(body=b"plain words", headers={"Content-Type": "text/plain; charset=utf-8"}),
        NOT_A_PAGE + "(text/plain).",
    ),
    "nav-only": (
        Reply(body=pages.NAV_ONLY.encode(), headers=HTML),
        "No article could be found on the page.",
    ),
    "garbage": (
        Reply(body=bytes(range(256)) * 64, headers=HTML),
        "The page could not be read: it is not text.",
    ),
}


@pytest.mark.parametrize(("reply", "message"), FETCH_FAILURES.values(), ids=FETCH_FAILURES.keys())
def test_fetch_failures_are_clear_messages(
    feed_server: FeedServer, fetcher: Fetcher, reply: Reply, message: str
) -> None:
    link = _served(feed_server, "/a", reply)
    with pytest.raises(FullTextError) as info:
        fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert str(info.value) == message
    assert len(feed_server.requests) == 1


def test_a_rate_limited_page_says_so(feed_server: FeedServer, fetcher: Fetcher) -> None:
    link = _served(feed_server, "/a", Reply(status=429, headers={"Retry-After": "120"}))
    with pytest.raises(FullTextError) as info:
        fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert str(info.value).startswith("The page could not be loaded: rate limited by the server")


def test_an_unreachable_server_is_a_clear_message(fetcher: Fetcher) -> None:
    with FeedServer() as gone:
        link = gone.url("/a")
    with pytest.raises(FullTextError) as info:
        fetch_full_article(fetcher, link, source=link)
    assert str(info.value).startswith("The page could not be loaded: could not connect")


@pytest.mark.parametrize(
    "link",
    ["", "   ", "javascript:alert(1)", "ftp://files.example/a.html", "file:///etc/passwd",
     "data:text/html,<p>hi</p>", "mailto:a@b.example", "http://", "http://[::1"],
)  # fmt: skip
def test_links_that_are_not_web_addresses_are_refused_unsent(
    feed_server: FeedServer, fetcher: Fetcher, link: str
) -> None:
    with pytest.raises(FullTextError) as info:
        fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert str(info.value).startswith("The article")
    assert feed_server.requests == []


def test_a_public_feed_may_not_lead_into_the_local_network(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    link = _served(feed_server, "/router/admin", Reply(body=pages.ARTICLE.encode(), headers=HTML))
    with pytest.raises(FullTextError) as info:
        fetch_full_article(fetcher, link, source=PUBLIC_FEED)
    assert "local network (127.0.0.1)" in str(info.value)
    assert feed_server.requests == []  # refused before anything was sent


def test_a_public_feeds_link_is_held_to_public_addresses_when_connecting(
    feed_server: FeedServer, fetcher: Fetcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name that checks as public but answers 127.0.0.1 when connected to (DNS
    rebinding): the fetch is public_only, so the connection is refused."""
    RebindingDNS(monkeypatch)
    feed_server.route("/admin", Reply(body=pages.ARTICLE.encode(), headers=HTML))
    link = f"http://rebind.example:{feed_server.port}/admin"
    with pytest.raises(FullTextError) as info:
        fetch_full_article(fetcher, link, source=PUBLIC_FEED)
    assert str(info.value) == (
        "The page could not be loaded: a public page pointed to a local or private "
        "address (rebind.example resolves to 127.0.0.1); refused."
    )
    assert feed_server.requests == []
    # the same link from a feed on the local network is fetched
    a = fetch_full_article(fetcher, link, source=feed_server.url("/feed.xml"))
    assert "ARTICLE-ONE" in a.html
    assert [r.route_path for r in feed_server.requests] == ["/admin"]


def test_a_local_feeds_article_may_redirect_locally(
    feed_server: FeedServer, fetcher: Fetcher
) -> None:
    feed_server.route("/p/1", Reply(status=302, headers={"Location": "/a"}))
    _served(feed_server, "/a", Reply(body=pages.ARTICLE.encode(), headers=HTML))
    a = fetch_full_article(fetcher, feed_server.url("/p/1"), source=feed_server.url("/feed.xml"))
    assert a.url == feed_server.url("/a")


@pytest.mark.parametrize(
    ("article", "title", "kept"),
    [
        # the page's heading repeats the feed's title: gone, what follows stays
        (
            "<div><article><h1>Ferry  news</h1><p>Text.</p></article></div>",
            "ferry news",
            "<div><article><p>Text.</p></article></div>",
        ),
        ("<h2>A <b>bold</b> move</h2><p>Text.</p>", "A bold move", "<p>Text.</p>"),
        # another heading, or one further in, is the article's own
        ("<div><h1>Ferry news in brief</h1><p>Text.</p></div>", "Ferry news", None),
        ("<div><p>Intro.</p><h1>Ferry news</h1></div>", "Ferry news", None),
        ("<h4>Ferry news</h4><p>Text.</p>", "Ferry news", None),
        ("<h1>Ferry news</h1><p>Text.</p>", "", None),
    ],
)
def test_the_heading_that_repeats_the_title_is_dropped(article, title, kept) -> None:
    assert without_title(article, title) == (article if kept is None else kept)
