"""Parsing: identity, URLs, dates, hints, hostile documents."""

from __future__ import annotations

import time

import pytest

from smartreader.errors import ParseError
from smartreader.net.parse import MAX_ENTRIES, cap_note, is_cap_note, parse_feed

URL = "https://example.org/blog/feed.xml"
NOW = 1_795_000_000.0  # 2026-11-18


def rss(items: str, channel: str = "", head: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="utf-8"?>{head}<rss version="2.0" '
        'xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel>'
        f"<title>Blog</title><link>/</link>{channel}{items}</channel></rss>"
    ).encode()


def test_identity_prefers_guid_then_link_then_content_hash_never_dates() -> None:
    doc = rss(
        "<item><guid>tag:example.org,2026:1</guid><link>/a</link><title>A</title></item>"
        "<item><link>/b</link><title>B</title></item>"
        "<item><title>C</title><description>body</description>"
        "<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>"
    )
    a, b, c = parse_feed(doc, url=URL, now=NOW).entries
    assert a.uid == "tag:example.org,2026:1"  # a guid is kept verbatim, never resolved
    assert b.uid == "/b"  # the link as written: stable if the feed moves
    assert b.link == "https://example.org/b"
    assert c.uid.startswith("sha256:")
    # Same item, new date: same identity.
    doc2 = doc.replace(b"Mon, 02 Nov 2026 10:00:00", b"Tue, 03 Nov 2026 11:00:00")
    assert parse_feed(doc2, url=URL, now=NOW).entries[2].uid == c.uid


def test_relative_urls_resolve_against_xml_base_and_feed_url() -> None:
    atom = b"""<feed xmlns="http://www.w3.org/2005/Atom" xml:base="/news/">
      <title>N</title><link href="./"/>
      <entry><id>1</id><link href="p1"/><content type="html">&lt;img src="i.png"&gt;</content>
      </entry></feed>"""
    feed = parse_feed(atom, url=URL, now=NOW)
    assert feed.link == "https://example.org/news/"
    (e,) = feed.entries
    assert e.link == "https://example.org/news/p1"
    assert 'src="https://example.org/news/i.png"' in e.content


def test_titles_are_plain_text_and_dates_plausible() -> None:
    doc = rss(
        "<item><guid>1</guid><title>Fish &amp;amp; &lt;i&gt;chips&lt;/i&gt;</title>"
        "<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>"
        "<item><guid>2</guid><title>future</title><pubDate>Fri, 01 Jan 2100 00:00:00 GMT"
        "</pubDate></item>"
        "<item><guid>3</guid><title>ancient</title><pubDate>Thu, 01 Jan 1970 00:00:00 GMT"
        "</pubDate></item>"
    )
    a, b, c = parse_feed(doc, url=URL, now=NOW).entries
    assert a.title == "Fish & chips"
    assert a.published == 1_793_613_600.0
    assert b.published is None and c.published is None


def test_server_hints_from_the_document() -> None:
    doc = rss(
        "",
        channel="<ttl>90</ttl><sy:updatePeriod>hourly</sy:updatePeriod>"
        "<sy:updateFrequency>4</sy:updateFrequency>"
        "<skipHours><hour>0</hour><hour>1</hour><hour>24</hour></skipHours>"
        "<skipDays><day>Saturday</day><day>Sunday</day><day>Caturday</day></skipDays>",
    )
    feed = parse_feed(doc, url=URL, now=NOW)
    assert feed.ttl_seconds == 5400
    assert feed.update_period_seconds == 900
    assert feed.skip_hours == {0, 1}
    assert feed.skip_days == {5, 6}


def test_enclosures_are_resolved_and_filtered() -> None:
    doc = rss(
        '<item><guid>1</guid><enclosure url="/ep1.mp3" type="audio/mpeg" length="123"/>'
        '<enclosure url="file:///x" type="audio/mpeg" length="oops"/></item>'
    )
    (e,) = parse_feed(doc, url=URL, now=NOW).entries
    assert [(x.url, x.type, x.length) for x in e.enclosures] == [
        ("https://example.org/ep1.mp3", "audio/mpeg", 123)
    ]


