"""What the content audit left over: JSON Feed's plain text in ``content_html``
(and ``content_text``) keeps its paragraphs as RSS/Atom's does; a ``<picture>``
with sources but no ``<img>`` keeps one image."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.net.parse import _content_hash, parse_feed
from smartreader.net.sanitize import sanitize_html
from tests.net.inert import assert_inert

URL = "https://feeds.example.net/feed.json"
BASE = "https://example.org/blog/post.html"
NOW = 1_795_000_000.0


def json_entry(**item: Any) -> ParsedEntry:
    doc = {"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": [item]}
    return parse_feed(json.dumps(doc).encode(), url=URL, now=NOW).entries[0]


def imgs(markup: str) -> list[str]:
    return re.findall(r'<img\b[^>]*\bsrc="([^"]*)"', markup)


# -- 1. JSON Feed: plain text in content_html, content_text --------------------------


def test_json_feed_plain_text_in_content_html_keeps_its_paragraphs_and_lines() -> None:
    """RSS/Atom HTML that is really plain text got its breaks (line_breaks); the
    same text in a JSON Feed's content_html showed as one run-on block."""
    e = json_entry(
        id="1",
        url="https://example.org/p/1",
        content_html='Line one\nLine two\n\nPara <a href="/x">two</a>, AT&amp;T\n',
    )
    assert e.content == (
        "<p>Line one<br>Line two</p>"
        '<p>Para <a href="https://example.org/x" rel="noopener noreferrer nofollow">two</a>, '
        "AT&amp;T</p>"
    )


def test_json_feed_html_with_its_own_structure_is_unchanged() -> None:
    e = json_entry(id="1", content_html="<p>One\ntwo</p>\n<p>Three</p>")
    assert e.content == "<p>One\ntwo</p>\n<p>Three</p>"


@pytest.mark.parametrize("content_html", [None, "", "  \n ", 5])
def test_json_feed_content_text_only_items_have_paragraphs(content_html: Any) -> None:
    item: dict[str, Any] = {"id": "1", "content_text": "Line one\nLine two\n\n<b>Para</b> two"}
    if content_html is not None:
        item["content_html"] = content_html
    e = json_entry(**item)
    assert e.content == "<p>Line one<br>Line two</p><p>&lt;b&gt;Para&lt;/b&gt; two</p>"


def test_json_feed_identity_of_an_item_without_id_or_link_does_not_move() -> None:
    """The content hash is taken before the breaks, as for RSS/Atom."""
    e = json_entry(title="t", content_html="a\nb")
    assert e.content == "<p>a<br>b</p>"
    assert e.uid == _content_hash("t", "a\nb")


# -- 2. a picture without an img ----------------------------------------------------


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        (
            '<picture><source srcset="/i/a.webp 800w, /i/b.webp 1200w, /i/c.webp 3000w" '
            'type="image/webp"><source srcset="/i/a.jpg"></picture>',
            ["https://example.org/i/b.webp"],
        ),
        # a type the pane does not show, and a media query, give way
        (
            '<picture><source srcset="/i/a.avif" type="image/avif">'
            '<source media="(prefers-color-scheme: dark)" srcset="/i/dark.png">'
            '<source srcset="/i/plain.png 1x, /i/plain2x.png 2x"></picture>',
            ["https://example.org/i/plain.png"],
        ),
        (
            '<picture><source srcset="/i/only.avif" type="image/avif"></picture>',
            ["https://example.org/i/only.avif"],
        ),
        ('<picture><source src="/i/s.png"></picture>', ["https://example.org/i/s.png"]),
        # an img of its own: that one, and no other
        (
            '<picture><source srcset="/i/a.webp"><img src="/i/own.jpg" alt="own"></picture>',
            ["https://example.org/i/own.jpg"],
        ),
        (
            '<picture><source srcset="/i/a.webp"><img data-src="/i/lazy.jpg"></picture>',
            ["https://example.org/i/lazy.jpg"],
        ),
    ],
)
def test_a_picture_without_an_img_keeps_one_image(markup: str, expected: list[str]) -> None:
    out, _ = sanitize_html(f"<p>before</p>{markup}<p>after</p>", BASE)
    assert imgs(out) == expected
    assert "srcset" not in out
    assert out.startswith("<p>before</p>") and out.endswith("<p>after</p>")


def test_nested_pictures_each_keep_their_own() -> None:
    out, _ = sanitize_html(
        '<picture><source srcset="/o.png"><picture><source srcset="/i.png"></picture></picture>',
        BASE,
    )
    assert imgs(out) == ["https://example.org/i.png", "https://example.org/o.png"]


@pytest.mark.parametrize(
    "markup",
    [
        '<picture><source srcset="javascript:alert(1)"></picture>',
        '<picture><source srcset="data:image/png;base64,iVBORw0KGgo= 1x"></picture>',
        '<picture><source srcset="file:///etc/passwd 100w"></picture>',
        '<picture><source srcset="vbscript:x 2x"><source src="java\tscript:alert(1)"></picture>',
        '<picture><source srcset="mailto:a@b.org"></picture>',
        '<picture><source srcset=" , ,"></picture>',
    ],
)
def test_no_image_from_a_source_that_is_not_a_web_address(markup: str) -> None:
    out, _ = sanitize_html(markup, BASE)
    assert imgs(out) == []
    assert "srcset" not in out
    assert_inert(out)


def test_a_srcset_is_never_written_out_elsewhere() -> None:
    out, _ = sanitize_html(
        '<source srcset="/a.png"><video><source srcset="/v.jpg" src="/v.mp4"></video>'
        '<audio><source srcset="/x.png"></audio>',
        BASE,
    )
    assert "srcset" not in out and imgs(out) == []
    assert 'href="https://example.org/v.mp4"' in out
