"""Turn fetched bytes into a safe :class:`~smartreader.core.models.ParsedFeed`.

feedparser reads RSS/Atom/RDF from *bytes* (never a URL: it must not do I/O of
its own); JSON Feed is read with :mod:`json`. Its HTML sanitiser and relative-URI
resolution are switched off: both are done here with nh3 and our own resolver
(:mod:`smartreader.net.sanitize`) so that there is one place that decides what is
safe. Entry identity comes from guid/id, else the link, else a content hash —
never dates, which feeds rewrite freely. Malformed XML counts as a feed only for
what feedparser recovers from it (``_recovered``); nothing recovered is a
ParseError, never an empty feed.
"""

from __future__ import annotations

import calendar
import hashlib
import html
import json
import re
import time
import xml.sax
from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urljoin, urlsplit

import feedparser
from feedparser.datetimes.rfc822 import _parse_date_rfc822
from feedparser.exceptions import ThingsNobodyCaresAboutButMe

from smartreader.core.identity import told_apart
from smartreader.core.models import Enclosure, ParsedEntry, ParsedFeed
from smartreader.errors import ParseError
from smartreader.net.sanitize import (
    line_breaks,
    plain_text,
    safe_url,
    sanitize_html,
    strip_unsafe_chars,
    text_to_html,
)

MAX_ENTRIES = 2_000  # per document; the rest is dropped with a warning


def cap_note(listed: int) -> str:
    """The warning for a document listing more than MAX_ENTRIES entries."""
    return f"the feed lists {listed} entries; only the first {MAX_ENTRIES} are read"


def is_cap_note(warning: str) -> bool:
    """Is this warning :func:`cap_note`'s? It is our limit, not a fault of the
    document: shown as a plain note, not as a problem with the feed."""
    return warning.startswith("the feed lists ") and warning.endswith(" are read")


MAX_ENCLOSURES = 20
MAX_UID_CHARS = 1_024
EARLIEST_PLAUSIBLE = 631_152_000.0  # 1990-01-01: older dates are feed bugs
FUTURE_SLACK = 2 * 86_400.0  # dates further ahead than this are treated as absent

_SECONDS = {"hourly": 3600.0, "daily": 86_400.0, "weekly": 604_800.0,
            "monthly": 2_629_800.0, "yearly": 31_557_600.0}  # fmt: skip
_DAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
         "saturday": 5, "sunday": 6}  # fmt: skip

# feedparser keeps only the last <hour>/<day>, so read these small blocks ourselves.
_SKIP_HOURS = re.compile(rb"<skipHours\b[^>]*>(.*?)</skipHours\s*>", re.S | re.I)
_SKIP_DAYS = re.compile(rb"<skipDays\b[^>]*>(.*?)</skipDays\s*>", re.S | re.I)
_HOUR = re.compile(rb"<hour\b[^>]*>\s*(\d{1,2})\s*</hour\s*>", re.I)
_DAY = re.compile(rb"<day\b[^>]*>\s*([A-Za-z]+)\s*</day\s*>", re.I)
# Internal DTD subsets are how entity bombs (billion laughs, quadratic blow-up,
# external entities) arrive. A few feeds declare harmless ones (``nbsp``), so we
# allow short literal values and refuse anything nested, parameterised or external
# before any parser sees the document.
_ROOT = re.compile(rb"<[A-Za-z]")
_ENTITY_DECL = re.compile(rb"<!ENTITY\s+(%\s*)?([^\s\"']+)\s+(\"[^\"]*\"|'[^']*'|[^>]*)\s*>", re.I)
_CHARREF = re.compile(rb"&#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6});")
MAX_ENTITY_DECLS = 64
MAX_ENTITY_VALUE = 64
_TAG_NAME = re.compile(rb"<([A-Za-z_][\w.:-]*)")
# The document's last tag, past trailing comments and whitespace: a document cut
# off in transit (or by a server error mid-page) does not end with its root's.
_LAST_END_TAG = re.compile(rb"</\s*([A-Za-z_][\w.:-]*)\s*>(?:\s|<!--.*?-->)*$", re.S)
_ITEM_END = re.compile(rb"</(?:[\w.-]+:)?(?:item|entry)\s*>", re.I)
# expat's words for a document that stops in the middle
_CUT_OFF = ("no element found", "unclosed token")
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"\xff\xfe", b"\xfe\xff")
_DECLARATIONS = tuple("<?xml".encode(e) for e in ("ascii", "utf-16-le", "utf-16-be",
                                                  "utf-32-le", "utf-32-be"))  # fmt: skip
