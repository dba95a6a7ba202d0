"""The full article behind a feed item that carries only a summary.

``fetch_full_article`` GETs the item's link with the shared ``Fetcher`` and hands
the page to ``extract_article``, which finds the main article with
readability-lxml (a port of Arc90's Readability: it scores blocks by their text,
commas and class names and drops navigation, sidebars, footers and comments), then
sanitises it like any feed content (``sanitize_html``), so what reaches the
reading pane is held to the same rules whichever way it came.

Every failure is a ``FullTextError`` whose text is a short message for the user;
nothing lxml or readability raises gets out.

Decoding is done here, once, before readability sees the page: a byte order mark
wins, then the charset of the Content-Type header, then what the page declares
(``<meta charset>``, ``<?xml encoding?>``) and, when it declares nothing usable,
UTF-8 if the page is valid UTF-8, else chardet on the first 64 KB. A declaration
that does not decode the page is passed over (as readability does). Labels are
read the way browsers read them (WHATWG Encoding): ``iso-8859-1`` and
``us-ascii`` mean windows-1252, whose curly quotes and euro sign live where
latin-1 has control characters. Not left to readability: it detects again at each
of its parses of the page (two or three per extraction), chardet reading all of
it each time (2.5 s for 1 MB of undeclared latin-1), and its patterns for
``<meta charset>`` backtrack without bound on hostile pages (minutes).

The local network: an article link comes from the feed, so a public feed's link
may not lead into the user's own network (router pages), as for its redirects
(``Fetcher.fetch(public_only=True)``) and for discovery
(``updater._not_into_local_network``); a feed on a local host may link local pages.
"""

from __future__ import annotations

import codecs
import html
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import urlsplit

import chardet
import nh3

from smartreader.errors import FetchError
from smartreader.net.fetch import Fetcher, FetchResult, is_local_host
from smartreader.net.sanitize import (
    DROP_WITH_CONTENT,
    MAX_HTML_CHARS,
    plain_text,
    sanitize_html,
)

__all__ = [
    "MIN_TEXT_CHARS",
    "FullArticle",
    "FullTextError",
    "extract_article",
    "fetch_full_article",
    "without_title",
]

# Text (outside links) an extraction must find to count as an article: a
# paragraph or two. Below it readability found a menu, a cookie notice or a
# "please enable JavaScript" page, not what the summary was cut from.
MIN_TEXT_CHARS = 200

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})

# Share of a page's characters that may be undecodable (U+FFFD) or control
# characters before it counts as binary, not a web page (an image served as
# text/html, a wrong charset header on a compressed file).
_MAX_GARBAGE_SHARE = 0.02
_GARBAGE = re.compile("[\x00-\x08\x0b\x0e-\x1f\ufffd]")
_GARBAGE_SAMPLE = 64 * 1024

