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
``<video>`` and ``<audio>``, which the reading pane cannot play, go the same way:
a paragraph ``Video:``/``Audio:`` with a link to the first http(s) address of the
element or its ``<source>``s, and the poster as an image; fallback text goes.

Lazily loaded images: the address in ``data-src``, ``data-lazy-src``,
``data-original`` or ``srcset`` goes through the same URL filter as ``src`` and
becomes the ``src`` when that is missing (a ``data:`` one is removed) or an
obvious placeholder; those attributes never reach the output. A ``<noscript>``
is dropped with its content, except that after such a placeholder, one holding
an image only stands in for it (re-sanitised on its own).

A ``<picture>`` whose ``<source>``s name its image (``srcset``) but that has no
``<img>`` of its own gets one: the address a ``srcset`` would give (as for a lazy
image) of the first source without ``media`` in a type the reading pane shows,
else of the first that has one, through the same URL filter. ``srcset`` never
reaches the output.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
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
    "img": {"src", "alt", "width", "height"},  # lazy ones: LAZY_SOURCES, then src
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
# Where lazy-loading scripts keep an image's real address, in order of preference;
# read (URL-filtered) only to become the ``src``, never written out.
LAZY_SOURCES = ("data-src", "data-lazy-src", "data-original", "srcset")
MAX_SRCSET_WIDTH = 1600  # widest srcset candidate taken: enough for a reading pane
# What a lazy image's ``src`` holds until a script swaps it (its file name).
_PLACEHOLDER = re.compile(
    r"placeholder|lazy|^(?:blank|spacer|pixel|empty|transparent|1x1|grey|gray)\.(?:gif|png)$", re.I
)
MEDIA_LABELS = {"video": "Video:", "audio": "Audio:"}  # what a video or audio leaves

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
        if attr == "srcset":
            return _safe_srcset(value, base)
        if attr in LAZY_SOURCES:
            return _web_url(value, base)
        if attr == "id" or (attr == "name" and tag == "a"):
            return ID_PREFIX + value if value.strip() else None
        return value

    def clean(markup: str, *, raw_text: bool, only_img: bool = False) -> str:
        # Iframes are let through (their address alone) only for embed_links to
        # replace them: with a link, or with nothing; their content goes either way.
        # Noscripts only for _rework, which drops them or re-sanitises what they
        # hold: to html5ever their content is raw text, written out unescaped.
        attributes = {k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()}
        attributes["img"] |= set(LAZY_SOURCES)
        attributes["source"] |= {"srcset"}  # a picture's image: read by _rework
        raw = {"iframe", "noscript"} if raw_text else set()
        if raw_text:
            attributes["iframe"] = {"src"}
        return nh3.clean(
            markup,
            tags={"img"} if only_img else set(ALLOWED_TAGS) | raw,
            clean_content_tags=set(DROP_WITH_CONTENT) - raw,
            attributes=attributes,
            attribute_filter=attribute_filter,
            url_schemes=set(SAFE_SCHEMES),
            link_rel=LINK_REL,
            strip_comments=True,
        )

    def noscript_image(content: str) -> str | None:
        tag = clean(content, raw_text=False, only_img=True).strip()
        return tag if _IMG_ONLY.fullmatch(tag) and "src" in _attrs(tag[4:-1]) else None

    cleaned = _rework(clean(fragment, raw_text=True), noscript_image)
    if "<iframe" in cleaned:
        cleaned = embed_links(cleaned)
    if "<iframe" in cleaned or "<noscript" in cleaned:
        # never seen; then no trace rather than any doubt
        cleaned = _rework(clean(fragment, raw_text=False), noscript_image)
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
        url = _web_url(html.unescape(m.group(1) or ""), None)
        return _link_paragraph(EMBED_LABEL, url) if url else ""

    return _IFRAME.sub(link, cleaned)


def _web_url(value: str, base: str | None) -> str | None:
    """``value`` as an absolute http(s) address, or None (an image source)."""
    url = safe_url(value, base)
    return url if url and urlsplit(url).scheme.lower() in ("http", "https") else None


_CANDIDATE_URL = re.compile(r"[\s,]*(\S+)")
MAX_SRCSET_CANDIDATES = 64