# an entry with none of these is a remnant of broken markup, nothing to show
_SUBSTANCE = ("id", "title", "link", "summary", "content", "enclosures")


def _looks_json(body: bytes, content_type: str | None) -> bool:
    # The body decides when it can: an RSS document served as "application/json"
    # (a misconfigured server) failed every fetch as "not a valid JSON feed", though
    # discovery (looks_like_feed) took the same bytes for a feed.
    head = body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head in (b"{", b"<"):
        return head == b"{"
    return "json" in (content_type or "").lower()


_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*\bencoding\s*=""")


def _with_utf8_charset(content_type: str, body: bytes) -> str:
    """``text/xml`` (any ``text/``) without a charset means US-ASCII to feedparser
    (RFC 3023): a UTF-8 feed that declares nothing then fails it and goes to
    chardet, which reads the whole body (0.3 s for 290 KB) to say "utf-8". Said
    here when the body is UTF-8 and nothing else is declared; chardet is then
    left the feeds it is for, legacy ones that name no encoding (EUC-KR, KOI8-R:
    mojibake without it)."""
    ct = content_type.lower()
    if not ct.startswith("text/") or "charset" in ct or _XML_ENCODING.match(body[:512]):
        return content_type
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return content_type
    return f"{content_type}; charset=utf-8"


def parse_feed(
    body: bytes,
    *,
    url: str,
    content_type: str | None = None,
    now: float | None = None,
) -> ParsedFeed:
    """Parse and sanitise one feed document. Raises ParseError if it is not a feed."""
    now = time.time() if now is None else now
    if not body.strip():
        raise ParseError("the server sent an empty response instead of a feed")
    if _looks_json(body, content_type):
        return _parse_json_feed(body, url=url, now=now)
    body = _without_cut_character(body)
    _check_entities(body)
    # No content-location: feedparser would resolve guids against it as if they
    # were URLs, changing entry identity. We resolve links ourselves.
    headers: dict[str, str] = {}
    if content_type:
        headers["content-type"] = _with_utf8_charset(content_type, body)
    try:
        d = feedparser.parse(
            body,
            response_headers=headers,
            sanitize_html=False,  # nh3 does this, below
            resolve_relative_uris=False,  # so do we
        )
    except Exception as e:  # feedparser promises not to raise; be sure anyway
        raise ParseError(f"the feed could not be parsed: {e}") from e
    feed: Mapping[str, Any] = d.get("feed", {})
    raw_entries: list[Mapping[str, Any]] = list(d.get("entries", []))
    xml_error = _xml_error(d.get("bozo_exception"), body)
    if not d.get("version") and not raw_entries:
        looks_html = b"<html" in body[:4096].lower()
        raise ParseError(
            "this is a web page, not a feed"
            if looks_html
            else f"not a feed: {xml_error or _not_a_feed_root(body)}"[:300]
        )
    warnings: list[str] = []
    if xml_error is not None:
        raw_entries = _recovered(raw_entries, body, feed, xml_error, warnings)
    if len(raw_entries) > MAX_ENTRIES:
        warnings.append(cap_note(len(raw_entries)))
        raw_entries = raw_entries[:MAX_ENTRIES]

    feed_base = urljoin(url, str((feed.get("title_detail") or {}).get("base") or ""))
    feed_link = safe_url(feed.get("link"), feed_base)
    entries: list[ParsedEntry] = []
    for raw in raw_entries:
        entry, truncated = _entry(raw, url, now)
        if truncated:
            warnings.append(f"entry {entry.title[:60]!r} was cut to a safe size")
        entries.append(entry)
    entries = _distinct(entries)

    title_detail = feed.get("title_detail") or {}
    return ParsedFeed(
        title=plain_text(feed.get("title"), is_html=_is_html(title_detail)),
        link=feed_link,
        entries=tuple(entries),
        ttl_seconds=_ttl(feed.get("ttl")),
        update_period_seconds=_update_period(
            feed.get("sy_updateperiod"), feed.get("sy_updatefrequency")
        ),
        skip_hours=_skip_hours(body),
        skip_days=_skip_days(body),
        warnings=tuple(warnings),
        icon=_icon(feed, url),
    )


def _without_cut_character(body: bytes) -> bytes:
    """``body`` without the start of a UTF-8 character it stops in. A document cut
    short inside a multi-byte character was not UTF-8 to feedparser, which then
    read it all in a single-byte encoding (Windows-1252, ISO-8859-2): the whole
    items kept from it came as mojibake and overwrote the stored titles. Only an
    end cut inside a character is dropped; any other invalid byte still leaves
    the decision to feedparser."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.end == len(body) and e.reason == "unexpected end of data":
            return body[: e.start]
    return body


