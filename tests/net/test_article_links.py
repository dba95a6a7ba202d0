"""Links inside an article: relative ones resolve against the article's own
address, a ``#fragment`` stays a link into the same article, and the targets of
such links (``id``, ``a name``) survive sanitising, prefixed."""

from __future__ import annotations

import json

import pytest

from smartreader.net.parse import parse_feed
from smartreader.net.sanitize import ID_PREFIX, sanitize_html
from tests.net.inert import assert_inert

FEED_URL = "https://feeds.example.org/blog/rss.xml"
POST = "https://blog.example.org/2026/11/post-1/"
BODY = (
    '<p>Claim<sup id="fnref1"><a href="#fn1">[1]</a></sup>. See <a href="part-2/">part 2</a> '
    'and <a href="/about">about</a>. <img src="diagram.png" alt="d"></p>'
    '<ol><li id="fn1">Source. <a href="#fnref1">back</a></li></ol>'
)


def _rss(link: str | None, body: str = BODY) -> bytes:
    link_el = f"<link>{link}</link>" if link is not None else ""
    return f"""<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>
<link>https://blog.example.org/</link><description>x</description>
<item><title>Post</title>{link_el}<guid isPermaLink="false">p1</guid>
<description><![CDATA[{body}]]></description></item></channel></rss>""".encode()


def test_relative_links_resolve_against_the_items_own_link() -> None:
    """Audit B2: they resolved against the feed's address (the footnote opened
    the feed's XML, the picture pointed into the feed's folder)."""
    (e,) = parse_feed(_rss(POST), url=FEED_URL).entries
    html = e.content
    assert f'href="{POST}#fn1"' in html
    assert f'href="{POST}#fnref1"' in html
    assert f'href="{POST}part-2/"' in html
    assert 'href="https://blog.example.org/about"' in html
    assert f'src="{POST}diagram.png"' in html
    assert "feeds.example.org" not in html
    # the footnotes' targets are kept, so the links have somewhere to go
    assert f'id="{ID_PREFIX}fn1"' in html and f'id="{ID_PREFIX}fnref1"' in html
    assert_inert(html)


def test_an_item_link_relative_to_the_feed_is_the_base_once_resolved() -> None:
    (e,) = parse_feed(_rss("/2026/11/post-1/"), url=FEED_URL).entries
    assert e.link == "https://feeds.example.org/2026/11/post-1/"
    assert 'src="https://feeds.example.org/2026/11/post-1/diagram.png"' in e.content


@pytest.mark.parametrize("link", [None, "mailto:author@example.org", "ftp://files.example.org/x"])
def test_without_a_web_link_the_feeds_address_is_the_base_as_before(link: str | None) -> None:
    (e,) = parse_feed(_rss(link), url=FEED_URL).entries
    assert 'src="https://feeds.example.org/blog/diagram.png"' in e.content
    assert f'href="{FEED_URL}#fn1"' in e.content
    assert_inert(e.content)


def test_xml_base_still_decides_for_paths_but_a_fragment_stays_in_the_article() -> None:
    atom = f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://cdn.example.net/site/">
<title>Blog</title><id>urn:b</id><updated>2026-11-01T00:00:00Z</updated>
<entry><title>Post</title><id>urn:p1</id><updated>2026-11-01T00:00:00Z</updated>
<link href="{POST}"/>
<content type="html"><![CDATA[{BODY}]]></content></entry></feed>""".encode()
    (e,) = parse_feed(atom, url=FEED_URL).entries
    assert 'src="https://cdn.example.net/site/diagram.png"' in e.content  # xml:base
    assert 'href="https://cdn.example.net/site/part-2/"' in e.content
    # "#fn1" is a same-document reference (RFC 3986 4.4): the article's, not the base's
    assert f'href="{POST}#fn1"' in e.content


def test_json_feed_items_resolve_against_their_own_url() -> None:
    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Blog",
        "feed_url": "https://feeds.example.org/blog/feed.json",
        "items": [{"id": "1", "url": POST, "content_html": BODY}],
    }
    (e,) = parse_feed(json.dumps(doc).encode(), url=FEED_URL).entries
    assert f'src="{POST}diagram.png"' in e.content
    assert f'href="{POST}#fn1"' in e.content


def test_ids_and_anchor_names_are_kept_prefixed_and_nothing_else_is_added() -> None:
    html, _ = sanitize_html(
        '<h2 id="intro">Intro</h2><a name="top"></a><p id=" ">x</p>'
        '<span name="not-an-anchor">y</span><a href="#intro" id="link">z</a>',
        "https://example.org/",
        page=POST,
    )
    assert f'<h2 id="{ID_PREFIX}intro">' in html
    assert f'<a name="{ID_PREFIX}top"' in html
    assert "<p>x</p>" in html  # a blank id is dropped
    assert "not-an-anchor" not in html  # name only on <a>
    assert f'href="{POST}#intro"' in html and f'id="{ID_PREFIX}link"' in html


def test_without_a_page_a_fragment_resolves_like_any_relative_link() -> None:
    html, _ = sanitize_html('<a href="#x">x</a>', "https://example.org/feed.xml")
    assert 'href="https://example.org/feed.xml#x"' in html


@pytest.mark.parametrize(
    "payload",
    [
        '<a href="#x" onclick="alert(1)" id="a">x</a>',
        '<a href="#javascript:alert(1)">x</a>',
        '<p id="x" style="background:url(javascript:alert(1))">x</p>',
        '<a href=" #fn1\tjavascript:alert(1)">x</a>',
    ],
)
def test_fragment_links_and_ids_stay_inert(payload: str) -> None:
    html, _ = sanitize_html(payload, "https://example.org/", page=POST)
    assert_inert(html)
