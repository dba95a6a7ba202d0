"""Article-content audit: plain text labelled HTML, lazy images, inline media,
guids that are not URLs, bidi overrides in titles."""

from __future__ import annotations

import re
import time

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.net.parse import parse_feed
from smartreader.net.sanitize import line_breaks, plain_text, sanitize_html
from tests.net.inert import assert_inert

URL = "https://feeds.example.net/feed.xml"
BASE = "https://example.org/blog/post.html"
NOW = 1_795_000_000.0


def rss(items: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0" '
        'xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Blog</title>'
        f"<link>https://feeds.example.net/</link>{items}</channel></rss>"
    ).encode()


def entry(items: str) -> ParsedEntry:
    return parse_feed(rss(items), url=URL, now=NOW).entries[0]


def imgs(markup: str) -> list[str]:
    return re.findall(r'<img\b[^>]*\bsrc="([^"]*)"', markup)


# -- 1. plain text in HTML-typed fields -----------------------------------------


def test_plain_text_description_keeps_its_paragraphs_and_lines() -> None:
    """Audit (rsparser/phpxml.rss): an RSS description typed text/html by
    feedparser, lines and blank lines its only structure, showed as one block."""
    e = entry(
        "<item><guid>1</guid><title>t</title><description>"
        '&lt;img src="https://x.org/a.jpg" alt=""&gt;Line one\nLine two\n\n'
        'Para &lt;a href="https://x.org/"&gt;two&lt;/a&gt;, AT&amp;amp;T\n'
        "</description></item>"
    )
    assert e.content == (
        '<p><img src="https://x.org/a.jpg" alt="">Line one<br>Line two</p>'
        '<p>Para <a href="https://x.org/" rel="noopener noreferrer nofollow">two</a>, '
        "AT&amp;T</p>"
    )
    assert e.summary == e.content


def test_youtube_media_description_keeps_its_lines() -> None:
    """Audit (rss-parser-npm atom-customfields.atom): YouTube's media:description."""
    doc = (
        b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" '
        b'xmlns:media="http://search.yahoo.com/mrss/"><title>YT</title><id>y</id>'
        b"<entry><id>yt:video:1</id><title>V</title>"
        b'<link rel="alternate" href="https://www.youtube.com/watch?v=1"/>'
        b"<media:group><media:title>V</media:title>"
        b"<media:description>Intro line.\n\n(0:18) First source\n(0:24) Second"
        b"</media:description></media:group></entry></feed>"
    )
    e = parse_feed(doc, url=URL, now=NOW).entries[0]
    assert e.content == "<p>Intro line.</p><p>(0:18) First source<br>(0:24) Second</p>"


@pytest.mark.parametrize(
    "markup",
    [
        "<p>One\ntwo</p>\n<p>Three</p>",  # blocks of its own
        "Line one<br>\nLine two",  # breaks of its own
        "<pre>code\n\nmore</pre>",
        "Just one line, no newline",
        # An XML file's indentation, not the author's lines (feed-rs rss_0.92_spec)
        'Kevin started a <a href="https://x.org/">Grateful\n            Dead Weblog</a>.\n'
        "            Cool.",
    ],
)
def test_markup_with_its_own_structure_is_unchanged(markup: str) -> None:
    cleaned, _ = sanitize_html(markup, BASE)
    assert line_breaks(cleaned) == cleaned


def test_a_paragraph_never_splits_an_inline_element() -> None:
    out = line_breaks(sanitize_html("a <b>bold\n\nstill</b>\n\nnext", BASE)[0])
    assert out == "<p>a <b>bold<br><br>still</b></p><p>next</p>"


def test_newlines_inside_attribute_values_are_not_breaks() -> None:
    out = line_breaks(sanitize_html('<img src="https://x.org/a.png" alt="a\n\nb">x\ny', BASE)[0])
    assert out == '<p><img src="https://x.org/a.png" alt="a\n\nb">x<br>y</p>'


def test_identity_of_an_item_without_guid_or_link_does_not_move() -> None:
    """The content hash that identifies such an item is taken before the breaks:
    it must not come back as a new item because it is shown better."""
    e = entry("<item><title>t</title><description>a\nb</description></item>")
    assert e.content == "<p>a<br>b</p>"
    from smartreader.net.parse import _content_hash

    assert e.uid == _content_hash("t", "a\nb")