def _srcset(value: str) -> list[tuple[str, str]]:
    """A ``srcset``'s candidates: (address, descriptor), split as the HTML spec
    does: an address is a run without spaces (commas inside it are its own, as
    in "w_100,h_80/a.jpg"), its descriptor runs to the next comma."""
    out: list[tuple[str, str]] = []
    pos = 0
    while len(out) < MAX_SRCSET_CANDIDATES:
        m = _CANDIDATE_URL.match(value, pos)
        if m is None:
            break
        url, pos = m.group(1), m.end()
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            end = value.find(",", pos)
            end = len(value) if end < 0 else end
            descriptor, pos = value[pos:end].strip(), end + 1
        out.append((url, descriptor))
    return out


def _safe_srcset(value: str, base: str | None) -> str | None:
    """``value`` with only the candidates whose address is http(s), resolved."""
    kept = []
    for url, descriptor in _srcset(value):
        safe = _web_url(url, base)
        if safe and not safe.endswith(","):  # kept readable as a srcset
            kept.append(f"{safe} {descriptor}".strip())
    return ", ".join(kept) or None


def _srcset_pick(value: str) -> str | None:
    """The candidate to show: the widest up to MAX_SRCSET_WIDTH, else the first."""
    candidates = _srcset(value)
    widths = []
    for url, descriptor in candidates:
        m = re.fullmatch(r"(\d{1,6})w", descriptor)
        if m and int(m.group(1)) <= MAX_SRCSET_WIDTH:
            widths.append((int(m.group(1)), url))
    if widths:
        return max(widths)[1]
    return candidates[0][0] if candidates else None


# nh3's output, token by token: an iframe or noscript with its raw-text content
# (which cannot hold its end tag), any other tag (values double-quoted, may hold
# ">"), or text (which holds no "<": it is escaped). Attribute values as written.
_OUT_TOKEN = re.compile(
    r'<(iframe|noscript)\b(?:[^>"]|"[^"]*")*>.*?</\1>|<(/?)([a-z][a-z0-9]*)((?:[^>"]|"[^"]*")*)>|[^<]+',
    re.S,
)
# The same, only what _rework changes (and iframes, whose raw content could look
# like tags): nh3 escapes "<" in text and attribute values, so any other "<" starts
# a tag or lies in the raw content of an iframe or noscript, matched whole.
_REWORK_TOKEN = re.compile(
    r'<(iframe|noscript)\b(?:[^>"]|"[^"]*")*>.*?</\1>'
    r'|<(/?)(img|video|audio|source|picture)\b((?:[^>"]|"[^"]*")*)>',
    re.S,
)
_ATTR = re.compile(r'([^\s="/>]+)(?:="([^"]*)")?')
_LAZY_ATTR = re.compile(r'\s(?:data-src|data-lazy-src|data-original|srcset)="[^"]*"')
_SRCSET_ATTR = re.compile(r'\ssrcset="[^"]*"')
# Image types a <picture>'s source is preferred in: those the reading pane shows.
_SHOWN_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp"})
_IMG_ONLY = re.compile(r'<img(?:\s+[^\s="/>]+="[^"]*")*>')
# Kept when an image is rewritten; all from ALLOWED_ATTRIBUTES.
_IMG_KEEP = ("alt", "width", "height", "title", "lang", "dir", "id")


def _attrs(text: str) -> dict[str, str]:
    """A serialised tag's attributes, values decoded."""
    return {m.group(1): html.unescape(m.group(2) or "") for m in _ATTR.finditer(text)}


def _image(attrs: dict[str, str]) -> tuple[str | None, bool]:
    """An image tag built anew with the lazy address promoted to ``src``, if
    ``src`` is missing or a placeholder and there is one (else None); and whether
    the image still waits for a script (no address, or the placeholder)."""
    src = _web_url(attrs.get("src", ""), None)
    placeholder = src is None or bool(_PLACEHOLDER.search(urlsplit(src).path.rpartition("/")[2]))
    if not placeholder:
        return None, False
    for name in LAZY_SOURCES:
        value = attrs.get(name, "")
        real = _web_url((_srcset_pick(value) if name == "srcset" else value) or "", None)
        if real:
            kept = "".join(
                f' {k}="{html.escape(attrs[k], quote=True)}"' for k in _IMG_KEEP if k in attrs
            )
            return f'<img src="{html.escape(real, quote=True)}"{kept}>', False
    return None, True


