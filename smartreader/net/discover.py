"""Find a site's feeds: ``<link rel="alternate">`` in its HTML, then common paths.

Pure functions over bytes; the caller fetches. ``looks_like_feed`` decides whether
a response is already a feed (so a feed URL is never mistaken for a page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from smartreader.net.sanitize import plain_text, safe_url

FEED_TYPES = {
    "application/rss+xml": "RSS",
    "application/atom+xml": "Atom",
    "application/rdf+xml": "RDF",
    "application/feed+json": "JSON Feed",
    "application/json": "JSON Feed",
    "application/xml": "XML",
    "text/xml": "XML",
}
# Tried, in order, when a page links no feed; each costs one request.
COMMON_PATHS = ("/feed", "/rss", "/feed.xml", "/atom.xml", "/rss.xml", "/index.xml")
MAX_SCAN = 512 * 1024  # feeds are linked from <head>; do not parse megabytes of body
MAX_CANDIDATES = 20

_FEED_ROOT = re.compile(rb"<(rss|feed|rdf:RDF)[\s>]", re.I)
_HTML_ROOT = re.compile(rb"<(!doctype html|html)[\s>]", re.I)


@dataclass(frozen=True)
class DiscoveredFeed:
    url: str
    title: str
    kind: str  # "RSS", "Atom", "JSON Feed", ...


def looks_like_feed(body: bytes, content_type: str | None = None) -> bool:
    """True if the bytes are an RSS/Atom/RDF/JSON feed rather than a web page."""
    head = body[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    ct = (content_type or "").split(";")[0].strip().lower()
    if head[:1] == b"{":
        return b"jsonfeed.org/version" in body[:65_536]
    if _HTML_ROOT.search(head[:1024]) and not _FEED_ROOT.search(head[:1024]):
        return False
    if _FEED_ROOT.search(head):
        return True
    return ct in ("application/rss+xml", "application/atom+xml", "application/rdf+xml")


def looks_like_page(body: bytes, content_type: str | None = None) -> bool:
    """True if the bytes are a web page (HTML), where feeds are looked for by link."""
    ct = (content_type or "").split(";")[0].strip().lower()
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    return ct in ("text/html", "application/xhtml+xml") or bool(_HTML_ROOT.search(head))


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.links: list[tuple[str, str, str]] = []  # (href, title, type)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "base" and self.base is None and a.get("href"):
            self.base = a["href"]
        elif tag == "link":
            rels = a.get("rel", "").lower().split()
            kind = a.get("type", "").split(";")[0].strip().lower()
            if "alternate" in rels and kind in FEED_TYPES and a.get("href"):
                self.links.append((a["href"], a.get("title", ""), kind))
            elif "feed" in rels and a.get("href"):  # rel="feed" (HTML5 microformat)
                self.links.append((a["href"], a.get("title", ""), kind or "application/xml"))


def discover_feeds(html: bytes, base_url: str) -> list[DiscoveredFeed]:
    """Feeds linked from a page, in page order, RSS/Atom before generic XML."""
    text = html[:MAX_SCAN].decode("utf-8", "replace")
    parser = _LinkParser()
    try:
        parser.feed(text)
        parser.close()
    except (AssertionError, ValueError):  # html.parser on garbage; use what we found
        pass
    base = base_url
    if parser.base:
        base = safe_url(parser.base, base_url) or base_url
    found: list[DiscoveredFeed] = []
    seen: set[str] = set()
    for href, title, kind in parser.links:
        url = safe_url(href, base)
        if url is None or not url.startswith(("http://", "https://")) or url in seen:
            continue
        seen.add(url)
        found.append(DiscoveredFeed(url, plain_text(title), FEED_TYPES.get(kind, "XML")))
        if len(found) >= MAX_CANDIDATES:
            break
    # Comment feeds are rarely what the user meant.
    found.sort(key=lambda d: ("comment" in d.title.lower() or "comment" in d.url.lower(),
                              d.kind == "XML"))  # fmt: skip
    return found


def without_feed_scheme(url: str) -> str:
    """``feed://example.org/rss`` and ``feed:https://example.org/rss`` (what
    browsers and sites hand to a feed reader) as the web addresses they name;
    ``feed://`` is http, as it has always meant. Anything else unchanged."""
    text = url.strip()
    if text[:5].lower() != "feed:":
        return text
    rest = text[5:]
    if rest.startswith("//"):
        return "http:" + rest
    if rest[:7].lower() == "http://" or rest[:8].lower() == "https://":
        return rest
    return text


def guess_feed_urls(site_url: str) -> list[str]:
    """Conventional feed locations on the site's origin, for pages that link none."""
    parts = urlsplit(site_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return []
    origin = f"{parts.scheme}://{parts.netloc}"
    return [urljoin(origin, p) for p in COMMON_PATHS]
