"""OPML 1.0/2.0 subscription lists: import (nested folders, duplicates skipped,
bad outlines reported, never fatal for the good ones) and export.

Our folders are flat names; nested OPML folders become ``"Parent / Child"`` and
are written back as nested outlines, so a round trip keeps the tree. A feed's own
settings travel as attributes in our namespace (``NS``): other readers ignore them;
what they mean is ``smartreader.subscriptions``' business, not the parser's.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from email.utils import formatdate
from xml.sax.saxutils import quoteattr

from smartreader.errors import ParseError
from smartreader.net.credentials import redact
from smartreader.net.sanitize import plain_text, safe_url

FOLDER_SEP = " / "
NS = "https://github.com/smartreader/smartreader/opml"
MAX_OUTLINES = 50_000
MAX_DEPTH = 32
# An internal DTD is how entity bombs arrive; OPML never needs one.
_DTD = re.compile(rb"<!(DOCTYPE|ENTITY)", re.I)


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
    problems: list[str] = field(default_factory=list)
    title: str = ""


def parse_opml(data: bytes) -> OpmlResult:
    """Read an OPML file. Raises ParseError only if nothing can be read at all."""
    if _DTD.search(data[:65_536]):
        raise ParseError("the OPML file contains a DTD; refused as unsafe")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise ParseError(f"not a valid OPML file: {e}") from e
    if _local(root.tag) != "opml":
        raise ParseError(f"not an OPML file (root element is <{_local(root.tag)}>)")
    result = OpmlResult()
    head = root.find("head")
    if head is not None:
        result.title = plain_text(head.findtext("title") or "")
    body = root.find("body")
    if body is None:
        raise ParseError("the OPML file has no <body>")
    seen: set[str] = set()
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
            a = outline.attrib
            label = plain_text(a.get("title") or a.get("text") or "")
            raw_url = (a.get("xmlUrl") or a.get("xmlurl") or a.get("url") or "").strip()
            if raw_url:
                url = safe_url(raw_url)
                if url is None or not url.startswith(("http://", "https://")):
                    result.problems.append(
                        f"outline {label or '(untitled)'!r}: unsupported feed URL "
                        f"{redact(raw_url)[:200]!r}"
                    )
                elif url in seen:
                    result.problems.append(f"outline {label or url!r}: duplicate of {url}")
                else:
                    seen.add(url)
                    site = safe_url(a.get("htmlUrl") or a.get("htmlurl"))
                    ours = tuple(
                        (k[len(_OURS) :], v[:1000]) for k, v in a.items() if k.startswith(_OURS)
                    )
                    result.subscriptions.append(
                        OpmlSubscription(
                            url=url,
                            title=label,
                            folder=FOLDER_SEP.join(folders) or None,
                            site_url=site,
                            settings=ours,
                        )
                    )
                continue
            if len(outline):
                if depth >= MAX_DEPTH:
                    result.problems.append(f"folder {label!r} nested too deeply; skipped")
                    continue
                name = label.replace(FOLDER_SEP, " - ") or "Untitled folder"
                walk(outline, [*folders, name], depth + 1)
            elif a.get("type", "").lower() not in ("", "link", "include"):
                result.problems.append(f"outline {label or '(untitled)'!r} has no feed URL")

    walk(body, [], 0)
    return result


_OURS = "{" + NS + "}"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower()


def write_opml(subs: list[OpmlSubscription], title: str = "smartreader subscriptions") -> bytes:
    """OPML 2.0 with folders as nested outlines, sorted for stable diffs."""
    tree: dict[str, object] = {}

    def node_for(path: list[str]) -> dict[str, object]:
        cur = tree
        for part in path:
            nxt = cur.setdefault("\0" + part, {})
            assert isinstance(nxt, dict)
            cur = nxt
        return cur

    for s in subs:
        folder = node_for(s.folder.split(FOLDER_SEP) if s.folder else [])
        feeds = folder.setdefault("", [])
        assert isinstance(feeds, list)
        feeds.append(s)

    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<opml version="2.0" xmlns:smartreader="{NS}">'
        if any(s.settings for s in subs)
        else '<opml version="2.0">',
        "  <head>",
        f"    <title>{_esc(title)}</title>",
        f"    <dateCreated>{formatdate(usegmt=True)}</dateCreated>",
        "  </head>",
        "  <body>",
    ]

    def emit(node: dict[str, object], indent: int) -> None:
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
            lines.append(f"{pad}<outline text={quoteattr(name)} title={quoteattr(name)}>")
            emit(child, indent + 1)
            lines.append(f"{pad}</outline>")

    emit(tree, 2)
    lines += ["  </body>", "</opml>", ""]
    return "\n".join(lines).encode("utf-8")


def _esc(text: str) -> str:
    return quoteattr(text)[1:-1]