def _xml_error(exc: Any, body: bytes) -> str | None:
    """What made feedparser give up on strict XML (and re-read the document
    leniently), or None: a charset fallback is routine, not a malformed feed."""
    if exc is None or isinstance(exc, ThingsNobodyCaresAboutButMe):
        return None
    if not isinstance(exc, xml.sax.SAXParseException):
        return f"XML parse error: {exc}"
    # expat saw feedparser's copy: an XML declaration of its own in place of the
    # document's (columns on line 1 shift), or on a line added before it.
    line, column = exc.getLineNumber(), exc.getColumnNumber()
    if line is None:
        return f"XML parse error: {exc.getMessage()}"
    declared = _declared(body)
    if not declared:
        line -= 1
    where = f"line {line}" if declared and line == 1 else f"line {line}, column {column}"
    return f"XML parse error at {where}: {exc.getMessage()}"


def _declared(body: bytes) -> bool:
    """Whether the document starts with an XML declaration (past a BOM)."""
    head = body[:64]
    for bom in _BOMS:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    return head.startswith(_DECLARATIONS)


def _not_a_feed_root(body: bytes) -> str:
    root = _ROOT.search(body)
    name = _TAG_NAME.match(body, root.start()) if root else None
    if name is None:
        return "no RSS, Atom or RDF document in it"
    tag = name.group(1).decode("ascii", "replace")[:60]
    if tag.lower() == "opml":
        return "an OPML subscription list (import it instead)"
    return f"an XML document whose root is <{tag}>, not RSS, Atom or RDF"


def _cut_off(body: bytes, xml_error: str) -> bool:
    """Whether the document stops before its root element is closed."""
    if xml_error.endswith(_CUT_OFF):
        return True
    if b"\x00" in body[:4]:  # UTF-16/32: the byte patterns below do not apply
        return False
    root = _ROOT.search(body)
    name = _TAG_NAME.match(body, root.start()) if root else None
    last = _LAST_END_TAG.search(body[-4096:].rstrip())
    return name is None or last is None or last.group(1) != name.group(1)


def _recovered(
    raw_entries: list[Mapping[str, Any]],
    body: bytes,
    feed: Mapping[str, Any],
    xml_error: str,
    warnings: list[str],
) -> list[Mapping[str, Any]]:
    """The entries worth keeping from a malformed document, or ParseError.

    feedparser reads broken XML leniently, and many real feeds are slightly
    broken (an undefined entity, whitespace before the declaration): what it
    recovers is kept, with the complaint as a warning. But a document that
    yields nothing must not pass for a quiet feed ("ok, 0 items"): the user
    would see no error and the scheduler would learn a silence that never was.
    """
    cut = _cut_off(body, xml_error)
    kept = raw_entries
    if cut:
        # The item the cut fell in is partial (no guid yet, half its text): kept,
        # it would come back as a second article once the feed is whole again.
        kept = kept[: len(_ITEM_END.findall(body))]
    kept = [r for r in kept if any(r.get(k) for k in _SUBSTANCE)]
    channel = bool(feed.get("title") or feed.get("link"))
    if not kept and (cut or not channel):
        why = f"{xml_error}{' (the document is cut off)' if cut else ''}"
        raise ParseError(f"not a feed: {why}; no item could be read from it"[:300])
    warnings.append(f"malformed feed, read leniently: {xml_error}"[:300])
    if len(kept) < len(raw_entries):
        warnings.append(f"{len(raw_entries) - len(kept)} incomplete item(s) left out")
    return kept


