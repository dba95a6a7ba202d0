"""HTML sanitising for feed content, and plain-text extraction for titles.

Everything a feed supplies is hostile until it has been through here. We use nh3
(ammonia, an html5ever-based allowlist sanitiser) rather than feedparser's
regex-era sanitiser, and we resolve relative URLs ourselves against the entry's
base so that no URL survives that is not absolute http, https or mailto: a desktop
viewer must never be tricked into ``file:``, ``javascript:`` or ``data:``.
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

ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "*": {"title", "lang", "dir"},
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

MAX_HTML_CHARS = 1_000_000  # per field; longer content is cut (the cut is marked)
MAX_TEXT_CHARS = 1_000  # titles, authors
MAX_URL_CHARS = 4_096

MAX_DEPTH = 256  # html5ever is quadratic in nesting depth; real articles stay far below

_WS = re.compile(r"\s+")
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)[^>]*?(/?)>")
_ANY_TAG = re.compile(r"<[^>]*>")
# Elements that have no end tag or whose end tag is implied by a sibling.
_NO_DEPTH = frozenset(
    {"br", "hr", "img", "wbr", "source", "col", "input", "meta", "link", "base", "area",
     "embed", "param", "track", "p", "li", "dt", "dd", "tr", "td", "th", "option", "rp", "rt"}
)  # fmt: skip


def nesting_depth(fragment: str, limit: int = MAX_DEPTH) -> int:
    """Approximate element nesting depth (stops counting once past ``limit``)."""
    depth = peak = 0
    for m in _TAG.finditer(fragment):
        if m.group(2).lower() in _NO_DEPTH or m.group(3):
            continue
        if m.group(1):
            depth = max(0, depth - 1)
        else:
            depth += 1
            if depth > peak:
                peak = depth
                if peak > limit:
                    break
    return peak


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


def sanitize_html(fragment: str, base: str | None = None) -> tuple[str, bool]:
    """Return (safe HTML, truncated?). URLs are resolved against ``base``.

    Allowlisted tags and attributes only; ``style`` attributes and elements are
    gone (no ``url()``), links get ``rel="noopener noreferrer nofollow"``.
    """
    if not fragment:
        return "", False
    truncated = len(fragment) > MAX_HTML_CHARS
    if truncated:
        fragment = fragment[:MAX_HTML_CHARS]
    fragment = _CONTROL.sub("", fragment)
    if nesting_depth(fragment) > MAX_DEPTH:
        # Pathological nesting: keep the words, drop the structure.
        text = html.unescape(_ANY_TAG.sub(" ", fragment))
        return text_to_html(text) + "<p><em>[formatting removed: nested too deeply]</em></p>", True

    def attribute_filter(tag: str, attr: str, value: str) -> str | None:
        if attr in URL_ATTRIBUTES:
            return safe_url(value, base)  # html5ever already decoded entities
        return value

    cleaned = nh3.clean(
        fragment,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROP_WITH_CONTENT),
        attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()},
        attribute_filter=attribute_filter,
        url_schemes=set(SAFE_SCHEMES),
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    if truncated:
        cleaned += "<p><em>[content truncated]</em></p>"
    return cleaned, truncated


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