def _media(name: str, attrs: dict[str, str], sources: list[str]) -> str:
    """What a video or audio leaves: its poster, a link to its address."""
    out = ""
    poster = _web_url(attrs.get("poster", ""), None) if name == "video" else None
    if poster:
        out += f'<p><img src="{html.escape(poster, quote=True)}" alt="{MEDIA_LABELS[name]}"></p>'
    for cand in [attrs.get("src", ""), *sources]:
        url = _web_url(cand, None)
        if url:
            out += _link_paragraph(MEDIA_LABELS[name], url)
            break
    return out


def _picture_image(sources: list[tuple[int, str]]) -> str:
    """The image of a ``<picture>`` without one, from its sources' (rank, address)
    (see ``_rework``): the best ranked, the first of those; or nothing."""
    if not sources:
        return ""
    url = min(sources, key=lambda s: s[0])[1]
    return f'<img src="{html.escape(url, quote=True)}">'


def _source_rank(attrs: dict[str, str]) -> tuple[int, str | None]:
    """A picture's source: its address (``srcset``, else ``src``; http(s) or
    None) and its rank, lower better: 0 no ``media`` and a type shown (or none
    said), 1 a type shown, 2 any other."""
    srcset = attrs.get("srcset", "")
    url = _web_url((_srcset_pick(srcset) if srcset else attrs.get("src", "")) or "", None)
    shown = attrs.get("type", "").strip().lower() in _SHOWN_TYPES | {""}
    return (0 if shown and not attrs.get("media", "").strip() else 1 if shown else 2), url


def _rework(cleaned: str, noscript_image: Callable[[str], str | None]) -> str:
    """``cleaned`` (nh3's output) with images, noscripts, videos, audios and
    pictures dealt with as the module's docstring says. Iframes are passed on
    for embed_links."""
    if not any(t in cleaned for t in ("<img", "<noscript", "<video", "<audio", "<source")):
        return cleaned
    out: list[str] = []
    waiting = -1  # index in out of an image still waiting for a script
    media: list[tuple[str, dict[str, str], list[str]]] = []  # open video/audio
    # open pictures: an image seen in it?, its sources' (rank, address)
    pictures: list[tuple[list[bool], list[tuple[int, str]]]] = []
    pos = 0
    for m in _REWORK_TOKEN.finditer(cleaned):
        token, raw, closing, name = m.group(0), m.group(1), m.group(2), m.group(3)
        between, pos = cleaned[pos : m.start()], m.end()
        if not media:
            out.append(between)
            if between.strip():
                waiting = -1  # a noscript stands in only for the image right before it
        if media:  # inside a video or audio: only its sources count
            if name in MEDIA_LABELS:
                if closing:
                    kind, attrs, sources = media.pop()
                    if not media:
                        out.append(_media(kind, attrs, sources))
                else:
                    media.append((name, _attrs(m.group(4)), []))
            elif name == "source" and not closing:
                media[-1][2].append(_attrs(m.group(4)).get("src", ""))
            continue
        if raw == "noscript":
            content = token[token.index(">") + 1 : -len("</noscript>")]
            image = noscript_image(content) if waiting >= 0 else None
            if image:  # stands in for the placeholder before it: one image
                attrs, before = _attrs(image[4:-1]), _attrs(out[waiting][4:-1])
                attrs.update((k, v) for k, v in before.items() if k != "src" and k not in attrs)
                src = html.escape(attrs.pop("src"), quote=True)  # nh3 required one
                kept = "".join(
                    f' {k}="{html.escape(attrs[k], quote=True)}"' for k in _IMG_KEEP if k in attrs
                )
                out[waiting] = f'<img src="{src}"{kept}>'

            waiting = -1
            continue
        if name == "picture":
            if not closing:
                pictures.append(([False], []))
            elif pictures:
                seen, candidates = pictures.pop()
                if not seen[0]:
                    out.append(_picture_image(candidates))
            waiting = -1
            out.append(token)
            continue
        if name == "source" and not closing:
            if pictures:
                rank, url = _source_rank(_attrs(m.group(4)))
                if url:
                    pictures[-1][1].append((rank, url))
            waiting = -1
            out.append("<source" + _SRCSET_ATTR.sub("", m.group(4)) + ">")
            continue
        if name == "img" and not closing:
            if pictures:
                pictures[-1][0][0] = True
            tag, placeholder = _image(_attrs(m.group(4)))
            if tag is None:  # nothing promoted: as it was (less the lazy sources)
                tag = "<img" + _LAZY_ATTR.sub("", m.group(4)) + ">"
            out.append(tag)
            waiting = len(out) - 1 if placeholder else -1
            continue
        if name in MEDIA_LABELS and not closing:
            media.append((name, _attrs(m.group(4)), []))
            continue
        if name in MEDIA_LABELS:  # an end tag without its start: never written
            continue
        waiting = -1
        out.append(token)  # an iframe, a source outside any video or audio
    if media:  # unclosed (never from nh3): what it had
        out.append(_media(*media[0]))
    else:
        out.append(cleaned[pos:])
    return "".join(out)