def _distinct(entries: list[ParsedEntry]) -> list[ParsedEntry]:
    """Give every distinct item its own stable identity.

    Some feeds reuse one guid for every item. Keeping only the first would lose
    the rest, so items that share an id within a document are told apart by their
    link and title as written (stable across fetches). True duplicates go.
    """
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.uid] = counts.get(e.uid, 0) + 1
    out: list[ParsedEntry] = []
    seen: set[str] = set()
    for e in entries:
        if counts[e.uid] > 1:
            e = replace(e, uid=told_apart(e.uid, e.link, e.title))
        if e.uid not in seen:
            seen.add(e.uid)
            out.append(e)
    return out


def _check_entities(body: bytes) -> None:
    root = _ROOT.search(body)
    prolog = body[: root.start()] if root else body
    if b"<!ENTITY" not in prolog.upper():
        return
    decls = _ENTITY_DECL.findall(prolog)
    unsafe = prolog.upper().count(b"<!ENTITY") != len(decls) or len(decls) > MAX_ENTITY_DECLS
    for param, _name, value in decls:
        literal = value[:1] in (b'"', b"'")
        inner = _CHARREF.sub(b"", value[1:-1])  # &#160; is a character, not a reference
        if param or not literal or len(inner) > MAX_ENTITY_VALUE or b"&" in inner or b"%" in inner:
            unsafe = True
    if unsafe:
        raise ParseError(
            "the feed declares nested, external or oversized XML entities; refused as unsafe"
        )


def _is_html(detail: Mapping[str, Any]) -> bool:
    return str(detail.get("type", "text/html")) in ("text/html", "application/xhtml+xml")


def _time(struct: Any, now: float) -> float | None:
    if not struct:
        return None
    try:
        t = float(calendar.timegm(struct))
    except (TypeError, ValueError, OverflowError):
        return None
    if t < EARLIEST_PLAUSIBLE or t > now + FUTURE_SLACK:
        return None
    return t


def _content_hash(*parts: str) -> str:
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8", "replace")).hexdigest()
    return f"sha256:{h[:32]}"


def _uid(raw_id: str | None, link: str | None, title: str, content: str) -> str:
    for cand in (raw_id, link):
        # Lone surrogates or NULs in an id would make the row unstorable.
        cand = strip_unsafe_chars(cand).strip() if cand else None
        if cand:
            return cand if len(cand) <= MAX_UID_CHARS else _content_hash(cand)
    return _content_hash(title, content)


