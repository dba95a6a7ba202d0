"""Embedded frames: never kept, but an http(s) one leaves an ordinary link to its
address where it stood; anything else about it is dropped as before."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from smartreader.net.parse import parse_feed
from smartreader.net.sanitize import EMBED_LABEL, sanitize_html
from tests.net.inert import assert_inert

BASE = "https://example.org/blog/feed.xml"
LINK = '<a href="{href}" rel="noopener noreferrer nofollow">{label}</a>'


class _Links(HTMLParser):
    """The links in a fragment: (href, text); and every tag seen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self.tags: list[str] = []
        self._href: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "a":
            self._href, self._text = dict(attrs).get("href") or "", ""

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, self._text))
            self._href = None


def _links(html: str) -> _Links:
    p = _Links()
    p.feed(html)
    p.close()
    return p


def test_an_http_embed_becomes_a_link_paragraph_where_it_stood() -> None:
    """Audit: "Video:" followed by nothing, the YouTube embed gone without a trace."""
    src = "https://www.youtube.com/embed/dQw4w9WgXcQ?start=10&amp;rel=0"
    out, _ = sanitize_html(
        f'<p>Video:</p><iframe src="{src}" width="800" height="450" allowfullscreen '
        'onload="alert(1)" id="v"><p>Your browser cannot show frames.</p></iframe><p>After.</p>',
        BASE,
    )
    label = "www.youtube.com/embed/dQw4w9WgXcQ"
    href = src  # as written in HTML: "&" escaped
    assert out == (
        f"<p>Video:</p><p>{EMBED_LABEL} {LINK.format(href=href, label=label)}</p><p>After.</p>"
    )
    assert_inert(out)


@pytest.mark.parametrize(
    ("src", "href"),
    [
        ("//player.vimeo.com/video/1", "https://player.vimeo.com/video/1"),  # the feed's scheme
        ("/embed/2", "https://example.org/embed/2"),  # relative: against the base
        ("HTTP://Example.NET/v", "HTTP://Example.NET/v"),
    ],
)
def test_embed_addresses_are_resolved_like_any_link(src: str, href: str) -> None:
    out, _ = sanitize_html(f'<iframe src="{src}"></iframe>', BASE)
    ((got, _label),) = _links(out).links
    assert got == href


@pytest.mark.parametrize(
    "iframe",
    [
        '<iframe src="javascript:alert(1)">fallback</iframe>',
        '<iframe src="JaVaScRiPt:alert(1)"></iframe>',
        '<iframe src="java&#x09;script:alert(1)"></iframe>',
        '<iframe src="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
        '<iframe src="file:///etc/passwd"></iframe>',
        '<iframe src="mailto:a@example.org"></iframe>',
        '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
        "<iframe></iframe>",
        "<iframe src></iframe>",
        '<iframe src="http:///nohost"></iframe>',
    ],
)
def test_an_embed_without_a_web_address_is_dropped_with_its_content(iframe: str) -> None:
    out, _ = sanitize_html(f"<p>a</p>{iframe}<p>b</p>", BASE)
    assert out == "<p>a</p><p>b</p>"


@pytest.mark.parametrize(
    "src",
    [
        'https://x.example/a"onmouseover="alert(1)',
        "https://x.example/a'><script>alert(1)</script>",
        'https://x.example/"><img src=x onerror=alert(1)>',
        "https://x.example/</iframe><script>alert(1)</script>",
        "https://x.example/&lt;b&gt;bold&lt;/b&gt;&quot;",
    ],
)
@pytest.mark.parametrize("quote", ['"', "'"])
def test_quotes_and_markup_in_an_embed_address_stay_inside_the_link(src: str, quote: str) -> None:
    """The address is an attribute value of ours now: escaped, never markup."""
    if quote in src:
        src = src.replace(quote, "&quot;" if quote == '"' else "&#39;")
    out, _ = sanitize_html(f"<p>x</p><iframe src={quote}{src}{quote}></iframe><p>y</p>", BASE)
    assert_inert(out)
    parsed = _links(out)
    assert parsed.tags == ["p", "p", "a", "p"]  # no element came out of the address
    ((href, label),) = parsed.links
    assert href.startswith("https://x.example/")
    assert label.startswith("x.example/")


def test_an_embed_label_shows_the_real_host_and_is_kept_short() -> None:
    out, _ = sanitize_html(
        '<iframe src="https://www.youtube.com@evil.example:8443/' + "p" * 200 + '"></iframe>',
        BASE,
    )
    ((href, label),) = _links(out).links
    assert href.startswith("https://www.youtube.com@evil.example:8443/")  # as any link
    assert label.startswith("evil.example:8443/ppp") and label.endswith("…")
    assert len(label) <= 80


def test_an_embed_in_a_paragraph_or_nested_leaves_its_link_there() -> None:
    out, _ = sanitize_html(
        '<p>Watch: <iframe src="https://v.example/1"></iframe> now.</p>'
        '<div><figure><iframe src="https://v.example/2"></iframe></figure></div>',
        BASE,
    )
    assert [h for h, _ in _links(out).links] == ["https://v.example/1", "https://v.example/2"]
    assert "Watch:" in out and "now." in out and "iframe" not in out


def test_an_embed_in_a_feed_item_leaves_its_link() -> None:
    rss = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
    <item><title>Post</title><link>https://example.org/post</link>
    <description><![CDATA[<p>Video:</p><iframe src="https://www.youtube.com/embed/x"></iframe>
    <iframe src="javascript:alert(1)"></iframe>]]></description></item></channel></rss>"""
    (entry,) = parse_feed(rss, url=BASE).entries
    content = entry.content or entry.summary
    assert_inert(content)
    assert _links(content).links == [("https://www.youtube.com/embed/x", "www.youtube.com/embed/x")]
    assert EMBED_LABEL in content and "javascript" not in content
