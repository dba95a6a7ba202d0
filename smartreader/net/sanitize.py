"""HTML sanitising for feed content, and plain-text extraction for titles.

Everything a feed supplies is hostile until it has been through here. We use nh3
(ammonia, an html5ever-based allowlist sanitiser) rather than feedparser's
regex-era sanitiser, and we resolve relative URLs ourselves against the entry's
base so that no URL survives that is not absolute http, https or mailto: a desktop
viewer must never be tricked into ``file:``, ``javascript:`` or ``data:``.

In-article anchors (footnotes): ``id`` on any element and ``name`` on ``a`` are
kept, with ``ID_PREFIX`` put in front, so an article's names live apart from any
of our own around it in the reading pane; a ``#fn1`` link keeps its plain
fragment, resolved against the item's own address (``page``), and the pane
scrolls to ``ID_PREFIX + "fn1"`` when that address is the article shown.

Embedded frames (``<iframe>``: videos, maps) are never kept, but one whose ``src``
is an http(s) address leaves a trace where it stood: a paragraph
``EMBED_LABEL <a href="src">host/path</a>``, an ordinary link like any other
(``embed_links``); without such an address it is dropped with its content.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urljoin, urlsplit

import nh3

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})

# Generous enough for articles (tables, figures, media), nothing that runs, styles,
# submits or changes the document's base.
ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "acronym", "address", "article", "aside", "audio", "b", "bdi", "bdo",
        "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del",
        "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "footer", "h1",
        "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "img", "ins", "kbd", "li", "mark",
        "ol", "p", "picture", "pre", "q", "rp", "rt", "ruby", "s", "samp", "section",
        "small", "source", "span", "strike", "strong", "sub", "summary", "sup", "table",
        "tbody", "td", "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul", "var", "video",
        "wbr",
    }
)  # fmt: skip

# Tags removed together with their content (the text of a script is not prose).
DROP_WITH_CONTENT = frozenset(
    {"script", "style", "template", "noscript", "iframe", "object", "embed", "applet",
     "frame", "frameset", "head", "title", "form", "textarea", "select", "button", "svg",
     "math"}
)  # fmt: skip

# Prefixed to every kept ``id`` and ``a name`` (see the module's docstring).
# Done in our attribute filter: nh3's own ``id_prefix`` is newer than the nh3
# we accept, and it would also leave a value that already starts with the prefix.
ID_PREFIX = "sr-"

ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "*": {"title", "lang", "dir", "id"},  # id: in-article link targets, prefixed
    "a": {"href", "hreflang", "name"},
    "img": {"src", "alt", "width", "height"},
    "audio": {"src", "controls", "preload"},
    "video": {"src", "poster", "controls", "width", "height", "preload"},
    "source": {"src", "type", "media"},
    "blockquote": {"cite"},
    "q": {"cite"},
    "del": {"cite", "datetime"},
    "ins": {"cite", "datetime"},
    "time": {"datetime"},
    "td": {"colspan", "rowspan", "align", "valign"},
    "th": {"colspan", "rowspan", "align", "valign", "scope"},
    "col": {"span"},
    "colgroup": {"span"},
    "ol": {"start", "reversed", "type"},
    "li": {"value"},
    "abbr": {"title"},
    "details": {"open"},
}

URL_ATTRIBUTES = frozenset({"href", "src", "poster", "cite"})

LINK_REL = "noopener noreferrer nofollow"  # on every link we keep or write
EMBED_LABEL = "Embedded content:"  # what an iframe leaves (see the module's docstring)
MAX_EMBED_LABEL_CHARS = 80

MAX_HTML_CHARS = 1_000_000  # per field; longer content is cut (the cut is marked)
MAX_TEXT_CHARS = 1_000  # titles, authors
MAX_URL_CHARS = 4_096

MAX_DEPTH = 256  # html5ever is quadratic in nesting depth; real articles stay far below
# Qt's rich-text layout doubles its work with each level of tables inside tables
# (measured: 12 levels 0.03 s, 20 levels 15 s, a 447-byte item); layout tables in
# newsletters stay within a handful. Deeper ones are unwrapped into blocks.
MAX_TABLE_DEPTH = 6

_WS = re.compile(r"\s+")
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)[^>]*?(/?)>")
# A comment, a start or end tag (slash, name) or any other tag, in document order.
_TOKEN = re.compile(r"<!--.*?(?:-->|\Z)|<(/?)([A-Za-z][^\s/>]*)[^>]*>|<[^>]*>", re.S)
# Elements without content: the only ones a "/>" closes (on any other, HTML
# parsers ignore the slash and open the element).
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
     "source", "track", "wbr"}
)  # fmt: skip
# Where a "/>" closes any element (SVG and MathML, as in HTML's foreign content).
_FOREIGN = frozenset({"svg", "math"})
# Elements whose end is implied by a sibling: they never nest by themselves.
_IMPLIED = frozenset({"p", "li", "dt", "dd", "tr", "td", "th", "option", "rp", "rt"})
# Open elements an end tag does not close through (HTML's "special" elements and
# scope boundaries): ``<span><div></span>`` leaves both open.
_BARRIER = frozenset(
    {"address", "applet", "article", "aside", "blockquote", "caption", "center", "details",
     "dialog", "dir", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form",
     "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "html", "main", "marquee",
     "menu", "nav", "object", "ol", "pre", "section", "summary", "table", "tbody",
     "template", "tfoot", "thead", "ul"}
)  # fmt: skip


def nesting_depth(fragment: str, limit: int = MAX_DEPTH) -> int:
    """Element nesting depth as an HTML parser builds it, or more, never less
    (stops counting once past ``limit``). What a parser does: ``<div/>`` opens a
    div; an end tag closes only an element that is open (a stray ``</span>`` closes
    nothing), and not through a block or table between (then it is ignored)."""
    stack: list[str] = []
    open_count: dict[str, int] = {}
    peak = 0
    for m in _TAG.finditer(fragment):
        name = m.group(2).lower()
        if name in _VOID or name in _IMPLIED:
            continue
        if m.group(1):  # an end tag
            if not open_count.get(name):
                continue
            # Looked for among the 64 innermost only (beyond, it is left open: the
            # count can only be higher), so hostile input stays linear.
            i, stop = len(stack) - 1, max(-1, len(stack) - 65)
            while i > stop and stack[i] != name and stack[i] not in _BARRIER:
                i -= 1
            if i > stop and stack[i] == name:
                for closed in stack[i:]:
                    open_count[closed] -= 1
                del stack[i:]
            continue
        stack.append(name)
        open_count[name] = open_count.get(name, 0) + 1
        if len(stack) > peak:
            peak = len(stack)
            if peak > limit:
                break
    return peak


# A table-structure tag of serialised (well-formed) HTML; quoted values may hold ">".
_TABLE_TAG = re.compile(
    r"<(/?)(table|caption|colgroup|col|thead|tbody|tfoot|tr|td|th)\b"
    r"(?:[^>\"']|\"[^\"]*\"|'[^']*')*>",
    re.I,
)


def limit_tables(markup: str, limit: int = MAX_TABLE_DEPTH) -> str:
    """``markup`` (well-formed, as the sanitiser writes it) with tables nested more
    than ``limit`` deep turned into plain blocks: their text stays, in order."""
    if markup.count("<table") <= limit:
        return markup
    depth = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal depth
        closing, name = m.group(1), m.group(2).lower()
        if name == "table" and not closing:
            depth += 1
        deep = depth > limit
        if name == "table" and closing:
            depth -= 1
        if not deep:
            return m.group(0)
        if name == "col":
            return ""
        return "</div>" if closing else "<div>"

    return _TABLE_TAG.sub(swap, markup)


# C0 controls, DEL, non-characters and lone surrogates (JSON "\ud800" decodes to
# one; nh3 and SQLite cannot encode it as UTF-8).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


def strip_unsafe_chars(text: str) -> str:
    """``text`` without control characters, non-characters and lone surrogates,
    so that it can be encoded as UTF-8 and stored."""
    return _CONTROL.sub("", text)


def safe_url(url: str | None, base: str | None = None) -> str | None:
    """Resolve ``url`` against ``base``; return it only if http(s)/mailto.

    Control characters and whitespace inside the scheme are how ``java\\tscript:``
    tricks work, so they are removed before the scheme is read.
    """
    if not url:
        return None
    url = _CONTROL.sub("", url).strip()
    url = url.replace("\t", "").replace("\n", "").replace("\r", "")
    if not url or len(url) > MAX_URL_CHARS:
        return None
    try:
        resolved = urljoin(base, url) if base else url
        parts = urlsplit(resolved)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in SAFE_SCHEMES:
        return None
    if scheme in ("http", "https") and not parts.netloc:
        return None
    return resolved


def sanitize_html(
    fragment: str, base: str | None = None, *, page: str | None = None
) -> tuple[str, bool]:
    """Return (safe HTML, truncated?). URLs are resolved against ``base``.

    A fragment-only reference (``#fn1``) points into this same document (RFC 3986
    §4.4), so it is resolved against ``page``, the address of the article the
    HTML belongs to (the item's link), whatever ``base`` is; without a ``page``,
    against ``base`` like any other. Element ids and anchor names are kept with
    ``ID_PREFIX`` in front. Allowlisted tags and attributes only; ``style``
    attributes and elements are gone (no ``url()``), links get
    ``rel="noopener noreferrer nofollow"``.
    """
    if not fragment:
        return "", False
    truncated = len(fragment) > MAX_HTML_CHARS
    if truncated:
        fragment = fragment[:MAX_HTML_CHARS]
    fragment = _CONTROL.sub("", fragment)
    if nesting_depth(fragment) > MAX_DEPTH:
        return _flattened(fragment), True

    def attribute_filter(tag: str, attr: str, value: str) -> str | None:
        if tag == "iframe" and attr != "src":
            return None  # kept only to be turned into a link: its address alone
        if attr in URL_ATTRIBUTES:  # html5ever already decoded entities
            same_document = page is not None and value.strip().startswith("#")
            return safe_url(value, page if same_document else base)
        if attr == "id" or (attr == "name" and tag == "a"):
            return ID_PREFIX + value if value.strip() else None
        return value

    def clean(*, iframes: bool) -> str:
        # Iframes are let through (their address alone) only for embed_links to
        # replace them: with a link, or with nothing; their content goes either way.
        attributes = {k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()}
        if iframes:
            attributes["iframe"] = {"src"}
        return nh3.clean(
            fragment,
            tags=set(ALLOWED_TAGS) | ({"iframe"} if iframes else set()),
            clean_content_tags=set(DROP_WITH_CONTENT) - ({"iframe"} if iframes else set()),
            attributes=attributes,
            attribute_filter=attribute_filter,
            url_schemes=set(SAFE_SCHEMES),
            link_rel=LINK_REL,
            strip_comments=True,
        )

    cleaned = clean(iframes=True)
    if "<iframe" in cleaned:
        cleaned = embed_links(cleaned)
        if "<iframe" in cleaned:  # never seen; then no trace rather than any doubt
            cleaned = clean(iframes=False)
    cleaned = limit_tables(cleaned)
    if truncated:
        cleaned += "<p><em>[content truncated]</em></p>"
    return cleaned, truncated


# An iframe as nh3 writes it when let through with its ``src`` alone (see
# ``sanitize_html``): the value has its ``"`` escaped; the content is raw text that
# cannot hold "</iframe>" (an HTML parser ends the element there).
_IFRAME = re.compile(r'<iframe(?: src="([^"]*)")?>.*?</iframe>', re.S)


def embed_links(cleaned: str) -> str:
    """``cleaned`` (nh3's output, iframes kept with their ``src`` alone) with each
    iframe replaced: by a paragraph with a link to its address when that is
    http(s) (``EMBED_LABEL`` host/path), else by nothing; its content goes."""

    def link(m: re.Match[str]) -> str:
        url = safe_url(html.unescape(m.group(1) or ""))
        if url is None or urlsplit(url).scheme.lower() not in ("http", "https"):
            return ""
        parts = urlsplit(url)
        label = parts.netloc.rpartition("@")[2] + parts.path  # never user:password@
        if len(label) > MAX_EMBED_LABEL_CHARS:
            label = label[: MAX_EMBED_LABEL_CHARS - 1] + "…"
        return (
            f'<p>{html.escape(EMBED_LABEL)} <a href="{html.escape(url, quote=True)}" '
            f'rel="{LINK_REL}">{html.escape(label)}</a></p>'
        )

    return _IFRAME.sub(link, cleaned)


def tame_stored(markup: str) -> str:
    """Sanitised HTML as stored by an older version, made safe to lay out: the
    same depth limits as ``sanitize_html`` (their absence froze the window)."""
    if nesting_depth(markup) > MAX_DEPTH:
        return _flattened(markup)
    return limit_tables(markup)


def _flattened(markup: str) -> str:
    """Pathological nesting: keep the words, drop the structure. What nh3 drops
    with its content (scripts, styles, comments) goes here too: stripping only the
    tags showed "body{display:none} alert(1)" as the article's text."""
    parts: list[str] = []
    pos = 0
    dropping, depth = "", 0  # the element whose content is being dropped
    for m in _TOKEN.finditer(markup):
        if not dropping:
            parts.append(markup[pos : m.start()])
            parts.append(" ")
        pos = m.end()
        name = (m.group(2) or "").lower()
        closing = m.group(1) == "/"
        if not name or name in _VOID or (name in _FOREIGN and m.group(0).endswith("/>")):
            continue  # no content to drop
        if not dropping:
            if not closing and name in DROP_WITH_CONTENT:
                dropping, depth = name, 1
        elif name == dropping:
            depth += -1 if closing else 1
            if depth == 0:
                dropping = ""
    if not dropping:  # an unclosed one takes the rest, as in a browser and in nh3
        parts.append(markup[pos:])
    text = html.unescape("".join(parts))
    return text_to_html(text) + "<p><em>[formatting removed: nested too deeply]</em></p>"


def plain_text(value: str | None, *, is_html: bool = False, limit: int = MAX_TEXT_CHARS) -> str:
    """A title or name as plain text: tags dropped (if HTML), entities decoded,
    control characters removed, whitespace collapsed, length capped."""
    if not value:
        return ""
    if len(value) > limit * 20:
        value = value[: limit * 20]
    if is_html:
        value = html.unescape(
            nh3.clean(value, tags=set(), clean_content_tags=set(DROP_WITH_CONTENT))
        )
    value = _WS.sub(" ", _CONTROL.sub("", value)).strip()
    if len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    return value


def text_to_html(text: str) -> str:
    """Plain text content shown as HTML: escaped, paragraphs kept."""
    if len(text) > MAX_HTML_CHARS:
        text = text[:MAX_HTML_CHARS]
    paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "".join(
        "<p>" + html.escape(_CONTROL.sub("", p)).replace("\n", "<br>") + "</p>" for p in paras
    )
