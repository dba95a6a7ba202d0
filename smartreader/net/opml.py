"""OPML 1.0/2.0 subscription lists: import (nested folders, duplicates skipped,
bad outlines reported, never fatal for the good ones) and export.

Our folders are flat names; nested OPML folders become ``"Parent / Child"`` and
are written back as nested outlines, so a round trip keeps the tree; an empty
folder is kept too, and so is one that holds only folders (marked as ours). A
feed outline that holds outlines of its own brings them in a folder named after
it (noted, never dropped); so does a web page's. A feed's own settings travel
as attributes in our namespace (``NS``): other readers ignore them; what they
mean is ``smartreader.subscriptions``' business, not the parser's.
"""

from __future__ import annotations

import codecs
import html.entities
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.utils import formatdate
from urllib.parse import urlsplit
from xml.sax.saxutils import quoteattr as _quoteattr

from smartreader.errors import ParseError, UsageError
from smartreader.net.credentials import redact
from smartreader.net.sanitize import plain_text, safe_url, strip_unsafe_chars
from smartreader.net.urls import typed_address
from smartreader.text import count_of

FOLDER_SEP = " / "
NS = "https://github.com/smartreader/smartreader/opml"
MAX_OUTLINES = 50_000
MAX_DEPTH = 32

# An entity declaration is how entity bombs (billion laughs, quadratic blow-up)
# arrive, and an internal DTD subset is where it would be; OPML never needs either.
# Checked on the decoded text, so a UTF-16 file cannot slip one past.
_ENTITY = re.compile(r"<!ENTITY", re.I)
# A DOCTYPE: its name, an optional external id, then "[" (an internal subset) or ">".
_DOCTYPE = re.compile(
    r"<!DOCTYPE(?:\s+[^\s>\[]+(?:\s+(?:SYSTEM|PUBLIC)(?:\s+(?:\"[^\"]*\"|'[^']*'))+)?\s*(\[|>))?",
    re.I,
)
# An HTML page saved as .opml (a 404 page, "Save link as"): said as such.
_HTML = re.compile(
    r"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!DOCTYPE\s+html\b|html\b)", re.I | re.S
)
_DECLARATION = re.compile(rb"\s*<\?xml\b[^>]*?\bencoding\s*=\s*[\"']([A-Za-z][\w.:-]*)[\"']")
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Without a byte-order mark, how "<" starts a UTF-32 or UTF-16 file (XML 1.0, Appendix F).
_WIDE = (
    (b"<\0\0\0", "utf-32-le"),
    (b"\0\0\0<", "utf-32-be"),
    (b"<\0", "utf-16-le"),
    (b"\0<", "utf-16-be"),
)
# A "&" that starts no reference, or a reference; CDATA sections and comments are
# left alone (a "&" is allowed there as it stands).
_AMP = re.compile(
    r"(<!\[CDATA\[.*?\]\]>|<!--.*?-->)|&(?:(#[0-9]+|#x[0-9A-Fa-f]+|[A-Za-z_][\w.-]*);)?", re.S
)
_XML_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})
# Characters XML 1.0 forbids even as references ("&#11;"): a vertical tab or an
# escape code pasted into a title made the whole file unreadable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_char(code: int) -> bool:
    return not (_NOT_XML.match(chr(code)) or 0xD800 <= code < 0xE000)


_FEED_ROOTS = frozenset({"rss", "feed", "rdf"})


@dataclass(frozen=True)
class OpmlSubscription:
    url: str
    title: str = ""
    folder: str | None = None
    site_url: str | None = None
    # (name, value) of the outline's attributes in our namespace, as written
    settings: tuple[tuple[str, str], ...] = ()


@dataclass
class OpmlResult:
    subscriptions: list[OpmlSubscription] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what was left out, and why
    title: str = ""
    # Folders with nothing in them in the file (an outline with a name, no address
    # and no outlines inside), and in a file of ours the folders marked as folders
    # that hold only folders: kept, as our flat names. Folders that hold feeds are
    # named by the feeds' ``folder``.
    folders: list[str] = field(default_factory=list)
    # What was read other than as written, nothing left out: a file in no declared
    # encoding that is not UTF-8, a bare "&", feeds nested under a feed.
    notes: list[str] = field(default_factory=list)
    # Written by smartreader (our namespace is declared): an outline's text is then
    # the feed's title, and a name its user gave is in our ``title`` attribute.
    ours: bool = False