def _entry(raw: Mapping[str, Any], feed_url: str, now: float) -> tuple[ParsedEntry, bool]:
    title_detail = raw.get("title_detail") or {}
    xml_base = str(title_detail.get("base") or "")
    base = urljoin(feed_url, xml_base)
    title = plain_text(raw.get("title"), is_html=_is_html(title_detail))
    link = _link(raw, base)
    page = _page(link)

    truncated = False
    content_html = ""
    contents = raw.get("content") or []
    if contents:
        # Prefer HTML over plain text, then the longest.
        best = max(contents, key=lambda c: (_is_html(c), len(c.get("value") or "")))
        content_html, cut = _html_of(best, feed_url, xml_base, page)
        truncated |= cut
    summary_html = ""
    summary_detail = raw.get("summary_detail")
    if raw.get("summary"):
        summary_html, cut = _html_of(
            summary_detail or {"value": raw["summary"]}, feed_url, xml_base, page
        )
        truncated |= cut
    if not content_html:
        content_html = summary_html

    author = plain_text(raw.get("author"))
    enclosures: list[Enclosure] = []
    for enc in raw.get("enclosures", [])[:MAX_ENCLOSURES]:
        href = safe_url(enc.get("href") or enc.get("url"), base)
        if href is None:
            continue
        enclosures.append(
            Enclosure(url=href, type=plain_text(enc.get("type"), limit=200),
                      length=_int(enc.get("length")))
        )  # fmt: skip
    published = _time(raw.get("published_parsed"), now)
    updated = _time(raw.get("updated_parsed"), now)
    raw_id = raw.get("id") if isinstance(raw.get("id"), str) else None
    return (
        ParsedEntry(
            uid=_uid(raw_id, raw.get("link") or link, title, content_html),
            title=title,
            link=link,
            author=author,
            published=published if published is not None else updated,
            updated=updated,
            # After the uid (a content hash for items without guid or link): an
            # item must not come back as new because its text is shown better.
            # feedparser calls many plain-text fields HTML (RSS descriptions,
            # YouTube's media:description): their newlines are their only breaks.
            content=line_breaks(content_html),
            summary=line_breaks(summary_html),
            enclosures=tuple(enclosures),
        ),
        truncated,
    )


def _link(raw: Mapping[str, Any], base: str) -> str | None:
    """The item's link. feedparser makes a permalink guid the link when there is
    no ``<link>`` (isPermaLink defaults to true), but ``<guid>12345</guid>`` is
    an id, not a relative URL: resolved, it pointed at the feed's own host. A
    guid serves as the link only when it is an absolute http(s) URL."""
    value = raw.get("link")
    if raw.get("guidislink") and not raw.get("links") and isinstance(value, str):
        parts = urlsplit(value.strip())
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            return None
    return safe_url(value, base)


def _page(link: str | None) -> str | None:
    """The item's own address, if it is a web page's (its HTML's natural base)."""
    return link if link and urlsplit(link).scheme.lower() in ("http", "https") else None


def _html_of(
    detail: Mapping[str, Any], feed_url: str, xml_base: str, page: str | None
) -> tuple[str, bool]:
    """An item's HTML, sanitised. Relative URLs resolve against the xml:base in
    force for it (the element's own, else the entry's) when the feed gives one;
    else against the item's link (``page``), as the article was written for its
    own page and as other readers do; else against the feed's address. A
    ``#fragment`` resolves against ``page`` in any case (see ``sanitize_html``)."""
    value = str(detail.get("value") or "")
    if not _is_html(detail):
        return text_to_html(value), len(value) > 1_000_000
    own_base = str(detail.get("base") or "")
    if own_base or xml_base:
        base = urljoin(urljoin(feed_url, xml_base), own_base)
    else:
        base = page or feed_url
    return sanitize_html(value, base, page=page)


def _int(value: Any) -> int | None:
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return n if 0 <= n < 1 << 53 else None


def _ttl(value: Any) -> float | None:
    n = _int(value)
    # RSS ttl is minutes; a week is the most any sane feed asks for.
    return float(min(n, 7 * 24 * 60) * 60) if n else None


def _update_period(period: Any, frequency: Any) -> float | None:
    if not period and not frequency:
        return None
    base = _SECONDS.get(str(period or "daily").strip().lower())
    if base is None:
        return None
    freq = _int(frequency) or 1
    return base / max(1, min(freq, 1_000))


def _skip_hours(body: bytes) -> frozenset[int]:
    m = _SKIP_HOURS.search(body)
    if not m:
        return frozenset()
    # RSS says 0..23; some feeds use 24 for midnight.
    return frozenset(int(h) % 24 for h in _HOUR.findall(m.group(1)[:10_000]) if int(h) <= 24)


def _skip_days(body: bytes) -> frozenset[int]:
    m = _SKIP_DAYS.search(body)
    if not m:
        return frozenset()
    days = (_DAYS.get(d.decode("ascii").lower()) for d in _DAY.findall(m.group(1)[:10_000]))
    return frozenset(d for d in days if d is not None)


