"""The reading pane: one sanitised article in a ``QTextBrowser``, safely.

Safety rules, enforced in ``loadResource`` (the only way a ``QTextBrowser`` fetches
anything):

* nothing but ``http``/``https`` is ever loaded: no ``file:``, ``qrc:``, relative or
  ``data:`` resources, so an article cannot read local files or probe paths;
* an image that is not loaded is drawn from our own stand-in ``QImage``: Qt
  reads an image's name as a local file when ``loadResource`` gives it no image;
* remote images load only when the feed's "load images" setting is on, or after
  the user presses "Load images" for this article. They are fetched
  asynchronously with ``QNetworkAccessManager`` (never blocking the GUI thread),
  size-limited, and the document is re-laid out when they arrive;
* every image is sized by ``ReaderBrowser.fit_images`` once the HTML is in:
  never wider than the text column (aspect kept; again when the pane is
  resized), and one not loaded takes no more room than a small sign or its
  alt text; the "Load images" bar counts those, whatever their attributes;
* tables keep their words whole (``ReaderBrowser.fit_tables``): a table that
  cannot fit the text column makes the article scroll sideways, nothing else;
* links never navigate inside the view (``setOpenLinks(False)``); clicked
  ``http(s)``/``mailto`` links open in the system browser, except a link into
  the article itself: a footnote's ``#fn1`` is stored resolved, as
  ``<item link>#fn1`` (``net.sanitize``), and scrolls the pane to the
  article's own ``id="fn1"`` (kept as ``ID_PREFIX + "fn1"``) when it is here.

Typography: title, then feed · author · date, then content, in a column of
readable width centred in the pane (code blocks in frames with room around the
code, see ``_qt_blocks``), with CSS built from the current palette so
it follows light and dark themes. The text size is the user's (``set_zoom``;
View ▸ Larger/Smaller text, Ctrl+wheel): every size in the style sheet and the
column's width scale together, so a line keeps its ~70 characters.

Signals:
    actionRequested(str): an ``action:<name>`` link was clicked: on the welcome
        page ("add", "import", "demo"); in an article's full-article note ("full":
        load its page, "feedtext": back to the feed's text, "fullagain": reload).
    loadImagesRequested(): the user asked to load images for this article.
    zoomChanged(float): the text size changed (1.0 = normal), to be remembered.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import mimetypes
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QPointF,
    QRectF,
    QSize,
    QSizeF,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QFontInfo,
    QFontMetricsF,
    QImage,
    QPainter,
    QPalette,
    QPolygonF,
    QTextBlock,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextFrameFormat,
    QTextImageFormat,
    QTextLength,
    QTextOption,
    QTextTable,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from smartreader.gui.safetext import tip
from smartreader.net.fetch import is_local_host
from smartreader.net.sanitize import ID_PREFIX, plain_text, tame_stored
from smartreader.text import long_date_time, size_text

try:  # QtNetwork ships with PySide6-Essentials; stay usable without it.
    from PySide6.QtNetwork import QNetworkAccessManager, QNetworkReply, QNetworkRequest
except ImportError:  # pragma: no cover
    QNetworkAccessManager = None  # type: ignore[assignment,misc]

READ_WIDTH_PX = 720  # ~70 characters of body text
BODY_PT = 11.0  # body text size at the normal zoom
# The application font size the sizes here (BODY_PT, READ_WIDTH_PX, the style
# sheet's) are meant for. With a larger or smaller system font they all grow or
# shrink by as much (a 16 pt desktop read 11 pt articles under 16 pt menus), and
# the user's zoom multiplies that.
UI_REFERENCE_PT = 9.0
MIN_SIDE_MARGIN = 28
MAX_IMAGE_BYTES = 5 * 1024 * 1024
# wider images are kept at this width (memory); still sharp on a 2x screen
MAX_STORED_IMAGE_PX = 2 * READ_WIDTH_PX
PLACEHOLDER_PX = 16  # an image not loaded, without alt text: a small picture sign
# Qt rounds each column of a table squeezed into the column up to whole pixels:
# the document comes out a pixel or two wider than the pane (about one per four
# columns) though the table is drawn within the text column. A sideways scroll
# bar for that little would scroll over nothing but the blank side margin.
SIDEWAYS_SLACK_PX = 8
TABLE_REFIT_MS = 120  # a resize that pauses this long fits the tables again
# Fitting lays the article out twice more (~40 ms for a typical one with a table,
# ~0.5 s for a 300-row table): above these, tables keep Qt's own fit.
MAX_FIT_CELLS = 1_500
MAX_FIT_CHARS = 200_000
MAX_ALT_CHARS = 200
MAX_PIXEL_PX = 2  # an image declared this wide or high, or less, is not shown
MAX_NAME_CHARS = 80  # an attachment's file name, shown (longer: cut in the middle)
# How a feed's text says it was cut short (WordPress's "[…]", "Continue reading
# →", "Read more", "Weiterlesen"...): the article then offers its page (Article ▸
# Load full article is there for every article, in the toolbar too).
_CUT_SHORT = re.compile(
    r"(?:…|\.\.\.|\[\s*(?:…|\.\.\.)\s*\]|\b(?:read|see) (?:the )?(?:more|rest|full \w+)"
    r"|\bcontinue reading|\bweiterlesen|\blire la suite|\bleer m[aá]s|\bleggi tutto"
    r"|\blees verder|\blees meer|\bmore\s*[»›→])[^\w]*(?:\w+[^\w]*){0,6}\Z",
    re.I,
)


def looks_cut_short(feed_text: str) -> bool:
    """Whether an article's text (plain) ends as a summary cut from a longer one:
    an ellipsis, or a "read more" within its last few words."""
    return bool(_CUT_SHORT.search(feed_text[-300:].rstrip()))


REMOTE_SCHEMES = ("http", "https")
OPENABLE_SCHEMES = ("http", "https", "mailto")
# text sizes offered, as factors of the normal one (the steps of most browsers)
ZOOM_STEPS = (0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0)


def _opaque(color: QColor, over: QColor) -> str:
    """``color`` laid over ``over``, as a CSS colour. Qt's default placeholder
    colour (and macOS's) is translucent black: ``name()`` drops the alpha, so
    the meta line and quotes came out as black as the text."""
    a = color.alphaF()
    mix = [
        a * c + (1 - a) * o for c, o in zip(color.getRgbF()[:3], over.getRgbF()[:3], strict=True)
    ]
    return QColor.fromRgbF(*mix).name()


def _css(pal: QPalette, scale: float = 1.0) -> str:
    base = pal.color(QPalette.ColorRole.Base)
    text = _opaque(pal.color(QPalette.ColorRole.Text), base)
    muted = _opaque(pal.color(QPalette.ColorRole.PlaceholderText), base)
    link = _opaque(pal.color(QPalette.ColorRole.Link), base)
    dark = base.lightness() < 128
    code_bg = base.lighter(135).name() if dark else base.darker(106).name()
    rule = base.lighter(160).name() if dark else base.darker(118).name()
    grid = base.lighter(230).name() if dark else base.darker(125).name()  # table cells
    key_bg = base.lighter(170).name() if dark else base.darker(115).name()  # <kbd>
    # <mark>: a highlighter's yellow, deep on a dark page; its own text colour
    mark_bg, mark_fg = ("#6b5a00", "#fff8d6") if dark else ("#fff099", "#1a1a1a")

    def pt(size: float) -> str:
        return f"{size * scale:.4g}pt"

    # Qt's rich text ignores a size or line height on body (the document's
    # default font sets the size, see _render) and lets a plain "h1" rule beat
    # "h1.title": the article's own text is styled inside its div only.
    # Only a link that goes somewhere looks like one: an anchor whose href the
    # sanitiser dropped (javascript:), or a footnote's target, reads as text.
    # An article's tables get hairline cells in a grey of the theme and a little
    # padding; Qt wraps their cells' lines between words only (fit_tables), and a
    # table too wide for the column scrolls sideways.
    # A figure's caption (figcaption, see _qt_figures) reads like the meta line,
    # and the figure is set off from the text that follows.
    # A code block's lines are set solid: a list item's 145% ran on into the
    # code in it, striping its background. Qt ignores a block's padding: a code
    # block is in a frame (_qt_blocks) whose border, in the colour of its
    # background, is the room around the code. Qt draws no border around
    # inline text: a key (kbd) is told by its type and a deeper background.
    return f"""
body {{ color: {text}; }}
div.content p {{ line-height: 145%; }}
div.content li {{ line-height: 145%; }}
a {{ text-decoration: none; }}
a[href] {{ color: {link}; }}
div.content table {{ border-collapse: collapse; margin-top: 4px; margin-bottom: 12px; }}
div.content td {{ border: 1px solid {grid}; padding: 3px 5px; }}
div.content th {{ border: 1px solid {grid}; padding: 3px 5px; background-color: {code_bg}; }}
div.content div.figure {{ margin-bottom: 14px; }}
div.content div.caption {{ color: {muted}; font-size: {pt(9.5)}; margin-top: 4px;
    margin-bottom: 14px; }}
div.content h1 {{ font-size: {pt(16)}; }}
div.content h2 {{ font-size: {pt(14)}; }}
div.content h3 {{ font-size: {pt(12)}; }}
p {{ margin-top: 0; margin-bottom: 10px; }}
h1.title {{ font-size: {pt(19)}; font-weight: 700; margin-top: 4px; margin-bottom: 6px; }}
h1.title a {{ color: {text}; }}
p.meta {{ color: {muted}; font-size: {pt(9.5)}; margin-top: 0; margin-bottom: 16px; }}
p.imgnote {{ color: {muted}; font-size: {pt(9)}; }}
p.empty {{ color: {muted}; font-size: {pt(12)}; margin-top: 120px; }}
pre, code {{ font-family: monospace; background-color: {code_bg}; }}
pre {{ white-space: pre-wrap; }}
div.content pre {{ line-height: 100%; }}
div.content table.code {{ background-color: {code_bg}; border: {_CODE_PAD_PX}px solid {code_bg};
    margin-top: 2px; margin-bottom: 12px; }}
div.content td.code {{ border: none; padding: 0; }}
div.content table.code pre {{ margin-top: 0; margin-bottom: 0; }}
kbd {{ font-family: monospace; background-color: {key_bg}; }}
mark {{ background-color: {mark_bg}; color: {mark_fg}; }}
span.info {{ color: {muted}; }}
blockquote {{ color: {muted}; margin-left: 14px; padding-left: 10px; }}
table.encl {{ margin-top: 12px; }}
td.rule {{ border-top: 1px solid {rule}; }}
div.welcome h1 {{ font-size: {pt(20)}; }}
.welcome a.btn {{ font-weight: 600; }}
"""


def _fmt_date(t: float | None) -> str:
    if not t:
        return ""
    return long_date_time(dt.datetime.fromtimestamp(t))


_NOTHING = QByteArray()  # a resource that renders as nothing (not for images, see below)

_P = QTextFormat.Property
# what the article declared, kept on the format so a resize fits from it again
_DECLARED_W = int(_P.UserProperty) + 1
_DECLARED_H = int(_P.UserProperty) + 2
_IMAGE_ONLY = (
    _P.ObjectType,
    _P.ImageName,
    _P.ImageWidth,
    _P.ImageHeight,
    _P.ImageAltText,
    _P.ImageTitle,
    _P.ImageMaxWidth,
    _P.ImageQuality,
    _DECLARED_W,
    _DECLARED_H,
)
_stand_ins: dict[str, QImage] = {}


def _loading_image() -> QImage:
    """Transparent: the room an image being fetched will take stays empty."""
    if "loading" not in _stand_ins:
        img = QImage(1, 1, QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(Qt.GlobalColor.transparent)
        _stand_ins["loading"] = img
    return _stand_ins["loading"]


def _blocked_image() -> QImage:
    """A small picture sign in a mid grey that reads on light and dark."""
    if "blocked" not in _stand_ins:
        n = PLACEHOLDER_PX
        img = QImage(n, n, QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(Qt.GlobalColor.transparent)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        grey = QColor(128, 128, 128, 200)
        p.setPen(grey)
        p.drawRoundedRect(QRectF(1.5, 2.5, n - 3, n - 5), 2, 2)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(grey)
        p.drawPolygon(QPolygonF([QPointF(3, n - 4), QPointF(7, 7), QPointF(10, 11),
                                 QPointF(11.5, 9.5), QPointF(n - 3, n - 4)]))  # fmt: skip
        p.drawEllipse(QPointF(n - 5.5, 6), 1.5, 1.5)
        p.end()
        _stand_ins["blocked"] = img
    return _stand_ins["blocked"]


def _declared(fmt: QTextImageFormat, which: int, prop: _P) -> float:
    """The width or height the article gave, -1 if none (Qt reads "100%" as -2)."""
    if fmt.hasProperty(which):
        return fmt.doubleProperty(which)
    value = fmt.doubleProperty(prop) if fmt.hasProperty(prop) else -1.0
    fmt.setProperty(which, value)
    return value


def _fitted(dw: float, dh: float, natural: QSize | None, room: float) -> tuple[float, float] | None:
    """Width and height within ``room`` (aspect kept, small stays small), or None:
    no size known yet."""
    if dw == 0 or dh == 0:
        return 0.0, 0.0  # declared invisible (tracking pixels)
    if natural is None or natural.isEmpty():
        if dw < 0 or dh < 0:
            return None
        ratio, w = dh / dw, dw
    else:
        nw, nh = natural.width(), natural.height()
        ratio = dh / dw if dw > 0 and dh > 0 else nh / nw
        w = dw if dw > 0 else (dh / ratio if dh > 0 else nw)
    w = min(w, max(room, PLACEHOLDER_PX))
    return w, w * ratio


def _without_fragment(url: QUrl) -> QUrl:
    # (PySide6 takes RemoveFragment only within a combined formatting option)
    return url.adjusted(
        QUrl.ComponentFormattingOption.PrettyDecoded | QUrl.UrlFormattingOption.RemoveFragment
    )


def _has_anchor(doc: QTextDocument, name: str) -> bool:
    """Whether some text in ``doc`` carries the anchor ``name`` (an id or a name)."""
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if name in it.fragment().charFormat().anchorNames():
                return True
            it += 1
        block = block.next()
    return False


def _indent(doc: QTextDocument, block: QTextBlock) -> float:
    """How much narrower than the column a block is (lists, quotes)."""
    bf = block.blockFormat()
    x = bf.leftMargin() + bf.rightMargin() + max(0.0, bf.textIndent())
    x += bf.indent() * doc.indentWidth()
    lst = block.textList()
    if lst is not None:
        x += lst.format().indent() * doc.indentWidth()
    return x


# A tag of the sanitiser's (well-formed) output; a quoted value may hold ">".
_TAG = re.compile(r"""<(/?)([A-Za-z][A-Za-z0-9]*)((?:[^>"']|"[^"]*"|'[^']*')*)>""")
_VOID_TAGS = frozenset({"br", "col", "hr", "img", "source", "wbr"})  # those it keeps


def _qt_figures(body: str) -> str:
    """``body`` with its figures in blocks Qt lays out as such: Qt knows neither
    ``figure`` nor ``figcaption``, and ran an image's alt text and its caption
    together on one line. A caption becomes ``div.caption``; the rest of a
    figure goes in divs around it (Qt adds inline content that follows a block
    in a div to that block), the last of them ``div.figure``, set off from the
    text after the figure (as a caption that comes last is itself)."""
    if "<fig" not in body:
        return body
    out: list[str] = []
    # per open figure: the depth of its content, where its last part opens in out
    figures: list[tuple[int, int]] = []
    depth = 0  # elements open
    pos = 0
    for m in _TAG.finditer(body):
        out.append(body[pos : m.start()])
        pos = m.end()
        closing, name, attrs = bool(m.group(1)), m.group(2).lower(), m.group(3)
        in_figure = bool(figures) and figures[-1][0] == depth  # directly
        if name == "figure" and not closing:
            depth += 1
            out.append(f"<div{attrs}>")
            figures.append((depth, len(out)))
            out.append("<div class='figure'>")
        elif name == "figure" and in_figure:
            figures.pop()
            depth -= 1
            out.append("</div></div>")
        elif name == "figcaption" and not closing:
            if in_figure:  # what went before is not the figure's last part
                out[figures[-1][1]] = "<div>"
                out.append("</div>")
            depth += 1
            out.append(f"<div class='caption'{attrs}>")
        elif name == "figcaption":
            depth -= 1
            out.append("</div>")
            if figures and figures[-1][0] == depth:
                figures[-1] = (depth, len(out))
                out.append("<div class='figure'>")
        else:
            if name not in _VOID_TAGS:
                depth += -1 if closing else 1
            out.append(m.group(0))
    out.append(body[pos:])
    return "".join(out)


# Elements Qt lays out as blocks (what the sanitiser keeps; any other is inline).
_BLOCK_TAGS = frozenset(
    {"address", "article", "aside", "blockquote", "caption", "center", "colgroup", "dd",
     "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
     "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "main",
     "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot",
     "th", "thead", "tr", "ul"}
)  # fmt: skip
# <q>'s marks (and a <q>'s within one) by the language in force, as CLDR gives
# them; any other language, or none declared: English's.
_QUOTES = (("\u201c", "\u201d"), ("\u2018", "\u2019"))
_LOW_HIGH = (("\u201e", "\u201c"), ("\u201a", "\u2018"))  # „…“ ‚…‘
_GUILLEMETS = (("\u00ab", "\u00bb"), ("\u201c", "\u201d"))  # «…» “…”
_CORNERS = (("\u300c", "\u300d"), ("\u300e", "\u300f"))  # 「…」 『…』
_SWISS = (("\u00ab", "\u00bb"), ("\u2039", "\u203a"))  # «…» ‹…›
_QUOTES_BY_LANG: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    **dict.fromkeys(("de", "cs", "sk", "sl", "is", "lt", "et"), _LOW_HIGH),
    **dict.fromkeys(("es", "it", "el", "ca", "eu", "gl", "pt-pt"), _GUILLEMETS),
    **dict.fromkeys(("de-ch", "de-li", "fr-ch", "it-ch"), _SWISS),
    **dict.fromkeys(("ja", "zh-hant", "zh-tw", "zh-hk", "zh-mo"), _CORNERS),
    "fr": (("\u00ab\u00a0", "\u00a0\u00bb"), ("\u201c", "\u201d")),  # « … », spaced
    "ru": (("\u00ab", "\u00bb"), ("\u201e", "\u201c")),
    "uk": (("\u00ab", "\u00bb"), ("\u201e", "\u201c")),
    "be": (("\u00ab", "\u00bb"), ("\u201e", "\u201c")),
    "pl": (("\u201e", "\u201d"), ("\u00ab", "\u00bb")),
    "ro": (("\u201e", "\u201d"), ("\u00ab", "\u00bb")),
    "hu": (("\u201e", "\u201d"), ("\u00bb", "\u00ab")),
    "nl": (("\u2018", "\u2019"), ("\u201c", "\u201d")),
    "sv": (("\u201d", "\u201d"), ("\u2019", "\u2019")),
    "fi": (("\u201d", "\u201d"), ("\u2019", "\u2019")),
    "he": (("\u201d", "\u201d"), ("\u2019", "\u2019")),
    "nb": (("\u00ab", "\u00bb"), ("\u2018", "\u2019")),
    "nn": (("\u00ab", "\u00bb"), ("\u2018", "\u2019")),
    "no": (("\u00ab", "\u00bb"), ("\u2018", "\u2019")),
}
_DIR_ATTR = re.compile(r"""\bdir\s*=\s*["']?\s*(rtl|ltr)\b""", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""([^\s"'=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
_CODE_PAD_PX = 8  # the background around a code block's text (a frame's border)
# Code blocks set in frames, at most: Qt's work grows faster than their number
# (2,000 took the article from 0.4 s to 0.8 s, 4,000 from 0.9 s to 2.9 s); the
# rest are set as before. Real articles have a few dozen at most.
MAX_CODE_FRAMES = 200
# A code block's frame (see _qt_blocks): a frame, not a table, so that nothing
# fits it as one (fit_tables); its colours and room are the style sheet's.
_CODE_FRAME = "<table class='code' style='-qt-table-type: frame'><tr><td class='code'>"
_CODE_FRAME_END = "</td></tr></table>"
# An element with no text: ends Qt's reuse of a node made inside an element with
# a direction (see _qt_blocks).
_DIR_STOP = "<span></span>"


def _attributes(text: str) -> dict[str, str]:
    """A tag's attributes (names in lower case), values decoded."""
    out: dict[str, str] = {}
    for m in _ATTRIBUTE.finditer(text):
        value = next((v for v in m.group(2, 3, 4) if v is not None), "")
        out.setdefault(m.group(1).lower(), html.unescape(value))
    return out


def _quote_marks(lang: str, level: int) -> tuple[str, str]:
    """The marks of a ``q`` (``level`` 0) or a ``q`` within one (1) in ``lang``."""
    parts = lang.strip().lower().replace("_", "-").split("-")
    for key in ("-".join(parts[:2]), parts[0]):
        marks = _QUOTES_BY_LANG.get(key)
        if marks is not None:
            return marks[level]
    return _QUOTES[level]


_LENGTH = re.compile(r"\s*(\d+(?:\.\d*)?)\s*(?:px)?\s*", re.IGNORECASE)


def _pixel_sources(body: str) -> set[str]:
    """The addresses of ``body``'s images declared ``MAX_PIXEL_PX`` wide or high,
    or less (tracking pixels, spacers), as ``loadResource`` is asked for them.
    Known before the HTML goes in: with one side declared and not the other,
    Qt asks for the image while laying the article out, to learn the other,
    and a pixel was fetched before ``fit_images`` saw its size."""
    out: set[str] = set()
    for m in _TAG.finditer(body):
        if m.group(1) or m.group(2).lower() != "img":
            continue
        attrs = _attributes(m.group(3))
        sizes = (_LENGTH.fullmatch(attrs.get(k, "")) for k in ("width", "height"))
        if attrs.get("src") and any(s and float(s.group(1)) <= MAX_PIXEL_PX for s in sizes):
            out.add(QUrl(attrs["src"]).toString())
    return out


def _qt_blocks(body: str, *, rtl: bool = False) -> str:
    """``body`` as Qt needs it to lay it out as a browser would:

    * inline content that follows a block (in the article or in a div, quote,
      list item, cell) goes in a ``div`` of its own: Qt ran an image after a
      heading or a paragraph onto that block's last line;
    * a ``q`` gets its quotation marks written out (Qt draws none), those of the
      language its ``lang`` or an element around it declares (else English's);
    * in a right-to-left article a ``pre`` without ``dir`` stays left-to-right:
      code read right-aligned, its punctuation moved to the wrong end;
    * a code block (``pre``) goes in a frame (``table.code``): Qt ignores a
      block's padding, and the code's background began where its text did. The
      frame's border, in the background's colour, is that padding (not in a
      table, nor first in a list item, nor past ``MAX_CODE_FRAMES``);
    * one newline that ends a ``pre`` goes: a browser shows no blank line for
      it, Qt did (or a space at the end of the last line);
    * after an element with a ``dir``, an empty ``span``: Qt's HTML parser
      reuses an empty node made inside such an element for the element after
      it, with its direction, and the paragraph after a ``<div dir="rtl">``
      in an English article came out right-to-left."""
    out: list[str] = []
    # open elements: [name, is a block, a block ended in it, a run is wrapped,
    # what to write after its end tag, the language in force, a q's closing mark,
    # where its content starts in out]
    stack: list[list[Any]] = [["", True, False, False, "", "", "", 0]]

    def inline_here() -> None:  # inline content starts here
        top = stack[-1]
        if top[1] and top[2] and not top[3]:
            out.append("<div>")
            top[3] = True

    def end_run(top: list[Any]) -> None:
        if top[3]:
            out.append("</div>")
            top[3] = False

    def drop_final_newline() -> None:  # the code's last text, past end tags
        i = len(out) - 1
        while i >= 0 and (out[i] == "" or out[i].startswith("</")):
            i -= 1
        if i >= 0 and not out[i].startswith("<") and out[i].endswith("\n"):
            out[i] = out[i][:-1]

    quotes = 0  # q elements open
    tables = 0  # tables open
    pre = 0  # pre elements open
    frames = 0  # code frames written
    pos = 0
    after_stop = False  # a block with a direction just ended (and its _DIR_STOP)
    for m in _TAG.finditer(body):
        text = body[pos : m.start()]
        if after_stop and not text.strip():
            # Between blocks it shows as nothing; after the span, Qt added it
            # to the block before as a trailing space.
            text = ""
        after_stop = False
        if text.strip():
            inline_here()
        out.append(text)
        pos = m.end()
        closing, name, attrs = bool(m.group(1)), m.group(2).lower(), m.group(3)
        tag = m.group(0)
        block = name in _BLOCK_TAGS
        if closing:
            i = len(stack) - 1  # the element closed (well-formed: the innermost)
            while i > 0 and stack[i][0] != name:
                i -= 1
            after = ""
            if i > 0:
                if name == "pre" and pre == 1:  # the outermost
                    drop_final_newline()
                while len(stack) > i:
                    top = stack.pop()
                    end_run(top)
                    out.append(top[6])  # a q's closing mark
                    after = top[4] + after
                    after_stop |= top[1] and top[4].endswith(_DIR_STOP)
                    quotes -= top[0] == "q"
                    tables -= top[0] == "table"
                    pre -= top[0] == "pre"
                if block:
                    stack[-1][2] = True
            out.append(tag + after)
            after_stop = after_stop and not pre
            continue
        if block:
            end_run(stack[-1])
        else:
            inline_here()
        own = _attributes(attrs)
        after = _DIR_STOP if own.get("dir", "").strip() else ""
        if name == "pre":
            if rtl and "dir" not in own:  # (in the article's rtl div: no run-on)
                tag = f"<pre dir='ltr'{attrs}>"
            # Only the outermost, and not in a table: a cell's first block is
            # then an empty one before the frame, which fit_tables measured
            # the column by ("ls -l" broke in two). Nor first in a list item:
            # its bullet stood alone on an empty line above the code.
            parent = stack[-1]
            first_in_item = parent[0] == "li" and not "".join(out[parent[7] :]).strip()
            if not pre and not tables and not first_in_item and frames < MAX_CODE_FRAMES:
                frames += 1
                out.append(_CODE_FRAME)
                after = _CODE_FRAME_END + after
        out.append(tag)
        if name in _VOID_TAGS:
            if block:  # hr
                stack[-1][2] = True
            continue
        lang = own.get("lang", "").strip() or stack[-1][5]
        closing_mark = ""
        if name == "q":
            opening_mark, closing_mark = _quote_marks(lang, min(quotes, 1))
            out.append(opening_mark)
            quotes += 1
        tables += name == "table"
        pre += name == "pre"
        stack.append([name, block, False, False, after, lang, closing_mark, len(out)])
    text = body[pos:]
    if text.strip():
        inline_here()
    out.append(text)
    while stack:
        end_run(stack.pop())
    return "".join(out)


# Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko…)
_RTL_LETTER = re.compile(
    "(?=[^\\W\\d_])[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff"
    "\U0001e800-\U0001efff]"
)
_LETTER = re.compile(r"[^\W\d_]")
MAX_DIRECTION_CHARS = 20_000  # the first this many characters of text decide


def _declared_dir(body: str) -> str | None:
    """The direction ``body`` declares for all of itself ("rtl", "ltr"), or None:
    some of its text is under no ``dir``, or its parts declare different ones."""
    declared: set[str] = set()
    stack: list[str | None] = [None]  # per open element: the direction it is under
    pos = 0
    for m in _TAG.finditer(body):
        if stack[-1] is None and body[pos : m.start()].strip():
            return None
        pos = m.end()
        closing, name = bool(m.group(1)), m.group(2).lower()
        if closing:
            if len(stack) > 1:
                stack.pop()
            continue
        own = _DIR_ATTR.search(m.group(3))
        if stack[-1] is None and own:
            declared.add(own.group(1).lower())
        elif stack[-1] is None and name == "img":
            return None
        if name not in _VOID_TAGS:
            stack.append(own.group(1).lower() if own else stack[-1])
    if stack[-1] is None and body[pos:].strip():
        return None
    return declared.pop() if len(declared) == 1 else None


def _article_dir(title: str, body: str) -> str:
    """The direction an article reads in: the one its content declares, else
    right-to-left when most of the letters of its title and content are of a
    right-to-left script. Qt gives each block the direction of its first letter:
    a Hebrew paragraph that starts with "iPhone" or "2024" was set left-to-right."""
    declared = _declared_dir(body)
    if declared:
        return declared
    text = title + " " + html.unescape(_TAG.sub(" ", body[: MAX_DIRECTION_CHARS * 4]))
    text = text[:MAX_DIRECTION_CHARS]
    rtl = len(_RTL_LETTER.findall(text))
    return "rtl" if rtl > len(_LETTER.findall(text)) - rtl else "ltr"


_KINDS = {"audio": "Audio", "video": "Video", "image": "Image", "text": "Text"}


def _file_name(url: str) -> str:
    """The name an attachment's address ends with, as people read it: its last
    path segment, percent-decoded, without the query (anchor.fm's end in a
    whole encoded address: the name is that address's last segment)."""
    path = urllib.parse.urlsplit(url).path
    name = path.rstrip("/").rsplit("/", 1)[-1]
    for _ in range(3):  # an address encoded in the segment (twice, at worst)
        decoded = urllib.parse.unquote(name)
        if decoded == name:
            break
        name = urllib.parse.urlsplit(decoded).path.rstrip("/").rsplit("/", 1)[-1] or decoded
    name = " ".join(name.split())
    if len(name) > MAX_NAME_CHARS:
        half = MAX_NAME_CHARS // 2
        name = name[: half - 1] + "…" + name[-half:]
    return name or url


def _attachment_info(mime: str, length: int | None, name: str) -> str:
    """The kind of file (from its type, else its name) and its size when the feed
    gives one: "Audio · 46 MiB" (not "audio/x-m4a")."""
    mime = (mime or "").strip().lower() or (mimetypes.guess_type(name)[0] or "")
    major = mime.split("/", 1)[0]
    kind = "PDF" if mime == "application/pdf" else _KINDS.get(major, "")
    size = ""
    if length and length > 0:  # 0 and -1: "not known", in feeds
        gib = 1024**3  # size_text goes no higher than MiB: a film's "2048 MiB"
        size = size_text(length) if length < gib else f"{length / gib:.1f} GiB"
    return " · ".join(p for p in (kind, size) if p)


_PARAGRAPH_END = "\u2029"  # between two blocks of a frame (not a frame's edge)


def _code_frames(frame: QTextFrame) -> list[QTextFrame]:
    """The code frames in ``frame`` (see ``_qt_blocks``): in an article, the only
    frames that are not tables."""
    out: list[QTextFrame] = []
    for child in frame.childFrames():
        if not isinstance(child, QTextTable):
            out.append(child)
        out.extend(_code_frames(child))
    return out


def _tighten_code_frames(doc: QTextDocument) -> None:
    """The empty blocks Qt puts around a code frame take no room, so that the
    frame's margins alone space it: the one always after it is set 0 px high;
    the one before it when the code opens a div (a highlighter's
    ``<div><pre>``: a line and a paragraph's margin more above the code than
    below it) joins the block before it, or is set 0 px high where it cannot."""
    frames = _code_frames(doc.rootFrame())
    if not frames:
        return

    def empty(block: QTextBlock) -> bool:
        return block.isValid() and block.length() <= 1 and block.textList() is None

    def flatten(block: QTextBlock) -> None:
        fmt = block.blockFormat()
        fmt.setTopMargin(0)
        fmt.setBottomMargin(0)
        fmt.setLineHeight(0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        cur.setPosition(block.position())
        cur.setBlockFormat(fmt)

    cur = QTextCursor(doc)
    cur.beginEditBlock()
    for frame in reversed(frames):  # (joining moves what follows)
        after = doc.findBlock(frame.lastPosition() + 1)
        if empty(after):
            flatten(after)
        before = doc.findBlock(frame.firstPosition() - 1)
        if not empty(before):
            continue
        prev = before.previous()
        if (
            prev.isValid()
            and doc.characterAt(before.position() - 1) == _PARAGRAPH_END
            and doc.frameAt(prev.position()) == doc.frameAt(before.position())
        ):
            cur.setPosition(before.position())
            cur.deletePreviousChar()  # the empty block joins the one before
        else:
            flatten(before)
    cur.endEditBlock()


def _tables(frame: QTextFrame) -> list[QTextTable]:
    """Every table in ``frame``, tables in tables too, in document order."""
    out: list[QTextTable] = []
    for child in frame.childFrames():
        if isinstance(child, QTextTable):
            out.append(child)
        out.extend(_tables(child))
    return out


def _column_blocks(table: QTextTable) -> list[QTextBlock | None]:
    """For each column, the first block of a cell of that column alone (whose
    width follows the column's), or None: every cell there spans others."""
    out: list[QTextBlock | None] = []
    for c in range(table.columns()):
        found = None
        for r in range(table.rows()):
            cell = table.cellAt(r, c)
            if cell.column() == c and cell.columnSpan() == 1:
                found = cell.firstCursorPosition().block()
                break
        out.append(found)
    return out


def _cell_sides(table: QTextTable, column: int) -> float:
    """About what a cell of ``column`` takes beside its text (padding, borders)."""
    for r in range(table.rows()):
        cell = table.cellAt(r, column)
        if cell.column() == column:
            f = cell.format().toTableCellFormat()
            pad = table.format().cellPadding()
            return (
                (f.leftPadding() or pad) + (f.rightPadding() or pad)
                + f.leftBorder() + f.rightBorder()
            )  # fmt: skip
    return 0.0


def _set_columns(table: QTextTable, widths: list[float | None]) -> None:
    """Fix each column of ``table`` at its width (None: as Qt likes); the same
    widths again lay nothing out again."""
    fmt = table.format()
    fixed = QTextLength.Type.FixedLength
    lengths = [QTextLength() if w is None else QTextLength(fixed, w) for w in widths]
    if fmt.columnWidthConstraints() != lengths:
        fmt.setColumnWidthConstraints(lengths)
        table.setFormat(fmt)


class ReaderBrowser(QTextBrowser):
    """A ``QTextBrowser`` that loads only what the rules above allow."""

    imageFinished = Signal()  # an image arrived or failed: lay the article out again
    zoomStep = Signal(int)  # Ctrl+wheel: +1 larger, -1 smaller

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.allow_remote_images = False
        # images from loopback/private addresses only for a feed that lives there
        # itself: a public feed's <img> must not make requests into the user's
        # network (router admin URLs). Literal addresses and local names only:
        # resolving names here would block the GUI thread.
        self.local_images_ok = False
        self.blocked_images = 0  # remote images waiting for the user's permission
        self.requested: list[str] = []  # every resource asked for (tests, diagnostics)
        self._images: dict[str, QImage] = {}
        self._scaled: dict[str, QImage] = {}  # each image at the size last shown
        self._failed: set[str] = set()
        self._pending: set[str] = set()
        self._pixels: set[str] = set()  # declared too small to see: never fetched
        self._nam: Any = None

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        # Never return None, nor empty bytes for an image: Qt then reads the
        # name as a local path itself (a relative "/dev/zero" image aborted the
        # process with std::bad_alloc; a picture on the disk was shown).
        url = QUrl(name)
        self.requested.append(url.toString())
        if int(type) != int(QTextDocument.ResourceType.ImageResource):
            return _NOTHING  # no remote style sheets or anything else
        state = self.image_state(url.toString())
        if state == "loaded":
            return self._images[url.toString()]
        if state == "loading":
            self._fetch(url)
            return _loading_image()
        return _blocked_image()  # file:, qrc:, data:, relative: never

    def refuse_pixels(self, names: set[str]) -> None:
        """Never fetch these images (declared too small to see; see
        ``_pixel_sources``), until ``clear_images``."""
        self._pixels |= names

    def image_state(self, name: str) -> str:
        """Where an image stands: loaded; loading (allowed, not here yet);
        blocked (waits for the user's permission); refused (never: not http(s),
        a local address for a public feed, failed)."""
        url = QUrl(name)
        if url.scheme().lower() not in REMOTE_SCHEMES:
            return "refused"
        key = url.toString()
        if key in self._images:
            return "loaded"
        if key in self._pixels:
            return "refused"
        if not self.allow_remote_images:
            return "blocked"
        if key in self._failed or not self._host_ok(url) or QNetworkAccessManager is None:
            return "refused"
        return "loading"

    def fit_images(self, width: float) -> int:
        """Size the document's images for a text column ``width`` px wide; the
        number of remote images waiting for the user's permission.

        Qt sizes an image by its width/height attributes (and asks for it only
        when painting) or else by the image itself; neither knows the pane."""
        doc = self.document()
        pdev = doc.documentLayout().paintDevice()
        dpi_scale = pdev.logicalDpiY() / 96 if pdev is not None else 1.0  # Qt's, for images
        found: list[tuple[int, QTextImageFormat, float]] = []
        lines: list[QTextBlock] = []
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                if fmt.isImageFormat():
                    if not lines or lines[-1] != block:
                        lines.append(block)
                    room = (width - _indent(doc, block)) / dpi_scale
                    found.extend(
                        (frag.position() + i, fmt.toImageFormat(), room)
                        for i in range(frag.length())
                    )
                it += 1
            block = block.next()
        if not found:
            return 0
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
        waiting = 0
        cur = QTextCursor(doc)
        cur.beginEditBlock()
        for block in lines:
            # A proportional line height grows with the image on the line (145%
            # of a 400 px image leaves 180 px blank): the same gap in pixels.
            bf = block.blockFormat()
            if bf.lineHeightType() == QTextBlockFormat.LineHeightTypes.ProportionalHeight.value:
                gap = (bf.lineHeight() - 100) / 100
                spacing = QFontMetricsF(block.charFormat().font()).lineSpacing()
                distance = QTextBlockFormat.LineHeightTypes.LineDistanceHeight.value
                bf.setLineHeight(gap * spacing, distance)
                cur.setPosition(block.position())
                cur.setBlockFormat(bf)
        for pos, fmt, room in reversed(found):  # alt text in place shifts what follows
            name = fmt.name()
            dw = _declared(fmt, _DECLARED_W, _P.ImageWidth)
            dh = _declared(fmt, _DECLARED_H, _P.ImageHeight)
            # A tracking pixel (feedburner's 1×1) or a spacer: nothing to see, so
            # no "Load images" bar for it, no alt text, and no request to tell on
            # the reader.
            pixel = 0 <= dw <= MAX_PIXEL_PX or 0 <= dh <= MAX_PIXEL_PX
            if pixel:
                self._pixels.add(QUrl(name).toString())
            state = self.image_state(name)
            waiting += state == "blocked"
            cur.setPosition(pos)
            cur.setPosition(pos + 1, QTextCursor.MoveMode.KeepAnchor)
            if state in ("blocked", "refused"):
                alt = " ".join(fmt.stringProperty(_P.ImageAltText).split())
                if alt and not pixel:
                    if len(alt) > MAX_ALT_CHARS:
                        alt = alt[: MAX_ALT_CHARS - 1] + "…"
                    text = fmt.toCharFormat()
                    for prop in _IMAGE_ONLY:
                        text.clearProperty(prop)
                    text.setFontItalic(True)
                    if not text.isAnchor():
                        text.setForeground(muted)
                    cur.insertText(f"[{alt}]", text)
                    continue
                side = 0 if pixel else PLACEHOLDER_PX
                fmt.setWidth(side if dw < 0 else min(dw, side))
                fmt.setHeight(side if dh < 0 else min(dh, side))
            else:
                key = QUrl(name).toString()
                img = self._images.get(key)
                box = _fitted(dw, dh, img.size() if img is not None else None, room)
                if box is None:  # being fetched, size unknown: the stand-in's 1 px
                    fmt.clearProperty(_P.ImageWidth)
                    fmt.clearProperty(_P.ImageHeight)
                else:
                    fmt.setWidth(box[0])
                    fmt.setHeight(box[1])
                    if img is not None:  # drawn 1:1, smoothly scaled once, not per paint
                        dpr = self.devicePixelRatioF() * dpi_scale
                        size = QSize(max(1, round(box[0] * dpr)), max(1, round(box[1] * dpr)))
                        doc.addResource(
                            QTextDocument.ResourceType.ImageResource,
                            QUrl(name),
                            self._scaled_image(key, img, size),
                        )
            cur.setCharFormat(fmt)
        cur.endEditBlock()
        return waiting

    def fit_tables(self, page_width: float, widest: float) -> None:
        """Lay the document's tables out with their cells' words whole, for a
        page ``page_width`` px wide whose text column is ``widest`` px.

        Qt breaks a line between words, or inside a word too long for the line.
        For a table that made one letter the narrowest a column could be: words
        in cells were broken anywhere ("Imple/mentat/ion", "1,234,/567") and a
        table wider than the column was squeezed into it. Laid out with whole
        words only, on a copy of the document, the columns get widths no word is
        broken in (the table as wide as they need, wider than the column if it
        must be); those widths are then fixed on the document's own tables, whose
        paragraphs still break a word longer than a line. No column is wider
        than the text column: a word longer than that is broken as in a paragraph."""
        doc = self.document()
        tables = _tables(doc.rootFrame())
        if not tables or page_width <= 0:
            return
        cells = sum(t.rows() * t.columns() for t in tables)
        if cells > MAX_FIT_CELLS or doc.characterCount() > MAX_FIT_CHARS:
            return  # two more layouts of it would hold the window up: Qt's own fit
        pdev = doc.documentLayout().paintDevice()
        dpi_scale = pdev.logicalDpiY() / 96 if pdev is not None else 1.0  # Qt's, for lengths
        natural: list[list[float | None]] = [[None] * t.columns() for t in tables]
        probe, probed = self._probe(page_width, natural, word_wrap=True)
        lay = probe.documentLayout()
        blocks = [_column_blocks(t) for t in probed]
        want = [[lay.blockBoundingRect(b).width() if b else 0.0 for b in bs] for bs in blocks]
        probe.deleteLater()
        # What a cell takes beside its text (padding, borders, shared when
        # collapsed) is Qt's to say: a guess, then measured (a pixel too many
        # per column and a table that just fits would scroll sideways).
        guess: list[list[float | None]] = [
            [w / dpi_scale + _cell_sides(t, c) if w > 0 else None for c, w in enumerate(ws)]
            for t, ws in zip(probed, want, strict=True)
        ]
        probe, probed = self._probe(page_width, guess, word_wrap=False)
        lay = probe.documentLayout()
        widths: list[list[float | None]] = []
        for t, ws, gs in zip(probed, want, guess, strict=True):
            row: list[float | None] = []
            for b, w, g in zip(_column_blocks(t), ws, gs, strict=True):
                if b is None or g is None:
                    row.append(None)
                else:
                    got = lay.blockBoundingRect(b).width()
                    row.append(min(g + (w - got) / dpi_scale, widest / dpi_scale))
            widths.append(row)
        probe.deleteLater()
        cur = QTextCursor(doc)
        cur.beginEditBlock()
        for t, fixed in zip(tables, widths, strict=True):
            _set_columns(t, fixed)
        cur.endEditBlock()

    def _probe(
        self, page_width: float, columns: list[list[float | None]], *, word_wrap: bool
    ) -> tuple[QTextDocument, list[QTextTable]]:
        """A copy of the document laid out on a page ``page_width`` px wide, its
        tables' columns fixed at ``columns`` (None: as Qt likes), lines broken
        between words only if ``word_wrap``; and its tables."""
        doc = self.document()
        probe = doc.clone(self)  # its resources are asked of loadResource too
        # all set before its layout exists: each change would lay it all out again
        probe.setPageSize(QSizeF(page_width, -1))
        if word_wrap:
            option = QTextOption(probe.defaultTextOption())
            option.setWrapMode(QTextOption.WrapMode.WordWrap)
            probe.setDefaultTextOption(option)
        probed = _tables(probe.rootFrame())
        for t, fixed in zip(probed, columns, strict=True):
            _set_columns(t, fixed)
        probe.documentLayout().setPaintDevice(doc.documentLayout().paintDevice())
        probe.size()  # lays it all out
        return probe, probed

    def _scaled_image(self, key: str, img: QImage, size: QSize) -> QImage:
        done = self._scaled.get(key)
        if done is not None and done.size() == size:
            return done
        if img.size() == size:
            scaled = img
        else:
            smooth = Qt.TransformationMode.SmoothTransformation
            scaled = img.scaled(size, Qt.AspectRatioMode.IgnoreAspectRatio, smooth)
        self._scaled[key] = scaled
        return scaled

    def wheelEvent(self, event: Any) -> None:
        # QTextEdit's own Ctrl+wheel zoom changes only the default font, which
        # the style sheet's sizes override: ours scales the sheet instead.
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            dy = event.angleDelta().y()
            if dy:
                self.zoomStep.emit(1 if dy > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)

    def _host_ok(self, url: QUrl) -> bool:
        return self.local_images_ok or not is_local_host(url.host(), resolve=False)

    def _redirected(self, reply: Any, url: QUrl) -> None:
        # checked like the first request; and never from https down to http
        down = reply.url().scheme() == "https" and url.scheme() != "https"
        if url.scheme().lower() in REMOTE_SCHEMES and not down and self._host_ok(url):
            reply.redirectAllowed.emit()
        else:
            reply.abort()

    def _fetch(self, url: QUrl) -> None:
        key = url.toString()
        if key in self._pending or QNetworkAccessManager is None:
            return
        if self._nam is None:
            self._nam = QNetworkAccessManager(self)
        self._pending.add(key)
        req = QNetworkRequest(url)
        req.setAttribute(
            QNetworkRequest.Attribute.RedirectPolicyAttribute,
            QNetworkRequest.RedirectPolicy.UserVerifiedRedirectPolicy,
        )
        req.setTransferTimeout(20_000)
        reply = self._nam.get(req)
        reply.downloadProgress.connect(
            lambda got, _total, r=reply: r.abort() if got > MAX_IMAGE_BYTES else None
        )
        reply.redirected.connect(lambda u, r=reply: self._redirected(r, QUrl(u)))
        reply.finished.connect(lambda r=reply, k=key: self._fetched(r, k))

    def _fetched(self, reply: Any, key: str) -> None:
        self._pending.discard(key)
        try:
            img = QImage()
            if reply.error() == QNetworkReply.NetworkError.NoError and img.loadFromData(
                bytes(reply.readAll().data())
            ):
                if img.width() > MAX_STORED_IMAGE_PX:
                    img = img.scaledToWidth(
                        MAX_STORED_IMAGE_PX, Qt.TransformationMode.SmoothTransformation
                    )
                self._images[key] = img
            else:  # its reserved room gives way to the sign or the alt text
                self._failed.add(key)
            self.imageFinished.emit()
        finally:
            reply.deleteLater()

    def clear_images(self) -> None:
        self._images.clear()
        self._scaled.clear()
        self._failed.clear()
        self._pixels.clear()
        self.blocked_images = 0
        # drops the scaled images fit_images added (setHtml keeps those)
        self.document().clear()


class ArticleView(QWidget):
    """Header bar for images + the reader browser; shows an ``Entry`` or a page."""

    actionRequested = Signal(str)
    loadImagesRequested = Signal()
    zoomChanged = Signal(float)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        open_url: Callable[[QUrl], Any] = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(parent)
        self._open_url = open_url
        self.browser = ReaderBrowser()
        self.browser.anchorClicked.connect(self._on_anchor)
        self.browser.imageFinished.connect(self._rerender_soon)
        self.browser.highlighted.connect(self._on_hover)
        self.browser.zoomStep.connect(self.zoom_step)
        self.browser.document().documentLayout().documentSizeChanged.connect(self._sideways)
        self.zoom = 1.0
        self.image_bar = QFrame()
        self.image_bar.setObjectName("imageBar")
        bar = QHBoxLayout(self.image_bar)
        bar.setContentsMargins(12, 4, 8, 4)
        self.image_label = QLabel("Images in this article are not loaded.")
        self.image_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.image_button = QPushButton("Load images")
        self.image_button.setToolTip(
            "Load this article's remote images (turn it on for the whole feed in Feed ▸ Properties)"
        )
        self.image_button.clicked.connect(self.load_images)
        bar.addWidget(self.image_label, 1)
        bar.addWidget(self.image_button)
        self.image_bar.setVisible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.image_bar)
        lay.addWidget(self.browser, 1)
        self.entry: Any = None
        # the article's own page shown instead of the feed's text (a store.FullText)
        self.full: Any = None
        self._full_note: tuple[str, str] | None = None  # ("loading"|"error", message)
        self._feed_title = ""
        self._feed_url = ""
        self._page: str | None = None
        self._rerender_pending = False
        self._fitted_width = -1  # the column width the images were last fitted to
        # Tables are fitted again once a resize pauses: it lays them out twice
        # more (see ReaderBrowser.fit_tables), too slow for every step of a drag.
        self._tables_timer = QTimer(self)
        self._tables_timer.setSingleShot(True)
        self._tables_timer.setInterval(TABLE_REFIT_MS)
        self._tables_timer.timeout.connect(self._fit_tables)
        self.show_empty()

    # -- content ----------------------------------------------------------

    def show_entry(
        self,
        entry: Any,
        feed_title: str = "",
        *,
        load_images: bool = False,
        feed_url: str = "",
        full: Any = None,
        full_loading: bool = False,
    ) -> None:
        """Show an article: the feed's text, or ``full`` (its page loaded earlier);
        ``full_loading``: its page is on the way (``show_full`` will bring it)."""
        self.entry = entry
        self.full = full
        self._full_note = ("loading", "") if full_loading and full is None else None
        self._feed_title = feed_title
        self._feed_url = feed_url
        self._page = None
        self.browser.clear_images()
        self.browser.allow_remote_images = load_images
        host = QUrl(feed_url).host()
        self.browser.local_images_ok = bool(host) and is_local_host(host, resolve=False)
        self._render()
        self.browser.verticalScrollBar().setValue(0)

    # what the pane shows of an article (its flags are not shown)
    _SHOWN = ("title", "link", "author", "published", "sort_time", "content", "summary")

    def refresh_entry(self, entry: Any, feed_title: str | None = None) -> bool:
        """Show a fetch's edit of the article shown, where the reader was (the
        scroll position and the images loaded stay). False, and nothing redrawn,
        if another article is shown or nothing shown changed."""
        old = self.entry
        if old is None or self._page is not None or old.id != entry.id:
            return False
        title = self._feed_title if feed_title is None else feed_title
        same = title == self._feed_title and old.enclosures == entry.enclosures
        self.entry = entry
        if same and all(getattr(old, f) == getattr(entry, f) for f in self._SHOWN):
            return False
        self._feed_title = title
        self._render()  # keeps the scroll bar's value
        return True

    def show_full(self, full: Any) -> bool:
        """Show the article's page (a ``store.FullText``) in place of the feed's
        text, from the top. False if another article is shown meanwhile."""
        if self.entry is None or self._page is not None or full.entry_id != self.entry.id:
            return False
        self.full = full
        self._full_note = None
        self._render()
        self.browser.verticalScrollBar().setValue(0)
        return True

    def show_feed_text(self) -> None:
        """Back to the feed's own text of the article shown."""
        if self.entry is None or self._page is not None:
            return
        self.full = None
        self._full_note = None
        self._render()
        self.browser.verticalScrollBar().setValue(0)

    def set_full_state(self, kind: str | None, message: str = "") -> None:
        """Say in the article that its page is loading (``"loading"``), could not
        be loaded (``"error"``, why), or nothing (None); the text stays."""
        if self.entry is None or self._page is not None:
            return
        self._full_note = None if kind is None else (kind, message)
        self._render()  # keeps the scroll bar's value

    @property
    def full_note(self) -> tuple[str, str] | None:
        return self._full_note

    def show_page(self, body_html: str) -> None:
        """Show our own HTML (welcome, empty state); no article."""
        self.entry = None
        self.full = None
        self._full_note = None
        self._page = body_html
        self.browser.allow_remote_images = False
        self._render()

    def show_empty(self, text: str = "No article selected") -> None:
        self.show_page(
            "<table width='100%' height='100%'><tr><td align='center' valign='middle'>"
            f"<p class='empty'>{html.escape(text)}</p></td></tr></table>"
        )

    def show_welcome(self, *, demo_available: bool = False) -> None:
        demo = (
            "<p><a class='btn' href='action:demo'>Try the demo</a> &mdash; a few sample "
            "feeds with history, to see how scheduling works.</p>"
            if demo_available
            else ""
        )
        self.show_page(
            "<div class='welcome'><h1>Welcome to smartreader</h1>"
            "<p>smartreader learns when each of your feeds usually publishes and checks "
            "it just after, within a daily request budget, so new articles arrive "
            "sooner while sites see fewer requests.</p>"
            "<p><a class='btn' href='action:add'>Add a feed…</a> &mdash; paste a feed "
            "address or just a site address; smartreader finds the feed.</p>"
            "<p><a class='btn' href='action:import'>Import OPML…</a> &mdash; bring your "
            "subscriptions from another reader.</p>"
            f"{demo}"
            "<p class='imgnote'>Press <b>?</b> at any time for keyboard shortcuts.</p>"
            "</div>"
        )

    def html(self) -> str:
        return self.browser.toHtml()

    def _entry_html(self) -> str:
        e = self.entry
        title = html.escape(e.title or "(untitled)")
        if e.link:
            # double quotes: Qt decodes no entity in a single-quoted value
            # ("?a=1&amp;b=2" was opened as such)
            title = f'<a href="{html.escape(e.link, quote=True)}">{title}</a>'
        meta = [html.escape(self._feed_title)] if self._feed_title else []
        if e.author:
            meta.append(html.escape(e.author))
        when = _fmt_date(e.published or e.sort_time)
        if when:
            meta.append(when)
        # Stored by an older version maybe: the layout limits are applied again.
        feed_text = e.content or e.summary or ""
        body = tame_stored(self.full.html if self.full is not None else feed_text)
        note = self._full_note_html(feed_text)
        self.browser.refuse_pixels(_pixel_sources(body))
        rtl = _article_dir(e.title or "", body) == "rtl"
        body = _qt_blocks(_qt_figures(body), rtl=rtl)
        encl = ""
        if e.enclosures:
            rows = []
            for x in e.enclosures:
                name = _file_name(x.url)
                info = _attachment_info(x.type, x.length, name)
                info = f" <span class='info'>— {html.escape(info)}</span>" if info else ""
                rows.append(
                    f'<tr><td><a href="{html.escape(x.url, quote=True)}">{html.escape(name)}</a>'
                    f"{info}</td></tr>"
                )
            # our own words, left to right (a div's dir would run on into it)
            encl = (
                "<table class='encl' dir='ltr'><tr><td class='rule'><b>Attachments</b></td></tr>"
                f"{''.join(rows)}</table>"
            )
        article = (
            f"<h1 class='title'>{title}</h1>"
            f"<p class='meta'>{' &nbsp;·&nbsp; '.join(meta)}</p>{note}"
            f"<div class='content'>{body}</div>"
        )
        # One direction for the whole article, not each block's first letter's.
        return (f"<div dir='rtl'>{article}</div>" if rtl else article) + encl

    def _full_note_html(self, feed_text: str) -> str:
        """The line under the meta line about the article's own page: where the
        text shown came from, that it is loading or why it could not be, or an
        offer to load it when the feed's text is short (maybe only a summary)."""
        e = self.entry
        link = QUrl(e.link or "")
        if link.scheme().lower() not in ("http", "https") or not link.host():
            return ""
        sep = " &nbsp;·&nbsp; "
        host = html.escape(link.host())
        # (a page shown stays while it loads again, and if that fails)
        kind, message = self._full_note or ("", "")
        if kind == "loading":
            return f"<p class='imgnote'>Loading the full article from {host}…</p>"
        if kind == "error":
            again = "fullagain" if self.full is not None else "full"
            return (
                f"<p class='imgnote'>{html.escape(message)}{sep}"
                f"<a href='action:{again}'>Try again</a></p>"
            )
        if self.full is not None:
            host = html.escape(QUrl(self.full.url).host() or link.host())
            return (
                f"<p class='imgnote'>Full article from {host}{sep}"
                "<a href='action:feedtext'>Show the feed's text</a>"
                f"{sep}<a href='action:fullagain'>Load again</a></p>"
            )
        # its end is enough (a cut tag at the start of the slice reads as text)
        if looks_cut_short(plain_text(feed_text[-4000:], is_html=True, limit=8000)):
            return (
                "<p class='imgnote'>Only a summary? "
                f"<a href='action:full'>Load the full article</a> from {host} (D)</p>"
            )
        return ""

    # -- text size --------------------------------------------------------

    def set_zoom(self, factor: float) -> None:
        """Text size as a factor of the normal one, kept within ``ZOOM_STEPS``."""
        f = float(factor)
        if not math.isfinite(f):  # a damaged preference
            f = 1.0
        z = min(max(f, ZOOM_STEPS[0]), ZOOM_STEPS[-1])
        if z == self.zoom:
            return
        # the same place in the article stays in view
        bar = self.browser.verticalScrollBar()
        frac = bar.value() / bar.maximum() if bar.maximum() > 0 else 0.0
        self.zoom = z
        self._render()
        bar.setValue(round(frac * bar.maximum()))
        self.zoomChanged.emit(z)

    @Slot(int)
    def zoom_step(self, step: int) -> None:
        """One step larger (+1) or smaller (-1) along ``ZOOM_STEPS``."""
        if step > 0:
            bigger = [z for z in ZOOM_STEPS if z > self.zoom + 1e-6]
            self.set_zoom(bigger[0] if bigger else ZOOM_STEPS[-1])
        elif step < 0:
            smaller = [z for z in ZOOM_STEPS if z < self.zoom - 1e-6]
            self.set_zoom(smaller[-1] if smaller else ZOOM_STEPS[0])

    def zoom_in(self) -> None:
        self.zoom_step(1)

    def zoom_out(self) -> None:
        self.zoom_step(-1)

    def zoom_reset(self) -> None:
        self.set_zoom(1.0)

    def _scale(self) -> float:
        """What the text sizes and the column width are multiplied by: the zoom
        times the application font's size against ``UI_REFERENCE_PT``."""
        font = self.browser.font()
        size = font.pointSizeF()
        if size <= 0:  # a font set in pixels
            size = QFontInfo(font).pointSizeF()
        return self.zoom * (size / UI_REFERENCE_PT if size > 0 else 1.0)

    def _render(self) -> None:
        doc = self.browser.document()
        scale = self._scale()
        font = QFont(self.browser.font())
        font.setPointSizeF(BODY_PT * scale)
        doc.setDefaultFont(font)
        doc.setDefaultStyleSheet(_css(self.palette(), scale))
        scroll = self.browser.verticalScrollBar().value()
        self.browser.blocked_images = 0
        if self._page is not None:
            self.browser.setHtml(self._page)
        elif self.entry is not None:
            self.browser.setHtml(self._entry_html())
            _tighten_code_frames(doc)
        else:
            self.browser.setHtml("")
        self._apply_margins()
        self.browser.blocked_images = self._fit_images()
        self._tables_timer.stop()
        self._fit_tables()
        self.browser.verticalScrollBar().setValue(scroll)
        self.image_bar.setVisible(
            self.entry is not None
            and self.browser.blocked_images > 0
            and not self.browser.allow_remote_images
        )

    def _apply_margins(self) -> None:
        side = self._side_margin()
        root = self.browser.document().rootFrame()
        fmt: QTextFrameFormat = root.frameFormat()
        if fmt.leftMargin() != side or fmt.topMargin() != 20:
            fmt.setLeftMargin(side)
            fmt.setRightMargin(side)
            fmt.setTopMargin(20)
            fmt.setBottomMargin(28)
            root.setFrameFormat(fmt)

    @Slot()
    def _sideways(self) -> None:
        """A sideways scroll bar only for content that does not fit (see
        ``SIDEWAYS_SLACK_PX``)."""
        b = self.browser
        excess = b.document().size().width() - b.viewport().width()
        policy = (
            Qt.ScrollBarPolicy.ScrollBarAsNeeded
            if excess > SIDEWAYS_SLACK_PX
            else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        if b.horizontalScrollBarPolicy() != policy:
            b.setHorizontalScrollBarPolicy(policy)

    def _pane_width(self) -> int:
        """The viewport's width as if the vertical scroll bar were shown: the
        column then stays put when the bar comes or goes (a fitted image's own
        height may bring it), so that image never overflows."""
        bar = self.browser.verticalScrollBar()
        width = self.browser.viewport().width()
        if not bar.isVisibleTo(self.browser):
            width -= bar.sizeHint().width()
        return width

    def _side_margin(self) -> int:
        column = round(READ_WIDTH_PX * self._scale())
        return max(MIN_SIDE_MARGIN, (self._pane_width() - column) // 2)

    def _column_width(self) -> int:
        return self._pane_width() - 2 * self._side_margin()

    def _fit_images(self) -> int:
        self._fitted_width = self._column_width()
        return self.browser.fit_images(self._fitted_width)

    def _fit_tables(self) -> None:
        if self.entry is not None:  # our own pages' tables are for layout
            self.browser.fit_tables(self._pane_width(), self._column_width())

    def _rerender_soon(self) -> None:
        if not self._rerender_pending:
            self._rerender_pending = True
            QTimer.singleShot(100, self._rerender_now)

    def _rerender_now(self) -> None:
        self._rerender_pending = False
        self._render()

    # -- actions ----------------------------------------------------------

    @Slot()
    def load_images(self) -> None:
        self.browser.allow_remote_images = True
        self.loadImagesRequested.emit()
        self._render()

    def scroll_page(self, down: bool = True) -> bool:
        """Scroll one page; False when already at the end (space: go to next)."""
        sb = self.browser.verticalScrollBar()
        if down and sb.value() >= sb.maximum():
            return False
        step = max(40, sb.pageStep() - 40)
        sb.setValue(sb.value() + (step if down else -step))
        return True

    @Slot(QUrl)
    def _on_anchor(self, url: QUrl) -> None:
        scheme = url.scheme().lower()
        if scheme == "action":
            self.actionRequested.emit(url.path())
        elif scheme in OPENABLE_SCHEMES:
            target = self._in_article(url)
            if target is None:
                self._open_url(url)
            elif _has_anchor(self.browser.document(), target):
                self.browser.scrollToAnchor(target)  # puts it at the very top edge;
                bar = self.browser.verticalScrollBar()  # leave a line's room above
                bar.setValue(bar.value() - round(BODY_PT * self._scale() * 2))
            elif self.entry.link:  # no such target here: the page has it, maybe
                self._open_url(url)
        # Anything else (file:, javascript:, relative) is ignored on purpose.

    def _in_article(self, url: QUrl) -> str | None:
        """The anchor name a link into the article shown points to, or None: the
        link leads elsewhere (to be opened in the browser).

        The sanitiser stores ``#fn1`` as ``<item link>#fn1`` (an item without a
        link: against the feed's address, as any relative link), so this
        article's address with a fragment is a same-document link. The address
        itself (the title's link) opens the page, even with a fragment in it."""
        e = self.entry
        fragment = url.fragment(QUrl.ComponentFormattingOption.FullyDecoded)
        if e is None or not fragment:
            return None
        # a page loaded for it resolved its "#fn1" against where it was loaded from
        page = QUrl(self.full.url if self.full is not None else (e.link or self._feed_url))
        if page.isEmpty() or url == page or _without_fragment(url) != _without_fragment(page):
            return None
        return ID_PREFIX + fragment

    @Slot(str)
    def _on_hover(self, link: str) -> None:
        self.browser.setToolTip(tip(link) if link and not link.startswith("action:") else "")

    # -- events -----------------------------------------------------------

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._apply_margins()
        if self._column_width() != self._fitted_width:
            self._fit_images()
            self._tables_timer.start()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        # FontChange: the application's font size changed (see UI_REFERENCE_PT)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._render()

    def sizeHint(self) -> QSize:
        return QSize(640, 480)