def test_json_feed() -> None:
    doc = b"""{"version": "https://jsonfeed.org/version/1.1", "title": "J",
      "home_page_url": "https://j.example/",
      "items": [{"id": 7, "url": "/p/7", "title": "Seven",
                 "content_html": "<p onclick=x>hi <script>x()</script></p>",
                 "date_published": "2026-11-01T10:00:00Z",
                 "attachments": [{"url": "/a.mp3", "mime_type": "audio/mpeg"}]},
                "not an object"]}"""
    feed = parse_feed(doc, url="https://j.example/feed.json", content_type="application/feed+json")
    (e,) = feed.entries
    assert (feed.title, e.uid, e.title) == ("J", "7", "Seven")
    assert e.link == "https://j.example/p/7"
    assert e.content == "<p>hi </p>"
    assert e.enclosures[0].url == "https://j.example/a.mp3"
    assert e.published == 1_793_527_200.0
    assert any("not an object" in w for w in feed.warnings)


@pytest.mark.parametrize(
    "body",
    [
        b"<html><head><title>x</title></head><body>a page</body></html>",
        b"",
        b"\x00\x01\x02 binary junk \xff\xfe",
        b'{"not": "a feed"}',
        b"{ broken json",
    ],
)
def test_not_a_feed_is_a_clear_error(body: bytes) -> None:
    with pytest.raises(ParseError):
        parse_feed(body, url=URL, now=NOW)


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE rss [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]><rss version="2.0"><channel><title>&lol9;</title></channel></rss>"""
QUADRATIC = (
    b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "'
    + b"x" * 50_000
    + b'">]><rss version="2.0"><channel><title>'
    + b"&a;" * 50_000
    + b"</title></channel></rss>"
)
EXTERNAL = (
    b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b'<rss version="2.0"><channel><title>&x;</title></channel></rss>'
)


@pytest.mark.parametrize(
    "body", [BILLION_LAUGHS, QUADRATIC, EXTERNAL], ids=["laughs", "quad", "ext"]
)
def test_entity_bombs_are_refused(body: bytes) -> None:
    with pytest.raises(ParseError, match="entities"):
        parse_feed(body, url=URL, now=NOW)


def test_harmless_entity_declarations_still_parse() -> None:
    doc = rss(
        "<item><guid>1</guid><title>a&nbsp;b</title></item>",
        head='<!DOCTYPE rss [<!ENTITY nbsp "&#160;">]>',
    )
    (e,) = parse_feed(doc, url=URL, now=NOW).entries
    assert e.title == "a b"


def test_invalid_encoding_gives_a_valid_record() -> None:
    # Latin-1 and stray bytes in a document that declares UTF-8.
    doc = rss("<item><guid>1</guid><title>café</title></item>").replace(
        "é".encode(), b"\xe9 \xff\xfe"
    )
    feed = parse_feed(doc, url=URL, now=NOW)
    (e,) = feed.entries
    assert e.title.startswith("caf")
    e.title.encode("utf-8")  # storable


def test_huge_fields_are_truncated_and_marked() -> None:
    big = "&lt;p&gt;" + "word " * 300_000
    doc = rss(
        f"<item><guid>1</guid><title>{'T' * 100_000}</title><description>{big}</description></item>"
    )
    feed = parse_feed(doc, url=URL, now=NOW)
    (e,) = feed.entries
    assert len(e.title) == 1000
    assert e.content.endswith("[content truncated]</em></p>")
    assert any("cut to a safe size" in w for w in feed.warnings)


def test_too_many_entries_are_capped() -> None:
    items = "".join(f"<item><guid>{i}</guid></item>" for i in range(MAX_ENTRIES + 10))
    feed = parse_feed(rss(items), url=URL, now=NOW)
    assert len(feed.entries) == MAX_ENTRIES
    assert feed.warnings == (cap_note(MAX_ENTRIES + 10),)
    assert is_cap_note(feed.warnings[0]) and not is_cap_note("malformed feed, read leniently")


def test_items_sharing_a_guid_stay_distinct_and_stable_exact_copies_go() -> None:
    doc = rss(
        "<item><guid>x</guid><title>one</title><link>/1</link></item>"
        "<item><guid>x</guid><title>two</title><link>/2</link></item>"
        "<item><guid>x</guid><title>two</title><link>/2</link></item>"
        "<item><guid>y</guid><title>three</title></item>"
    )
    first = parse_feed(doc, url=URL, now=NOW).entries
    assert [e.title for e in first] == ["one", "two", "three"]
    assert len({e.uid for e in first}) == 3 and first[2].uid == "y"
    # A later fetch with one more item that reuses the guid: old ids unchanged.
    doc2 = doc.replace(b"<item>", b"<item><guid>x</guid><title>zero</title></item><item>", 1)
    again = {e.title: e.uid for e in parse_feed(doc2, url=URL, now=NOW).entries}
    assert all(again[e.title] == e.uid for e in first)


def test_malformed_xml_is_read_leniently_with_a_warning() -> None:
    doc = rss("<item><guid>1</guid><title>unclosed &amp; <b>bold</title></item>")
    feed = parse_feed(doc, url=URL, now=NOW)
    assert len(feed.entries) == 1
    assert feed.warnings


def test_future_dates_are_judged_against_the_wall_clock_by_default() -> None:
    doc = rss("<item><guid>1</guid><pubDate>Fri, 01 Jan 2100 00:00:00 GMT</pubDate></item>")
    assert parse_feed(doc, url=URL).entries[0].published is None
    assert time.time() < 4_102_444_800  # 2100-01-01


def test_json_feed_titles_with_character_references_read_as_text() -> None:
    """WordPress writes "Blog &#8211; InfluxData" in JSON Feed's plain-text title
    (as in the corpus' jsonfeed_elastic_1.1.json, pxlnv.json): it showed raw in
    the list and went out so in an OPML export."""
    import json

    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Blog &#8211; InfluxData",
        "items": [
            {"id": "1", "title": "FCC &#8216;Jokes&#8217; &amp; more", "content_text": "x",
             "authors": [{"name": "Ann &amp; Bo"}]},
            {"id": "2", "title": "AT&T, Q&A &copy and &nosuch; stay", "content_text": "y"},
        ],
    }  # fmt: skip
    feed = parse_feed(json.dumps(doc).encode(), url="https://x.example/feed.json", now=2e9)
    assert feed.title == "Blog – InfluxData"
    first, second = feed.entries
    assert first.title == "FCC ‘Jokes’ & more" and first.author == "Ann & Bo"
    assert second.title == "AT&T, Q&A &copy and &nosuch; stay"


def _script(text: str) -> set[str]:
    import unicodedata

    return {unicodedata.name(c, "?").split()[0] for c in text if ord(c) > 127}


@pytest.mark.parametrize(
    ("name", "script"),
    [("euckr.xml", "HANGUL"), ("eucjp.xml", "KATAKANA"), ("gb2312.xml", "CJK"),
     ("koi8r.xml", "CYRILLIC"), ("shiftjis.xml", "HIRAGANA")],
)  # fmt: skip
def test_a_feed_that_names_no_encoding_is_read_in_its_own(name: str, script: str) -> None:
    """feedparser's corpus: EUC-KR, KOI8-R… with no encoding named anywhere read as
    windows-1252 ("EUC-KR ¿¡¼\\xad TypeKey"): chardet was not installed."""
    from tests.shared import CORPUS

    path = CORPUS / "feedparser/files/illformed/chardet" / name
    if not path.exists():
        pytest.skip(f"feeds corpus not found at {CORPUS}")
    for ct in (None, "text/xml", "application/rss+xml"):
        feed = parse_feed(path.read_bytes(), url="https://x.example/feed", content_type=ct, now=2e9)
        assert script in _script(feed.entries[0].title), (ct, feed.entries[0].title)


def test_an_undeclared_utf8_feed_served_as_text_xml_is_utf8(monkeypatch) -> None:
    """text/xml without a charset is US-ASCII by RFC 3023: the UTF-8 such feeds
    are is said for them, so chardet does not read the whole body to find it
    (0.3 s for 290 KB); one that is not UTF-8 is still left to chardet."""
    import feedparser.encodings

    asked: list[int] = []
    detect = feedparser.encodings.lazy_chardet_encoding
    monkeypatch.setattr(
        feedparser.encodings, "lazy_chardet_encoding", lambda d: asked.append(len(d)) or detect(d)
    )
    body = (
        "<rss version='2.0'><channel><title>Tëst</title>"
        "<item><guid>1</guid><title>Grüße aus Köln</title></item></channel></rss>"
    )
    feed = parse_feed(body.encode(), url="https://x.example/f", content_type="text/xml", now=2e9)
    assert feed.entries[0].title == "Grüße aus Köln" and asked == []
    latin = body.encode("latin-1")  # not UTF-8, nothing declared: detected
    feed = parse_feed(latin, url="https://x.example/f", content_type="text/xml", now=2e9)
    assert feed.title == "Tëst" and len(asked) == 1