def _icon(feed: Mapping[str, Any], url: str) -> str | None:
    image = feed.get("image") or {}
    for cand in (feed.get("icon"), image.get("href") if isinstance(image, Mapping) else None,
                 feed.get("logo")):  # fmt: skip
        if isinstance(cand, str):
            safe = safe_url(cand, url)
            if safe and not safe.startswith("mailto:"):
                return safe
    return None


# -- JSON Feed (https://jsonfeed.org/version/1.1) ------------------------------


def _parse_json_feed(body: bytes, *, url: str, now: float) -> ParsedFeed:
    try:
        doc = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ParseError(f"not a valid JSON feed: {e}"[:300]) from e
    if not isinstance(doc, dict) or "jsonfeed.org/version" not in str(doc.get("version", "")):
        raise ParseError("JSON document is not a JSON Feed (no jsonfeed.org version)")
    items = doc.get("items")
    if not isinstance(items, list):
        raise ParseError("JSON Feed has no items list")
    warnings: list[str] = []
    if len(items) > MAX_ENTRIES:
        warnings.append(cap_note(len(items)))
        items = items[:MAX_ENTRIES]
    base = str(doc.get("feed_url") or url)
    entries: list[ParsedEntry] = []
    for item in items:
        if not isinstance(item, dict):
            warnings.append("skipped an item that is not an object")
            continue
        title = plain_text(_refs(_str(item.get("title"))))
        link = safe_url(_str(item.get("url")) or None, url)
        page = _page(link)
        # no xml:base here: the item's own page is the base, as for RSS/Atom
        content, cut = sanitize_html(
            _str(item.get("content_html")), page or urljoin(url, base), page=page
        )
        if not content.strip():  # none, or nothing in it: the plain text, if any
            content, cut = text_to_html(_str(item.get("content_text"))), False
        summary = text_to_html(_str(item.get("summary")))
        # Any field may have any JSON type: a hostile feed sends "authors": true.
        authors = _list(item.get("authors")) or [item.get("author")]
        author = ", ".join(
            plain_text(_refs(_str(a.get("name")))) for a in authors if isinstance(a, dict)
        )[:1000]
        enclosures = tuple(
            Enclosure(url=u, type=plain_text(_str(a.get("mime_type")), limit=200),
                      length=_int(a.get("size_in_bytes")))
            for a in _list(item.get("attachments"))[:MAX_ENCLOSURES]
            if isinstance(a, dict) and (u := safe_url(_str(a.get("url")) or None, url))
        )  # fmt: skip
        published = _iso_time(item.get("date_published"), now)
        updated = _iso_time(item.get("date_modified"), now)
        raw_id = item.get("id")
        uid = _uid(str(raw_id) if raw_id not in (None, "") else None, link, title, content)
        if cut:
            warnings.append(f"entry {title[:60]!r} was cut to a safe size")
        # After the uid, as for RSS/Atom: content_html is often plain text, its
        # newlines its only breaks.
        entries.append(
            ParsedEntry(uid, title, link, author, published if published else updated,
                        updated, line_breaks(content), summary, enclosures)
        )  # fmt: skip
    entries = _distinct(entries)
    icon = safe_url(_str(doc.get("icon") or doc.get("favicon")) or None, url)
    return ParsedFeed(
        title=plain_text(_refs(_str(doc.get("title")))),
        link=safe_url(_str(doc.get("home_page_url")) or None, url),
        entries=tuple(entries),
        warnings=tuple(warnings),
        icon=icon,
    )