def parse_opml(data: bytes) -> OpmlResult:
    """Read an OPML file. Raises ParseError only if nothing can be read at all.

    Lenient where that is safe and common, and says so in ``notes``: a file that
    names no encoding and is not UTF-8 is read as Windows-1252; a bare "&" (not
    written "&amp;") is taken as "&", an HTML entity name ("&eacute;") as its
    character, a control character XML forbids as a blank. Never lenient about
    a DTD that declares anything (entity bombs).

    A feed outline that holds outlines (not OPML as written, but it happens): the
    feed is imported where it is, and what it holds goes into a folder named after
    it, as if the feed's outline were a folder too."""
    notes: list[str] = []
    text = _decode(data, notes)
    if not text.strip():
        raise ParseError("the file is empty")
    if _HTML.match(text[:65_536]):
        raise ParseError("not an OPML file (it is an HTML page)")
    text = _without_doctype(text)
    root = _parse_xml(text, notes)
    tag = _local(root.tag)
    if tag == "html":
        raise ParseError("not an OPML file (it is an HTML page)")
    if tag in _FEED_ROOTS:
        raise ParseError(
            f"not an OPML file: it is a feed (<{tag}>), not a list of feeds; "
            "subscribe to its address instead"
        )
    if tag != "opml":
        raise ParseError(f"not an OPML file (root element is <{tag}>)")
    result = OpmlResult(notes=notes, ours=NS in text)
    # by local name: a file in a namespace (xmlns="http://opml.org/spec2") is OPML too
    head = _child(root, "head")
    if head is not None:
        title = _child(head, "title")
        result.title = plain_text(title.text if title is not None else "")
    body = _child(root, "body")
    if body is None:
        raise ParseError("the OPML file has no <body>")
    seen: set[str] = set()
    folders_seen: set[str] = set()
    count = 0

    def walk(node: ET.Element, folders: list[str], depth: int) -> None:
        nonlocal count
        for outline in node:
            if _local(outline.tag) != "outline":
                continue
            count += 1
            if count > MAX_OUTLINES:
                if count == MAX_OUTLINES + 1:
                    result.problems.append(f"more than {MAX_OUTLINES} outlines; the rest skipped")
                return
            # OPML's attribute names in any case ("xmlURL" is common enough); ours,
            # in our namespace ("{…}minInterval"), as written
            a = {k if k.startswith("{") else k.lower(): v for k, v in outline.attrib.items()}
            # a title that cleans to nothing (" ", an RLO) gives way to the text
            label = plain_text(a.get("title")) or plain_text(a.get("text"))
            kind = a.get("type", "").strip().lower()
            raw_url = (a.get("xmlurl") or "").strip()
            link = (a.get("url") or "").strip()
            if not raw_url and link and kind in ("link", "include"):
                # a web page or another OPML file, not a feed: it would fail at
                # every update. What it holds is read as a folder's.
                a_list = kind == "include" or urlsplit(link).path.lower().endswith(".opml")
                what = "includes another OPML file" if a_list else "is a link to a web page"
                result.problems.append(
                    f"outline {label or '(untitled)'!r} {what} ({redact(link)[:200]}): "
                    "not a feed; left out" + ("; import that file itself" if a_list else "")
                )
                if not len(outline):
                    continue
                link = ""
            raw_url = raw_url or link
            if not raw_url and not len(outline) and a.get("htmlurl"):
                site = redact(a["htmlurl"].strip())[:200]
                result.problems.append(
                    f"outline {label or '(untitled)'!r} names a web site ({site}) but no "
                    "feed; left out: `smartreader add` that address finds its feeds"
                )
                continue
            if raw_url:
                feed(a, label, kind, raw_url, folders)
            if len(outline):
                if depth >= MAX_DEPTH:
                    result.problems.append(
                        f"folder {label!r} nested too deeply; skipped with "
                        f"{count_of(len(outline.findall('.//outline')) + 1, 'outline')}"
                    )
                    continue
                name = label.replace(FOLDER_SEP, " - ") or "Untitled folder"
                if raw_url:
                    result.notes.append(
                        f"the feed {label or redact(raw_url)[:200]!r} holds outlines of "
                        f"its own: they went into the folder {FOLDER_SEP.join([*folders, name])!r}"
                    )
                if not raw_url and a.get(_OURS + "folder") == "true":
                    # ours, a folder of the list that holds only folders ("Top"
                    # above "Top / Sub"): else a round trip lost it. Elsewhere the
                    # nesting alone names "Top / Sub".
                    register(FOLDER_SEP.join([*folders, name]))
                walk(outline, [*folders, name], depth + 1)
            elif not raw_url:
                empty(label, kind, folders)

    def empty(label: str, kind: str, folders: list[str]) -> None:
        """An outline with no address and nothing in it: an empty folder, if it is one."""
        if kind:
            result.problems.append(f"outline {label or '(untitled)'!r} has no feed URL")
        elif label:
            register(FOLDER_SEP.join([*folders, label.replace(FOLDER_SEP, " - ")]))
        else:
            result.problems.append("an outline with no name, no address and nothing in it")

    def register(name: str) -> None:
        if name not in folders_seen:
            folders_seen.add(name)
            result.folders.append(name)

    def feed(a: dict[str, str], label: str, kind: str, raw_url: str, folders: list[str]) -> None:
        # as `smartreader add` reads an address: "feed:" forms, any case, a bare host
        try:
            url = safe_url(typed_address(raw_url))
        except UsageError:
            url = None
        if url is None:
            result.problems.append(
                f"outline {label or '(untitled)'!r}: unsupported feed URL {redact(raw_url)[:200]!r}"
            )
        elif kind == "include":
            result.problems.append(
                f"outline {label or '(untitled)'!r} includes another OPML file "
                f"({redact(url)[:200]}): not followed; import that file itself"
            )
        elif url in seen:
            result.problems.append(f"outline {label or url!r}: duplicate of {redact(url)}")
        else:
            seen.add(url)
            site = safe_url(a.get("htmlurl"))
            ours = tuple((k[len(_OURS) :], v[:1000]) for k, v in a.items() if k.startswith(_OURS))
            result.subscriptions.append(
                OpmlSubscription(
                    url=url,
                    title=label,
                    folder=FOLDER_SEP.join(folders) or None,
                    site_url=site,
                    settings=ours,
                )
            )

    walk(body, [], 0)
    return result