# What the encoding is read from: browsers look for a declaration in the first
# 1024 bytes (and later ones in the head); chardet needs some text, and takes
# 1.5 s over 600 KB.
_SNIFF_BYTES = 64 * 1024
_MAX_DECLARED = 8
# Bounded, so that each is linear in the page: readability's own patterns
# (readability.encoding) take minutes on "<meta charset=" repeated 5000 times.
_META = re.compile(rb"<meta\b([^>]{0,1024})>", re.I)
_META_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I)
_XML_ENCODING = re.compile(
    rb"""\s*<\?xml\b[^>]{0,200}?\bencoding\s*=\s*["']([A-Za-z0-9_.:-]{1,40})"""
)

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
# WHATWG Encoding: these labels are windows-1252 to every browser
_AS_WINDOWS_1252 = frozenset({"latin-1", "iso8859-1", "ascii"})
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?([^"';\s]+)""", re.I)

_log = logging.getLogger(__name__)


class FullTextError(FetchError):
    """str(e) is a short message for the user, e.g.
    'The page could not be loaded: HTTP 404 (not found)'."""


@dataclass(frozen=True)
class FullArticle:
    """The main article of a web page, sanitised and ready to show."""

    html: str  # sanitize_html(summary, base=url, page=url)
    url: str  # the address that answered (after redirects)
    title: str | None  # the page's title as plain text, or None
    text_chars: int  # characters of visible text in html


class _QuietFailures(logging.Filter):
    """Drops readability's ERROR record, with traceback, for a page it cannot
    parse ("error getting summary"): it raises as well, and that is reported to
    the user as a FullTextError (and logged here at DEBUG), not as a crash."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("error getting summary")


_FILTER = _QuietFailures()
_READABILITY_LOG = logging.getLogger("readability.readability")
if _FILTER not in _READABILITY_LOG.filters:
    _READABILITY_LOG.addFilter(_FILTER)


# -- decoding ----------------------------------------------------------------


def _codec(label: str | None) -> str | None:
    """Python's codec for an encoding label, read as browsers read it, or None."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    return "cp1252" if name in _AS_WINDOWS_1252 else name


def _declared(head: bytes) -> list[str]:
    """Encoding labels ``head`` declares: ``<?xml encoding?>``, then each ``<meta>``'s
    charset (``<meta charset>`` or the http-equiv form), in order."""
    labels: list[str] = []
    xml = _XML_ENCODING.match(head)
    if xml is not None:
        labels.append(xml.group(1).decode("ascii"))
    for tag in _META.finditer(head):
        m = _META_CHARSET.search(tag.group(1))
        if m is not None:
            labels.append(m.group(1).decode("ascii"))
            if len(labels) >= _MAX_DECLARED:
                break
    return labels


def _decode(page: bytes, charset: str | None) -> str:
    for bom, bom_encoding in _BOMS:
        if page.startswith(bom):
            return page[len(bom) :].decode(bom_encoding, "replace")
    encoding = _codec(charset)
    if encoding is not None:
        return page.decode(encoding, "replace")
    head = page[:_SNIFF_BYTES]
    for label in _declared(head):
        declared = _codec(label)
        # a page that is ASCII to an HTML parser ("<meta charset=utf-16>") cannot be
        # UTF-16 without a byte order mark: browsers take it for UTF-8
        if declared is None or declared.startswith(("utf-16", "utf-32")):
            continue
        try:
            return page.decode(declared)
        except UnicodeDecodeError:
            continue  # mislabelled: the next declaration, or detection
    try:
        return page.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # chardet reads all it is given: the head, cut after a ">" (never inside a
    # multi-byte character of an ASCII-compatible encoding)
    end = head.rfind(b">")
    guess = chardet.detect(head[: end + 1] if end > 0 else head).get("encoding")
    return page.decode(_codec(guess) or "utf-8", "replace")


def _looks_binary(text: str) -> bool:
    sample = text[:_GARBAGE_SAMPLE]
    return len(_GARBAGE.findall(sample)) > len(sample) * _MAX_GARBAGE_SHARE


# -- extraction --------------------------------------------------------------


def _is_article(html: str) -> bool:
    """Whether ``html`` (sanitised) has an article's text: ``MIN_TEXT_CHARS`` of it
    outside links (a menu's words are all links), mostly letters and digits (not
    the punctuation of broken markup)."""
    drop = set(DROP_WITH_CONTENT) | {"a"}
    bare = nh3.clean(html, tags=set(), attributes={}, clean_content_tags=drop)
    text = plain_text(bare, is_html=True, limit=MAX_HTML_CHARS)
    return len(text) >= MIN_TEXT_CHARS and sum(c.isalnum() for c in text) * 2 >= len(text)


# bounded, so that a page of "<title" again and again is read in linear time
_TITLE_START = re.compile(r"<title\b[^>]{0,1024}>", re.I)
_TITLE_END = re.compile(r"</title\s*>", re.I)
_TITLE_SEARCH_CHARS = 256 * 1024
_MAX_TITLE_CHARS = 16 * 1024
# what sites put between an article's title and their own name
_TITLE_SEPARATORS = (" | ", " – ", " — ", " - ", " :: ", " / ", " · ")


def _title(text: str) -> str | None:
    """The page's ``<title>`` as plain text, without the site's name when a
    separator sets it apart ("Library opens on Sundays | The Town Paper"): the
    side of four words or more, as readability's ``short_title`` does. Its other
    guesses (the part after a colon, a heading that matches) are not taken: they
    cut real titles ("Python 3.14: what is new")."""
    start = _TITLE_START.search(text, 0, _TITLE_SEARCH_CHARS)
    if start is None:
        return None
    end = _TITLE_END.search(text, start.end(), start.end() + _MAX_TITLE_CHARS)
    if end is None:
        return None
    # RCDATA: entities are decoded, "<b>" is text
    title = plain_text(html.unescape(text[start.end() : end.start()]))
    for sep in _TITLE_SEPARATORS:
        if sep in title:
            first, *_, last = title.split(sep)
            if len(first.split()) >= 4:
                return first.strip() or None
            if len(last.split()) >= 4:
                return last.strip() or None
            break
    return title or None


def extract_article(page: bytes | str, url: str, *, charset: str | None = None) -> FullArticle:
    """Pure (no I/O): the main article of the HTML ``page`` served at ``url``.

    bytes are decoded with ``charset`` when given (from Content-Type), else by what
    the page declares or chardet (readability's detection); see the module's
    docstring. Raises FullTextError when nothing article-like is found: an empty
    page, binary data, too little text, a parse failure of any kind.
    """
    text = _decode(page, charset) if isinstance(page, bytes) else page
    if not text.strip():
        raise FullTextError("The page is empty.")
    if _looks_binary(text):
        raise FullTextError("The page could not be read: it is not text.")
    # imported here: every command imports this module (through the updater),
    # few load a page (readability and its lxml parts: ~10 ms of each start)
    from readability import Document

    try:
        summary = Document(text, url=url or None).summary(html_partial=True)
    except Exception as exc:  # lxml and readability raise all sorts (ValueError, ParserError...)
        _log.debug("no article extracted from %s", url, exc_info=True)
        raise FullTextError(
            "No article could be found on the page (it could not be read)."
        ) from exc
    if not isinstance(summary, str):  # never seen; readability's contract is loose
        raise FullTextError("No article could be found on the page.")
    article = sanitize_html(summary, base=url or None, page=url or None)[0]
    if not _is_article(article):
        raise FullTextError("No article could be found on the page.")
    return FullArticle(
        html=article,
        url=url,
        title=_title(text),
        text_chars=len(plain_text(article, is_html=True, limit=MAX_HTML_CHARS)),
    )


# The article's first heading, after the blocks that open it (readability's
# wrapper, an <article>, a <header>); sanitised markup, so plain tags.
_OPENING_HEADING = re.compile(
    r"\A((?:\s*<(?:div|article|header|section|main)\b[^>]{0,200}>)*\s*)"
    r"<(h[1-3])\b[^>]{0,200}>(.{0,2000}?)</\2>",
    re.S,
)


def _same_words(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def without_title(article: str, title: str) -> str:
    """``article`` (sanitised HTML) without the heading that opens it when that
    heading is ``title``: the reading pane shows the feed's title above the
    text already, and a page's own heading repeated it."""
    m = _OPENING_HEADING.match(article)
    if m is None or not title.strip():
        return article
    if not _same_words(plain_text(m.group(3), is_html=True), title):
        return article
    return m.group(1) + article[m.end() :]


# -- fetching ----------------------------------------------------------------


def _unloaded(reason: str) -> FullTextError:
    return FullTextError(f"The page could not be loaded: {reason}")


def _http_reason(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase.lower()
    except ValueError:
        return f"HTTP {status}"
    return f"HTTP {status} ({phrase})"


def _failure(result: FetchResult) -> FullTextError:
    status = result.http_status
    if result.status == "not_modified":
        return _unloaded("the server sent no page (HTTP 304).")
    if result.status in ("error", "gone") and status is not None and status >= 400:
        # Fetcher's own words speak of feeds ("the feed is not at this address")
        return _unloaded(_http_reason(status) + ".")
    return _unloaded(f"{result.error or result.status}.")


def _media_type(content_type: str | None) -> tuple[str, str | None]:
    """(media type lower-cased, charset parameter or None) of a Content-Type."""
    if not content_type:
        return "", None
    mime = content_type.split(";", 1)[0].strip().lower()
    m = _CHARSET_PARAM.search(content_type)
    return mime, (m.group(1) if m else None)


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def fetch_full_article(
    fetcher: Fetcher,
    url: str,
    *,
    source: str,
    auth: tuple[str, str] | None = None,
    extract: Callable[..., FullArticle] | None = None,
) -> FullArticle:
    """GET ``url`` (an article's link) with ``fetcher`` and extract its article.

    ``source`` is the feed's own URL: when its host is public the link may not
    lead into the user's local network (refused before anything is sent, and the
    fetch is ``public_only`` so redirects and DNS answers are held to it too).
    Raises FullTextError, with a message for the user, for a link that is not
    http(s), a refused local address, any fetch that is not ok, an empty body, a
    content type that is not HTML, and extraction failures. ``auth`` (user name,
    password: the feed's, when the caller found the page on the feed's own site)
    goes with the request as the fetcher sends any: never to another site.
    ``extract``: ``extract_article`` or a stand-in with its signature (the GUI's
    parse workers, ``ParsePool.extract``).
    """
    link = (url or "").strip()
    try:
        parts = urlsplit(link)
        host = parts.hostname or ""
    except ValueError:
        raise FullTextError("The article's link is not a valid web address.") from None
    if not link:
        raise FullTextError("The article has no link to load.")
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise FullTextError("The article's link is not a web address (only http and https).")
    public_only = not is_local_host(_host(source))
    if public_only and is_local_host(host):
        raise FullTextError(
            f"The article's link leads into your local network ({host}) from a feed on "
            "a public site; it was not loaded."
        )
    result = fetcher.fetch(link, auth=auth, public_only=public_only)
    if result.status != "ok":
        raise _failure(result)
    if not result.body or not result.body.strip():
        raise _unloaded("the server sent an empty page.")
    mime, charset = _media_type(result.content_type)
    if mime and mime not in HTML_TYPES:
        raise FullTextError(f"The link is not a web page ({mime}).")
    run = extract_article if extract is None else extract
    return run(result.body, result.final_url or link, charset=charset)
