"""The fuzz harness: bytes → parse_feed → sanitise → store → (optionally) render.

Shared by ``test_fuzz.py`` (a short pass in CI) and ``scripts/fuzz.py`` (long
runs: ``--minutes N``). The property, for any input:

* ``parse_feed`` returns a ``ParsedFeed`` or raises ``ParseError``, nothing else,
  within a generous time bound;
* what it returns is storable (valid UTF-8, no NUL, no lone surrogate), inert
  HTML (``tests/net/inert.py``), links only http(s)/mailto, titles capped;
* ``Store.record_fetch`` accepts it and gives the same text back;
* the database stays ``integrity_check == ok``;
* rendering (when a renderer is given) does not raise.

Inputs are raw bytes, structured RSS/Atom/JSON documents whose fields come from
hostile text (every Unicode code point including surrogates, XSS payloads,
entity tricks, CDATA breakers), and mutations (bit flips, truncation, splicing)
of structured documents.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from smartreader.core.models import ParsedFeed
from smartreader.errors import ParseError
from smartreader.net.parse import parse_feed
from smartreader.storage.store import FetchRecord, Store
from tests.net.inert import assert_inert

URL = "https://fuzz.example/dir/feed.xml"
NOW = 1_800_000_000.0
PER_INPUT_SECONDS = 10.0  # generous: a hang or a quadratic blow-up breaks it

SNIPPETS = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "javascript:alert(1)",
    "<a href='javascript:alert(1)'>x</a>", "<svg><a xlink:href='javascript:1'>s</a></svg>",
    "<iframe srcdoc='<script>1</script>'>", "<meta http-equiv=refresh content='0;url=//e'>",
    "<base href='javascript:/'>", "<form action='javascript:1'><input type=password></form>",
    "<noscript><p title='</noscript><img src=x onerror=alert(1)>'>",
    "<img src='/dev/zero'>", "<img src='file:///etc/passwd'>", "data:text/html,<b>x</b>",
    "<style>body{background:url(//t.example/p)}</style>", "<div style='x:url(//t)'>s</div>",
    "&amp;", "&#0;", "&#xD800;", "&#x110000;", "&nbsp;", "&undefined;", "&lt;b&gt;",
    "]]>", "<![CDATA[", "<!--", "-->", "<?xml version='1.0'?>", "<!DOCTYPE x>",
    '<!ENTITY a "b">', "\x00", "\ud800", "\udfff", "\ufeff", "\ufffe", "\u202e", "\r\n",
    "<div>" * 300, "</div>" * 300, "<ul><li>" * 100, "<b>" * 600, "x" * 5000,
    "<a href='//proto.rel/x'>p</a>", "<a href=' java\tscript:1'>t</a>", "|cmd", "smb://h/x",
    "<video poster='javascript:1'></video>", "<img srcset='javascript:1 1x'>",
]  # fmt: skip

hostile_text = st.one_of(
    st.text(max_size=60),
    st.sampled_from(SNIPPETS),
    st.lists(st.sampled_from(SNIPPETS) | st.text(max_size=8), max_size=6).map("".join),
)


def _xml_text(draw: st.DrawFn) -> str:
    text = draw(hostile_text)
    how = draw(st.sampled_from(["raw", "escaped", "cdata"]))
    if how == "escaped":
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if how == "cdata":
        return "<![CDATA[" + text + "]]>"
    return text


@st.composite
def rss_doc(draw: st.DrawFn) -> bytes:
    items = []
    for _ in range(draw(st.integers(0, 4))):
        fields = []
        for tag in draw(
            st.lists(
                st.sampled_from(
                    ["title", "guid", "link", "description", "author", "pubDate", "comments"]
                ),
                max_size=6,
            )
        ):
            fields.append(f"<{tag}>{_xml_text(draw)}</{tag}>")
        if draw(st.booleans()):
            fields.append(f'<enclosure url="{draw(st.sampled_from(SNIPPETS))}" length="-1"/>')
        items.append("<item>" + "".join(fields) + "</item>")
    head = draw(st.sampled_from(["", "<!-- c -->", '<!DOCTYPE rss [<!ENTITY n "&#160;">]>']))
    doc = (
        f'<?xml version="1.0" encoding="utf-8"?>{head}<rss version="2.0"><channel>'
        f"<title>{_xml_text(draw)}</title><link>{_xml_text(draw)}</link>"
        + "".join(items)
        + "</channel></rss>"
    )
    return doc.encode("utf-8", "surrogatepass")


@st.composite
def atom_doc(draw: st.DrawFn) -> bytes:
    entries = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["html", "text", "xhtml"]))
        body = _xml_text(draw)
        if kind == "xhtml":
            body = f'<div xmlns="http://www.w3.org/1999/xhtml">{body}</div>'
        entries.append(
            f"<entry><id>{_xml_text(draw)}</id><title type='html'>{_xml_text(draw)}</title>"
            f"<link href='{draw(st.sampled_from(SNIPPETS))}'/>"
            f"<content type='{kind}' xml:base='{draw(st.sampled_from(SNIPPETS))}'>{body}</content>"
            f"<updated>{_xml_text(draw)}</updated></entry>"
        )
    doc = (
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">'
        f"<title>{_xml_text(draw)}</title>" + "".join(entries) + "</feed>"
    )
    return doc.encode("utf-8", "surrogatepass")


json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), hostile_text
)


@st.composite
def json_doc(draw: st.DrawFn) -> bytes:
    def field() -> Any:
        return draw(
            st.one_of(
                json_scalar,
                st.lists(json_scalar, max_size=3),
                st.dictionaries(st.sampled_from(["name", "url", "x"]), json_scalar, max_size=2),
            )
        )

    keys = ["id", "title", "url", "content_html", "content_text", "summary", "author",
            "authors", "attachments", "date_published", "date_modified"]  # fmt: skip
    items: list[Any] = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.integers(0, 9)) == 0:
            items.append(field())
            continue
        items.append({k: field() for k in draw(st.lists(st.sampled_from(keys), max_size=8))})
    doc: dict[str, Any] = {"version": "https://jsonfeed.org/version/1.1", "items": items}
    for k in draw(st.lists(st.sampled_from(["title", "home_page_url", "icon", "feed_url"]))):
        doc[k] = field()
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


structured = st.one_of(rss_doc(), atom_doc(), json_doc())


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(structured))
    for _ in range(draw(st.integers(1, 8))):
        if not data:
            break
        op = draw(st.sampled_from(["flip", "cut", "dup", "insert"]))
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "cut":
            del data[i : i + draw(st.integers(1, 64))]
        elif op == "dup":
            data[i:i] = data[i : i + draw(st.integers(1, 64))]
        else:
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
    return bytes(data)


any_input = st.one_of(st.binary(max_size=2048), structured, mutated())
content_types = st.sampled_from(
    [None, "application/rss+xml", "text/html", "application/json", "text/xml; charset=latin-1"]
)

Renderer = Callable[[Store, list[int]], None]


def _storable(s: str | None) -> None:
    if s is None:
        return
    s.encode("utf-8")  # raises on lone surrogates
    assert "\x00" not in s


def check_pipeline(
    body: bytes,
    content_type: str | None,
    store: Store,
    feed_id: int,
    render: Renderer | None = None,
) -> ParsedFeed | None:
    """Run one input through the whole pipeline and assert the property."""
    started = time.monotonic()
    try:
        feed = parse_feed(body, url=URL, content_type=content_type, now=NOW)
    except ParseError as e:
        assert str(e), "a ParseError must say what is wrong"
        return None
    assert time.monotonic() - started < PER_INPUT_SECONDS
    for s in (feed.title, feed.link, feed.icon, *feed.warnings):
        _storable(s)
    assert len(feed.title) <= 1000
    for e in feed.entries:
        for s in (e.uid, e.title, e.link, e.author, e.content, e.summary):
            _storable(s)
        assert e.uid
        assert len(e.title) <= 1000
        for url in (e.link, *(x.url for x in e.enclosures)):
            assert url is None or url.startswith(("http://", "https://", "mailto:")), url
        assert_inert(e.content)
        assert_inert(e.summary)
    out = store.record_fetch(
        FetchRecord(
            feed_id=feed_id,
            time=NOW,
            status="ok",
            entries=feed.entries,
            feed_title=feed.title,
            site_link=feed.link,
            icon_url=feed.icon,
        )
    )
    by_uid = {e.uid: e for e in feed.entries}
    for entry_id in out.new_entry_ids:
        stored = store.entry(entry_id)
        parsed = by_uid[stored.uid]
        assert (stored.title, stored.content, stored.link) == (
            parsed.title,
            parsed.content,
            parsed.link,
        )
    if render is not None:
        render(store, list(out.new_entry_ids))
    assert time.monotonic() - started < PER_INPUT_SECONDS
    return feed