# Where markup has breaks of its own; none of these, and newlines are its only ones.
_BLOCKS = frozenset(
    {"address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div",
     "dl", "dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
     "header", "hr", "li", "ol", "p", "pre", "section", "summary", "table", "tbody", "td",
     "tfoot", "th", "thead", "tr", "ul"}
)  # fmt: skip
_BLANK_LINE = re.compile(r"[ \t]*\n(?:[ \t]*\n)+")


def line_breaks(cleaned: str) -> str:
    """Sanitised markup with no blocks or ``<br>`` of its own but newlines in its
    text (plain text labelled HTML): blank-line-separated runs become paragraphs,
    other newlines ``<br>``. Anything else comes back unchanged. Only text is
    touched, and only tags are added, so the result is as safe as ``cleaned``."""
    if "\n" not in cleaned:
        return cleaned
    tokens = [(m.group(0), m.group(2), m.group(3)) for m in _OUT_TOKEN.finditer(cleaned)]
    text = "".join(t for t, _, name in tokens if name is None)
    if any(name in _BLOCKS for _, _, name in tokens) or "\n" not in text.strip():
        return cleaned
    lines = [line for line in text.strip().splitlines()[1:] if line.strip()]
    if all(line[:1] in (" ", "\t") for line in lines):
        return cleaned  # every line indented: an XML file's wrapping, not the author's
    paragraphs: list[list[str]] = [[]]
    depth = 0  # open inline elements: a paragraph never splits one
    for token, closing, name in tokens:
        if name is None:
            token = token.replace("\r\n", "\n").replace("\r", "\n")
            pieces = _BLANK_LINE.split(token) if depth == 0 else [token]
            for i, piece in enumerate(pieces):
                if i:
                    paragraphs.append([])
                paragraphs[-1].append(piece.replace("\n", "\x00"))  # no NUL in cleaned
            continue
        if name not in _VOID:
            depth = max(0, depth + (-1 if closing else 1))
        paragraphs[-1].append(token)
    out = []
    for para in paragraphs:
        markup = "".join(para).strip(" \t\x00")
        if markup:
            out.append("<p>" + markup.replace("\x00", "<br>") + "</p>")
    return "".join(out)


def _link_paragraph(label: str, url: str) -> str:
    """``label <a href=url>host/path</a>`` as a paragraph (``url`` is safe)."""
    parts = urlsplit(url)
    text = parts.netloc.rpartition("@")[2] + parts.path  # never user:password@
    if len(text) > MAX_EMBED_LABEL_CHARS:
        text = text[: MAX_EMBED_LABEL_CHARS - 1] + "…"
    return (
        f'<p>{html.escape(label)} <a href="{html.escape(url, quote=True)}" '
        f'rel="{LINK_REL}">{html.escape(text)}</a></p>'
    )


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


# Bidi embeddings, overrides and isolates (LRE..RLO, LRI..PDI). Removed, not
# balanced: balanced, an RLO would still show a title backwards ("gpj.exe"), and
# the bidi algorithm orders Hebrew or Arabic titles well without them. The marks
# (LRM, RLM, ALM) stay: they affect only the characters next to them.
_BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")


def plain_text(value: str | None, *, is_html: bool = False, limit: int = MAX_TEXT_CHARS) -> str:
    """A title or name as plain text: tags dropped (if HTML), entities decoded,
    control and bidi-override characters removed, whitespace collapsed, length
    capped."""
    if not value:
        return ""
    if len(value) > limit * 20:
        value = value[: limit * 20]
    if is_html:
        value = html.unescape(
            nh3.clean(value, tags=set(), clean_content_tags=set(DROP_WITH_CONTENT))
        )
    value = _WS.sub(" ", _BIDI_CONTROL.sub("", _CONTROL.sub("", value))).strip()
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