# -- 2. lazily loaded images ------------------------------------------------------


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ('<img data-src="/i/a.png" alt="lazy">', ["https://example.org/i/a.png"]),
        (
            '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="i/b.png">',
            ["https://example.org/blog/i/b.png"],
        ),
        (
            '<img src="/img/placeholder.gif" data-original="/i/o.png">',
            ["https://example.org/i/o.png"],
        ),
        (
            '<img src="/img/lazy_load.png" data-lazy-src="/i/l.png">',
            ["https://example.org/i/l.png"],
        ),
        ('<img srcset="/i/c.png 1x, /i/c2.png 2x">', ["https://example.org/i/c.png"]),
        (
            '<img srcset="/cdn/w_400,h_200/s.png 400w, /i/m.png 1200w, /i/l.png 2400w">',
            ["https://example.org/i/m.png"],
        ),
        (
            '<img srcset="/i/huge.png 3000w, /i/huger.png 4000w">',
            ["https://example.org/i/huge.png"],
        ),
        # A real src stays, whatever the lazy attributes say.
        ('<img src="/i/real.png" data-src="/i/other.png">', ["https://example.org/i/real.png"]),
    ],
)
def test_lazy_images_get_their_real_address(markup: str, expected: list[str]) -> None:
    out, _ = sanitize_html(f"<p>before</p>{markup}<p>after</p>", BASE)
    assert imgs(out) == expected
    for attr in ("data-src", "data-lazy-src", "data-original", "srcset"):
        assert attr not in out


def test_cloudinary_commas_stay_part_of_the_address() -> None:
    out, _ = sanitize_html('<img srcset="https://c.org/w_400,h_200/s.png 400w">', BASE)
    assert imgs(out) == ["https://c.org/w_400,h_200/s.png"]


def test_a_noscript_image_stands_in_for_its_placeholder_once() -> None:
    out, _ = sanitize_html(
        '<img src="/placeholder.gif" alt="Chart"><noscript><img src="/i/g.png" '
        'onerror="alert(1)"></noscript><p>end</p>',
        BASE,
    )
    assert out == '<img src="https://example.org/i/g.png" alt="Chart"><p>end</p>'


def test_a_lazy_image_and_its_noscript_copy_show_once() -> None:
    out, _ = sanitize_html(
        '<img src="/placeholder.gif" data-lazy-src="/i/g.png"><noscript><img src="/i/g.png">'
        "</noscript>",
        BASE,
    )
    assert imgs(out) == ["https://example.org/i/g.png"]


@pytest.mark.parametrize(
    "markup",
    [
        '<img src="/i/real.png"><noscript><img src="/i/real.png"></noscript>',  # not lazy
        "<p>x</p><noscript><img src='/i/n.png'></noscript>",  # no image before it
        '<img data-src="/i/a.png"><noscript><p>Enable JS</p><img src="/i/b.png"></noscript>',
    ],
)
def test_other_noscripts_go_with_their_content(markup: str) -> None:
    out, _ = sanitize_html(markup, BASE)
    assert "noscript" not in out and "Enable JS" not in out
    assert len(imgs(out)) <= 1


@pytest.mark.parametrize(
    "markup",
    [
        '<img data-src="javascript:alert(1)">',
        '<img src="data:image/gif;base64,R0lG" '
        'data-src="data:text/html,<script>alert(1)</script>">',
        '<img data-lazy-src="java\tscript:alert(1)" data-original="file:///etc/passwd">',
        '<img srcset="javascript:alert(1) 1x, data:text/html;base64,PHNjcmlwdD4= 2x">',
        '<img srcset="data:text/html,x 100w">',
        '<img src="/placeholder.gif"><noscript><img src="javascript:alert(1)"></noscript>',
        '<img src="/placeholder.gif"><noscript><img src=x onerror=alert(1)></noscript>',
        '<img src="/placeholder.gif"><noscript><script>alert(1)</script></noscript>',
        "<img data-src='/a.png'><noscript></noscript><script>alert(1)</script>",
        '<p title="<noscript><img src=x onerror=alert(1)></noscript>">t</p>',
        '<iframe src="https://x.org/"><noscript><img src=x onerror=alert(1)></noscript></iframe>',
        '<noscript><iframe src="https://a.org/"></noscript><p>t</p><iframe src="https://b.org/">'
        "</iframe>",
    ],
)
def test_hostile_lazy_sources_never_become_a_src(markup: str) -> None:
    out, _ = sanitize_html(markup, BASE)
    assert_inert(out)
    for src in imgs(out):
        assert src.startswith(("https://", "http://")), out
    text = re.sub(r'<(?:[^>"]|"[^"]*")*>', "", out)  # attribute values are not shown
    assert "alert" not in text, out


# -- 3. inline video and audio ------------------------------------------------------


def test_video_and_audio_become_links_with_the_poster() -> None:
    out, _ = sanitize_html(
        '<p>Watch</p><video src="/media/clip.mp4" poster="/i/poster.png" controls></video>'
        '<audio src="/media/a.mp3" controls>Your browser does not support audio</audio>',
        BASE,
    )
    rel = 'rel="noopener noreferrer nofollow"'
    assert out == (
        "<p>Watch</p>"
        '<p><img src="https://example.org/i/poster.png" alt="Video:"></p>'
        f'<p>Video: <a href="https://example.org/media/clip.mp4" {rel}>'
        "example.org/media/clip.mp4</a></p>"
        f'<p>Audio: <a href="https://example.org/media/a.mp3" {rel}>example.org/media/a.mp3</a></p>'
    )


