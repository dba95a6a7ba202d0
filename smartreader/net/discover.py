"""Find a site's feeds: ``<link rel="alternate">`` in its HTML, then common paths.

Pure functions over bytes; the caller fetches. ``looks_like_feed`` decides whether
a response is already a feed (so a feed URL is never mistaken for a page): by the
root element of an XML document, found past its prolog (declaration, comments,
processing instructions, doctype), or by the top-level ``version`` of a JSON object.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urlsplit
from xml.parsers import expat

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
# Tried, in order, when a page links no feed; each costs one request. For a page
# below the root they are tried in the page's folder first (a blog in /blog/),
# then at the root: at most 2 x 6 requests.
COMMON_PATHS = ("/feed", "/rss", "/feed.xml", "/atom.xml", "/rss.xml", "/index.xml")
MAX_SCAN = 512 * 1024  # feeds are linked from <head>; do not parse megabytes of body
MAX_CANDIDATES = 20
# How far into a document its root element is looked for.
MAX_PROLOG = 64 * 1024
# The largest JSON parsed to read its "version" (above the fetcher's 15 MiB cap).
MAX_JSON_PARSE = 16 * 1024 * 1024

# Atom 1.0, 0.3 ("…/ns#") and the drafts' ("…/ns#draft-…"), in any case: feeds
# get it wrong, and a root <feed> in another namespace is no Atom feed
ATOM_NAMESPACE_PREFIXES = ("http://www.w3.org/2005/atom", "http://purl.org/atom/ns#")
RDF_NAMESPACE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_FEED_CONTENT_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml")

# What a document with no findable root (leading junk, a cut prolog) is judged by.
_FEED_ROOT = re.compile(rb"<(rss|feed|rdf:RDF)[\s>]", re.I)
_HTML_ROOT = re.compile(rb"<(!doctype html|html)[\s>]", re.I)


@dataclass(frozen=True)
class DiscoveredFeed:
    url: str
    title: str
    kind: str  # "RSS", "Atom", "JSON Feed", ...


def looks_like_feed(body: bytes, content_type: str | None = None) -> bool:
    head = body[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    ct = (content_type or "").split(";")[0].strip().lower()
    if head[:1] == b"{":
        return _is_json_feed(body)
    root = _root_element(body)
    if root is not None and _is_feed_root(*root):
        return True
    if root is not None and root[1].lower() == "html":
        return False
    # another root, or no well-formed start: junk before the feed (a PHP warning's
    # "<br />" reads as a root) is common, so the first bytes decide, then the type
    if _HTML_ROOT.match(head):  # an HTML page, whatever it quotes
        return False
    if _HTML_ROOT.search(head[:1024]) and not _FEED_ROOT.search(head[:1024]):
        return False
    if _FEED_ROOT.search(head):
        return True
    return ct in _FEED_CONTENT_TYPES


class _Root(Exception):
    """Raised from expat's start handler: the root element is all that is wanted."""


def _root_element(body: bytes) -> tuple[str | None, str] | None:
    """The root element's namespace (None for none) and local name, read by expat
    from the document's first MAX_PROLOG bytes: its declaration, comments,
    processing instructions and doctype (internal subset too) are skipped, in the
    encoding it declares. None when that much is no well-formed start of a
    document (junk first, an undeclared prefix, an encoding expat lacks)."""
    parser = expat.ParserCreate(namespace_separator=" ")
    found: list[str] = []

    def start(name: str, _attrs: object) -> None:
        found.append(name)
        raise _Root  # stop here: nothing past the root's start tag is read

    parser.StartElementHandler = start
    try:
        parser.Parse(body[:MAX_PROLOG], False)
    except _Root:
        pass
    except (expat.ExpatError, ValueError, LookupError):
        return None
    if not found:
        return None
    uri, _, local = found[0].rpartition(" ")
    return uri or None, local


def _is_feed_root(uri: str | None, local: str) -> bool:
    """RSS (any or no namespace), Atom (none, or Atom's: 1.0, 0.3 and drafts),
    RDF in the RDF namespace."""
    if local == "rss":
        return True
    if local == "feed":
        return uri is None or uri.lower().startswith(ATOM_NAMESPACE_PREFIXES)
    return local == "RDF" and uri == RDF_NAMESPACE


def _is_json_feed(body: bytes) -> bool:
    """Whether a JSON document is an object whose top-level ``version`` names
    jsonfeed.org, however its string is escaped (PHP writes ``https:\\/\\/``).
    Parsed whole, but only when it says "jsonfeed" and is not huge: other JSON
    costs one substring search."""
    if len(body) > MAX_JSON_PARSE or b"jsonfeed" not in body:
        return False
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        return False
    version = doc.get("version") if isinstance(doc, dict) else None
    return isinstance(version, str) and "jsonfeed.org/version" in version


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
    """Conventional feed locations for a page that links none: in the page's own
    folder first when that is not the root (a blog installed in /blog/), then at
    the root of its origin. At most 2 x len(COMMON_PATHS) addresses."""
    parts = urlsplit(site_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return []
    origin = f"{parts.scheme}://{parts.netloc}"
    folder = _folder(parts.path)
    # joined as text (not urljoin, which reads a path "//other.example/" as a host)
    prefixes = ([folder.rstrip("/")] if folder != "/" else []) + [""]
    return [origin + prefix + path for prefix in prefixes for path in COMMON_PATHS]


def _folder(path: str) -> str:
    """The folder a page's path names, ending in "/": itself if it ends so; its
    parent for a file (``/blog/index.php``: a last segment with a dot); else the
    path as a folder typed without its slash (``/blog``)."""
    if not path or path.endswith("/"):
        return path or "/"
    parent, _, last = path.rpartition("/")
    return f"{parent}/" if "." in last else f"{path}/"
