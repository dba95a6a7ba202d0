"""Malformed and non-feed XML: when a document still counts as a feed.

feedparser reads broken XML leniently and reports the breakage only as a "bozo"
flag. What it recovers from a slightly broken feed is kept (with a warning); a
document it recovers nothing from is refused with the parser's reason, so that
neither subscribing nor a fetch passes it off as an empty feed ("ok, 0 items").
"""

from __future__ import annotations

import pytest

from smartreader.errors import ParseError
from smartreader.net.discover import looks_like_feed, looks_like_page
from smartreader.net.parse import parse_feed
from tests.shared import CORPUS

URL = "https://example.org/feed.xml"
NOW = 1_795_000_000.0
XML = '<?xml version="1.0"?>'
ITEM = "<item><guid>g1</guid><title>One</title><link>/1</link></item>"


def parse(doc: str | bytes, content_type: str | None = "application/rss+xml"):
    body = doc.encode() if isinstance(doc, str) else doc
    return parse_feed(body, url=URL, content_type=content_type, now=NOW)


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        # the audit's documents: cut off inside the first item, or inside the channel
        (f"{XML}<rss><channel><title>T</title><item><title>x", "line 1: no element found"),
        ("<rss><channel><title>Broken<item><title>x</titl", "unclosed token"),
        (
            f'{XML}<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><entry><title>e',
            "cut off",
        ),
        (f'{XML}<rss version="2.0"><chan', "unclosed token"),
    ],
)
def test_a_cut_off_document_with_no_whole_item_is_not_a_feed(doc: str, reason: str) -> None:
    with pytest.raises(ParseError, match=r"^not a feed: XML parse error at line") as e:
        parse(doc)
    assert reason in str(e.value)
    assert "no item could be read" in str(e.value)


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        (f"{XML}<garbage/>", "root is <garbage>, not RSS, Atom or RDF"),
        (f"{XML}<catalog><book><title>A</title></book></catalog>", "root is <catalog>"),
        (f'{XML}<opml version="2.0"><body/></opml>', "OPML subscription list"),
    ],
)
def test_well_formed_xml_that_is_no_feed_says_what_it_is(doc: str, reason: str) -> None:
    for content_type in ("application/rss+xml", "text/xml", None):
        with pytest.raises(ParseError, match=r"^not a feed: ") as e:
            parse(doc, content_type)
        assert reason in str(e.value)


def test_the_error_points_at_the_line_and_column_of_the_document_as_served() -> None:
    # feedparser hands expat a copy with an XML declaration of its own: added on
    # a line before an undeclared document, or replacing the document's own one.
    undeclared = '<rss version="2.0">\n<channel><title>T</title>\n<item><title>a &bogus;'
    end = "</title></item></channel></rss>"
    assert parse(undeclared + end).warnings[0].endswith("at line 3, column 15: undefined entity")
    with pytest.raises(ParseError, match=r"at line 1, column 41: unclosed token"):
        parse("<rss><channel><title>Broken<item><title>x</titl")
    declared = f"{XML}\n{undeclared}{end}"
    assert parse(declared).warnings[0].endswith("at line 4, column 15: undefined entity")
    # line 1 of a declared document is feedparser's declaration: no column
    with pytest.raises(ParseError, match=r"at line 1: no element found"):
        parse(f"{XML}<rss><channel><title>T</title><item>")


def test_binary_junk_and_html_keep_their_errors() -> None:
    with pytest.raises(ParseError, match="not a feed: XML parse error at line"):
        parse(bytes(range(256)) * 10)
    with pytest.raises(ParseError, match="web page"):
        parse("<html><body>hello</body></html>", "text/html")


def test_a_valid_feed_with_no_items_is_fine() -> None:
    for doc in (f'{XML}<rss version="2.0"><channel><title>E</title></channel></rss>', "<rss/>"):
        feed = parse(doc)
        assert feed.entries == () and feed.warnings == ()


def test_a_slightly_broken_feed_keeps_its_items_with_a_warning() -> None:
    doc = f'{XML}<rss version="2.0"><channel><title>T &nbsp; U</title>{ITEM}</channel></rss>'
    feed = parse(doc)
    assert [e.uid for e in feed.entries] == ["g1"]
    (warning,) = feed.warnings
    assert warning == "malformed feed, read leniently: XML parse error at line 1: undefined entity"


def test_whitespace_before_the_declaration_with_no_items_is_still_an_empty_feed() -> None:
    # PHP sites often print a newline first; the document is otherwise whole.
    feed = parse(f'\n\n{XML}<rss version="2.0"><channel><title>Quiet</title></channel></rss>')
    assert feed.title == "Quiet" and feed.entries == ()
    assert feed.warnings and "not at start" in feed.warnings[0]


def test_a_cut_off_document_keeps_its_whole_items_and_drops_the_partial_one() -> None:
    doc = (
        f'{XML}<rss version="2.0"><channel><title>T</title>{ITEM}'
        "<item><title>Two</title><link>/2</link><description>half a sent"
    )
    feed = parse(doc)
    # The partial item has no guid yet: kept, it would come back as a second
    # article once the whole document is served again.
    assert [e.uid for e in feed.entries] == ["g1"]
    assert any("1 incomplete item(s) left out" in w for w in feed.warnings)


def test_a_broken_but_whole_document_with_nothing_in_it_is_not_a_feed() -> None:
    doc = f'{XML}<rss version="2.0"><channel><itunes:subtitle>x</itunes:subtitle></channel></rss>'
    with pytest.raises(ParseError, match="unbound prefix; no item could be read"):
        parse(doc)


def test_looks_like_page_tells_web_pages_from_other_documents() -> None:
    assert looks_like_page(b"<!DOCTYPE html><html><body>x</body></html>", None)
    assert looks_like_page(b"anything", "text/html; charset=utf-8")
    assert not looks_like_page(f"{XML}<garbage/>".encode(), "text/xml")
    # Its Content-Type still makes this look like a feed: parsing decides.
    assert looks_like_feed(f"{XML}<garbage/>".encode(), "application/rss+xml")


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"feeds corpus not found at {CORPUS}")
def test_a_real_feed_cut_off_by_its_server_is_an_error() -> None:
    # Reuters, 2020: the server died while rendering the items (an HTML comment
    # says so) after sending the channel. Before, this read as "ok, 0 items".
    body = (CORPUS / "feed-rs/files/rss2/rss_2.0_invalid_1.xml").read_bytes()
    with pytest.raises(ParseError, match=r"no element found \(the document is cut off\)"):
        parse_feed(body, url=URL, content_type="application/xml", now=NOW)