def test_media_address_from_the_first_web_source_and_no_fallback_text() -> None:
    out, _ = sanitize_html(
        '<video controls><source src="javascript:alert(1)"><source src="/v.webm" '
        'type="video/webm">Your browser <a href="/v.webm">download</a></video>'
        "<audio>No audio for you</audio><p>end</p>",
        BASE,
    )
    assert out == (
        '<p>Video: <a href="https://example.org/v.webm" rel="noopener noreferrer nofollow">'
        "example.org/v.webm</a></p><p>end</p>"
    )
    assert_inert(out)


# -- 4. guids that are not URLs -----------------------------------------------------


def test_a_guid_that_is_not_a_url_is_not_the_link() -> None:
    e = entry("<item><guid>12345</guid><title>t</title></item>")
    assert e.link is None
    assert e.uid == "12345"


@pytest.mark.parametrize(
    ("item", "link"),
    [
        ("<guid>https://x.org/p/1</guid>", "https://x.org/p/1"),
        ("<guid>12</guid><link>https://x.org/real</link>", "https://x.org/real"),
        ("<guid>/relative/path</guid>", None),
        ("<guid>javascript:alert(1)</guid>", None),
        ('<guid isPermaLink="false">https://x.org/np</guid>', None),
    ],
)
def test_a_guid_is_the_link_only_as_an_absolute_web_address(item: str, link: str | None) -> None:
    assert entry(f"<item>{item}<title>t</title></item>").link == link


# -- 5. bidi overrides in titles ----------------------------------------------------


def test_bidi_overrides_are_removed_from_titles() -> None:
    e = entry(
        "<item><guid>1</guid><title>Invoice \u202egpj.exe\u202c and \u2067more</title></item>"
    )
    assert e.title == "Invoice gpj.exe and more"
    # Marks only touch their neighbours: kept.
    assert plain_text("\u05e9\u05dc\u05d5\u05dd\u200f!") == "\u05e9\u05dc\u05d5\u05dd\u200f!"
    assert plain_text("a\u202ab\u202bc\u202dd\u2066e\u2068f\u2069") == "abcdef"


@pytest.mark.parametrize(
    ("written", "utc"),
    [
        ("Tue, 10 Mar 2026 10:00:00 CET", "2026-03-10T09:00:00"),
        ("Tue, 10 Jun 2026 10:00:00 CEST", "2026-06-10T08:00:00"),
        ("Tue, 10 Mar 2026 10:00:00 JST", "2026-03-10T01:00:00"),
        ("Tue, 10 Mar 2026 10:00:00 GMT+2", "2026-03-10T08:00:00"),
        ("Tue, 10 Mar 2026 10:00:00 UTC+2", "2026-03-10T08:00:00"),
        ("Tue, 10 Mar 2026 10:00:00 UTC-05:30", "2026-03-10T15:30:00"),
        # day and month names in other languages (feedparser dropped the date)
        ("Seg, 24 Set 2018 19:42:40 -0300", "2018-09-24T22:42:40"),  # Portuguese
        ("mer, 10 nov 2021 08:30:00 +0100", "2021-11-10T07:30:00"),  # Italian
        ("mar, 10 dic 2024 12:00:00 GMT", "2024-12-10T12:00:00"),  # Spanish
        ("mar., 10 déc. 2024 12:00:00 +0100", "2024-12-10T11:00:00"),  # French
        ("Di, 10 Mär 2026 10:00:00 CET", "2026-03-10T09:00:00"),  # German
        # no zone, read as UTC as feedparser reads "10 Mar 2026 10:00:00" (with a
        # day name, or as "Tue, 10 Mar 2026 10:00", it dropped the date)
        ("Tue, 10 Mar 2026 10:00:00", "2026-03-10T10:00:00"),
        ("Tue, 10 Mar 2026 10:00", "2026-03-10T10:00:00"),
        ("Di, 10 Mär 2026 10:00:00", "2026-03-10T10:00:00"),
        # as before
        ("10 Mar 2026 10:00:00", "2026-03-10T10:00:00"),
        ("Tue, 10 Mar 2026", "2026-03-10T00:00:00"),
        ("Tue, 10 Mar 2026 10:00:00 GMT+0200", "2026-03-10T08:00:00"),
        ("10 Mar 26 10:00:00 GMT", "2026-03-10T10:00:00"),
        ("Tue, 10 Mar 2026 10:00:00 EST", "2026-03-10T15:00:00"),
        ("Tue, 10 Mar 2026 10:00:00 GMT", "2026-03-10T10:00:00"),
        ("2026-03-10T10:00:00+01:00", "2026-03-10T09:00:00"),
    ],
)
def test_rfc822_dates_with_zone_names_or_gmt_offsets(written, utc):
    """feedparser read unknown zone names as UTC (CET an hour late: an item from
    Berlin sorted above what came after it), and dropped "GMT+2" and dates with
    day or month names in other languages."""
    body = (
        f'<rss version="2.0"><channel><title>t</title><item><guid>a</guid><title>A</title>'
        f"<pubDate>{written}</pubDate></item></channel></rss>"
    ).encode()
    doc = parse_feed(body, url="https://example.org/feed", now=1_800_000_000.0)
    got = doc.entries[0].published
    assert got is not None, written
    assert time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(got)) == utc