def _decode(data: bytes, notes: list[str]) -> str:
    """The file's text: by its byte-order mark, else the encoding its XML
    declaration names, else UTF-8; a file that names none and is not UTF-8 is
    read as Windows-1252 (Latin-1 for the few bytes that has no letter for), with
    a note."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return _strict(data, codec, codec.split("-sig")[0].upper())
    for start, codec in _WIDE:
        if data.startswith(start):
            return _strict(data, codec, codec[:6].upper())
    m = _DECLARATION.match(data[:1024])
    if m is not None:
        name = m.group(1).decode("ascii")
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            raise ParseError(
                f"the file is in an encoding this program does not know ({name!r})"
            ) from None
        # A 16/32-bit encoding named in a plainly 8-bit file: the name is wrong
        if not codec.startswith(("utf-16", "utf-32")):
            return _strict(data, codec, name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    notes.append(
        "read leniently: the file is not UTF-8 and names no encoding, so it was read "
        "as Windows-1252 (Western European); check that accented titles look right"
    )
    return text


def _strict(data: bytes, codec: str, name: str) -> str:
    try:
        return data.decode(codec).lstrip("\ufeff")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ParseError(
            f"the file says it is {name} but is not: byte 0x{data[e.start]:02X} "
            f"on line {line} is not {name}"
        ) from e


def _without_doctype(text: str) -> str:
    """The text with a harmless DOCTYPE blanked out (lines and columns kept): with
    an external DTD the parser would drop an undefined "&name;" without a word.
    Raises ParseError for an entity declaration or an internal subset."""
    if _ENTITY.search(text):
        raise ParseError("the OPML file declares entities in a DTD; refused as unsafe")
    out: list[str] = []
    pos = 0
    for m in _DOCTYPE.finditer(text):
        if m.group(1) == "[":
            raise ParseError("the OPML file has an internal DTD; refused as unsafe")
        if m.group(1) is None:
            raise ParseError("the OPML file has a DOCTYPE (DTD) it cannot read; refused as unsafe")
        out += [text[pos : m.start()], re.sub(r"[^\n]", " ", m.group(0))]
        pos = m.end()
    return "".join(out) + text[pos:] if out else text


def _parse_xml(text: str, notes: list[str]) -> ET.Element:
    try:
        return ET.fromstring(text)
    except ET.ParseError as e:
        error = e
    amps = names = controls = 0

    def repair(m: re.Match[str]) -> str:
        nonlocal amps, names, controls
        ref = m.group(2)
        if ref is not None and ref[0] == "#" and not m.group(1):
            code = int(ref[2:], 16) if ref[1] in "xX" else int(ref[1:])
            if code < 0x110000 and not _xml_char(code):
                controls += 1  # a blank, as the store makes of a control in a name
                return " "
        if m.group(1) or (ref is not None and (ref[0] == "#" or ref in _XML_ENTITIES)):
            return m.group(0)
        if ref is None:
            amps += 1
            return "&amp;"
        chars = html.entities.html5.get(ref + ";")
        if chars is None:
            return m.group(0)  # an unknown name: still an error
        names += 1
        return "".join(f"&#{ord(c)};" for c in chars)

    fixed = _AMP.sub(repair, text)
    fixed, raw = _NOT_XML.subn(" ", fixed)
    controls += raw
    if amps or names or controls:
        try:
            root = ET.fromstring(fixed)
        except ET.ParseError:
            pass
        else:
            if amps:
                bare = f"{amps:,} bare '&'"
                notes.append(f"read leniently: {bare} (not written '&amp;') taken as '&'")
            if names:
                notes.append(
                    f"read leniently: {count_of(names, 'HTML entity name')} (such as "
                    '"&eacute;", not XML) taken as the characters they name'
                )
            if controls:
                notes.append(
                    f"read leniently: {count_of(controls, 'control character')} (not "
                    "allowed in XML) taken as blanks"
                )
            return root
    raise ParseError(f"not a valid OPML file: {error}") from error


_OURS = "{" + NS + "}"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower()


def _child(node: ET.Element, name: str) -> ET.Element | None:
    """The first child element called ``name``, in any namespace."""
    return next((c for c in node if isinstance(c.tag, str) and _local(c.tag) == name), None)


def write_opml(
    subs: list[OpmlSubscription],
    title: str = "smartreader subscriptions",
    folders: Iterable[str] = (),
) -> bytes:
    """OPML 2.0 with folders as nested outlines, sorted for stable diffs.
    ``folders``: folder names written even when no feed is in them."""
    tree: dict[str, object] = {}

    def node_for(path: list[str]) -> dict[str, object]:
        cur = tree
        for part in path:
            nxt = cur.setdefault("\0" + part, {})
            assert isinstance(nxt, dict)
            cur = nxt
        return cur

    real: set[tuple[str, ...]] = set()
    for name in folders:
        if name.strip():
            node_for(name.strip().split(FOLDER_SEP))
            real.add(tuple(name.strip().split(FOLDER_SEP)))
    for s in subs:
        folder = node_for(s.folder.split(FOLDER_SEP) if s.folder else [])
        feeds = folder.setdefault("", [])
        assert isinstance(feeds, list)
        feeds.append(s)

    lines: list[str] = []  # the body's; the head follows from it
    marked = False  # a folder marked in our namespace: declare it

    def emit(node: dict[str, object], indent: int, path: tuple[str, ...] = ()) -> None:
        nonlocal marked
        pad = "  " * indent
        feeds = node.get("", [])
        assert isinstance(feeds, list)
        for s in sorted(feeds, key=lambda s: (s.title.lower(), s.url)):
            text = s.title or s.url
            attrs = f'type="rss" text={quoteattr(text)} title={quoteattr(text)} '
            attrs += f"xmlUrl={quoteattr(s.url)}"
            if s.site_url:
                attrs += f" htmlUrl={quoteattr(s.site_url)}"
            for name, value in s.settings:
                attrs += f" smartreader:{name}={quoteattr(value)}"
            lines.append(f"{pad}<outline {attrs}/>")
        for key in sorted(k for k in node if k):
            child = node[key]
            assert isinstance(child, dict)
            name = key[1:]
            attrs = f"text={quoteattr(name)} title={quoteattr(name)}"
            if not child:  # an empty folder
                lines.append(f"{pad}<outline {attrs}/>")
                continue
            if (*path, name) in real and not child.get(""):
                # a folder of its own holding only folders, not only the path to
                # "Top / Sub": said so, or our import would not make it
                attrs += ' smartreader:folder="true"'
                marked = True
            lines.append(f"{pad}<outline {attrs}>")
            emit(child, indent + 1, (*path, name))
            lines.append(f"{pad}</outline>")

    emit(tree, 2)
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<opml version="2.0" xmlns:smartreader="{NS}">'
        if marked or any(s.settings for s in subs)
        else '<opml version="2.0">',
        "  <head>",
        f"    <title>{_esc(title)}</title>",
        f"    <dateCreated>{formatdate(usegmt=True)}</dateCreated>",
        "  </head>",
        "  <body>",
    ]
    return "\n".join([*head, *lines, "  </body>", "</opml>", ""]).encode("utf-8")


def quoteattr(text: str) -> str:
    # without what XML 1.0 cannot hold, even escaped: a folder named with a control
    # character made a file our own import refused ("not well-formed")
    return _quoteattr(strip_unsafe_chars(text))


def _esc(text: str) -> str:
    return quoteattr(text)[1:-1]