# "&#8211;", "&amp;": whole character references only ("AT&T", "&copy" stay)
_REF = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _refs(text: str) -> str:
    """A JSON Feed's plain-text field with HTML character references decoded: the
    spec says plain text, but WordPress writes "Blog &#8211; Name" there, and
    the raw reference showed in the list (and went out in an OPML export)."""
    return _REF.sub(lambda m: html.unescape(m.group()), text) if "&" in text else text


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# Zone names feedparser's RFC 822 reader does not know, and so reads as UTC
# ("…10:00:00 CET" came out an hour late): unambiguous ones only (IST, BST and the
# like name several zones).
_ZONE_OFFSETS = {
    "CET": "+0100", "CEST": "+0200", "EET": "+0200", "EEST": "+0300", "WET": "+0000",
    "WEST": "+0100", "MSK": "+0300", "JST": "+0900", "KST": "+0900", "HKT": "+0800",
    "SGT": "+0800", "AEST": "+1000", "AEDT": "+1100", "NZST": "+1200", "NZDT": "+1300",
}  # fmt: skip
# ... and "GMT+2" / "UTC-05:00", which it drops or reads as UTC
_NAMED_ZONE = re.compile(
    r"\s(?:(?:GMT|UTC|UT)\s*([+-])(\d{1,2})(?::?(\d{2}))?|([A-Za-z]{3,4}))\s*$", re.I
)


# Month names and abbreviations of RFC 822-style dates written in other languages
# (Portuguese "Seg, 24 Set 2018", Italian "mer, 10 nov 2021", Spanish, French,
# German, Dutch), by their first four or three letters; English ones too, so a
# foreign day name before them is dropped. feedparser dropped these dates.
_MONTHS = {
    **{m: m for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                      "nov", "dec")},
    "fev": "feb", "févr": "feb", "fevr": "feb", "ene": "jan", "gen": "jan", "janv": "jan",
    "mär": "mar", "mrz": "mar", "mrt": "mar", "mars": "mar", "abr": "apr", "avr": "apr",
    "mai": "may", "mag": "may", "mei": "may", "juin": "jun", "giu": "jun", "juil": "jul",
    "lug": "jul", "ago": "aug", "août": "aug", "aout": "aug", "set": "sep", "sept": "sep",
    "out": "oct", "ott": "oct", "okt": "oct", "dez": "dec", "dic": "dec", "déc": "dec",
}  # fmt: skip
_LOCAL_DATE = re.compile(
    r"^\s*(?:([^\W\d_]+)\.?,?\s+)?(\d{1,2})\.?\s+([^\W\d_]+)\.?\s+(\d{4}\s.*)$"
)
_ENDS_IN_TIME = re.compile(r"\s\d{1,2}:\d{2}(?::\d{2})?\s*$")
_ENGLISH_DAYS = frozenset({"mon", "tue", "wed", "thu", "fri", "sat", "sun"})


def _rfc822_more(value: str) -> Any:
    """feedparser date handler for RFC 822 dates it drops or misreads: a zone
    named above or written "GMT+2" (read with its offset), a day or month name in
    another language, a day name and no zone (read as UTC, as without the day
    name). None: the other handlers decide, as for plain English."""
    text, changed = value, False
    m = _LOCAL_DATE.match(text)
    if m:
        day, word = (m.group(1) or "").lower(), m.group(3).lower()
        month = _MONTHS.get(word[:4]) or _MONTHS.get(word[:3])
        foreign = word[:3] != month or (day != "" and day[:3] not in _ENGLISH_DAYS)
        # with no zone, feedparser drops a date that has a day name (it counts the
        # words before taking the name off) and reads one without as UTC
        zoneless = day != "" and _ENDS_IN_TIME.search(m.group(4)) is not None
        if month is not None and (foreign or zoneless):
            text, changed = f"{m.group(2)} {month.title()} {m.group(4)}", True
    z = _NAMED_ZONE.search(text)
    if z is not None:
        if z.group(1):
            offset = f"{z.group(1)}{int(z.group(2)):02d}{z.group(3) or '00'}"
        else:
            offset = _ZONE_OFFSETS.get(z.group(4).upper(), "")
        if offset:
            text, changed = f"{text[: z.start()]} {offset}", True
    return _parse_date_rfc822(text) if changed else None


feedparser.registerDateHandler(_rfc822_more)  # tried before feedparser's own


def _iso_time(value: Any, now: float) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    parsed = feedparser.datetimes._parse_date(value)
    return _time(parsed, now)
